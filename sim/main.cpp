// SPDX-License-Identifier: MIT
// beryl-sim: the Beryl NIC RTL (beryl_nic_us_top, verilated) with a C++ PCIe host model, Ethernet
// wires/TAP devices on its ports, and a UNIX-socket server for the driver (docs/sim_protocol.md).
// One or two NIC instances, each with its own oscillator (period, phase) on one global time line
// in picoseconds; a NIC is clocked at its own edges. The clock runs only while something is in
// flight; idle, the process sleeps in poll().
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "Vberyl_nic_us_top.h"
#include "Vberyl_nic_us_top___024root.h"
#ifdef BERYL_LOCKSTEP
#include "Vref.h"
#include "Vref___024root.h"
#include "ls_state.h"
#endif
#include "verilated.h"
#include "sim_ports.h"
#include "sim_trig.h"
#ifdef BERYL_GATE_STATS
#include "gate_stats.h"
#endif
#include "eth.hpp"
#include "pcie_host.hpp"
#include "usp_if.hpp"

using namespace beryl;

#ifndef P_IF_COUNT
#define P_IF_COUNT 2
#endif
#ifndef P_PORT_COUNT
#define P_PORT_COUNT 1
#endif
#ifndef P_MSIX_VECTORS
#define P_MSIX_VECTORS 32
#endif
#ifndef P_RC_STRADDLE
#define P_RC_STRADDLE 1
#endif
#ifndef CFG_NAME
#define CFG_NAME "default"
#endif

static constexpr int NP = P_IF_COUNT * P_PORT_COUNT;   // ports per NIC
static constexpr int MAX_NICS = 2;
static constexpr uint64_t HOST_MEM_BASE = 0x100000000ull;
static constexpr uint32_t BAR0_SIZE = 1u << 18;
static constexpr uint32_t MSIX_TABLE = 0x10000;
static constexpr uint32_t PROTO_VERSION = 1;
enum { M_HELLO = 1, M_READ32, M_WRITE32, M_IRQ, M_STATS, M_ERROR, M_BYE, M_GEN };

static volatile sig_atomic_t g_quit = 0;
static volatile sig_atomic_t g_dump = 0;   // SIGUSR1: print every NIC's STATS JSON on stderr
static bool g_quiet = false;

