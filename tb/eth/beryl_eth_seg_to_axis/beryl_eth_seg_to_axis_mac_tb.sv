// SPDX-License-Identifier: MIT
// Test harness (not for synthesis): beryl_eth_mac_100g_rx followed by beryl_eth_seg_to_axis, so the
// adapter is checked on the real MAC's seg output (wire words in, frame-aligned AXI-Stream out).
`default_nettype none

module beryl_eth_seg_to_axis_mac_tb #(
  parameter int unsigned PTP_TS_W   = 96,    // timestamp width, bits (1..128)
  parameter int unsigned FIFO_WORDS = 64,    // adapter buffer, beats
  parameter int unsigned MAX_FRAME  = 16384  // adapter cut length, bytes
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  input  wire logic [511:0]          cgmii_rxd,
  input  wire logic [63:0]           cgmii_rxc,
  input  wire logic [PTP_TS_W-1:0]   rx_ptp_ts,

  output      logic [511:0]          m_axis_tdata,
  output      logic [63:0]           m_axis_tkeep,
  output      logic                  m_axis_tvalid,
  input  wire logic                  m_axis_tready,
  output      logic                  m_axis_tlast,
  output      logic                  m_axis_tuser,
  output      logic [PTP_TS_W-1:0]   m_axis_ts,
  output      logic [31:0]           drop_count,
  output      logic [31:0]           cut_count,
  output      logic [31:0]           rx_drop_count,
  output      logic [31:0]           rx_short_count
);

  logic [511:0]          seg_data;
  logic [3:0]            seg_ena, seg_sop, seg_eop, seg_err;
  logic [15:0]           seg_mty;
  logic [PTP_TS_W-1:0]   seg_ts;
  /* verilator lint_off UNUSEDSIGNAL */  // bench harness: column, PAUSE and records are not checked here
  logic [2:0]            seg_ts_col;
  logic                  rx_pause_valid;
  logic [15:0]           rx_pause_quanta;
  beryl_eth_pkg::mac_stat_t rx_stat;
  /* verilator lint_on UNUSEDSIGNAL */

  beryl_eth_mac_100g_rx #(
    .MAX_FRAME_LEN (9216),
    .PTP_TS_W      (PTP_TS_W)
  ) u_rx (
    .clk             (clk),
    .rst             (rst),
    .cgmii_rxd       (cgmii_rxd),
    .cgmii_rxc       (cgmii_rxc),
    .rx_ptp_ts       (rx_ptp_ts),
    .m_seg_data      (seg_data),
    .m_seg_ena       (seg_ena),
    .m_seg_sop       (seg_sop),
    .m_seg_eop       (seg_eop),
    .m_seg_mty       (seg_mty),
    .m_seg_err       (seg_err),
    .m_seg_ts        (seg_ts),
    .m_seg_ts_col    (seg_ts_col),
    .rx_pause_valid  (rx_pause_valid),
    .rx_pause_quanta (rx_pause_quanta),
    .rx_stat         (rx_stat),
    .rx_drop_count   (rx_drop_count),
    .rx_short_count  (rx_short_count)
  );

  beryl_eth_seg_to_axis #(
    .TS_W       (PTP_TS_W),
    .FIFO_WORDS (FIFO_WORDS),
    .MAX_FRAME  (MAX_FRAME)
  ) u_adapter (
    .clk           (clk),
    .rst           (rst),
    .s_seg_data    (seg_data),
    .s_seg_ena     (seg_ena),
    .s_seg_sop     (seg_sop),
    .s_seg_eop     (seg_eop),
    .s_seg_mty     (seg_mty),
    .s_seg_err     (seg_err),
    .s_seg_ts      (seg_ts),
    .m_axis_tdata  (m_axis_tdata),
    .m_axis_tkeep  (m_axis_tkeep),
    .m_axis_tvalid (m_axis_tvalid),
    .m_axis_tready (m_axis_tready),
    .m_axis_tlast  (m_axis_tlast),
    .m_axis_tuser  (m_axis_tuser),
    .m_axis_ts     (m_axis_ts),
    .drop_count    (drop_count),
    .cut_count     (cut_count)
  );

endmodule

`resetall
