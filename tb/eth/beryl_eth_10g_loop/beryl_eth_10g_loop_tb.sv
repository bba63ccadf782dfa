// SPDX-License-Identifier: MIT
// Test harness (not for synthesis): one 10G port, beryl_eth_mac_10g over beryl_eth_pcs_10g, with the
// SerDes block interface left open so the bench can model the serial channel. One clock for TX and RX.
`default_nettype none

module beryl_eth_10g_loop_tb (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic [63:0] s_axis_tx_tdata,
  input  wire logic [7:0]  s_axis_tx_tkeep,
  input  wire logic        s_axis_tx_tvalid,
  output      logic        s_axis_tx_tready,
  input  wire logic        s_axis_tx_tlast,
  input  wire logic [16:0] s_axis_tx_tuser,
  output      logic [63:0] m_axis_rx_tdata,
  output      logic [7:0]  m_axis_rx_tkeep,
  output      logic        m_axis_rx_tvalid,
  output      logic        m_axis_rx_tlast,
  output      logic [64:0] m_axis_rx_tuser,
  output      logic [63:0] serdes_tx_data,
  output      logic [1:0]  serdes_tx_hdr,
  input  wire logic [63:0] serdes_rx_data,
  input  wire logic [1:0]  serdes_rx_hdr,
  output      logic        serdes_rx_bitslip,
  output      logic        rx_block_lock,
  input  wire logic [4:0]  rx_stat_rd_addr,
  output      logic [63:0] rx_stat_rd_data
);

  logic [63:0] xgmii_txd, xgmii_rxd;
  logic [7:0]  xgmii_txc, xgmii_rxc;
  /* verilator lint_off UNUSEDSIGNAL */  // bench harness: timestamps, pause and TX stats not checked here
  logic        tx_ts_valid, rx_pause_valid, rx_error_block;
  logic [63:0] tx_ts, tx_stat_rd_data;
  logic [15:0] tx_ts_tag, rx_pause_quanta;
  beryl_eth_pkg::mac_stat_t tx_stat, rx_stat;
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_eth_mac_10g u_mac (
    .tx_clk           (clk),
    .tx_rst           (rst),
    .rx_clk           (clk),
    .rx_rst           (rst),
    .s_axis_tx_tdata  (s_axis_tx_tdata),
    .s_axis_tx_tkeep  (s_axis_tx_tkeep),
    .s_axis_tx_tvalid (s_axis_tx_tvalid),
    .s_axis_tx_tready (s_axis_tx_tready),
    .s_axis_tx_tlast  (s_axis_tx_tlast),
    .s_axis_tx_tuser  (s_axis_tx_tuser),
    .m_axis_rx_tdata  (m_axis_rx_tdata),
    .m_axis_rx_tkeep  (m_axis_rx_tkeep),
    .m_axis_rx_tvalid (m_axis_rx_tvalid),
    .m_axis_rx_tlast  (m_axis_rx_tlast),
    .m_axis_rx_tuser  (m_axis_rx_tuser),
    .xgmii_txd        (xgmii_txd),
    .xgmii_txc        (xgmii_txc),
    .xgmii_rxd        (xgmii_rxd),
    .xgmii_rxc        (xgmii_rxc),
    .tx_ptp_ts        (64'd0),
    .tx_ts_valid      (tx_ts_valid),
    .tx_ts            (tx_ts),
    .tx_ts_tag        (tx_ts_tag),
    .rx_ptp_ts        (64'd0),
    .rx_pause_valid   (rx_pause_valid),
    .rx_pause_quanta  (rx_pause_quanta),
    .tx_stat          (tx_stat),
    .rx_stat          (rx_stat),
    .tx_stat_clear    (1'b0),
    .tx_stat_rd_addr  (5'd0),
    .tx_stat_rd_data  (tx_stat_rd_data),
    .rx_stat_clear    (1'b0),
    .rx_stat_rd_addr  (rx_stat_rd_addr),
    .rx_stat_rd_data  (rx_stat_rd_data)
  );

  beryl_eth_pcs_10g #(
    .SLIP_WAIT (8)
  ) u_pcs (
    .tx_clk            (clk),
    .tx_rst            (rst),
    .rx_clk            (clk),
    .rx_rst            (rst),
    .xgmii_txd         (xgmii_txd),
    .xgmii_txc         (xgmii_txc),
    .xgmii_rxd         (xgmii_rxd),
    .xgmii_rxc         (xgmii_rxc),
    .serdes_tx_data    (serdes_tx_data),
    .serdes_tx_hdr     (serdes_tx_hdr),
    .serdes_rx_data    (serdes_rx_data),
    .serdes_rx_hdr     (serdes_rx_hdr),
    .serdes_rx_bitslip (serdes_rx_bitslip),
    .rx_block_lock     (rx_block_lock),
    .rx_error_block    (rx_error_block)
  );

endmodule

`resetall
