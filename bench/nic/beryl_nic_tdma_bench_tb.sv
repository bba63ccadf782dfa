// SPDX-License-Identifier: MIT
// TDMA benchmark harness (bench/nic/bench_tdma.py): PTP clock -> TDMA timer -> TDMA scheduler -> TX engine model
// -> TX gate -> line-rate wire model. The wire model logs every frame (queue, length, release at the gate,
// first and last byte on the wire, in ps of PTP time) to tdma_frames.log in the working directory.
// Simulation only (random numbers, $fwrite).
`default_nettype none

module beryl_nic_tdma_bench_tb #(
  parameter int QI_W        = 4,     // queues: 2^QI_W
  parameter int SLOTS_MAX   = 8,
  parameter int SI_W        = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1,
  parameter int SC_W        = $clog2(SLOTS_MAX + 1),
  parameter int MAX_CMDS    = 8,     // scheduler commands in flight
  parameter int BATCH_SLOTS = 4,     // engine: commands taken and not yet walked (beryl_nic_tx_engine default)
  parameter int DESC_BATCH  = 8,     // engine: packets per command, at most
  parameter int PKT_SLOTS   = 32,    // engine: packets between the walk and the MAC (beryl_nic_tx_engine default)
  parameter int PARK_BEATS  = 256,   // gate: park buffer, beats
  parameter int PARK_FRAMES = 32     // gate: parked frames
) (
  input  wire logic                 clk,
  input  wire logic                 rst,

  // PTP clock
  input  wire logic                 set_tod_valid,
  input  wire logic [95:0]          set_tod,
  // TDMA timer
  input  wire logic                 tmr_enable,
  input  wire logic [47:0]          start_sec,
  input  wire logic [29:0]          start_ns,
  input  wire logic [31:0]          period_ns,
  input  wire logic [31:0]          slot_ns,
  input  wire logic [SC_W-1:0]      slot_count,
  // scheduler
  input  wire logic                 sched_enable,
  input  wire logic [31:0]          guard_ns,
  input  wire logic                 db_evt_valid,
  output logic                      db_evt_ready,
  input  wire logic [QI_W-1:0]      db_evt_qidx,
  input  wire logic                 cfg_valid,      // mask write to scheduler and gate
  output logic                      cfg_ready,
  input  wire logic [QI_W-1:0]      cfg_qidx,
  input  wire logic [SLOTS_MAX-1:0] cfg_mask,
  // gate
  input  wire logic                 gate_enable,
  input  wire logic                 hold_own,
  input  wire logic [31:0]          rate_nspb,
  input  wire logic [7:0]           overhead_bytes,
  input  wire logic [15:0]          margin_ns,
  // engine model: frame sizes (with FCS) uniform in [size_min, size_max]; DMA delay uniform in
  // [dma_min, dma_min + dma_span) clocks from the walk to the frame being ready to stream
  input  wire logic [15:0]          size_min,
  input  wire logic [15:0]          size_max,
  input  wire logic [15:0]          dma_min,
  input  wire logic [15:0]          dma_span,
  input  wire logic [31:0]          seed,
  // wire model: ps per byte; MAC latency (a byte leaves no earlier than lat_ps after its beat is taken); MAC
  // buffer (a beat is taken while less than lat_ps + buf_ps of wire time is queued)
  input  wire logic [15:0]          ps_per_byte,
  input  wire logic [31:0]          buf_ps,
  input  wire logic [31:0]          lat_ps,
  input  wire logic [31:0]          run_id,
  input  wire logic                 log_en,

  output logic [31:0]               frames_out,
  output logic [31:0]               hold_count,
  output logic [31:0]               offslot_count,
  output logic [31:0]               overrun_count,
  output logic [31:0]               park_count,
  output logic [31:0]               bad_sts_count,
  output logic                      slot_valid,
  output logic [63:0]               now_ps
);

  // ---------------------------------------------------------------- PTP clock and timer
  logic [95:0]     tod;
  logic            step;
  logic [SI_W-1:0] slot_index;
  logic            slot_start;
  logic [31:0]     slot_left_ns;

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_ptp_clock #(.FNS_W(32), .PERIOD_NS(4)) u_clock (
    .clk, .rst,
    .incr_valid(1'b0), .incr('0), .set_tod_valid, .set_tod, .adj_valid(1'b0), .adj_offset('0), .snap_req(1'b0),
    .tod, .rel(), .pps(), .step, .set_err(), .snap_tod(), .snap_rel(), .incr_cur()
  );

  beryl_ptp_tdma_timer #(.SLOTS_MAX(SLOTS_MAX)) u_timer (
    .clk, .rst, .tod, .tod_step(step), .enable(tmr_enable), .start_sec, .start_ns, .period_ns, .slot_ns,
    .slot_count, .slot_valid, .slot_index, .slot_start, .slot_left_ns, .searching(), .cfg_err()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign now_ps = (64'(tod[95:48]) * 64'd1000000000 + 64'(tod[47:16])) * 64'd1000;

  // ---------------------------------------------------------------- scheduler
  logic            tx_cmd_valid;
  logic            tx_cmd_ready;
  logic [QI_W-1:0] tx_cmd_qidx;
  logic            tx_sts_valid;
  logic [QI_W-1:0] tx_sts_qidx;
  logic [7:0]      tx_sts_pkts;
  logic [31:0]     tx_sts_bytes;
  logic            s_cfg_ready;
  logic            g_cfg_ready;

  assign cfg_ready = s_cfg_ready && g_cfg_ready;

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_nic_sched_tdma #(.QUEUE_COUNT(2**QI_W), .MAX_CMDS(MAX_CMDS), .SLOTS_MAX(SLOTS_MAX)) u_sched (
    .clk, .rst, .db_evt_valid, .db_evt_ready, .db_evt_qidx, .tx_cmd_valid, .tx_cmd_ready, .tx_cmd_qidx,
    .tx_sts_valid, .tx_sts_qidx, .tx_sts_result(beryl_nic_pkg::TXS_SENT), .tx_sts_pkts, .tx_sts_bytes,
    .sched_enable, .cfg_valid(cfg_valid && g_cfg_ready), .cfg_ready(s_cfg_ready), .cfg_write(1'b1), .cfg_qidx,
    .cfg_mask, .cfg_rd_valid(), .cfg_rd_mask(), .slot_valid, .slot_index, .slot_left_ns, .slot_count, .guard_ns,
    .bad_sts_count
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---------------------------------------------------------------- TX engine model
  // commands wait in a batch FIFO; the walker turns the head command into 1..DESC_BATCH frames, one per clock
  // while a packet slot is free, each ready to stream after a random DMA delay (in order); the status goes
  // when the command's last frame has a slot (as in beryl_nic_tx_engine). Slots free when a frame has left.
  logic [31:0]     rnd_q;
  logic [QI_W-1:0] bq [BATCH_SLOTS];
  int              b_wr, b_rd, b_n;
  logic            w_busy;
  logic [QI_W-1:0] w_q;
  int              w_left, w_pkts, w_bytes;
  logic [QI_W-1:0] pq_q   [PKT_SLOTS];
  logic [15:0]     pq_len [PKT_SLOTS];
  longint          pq_rdy [PKT_SLOTS];
  int              p_wr, p_rd, p_n;
  longint          cyc, last_rdy;
  int              seq;

  // streamer
  logic [511:0]    e_tdata;
  logic [63:0]     e_tkeep;
  logic            e_tvalid;
  logic            e_tready;
  logic            e_tlast;
  logic [15:0]     e_len;
  logic [QI_W-1:0] e_qidx;
  int              e_off;

  assign tx_cmd_ready = b_n < BATCH_SLOTS;

  function automatic logic [31:0] xs(input logic [31:0] x);
    logic [31:0] y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    return y ^ (y << 5);
  endfunction

  always_comb begin
    e_tvalid = p_n > 0 && cyc >= pq_rdy[p_rd];
    e_qidx   = pq_q[p_rd];
    e_len    = pq_len[p_rd];
    e_tlast  = e_off + 64 >= int'(e_len);
    e_tkeep  = e_tlast ? 64'((65'd1 << (int'(e_len) - e_off)) - 1) : '1;
    e_tdata  = {448'd0, 16'(e_off), 16'(e_len), 32'(seq)};
  end

  always_ff @(posedge clk) begin
    logic [15:0] sz;
    int          nfree;
    cyc          <= cyc + 1;
    tx_sts_valid <= 1'b0;
    nfree = 0;
    if (tx_cmd_valid && tx_cmd_ready) begin
      bq[b_wr] <= tx_cmd_qidx;
      b_wr     <= (b_wr + 1) % BATCH_SLOTS;
    end
    if (!w_busy && b_n > 0) begin
      rnd_q   <= xs(rnd_q);
      w_busy  <= 1'b1;
      w_q     <= bq[b_rd];
      w_left  <= 1 + int'(rnd_q % DESC_BATCH);
      w_pkts  <= 0;
      w_bytes <= 0;
      b_rd    <= (b_rd + 1) % BATCH_SLOTS;
    end else if (w_busy && w_left == 0) begin
      w_busy       <= 1'b0;
      tx_sts_valid <= 1'b1;
      tx_sts_qidx  <= w_q;
      tx_sts_pkts  <= 8'(w_pkts);
      tx_sts_bytes <= 32'(w_bytes);
    end else if (w_busy && p_n < PKT_SLOTS) begin
      rnd_q <= xs(xs(rnd_q));
      sz = size_min + 16'(rnd_q % (32'(size_max - size_min) + 1));
      pq_q[p_wr]   <= w_q;
      pq_len[p_wr] <= sz - 16'd4;         // the stream carries the frame without its FCS
      pq_rdy[p_wr] <= (cyc + longint'(dma_min) + longint'(xs(rnd_q) % (32'(dma_span) + 1)) > last_rdy) ?
                      cyc + longint'(dma_min) + longint'(xs(rnd_q) % (32'(dma_span) + 1)) : last_rdy;
      last_rdy     <= (cyc + longint'(dma_min) + longint'(xs(rnd_q) % (32'(dma_span) + 1)) > last_rdy) ?
                      cyc + longint'(dma_min) + longint'(xs(rnd_q) % (32'(dma_span) + 1)) : last_rdy;
      p_wr    <= (p_wr + 1) % PKT_SLOTS;
      w_left  <= w_left - 1;
      w_pkts  <= w_pkts + 1;
      w_bytes <= w_bytes + int'(sz) - 4;
      nfree   = -1;
    end
    if (e_tvalid && e_tready) begin
      if (e_tlast) begin
        e_off <= 0;
        p_rd  <= (p_rd + 1) % PKT_SLOTS;
        seq   <= seq + 1;
        nfree = nfree + 1;
      end else begin
        e_off <= e_off + 64;
      end
    end
    p_n <= p_n - nfree;
    b_n <= b_n + ((tx_cmd_valid && tx_cmd_ready) ? 1 : 0) - ((!w_busy && b_n > 0) ? 1 : 0);
    if (rst) begin
      rnd_q    <= seed | 32'd1;
      b_wr     <= 0;
      b_rd     <= 0;
      b_n      <= 0;
      w_busy   <= 1'b0;
      p_wr     <= 0;
      p_rd     <= 0;
      p_n      <= 0;
      cyc      <= 0;
      last_rdy <= 0;
      e_off    <= 0;
      seq      <= 0;
    end
  end

  // ---------------------------------------------------------------- gate
  logic [511:0]    m_tdata;
  logic [63:0]     m_tkeep;
  logic            m_tvalid;
  logic            m_tready;
  logic            m_tlast;
  logic [15:0]     m_len;
  logic [QI_W-1:0] m_qidx;

  beryl_nic_tx_gate #(.DATA_W(512), .QI_W(QI_W), .SLOTS_MAX(SLOTS_MAX), .QMASK_EN(1), .PARK_BEATS(PARK_BEATS),
                      .PARK_FRAMES(PARK_FRAMES))
  u_gate (
    .clk, .rst,
    .s_axis_tdata(e_tdata), .s_axis_tkeep(e_tkeep), .s_axis_tvalid(e_tvalid), .s_axis_tready(e_tready),
    .s_axis_tlast(e_tlast), .s_axis_len(e_len), .s_axis_qidx(e_qidx), .s_axis_user(1'b0),
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), .m_axis_tready(m_tready),
    .m_axis_tlast(m_tlast), .m_axis_len(m_len), .m_axis_qidx(m_qidx), .m_axis_user(),
    .enable(gate_enable), .hold_own, .rate_nspb, .overhead_bytes, .margin_ns,
    .cfg_valid(cfg_valid && s_cfg_ready), .cfg_ready(g_cfg_ready), .cfg_qidx, .cfg_mask,
    .slot_valid, .slot_index, .slot_start, .slot_left_ns, .slot_count,
    .hold_count, .offslot_count, .overrun_count, .park_count
  );

  // ---------------------------------------------------------------- wire model and log
  longint q_end;       // when everything taken so far has left the wire (incl. the IFG after the last frame)
  longint f_start;
  longint f_rel;
  int     f_bytes;
  int     fd;

  assign m_tready = q_end <= longint'(now_ps) + longint'(lat_ps) + longint'(buf_ps);

  initial fd = $fopen("tdma_frames.log", "w");

  always_ff @(posedge clk) begin
    longint t;
    longint s;
    int     nb;
    if (m_tvalid && m_tready) begin
      nb = $countones(m_tkeep);
      t  = longint'(now_ps) + longint'(lat_ps);
      if (f_bytes == 0) begin
        s = q_end > t ? q_end : t;
        f_start <= s;
        f_rel   <= longint'(now_ps);
        s = s + 64'(8 * ps_per_byte);             // preamble and SFD
      end else begin
        s = q_end > t ? q_end : t;                // a late beat (source underrun) leaves a gap
      end
      s = s + longint'(nb) * longint'(ps_per_byte);
      if (m_tlast) begin
        if (f_bytes + nb < 60) s = s + longint'(60 - f_bytes - nb) * longint'(ps_per_byte);   // padding
        s = s + 64'(4 * ps_per_byte);             // FCS: the last byte leaves here
        if (log_en) begin
          $fwrite(fd, "%0d %0d %0d %0d %0d %0d\n", run_id, m_qidx, m_len,
                  f_bytes == 0 ? longint'(now_ps) : f_rel, f_bytes == 0 ? (q_end > t ? q_end : t) : f_start, s);
        end
        frames_out <= frames_out + 1;
        s = s + 64'(12 * ps_per_byte);            // inter-frame gap
        f_bytes <= 0;
      end else begin
        f_bytes <= f_bytes + nb;
      end
      q_end <= s;
    end
    if (rst) begin
      q_end      <= 0;
      f_bytes    <= 0;
      frames_out <= 0;
    end
  end

  final $fclose(fd);

endmodule

`resetall
