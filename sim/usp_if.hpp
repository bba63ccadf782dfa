// SPDX-License-Identifier: MIT
// The UltraScale+ hard IP's user side (PG213 CQ/CC/RQ/RC at 512 bits, dword-aligned, RQ/RC 2-TLP
// straddle) between a verilated top with the hard IP's port names and the PcieHost model: builds
// CQ and RC beats, parses RQ and CC beats, drives the configuration pins. Used by beryl-sim
// (main.cpp, the NIC top) and the DMA benchmark harness (dma/main_dma.cpp, the PCIe subsystem).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "verilated.h"
#include "pcie_host.hpp"

namespace beryl {

// ----------------------------------------------------------------------------- bit helpers
// Verilator packs ports up to 64 bits in integers and wider ones in VlWide word arrays.
template <std::size_t N> inline uint32_t* words(VlWide<N>& w) { return w.data(); }
template <std::size_t N> inline uint64_t get64(const VlWide<N>& w, int i) {
  return uint64_t(w[2 * i]) | uint64_t(w[2 * i + 1]) << 32;
}
inline uint64_t get64(const uint64_t& q, int) { return q; }
template <std::size_t N> inline void set64(VlWide<N>& w, int i, uint64_t v) {
  w[2 * i] = uint32_t(v);
  w[2 * i + 1] = uint32_t(v >> 32);
}
inline void set64(uint64_t& q, int, uint64_t v) { q = v; }
// bits [lsb, lsb + n) of a wide port, n 1..32 (a field may cross a 32-bit word)
template <std::size_t N> inline void set_bits(VlWide<N>& w, int lsb, int n, uint32_t v) {
  uint64_t mask = ((uint64_t(1) << n) - 1) << (lsb % 32);
  uint64_t val = (uint64_t(v) << (lsb % 32)) & mask;
  std::size_t i = std::size_t(lsb / 32);
  w[i] = uint32_t((w[i] & ~mask) | val);
  if ((mask >> 32) != 0 && i + 1 < N) w[i + 1] = uint32_t(((w[i + 1] & ~(mask >> 32)) | (val >> 32)));
}
template <std::size_t N> inline uint32_t get_bits(const VlWide<N>& w, int lsb, int n) {
  std::size_t i = std::size_t(lsb / 32);
  uint64_t x = uint64_t(w[i]) | (i + 1 < N ? uint64_t(w[i + 1]) << 32 : 0);
  return uint32_t((x >> (lsb % 32)) & ((uint64_t(1) << n) - 1));
}
template <std::size_t N> inline void clear(VlWide<N>& w) {
  for (std::size_t i = 0; i < N; i++) w[i] = 0;
}


static inline int log2i(int v) { int n = 0; while ((1 << n) < v) n++; return n; }

// One cycle: drive() before the falling-edge eval, sample() after it (pre-edge handshakes),
// commit() after the rising-edge eval.
template <class Top, bool RC_STRADDLE>
class UspIf {
 public:
  UspIf(PcieHost& h, Top* t) : h_(h), t_(t) {}

  // configuration pins as the root complex's enumeration leaves them
  void configure() {
    const PcieCfg& c = h_.cfg();
    changed_ = true;
    t_->cfg_max_payload = uint8_t(log2i(c.mps) - 7);
    t_->cfg_max_read_req = uint8_t(log2i(c.mrrs) - 7);
    t_->cfg_function_status = 0x0006;   // memory space enable, bus master enable (PF0)
    t_->cfg_rcb_status = c.rcb == 128 ? 1 : 0;
    t_->cfg_interrupt_msix_enable = 1;
    t_->cfg_interrupt_msix_mask = 0;
    t_->cfg_negotiated_width = c.width == 16 ? 4 : 3;
    t_->cfg_current_speed = uint8_t(c.gen >= 4 ? 3 : 2);
    t_->m_axis_cc_tready = 1;
    t_->m_axis_rq_tready = 1;
    // Device Control as the shim's cfg_mgmt reads see it: MPS [7:5], Extended Tag [8], MRRS [14:12]
    dev_ctl_ = uint32_t(log2i(c.mps) - 7) << 5 | 1u << 8 | uint32_t(log2i(c.mrrs) - 7) << 12;
  }

