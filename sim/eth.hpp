// SPDX-License-Identifier: MIT
// Ethernet side of beryl-sim: per NIC port a TX collector paced at line rate, an RX queue of
// frames with arrival times, a line-rate RX frame generator, wires between ports (delay, loss,
// reordering; ports of one NIC or of two NICs) and Linux TAP devices. Times are global
// picoseconds (the time base all NICs of the simulator share).
#pragma once
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "rng.hpp"

namespace beryl {

struct Frame {
  int64_t arrive_ps = 0;   // global time from which its first beat may be presented to the RX
  bool bad = false;       // delivered with the MAC's bad-frame flag (s_axis_rx_tuser) on its last beat
  std::vector<uint8_t> data;
};

// Reused frame buffers: no allocation per frame once warm.
class FramePool {
 public:
  Frame get() {
    Frame f;
    if (!free_.empty()) {
      f.data.swap(free_.back());
      free_.pop_back();
      f.data.clear();
    }
    f.bad = false;
    return f;
  }
  void put(Frame& f) {
    free_.emplace_back();
    free_.back().swap(f.data);
  }
 private:
  std::vector<std::vector<uint8_t>> free_;
};

enum PortMode { PM_NONE, PM_WIRE, PM_TAP };

struct WireCfg {
  double delay_ns = 50;   // first bit out to first bit in: the frame's first beat may reach the peer's
                          // RX this long after its first TX beat, not before its last TX beat
  double loss = 0;        // drop probability per frame
  double reorder = 0;     // probability a frame is held back behind the next one
  double bad = 0;         // probability a frame arrives flagged bad (FCS error)
};

struct Port {
  PortMode mode = PM_NONE;
  int peer = -1;          // wire: the other port's global index (NIC * ports per NIC + port)
  WireCfg wire;
  std::string tap_name;
  int tap_fd = -1;
  // TX side (RTL -> outside): collector and line-rate pacing credit (bytes)
  Frame tx_cur;
  double tx_credit = 0;
  int64_t tx_sof_ps = 0;      // time the first beat of tx_cur was taken
  // TX measurement window (restarted by a GEN message): frames whose last beat the port took,
  // and the cycles of the first and the last of them (-1: none yet)
  uint64_t win_tx_frames = 0;
  int64_t win_tx_first = -1, win_tx_last = -1;
  // RX side (outside -> RTL): frames by arrival time; the frame in delivery (taken from rx_q or
  // made by the generator) and its offset
  std::deque<Frame> rx_q;
  Frame rx_cur;
  bool rx_busy = false;       // rx_cur is being delivered
  bool rx_cur_gen = false;    // ... and it comes from the generator (beats paced by gen_credit)
  bool rx_staged = false;
  uint32_t rx_off = 0;
  uint32_t rx_stage_len = 0;
  // RX frame generator (GEN message): gen_left frames of gen_tmpl back to back at line rate. The
  // credit (bytes) mirrors the cocotb bench's RTL generator: a beat is offered while it is not
  // negative; each beat is charged its bytes, a frame's last beat 24 more (preamble, SFD, IFG,
  // FCS); it grows by the line rate each cycle and is capped at 64 when nothing was sent.
  std::vector<uint8_t> gen_tmpl;
  bool gen_number = true;     // write the frame number (u32 LE) at byte 14 of each frame
  uint64_t gen_left = 0, gen_sent = 0;
  int64_t gen_first = -1, gen_last = -1;   // cycles of the first/last generated frame's last beat
  double gen_credit = 0;
  // statistics
  uint64_t tx_frames = 0, tx_bytes = 0, rx_frames = 0, rx_bytes = 0, dropped = 0, reordered = 0, rx_bad = 0;
  uint64_t tx_unconnected = 0;
  // global time of the first beat of the latest frame the port transmitted (taken by the TX
  // pacing) and of the latest frame presented to its RX (-1: none yet): wire delay checks
  int64_t last_tx_sof_ps = -1, last_rx_sof_ps = -1;
};

// Insert by arrival time (stable for equal times).
inline void rx_insert(std::deque<Frame>& q, Frame&& f) {
  auto it = q.end();
  while (it != q.begin() && (it - 1)->arrive_ps > f.arrive_ps) --it;
  q.insert(it, std::move(f));
}

}  // namespace beryl