static void logf(const char* fmt, ...) {
  if (g_quiet) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "beryl-sim: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

// host memory files and sockets to remove if we die after creating them
static std::vector<std::string> g_cleanup_files;

[[noreturn]] static void die(const char* fmt, ...) {
  for (auto& f : g_cleanup_files) unlink(f.c_str());
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "beryl-sim: error: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static double wall_now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// a model input of any width (CData .. VlWide) set to 0
template <class T>
static void zero_port(T& v) {
  memset(static_cast<void*>(&v), 0, sizeof v);
}

// ----------------------------------------------------------------------------- rising-edge eval
// Verilator's eval() runs the input-combinational region (ico: the logic that reads the model's
// inputs) on every call, then the clocked regions. Between the falling-edge eval (or the previous
// rising-edge eval, when the falling one is skipped) and the rising edge the harness changes no
// input but clk, which no ico logic reads but the clock gates' latches, closed while clk is high;
// the clocked (nba) region recomputes whatever depends on inputs and new state. So the rising-edge
// ico pass would only recompute the values it already holds (about 5 % of a cycle).
//
// Verilator finds the clocked work of an eval through its active-region triggers: it recomputes
// every clock expression (clk, and clk & gate_en_l per clock gate), compares each with the value it
// kept from the previous eval, and runs the NBA functions of the bits that rose, then repeats until
// nothing rises. With some 60 gates that cost about 1 900 instructions per simulated cycle. Here clk
// is the only clock, so the triggers of a rising edge are known: posedge clk, and the gated clock of
// every gate whose latch is open (its enable taken while clk was low). rise_fast() sets them and runs
// the NBA functions once: nothing can rise after them while clk stays high (a latch takes its enable
// only while clk is low). The trigger bits and gates come from sim/trig_map.py (sim_trig.h), which
// fails the build if the model has a trigger of another kind. Internals of the pinned Verilator
// 5.048 (the NBA function and the trigger vector); a rename fails the build.
//
// Verilator's kept clock values are then stale; only its own trigger pass reads them, and in the
// default mode that runs only in falling-edge evals, where every clock expression is 0 (clk low), so
// nothing can trigger whatever they hold. --check-fast-edge runs Verilator's trigger pass before
// each rise_fast() and stops if its triggers differ from rise_fast()'s, then a full eval() after it,
// which must change no output.
void Vberyl_nic_us_top___024root___eval_nba(Vberyl_nic_us_top___024root* vlSelf);
void Vberyl_nic_us_top___024root___eval_triggers_vec__act(Vberyl_nic_us_top___024root* vlSelf);

// A gate's latch holds its enable as it was at the end of the low phase, and nothing changes the
// enable (gate_en_now) between then and the rising edge: a falling-edge eval whose inputs changed
// runs the latches with the rest of the input region (fall_fast()), so latch and enable are equal
// after it; one that is skipped changes nothing the enable depends on. So the trigger bit of a gate is
// read off its enable, and a skipped falling-edge eval need not copy the enables into the latches
// (Verilator's latch variables are then stale, but only its own trigger pass reads them, which runs
// only where every falling-edge eval is a full one: the first cycle, --check-fast-edge, where the
// triggers set here are compared with Verilator's in every cycle, and builds without fast edges).
#ifdef BERYL_SIM_GATES_PACKED
// sim/nba_clk.py declares the enables as consecutive bytes in the order of their trigger bits
// (BERYL_SIM_GATE_FIRST the first, sim_trig.h; Nic checks every address at start-up), so eight of them
// come in one 64-bit load: each byte is 0 or 1 (Verilator keeps the bits above a variable's width
// zero), and the multiplication gathers bit 0 of byte i into bit 56 + i (the partial products
// 2^(8(i+j) + 7 - j) of the constant's bits j never collide, so nothing carries). About 60
// instructions for 85 gates instead of about 250 (a load, shift and OR each).
static inline void rise_triggers(const Vberyl_nic_us_top___024root* r, uint64_t (&w)[BERYL_SIM_TRIG_WORDS]) {
  constexpr int N = BERYL_SIM_GATE_COUNT;
  constexpr int C = BERYL_SIM_TRIG_CLK_WORD * 64 + BERYL_SIM_TRIG_CLK_BIT;   // clk's trigger bit
  static_assert(N + 1 <= 64 * BERYL_SIM_TRIG_WORDS, "one trigger bit per gate and clk's");
  const uint8_t* g = &r->BERYL_SIM_GATE_FIRST;
  uint64_t m[BERYL_SIM_TRIG_WORDS] = {};   // bit s: the enable of gate s (trigger order)
#pragma GCC unroll 32
  for (int k = 0; k < N; k += 8) {
    uint64_t x;
    memcpy(&x, g + k, 8);   // the last load reads up to 7 bytes past the last enable (checked in range)
    if (N - k < 8) x &= (uint64_t(1) << (8 * (N - k))) - 1;
    m[k / 64] |= ((x * 0x0102040810204080ull) >> 56) << (k % 64);
  }
  // gate s has trigger bit s below clk's bit and s + 1 above it
#pragma GCC unroll 8
  for (int i = 0; i < BERYL_SIM_TRIG_WORDS; i++) {
    uint64_t up = (m[i] << 1) | (i ? m[i - 1] >> 63 : 0);
    uint64_t low = C >= 64 * (i + 1) ? ~uint64_t(0) : C <= 64 * i ? 0 : (uint64_t(1) << (C - 64 * i)) - 1;
    w[i] = (m[i] & low) | (up & ~low);
  }
  w[C / 64] |= uint64_t(1) << (C % 64);   // posedge clk
}

// the enables sit where rise_triggers() reads them, each at its gate's place in trigger order
static bool gates_packed_ok(const Vberyl_nic_us_top___024root* r) {
  const uint8_t* g = &r->BERYL_SIM_GATE_FIRST;
  bool ok = g + (BERYL_SIM_GATE_COUNT + 7) / 8 * 8 <= reinterpret_cast<const uint8_t*>(r) + sizeof *r;
  int s = 0;
#define BERYL_GATE_AT(word, bit, gate) ok &= &r->gate##__DOT__gate_en_now == g + s++;
  BERYL_SIM_TRIGS(BERYL_GATE_AT)
#undef BERYL_GATE_AT
  return ok && s == BERYL_SIM_GATE_COUNT;
}
#else
// (enables not packed, e.g. a model that sim/nba_clk.py did not patch: one load, shift and OR each)
static inline void rise_triggers(const Vberyl_nic_us_top___024root* r, uint64_t (&w)[BERYL_SIM_TRIG_WORDS]) {
  for (int i = 0; i < BERYL_SIM_TRIG_WORDS; i++) w[i] = 0;
  w[BERYL_SIM_TRIG_CLK_WORD] = uint64_t(1) << BERYL_SIM_TRIG_CLK_BIT;   // posedge clk
#define BERYL_TRIG_BIT(word, bit, g) w[word] |= uint64_t(r->g##__DOT__gate_en_now) << (bit);
  BERYL_SIM_TRIGS(BERYL_TRIG_BIT)
#undef BERYL_TRIG_BIT
}
static bool gates_packed_ok(const Vberyl_nic_us_top___024root*) { return true; }
#endif

// A falling-edge eval whose inputs changed: Verilator's eval() runs the input-combinational region
// once (its only trigger is "first iteration", checked by sim/trig_map.py), then a trigger pass over
// clocks that are all low while clk is, so nothing can trigger. fall_fast() runs the ico region alone.
// --check-fast-edge runs a full eval() after it, which must change no output.
bool Vberyl_nic_us_top___024root___eval_phase__ico(Vberyl_nic_us_top___024root* vlSelf);

//
// The input region also copies every clock gate's enable into its latch (gate_en_l), which only
// Verilator's own trigger pass reads; sim/nba_clk.py makes that copy depend on the flag below, so a
// fast falling edge skips it (about 110 instructions). The latches are stale then, like those of a
// skipped falling-edge eval (see rise_triggers()); the full evals that need them run them.
bool beryl_sim_ico_no_latches = false;

static inline void fall_fast(Vberyl_nic_us_top* t) {
  Vberyl_nic_us_top___024root* r = t->rootp;
  r->__VicoFirstIteration = 1;
  beryl_sim_ico_no_latches = true;
  Vberyl_nic_us_top___024root___eval_phase__ico(r);
  beryl_sim_ico_no_latches = false;
  r->__VicoFirstIteration = 0;
}

static void rise_fast(Vberyl_nic_us_top* t, bool check, unsigned long long cyc) {
  Vberyl_nic_us_top___024root* r = t->rootp;
  uint64_t w[BERYL_SIM_TRIG_WORDS];
  rise_triggers(r, w);
  if (check) {
    // Verilator's own trigger pass; its kept values are those of the full falling-edge eval
    // that check mode always runs (every gated clock low)
    Vberyl_nic_us_top___024root___eval_triggers_vec__act(r);
    for (int i = 0; i < BERYL_SIM_TRIG_WORDS; i++)
      if (r->__VactTriggered[i] != w[i])
        die("--check-fast-edge: cycle %llu: rising-edge triggers word %d: Verilator 0x%016llx, rise_fast 0x%016llx",
            cyc, i, (unsigned long long)r->__VactTriggered[i], (unsigned long long)w[i]);
  }
  for (int i = 0; i < BERYL_SIM_TRIG_WORDS; i++) r->__VnbaTriggered[i] = w[i];
  Vberyl_nic_us_top___024root___eval_nba(r);
  for (int i = 0; i < BERYL_SIM_TRIG_WORDS; i++) r->__VnbaTriggered[i] = 0;
}


// ----------------------------------------------------------------------------- options
// The model's inputs: every port of beryl_nic_us_top but clk (BERYL_SIM_INPUTS, read off the verilated
// header by the Makefile into sim_ports.h, with BERYL_SIM_OUTPUTS). A cycle whose inputs equal
// those of the previous rising-edge eval needs no falling-edge eval: that eval already settled the
// combinational logic for exactly these inputs (every flop in the RTL is clocked on the rising edge).
// Nor does one in which only inputs changed that the input-combinational region does not read (stream
// data, keep and user bits: BERYL_SIM_ICO_INPUTS, sim/trig_map.py lists the others): only clocked
// logic reads those, at the rising edge, which reads them as they are then.
// The writers of the inputs note changes (Nic::inputs_changed()), which then compares a copy of the
// inputs the region reads (IcoSnap); --check-fast-edge checks the notes against a copy of every input
// (InputSnap) and checks outputs with a copy of them (OutputSnap).
// a copy of a list of the model's ports (BERYL_SIM_INPUTS or BERYL_SIM_OUTPUTS)
#define BERYL_PORT_SNAP(NAME, LIST)                                                            \
  struct NAME {                                                                                \
    LIST(BERYL_SNAP_DECL)                                                                      \
    bool valid = false;                                                                        \
    /* copy the ports; true if any differs from the copy taken last time */                     \
    bool update(const Vberyl_nic_us_top* t) {                                                  \
      bool diff = !valid;                                                                      \
      LIST(BERYL_SNAP_CMP)                                                                     \
      valid = true;                                                                            \
      return diff;                                                                             \
    }                                                                                          \
  };
#define BERYL_SNAP_DECL(n) std::remove_reference_t<decltype(std::declval<Vberyl_nic_us_top&>().n)> n{};
#define BERYL_SNAP_CMP(n)                                 \
  if (memcmp(&n, &t->n, sizeof n) != 0) {                 \
    memcpy(static_cast<void*>(&n), &t->n, sizeof n);      \
    diff = true;                                          \
  }
BERYL_PORT_SNAP(InputSnap, BERYL_SIM_INPUTS)
BERYL_PORT_SNAP(IcoSnap, BERYL_SIM_ICO_INPUTS)
BERYL_PORT_SNAP(OutputSnap, BERYL_SIM_OUTPUTS)
#undef BERYL_SNAP_DECL
#undef BERYL_SNAP_CMP

#ifdef BERYL_LOCKSTEP
// Lock-step check of the clock gates (make -C sim LOCKSTEP=1): a second model of the same RTL built
// with BERYL_NO_CLK_GATE (every block clocked in every cycle, as on the FPGA) gets the same inputs in
// every cycle; after each edge every output of the two must be equal, and after each rising edge every
// design variable both keep (ls_state.h), else the simulator stops and names the port or variable. A
// gate whose enable missed a cycle in which its block had work shows up here.
static void lockstep_inputs(Vref* r, const Vberyl_nic_us_top* t) {
#define BERYL_LS_COPY(n) memcpy(static_cast<void*>(&r->n), &t->n, sizeof r->n);
  BERYL_SIM_INPUTS(BERYL_LS_COPY)
#undef BERYL_LS_COPY
}
// the first output that differs, or nullptr
static const char* lockstep_diff(const Vref* r, const Vberyl_nic_us_top* t) {
#define BERYL_LS_CMP(n) if (memcmp(&r->n, &t->n, sizeof r->n) != 0) return #n;
  BERYL_SIM_OUTPUTS(BERYL_LS_CMP)
#undef BERYL_LS_CMP
  return nullptr;
}
// the first design variable (flop, RAM, or a net computed from them) that differs, or nullptr: a
// gate that missed a cycle of work shows up here even while no output depends on it yet
static const char* lockstep_state_diff(const Vref* r, const Vberyl_nic_us_top* t) {
  const auto* rr = r->rootp;
  const auto* tr = t->rootp;
#define BERYL_LS_ST(n)                                                          \
  static_assert(sizeof rr->n == sizeof tr->n, "lock-step: " #n " has another type in the two models"); \
  if (memcmp(&rr->n, &tr->n, sizeof rr->n) != 0) return #n;
  BERYL_LS_STATE(BERYL_LS_ST)
#undef BERYL_LS_ST
  return nullptr;
}
#endif

struct Opts {
  int nics = 1;
  std::string socket_path = "/tmp/beryl-sim.sock";
  std::string socket_1;       // NIC 1's socket (default: socket_path + ".1")
  std::string shm_path;
  std::string shm_1;          // NIC 1's host memory file (default: shm_path + ".1")
  std::vector<std::pair<int, double>> ppm;        // --ppm I:X, checked against --nics after parsing
  std::vector<std::pair<int, double>> phase_ps;   // --phase-ps I:P
  uint64_t mem_mb = 256;
  PcieCfg pcie;
  std::vector<std::pair<int, int>> wires;
  std::vector<WireCfg> wire_cfgs;
  std::vector<std::pair<int, std::string>> taps;
  WireCfg wire_default;
  double line_gbps = 100;
  uint64_t grace = 4096;
  uint64_t seed = 1;
  uint64_t bench_cycles = 0;  // run this many cycles (clocking even when idle) and exit
  bool fast_edge = true;      // skip the falling-edge eval of cycles whose inputs did not change
  bool check_fast_edge = false;  // evaluate those cycles anyway and die if an output changes
  bool no_default_wire = false;
  std::string ptp_probe;      // two NICs: write NIC 1's PTP time minus NIC 0's here, one line per sample
  std::string gate_stats;     // GATE_STATS=1 builds: per clock gate, cycles open and open for nothing
  double ptp_probe_ns = 1000; // sample interval, ns of global time
  // per NIC, derived after parsing: clock period and phase (ps) and frequency offset (ppm)
  double period_ps[MAX_NICS] = {0, 0};
  double phase[MAX_NICS] = {0, 0};
  double ppm_of[MAX_NICS] = {0, 0};
};

static void usage() {
  fprintf(stderr,
          "usage: beryl-sim [options]   (build %s: %d interface(s) x %d port(s) per NIC)\n"
          "  --nics N               NIC instances, 1 or 2 (default 1); port p of NIC i is global port i * %d + p\n"
          "  --ppm I:X              NIC I's clock is X ppm fast (negative: slow; period 4000 ps / (1 + X 1e-6))\n"
          "  --phase-ps I:P         NIC I's rising edges at k * period + P ps (0 <= P < period; default 0)\n"
          "  --gate-stats FILE      (builds with GATE_STATS=1) at exit, per clock gate: cycles open and open with\n"
          "                         nothing in its block changed, one JSON object per line (NIC 1: FILE.1)\n"
          "  --ptp-probe FILE       two NICs: every --ptp-probe-ns (default 1000) ns of global time write\n"
          "                         'T_PS OFFSET_NS': NIC 1's PTP time of day minus NIC 0's at T (read off the RTL)\n"
          "  --socket PATH          NIC 0's driver socket (default /tmp/beryl-sim.sock; NIC 1: PATH.1)\n"
          "  --socket-1 PATH        NIC 1's driver socket\n"
          "  --shm PATH             NIC 0's host memory file (default /dev/shm/beryl-sim-<pid>; NIC 1: PATH.1)\n"
          "  --shm-1 PATH           NIC 1's host memory file\n"
          "  --mem-mb N             host memory size per NIC, MiB (default 256)\n"
          "  --gen 3|4|5            PCIe generation (default 3)\n"
          "  --width 8|16           link width (default 16)\n"
          "  --mps BYTES            max payload size 128..1024 (default 256)\n"
          "  --mrrs BYTES           max read request size 128..4096 (default 512)\n"
          "  --rcb 64|128           read completion boundary (default 64)\n"
          "  --cpl-max BYTES        largest host completion (default = mps)\n"
          "  --cpl-split-rcb        split completions at every RCB boundary\n"
          "  --rd-latency-ns X      host memory read latency (default 620)\n"
          "  --link-delay-ns X      one-way link + pipeline delay (default 30)\n"
          "  --dllp-pct X           link time lost to DLLPs/SKP, percent (default 2)\n"
          "  --tlp-overhead N       bytes per TLP besides header+payload (default 8)\n"
          "  --credits PH:PD:NPH    host posted header/data(16B)/non-posted header credits (64:1024:64)\n"
          "  --credit-return-ns X   credit return delay after arrival (default 100)\n"
          "  --fc-update-ns X       return credits in UpdateFC DLLPs: freed credit-return-ns after\n"
          "                         arrival, sent when this timer expires, + link delay (default 0: off)\n"
          "  --cpl-discontinue P    fault injection: each completion with data the host sends is, with\n"
          "                         probability P (0..1, default 0), discontinued (RC tuser discontinue on its\n"
          "                         last beat, payload inverted); STATS pcie cpl_discontinued counts them\n"
          "  --wire A:B[:DELAY_NS[:LOSS[:REORDER[:BAD]]]]  cable global port A to port B; DELAY_NS is\n"
          "                         first bit out to first bit in (not before the frame has been sent)\n"
          "  --wire-delay-ns X --loss P --reorder P --bad-frames P   defaults for --wire (50 ns, 0, 0, 0)\n"
          "  --no-wire              leave ports unconnected (default: one NIC cables 0:1; two NICs cable\n"
          "                         NIC 0 port p to NIC 1 port p for every p)\n"
          "  --tap [PORT:]NAME      global port <-> Linux TAP device NAME (needs CAP_NET_ADMIN)\n"
          "  --line-gbps X          line rate of every port, TX pacing and the GEN generator (default 100)\n"
          "  --idle-grace N         cycles to keep clocking after the last activity (default 4096)\n"
          "  --seed N               seed of the wire's loss/reorder/bad decisions and of --cpl-discontinue's\n"
          "  --bench-cycles N       clock until NIC 0 made N cycles with no driver, print speed, exit\n"
          "  --no-fast-edge         evaluate the model on every falling edge (default: only when its inputs changed)\n"
          "                         and with Verilator's full eval on the rising edge (default: clocked regions only)\n"
          "  --check-fast-edge      evaluate it on every falling edge and stop with an error if a cycle that would\n"
          "                         have been skipped changes an output; likewise a full eval after each rising\n"
          "                         edge (a test of both shortcuts)\n"
          "  --quiet                no log on stderr\n",
          CFG_NAME, P_IF_COUNT, P_PORT_COUNT, NP);
}

// "I:X" (NIC index, number); dies with a message naming the option otherwise
static std::pair<int, double> nic_value(const char* opt, const char* s) {
  char* end = nullptr;
  long i = strtol(s, &end, 10);
  if (end == s || *end != ':') die("%s wants NIC:VALUE, got '%s'", opt, s);
  const char* v = end + 1;
  double x = strtod(v, &end);
  if (end == v || *end || !std::isfinite(x)) die("%s wants NIC:VALUE, got '%s'", opt, s);
  if (i < 0 || i > 1000) die("%s %s: there is no NIC %ld", opt, s, i);
  return {int(i), x};
}

static std::string nics_text(int nics) {
  return nics == 1 ? "one NIC: NIC 0; --nics 2 runs two" : "--nics " + std::to_string(nics) + ": NICs 0.." +
                                                               std::to_string(nics - 1);
}

static Opts parse(int argc, char** argv) {
  Opts o;
  auto need = [&](int& i) -> const char* {
    if (i + 1 >= argc) die("option %s needs a value", argv[i]);
    return argv[++i];
  };
  std::vector<std::string> ppm_args, phase_args;   // as given, for messages
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--nics") {
      const char* s = need(i);
      char* end = nullptr;
      long n = strtol(s, &end, 10);
      if (end == s || *end || n < 1 || n > MAX_NICS) die("--nics %s: beryl-sim runs 1 or 2 NICs", s);
      o.nics = int(n);
    } else if (a == "--ppm" || a == "--phase-ps") {
      const char* s = need(i);
      auto v = nic_value(a.c_str(), s);
      (a == "--ppm" ? o.ppm : o.phase_ps).push_back(v);
      (a == "--ppm" ? ppm_args : phase_args).push_back(s);
    } else if (a == "--socket") o.socket_path = need(i);
    else if (a == "--socket-1") o.socket_1 = need(i);
    else if (a == "--shm") o.shm_path = need(i);
    else if (a == "--shm-1") o.shm_1 = need(i);
    else if (a == "--mem-mb") o.mem_mb = strtoull(need(i), nullptr, 0);
    else if (a == "--gen") o.pcie.gen = atoi(need(i));
    else if (a == "--width") o.pcie.width = atoi(need(i));
    else if (a == "--mps") o.pcie.mps = atoi(need(i));
    else if (a == "--mrrs") o.pcie.mrrs = atoi(need(i));
    else if (a == "--rcb") o.pcie.rcb = atoi(need(i));
    else if (a == "--cpl-max") o.pcie.cpl_max = atoi(need(i));
    else if (a == "--cpl-split-rcb") o.pcie.split_all_rcb = true;
    else if (a == "--rd-latency-ns") o.pcie.rd_latency_ns = atof(need(i));
    else if (a == "--link-delay-ns") o.pcie.prop_ns = atof(need(i));
    else if (a == "--dllp-pct") o.pcie.dllp_pct = atof(need(i));
    else if (a == "--tlp-overhead") o.pcie.tlp_overhead = atoi(need(i));
    else if (a == "--credits") {
      if (sscanf(need(i), "%d:%d:%d", &o.pcie.ph_credits, &o.pcie.pd_credits, &o.pcie.nph_credits) != 3)
        die("--credits wants PH:PD:NPH");
    } else if (a == "--credit-return-ns") o.pcie.credit_ret_ns = atof(need(i));
    else if (a == "--fc-update-ns") o.pcie.fc_update_ns = atof(need(i));
    else if (a == "--cpl-discontinue") {
      const char* s = need(i);
      char* end = nullptr;
      double p = strtod(s, &end);
      if (end == s || *end || !(p >= 0 && p <= 1))
        die("--cpl-discontinue wants a probability between 0 and 1, got '%s'", s);
      o.pcie.cpl_discontinue = p;
    } else if (a == "--wire") {
      const char* s = need(i);
      int pa, pb;
      WireCfg w = o.wire_default;
      double d = -1, l = -1, r = -1, b = -1;
      int n = sscanf(s, "%d:%d:%lf:%lf:%lf:%lf", &pa, &pb, &d, &l, &r, &b);
      if (n < 2) die("--wire wants A:B[:DELAY_NS[:LOSS[:REORDER[:BAD]]]], got '%s'", s);
      if (n >= 3) w.delay_ns = d;
      if (n >= 4) w.loss = l;
      if (n >= 5) w.reorder = r;
      if (n >= 6) w.bad = b;
      o.wires.push_back({pa, pb});
      o.wire_cfgs.push_back(w);
    } else if (a == "--wire-delay-ns") o.wire_default.delay_ns = atof(need(i));
    else if (a == "--loss") o.wire_default.loss = atof(need(i));
    else if (a == "--reorder") o.wire_default.reorder = atof(need(i));
    else if (a == "--bad-frames") o.wire_default.bad = atof(need(i));
    else if (a == "--no-wire") o.no_default_wire = true;
    else if (a == "--tap") {
      std::string s = need(i);
      auto c = s.find(':');
      if (c != std::string::npos) o.taps.push_back({atoi(s.substr(0, c).c_str()), s.substr(c + 1)});
      else o.taps.push_back({-1, s});
    } else if (a == "--line-gbps") o.line_gbps = atof(need(i));
    else if (a == "--idle-grace") o.grace = strtoull(need(i), nullptr, 0);
    else if (a == "--seed") o.seed = strtoull(need(i), nullptr, 0);
    else if (a == "--bench-cycles") o.bench_cycles = strtoull(need(i), nullptr, 0);
    else if (a == "--no-fast-edge") o.fast_edge = false;
    else if (a == "--check-fast-edge") o.check_fast_edge = true;
    else if (a == "--ptp-probe") o.ptp_probe = need(i);
    else if (a == "--gate-stats") {
      o.gate_stats = need(i);
#ifndef BERYL_GATE_STATS
      die("--gate-stats needs a build with the gate statistics: make -C sim GATE_STATS=1");
#endif
    }
    else if (a == "--ptp-probe-ns") o.ptp_probe_ns = atof(need(i));
    else if (a == "--quiet") g_quiet = true;
    else if (a == "-h" || a == "--help") { usage(); exit(0); }
    else { usage(); die("unknown option %s", a.c_str()); }
  }
  // per-NIC clocks: checked here, where --nics is known
  for (size_t k = 0; k < o.ppm.size(); k++) {
    auto& v = o.ppm[k];
    if (v.first >= o.nics)
      die("--ppm %s: there is no NIC %d (%s)", ppm_args[k].c_str(), v.first, nics_text(o.nics).c_str());
    if (!(v.second > -100000 && v.second < 100000))
      die("--ppm %s: the offset must lie between -100000 and 100000 ppm", ppm_args[k].c_str());
    o.ppm_of[v.first] = v.second;
  }
  for (int n = 0; n < MAX_NICS; n++) o.period_ps[n] = o.pcie.clk_ns * 1000.0 / (1.0 + o.ppm_of[n] * 1e-6);
  for (size_t k = 0; k < o.phase_ps.size(); k++) {
    auto& v = o.phase_ps[k];
    if (v.first >= o.nics)
      die("--phase-ps %s: there is no NIC %d (%s)", phase_args[k].c_str(), v.first, nics_text(o.nics).c_str());
    if (!(v.second >= 0 && v.second < o.period_ps[v.first]))
      die("--phase-ps %s: the phase must lie in 0 <= P < %.3f ps (NIC %d's period)", phase_args[k].c_str(),
          o.period_ps[v.first], v.first);
    o.phase[v.first] = v.second;
  }
  if (o.nics < 2 && !o.socket_1.empty()) die("--socket-1 needs --nics 2");
  if (o.nics < 2 && !o.shm_1.empty()) die("--shm-1 needs --nics 2");
  if (o.nics < 2 && !o.ptp_probe.empty()) die("--ptp-probe needs --nics 2");
  if (!(o.ptp_probe_ns >= 4)) die("--ptp-probe-ns must be at least 4");
  auto p = o.pcie;
  if (p.gen < 3 || p.gen > 5) die("--gen must be 3, 4 or 5");
  if (p.width != 8 && p.width != 16) die("--width must be 8 or 16");
  if (p.mps < 128 || p.mps > 1024 || (p.mps & (p.mps - 1))) die("--mps must be 128, 256, 512 or 1024");
  if (p.mrrs < 128 || p.mrrs > 4096 || (p.mrrs & (p.mrrs - 1))) die("--mrrs must be a power of two 128..4096");
  if (p.rcb != 64 && p.rcb != 128) die("--rcb must be 64 or 128");
  if (p.cpl_max && (p.cpl_max < p.rcb || p.cpl_max > 4096 || p.cpl_max % p.rcb)) die("--cpl-max must be a multiple of the RCB up to 4096");
  return o;
}


// ----------------------------------------------------------------------------- one NIC
// One NIC instance: its verilated model (own VerilatedContext), PCIe host model and host memory
// file, its ports (a slice of the simulator's global port array) and its driver socket. Its
// cycle k is the rising edge at global time phase + k * period (ps, rounded to the picosecond).
class Nic {
 public:
  Nic(const Opts& o, int idx, std::vector<Port>& all_ports, FramePool& fpool, Rng& rng)
      : o_(o), idx_(idx), all_(all_ports.data()), ports_(all_ports.data() + idx * NP), fpool_(fpool), rng_(rng) {
    period_ps_ = o.period_ps[idx];
    phase_ps_ = o.phase[idx];
    // an exact integer period and phase (every NIC without --ppm/--phase-ps): integer edge times
    exact_ = period_ps_ == std::floor(period_ps_) && phase_ps_ == std::floor(phase_ps_);
    period_int_ = int64_t(period_ps_);
    now_ps_ = edge_ps(0);
    // bytes of line-rate credit per cycle of this NIC: a fast NIC's cycle carries fewer bytes
    double clk_ns = period_ps_ / 1000.0;
    credit_per_cycle_ = o.line_gbps * 1e9 / 8 * clk_ns * 1e-9;
    socket_path_ = idx == 0 ? o.socket_path : (o.socket_1.empty() ? o.socket_path + ".1" : o.socket_1);
    if (o.nics > 1) tag_ = "NIC " + std::to_string(idx) + ": ";
    setup_mem();
    PcieCfg pc = o.pcie;
    pc.fault_seed = seed_mix(o.seed, uint64_t(idx));   // its own stream: the wire's decisions stay as they were
    host_.reset(new PcieHost(pc, mem_, HOST_MEM_BASE, mem_size_));
    host_->on_bar_cpl = [this](uint8_t tag, uint32_t v, uint8_t status) { bar_cpl(tag, v, status); };
    host_->on_irq = [this](uint32_t vec) { irq(vec); };
    host_->on_log = [this](const char* m) { logf("%s%s", tag_.c_str(), m); };
    top_.reset(new Vberyl_nic_us_top(&ctx_));
    // the MAC timestamp inputs (used by TX_TS_SRC / RX_TS_SRC 1 builds, which beryl-sim does not make: its
    // ports are ideal and the NIC stamps frames itself) are held at 0
    zero_port(top_->s_tx_ts_valid);
    zero_port(top_->s_tx_ts_tag);
    zero_port(top_->s_tx_ts);
    zero_port(top_->s_axis_rx_ts);
    usp_.reset(new UspIf<Vberyl_nic_us_top, P_RC_STRADDLE != 0>(*host_, top_.get()));
    if (!gates_packed_ok(top_->rootp))
      die("the clock gates' enables are not where sim_trig.h says (sim/nba_clk.py pack_gates()); rebuild the model");
#ifdef BERYL_LOCKSTEP
    ref_.reset(new Vref(&ctx_));
#endif
  }

  ~Nic() {
    if (top_) top_->final();
#ifdef BERYL_LOCKSTEP
    if (ref_) ref_->final();
#endif
    if (client_fd_ >= 0) close(client_fd_);
    if (listen_fd_ >= 0) { close(listen_fd_); unlink(socket_path_.c_str()); }
    if (mem_) munmap(mem_, mem_size_);
    if (!shm_path_.empty()) unlink(shm_path_.c_str());
  }

  // --------------------------------------------------------------------------- time
  // global time of this NIC's next cycle (the one cycle() runs next)
  int64_t now_ps() const { return now_ps_; }
  uint64_t cycles() const { return cyc_; }
  // the PTP clock's time of day output in 2^-16 ns (valid for the cycle last run), and that cycle's time
  long double ptp_tod_units() const {
    const auto& w = top_->ptp_tod;
    uint64_t fns = w[0] & 0xffff;
    uint64_t ns = (uint64_t(w[0]) >> 16) | (uint64_t(w[1] & 0xffff) << 16);
    uint64_t sec = (uint64_t(w[1]) >> 16) | (uint64_t(w[2]) << 16);
    return ((long double)sec * 1e9L + (long double)ns) * 65536.0L + (long double)fns;
  }
  int64_t last_edge_ps() const { return cyc_ ? edge_ps(cyc_ - 1) : 0; }
  double period_ps() const { return period_ps_; }
  // global time of this NIC's cycle k
  int64_t edge_ps(uint64_t k) const {
    if (exact_) return int64_t(phase_ps_) + int64_t(k) * period_int_;
    return std::llround(phase_ps_ + double(k) * period_ps_);
  }

  // --------------------------------------------------------------------------- reset
  void set_reset(bool on) {
    if (top_->rst != on) in_changed_ = true;
    top_->rst = on;
  }
  void configure_pins() { usp_->configure(); }   // what the root complex's enumeration would have set
  void write_msix_table() {
    // vector v -> address MSIX_ADDR_BASE + 4 v, data v, unmasked
    for (uint32_t v = 0; v < P_MSIX_VECTORS; v++) {
      uint32_t e = MSIX_TABLE + 16 * v;
      host_->bar_write(e + 0, uint32_t(MSIX_ADDR_BASE + 4 * v), now_ps());
      host_->bar_write(e + 4, 0, now_ps());
      host_->bar_write(e + 8, v, now_ps());
      host_->bar_write(e + 12, 0, now_ps());
    }
  }
  bool host_busy() const { return host_->busy(); }
  void mark_ready() { cycles_at_ready_ = cyc_; }

#ifdef BERYL_GATE_STATS
  // --gate-stats (GATE_STATS=1 builds): before each rising edge the variables of every block whose gate
  // is open are copied (the lists: sim/gate_stats.py), after it compared; per gate, the cycles open and
  // those in which nothing in the block changed (a loose enable, or outputs named in the parent)
  struct GateStats {
    std::vector<char> before[BERYL_GATE_STATS_N], after;
    bool open[BERYL_GATE_STATS_N] = {};
    uint64_t n_open[BERYL_GATE_STATS_N] = {}, n_same[BERYL_GATE_STATS_N] = {}, cycles = 0;
  };
  GateStats gs_;
  void gate_stats_before() {
    const auto* r = top_->rootp;
    int i = 0;
#define BERYL_GS_OPEN(w, b, g) gs_.open[i++] = r->g##__DOT__gate_en_now & 1;
    BERYL_SIM_TRIGS(BERYL_GS_OPEN)
#undef BERYL_GS_OPEN
    for (i = 0; i < BERYL_GATE_STATS_N; i++)
      if (gs_.open[i]) {
        gs_.before[i].resize(beryl_gs_size[i](r));
        beryl_gs_copy[i](r, gs_.before[i].data());
      }
  }
  void gate_stats_after() {
    const auto* r = top_->rootp;
    gs_.cycles++;
    for (int i = 0; i < BERYL_GATE_STATS_N; i++)
      if (gs_.open[i]) {
        gs_.after.resize(gs_.before[i].size());
        beryl_gs_copy[i](r, gs_.after.data());
        gs_.n_open[i]++;
        gs_.n_same[i] += memcmp(gs_.after.data(), gs_.before[i].data(), gs_.after.size()) == 0;
      }
  }
  // one JSON object per gate (NIC 1: FILE.1): the gate's instance path, its block's variable bytes,
  // cycles clocked, cycles open, cycles open with nothing in the block changed
  void gate_stats_write() {
    std::string path = idx_ == 0 ? o_.gate_stats : o_.gate_stats + ".1";
    FILE* f = fopen(path.c_str(), "w");
    if (!f) die("--gate-stats %s: %s", path.c_str(), strerror(errno));
    for (int i = 0; i < BERYL_GATE_STATS_N; i++) {
      std::string n = beryl_gs_names[i];
      for (auto [from, to] : {std::pair<std::string, std::string>{"__DOT__", "."}, {"__BRA__", "["}, {"__KET__", "]"}})
        for (size_t k; (k = n.find(from)) != std::string::npos;) n.replace(k, from.size(), to);
      fprintf(f, "{\"gate\": \"%s\", \"bytes\": %zu, \"cycles\": %llu, \"open\": %llu, \"unchanged\": %llu}\n",
              n.c_str(), beryl_gs_size[i](top_->rootp), (unsigned long long)gs_.cycles,
              (unsigned long long)gs_.n_open[i], (unsigned long long)gs_.n_same[i]);
    }
    fclose(f);
  }
#endif

  // --------------------------------------------------------------------------- one clock cycle
  void cycle() {
    auto* t = top_.get();
    int64_t now = now_ps_;
    host_->step(now);
    usp_->drive();
    for (int p = 0; p < NP; p++) stage_rx(p);
    // TX pacing: a beat is taken while the port has credit for it
    uint32_t txr = 0;
    for (int p = 0; p < NP; p++) {
      Port& port = ports_[p];
      port.tx_credit += credit_per_cycle_;
      if (port.tx_credit > 64) port.tx_credit = 64;
      if (port.tx_credit > 0) txr |= 1u << p;
    }
    if (t->m_axis_tx_tready != txr) {
      t->m_axis_tx_tready = uint8_t(txr);
      in_changed_ = true;
    }

    t->clk = 0;
#ifdef BERYL_LOCKSTEP
    lockstep_inputs(ref_.get(), t);
    ref_->clk = 0;
    ref_->eval();
#endif
    if (!o_.fast_edge || !model_init_) {
      t->eval();   // the first eval also runs Verilator's initial and settle regions
      model_init_ = true;
      if (o_.fast_edge) inputs_changed(t);   // start the change tracking from this eval
      evals_fall_++;
    } else if (inputs_changed(t)) {
      fall_fast(t);
      evals_fall_++;
      if (o_.check_fast_edge) {
        out_snap_.update(t);
        t->eval();
        if (out_snap_.update(t)) die("--check-fast-edge: cycle %llu: an output changed in a full falling-edge eval "
                                     "after fall_fast()", (unsigned long long)cyc_);
      }
    } else if (o_.check_fast_edge) {
      out_snap_.update(t);
      t->eval();
      if (out_snap_.update(t)) die("--check-fast-edge: cycle %llu: an output changed in a falling-edge eval with "
                                   "no input changed that the input region reads", (unsigned long long)cyc_);
      checked_fall_++;
    }
    // else no input changed since the rising-edge eval settled the model: nothing to evaluate (the
    // clock gates' triggers are read off their enables, rise_triggers())

#ifdef BERYL_LOCKSTEP
    lockstep_check("falling");
#endif
    // handshakes (pre-edge values)
    uint32_t rx_fire = uint32_t(t->s_axis_rx_tvalid) & uint32_t(t->s_axis_rx_tready);
    bool any_out = usp_->sample(now);
    uint32_t tx_fire = uint32_t(t->m_axis_tx_tvalid) & txr;
    if (tx_fire) { take_tx(tx_fire, now); any_out = true; }

#ifdef BERYL_GATE_STATS
    if (!o_.gate_stats.empty()) gate_stats_before();
#endif
    t->clk = 1;
    if (o_.fast_edge) {
      rise_fast(t, o_.check_fast_edge, (unsigned long long)cyc_);
      if (o_.check_fast_edge) {
        out_snap_.update(t);
        t->eval();
        if (out_snap_.update(t)) die("--check-fast-edge: cycle %llu: an output changed in a full eval after the "
                                     "rising-edge eval without the input-combinational region", (unsigned long long)cyc_);
      }
    } else {
      t->eval();
    }

#ifdef BERYL_LOCKSTEP
    // (the falling-edge outputs were compared above, before the handshakes were sampled)
    ref_->clk = 1;
    ref_->eval();
    lockstep_check("rising");
#endif

#ifdef BERYL_GATE_STATS
    if (!o_.gate_stats.empty()) gate_stats_after();
#endif
    usp_->commit();
    if (rx_fire) commit_rx(rx_fire);
    gen_pace(rx_fire);
    if (any_out || rx_fire) last_busy_ = cyc_;
    cyc_++;
    now_ps_ = edge_ps(cyc_);
  }

  bool active() {
    if (host_->busy() || usp_->staged()) return true;
    for (int p = 0; p < NP; p++) {
      const Port& q = ports_[p];
      if (!q.rx_q.empty() || q.rx_busy || q.gen_left || !q.tx_cur.data.empty()) return true;
    }
    return cyc_ - last_busy_ < o_.grace;
  }

  // --------------------------------------------------------------------------- driver socket
  void listen_socket() {
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) die("socket: %s", strerror(errno));
    struct sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (socket_path_.size() >= sizeof(sa.sun_path)) die("socket path too long: %s", socket_path_.c_str());
    strcpy(sa.sun_path, socket_path_.c_str());
    unlink(socket_path_.c_str());
    if (bind(listen_fd_, (struct sockaddr*)&sa, sizeof(sa)) < 0)
      die("bind %s: %s", socket_path_.c_str(), strerror(errno));
    g_cleanup_files.push_back(socket_path_);
    if (listen(listen_fd_, 4) < 0) die("listen: %s", strerror(errno));
  }

  // a driver is attached and waits for nothing: it may send its next request any moment
  bool want_poll() const { return client_fd_ >= 0 && replies_.empty(); }

  // messages held back while the BAR request backlog was long; true if any was handled
  bool parse_held() {
    if (client_fd_ >= 0 && inbuf_.size() >= 24 && host_->bar_backlog() < 64) {
      parse_client();
      return true;
    }
    return false;
  }

  // this NIC's entries of the poll set: listening socket, then the driver's connection if any
  int add_pollfds(struct pollfd* pf) {
    int n = 0;
    pf[n++] = {listen_fd_, POLLIN, 0};
    if (client_fd_ >= 0)
      pf[n++] = {client_fd_, short(host_->bar_backlog() < 64 && inbuf_.size() < (1u << 20) ? POLLIN : 0), 0};
    return n;
  }

  void handle_pollfds(const struct pollfd* pf, int n) {
    // the attached driver first: a BYE followed by a new connection must not be refused
    if (n > 1 && client_fd_ >= 0 && pf[1].fd == client_fd_ && pf[1].revents) read_client();
    if (pf[0].revents & POLLIN) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        if (client_fd_ >= 0) {
          auto m = make_msg(M_ERROR, 0, 0, "another driver is attached");
          ssize_t w = send(fd, m.data(), m.size(), MSG_NOSIGNAL);
          (void)w;
          close(fd);
        } else {
          client_fd_ = fd;
          logf("%sdriver attached", tag_.c_str());
        }
      }
    }
  }

  // --------------------------------------------------------------------------- statistics
  void set_wall_start(double w) { wall_start_ = w; }
  void add_busy(uint64_t cycles, double wall) {
    busy_cycles_ += cycles;
    busy_wall_ += wall;
  }
  void print_exit_stats() {
#ifdef BERYL_GATE_STATS
    if (!o_.gate_stats.empty()) gate_stats_write();
#endif
    double wall = wall_now() - wall_start_;
    logf("%sexit: %llu cycles (%.3f ms simulated), %.1f s wall, %.3f s clocking: %.0f cycles/s; "
         "PCIe up %llu B / down %llu B, %llu IRQs", tag_.c_str(), (unsigned long long)cyc_, now_ps_ * 1e-9,
         wall, busy_wall_, busy_wall_ > 0 ? busy_cycles_ / busy_wall_ : 0.0,
         (unsigned long long)host_->st.up_bytes, (unsigned long long)host_->st.down_bytes,
         (unsigned long long)host_->st.irqs);
    if (o_.pcie.cpl_discontinue > 0)
      logf("%sexit: %llu completions discontinued, %llu with a beat carrying discontinue", tag_.c_str(),
           (unsigned long long)host_->st.cpl_discontinued, (unsigned long long)host_->st.cpl_discontinue_covered);
  }
  const std::string& socket_path() const { return socket_path_; }
  std::string stats_now() { return stats_json(); }   // SIGUSR1 dump
  const std::string& shm_path() const { return shm_path_; }
  uint64_t mem_size() const { return mem_size_; }

  // a frame read from port p's TAP device (global port index) arrives now
  void tap_frame(Port& port, Frame&& f) {
    f.arrive_ps = now_ps_;
    rx_insert(port.rx_q, std::move(f));
  }

 private:
  // --------------------------------------------------------------------------- host memory
  void setup_mem() {
    mem_size_ = o_.mem_mb << 20;
    std::string base = o_.shm_path.empty() ? "/dev/shm/beryl-sim-" + std::to_string(getpid()) : o_.shm_path;
    shm_path_ = idx_ == 0 ? base : (o_.shm_1.empty() ? base + ".1" : o_.shm_1);
    int fd = open(shm_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die("host memory file %s: %s", shm_path_.c_str(), strerror(errno));
    g_cleanup_files.push_back(shm_path_);
    if (ftruncate(fd, off_t(mem_size_)) < 0) die("ftruncate %s: %s", shm_path_.c_str(), strerror(errno));
    void* p = mmap(nullptr, mem_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) die("mmap %s: %s", shm_path_.c_str(), strerror(errno));
    close(fd);
    mem_ = static_cast<uint8_t*>(p);
  }

  // --------------------------------------------------------------------------- Ethernet
  // a frame the RTL transmitted on local port p is complete (its last beat was taken at `now`)
  void tx_done(int p, int64_t now) {
    Port& port = ports_[p];
    Frame& f = port.tx_cur;
    port.tx_frames++;
    port.tx_bytes += f.data.size();
    if (!port.win_tx_frames) port.win_tx_first = int64_t(cyc_);
    port.win_tx_last = int64_t(cyc_);
    port.win_tx_frames++;
    if (port.mode == PM_TAP) {
      ssize_t n = write(port.tap_fd, f.data.data(), f.data.size());
      (void)n;
      f.data.clear();
    } else if (port.mode == PM_WIRE) {
      Port& peer = all_[port.peer];
      if (port.wire.loss > 0 && rng_.uniform() < port.wire.loss) {
        port.dropped++;
        f.data.clear();
        return;
      }
      // delay = first bit out to first bit in; the simulator hands over whole frames, so never
      // before the last beat left (exact whenever the delay covers the frame's serialisation)
      int64_t t = port.tx_sof_ps + int64_t(port.wire.delay_ns * 1000);
      if (t < now) t = now;
      if (port.wire.reorder > 0 && rng_.uniform() < port.wire.reorder) {
        // held back: arrives after the frames that follow within the next 2 us
        t += 2000000;
        port.reordered++;
      }
      f.arrive_ps = t;
      f.bad = port.wire.bad > 0 && rng_.uniform() < port.wire.bad;
      rx_insert(peer.rx_q, std::move(f));
      f = fpool_.get();
    } else {
      port.tx_unconnected++;
      f.data.clear();
    }
  }

  void take_tx(uint32_t fire, int64_t now) {
    auto* t = top_.get();
    const uint32_t* d = words(t->m_axis_tx_tdata);
    for (int p = 0; p < NP; p++) {
      if (!(fire >> p & 1)) continue;
      Port& port = ports_[p];
      uint64_t keep = get64(t->m_axis_tx_tkeep, p);
      int n = __builtin_popcountll(keep);
      const uint8_t* src = reinterpret_cast<const uint8_t*>(d + 16 * p);
      if (port.tx_cur.data.empty()) port.tx_sof_ps = port.last_tx_sof_ps = now;
      port.tx_cur.data.insert(port.tx_cur.data.end(), src, src + n);
      port.tx_credit -= n;
      if (t->m_axis_tx_tlast >> p & 1) {
        size_t len = port.tx_cur.data.size();
        // preamble + SFD 8, IFG 12, padding to the 64-byte minimum (60 + FCS 4)
        port.tx_credit -= 20 + 4 + (len < 60 ? double(60 - len) : 0.0);
        tx_done(p, now);
      }
    }
  }

  // Whether an input changed since the last falling-edge decision: the writers (UspIf, the RX ports,
  // the TX pacing, the reset) note every write of a new value, which is cheaper than comparing a copy
  // of every input in every cycle. --check-fast-edge compares such a copy (InputSnap) as well and stops
  // if it saw a change that no writer noted. (A writer may note a change that is none: that only costs
  // a falling-edge eval.)
  // Then, of a noted change, only one of an input that the input-combinational region reads needs a
  // falling-edge eval (in a loaded run about 58 % of the noted cycles change stream data only).
  bool inputs_changed(const Vberyl_nic_us_top* t) {
    bool c = usp_->take_changed();
    if (in_changed_) c = true;
    in_changed_ = false;
    if (o_.check_fast_edge && snap_.update(t) && !c)
      die("--check-fast-edge: cycle %llu: an input changed that no writer noted", (unsigned long long)cyc_);
    if (!c) return false;
    if (ico_snap_.update(t)) return true;
    payload_skips_++;
    return false;
  }

  void stage_rx(int p) {
    Port& port = ports_[p];
    auto* t = top_.get();
    if (port.rx_staged) return;
    if (!port.rx_busy) {
      // next frame: the generator's (while it runs and has credit), else the next arrived one
      if (port.gen_left && port.gen_credit >= 0) {
        Frame f = fpool_.get();
        f.data.assign(port.gen_tmpl.begin(), port.gen_tmpl.end());
        if (port.gen_number && f.data.size() >= 18) {
          uint32_t k = uint32_t(port.gen_sent);
          memcpy(f.data.data() + 14, &k, 4);
        }
        port.rx_cur = std::move(f);
        port.rx_cur_gen = true;
      } else if (!port.rx_q.empty() && port.rx_q.front().arrive_ps <= now_ps_) {
        port.rx_cur = std::move(port.rx_q.front());
        port.rx_q.pop_front();
        port.rx_cur_gen = false;
      } else {
        rx_invalid(p);
        return;
      }
      port.rx_busy = true;
      port.rx_off = 0;
      port.last_rx_sof_ps = now_ps_;   // its first beat is presented this cycle
    }
    if (port.rx_cur_gen && port.gen_credit < 0) {   // the generator waits for line-rate credit
      rx_invalid(p);
      return;
    }
    Frame& f = port.rx_cur;
    uint32_t left = uint32_t(f.data.size()) - port.rx_off;
    uint32_t n = left > 64 ? 64 : left;
    uint8_t* dst = reinterpret_cast<uint8_t*>(words(t->s_axis_rx_tdata) + 16 * p);
    memcpy(dst, f.data.data() + port.rx_off, n);
    if (n < 64) memset(dst + n, 0, 64 - n);
    set64(t->s_axis_rx_tkeep, p, n == 64 ? ~0ull : ((1ull << n) - 1));
    if (n == left) t->s_axis_rx_tlast |= 1u << p;
    else t->s_axis_rx_tlast &= ~(1u << p);
    if (n == left && f.bad) t->s_axis_rx_tuser |= 1u << p;
    else t->s_axis_rx_tuser &= ~(1u << p);
    t->s_axis_rx_tvalid |= 1u << p;
    port.rx_stage_len = n;
    port.rx_staged = true;
    in_changed_ = true;   // a new beat
  }
  void rx_invalid(int p) {
    auto* t = top_.get();
    if (t->s_axis_rx_tvalid >> p & 1) {
      t->s_axis_rx_tvalid &= ~(1u << p);
      in_changed_ = true;
    }
  }
  void commit_rx(uint32_t fire) {
    for (int p = 0; p < NP; p++) {
      if (!(fire >> p & 1)) continue;
      Port& port = ports_[p];
      port.rx_off += port.rx_stage_len;
      port.rx_staged = false;
      top_->s_axis_rx_tvalid &= ~(1u << p);
      in_changed_ = true;
      Frame& f = port.rx_cur;
      bool last = port.rx_off >= f.data.size();
      if (port.rx_cur_gen) port.gen_credit += credit_per_cycle_ - (port.rx_stage_len + (last ? 24 : 0));
      if (last) {
        port.rx_frames++;
        port.rx_bytes += f.data.size();
        port.rx_bad += f.bad;
        if (port.rx_cur_gen) {
          if (!port.gen_sent) port.gen_first = int64_t(cyc_);
          port.gen_last = int64_t(cyc_);
          port.gen_sent++;
          if (port.gen_left) port.gen_left--;
        }
        fpool_.put(f);
        port.rx_busy = false;
        port.rx_off = 0;
      }
    }
  }
  // generator credit of the ports that did not send a generated beat this cycle (the others were
  // charged in commit_rx): grows by the line rate, capped at 64 bytes, like the RTL generator
  void gen_pace(uint32_t fire) {
    for (int p = 0; p < NP; p++) {
      Port& port = ports_[p];
      if ((fire >> p & 1) && port.rx_cur_gen) continue;
      port.gen_credit = port.gen_credit > 64 ? 64 : port.gen_credit + credit_per_cycle_;
    }
  }

  // GEN message: restart port p's measurement window; send `count` frames (the template) at line rate
  void gen_start(int p, uint64_t count, std::vector<uint8_t>&& tmpl, bool number) {
    Port& port = ports_[p];
    port.win_tx_frames = 0;
    port.win_tx_first = port.win_tx_last = -1;
    port.gen_sent = 0;
    port.gen_first = port.gen_last = -1;
    port.gen_left = count;
    port.gen_tmpl = std::move(tmpl);
    port.gen_number = number;
    last_busy_ = cyc_;
  }

  // --------------------------------------------------------------------------- driver socket
  struct Reply {
    bool ready;
    bool is_read;
    uint8_t tag;
    uint32_t gen;
    std::vector<uint8_t> msg;
  };

  static std::vector<uint8_t> make_msg(uint32_t type, uint64_t addr, uint64_t data, const std::string& payload) {
    std::vector<uint8_t> m(24 + payload.size());
    uint32_t len = uint32_t(payload.size());
    memcpy(&m[0], &type, 4);
    memcpy(&m[4], &len, 4);
    memcpy(&m[8], &addr, 8);
    memcpy(&m[16], &data, 8);
    if (!payload.empty()) memcpy(&m[24], payload.data(), payload.size());
    return m;
  }

  void send_raw(const std::vector<uint8_t>& m) {
    if (client_fd_ < 0) return;
    size_t off = 0;
    while (off < m.size()) {
      ssize_t n = send(client_fd_, m.data() + off, m.size() - off, MSG_NOSIGNAL);
      // a driver that stops reading leaves this blocked with a full socket buffer: a quit signal
      // (SIGINT/SIGTERM interrupt the send, no SA_RESTART) ends the wait instead of retrying it
      if (n < 0 && errno == EINTR && !g_quit) continue;
      if (n < 0 && errno == EINTR) { drop_client("quit while a reply waited for the driver to read"); return; }
      if (n <= 0) { drop_client("send failed"); return; }
      off += size_t(n);
    }
  }

  void flush_replies() {
    while (!replies_.empty() && replies_.front().ready) {
      send_raw(replies_.front().msg);
      replies_.pop_front();
    }
  }

  void bar_cpl(uint8_t tag, uint32_t val, uint8_t status) {
    for (auto& r : replies_) {
      if (r.is_read && !r.ready && r.tag == tag) {
        r.msg = make_msg(M_READ32, 0, status ? 0xFFFFFFFFu : val, "");
        r.ready = true;
        flush_replies();
        return;
      }
    }
  }

  void irq(uint32_t vec) {
    if (client_fd_ < 0) { irq_dropped_++; return; }
    send_raw(make_msg(M_IRQ, 0, vec, ""));
  }

  void drop_client(const char* why) {
    if (client_fd_ < 0) return;
    logf("%sdriver detached (%s)", tag_.c_str(), why);
    close(client_fd_);
    client_fd_ = -1;
    replies_.clear();
    inbuf_.clear();
  }

  // this NIC's identity in the HELLO and STATS payloads (keys shared by both)
  std::string nic_json() const {
    char b[512];
    int n = snprintf(b, sizeof b,
                     "\"nic\": %d, \"nics\": %d, \"port_base\": %d, \"ppm\": %.17g, \"period_ps\": %.17g, "
                     "\"phase_ps\": %.17g",
                     idx_, o_.nics, idx_ * NP, o_.ppm_of[idx_], period_ps_, phase_ps_);
    return std::string(b, size_t(n));
  }

  std::string stats_json() {
    double wall = wall_now() - wall_start_;
    char b[3072];
    auto& s = host_->st;
    int n = snprintf(b, sizeof b,
        "{\"cycles\": %llu, \"falling_evals\": %llu, \"payload_skips\": %llu, \"checked_skips\": %llu, \"lockstep_checks\": %llu, \"wall_s\": %.6f, \"cycles_per_s\": %.1f, \"busy_cycles\": %llu, "
        "\"busy_wall_s\": %.6f, \"sim_time_ns\": %.1f, \"sim_time_ps\": %lld, \"clock_hz\": %.15g, %s, "
        "\"pcie\": {\"up_bytes\": %llu, \"down_bytes\": %llu, \"up_tlps\": %llu, \"down_tlps\": %llu, "
        "\"dma_rd_bytes\": %llu, \"dma_wr_bytes\": %llu, \"rd_reqs\": %llu, \"wr_reqs\": %llu, "
        "\"irqs\": %llu, \"bad_dma_rd\": %llu, \"bad_dma_wr\": %llu, \"cpl_discontinued\": %llu, "
        "\"cpl_discontinue_covered\": %llu, \"up_busy_ns\": %.1f, \"down_busy_ns\": %.1f, "
        "\"p_credit_wait_ns\": %.1f, \"np_credit_wait_ns\": %.1f, \"rq_stall_cycles\": %llu, \"fc_updates\": %llu, "
        "\"rd_rtt_ns\": {\"count\": %llu, \"avg\": %.1f, \"min\": %.1f, \"max\": %.1f}}, "
        "\"ports\": [",
        (unsigned long long)cyc_, (unsigned long long)evals_fall_, (unsigned long long)payload_skips_,
        (unsigned long long)checked_fall_,
        (unsigned long long)lockstep_checks_, wall, busy_wall_ > 0 ? busy_cycles_ / busy_wall_ : 0.0,
        (unsigned long long)busy_cycles_, busy_wall_, now_ps_ / 1000.0, (long long)now_ps_, 1e12 / period_ps_,
        nic_json().c_str(),
        (unsigned long long)s.up_bytes, (unsigned long long)s.down_bytes, (unsigned long long)s.up_tlps,
        (unsigned long long)s.down_tlps, (unsigned long long)s.dma_rd_bytes, (unsigned long long)s.dma_wr_bytes,
        (unsigned long long)s.rd_reqs, (unsigned long long)s.wr_reqs, (unsigned long long)s.irqs,
        (unsigned long long)s.bad_dma_rd, (unsigned long long)s.bad_dma_wr, (unsigned long long)s.cpl_discontinued,
        (unsigned long long)s.cpl_discontinue_covered, s.up_busy_ps / 1000.0,
        s.down_busy_ps / 1000.0, s.p_wait_ps / 1000.0, s.np_wait_ps / 1000.0,
        (unsigned long long)s.rq_stall_cycles, (unsigned long long)s.fc_updates, (unsigned long long)s.rtt_count,
        s.rtt_count ? s.rtt_sum_ps / 1000.0 / double(s.rtt_count) : 0.0, s.rtt_min_ps / 1000.0, s.rtt_max_ps / 1000.0);
    std::string out(b, size_t(n));
    for (int p = 0; p < NP; p++) {
      auto& q = ports_[p];
      n = snprintf(b, sizeof b,
          "%s{\"tx_frames\": %llu, \"tx_bytes\": %llu, \"rx_frames\": %llu, \"rx_bytes\": %llu, "
          "\"wire_dropped\": %llu, \"wire_reordered\": %llu, \"tx_unconnected\": %llu, \"rx_bad\": %llu, "
          "\"win_tx_frames\": %llu, \"win_tx_first_cycle\": %lld, \"win_tx_last_cycle\": %lld, "
          "\"gen_sent\": %llu, \"gen_left\": %llu, \"gen_first_cycle\": %lld, \"gen_last_cycle\": %lld, "
          "\"global_port\": %d, \"last_tx_sof_ps\": %lld, \"last_rx_sof_ps\": %lld}",
          p ? ", " : "", (unsigned long long)q.tx_frames, (unsigned long long)q.tx_bytes,
          (unsigned long long)q.rx_frames, (unsigned long long)q.rx_bytes, (unsigned long long)q.dropped,
          (unsigned long long)q.reordered, (unsigned long long)q.tx_unconnected, (unsigned long long)q.rx_bad,
          (unsigned long long)q.win_tx_frames, (long long)q.win_tx_first, (long long)q.win_tx_last,
          (unsigned long long)q.gen_sent, (unsigned long long)q.gen_left, (long long)q.gen_first,
          (long long)q.gen_last, idx_ * NP + p, (long long)q.last_tx_sof_ps, (long long)q.last_rx_sof_ps);
      out.append(b, size_t(n));
    }
    out += "]}";
    return out;
  }

  void handle_msg(uint32_t type, uint64_t addr, uint64_t data, const uint8_t* payload, uint32_t len) {
    switch (type) {
      case M_HELLO: {
        if (data != PROTO_VERSION) {
          send_raw(make_msg(M_ERROR, 0, 0, "protocol version " + std::to_string(data) +
                                                " not supported (simulator speaks " + std::to_string(PROTO_VERSION) + ")"));
          drop_client("version mismatch");
          return;
        }
        char b[1024];
        snprintf(b, sizeof b,
                 "{\"shm\": \"%s\", \"mem_size\": %llu, \"mem_base\": %llu, \"bar0_size\": %u, \"clock_hz\": %.15g, "
                 "\"if_count\": %d, \"port_count\": %d, \"msix_vectors\": %d, \"build\": \"%s\", %s}",
                 shm_path_.c_str(), (unsigned long long)mem_size_, (unsigned long long)HOST_MEM_BASE, BAR0_SIZE,
                 1e12 / period_ps_, P_IF_COUNT, P_PORT_COUNT, P_MSIX_VECTORS, CFG_NAME, nic_json().c_str());
        replies_.push_back({true, false, 0, 0, make_msg(M_HELLO, 0, PROTO_VERSION, b)});
        flush_replies();
        break;
      }
      case M_READ32: {
        if (addr >= BAR0_SIZE || addr % 4) {
          replies_.push_back({true, false, 0, 0, make_msg(M_READ32, addr, 0xFFFFFFFFu, "")});
          flush_replies();
          break;
        }
        uint8_t tag = host_->bar_read(uint32_t(addr), now_ps());
        replies_.push_back({false, true, tag, 0, {}});
        break;
      }
      case M_WRITE32:
        if (addr < BAR0_SIZE && addr % 4 == 0) host_->bar_write(uint32_t(addr), uint32_t(data), now_ps());
        break;
      case M_STATS:
        replies_.push_back({true, false, 0, 0, make_msg(M_STATS, 0, 0, stats_json())});
        flush_replies();
        break;
      case M_BYE:
        drop_client("BYE");
        break;
      case M_GEN: {
        // addr = port, data = count | frame length << 32; payload (optional) = the frame itself
        uint64_t count = data & 0xFFFFFFFFu;
        uint32_t flen = len ? len : uint32_t(data >> 32);
        std::string err;
        if (addr >= uint64_t(NP)) err = "GEN: port " + std::to_string(addr) + " (this build has ports 0.." +
                                        std::to_string(NP - 1) + ")";
        else if (count && (flen < 14 || flen > 65535))
          err = "GEN: frame length " + std::to_string(flen) + " (14..65535 bytes)";
        if (!err.empty()) {
          send_raw(make_msg(M_ERROR, 0, 0, err));
          drop_client("protocol error");
          break;
        }
        std::vector<uint8_t> tmpl;
        if (len) tmpl.assign(payload, payload + len);
        else {
          // default frame: local-administered addresses, the local experimental EtherType 0x88B5,
          // then (written per frame) the frame number and a byte pattern
          static const uint8_t hdr[14] = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xB5};
          tmpl.resize(count ? flen : 0);
          for (uint32_t i = 0; i < tmpl.size(); i++) tmpl[i] = i < 14 ? hdr[i] : uint8_t(i);
        }
        gen_start(int(addr), count, std::move(tmpl), len == 0);
        break;
      }
      default:
        send_raw(make_msg(M_ERROR, 0, 0, "unknown message type " + std::to_string(type)));
        drop_client("protocol error");
    }
  }

  void read_client() {
    uint8_t buf[65536];
    for (;;) {
      ssize_t n = recv(client_fd_, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0) { drop_client("connection closed"); return; }
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) drop_client(strerror(errno));
        break;
      }
      inbuf_.insert(inbuf_.end(), buf, buf + n);
      if (size_t(n) < sizeof buf || inbuf_.size() >= (1u << 20)) break;
    }
    parse_client();
  }

  void parse_client() {
    size_t off = 0;
    while (client_fd_ >= 0 && inbuf_.size() - off >= 24 && host_->bar_backlog() < 64) {
      uint32_t type, len;
      uint64_t addr, data;
      memcpy(&type, &inbuf_[off], 4);
      memcpy(&len, &inbuf_[off + 4], 4);
      memcpy(&addr, &inbuf_[off + 8], 8);
      memcpy(&data, &inbuf_[off + 16], 8);
      if (len > (1u << 20)) { send_raw(make_msg(M_ERROR, 0, 0, "payload too long")); drop_client("protocol error"); return; }
      if (inbuf_.size() - off < 24 + size_t(len)) break;
      handle_msg(type, addr, data, &inbuf_[off + 24], len);
      off += 24 + len;
    }
    if (client_fd_ >= 0) inbuf_.erase(inbuf_.begin(), inbuf_.begin() + long(off));
  }

  const Opts& o_;
  int idx_;
  Port* all_;      // the simulator's global port array (wire peers may be another NIC's)
  Port* ports_;    // this NIC's NP ports in it
  FramePool& fpool_;
  Rng& rng_;
  std::string tag_;   // log prefix ("NIC i: " with two NICs)
  VerilatedContext ctx_;
  std::unique_ptr<Vberyl_nic_us_top> top_;
