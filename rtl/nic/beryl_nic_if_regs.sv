// SPDX-License-Identifier: MIT
// NIC interface register block (regs/beryl_nic_if.rdl) on AXI4-Lite: build parameters, doorbells,
// indirect queue-state and per-queue statistics access, RSS and port controls, counters.
// One access at a time; direct registers answer in 2-3 cycles, doorbells when the queue manager
// takes them, indirect accesses when the queue manager or statistics RAM answers.
`default_nettype none

module beryl_nic_if_regs #(
  parameter int          ADDR_W          = beryl_regs_pkg::NIC_IF_BLOCK_ADDR_W,  // block window, bits
  parameter logic [31:0] BLOCK_NEXT      = 32'h0,  // NEXT value: BAR0 offset of the next block, 0 = last
  parameter int          IF_INDEX        = 0,      // this interface's index
  parameter int          IF_COUNT        = 1,      // interfaces in the device
  parameter int          PORT_COUNT      = 1,      // ports of this interface, 1..8
  parameter int          TXQ_COUNT       = 4096,   // queue counts (powers of two, <= 32768)
  parameter int          RXQ_COUNT       = 256,
  parameter int          CQ_COUNT        = 8192,
  parameter int          EQ_COUNT        = 32,
  parameter int          TX_SLOTS        = 32,     // reported build parameters
  parameter int          RX_SLOTS        = 32,
  parameter int          MAX_FRAME       = 16384,
  parameter int          RSS_TABLE_SIZE  = 256,    // indirection-table entries, power of two
  parameter int          DESC_BATCH      = 8,
  parameter int          CPL_BATCH       = 8,
  parameter int          MAX_DESC_PER_PKT = 16,
  parameter int          TX_SCHED        = 0,      // reported: the ports' scheduler type
  parameter int          TDMA_SLOTS_MAX  = 8,      // reported when TX_SCHED is 2 (TDMA)
  parameter int          RXQ_W           = $clog2(RXQ_COUNT),
  parameter int          TBL_W           = $clog2(RSS_TABLE_SIZE),
  parameter int          CNT_COUNT       = 21      // interface counters TX_PKTS..IRQ_MERGED
) (
  input  wire logic                     clk,
  input  wire logic                     rst,

  input  wire logic [ADDR_W-1:0]        s_axil_awaddr,
  input  wire logic [2:0]               s_axil_awprot,
  input  wire logic                     s_axil_awvalid,
  output logic                          s_axil_awready,
  input  wire logic [31:0]              s_axil_wdata,
  input  wire logic [3:0]               s_axil_wstrb,
  input  wire logic                     s_axil_wvalid,
  output logic                          s_axil_wready,
  output logic [1:0]                    s_axil_bresp,
  output logic                          s_axil_bvalid,
  input  wire logic                     s_axil_bready,
  input  wire logic [ADDR_W-1:0]        s_axil_araddr,
  input  wire logic [2:0]               s_axil_arprot,
  input  wire logic                     s_axil_arvalid,
  output logic                          s_axil_arready,
  output logic [31:0]                   s_axil_rdata,
  output logic [1:0]                    s_axil_rresp,
  output logic                          s_axil_rvalid,
  input  wire logic                     s_axil_rready,

  // doorbells, queue types 0 TXQ, 1 RXQ, 2 CQ, 3 EQ (slice t of each vector)
  output logic [3:0]                    db_valid,
  input  wire logic [3:0]               db_ready,
  output logic [15:0]                   db_qidx,     // shared by the four ports
  output logic [15:0]                   db_ptr,
  output logic                          db_arm,

  // queue-manager configuration ports, one per queue type
  output logic [3:0]                    cfg_req_valid,
  input  wire logic [3:0]               cfg_req_ready,
  output logic                          cfg_req_we,
  output logic [15:0]                   cfg_req_qidx,
  output logic [2:0]                    cfg_req_field,
  output logic [31:0]                   cfg_req_wdata,
  input  wire logic [3:0]               cfg_rsp_valid,
  input  wire logic [4*32-1:0]          cfg_rsp_rdata,
  input  wire logic [3:0]               cfg_rsp_err,

  // per-queue statistics RAMs: 0 TX queues, 1 RX queues
  output logic [1:0]                    stat_req_valid,
  input  wire logic [1:0]               stat_req_ready,
  output logic [15:0]                   stat_req_idx,
  input  wire logic [1:0]               stat_rsp_valid,
  input  wire logic [2*192-1:0]         stat_rsp_data,  // per RAM {drops, bytes, pkts}, 64 bits each

  // RSS
  output logic                          rss_enable,
  output logic [5:0]                    rss_hash_en,
  output logic [RXQ_W-1:0]              rss_default_queue,
  output logic                          rss_key_wr_en,
  output logic [3:0]                    rss_key_wr_addr,
  output logic [31:0]                   rss_key_wr_data,
  output logic                          rss_tbl_wr_en,
  output logic [TBL_W-1:0]              rss_tbl_wr_addr,
  output logic [RXQ_W-1:0]              rss_tbl_wr_data,

  // ports
  output logic [PORT_COUNT-1:0]         port_tx_enable,
  output logic [PORT_COUNT*32-1:0]      port_tx_ts_corr,   // signed, 2^-16 ns
  output logic [PORT_COUNT*32-1:0]      port_rx_ts_corr,
  input  wire logic [PORT_COUNT*32-1:0] port_tx_pkts,
  input  wire logic [PORT_COUNT*32-1:0] port_tx_bytes,
  input  wire logic [PORT_COUNT*32-1:0] port_rx_pkts,
  input  wire logic [PORT_COUNT*32-1:0] port_rx_bytes,
  input  wire logic [PORT_COUNT*32-1:0] port_tx_drops,
  input  wire logic [PORT_COUNT*32-1:0] port_rx_drops,
  // per port, TX timestamp return (beryl_nic_tx_engine): mismatches, timeouts, dropped returns
  input  wire logic [PORT_COUNT*32-1:0] port_tx_ts_mismatch,
  input  wire logic [PORT_COUNT*32-1:0] port_tx_ts_timeout,
  input  wire logic [PORT_COUNT*32-1:0] port_tx_ts_spurious,

  // the selected port's scheduler registers (SCHED_* .. SCHED_BAD_STS): a one-cycle request to the
  // port's scheduler, answered by its done pulse
  output logic [PORT_COUNT-1:0]         sch_req_valid,
  output logic                          sch_req_we,
  output logic [31:0]                   sch_req_off,
  output logic [31:0]                   sch_req_wdata,
  input  wire logic [PORT_COUNT-1:0]    sch_done,
  input  wire logic [PORT_COUNT*32-1:0] sch_rdata,

  // TX descriptor-batch fetches issued again (beryl_nic_tx_engine)
  input  wire logic [31:0]              tx_desc_retry,
  // TX packets whose data was read again (beryl_nic_tx_engine)
  input  wire logic [31:0]              tx_data_retry,
  // RX descriptor-batch fetches issued again (beryl_nic_rx_engine)
  input  wire logic [31:0]              rx_desc_retry,

  // interface counters, word i = register NIC_IF_TX_PKTS + 4i
  input  wire logic [CNT_COUNT*32-1:0]  counters
);

  localparam int CNT_BASE = beryl_regs_pkg::NIC_IF_TX_PKTS_OFFSET;
  localparam int PSEL_W   = (PORT_COUNT > 1) ? $clog2(PORT_COUNT) : 1;

  if (CNT_BASE + 4 * CNT_COUNT != beryl_regs_pkg::NIC_IF_IRQ_MERGED_OFFSET + 4) begin : g_chk_cnt
    $error("%m: CNT_COUNT does not match the counters of regs/beryl_nic_if.rdl");
  end
  if (PORT_COUNT < 1 || PORT_COUNT > 8 || RSS_TABLE_SIZE < 128 || (1 << TBL_W) != RSS_TABLE_SIZE)
  begin : g_chk_par
    $error("%m: PORT_COUNT must be 1..8, RSS_TABLE_SIZE a power of two >= 128");
  end

  // ------------------------------------------------------------------ state
  typedef enum logic [3:0] {
    S_IDLE, S_WR_DB, S_CFG_REQ, S_CFG_RSP, S_STAT_REQ, S_STAT_RSP, S_TBL_RD, S_TBL_RD2, S_SCH_REQ, S_SCH_RSP,
    S_RESP
  } state_t;
  state_t state_q;

  logic              is_wr_q;           // the access in progress is a write
  logic [ADDR_W-1:0] addr_q;
  logic [31:0]       wdata_q;
  logic [31:0]       rdata_q;

  logic [23:0]       qsel_q;
  logic [1:0]        qtype_q;
  logic              qerr_q;
  logic [191:0]      snap_q;            // per-queue statistics snapshot {drops, bytes, pkts}
  logic              rss_en_q;
  logic [5:0]        rss_hash_en_q;
  logic [15:0]       rss_defq_q;
  logic [15:0]       rss_idx_q;
  logic [10*32-1:0]  rss_key_q;
  logic [7:0]        port_sel_q;
  logic [PORT_COUNT-1:0] port_tx_en_q;
  logic [31:0]       port_txc_q [PORT_COUNT];
  logic [31:0]       port_rxc_q [PORT_COUNT];

  // shadow of the indirection table for read-back (the lookup table has no read port)
  logic [RXQ_W-1:0]  tbl_shadow [RSS_TABLE_SIZE];
  logic [RXQ_W-1:0]  tbl_rd_q;

  logic [ADDR_W-1:0] a;        // byte address of the new access
  logic [31:0] off_q, off;     // word-aligned byte offsets of the access in progress / the new one
  assign off_q = 32'(addr_q) & ~32'd3;
  assign off   = 32'(a) & ~32'd3;
  logic [31:0]       qcount;   // size of the selected queue type
  logic              qsel_ok;

  always_comb begin
    unique case (qtype_q)
      2'd0:    qcount = 32'(TXQ_COUNT);
      2'd1:    qcount = 32'(RXQ_COUNT);
      2'd2:    qcount = 32'(CQ_COUNT);
      default: qcount = 32'(EQ_COUNT);
    endcase
    qsel_ok = 32'(qsel_q) < qcount;
  end

  // register offsets
  localparam int O_TXQ_DB    = beryl_regs_pkg::NIC_IF_TXQ_DB_OFFSET;
  localparam int O_EQ_DB_ARM = beryl_regs_pkg::NIC_IF_EQ_DB_ARM_OFFSET;
  localparam int O_Q_SEL     = beryl_regs_pkg::NIC_IF_Q_SEL_OFFSET;
  localparam int O_Q_BASE_LO = beryl_regs_pkg::NIC_IF_Q_BASE_LO_OFFSET;
  localparam int O_Q_CONS    = beryl_regs_pkg::NIC_IF_Q_CONS_OFFSET;
  localparam int O_Q_STATUS  = beryl_regs_pkg::NIC_IF_Q_STATUS_OFFSET;
  localparam int O_Q_STAT0   = beryl_regs_pkg::NIC_IF_Q_STAT_PKTS_LO_OFFSET;
  localparam int O_Q_STAT5   = beryl_regs_pkg::NIC_IF_Q_STAT_DROPS_HI_OFFSET;
  localparam int O_RSS_CTRL  = beryl_regs_pkg::NIC_IF_RSS_CTRL_OFFSET;
  localparam int O_RSS_DEFQ  = beryl_regs_pkg::NIC_IF_RSS_DEFAULT_QUEUE_OFFSET;
  localparam int O_RSS_IDX   = beryl_regs_pkg::NIC_IF_RSS_TBL_IDX_OFFSET;
  localparam int O_RSS_DATA  = beryl_regs_pkg::NIC_IF_RSS_TBL_DATA_OFFSET;
  localparam int O_RSS_KEY0  = beryl_regs_pkg::NIC_IF_RSS_KEY0_OFFSET;
  localparam int O_RSS_KEY9  = beryl_regs_pkg::NIC_IF_RSS_KEY9_OFFSET;
  localparam int O_PORT_SEL  = beryl_regs_pkg::NIC_IF_PORT_SEL_OFFSET;
  localparam int O_PORT_CTRL = beryl_regs_pkg::NIC_IF_PORT_CTRL_OFFSET;
  localparam int O_PORT_TXP  = beryl_regs_pkg::NIC_IF_PORT_TX_PKTS_OFFSET;
  localparam int O_PORT_TXB  = beryl_regs_pkg::NIC_IF_PORT_TX_BYTES_OFFSET;
  localparam int O_PORT_RXP  = beryl_regs_pkg::NIC_IF_PORT_RX_PKTS_OFFSET;
  localparam int O_PORT_RXB  = beryl_regs_pkg::NIC_IF_PORT_RX_BYTES_OFFSET;
  localparam int O_PORT_TXD  = beryl_regs_pkg::NIC_IF_PORT_TX_DROPS_OFFSET;
  localparam int O_PORT_RXD  = beryl_regs_pkg::NIC_IF_PORT_RX_DROPS_OFFSET;
  localparam int O_PORT_TXC  = beryl_regs_pkg::NIC_IF_PORT_TX_TS_CORR_OFFSET;
  localparam int O_PORT_RXC  = beryl_regs_pkg::NIC_IF_PORT_RX_TS_CORR_OFFSET;
  localparam int O_PORT_TSM  = beryl_regs_pkg::NIC_IF_PORT_TX_TS_MISMATCH_OFFSET;
  localparam int O_PORT_TST  = beryl_regs_pkg::NIC_IF_PORT_TX_TS_TIMEOUT_OFFSET;
  localparam int O_PORT_TSS  = beryl_regs_pkg::NIC_IF_PORT_TX_TS_SPURIOUS_OFFSET;
  localparam int O_SCH_FIRST = beryl_regs_pkg::NIC_IF_SCHED_Q_SEL_OFFSET;
  localparam int O_SCH_LAST  = beryl_regs_pkg::NIC_IF_SCHED_BAD_STS_OFFSET;
  localparam int O_TX_RETRY  = beryl_regs_pkg::NIC_IF_TX_DESC_RETRY_OFFSET;
  localparam int O_TX_DRETRY = beryl_regs_pkg::NIC_IF_TX_DATA_RETRY_OFFSET;
  localparam int O_RX_RETRY  = beryl_regs_pkg::NIC_IF_RX_DESC_RETRY_OFFSET;

  function automatic logic [31:0] param_word(input logic [31:0] o);
    unique case (o)
      32'h0:  param_word = beryl_regs_pkg::NIC_IF_BLOCK_TYPE;
      32'h4:  param_word = beryl_regs_pkg::NIC_IF_BLOCK_VERSION;
      32'h8:  param_word = BLOCK_NEXT;
      (beryl_regs_pkg::NIC_IF_IF_INDEX_OFFSET):         param_word = 32'(IF_INDEX);
      (beryl_regs_pkg::NIC_IF_IF_COUNT_OFFSET):         param_word = 32'(IF_COUNT);
      (beryl_regs_pkg::NIC_IF_PORT_COUNT_OFFSET):       param_word = 32'(PORT_COUNT);
      (beryl_regs_pkg::NIC_IF_TXQ_COUNT_OFFSET):        param_word = 32'(TXQ_COUNT);
      (beryl_regs_pkg::NIC_IF_RXQ_COUNT_OFFSET):        param_word = 32'(RXQ_COUNT);
      (beryl_regs_pkg::NIC_IF_CQ_COUNT_OFFSET):         param_word = 32'(CQ_COUNT);
      (beryl_regs_pkg::NIC_IF_EQ_COUNT_OFFSET):         param_word = 32'(EQ_COUNT);
      (beryl_regs_pkg::NIC_IF_TX_SLOTS_OFFSET):         param_word = 32'(TX_SLOTS);
      (beryl_regs_pkg::NIC_IF_RX_SLOTS_OFFSET):         param_word = 32'(RX_SLOTS);
      (beryl_regs_pkg::NIC_IF_MAX_FRAME_OFFSET):        param_word = 32'(MAX_FRAME);
      (beryl_regs_pkg::NIC_IF_RSS_TABLE_SIZE_OFFSET):   param_word = 32'(RSS_TABLE_SIZE);
      (beryl_regs_pkg::NIC_IF_DESC_BATCH_OFFSET):       param_word = 32'(DESC_BATCH);
      (beryl_regs_pkg::NIC_IF_CPL_BATCH_OFFSET):        param_word = 32'(CPL_BATCH);
      (beryl_regs_pkg::NIC_IF_MAX_DESC_PER_PKT_OFFSET): param_word = 32'(MAX_DESC_PER_PKT);
      (beryl_regs_pkg::NIC_IF_FEATURES_OFFSET):         param_word = 32'h1f;
      (beryl_regs_pkg::NIC_IF_TX_SCHED_OFFSET):         param_word = 32'(TX_SCHED);
      (beryl_regs_pkg::NIC_IF_TDMA_SLOTS_MAX_OFFSET):   param_word = (TX_SCHED == 2) ? 32'(TDMA_SLOTS_MAX) : 32'h0;
      default: param_word = 32'h0;
    endcase
  endfunction

  // value of a directly readable register (everything that needs no request to another block)
  logic [31:0] direct_rd;
  logic [PSEL_W-1:0] psel;
  logic port_ok;
  assign psel    = port_sel_q[PSEL_W-1:0];
  assign port_ok = 32'(port_sel_q) < 32'(PORT_COUNT);

  // worked out only for a read being accepted (a write's rdata_q is never returned): the C++ simulator
  // then skips this address decode on the other cycles
  always_comb begin
    direct_rd = '0;
    if (rd_go) begin
      direct_rd = param_word(off);
      if (off >= CNT_BASE && off < CNT_BASE + 4 * CNT_COUNT) begin
        direct_rd = counters[(off - CNT_BASE) * 8 +: 32];
      end
      if (off == O_Q_SEL)     direct_rd = {2'b0, qtype_q, 4'b0, qsel_q};
      if (off == O_Q_STATUS)  direct_rd = {31'b0, qerr_q};
      if (off >= O_Q_STAT0 + 4 && off <= O_Q_STAT5) direct_rd = snap_q[(off - O_Q_STAT0) * 8 +: 32];
      if (off == O_RSS_CTRL)  direct_rd = {18'b0, rss_hash_en_q, 7'b0, rss_en_q};
      if (off == O_RSS_DEFQ)  direct_rd = {16'b0, rss_defq_q};
      if (off == O_RSS_IDX)   direct_rd = {16'b0, rss_idx_q};
      if (off >= O_RSS_KEY0 && off <= O_RSS_KEY9) direct_rd = rss_key_q[(off - O_RSS_KEY0) * 8 +: 32];
      if (off == O_PORT_SEL)  direct_rd = {24'b0, port_sel_q};
      if (off == O_PORT_CTRL) direct_rd = {31'b0, port_ok && port_tx_en_q[psel]};
      if (off == O_PORT_TXP)  direct_rd = port_ok ? port_tx_pkts[32*psel +: 32] : 32'h0;
      if (off == O_PORT_TXB)  direct_rd = port_ok ? port_tx_bytes[32*psel +: 32] : 32'h0;
      if (off == O_PORT_RXP)  direct_rd = port_ok ? port_rx_pkts[32*psel +: 32] : 32'h0;
      if (off == O_PORT_RXB)  direct_rd = port_ok ? port_rx_bytes[32*psel +: 32] : 32'h0;
      if (off == O_PORT_TXD)  direct_rd = port_ok ? port_tx_drops[32*psel +: 32] : 32'h0;
      if (off == O_PORT_RXD)  direct_rd = port_ok ? port_rx_drops[32*psel +: 32] : 32'h0;
      if (off == O_PORT_TXC)  direct_rd = port_ok ? port_txc_q[psel] : 32'h0;
      if (off == O_PORT_RXC)  direct_rd = port_ok ? port_rxc_q[psel] : 32'h0;
      if (off == O_PORT_TSM)  direct_rd = port_ok ? port_tx_ts_mismatch[32*psel +: 32] : 32'h0;
      if (off == O_PORT_TST)  direct_rd = port_ok ? port_tx_ts_timeout[32*psel +: 32] : 32'h0;
      if (off == O_PORT_TSS)  direct_rd = port_ok ? port_tx_ts_spurious[32*psel +: 32] : 32'h0;
      if (off == O_TX_RETRY)  direct_rd = tx_desc_retry;
      if (off == O_TX_DRETRY) direct_rd = tx_data_retry;
      if (off == O_RX_RETRY)  direct_rd = rx_desc_retry;
    end
  end

  // ------------------------------------------------------------------ access sequencer
  logic wr_go, rd_go;
  assign wr_go = (state_q == S_IDLE) && s_axil_awvalid && s_axil_wvalid;
  assign rd_go = (state_q == S_IDLE) && s_axil_arvalid && !wr_go;
  assign s_axil_awready = wr_go;
  assign s_axil_wready  = wr_go;
  assign s_axil_arready = rd_go;
  assign a = wr_go ? s_axil_awaddr : s_axil_araddr;


  // Clock gate: the flops change only while an access is in progress (state_q not idle), when one
  // arrives (awvalid, arvalid), and in the cycle after an RSS key or table write (the write pulses
  // clear themselves); the table shadow is written only by that pulse.
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || state_q != S_IDLE || s_axil_awvalid || s_axil_arvalid || rss_key_wr_en || rss_tbl_wr_en),
    .gclk (gclk)
  );

  // doorbell words from TXQ_DB: 0 TXQ, 1 RXQ, 2 CQ, 3 CQ+arm, 4 EQ, 5 EQ+arm
  logic [31:0] db_word;
  logic [1:0] cur_type;     // doorbell queue type of the access in progress
  assign db_word  = (off_q - O_TXQ_DB) >> 2;
  assign cur_type = (db_word < 2) ? 2'(db_word) : (db_word < 4) ? 2'd2 : 2'd3;

  always_ff @(posedge gclk) begin
    rss_key_wr_en <= 1'b0;
    rss_tbl_wr_en <= 1'b0;
    unique case (state_q)
      S_IDLE: begin
        if (wr_go || rd_go) begin
          is_wr_q <= wr_go;
          addr_q  <= a;
          wdata_q <= s_axil_wdata;
          state_q <= S_RESP;
          rdata_q <= direct_rd;
          if (off >= O_SCH_FIRST && off <= O_SCH_LAST) begin
            // the selected port's scheduler; a port out of range reads 0 and ignores writes
            if (port_ok) state_q <= S_SCH_REQ;
            else rdata_q <= 32'h0;
          end else if (wr_go) begin
            if (off >= O_TXQ_DB && off <= O_EQ_DB_ARM) begin
              state_q <= S_WR_DB;
            end else if (off >= O_Q_BASE_LO && off <= O_Q_CONS) begin
              state_q <= S_CFG_REQ;
            end else if (off == O_Q_SEL) begin
              qsel_q  <= s_axil_wdata[23:0];
              qtype_q <= s_axil_wdata[29:28];
            end else if (off == O_RSS_CTRL) begin
              rss_en_q      <= s_axil_wdata[0];
              rss_hash_en_q <= s_axil_wdata[13:8];
            end else if (off == O_RSS_DEFQ) begin
              rss_defq_q <= s_axil_wdata[15:0];
            end else if (off == O_RSS_IDX) begin
              rss_idx_q <= s_axil_wdata[15:0];
            end else if (off == O_RSS_DATA) begin
              rss_tbl_wr_en   <= 1'b1;
              rss_tbl_wr_addr <= rss_idx_q[TBL_W-1:0];
              rss_tbl_wr_data <= s_axil_wdata[RXQ_W-1:0];
              rss_idx_q       <= rss_idx_q + 16'd1;
            end else if (off >= O_RSS_KEY0 && off <= O_RSS_KEY9) begin
              rss_key_q[(off - O_RSS_KEY0) * 8 +: 32] <= s_axil_wdata;
              rss_key_wr_en   <= 1'b1;
              rss_key_wr_addr <= 4'((off - O_RSS_KEY0) >> 2);
              rss_key_wr_data <= s_axil_wdata;
            end else if (off == O_PORT_SEL) begin
              port_sel_q <= s_axil_wdata[7:0];
            end else if (off == O_PORT_CTRL) begin
              if (port_ok) port_tx_en_q[psel] <= s_axil_wdata[0];
            end else if (off == O_PORT_TXC) begin
              if (port_ok) port_txc_q[psel] <= s_axil_wdata;
            end else if (off == O_PORT_RXC) begin
              if (port_ok) port_rxc_q[psel] <= s_axil_wdata;
            end
          end else begin
            if (off >= O_Q_BASE_LO && off <= O_Q_CONS) begin
              state_q <= S_CFG_REQ;
            end else if (off == O_Q_STAT0) begin
              state_q <= S_STAT_REQ;
            end else if (off == O_RSS_DATA) begin
              state_q <= S_TBL_RD;
            end
          end
        end
      end
      S_WR_DB: if ((db_valid & db_ready) != 4'b0) state_q <= S_RESP;
      S_CFG_REQ: begin
        if (!qsel_ok) begin
          qerr_q  <= 1'b1;
          state_q <= S_RESP;
        end else if ((cfg_req_valid & cfg_req_ready) != 4'b0) begin
          state_q <= S_CFG_RSP;
        end
      end
      S_CFG_RSP: begin
        if (cfg_rsp_valid[qtype_q]) begin
          rdata_q <= cfg_rsp_rdata[32*qtype_q +: 32];
          qerr_q  <= cfg_rsp_err[qtype_q];
          state_q <= S_RESP;
        end
      end
      S_STAT_REQ: begin
        if (!qsel_ok || qtype_q[1]) begin
          qerr_q  <= 1'b1;
          snap_q  <= '0;
          state_q <= S_RESP;
        end else if ((stat_req_valid & stat_req_ready) != 2'b0) begin
          state_q <= S_STAT_RSP;
        end
      end
      S_STAT_RSP: begin
        if (stat_rsp_valid[qtype_q[0]]) begin
          snap_q  <= stat_rsp_data[192*qtype_q[0] +: 192];
          rdata_q <= stat_rsp_data[192*qtype_q[0] +: 32];
          qerr_q  <= 1'b0;
          state_q <= S_RESP;
        end
      end
      S_SCH_REQ: state_q <= S_SCH_RSP;   // one-cycle request
      S_SCH_RSP: begin
        if (sch_done[psel]) begin
          rdata_q <= sch_rdata[32*psel +: 32];
          state_q <= S_RESP;
        end
      end
      S_TBL_RD:  state_q <= S_TBL_RD2;   // table read address presented
      S_TBL_RD2: begin
        rdata_q   <= 32'(tbl_rd_q);
        rss_idx_q <= rss_idx_q + 16'd1;
        state_q   <= S_RESP;
      end
      S_RESP: begin
        if ((is_wr_q && s_axil_bready) || (!is_wr_q && s_axil_rready)) state_q <= S_IDLE;
      end
      default: state_q <= S_IDLE;
    endcase
    if (rst) begin
      state_q       <= S_IDLE;
      qsel_q        <= '0;
      qtype_q       <= '0;
      qerr_q        <= 1'b0;
      snap_q        <= '0;
      rss_en_q      <= 1'b0;
      rss_hash_en_q <= '0;
      rss_defq_q    <= '0;
      rss_idx_q     <= '0;
      rss_key_q     <= '0;
      port_sel_q    <= '0;
      port_tx_en_q  <= '1;
      for (int i = 0; i < PORT_COUNT; i++) begin
        port_txc_q[i] <= '0;
        port_rxc_q[i] <= '0;
      end
      rss_key_wr_en <= 1'b0;
      rss_tbl_wr_en <= 1'b0;
    end
  end

  // the indirection-table shadow: written with the real table, read for RSS_TBL_DATA (like the
  // table itself it holds no reset value: software writes the table before enabling RSS)
  always_ff @(posedge gclk) begin
    if (rss_tbl_wr_en) tbl_shadow[rss_tbl_wr_addr] <= rss_tbl_wr_data;
    if (state_q == S_TBL_RD) tbl_rd_q <= tbl_shadow[rss_idx_q[TBL_W-1:0]];   // read only in S_TBL_RD2
  end

  // responses: direct registers are latched when the read is accepted (RDATA stable, AXI A3.2.1)
  logic [31:0] rd_value;
  assign rd_value  = rdata_q;

  assign s_axil_bvalid = (state_q == S_RESP) && is_wr_q;
  assign s_axil_bresp  = 2'b00;
  assign s_axil_rvalid = (state_q == S_RESP) && !is_wr_q;
  assign s_axil_rresp  = 2'b00;
  assign s_axil_rdata  = rd_value;

  // doorbells
  always_comb begin
    db_valid = '0;
    if (state_q == S_WR_DB) db_valid[cur_type] = 1'b1;
  end
  assign db_qidx = wdata_q[15:0];
  assign db_ptr  = wdata_q[31:16];
  assign db_arm  = (db_word == 3) || (db_word == 5);

  // queue-manager configuration requests
  always_comb begin
    cfg_req_valid = '0;
    if (state_q == S_CFG_REQ && qsel_ok) cfg_req_valid[qtype_q] = 1'b1;
  end
  assign cfg_req_we    = is_wr_q;
  assign cfg_req_qidx  = qsel_q[15:0];
  assign cfg_req_field = 3'((off_q - O_Q_BASE_LO) >> 2);
  assign cfg_req_wdata = wdata_q;

  always_comb begin
    stat_req_valid = '0;
    if (state_q == S_STAT_REQ && qsel_ok && !qtype_q[1]) stat_req_valid[qtype_q[0]] = 1'b1;
  end
  assign stat_req_idx = qsel_q[15:0];

  always_comb begin
    sch_req_valid = '0;
    if (state_q == S_SCH_REQ) sch_req_valid[psel] = 1'b1;
  end
  assign sch_req_we    = is_wr_q;
  assign sch_req_off   = off_q;
  assign sch_req_wdata = wdata_q;

  assign rss_enable        = rss_en_q;
  assign rss_hash_en       = rss_hash_en_q;
  assign rss_default_queue = rss_defq_q[RXQ_W-1:0];
  assign port_tx_enable    = port_tx_en_q;
  for (genvar i = 0; i < PORT_COUNT; i++) begin : g_port_corr
    assign port_tx_ts_corr[i*32 +: 32] = port_txc_q[i];
    assign port_rx_ts_corr[i*32 +: 32] = port_rxc_q[i];
  end

  // unused: protection bits, strobes (registers are written as whole words), high queue-select bits
  logic unused;
  assign unused = ^{s_axil_awprot, s_axil_arprot, s_axil_wstrb, rss_defq_q, port_sel_q};

endmodule

`resetall
