// SPDX-License-Identifier: MIT
// Throughput bench harness (not synthesised): a segmented-word frame generator feeding
// beryl_eth_mac_100g_tx back to back, its CGMII word looped to beryl_eth_mac_100g_rx, and counters that
// time the statistics records of both halves, so a benchmark needs no per-clock Python. One clock.
`default_nettype none

module beryl_eth_mac_100g_bench_tb (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic        start,        // pulse: send frame_count frames of frame_len bytes
  input  wire logic [13:0] frame_len,    // bytes handed to the MAC (DA..payload, no FCS), 49..9212
  input  wire logic [15:0] frame_count,
  output      logic [15:0] tx_frames,    // TX records seen since start
  output      logic [31:0] tx_first,     // cycle of the first / latest TX record
  output      logic [31:0] tx_last,
  output      logic [15:0] rx_good,      // RX records of good frames since start
  output      logic [15:0] rx_bad,
  output      logic [31:0] rx_first,
  output      logic [31:0] rx_last,
  output      logic [15:0] tx_underflow,
  output      logic [31:0] rx_drop       // rx_drop_count + rx_short_count of the RX
);

  logic [31:0]  cycle_q;
  logic [15:0]  left_q, left_d;          // frames not yet started
  logic [9:0]   segs_q, segs_d;          // segments of the current frame not yet sent
  logic [9:0]   nseg;
  logic [3:0]   mty_last;
  logic [511:0] seg_data;
  logic [3:0]   seg_ena, seg_sop, seg_eop;
  logic [15:0]  seg_mty;
  logic         seg_ready;
  logic [511:0] cgmii_d;
  logic [63:0]  cgmii_c;
  logic [31:0]  rx_drop_count, rx_short_count;
  // only the valid/good/underflow flags of the records are counted here
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_eth_pkg::mac_stat_t tx_stat, rx_stat;
  /* verilator lint_on UNUSEDSIGNAL */

  assign nseg     = 10'((frame_len + 14'd15) >> 4);
  assign mty_last = 4'(10'(nseg << 4) - 10'(frame_len));
  assign seg_data = {16{cycle_q}};

  // Densest packing the seg rules allow for frames of >= 4 segments (frame_len >= 49): a frame starts in
  // the segment after the previous eop (it always runs past the word), so no segment is left empty.
  always_comb begin
    logic [9:0]  s;
    logic [15:0] f;
    s       = segs_q;
    f       = left_q;
    seg_ena = '0;
    seg_sop = '0;
    seg_eop = '0;
    seg_mty = '0;
    for (int i = 0; i < 4; i++) begin
      if (s == 10'd0 && f != 16'd0) begin
        seg_sop[i] = 1'b1;
        s          = nseg;
        f          = f - 16'd1;
      end
      if (s != 10'd0) begin
        seg_ena[i] = 1'b1;
        if (s == 10'd1) begin
          seg_eop[i]       = 1'b1;
          seg_mty[4*i +: 4] = mty_last;
        end
        s = s - 10'd1;
      end
    end
    segs_d = s;
    left_d = f;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      cycle_q <= '0;
      left_q  <= '0;
      segs_q  <= '0;
    end else begin
      cycle_q <= cycle_q + 32'd1;
      if (start) begin
        left_q <= frame_count;
        segs_q <= '0;
      end else if (seg_ready && seg_ena != 4'd0) begin
        left_q <= left_d;
        segs_q <= segs_d;
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

  assign rx_drop = rx_drop_count + rx_short_count;

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_eth_mac_100g_tx #(
    .DIC_EN   (1'b1),
    .PTP_TS_W (8),
    .TX_TAG_W (1)
  ) u_tx (
    .clk                (clk),
    .rst                (rst),
    .s_seg_data         (seg_data),
    .s_seg_ena          (seg_ena),
    .s_seg_sop          (seg_sop),
    .s_seg_eop          (seg_eop),
    .s_seg_mty          (seg_mty),
    .s_seg_err          (4'd0),
    .s_seg_tag          (1'b0),
    .s_seg_ready        (seg_ready),
    .cgmii_txd          (cgmii_d),
    .cgmii_txc          (cgmii_c),
    .tx_ptp_ts          (8'd0),
    .tx_ts_valid        (),
    .tx_ts              (),
    .tx_ts_tag          (),
    .tx_ts_col          (),
    .tx_stat            (tx_stat),
    .tx_underflow_count ()
  );

  beryl_eth_mac_100g_rx #(
    .MAX_FRAME_LEN (9216),
    .PTP_TS_W      (8)
  ) u_rx (
    .clk             (clk),
    .rst             (rst),
    .cgmii_rxd       (cgmii_d),
    .cgmii_rxc       (cgmii_c),
    .rx_ptp_ts       (8'd0),
    .m_seg_data      (),
    .m_seg_ena       (),
    .m_seg_sop       (),
    .m_seg_eop       (),
    .m_seg_mty       (),
    .m_seg_err       (),
    .m_seg_ts        (),
    .m_seg_ts_col    (),
    .rx_pause_valid  (),
    .rx_pause_quanta (),
    .rx_stat         (rx_stat),
    .rx_drop_count   (rx_drop_count),
    .rx_short_count  (rx_short_count)
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule

`resetall