#ifdef BERYL_LOCKSTEP
  std::unique_ptr<Vref> ref_;   // the same RTL without clock gates
  uint64_t lockstep_checks_ = 0;
  void lockstep_check(const char* edge) {
    if (const char* port = lockstep_diff(ref_.get(), top_.get()))
      die("%slock-step: cycle %llu, %s edge: output %s differs between the gated model and the model built "
          "with BERYL_NO_CLK_GATE", tag_.c_str(), (unsigned long long)cyc_, edge, port);
    // after the rising edge every flop has its new value: compare the design state as well
    if (edge[0] == 'r') {
      if (const char* var = lockstep_state_diff(ref_.get(), top_.get()))
        die("%slock-step: cycle %llu: design variable %s differs between the gated model and the model built "
            "with BERYL_NO_CLK_GATE", tag_.c_str(), (unsigned long long)cyc_, var);
    }
    lockstep_checks_++;
  }
#else
  static constexpr uint64_t lockstep_checks_ = 0;
#endif
  std::unique_ptr<PcieHost> host_;
  std::unique_ptr<UspIf<Vberyl_nic_us_top, P_RC_STRADDLE != 0>> usp_;   // after top_ and host_: destroyed first
  uint8_t* mem_ = nullptr;
  uint64_t mem_size_ = 0;
  std::string shm_path_, socket_path_;
  double credit_per_cycle_ = 50;
  double period_ps_ = 4000, phase_ps_ = 0;
  bool exact_ = true;
  int64_t period_int_ = 4000;
  int64_t now_ps_ = 0;
  uint64_t cyc_ = 0, last_busy_ = 0, cycles_at_ready_ = 0, busy_cycles_ = 0, irq_dropped_ = 0;
  uint64_t evals_fall_ = 0;   // falling-edge evals run (cycles in which an input the input region reads changed)
  uint64_t checked_fall_ = 0;  // --check-fast-edge: skippable evals run and found to change nothing
  uint64_t payload_skips_ = 0;  // falling-edge evals skipped although an input changed: none the input region reads
  bool model_init_ = false;    // the first eval (a full eval(): initial and settle regions) has run
  InputSnap snap_;        // --check-fast-edge: a copy of the inputs, to check inputs_changed()
  IcoSnap ico_snap_;      // the inputs the input-combinational region reads, as of its last eval
  bool in_changed_ = true;   // an input this class drives was written with a new value
  OutputSnap out_snap_;
  double wall_start_ = 0, busy_wall_ = 0;
  int listen_fd_ = -1, client_fd_ = -1;
  std::deque<Reply> replies_;
  std::vector<uint8_t> inbuf_;
};

