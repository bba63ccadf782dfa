// SPDX-License-Identifier: MIT
// 10GBASE-R PCS: beryl_eth_pcs_10g_tx and beryl_eth_pcs_10g_rx side by side on a 64-bit SerDes
// interface that carries one 66-bit block per clock (payload + sync header; the gearbox lives in the
// SerDes). TX in tx_clk, RX in rx_clk (the recovered clock). Latency 2 cycles each way.
`default_nettype none

module beryl_eth_pcs_10g #(
  parameter int unsigned SLIP_WAIT = 32  // clocks the SerDes gearbox needs after a bit slip, 1..255
) (
  input  wire logic        tx_clk,
  input  wire logic        tx_rst,
  input  wire logic        rx_clk,
  input  wire logic        rx_rst,

  input  wire logic [63:0] xgmii_txd,
  input  wire logic [7:0]  xgmii_txc,
  output      logic [63:0] xgmii_rxd,
  output      logic [7:0]  xgmii_rxc,

  output      logic [63:0] serdes_tx_data,
  output      logic [1:0]  serdes_tx_hdr,
  input  wire logic [63:0] serdes_rx_data,
  input  wire logic [1:0]  serdes_rx_hdr,
  output      logic        serdes_rx_bitslip,

  output      logic        rx_block_lock,
  output      logic        rx_error_block
);

  beryl_eth_pcs_10g_tx u_tx (
    .clk            (tx_clk),
    .rst            (tx_rst),
    .xgmii_txd      (xgmii_txd),
    .xgmii_txc      (xgmii_txc),
    .serdes_tx_data (serdes_tx_data),
    .serdes_tx_hdr  (serdes_tx_hdr)
  );

  beryl_eth_pcs_10g_rx #(
    .SLIP_WAIT (SLIP_WAIT)
  ) u_rx (
    .clk               (rx_clk),
    .rst               (rx_rst),
    .serdes_rx_data    (serdes_rx_data),
    .serdes_rx_hdr     (serdes_rx_hdr),
    .serdes_rx_bitslip (serdes_rx_bitslip),
    .xgmii_rxd         (xgmii_rxd),
    .xgmii_rxc         (xgmii_rxc),
    .rx_block_lock     (rx_block_lock),
    .rx_error_block    (rx_error_block)
  );

endmodule

`resetall