  void drive() {
    stage_cq();
    stage_rc();
    rq_ready_ = !h_.up_full();
    put(t_->m_axis_rq_tready, uint8_t(rq_ready_));
    put(t_->m_axis_cc_tready, uint8_t(!h_.up_full()));
    // configuration management: answer a Device Control read the cycle after it is asked
    bool done = t_->cfg_mgmt_read && !cfg_done_;
    cfg_done_ = done;
    put(t_->cfg_mgmt_read_write_done, uint8_t(done));
    put(t_->cfg_mgmt_read_data, dev_ctl_);
  }

  // true if any model input this object drives was written with a new value since the last call
  // (beryl-sim skips the falling-edge eval of a cycle whose inputs did not change)
  bool take_changed() {
    bool c = changed_;
    changed_ = false;
    return c;
  }

  // handshakes of the cycle (pre-edge values); true if the RTL sent or took anything
  bool sample(int64_t now) {
    auto* t = t_;
    cq_fire_ = t->s_axis_cq_tvalid && t->s_axis_cq_tready;
    rc_fire_ = t->s_axis_rc_tvalid && t->s_axis_rc_tready;
    bool out = false;
    if (t->m_axis_rq_tvalid && rq_ready_) { take_rq(now); out = true; }
    if (t->m_axis_rq_tvalid && !rq_ready_) h_.st.rq_stall_cycles++;
    if (t->m_axis_cc_tvalid && t->m_axis_cc_tready) { take_cc(now); out = true; }
    return out || cq_fire_ || rc_fire_;
  }

  void commit() {
    if (cq_fire_) commit_cq();
    if (rc_fire_) commit_rc();
  }

  bool staged() const { return cq_staged_ || rc_staged_; }

 private:
  // --------------------------------------------------------------------------- CQ (host requests)
  void stage_cq() {
    if (cq_staged_) return;
    auto& q = h_.cq_q();
    auto* t = t_;
    if (q.empty()) { put(t->s_axis_cq_tvalid, uint8_t(0)); return; }
    changed_ = true;   // a new beat
    Tlp* r = q.front();
    uint32_t* d = words(t->s_axis_cq_tdata);
    for (int i = 0; i < 16; i++) d[i] = 0;
    // PG213 completer request descriptor: DW0 {addr[31:2], at}, DW1 addr[63:32],
    // DW2 {req id, req type[14:11], dword count[10:0]}, DW3 {attr, tc, bar aperture[24:19], bar id[18:16], tag}
    d[0] = uint32_t(r->addr) & ~3u;
    d[1] = uint32_t(r->addr >> 32);
    d[2] = (r->kind == T_MWR ? 1u : 0u) << 11 | r->ndw;
    d[3] = 18u << 19 | (r->tag & 0xFF);
    if (r->kind == T_MWR) d[4] = r->data[0];
    t->s_axis_cq_tkeep = r->kind == T_MWR ? 0x1F : 0xF;
    t->s_axis_cq_tlast = 1;
    clear(t->s_axis_cq_tuser);
    set_bits(t->s_axis_cq_tuser, 0, 4, r->fbe);
    set_bits(t->s_axis_cq_tuser, 8, 4, r->lbe);
    set_bits(t->s_axis_cq_tuser, 80, 1, 1);                          // is_sop[0]
    set_bits(t->s_axis_cq_tuser, 86, 1, 1);                          // is_eop[0]
    set_bits(t->s_axis_cq_tuser, 88, 4, r->kind == T_MWR ? 4 : 3);   // is_eop0_ptr
    t->s_axis_cq_tvalid = 1;
    cq_staged_ = true;
  }
  void commit_cq() {
    auto& q = h_.cq_q();
    h_.release(q.front());
    q.pop_front();
    cq_staged_ = false;
    t_->s_axis_cq_tvalid = 0;
    changed_ = true;
  }

  // --------------------------------------------------------------------------- CC (our completions)
  void take_cc(int64_t now) {
    auto* t = t_;
    const uint32_t* d = words(t->m_axis_cc_tdata);
    if (!cc_in_pkt_) {
      Tlp* c = h_.new_up();
      c->kind = T_CPL;
      c->from_cc = true;
      c->ndw = d[1] & 0x7FF;
      c->status = uint8_t(d[1] >> 11 & 7);
      c->tag = uint16_t(d[2] & 0xFF);
      c->data[0] = c->ndw ? d[3] : 0xFFFFFFFFu;
      c->wire_bytes = 12 + c->ndw * 4 + h_.cfg().tlp_overhead;
      cc_cur_ = c;
    }
    cc_in_pkt_ = !t->m_axis_cc_tlast;
    if (!cc_in_pkt_) { h_.push_up(cc_cur_, now); cc_cur_ = nullptr; }
  }

