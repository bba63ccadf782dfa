// SPDX-License-Identifier: MIT
// PCIe host model for beryl-sim: the root complex side of the UltraScale+ hard IP's AXI-Stream
// interface (PG213 CQ/CC/RQ/RC, 512 bits, dword-aligned, RQ/RC 2-TLP straddle), host memory in a
// shared file, MSI-X delivery, and a link model that charges every TLP's bytes at the link rate
// in each direction, with propagation delay, read latency, RCB completion splitting and
// posted/non-posted flow-control credits. Fault injection: completions marked discontinued.
#pragma once
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "rng.hpp"

namespace beryl {

// Link and host parameters (command-line options, see README.md).
struct PcieCfg {
  int gen = 3;                 // 3, 4, 5 (8, 16, 32 GT/s per lane, 128b/130b)
  int width = 16;              // lanes: 8 or 16
  int mps = 256;               // max payload size, bytes (128..1024)
  int mrrs = 512;              // max read request size, bytes (128..4096)
  int rcb = 64;                // read completion boundary, bytes (64 or 128)
  int cpl_max = 0;             // largest completion payload the host sends, bytes (0 = mps)
  bool split_all_rcb = false;  // split completions at every RCB boundary
  double rd_latency_ns = 620;  // host memory read latency: request arrival -> completion ready
  double prop_ns = 30;         // one-way link + PHY/hard-IP pipeline delay per direction
  double dllp_pct = 2.0;       // link time lost to ACK/FC DLLPs and SKP ordered sets, percent
  int tlp_overhead = 8;        // bytes per TLP besides header and payload (STP/seq 4, LCRC 4)
  int ph_credits = 64;         // host's posted header credits (1 per TLP)
  int pd_credits = 1024;       // host's posted data credits (16 bytes each)
  int nph_credits = 64;        // host's non-posted header credits
  double credit_ret_ns = 100;  // time from a TLP's arrival at the host to its credits returning
                               // (with fc_update_ns: to its credits being freed at the host)
  double fc_update_ns = 0;     // > 0: freed credits go back in an UpdateFC DLLP sent when this
                               // timer, started by the first credit freed since the last UpdateFC,
                               // expires; the DLLP waits for the TLP on the downstream wire and
                               // arrives prop_ns later (PCIe 3.0 3.6.2.2, the update latency)
  int up_buf_tlps = 8;         // TLPs the hard IP buffers from RQ/CC before backpressure
  double cpl_discontinue = 0;  // probability, 0..1, that a completion with data is discontinued: the
                               // core found an uncorrectable error in it (PG213 RC tuser discontinue
                               // on its last beat); its payload is delivered inverted
  uint64_t fault_seed = 1;     // seed of the cpl_discontinue decisions
  double clk_ns = 4.0;         // user clock period (250 MHz)
};

enum TlpKind : uint8_t { T_MWR, T_MRD, T_CPL };

struct Tlp {
  TlpKind kind;
  bool from_cc;            // upstream completion from the completer (CC) side
  bool last_cpl;           // RC: request completed flag
  uint8_t fbe, lbe;        // first/last byte enables (requests)
  uint8_t status;          // completion status (0 SC, 1 UR, 4 CA)
  bool discontinue;        // RC: chosen by cpl_discontinue (discontinue on its last beat)
  bool disc_seen;          // RC: a beat carrying discontinue held part of it (the harness)
  uint16_t tag;
  uint16_t byte_count;     // completion: bytes left including this one (13 bits)
  uint16_t lower_addr;     // completion: low 12 bits of the first byte address
  uint32_t ndw;            // payload dwords
  uint64_t addr;           // request byte address (dword aligned)
  uint32_t wire_bytes;     // bytes charged on the link
  int64_t ready_ps;        // earliest link start
  int64_t arrive_ps;       // arrival at the other end
  uint32_t data[1024];     // payload dwords
};

// Fixed pool of TLP objects, recycled: no allocation per TLP once warm.
class TlpPool {
 public:
  Tlp* get() {
    if (free_.empty()) {
      store_.emplace_back(new Tlp[256]);
      for (int i = 0; i < 256; i++) free_.push_back(&store_.back()[i]);
    }
    Tlp* t = free_.back();
    free_.pop_back();
    return t;
  }
  void put(Tlp* t) { free_.push_back(t); }
 private:
  std::vector<std::unique_ptr<Tlp[]>> store_;
  std::vector<Tlp*> free_;
};

struct PcieStats {
  uint64_t up_bytes = 0, down_bytes = 0;     // link bytes charged
  uint64_t up_tlps = 0, down_tlps = 0;
  uint64_t dma_wr_bytes = 0, dma_rd_bytes = 0;
  uint64_t rd_reqs = 0, wr_reqs = 0, irqs = 0;
  uint64_t bad_dma_wr = 0, bad_dma_rd = 0;
  uint64_t cpl_discontinued = 0;         // completions delivered with discontinue on their last beat
  uint64_t cpl_discontinue_covered = 0;  // completions delivered with discontinue on any of their beats:
                                         // the above and those sharing a straddled beat with one
                                         // (the flag is per beat: a receiver must drop them all)
  int64_t up_busy_ps = 0, down_busy_ps = 0;
  uint64_t fc_updates = 0;     // UpdateFC DLLPs sent (with fc_update_ns)
  int64_t p_wait_ps = 0;       // time the head of the upstream queue waited for posted credits
  int64_t np_wait_ps = 0;      // ... for non-posted credits
  uint64_t rq_stall_cycles = 0;  // cycles the RTL offered an RQ beat and tready was low (harness)
  uint64_t rtt_count = 0;      // DMA reads timed: request accepted on RQ -> first completion at RC
  int64_t rtt_sum_ps = 0, rtt_min_ps = 0, rtt_max_ps = 0;
};

constexpr uint64_t MSIX_ADDR_BASE = 0xFEE00000ull;  // vector v at MSIX_ADDR_BASE + 4 v, data v
constexpr uint64_t BAR0_BASE = 0xC0000000ull;       // where "the BIOS" put BAR0

class PcieHost {
 public:
  PcieHost(const PcieCfg& cfg, uint8_t* mem, uint64_t mem_base, uint64_t mem_size)
      : cfg_(cfg), mem_(mem), mem_base_(mem_base), mem_size_(mem_size), fault_rng_(cfg.fault_seed) {
    static const double gts[] = {0, 2.5, 5, 8, 16, 32};
    double enc = cfg.gen >= 3 ? 128.0 / 130.0 : 0.8;
    double bytes_per_ns = gts[cfg.gen] * enc * cfg.width / 8.0;
    ps_per_byte_ = 1000.0 / bytes_per_ns * (1.0 + cfg.dllp_pct / 100.0);
    prop_ps_ = int64_t(cfg.prop_ns * 1000);
    lat_ps_ = int64_t(cfg.rd_latency_ns * 1000);
    cret_ps_ = int64_t(cfg.credit_ret_ns * 1000);
    fc_upd_ps_ = int64_t(cfg.fc_update_ns * 1000);
    if (cfg_.cpl_max == 0) cfg_.cpl_max = cfg.mps;
    ph_ = cfg.ph_credits;
    pd_ = cfg.pd_credits;
    nph_ = cfg.nph_credits;
    for (auto& r : rd_start_) r = -1;
  }

