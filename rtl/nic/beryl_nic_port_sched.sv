// SPDX-License-Identifier: MIT
// One port's transmit scheduler, chosen at build time (SCHED_TYPE), behind the scheduler interface
// (docs/blocks/nic_core.md): 0 round robin (beryl_nic_sched_rr), 1 token bucket (beryl_nic_sched_tb),
// 2 TDMA (beryl_ptp_tdma_timer + beryl_nic_sched_tdma + beryl_nic_tx_gate on the port's stream,
// docs/blocks/tdma.md). Owns the port's SCHED_* and TDMA_* registers of regs/beryl_nic_if.rdl: one
// access at a time from beryl_nic_if_regs, answered by a done pulse one or more cycles later.
// Without the gate (types 0 and 1) the stream passes through as wires.
`default_nettype none

module beryl_nic_port_sched #(
  parameter int SCHED_TYPE  = 0,                    // 0 round robin, 1 token bucket, 2 TDMA
  parameter int QUEUE_COUNT = 4096,                 // TX queues, power of two
  parameter int QI_W        = $clog2(QUEUE_COUNT),  // queue index width (derived)
  parameter int MAX_CMDS    = 8,                    // commands in flight, 1..64
  parameter int SLOTS_MAX   = 8,                    // TDMA slots per period, 1..32
  parameter int PARK_BEATS  = 256,                  // TDMA gate park buffer, beats (0: none)
  parameter int PARK_FRAMES = 32,                   // TDMA gate parked frames at most
  parameter int DATA_W      = 512,                  // stream width, bits
  parameter int TS_TAG_W    = 8,                    // TX timestamp tag with every beat, bits, 1..64 (passed along)
  parameter int KEEP_W      = DATA_W / 8            // (derived)
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // register access: reg_valid is one cycle; reg_done answers it (one cycle, any later cycle)
  input  wire logic              reg_valid,
  input  wire logic              reg_we,
  input  wire logic [31:0]       reg_off,       // byte offset in the NIC interface block, word aligned
  input  wire logic [31:0]       reg_wdata,
  output logic                   reg_done,
  output logic [31:0]            reg_rdata,

  // scheduler interface
  input  wire logic              db_evt_valid,
  output logic                   db_evt_ready,
  input  wire logic [QI_W-1:0]   db_evt_qidx,
  output logic                   tx_cmd_valid,
  input  wire logic              tx_cmd_ready,
  output logic [QI_W-1:0]        tx_cmd_qidx,
  input  wire logic              tx_sts_valid,
  input  wire logic [QI_W-1:0]   tx_sts_qidx,
  input  wire logic [1:0]        tx_sts_result,
  input  wire logic [7:0]        tx_sts_pkts,
  input  wire logic [31:0]       tx_sts_bytes,
  input  wire logic              sched_enable,

  // PTP time of day (beryl_ptp_clock) for the TDMA timer
  input  wire logic [95:0]       tod,
  input  wire logic              tod_step,

  // the port's frames: from the TX engine (len, qidx and the TX timestamp tag with every beat) to the MAC
  input  wire logic [DATA_W-1:0] s_axis_tdata,
  input  wire logic [KEEP_W-1:0] s_axis_tkeep,
  input  wire logic              s_axis_tvalid,
  output logic                   s_axis_tready,
  input  wire logic              s_axis_tlast,
  input  wire logic [15:0]       s_axis_len,
  input  wire logic [QI_W-1:0]   s_axis_qidx,
  input  wire logic [TS_TAG_W-1:0] s_axis_tag,
  output logic [DATA_W-1:0]      m_axis_tdata,
  output logic [KEEP_W-1:0]      m_axis_tkeep,
  output logic                   m_axis_tvalid,
  input  wire logic              m_axis_tready,
  output logic                   m_axis_tlast,
  output logic [TS_TAG_W-1:0]    m_axis_tag
);

  localparam int SI_W = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1;
  localparam int SC_W = $clog2(SLOTS_MAX + 1);

  if (SCHED_TYPE < 0 || SCHED_TYPE > 2 || SLOTS_MAX < 1 || SLOTS_MAX > 32 || QI_W > 15) begin : g_chk
    $error("%m: SCHED_TYPE must be 0, 1 or 2; SLOTS_MAX 1..32; at most 32768 queues");
  end

  // register offsets (regs/beryl_nic_if.rdl)
  localparam int O_QSEL   = beryl_regs_pkg::NIC_IF_SCHED_Q_SEL_OFFSET;
  localparam int O_QCMD   = beryl_regs_pkg::NIC_IF_SCHED_Q_CMD_OFFSET;
  localparam int O_QRATE  = beryl_regs_pkg::NIC_IF_SCHED_Q_RATE_OFFSET;
  localparam int O_QBURST = beryl_regs_pkg::NIC_IF_SCHED_Q_BURST_OFFSET;
  localparam int O_QTOK   = beryl_regs_pkg::NIC_IF_SCHED_Q_TOKENS_OFFSET;
  localparam int O_QSLOTS = beryl_regs_pkg::NIC_IF_SCHED_Q_SLOTS_OFFSET;
  localparam int O_TCTRL  = beryl_regs_pkg::NIC_IF_TDMA_CTRL_OFFSET;
  localparam int O_TSECL  = beryl_regs_pkg::NIC_IF_TDMA_START_SEC_LO_OFFSET;
  localparam int O_TSECH  = beryl_regs_pkg::NIC_IF_TDMA_START_SEC_HI_OFFSET;
  localparam int O_TNS    = beryl_regs_pkg::NIC_IF_TDMA_START_NS_OFFSET;
  localparam int O_TPER   = beryl_regs_pkg::NIC_IF_TDMA_PERIOD_NS_OFFSET;
  localparam int O_TSLOT  = beryl_regs_pkg::NIC_IF_TDMA_SLOT_NS_OFFSET;
  localparam int O_TCNT   = beryl_regs_pkg::NIC_IF_TDMA_SLOT_COUNT_OFFSET;
  localparam int O_TGUARD = beryl_regs_pkg::NIC_IF_TDMA_GUARD_NS_OFFSET;
  localparam int O_TRATE  = beryl_regs_pkg::NIC_IF_TDMA_GATE_RATE_OFFSET;
  localparam int O_TGCFG  = beryl_regs_pkg::NIC_IF_TDMA_GATE_CFG_OFFSET;
  localparam int O_THOLD  = beryl_regs_pkg::NIC_IF_TDMA_HOLD_OFFSET;
  localparam int O_TOFF   = beryl_regs_pkg::NIC_IF_TDMA_OFFSLOT_OFFSET;
  localparam int O_TOVR   = beryl_regs_pkg::NIC_IF_TDMA_OVERRUN_OFFSET;
  localparam int O_TPARK  = beryl_regs_pkg::NIC_IF_TDMA_PARK_OFFSET;
  localparam int O_BADSTS = beryl_regs_pkg::NIC_IF_SCHED_BAD_STS_OFFSET;

  // ------------------------------------------------------------------ registers
  typedef enum logic [2:0] { R_IDLE, R_CFG, R_CFG2, R_RD, R_DONE } rstate_t;
  rstate_t rs_q;

  logic [15:0] qsel_q;
  logic [1:0]  op_q;
  logic        err_q;
  logic [31:0] rate_q, tokens_q, slots_q;
  logic [23:0] burst_q;
  logic        t_en_q, t_gate_q, t_hold_q;
  logic [47:0] t_sec_q;
  logic [29:0] t_ns_q;
  logic [31:0] t_per_q, t_slot_q, t_guard_q, t_rate_q;
  logic [7:0]  t_cnt_q, t_ovh_q;
  logic [15:0] t_margin_q;
  logic [31:0] rdata_q;

  // status and counters of the blocks below
  logic              tm_valid, tm_start, tm_search, tm_err;
  logic [SI_W-1:0]   tm_index;
  logic [31:0]       tm_left;
  logic [31:0]       c_hold, c_off, c_ovr, c_park, bad_sts;

  // per-queue configuration ports of the scheduler (1, 2) and the gate (2)
  logic                 s_cfg_valid, s_cfg_ready, s_cfg_write, s_rd_valid;
  logic [31:0]          s_rd_rate, s_rd_tokens;
  logic [23:0]          s_rd_burst;
  logic [SLOTS_MAX-1:0] s_rd_mask;
  logic                 g_cfg_valid, g_cfg_ready;

  logic [31:0] rd_word;
  // decoded only for a request (rd_word is stored only then): the C++ simulator skips the
  // address compares and the unique-case check on every other cycle
  always_comb begin
    rd_word = 32'h0;
    if (reg_valid) unique case (reg_off)
      O_QSEL:   rd_word = {16'h0, qsel_q};
      O_QCMD:   rd_word = {23'h0, err_q, 6'h0, op_q};
      O_QRATE:  rd_word = rate_q;
      O_QBURST: rd_word = {8'h0, burst_q};
      O_QTOK:   rd_word = tokens_q;
      O_QSLOTS: rd_word = slots_q;
      O_TCTRL:  rd_word = {8'h0, 8'(tm_index), 5'h0, tm_valid, tm_err, tm_search, 5'h0, t_hold_q, t_gate_q, t_en_q};
      O_TSECL:  rd_word = t_sec_q[31:0];
      O_TSECH:  rd_word = {16'h0, t_sec_q[47:32]};
      O_TNS:    rd_word = {2'b0, t_ns_q};
      O_TPER:   rd_word = t_per_q;
      O_TSLOT:  rd_word = t_slot_q;
      O_TCNT:   rd_word = {24'h0, t_cnt_q};
      O_TGUARD: rd_word = t_guard_q;
      O_TRATE:  rd_word = t_rate_q;
      O_TGCFG:  rd_word = {t_margin_q, 8'h0, t_ovh_q};
      O_THOLD:  rd_word = c_hold;
      O_TOFF:   rd_word = c_off;
      O_TOVR:   rd_word = c_ovr;
      O_TPARK:  rd_word = c_park;
      O_BADSTS: rd_word = bad_sts;
      default:  rd_word = 32'h0;
    endcase
  end

  logic cmd_go;   // a SCHED_Q_CMD write this scheduler carries out
  assign cmd_go = reg_valid && reg_we && reg_off == O_QCMD && SCHED_TYPE != 0
               && (reg_wdata[1:0] == 2'd1 || reg_wdata[1:0] == 2'd2) && 32'(qsel_q) < 32'(QUEUE_COUNT);

  // The register flops change only with a reset, a request (reg_valid), a request in progress (rs_q
  // not idle) or a done pulse to clear, so they are clocked by a gate (beryl_clk_gate) open only then:
  // a C++ model then evaluates the logic that reads them only when they can have changed.
  logic rgclk;

  beryl_clk_gate u_reg_gate (
    .clk  (clk),
    .en   (rst || reg_valid || rs_q != R_IDLE || reg_done),
    .gclk (rgclk)
  );

  always_ff @(posedge rgclk) begin
    reg_done <= 1'b0;
    unique case (rs_q)
      R_IDLE: if (reg_valid) begin
        rdata_q <= rd_word;
        rs_q    <= R_DONE;
        if (cmd_go) begin
          op_q  <= reg_wdata[1:0];
          err_q <= 1'b0;
          rs_q  <= R_CFG;
        end else if (reg_we) begin
          unique case (reg_off)
            O_QSEL:   qsel_q  <= reg_wdata[15:0];
            O_QCMD:   begin op_q <= reg_wdata[1:0]; err_q <= 1'b1; end   // refused (see cmd_go)
            O_QRATE:  rate_q  <= reg_wdata;
            O_QBURST: burst_q <= reg_wdata[23:0];
            O_QSLOTS: slots_q <= reg_wdata;
            O_TCTRL:  begin t_en_q <= reg_wdata[0]; t_gate_q <= reg_wdata[1]; t_hold_q <= reg_wdata[2]; end
            O_TSECL:  t_sec_q[31:0]  <= reg_wdata;
            O_TSECH:  t_sec_q[47:32] <= reg_wdata[15:0];
            O_TNS:    t_ns_q    <= reg_wdata[29:0];
            O_TPER:   t_per_q   <= reg_wdata;
            O_TSLOT:  t_slot_q  <= reg_wdata;
            O_TCNT:   t_cnt_q   <= reg_wdata[7:0];
            O_TGUARD: t_guard_q <= reg_wdata;
            O_TRATE:  t_rate_q  <= reg_wdata;
            O_TGCFG:  begin t_ovh_q <= reg_wdata[7:0]; t_margin_q <= reg_wdata[31:16]; end
            default: ;
          endcase
        end
      end
      // the scheduler takes the request; a TDMA mask write then goes to the gate as well
      R_CFG: if (s_cfg_ready) begin
        rs_q <= (op_q == 2'd2) ? R_RD : (SCHED_TYPE == 2) ? R_CFG2 : R_DONE;
      end
      R_CFG2: if (g_cfg_ready) rs_q <= R_DONE;
      R_RD: if (s_rd_valid) begin
        if (SCHED_TYPE == 1) begin
          rate_q   <= s_rd_rate;
          burst_q  <= s_rd_burst;
          tokens_q <= s_rd_tokens;
        end else begin
          slots_q  <= 32'(s_rd_mask);
        end
        rs_q <= R_DONE;
      end
      R_DONE: begin
        reg_done <= 1'b1;
        rs_q     <= R_IDLE;
      end
      default: rs_q <= R_IDLE;
    endcase
    if (rst) begin
      rs_q       <= R_IDLE;
      reg_done   <= 1'b0;
      qsel_q     <= '0;
      op_q       <= '0;
      err_q      <= 1'b0;
      rate_q     <= '0;
      burst_q    <= '0;
      tokens_q   <= '0;
      slots_q    <= '0;
      t_en_q     <= 1'b0;
      t_gate_q   <= 1'b0;
      t_hold_q   <= 1'b0;
      t_sec_q    <= '0;
      t_ns_q     <= '0;
      t_per_q    <= '0;
      t_slot_q   <= '0;
      t_cnt_q    <= '0;
      t_guard_q  <= '0;
      t_rate_q   <= 32'h00147AE2;
      t_ovh_q    <= 8'd24;
      t_margin_q <= 16'd16;
    end
  end
  assign reg_rdata   = rdata_q;
  assign s_cfg_valid = rs_q == R_CFG;
  assign s_cfg_write = op_q == 2'd1;
  assign g_cfg_valid = rs_q == R_CFG2;

  // ------------------------------------------------------------------ the scheduler
  if (SCHED_TYPE == 0) begin : g_rr
    beryl_nic_sched_rr #(.QUEUE_COUNT (QUEUE_COUNT), .MAX_CMDS (MAX_CMDS)) u_sched (
      .clk           (clk),
      .rst           (rst),
      .db_evt_valid  (db_evt_valid),
      .db_evt_ready  (db_evt_ready),
      .db_evt_qidx   (db_evt_qidx),
      .tx_cmd_valid  (tx_cmd_valid),
      .tx_cmd_ready  (tx_cmd_ready),
      .tx_cmd_qidx   (tx_cmd_qidx),
      .tx_sts_valid  (tx_sts_valid),
      .tx_sts_qidx   (tx_sts_qidx),
      .tx_sts_result (tx_sts_result),
      .tx_sts_pkts   (tx_sts_pkts),
      .tx_sts_bytes  (tx_sts_bytes),
      .sched_enable  (sched_enable),
      .bad_sts_count (bad_sts)
    );
    assign s_cfg_ready = 1'b1;   // never asked (cmd_go is 0)
    assign s_rd_valid  = 1'b0;
    assign s_rd_rate   = '0;
    assign s_rd_burst  = '0;
    assign s_rd_tokens = '0;
    assign s_rd_mask   = '0;
  end else if (SCHED_TYPE == 1) begin : g_tb
    beryl_nic_sched_tb #(.QUEUE_COUNT (QUEUE_COUNT), .MAX_CMDS (MAX_CMDS)) u_sched (
      .clk           (clk),
      .rst           (rst),
      .db_evt_valid  (db_evt_valid),
      .db_evt_ready  (db_evt_ready),
      .db_evt_qidx   (db_evt_qidx),
      .tx_cmd_valid  (tx_cmd_valid),
      .tx_cmd_ready  (tx_cmd_ready),
      .tx_cmd_qidx   (tx_cmd_qidx),
      .tx_sts_valid  (tx_sts_valid),
      .tx_sts_qidx   (tx_sts_qidx),
      .tx_sts_result (tx_sts_result),
      .tx_sts_pkts   (tx_sts_pkts),
      .tx_sts_bytes  (tx_sts_bytes),
      .sched_enable  (sched_enable),
      .cfg_valid     (s_cfg_valid),
      .cfg_ready     (s_cfg_ready),
      .cfg_write     (s_cfg_write),
      .cfg_qidx      (qsel_q[QI_W-1:0]),
      .cfg_rate      (rate_q),
      .cfg_burst     (burst_q),
      .cfg_rd_valid  (s_rd_valid),
      .cfg_rd_rate   (s_rd_rate),
      .cfg_rd_burst  (s_rd_burst),
      .cfg_rd_tokens (s_rd_tokens),
      .bad_sts_count (bad_sts)
    );
    assign s_rd_mask = '0;
  end else begin : g_tdma
    // TDMA_SLOT_COUNT is 8 bits, the blocks' slot_count SC_W: a count above SLOTS_MAX goes as 0 (illegal:
    // CFG_ERR), not cut to its low bits (17 with SLOTS_MAX 8 would run as 1 slot)
    logic [SC_W-1:0] slot_cnt;
    assign slot_cnt = 32'(t_cnt_q) > SLOTS_MAX ? '0 : SC_W'(t_cnt_q);

    beryl_ptp_tdma_timer #(.SLOTS_MAX (SLOTS_MAX)) u_timer (
      .clk          (clk),
      .rst          (rst),
      .tod          (tod),
      .tod_step     (tod_step),
      .enable       (t_en_q),
      .start_sec    (t_sec_q),
      .start_ns     (t_ns_q),
      .period_ns    (t_per_q),
      .slot_ns      (t_slot_q),
      .slot_count   (slot_cnt),
      .slot_valid   (tm_valid),
      .slot_index   (tm_index),
      .slot_start   (tm_start),
      .slot_left_ns (tm_left),
      .searching    (tm_search),
      .cfg_err      (tm_err)
    );
    beryl_nic_sched_tdma #(.QUEUE_COUNT (QUEUE_COUNT), .MAX_CMDS (MAX_CMDS), .SLOTS_MAX (SLOTS_MAX)) u_sched (
      .clk           (clk),
      .rst           (rst),
      .db_evt_valid  (db_evt_valid),
      .db_evt_ready  (db_evt_ready),
      .db_evt_qidx   (db_evt_qidx),
      .tx_cmd_valid  (tx_cmd_valid),
      .tx_cmd_ready  (tx_cmd_ready),
      .tx_cmd_qidx   (tx_cmd_qidx),
      .tx_sts_valid  (tx_sts_valid),
      .tx_sts_qidx   (tx_sts_qidx),
      .tx_sts_result (tx_sts_result),
      .tx_sts_pkts   (tx_sts_pkts),
      .tx_sts_bytes  (tx_sts_bytes),
      .sched_enable  (sched_enable),
      .cfg_valid     (s_cfg_valid),
      .cfg_ready     (s_cfg_ready),
      .cfg_write     (s_cfg_write),
      .cfg_qidx      (qsel_q[QI_W-1:0]),
      .cfg_mask      (slots_q[SLOTS_MAX-1:0]),
      .cfg_rd_valid  (s_rd_valid),
      .cfg_rd_mask   (s_rd_mask),
      .slot_valid    (tm_valid),
      .slot_index    (tm_index),
      .slot_left_ns  (tm_left),
      .slot_count    (slot_cnt),
      .guard_ns      (t_guard_q),
      .bad_sts_count (bad_sts)
    );
    assign s_rd_rate   = '0;
    assign s_rd_burst  = '0;
    assign s_rd_tokens = '0;
    /* verilator lint_off PINCONNECTEMPTY */
    beryl_nic_tx_gate #(
      .DATA_W      (DATA_W),
      .QI_W        (QI_W),
      .SLOTS_MAX   (SLOTS_MAX),
      .PARK_BEATS  (PARK_BEATS),
      .PARK_FRAMES (PARK_FRAMES),
      .USER_W      (TS_TAG_W)
    ) u_gate (
      .clk            (clk),
      .rst            (rst),
      .s_axis_tdata   (s_axis_tdata),
      .s_axis_tkeep   (s_axis_tkeep),
      .s_axis_tvalid  (s_axis_tvalid),
      .s_axis_tready  (s_axis_tready),
      .s_axis_tlast   (s_axis_tlast),
      .s_axis_len     (s_axis_len),
      .s_axis_qidx    (s_axis_qidx),
      .s_axis_user    (s_axis_tag),
      .m_axis_tdata   (m_axis_tdata),
      .m_axis_tkeep   (m_axis_tkeep),
      .m_axis_tvalid  (m_axis_tvalid),
      .m_axis_tready  (m_axis_tready),
      .m_axis_tlast   (m_axis_tlast),
      .m_axis_len     (),
      .m_axis_qidx    (),
      .m_axis_user    (m_axis_tag),
      .enable         (t_gate_q),
      .hold_own       (t_hold_q),
      .rate_nspb      (t_rate_q),
      .overhead_bytes (t_ovh_q),
      .margin_ns      (t_margin_q),
      .cfg_valid      (g_cfg_valid),
      .cfg_ready      (g_cfg_ready),
      .cfg_qidx       (qsel_q[QI_W-1:0]),
      .cfg_mask       (slots_q[SLOTS_MAX-1:0]),
      .slot_valid     (tm_valid),
      .slot_index     (tm_index),
      .slot_start     (tm_start),
      .slot_left_ns   (tm_left),
      .slot_count     (slot_cnt),
      .hold_count     (c_hold),
      .offslot_count  (c_off),
      .overrun_count  (c_ovr),
      .park_count     (c_park)
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end

  if (SCHED_TYPE != 2) begin : g_nogate
    assign m_axis_tdata  = s_axis_tdata;
    assign m_axis_tkeep  = s_axis_tkeep;
    assign m_axis_tvalid = s_axis_tvalid;
    assign m_axis_tlast  = s_axis_tlast;
    assign m_axis_tag    = s_axis_tag;
    assign s_axis_tready = m_axis_tready;
    assign g_cfg_ready   = 1'b1;
    assign {tm_valid, tm_start, tm_search, tm_err, tm_index, tm_left} = '0;
    assign {c_hold, c_off, c_ovr, c_park} = '0;
  end

  // unused: the ToD without TDMA, the stream's len/qidx without the gate, high queue-select bits
  logic unused;
  assign unused = ^{tod, tod_step, s_axis_len, s_axis_qidx, qsel_q, tm_start, tm_left, slots_q, t_cnt_q,
                    s_cfg_valid, s_cfg_write, g_cfg_valid};

endmodule

`resetall