  // --------------------------------------------------------------------------- RQ (our requests)
  // Beats are delimited by the tuser sop/eop fields, which the shim drives with or without straddle.
  void rq_start(const uint32_t* d, int at, int last, uint8_t fbe, uint8_t lbe) {
    Tlp* r = h_.new_up();
    r->from_cc = false;
    r->addr = (uint64_t(d[at + 1]) << 32 | d[at]) & ~3ull;
    r->ndw = d[at + 2] & 0x7FF;
    uint32_t type = d[at + 2] >> 11 & 0xF;
    r->kind = type == 1 ? T_MWR : T_MRD;
    r->tag = uint16_t(d[at + 3] & 0xFF);
    r->fbe = fbe;
    r->lbe = lbe;
    r->wire_bytes = (r->addr >> 32 ? 16 : 12) + (r->kind == T_MWR ? r->ndw * 4 : 0) + h_.cfg().tlp_overhead;
    rq_cur_ = r;
    rq_got_ = 0;
    rq_copy(d, at + 4, last);
  }
  void rq_copy(const uint32_t* d, int from, int last) {
    Tlp* r = rq_cur_;
    if (r->kind != T_MWR) return;
    if (last < from || rq_got_ >= r->ndw) return;
    uint32_t n = std::min(uint32_t(last - from + 1), r->ndw - rq_got_);
    memcpy(&r->data[rq_got_], &d[from], n * sizeof(uint32_t));
    rq_got_ += n;
  }
  void take_rq(int64_t now) {
    auto* t = t_;
    const uint32_t* d = words(t->m_axis_rq_tdata);
    auto& u = t->m_axis_rq_tuser;
    uint32_t is_sop = get_bits(u, 20, 2), sop0 = get_bits(u, 22, 2);
    uint32_t is_eop = get_bits(u, 26, 2), eop0 = get_bits(u, 28, 4), eop1 = get_bits(u, 32, 4);
    uint8_t fbe = uint8_t(get_bits(u, 0, 4)), lbe = uint8_t(get_bits(u, 8, 4));
    int k = 0;  // next eop slot
    uint32_t eptr[2] = {eop0, eop1};
    if (rq_cur_) {
      bool ends = is_eop >> k & 1;
      int last = ends ? int(eptr[k]) : 15;
      rq_copy(d, 0, last);
      if (ends) { h_.push_up(rq_cur_, now); rq_cur_ = nullptr; k++; }
    }
    if (is_sop & 1) {
      int at = int(sop0) * 4;
      bool ends = is_eop >> k & 1;
      int last = ends ? int(eptr[k]) : 15;
      rq_start(d, at, last, fbe, lbe);
      if (ends) { h_.push_up(rq_cur_, now); rq_cur_ = nullptr; }
    }
  }

