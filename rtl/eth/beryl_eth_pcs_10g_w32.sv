// SPDX-License-Identifier: MIT
// 10GBASE-R / 25GBASE-R PCS with a 32-bit SerDes interface: beryl_eth_pcs_10g (XGMII 64-bit at tx_clk /
// rx_clk) behind beryl_eth_pcs_serdes_w32 (32 bits + header-valid on the first half at 2x those clocks).
// Latency TX 2 clocks + 1 SerDes clock, RX 1 or 2 SerDes clocks + 2 clocks. One block per clock.
`default_nettype none

module beryl_eth_pcs_10g_w32 #(
  parameter int unsigned SLIP_WAIT = 32  // rx_clk clocks to ignore headers after a slip request, 1..255;
                                         // cover the SerDes gearbox settling plus 3 for the converter
) (
  input  wire logic        tx_clk,          // f: 156.25 MHz for 10G
  input  wire logic        tx_rst,
  input  wire logic        rx_clk,          // f, recovered (or tx_clk with the SerDes RX buffer on)
  input  wire logic        rx_rst,
  input  wire logic        serdes_tx_clk,   // 2 x tx_clk, same source, phase aligned
  input  wire logic        serdes_tx_rst,
  input  wire logic        serdes_rx_clk,   // 2 x rx_clk, same source, phase aligned
  input  wire logic        serdes_rx_rst,

  input  wire logic [63:0] xgmii_txd,
  input  wire logic [7:0]  xgmii_txc,
  output      logic [63:0] xgmii_rxd,
  output      logic [7:0]  xgmii_rxc,

  output      logic [31:0] serdes_tx_data,
  output      logic [1:0]  serdes_tx_hdr,
  output      logic        serdes_tx_hdr_valid,
  input  wire logic [31:0] serdes_rx_data,
  input  wire logic [1:0]  serdes_rx_hdr,
  input  wire logic        serdes_rx_hdr_valid,
  output      logic        serdes_rx_bitslip,

  output      logic        rx_block_lock,
  output      logic        rx_error_block,
  output      logic        rx_fill_block,   // converter had no whole block for this rx_clk (see the converter)
  output      logic        rx_half_shift    // converter takes blocks one half later (header on the mid edge)
);

  logic [63:0] pcs_tx_data;
  logic [1:0]  pcs_tx_hdr;
  logic [63:0] pcs_rx_data;
  logic [1:0]  pcs_rx_hdr;
  logic        pcs_rx_bitslip;

  beryl_eth_pcs_10g #(
    .SLIP_WAIT (SLIP_WAIT)
  ) u_pcs (
    .tx_clk            (tx_clk),
    .tx_rst            (tx_rst),
    .rx_clk            (rx_clk),
    .rx_rst            (rx_rst),
    .xgmii_txd         (xgmii_txd),
    .xgmii_txc         (xgmii_txc),
    .xgmii_rxd         (xgmii_rxd),
    .xgmii_rxc         (xgmii_rxc),
    .serdes_tx_data    (pcs_tx_data),
    .serdes_tx_hdr     (pcs_tx_hdr),
    .serdes_rx_data    (pcs_rx_data),
    .serdes_rx_hdr     (pcs_rx_hdr),
    .serdes_rx_bitslip (pcs_rx_bitslip),
    .rx_block_lock     (rx_block_lock),
    .rx_error_block    (rx_error_block)
  );

  beryl_eth_pcs_serdes_w32 u_w32 (
    .tx_clk              (tx_clk),
    .tx_rst              (tx_rst),
    .pcs_tx_data         (pcs_tx_data),
    .pcs_tx_hdr          (pcs_tx_hdr),
    .serdes_tx_clk       (serdes_tx_clk),
    .serdes_tx_rst       (serdes_tx_rst),
    .serdes_tx_data      (serdes_tx_data),
    .serdes_tx_hdr       (serdes_tx_hdr),
    .serdes_tx_hdr_valid (serdes_tx_hdr_valid),
    .serdes_rx_clk       (serdes_rx_clk),
    .serdes_rx_rst       (serdes_rx_rst),
    .serdes_rx_data      (serdes_rx_data),
    .serdes_rx_hdr       (serdes_rx_hdr),
    .serdes_rx_hdr_valid (serdes_rx_hdr_valid),
    .serdes_rx_bitslip   (serdes_rx_bitslip),
    .rx_clk              (rx_clk),
    .rx_rst              (rx_rst),
    .pcs_rx_data         (pcs_rx_data),
    .pcs_rx_hdr          (pcs_rx_hdr),
    .pcs_rx_bitslip      (pcs_rx_bitslip),
    .rx_fill_block       (rx_fill_block),
    .rx_half_shift       (rx_half_shift)
  );

endmodule

`resetall