  // Host -> BAR0 requests (from the driver). Returns the tag for reads.
  void bar_write(uint32_t off, uint32_t val, int64_t now) {
    Tlp* t = pool_.get();
    t->kind = T_MWR;
    t->addr = BAR0_BASE + (off & ~3u);
    t->ndw = 1;
    t->data[0] = val;
    t->fbe = 0xF;
    t->lbe = 0;
    t->tag = 0;
    t->wire_bytes = 12 + 4 + cfg_.tlp_overhead;
    t->ready_ps = now;
    cq_pend_.push_back(t);
  }
  uint8_t bar_read(uint32_t off, int64_t now) {
    Tlp* t = pool_.get();
    t->kind = T_MRD;
    t->addr = BAR0_BASE + (off & ~3u);
    t->ndw = 1;
    t->fbe = 0xF;
    t->lbe = 0;
    t->tag = cq_tag_++;
    t->wire_bytes = 12 + cfg_.tlp_overhead;
    t->ready_ps = now;
    cq_pend_.push_back(t);
    return uint8_t(t->tag);
  }

  // Link: move what has been sent and arrived (call once per cycle with the cycle's time).
  void step(int64_t now) {
    // downstream: CQ requests and completions, whichever is ready first
    for (;;) {
      Tlp* a = cq_pend_.empty() ? nullptr : cq_pend_.front();
      Tlp* b = cpl_pend_.empty() ? nullptr : cpl_pend_.front();
      Tlp* c = (a && (!b || a->ready_ps <= b->ready_ps)) ? a : b;
      if (!c) break;
      int64_t start = down_free_ > c->ready_ps ? down_free_ : c->ready_ps;
      if (start > now) break;
      (c == a ? cq_pend_ : cpl_pend_).pop_front();
      int64_t dur = int64_t(c->wire_bytes * ps_per_byte_);
      down_free_ = start + dur;
      st.down_busy_ps += dur;
      st.down_bytes += c->wire_bytes;
      st.down_tlps++;
      c->arrive_ps = down_free_ + prop_ps_;
      down_flight_.push_back(c);
    }
    while (!down_flight_.empty() && down_flight_.front()->arrive_ps <= now) {
      Tlp* t = down_flight_.front();
      down_flight_.pop_front();
      if (t->kind == T_CPL && rd_start_[t->tag & 0xFF] >= 0) {
        int64_t rtt = t->arrive_ps - rd_start_[t->tag & 0xFF];
        rd_start_[t->tag & 0xFF] = -1;
        st.rtt_sum_ps += rtt;
        if (!st.rtt_count || rtt < st.rtt_min_ps) st.rtt_min_ps = rtt;
        if (rtt > st.rtt_max_ps) st.rtt_max_ps = rtt;
        st.rtt_count++;
      }
      (t->kind == T_CPL ? rc_q_ : cq_q_).push_back(t);
    }
    // credits coming back
    while (!cret_.empty() && cret_.front().t <= now) {
      last_cret_ps_ = cret_.front().t;
      ph_ += cret_.front().ph;
      pd_ += cret_.front().pd;
      nph_ += cret_.front().nph;
      cret_.pop_front();
    }
    // upstream: RQ and CC TLPs in acceptance order, posted/non-posted credits
    while (!up_pend_.empty()) {
      Tlp* c = up_pend_.front();
      int64_t start = up_free_ > c->ready_ps ? up_free_ : c->ready_ps;
      if (start > now) break;
      int ph = 0, pd = 0, nph = 0;
      if (c->kind == T_MWR) { ph = 1; pd = int((c->ndw + 3) / 4); }
      if (c->kind == T_MRD) nph = 1;
      if (ph > ph_ || pd > pd_ || nph > nph_) {
        if (blocked_since_ < 0) blocked_since_ = start;
        break;
      }
      if (blocked_since_ >= 0) {
        // the head waited for credits: it starts on the link when they came back, not when it
        // was ready (starting it in the past would let it arrive, and return its own credits,
        // up to the whole wait too early)
        if (start < last_cret_ps_) start = last_cret_ps_;
        (c->kind == T_MWR ? st.p_wait_ps : st.np_wait_ps) += start - blocked_since_;
        blocked_since_ = -1;
      }
      ph_ -= ph; pd_ -= pd; nph_ -= nph;
      up_pend_.pop_front();
      int64_t dur = int64_t(c->wire_bytes * ps_per_byte_);
      up_free_ = start + dur;
      st.up_busy_ps += dur;
      st.up_bytes += c->wire_bytes;
      st.up_tlps++;
      c->arrive_ps = up_free_ + prop_ps_;
      if (ph || nph) (fc_upd_ps_ ? freed_ : cret_).push_back({c->arrive_ps + cret_ps_, ph, pd, nph});
      up_flight_.push_back(c);
    }
    while (!up_flight_.empty() && up_flight_.front()->arrive_ps <= now) {
      Tlp* t = up_flight_.front();
      up_flight_.pop_front();
      host_receive(t);
    }
    // UpdateFC: the timer starts with the first credit freed after the last UpdateFC; when it
    // expires, one DLLP returns everything freed by then
    while (fc_upd_ps_ && !freed_.empty()) {
      int64_t fire = freed_.front().t + fc_upd_ps_;
      if (fire > now) break;
      Cret u{0, 0, 0, 0};
      while (!freed_.empty() && freed_.front().t <= fire) {
        u.ph += freed_.front().ph;
        u.pd += freed_.front().pd;
        u.nph += freed_.front().nph;
        freed_.pop_front();
      }
      // a DLLP goes between TLPs: after the one on the downstream wire, 8 bytes (PCIe 3.0 3.4)
      int64_t start = down_free_ > fire ? down_free_ : fire;
      u.t = start + int64_t(8 * ps_per_byte_) + prop_ps_;
      st.fc_updates++;
      cret_.push_back(u);
    }
  }

