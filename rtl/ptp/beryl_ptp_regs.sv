// SPDX-License-Identifier: MIT
// PTP clock block of the register map (regs/beryl_ptp.rdl): the hardware clock (beryl_ptp_clock) and
// one periodic output (beryl_ptp_perout) behind an AXI-Lite register file. Commands (snapshot, set,
// offset, increment) are single writes of CMD that act on the staged SET_*/ADJ_*/INCR_* words, so a
// multi-word change is atomic. Reads of registers written by a command return the new state from the
// third cycle after the write's handshake (AXI-Lite masters here wait for the write response first).
`default_nettype none

module beryl_ptp_regs #(
  parameter int unsigned FNS_W      = 32,    // fractional ns bits of the clock, 16..32
  parameter int unsigned PERIOD_NS  = 4,     // nominal increment, integer ns
  parameter int unsigned PERIOD_FNS = 0,     // nominal increment, fraction (2^-32 ns)
  parameter logic [31:0] BLOCK_NEXT = 32'h0  // NEXT of this block (0: last)
) (
  input  wire logic        clk,
  input  wire logic        rst,

  input  wire logic [7:0]  s_axil_awaddr,
  input  wire logic [2:0]  s_axil_awprot,
  input  wire logic        s_axil_awvalid,
  output      logic        s_axil_awready,
  input  wire logic [31:0] s_axil_wdata,
  input  wire logic [3:0]  s_axil_wstrb,
  input  wire logic        s_axil_wvalid,
  output      logic        s_axil_wready,
  output      logic [1:0]  s_axil_bresp,
  output      logic        s_axil_bvalid,
  input  wire logic        s_axil_bready,
  input  wire logic [7:0]  s_axil_araddr,
  input  wire logic [2:0]  s_axil_arprot,
  input  wire logic        s_axil_arvalid,
  output      logic        s_axil_arready,
  output      logic [31:0] s_axil_rdata,
  output      logic [1:0]  s_axil_rresp,
  output      logic        s_axil_rvalid,
  input  wire logic        s_axil_rready,

  output      logic [95:0] tod,       // {sec48, ns32, fns16}
  output      logic        tod_step,  // one clock: tod was set or offset this cycle
  output      logic        pps,       // one clock per second reached by counting
  output      logic        perout     // periodic output
);

  localparam int NREG = beryl_regs_pkg::PTP_REG_COUNT;
  localparam int W_CMD       = beryl_regs_pkg::PTP_CMD_OFFSET / 4;
  localparam int W_STATUS    = beryl_regs_pkg::PTP_STATUS_OFFSET / 4;
  localparam int W_SET_FNS   = beryl_regs_pkg::PTP_SET_FNS_OFFSET / 4;
  localparam int W_SET_NS    = beryl_regs_pkg::PTP_SET_NS_OFFSET / 4;
  localparam int W_SET_SLO   = beryl_regs_pkg::PTP_SET_SEC_LO_OFFSET / 4;
  localparam int W_SET_SHI   = beryl_regs_pkg::PTP_SET_SEC_HI_OFFSET / 4;
  localparam int W_ADJ_FNS   = beryl_regs_pkg::PTP_ADJ_FNS_OFFSET / 4;
  localparam int W_ADJ_NS    = beryl_regs_pkg::PTP_ADJ_NS_OFFSET / 4;
  localparam int W_INCR_NS   = beryl_regs_pkg::PTP_INCR_NS_OFFSET / 4;
  localparam int W_INCR_FNS  = beryl_regs_pkg::PTP_INCR_FNS_OFFSET / 4;
  localparam int W_PO_CTRL   = beryl_regs_pkg::PTP_PEROUT_CTRL_OFFSET / 4;
  localparam int W_PO_SLO    = beryl_regs_pkg::PTP_PEROUT_START_SEC_LO_OFFSET / 4;
  localparam int W_PO_SHI    = beryl_regs_pkg::PTP_PEROUT_START_SEC_HI_OFFSET / 4;
  localparam int W_PO_SNS    = beryl_regs_pkg::PTP_PEROUT_START_NS_OFFSET / 4;
  localparam int W_PO_PSEC   = beryl_regs_pkg::PTP_PEROUT_PERIOD_SEC_OFFSET / 4;
  localparam int W_PO_PNS    = beryl_regs_pkg::PTP_PEROUT_PERIOD_NS_OFFSET / 4;
  localparam int W_PO_PFNS   = beryl_regs_pkg::PTP_PEROUT_PERIOD_FNS_OFFSET / 4;
  localparam int W_PO_WID    = beryl_regs_pkg::PTP_PEROUT_WIDTH_NS_OFFSET / 4;

  function automatic logic [NREG-1:0] wr_mask();
    wr_mask = '0;
    wr_mask[W_CMD] = 1'b1;
    for (int i = W_SET_FNS; i <= W_INCR_FNS; i++) wr_mask[i] = 1'b1;
    for (int i = W_PO_CTRL; i <= W_PO_WID; i++) wr_mask[i] = 1'b1;
  endfunction

  logic [NREG*32-1:0] rd_words;
  logic [NREG-1:0]    wr_en;
  logic [31:0]        wr_data;
  logic [3:0]         wr_strb;

  beryl_axil_regfile #(
    .ADDR_W        (8),
    .REG_COUNT     (NREG),
    .BLOCK_TYPE    (beryl_regs_pkg::PTP_BLOCK_TYPE),
    .BLOCK_VERSION (beryl_regs_pkg::PTP_BLOCK_VERSION),
    .BLOCK_NEXT    (BLOCK_NEXT),
    .WR_MASK       (wr_mask())
  ) u_regs (
    .clk            (clk),
    .rst            (rst),
    .s_axil_awaddr  (s_axil_awaddr),
    .s_axil_awprot  (s_axil_awprot),
    .s_axil_awvalid (s_axil_awvalid),
    .s_axil_awready (s_axil_awready),
    .s_axil_wdata   (s_axil_wdata),
    .s_axil_wstrb   (s_axil_wstrb),
    .s_axil_wvalid  (s_axil_wvalid),
    .s_axil_wready  (s_axil_wready),
    .s_axil_bresp   (s_axil_bresp),
    .s_axil_bvalid  (s_axil_bvalid),
    .s_axil_bready  (s_axil_bready),
    .s_axil_araddr  (s_axil_araddr),
    .s_axil_arprot  (s_axil_arprot),
    .s_axil_arvalid (s_axil_arvalid),
    .s_axil_arready (s_axil_arready),
    .s_axil_rdata   (s_axil_rdata),
    .s_axil_rresp   (s_axil_rresp),
    .s_axil_rvalid  (s_axil_rvalid),
    .s_axil_rready  (s_axil_rready),
    .reg_rd_data    (rd_words),
    .reg_wr_en      (wr_en),
    .reg_wr_data    (wr_data),
    .reg_wr_strb    (wr_strb)
  );

  // ------------------------------------------------------------------ clock gate
  // The flops of this module (the register file, clock and periodic output keep clk) change only with a
  // register write pulse (wr_en: staged words), a pps, step or set-error pulse of the clock (counters,
  // set_err_q), or an edge of the periodic output (perout differing from perout_q: perout_q, the edge
  // count). None of them follows the time: between those events every flop holds.
  logic        gclk;
  logic        set_err;
  logic        perout_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (|wr_en) || pps || tod_step || set_err || (perout != perout_q)),
    .gclk (gclk)
  );

  // ------------------------------------------------------------------ staged words (byte strobes honoured)
  logic [31:0] stage_q [NREG];
  logic [31:0] strb_mask;
  always_comb begin
    for (int b = 0; b < 4; b++) strb_mask[b*8 +: 8] = {8{wr_strb[b]}};
  end

  always_ff @(posedge gclk) begin
    for (int i = 0; i < NREG; i++) begin
      if (wr_en[i] && i != W_CMD) stage_q[i] <= (stage_q[i] & ~strb_mask) | (wr_data & strb_mask);
    end
    if (rst) begin
      for (int i = 0; i < NREG; i++) stage_q[i] <= '0;
      stage_q[W_PO_PSEC] <= 32'd1;
    end
  end

  // ------------------------------------------------------------------ clock
  logic              cmd;
  logic              snap_req, set_valid, adj_valid, incr_valid;
  logic [95:0]       snap_tod;
  logic [79:0]       snap_rel;
  logic [FNS_W+7:0]  incr_cur;
  logic              set_err_q;

  assign cmd        = wr_en[W_CMD] && wr_strb[0];
  assign snap_req   = cmd && wr_data[beryl_regs_pkg::PTP_CMD_SNAP_LSB];
  assign set_valid  = cmd && wr_data[beryl_regs_pkg::PTP_CMD_SET_TOD_LSB];
  assign adj_valid  = cmd && wr_data[beryl_regs_pkg::PTP_CMD_ADJ_LSB];
  assign incr_valid = cmd && wr_data[beryl_regs_pkg::PTP_CMD_INCR_LSB];

  /* verilator lint_off UNUSEDSIGNAL */
  logic [79:0] rel;   // the relative counter is read through the snapshot only
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_ptp_clock #(
    .FNS_W      (FNS_W),
    .PERIOD_NS  (PERIOD_NS),
    .PERIOD_FNS (PERIOD_FNS)
  ) u_clock (
    .clk           (clk),
    .rst           (rst),
    .incr_valid    (incr_valid),
    .incr          ({stage_q[W_INCR_NS][7:0], stage_q[W_INCR_FNS][31 -: FNS_W]}),
    .set_tod_valid (set_valid),
    .set_tod       ({stage_q[W_SET_SHI][15:0], stage_q[W_SET_SLO], stage_q[W_SET_NS], stage_q[W_SET_FNS][15:0]}),
    .adj_valid     (adj_valid),
    .adj_offset    ({stage_q[W_ADJ_NS], stage_q[W_ADJ_FNS][15:0]}),
    .snap_req      (snap_req),
    .tod           (tod),
    .rel           (rel),
    .pps           (pps),
    .step          (tod_step),
    .set_err       (set_err),
    .snap_tod      (snap_tod),
    .snap_rel      (snap_rel),
    .incr_cur      (incr_cur)
  );

  // ------------------------------------------------------------------ periodic output
  logic        po_cfg_err;
  logic [31:0] po_skip;

  beryl_ptp_perout #(
    .PFNS_W (32)
  ) u_perout (
    .clk        (clk),
    .rst        (rst),
    .tod        (tod),
    .tod_step   (tod_step),
    .enable     (stage_q[W_PO_CTRL][0]),
    .start_sec  ({stage_q[W_PO_SHI][15:0], stage_q[W_PO_SLO]}),
    .start_ns   (stage_q[W_PO_SNS]),
    .period_sec (stage_q[W_PO_PSEC]),
    .period_ns  (stage_q[W_PO_PNS]),
    .period_fns (stage_q[W_PO_PFNS]),
    .width_ns   (stage_q[W_PO_WID]),
    .out        (perout),
    .skip_cnt   (po_skip),
    .cfg_err    (po_cfg_err)
  );

  // ------------------------------------------------------------------ counters and status
  logic [31:0] pps_cnt_q, step_cnt_q, set_err_cnt_q, edge_cnt_q;
  always_ff @(posedge gclk) begin
    perout_q <= perout;
    if (pps) pps_cnt_q <= pps_cnt_q + 32'd1;
    if (tod_step) step_cnt_q <= step_cnt_q + 32'd1;
    if (set_err) set_err_cnt_q <= set_err_cnt_q + 32'd1;
    if (perout && !perout_q) edge_cnt_q <= edge_cnt_q + 32'd1;
    if (set_err) set_err_q <= 1'b1;
    else if (tod_step && set_err_q) set_err_q <= 1'b0;  // the next accepted set (or offset) clears it
    if (rst) begin
      perout_q      <= 1'b0;
      pps_cnt_q     <= '0;
      step_cnt_q    <= '0;
      set_err_cnt_q <= '0;
      edge_cnt_q    <= '0;
      set_err_q     <= 1'b0;
    end
  end

  always_comb begin
    for (int i = 0; i < NREG; i++) rd_words[i*32 +: 32] = stage_q[i];
    rd_words[W_CMD*32 +: 32] = '0;
    rd_words[beryl_regs_pkg::PTP_NOM_INCR_NS_OFFSET*8 +: 32]  = 32'(PERIOD_NS);
    rd_words[beryl_regs_pkg::PTP_NOM_INCR_FNS_OFFSET*8 +: 32] = 32'(PERIOD_FNS);
    rd_words[beryl_regs_pkg::PTP_FNS_W_OFFSET*8 +: 32]        = 32'(FNS_W);
    rd_words[W_STATUS*32 +: 32]               = {29'd0, perout, po_cfg_err, set_err_q};
    rd_words[beryl_regs_pkg::PTP_SNAP_TOD_FNS_OFFSET*8 +: 32]    = {16'd0, snap_tod[15:0]};
    rd_words[beryl_regs_pkg::PTP_SNAP_TOD_NS_OFFSET*8 +: 32]     = snap_tod[47:16];
    rd_words[beryl_regs_pkg::PTP_SNAP_TOD_SEC_LO_OFFSET*8 +: 32] = snap_tod[79:48];
    rd_words[beryl_regs_pkg::PTP_SNAP_TOD_SEC_HI_OFFSET*8 +: 32] = {16'd0, snap_tod[95:80]};
    rd_words[beryl_regs_pkg::PTP_SNAP_REL_FNS_OFFSET*8 +: 32]    = {16'd0, snap_rel[15:0]};
    rd_words[beryl_regs_pkg::PTP_SNAP_REL_NS_LO_OFFSET*8 +: 32]  = snap_rel[47:16];
    rd_words[beryl_regs_pkg::PTP_SNAP_REL_NS_HI_OFFSET*8 +: 32]  = snap_rel[79:48];
    rd_words[beryl_regs_pkg::PTP_INCR_CUR_NS_OFFSET*8 +: 32]     = {24'd0, incr_cur[FNS_W +: 8]};
    rd_words[beryl_regs_pkg::PTP_INCR_CUR_FNS_OFFSET*8 +: 32]    = 32'(incr_cur[FNS_W-1:0]) << (32 - FNS_W);
    rd_words[beryl_regs_pkg::PTP_PPS_COUNT_OFFSET*8 +: 32]       = pps_cnt_q;
    rd_words[beryl_regs_pkg::PTP_STEP_COUNT_OFFSET*8 +: 32]      = step_cnt_q;
    rd_words[beryl_regs_pkg::PTP_SET_ERR_COUNT_OFFSET*8 +: 32]   = set_err_cnt_q;
    rd_words[beryl_regs_pkg::PTP_PEROUT_SKIPPED_OFFSET*8 +: 32]  = po_skip;
    rd_words[beryl_regs_pkg::PTP_PEROUT_EDGES_OFFSET*8 +: 32]    = edge_cnt_q;
  end

endmodule

`default_nettype wire
