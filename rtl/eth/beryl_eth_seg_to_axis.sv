// SPDX-License-Identifier: MIT
// 100G MAC RX seg stream (4 x 16-byte segments, no ready) -> frame-aligned 512-bit AXI-Stream with
// backpressure. Each frame is moved to byte 0 of a beat and buffered (FIFO_WORDS beats, up to two written
// and one read per clock). Latency: edge sampling the input word that completes a beat -> beat on m_axis
// after 4 clocks (empty buffer, tready high).
//
// The input cannot wait, so overload has fixed outcomes: a frame whose first beat meets a full buffer is
// dropped whole (drop_count); a later beat meeting a full buffer cuts the frame (the beat before it is
// re-marked tlast + tuser, cut_count) and the rest is skipped; a beat passing MAX_FRAME is cut the same way.
`default_nettype none

module beryl_eth_seg_to_axis #(
  parameter int unsigned TS_W        = 64,    // timestamp width carried per frame, bits, 1..128
  parameter int unsigned FIFO_WORDS  = 64,    // output buffer, 64-byte beats, power of two >= 16
  parameter int unsigned MAX_FRAME   = 16384  // longer frames are cut, marked bad and counted; bytes,
                                              // multiple of 64 within 64..1048576
) (
  input  wire logic              clk,
  input  wire logic              rst,
  // from beryl_eth_mac_100g_rx (no ready)
  input  wire logic [511:0]      s_seg_data,
  input  wire logic [3:0]        s_seg_ena,
  input  wire logic [3:0]        s_seg_sop,
  input  wire logic [3:0]        s_seg_eop,
  input  wire logic [15:0]       s_seg_mty,
  input  wire logic [3:0]        s_seg_err,
  input  wire logic [TS_W-1:0]   s_seg_ts,
  // frame-aligned AXI-Stream to the NIC port
  output logic [511:0]           m_axis_tdata,
  output logic [63:0]            m_axis_tkeep,
  output logic                   m_axis_tvalid,
  input  wire logic              m_axis_tready,
  output logic                   m_axis_tlast,
  output logic                   m_axis_tuser,     // last beat: 1 = bad frame (MAC error, or cut here)
  output logic [TS_W-1:0]        m_axis_ts,        // the frame's s_seg_ts, valid on every beat of the frame
  output logic [31:0]            drop_count,       // frames dropped whole: no room when they started (wrapping)
  output logic [31:0]            cut_count         // frames cut short (buffer full mid-frame, or > MAX_FRAME),
                                                   // delivered marked bad (wrapping)
);

  if (FIFO_WORDS < 16 || (FIFO_WORDS & (FIFO_WORDS - 1)) != 0) begin : g_bad_fifo
    $error("%m: FIFO_WORDS must be a power of two >= 16");
  end
  if (MAX_FRAME < 64 || MAX_FRAME > 1048576 || MAX_FRAME % 64 != 0) begin : g_bad_max
    $error("%m: MAX_FRAME must be a multiple of 64 within 64..1048576");
  end
  if (TS_W < 1 || TS_W > 128) begin : g_bad_ts
    $error("%m: TS_W must be within 1..128");
  end

  localparam int unsigned AW   = $clog2(FIFO_WORDS);
  localparam int unsigned MB   = MAX_FRAME / 64;        // beats of the longest frame delivered whole
  localparam int unsigned BC_W = $clog2(MB + 1);
  localparam int unsigned EW   = TS_W + 7 + 512;        // buffer entry: timestamp, byte count 1..64, data
  localparam logic [BC_W-1:0] LAST_IDX = BC_W'(MB - 1);
  localparam logic [AW:0]     DEPTH    = (AW + 1)'(FIFO_WORDS);

  // ---------------------------------------------------------------------------------------------
  // Stage 1: input register; p_data_q keeps the word before (a frame starting in segment k > 0 takes
  // segments k..3 of one word and 0..k-1 of the next for each beat).
  // ---------------------------------------------------------------------------------------------
  logic [511:0]    c_data_q, p_data_q;
  logic [3:0]      c_ena_q, c_sop_q, c_eop_q, c_err_q;
  logic [15:0]     c_mty_q;
  logic [TS_W-1:0] c_ts_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      c_ena_q <= '0;
      c_sop_q <= '0;
      c_eop_q <= '0;
    end else begin
      c_ena_q <= s_seg_ena;
      c_sop_q <= s_seg_sop & s_seg_ena;
      c_eop_q <= s_seg_eop & s_seg_ena;
    end
    c_data_q <= s_seg_data;
    c_mty_q  <= s_seg_mty;
    c_err_q  <= s_seg_err;
    c_ts_q   <= s_seg_ts;
    if (c_ena_q != 4'd0) begin
      p_data_q <= c_data_q;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: beats. The open frame has shift k (its sop segment). Per word at most two beats come out,
  // both of the open frame: A = segments k..3 of the previous word + 0..k-1 of this one (k > 0), and
  // B = segments k..e of this word (e = its eop, or the whole word when k = 0). A frame that starts after
  // an eop (segment e+1) runs past the word (seg rule 5), so its first beat comes with the next word.
  // ---------------------------------------------------------------------------------------------
  logic            open_q, open_d;      // a frame is open after the last word
  logic            skip_q, skip_d;      // ... and is cut at MAX_FRAME: its remaining beats are skipped
  logic [1:0]      k_q, k_d;
  logic [BC_W-1:0] bcnt_q, bcnt_d;      // beats of the open frame so far
  logic [TS_W-1:0] fts_q, fts_d;        // the open frame's timestamp

  typedef struct packed {
    logic       v;
    logic       first;
    logic       last;
    logic       bad;
    logic       ovs;      // cut here at MAX_FRAME (last and bad also set)
    logic [6:0] bytes;
  } bflag_t;

  bflag_t          fa, fb, fa_q, fb_q;
  logic [511:0]    da, db, da_q, db_q;
  logic [1:0]      kb;
  logic [TS_W-1:0] bts, bts_q;

  always_comb begin : p_beats
    logic       has_sop, has_eop;
    logic [1:0] s_i, e_i;
    logic [2:0] na, nb;
    logic [3:0] mty_e;
    logic       err_e, ends;
    logic [BC_W-1:0] ia, ib;
    has_sop = c_sop_q != 4'd0;
    has_eop = c_eop_q != 4'd0;
    s_i = '0;
    e_i = '0;
    for (int i = 3; i >= 0; i--) begin
      if (c_sop_q[i]) s_i = 2'(i);
      if (c_eop_q[i]) e_i = 2'(i);
    end
    mty_e = c_mty_q[4*e_i +: 4];
    err_e = c_err_q[e_i];
    fa = '0;
    fb = '0;
    na = 3'd4;
    nb = 3'd4;
    kb = k_q;
    bts = fts_q;
    ends = 1'b0;
    open_d = open_q;
    skip_d = skip_q;
    k_d = k_q;
    bcnt_d = bcnt_q;
    fts_d = fts_q;
    ia = bcnt_q;
    ib = bcnt_q;
    if (c_ena_q != 4'd0) begin
      if (open_q) begin
        if (k_q == 2'd0) begin
          fb.v = 1'b1;
          if (has_eop) begin
            fb.last = 1'b1;
            nb = 3'(e_i) + 3'd1;
          end
        end else begin
          fa.v = 1'b1;
          if (has_eop && e_i < k_q) begin
            fa.last = 1'b1;
            na = 3'd5 - 3'(k_q) + 3'(e_i);
          end else if (has_eop) begin
            fb.v = 1'b1;
            fb.last = 1'b1;
            nb = 3'(e_i) - 3'(k_q) + 3'd1;
          end
        end
        ends = has_eop;
        ib = bcnt_q + BC_W'(fa.v);
        if (skip_q) begin
          fa.v = 1'b0;
          fb.v = 1'b0;
        end
        bcnt_d = bcnt_q + BC_W'(fa.v) + BC_W'(fb.v);
      end else if (has_sop) begin
        // a frame starting with no frame open (segment 0 by seg rule 3)
        kb = s_i;
        bts = c_ts_q;
        ib = '0;
        fb.v = has_eop && e_i >= s_i || s_i == 2'd0;
        fb.last = has_eop && e_i >= s_i;
        nb = 3'(e_i) - 3'(s_i) + 3'd1;
        open_d = !fb.last;
        skip_d = 1'b0;
        k_d = s_i;
        bcnt_d = BC_W'(fb.v);
        fts_d = c_ts_q;
      end
      fa.first = ia == '0;
      fb.first = ib == '0;
      fa.bad = fa.last && err_e;
      fb.bad = fb.last && err_e;
      // MAX_FRAME: a beat at index MB-1 that is not the frame's last ends it, marked bad
      if (fa.v && !fa.last && ia == LAST_IDX) begin
        fa.ovs = 1'b1;
        fa.last = 1'b1;
        fa.bad = 1'b1;
        fb.v = 1'b0;
        skip_d = 1'b1;
      end
      if (fb.v && !fb.last && ib == LAST_IDX) begin
        fb.ovs = 1'b1;
        fb.last = 1'b1;
        fb.bad = 1'b1;
        skip_d = 1'b1;
      end
      if (ends) begin
        // the open frame ends here; the next one may start right after its eop segment
        open_d = has_sop && s_i > e_i;
        skip_d = 1'b0;
        k_d = s_i;
        bcnt_d = '0;
        fts_d = c_ts_q;
      end
    end
    fa.bytes = fa.last && !fa.ovs ? {na, 4'd0} - 7'(mty_e) : 7'd64;
    fb.bytes = fb.last && !fb.ovs ? {nb, 4'd0} - 7'(mty_e) : 7'd64;
  end

  // beat A: window {this word, previous word} from segment k_q; beat B: this word from segment kb
  // (its segments past the eop are don't-care). One 4-way 16-byte mux per output segment each.
  always_comb begin : p_mux
    for (int j = 0; j < 4; j++) begin
      da[128*j +: 128] = p_data_q[128*j +: 128];
      db[128*j +: 128] = c_data_q[128*j +: 128];
      for (int k = 1; k < 4; k++) begin
        if (k_q == 2'(k)) begin
          da[128*j +: 128] = (j + k < 4) ? p_data_q[128*((j + k) % 4) +: 128] : c_data_q[128*((j + k) % 4) +: 128];
        end
        if (kb == 2'(k)) begin
          db[128*j +: 128] = c_data_q[128*((j + k) % 4) +: 128];
        end
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      open_q <= 1'b0;
      skip_q <= 1'b0;
      k_q    <= '0;
      bcnt_q <= '0;
      fa_q   <= '0;
      fb_q   <= '0;
    end else begin
      open_q <= open_d;
      skip_q <= skip_d;
      k_q    <= k_d;
      bcnt_q <= bcnt_d;
      fa_q   <= fa;
      fb_q   <= fb;
    end
    fts_q <= fts_d;
    da_q  <= da;
    db_q  <= db;
    bts_q <= bts;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 3: admission and buffer write. A frame's first beat is written only with room (else the frame
  // is dropped whole); a later beat without room cuts the frame: the beat written before it becomes the
  // last, marked bad. Room is taken from the registered pointers; with no room the buffer holds
  // FIFO_WORDS >= 16 beats, so the beat re-marked is never one the read side has taken. The buffer is
  // two banks (even / odd beat addresses) so two consecutive beats can be written in one clock.
  // ---------------------------------------------------------------------------------------------
  logic [AW:0]     wr_ptr_q, rd_ptr_q, used;
  logic [AW-1:0]   addr_a, addr_b;        // buffer addresses of beats A and B
  logic            pass_q, pass_d;      // the frame at this stage is being written
  logic            room1, room2, wa, wb, a_cut, mark_prev, drop_inc, cut_inc;
  logic [31:0]     drop_cnt_q, cut_cnt_q;
  logic [FIFO_WORDS-1:0] last_mem, bad_mem;   // flops: re-marked at a cut
  logic [EW-1:0]   mem0 [FIFO_WORDS/2];       // even addresses
  logic [EW-1:0]   mem1 [FIFO_WORDS/2];       // odd addresses
  logic [EW-1:0]   ent_a, ent_b;

  assign used  = wr_ptr_q - rd_ptr_q;
  assign room1 = used < DEPTH;
  assign room2 = used < DEPTH - 1;

  always_comb begin : p_admit
    logic pass;
    pass      = pass_q;
    wa        = 1'b0;
    wb        = 1'b0;
    a_cut     = 1'b0;
    mark_prev = 1'b0;
    drop_inc  = 1'b0;
    cut_inc   = 1'b0;
    if (fa_q.v) begin
      if (fa_q.first) begin
        pass     = room1;
        drop_inc = !room1;
      end
      if (pass) begin
        if (room1) begin
          wa      = 1'b1;
          cut_inc = fa_q.ovs;
        end else begin
          mark_prev = 1'b1;
          cut_inc   = 1'b1;
          pass      = 1'b0;
        end
      end
    end
    if (fb_q.v) begin
      if (fb_q.first) begin
        pass     = room1;
        drop_inc = !room1;
      end
      if (pass) begin
        if (wa ? room2 : room1) begin
          wb      = 1'b1;
          cut_inc = fb_q.ovs;
        end else begin
          a_cut     = wa;
          mark_prev = !wa;
          cut_inc   = 1'b1;
          pass      = 1'b0;
        end
      end
    end
    pass_d = pass;
  end

  assign addr_a = wr_ptr_q[AW-1:0];
  assign addr_b = wr_ptr_q[AW-1:0] + AW'(wa);
  assign ent_a  = {bts_q, fa_q.bytes, da_q};
  assign ent_b  = {bts_q, fb_q.bytes, db_q};

  always_ff @(posedge clk) begin
    if (wa && !addr_a[0]) begin
      mem0[addr_a[AW-1:1]] <= ent_a;
    end else if (wb && !addr_b[0]) begin
      mem0[addr_b[AW-1:1]] <= ent_b;
    end
    if (wa && addr_a[0]) begin
      mem1[addr_a[AW-1:1]] <= ent_a;
    end else if (wb && addr_b[0]) begin
      mem1[addr_b[AW-1:1]] <= ent_b;
    end
  end

  always_ff @(posedge clk) begin
    if (wa) begin
      last_mem[addr_a] <= fa_q.last || a_cut;
      bad_mem[addr_a]  <= fa_q.bad || a_cut;
    end
    if (wb) begin
      last_mem[addr_b] <= fb_q.last;
      bad_mem[addr_b]  <= fb_q.bad;
    end
    if (mark_prev) begin
      last_mem[AW'(wr_ptr_q - 1'b1)] <= 1'b1;
      bad_mem[AW'(wr_ptr_q - 1'b1)]  <= 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_ptr_q   <= '0;
      pass_q     <= 1'b0;
      drop_cnt_q <= '0;
      cut_cnt_q  <= '0;
    end else begin
      wr_ptr_q   <= wr_ptr_q + (AW + 1)'(wa) + (AW + 1)'(wb);
      pass_q     <= pass_d;
      drop_cnt_q <= drop_cnt_q + 32'(drop_inc);
      cut_cnt_q  <= cut_cnt_q + 32'(cut_inc);
    end
  end

  assign drop_count = drop_cnt_q;
  assign cut_count  = cut_cnt_q;

  // ---------------------------------------------------------------------------------------------
  // Read side: buffer -> read register (r, the RAM's output register) -> output register. A read is
  // issued when r is empty or moves on, so one beat per clock leaves with tready high.
  // ---------------------------------------------------------------------------------------------
  logic            re, r_v_q, r_sel_q, r_last_q, r_bad_q, r_move;
  logic [EW-1:0]   rd0_q, rd1_q, r_ent;
  logic [TS_W-1:0] r_ts;
  logic [6:0]      r_bytes;
  logic [511:0]    r_data;

  assign r_move = r_v_q && (!m_axis_tvalid || m_axis_tready);
  assign re     = wr_ptr_q != rd_ptr_q && (!r_v_q || r_move);

  always_ff @(posedge clk) begin
    if (re && !rd_ptr_q[0]) begin
      rd0_q <= mem0[rd_ptr_q[AW-1:1]];
    end
    if (re && rd_ptr_q[0]) begin
      rd1_q <= mem1[rd_ptr_q[AW-1:1]];
    end
    if (re) begin
      r_sel_q  <= rd_ptr_q[0];
      r_last_q <= last_mem[rd_ptr_q[AW-1:0]];
      r_bad_q  <= bad_mem[rd_ptr_q[AW-1:0]];
    end
  end

  assign r_ent = r_sel_q ? rd1_q : rd0_q;
  assign {r_ts, r_bytes, r_data} = r_ent;

  always_ff @(posedge clk) begin
    if (rst) begin
      rd_ptr_q      <= '0;
      r_v_q         <= 1'b0;
      m_axis_tvalid <= 1'b0;
    end else begin
      rd_ptr_q <= rd_ptr_q + (AW + 1)'(re);
      if (re) begin
        r_v_q <= 1'b1;
      end else if (r_move) begin
        r_v_q <= 1'b0;
      end
      if (!m_axis_tvalid || m_axis_tready) begin
        m_axis_tvalid <= r_v_q;
      end
    end
    if (r_move) begin
      m_axis_tdata <= r_data;
      m_axis_tlast <= r_last_q;
      m_axis_tuser <= r_last_q && r_bad_q;
      m_axis_ts    <= r_ts;
      for (int i = 0; i < 64; i++) begin
        m_axis_tkeep[i] <= r_bytes > 7'(i);
      end
    end
  end

endmodule

`resetall