  // Device -> host TLP parsed from RQ/CC (the harness fills it); time = acceptance.
  Tlp* new_up() { return pool_.get(); }
  void push_up(Tlp* t, int64_t now) {
    t->ready_ps = now;
    if (t->kind == T_MRD) rd_start_[t->tag & 0xFF] = now;
    up_pend_.push_back(t);
  }
  bool up_full() const { return int(up_pend_.size()) >= cfg_.up_buf_tlps; }

  // Device-side delivery queues (the harness turns them into CQ and RC beats).
  std::deque<Tlp*>& cq_q() { return cq_q_; }
  std::deque<Tlp*>& rc_q() { return rc_q_; }
  void release(Tlp* t) { pool_.put(t); }

  // host requests waiting for the downstream link (the server stops reading the driver's
  // socket while this is large: posted writes back-pressure the driver like a real CPU's)
  size_t bar_backlog() const { return cq_pend_.size(); }

  bool busy() const {
    return !cq_pend_.empty() || !cpl_pend_.empty() || !down_flight_.empty() || !cq_q_.empty() ||
           !rc_q_.empty() || !up_pend_.empty() || !up_flight_.empty();
  }

  // callbacks into the harness
  std::function<void(uint8_t tag, uint32_t val, uint8_t status)> on_bar_cpl;
  std::function<void(uint32_t vector)> on_irq;
  std::function<void(const char*)> on_log;

