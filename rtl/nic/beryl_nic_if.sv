// SPDX-License-Identifier: MIT
// One NIC interface: its register block, the four queue managers (TX, RX, completion, event),
// per-port transmit schedulers (round robin, token bucket or TDMA), the TX and RX engines, the completion and event writers,
// interrupt moderation and per-queue statistics, with one DMA read and one DMA write channel and
// their RAM ports towards the PCIe DMA engines (docs/blocks/nic_core.md).
`default_nettype none

module beryl_nic_if #(
  parameter int          IF_INDEX     = 0,       // this interface's index
  parameter int          IF_COUNT     = 1,       // interfaces in the device
  parameter logic [31:0] BLOCK_NEXT   = 32'h0,   // NEXT of this interface's register block
  parameter int          PORT_COUNT   = 1,       // ports (MAC stream pairs), 1..8
  parameter int          TXQ_COUNT    = 4096,    // TX queues, power of two, 2..32768
  parameter int          RXQ_COUNT    = 256,     // RX queues, power of two, 2..32768
  parameter int          CQ_COUNT     = 8192,    // completion queues, power of two, >= 2
  parameter int          EQ_COUNT     = 32,      // event queues, power of two, 2..256
  parameter int          TX_SLOTS     = 32,      // TX packets in flight, power of two
  parameter int          RX_SLOTS     = 32,      // RX frames in flight, power of two
  parameter int          MAX_FRAME    = 16384,   // largest frame, bytes, power of two (slot size)
  parameter int          RSS_TABLE_SIZE = 256,   // RSS indirection entries, power of two >= 128
  parameter int          DESC_BATCH   = 8,       // TX descriptors per fetch, power of two
  parameter int          TX_BATCH_SLOTS = 8,     // TX descriptor batches in flight, 1..16
  parameter int          CPL_BATCH    = 8,       // completion/event entries per DMA, power of two
  parameter int          MAX_DESC_PER_PKT = 16,  // TX descriptors per packet
  parameter int          SCHED_CMDS   = 8,       // scheduler commands in flight per port
  parameter int          TX_SCHED     = 0,       // ports' scheduler: 0 round robin, 1 token bucket, 2 TDMA
  parameter int          TDMA_SLOTS_MAX  = 8,    // TX_SCHED 2: slots per period, 1..32
  parameter int          TDMA_PARK_BEATS = 256,  // TX_SCHED 2: gate park buffer per port, beats (0: none)
  // TX timestamps (docs/blocks/ptp.md): 0 = stamped here at each port's output (after the scheduler block
  // and TDMA gate) when a frame's first beat is taken; 1 = returned by the MACs on s_tx_ts_* for the tag
  // of m_axis_tx_tag (the MAC's own start-of-frame time)
  parameter int          TX_TS_SRC    = 0,
  // RX timestamps: 0 = the time a frame's first beat appeared on the port input (stamped here); 1 = the
  // frame's own start-of-frame time on s_axis_rx_ts (a MAC's RX time, valid with the frame's first beat)
  parameter int          RX_TS_SRC    = 0,
  // frames per port from leaving the TX engine to their completion (released in order): with TDMA, the frames
  // that pass a parked frame while it waits for its slot count too (see docs/blocks/ptp.md, Limits)
  parameter int          TX_TS_WAIT_DEPTH = (TX_SCHED == 2) ? 256 : 16,
  parameter int          TX_TS_TAG_W  = $clog2(TX_TS_WAIT_DEPTH) + 1,  // tag width, bits, > clog2(depth), <= 16
  // cycles the oldest frame of a port waits for its timestamp before it completes with 0 (4.2 ms at
  // 250 MHz: longer than any TDMA hold of a sensible schedule); 0 = forever (a lost return can stall a port)
  parameter int          TX_TS_TIMEOUT = 1 << 20,
  parameter int          DATA_W       = 512,     // MAC stream width: 512 only
  parameter int          LEN_W        = 17,      // DMA length width
  parameter int          TAG_W        = 8,       // DMA tag width of this interface's channels
  parameter int          REGION_W     = $clog2(TX_SLOTS * MAX_FRAME) + 1,  // DMA region per client, bytes (log2)
  parameter int          RAM_ADDR_W   = REGION_W + 2,                      // 4 regions per interface
  parameter int          SEG_ADDR_W   = RAM_ADDR_W - 7,
  parameter int          AXIL_ADDR_W  = beryl_regs_pkg::NIC_IF_BLOCK_ADDR_W
) (
  input  wire logic                       clk,
  input  wire logic                       rst,

  // register block
  input  wire logic [AXIL_ADDR_W-1:0]     s_axil_awaddr,
  input  wire logic [2:0]                 s_axil_awprot,
  input  wire logic                       s_axil_awvalid,
  output logic                            s_axil_awready,
  input  wire logic [31:0]                s_axil_wdata,
  input  wire logic [3:0]                 s_axil_wstrb,
  input  wire logic                       s_axil_wvalid,
  output logic                            s_axil_wready,
  output logic [1:0]                      s_axil_bresp,
  output logic                            s_axil_bvalid,
  input  wire logic                       s_axil_bready,
  input  wire logic [AXIL_ADDR_W-1:0]     s_axil_araddr,
  input  wire logic [2:0]                 s_axil_arprot,
  input  wire logic                       s_axil_arvalid,
  output logic                            s_axil_arready,
  output logic [31:0]                     s_axil_rdata,
  output logic [1:0]                      s_axil_rresp,
  output logic                            s_axil_rvalid,
  input  wire logic                       s_axil_rready,

  // DMA read channel (host to device) and the read engine's RAM write port
  output logic [63:0]                     rd_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]           rd_desc_ram_addr,
  output logic [LEN_W-1:0]                rd_desc_len,
  output logic [TAG_W-1:0]                rd_desc_tag,
  output logic                            rd_desc_valid,
  input  wire logic                       rd_desc_ready,
  input  wire logic [TAG_W-1:0]           rd_desc_status_tag,
  input  wire logic [3:0]                 rd_desc_status_error,
  input  wire logic                       rd_desc_status_valid,
  input  wire logic [2*SEG_ADDR_W-1:0]    ram_wr_cmd_addr,
  input  wire logic [2*64-1:0]            ram_wr_cmd_be,
  input  wire logic [2*512-1:0]           ram_wr_cmd_data,
  input  wire logic [1:0]                 ram_wr_cmd_valid,
  output logic [1:0]                      ram_wr_cmd_ready,

  // DMA write channel (device to host) and the write engine's RAM read port
  output logic [63:0]                     wr_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]           wr_desc_ram_addr,
  output logic [LEN_W-1:0]                wr_desc_len,
  output logic [TAG_W-1:0]                wr_desc_tag,
  output logic                            wr_desc_valid,
  input  wire logic                       wr_desc_ready,
  input  wire logic [TAG_W-1:0]           wr_desc_status_tag,
  input  wire logic [3:0]                 wr_desc_status_error,
  input  wire logic                       wr_desc_status_valid,
  input  wire logic [2*SEG_ADDR_W-1:0]    ram_rd_cmd_addr,
  input  wire logic [1:0]                 ram_rd_cmd_valid,
  output logic [1:0]                      ram_rd_cmd_ready,
  output logic [2*512-1:0]                ram_rd_resp_data,
  output logic [1:0]                      ram_rd_resp_valid,
  input  wire logic [1:0]                 ram_rd_resp_ready,

  // interrupts (MSI-X vector requests)
  output logic [7:0]                      irq_index,
  output logic                            irq_valid,
  input  wire logic                       irq_ready,

  // ports: AXI-Stream to and from the MACs
  output logic [PORT_COUNT*DATA_W-1:0]    m_axis_tx_tdata,
  output logic [PORT_COUNT*DATA_W/8-1:0]  m_axis_tx_tkeep,
  output logic [PORT_COUNT-1:0]           m_axis_tx_tvalid,
  input  wire logic [PORT_COUNT-1:0]      m_axis_tx_tready,
  output logic [PORT_COUNT-1:0]           m_axis_tx_tlast,
  output logic [PORT_COUNT*TX_TS_TAG_W-1:0] m_axis_tx_tag,    // with every beat: the frame's TX timestamp tag
  // TX_TS_SRC 1: per port, the start-of-frame time (completion format, beryl_nic_pkg::ts_of_tod, before the
  // PORT_TX_TS_CORR correction, which is added here) of the frame with this tag, in frame order
  input  wire logic [PORT_COUNT-1:0]      s_tx_ts_valid,
  input  wire logic [PORT_COUNT*TX_TS_TAG_W-1:0] s_tx_ts_tag,
  input  wire logic [PORT_COUNT*64-1:0]   s_tx_ts,
  input  wire logic [PORT_COUNT*DATA_W-1:0]   s_axis_rx_tdata,
  input  wire logic [PORT_COUNT*DATA_W/8-1:0] s_axis_rx_tkeep,
  input  wire logic [PORT_COUNT-1:0]      s_axis_rx_tvalid,
  output logic [PORT_COUNT-1:0]           s_axis_rx_tready,
  input  wire logic [PORT_COUNT-1:0]      s_axis_rx_tlast,
  input  wire logic [PORT_COUNT-1:0]      s_axis_rx_tuser,
  // RX_TS_SRC 1: per port, the frame's start-of-frame time (completion format, before PORT_RX_TS_CORR, which
  // is added here), read with the frame's first beat; ignored with RX_TS_SRC 0
  input  wire logic [PORT_COUNT*64-1:0]   s_axis_rx_ts,

  // PTP time now, completion timestamp format (beryl_nic_pkg::ts_of_tod)
  input  wire logic [63:0]                ptp_ts,
  // PTP time of day and its step flag (beryl_ptp_clock) for TDMA schedules
  input  wire logic [95:0]                ptp_tod,
  input  wire logic                       ptp_tod_step
);

  localparam int TXQ_W  = $clog2(TXQ_COUNT);
  localparam int RXQ_W  = $clog2(RXQ_COUNT);
  localparam int CQ_W   = $clog2(CQ_COUNT);
  localparam int EQ_W   = $clog2(EQ_COUNT);
  localparam int PSEL_W = (PORT_COUNT > 1) ? $clog2(PORT_COUNT) : 1;
  localparam int TX_CNT_W  = $clog2(DESC_BATCH) + 1;
  localparam int CPL_CNT_W = $clog2(CPL_BATCH) + 1;
  localparam int CTAG_W = TAG_W - 2;          // client tags: the muxes add 2 bits (up to 4 clients)
  localparam int CW_RAM_ADDR_W = ($clog2(4 * CPL_BATCH * 32) > 12) ? $clog2(4 * CPL_BATCH * 32) : 12;
  localparam int CSEG_W = REGION_W - 7;       // row address width inside a region
  // The RX engine's own layout (frame slots in the lower half, descriptor batches in the upper half)
  // is sized by RX_SLOTS, which may be smaller than the region (sized by TX_SLOTS): it sits at the
  // bottom of region 1 and sees the low RX_SEG_W row bits (its addresses never set the ones above).
  localparam int RX_RAM_W = $clog2(RX_SLOTS * MAX_FRAME) + 1;
  localparam int RX_SEG_W = RX_RAM_W - 7;

  if (DATA_W != 512 || RX_SLOTS > TX_SLOTS) begin : g_chk
    $error("%m: DATA_W must be 512; RX_SLOTS <= TX_SLOTS (the regions are sized for the TX engine)");
  end
  if (TXQ_W > 16 || RXQ_W > 16 || CQ_W > 16 || EQ_W > 8 || CW_RAM_ADDR_W > REGION_W || CTAG_W < 5)
  begin : g_chk2
    $error("%m: queue counts up to 65536 (EQ 256), TAG_W >= 7");
  end

  // the RX engine's and the writers' RAMs can be smaller than a region: keep the low row bits of each
  // segment's address
  /* verilator lint_off UNUSEDSIGNAL */   // the row bits above those RAMs are always 0
  function automatic logic [2*RX_SEG_W-1:0] rx_row_addr(input logic [2*CSEG_W-1:0] a);
    rx_row_addr = {a[CSEG_W +: RX_SEG_W], a[0 +: RX_SEG_W]};
  endfunction

  function automatic logic [2*(CW_RAM_ADDR_W-7)-1:0] cw_rd_addr(input logic [2*CSEG_W-1:0] a);
    cw_rd_addr = {a[CSEG_W +: CW_RAM_ADDR_W-7], a[0 +: CW_RAM_ADDR_W-7]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ------------------------------------------------------------------ register block
  logic [3:0]  db_valid, db_ready;
  logic [15:0] db_qidx, db_ptr;
  logic        db_arm;
  logic [3:0]  cfg_req_valid, cfg_req_ready, cfg_rsp_valid, cfg_rsp_err;
  logic        cfg_req_we;
  logic [15:0] cfg_req_qidx;
  logic [2:0]  cfg_req_field;
  logic [31:0] cfg_req_wdata;
  logic [4*32-1:0] cfg_rsp_rdata;
  logic [1:0]  stat_req_valid, stat_req_ready, stat_rsp_valid;
  logic [15:0] stat_req_idx;
  logic [2*192-1:0] stat_rsp_data;
  logic        rss_enable, rss_key_wr_en, rss_tbl_wr_en;
  logic [5:0]  rss_hash_en;
  logic [RXQ_W-1:0] rss_default_queue, rss_tbl_wr_data;
  logic [3:0]  rss_key_wr_addr;
  logic [31:0] rss_key_wr_data;
  logic [$clog2(RSS_TABLE_SIZE)-1:0] rss_tbl_wr_addr;
  logic [PORT_COUNT-1:0] port_tx_enable;
  logic [PORT_COUNT*32-1:0] port_tx_pkts, port_tx_bytes, port_rx_pkts, port_rx_bytes;
  logic [PORT_COUNT*32-1:0] port_tx_drops, port_rx_drops;
  logic [PORT_COUNT*32-1:0] port_tx_ts_corr, port_rx_ts_corr;
  logic [PORT_COUNT*32-1:0] port_tx_ts_mismatch, port_tx_ts_timeout, port_tx_ts_spurious;
  logic [21*32-1:0] counters;
  logic [31:0]      tx_desc_retry;     // TX descriptor-batch fetches issued again
  logic [31:0]      tx_data_retry;     // TX packets whose data was read again
  logic [31:0]      rx_desc_retry;     // RX descriptor-batch fetches issued again
  logic [PORT_COUNT-1:0]    sch_req_valid, sch_done;
  logic                     sch_req_we;
  logic [31:0]              sch_req_off, sch_req_wdata;
  logic [PORT_COUNT*32-1:0] sch_rdata;

  // ------------------------------------------------------------------ glue clock gate
  // The interface's own small registers (the timestamp stampers, the round robins between the ports'
  // commands and between the TX and RX completions, the answer to reads of the unused RAM region) change
  // only with a handshake or a frame's first or last beat at a port; they share one gate
  // (beryl_clk_gate) that is open in exactly those cycles, so a C++ model evaluates the logic reading
  // them (the TX timestamp waits, the DMA write engine's read path) only then. glue_en is assembled
  // from the terms below.
  logic                  glue_clk;
  logic [PORT_COUNT-1:0] glue_en_tx, glue_en_rx;
  logic                  glue_en;

  beryl_clk_gate u_glue_gate (
    .clk  (clk),
    .en   (glue_en),
    .gclk (glue_clk)
  );

  // ------------------------------------------------------------------ PTP timestamps per port
  // TX: the time (corrected by PORT_TX_TS_CORR) of the cycle a frame's first beat is taken at the port
  // output, i.e. after the scheduler block and TDMA gate, returned to the TX engine with the frame's tag
  // (or, TX_TS_SRC 1, the MAC's time for the tag, corrected). RX: the corrected time of the cycle a
  // frame's first beat appeared (tvalid) on the port, held until the RX engine takes that beat (it serves
  // one port at a time); or, RX_TS_SRC 1, the frame's own time from s_axis_rx_ts, corrected.
  logic [PORT_COUNT*64-1:0] rx_ts;
  logic [PORT_COUNT-1:0]    txs_valid;
  logic [PORT_COUNT*TX_TS_TAG_W-1:0] txs_tag;
  logic [PORT_COUNT*64-1:0] txs_ts;
  logic [PORT_COUNT-1:0]    rxc_mid_q, rxc_hold_q;
  logic [63:0]              rxc_ts_q [PORT_COUNT];
  // The TX engine takes the times returned for its frames' tags (below); its own time input (ptp_ts) is
  // used only without them, so it gets the corrected time only then, not a sum formed in every cycle.
  localparam int            TX_ENG_TS_RET = 1;
  logic [PORT_COUNT*64-1:0] tx_eng_ts;
  logic                     unused_ptp_ts;   // with MAC times for both directions the clock is not read
  assign unused_ptp_ts = ^ptp_ts;
  if (TX_TS_SRC != 0 && TX_TS_SRC != 1) begin : g_chk_ts
    $error("%m: TX_TS_SRC must be 0 (stamped at the port output) or 1 (returned by the MACs)");
  end
  if (RX_TS_SRC != 0 && RX_TS_SRC != 1) begin : g_chk_rx_ts
    $error("%m: RX_TS_SRC must be 0 (stamped at the port input) or 1 (from s_axis_rx_ts)");
  end
  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_ts
    logic [63:0] rx_now;
    if (TX_TS_SRC == 0) begin : g_stamp
      // the port's stamper: one return per frame, the clock after its first beat was taken
      // (tag and corrected time load only for a first beat: they are read only with txs_valid)
      logic txs_mid_q;
      // a frame's first beat (stamp) and last beat (txs_mid_q) change the stamper; the beats between
      // them do not
      assign glue_en_tx[p] = txs_valid[p] || (m_axis_tx_tvalid[p] && m_axis_tx_tready[p] &&
                                              (!txs_mid_q || m_axis_tx_tlast[p]));
      always_ff @(posedge glue_clk) begin
        txs_valid[p] <= m_axis_tx_tvalid[p] && m_axis_tx_tready[p] && !txs_mid_q;
        if (m_axis_tx_tvalid[p] && m_axis_tx_tready[p] && !txs_mid_q) begin
          txs_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W] <= m_axis_tx_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W];
          txs_ts[p*64 +: 64] <= beryl_nic_pkg::ts_add(ptp_ts, port_tx_ts_corr[p*32 +: 32]);
        end
        if (m_axis_tx_tvalid[p] && m_axis_tx_tready[p]) txs_mid_q <= !m_axis_tx_tlast[p];
        if (rst) begin
          txs_valid[p] <= 1'b0;
          txs_mid_q    <= 1'b0;
        end
      end
      // the MAC return inputs exist for a uniform interface; the stamper replaces them
      logic unused_mac;
      assign unused_mac = ^{s_tx_ts_valid[p], s_tx_ts_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W], s_tx_ts[p*64 +: 64]};
    end else begin : g_mac
      assign glue_en_tx[p] = 1'b0;
      assign txs_valid[p] = s_tx_ts_valid[p];
      assign txs_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W] = s_tx_ts_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W];
      assign txs_ts[p*64 +: 64] = beryl_nic_pkg::ts_add(s_tx_ts[p*64 +: 64], port_tx_ts_corr[p*32 +: 32]);
    end
    if (TX_ENG_TS_RET == 0) begin : g_eng_ts
      assign tx_eng_ts[p*64 +: 64] = beryl_nic_pkg::ts_add(ptp_ts, port_tx_ts_corr[p*32 +: 32]);
    end else begin : g_eng_ret
      assign tx_eng_ts[p*64 +: 64] = '0;
    end
    if (RX_TS_SRC == 0) begin : g_rx_stamp
      // the corrected time only with a beat at the port that is not held (the input register and the
      // stamp below read it only then), not in every cycle of the C++ simulator
      always_comb begin
        rx_now = '0;
        if (s_axis_rx_tvalid[p] && !rxc_hold_q[p]) rx_now = beryl_nic_pkg::ts_add(ptp_ts, port_rx_ts_corr[p*32 +: 32]);
      end
      assign rx_ts[p*64 +: 64] = rxc_hold_q[p] ? rxc_ts_q[p] : rx_now;
      // a first beat (taken, or held and stamped) and a last beat taken change the stamper; inside a
      // frame rxc_hold_q is 0 (set only before a first beat) and the beats between change nothing
      assign glue_en_rx[p]     = s_axis_rx_tvalid[p] &&
                                 (!rxc_mid_q[p] || (s_axis_rx_tready[p] && s_axis_rx_tlast[p]));
      always_ff @(posedge glue_clk) begin
        if (s_axis_rx_tvalid[p] && s_axis_rx_tready[p]) begin
          rxc_mid_q[p]  <= !s_axis_rx_tlast[p];
          rxc_hold_q[p] <= 1'b0;
        end else if (s_axis_rx_tvalid[p] && !rxc_mid_q[p] && !rxc_hold_q[p]) begin
          rxc_hold_q[p] <= 1'b1;
          rxc_ts_q[p]   <= rx_now;
        end
        if (rst) begin
          rxc_mid_q[p]  <= 1'b0;
          rxc_hold_q[p] <= 1'b0;
        end
      end
      logic unused_rx_ts;
      assign unused_rx_ts = ^s_axis_rx_ts[p*64 +: 64];
    end else begin : g_rx_mac
      // the source holds the frame's time with its first beat until the RX engine takes it
      assign rx_now            = beryl_nic_pkg::ts_add(s_axis_rx_ts[p*64 +: 64], port_rx_ts_corr[p*32 +: 32]);
      assign rx_ts[p*64 +: 64] = rx_now;
      assign glue_en_rx[p]     = 1'b0;
      assign rxc_mid_q[p]      = 1'b0;
      assign rxc_hold_q[p]     = 1'b0;
      assign rxc_ts_q[p]       = '0;
      logic unused_rxc;       // the port-input stamper's state exists only with RX_TS_SRC 0
      assign unused_rxc = ^{rxc_mid_q[p], rxc_hold_q[p], rxc_ts_q[p]};
    end
  end

  // RX input register: each port's beat (with the time stamped above) is registered before the RX
  // engine sees it (a cycle of latency; the time is taken at the port, so unchanged). The port's ready
  // depends only on this register and the engine, so in the C++ model the RX engine's input logic runs
  // only when the register or the engine is clocked, not whenever another input of the NIC changes.
  logic [PORT_COUNT*DATA_W-1:0]   rxr_tdata;
  logic [PORT_COUNT*DATA_W/8-1:0] rxr_tkeep;
  logic [PORT_COUNT-1:0]          rxr_tvalid, rxr_tready, rxr_tlast, rxr_tuser;
  logic [PORT_COUNT*64-1:0]       rxr_ts;

  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_rxr
    beryl_axis_in_reg #(.DATA_W (DATA_W), .KEEP_W (DATA_W / 8), .USER_W (65)) u_rxr (
      .clk      (clk),
      .rst      (rst),
      .s_tdata  (s_axis_rx_tdata[p*DATA_W +: DATA_W]),
      .s_tkeep  (s_axis_rx_tkeep[p*DATA_W/8 +: DATA_W/8]),
      .s_tlast  (s_axis_rx_tlast[p]),
      .s_tuser  ({rx_ts[p*64 +: 64], s_axis_rx_tuser[p]}),
      .s_tvalid (s_axis_rx_tvalid[p]),
      .s_tready (s_axis_rx_tready[p]),
      .m_tdata  (rxr_tdata[p*DATA_W +: DATA_W]),
      .m_tkeep  (rxr_tkeep[p*DATA_W/8 +: DATA_W/8]),
      .m_tlast  (rxr_tlast[p]),
      .m_tuser  ({rxr_ts[p*64 +: 64], rxr_tuser[p]}),
      .m_tvalid (rxr_tvalid[p]),
      .m_tready (rxr_tready[p])
    );
  end

  beryl_nic_if_regs #(
    .BLOCK_NEXT       (BLOCK_NEXT),
    .IF_INDEX         (IF_INDEX),
    .IF_COUNT         (IF_COUNT),
    .PORT_COUNT       (PORT_COUNT),
    .TXQ_COUNT        (TXQ_COUNT),
    .RXQ_COUNT        (RXQ_COUNT),
    .CQ_COUNT         (CQ_COUNT),
    .EQ_COUNT         (EQ_COUNT),
    .TX_SLOTS         (TX_SLOTS),
    .RX_SLOTS         (RX_SLOTS),
    .MAX_FRAME        (MAX_FRAME),
    .RSS_TABLE_SIZE   (RSS_TABLE_SIZE),
    .DESC_BATCH       (DESC_BATCH),
    .CPL_BATCH        (CPL_BATCH),
    .MAX_DESC_PER_PKT (MAX_DESC_PER_PKT),
    .TX_SCHED         (TX_SCHED),
    .TDMA_SLOTS_MAX   (TDMA_SLOTS_MAX)
  ) u_regs (
    .clk               (clk),
    .rst               (rst),
    .s_axil_awaddr     (s_axil_awaddr),
    .s_axil_awprot     (s_axil_awprot),
    .s_axil_awvalid    (s_axil_awvalid),
    .s_axil_awready    (s_axil_awready),
    .s_axil_wdata      (s_axil_wdata),
    .s_axil_wstrb      (s_axil_wstrb),
    .s_axil_wvalid     (s_axil_wvalid),
    .s_axil_wready     (s_axil_wready),
    .s_axil_bresp      (s_axil_bresp),
    .s_axil_bvalid     (s_axil_bvalid),
    .s_axil_bready     (s_axil_bready),
    .s_axil_araddr     (s_axil_araddr),
    .s_axil_arprot     (s_axil_arprot),
    .s_axil_arvalid    (s_axil_arvalid),
    .s_axil_arready    (s_axil_arready),
    .s_axil_rdata      (s_axil_rdata),
    .s_axil_rresp      (s_axil_rresp),
    .s_axil_rvalid     (s_axil_rvalid),
    .s_axil_rready     (s_axil_rready),
    .db_valid          (db_valid),
    .db_ready          (db_ready),
    .db_qidx           (db_qidx),
    .db_ptr            (db_ptr),
    .db_arm            (db_arm),
    .cfg_req_valid     (cfg_req_valid),
    .cfg_req_ready     (cfg_req_ready),
    .cfg_req_we        (cfg_req_we),
    .cfg_req_qidx      (cfg_req_qidx),
    .cfg_req_field     (cfg_req_field),
    .cfg_req_wdata     (cfg_req_wdata),
    .cfg_rsp_valid     (cfg_rsp_valid),
    .cfg_rsp_rdata     (cfg_rsp_rdata),
    .cfg_rsp_err       (cfg_rsp_err),
    .stat_req_valid    (stat_req_valid),
    .stat_req_ready    (stat_req_ready),
    .stat_req_idx      (stat_req_idx),
    .stat_rsp_valid    (stat_rsp_valid),
    .stat_rsp_data     (stat_rsp_data),
    .rss_enable        (rss_enable),
    .rss_hash_en       (rss_hash_en),
    .rss_default_queue (rss_default_queue),
    .rss_key_wr_en     (rss_key_wr_en),
    .rss_key_wr_addr   (rss_key_wr_addr),
    .rss_key_wr_data   (rss_key_wr_data),
    .rss_tbl_wr_en     (rss_tbl_wr_en),
    .rss_tbl_wr_addr   (rss_tbl_wr_addr),
    .rss_tbl_wr_data   (rss_tbl_wr_data),
    .port_tx_enable    (port_tx_enable),
    .port_tx_ts_corr   (port_tx_ts_corr),
    .port_rx_ts_corr   (port_rx_ts_corr),
    .port_tx_pkts      (port_tx_pkts),
    .port_tx_bytes     (port_tx_bytes),
    .port_rx_pkts      (port_rx_pkts),
    .port_rx_bytes     (port_rx_bytes),
    .port_tx_drops     (port_tx_drops),
    .port_rx_drops     (port_rx_drops),
    .port_tx_ts_mismatch (port_tx_ts_mismatch),
    .port_tx_ts_timeout  (port_tx_ts_timeout),
    .port_tx_ts_spurious (port_tx_ts_spurious),
    .sch_req_valid     (sch_req_valid),
    .sch_req_we        (sch_req_we),
    .sch_req_off       (sch_req_off),
    .sch_req_wdata     (sch_req_wdata),
    .sch_done          (sch_done),
    .sch_rdata         (sch_rdata),
    .tx_desc_retry     (tx_desc_retry),
    .tx_data_retry     (tx_data_retry),
    .rx_desc_retry     (rx_desc_retry),
    .counters          (counters)
  );

  // ------------------------------------------------------------------ queue managers
  // op-port signals per manager: 0 TXQ, 1 RXQ, 2 CQ, 3 EQ
  logic [3:0]  op_req_valid, op_req_ready, op_rsp_valid, op_rsp_ready;
  logic [3:0]  op_rsp_phase, op_rsp_armed, op_rsp_empty;
  logic [4*2-1:0]  op_rsp_status;
  logic [4*64-1:0] op_rsp_addr;
  logic [4*16-1:0] op_rsp_ptr;
  logic [4*32-1:0] op_rsp_target;
  logic [4*8-1:0]  op_rsp_aux;
  logic [4*4-1:0]  op_rsp_log_size;
  logic [4*32-1:0] db_bad_count;

  logic [TXQ_W-1:0] txq_op_req_qidx, txq_op_rsp_qidx, txq_evt_qidx;
  logic [RXQ_W-1:0] rxq_op_req_qidx, rxq_op_rsp_qidx;
  logic [CQ_W-1:0]  cq_op_req_qidx, cq_op_rsp_qidx;
  logic [EQ_W-1:0]  eq_op_req_qidx, eq_op_rsp_qidx;
  logic [TX_CNT_W-1:0]  txq_op_req_count, txq_op_rsp_count;
  logic [3:0]           rxq_op_req_count, rxq_op_rsp_count;
  logic [CPL_CNT_W-1:0] cq_op_req_count, cq_op_rsp_count, eq_op_req_count, eq_op_rsp_count;
  logic       txq_evt_valid, txq_evt_ready;
  logic [7:0] txq_evt_aux;

  // the four instances differ in widths only; spelled out for the port widths
  /* verilator lint_off PINCONNECTEMPTY */
  beryl_nic_queue_mgr #(.MODE(0), .QUEUE_COUNT(TXQ_COUNT), .CNT_W(TX_CNT_W), .ENTRY_LOG2(4)) u_txq_mgr (
    .clk (clk), .rst (rst),
    .cfg_req_valid (cfg_req_valid[0]), .cfg_req_ready (cfg_req_ready[0]), .cfg_req_we (cfg_req_we),
    .cfg_req_qidx (cfg_req_qidx[TXQ_W-1:0]), .cfg_req_field (cfg_req_field), .cfg_req_wdata (cfg_req_wdata),
    .cfg_rsp_valid (cfg_rsp_valid[0]), .cfg_rsp_rdata (cfg_rsp_rdata[0 +: 32]), .cfg_rsp_err (cfg_rsp_err[0]),
    .db_valid (db_valid[0]), .db_ready (db_ready[0]), .db_qidx (db_qidx[TXQ_W-1:0]), .db_ptr (db_ptr),
    .db_arm (db_arm),
    .db_evt_valid (txq_evt_valid), .db_evt_ready (txq_evt_ready), .db_evt_qidx (txq_evt_qidx),
    .db_evt_aux (txq_evt_aux),
    .op_req_valid (op_req_valid[0]), .op_req_ready (op_req_ready[0]), .op_req_qidx (txq_op_req_qidx),
    .op_req_count (txq_op_req_count),
    .op_rsp_valid (op_rsp_valid[0]), .op_rsp_ready (op_rsp_ready[0]), .op_rsp_qidx (txq_op_rsp_qidx),
    .op_rsp_status (op_rsp_status[0 +: 2]), .op_rsp_addr (op_rsp_addr[0 +: 64]), .op_rsp_ptr (op_rsp_ptr[0 +: 16]),
    .op_rsp_count (txq_op_rsp_count), .op_rsp_phase (op_rsp_phase[0]), .op_rsp_armed (op_rsp_armed[0]),
    .op_rsp_target (op_rsp_target[0 +: 32]), .op_rsp_aux (op_rsp_aux[0 +: 8]),
    .op_rsp_log_size (op_rsp_log_size[0 +: 4]), .op_rsp_empty (op_rsp_empty[0]),
    .db_bad_count (db_bad_count[0 +: 32])
  );

  beryl_nic_queue_mgr #(.MODE(0), .QUEUE_COUNT(RXQ_COUNT), .CNT_W(4), .ENTRY_LOG2(4)) u_rxq_mgr (
    .clk (clk), .rst (rst),
    .cfg_req_valid (cfg_req_valid[1]), .cfg_req_ready (cfg_req_ready[1]), .cfg_req_we (cfg_req_we),
    .cfg_req_qidx (cfg_req_qidx[RXQ_W-1:0]), .cfg_req_field (cfg_req_field), .cfg_req_wdata (cfg_req_wdata),
    .cfg_rsp_valid (cfg_rsp_valid[1]), .cfg_rsp_rdata (cfg_rsp_rdata[32 +: 32]), .cfg_rsp_err (cfg_rsp_err[1]),
    .db_valid (db_valid[1]), .db_ready (db_ready[1]), .db_qidx (db_qidx[RXQ_W-1:0]), .db_ptr (db_ptr),
    .db_arm (db_arm),
    .db_evt_valid (), .db_evt_ready (1'b1), .db_evt_qidx (), .db_evt_aux (),
    .op_req_valid (op_req_valid[1]), .op_req_ready (op_req_ready[1]), .op_req_qidx (rxq_op_req_qidx),
    .op_req_count (rxq_op_req_count),
    .op_rsp_valid (op_rsp_valid[1]), .op_rsp_ready (op_rsp_ready[1]), .op_rsp_qidx (rxq_op_rsp_qidx),
    .op_rsp_status (op_rsp_status[2 +: 2]), .op_rsp_addr (op_rsp_addr[64 +: 64]), .op_rsp_ptr (op_rsp_ptr[16 +: 16]),
    .op_rsp_count (rxq_op_rsp_count), .op_rsp_phase (op_rsp_phase[1]), .op_rsp_armed (op_rsp_armed[1]),
    .op_rsp_target (op_rsp_target[32 +: 32]), .op_rsp_aux (op_rsp_aux[8 +: 8]),
    .op_rsp_log_size (op_rsp_log_size[4 +: 4]), .op_rsp_empty (op_rsp_empty[1]),
    .db_bad_count (db_bad_count[32 +: 32])
  );

  beryl_nic_queue_mgr #(.MODE(1), .QUEUE_COUNT(CQ_COUNT), .CNT_W(CPL_CNT_W), .ENTRY_LOG2(5)) u_cq_mgr (
    .clk (clk), .rst (rst),
    .cfg_req_valid (cfg_req_valid[2]), .cfg_req_ready (cfg_req_ready[2]), .cfg_req_we (cfg_req_we),
    .cfg_req_qidx (cfg_req_qidx[CQ_W-1:0]), .cfg_req_field (cfg_req_field), .cfg_req_wdata (cfg_req_wdata),
    .cfg_rsp_valid (cfg_rsp_valid[2]), .cfg_rsp_rdata (cfg_rsp_rdata[64 +: 32]), .cfg_rsp_err (cfg_rsp_err[2]),
    .db_valid (db_valid[2]), .db_ready (db_ready[2]), .db_qidx (db_qidx[CQ_W-1:0]), .db_ptr (db_ptr),
    .db_arm (db_arm),
    .db_evt_valid (), .db_evt_ready (1'b1), .db_evt_qidx (), .db_evt_aux (),
    .op_req_valid (op_req_valid[2]), .op_req_ready (op_req_ready[2]), .op_req_qidx (cq_op_req_qidx),
    .op_req_count (cq_op_req_count),
    .op_rsp_valid (op_rsp_valid[2]), .op_rsp_ready (op_rsp_ready[2]), .op_rsp_qidx (cq_op_rsp_qidx),
    .op_rsp_status (op_rsp_status[4 +: 2]), .op_rsp_addr (op_rsp_addr[128 +: 64]), .op_rsp_ptr (op_rsp_ptr[32 +: 16]),
    .op_rsp_count (cq_op_rsp_count), .op_rsp_phase (op_rsp_phase[2]), .op_rsp_armed (op_rsp_armed[2]),
    .op_rsp_target (op_rsp_target[64 +: 32]), .op_rsp_aux (op_rsp_aux[16 +: 8]),
    .op_rsp_log_size (op_rsp_log_size[8 +: 4]), .op_rsp_empty (op_rsp_empty[2]),
    .db_bad_count (db_bad_count[64 +: 32])
  );

  beryl_nic_queue_mgr #(.MODE(1), .QUEUE_COUNT(EQ_COUNT), .CNT_W(CPL_CNT_W), .ENTRY_LOG2(5)) u_eq_mgr (
    .clk (clk), .rst (rst),
    .cfg_req_valid (cfg_req_valid[3]), .cfg_req_ready (cfg_req_ready[3]), .cfg_req_we (cfg_req_we),
    .cfg_req_qidx (cfg_req_qidx[EQ_W-1:0]), .cfg_req_field (cfg_req_field), .cfg_req_wdata (cfg_req_wdata),
    .cfg_rsp_valid (cfg_rsp_valid[3]), .cfg_rsp_rdata (cfg_rsp_rdata[96 +: 32]), .cfg_rsp_err (cfg_rsp_err[3]),
    .db_valid (db_valid[3]), .db_ready (db_ready[3]), .db_qidx (db_qidx[EQ_W-1:0]), .db_ptr (db_ptr),
    .db_arm (db_arm),
    .db_evt_valid (), .db_evt_ready (1'b1), .db_evt_qidx (), .db_evt_aux (),
    .op_req_valid (op_req_valid[3]), .op_req_ready (op_req_ready[3]), .op_req_qidx (eq_op_req_qidx),
    .op_req_count (eq_op_req_count),
    .op_rsp_valid (op_rsp_valid[3]), .op_rsp_ready (op_rsp_ready[3]), .op_rsp_qidx (eq_op_rsp_qidx),
    .op_rsp_status (op_rsp_status[6 +: 2]), .op_rsp_addr (op_rsp_addr[192 +: 64]), .op_rsp_ptr (op_rsp_ptr[48 +: 16]),
    .op_rsp_count (eq_op_rsp_count), .op_rsp_phase (op_rsp_phase[3]), .op_rsp_armed (op_rsp_armed[3]),
    .op_rsp_target (op_rsp_target[96 +: 32]), .op_rsp_aux (op_rsp_aux[24 +: 8]),
    .op_rsp_log_size (op_rsp_log_size[12 +: 4]), .op_rsp_empty (op_rsp_empty[3]),
    .db_bad_count (db_bad_count[96 +: 32])
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ------------------------------------------------------------------ schedulers (one per port)
  logic [PORT_COUNT-1:0]       sch_evt_valid, sch_evt_ready, sch_cmd_valid, sch_cmd_ready, sch_sts_valid;
  logic [PORT_COUNT*TXQ_W-1:0] sch_cmd_qidx;
  logic [PSEL_W-1:0]           evt_port;

  // a doorbell goes to the scheduler of the queue's port (an out-of-range port to port 0, where
  // the TX engine then refuses the packets as bad descriptors)
  assign evt_port = (32'(txq_evt_aux) < 32'(PORT_COUNT)) ? PSEL_W'(txq_evt_aux) : '0;
  always_comb begin
    sch_evt_valid = '0;
    sch_evt_valid[evt_port] = txq_evt_valid;
  end
  assign txq_evt_ready = sch_evt_ready[evt_port];

  logic              tx_cmd_valid, tx_cmd_ready;
  logic [TXQ_W-1:0]  tx_cmd_qidx;
  logic [PSEL_W-1:0] tx_cmd_port;
  logic              tx_sts_valid;
  logic [PSEL_W-1:0] tx_sts_port;
  logic [TXQ_W-1:0]  tx_sts_qidx;
  logic [1:0]        tx_sts_result;
  logic [7:0]        tx_sts_pkts;
  logic [31:0]       tx_sts_bytes;

  // the TX engine's port streams, before each port's scheduler block (the TDMA gate sits on them)
  logic [PORT_COUNT*DATA_W-1:0]   e_tdata;
  logic [PORT_COUNT*DATA_W/8-1:0] e_tkeep;
  logic [PORT_COUNT-1:0]          e_tvalid, e_tready, e_tlast;
  logic [PORT_COUNT*16-1:0]       e_len;
  logic [PORT_COUNT*TXQ_W-1:0]    e_qidx;
  logic [PORT_COUNT*TX_TS_TAG_W-1:0] e_tag;

  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_sched
    assign sch_sts_valid[p] = tx_sts_valid && (tx_sts_port == PSEL_W'(p));
    beryl_nic_port_sched #(
      .SCHED_TYPE  (TX_SCHED),
      .QUEUE_COUNT (TXQ_COUNT),
      .MAX_CMDS    (SCHED_CMDS),
      .SLOTS_MAX   (TDMA_SLOTS_MAX),
      .PARK_BEATS  (TDMA_PARK_BEATS),
      .DATA_W      (DATA_W),
      .TS_TAG_W    (TX_TS_TAG_W)
    ) u_sched (
      .clk           (clk),
      .rst           (rst),
      .reg_valid     (sch_req_valid[p]),
      .reg_we        (sch_req_we),
      .reg_off       (sch_req_off),
      .reg_wdata     (sch_req_wdata),
      .reg_done      (sch_done[p]),
      .reg_rdata     (sch_rdata[p*32 +: 32]),
      .db_evt_valid  (sch_evt_valid[p]),
      .db_evt_ready  (sch_evt_ready[p]),
      .db_evt_qidx   (txq_evt_qidx),
      .tx_cmd_valid  (sch_cmd_valid[p]),
      .tx_cmd_ready  (sch_cmd_ready[p]),
      .tx_cmd_qidx   (sch_cmd_qidx[p*TXQ_W +: TXQ_W]),
      .tx_sts_valid  (sch_sts_valid[p]),
      .tx_sts_qidx   (tx_sts_qidx),
      .tx_sts_result (tx_sts_result),
      .tx_sts_pkts   (tx_sts_pkts),
      .tx_sts_bytes  (tx_sts_bytes),
      .sched_enable  (port_tx_enable[p]),
      .tod           (ptp_tod),
      .tod_step      (ptp_tod_step),
      .s_axis_tdata  (e_tdata[p*DATA_W +: DATA_W]),
      .s_axis_tkeep  (e_tkeep[p*DATA_W/8 +: DATA_W/8]),
      .s_axis_tvalid (e_tvalid[p]),
      .s_axis_tready (e_tready[p]),
      .s_axis_tlast  (e_tlast[p]),
      .s_axis_len    (e_len[p*16 +: 16]),
      .s_axis_qidx   (e_qidx[p*TXQ_W +: TXQ_W]),
      .s_axis_tag    (e_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W]),
      .m_axis_tdata  (m_axis_tx_tdata[p*DATA_W +: DATA_W]),
      .m_axis_tkeep  (m_axis_tx_tkeep[p*DATA_W/8 +: DATA_W/8]),
      .m_axis_tvalid (m_axis_tx_tvalid[p]),
      .m_axis_tready (m_axis_tx_tready[p]),
      .m_axis_tlast  (m_axis_tx_tlast[p]),
      .m_axis_tag    (m_axis_tx_tag[p*TX_TS_TAG_W +: TX_TS_TAG_W])
    );
  end

  // round-robin among the ports' commands
  logic [PSEL_W-1:0] cmd_last_q, cmd_sel;
  logic              cmd_any;
  always_comb begin
    cmd_sel = cmd_last_q;
    cmd_any = 1'b0;
    for (int k = 1; k <= PORT_COUNT; k++) begin
      if (!cmd_any && sch_cmd_valid[(32'(cmd_last_q) + 32'(k)) % PORT_COUNT]) begin
        cmd_sel = PSEL_W'((32'(cmd_last_q) + 32'(k)) % PORT_COUNT);
        cmd_any = 1'b1;
      end
    end
  end
  assign tx_cmd_valid = cmd_any;
  assign tx_cmd_qidx  = sch_cmd_qidx[cmd_sel*TXQ_W +: TXQ_W];
  assign tx_cmd_port  = cmd_sel;
  always_comb begin
    sch_cmd_ready = '0;
    sch_cmd_ready[cmd_sel] = cmd_any && tx_cmd_ready;
  end
  always_ff @(posedge glue_clk) begin
    if (tx_cmd_valid && tx_cmd_ready) cmd_last_q <= cmd_sel;
    if (rst) cmd_last_q <= '0;
  end

  // ------------------------------------------------------------------ TX engine
  // DMA clients: read channel 0 = TX engine, 1 = RX engine (descriptors);
  //              write channel 0 = RX engine (frames), 1 = CQ writer, 2 = EQ writer
  logic [2*64-1:0]         c_rd_host_addr;
  logic [2*RAM_ADDR_W-1:0] c_rd_ram_addr;
  logic [2*LEN_W-1:0]      c_rd_len;
  logic [2*CTAG_W-1:0]     c_rd_tag;
  logic [1:0]              c_rd_valid, c_rd_ready, c_rd_sts_valid;
  logic [2*CTAG_W-1:0]     c_rd_sts_tag;
  logic [2*4-1:0]          c_rd_sts_error;
  logic [3*64-1:0]         c_wr_host_addr;
  logic [3*RAM_ADDR_W-1:0] c_wr_ram_addr;
  logic [3*LEN_W-1:0]      c_wr_len;
  logic [3*CTAG_W-1:0]     c_wr_tag;
  logic [2:0]              c_wr_valid, c_wr_ready, c_wr_sts_valid;
  logic [3*CTAG_W-1:0]     c_wr_sts_tag;
  logic [3*4-1:0]          c_wr_sts_error;

  // RAM ports per region (client side): write demux -> TX engine (0), RX engine (1)
  logic [4*2*CSEG_W-1:0] r_wr_addr;
  logic [4*2*64-1:0]     r_wr_be;
  logic [4*2*512-1:0]    r_wr_data;
  logic [4*2-1:0]        r_wr_valid, r_wr_ready;
  // read demux <- RX engine (0), CQ writer (1), EQ writer (2)
  logic [4*2*CSEG_W-1:0] r_rd_addr;
  logic [4*2-1:0]        r_rd_valid, r_rd_ready, r_rd_resp_valid, r_rd_resp_ready;
  // the clients' read data, each a variable of its own (the demux selects none: see below)
  logic [2*512-1:0]      rx_rd_resp_data, cq_rd_resp_data, eq_rd_resp_data;
  logic [1:0]            rd_resp_any;
  logic [2*2-1:0]        rd_resp_sel;

  logic [CTAG_W:0]   rd_tag_m;
  logic [CTAG_W+1:0] wr_tag_m2;
  logic [REGION_W-1:0] tx_rd_ram_addr;
  logic [RX_RAM_W-1:0] rx_rd_ram_addr, rx_wr_ram_addr;
  logic [CW_RAM_ADDR_W-1:0] cq_wr_ram_addr, eq_wr_ram_addr;

  logic              tcpl_valid, tcpl_ready, rcpl_valid, rcpl_ready;
  logic [15:0]       tcpl_qidx, rcpl_qidx;
  logic [255:0]      tcpl_data, rcpl_data;
  logic              tstat_valid, tstat_drop, rstat_valid, rstat_drop;
  logic [TXQ_W-1:0]  tstat_qidx;
  logic [RXQ_W-1:0]  rstat_qidx;
  logic [15:0]       tstat_bytes, rstat_bytes;
  logic [31:0]       tx_pkt_count, tx_byte_count, tx_bad_desc_count, tx_dma_err_count;
  logic [9*32-1:0]   rx_counts;

  beryl_nic_tx_engine #(
    .PORT_COUNT       (PORT_COUNT),
    .QI_W             (TXQ_W),
    .PKT_SLOTS        (TX_SLOTS),
    .SLOT_BYTES       (MAX_FRAME),
    .DESC_BATCH       (DESC_BATCH),
    .BATCH_SLOTS      (TX_BATCH_SLOTS),
    .MAX_DESC_PER_PKT (MAX_DESC_PER_PKT),
    .LEN_W            (LEN_W),
    .TAG_W            (CTAG_W),
    .RAM_ADDR_W       (REGION_W),
    .TS_RET_EN        (TX_ENG_TS_RET),
    .TS_TAG_W         (TX_TS_TAG_W),
    .TS_WAIT_DEPTH    (TX_TS_WAIT_DEPTH),
    // the TDMA gate's park buffer lets a port's frames pass each other: their times come back out of order
    .TS_RET_ORDERED   ((TX_SCHED == 2) ? 0 : 1)
  ) u_tx (
    .clk                  (clk),
    .rst                  (rst),
    .tx_cmd_valid         (tx_cmd_valid),
    .tx_cmd_ready         (tx_cmd_ready),
    .tx_cmd_qidx          (tx_cmd_qidx),
    .tx_cmd_port          (tx_cmd_port),
    .tx_sts_valid         (tx_sts_valid),
    .tx_sts_port          (tx_sts_port),
    .tx_sts_qidx          (tx_sts_qidx),
    .tx_sts_result        (tx_sts_result),
    .tx_sts_pkts          (tx_sts_pkts),
    .tx_sts_bytes         (tx_sts_bytes),
    .op_req_valid         (op_req_valid[0]),
    .op_req_ready         (op_req_ready[0]),
    .op_req_qidx          (txq_op_req_qidx),
    .op_req_count         (txq_op_req_count),
    .op_rsp_valid         (op_rsp_valid[0]),
    .op_rsp_ready         (op_rsp_ready[0]),
    .op_rsp_qidx          (txq_op_rsp_qidx),
    .op_rsp_status        (op_rsp_status[0 +: 2]),
    .op_rsp_addr          (op_rsp_addr[0 +: 64]),
    .op_rsp_ptr           (op_rsp_ptr[0 +: 16]),
    .op_rsp_count         (txq_op_rsp_count),
    .op_rsp_target        (op_rsp_target[0 +: 32]),
    .op_rsp_aux           (op_rsp_aux[0 +: 8]),
    .op_rsp_empty         (op_rsp_empty[0]),
    .op_rsp_phase         (op_rsp_phase[0]),
    .op_rsp_armed         (op_rsp_armed[0]),
    .op_rsp_log_size      (op_rsp_log_size[0 +: 4]),
    .rd_desc_host_addr    (c_rd_host_addr[0 +: 64]),
    .rd_desc_ram_addr     (tx_rd_ram_addr),
    .rd_desc_len          (c_rd_len[0 +: LEN_W]),
    .rd_desc_tag          (c_rd_tag[0 +: CTAG_W]),
    .rd_desc_valid        (c_rd_valid[0]),
    .rd_desc_ready        (c_rd_ready[0]),
    .rd_desc_status_tag   (c_rd_sts_tag[0 +: CTAG_W]),
    .rd_desc_status_error (c_rd_sts_error[0 +: 4]),
    .rd_desc_status_valid (c_rd_sts_valid[0]),
    .ram_wr_cmd_addr      (r_wr_addr[0 +: 2*CSEG_W]),
    .ram_wr_cmd_be        (r_wr_be[0 +: 128]),
    .ram_wr_cmd_data      (r_wr_data[0 +: 1024]),
    .ram_wr_cmd_valid     (r_wr_valid[0 +: 2]),
    .ram_wr_cmd_ready     (r_wr_ready[0 +: 2]),
    .m_axis_tx_tdata      (e_tdata),
    .m_axis_tx_tkeep      (e_tkeep),
    .m_axis_tx_tvalid     (e_tvalid),
    .m_axis_tx_tready     (e_tready),
    .m_axis_tx_tlast      (e_tlast),
    .m_axis_tx_len        (e_len),
    .m_axis_tx_qidx       (e_qidx),
    .m_axis_tx_tag        (e_tag),
    .ptp_ts               (tx_eng_ts),
    .s_tx_ts_valid        (txs_valid),
    .s_tx_ts_tag          (txs_tag),
    .s_tx_ts              (txs_ts),
    .ts_timeout           (32'(TX_TS_TIMEOUT)),
    .cpl_valid            (tcpl_valid),
    .cpl_ready            (tcpl_ready),
    .cpl_qidx             (tcpl_qidx),
    .cpl_data             (tcpl_data),
    .stat_valid           (tstat_valid),
    .stat_qidx            (tstat_qidx),
    .stat_bytes           (tstat_bytes),
    .stat_drop            (tstat_drop),
    .pkt_count            (tx_pkt_count),
    .byte_count           (tx_byte_count),
    .bad_desc_count       (tx_bad_desc_count),
    .dma_err_count        (tx_dma_err_count),
    .desc_retry_count     (tx_desc_retry),
    .data_retry_count     (tx_data_retry),
    .port_pkt_count       (port_tx_pkts),
    .port_byte_count      (port_tx_bytes),
    .port_drop_count      (port_tx_drops),
    .port_ts_mismatch_count (port_tx_ts_mismatch),
    .port_ts_timeout_count  (port_tx_ts_timeout),
    .port_ts_spurious_count (port_tx_ts_spurious)
  );
  assign c_rd_ram_addr[0 +: RAM_ADDR_W] = {2'd0, tx_rd_ram_addr};

  // ------------------------------------------------------------------ RX engine
  beryl_nic_rx_engine #(
    .PORT_COUNT      (PORT_COUNT),
    .QI_W            (RXQ_W),
    .SLOTS           (RX_SLOTS),
    .SLOT_BYTES      (MAX_FRAME),
    .RSS_TABLE_DEPTH (RSS_TABLE_SIZE),
    .CNT_W           (4),
    .LEN_W           (LEN_W),
    .TAG_W           (CTAG_W),
    .RAM_ADDR_W      (RX_RAM_W)
  ) u_rx (
    .clk                  (clk),
    .rst                  (rst),
    .s_axis_rx_tdata      (rxr_tdata),
    .s_axis_rx_tkeep      (rxr_tkeep),
    .s_axis_rx_tvalid     (rxr_tvalid),
    .s_axis_rx_tready     (rxr_tready),
    .s_axis_rx_tlast      (rxr_tlast),
    .s_axis_rx_tuser      (rxr_tuser),
    .s_axis_rx_ts         (rxr_ts),
    .rss_enable           (rss_enable),
    .default_queue        (rss_default_queue),
    .rss_hash_en          (rss_hash_en),
    .rss_key_wr_en        (rss_key_wr_en),
    .rss_key_wr_addr      (rss_key_wr_addr),
    .rss_key_wr_data      (rss_key_wr_data),
    .rss_tbl_wr_en        (rss_tbl_wr_en),
    .rss_tbl_wr_addr      (rss_tbl_wr_addr),
    .rss_tbl_wr_data      (rss_tbl_wr_data),
    .flush_valid          (cfg_req_valid[1] && cfg_req_ready[1] && cfg_req_we),
    .flush_qidx           (cfg_req_qidx[RXQ_W-1:0]),
    .op_req_valid         (op_req_valid[1]),
    .op_req_ready         (op_req_ready[1]),
    .op_req_qidx          (rxq_op_req_qidx),
    .op_req_count         (rxq_op_req_count),
    .op_rsp_valid         (op_rsp_valid[1]),
    .op_rsp_ready         (op_rsp_ready[1]),
    .op_rsp_qidx          (rxq_op_rsp_qidx),
    .op_rsp_status        (op_rsp_status[2 +: 2]),
    .op_rsp_addr          (op_rsp_addr[64 +: 64]),
    .op_rsp_ptr           (op_rsp_ptr[16 +: 16]),
    .op_rsp_count         (rxq_op_rsp_count),
    .op_rsp_target        (op_rsp_target[32 +: 32]),
    .rd_desc_host_addr    (c_rd_host_addr[64 +: 64]),
    .rd_desc_ram_addr     (rx_rd_ram_addr),
    .rd_desc_len          (c_rd_len[LEN_W +: LEN_W]),
    .rd_desc_tag          (c_rd_tag[CTAG_W +: CTAG_W]),
    .rd_desc_valid        (c_rd_valid[1]),
    .rd_desc_ready        (c_rd_ready[1]),
    .rd_desc_status_tag   (c_rd_sts_tag[CTAG_W +: CTAG_W]),
    .rd_desc_status_error (c_rd_sts_error[4 +: 4]),
    .rd_desc_status_valid (c_rd_sts_valid[1]),
    .ram_wr_cmd_addr      (rx_row_addr(r_wr_addr[2*CSEG_W +: 2*CSEG_W])),
    .ram_wr_cmd_be        (r_wr_be[128 +: 128]),
    .ram_wr_cmd_data      (r_wr_data[1024 +: 1024]),
    .ram_wr_cmd_valid     (r_wr_valid[2 +: 2]),
    .ram_wr_cmd_ready     (r_wr_ready[2 +: 2]),
    .wr_desc_host_addr    (c_wr_host_addr[0 +: 64]),
    .wr_desc_ram_addr     (rx_wr_ram_addr),
    .wr_desc_len          (c_wr_len[0 +: LEN_W]),
    .wr_desc_tag          (c_wr_tag[0 +: CTAG_W]),
    .wr_desc_valid        (c_wr_valid[0]),
    .wr_desc_ready        (c_wr_ready[0]),
    .wr_desc_status_tag   (c_wr_sts_tag[0 +: CTAG_W]),
    .wr_desc_status_error (c_wr_sts_error[0 +: 4]),
    .wr_desc_status_valid (c_wr_sts_valid[0]),
    .ram_rd_cmd_addr      (rx_row_addr(r_rd_addr[0 +: 2*CSEG_W])),
    .ram_rd_cmd_valid     (r_rd_valid[0 +: 2]),
    .ram_rd_cmd_ready     (r_rd_ready[0 +: 2]),
    .ram_rd_resp_data     (rx_rd_resp_data),
    .ram_rd_resp_valid    (r_rd_resp_valid[0 +: 2]),
    .ram_rd_resp_ready    (r_rd_resp_ready[0 +: 2]),
    .cpl_valid            (rcpl_valid),
    .cpl_ready            (rcpl_ready),
    .cpl_qidx             (rcpl_qidx),
    .cpl_data             (rcpl_data),
    .stat_valid           (rstat_valid),
    .stat_qidx            (rstat_qidx),
    .stat_bytes           (rstat_bytes),
    .stat_drop            (rstat_drop),
    .pkt_count            (rx_counts[0*32 +: 32]),
    .byte_count           (rx_counts[1*32 +: 32]),
    .drop_no_desc_count   (rx_counts[2*32 +: 32]),
    .drop_disabled_count  (rx_counts[3*32 +: 32]),
    .drop_too_long_count  (rx_counts[4*32 +: 32]),
    .drop_no_slot_count   (rx_counts[5*32 +: 32]),
    .drop_oversize_count  (rx_counts[6*32 +: 32]),
    .drop_mac_err_count   (rx_counts[7*32 +: 32]),
    .dma_err_count        (rx_counts[8*32 +: 32]),
    .desc_retry_count     (rx_desc_retry),
    .port_pkt_count       (port_rx_pkts),
    .port_byte_count      (port_rx_bytes),
    .port_drop_count      (port_rx_drops)
  );
  assign c_rd_ram_addr[RAM_ADDR_W +: RAM_ADDR_W] = {2'd1, REGION_W'(rx_rd_ram_addr)};
  assign c_wr_ram_addr[0 +: RAM_ADDR_W]          = {2'd0, REGION_W'(rx_wr_ram_addr)};

  // ------------------------------------------------------------------ completions and events
  // TX and RX completions share the CQ writer: round robin between the two engines
  logic        cpl_valid, cpl_ready, cpl_last_rx_q, cpl_pick_rx;
  logic [15:0] cpl_qidx;
  logic [255:0] cpl_data;
  assign cpl_pick_rx = rcpl_valid && (!tcpl_valid || !cpl_last_rx_q);
  assign cpl_valid   = tcpl_valid || rcpl_valid;
  assign cpl_qidx    = cpl_pick_rx ? rcpl_qidx : tcpl_qidx;
  assign cpl_data    = cpl_pick_rx ? rcpl_data : tcpl_data;
  assign tcpl_ready  = cpl_ready && !cpl_pick_rx;
  assign rcpl_ready  = cpl_ready && cpl_pick_rx;
  always_ff @(posedge glue_clk) begin
    if (cpl_valid && cpl_ready) cpl_last_rx_q <= cpl_pick_rx;
    if (rst) cpl_last_rx_q <= 1'b0;
  end

  logic             cevt_valid, cevt_ready, eevt_valid, eevt_ready;
  logic [31:0]      cevt_target, eevt_target;
  logic [CQ_W-1:0]  cevt_source;
  logic [EQ_W-1:0]  eevt_source;
  logic [31:0]      cq_drop_full, cq_drop_dis, cq_dma_err, eq_drop_full, eq_drop_dis, eq_dma_err;
  logic [255:0]     evt_entry;

  beryl_nic_cpl_write #(
    .QI_W       (CQ_W),
    .BATCH      (CPL_BATCH),
    .RAM_ADDR_W (CW_RAM_ADDR_W),
    .LEN_W      (LEN_W),
    .TAG_W      (CTAG_W)
  ) u_cq_wr (
    .clk                  (clk),
    .rst                  (rst),
    .cpl_valid            (cpl_valid),
    .cpl_ready            (cpl_ready),
    .cpl_qidx             (cpl_qidx[CQ_W-1:0]),
    .cpl_data             (cpl_data),
    .op_req_valid         (op_req_valid[2]),
    .op_req_ready         (op_req_ready[2]),
    .op_req_qidx          (cq_op_req_qidx),
    .op_req_count         (cq_op_req_count),
    .op_rsp_valid         (op_rsp_valid[2]),
    .op_rsp_ready         (op_rsp_ready[2]),
    .op_rsp_qidx          (cq_op_rsp_qidx),
    .op_rsp_status        (op_rsp_status[4 +: 2]),
    .op_rsp_addr          (op_rsp_addr[128 +: 64]),
    .op_rsp_ptr           (op_rsp_ptr[32 +: 16]),
    .op_rsp_count         (cq_op_rsp_count),
    .op_rsp_phase         (op_rsp_phase[2]),
    .op_rsp_armed         (op_rsp_armed[2]),
    .op_rsp_target        (op_rsp_target[64 +: 32]),
    .wr_desc_host_addr    (c_wr_host_addr[64 +: 64]),
    .wr_desc_ram_addr     (cq_wr_ram_addr),
    .wr_desc_len          (c_wr_len[LEN_W +: LEN_W]),
    .wr_desc_tag          (c_wr_tag[CTAG_W +: CTAG_W]),
    .wr_desc_valid        (c_wr_valid[1]),
    .wr_desc_ready        (c_wr_ready[1]),
    .wr_desc_status_tag   (c_wr_sts_tag[CTAG_W +: CTAG_W]),
    .wr_desc_status_error (c_wr_sts_error[4 +: 4]),
    .wr_desc_status_valid (c_wr_sts_valid[1]),
    .ram_rd_cmd_addr      (cw_rd_addr(r_rd_addr[2*CSEG_W +: 2*CSEG_W])),
    .ram_rd_cmd_valid     (r_rd_valid[2 +: 2]),
    .ram_rd_cmd_ready     (r_rd_ready[2 +: 2]),
    .ram_rd_resp_data     (cq_rd_resp_data),
    .ram_rd_resp_valid    (r_rd_resp_valid[2 +: 2]),
    .ram_rd_resp_ready    (r_rd_resp_ready[2 +: 2]),
    .evt_valid            (cevt_valid),
    .evt_ready            (cevt_ready),
    .evt_target           (cevt_target),
    .evt_source           (cevt_source),
    .drop_full_count      (cq_drop_full),
    .drop_disabled_count  (cq_drop_dis),
    .dma_err_count        (cq_dma_err)
  );
  assign c_wr_ram_addr[RAM_ADDR_W +: RAM_ADDR_W] =
      RAM_ADDR_W'({2'd1, {(REGION_W - CW_RAM_ADDR_W){1'b0}}, cq_wr_ram_addr});

  // a completion queue's event: evt_t {type EVT_CPL, source = the CQ}, phase set by the writer
  assign evt_entry = {224'd0, 16'(cevt_source), beryl_nic_pkg::EVT_CPL};

  beryl_nic_cpl_write #(
    .QI_W       (EQ_W),
    .BATCH      (CPL_BATCH),
    .RAM_ADDR_W (CW_RAM_ADDR_W),
    .LEN_W      (LEN_W),
    .TAG_W      (CTAG_W)
  ) u_eq_wr (
    .clk                  (clk),
    .rst                  (rst),
    .cpl_valid            (cevt_valid),
    .cpl_ready            (cevt_ready),
    .cpl_qidx             (cevt_target[EQ_W-1:0]),
    .cpl_data             (evt_entry),
    .op_req_valid         (op_req_valid[3]),
    .op_req_ready         (op_req_ready[3]),
    .op_req_qidx          (eq_op_req_qidx),
    .op_req_count         (eq_op_req_count),
    .op_rsp_valid         (op_rsp_valid[3]),
    .op_rsp_ready         (op_rsp_ready[3]),
    .op_rsp_qidx          (eq_op_rsp_qidx),
    .op_rsp_status        (op_rsp_status[6 +: 2]),
    .op_rsp_addr          (op_rsp_addr[192 +: 64]),
    .op_rsp_ptr           (op_rsp_ptr[48 +: 16]),
    .op_rsp_count         (eq_op_rsp_count),
    .op_rsp_phase         (op_rsp_phase[3]),
    .op_rsp_armed         (op_rsp_armed[3]),
    .op_rsp_target        (op_rsp_target[96 +: 32]),
    .wr_desc_host_addr    (c_wr_host_addr[128 +: 64]),
    .wr_desc_ram_addr     (eq_wr_ram_addr),
    .wr_desc_len          (c_wr_len[2*LEN_W +: LEN_W]),
    .wr_desc_tag          (c_wr_tag[2*CTAG_W +: CTAG_W]),
    .wr_desc_valid        (c_wr_valid[2]),
    .wr_desc_ready        (c_wr_ready[2]),
    .wr_desc_status_tag   (c_wr_sts_tag[2*CTAG_W +: CTAG_W]),
    .wr_desc_status_error (c_wr_sts_error[8 +: 4]),
    .wr_desc_status_valid (c_wr_sts_valid[2]),
    .ram_rd_cmd_addr      (cw_rd_addr(r_rd_addr[4*CSEG_W +: 2*CSEG_W])),
    .ram_rd_cmd_valid     (r_rd_valid[4 +: 2]),
    .ram_rd_cmd_ready     (r_rd_ready[4 +: 2]),
    .ram_rd_resp_data     (eq_rd_resp_data),
    .ram_rd_resp_valid    (r_rd_resp_valid[4 +: 2]),
    .ram_rd_resp_ready    (r_rd_resp_ready[4 +: 2]),
    .evt_valid            (eevt_valid),
    .evt_ready            (eevt_ready),
    .evt_target           (eevt_target),
    .evt_source           (eevt_source),
    .drop_full_count      (eq_drop_full),
    .drop_disabled_count  (eq_drop_dis),
    .dma_err_count        (eq_dma_err)
  );
  assign c_wr_ram_addr[2*RAM_ADDR_W +: RAM_ADDR_W] =
      RAM_ADDR_W'({2'd2, {(REGION_W - CW_RAM_ADDR_W){1'b0}}, eq_wr_ram_addr});


  logic [31:0] irq_count, irq_merged;
  // 64-bit time: no wrap handling, so the moderator sleeps (clock gate) while no queue is pending
  beryl_nic_irq_mod #(
    .EQ_COUNT (EQ_COUNT),
    .TIME_W   (64)
  ) u_irq (
    .clk          (clk),
    .rst          (rst),
    .evt_valid    (eevt_valid),
    .evt_ready    (eevt_ready),
    .evt_target   (eevt_target),
    .evt_source   (eevt_source),
    .irq_index    (irq_index),
    .irq_valid    (irq_valid),
    .irq_ready    (irq_ready),
    .irq_count    (irq_count),
    .merged_count (irq_merged)
  );

  // ------------------------------------------------------------------ per-queue statistics
  beryl_nic_stats_ram #(.COUNT(TXQ_COUNT)) u_tx_stats (
    .clk           (clk),
    .rst           (rst),
    .stat_valid    (tstat_valid),
    .stat_qidx     (tstat_qidx),
    .stat_bytes    (tstat_bytes),
    .stat_drop     (tstat_drop),
    .rd_req_valid  (stat_req_valid[0]),
    .rd_req_ready  (stat_req_ready[0]),
    .rd_req_idx    (stat_req_idx[TXQ_W-1:0]),
    .rd_rsp_valid  (stat_rsp_valid[0]),
    .rd_rsp_pkts   (stat_rsp_data[0 +: 64]),
    .rd_rsp_bytes  (stat_rsp_data[64 +: 64]),
    .rd_rsp_drops  (stat_rsp_data[128 +: 64])
  );
  beryl_nic_stats_ram #(.COUNT(RXQ_COUNT)) u_rx_stats (
    .clk           (clk),
    .rst           (rst),
    .stat_valid    (rstat_valid),
    .stat_qidx     (rstat_qidx),
    .stat_bytes    (rstat_bytes),
    .stat_drop     (rstat_drop),
    .rd_req_valid  (stat_req_valid[1]),
    .rd_req_ready  (stat_req_ready[1]),
    .rd_req_idx    (stat_req_idx[RXQ_W-1:0]),
    .rd_rsp_valid  (stat_rsp_valid[1]),
    .rd_rsp_pkts   (stat_rsp_data[192 +: 64]),
    .rd_rsp_bytes  (stat_rsp_data[256 +: 64]),
    .rd_rsp_drops  (stat_rsp_data[320 +: 64])
  );

  // ------------------------------------------------------------------ DMA muxes and RAM demuxes
  beryl_dma_desc_mux #(
    .PORTS        (2),
    .RAM_ADDR_W   (RAM_ADDR_W),
    .LEN_W        (LEN_W),
    .CLIENT_TAG_W (CTAG_W),
    .TAG_W        (CTAG_W + 1)
  ) u_rd_mux (
    .clk                   (clk),
    .rst                   (rst),
    .s_desc_host_addr      (c_rd_host_addr),
    .s_desc_ram_addr       (c_rd_ram_addr),
    .s_desc_len            (c_rd_len),
    .s_desc_tag            (c_rd_tag),
    .s_desc_valid          (c_rd_valid),
    .s_desc_ready          (c_rd_ready),
    .s_desc_status_tag     (c_rd_sts_tag),
    .s_desc_status_error   (c_rd_sts_error),
    .s_desc_status_valid   (c_rd_sts_valid),
    .m_desc_host_addr      (rd_desc_host_addr),
    .m_desc_ram_addr       (rd_desc_ram_addr),
    .m_desc_len            (rd_desc_len),
    .m_desc_tag            (rd_tag_m),
    .m_desc_valid          (rd_desc_valid),
    .m_desc_ready          (rd_desc_ready),
    .m_desc_status_tag     (rd_desc_status_tag[CTAG_W:0]),
    .m_desc_status_error   (rd_desc_status_error),
    .m_desc_status_valid   (rd_desc_status_valid)
  );
  assign rd_desc_tag = TAG_W'(rd_tag_m);
  assign wr_desc_tag = wr_tag_m2;   // three clients: the mux's tag is already TAG_W wide

  beryl_dma_desc_mux #(
    .PORTS        (3),
    .RAM_ADDR_W   (RAM_ADDR_W),
    .LEN_W        (LEN_W),
    .CLIENT_TAG_W (CTAG_W),
    .TAG_W        (CTAG_W + 2)
  ) u_wr_mux (
    .clk                   (clk),
    .rst                   (rst),
    .s_desc_host_addr      (c_wr_host_addr),
    .s_desc_ram_addr       (c_wr_ram_addr),
    .s_desc_len            (c_wr_len),
    .s_desc_tag            (c_wr_tag),
    .s_desc_valid          (c_wr_valid),
    .s_desc_ready          (c_wr_ready),
    .s_desc_status_tag     (c_wr_sts_tag),
    .s_desc_status_error   (c_wr_sts_error),
    .s_desc_status_valid   (c_wr_sts_valid),
    .m_desc_host_addr      (wr_desc_host_addr),
    .m_desc_ram_addr       (wr_desc_ram_addr),
    .m_desc_len            (wr_desc_len),
    .m_desc_tag            (wr_tag_m2),
    .m_desc_valid          (wr_desc_valid),
    .m_desc_ready          (wr_desc_ready),
    .m_desc_status_tag     (wr_desc_status_tag[CTAG_W+1:0]),
    .m_desc_status_error   (wr_desc_status_error),
    .m_desc_status_valid   (wr_desc_status_valid)
  );


  beryl_dma_ram_wr_demux #(
    .PORTS      (4),
    .SEG_ADDR_W (SEG_ADDR_W)
  ) u_wr_demux (
    .s_ram_wr_cmd_addr  (ram_wr_cmd_addr),
    .s_ram_wr_cmd_be    (ram_wr_cmd_be),
    .s_ram_wr_cmd_data  (ram_wr_cmd_data),
    .s_ram_wr_cmd_valid (ram_wr_cmd_valid),
    .s_ram_wr_cmd_ready (ram_wr_cmd_ready),
    .m_ram_wr_cmd_addr  (r_wr_addr),
    .m_ram_wr_cmd_be    (r_wr_be),
    .m_ram_wr_cmd_data  (r_wr_data),
    .m_ram_wr_cmd_valid (r_wr_valid),
    .m_ram_wr_cmd_ready (r_wr_ready)
  );
  assign r_wr_ready[4 +: 4] = 4'b1111;   // regions 2 and 3 of the read side are unused

  // The demux routes commands and response handshakes; the response data is selected here from the
  // clients' own outputs (DATA = 0), which a Verilator model then need not copy into a concatenation.
  /* verilator lint_off PINCONNECTEMPTY */
  beryl_dma_ram_rd_demux #(
    .PORTS      (4),
    .SEG_ADDR_W (SEG_ADDR_W),
    .DATA       (1'b0)
  ) u_rd_demux (
    .clk                 (clk),
    .rst                 (rst),
    .s_ram_rd_cmd_addr   (ram_rd_cmd_addr),
    .s_ram_rd_cmd_valid  (ram_rd_cmd_valid),
    .s_ram_rd_cmd_ready  (ram_rd_cmd_ready),
    .s_ram_rd_resp_data  (),   // 0 with DATA = 0
    .s_ram_rd_resp_valid (ram_rd_resp_valid),
    .s_ram_rd_resp_ready (ram_rd_resp_ready),
    .m_ram_rd_cmd_addr   (r_rd_addr),
    .m_ram_rd_cmd_valid  (r_rd_valid),
    .m_ram_rd_cmd_ready  (r_rd_ready),
    .m_ram_rd_resp_data  ('0),
    .m_ram_rd_resp_valid (r_rd_resp_valid),
    .m_ram_rd_resp_ready (r_rd_resp_ready),
    .resp_any            (rd_resp_any),
    .resp_sel            (rd_resp_sel)
  );
  /* verilator lint_on PINCONNECTEMPTY */
  always_comb begin
    for (int s = 0; s < 2; s++) begin
      ram_rd_resp_data[s*512 +: 512] = '0;
      if (rd_resp_any[s]) begin
        case (rd_resp_sel[s*2 +: 2])
          2'd0:    ram_rd_resp_data[s*512 +: 512] = rx_rd_resp_data[s*512 +: 512];
          2'd1:    ram_rd_resp_data[s*512 +: 512] = cq_rd_resp_data[s*512 +: 512];
          2'd2:    ram_rd_resp_data[s*512 +: 512] = eq_rd_resp_data[s*512 +: 512];
          default: ram_rd_resp_data[s*512 +: 512] = '0;   // region 3
        endcase
      end
    end
  end
  // region 3 of the write side is unused: answer reads with zeros so nothing can hang
  logic [1:0] r3_resp_q;
  assign r_rd_ready[6 +: 2]     = ~r3_resp_q | r_rd_resp_ready[6 +: 2];
  assign r_rd_resp_valid[6 +: 2] = r3_resp_q;
  always_ff @(posedge glue_clk) begin
    r3_resp_q <= (r3_resp_q & ~r_rd_resp_ready[6 +: 2]) | (r_rd_valid[6 +: 2] & r_rd_ready[6 +: 2]);
    if (rst) r3_resp_q <= '0;
  end

  // the glue gate (see above): every update of those registers is qualified by one of these
  assign glue_en = rst || (glue_en_tx != '0) || (glue_en_rx != '0) || (tx_cmd_valid && tx_cmd_ready)
                   || (cpl_valid && cpl_ready) || (r3_resp_q != '0) || (r_rd_valid[6 +: 2] != '0);

  // ------------------------------------------------------------------ counters
  assign counters = {
    irq_merged, irq_count,
    db_bad_count[0 +: 32] + db_bad_count[32 +: 32] + db_bad_count[64 +: 32] + db_bad_count[96 +: 32],
    cq_dma_err + eq_dma_err,
    eq_drop_dis, eq_drop_full, cq_drop_dis, cq_drop_full,
    rx_counts[8*32 +: 32],                               // RX_DMA_ERR
    rx_counts[7*32 +: 32], rx_counts[6*32 +: 32],        // MAC_ERR, OVERSIZE
    rx_counts[5*32 +: 32], rx_counts[4*32 +: 32],        // NO_SLOT, TOO_LONG
    rx_counts[3*32 +: 32], rx_counts[2*32 +: 32],        // DISABLED, NO_DESC
    rx_counts[1*32 +: 32], rx_counts[0*32 +: 32],        // RX_BYTES, RX_PKTS
    tx_dma_err_count, tx_bad_desc_count, tx_byte_count, tx_pkt_count
  };

  // unused: high bits of the TX/RX completion queue index,
  // queue indexes above this build's counts (the register block range-checks them), regions 2-3 of
  // the read engine's RAM side, event-queue target bits above the EQ index
  logic unused;
  assign unused = ^{db_qidx, cfg_req_qidx, stat_req_idx, r_wr_addr[4*CSEG_W +: 4*CSEG_W],
                    r_wr_be[256 +: 256], r_wr_data[2048 +: 2048], r_wr_valid[4 +: 4], r_rd_addr[6*CSEG_W +: 2*CSEG_W],
                    cevt_target, tcpl_qidx[15:CQ_W], rcpl_qidx[15:CQ_W], cpl_qidx, rd_desc_status_tag,
                    wr_desc_status_tag, op_rsp_phase[1:0], op_rsp_armed[1:0], op_rsp_empty[3:1],
                    op_rsp_aux[8 +: 24], op_rsp_log_size[4 +: 12]};

endmodule

`resetall
