// SPDX-License-Identifier: MIT
// beryl-dma-bench: the DMA throughput benchmark of bench/pcie_dma (cocotb_bench_dma.py) with
// beryl-sim's C++ host model instead of cocotbext-pcie. The PCIe subsystem and its DMA RAM
// (tb_beryl_pcie_us_top, the same wrapper the cocotb bench runs) verilated, behind PcieHost through
// the shared UltraScale+ glue (usp_if.hpp). Per size: `count` host-to-device reads into the RAM,
// then `count` device-to-host writes back from it, every byte compared; prints JSON on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "Vtb_beryl_pcie_us_top.h"
#include "verilated.h"
#include "../pcie_host.hpp"
#include "../usp_if.hpp"

using namespace beryl;

// Host memory below 4 GiB, as cocotbext-pcie allocates it: requests carry 3-dword headers.
static constexpr uint64_t MEM_BASE = 0x10000000ull;
static constexpr uint32_t RAM_SIZE = 1u << 18;   // RAM_ADDR_W = 18

[[noreturn]] static void die(const char* m) {
  fprintf(stderr, "beryl-dma-bench: %s\n", m);
  exit(2);
}

struct Desc { uint64_t host; uint32_t ram, len; uint8_t tag; };

// One descriptor channel (rd_desc_* or wr_desc_*), as tb/common/beryl_pcie_tb.py's DmaChannel:
// descriptors offered in order, back to back; a tag is not reused while its descriptor is in flight.
struct Channel {
  std::deque<Desc> queue;
  bool offered = false;
  bool inflight[256] = {};
  int n_inflight = 0;
  std::vector<int64_t> accept_ps, done_ps;
  int errors = 0;

  bool busy() const { return !queue.empty() || offered || n_inflight; }
};

class Bench {
 public:
  Bench(const PcieCfg& cfg, uint64_t mem_size) : mem_(mem_size), mem_size_(mem_size) {
    host_.reset(new PcieHost(cfg, mem_.data(), MEM_BASE, mem_size));
    top_.reset(new Vtb_beryl_pcie_us_top(&ctx_));
    usp_.reset(new UspIf<Vtb_beryl_pcie_us_top, true>(*host_, top_.get()));
    clk_ps_ = int64_t(cfg.clk_ns * 1000);
  }

  void reset() {
    auto* t = top_.get();
    usp_->configure();
    t->rd_desc_valid = 0;
    t->wr_desc_valid = 0;
    t->irq_valid = 0;
    t->m_axil_app_awready = 0;   // nothing addresses the application window here
    t->m_axil_app_wready = 0;
    t->m_axil_app_bvalid = 0;
    t->m_axil_app_arready = 0;
    t->m_axil_app_rvalid = 0;
    t->rst = 1;
    for (int i = 0; i < 16; i++) cycle();
    t->rst = 0;
    // the shim polls Device Control every few hundred cycles: let it see MPS/MRRS
    for (int i = 0; i < 1000; i++) cycle();
  }

  // one clock cycle; returns nothing, updates the channels and the write-arrival time
  void cycle() {
    auto* t = top_.get();
    int64_t now = int64_t(cyc_) * clk_ps_;
    uint64_t wr_before = host_->st.wr_reqs;
    host_->step(now);
    if (host_->st.wr_reqs != wr_before) last_wr_ps_ = now;   // a DMA write reached host memory
    usp_->drive();
    drive_channel(rd_, t->rd_desc_host_addr, t->rd_desc_ram_addr, t->rd_desc_len, t->rd_desc_tag, t->rd_desc_valid);
    drive_channel(wr_, t->wr_desc_host_addr, t->wr_desc_ram_addr, t->wr_desc_len, t->wr_desc_tag, t->wr_desc_valid);
    t->clk = 0;
    t->eval();
    usp_->sample(now);
    if (rtt_watch_) {
      if (rtt_rq_ps_ < 0 && t->m_axis_rq_tvalid && t->m_axis_rq_tready) rtt_rq_ps_ = now;
      else if (rtt_rq_ps_ >= 0 && t->s_axis_rc_tvalid) { rtt_ps_ = now - rtt_rq_ps_; rtt_watch_ = false; }
    }
    bool rd_acc = t->rd_desc_valid && t->rd_desc_ready, wr_acc = t->wr_desc_valid && t->wr_desc_ready;
    bool rd_st = t->rd_desc_status_valid, wr_st = t->wr_desc_status_valid;
    uint8_t rd_tag = t->rd_desc_status_tag, wr_tag = t->wr_desc_status_tag;
    uint8_t rd_err = t->rd_desc_status_error, wr_err = t->wr_desc_status_error;
    t->clk = 1;
    t->eval();
    usp_->commit();
    int64_t edge = now + clk_ps_;   // the rising edge that took the handshakes
    if (rd_acc) accept(rd_, edge);
    if (wr_acc) accept(wr_, edge);
    if (rd_st) status(rd_, rd_tag, rd_err, edge);
    if (wr_st) status(wr_, wr_tag, wr_err, edge);
    cyc_++;
  }

