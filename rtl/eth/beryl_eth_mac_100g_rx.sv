// SPDX-License-Identifier: MIT
// 100G Ethernet MAC receiver: 512-bit CGMII-like word (64 lanes, the TX's format) in, 512-bit AXI-Stream
// out (one frame per beat, preamble and FCS stripped). Checks the FCS, flags runts, oversize frames and
// control characters inside frames with tuser[0] on the last beat, one statistics record per frame.
// Latency: wire word to output beat 4..6 clocks (input, scan, align, buffer); throughput one word per clock.
//
// No backpressure: the wire cannot wait, so the consumer takes every beat the clock it is valid.
// A word can end one frame and start the next, which can mean two output beats in one clock; they wait
// in a small beat buffer. It never overflows while every frame's wire slot (/S/ to next /S/) is at least
// 64 bytes per output beat, ceil((L - 4) / 64) beats for a frame of L bytes DA..FCS: true for every
// stream from beryl_eth_mac_100g_tx (whose user side has the same one-frame-per-beat limit), and at line
// rate when (L - 4) mod 64 is 0 or >= 40 (docs/blocks/eth.md). Otherwise the output is the bottleneck
// (worst L = 69: 69.5 % of line rate) and whole frames are dropped at their first beat and counted.
`default_nettype none

module beryl_eth_mac_100g_rx #(
  parameter int unsigned MAX_FRAME_LEN = 9216,  // longest good frame, DA through FCS, bytes, 64..16000;
                                                // longer frames are cut after the beat that passes it
  parameter int unsigned BUF_DEPTH     = 4      // beat buffer entries, power of two, 4..16
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  // lane i = rxd[8i+7:8i], rxc[i] = 1 for a control character; lane 0 first on the wire
  input  wire logic [511:0]          cgmii_rxd,
  input  wire logic [63:0]           cgmii_rxc,

  // tuser[0]: frame bad (FCS, runt, oversize, control character or bad SFD), valid on the last beat
  output      logic [511:0]          m_axis_rx_tdata,
  output      logic [63:0]           m_axis_rx_tkeep,
  output      logic                  m_axis_rx_tvalid,
  output      logic                  m_axis_rx_tlast,
  output      logic [0:0]            m_axis_rx_tuser,

  output      logic                  rx_pause_valid,    // good PAUSE frame received (annex 31B)
  output      logic [15:0]           rx_pause_quanta,
  output      beryl_eth_pkg::mac_stat_t rx_stat,        // one record per delivered frame
  output      logic [31:0]           rx_drop_count,     // frames dropped, beat buffer full (wrapping)
  output      logic [31:0]           rx_short_count     // frames begun and ended inside one word (wrapping)
);

  if (MAX_FRAME_LEN < 64 || MAX_FRAME_LEN > 16000) begin : g_bad_max
    $error("%m: MAX_FRAME_LEN must be within 64..16000");
  end
  if (BUF_DEPTH < 4 || BUF_DEPTH > 16 || (BUF_DEPTH & (BUF_DEPTH - 1)) != 0) begin : g_bad_depth
    $error("%m: BUF_DEPTH must be a power of two within 4..16");
  end

  localparam logic [31:0] CRC_POLY   = 32'hedb88320;  // reflected CRC-32 polynomial (clause 3.2.9)
  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;
  localparam int unsigned PTR_W      = $clog2(BUF_DEPTH);
  localparam logic [7:0]  C_START    = beryl_eth_pkg::XGMII_START;
  localparam logic [7:0]  C_TERM     = beryl_eth_pkg::XGMII_TERM;

  // 72 bytes into the CRC register, bit 0 of byte 0 first (XOR network, as in the TX)
  function automatic logic [31:0] crc_step72(input logic [31:0] crc, input logic [575:0] data);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < 576; i++) begin
      c = (c >> 1) ^ ({32{c[0] ^ data[i]}} & CRC_POLY);
    end
    crc_step72 = c;
  endfunction

  // undoes `nbits` zero-input CRC steps (each step is invertible; see beryl_eth_mac_100g_tx)
  function automatic logic [31:0] crc_unstep(input logic [31:0] crc, input int unsigned nbits);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < nbits; i++) begin
      c = ((c ^ ({32{c[31]}} & CRC_POLY)) << 1) | {31'd0, c[31]};
    end
    crc_unstep = c;
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Stage 0: input register. Stage 1: column scan of one word. A frame runs from /S/ (lane 0 of a
  // column, docs/blocks/eth.md) to the first control character after it; its data starts 8 bytes after
  // /S/, i.e. on the next column. Per word the scan reports the end of the frame open at the word's
  // start (byte position, /T/ or not), the one frame that starts here and runs past the word, and how
  // many frames begin and end inside the word (always runts: at most 6 columns; not delivered).
  // ---------------------------------------------------------------------------------------------
  logic [511:0] d0_q;
  logic [63:0]  c0_q;

  typedef struct packed {
    logic       end_v;      // the frame open at the word's start ends here
    logic [5:0] end_pos;    // byte of its terminating control character
    logic       end_err;    // ... which is not /T/
    logic       ns_v;       // a frame starts here and runs past the word
    logic [2:0] ns_col;     // column of its /S/
    logic       ns_sfd_err; // its SFD is not 0xd5
  } scan_t;

  scan_t        scan_d, scan1_q, scan2_q;
  logic [511:0] d1_q, d2_q;
  logic         inf_q, inf_d;      // a frame is open after the last scanned word
  logic [3:0]   n_short;            // up to 8 (one /S/ per column)
  logic [31:0]  short_cnt_q;

  always_comb begin : p_scan
    logic       in_f, hit;
    logic [2:0] fc;
    logic [3:0] ns;
    in_f    = inf_q;
    hit    = 1'b0;
    fc     = '0;
    scan_d = '0;
    ns     = '0;
    for (int unsigned c = 0; c < 8; c++) begin
      // first control lane of the column at or after lane 0 (frame open) or lane 1 (after an /S/)
      if (in_f) begin
        hit = 1'b0;
        fc  = '0;
        for (int l = 7; l >= 0; l--) begin
          if (c0_q[8*c + l]) begin
            hit = 1'b1;
            fc  = 3'(l);
          end
        end
        if (hit) begin
          in_f = 1'b0;
          if (scan_d.ns_v) begin
            scan_d.ns_v = 1'b0;           // began in this word: a short frame
            ns          = ns + 4'd1;
          end else begin
            scan_d.end_v   = 1'b1;
            scan_d.end_pos = 6'(8*c) + 6'(fc);
            scan_d.end_err = d0_q[64*c + 8*fc +: 8] != C_TERM;
          end
        end
      end
      // an /S/ in lane 0 (also one that just ended a frame, as in the 10G RX) opens a frame
      if (!in_f && c0_q[8*c] && d0_q[64*c +: 8] == C_START) begin
        if (c0_q[8*c+1 +: 7] != 7'd0) begin
          ns = ns + 4'd1;                 // control character in the preamble: ends at once
        end else begin
          in_f               = 1'b1;
          scan_d.ns_v       = 1'b1;
          scan_d.ns_col     = 3'(c);
          scan_d.ns_sfd_err = d0_q[64*c + 56 +: 8] != beryl_eth_pkg::ETH_SFD;
        end
      end
    end
    inf_d   = in_f;
    n_short = ns;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      c0_q        <= '1;
      inf_q       <= 1'b0;
      scan1_q     <= '0;
      scan2_q     <= '0;
      short_cnt_q <= '0;
    end else begin
      c0_q        <= cgmii_rxc;
      inf_q       <= inf_d;
      scan1_q     <= scan_d;
      scan2_q     <= scan1_q;
      short_cnt_q <= short_cnt_q + 32'(n_short);
    end
    d0_q <= cgmii_rxd;
    d1_q <= d0_q;
    d2_q <= d1_q;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: aligner on the window {C = d1_q, P = d2_q} (P bytes 0..63, C bytes 64..127). A frame whose
  // data begins on column o has its beats at window bytes [8o, 8o + 64) each clock, plus the next 4
  // bytes so that a final beat carrying only part of the FCS is folded into the one before (beats of up
  // to 68 bytes): a frame of L bytes gives ceil((L - 4) / 64) beats. At most two beats per clock: the
  // last one of the frame open at P's start ("old") and the first one of a frame whose data begins in P.
  // ---------------------------------------------------------------------------------------------
  typedef struct packed {
    logic [543:0] data;     // 68 bytes
    logic [6:0]   n;        // bytes of the frame in data, 0..68 (64 unless last)
    logic         first;
    logic         last;
    logic         err;      // SFD or control character error
  } beat_t;

  logic         old_v_q, old_v_d;
  logic [2:0]   old_o_q, old_o_d;
  logic         old_first_q, old_first_d;
  logic         old_sfd_q, old_sfd_d;
  logic         old_drop_q, old_drop_d;
  logic [1023:0] win;
  beat_t        b1, b2;
  logic         b1_v, b2_v;
  logic [7:0]   e1, e2;             // window position of the end, 128 = not in the window
  logic [2:0]   o2;

  assign win = {d1_q, d2_q};

  logic [7:0] rem1, rem2;             // window bytes from the beat's start to the end

  always_comb begin
    e1 = scan2_q.end_v ? {2'd0, scan2_q.end_pos} : (scan1_q.end_v ? 8'd64 + {2'd0, scan1_q.end_pos} : 8'd128);
    e2 = scan1_q.end_v ? 8'd64 + {2'd0, scan1_q.end_pos} : 8'd128;
    o2 = scan2_q.ns_col + 3'd1;
    rem1 = e1 - {2'd0, old_o_q, 3'd0};
    rem2 = e2 - {2'd0, o2, 3'd0};

    b1_v       = old_v_q;
    b1.data    = win[64*old_o_q +: 544];
    b1.first   = old_first_q;
    b1.last    = rem1 <= 8'd68;
    b1.n       = b1.last ? rem1[6:0] : 7'd64;
    b1.err     = old_sfd_q || (scan2_q.end_v ? scan2_q.end_err : scan1_q.end_v && scan1_q.end_err);

    b2_v       = scan2_q.ns_v && scan2_q.ns_col != 3'd7;
    b2.data    = win[64*o2 +: 544];
    b2.first   = 1'b1;
    b2.last    = rem2 <= 8'd68;
    b2.n       = b2.last ? rem2[6:0] : 7'd64;
    b2.err     = scan2_q.ns_sfd_err || (scan1_q.end_v && scan1_q.end_err);
  end

  // ---------------------------------------------------------------------------------------------
  // Beat buffer: up to two pushes, one pop per clock. A frame is admitted at its first beat if that
  // beat fits; an admitted frame's later beats always fit (they come at most one per clock and the
  // buffer pops one per clock), so frames are dropped whole or not at all.
  // ---------------------------------------------------------------------------------------------
  localparam int unsigned BEAT_W = 544 + 7 + 3;   // $bits(beat_t); Yosys 0.23 flattens arrays of structs
  logic [BEAT_W-1:0]  buf_q [BUF_DEPTH];
  logic [PTR_W-1:0]   wp_q, rp_q;
  logic [PTR_W:0]     cnt_q, cnt_d;
  logic [PTR_W:0]     room;
  logic               pop;
  logic               push1, push2, adm1, adm2, drop2;
  logic [1:0]         ndrop;
  logic [31:0]        drop_cnt_q;

  assign pop = cnt_q != '0;

  always_comb begin
    room  = (PTR_W + 1)'(BUF_DEPTH) - cnt_q + (PTR_W + 1)'(pop);
    adm1  = room != '0;
    push1 = b1_v && (b1.first ? adm1 : !old_drop_q);
    adm2  = room > (PTR_W + 1)'(push1);
    push2 = b2_v && adm2;
    drop2 = b2_v && !adm2;
    ndrop = 2'(b1_v && b1.first && !adm1) + 2'(drop2);
    cnt_d = cnt_q - (PTR_W + 1)'(pop) + (PTR_W + 1)'(push1) + (PTR_W + 1)'(push2);

    // the frame followed next clock: b2's if it goes on, else b1's, else one whose /S/ is P's last column
    old_v_d     = 1'b0;
    old_o_d     = old_o_q;
    old_first_d = 1'b0;
    old_sfd_d   = old_sfd_q;
    old_drop_d  = old_drop_q;
    if (b2_v && !b2.last) begin
      old_v_d    = 1'b1;
      old_o_d    = o2;
      old_sfd_d  = scan2_q.ns_sfd_err;
      old_drop_d = drop2;
    end else if (b1_v && !b1.last) begin
      old_v_d    = 1'b1;
      old_drop_d = b1.first ? !adm1 : old_drop_q;
    end else if (scan2_q.ns_v && scan2_q.ns_col == 3'd7) begin
      old_v_d     = 1'b1;
      old_o_d     = 3'd0;
      old_first_d = 1'b1;
      old_sfd_d   = scan2_q.ns_sfd_err;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wp_q       <= '0;
      rp_q       <= '0;
      cnt_q      <= '0;
      old_v_q    <= 1'b0;
      drop_cnt_q <= '0;
    end else begin
      rp_q       <= rp_q + PTR_W'(pop);
      wp_q       <= wp_q + PTR_W'(push1) + PTR_W'(push2);
      cnt_q      <= cnt_d;
      old_v_q    <= old_v_d;
      drop_cnt_q <= drop_cnt_q + 32'(ndrop);
    end
    old_o_q     <= old_o_d;
    old_first_q <= old_first_d;
    old_sfd_q   <= old_sfd_d;
    old_drop_q  <= old_drop_d;
    if (push1) buf_q[wp_q] <= b1;
    if (push2) buf_q[wp_q + PTR_W'(push1)] <= b2;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 3: FCS check, length, flags and the output register. The beat is folded in as 72 bytes with
  // the bytes past n zero, then the 72 - n trailing zero bytes are undone (binary steps of 1..64 bytes).
  // Over the frame and its own FCS the register must end at the residue (clause 3.2.9).
  // ---------------------------------------------------------------------------------------------
  beat_t                 bh;
  logic [575:0]          masked;
  logic [31:0]           crc_q, crc_in, crc_full;
  logic [31:0]           crc_fix [8];
  logic [6:0]            unk;
  logic [STAT_LEN_W:0]   len_q, len_now;
  logic                  skip_q, skip_d;
  logic                  bcast_q, mcast_q, pause_q, bcast_now, mcast_now, pause_now;
  logic [15:0]           quanta_q, quanta_now;
  logic                  cut, bad_fcs, runt, over, bad, ends;
  logic [6:0]            keep_n;

  logic [511:0]          o_data_q;
  logic [63:0]           o_keep_q;
  logic                  o_valid_q, o_last_q, o_err_q, pause_out_q;
  beryl_eth_pkg::mac_stat_t stat_d, stat_q;

  assign bh = buf_q[rp_q];

  always_comb begin
    masked[575:544] = '0;
    for (int unsigned i = 0; i < 68; i++) begin
      masked[8*i +: 8] = (7'(i) < bh.n) ? bh.data[8*i +: 8] : 8'h00;
    end
    crc_in     = bh.first ? 32'hffffffff : crc_q;
    crc_full   = crc_step72(crc_in, masked);
    unk        = 7'd72 - bh.n;
    crc_fix[0] = crc_full;
    for (int unsigned b = 0; b < 7; b++) begin
      crc_fix[b+1] = unk[b] ? crc_unstep(crc_fix[b], 8 << b) : crc_fix[b];
    end
    len_now    = (bh.first ? '0 : len_q) + (STAT_LEN_W + 1)'(bh.n);
    bcast_now  = bh.first ? &bh.data[47:0] : bcast_q;
    mcast_now  = bh.first ? bh.data[0] && !(&bh.data[47:0]) : mcast_q;
    // MAC control (type 0x8808) PAUSE (opcode 0x0001), annex 31B
    pause_now  = bh.first ? bh.data[127:96] == 32'h0100_0888 : pause_q;
    quanta_now = bh.first ? {bh.data[135:128], bh.data[143:136]} : quanta_q;
    over       = len_now > (STAT_LEN_W + 1)'(MAX_FRAME_LEN);
    cut        = !bh.last && over;
    bad_fcs    = crc_fix[7] != beryl_eth_pkg::CRC32_RESIDUE;
    runt       = len_now < (STAT_LEN_W + 1)'(beryl_eth_pkg::MIN_FRAME_LEN);
    bad        = bad_fcs || runt || over || bh.err;
    ends       = pop && (bh.first || !skip_q) && (bh.last || cut);
    // the last beat shows its bytes less the FCS; a frame of 4 bytes or fewer shows one byte (flagged)
    keep_n     = bh.last ? (bh.n > 7'd4 ? bh.n - 7'd4 : 7'd1) : 7'd64;

    skip_d = skip_q;
    if (pop) skip_d = cut || (!bh.first && skip_q && !bh.last);
    if (pop && bh.last) skip_d = 1'b0;

    stat_d = '0;
    if (ends) begin
      stat_d.valid    = 1'b1;
      stat_d.good     = !bad;
      stat_d.bad_fcs  = bh.last && bad_fcs;
      stat_d.runt     = bh.last && runt;
      stat_d.oversize = over;
      stat_d.err_ctrl = bh.err;
      stat_d.pause    = pause_now && !bad;
      stat_d.bcast    = bcast_now;
      stat_d.mcast    = mcast_now;
      stat_d.len      = len_now[STAT_LEN_W] ? '1 : len_now[STAT_LEN_W-1:0];
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      o_valid_q   <= 1'b0;
      skip_q      <= 1'b0;
      stat_q      <= '0;
      pause_out_q <= 1'b0;
    end else begin
      o_valid_q   <= pop && (bh.first || !skip_q);
      skip_q      <= skip_d;
      stat_q      <= stat_d;
      pause_out_q <= ends && bh.last && pause_now && !bad;
    end
    if (pop) begin
      crc_q    <= crc_fix[7];
      len_q    <= len_now;
      bcast_q  <= bcast_now;
      mcast_q  <= mcast_now;
      pause_q  <= pause_now;
      quanta_q <= quanta_now;
    end
    for (int unsigned i = 0; i < 64; i++) begin
      o_data_q[8*i +: 8] <= (7'(i) < keep_n) ? bh.data[8*i +: 8] : 8'h00;
      o_keep_q[i]        <= 7'(i) < keep_n;
    end
    o_last_q <= bh.last || cut;
    o_err_q  <= (bh.last || cut) && bad;
  end

  assign m_axis_rx_tdata  = o_data_q;
  assign m_axis_rx_tkeep  = o_keep_q;
  assign m_axis_rx_tvalid = o_valid_q;
  assign m_axis_rx_tlast  = o_last_q;
  assign m_axis_rx_tuser  = o_err_q;
  assign rx_pause_valid   = pause_out_q;
  assign rx_pause_quanta  = quanta_q;
  assign rx_stat          = stat_q;
  assign rx_drop_count    = drop_cnt_q;
  assign rx_short_count   = short_cnt_q;

endmodule

`resetall