  const PcieCfg& cfg() const { return cfg_; }
  PcieStats st;

 private:
  struct Cret { int64_t t; int ph, pd, nph; };

  bool in_mem(uint64_t a, uint64_t n) const {
    return a >= mem_base_ && n <= mem_size_ && a - mem_base_ <= mem_size_ - n;
  }

  void host_receive(Tlp* t) {
    if (t->kind == T_CPL) {             // completion of a BAR read, from CC
      if (on_bar_cpl) on_bar_cpl(uint8_t(t->tag), t->ndw ? t->data[0] : 0xFFFFFFFFu, t->status);
      pool_.put(t);
      return;
    }
    if (t->kind == T_MWR) {
      st.wr_reqs++;
      if (t->addr >= MSIX_ADDR_BASE && t->addr < MSIX_ADDR_BASE + 0x1000) {
        st.irqs++;
        if (on_irq) on_irq(t->data[0]);
      } else if (in_mem(t->addr, uint64_t(t->ndw) * 4)) {
        uint8_t* p = mem_ + (t->addr - mem_base_);
        const uint8_t* s = reinterpret_cast<const uint8_t*>(t->data);
        uint32_t n = t->ndw * 4;
        uint8_t lbe = t->ndw == 1 ? t->fbe : t->lbe;
        uint32_t b0 = 0, b1 = n;
        // contiguous enables: skip the disabled leading/trailing bytes
        while (b0 < 4 && !(t->fbe >> b0 & 1)) b0++;
        while (b1 > n - 4 && !(lbe >> (3 - (n - b1)) & 1)) b1--;
        if (b1 > b0) memcpy(p + b0, s + b0, b1 - b0);
        st.dma_wr_bytes += b1 > b0 ? b1 - b0 : 0;
      } else {
        st.bad_dma_wr++;
        if (on_log) on_log("DMA write outside host memory dropped");
      }
      pool_.put(t);
      return;
    }
    // memory read: completions split at RCB / cpl_max, ready after the read latency
    st.rd_reqs++;
    uint32_t lead = 0, trail = 0;
    uint8_t lbe = t->ndw == 1 ? t->fbe : t->lbe;
    while (lead < 4 && !(t->fbe >> lead & 1)) lead++;
    while (trail < 4 && !(lbe >> (3 - trail) & 1)) trail++;
    uint32_t total = t->ndw * 4 - lead - (t->ndw == 1 ? 0 : trail);
    if (t->ndw == 1) total = t->fbe ? (4 - lead - trail) : 1;
    int64_t ready = t->arrive_ps + lat_ps_;
    if (!in_mem(t->addr, uint64_t(t->ndw) * 4)) {
      st.bad_dma_rd++;
      if (on_log) on_log("DMA read outside host memory: Unsupported Request");
      Tlp* c = pool_.get();
      c->kind = T_CPL;
      c->status = 1;
      c->ndw = 0;
      c->discontinue = c->disc_seen = false;   // PG213: never on a TLP without payload
      c->tag = t->tag;
      c->byte_count = uint16_t(total & 0x1FFF);
      c->lower_addr = uint16_t((t->addr + lead) & 0xFFF);
      c->last_cpl = true;
      c->wire_bytes = 12 + cfg_.tlp_overhead;
      c->ready_ps = ready;
      cpl_pend_.push_back(c);
      pool_.put(t);
      return;
    }
    st.dma_rd_bytes += total;
    uint64_t cur = t->addr;                      // dword-aligned address of the next dword
    uint64_t end = t->addr + uint64_t(t->ndw) * 4;
    uint32_t left = total;
    bool first = true;
    uint32_t rcb = uint32_t(cfg_.rcb);
    while (cur < end) {
      uint64_t lim = cur + uint32_t(cfg_.split_all_rcb ? rcb : cfg_.cpl_max);
      if (lim < end) lim &= ~uint64_t(rcb - 1);  // a completion that is not the last ends at an RCB boundary
      if (lim <= cur) lim = (cur | (rcb - 1)) + 1;
      if (lim > end) lim = end;
      Tlp* c = pool_.get();
      c->kind = T_CPL;
      c->status = 0;
      c->tag = t->tag;
      c->ndw = uint32_t((lim - cur) / 4);
      c->lower_addr = uint16_t((cur + (first ? lead : 0)) & 0xFFF);
      c->byte_count = uint16_t(left & 0x1FFF);
      memcpy(c->data, mem_ + (cur - mem_base_), c->ndw * 4);
      // drawn only when asked for, so runs without it keep the stream (and everything else) unchanged
      c->discontinue = cfg_.cpl_discontinue > 0 && fault_rng_.uniform() < cfg_.cpl_discontinue;
      c->disc_seen = false;
      if (c->discontinue)   // the data of a discontinued TLP is not to be trusted: make sure it is wrong
        for (uint32_t i = 0; i < c->ndw; i++) c->data[i] = ~c->data[i];
      uint32_t bytes_here = c->ndw * 4 - (first ? lead : 0) - (lim == end && t->ndw > 1 ? trail : 0);
      if (t->ndw == 1) bytes_here = total;
      left -= bytes_here;
      c->last_cpl = lim == end;
      c->wire_bytes = 12 + c->ndw * 4 + cfg_.tlp_overhead;
      c->ready_ps = ready;
      cpl_pend_.push_back(c);
      cur = lim;
      first = false;
    }
    pool_.put(t);
  }

  PcieCfg cfg_;
  uint8_t* mem_;
  uint64_t mem_base_, mem_size_;
  double ps_per_byte_;
  int64_t prop_ps_, lat_ps_, cret_ps_, fc_upd_ps_;
  int64_t down_free_ = 0, up_free_ = 0;
  int64_t last_cret_ps_ = 0;     // time of the latest credit return applied
  int64_t blocked_since_ = -1;   // the upstream head has waited for credits since then (-1: not waiting)
  int ph_, pd_, nph_;
  uint16_t cq_tag_ = 0;
  TlpPool pool_;
  std::deque<Tlp*> cq_pend_, cpl_pend_, down_flight_, cq_q_, rc_q_, up_pend_, up_flight_;
  std::deque<Cret> cret_;       // credits on their way back to the device, in time order
  std::deque<Cret> freed_;      // credits freed at the host, waiting for the UpdateFC timer
  int64_t rd_start_[256];
  Rng fault_rng_;               // cpl_discontinue decisions
};

}  // namespace beryl
