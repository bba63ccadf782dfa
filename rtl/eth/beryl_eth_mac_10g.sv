// SPDX-License-Identifier: MIT
// 10G/25G Ethernet MAC: beryl_eth_mac_10g_tx and beryl_eth_mac_10g_rx on a 64-bit SDR XGMII, each with
// its statistics counters in its own clock domain (TX: tx_clk, RX: rx_clk, usually the recovered clock).
// Latencies and throughput as in the two halves.
`default_nettype none

module beryl_eth_mac_10g #(
  parameter int unsigned PTP_TS_W      = 64,    // width of PTP time values, 1..128
  parameter int unsigned TX_TAG_W      = 16,    // width of the TX timestamp tag, 1..32
  parameter bit          DIC_EN        = 1'b1,  // deficit idle count on transmit (average IFG exactly 12)
  parameter int unsigned MAX_FRAME_LEN = 9216,  // longest good received frame, DA through FCS, 64..16000
  parameter int unsigned CNT_W         = 64     // statistics counter width, 16..64
) (
  input  wire logic                     tx_clk,
  input  wire logic                     tx_rst,
  input  wire logic                     rx_clk,
  input  wire logic                     rx_rst,

  input  wire logic [63:0]              s_axis_tx_tdata,
  input  wire logic [7:0]               s_axis_tx_tkeep,
  input  wire logic                     s_axis_tx_tvalid,
  output      logic                     s_axis_tx_tready,
  input  wire logic                     s_axis_tx_tlast,
  input  wire logic [TX_TAG_W:0]        s_axis_tx_tuser,

  output      logic [63:0]              m_axis_rx_tdata,
  output      logic [7:0]               m_axis_rx_tkeep,
  output      logic                     m_axis_rx_tvalid,
  output      logic                     m_axis_rx_tlast,
  output      logic [PTP_TS_W:0]        m_axis_rx_tuser,

  output      logic [63:0]              xgmii_txd,
  output      logic [7:0]               xgmii_txc,
  input  wire logic [63:0]              xgmii_rxd,
  input  wire logic [7:0]               xgmii_rxc,

  input  wire logic [PTP_TS_W-1:0]      tx_ptp_ts,
  output      logic                     tx_ts_valid,
  output      logic [PTP_TS_W-1:0]      tx_ts,
  output      logic [TX_TAG_W-1:0]      tx_ts_tag,
  input  wire logic [PTP_TS_W-1:0]      rx_ptp_ts,

  output      logic                     rx_pause_valid,
  output      logic [15:0]              rx_pause_quanta,

  output      beryl_eth_pkg::mac_stat_t tx_stat,
  output      beryl_eth_pkg::mac_stat_t rx_stat,
  input  wire logic                     tx_stat_clear,
  input  wire logic [4:0]               tx_stat_rd_addr,
  output      logic [CNT_W-1:0]         tx_stat_rd_data,
  input  wire logic                     rx_stat_clear,
  input  wire logic [4:0]               rx_stat_rd_addr,
  output      logic [CNT_W-1:0]         rx_stat_rd_data
);

  beryl_eth_mac_10g_tx #(
    .PTP_TS_W (PTP_TS_W),
    .TX_TAG_W (TX_TAG_W),
    .DIC_EN   (DIC_EN)
  ) u_tx (
    .clk              (tx_clk),
    .rst              (tx_rst),
    .s_axis_tx_tdata  (s_axis_tx_tdata),
    .s_axis_tx_tkeep  (s_axis_tx_tkeep),
    .s_axis_tx_tvalid (s_axis_tx_tvalid),
    .s_axis_tx_tready (s_axis_tx_tready),
    .s_axis_tx_tlast  (s_axis_tx_tlast),
    .s_axis_tx_tuser  (s_axis_tx_tuser),
    .xgmii_txd        (xgmii_txd),
    .xgmii_txc        (xgmii_txc),
    .tx_ptp_ts        (tx_ptp_ts),
    .tx_ts_valid      (tx_ts_valid),
    .tx_ts            (tx_ts),
    .tx_ts_tag        (tx_ts_tag),
    .tx_stat          (tx_stat)
  );

  beryl_eth_mac_10g_rx #(
    .PTP_TS_W      (PTP_TS_W),
    .MAX_FRAME_LEN (MAX_FRAME_LEN)
  ) u_rx (
    .clk              (rx_clk),
    .rst              (rx_rst),
    .xgmii_rxd        (xgmii_rxd),
    .xgmii_rxc        (xgmii_rxc),
    .m_axis_rx_tdata  (m_axis_rx_tdata),
    .m_axis_rx_tkeep  (m_axis_rx_tkeep),
    .m_axis_rx_tvalid (m_axis_rx_tvalid),
    .m_axis_rx_tlast  (m_axis_rx_tlast),
    .m_axis_rx_tuser  (m_axis_rx_tuser),
    .rx_ptp_ts        (rx_ptp_ts),
    .rx_pause_valid   (rx_pause_valid),
    .rx_pause_quanta  (rx_pause_quanta),
    .rx_stat          (rx_stat)
  );

  beryl_eth_mac_stats #(
    .CNT_W (CNT_W)
  ) u_tx_stats (
    .clk          (tx_clk),
    .rst          (tx_rst),
    .mac_stat     (tx_stat),
    .stat_clear   (tx_stat_clear),
    .stat_rd_addr (tx_stat_rd_addr),
    .stat_rd_data (tx_stat_rd_data)
  );

  beryl_eth_mac_stats #(
    .CNT_W (CNT_W)
  ) u_rx_stats (
    .clk          (rx_clk),
    .rst          (rx_rst),
    .mac_stat     (rx_stat),
    .stat_clear   (rx_stat_clear),
    .stat_rd_addr (rx_stat_rd_addr),
    .stat_rd_data (rx_stat_rd_data)
  );

endmodule

`resetall
