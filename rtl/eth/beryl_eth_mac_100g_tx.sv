// SPDX-License-Identifier: MIT
// 100G Ethernet MAC transmitter: segmented 4 x 128-bit user side (up to the end of one frame and the start
// of the next per word) in, 512-bit CGMII-like word (64 lanes, 8-byte columns) out, with TX timestamps.
// Latency: sop word accepted to /S/ on the wire 2 cycles (idle wire); throughput one word per clock each side.
//
// Adds preamble/SFD, pads to 60 bytes, appends the FCS, starts frames on any 8-byte column and keeps the
// IFG at an exact 12-byte average with a deficit idle count (0..7). Words of one frame must come on
// consecutive clocks once it started; a gap that empties the column queue mid-frame ends the frame with
// /E/ (underflow), drops the rest of it and counts it. A word whose frame continues past it must have all
// four segments enabled (docs/blocks/eth.md, segmented interface).
`default_nettype none

module beryl_eth_mac_100g_tx #(
  parameter bit          DIC_EN   = 1'b1,  // 1: deficit idle count (IFG 5..19, average 12); 0: IFG 12..19
  parameter int unsigned PTP_TS_W = 96,    // timestamp width in bits (1..128), sampled from tx_ptp_ts
  parameter int unsigned TX_TAG_W = 16     // frame tag width in bits (1..64), returned with the timestamp
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  // segmented frame input (DA through payload, no FCS): segment i = data[128i+127:128i], first in time
  // is segment 0; sop/eop/mty/err per segment; a word with ena != 0 is valid; ready comes from flops
  input  wire logic [511:0]          s_seg_data,
  input  wire logic [3:0]            s_seg_ena,
  input  wire logic [3:0]            s_seg_sop,
  input  wire logic [3:0]            s_seg_eop,
  input  wire logic [15:0]           s_seg_mty,     // with eop: unused bytes at the end of the segment
  input  wire logic [3:0]            s_seg_err,     // with eop: abort the frame (ends in /E/)
  input  wire logic [TX_TAG_W-1:0]   s_seg_tag,     // tag of the frame whose sop is in the word
  output      logic                  s_seg_ready,

  // CGMII-like word: lane i = txd[8i+7:8i], txc[i] = 1 for a control character; lane 0 first on the wire
  output      logic [511:0]          cgmii_txd,
  output      logic [63:0]           cgmii_txc,

  // PTP time, sampled at the edge that puts a frame's SFD word on cgmii_txd
  input  wire logic [PTP_TS_W-1:0]   tx_ptp_ts,
  output      logic                  tx_ts_valid,   // one pulse per frame started, in start order
  output      logic [PTP_TS_W-1:0]   tx_ts,
  output      logic [TX_TAG_W-1:0]   tx_ts_tag,
  output      logic [2:0]            tx_ts_col,     // column (8 lanes) of the /S/ + SFD in that word

  output      beryl_eth_pkg::mac_stat_t tx_stat,             // one record per frame (see docs)
  output      logic [31:0]           tx_underflow_count      // frames cut by underflow, wrapping
);

  if (TX_TAG_W < 1 || TX_TAG_W > 64) begin : g_bad_tag_w
    $error("%m: TX_TAG_W must be 1..64 (the tag rides in the preamble column)");
  end
  if (PTP_TS_W < 1 || PTP_TS_W > 128) begin : g_bad_ts_w
    $error("%m: PTP_TS_W must be 1..128");
  end

  localparam logic [31:0] CRC_POLY = 32'hedb88320;  // reflected CRC-32 polynomial (clause 3.2.9)
  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;

  // CRC start states for a frame beginning at segment k = 1, 2, 3: stepping 16k zero bytes from them gives
  // 0xffffffff, so the CRC can run over the whole word with the bytes before the frame zero. Computed as
  // crc_unstep(0xffffffff, 128k) (checked in the test bench).
  localparam logic [31:0] CRC_SEG1 = 32'h38a70e28;
  localparam logic [31:0] CRC_SEG2 = 32'hce6670b0;
  localparam logic [31:0] CRC_SEG3 = 32'hc1f58982;

  // Folds 64 bytes into the CRC register (bit 0 of byte 0 first). XOR form so synthesis sees a plain
  // XOR network.
  function automatic logic [31:0] crc_step64(input logic [31:0] crc, input logic [511:0] data);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < 512; i++) begin
      c = (c >> 1) ^ ({32{c[0] ^ data[i]}} & CRC_POLY);
    end
    crc_step64 = c;
  endfunction

  // Undoes `nbits` zero-input steps of the CRC register: the forward step puts the dropped bit c[0]
  // in bit 31 (the polynomial's top bit, shift leaves a 0 there), so every step is invertible.
  function automatic logic [31:0] crc_unstep(input logic [31:0] crc, input int unsigned nbits);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < nbits; i++) begin
      c = ((c ^ ({32{c[31]}} & CRC_POLY)) << 1) | {31'd0, c[31]};
    end
    crc_unstep = c;
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Stage 1: split the word into two pieces and compute both FCS paths.
  // Piece 0 is the frame holding segment 0: the continuation (or end) of the frame open from earlier
  // words, or a frame starting at segment 0. Piece 1 is a frame starting at segment k = 1..3 after piece
  // 0 ended; it runs past the word (one eop per word). CRC of piece 0: its state continues over the word
  // with the bytes after its end zero; on its end the trailing zero bytes (up to the padded end, clause
  // 4.2.3.3: 60 bytes) are undone with crc_unstep in binary steps of 1..32 bytes, and the FCS is placed
  // after byte e - 1 (stage output up to 68 bytes, 9 columns). CRC of piece 1: the word with piece 0's
  // bytes zero, from the start state for segment k.
  // ---------------------------------------------------------------------------------------------
  logic                  v1_q;
  logic [575:0]          d0_q, d0_d;      // piece 0 bytes (with pad + FCS on its end)
  logic [6:0]            n0_q, n0_d;      // bytes in d0_q: 64 in a middle word, 5..68 on the end
  logic                  first0_q, last0_q, err0_q;
  logic [2:0]            nseg0_q;         // segments of piece 0, 1..4 (columns skipped while dropping)
  logic                  has1_q;
  logic [1:0]            k1_q;            // segment of piece 1's sop, 1..3
  logic [383:0]          d1_q, d1_d;      // piece 1 bytes (segments k..3 moved down to byte 0)
  logic [TX_TAG_W-1:0]   tag1_q;
  logic [31:0]           crc_q;           // CRC state of the frame open at the end of the last word
  logic [6:0]            lenb_q;          // its bytes so far (16, 32, 48; 64 means 64 or more)
  logic                  take;            // stage 2 consumes the stage-1 word
  logic                  s1_adv;

  logic                  in_v;
  logic [3:0]            sopv, eopv;
  logic                  has_eop, first0_in, has1_in;
  logic [1:0]            eseg, k1_in;
  logic [3:0]            mty_e;
  logic [6:0]            n0_in;           // bytes of piece 0 in the word, 1..64
  logic [6:0]            pad_to;          // padded end of piece 0 (0 when no padding is due)
  logic [6:0]            e0;              // piece 0 end incl. padding, 1..64
  logic [511:0]          masked0, masked1;
  logic [31:0]           crc0_full, crc1, crc1_init;
  logic [31:0]           crc_fix [7];
  logic [5:0]            unk;             // trailing zero bytes to undo
  logic [575:0]          with_fcs;

  assign s1_adv      = !v1_q || take;
  assign s_seg_ready = s1_adv;

  always_comb begin
    in_v    = |s_seg_ena;
    sopv    = s_seg_sop & s_seg_ena;
    eopv    = s_seg_eop & s_seg_ena;
    has_eop = |eopv;
    eseg    = 2'd3;
    for (int i = 3; i >= 0; i--) begin
      if (eopv[i]) eseg = 2'(i);
    end
    k1_in   = 2'd1;
    for (int i = 3; i >= 1; i--) begin
      if (sopv[i]) k1_in = 2'(i);
    end
    first0_in = sopv[0];
    has1_in   = |sopv[3:1] && !sopv[0];
    mty_e     = s_seg_mty[4*eseg +: 4];
    n0_in     = {eseg, 4'd0} + 7'd16 - (has_eop ? {3'd0, mty_e} : 7'd0);
    if (first0_in)          pad_to = 7'd60;
    else if (lenb_q < 7'd60) pad_to = 7'd60 - lenb_q;
    else                    pad_to = 7'd0;
    e0  = (n0_in > pad_to) ? n0_in : pad_to;
    unk = 6'(7'd64 - e0);
    for (int unsigned i = 0; i < 64; i++) begin
      masked0[8*i +: 8] = (7'(i) < n0_in) ? s_seg_data[8*i +: 8] : 8'h00;
      masked1[8*i +: 8] = (7'(i) >= {1'b0, k1_in, 4'd0}) ? s_seg_data[8*i +: 8] : 8'h00;
    end
    case (k1_in)
      2'd1:    crc1_init = CRC_SEG1;
      2'd2:    crc1_init = CRC_SEG2;
      default: crc1_init = CRC_SEG3;
    endcase
    case (k1_in)
      2'd1:    d1_d = s_seg_data[511:128];
      2'd2:    d1_d = {128'd0, s_seg_data[511:256]};
      default: d1_d = {256'd0, s_seg_data[511:384]};
    endcase
  end

  assign crc0_full = crc_step64(first0_in ? 32'hffffffff : crc_q, masked0);
  assign crc1      = crc_step64(crc1_init, masked1);

  always_comb begin
    crc_fix[0] = crc0_full;
    for (int unsigned b = 0; b < 6; b++) begin
      crc_fix[b+1] = unk[b] ? crc_unstep(crc_fix[b], 8 << b) : crc_fix[b];
    end
    with_fcs = {64'd0, masked0} | ({544'd0, ~crc_fix[6]} << (8 * e0));
    d0_d     = has_eop ? with_fcs : {64'd0, s_seg_data};
    n0_d     = has_eop ? e0 + 7'd4 : 7'd64;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      v1_q   <= 1'b0;
      crc_q  <= 32'hffffffff;
      lenb_q <= 7'd64;
    end else if (s1_adv) begin
      v1_q <= in_v;
      if (in_v) begin
        crc_q  <= has1_in ? crc1 : crc0_full;
        lenb_q <= has1_in ? 7'd64 - {1'b0, k1_in, 4'd0} : 7'd64;
      end
    end
    if (s1_adv && in_v) begin
      d0_q     <= d0_d;
      n0_q     <= n0_d;
      first0_q <= first0_in;
      last0_q  <= has_eop;
      err0_q   <= has_eop && s_seg_err[eseg];
      nseg0_q  <= 3'(eseg) + 3'd1;
      has1_q   <= has1_in;
      k1_q     <= k1_in;
      d1_q     <= d1_d;
      tag1_q   <= s_seg_tag;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: column packer. The wire is a stream of 8-byte columns, one per 64b/66b block; a /S/ may
  // only open a column (the clause 82 block formats have a start in lane 0 only; docs/blocks/eth.md).
  // Each stage-1 word becomes up to 16 columns: [preamble] piece 0 data... [last data + /T/] [idle x 0..2]
  // [preamble piece 1 data...]; they queue behind the columns not yet sent and every clock the first 8
  // columns go out. A column is {open, txc[7:0], txd[63:0]}; `open` means the frame continues after it, so
  // a short queue ending in an open column is an underflow. A preamble column (txc = 8'h01, unique) carries
  // the frame's tag in its data bits through the queue; the constant preamble replaces it at the output.
  // ---------------------------------------------------------------------------------------------
  localparam int unsigned COL_W    = 73;
  localparam int unsigned TAKE_MAX = 8;             // take a word only while the queue holds <= this
  localparam int unsigned QCAP     = TAKE_MAX + 8;  // queue columns (push <= 16, 8 go out)
  localparam int unsigned PMAX     = 17;            // pushed columns (16 used), index room for the merge
  localparam int unsigned CMAX     = QCAP + 8;      // merged columns looked at: 8 out + QCAP kept

  localparam logic [7:0]  C_IDLE = beryl_eth_pkg::XGMII_IDLE;
  localparam logic [7:0]  C_TERM = beryl_eth_pkg::XGMII_TERM;
  localparam logic [7:0]  C_ERR  = beryl_eth_pkg::XGMII_ERROR;
  localparam logic [COL_W-1:0] COL_IDLE = {1'b0, 8'hff, {8{C_IDLE}}};
  localparam logic [63:0] PRE_DATA = {beryl_eth_pkg::ETH_SFD, {6{beryl_eth_pkg::ETH_PRE}}, beryl_eth_pkg::XGMII_START};

  logic [QCAP*COL_W-1:0]  queue_q, queue_d;
  logic [4:0]             q_q, q_d;           // columns in the queue, 0..QCAP
  logic [2:0]             dic_q, dic_d;       // deficit idle count, 0..7 bytes
  logic [2:0]             dic_plan;           // deficit after this clock's /T/, if any
  logic                   drop_q, drop_d;     // skipping the rest of an underflowed frame
  logic                   wire_open_q, wire_open_d;
  logic [511:0]           txd_q, txd_d;
  logic [63:0]            txc_q, txc_d;
  logic [31:0]            ufl_cnt_q;
  logic [STAT_LEN_W-1:0]  len_q, len_d, len0;
  logic                   bcast_q, bcast_d, mcast_q, mcast_d;
  beryl_eth_pkg::mac_stat_t stat_d, stat_q;
  logic                   ts_v_q, ts_v_d;
  logic [PTP_TS_W-1:0]    ts_q;
  logic [TX_TAG_W-1:0]    ts_tag_q, ts_tag_d;
  logic [2:0]             ts_col_q, ts_col_d;

  logic                   push;
  logic                   pre0, end0;         // piece 0 opens / ends a frame on the wire
  logic [COL_W-1:0]       col_pre;            // preamble column carrying the tag
  logic [PMAX*COL_W-1:0]  pushed;
  logic [COL_W*9-1:0]     dcols;              // data (+ /T/) columns of piece 0
  logic [3:0]             ndc;                // piece 0 columns, 1..9
  logic [3:0]             np1;                // piece 1 data columns, 2..6
  logic [1:0]             nidle;              // idle columns after /T/
  logic [4:0]             offb;               // position of piece 1's preamble column
  logic [4:0]             p;                  // pushed columns
  logic [5:0]             total;
  logic [CMAX*COL_W-1:0]  comb;
  logic                   last_col_open;
  logic                   last_open;
  logic [2:0]             tl;                 // lane of /T/ in its column
  logic [2:0]             r;                  // bytes the next start would move earlier
  logic [STAT_LEN_W:0]    len_sum;
  logic                   is_bcast0, is_mcast0, is_bcast1, is_mcast1;

  assign take = v1_q && q_q <= 5'(TAKE_MAX);
  assign push = take;
  assign pre0 = first0_q && !drop_q;
  assign end0 = last0_q && !drop_q;

  always_comb begin
    col_pre = {1'b1, 8'h01, 64'd0};
    col_pre[TX_TAG_W-1:0] = tag1_q;
  end

  // data columns of piece 0; on its end the last one holds n mod 8 bytes then /T/ (or /E/ bytes on abort)
  always_comb begin
    tl  = n0_q[2:0];
    ndc = drop_q ? {nseg0_q, 1'b0} : (last0_q ? 4'(n0_q[6:3]) + 4'd1 : 4'd8);
    np1 = 4'd8 - {1'b0, k1_q, 1'b0};
    for (int unsigned c = 0; c < 9; c++) begin
      dcols[COL_W*c +: COL_W] = {1'b1, 8'h00, d0_q[64*c +: 64]};
      if (last0_q) begin
        for (int unsigned l = 0; l < 8; l++) begin
          if (7'(8*c + l) < n0_q) begin
            if (err0_q) begin
              dcols[COL_W*c + 8*l +: 8] = C_ERR;
              dcols[COL_W*c + 64 + l]   = 1'b1;
            end
          end else if (7'(8*c + l) == n0_q) begin
            dcols[COL_W*c + 8*l +: 8] = C_TERM;
            dcols[COL_W*c + 64 + l]   = 1'b1;
          end else begin
            dcols[COL_W*c + 8*l +: 8] = C_IDLE;
            dcols[COL_W*c + 64 + l]   = 1'b1;
          end
        end
        if (4'(c) == 4'(n0_q[6:3])) dcols[COL_W*c + 72] = 1'b0;
      end
    end
  end

  // Deficit idle count, clause 46.3.1.4 rule carried to 8-byte start alignment (clause 81/82): the
  // next /S/ would be 12 bytes after /T/ (counting /T/); move it earlier by r bytes to the column
  // boundary while the deficit stays <= 7, else later by 8 - r bytes, repaying the deficit.
  always_comb begin
    r     = 3'(tl + 3'd4);
    nidle = {1'b0, tl >= 3'd4};
    dic_plan = dic_q;
    if (push && end0 && r != 3'd0) begin
      if (DIC_EN && ({1'b0, dic_q} + {1'b0, r} <= 4'd7)) begin
        dic_plan = dic_q + r;
      end else begin
        nidle    = nidle + 2'd1;
        dic_plan = (dic_q > 3'(4'd8 - {1'b0, r})) ? 3'(dic_q - 3'(4'd8 - {1'b0, r})) : 3'd0;
      end
    end
    if (!(push && end0)) nidle = 2'd0;
  end

  always_comb begin
    offb = 5'(pre0) + 5'(ndc) + 5'(nidle);
    p    = push ? offb + (has1_q ? 5'(np1) + 5'd1 : 5'd0) : 5'd0;
    for (int unsigned m = 0; m < PMAX; m++) begin
      pushed[COL_W*m +: COL_W] = COL_IDLE;
      if (pre0 && m == 0) begin
        pushed[COL_W*m +: COL_W] = col_pre;
      end else if (5'(m) >= 5'(pre0) && 5'(m) - 5'(pre0) < 5'(ndc)) begin
        for (int unsigned c = 0; c < 9; c++) begin
          if (!drop_q && 5'(m) - 5'(pre0) == 5'(c)) pushed[COL_W*m +: COL_W] = dcols[COL_W*c +: COL_W];
        end
      end else if (has1_q && 5'(m) == offb) begin
        pushed[COL_W*m +: COL_W] = col_pre;
      end else if (has1_q && 5'(m) > offb) begin
        for (int unsigned c = 0; c < 6; c++) begin
          if (5'(m) - offb - 5'd1 == 5'(c) && 4'(c) < np1) begin
            pushed[COL_W*m +: COL_W] = {1'b1, 8'h00, d1_q[64*c +: 64]};
          end
        end
      end
    end
  end

  // queue followed by this clock's pushed columns
  always_comb begin
    total = 6'(q_q) + 6'(p);
    for (int unsigned j = 0; j < CMAX; j++) begin
      comb[COL_W*j +: COL_W] = COL_IDLE;
      for (int unsigned k = 0; k <= QCAP; k++) begin
        if (5'(k) == q_q) begin
          if (j < k) comb[COL_W*j +: COL_W] = queue_q[COL_W*j +: COL_W];
          else if (j - k < PMAX) comb[COL_W*j +: COL_W] = pushed[COL_W*(j-k) +: COL_W];
        end
      end
    end
    last_col_open = 1'b0;
    for (int unsigned j = 1; j <= 8; j++) begin
      if (total == 6'(j)) last_col_open = comb[COL_W*(j-1) + 72];
    end
    last_open = (total == 6'd0) ? wire_open_q : last_col_open;
  end

  assign len_sum   = {1'b0, len_q} + (STAT_LEN_W + 1)'(n0_q);
  assign is_bcast0 = &d0_q[47:0];
  assign is_mcast0 = d0_q[0] && !is_bcast0;
  assign is_bcast1 = &d1_q[47:0];
  assign is_mcast1 = d1_q[0] && !is_bcast1;

  always_comb begin
    queue_d     = queue_q;
    q_d         = 5'd0;
    drop_d      = drop_q;
    wire_open_d = 1'b0;
    txd_d       = '0;
    txc_d       = '0;
    len_d       = len_q;
    len0        = len_q;
    bcast_d     = bcast_q;
    mcast_d     = mcast_q;
    stat_d      = '0;
    dic_d       = dic_plan;

    if (take && drop_q && last0_q) drop_d = 1'b0;

    if (push && !drop_q) begin
      if (first0_q) begin
        len0    = (STAT_LEN_W)'(n0_q);
        bcast_d = is_bcast0;
        mcast_d = is_mcast0;
      end else begin
        len0 = len_sum[STAT_LEN_W] ? '1 : len_sum[STAT_LEN_W-1:0];
      end
      len_d = len0;
      if (last0_q) begin
        stat_d.valid    = 1'b1;
        stat_d.good     = !err0_q;
        stat_d.err_ctrl = err0_q;
        stat_d.bcast    = bcast_d;
        stat_d.mcast    = mcast_d;
        stat_d.len      = len0;
      end
    end
    if (push && has1_q) begin
      len_d   = (STAT_LEN_W)'(7'd64 - {1'b0, k1_q, 4'd0});
      bcast_d = is_bcast1;
      mcast_d = is_mcast1;
    end

    if (total >= 6'd8) begin
      for (int unsigned j = 0; j < 8; j++) begin
        txd_d[64*j +: 64] = comb[COL_W*j +: 64];
        txc_d[8*j +: 8]   = comb[COL_W*j + 64 +: 8];
      end
      for (int unsigned i = 0; i < QCAP; i++) queue_d[COL_W*i +: COL_W] = comb[COL_W*(i+8) +: COL_W];
      q_d         = 5'(total - 6'd8);
      wire_open_d = comb[COL_W*7 + 72];
    end else if (!last_open) begin
      // between frames and nothing more to send: idle columns; they lengthen the gap by >= 8 bytes,
      // which repays any deficit
      for (int unsigned j = 0; j < 8; j++) begin
        txd_d[64*j +: 64] = (6'(j) < total) ? comb[COL_W*j +: 64] : {8{C_IDLE}};
        txc_d[8*j +: 8]   = (6'(j) < total) ? comb[COL_W*j + 64 +: 8] : 8'hff;
      end
      dic_d = 3'd0;
    end else begin
      // underflow: the frame on the wire ran out of data; end it with /E/ so the receiver drops it,
      // skip the rest of its words and leave two idle columns before the next start
      for (int unsigned j = 0; j < 8; j++) begin
        txd_d[64*j +: 64] = (6'(j) < total) ? comb[COL_W*j +: 64] : {8{C_ERR}};
        txc_d[8*j +: 8]   = (6'(j) < total) ? comb[COL_W*j + 64 +: 8] : 8'hff;
      end
      for (int unsigned i = 0; i < QCAP; i++) queue_d[COL_W*i +: COL_W] = COL_IDLE;
      q_d              = 5'd2;
      drop_d           = 1'b1;   // the frame's last piece has not been pushed, or it would not be open
      dic_d            = 3'd0;
      stat_d.valid     = 1'b1;
      stat_d.underflow = 1'b1;
      stat_d.bcast     = bcast_d;
      stat_d.mcast     = mcast_d;
      stat_d.len       = len_d;
    end

    // the preamble column (only one can be in a word: a frame and its gap span more than 64 bytes)
    // gives up its tag and gets the constant preamble/SFD
    ts_v_d   = 1'b0;
    ts_tag_d = '0;
    ts_col_d = 3'd0;
    for (int unsigned j = 0; j < 8; j++) begin
      if (txc_d[8*j +: 8] == 8'h01) begin
        ts_v_d            = 1'b1;
        ts_tag_d          = txd_d[64*j +: TX_TAG_W];
        ts_col_d          = 3'(j);
        txd_d[64*j +: 64] = PRE_DATA;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      q_q         <= '0;
      dic_q       <= '0;
      drop_q      <= 1'b0;
      wire_open_q <= 1'b0;
      txd_q       <= {64{C_IDLE}};
      txc_q       <= '1;
      stat_q      <= '0;
      ufl_cnt_q   <= '0;
      ts_v_q      <= 1'b0;
    end else begin
      q_q         <= q_d;
      dic_q       <= dic_d;
      drop_q      <= drop_d;
      wire_open_q <= wire_open_d;
      txd_q       <= txd_d;
      txc_q       <= txc_d;
      stat_q      <= stat_d;
      ts_v_q      <= ts_v_d;
      if (stat_d.underflow) ufl_cnt_q <= ufl_cnt_q + 32'd1;
    end
    queue_q <= queue_d;
    len_q   <= len_d;
    bcast_q <= bcast_d;
    mcast_q <= mcast_d;
    if (ts_v_d) begin
      ts_q     <= tx_ptp_ts;
      ts_tag_q <= ts_tag_d;
      ts_col_q <= ts_col_d;
    end
  end

  assign cgmii_txd          = txd_q;
  assign cgmii_txc          = txc_q;
  assign tx_stat            = stat_q;
  assign tx_underflow_count = ufl_cnt_q;
  assign tx_ts_valid        = ts_v_q;
  assign tx_ts              = ts_q;
  assign tx_ts_tag          = ts_tag_q;
  assign tx_ts_col          = ts_col_q;

endmodule

`resetall