  // --------------------------------------------------------------------------- RC (completions to us)
  // Beat builder: a TLP continuing from the last beat at dword 0, then (2-TLP straddle) new TLPs
  // at dword 0 or 8. Nothing changes until the beat is taken. A beat on which a TLP the host
  // marked discontinued ends carries discontinue (PG213: on the TLP's last beat).
  void stage_rc() {
    if (rc_staged_) return;
    auto& q = h_.rc_q();
    auto* t = t_;
    if (q.empty()) { put(t->s_axis_rc_tvalid, uint8_t(0)); return; }
    changed_ = true;   // a new beat
    uint32_t* d = words(t->s_axis_rc_tdata);
    uint32_t keep = 0, sop = 0, eop = 0, sop_ptr[2] = {0, 0}, eop_ptr[2] = {0, 0};
    int nsop = 0, neop = 0;
    int pos = 0;
    size_t qi = 0;
    uint32_t off = rc_off_;       // dwords of q[qi] already sent (descriptor included)
    rc_commit_n_ = 0;
    bool cont = false;            // a TLP continues into the next beat
    bool disc = false;            // a discontinued TLP ends on this beat
    while (qi < q.size() && pos < 16) {
      Tlp* c = q[qi];
      uint32_t len = 3 + c->ndw;
      if (off == 0) {             // a new TLP may start here
        if (nsop == 2 || neop == 2) break;
        if (pos > 8 || (pos > 0 && !RC_STRADDLE)) break;
        if (pos > 0) pos = 8;
        sop |= 1u << nsop;
        sop_ptr[nsop++] = uint32_t(pos / 4);
      }
      uint32_t n = len - off;
      if (n > uint32_t(16 - pos)) n = uint32_t(16 - pos);
      // descriptor dwords (the first 3 of the TLP), then the payload in one copy
      uint32_t i = 0;
      for (; i < n && off + i < 3; i++) d[pos + int(i)] = rc_desc(c, int(off + i));
      if (i < n) memcpy(&d[pos + int(i)], &c->data[off + i - 3], (n - i) * sizeof(uint32_t));
      keep |= ((1u << n) - 1) << pos;
      pos += int(n);
      off += n;
      if (off == len) {
        disc |= c->discontinue;
        eop |= 1u << neop;
        eop_ptr[neop++] = uint32_t(pos - 1);
        qi++;
        rc_commit_n_ = int(qi);
        off = 0;
        if (!RC_STRADDLE) break;
      } else {
        cont = true;
        break;
      }
    }
    rc_commit_off_ = off;
    rc_touch_n_ = int(qi) + (cont ? 1 : 0);   // TLPs with a piece in this beat
    rc_disc_ = disc;
    for (int i = pos; i < 16; i++) d[i] = 0;
    t->s_axis_rc_tkeep = uint16_t(keep);
    t->s_axis_rc_tlast = !cont;
    clear(t->s_axis_rc_tuser);
    auto& u = t->s_axis_rc_tuser;
    set_bits(u, 64, 2, sop);
    set_bits(u, 68, 2, sop_ptr[0]);
    set_bits(u, 70, 2, sop_ptr[1]);
    set_bits(u, 76, 2, eop);
    set_bits(u, 80, 4, eop_ptr[0]);
    set_bits(u, 84, 4, eop_ptr[1]);
    set_bits(u, 96, 1, disc ? 1u : 0u);                              // discontinue
    t->s_axis_rc_tvalid = 1;
    rc_staged_ = true;
  }
  static uint32_t rc_desc(const Tlp* c, int w) {
    // PG213 requester completion descriptor
    if (w == 0) return uint32_t(c->last_cpl) << 30 | uint32_t(c->byte_count & 0x1FFF) << 16 | (c->lower_addr & 0xFFF);
    if (w == 1) return uint32_t(c->status & 7) << 11 | (c->ndw & 0x7FF);
    return c->tag & 0xFFu;
  }
  void commit_rc() {
    auto& q = h_.rc_q();
    // the flag is per beat: with straddle it covers every TLP with a piece in the beat
    if (rc_disc_)
      for (int i = 0; i < rc_touch_n_; i++) q[size_t(i)]->disc_seen = true;
    for (int i = 0; i < rc_commit_n_; i++) {
      if (q.front()->discontinue) h_.st.cpl_discontinued++;
      if (q.front()->disc_seen) h_.st.cpl_discontinue_covered++;
      h_.release(q.front());
      q.pop_front();
    }
    rc_off_ = rc_commit_off_;
    rc_staged_ = false;
    t_->s_axis_rc_tvalid = 0;
    changed_ = true;
  }


  // write an input, noting whether its value changed
  template <class T, class V> void put(T& port, V v) {
    if (port != T(v)) {
      port = T(v);
      changed_ = true;
    }
  }

  PcieHost& h_;
  Top* t_;
  bool changed_ = true;
  bool rq_ready_ = true, cq_fire_ = false, rc_fire_ = false;
  bool cq_staged_ = false, rc_staged_ = false, cfg_done_ = false;
  uint32_t dev_ctl_ = 0;
  uint32_t rc_off_ = 0, rc_commit_off_ = 0;
  int rc_commit_n_ = 0;
  int rc_touch_n_ = 0;
  bool rc_disc_ = false;
  bool cc_in_pkt_ = false;
  Tlp* cc_cur_ = nullptr;
  Tlp* rq_cur_ = nullptr;
  uint32_t rq_got_ = 0;
};

}  // namespace beryl