  uint64_t alloc(uint64_t n) {
    uint64_t a = (bump_ + 4095) & ~4095ull;
    if (a + n > mem_size_) die("host memory exhausted");
    bump_ = a + n;
    return MEM_BASE + a;
  }
  uint8_t* ptr(uint64_t bus) { return mem_.data() + (bus - MEM_BASE); }
  void free_all() { bump_ = 0; }

  // cycles from a 64-byte read leaving on RQ to its first completion beat on RC (cocotb's measure_rtt)
  double measure_rtt_ns() {
    uint64_t src = alloc(4096);
    rtt_watch_ = true;
    rtt_rq_ps_ = -1;
    rd_.queue.push_back({src, 0, 64, 0});
    while (rd_.busy() || rtt_watch_) cycle();
    free_all();
    return rtt_ps_ / 1000.0;
  }

  struct Point { uint32_t size, count; double h2d_ns, d2h_ns; bool ok; int errors; };

  Point point(uint32_t size, uint32_t count, std::mt19937_64& rng) {
    uint64_t total = uint64_t(size) * count;
    uint64_t src = alloc(total), dst = alloc(total);
    for (uint64_t i = 0; i < total; i += 8) {
      uint64_t v = rng();
      memcpy(ptr(src) + i, &v, total - i < 8 ? total - i : 8);
    }
    memset(ptr(dst), 0, total);
    uint32_t ram_span = size <= RAM_SIZE ? RAM_SIZE - RAM_SIZE % size : RAM_SIZE;
    std::vector<uint32_t> ram_of(count);
    for (uint32_t i = 0; i < count; i++) ram_of[i] = uint32_t((uint64_t(i) * size) % ram_span);

    rd_.accept_ps.clear(); rd_.done_ps.clear(); rd_.errors = 0;
    for (uint32_t i = 0; i < count; i++) rd_.queue.push_back({src + uint64_t(i) * size, ram_of[i], size, uint8_t(i)});
    drain(rd_);
    double h2d = (max_of(rd_.done_ps) - rd_.accept_ps.front()) / 1000.0;

    wr_.accept_ps.clear(); wr_.done_ps.clear(); wr_.errors = 0;
    last_wr_ps_ = 0;
    for (uint32_t i = 0; i < count; i++) wr_.queue.push_back({dst + uint64_t(i) * size, ram_of[i], size, uint8_t(i)});
    drain(wr_);
    for (int i = 0; i < 2000; i++) cycle();   // let the last writes cross the link
    double d2h = (last_wr_ps_ - wr_.accept_ps.front()) / 1000.0;

    // RAM slot k holds the last read that landed in it
    std::unordered_map<uint32_t, uint32_t> latest;   // RAM address -> last transfer that read into it
    for (uint32_t i = 0; i < count; i++) latest[ram_of[i]] = i;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++)
      ok = memcmp(ptr(dst) + uint64_t(i) * size, ptr(src) + uint64_t(latest[ram_of[i]]) * size, size) == 0;
    free_all();
    return {size, count, h2d, d2h, ok, rd_.errors + wr_.errors};
  }

  PcieHost& host() { return *host_; }
  uint64_t cycles() const { return cyc_; }

 private:
  template <class A, class B, class C, class D, class V>
  void drive_channel(Channel& c, A& host_addr, B& ram_addr, C& len, D& tag, V& valid) {
    if (!c.offered && !c.queue.empty() && !c.inflight[c.queue.front().tag]) {
      const Desc& d = c.queue.front();
      host_addr = d.host;
      ram_addr = d.ram;
      len = d.len;
      tag = d.tag;
      c.offered = true;
    }
    valid = c.offered;
  }
  void accept(Channel& c, int64_t t) {
    c.inflight[c.queue.front().tag] = true;
    c.n_inflight++;
    c.queue.pop_front();
    c.offered = false;
    c.accept_ps.push_back(t);
  }
  void status(Channel& c, uint8_t tag, uint8_t err, int64_t t) {
    if (!c.inflight[tag]) die("status for a tag not in flight");
    c.inflight[tag] = false;
    c.n_inflight--;
    if (err) c.errors++;
    c.done_ps.push_back(t);
  }
  void drain(Channel& c) {
    uint64_t limit = cyc_ + 50000000ull;
    while (c.busy()) {
      cycle();
      if (cyc_ > limit) die("DMA did not finish");
    }
  }
  static int64_t max_of(const std::vector<int64_t>& v) {
    int64_t m = v.front();
    for (int64_t x : v) if (x > m) m = x;
    return m;
  }

  VerilatedContext ctx_;
  std::vector<uint8_t> mem_;
  uint64_t mem_size_, bump_ = 0;
  std::unique_ptr<PcieHost> host_;
  std::unique_ptr<Vtb_beryl_pcie_us_top> top_;
  std::unique_ptr<UspIf<Vtb_beryl_pcie_us_top, true>> usp_;
  Channel rd_, wr_;
  int64_t clk_ps_ = 4000, last_wr_ps_ = 0, rtt_rq_ps_ = -1, rtt_ps_ = 0;
  uint64_t cyc_ = 0;
  bool rtt_watch_ = false;
};