// ----------------------------------------------------------------------------- the simulator
// The NICs, the global port array (wires and TAP devices between them) and the clock: with one
// NIC it is clocked directly; with two, the one whose next rising edge comes first (NIC 0 on a tie).
class Sim {
 public:
  explicit Sim(const Opts& o) : o_(o), rng_(o.seed) {
    ports_.resize(size_t(o.nics * NP));   // before the NICs: they keep pointers into it
    for (int i = 0; i < o.nics; i++) nics_.emplace_back(new Nic(o, i, ports_, fpool_, rng_));
    setup_ports();
    if (o.pcie.cpl_discontinue > 0)
      logf("PCIe: completions with data discontinued with probability %g (seed %llu)", o.pcie.cpl_discontinue,
           (unsigned long long)o.seed);
    if (!o.ptp_probe.empty()) {
      probe_ = fopen(o.ptp_probe.c_str(), "w");
      if (!probe_) die("--ptp-probe %s: %s", o.ptp_probe.c_str(), strerror(errno));
      setvbuf(probe_, nullptr, _IOLBF, 0);
    }
  }
  ~Sim() {
    if (probe_) fclose(probe_);
  }

  void reset_and_configure() {
    for (auto& n : nics_) {
      n->configure_pins();
      n->set_reset(true);
    }
    // 16 cycles in reset and 16 out of it, each NIC counting its own cycles
    advance_until([&] {
      bool all = true;
      for (auto& n : nics_) {
        if (n->cycles() >= 16) n->set_reset(false);
        else all = false;
      }
      return all;
    });
    advance_until([&] { return all_cycles_from(32); });
    for (auto& n : nics_) n->write_msix_table();
    // let the writes land and the configuration poller see Device Control
    advance_until([&] {
      for (auto& n : nics_)
        if (n->host_busy()) return false;
      return true;
    });
    std::vector<uint64_t> c0;
    for (auto& n : nics_) c0.push_back(n->cycles());
    advance_until([&] {
      for (size_t i = 0; i < nics_.size(); i++)
        if (nics_[i]->cycles() < c0[i] + 600) return false;
      return true;
    });
    for (auto& n : nics_) n->mark_ready();
  }

