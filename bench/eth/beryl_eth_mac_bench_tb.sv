// SPDX-License-Identifier: MIT
// Throughput bench harness (not synthesised): a frame generator feeding beryl_eth_mac_10g back to
// back, the MAC's XGMII TX looped to its RX, and counters that time the statistics records of both
// halves, so a benchmark needs no per-clock Python. One clock for TX and RX (a perfect loop).
`default_nettype none

module beryl_eth_mac_bench_tb (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic        start,        // pulse: send frame_count frames of frame_len bytes
  input  wire logic [13:0] frame_len,    // bytes handed to the MAC (DA through payload, no FCS), 14..9212
  input  wire logic [15:0] frame_count,
  output      logic [15:0] tx_frames,    // TX records seen since start
  output      logic [31:0] tx_first,     // cycle of the first / latest TX record
  output      logic [31:0] tx_last,
  output      logic [15:0] rx_good,      // RX records of good frames since start
  output      logic [15:0] rx_bad,
  output      logic [31:0] rx_first,
  output      logic [31:0] rx_last,
  output      logic [15:0] tx_underflow
);

  logic [31:0] cycle_q;
  logic [15:0] left_q;
  logic [13:0] sent_q;      // bytes of the current frame already handed over
  logic [63:0] tdata;
  logic [7:0]  tkeep;
  logic        tvalid, tready, tlast;
  logic [13:0] rest;
  logic [63:0] xgmii_d;
  logic [7:0]  xgmii_c;
  // only the valid/good/underflow flags of the records are counted here
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_eth_pkg::mac_stat_t tx_stat, rx_stat;
  /* verilator lint_on UNUSEDSIGNAL */

  assign rest   = frame_len - sent_q;
  assign tvalid = left_q != 16'd0;
  assign tlast  = rest <= 14'd8;
  assign tkeep  = tlast ? 8'((16'h1 << rest) - 16'h1) : 8'hff;
  assign tdata  = {cycle_q, 2'b00, sent_q, left_q};

  always_ff @(posedge clk) begin
    if (rst) begin
      cycle_q <= '0;
      left_q  <= '0;
      sent_q  <= '0;
    end else begin
      cycle_q <= cycle_q + 32'd1;
      if (start) begin
        left_q <= frame_count;
        sent_q <= '0;
      end else if (tvalid && tready) begin
        sent_q <= tlast ? 14'd0 : sent_q + 14'd8;
        if (tlast) left_q <= left_q - 16'd1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst || start) begin
      tx_frames    <= '0;
      rx_good      <= '0;
      rx_bad       <= '0;
      tx_underflow <= '0;
    end else begin
      if (tx_stat.valid) begin
        tx_frames <= tx_frames + 16'd1;
        if (tx_frames == 16'd0) tx_first <= cycle_q;
        tx_last <= cycle_q;
        if (tx_stat.underflow) tx_underflow <= tx_underflow + 16'd1;
      end
      if (rx_stat.valid && rx_stat.good) begin
        rx_good <= rx_good + 16'd1;
        if (rx_good == 16'd0) rx_first <= cycle_q;
        rx_last <= cycle_q;
      end
      if (rx_stat.valid && !rx_stat.good) rx_bad <= rx_bad + 16'd1;
    end
  end

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_eth_mac_10g #(
    .PTP_TS_W (8),
    .TX_TAG_W (1)
  ) u_mac (
    .tx_clk           (clk),
    .tx_rst           (rst),
    .rx_clk           (clk),
    .rx_rst           (rst),
    .s_axis_tx_tdata  (tdata),
    .s_axis_tx_tkeep  (tkeep),
    .s_axis_tx_tvalid (tvalid),
    .s_axis_tx_tready (tready),
    .s_axis_tx_tlast  (tlast),
    .s_axis_tx_tuser  (2'b00),
    .m_axis_rx_tdata  (),
    .m_axis_rx_tkeep  (),
    .m_axis_rx_tvalid (),
    .m_axis_rx_tlast  (),
    .m_axis_rx_tuser  (),
    .xgmii_txd        (xgmii_d),
    .xgmii_txc        (xgmii_c),
    .xgmii_rxd        (xgmii_d),
    .xgmii_rxc        (xgmii_c),
    .tx_ptp_ts        (8'd0),
    .tx_ts_valid      (),
    .tx_ts            (),
    .tx_ts_tag        (),
    .rx_ptp_ts        (8'd0),
    .rx_pause_valid   (),
    .rx_pause_quanta  (),
    .tx_stat          (tx_stat),
    .rx_stat          (rx_stat),
    .tx_stat_clear    (1'b0),
    .tx_stat_rd_addr  (5'd0),
    .tx_stat_rd_data  (),
    .rx_stat_clear    (1'b0),
    .rx_stat_rd_addr  (5'd0),
    .rx_stat_rd_data  ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`resetall
