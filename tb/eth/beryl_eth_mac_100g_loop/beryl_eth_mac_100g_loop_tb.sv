// SPDX-License-Identifier: MIT
// Test harness (not for synthesis): beryl_eth_mac_100g_tx with its CGMII word looped straight into
// beryl_eth_mac_100g_rx (the RX input register is the only wire delay). Both halves sample one PTP time
// input, so RX ts - TX ts of a frame is the loop's fixed delay. The wire word is brought out so the bench
// can watch it.
`default_nettype none

module beryl_eth_mac_100g_loop_tb #(
  parameter int unsigned PTP_TS_W = 96,  // timestamp width, bits (1..128)
  parameter int unsigned TX_TAG_W = 16   // TX frame tag width, bits (1..64)
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  input  wire logic [PTP_TS_W-1:0]   ptp_ts,

  input  wire logic [511:0]          s_seg_data,
  input  wire logic [3:0]            s_seg_ena,
  input  wire logic [3:0]            s_seg_sop,
  input  wire logic [3:0]            s_seg_eop,
  input  wire logic [15:0]           s_seg_mty,
  input  wire logic [3:0]            s_seg_err,
  input  wire logic [TX_TAG_W-1:0]   s_seg_tag,
  output      logic                  s_seg_ready,

  output      logic                  tx_ts_valid,
  output      logic [PTP_TS_W-1:0]   tx_ts,
  output      logic [TX_TAG_W-1:0]   tx_ts_tag,
  output      logic [2:0]            tx_ts_col,

  output      logic [511:0]          m_seg_data,
  output      logic [3:0]            m_seg_ena,
  output      logic [3:0]            m_seg_sop,
  output      logic [3:0]            m_seg_eop,
  output      logic [15:0]           m_seg_mty,
  output      logic [3:0]            m_seg_err,
  output      logic [PTP_TS_W-1:0]   m_seg_ts,
  output      logic [2:0]            m_seg_ts_col,

  output      logic [511:0]          cgmii_d,
  output      logic [63:0]           cgmii_c,
  output      beryl_eth_pkg::mac_stat_t tx_stat,
  output      beryl_eth_pkg::mac_stat_t rx_stat,
  output      logic [31:0]           tx_underflow_count,
  output      logic [31:0]           rx_drop_count,
  output      logic [31:0]           rx_short_count
);

  /* verilator lint_off UNUSEDSIGNAL */  // bench harness: PAUSE is not exercised by the loop test
  logic        rx_pause_valid;
  logic [15:0] rx_pause_quanta;
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_eth_mac_100g_tx #(
    .DIC_EN   (1'b1),
    .PTP_TS_W (PTP_TS_W),
    .TX_TAG_W (TX_TAG_W)
  ) u_tx (
    .clk                (clk),
    .rst                (rst),
    .s_seg_data         (s_seg_data),
    .s_seg_ena          (s_seg_ena),
    .s_seg_sop          (s_seg_sop),
    .s_seg_eop          (s_seg_eop),
    .s_seg_mty          (s_seg_mty),
    .s_seg_err          (s_seg_err),
    .s_seg_tag          (s_seg_tag),
    .s_seg_ready        (s_seg_ready),
    .cgmii_txd          (cgmii_d),
    .cgmii_txc          (cgmii_c),
    .tx_ptp_ts          (ptp_ts),
    .tx_ts_valid        (tx_ts_valid),
    .tx_ts              (tx_ts),
    .tx_ts_tag          (tx_ts_tag),
    .tx_ts_col          (tx_ts_col),
    .tx_stat            (tx_stat),
    .tx_underflow_count (tx_underflow_count)
  );

  beryl_eth_mac_100g_rx #(
    .MAX_FRAME_LEN (9216),
    .PTP_TS_W      (PTP_TS_W)
  ) u_rx (
    .clk             (clk),
    .rst             (rst),
    .cgmii_rxd       (cgmii_d),
    .cgmii_rxc       (cgmii_c),
    .rx_ptp_ts       (ptp_ts),
    .m_seg_data      (m_seg_data),
    .m_seg_ena       (m_seg_ena),
    .m_seg_sop       (m_seg_sop),
    .m_seg_eop       (m_seg_eop),
    .m_seg_mty       (m_seg_mty),
    .m_seg_err       (m_seg_err),
    .m_seg_ts        (m_seg_ts),
    .m_seg_ts_col    (m_seg_ts_col),
    .rx_pause_valid  (rx_pause_valid),
    .rx_pause_quanta (rx_pause_quanta),
    .rx_stat         (rx_stat),
    .rx_drop_count   (rx_drop_count),
    .rx_short_count  (rx_short_count)
  );

endmodule

`resetall