  void listen_sockets() {
    for (auto& n : nics_) n->listen_socket();
  }

  // clock forever (driver mode) or for bench_cycles of NIC 0
  void run() {
    double ws = wall_now();
    for (auto& n : nics_) n->set_wall_start(ws);
    if (o_.bench_cycles) {
      run_bench();
      return;
    }
    for (size_t i = 0; i < nics_.size(); i++) {
      Nic& n = *nics_[i];
      std::string who = o_.nics > 1 ? "NIC " + std::to_string(i) + ": " : "";
      std::string clk = o_.nics > 1 ? ", clock period " + std::to_string(n.period_ps()) + " ps" : "";
      logf("ready: %ssocket %s, host memory %s (%llu MiB at 0x%llx), build %s%s", who.c_str(),
           n.socket_path().c_str(), n.shm_path().c_str(), (unsigned long long)(n.mem_size() >> 20),
           (unsigned long long)HOST_MEM_BASE, CFG_NAME, clk.c_str());
    }
    std::vector<uint64_t> c0(nics_.size());
    while (!g_quit) {
      if (g_dump) {
        g_dump = 0;
        for (auto& n : nics_) fprintf(stderr, "beryl-sim: stats %s\n", n->stats_now().c_str());
        fflush(stderr);
      }
      if (!active()) {
        poll_fds(-1);
        continue;
      }
      double w0 = wall_now();
      for (size_t i = 0; i < nics_.size(); i++) c0[i] = nics_[i]->cycles();
      for (int n = 0; n < 16 && active(); n++) {
        clock_block();
        // a driver not waiting for a reply may send its next request any moment: look every
        // 16 cycles (one cheap syscall) instead of every 256
        if (n != 15 && want_poll()) poll_fds(0);
      }
      double dt = wall_now() - w0;
      for (size_t i = 0; i < nics_.size(); i++) nics_[i]->add_busy(nics_[i]->cycles() - c0[i], dt);
      poll_fds(0);
    }
  }

