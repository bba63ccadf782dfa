// SPDX-License-Identifier: MIT
// Test harness (not for synthesis): beryl_eth_mac_100g_tx with its CGMII word looped straight into
// beryl_eth_mac_100g_rx, one clock. The wire word is brought out so the bench can watch it.
`default_nettype none

module beryl_eth_mac_100g_loop_tb (
  input  wire logic         clk,
  input  wire logic         rst,
  input  wire logic [511:0] s_axis_tx_tdata,
  input  wire logic [63:0]  s_axis_tx_tkeep,
  input  wire logic         s_axis_tx_tvalid,
  output      logic         s_axis_tx_tready,
  input  wire logic         s_axis_tx_tlast,
  input  wire logic [0:0]   s_axis_tx_tuser,
  output      logic [511:0] m_axis_rx_tdata,
  output      logic [63:0]  m_axis_rx_tkeep,
  output      logic         m_axis_rx_tvalid,
  output      logic         m_axis_rx_tlast,
  output      logic [0:0]   m_axis_rx_tuser,
  output      logic [511:0] cgmii_d,
  output      logic [63:0]  cgmii_c,
  output      beryl_eth_pkg::mac_stat_t tx_stat,
  output      beryl_eth_pkg::mac_stat_t rx_stat,
  output      logic [31:0]  rx_drop_count,
  output      logic [31:0]  rx_short_count
);

  /* verilator lint_off UNUSEDSIGNAL */  // bench harness: pause and TX underflow not checked here
  logic        rx_pause_valid;
  logic [15:0] rx_pause_quanta;
  logic [31:0] tx_underflow_count;
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_eth_mac_100g_tx u_tx (
    .clk                (clk),
    .rst                (rst),
    .s_axis_tx_tdata    (s_axis_tx_tdata),
    .s_axis_tx_tkeep    (s_axis_tx_tkeep),
    .s_axis_tx_tvalid   (s_axis_tx_tvalid),
    .s_axis_tx_tready   (s_axis_tx_tready),
    .s_axis_tx_tlast    (s_axis_tx_tlast),
    .s_axis_tx_tuser    (s_axis_tx_tuser),
    .cgmii_txd          (cgmii_d),
    .cgmii_txc          (cgmii_c),
    .tx_stat            (tx_stat),
    .tx_underflow_count (tx_underflow_count)
  );

  beryl_eth_mac_100g_rx u_rx (
    .clk              (clk),
    .rst              (rst),
    .cgmii_rxd        (cgmii_d),
    .cgmii_rxc        (cgmii_c),
    .m_axis_rx_tdata  (m_axis_rx_tdata),
    .m_axis_rx_tkeep  (m_axis_rx_tkeep),
    .m_axis_rx_tvalid (m_axis_rx_tvalid),
    .m_axis_rx_tlast  (m_axis_rx_tlast),
    .m_axis_rx_tuser  (m_axis_rx_tuser),
    .rx_pause_valid   (rx_pause_valid),
    .rx_pause_quanta  (rx_pause_quanta),
    .rx_stat          (rx_stat),
    .rx_drop_count    (rx_drop_count),
    .rx_short_count   (rx_short_count)
  );

endmodule

`resetall
