// SPDX-License-Identifier: MIT
// 10G/25G MAC with its streams in the core clock: beryl_eth_mac_10g plus an asynchronous FIFO per
// direction. TX: store-and-forward (the MAC gets every frame without gaps, so it never underflows
// whatever the core clock); the core sees backpressure, and a frame longer than the FIFO is dropped
// and counted. RX: frames that meet a full FIFO are dropped whole and counted (the wire cannot wait).
// Throughput: line rate while the core clock moves 64 bits per cycle at least as fast as the MAC clock.
`default_nettype none

module beryl_eth_mac_10g_fifo #(
  parameter int unsigned PTP_TS_W      = 64,    // width of PTP time values, 1..128
  parameter int unsigned TX_TAG_W      = 16,    // width of the TX timestamp tag, 1..32
  parameter bit          DIC_EN        = 1'b1,  // deficit idle count on transmit (average IFG exactly 12)
  parameter int unsigned MAX_FRAME_LEN = 9216,  // longest good received frame, DA through FCS, 64..16000
  parameter int unsigned CNT_W         = 64,    // statistics counter width, 16..64
  parameter int unsigned TX_FIFO_DEPTH = 2048,  // TX FIFO entries of 8 bytes, power of two; must hold the
                                                // longest frame to send (1152 for 9216 bytes)
  parameter int unsigned RX_FIFO_DEPTH = 2048,  // RX FIFO entries of 8 bytes, power of two, 4..65536,
                                                // at least MAX_FRAME_LEN / 8
  parameter int unsigned DROP_CNT_W    = 32     // width of the FIFO drop counters, 1..64
) (
  input  wire logic                     clk,      // core clock: s_axis_tx_*, m_axis_rx_*
  input  wire logic                     rst,
  input  wire logic                     tx_clk,   // MAC transmit clock (XGMII TX)
  input  wire logic                     tx_rst,
  input  wire logic                     rx_clk,   // MAC receive clock (XGMII RX, usually recovered)
  input  wire logic                     rx_rst,

  // core clock: frames to send (tuser as beryl_eth_mac_10g_tx), received frames (tuser as _rx)
  input  wire logic [63:0]              s_axis_tx_tdata,
  input  wire logic [7:0]               s_axis_tx_tkeep,
  input  wire logic                     s_axis_tx_tvalid,
  output      logic                     s_axis_tx_tready,
  input  wire logic                     s_axis_tx_tlast,
  input  wire logic [TX_TAG_W:0]        s_axis_tx_tuser,
  output      logic [DROP_CNT_W-1:0]    s_axis_tx_drop_count,   // frames too long for the TX FIFO

  output      logic [63:0]              m_axis_rx_tdata,
  output      logic [7:0]               m_axis_rx_tkeep,
  output      logic                     m_axis_rx_tvalid,
  input  wire logic                     m_axis_rx_tready,
  output      logic                     m_axis_rx_tlast,
  output      logic [PTP_TS_W:0]        m_axis_rx_tuser,

  output      logic [63:0]              xgmii_txd,
  output      logic [7:0]               xgmii_txc,
  input  wire logic [63:0]              xgmii_rxd,
  input  wire logic [7:0]               xgmii_rxc,

  // tx_clk domain
  input  wire logic [PTP_TS_W-1:0]      tx_ptp_ts,
  output      logic                     tx_ts_valid,
  output      logic [PTP_TS_W-1:0]      tx_ts,
  output      logic [TX_TAG_W-1:0]      tx_ts_tag,
  output      beryl_eth_pkg::mac_stat_t tx_stat,
  input  wire logic                     tx_stat_clear,
  input  wire logic [4:0]               tx_stat_rd_addr,
  output      logic [CNT_W-1:0]         tx_stat_rd_data,

  // rx_clk domain
  input  wire logic [PTP_TS_W-1:0]      rx_ptp_ts,
  output      logic                     rx_pause_valid,
  output      logic [15:0]              rx_pause_quanta,
  output      beryl_eth_pkg::mac_stat_t rx_stat,
  input  wire logic                     rx_stat_clear,
  input  wire logic [4:0]               rx_stat_rd_addr,
  output      logic [CNT_W-1:0]         rx_stat_rd_data,
  output      logic [DROP_CNT_W-1:0]    rx_fifo_drop_count      // received frames lost to a full RX FIFO
);

  // store-and-forward: a frame the RX FIFO cannot hold whole would always be dropped
  if (RX_FIFO_DEPTH * 8 < MAX_FRAME_LEN) begin : g_bad_rx_depth
    $error("%m: RX_FIFO_DEPTH * 8 bytes must hold MAX_FRAME_LEN");
  end

  logic [63:0]       tx_axis_tdata, rx_axis_tdata;
  logic [7:0]        tx_axis_tkeep, rx_axis_tkeep;
  logic              tx_axis_tvalid, tx_axis_tready, tx_axis_tlast, rx_axis_tvalid, rx_axis_tlast;
  logic [TX_TAG_W:0] tx_axis_tuser;
  logic [PTP_TS_W:0] rx_axis_tuser;
  // the RX FIFO drops instead of stalling, so its tready is always high and the MAC has no input for it
  /* verilator lint_off UNUSEDSIGNAL */
  logic              rx_axis_tready;
  logic              tx_drop_frame, rx_drop_frame;
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_axis_async_fifo #(
    .DATA_W            (64),
    .USER_W            (TX_TAG_W + 1),
    .DEPTH             (TX_FIFO_DEPTH),
    .FRAME_EN          (1'b1),
    .DROP_WHEN_FULL_EN (1'b0),
    .CNT_W             (DROP_CNT_W)
  ) u_tx_fifo (
    .s_clk         (clk),
    .s_rst         (rst),
    .m_clk         (tx_clk),
    .m_rst         (tx_rst),
    .s_axis_tdata  (s_axis_tx_tdata),
    .s_axis_tkeep  (s_axis_tx_tkeep),
    .s_axis_tvalid (s_axis_tx_tvalid),
    .s_axis_tready (s_axis_tx_tready),
    .s_axis_tlast  (s_axis_tx_tlast),
    .s_axis_tuser  (s_axis_tx_tuser),
    .m_axis_tdata  (tx_axis_tdata),
    .m_axis_tkeep  (tx_axis_tkeep),
    .m_axis_tvalid (tx_axis_tvalid),
    .m_axis_tready (tx_axis_tready),
    .m_axis_tlast  (tx_axis_tlast),
    .m_axis_tuser  (tx_axis_tuser),
    .s_drop_frame  (tx_drop_frame),
    .s_drop_count  (s_axis_tx_drop_count)
  );

  beryl_eth_mac_10g #(
    .PTP_TS_W      (PTP_TS_W),
    .TX_TAG_W      (TX_TAG_W),
    .DIC_EN        (DIC_EN),
    .MAX_FRAME_LEN (MAX_FRAME_LEN),
    .CNT_W         (CNT_W)
  ) u_mac (
    .tx_clk           (tx_clk),
    .tx_rst           (tx_rst),
    .rx_clk           (rx_clk),
    .rx_rst           (rx_rst),
    .s_axis_tx_tdata  (tx_axis_tdata),
    .s_axis_tx_tkeep  (tx_axis_tkeep),
    .s_axis_tx_tvalid (tx_axis_tvalid),
    .s_axis_tx_tready (tx_axis_tready),
    .s_axis_tx_tlast  (tx_axis_tlast),
    .s_axis_tx_tuser  (tx_axis_tuser),
    .m_axis_rx_tdata  (rx_axis_tdata),
    .m_axis_rx_tkeep  (rx_axis_tkeep),
    .m_axis_rx_tvalid (rx_axis_tvalid),
    .m_axis_rx_tlast  (rx_axis_tlast),
    .m_axis_rx_tuser  (rx_axis_tuser),
    .xgmii_txd        (xgmii_txd),
    .xgmii_txc        (xgmii_txc),
    .xgmii_rxd        (xgmii_rxd),
    .xgmii_rxc        (xgmii_rxc),
    .tx_ptp_ts        (tx_ptp_ts),
    .tx_ts_valid      (tx_ts_valid),
    .tx_ts            (tx_ts),
    .tx_ts_tag        (tx_ts_tag),
    .rx_ptp_ts        (rx_ptp_ts),
    .rx_pause_valid   (rx_pause_valid),
    .rx_pause_quanta  (rx_pause_quanta),
    .tx_stat          (tx_stat),
    .rx_stat          (rx_stat),
    .tx_stat_clear    (tx_stat_clear),
    .tx_stat_rd_addr  (tx_stat_rd_addr),
    .tx_stat_rd_data  (tx_stat_rd_data),
    .rx_stat_clear    (rx_stat_clear),
    .rx_stat_rd_addr  (rx_stat_rd_addr),
    .rx_stat_rd_data  (rx_stat_rd_data)
  );

  beryl_axis_async_fifo #(
    .DATA_W            (64),
    .USER_W            (PTP_TS_W + 1),
    .DEPTH             (RX_FIFO_DEPTH),
    .FRAME_EN          (1'b1),
    .DROP_WHEN_FULL_EN (1'b1),
    .CNT_W             (DROP_CNT_W)
  ) u_rx_fifo (
    .s_clk         (rx_clk),
    .s_rst         (rx_rst),
    .m_clk         (clk),
    .m_rst         (rst),
    .s_axis_tdata  (rx_axis_tdata),
    .s_axis_tkeep  (rx_axis_tkeep),
    .s_axis_tvalid (rx_axis_tvalid),
    .s_axis_tready (rx_axis_tready),
    .s_axis_tlast  (rx_axis_tlast),
    .s_axis_tuser  (rx_axis_tuser),
    .m_axis_tdata  (m_axis_rx_tdata),
    .m_axis_tkeep  (m_axis_rx_tkeep),
    .m_axis_tvalid (m_axis_rx_tvalid),
    .m_axis_tready (m_axis_rx_tready),
    .m_axis_tlast  (m_axis_rx_tlast),
    .m_axis_tuser  (m_axis_rx_tuser),
    .s_drop_frame  (rx_drop_frame),
    .s_drop_count  (rx_fifo_drop_count)
  );

endmodule

`resetall