  void print_exit_stats() {
    for (auto& n : nics_) n->print_exit_stats();
  }

 private:
  bool all_cycles_from(uint64_t c) const {
    for (auto& n : nics_)
      if (n->cycles() < c) return false;
    return true;
  }

  // one rising edge of the NIC whose edge comes first (two NICs)
  void step2() {
    Nic* a = nics_[0].get();
    Nic* b = nics_[1].get();
    Nic* c = b->now_ps() < a->now_ps() ? b : a;
    c->cycle();
    if (probe_ && c == b && b->last_edge_ps() >= probe_next_ps_) ptp_probe_sample();
  }

  // NIC 1's time of day at its last edge minus NIC 0's at the same instant: NIC 0's value of its last
  // edge plus the time since, at its nominal 1 ns per ns (the frequency adjustment changes that by
  // < 1e-3 of at most one period: under 4 ps)
  void ptp_probe_sample() {
    Nic& a = *nics_[0];
    Nic& b = *nics_[1];
    int64_t t = b.last_edge_ps();
    long double ta = a.ptp_tod_units() + (long double)(t - a.last_edge_ps()) * 65.536L;
    long double off = (b.ptp_tod_units() - ta) / 65536.0L;
    fprintf(probe_, "%lld %.4Lf\n", (long long)t, off);
    probe_next_ps_ = t + int64_t(o_.ptp_probe_ns * 1000);
  }

