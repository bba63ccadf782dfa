// SPDX-License-Identifier: MIT
// TDMA transmit gate (docs/blocks/tdma.md), one per port between the TX engine and the MAC: a frame starts
// only if, at the line rate, it finishes before the current slot closes; it waits otherwise (never dropped,
// never cut). One register stage (latency 1 clock, enabled or not), one beat per clock. With QMASK_EN the
// input is held off for 2^QI_W clocks after reset while the mask RAM clears.
`default_nettype none

module beryl_nic_tx_gate #(
  parameter int DATA_W    = 512,                              // AXI-Stream data width, bits, 64..1024, x8
  parameter int KEEP_W    = DATA_W / 8,                       // byte enables (derived)
  parameter int QI_W      = 12,                               // TX queue index width, bits, 1..15
  parameter int SLOTS_MAX = 8,                                // timer's SLOTS_MAX, 1..32
  parameter int SI_W      = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1, // slot index width (derived)
  parameter int SC_W      = $clog2(SLOTS_MAX + 1),            // slot count width (derived)
  parameter int QMASK_EN  = 1,                                // 1: per-queue slot masks (hold_own), 0: none
  parameter int MIN_FRAME = 60                                // bytes the MAC pads a frame to (no FCS), 0..255
) (
  input  wire logic                 clk,
  input  wire logic                 rst,

  // frames from the TX engine; len and qidx are valid with every beat of a frame
  input  wire logic [DATA_W-1:0]    s_axis_tdata,
  input  wire logic [KEEP_W-1:0]    s_axis_tkeep,
  input  wire logic                 s_axis_tvalid,
  output logic                      s_axis_tready,
  input  wire logic                 s_axis_tlast,
  input  wire logic [15:0]          s_axis_len,      // frame length, bytes, as on the stream (no FCS)
  input  wire logic [QI_W-1:0]      s_axis_qidx,     // TX queue of the frame

  // frames to the MAC
  output logic [DATA_W-1:0]         m_axis_tdata,
  output logic [KEEP_W-1:0]         m_axis_tkeep,
  output logic                      m_axis_tvalid,
  input  wire logic                 m_axis_tready,
  output logic                      m_axis_tlast,
  output logic [15:0]               m_axis_len,
  output logic [QI_W-1:0]           m_axis_qidx,

  // configuration
  input  wire logic                 enable,          // 0: pass-through (the register stage stays)
  input  wire logic                 hold_own,        // 1: a frame goes only in a slot of its queue's mask
  input  wire logic [31:0]          rate_nspb,       // line rate, ns per byte, unsigned 8.24 (100G: 0.08)
  input  wire logic [7:0]           overhead_bytes,  // wire bytes per frame besides len (preamble+SFD 8,
                                                     // FCS 4, IFG 12: 24)
  input  wire logic [15:0]          margin_ns,       // release of the first beat to the frame's first byte on
                                                     // the wire, worst case, ns (incl. the timer's 2 clocks)

  // per-queue slot masks (QMASK_EN): the scheduler's masks, written to both; all ones after reset
  input  wire logic                 cfg_valid,
  output logic                      cfg_ready,
  input  wire logic [QI_W-1:0]      cfg_qidx,
  input  wire logic [SLOTS_MAX-1:0] cfg_mask,

  // slot of beryl_ptp_tdma_timer
  input  wire logic                 slot_valid,
  input  wire logic [SI_W-1:0]      slot_index,
  input  wire logic                 slot_start,
  input  wire logic [31:0]          slot_left_ns,
  input  wire logic [SC_W-1:0]      slot_count,

  output logic [31:0]               hold_count,      // frames that waited: too long for what was left of a slot
  output logic [31:0]               offslot_count,   // frames that waited for a slot of their own (hold_own)
  output logic [31:0]               overrun_count    // frames released at a slot start without fitting
                                                     // (longer than a slot: they overrun it)
);

  if (DATA_W < 64 || DATA_W > 1024 || DATA_W % 8 != 0 || KEEP_W != DATA_W / 8) begin : g_chk_dw
    $error("%m: DATA_W must be a multiple of 8 within 64..1024, KEEP_W = DATA_W / 8");
  end
  if (QI_W < 1 || QI_W > 15) begin : g_chk_qiw
    $error("%m: QI_W must be 1..15");
  end
  if (SLOTS_MAX < 1 || SLOTS_MAX > 32) begin : g_chk_slots
    $error("%m: SLOTS_MAX must be 1..32");
  end
  if (MIN_FRAME < 0 || MIN_FRAME > 255) begin : g_chk_min
    $error("%m: MIN_FRAME must be 0..255");
  end

  localparam int NEED_W = 27;   // ns: 8.24 ns/byte x (2^16 + 255) bytes < 2^25 ns, + margin

  // ---------------------------------------------------------------- the register stage
  logic                 r_valid_q;
  logic [DATA_W-1:0]    r_data_q;
  logic [KEEP_W-1:0]    r_keep_q;
  logic                 r_last_q;
  logic [15:0]          r_len_q;
  logic [QI_W-1:0]      r_qidx_q;
  logic                 r_sop_q;        // the beat is the first of its frame
  logic [NEED_W-1:0]    r_need_q;       // ns the frame needs from its release to its last byte
  logic                 in_sop_q;       // the next input beat starts a frame
  logic                 committed_q;    // the first beat was presented and not yet taken
  logic                 held_q;         // counted in hold_count
  logic                 off_q;          // counted in offslot_count

  logic [16:0]          wire_b;
  logic [48:0]          prod;
  logic [NEED_W-1:0]    need_d;
  logic                 s_fire;
  logic                 m_fire;

  logic [SLOTS_MAX-1:0] mask_q;         // the mask of the frame in the register stage
  logic                 mask_init;      // the mask RAM is being set to all ones after reset (input held off)
  logic [SLOTS_MAX-1:0] cmask;
  logic [SLOTS_MAX-1:0] mask_eff;
  logic                 slot_ok;
  logic                 fits;
  logic                 overrun;
  logic                 allow;

  assign s_fire = s_axis_tvalid && s_axis_tready;
  assign m_fire = m_axis_tvalid && m_axis_tready;

  // wire time from the length: ceil((max(len, MIN_FRAME) + overhead) x ns/byte) + margin
  assign wire_b = (s_axis_len < 16'(MIN_FRAME) ? 17'(MIN_FRAME) : {1'b0, s_axis_len}) + 17'(overhead_bytes);
  assign prod   = 49'(wire_b) * 49'(rate_nspb);
  assign need_d = NEED_W'((prod + 49'(24'hFFFFFF)) >> 24) + NEED_W'(margin_ns);

  // ---------------------------------------------------------------- the rule (first beat in the stage)
  always_comb begin
    for (int i = 0; i < SLOTS_MAX; i++) cmask[i] = SC_W'(i) < slot_count;
  end
  assign mask_eff = mask_q & cmask;
  // a queue with no slot left in its mask goes in any slot rather than never
  assign slot_ok  = slot_valid && (QMASK_EN == 0 || !hold_own || mask_eff[slot_index] || mask_eff == '0);
  assign fits     = slot_left_ns[31:NEED_W] != '0 || r_need_q <= slot_left_ns[NEED_W-1:0];
  // The first cycle of a slot offers the most time any slot does (all slots have one length): a frame that
  // does not fit then never will, so it goes then rather than never (and overruns the slot end).
  assign overrun  = slot_start && !fits;
  assign allow    = !enable || (slot_ok && (fits || overrun));

  // valid never depends on ready: once presented, a first beat stays presented until taken
  assign m_axis_tvalid = r_valid_q && (!r_sop_q || committed_q || allow);
  assign s_axis_tready = (!r_valid_q || m_fire) && !mask_init;

  assign m_axis_tdata = r_data_q;
  assign m_axis_tkeep = r_keep_q;
  assign m_axis_tlast = r_last_q;
  assign m_axis_len   = r_len_q;
  assign m_axis_qidx  = r_qidx_q;

  always_ff @(posedge clk) begin
    if (s_fire) begin
      r_data_q <= s_axis_tdata;
      r_keep_q <= s_axis_tkeep;
      r_last_q <= s_axis_tlast;
      r_len_q  <= s_axis_len;
      r_qidx_q <= s_axis_qidx;
      r_sop_q  <= in_sop_q;
      if (in_sop_q) r_need_q <= need_d;
    end
    if (s_fire) begin
      r_valid_q <= 1'b1;
      in_sop_q  <= s_axis_tlast;
    end else if (m_fire) begin
      r_valid_q <= 1'b0;
    end
    committed_q <= r_valid_q && r_sop_q && m_axis_tvalid && !m_axis_tready;
    if (rst) begin
      r_valid_q   <= 1'b0;
      in_sop_q    <= 1'b1;
      committed_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- counters (once per frame)
  always_ff @(posedge clk) begin
    if (s_fire && in_sop_q) begin
      held_q <= 1'b0;
      off_q  <= 1'b0;
    end else if (enable && r_valid_q && r_sop_q && !committed_q && !allow) begin
      if (slot_ok && !held_q) begin
        held_q     <= 1'b1;
        hold_count <= hold_count + 1'b1;
      end
      if (slot_valid && !slot_ok && !off_q) begin
        off_q         <= 1'b1;
        offslot_count <= offslot_count + 1'b1;
      end
    end
    if (enable && r_valid_q && r_sop_q && !committed_q && slot_ok && !fits && overrun) begin
      overrun_count <= overrun_count + 1'b1;
    end
    if (rst) begin
      held_q        <= 1'b0;
      off_q         <= 1'b0;
      hold_count    <= '0;
      offslot_count <= '0;
      overrun_count <= '0;
    end
  end

  // ---------------------------------------------------------------- per-queue masks
  if (QMASK_EN != 0) begin : g_qmask
    logic [SLOTS_MAX-1:0] mask_mem [2**QI_W];
    logic                 init_q;
    logic [QI_W-1:0]      init_addr_q;

    assign cfg_ready = !init_q;
    assign mask_init = init_q;

    always_ff @(posedge clk) begin
      if (init_q || cfg_valid) mask_mem[init_q ? init_addr_q : cfg_qidx] <= init_q ? '1 : cfg_mask;
      if (s_fire && in_sop_q) mask_q <= mask_mem[s_axis_qidx];
    end

    always_ff @(posedge clk) begin
      if (init_q) begin
        init_addr_q <= init_addr_q + 1'b1;
        if (init_addr_q == '1) init_q <= 1'b0;
      end
      if (rst) begin
        init_q      <= 1'b1;
        init_addr_q <= '0;
      end
    end
  end else begin : g_no_qmask
    assign cfg_ready = 1'b1;
    assign mask_init = 1'b0;
    assign mask_q    = '1;
    // the mask port exists for a uniform interface; without masks it is ignored
    logic unused_cfg;
    assign unused_cfg = &{1'b0, cfg_valid, cfg_qidx, cfg_mask, hold_own};
  end

endmodule

`resetall
