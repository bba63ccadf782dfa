// SPDX-License-Identifier: MIT
// 10G/25G Ethernet MAC transmitter: AXI-Stream (64-bit) in, 64-bit SDR XGMII out. Adds preamble/SFD,
// pads to 60 bytes, appends the FCS and keeps the inter-frame gap at an exact 12-byte average with
// the deficit idle count. Latency: tvalid to /S/ on XGMII 2 cycles; throughput one 8-byte beat per clock.
//
// The user stream must deliver a frame without gaps once its first beat is taken (a store-and-forward
// FIFO in front guarantees that); if it runs dry mid-frame the MAC ends the frame with /E/ (underflow),
// drops the rest of that frame and counts it. tkeep must be all ones except on the last beat, where it
// is contiguous from bit 0.
`default_nettype none

module beryl_eth_mac_10g_tx #(
  parameter int unsigned PTP_TS_W = 64,  // width of the PTP time value sampled at the SFD, 1..128
  parameter int unsigned TX_TAG_W = 16,  // width of the tag returned with a TX timestamp, 1..32
  parameter bit          DIC_EN   = 1'b1 // 1: deficit idle count (average IFG 12); 0: IFG >= 12 always
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  // frame stream; tuser[0] on the last beat aborts the frame (sent ending in /E/),
  // tuser[TX_TAG_W:1] on the first beat is the tag returned with the frame's timestamp
  input  wire logic [63:0]           s_axis_tx_tdata,
  input  wire logic [7:0]            s_axis_tx_tkeep,
  input  wire logic                  s_axis_tx_tvalid,
  output      logic                  s_axis_tx_tready,
  input  wire logic                  s_axis_tx_tlast,
  input  wire logic [TX_TAG_W:0]     s_axis_tx_tuser,

  output      logic [63:0]           xgmii_txd,
  output      logic [7:0]            xgmii_txc,

  // time value sampled at the clock edge that puts the frame's SFD on xgmii_txd
  input  wire logic [PTP_TS_W-1:0]   tx_ptp_ts,
  output      logic                  tx_ts_valid,  // one pulse per frame started, in start order
  output      logic [PTP_TS_W-1:0]   tx_ts,
  output      logic [TX_TAG_W-1:0]   tx_ts_tag,

  output      beryl_eth_pkg::mac_stat_t tx_stat
);

  // ---------------------------------------------------------------------------------------------
  // Stage 1: frame builder. Turns user beats into a stream of 8-byte words holding the frame from DA
  // through FCS: short frames padded to 60 bytes, FCS in the 4 bytes after the payload (spilling
  // into one extra word when the last beat holds more than 4 bytes).
  // ---------------------------------------------------------------------------------------------
  typedef enum logic [1:0] {S1_DATA, S1_PAD, S1_SPILL} s1_state_e;

  s1_state_e             s1_q, s1_d;
  logic [63:0]           w_data_q, w_data_d;
  logic [7:0]            w_keep_q, w_keep_d;
  logic                  w_last_q, w_last_d;
  logic                  w_err_q, w_err_d;
  logic                  w_valid_q, w_valid_d;
  logic [TX_TAG_W-1:0]   w_tag_q, w_tag_d;
  logic                  w_ready;
  logic [31:0]           crc_q, crc_d;
  logic [6:0]            cnt_q, cnt_d;        // frame bytes emitted so far, saturating at 64
  logic                  first_q, first_d;    // next user beat is the first of a frame
  logic [31:0]           spill_q, spill_d;    // FCS bytes left for the spill word
  logic [2:0]            spill_n_q, spill_n_d;
  logic                  err_q, err_d;        // abort requested, applied to the frame's last word

  logic                  s1_adv;
  logic [3:0]            in_n;                // bytes in the current user beat
  logic [63:0]           in_masked;
  logic [63:0]           crc_in;
  logic [31:0]           crc_n [9];           // remainder after folding in 0..8 bytes of crc_in
  logic [7:0]            tot_lo;              // cnt_q + in_n, only compared against 60
  logic [95:0]           with_fcs;

  assign s1_adv           = !w_valid_q || w_ready;
  assign s_axis_tx_tready = s1_adv && (s1_q == S1_DATA);

  always_comb begin
    in_n = 4'd8;
    if (s_axis_tx_tlast) begin
      in_n = 4'd0;
      for (int unsigned i = 0; i < 8; i++) begin
        if (s_axis_tx_tkeep[i]) in_n = 4'(i + 1);
      end
    end
    for (int unsigned i = 0; i < 8; i++) begin
      in_masked[8*i +: 8] = (i < in_n) ? s_axis_tx_tdata[8*i +: 8] : 8'h00;
    end
  end

  assign crc_in = (s1_q == S1_PAD) ? 64'd0 : in_masked;

  always_comb begin
    for (int unsigned k = 0; k <= 8; k++) begin
      crc_n[k] = beryl_eth_pkg::crc32_upd(crc_q, crc_in, k);
    end
  end

  assign tot_lo = {1'b0, cnt_q} + {4'd0, in_n};

  always_comb begin
    s1_d      = s1_q;
    w_data_d  = w_data_q;
    w_keep_d  = w_keep_q;
    w_last_d  = w_last_q;
    w_err_d   = w_err_q;
    w_valid_d = w_valid_q && !w_ready;
    w_tag_d   = w_tag_q;
    crc_d     = crc_q;
    cnt_d     = cnt_q;
    first_d   = first_q;
    spill_d   = spill_q;
    spill_n_d = spill_n_q;
    err_d     = err_q;
    with_fcs  = '0;

    if (s1_adv) begin
      unique case (s1_q)
        S1_DATA: begin
          if (s_axis_tx_tvalid) begin
            w_valid_d = 1'b1;
            w_err_d   = 1'b0;
            first_d   = 1'b0;
            if (first_q) w_tag_d = s_axis_tx_tuser[TX_TAG_W:1];
            if (!s_axis_tx_tlast) begin
              w_data_d = s_axis_tx_tdata;
              w_keep_d = 8'hff;
              w_last_d = 1'b0;
              crc_d    = crc_n[8];
              cnt_d    = (cnt_q >= 7'd56) ? 7'd64 : cnt_q + 7'd8;
            end else if (tot_lo >= 8'd60) begin
              // payload complete: FCS goes in the next 4 lanes (clause 3.2.9, LSB of the CRC first)
              with_fcs  = {32'd0, in_masked} | ({64'd0, ~crc_n[in_n]} << (8 * in_n));
              w_data_d  = with_fcs[63:0];
              spill_d   = with_fcs[95:64];
              w_keep_d  = (in_n > 4'd4) ? 8'hff : 8'((16'h1 << (in_n + 4'd4)) - 16'h1);
              w_last_d  = (in_n <= 4'd4);
              w_err_d   = s_axis_tx_tuser[0] && (in_n <= 4'd4);
              spill_n_d = 3'(in_n - 4'd4);
              err_d     = s_axis_tx_tuser[0];
              crc_d     = 32'hffffffff;
              cnt_d     = '0;
              first_d   = 1'b1;
              if (in_n > 4'd4) s1_d = S1_SPILL;
            end else if (cnt_q == 7'd56) begin
              // short frame whose data ends in bytes 56..59: zero pad to 60, FCS in lanes 4..7
              w_data_d = {~crc_n[4], in_masked[31:0]};
              w_keep_d = 8'hff;
              w_last_d = 1'b1;
              w_err_d  = s_axis_tx_tuser[0];
              crc_d    = 32'hffffffff;
              cnt_d    = '0;
              first_d  = 1'b1;
            end else begin
              // short frame: pad (clause 4.2.3.3) with zero words until byte 56
              w_data_d = in_masked;
              w_keep_d = 8'hff;
              w_last_d = 1'b0;
              err_d    = s_axis_tx_tuser[0];
              crc_d    = crc_n[8];
              cnt_d    = cnt_q + 7'd8;
              s1_d     = S1_PAD;
            end
          end
        end
        S1_PAD: begin
          w_valid_d = 1'b1;
          w_keep_d  = 8'hff;
          if (cnt_q == 7'd56) begin
            w_data_d = {~crc_n[4], 32'd0};
            w_last_d = 1'b1;
            w_err_d  = err_q;
            crc_d    = 32'hffffffff;
            cnt_d    = '0;
            first_d  = 1'b1;
            s1_d     = S1_DATA;
          end else begin
            w_data_d = '0;
            w_last_d = 1'b0;
            w_err_d  = 1'b0;
            crc_d    = crc_n[8];
            cnt_d    = cnt_q + 7'd8;
          end
        end
        S1_SPILL: begin
          w_valid_d = 1'b1;
          w_data_d  = {32'd0, spill_q};
          w_keep_d  = 8'((16'h1 << spill_n_q) - 16'h1);
          w_last_d  = 1'b1;
          w_err_d   = err_q;
          s1_d      = S1_DATA;
        end
        default: s1_d = S1_DATA;
      endcase
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s1_q      <= S1_DATA;
      w_valid_q <= 1'b0;
      crc_q     <= 32'hffffffff;
      cnt_q     <= '0;
      first_q   <= 1'b1;
      err_q     <= 1'b0;
    end else begin
      s1_q      <= s1_d;
      w_valid_q <= w_valid_d;
      crc_q     <= crc_d;
      cnt_q     <= cnt_d;
      first_q   <= first_d;
      err_q     <= err_d;
    end
    w_data_q  <= w_data_d;
    w_keep_q  <= w_keep_d;
    w_last_q  <= w_last_d;
    w_err_q   <= w_err_d;
    w_tag_q   <= w_tag_d;
    spill_q   <= spill_d;
    spill_n_q <= spill_n_d;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: XGMII framer. A frame starts in lane 0 or lane 4 (clause 46.2: /S/ only in lane 0 of a
  // 4-byte column). Lane-4 frames are carried half a word late through `carry_q`.
  // ---------------------------------------------------------------------------------------------
  typedef enum logic [2:0] {ST_IDLE, ST_DATA, ST_TAIL, ST_IFG, ST_DROP} st_state_e;

  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;

  localparam logic [63:0] IDLE_WORD = {8{beryl_eth_pkg::XGMII_IDLE}};
  localparam logic [63:0] PRE_WORD  = {beryl_eth_pkg::ETH_SFD, {6{beryl_eth_pkg::ETH_PRE}},
                                       beryl_eth_pkg::XGMII_START};

  st_state_e                 st_q, st_d;
  logic                      off_q, off_d;          // current frame started in lane 4
  logic [31:0]               carry_q, carry_d;
  logic [2:0]                tail_n_q, tail_n_d;    // bytes left in carry_q for the tail word
  logic                      tail_err_q, tail_err_d;
  logic [1:0]                dic_q, dic_d;
  logic                      ifg_cnt_q, ifg_cnt_d;  // idle words before the start word
  logic                      ifg_lane4_q, ifg_lane4_d;
  logic [63:0]               txd_q, txd_d;
  logic [7:0]                txc_q, txc_d;
  logic                      sfd_next_q, sfd_next_d;
  logic                      ts_take;
  logic [PTP_TS_W-1:0]       ts_q;
  logic                      ts_valid_q;
  logic [TX_TAG_W-1:0]       ts_tag_q, ts_tag_d, ts_tag_out_q;
  logic [STAT_LEN_W-1:0]     len_q, len_d;
  logic                      first_word_q, first_word_d;
  logic                      bcast_q, bcast_d, mcast_q, mcast_d;
  beryl_eth_pkg::mac_stat_t  stat_d, stat_q;

  // frame end: terminate in lane `t_lane` of the word being built
  logic                      plan_en;
  logic [2:0]                t_lane;
  logic [1:0]                e;
  /* verilator lint_off UNUSEDSIGNAL */  // start_off is 12, 16 or 20: bits [1:0] always zero
  logic [4:0]                start_off;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]                dic_plan;
  logic [3:0]                w_n;
  logic [STAT_LEN_W:0]       len_sum;

  // Deficit idle count (clause 46.3.1.4): the next /S/ must land in lane 0 or 4. Delete up to 3 idles
  // while the running deficit stays <= 3, otherwise insert idles and pay the deficit back. IFG 12 on
  // average, 9 at least.
  always_comb begin
    e         = t_lane[1:0];
    dic_plan  = dic_q;
    start_off = 5'(t_lane) + 5'd12;
    if (e != 2'd0) begin
      if (DIC_EN && ({1'b0, dic_q} + {1'b0, e} <= 3'd3)) begin
        start_off = 5'(t_lane) + 5'd12 - 5'(e);
        dic_plan  = dic_q + e;
      end else begin
        start_off = 5'(t_lane) + 5'd16 - 5'(e);
        dic_plan  = (dic_q > 2'(3'd4 - 3'(e))) ? 2'(dic_q - 2'(3'd4 - 3'(e))) : 2'd0;
      end
    end
  end

  always_comb begin
    w_n = 4'd0;
    for (int unsigned i = 0; i < 8; i++) begin
      if (w_keep_q[i]) w_n = 4'(i + 1);
    end
  end

  assign len_sum = {1'b0, len_q} + (STAT_LEN_W + 1)'(w_n);

  always_comb begin
    st_d         = st_q;
    off_d        = off_q;
    carry_d      = carry_q;
    tail_n_d     = tail_n_q;
    tail_err_d   = tail_err_q;
    dic_d        = dic_q;
    ifg_cnt_d    = ifg_cnt_q;
    ifg_lane4_d  = ifg_lane4_q;
    txd_d        = IDLE_WORD;
    txc_d        = 8'hff;
    sfd_next_d   = 1'b0;
    ts_take      = sfd_next_q;
    ts_tag_d     = ts_tag_q;
    len_d        = len_q;
    first_word_d = first_word_q;
    bcast_d      = bcast_q;
    mcast_d      = mcast_q;
    w_ready      = 1'b0;
    plan_en      = 1'b0;
    t_lane       = 3'd0;
    stat_d       = '0;

    unique case (st_q)
      ST_IDLE, ST_IFG: begin
        if (st_q == ST_IFG && ifg_cnt_q) begin
          ifg_cnt_d = 1'b0;
        end else if (w_valid_q) begin
          // start word: lane 4 only when the gap plan asked for it, else lane 0
          off_d        = (st_q == ST_IFG) && ifg_lane4_q;
          dic_d        = (st_q == ST_IFG) ? dic_q : 2'd0;
          ts_tag_d     = w_tag_q;
          len_d        = '0;
          first_word_d = 1'b1;
          st_d         = ST_DATA;
          if ((st_q == ST_IFG) && ifg_lane4_q) begin
            txd_d      = {PRE_WORD[31:0], IDLE_WORD[31:0]};
            txc_d      = 8'h1f;
            carry_d    = PRE_WORD[63:32];
            sfd_next_d = 1'b1;
          end else begin
            txd_d   = PRE_WORD;
            txc_d   = 8'h01;
            ts_take = 1'b1;
          end
        end else begin
          // gap longer than planned: the extra idles repay any deficit
          st_d  = ST_IDLE;
          dic_d = 2'd0;
        end
      end

      ST_DATA: begin
        if (!w_valid_q) begin
          // underflow: poison the frame on the wire and skip the rest of it
          txd_d            = {8{beryl_eth_pkg::XGMII_ERROR}};
          txc_d            = 8'hff;
          st_d             = ST_DROP;
          stat_d.valid     = 1'b1;
          stat_d.underflow = 1'b1;
          stat_d.bcast     = bcast_q;
          stat_d.mcast     = mcast_q;
          stat_d.len       = len_q;
        end else begin
          w_ready      = 1'b1;
          first_word_d = 1'b0;
          len_d        = len_sum[STAT_LEN_W] ? '1 : len_sum[STAT_LEN_W-1:0];
          if (first_word_q) begin
            bcast_d = &w_data_q[47:0];
            mcast_d = w_data_q[0] && !(&w_data_q[47:0]);
          end
          if (!off_q) begin
            for (int unsigned i = 0; i < 8; i++) begin
              if (!w_last_q || i < w_n) begin
                txd_d[8*i +: 8] = (w_last_q && w_err_q) ? beryl_eth_pkg::XGMII_ERROR : w_data_q[8*i +: 8];
                txc_d[i]        = w_last_q && w_err_q;
              end else if (i == 32'(w_n)) begin
                txd_d[8*i +: 8] = beryl_eth_pkg::XGMII_TERM;
                txc_d[i]        = 1'b1;
              end
            end
          end else begin
            txd_d[31:0] = carry_q;
            txc_d[3:0]  = 4'h0;
            carry_d     = w_data_q[63:32];
            for (int unsigned i = 0; i < 4; i++) begin
              if (!w_last_q || i < w_n) begin
                txd_d[32+8*i +: 8] = (w_last_q && w_err_q) ? beryl_eth_pkg::XGMII_ERROR
                                                           : w_data_q[8*i +: 8];
                txc_d[4+i]         = w_last_q && w_err_q;
              end else if (i == 32'(w_n)) begin
                txd_d[32+8*i +: 8] = beryl_eth_pkg::XGMII_TERM;
                txc_d[4+i]         = 1'b1;
              end
            end
          end
          if (w_last_q) begin
            stat_d.valid    = 1'b1;
            stat_d.good     = !w_err_q;
            stat_d.err_ctrl = w_err_q;
            stat_d.bcast    = first_word_q ? &w_data_q[47:0] : bcast_q;
            stat_d.mcast    = first_word_q ? (w_data_q[0] && !(&w_data_q[47:0])) : mcast_q;
            stat_d.len      = len_sum[STAT_LEN_W] ? '1 : len_sum[STAT_LEN_W-1:0];
            tail_err_d      = w_err_q;
            if (!off_q && w_n == 4'd8) begin
              st_d     = ST_TAIL;
              tail_n_d = 3'd0;
            end else if (off_q && w_n >= 4'd4) begin
              st_d     = ST_TAIL;
              tail_n_d = 3'(w_n - 4'd4);
            end else begin
              plan_en = 1'b1;
              t_lane  = off_q ? 3'(w_n + 4'd4) : 3'(w_n);
            end
          end
        end
      end

      ST_TAIL: begin
        // up to 4 carried bytes, so /T/ lands in lanes 0..4
        for (int unsigned i = 0; i < 5; i++) begin
          if (i < 32'(tail_n_q)) begin
            txd_d[8*i +: 8] = tail_err_q ? beryl_eth_pkg::XGMII_ERROR : carry_q[8*(i%4) +: 8];
            txc_d[i]        = tail_err_q;
          end else if (i == 32'(tail_n_q)) begin
            txd_d[8*i +: 8] = beryl_eth_pkg::XGMII_TERM;
          end
        end
        plan_en = 1'b1;
        t_lane  = tail_n_q;
      end

      ST_DROP: begin
        w_ready = 1'b1;
        if (w_valid_q && w_last_q) begin
          st_d        = ST_IFG;
          ifg_cnt_d   = 1'b1;
          ifg_lane4_d = 1'b0;
          dic_d       = 2'd0;
        end
      end

      default: st_d = ST_IDLE;
    endcase

    if (plan_en) begin
      st_d        = ST_IFG;
      ifg_cnt_d   = (start_off[4:3] == 2'd2);
      ifg_lane4_d = start_off[2];
      dic_d       = dic_plan;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q         <= ST_IDLE;
      off_q        <= 1'b0;
      dic_q        <= 2'd0;
      ifg_cnt_q    <= 1'b0;
      ifg_lane4_q  <= 1'b0;
      txd_q        <= IDLE_WORD;
      txc_q        <= 8'hff;
      sfd_next_q   <= 1'b0;
      ts_valid_q   <= 1'b0;
      stat_q       <= '0;
      first_word_q <= 1'b0;
    end else begin
      st_q         <= st_d;
      off_q        <= off_d;
      dic_q        <= dic_d;
      ifg_cnt_q    <= ifg_cnt_d;
      ifg_lane4_q  <= ifg_lane4_d;
      txd_q        <= txd_d;
      txc_q        <= txc_d;
      sfd_next_q   <= sfd_next_d;
      ts_valid_q   <= ts_take;
      stat_q       <= stat_d;
      first_word_q <= first_word_d;
    end
    carry_q    <= carry_d;
    tail_n_q   <= tail_n_d;
    tail_err_q <= tail_err_d;
    ts_tag_q   <= ts_tag_d;
    len_q      <= len_d;
    bcast_q    <= bcast_d;
    mcast_q    <= mcast_d;
    if (ts_take) begin
      ts_q         <= tx_ptp_ts;
      ts_tag_out_q <= ts_tag_d;
    end
  end

  assign xgmii_txd   = txd_q;
  assign xgmii_txc   = txc_q;
  assign tx_ts_valid = ts_valid_q;
  assign tx_ts       = ts_q;
  assign tx_ts_tag   = ts_tag_out_q;
  assign tx_stat     = stat_q;

endmodule

`resetall