  // 16 cycles of each NIC (about: with two NICs, 32 edges in time order)
  void clock_block() {
    if (nics_.size() == 1) {
      Nic& n = *nics_[0];
      for (int i = 0; i < 16; i++) n.cycle();
    } else {
      for (int i = 0; i < 32; i++) step2();
    }
  }

  template <class Pred> void advance_until(Pred done) {
    while (!done()) {
      if (nics_.size() == 1) nics_[0]->cycle();
      else step2();
    }
  }

  bool active() {
    if (nics_.size() == 1) return nics_[0]->active();
    // both NICs share the time line: either one busy keeps both clocked
    for (auto& n : nics_)
      if (n->active()) return true;
    return false;
  }

  bool want_poll() const {
    for (auto& n : nics_)
      if (n->want_poll()) return true;
    return false;
  }

  void run_bench() {
    double w0 = wall_now();
    std::vector<uint64_t> c0;
    for (auto& n : nics_) c0.push_back(n->cycles());
    Nic& n0 = *nics_[0];
    if (nics_.size() == 1) {
      while (n0.cycles() - c0[0] < o_.bench_cycles && !g_quit)
        for (int i = 0; i < 1024; i++) n0.cycle();
    } else {
      // exactly bench_cycles of NIC 0, and NIC 1's edges up to NIC 0's last one (equal clocks:
      // equal counts)
      while (n0.cycles() - c0[0] < o_.bench_cycles && !g_quit) step2();
      Nic& n1 = *nics_[1];
      int64_t t_last = n0.edge_ps(n0.cycles() - 1);
      while (n1.now_ps() <= t_last && !g_quit) n1.cycle();
    }
    double dt = wall_now() - w0;
    std::string per;
    for (size_t i = 0; i < nics_.size(); i++) {
      Nic& n = *nics_[i];
      n.add_busy(n.cycles() - c0[i], dt);
      char b[256];
      snprintf(b, sizeof b, "%s{\"cycles\": %llu, \"total_cycles\": %llu, \"period_ps\": %.17g, \"ppm\": %.17g}",
               i ? ", " : "", (unsigned long long)(n.cycles() - c0[i]), (unsigned long long)n.cycles(),
               n.period_ps(), o_.ppm_of[i]);
      per += b;
    }
    uint64_t cyc = n0.cycles() - c0[0];
    printf("{\"cycles\": %llu, \"wall_s\": %.6f, \"cycles_per_s\": %.1f, \"nics\": [%s]}\n", (unsigned long long)cyc,
           dt, cyc / dt, per.c_str());
  }