int main(int argc, char** argv) {
  PcieCfg cfg;
  std::vector<uint32_t> sizes = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  uint64_t bytes_per_point = 2 << 20;
  uint32_t min_count = 64, max_count = 4096;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto need = [&]() -> const char* { if (i + 1 >= argc) die("option needs a value"); return argv[++i]; };
    if (a == "--gen") cfg.gen = atoi(need());
    else if (a == "--width") cfg.width = atoi(need());
    else if (a == "--mps") cfg.mps = atoi(need());
    else if (a == "--mrrs") cfg.mrrs = atoi(need());
    else if (a == "--rcb") cfg.rcb = atoi(need());
    else if (a == "--rd-latency-ns") cfg.rd_latency_ns = atof(need());
    else if (a == "--link-delay-ns") cfg.prop_ns = atof(need());
    else if (a == "--dllp-pct") cfg.dllp_pct = atof(need());
    else if (a == "--credit-return-ns") cfg.credit_ret_ns = atof(need());
    else if (a == "--fc-update-ns") cfg.fc_update_ns = atof(need());
    else if (a == "--credits") {
      if (sscanf(need(), "%d:%d:%d", &cfg.ph_credits, &cfg.pd_credits, &cfg.nph_credits) != 3) die("--credits PH:PD:NPH");
    } else if (a == "--sizes") {
      sizes.clear();
      for (char* s = strtok(const_cast<char*>(need()), ","); s; s = strtok(nullptr, ",")) sizes.push_back(uint32_t(atoi(s)));
    } else if (a == "--bytes-per-point") bytes_per_point = strtoull(need(), nullptr, 0);
    else if (a == "--min-count") min_count = uint32_t(atoi(need()));
    else if (a == "--max-count") max_count = uint32_t(atoi(need()));
    else die(("unknown option " + a + " (see bench/sim/bench_dma_sim.py)").c_str());
  }
  Bench b(cfg, 64ull << 20);
  b.reset();
  double rtt = b.measure_rtt_ns();
  std::mt19937_64 rng(1);
  printf("{\"rtt_ns\": %.1f, \"rows\": [", rtt);
  for (size_t k = 0; k < sizes.size(); k++) {
    uint32_t s = sizes[k];
    uint64_t c = bytes_per_point / s;
    uint32_t count = uint32_t(c < max_count ? c : max_count);
    if (count < min_count) count = min_count;
    auto p = b.point(s, count, rng);
    printf("%s{\"size\": %u, \"count\": %u, \"h2d_ns\": %.1f, \"d2h_ns\": %.1f, \"data_ok\": %s, \"errors\": %d}",
           k ? ", " : "", p.size, p.count, p.h2d_ns, p.d2h_ns, p.ok ? "true" : "false", p.errors);
    fflush(stdout);
  }
  auto& st = b.host().st;
  printf("], \"cycles\": %llu, \"fc_updates\": %llu, \"p_credit_wait_ns\": %.1f, \"np_credit_wait_ns\": %.1f}\n",
         (unsigned long long)b.cycles(), (unsigned long long)st.fc_updates, st.p_wait_ps / 1000.0,
         st.np_wait_ps / 1000.0);
  return 0;
}
