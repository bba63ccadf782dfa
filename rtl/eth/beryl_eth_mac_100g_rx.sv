// SPDX-License-Identifier: MIT
// 100G Ethernet MAC receiver: 512-bit CGMII-like word (64 lanes, the TX's format) in, segmented 4 x 16-byte
// user stream out (m_seg_*, the seg format of docs/blocks/eth.md; preamble and FCS stripped), per-frame RX
// timestamps. Latency: /S/ word to sop word 4..5 clocks; one word per clock, every frame at line rate.
//
// No backpressure: the wire cannot wait. Each frame's data is moved to a 16-byte segment boundary, right
// after the previous frame's last segment when that is in the same output word, else at segment 0 of its
// own word: a shift of -48..+8 bytes, fixed per frame, so the output never falls behind the wire. Frames
// are dropped whole (rx_drop_count) only when shorter than 53 bytes (under 4 segments: they can end in a
// word where another frame ends or that the next frame must start in), whatever the gaps.
`default_nettype none

module beryl_eth_mac_100g_rx #(
  parameter int unsigned MAX_FRAME_LEN = 9216,  // longest good frame, DA through FCS, bytes, 64..16000;
                                                // longer frames are cut at the end of the word that passes it
  parameter int unsigned PTP_TS_W      = 96     // timestamp width, bits, 1..128
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  // lane i = rxd[8i+7:8i], rxc[i] = 1 for a control character; lane 0 first on the wire
  input  wire logic [511:0]          cgmii_rxd,
  input  wire logic [63:0]           cgmii_rxc,
  input  wire logic [PTP_TS_W-1:0]   rx_ptp_ts,         // time, sampled with each wire word

  // segmented output: 4 segments of 16 bytes, segment 0 first; no ready
  output      logic [511:0]          m_seg_data,
  output      logic [3:0]            m_seg_ena,         // segments carrying frame bytes, contiguous from 0
  output      logic [3:0]            m_seg_sop,         // first byte of a frame at byte 0 of the segment
  output      logic [3:0]            m_seg_eop,         // last byte of a frame in the segment
  output      logic [15:0]           m_seg_mty,         // with eop: unused bytes at the end of the segment
  output      logic [3:0]            m_seg_err,         // with eop: frame bad (FCS, runt, oversize, ctrl, SFD)
  output      logic [PTP_TS_W-1:0]   m_seg_ts,          // with a sop: rx_ptp_ts of the wire word with the SFD
  output      logic [2:0]            m_seg_ts_col,      // with a sop: column (8-byte unit) of the SFD there

  output      logic                  rx_pause_valid,    // good PAUSE frame received (annex 31B)
  output      logic [15:0]           rx_pause_quanta,
  output      beryl_eth_pkg::mac_stat_t rx_stat,        // one record per delivered frame
  output      logic [31:0]           rx_drop_count,     // frames dropped whole, no room in the output word
  output      logic [31:0]           rx_short_count     // frames begun and ended inside one word (wrapping)
);

  if (MAX_FRAME_LEN < 64 || MAX_FRAME_LEN > 16000) begin : g_bad_max
    $error("%m: MAX_FRAME_LEN must be within 64..16000");
  end
  if (PTP_TS_W < 1 || PTP_TS_W > 128) begin : g_bad_ts
    $error("%m: PTP_TS_W must be within 1..128");
  end

  localparam logic [31:0] CRC_POLY   = 32'hedb88320;  // reflected CRC-32 polynomial (clause 3.2.9)
  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;
  localparam logic [7:0]  C_START    = beryl_eth_pkg::XGMII_START;
  localparam logic [7:0]  C_TERM     = beryl_eth_pkg::XGMII_TERM;

  // 64 bytes into the CRC register, bit 0 of byte 0 first (XOR network, as in the TX)
  function automatic logic [31:0] crc_step64(input logic [31:0] crc, input logic [511:0] data);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < 512; i++) begin
      c = (c >> 1) ^ ({32{c[0] ^ data[i]}} & CRC_POLY);
    end
    crc_step64 = c;
  endfunction

  // `nbits` zero-input CRC steps
  function automatic logic [31:0] crc_zero(input logic [31:0] crc, input int unsigned nbits);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < nbits; i++) begin
      c = (c >> 1) ^ ({32{c[0]}} & CRC_POLY);
    end
    crc_zero = c;
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
    logic       open_v;     // a frame is open at the word's start
    logic       end_v;      // the frame open at the word's start ends here
    logic [5:0] end_pos;    // byte of its terminating control character
    logic       end_err;    // ... which is not /T/
    logic       ns_v;       // a frame starts here and runs past the word
    logic [2:0] ns_col;     // column of its /S/
    logic       ns_sfd_err; // its SFD is not 0xd5
  } scan_t;

  scan_t        scan_d, scan_q;
  logic [511:0] d1_q, d2_q, d3_q;
  logic [63:0]  d4_q;
  logic [PTP_TS_W-1:0] ts0_q, ts1_q;
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
    scan_d.open_v = inf_q;
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
      scan_q          <= '0;
      short_cnt_q <= '0;
    end else begin
      c0_q        <= cgmii_rxc;
      inf_q       <= inf_d;
      scan_q          <= scan_d;
      short_cnt_q <= short_cnt_q + 32'(n_short);
    end
    d0_q  <= cgmii_rxd;
    d1_q  <= d0_q;
    d2_q  <= d1_q;
    d3_q  <= d2_q;
    d4_q  <= d3_q[511:448];
    ts0_q <= rx_ptp_ts;
    ts1_q <= ts0_q;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: per wire word n (d1_q, scan_q; d2_q is word n-1): FCS, length and flags of the frame open at
  // the word's start, and the placement of each frame in the output. Word positions are kept as an
  // index relative to n: 0 = older than n-1 (stale), 1 = n-1, 2 = n, 3 = n+1.
  // Placement: a frame whose data starts on wire byte p (a column) would sit at o_nat = p rounded up to
  // 16; it goes right after the previous frame's eop segment when that is in o_nat's output word, else
  // at segment 0 of that word. Its shift s = o - p is one of -48..+8 (sh = (8 - s) / 8 = 0..7) and stays
  // fixed for the frame. The previous frame never reaches past o_nat, whatever the gap: its output ends
  // at end = p' + s' + 16 * ceil((L' - 4) / 16) <= p' + 8 + L' + 11, while p >= p' + L' + 1 + 8 (/T/,
  // then /S/ and preamble), so end - p <= 10; end is a multiple of 16 and p of 8, hence end <= o_nat.
  // So only frames of fewer than 4 segments are ever refused (dropped whole, counted): one that would
  // end in the word where the previous frame ends (two eops), or one that lies wholly in the word where
  // the frame starting next must go (two sops). The other refusal conditions below are guards.
  // The last data byte (4 before the end) lands in output word n-1, n or n+1, so the control of output
  // word n-1 is complete after word n: three control entries (n-1, n, n+1) are kept, n-1 goes out.
  // ---------------------------------------------------------------------------------------------
  typedef struct packed {
    logic       sop_v;
    logic [1:0] sop_seg;
    logic [2:0] sop_sh;     // window offset of the new frame, 8-byte units
    logic [2:0] col;        // column of the SFD in its wire word
    logic       eop_v;
    logic [1:0] eop_seg;
    logic [3:0] mty;
    logic       err;
  } ent_t;

  ent_t                  t0_q, t1_q;          // entries for output words n-1, n (n+1 starts empty)
  logic [PTP_TS_W-1:0]   t0_ts_q, t1_ts_q;
  ent_t                  em1, e0, ep1;
  logic [PTP_TS_W-1:0]   em1_ts, e0_ts, ep1_ts;

  // the open frame (the one whose start was placed last)
  logic                  f_skip_q, f_skip_d;      // not delivered (refused or cut): ignore to its end
  logic                  f_first_q, f_first_d;    // its data begins in this word (/S/ was in column 7)
  logic [2:0]            f_sh_q, f_sh_d;
  logic [1:0]            f_sidx_q, f_sidx_d;      // output word of its sop
  logic                  f_shared_q, f_shared_d;  // its sop follows another frame's eop in that word
  logic                  f_sfd_q, f_sfd_d;
  logic                  f_hnew_q, f_hnew_d;      // its header is in the window now
  logic [3:0]            f_hoff_q, f_hoff_d;      // header offset in {d1_q, d2_q}, 8-byte units
  logic [31:0]           crc_q, crc_d;
  logic [STAT_LEN_W:0]   len_q, len_d;
  logic                  bcast_q, mcast_q, pause_q;
  logic [15:0]           quanta_q;
  // the last eop placed
  logic [1:0]            cur_idx_q, cur_idx_d;
  logic [1:0]            cur_seg_q, cur_seg_d;
  logic                  cur_one_q, cur_one_d;    // that frame's sop is in the same word (no room)

  logic [511:0]          m_end, m_st;
  logic [31:0]           crc_e, crc_s, res_fwd;
  logic [6:0]            e_off, fill;
  logic [1023:0]         hwin;
  logic [47:0]           h_da, h_tq;          // DA; type, opcode, quanta
  logic                  h_bcast, h_mcast, h_pause;
  logic [15:0]           h_quanta;
  logic                  act, ending, cut, over, runt, fcs_ok, bad, err_ctrl, sdrop;
  logic [STAT_LEN_W:0]   len_now;
  logic [7:0]            rel8;
  logic [1:0]            eidx;
  logic [1:0]            midx;
  logic [2:0]            j;
  logic [4:0]            t_sh;
  logic                  ns_drop, shared;
  logic [1:0]            ndrop;
  logic [31:0]           drop_cnt_q;
  beryl_eth_pkg::mac_stat_t stat_d, stat_q;
  logic                  pause_v_d, pause_v_q;
  logic [15:0]           pause_qn_q;

  function automatic logic [1:0] age(input logic [1:0] idx);
    age = (idx == 2'd0) ? 2'd0 : idx - 2'd1;
  endfunction

  always_comb begin
    // FCS of the frame open at the word's start: bytes before its end, the rest zero. With z trailing
    // zero bytes a good frame leaves the residue stepped z zero bytes on (clause 3.2.9).
    e_off = scan_q.end_v ? {1'b0, scan_q.end_pos} : 7'd64;
    for (int unsigned i = 0; i < 64; i++) begin
      m_end[8*i +: 8] = (7'(i) < e_off) ? d1_q[8*i +: 8] : 8'h00;
    end
    crc_e = crc_step64(f_first_q ? 32'hffffffff : crc_q, m_end);
    fill  = 7'd64 - e_off;
    res_fwd = beryl_eth_pkg::CRC32_RESIDUE;
    for (int unsigned b = 0; b < 7; b++) begin
      res_fwd = fill[b] ? crc_zero(res_fwd, 8 << b) : res_fwd;
    end
    fcs_ok = crc_e == res_fwd;
    // FCS of a frame starting here: an initial register of all ones equals a zero register with the
    // first 32 data bits inverted, and leading zero bytes leave a zero register unchanged
    for (int unsigned i = 0; i < 64; i++) begin
      m_st[8*i +: 8] = (i >= 8 * (32'(scan_q.ns_col) + 1)) ?
                       d1_q[8*i +: 8] ^ ((i < 8 * (32'(scan_q.ns_col) + 1) + 4) ? 8'hff : 8'h00) : 8'h00;
    end
    crc_s = crc_step64(32'h0, m_st);

    // header fields (DA, type, opcode, quanta) of the open frame, in the window in its second word
    hwin     = {d1_q, d2_q};
    h_da     = hwin[64*f_hoff_q +: 48];
    h_tq     = hwin[64*f_hoff_q + 96 +: 48];
    h_bcast  = f_hnew_q ? &h_da : bcast_q;
    h_mcast  = f_hnew_q ? h_da[0] && !(&h_da) : mcast_q;
    // MAC control (type 0x8808) PAUSE (opcode 0x0001), annex 31B
    h_pause  = f_hnew_q ? h_tq[31:0] == 32'h0100_0888 : pause_q;
    h_quanta = f_hnew_q ? {h_tq[39:32], h_tq[47:40]} : quanta_q;

    em1    = t0_q;
    e0     = t1_q;
    ep1    = '0;
    em1_ts = t0_ts_q;
    e0_ts  = t1_ts_q;
    ep1_ts = '0;
    cur_idx_d  = cur_idx_q;
    cur_seg_d  = cur_seg_q;
    cur_one_d  = cur_one_q;
    f_skip_d   = f_skip_q;
    f_first_d  = 1'b0;
    f_sh_d     = f_sh_q;
    f_sidx_d   = f_sidx_q;
    f_shared_d = f_shared_q;
    f_sfd_d    = f_sfd_q;
    f_hnew_d   = 1'b0;
    f_hoff_d   = f_hoff_q;
    crc_d      = crc_e;
    ndrop      = '0;
    stat_d     = '0;
    pause_v_d  = 1'b0;

    // (1) the frame open at the word's start: continues, ends, or passes MAX_FRAME_LEN (cut here)
    act      = scan_q.open_v && !f_skip_q;
    len_now  = (f_first_q ? '0 : len_q) + (STAT_LEN_W + 1)'(e_off);
    len_d    = len_now;
    over     = len_now > (STAT_LEN_W + 1)'(MAX_FRAME_LEN);
    cut      = act && !scan_q.end_v && over;
    ending   = act && (scan_q.end_v || over);
    runt     = len_now < (STAT_LEN_W + 1)'(beryl_eth_pkg::MIN_FRAME_LEN);
    err_ctrl = f_sfd_q || (scan_q.end_v && scan_q.end_err);
    bad      = !scan_q.end_v || !fcs_ok || runt || over || err_ctrl;
    // output position of the last byte before the FCS, + 64, relative to word n (at least one byte)
    rel8     = ((f_first_q && e_off < 7'd5) ? 8'd5 : {1'b0, e_off}) + 8'd67 - {2'd0, f_sh_q, 3'd0};
    eidx     = rel8[7:6] + 2'd1;
    // a frame starting here would go to output word midx (that of p rounded up to 16)
    midx     = (scan_q.ns_col >= 3'd6) ? 2'd3 : 2'd2;
    // A frame ending in its sop word (fewer than 4 segments) is dropped when it follows another frame's
    // eop there (two eops in one word), or when the frame starting here needs that word (two sops).
    sdrop    = ending && eidx == f_sidx_q && (f_shared_q || (scan_q.ns_v && eidx == midx));
    if (ending) begin
      if (sdrop) begin
        // take back its sop
        ndrop = 2'd1;
        unique case (f_sidx_q)
          2'd1:    em1.sop_v = 1'b0;
          2'd2:    e0.sop_v  = 1'b0;
          default: ep1.sop_v = 1'b0;
        endcase
      end else begin
        unique case (eidx)
          2'd1: begin
            em1.eop_v = 1'b1; em1.eop_seg = rel8[5:4]; em1.mty = ~rel8[3:0]; em1.err = bad;
          end
          2'd2: begin
            e0.eop_v  = 1'b1; e0.eop_seg  = rel8[5:4]; e0.mty  = ~rel8[3:0]; e0.err  = bad;
          end
          default: begin
            ep1.eop_v = 1'b1; ep1.eop_seg = rel8[5:4]; ep1.mty = ~rel8[3:0]; ep1.err = bad;
          end
        endcase
        cur_idx_d       = eidx;
        cur_seg_d       = rel8[5:4];
        cur_one_d       = eidx == f_sidx_q;
        stat_d.valid    = 1'b1;
        stat_d.good     = !bad;
        stat_d.bad_fcs  = scan_q.end_v && !fcs_ok;
        stat_d.runt     = scan_q.end_v && runt;
        stat_d.oversize = over;
        stat_d.err_ctrl = err_ctrl;
        stat_d.pause    = h_pause && !bad;
        stat_d.bcast    = h_bcast;
        stat_d.mcast    = h_mcast;
        stat_d.len      = len_now[STAT_LEN_W] ? '1 : len_now[STAT_LEN_W-1:0];
        pause_v_d       = h_pause && !bad;
      end
    end
    if (cut) f_skip_d = 1'b1;

    // (2) a frame starting here and running past the word
    shared = cur_idx_d == midx;
    j      = shared ? {1'b0, cur_seg_d} + 3'd1 : 3'd0;
    // 8 + sh = c + 2 - 2j - (8 if o_nat is in word n+1) + 8, never negative
    t_sh    = 5'(scan_q.ns_col) + 5'd10 - {1'b0, j, 1'b0} - ((midx == 2'd3) ? 5'd8 : 5'd0);
    ns_drop = cur_idx_d > midx || j[2] || t_sh < 5'd8 || (shared && cur_one_d);
    if (scan_q.ns_v) begin
      if (ns_drop) begin
        ndrop = ndrop + 2'd1;
      end else if (midx == 2'd2) begin
        e0.sop_v = 1'b1; e0.sop_seg = j[1:0]; e0.sop_sh = t_sh[2:0]; e0.col = scan_q.ns_col; e0_ts = ts1_q;
      end else begin
        ep1.sop_v = 1'b1; ep1.sop_seg = j[1:0]; ep1.sop_sh = t_sh[2:0]; ep1.col = scan_q.ns_col; ep1_ts = ts1_q;
      end
      f_skip_d   = ns_drop;
      f_first_d  = scan_q.ns_col == 3'd7;
      f_sh_d     = t_sh[2:0];
      f_sidx_d   = midx;
      f_shared_d = shared;
      f_sfd_d    = scan_q.ns_sfd_err;
      f_hnew_d   = 1'b1;
      f_hoff_d   = {1'b0, scan_q.ns_col} + 4'd1;
      crc_d      = crc_s;
      len_d      = (STAT_LEN_W + 1)'(7'd56 - {1'b0, scan_q.ns_col, 3'd0});
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      t0_q       <= '0;
      t1_q       <= '0;
      f_skip_q   <= 1'b0;
      f_first_q  <= 1'b0;
      f_hnew_q   <= 1'b0;
      cur_idx_q  <= 2'd0;
      f_sidx_q   <= 2'd0;
      drop_cnt_q <= '0;
      stat_q     <= '0;
      pause_v_q  <= 1'b0;
    end else begin
      t0_q       <= e0;
      t1_q       <= ep1;
      f_skip_q   <= f_skip_d;
      f_first_q  <= f_first_d;
      f_hnew_q   <= f_hnew_d;
      cur_idx_q  <= age(cur_idx_d);
      f_sidx_q   <= age(f_sidx_d);
      drop_cnt_q <= drop_cnt_q + 32'(ndrop);
      stat_q     <= stat_d;
      pause_v_q  <= pause_v_d;
    end
    t0_ts_q    <= e0_ts;
    t1_ts_q    <= ep1_ts;
    cur_seg_q  <= cur_seg_d;
    cur_one_q  <= cur_one_d;
    f_sh_q     <= f_sh_d;
    f_shared_q <= f_shared_d;
    f_sfd_q    <= f_sfd_d;
    f_hoff_q   <= f_hoff_d;
    crc_q      <= crc_d;
    len_q      <= len_d;
    if (f_hnew_q) begin
      bcast_q  <= h_bcast;
      mcast_q  <= h_mcast;
      pause_q  <= h_pause;
      quanta_q <= h_quanta;
    end
    if (pause_v_d) pause_qn_q <= h_quanta;
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 3: output word k = n-1 from its control entry and the window {w[k+1], w[k], last column of
  // w[k-1]}: segment i of a frame with offset sh takes window bytes 16i + 8sh .. + 15. Segments up to
  // the eop belong to the frame open at the word's start, segments from the sop to the new frame.
  // ---------------------------------------------------------------------------------------------
  ent_t                  oc_q;
  logic [PTP_TS_W-1:0]   oc_ts_q;
  logic                  o_open_q, o_open_d;
  logic [2:0]            o_sh_q;
  logic [1087:0]         owin;
  logic [2:0]            sh_i;
  logic                  newseg;
  logic [511:0]          o_data_d;
  logic [3:0]            o_ena_d;

  always_comb begin
    owin = {d2_q, d3_q, d4_q};
    for (int unsigned i = 0; i < 4; i++) begin
      newseg = oc_q.sop_v && 2'(i) >= oc_q.sop_seg;
      sh_i   = newseg ? oc_q.sop_sh : o_sh_q;
      o_data_d[128*i +: 128] = owin[128*i + 64*sh_i +: 128];
      if (o_open_q) o_ena_d[i] = !oc_q.eop_v || 2'(i) <= oc_q.eop_seg || newseg;
      else          o_ena_d[i] = newseg && (!oc_q.eop_v || 2'(i) <= oc_q.eop_seg);
    end
    o_open_d = oc_q.sop_v ? !(oc_q.eop_v && !o_open_q) : o_open_q && !oc_q.eop_v;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      oc_q      <= '0;
      o_open_q  <= 1'b0;
      m_seg_ena <= '0;
      m_seg_sop <= '0;
      m_seg_eop <= '0;
    end else begin
      oc_q      <= em1;
      o_open_q  <= o_open_d;
      m_seg_ena <= o_ena_d;
      m_seg_sop <= oc_q.sop_v ? 4'(1) << oc_q.sop_seg : 4'd0;
      m_seg_eop <= oc_q.eop_v ? 4'(1) << oc_q.eop_seg : 4'd0;
    end
    oc_ts_q <= em1_ts;
    if (oc_q.sop_v) o_sh_q <= oc_q.sop_sh;
    m_seg_data <= o_data_d;
    for (int unsigned i = 0; i < 4; i++) begin
      m_seg_mty[4*i +: 4] <= (oc_q.eop_v && oc_q.eop_seg == 2'(i)) ? oc_q.mty : 4'd0;
      m_seg_err[i]        <= oc_q.eop_v && oc_q.eop_seg == 2'(i) && oc_q.err;
    end
    m_seg_ts     <= oc_ts_q;
    m_seg_ts_col <= oc_q.col;
  end

  assign rx_pause_valid   = pause_v_q;
  assign rx_pause_quanta  = pause_qn_q;
  assign rx_stat          = stat_q;
  assign rx_drop_count    = drop_cnt_q;
  assign rx_short_count   = short_cnt_q;

endmodule

`resetall
