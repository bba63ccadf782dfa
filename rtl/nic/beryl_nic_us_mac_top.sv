// SPDX-License-Identifier: MIT
// The Beryl NIC (beryl_nic_us_top) with a 100G MAC on every port: TX AXI-Stream -> beryl_eth_axis_to_seg ->
// beryl_eth_mac_100g_tx -> CGMII-like 512-bit word out; CGMII in -> beryl_eth_mac_100g_rx ->
// beryl_eth_seg_to_axis -> the NIC's RX port. TX and RX timestamps are the MACs' start-of-frame times
// (TX_TS_SRC = RX_TS_SRC = 1), taken from the NIC's PTP clock. One clock for everything (see below).
//
// Clocking: the MACs run in the core clock `clk` (250 MHz x 512 bits = 128 Gb/s of wire, more than 100G).
// A real build runs each MAC in its own clock (195.3125 MHz for 100GBASE-R, TX from the transceiver,
// RX recovered), which needs a seg-stream clock crossing on both sides and the PTP time carried into each
// MAC clock domain (a time-of-day CDC or a local clock disciplined to the core's): future work, not built.
`default_nettype none

module beryl_nic_us_mac_top #(
  parameter int TLP_DATA_W     = 512,            // 512 only (Gen3 x16)
  parameter int AXIS_CQ_USER_W = 183,            // PG213 tuser widths at 512 bits
  parameter int AXIS_CC_USER_W = 81,
  parameter int AXIS_RQ_USER_W = 137,
  parameter int AXIS_RC_USER_W = 161,
  parameter bit RQ_STRADDLE    = 1'b1,           // the core's straddle options: must match the IP
  parameter bit RC_STRADDLE    = 1'b1,
  parameter int IF_COUNT       = 1,              // interfaces, power of two, 1..4
  parameter int PORT_COUNT     = 1,              // ports (MACs) per interface, 1..8
  parameter int TXQ_COUNT      = 4096,           // per interface, power of two, 2..32768
  parameter int RXQ_COUNT      = 256,
  parameter int CQ_COUNT       = 8192,
  parameter int EQ_COUNT       = 32,
  parameter int TX_SLOTS       = 32,             // TX packets in flight per interface
  parameter int RX_SLOTS       = 32,             // RX frames in flight per interface
  parameter int MAX_FRAME      = 16384,          // largest frame, bytes, power of two
  parameter int RSS_TABLE_SIZE = 256,
  parameter int DESC_BATCH     = 8,
  parameter int CPL_BATCH      = 8,
  parameter int TX_SCHED       = 0,              // ports' TX scheduler: 0 round robin, 1 token bucket, 2 TDMA
  parameter int TDMA_SLOTS_MAX = 8,              // TX_SCHED 2: slots per TDMA period, 1..32
  parameter int MSIX_VECTORS   = 32,             // MSI-X vectors, 1..256
  parameter int TIMEOUT_CYCLES = 2500000,        // DMA read completion timeout, cycles
  parameter bit MAC_DIC_EN     = 1'b1,           // TX MACs: deficit idle count (IFG 5..19, average 12)
  parameter int MAC_MAX_FRAME_LEN = 9216,        // RX MACs: longest good frame, DA..FCS, bytes, 64..16000
  parameter int RX_FIFO_WORDS  = 256,            // RX adapter buffer per port, 64-byte beats, power of two
  parameter logic [15:0] VENDOR_ID = 16'h1234,   // placeholder ids: the build passes real ones
  parameter logic [15:0] DEVICE_ID = 16'hbe01,
  parameter logic [31:0] GIT_HASH   = 32'h0,
  parameter logic [31:0] BUILD_DATE = 32'h0,
  parameter logic [31:0] BUILD_TIME = 32'h0,
  parameter int NP             = IF_COUNT * PORT_COUNT  // ports in all
) (
  input  wire logic                      clk,  // the core's user_clk
  input  wire logic                      rst,  // the core's user_reset

  // Completer request (host -> our BARs)
  input  wire logic [TLP_DATA_W-1:0]     s_axis_cq_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_cq_tkeep,
  input  wire logic                      s_axis_cq_tlast,
  input  wire logic [AXIS_CQ_USER_W-1:0] s_axis_cq_tuser,
  input  wire logic                      s_axis_cq_tvalid,
  output      logic                      s_axis_cq_tready,
  output      logic [1:0]                pcie_cq_np_req,

  // Completer completion
  output      logic [TLP_DATA_W-1:0]     m_axis_cc_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_cc_tkeep,
  output      logic                      m_axis_cc_tlast,
  output      logic [AXIS_CC_USER_W-1:0] m_axis_cc_tuser,
  output      logic                      m_axis_cc_tvalid,
  input  wire logic                      m_axis_cc_tready,

  // Requester request (our DMA / MSI-X -> host)
  output      logic [TLP_DATA_W-1:0]     m_axis_rq_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_rq_tkeep,
  output      logic                      m_axis_rq_tlast,
  output      logic [AXIS_RQ_USER_W-1:0] m_axis_rq_tuser,
  output      logic                      m_axis_rq_tvalid,
  input  wire logic                      m_axis_rq_tready,

  // Requester completion
  input  wire logic [TLP_DATA_W-1:0]     s_axis_rc_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_rc_tkeep,
  input  wire logic                      s_axis_rc_tlast,
  input  wire logic [AXIS_RC_USER_W-1:0] s_axis_rc_tuser,
  input  wire logic                      s_axis_rc_tvalid,
  output      logic                      s_axis_rc_tready,

  // Configuration status and management
  input  wire logic [1:0]                cfg_max_payload,
  input  wire logic [2:0]                cfg_max_read_req,
  input  wire logic [15:0]               cfg_function_status,
  input  wire logic [3:0]                cfg_rcb_status,
  input  wire logic [3:0]                cfg_interrupt_msix_enable,
  input  wire logic [3:0]                cfg_interrupt_msix_mask,
  output      logic [9:0]                cfg_mgmt_addr,
  output      logic [7:0]                cfg_mgmt_function_number,
  output      logic                      cfg_mgmt_write,
  output      logic [31:0]               cfg_mgmt_write_data,
  output      logic [3:0]                cfg_mgmt_byte_enable,
  output      logic                      cfg_mgmt_read,
  input  wire logic [31:0]               cfg_mgmt_read_data,
  input  wire logic                      cfg_mgmt_read_write_done,
  output      logic                      cfg_mgmt_debug_access,
  input  wire logic [2:0]                cfg_negotiated_width,
  input  wire logic [1:0]                cfg_current_speed,


  // CGMII-like 512-bit words per port (interface i, port p at index i*PORT_COUNT + p): lane j = bits
  // [8j+7:8j], txc/rxc bit j = 1 for a control character, lane 0 first on the wire (docs/blocks/eth.md)
  output logic [NP*512-1:0]              cgmii_txd,
  output logic [NP*64-1:0]               cgmii_txc,
  input  wire logic [NP*512-1:0]         cgmii_rxd,
  input  wire logic [NP*64-1:0]          cgmii_rxc,

  // per-port counters (32-bit, wrapping) of frames lost or cut outside the NIC's own counters
  output logic [NP*32-1:0]               tx_underflow_count,  // TX MAC: frames cut by a gap in the stream (/E/)
  output logic [NP*32-1:0]               rx_mac_drop_count,   // RX MAC: runts (< 53 bytes) dropped whole
  output logic [NP*32-1:0]               rx_mac_short_count,  // RX MAC: frames begun and ended in one word
  output logic [NP*32-1:0]               rx_fifo_drop_count,  // RX adapter: dropped whole, buffer full
  output logic [NP*32-1:0]               rx_fifo_cut_count,   // RX adapter: cut (full, or > MAX_FRAME), bad

  // PTP clock (regs/beryl_ptp.rdl): time of day, pulse per second, periodic output
  output logic [95:0]                    ptp_tod,
  output logic                           ptp_tod_step,
  output logic                           ptp_pps,
  output logic                           ptp_perout
);

  localparam int TAG_W = (TX_SCHED == 2) ? 9 : 5;   // beryl_nic_us_top's TX_TS_TAG_W for this TX_SCHED

  logic [NP*512-1:0]   tx_tdata, rx_tdata;
  logic [NP*64-1:0]    tx_tkeep, rx_tkeep;
  logic [NP-1:0]       tx_tvalid, tx_tready, tx_tlast, rx_tvalid, rx_tready, rx_tlast, rx_tuser;
  logic [NP*TAG_W-1:0] tx_tag, txs_tag;
  logic [NP-1:0]       txs_valid;
  logic [NP*64-1:0]    txs_ts, rx_ts;
  logic [63:0]         ptp_ts;

  // the completion-format time (beryl_nic_pkg::ts_of_tod) the NIC's interfaces use, so the MACs' times go
  // into the completions unconverted
  assign ptp_ts = beryl_nic_pkg::ts_of_tod(ptp_tod);

  beryl_nic_us_top #(
    .TLP_DATA_W     (TLP_DATA_W),
    .AXIS_CQ_USER_W (AXIS_CQ_USER_W),
    .AXIS_CC_USER_W (AXIS_CC_USER_W),
    .AXIS_RQ_USER_W (AXIS_RQ_USER_W),
    .AXIS_RC_USER_W (AXIS_RC_USER_W),
    .RQ_STRADDLE    (RQ_STRADDLE),
    .RC_STRADDLE    (RC_STRADDLE),
    .IF_COUNT       (IF_COUNT),
    .PORT_COUNT     (PORT_COUNT),
    .TXQ_COUNT      (TXQ_COUNT),
    .RXQ_COUNT      (RXQ_COUNT),
    .CQ_COUNT       (CQ_COUNT),
    .EQ_COUNT       (EQ_COUNT),
    .TX_SLOTS       (TX_SLOTS),
    .RX_SLOTS       (RX_SLOTS),
    .MAX_FRAME      (MAX_FRAME),
    .RSS_TABLE_SIZE (RSS_TABLE_SIZE),
    .DESC_BATCH     (DESC_BATCH),
    .CPL_BATCH      (CPL_BATCH),
    .TX_SCHED       (TX_SCHED),
    .TDMA_SLOTS_MAX (TDMA_SLOTS_MAX),
    .TX_TS_SRC      (1),
    .RX_TS_SRC      (1),
    .TX_TS_TAG_W    (TAG_W),
    .MSIX_VECTORS   (MSIX_VECTORS),
    .TIMEOUT_CYCLES (TIMEOUT_CYCLES),
    .VENDOR_ID      (VENDOR_ID),
    .DEVICE_ID      (DEVICE_ID),
    .GIT_HASH       (GIT_HASH),
    .BUILD_DATE     (BUILD_DATE),
    .BUILD_TIME     (BUILD_TIME)
  ) u_nic (
    .clk                       (clk),
    .rst                       (rst),
    .s_axis_cq_tdata           (s_axis_cq_tdata),
    .s_axis_cq_tkeep           (s_axis_cq_tkeep),
    .s_axis_cq_tlast           (s_axis_cq_tlast),
    .s_axis_cq_tuser           (s_axis_cq_tuser),
    .s_axis_cq_tvalid          (s_axis_cq_tvalid),
    .s_axis_cq_tready          (s_axis_cq_tready),
    .pcie_cq_np_req            (pcie_cq_np_req),
    .m_axis_cc_tdata           (m_axis_cc_tdata),
    .m_axis_cc_tkeep           (m_axis_cc_tkeep),
    .m_axis_cc_tlast           (m_axis_cc_tlast),
    .m_axis_cc_tuser           (m_axis_cc_tuser),
    .m_axis_cc_tvalid          (m_axis_cc_tvalid),
    .m_axis_cc_tready          (m_axis_cc_tready),
    .m_axis_rq_tdata           (m_axis_rq_tdata),
    .m_axis_rq_tkeep           (m_axis_rq_tkeep),
    .m_axis_rq_tlast           (m_axis_rq_tlast),
    .m_axis_rq_tuser           (m_axis_rq_tuser),
    .m_axis_rq_tvalid          (m_axis_rq_tvalid),
    .m_axis_rq_tready          (m_axis_rq_tready),
    .s_axis_rc_tdata           (s_axis_rc_tdata),
    .s_axis_rc_tkeep           (s_axis_rc_tkeep),
    .s_axis_rc_tlast           (s_axis_rc_tlast),
    .s_axis_rc_tuser           (s_axis_rc_tuser),
    .s_axis_rc_tvalid          (s_axis_rc_tvalid),
    .s_axis_rc_tready          (s_axis_rc_tready),
    .cfg_max_payload           (cfg_max_payload),
    .cfg_max_read_req          (cfg_max_read_req),
    .cfg_function_status       (cfg_function_status),
    .cfg_rcb_status            (cfg_rcb_status),
    .cfg_interrupt_msix_enable (cfg_interrupt_msix_enable),
    .cfg_interrupt_msix_mask   (cfg_interrupt_msix_mask),
    .cfg_mgmt_addr             (cfg_mgmt_addr),
    .cfg_mgmt_function_number  (cfg_mgmt_function_number),
    .cfg_mgmt_write            (cfg_mgmt_write),
    .cfg_mgmt_write_data       (cfg_mgmt_write_data),
    .cfg_mgmt_byte_enable      (cfg_mgmt_byte_enable),
    .cfg_mgmt_read             (cfg_mgmt_read),
    .cfg_mgmt_read_data        (cfg_mgmt_read_data),
    .cfg_mgmt_read_write_done  (cfg_mgmt_read_write_done),
    .cfg_mgmt_debug_access     (cfg_mgmt_debug_access),
    .cfg_negotiated_width      (cfg_negotiated_width),
    .cfg_current_speed         (cfg_current_speed),
    .m_axis_tx_tdata           (tx_tdata),
    .m_axis_tx_tkeep           (tx_tkeep),
    .m_axis_tx_tvalid          (tx_tvalid),
    .m_axis_tx_tready          (tx_tready),
    .m_axis_tx_tlast           (tx_tlast),
    .m_axis_tx_tag             (tx_tag),
    .s_tx_ts_valid             (txs_valid),
    .s_tx_ts_tag               (txs_tag),
    .s_tx_ts                   (txs_ts),
    .s_axis_rx_tdata           (rx_tdata),
    .s_axis_rx_tkeep           (rx_tkeep),
    .s_axis_rx_tvalid          (rx_tvalid),
    .s_axis_rx_tready          (rx_tready),
    .s_axis_rx_tlast           (rx_tlast),
    .s_axis_rx_tuser           (rx_tuser),
    .s_axis_rx_ts              (rx_ts),
    .ptp_tod                   (ptp_tod),
    .ptp_tod_step              (ptp_tod_step),
    .ptp_pps                   (ptp_pps),
    .ptp_perout                (ptp_perout)
  );

  for (genvar p = 0; p < NP; p++) begin : g_port
    // ---------------------------------------------------------------- TX: AXI-Stream -> seg -> MAC
    logic [511:0] ts_data, rs_data;
    logic [3:0]   ts_ena, ts_sop, ts_eop, ts_err, rs_ena, rs_sop, rs_eop, rs_err;
    logic [15:0]  ts_mty, rs_mty;
    logic [TAG_W-1:0] ts_tag;
    logic         ts_ready;
    logic [63:0]  rs_ts;

    beryl_eth_axis_to_seg #(
      .TAG_W (TAG_W)
    ) u_tx_seg (
      .clk           (clk),
      .rst           (rst),
      .s_axis_tdata  (tx_tdata[p*512 +: 512]),
      .s_axis_tkeep  (tx_tkeep[p*64 +: 64]),
      .s_axis_tvalid (tx_tvalid[p]),
      .s_axis_tready (tx_tready[p]),
      .s_axis_tlast  (tx_tlast[p]),
      .s_axis_tuser  (1'b0),                    // the NIC never aborts a frame it started
      .s_axis_tag    (tx_tag[p*TAG_W +: TAG_W]),
      .m_seg_data    (ts_data),
      .m_seg_ena     (ts_ena),
      .m_seg_sop     (ts_sop),
      .m_seg_eop     (ts_eop),
      .m_seg_mty     (ts_mty),
      .m_seg_err     (ts_err),
      .m_seg_tag     (ts_tag),
      .m_seg_ready   (ts_ready)
    );

    /* verilator lint_off PINCONNECTEMPTY */
    beryl_eth_mac_100g_tx #(
      .DIC_EN   (MAC_DIC_EN),
      .PTP_TS_W (64),
      .TX_TAG_W (TAG_W)
    ) u_tx_mac (
      .clk                (clk),
      .rst                (rst),
      .s_seg_data         (ts_data),
      .s_seg_ena          (ts_ena),
      .s_seg_sop          (ts_sop),
      .s_seg_eop          (ts_eop),
      .s_seg_mty          (ts_mty),
      .s_seg_err          (ts_err),
      .s_seg_tag          (ts_tag),
      .s_seg_ready        (ts_ready),
      .cgmii_txd          (cgmii_txd[p*512 +: 512]),
      .cgmii_txc          (cgmii_txc[p*64 +: 64]),
      // (tag, time) of each frame started, in start order: straight into the NIC's TX timestamp return
      .tx_ptp_ts          (ptp_ts),
      .tx_ts_valid        (txs_valid[p]),
      .tx_ts              (txs_ts[p*64 +: 64]),
      .tx_ts_tag          (txs_tag[p*TAG_W +: TAG_W]),
      .tx_ts_col          (),                  // the column (8-byte unit) of /S/: not used (below 1 clock)
      .tx_stat            (),                  // statistics records: no statistics block in this top yet
      .tx_underflow_count (tx_underflow_count[p*32 +: 32])
    );

    // ---------------------------------------------------------------- RX: MAC -> seg -> AXI-Stream
    beryl_eth_mac_100g_rx #(
      .MAX_FRAME_LEN (MAC_MAX_FRAME_LEN),
      .PTP_TS_W      (64)
    ) u_rx_mac (
      .clk             (clk),
      .rst             (rst),
      .cgmii_rxd       (cgmii_rxd[p*512 +: 512]),
      .cgmii_rxc       (cgmii_rxc[p*64 +: 64]),
      .rx_ptp_ts       (ptp_ts),
      .m_seg_data      (rs_data),
      .m_seg_ena       (rs_ena),
      .m_seg_sop       (rs_sop),
      .m_seg_eop       (rs_eop),
      .m_seg_mty       (rs_mty),
      .m_seg_err       (rs_err),
      .m_seg_ts        (rs_ts),
      .m_seg_ts_col    (),
      .rx_pause_valid  (),                     // PAUSE frames are delivered as frames; no flow control yet
      .rx_pause_quanta (),
      .rx_stat         (),
      .rx_drop_count   (rx_mac_drop_count[p*32 +: 32]),
      .rx_short_count  (rx_mac_short_count[p*32 +: 32])
    );
    /* verilator lint_on PINCONNECTEMPTY */

    beryl_eth_seg_to_axis #(
      .TS_W       (64),
      .FIFO_WORDS (RX_FIFO_WORDS),
      .MAX_FRAME  (MAX_FRAME)
    ) u_rx_seg (
      .clk           (clk),
      .rst           (rst),
      .s_seg_data    (rs_data),
      .s_seg_ena     (rs_ena),
      .s_seg_sop     (rs_sop),
      .s_seg_eop     (rs_eop),
      .s_seg_mty     (rs_mty),
      .s_seg_err     (rs_err),
      .s_seg_ts      (rs_ts),
      .m_axis_tdata  (rx_tdata[p*512 +: 512]),
      .m_axis_tkeep  (rx_tkeep[p*64 +: 64]),
      .m_axis_tvalid (rx_tvalid[p]),
      .m_axis_tready (rx_tready[p]),
      .m_axis_tlast  (rx_tlast[p]),
      .m_axis_tuser  (rx_tuser[p]),
      .m_axis_ts     (rx_ts[p*64 +: 64]),
      .drop_count    (rx_fifo_drop_count[p*32 +: 32]),
      .cut_count     (rx_fifo_cut_count[p*32 +: 32])
    );
  end

endmodule

`resetall
