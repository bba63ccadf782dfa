// SPDX-License-Identifier: MIT
// TDMA transmit gate (docs/blocks/tdma.md), one per port between the TX engine and the MAC: a frame starts
// only if, at the line rate, it finishes before the current slot closes; it waits otherwise (never dropped,
// never cut). A frame that may not go now moves to a park buffer (PARK_BEATS) so that the frames behind it
// go on; parked frames go first when allowed, per-queue order is kept. One register stage (latency 1 clock,
// enabled or not), one beat per clock. With QMASK_EN the input waits 2^QI_W clocks after reset (mask RAM).
`default_nettype none

module beryl_nic_tx_gate #(
  parameter int DATA_W      = 512,                              // AXI-Stream data width, bits, 64..1024, x8
  parameter int KEEP_W      = DATA_W / 8,                       // byte enables (derived)
  parameter int QI_W        = 12,                               // TX queue index width, bits, 1..15
  parameter int SLOTS_MAX   = 8,                                // timer's SLOTS_MAX, 1..32
  parameter int SI_W        = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1, // slot index width (derived)
  parameter int SC_W        = $clog2(SLOTS_MAX + 1),            // slot count width (derived)
  parameter int QMASK_EN    = 1,                                // 1: per-queue slot masks (hold_own), 0: none
  parameter int MIN_FRAME   = 60,                               // bytes the MAC pads a frame to (no FCS), 0..255
  parameter int PARK_BEATS  = 256,                              // park buffer, beats; 0 (none) or 2^n, 4..4096
  parameter int PARK_FRAMES = 32,                               // parked frames at most, 2^n, 2..64
  parameter int USER_W      = 1                                 // per-frame sideband passed along (a TX
                                                                // timestamp tag), bits, 1..64
) (
  input  wire logic                 clk,
  input  wire logic                 rst,

  // frames from the TX engine; len and qidx are valid with every beat of a frame, len matches the beats
  input  wire logic [DATA_W-1:0]    s_axis_tdata,
  input  wire logic [KEEP_W-1:0]    s_axis_tkeep,
  input  wire logic                 s_axis_tvalid,
  output logic                      s_axis_tready,
  input  wire logic                 s_axis_tlast,
  input  wire logic [15:0]          s_axis_len,      // frame length, bytes, as on the stream (no FCS), >= 1
  input  wire logic [QI_W-1:0]      s_axis_qidx,     // TX queue of the frame
  input  wire logic [USER_W-1:0]    s_axis_user,     // the frame's sideband, with every beat, constant in a frame

  // frames to the MAC
  output logic [DATA_W-1:0]         m_axis_tdata,
  output logic [KEEP_W-1:0]         m_axis_tkeep,
  output logic                      m_axis_tvalid,
  input  wire logic                 m_axis_tready,
  output logic                      m_axis_tlast,
  output logic [15:0]               m_axis_len,
  output logic [QI_W-1:0]           m_axis_qidx,
  output logic [USER_W-1:0]         m_axis_user,

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
  output logic [31:0]               overrun_count,   // frames released at a slot start without fitting
  output logic [31:0]               park_count       // frames that went through the park buffer
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
  if (PARK_BEATS != 0 && (PARK_BEATS < 4 || PARK_BEATS > 4096 || (PARK_BEATS & (PARK_BEATS - 1)) != 0)) begin : g_chk_pb
    $error("%m: PARK_BEATS must be 0 or a power of two within 4..4096");
  end
  if (USER_W < 1 || USER_W > 64) begin : g_chk_user
    $error("%m: USER_W must be 1..64");
  end
  if (PARK_FRAMES < 2 || PARK_FRAMES > 64 || (PARK_FRAMES & (PARK_FRAMES - 1)) != 0) begin : g_chk_pf
    $error("%m: PARK_FRAMES must be a power of two within 2..64");
  end

  localparam int  NEED_W  = 27;   // ns: 8.24 ns/byte x (2^16 + 255) bytes < 2^25 ns, + margin
  localparam int  BYTES   = DATA_W / 8;
  localparam int  BT_W    = 17 - $clog2(BYTES) + 1;            // beats of a frame
  localparam bit  PARK_EN = PARK_BEATS != 0;
  localparam int  PB_W    = PARK_EN ? $clog2(PARK_BEATS) : 1;
  localparam int  PF_W    = $clog2(PARK_FRAMES);
  localparam int  PBEAT_W = DATA_W + KEEP_W + 1;               // {last, keep, data}
  // {held, off, mask, need, user, len, qidx}
  localparam int  DESC_W  = 1 + 1 + SLOTS_MAX + NEED_W + USER_W + 16 + QI_W;

  localparam logic [1:0] O_IDLE   = 2'd0;
  localparam logic [1:0] O_STREAM = 2'd1;
  localparam logic [1:0] O_PARK   = 2'd2;

  // ---------------------------------------------------------------- declarations
  // the register stage (stream)
  logic                 r_valid_q;
  logic [DATA_W-1:0]    r_data_q;
  logic [KEEP_W-1:0]    r_keep_q;
  logic                 r_last_q;
  logic [15:0]          r_len_q;
  logic [QI_W-1:0]      r_qidx_q;
  logic [USER_W-1:0]    r_user_q;
  logic                 r_sop_q;        // the beat is the first of its frame
  logic [NEED_W-1:0]    r_need_q;       // ns the frame needs from its release to its last byte
  logic [BT_W-1:0]      r_beats_q;
  logic                 in_sop_q;       // the next input beat starts a frame
  logic                 fr_park_q;      // the stream frame goes to the park buffer
  logic                 fr_held_q;      // the stream frame was counted in hold_count
  logic                 fr_off_q;       // ... in offslot_count
  logic [SLOTS_MAX-1:0] mask_q;         // the stream frame's mask
  logic                 mask_init;      // the mask RAM is being set to all ones after reset (input held off)

  logic [16:0]          wire_b;
  logic [48:0]          prod;
  logic [NEED_W-1:0]    need_d;
  logic                 s_fire;
  logic                 m_fire;
  logic                 r_fire;
  logic [SLOTS_MAX-1:0] cmask;

  // output
  logic [1:0]           o_src_q;        // frame being presented: committed once its first beat is shown
  logic [1:0]           o_eff;
  logic                 sel_p;
  logic                 sel_s;

  // rule for the stream frame (s) and the head parked frame (p)
  logic                 s_first;        // first beat of an undecided stream frame in the stage
  logic [SLOTS_MAX-1:0] s_me;           // masks limited to the slots that exist
  logic [SLOTS_MAX-1:0] p_me;
  logic                 s_ok, s_fits, s_allow;
  logic                 p_ok, p_fits, p_allow;
  logic                 p_ready;        // a complete parked frame, its first beat prefetched
  logic                 same_q;         // a parked frame of the stream frame's queue
  logic                 room;           // the park buffer takes the whole stream frame
  logic                 park_s;         // the stream frame goes to the park buffer now
  logic                 pk_we;
  logic                 s_look;         // the stream frame is next for the output (counters)
  logic                 p_look;         // the head parked frame is next for the output (counters)

  // park buffer
  logic [PB_W:0]        pk_wr_q;
  logic [PB_W:0]        pk_rd_q;
  logic                 pf_valid_q;     // prefetched beat (the park RAM's read register)
  logic [PBEAT_W-1:0]   pf_q;
  logic                 pf_load;
  logic [PF_W:0]        pd_wr_q;
  logic [PF_W:0]        pd_rd_q;
  logic [PARK_FRAMES-1:0] pd_done_q;    // the frame is complete in the buffer
  logic [DESC_W-1:0]    pd_head;
  logic [QI_W-1:0]      p_qidx;
  logic [15:0]          p_len;
  logic [USER_W-1:0]    p_user;
  logic [NEED_W-1:0]    p_need;
  logic [SLOTS_MAX-1:0] p_mask;
  logic                 p_held;
  logic                 p_off;
  logic [PARK_FRAMES-1:0] pd_hit;
  logic [15:0]          op_len_q;       // sidebands of the parked frame being output
  logic [QI_W-1:0]      op_qidx_q;
  logic [USER_W-1:0]    op_user_q;

  // ---------------------------------------------------------------- common pieces
  assign s_fire = s_axis_tvalid && s_axis_tready;
  assign m_fire = m_axis_tvalid && m_axis_tready;

  always_comb begin
    for (int i = 0; i < SLOTS_MAX; i++) cmask[i] = SC_W'(i) < slot_count;
  end

  // wire time from the length: ceil((max(len, MIN_FRAME) + overhead) x ns/byte) + margin
  assign wire_b = (s_axis_len < 16'(MIN_FRAME) ? 17'(MIN_FRAME) : {1'b0, s_axis_len}) + 17'(overhead_bytes);
  assign prod   = 49'(wire_b) * 49'(rate_nspb);
  assign need_d = NEED_W'((prod + 49'(24'hFFFFFF)) >> 24) + NEED_W'(margin_ns);

  // The rule: a valid slot the frame may use (with hold_own one of its mask; a mask with no slot below
  // slot_count allows any), and the frame finishes before the slot closes. The first cycle of a slot offers
  // the most time any slot does (all slots have one length): a frame that does not fit then never will, so it
  // goes then rather than never (and overruns the slot end).
  assign s_me    = mask_q & cmask;
  assign p_me    = p_mask & cmask;
  assign s_ok    = slot_valid && (QMASK_EN == 0 || !hold_own || s_me[slot_index] || s_me == '0);
  assign p_ok    = slot_valid && (QMASK_EN == 0 || !hold_own || p_me[slot_index] || p_me == '0);
  assign s_fits  = slot_left_ns[31:NEED_W] != '0 || r_need_q <= slot_left_ns[NEED_W-1:0];
  assign p_fits  = slot_left_ns[31:NEED_W] != '0 || p_need <= slot_left_ns[NEED_W-1:0];
  assign s_allow = !enable || (s_ok && (s_fits || slot_start));
  assign p_allow = !enable || (p_ok && (p_fits || slot_start));

  // ---------------------------------------------------------------- output choice
  // A parked frame is older than the stream frame: it goes first when both may. The stream frame passes the
  // parked ones only if none is of its queue; otherwise, or when the rule keeps it, it parks (if it fits in the
  // buffer) so that the frames behind it go on; if not, it waits in the stage.
  assign s_first = r_valid_q && r_sop_q && !fr_park_q && o_src_q != O_STREAM;
  assign sel_p   = PARK_EN && o_src_q == O_IDLE && p_ready && p_allow;
  assign sel_s   = o_src_q == O_IDLE && !sel_p && s_first && s_allow && !same_q;
  assign park_s  = PARK_EN && s_first && !(s_allow && !same_q) && room;
  assign o_eff   = o_src_q != O_IDLE ? o_src_q : sel_p ? O_PARK : sel_s ? O_STREAM : O_IDLE;

  // valid never depends on ready: a presented first beat stays presented (o_src_q) until taken
  always_comb begin
    m_axis_tvalid = 1'b0;
    {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = {r_last_q, r_keep_q, r_data_q};
    m_axis_len    = r_len_q;
    m_axis_qidx   = r_qidx_q;
    m_axis_user   = r_user_q;
    if (o_eff == O_STREAM) begin
      m_axis_tvalid = r_valid_q;
    end else if (o_eff == O_PARK) begin
      m_axis_tvalid = pf_valid_q;
      {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = pf_q;
      // the head descriptor is popped when its frame is first presented: later beats use the copy
      m_axis_len    = o_src_q == O_PARK ? op_len_q : p_len;
      m_axis_qidx   = o_src_q == O_PARK ? op_qidx_q : p_qidx;
      m_axis_user   = o_src_q == O_PARK ? op_user_q : p_user;
    end
  end

  assign pk_we  = PARK_EN && r_valid_q && (fr_park_q || park_s);
  assign r_fire = (o_eff == O_STREAM && m_fire) || pk_we;
  assign s_axis_tready = (!r_valid_q || r_fire) && !mask_init;

  // ---------------------------------------------------------------- the register stage
  always_ff @(posedge clk) begin
    if (s_fire) begin
      r_data_q  <= s_axis_tdata;
      r_keep_q  <= s_axis_tkeep;
      r_last_q  <= s_axis_tlast;
      r_len_q   <= s_axis_len;
      r_qidx_q  <= s_axis_qidx;
      r_user_q  <= s_axis_user;
      r_sop_q   <= in_sop_q;
      if (in_sop_q) begin
        r_need_q  <= need_d;
        r_beats_q <= BT_W'((32'(s_axis_len) + BYTES - 1) / BYTES);
      end
    end
    if (s_fire) begin
      r_valid_q <= 1'b1;
      in_sop_q  <= s_axis_tlast;
    end else if (r_fire) begin
      r_valid_q <= 1'b0;
    end
    // a new frame in the stage is undecided; parking is decided at its first beat
    if (s_fire && in_sop_q) fr_park_q <= 1'b0;
    else if (park_s) fr_park_q <= 1'b1;
    if (m_fire && m_axis_tlast) o_src_q <= O_IDLE;
    else o_src_q <= o_eff;
    if (rst) begin
      r_valid_q <= 1'b0;
      in_sop_q  <= 1'b1;
      fr_park_q <= 1'b0;
      o_src_q   <= O_IDLE;
    end
  end

  // ---------------------------------------------------------------- counters (once per frame)
  // A frame is looked at while it is next for the output: the undecided stream frame with the output idle, or
  // the complete head parked frame. Its held/off flags move with it into the park buffer.
  assign s_look = enable && s_first && o_src_q == O_IDLE && !sel_p && !same_q;
  assign p_look = PARK_EN && enable && p_ready && o_src_q == O_IDLE;

  always_ff @(posedge clk) begin
    if (s_fire && in_sop_q) begin
      fr_held_q <= 1'b0;
      fr_off_q  <= 1'b0;
    end else if (s_look && !s_allow) begin
      if (s_ok) fr_held_q <= 1'b1;
      if (slot_valid && !s_ok) fr_off_q <= 1'b1;
    end
    if ((s_look && !s_allow && s_ok && !fr_held_q) || (p_look && !p_allow && p_ok && !p_held)) begin
      hold_count <= hold_count + 1'b1;
    end
    if ((s_look && !s_allow && slot_valid && !s_ok && !fr_off_q) ||
        (p_look && !p_allow && slot_valid && !p_ok && !p_off)) begin
      offslot_count <= offslot_count + 1'b1;
    end
    if ((sel_s && enable && !s_fits) || (sel_p && enable && !p_fits)) overrun_count <= overrun_count + 1'b1;
    if (park_s) park_count <= park_count + 1'b1;
    if (rst) begin
      fr_held_q     <= 1'b0;
      fr_off_q      <= 1'b0;
      hold_count    <= '0;
      offslot_count <= '0;
      overrun_count <= '0;
      park_count    <= '0;
    end
  end

  // ---------------------------------------------------------------- park buffer
  if (PARK_EN) begin : g_park
    logic [PBEAT_W-1:0] pk_mem [PARK_BEATS];
    logic [DESC_W-1:0]  pd_mem [PARK_FRAMES];
    logic [PARK_FRAMES-1:0] pd_valid;
    logic [PB_W:0]      used;
    logic               p_held_upd;
    logic               p_off_upd;

    // beats in the RAM (the prefetched one has left it)
    assign used    = pk_wr_q - pk_rd_q;
    assign room    = 32'(PARK_BEATS) - 32'(used) >= 32'(r_beats_q) && pd_wr_q - pd_rd_q != (PF_W + 1)'(PARK_FRAMES);
    assign pf_load = pk_wr_q != pk_rd_q && (!pf_valid_q || (o_eff == O_PARK && m_fire));
    assign pd_head = pd_mem[pd_rd_q[PF_W-1:0]];
    assign {p_held, p_off, p_mask, p_need, p_user, p_len, p_qidx} = pd_head;
    // the head frame is complete and its first beat is in the read register (parked frames leave whole,
    // so the next beat to read is always the head frame's first while no parked frame is being output)
    assign p_ready = pd_wr_q != pd_rd_q && pd_done_q[pd_rd_q[PF_W-1:0]] && pf_valid_q;

    always_comb begin
      for (int i = 0; i < PARK_FRAMES; i++) begin
        pd_valid[i] = PF_W'(i - 32'(pd_rd_q[PF_W-1:0])) < PF_W'(pd_wr_q - pd_rd_q) ||
                      (pd_wr_q - pd_rd_q) == (PF_W + 1)'(PARK_FRAMES);
        pd_hit[i]   = pd_valid[i] && pd_mem[i][QI_W-1:0] == r_qidx_q;
      end
    end
    assign same_q = |pd_hit;

    // the head's held/off flags, updated while it waits
    assign p_held_upd = p_look && !p_allow && p_ok;
    assign p_off_upd  = p_look && !p_allow && slot_valid && !p_ok;

    always_ff @(posedge clk) begin
      if (pk_we) pk_mem[pk_wr_q[PB_W-1:0]] <= {r_last_q, r_keep_q, r_data_q};
      if (pf_load) pf_q <= pk_mem[pk_rd_q[PB_W-1:0]];
      // (a park and a head update never name the same entry: the buffer is neither empty nor full then)
      if (park_s) begin
        pd_mem[pd_wr_q[PF_W-1:0]] <= {fr_held_q || (s_look && !s_allow && s_ok),
                                      fr_off_q || (s_look && !s_allow && slot_valid && !s_ok),
                                      mask_q, r_need_q, r_user_q, r_len_q, r_qidx_q};
      end
      if (p_held_upd || p_off_upd) begin
        pd_mem[pd_rd_q[PF_W-1:0]][DESC_W-1 -: 2] <= {p_held || p_held_upd, p_off || p_off_upd};
      end
      if (sel_p) begin
        op_len_q  <= p_len;
        op_qidx_q <= p_qidx;
        op_user_q <= p_user;
      end
    end

    always_ff @(posedge clk) begin
      if (pk_we) pk_wr_q <= pk_wr_q + 1'b1;
      if (pf_load) begin
        pk_rd_q    <= pk_rd_q + 1'b1;
        pf_valid_q <= 1'b1;
      end else if (o_eff == O_PARK && m_fire) begin
        pf_valid_q <= 1'b0;
      end
      if (park_s) begin
        pd_wr_q <= pd_wr_q + 1'b1;
        pd_done_q[pd_wr_q[PF_W-1:0]] <= r_last_q;
      end else if (pk_we && r_last_q) begin
        pd_done_q[pd_wr_q[PF_W-1:0] - 1'b1] <= 1'b1;
      end
      if (sel_p) pd_rd_q <= pd_rd_q + 1'b1;
      if (rst) begin
        pk_wr_q    <= '0;
        pk_rd_q    <= '0;
        pf_valid_q <= 1'b0;
        pd_wr_q    <= '0;
        pd_rd_q    <= '0;
      end
    end
  end else begin : g_no_park
    assign room     = 1'b0;
    assign same_q   = 1'b0;
    assign p_ready  = 1'b0;
    assign pf_load  = 1'b0;
    assign pd_head  = '0;
    assign {p_held, p_off, p_mask, p_need, p_user, p_len, p_qidx} = pd_head;
    assign pd_hit   = '0;
    assign pk_wr_q  = '0;
    assign pk_rd_q  = '0;
    assign pf_valid_q = 1'b0;
    assign pf_q     = '0;
    assign pd_wr_q  = '0;
    assign pd_rd_q  = '0;
    assign pd_done_q = '0;
    assign op_len_q  = '0;
    assign op_qidx_q = '0;
    assign op_user_q = '0;
    // without a park buffer these exist only for a uniform interface
    logic unused_park;
    assign unused_park = &{1'b0, r_beats_q, pk_we, pf_load, pd_hit, pk_wr_q, pk_rd_q, pd_wr_q, pd_rd_q, pd_done_q,
                           p_held, p_off, p_ok, p_fits, p_allow};
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
