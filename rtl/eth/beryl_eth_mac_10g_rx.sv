// SPDX-License-Identifier: MIT
// 10G/25G Ethernet MAC receiver: 64-bit SDR XGMII in (frames start in lane 0 or lane 4), AXI-Stream
// (64-bit) out with preamble and FCS stripped. Checks the FCS, flags runts, oversize frames and control
// characters inside frames with tuser[0] on the last beat, recognises PAUSE frames and counts all of it.
// Latency: /S/ on XGMII to first beat 5 cycles; throughput one 8-byte word per clock. No backpressure:
// the wire cannot wait, so the consumer must take a beat every cycle it is valid.
`default_nettype none

module beryl_eth_mac_10g_rx #(
  parameter int unsigned PTP_TS_W      = 64,   // width of the PTP time value sampled at the SFD, 1..128
  parameter int unsigned MAX_FRAME_LEN = 9216  // longest good frame, DA through FCS, bytes, 64..16000;
                                               // longer frames are cut there and flagged
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  input  wire logic [63:0]           xgmii_rxd,
  input  wire logic [7:0]            xgmii_rxc,

  // tuser[0]: frame bad (FCS, runt, oversize, control character), valid on the last beat;
  // tuser[PTP_TS_W:1]: time of the frame's SFD, valid on every beat
  output      logic [63:0]           m_axis_rx_tdata,
  output      logic [7:0]            m_axis_rx_tkeep,
  output      logic                  m_axis_rx_tvalid,
  output      logic                  m_axis_rx_tlast,
  output      logic [PTP_TS_W:0]     m_axis_rx_tuser,

  // time value sampled at the clock edge that registers the XGMII word carrying the SFD
  input  wire logic [PTP_TS_W-1:0]   rx_ptp_ts,

  output      logic                  rx_pause_valid,   // good PAUSE frame received (IEEE 802.3 annex 31B)
  output      logic [15:0]           rx_pause_quanta,
  output      beryl_eth_pkg::mac_stat_t rx_stat
);

  if (MAX_FRAME_LEN < 64 || MAX_FRAME_LEN > 16000) begin : g_bad_max
    $error("%m: MAX_FRAME_LEN must be within 64..16000");
  end

  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;

  // ---------------------------------------------------------------------------------------------
  // Input registers and lane alignment: a frame that starts in lane 4 is shifted by half a word so
  // that every frame reaches the parser with /S/ in lane 0.
  // ---------------------------------------------------------------------------------------------
  logic [63:0]         rxd1_q, rxd2_q;
  logic [7:0]          rxc1_q, rxc2_q;
  logic [PTP_TS_W-1:0] ts1_q, ts2_q;
  logic                off_q, off_now;
  logic [63:0]         ad;
  logic [7:0]          ac;
  logic [PTP_TS_W-1:0] ts_al;

  always_ff @(posedge clk) begin
    if (rst) begin
      rxc1_q <= 8'hff;
      rxc2_q <= 8'hff;
      rxd1_q <= {8{beryl_eth_pkg::XGMII_IDLE}};
      rxd2_q <= {8{beryl_eth_pkg::XGMII_IDLE}};
      off_q  <= 1'b0;
    end else begin
      rxc1_q <= xgmii_rxc;
      rxc2_q <= rxc1_q;
      rxd1_q <= xgmii_rxd;
      rxd2_q <= rxd1_q;
      off_q  <= off_now;
    end
    ts1_q <= rx_ptp_ts;
    ts2_q <= ts1_q;
  end

  always_comb begin
    off_now = off_q;
    if (rxc2_q[0] && rxd2_q[7:0] == beryl_eth_pkg::XGMII_START) begin
      off_now = 1'b0;
    end else if (rxc2_q[4] && rxd2_q[39:32] == beryl_eth_pkg::XGMII_START) begin
      off_now = 1'b1;
    end
    ad    = off_now ? {rxd1_q[31:0], rxd2_q[63:32]} : rxd2_q;
    ac    = off_now ? {rxc1_q[3:0], rxc2_q[7:4]} : rxc2_q;
    ts_al = off_now ? ts1_q : ts2_q;
  end

  // ---------------------------------------------------------------------------------------------
  // Parser on the aligned words
  // ---------------------------------------------------------------------------------------------
  typedef enum logic [1:0] {P_IDLE, P_DATA, P_DISCARD} p_state_e;

  p_state_e              st_q, st_d;
  logic [3:0]            j;                 // first control lane, 8 if none
  logic                  start_ok, start_seen, is_term;
  logic [31:0]           crc_q, crc_d;
  logic [31:0]           crc_n [9];
  logic [STAT_LEN_W-1:0] len_q, len_d;
  logic [STAT_LEN_W:0]   len_end, len_full;
  logic [63:0]           h_q, h_d;          // newest data word of the frame, not yet emitted
  logic                  h_valid_q, h_valid_d;
  logic                  pend_q, pend_d;    // h_q is the final beat, emit it next cycle
  logic [7:0]            pend_keep_q, pend_keep_d;
  logic                  pend_err_q, pend_err_d;
  logic [PTP_TS_W-1:0]   ts_q, ts_d;
  logic [1:0]            wcnt_q, wcnt_d;    // data words seen, saturating at 3
  logic                  pause_q, pause_d;
  logic [15:0]           quanta_q, quanta_d;
  logic                  bcast_q, bcast_d, mcast_q, mcast_d;

  logic [63:0]           o_data_q, o_data_d;
  logic [7:0]            o_keep_q, o_keep_d;
  logic                  o_valid_q, o_valid_d;
  logic                  o_last_q, o_last_d;
  logic                  o_err_q, o_err_d;
  logic [PTP_TS_W-1:0]   o_ts_q, o_ts_d;

  beryl_eth_pkg::mac_stat_t stat_d, stat_q;
  logic                  pause_out_d, pause_out_q;

  // end-of-frame verdict for the word in `ad`
  logic                  bad_fcs, runt, oversize, err_ctrl, bad;

  always_comb begin
    j = 4'd8;
    for (int i = 7; i >= 0; i--) begin
      if (ac[i]) j = 4'(i);
    end
  end

  assign start_seen = ac[0] && ad[7:0] == beryl_eth_pkg::XGMII_START;
  // clause 4.2.9 / 46.3.3: after /S/ the MAC looks for the SFD; preamble bytes themselves are not checked
  assign start_ok   = start_seen && ac[7:1] == 7'd0 && ad[63:56] == beryl_eth_pkg::ETH_SFD;
  assign is_term    = (j != 4'd8) && ad[8*j[2:0] +: 8] == beryl_eth_pkg::XGMII_TERM;

  always_comb begin
    for (int unsigned k = 0; k <= 8; k++) begin
      crc_n[k] = beryl_eth_pkg::crc32_upd(crc_q, ad, k);
    end
  end

  assign len_end  = {1'b0, len_q} + (STAT_LEN_W + 1)'(j);
  assign len_full = {1'b0, len_q} + (STAT_LEN_W + 1)'(8);

  assign bad_fcs  = crc_n[j] != beryl_eth_pkg::CRC32_RESIDUE;
  assign runt     = len_end < (STAT_LEN_W + 1)'(beryl_eth_pkg::MIN_FRAME_LEN);
  assign oversize = len_end > (STAT_LEN_W + 1)'(MAX_FRAME_LEN);
  assign err_ctrl = !is_term;
  assign bad      = bad_fcs || runt || oversize || err_ctrl;

  always_comb begin
    st_d        = st_q;
    crc_d       = crc_q;
    len_d       = len_q;
    h_d         = h_q;
    h_valid_d   = h_valid_q;
    pend_d      = 1'b0;
    pend_keep_d = pend_keep_q;
    pend_err_d  = pend_err_q;
    ts_d        = ts_q;
    wcnt_d      = wcnt_q;
    pause_d     = pause_q;
    quanta_d    = quanta_q;
    bcast_d     = bcast_q;
    mcast_d     = mcast_q;
    o_data_d    = h_q;
    o_keep_d    = 8'hff;
    o_valid_d   = 1'b0;
    o_last_d    = 1'b0;
    o_err_d     = 1'b0;
    o_ts_d      = ts_q;
    stat_d      = '0;
    pause_out_d = 1'b0;

    // final beat held over from the previous cycle (frame ended with more than 4 bytes in its last word)
    if (pend_q) begin
      o_valid_d = 1'b1;
      o_last_d  = 1'b1;
      o_keep_d  = pend_keep_q;
      o_err_d   = pend_err_q;
      h_valid_d = 1'b0;
    end

    unique case (st_q)
      P_IDLE: begin
        if (start_seen) st_d = start_ok ? P_DATA : P_DISCARD;
        if (start_seen && !start_ok) begin
          // /S/ without an SFD: no frame to deliver, but count it
          stat_d.valid    = 1'b1;
          stat_d.err_ctrl = 1'b1;
        end
      end

      P_DATA: begin
        if (j == 4'd8) begin
          if (len_full > (STAT_LEN_W + 1)'(MAX_FRAME_LEN)) begin
            // oversize: cut the frame here, flag it, skip the rest
            o_valid_d       = h_valid_q;
            o_last_d        = 1'b1;
            o_err_d         = 1'b1;
            h_valid_d       = 1'b0;
            st_d            = P_DISCARD;
            stat_d.valid    = 1'b1;
            stat_d.oversize = 1'b1;
            stat_d.bcast    = bcast_q;
            stat_d.mcast    = mcast_q;
            stat_d.len      = len_full[STAT_LEN_W] ? '1 : len_full[STAT_LEN_W-1:0];
          end else begin
            o_valid_d = h_valid_q;
            h_d       = ad;
            h_valid_d = 1'b1;
            crc_d     = crc_n[8];
            len_d     = len_full[STAT_LEN_W-1:0];
            if (wcnt_q != 2'd3) wcnt_d = wcnt_q + 2'd1;
            unique case (wcnt_q)
              2'd0: begin
                bcast_d = &ad[47:0];
                mcast_d = ad[0] && !(&ad[47:0]);
              end
              // MAC control (type 0x8808) PAUSE (opcode 0x0001), annex 31B
              2'd1: pause_d = ad[63:32] == 32'h0100_0888;
              2'd2: quanta_d = {ad[7:0], ad[15:8]};
              default: ;
            endcase
          end
        end else begin
          // frame ends in this word: the last 4 data bytes are the FCS
          stat_d.valid    = 1'b1;
          stat_d.good     = !bad;
          stat_d.bad_fcs  = bad_fcs;
          stat_d.runt     = runt;
          stat_d.oversize = oversize;
          stat_d.err_ctrl = err_ctrl;
          stat_d.pause    = pause_q && !bad;
          stat_d.bcast    = bcast_q;
          stat_d.mcast    = mcast_q;
          stat_d.len      = len_end[STAT_LEN_W-1:0];
          pause_out_d     = pause_q && !bad;
          h_valid_d       = 1'b0;
          st_d            = P_IDLE;
          if (j >= 4'd5) begin
            o_valid_d   = h_valid_q;
            h_d         = ad;
            pend_d      = 1'b1;
            pend_keep_d = 8'((16'h1 << (j - 4'd4)) - 16'h1);
            pend_err_d  = bad;
          end else begin
            o_valid_d = h_valid_q;
            o_last_d  = 1'b1;
            o_err_d   = bad;
            o_keep_d  = 8'((16'h1 << (j + 4'd4)) - 16'h1);
          end
          // a new /S/ in lane 0 ends this frame (as an error) and starts the next one
          if (j == 4'd0 && start_seen) st_d = start_ok ? P_DATA : P_DISCARD;
        end
      end

      P_DISCARD: begin
        if (j != 4'd8) begin
          st_d = P_IDLE;
          if (j == 4'd0 && start_seen) st_d = start_ok ? P_DATA : P_DISCARD;
        end
      end

      default: st_d = P_IDLE;
    endcase

    // a frame begins: fresh CRC, counters and timestamp
    if ((st_d == P_DATA && st_q != P_DATA) || (st_q == P_DATA && j == 4'd0 && start_ok)) begin
      crc_d     = 32'hffffffff;
      len_d     = '0;
      h_valid_d = 1'b0;
      wcnt_d    = 2'd0;
      pause_d   = 1'b0;
      bcast_d   = 1'b0;
      mcast_d   = 1'b0;
      ts_d      = ts_al;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q        <= P_IDLE;
      h_valid_q   <= 1'b0;
      pend_q      <= 1'b0;
      o_valid_q   <= 1'b0;
      stat_q      <= '0;
      pause_out_q <= 1'b0;
    end else begin
      st_q        <= st_d;
      h_valid_q   <= h_valid_d;
      pend_q      <= pend_d;
      o_valid_q   <= o_valid_d;
      stat_q      <= stat_d;
      pause_out_q <= pause_out_d;
    end
    crc_q       <= crc_d;
    len_q       <= len_d;
    h_q         <= h_d;
    pend_keep_q <= pend_keep_d;
    pend_err_q  <= pend_err_d;
    ts_q        <= ts_d;
    wcnt_q      <= wcnt_d;
    pause_q     <= pause_d;
    quanta_q    <= quanta_d;
    bcast_q     <= bcast_d;
    mcast_q     <= mcast_d;
    o_data_q    <= o_data_d;
    o_keep_q    <= o_keep_d;
    o_last_q    <= o_last_d;
    o_err_q     <= o_err_d;
    o_ts_q      <= o_ts_d;
  end

  assign m_axis_rx_tdata  = o_data_q;
  assign m_axis_rx_tkeep  = o_keep_q;
  assign m_axis_rx_tvalid = o_valid_q;
  assign m_axis_rx_tlast  = o_last_q;
  assign m_axis_rx_tuser  = {o_ts_q, o_err_q};
  assign rx_pause_valid   = pause_out_q;
  assign rx_pause_quanta  = quanta_q;
  assign rx_stat          = stat_q;

endmodule

`resetall