  // --------------------------------------------------------------------------- ports
  int nports() const { return int(ports_.size()); }

  std::string port_name(int p) const {
    if (o_.nics == 1) return "port " + std::to_string(p);
    return "port " + std::to_string(p) + " (NIC " + std::to_string(p / NP) + " port " + std::to_string(p % NP) + ")";
  }

  void setup_ports() {
    int np = nports();
    std::vector<std::pair<int, int>> wires = o_.wires;
    std::vector<WireCfg> wcfg = o_.wire_cfgs;
    if (wires.empty() && o_.taps.empty() && !o_.no_default_wire) {
      if (o_.nics == 1 && NP >= 2) {
        wires.push_back({0, 1});
        wcfg.push_back(o_.wire_default);
      } else if (o_.nics == 2) {
        // two NICs: cabled to each other, port p of NIC 0 to port p of NIC 1
        for (int p = 0; p < NP; p++) {
          wires.push_back({p, NP + p});
          wcfg.push_back(o_.wire_default);
        }
      }
    }
    for (size_t i = 0; i < wires.size(); i++) {
      int a = wires[i].first, b = wires[i].second;
      if (a < 0 || a >= np || b < 0 || b >= np) {
        if (o_.nics == 1) die("--wire %d:%d: this build has ports 0..%d", a, b, np - 1);
        die("--wire %d:%d: there are ports 0..%d (%d NICs x %d ports; port p of NIC i is i * %d + p)", a, b, np - 1,
            o_.nics, NP, NP);
      }
      for (int p : {a, b})
        if (ports_[p].mode != PM_NONE) die("port %d is connected twice", p);
      ports_[a].mode = ports_[b].mode = PM_WIRE;
      ports_[a].peer = b;
      ports_[b].peer = a;
      ports_[a].wire = ports_[b].wire = wcfg[i];
    }
    for (auto& t : o_.taps) {
      int p = t.first;
      if (p < 0) {
        for (p = 0; p < np && ports_[p].mode != PM_NONE; p++) {}
      }
      if (p >= np) die("--tap %s: no free port (there are %d)", t.second.c_str(), np);
      if (ports_[p].mode != PM_NONE) die("port %d is connected twice", p);
      open_tap(ports_[p], t.second);
      logf("%s <-> TAP %s", port_name(p).c_str(), t.second.c_str());
    }
    for (int p = 0; p < np; p++)
      if (ports_[p].mode == PM_WIRE && ports_[p].peer > p)
        logf("wire: %s <-> %s, %.0f ns, loss %g, reorder %g, bad %g", port_name(p).c_str(),
             port_name(ports_[p].peer).c_str(), ports_[p].wire.delay_ns, ports_[p].wire.loss, ports_[p].wire.reorder,
             ports_[p].wire.bad);
  }

  void open_tap(Port& port, const std::string& name) {
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("cannot open /dev/net/tun for TAP %s: %s (TAP devices need root or CAP_NET_ADMIN)",
                    name.c_str(), strerror(errno));
    struct ifreq ifr{};
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0)
      die("cannot create TAP %s: %s (TAP devices need root or CAP_NET_ADMIN)", name.c_str(), strerror(errno));
    port.mode = PM_TAP;
    port.tap_fd = fd;
    port.tap_name = name;
  }

  void tap_read(int p) {
    Port& port = ports_[p];
    for (;;) {
      Frame f = fpool_.get();
      f.data.resize(16384);
      ssize_t n = read(port.tap_fd, f.data.data(), f.data.size());
      if (n <= 0) { fpool_.put(f); break; }
      f.data.resize(size_t(n) < 60 ? 60 : size_t(n));   // a real wire pads to the minimum frame
      if (size_t(n) < 60) memset(f.data.data() + n, 0, 60 - size_t(n));
      nics_[size_t(p / NP)]->tap_frame(port, std::move(f));
    }
  }

  // --------------------------------------------------------------------------- sockets and TAPs
  void poll_fds(int timeout_ms) {
    // messages held back while a NIC's BAR request backlog was long
    bool held = false;
    for (auto& n : nics_) held |= n->parse_held();
    if (held && active()) timeout_ms = 0;
    struct pollfd pf[MAX_NICS * (2 + NP)];
    int at[MAX_NICS + 1];
    int k = 0;
    for (size_t i = 0; i < nics_.size(); i++) {
      at[i] = k;
      k += nics_[i]->add_pollfds(pf + k);
    }
    at[nics_.size()] = k;
    int tap0 = k;
    for (int p = 0; p < nports(); p++)
      if (ports_[p].tap_fd >= 0) pf[k++] = {ports_[p].tap_fd, POLLIN, 0};
    int r;
    if (timeout_ms != 0) {
      // a quit signal arriving after the main loop tested g_quit but before a blocking poll() would
      // be noticed only at the next input (a test's SIGTERM then waits forever): block the signals,
      // test the flags, and let ppoll() unblock them atomically while it waits
      sigset_t sigs, old;
      sigemptyset(&sigs);
      sigaddset(&sigs, SIGINT);
      sigaddset(&sigs, SIGTERM);
      sigaddset(&sigs, SIGUSR1);
      sigprocmask(SIG_BLOCK, &sigs, &old);
      struct timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
      r = (g_quit || g_dump) ? 0 : ppoll(pf, nfds_t(k), timeout_ms < 0 ? nullptr : &ts, &old);
      sigprocmask(SIG_SETMASK, &old, nullptr);
    } else {
      r = poll(pf, nfds_t(k), 0);
    }
    if (r <= 0) return;
    for (size_t i = 0; i < nics_.size(); i++) nics_[i]->handle_pollfds(pf + at[i], at[i + 1] - at[i]);
    for (int i = tap0, p = 0; p < nports(); p++)
      if (ports_[p].tap_fd >= 0) {
        if (pf[i].revents & POLLIN) tap_read(p);
        i++;
      }
  }

  const Opts& o_;
  Rng rng_;
  FramePool fpool_;
  std::vector<Port> ports_;   // global port array: NIC i's port p at i * NP + p
  std::vector<std::unique_ptr<Nic>> nics_;
  FILE* probe_ = nullptr;
  int64_t probe_next_ps_ = 0;
};

static void on_signal(int) { g_quit = 1; }
static void on_usr1(int) { g_dump = 1; }

int main(int argc, char** argv) {
  Opts o = parse(argc, argv);
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction su{};
  su.sa_handler = on_usr1;
  sigaction(SIGUSR1, &su, nullptr);
  signal(SIGPIPE, SIG_IGN);
  {
    Sim sim(o);
    sim.reset_and_configure();
    if (!o.bench_cycles) sim.listen_sockets();
    sim.run();
    sim.print_exit_stats();
  }
  return 0;
}
