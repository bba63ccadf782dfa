// SPDX-License-Identifier: MIT
// 100G Ethernet MAC transmitter: 512-bit AXI-Stream in, 512-bit CGMII-like word (64 lanes) out. Adds
// preamble/SFD, pads to 60 bytes, appends the FCS, starts frames on any 8-byte column (several frames
// share a word) and keeps the IFG at an exact 12-byte average with a deficit idle count (0..7).
// Latency: first beat to /S/ on the wire 2 cycles (idle wire); throughput one 64-byte beat per clock in,
// one 64-byte word per clock out.
//
// The user stream must deliver a frame without gaps once started (a store-and-forward FIFO in front
// guarantees that); a gap that empties the packer mid-frame ends the frame with /E/ columns (underflow),
// drops the rest of it and counts it. tkeep is all ones except on the last beat (contiguous from bit 0).
`default_nettype none

module beryl_eth_mac_100g_tx #(
  parameter bit DIC_EN = 1'b1  // 1: deficit idle count (IFG 5..19, average 12); 0: IFG 12..19 always
) (
  input  wire logic                  clk,
  input  wire logic                  rst,

  // frame stream (DA through payload, no FCS); tuser[0] on the last beat aborts the frame
  input  wire logic [511:0]          s_axis_tx_tdata,
  input  wire logic [63:0]           s_axis_tx_tkeep,
  input  wire logic                  s_axis_tx_tvalid,
  output      logic                  s_axis_tx_tready,
  input  wire logic                  s_axis_tx_tlast,
  input  wire logic [0:0]            s_axis_tx_tuser,

  // CGMII-like word: lane i = txd[8i+7:8i], txc[i] = 1 for a control character; lane 0 first on the wire
  output      logic [511:0]          cgmii_txd,
  output      logic [63:0]           cgmii_txc,

  output      beryl_eth_pkg::mac_stat_t tx_stat,             // one record per frame (see docs)
  output      logic [31:0]           tx_underflow_count      // frames cut by underflow, wrapping
);

  localparam logic [31:0] CRC_POLY = 32'hedb88320;  // reflected CRC-32 polynomial (clause 3.2.9)
  localparam int unsigned STAT_LEN_W = beryl_eth_pkg::STAT_LEN_W;

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
  // Stage 1: FCS. The last beat is folded in whole with its unused bytes zero (padding bytes of a
  // short frame are zero anyway); the trailing zero bytes are then undone with crc_unstep, k = 64 - n
  // bytes split into binary steps of 1, 2, 4, 8, 16, 32 bytes. Output: up to 68 bytes (9 columns)
  // per beat with the FCS in place after byte n - 1.
  // ---------------------------------------------------------------------------------------------
  logic                  v1_q;
  logic [575:0]          d1_q, d1_d;
  logic [6:0]            n1_q, n1_d;      // bytes in d1_q: 64 for a middle beat, 5..68 for a last beat
  logic                  last1_q, last1_d;
  logic                  first1_q, first1_d;
  logic                  err1_q, err1_d;
  logic                  first_q;         // next user beat starts a frame
  logic [31:0]           crc_q;
  logic                  take;            // stage 2 consumes the stage-1 beat
  logic                  s1_adv;

  logic [6:0]            in_n;            // bytes in the user beat, 1..64
  logic [6:0]            eff_n;           // in_n raised to 60 for a one-beat frame
  logic [511:0]          in_masked;
  logic [31:0]           crc_full;
  logic [31:0]           crc_fix [7];
  logic [5:0]            unk;             // trailing zero bytes to undo
  logic [575:0]          with_fcs;

  assign s1_adv           = !v1_q || take;
  assign s_axis_tx_tready = s1_adv;

  always_comb begin
    in_n = 7'd64;
    if (s_axis_tx_tlast) begin
      in_n = 7'd0;
      for (int unsigned i = 0; i < 64; i++) begin
        if (s_axis_tx_tkeep[i]) in_n = 7'(i + 1);
      end
    end
    for (int unsigned i = 0; i < 64; i++) begin
      in_masked[8*i +: 8] = (7'(i) < in_n) ? s_axis_tx_tdata[8*i +: 8] : 8'h00;
    end
    // clause 4.2.3.3: pad to 60 bytes (minFrameSize less the FCS)
    eff_n = (first_q && in_n < 7'd60) ? 7'd60 : in_n;
    unk   = 6'(7'd64 - eff_n);
  end

  assign crc_full = crc_step64(crc_q, in_masked);

  always_comb begin
    crc_fix[0] = crc_full;
    for (int unsigned b = 0; b < 6; b++) begin
      crc_fix[b+1] = unk[b] ? crc_unstep(crc_fix[b], 8 << b) : crc_fix[b];
    end
  end

  always_comb begin
    with_fcs = {64'd0, in_masked} | ({544'd0, ~crc_fix[6]} << (8 * eff_n));
    d1_d     = s_axis_tx_tlast ? with_fcs : {64'd0, s_axis_tx_tdata};
    n1_d     = s_axis_tx_tlast ? eff_n + 7'd4 : 7'd64;
    last1_d  = s_axis_tx_tlast;
    first1_d = first_q;
    err1_d   = s_axis_tx_tlast && s_axis_tx_tuser[0];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      v1_q    <= 1'b0;
      first_q <= 1'b1;
      crc_q   <= 32'hffffffff;
    end else if (s1_adv) begin
      v1_q <= s_axis_tx_tvalid;
      if (s_axis_tx_tvalid) begin
        first_q <= s_axis_tx_tlast;
        crc_q   <= s_axis_tx_tlast ? 32'hffffffff : crc_full;
      end
    end
    if (s1_adv && s_axis_tx_tvalid) begin
      d1_q     <= d1_d;
      n1_q     <= n1_d;
      last1_q  <= last1_d;
      first1_q <= first1_d;
      err1_q   <= err1_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 2: column packer. The wire is a stream of 8-byte columns, one per 64b/66b block; a /S/ may
  // only open a column (the clause 82 block formats have a start in lane 0 only; docs/blocks/eth.md). Each stage-1 beat becomes up to 12
  // columns: [preamble] data... [last data + /T/] [idle x 0..2]; they queue behind the columns not yet
  // sent and every clock the first 8 columns go out. A column is {open, txc[7:0], txd[63:0]}; `open`
  // means the frame continues after it, so a short queue ending in an open column is an underflow.
  // ---------------------------------------------------------------------------------------------
  localparam int unsigned COL_W = 73;
  localparam int unsigned QCAP  = 12;   // queue columns; take only when q <= 8, push <= 12
  localparam int unsigned PMAX  = 13;   // pushed columns (12 used), index room for the merge
  localparam int unsigned CMAX  = 20;   // merged columns looked at: 8 out + QCAP kept

  localparam logic [7:0]  C_IDLE = beryl_eth_pkg::XGMII_IDLE;
  localparam logic [7:0]  C_TERM = beryl_eth_pkg::XGMII_TERM;
  localparam logic [7:0]  C_ERR  = beryl_eth_pkg::XGMII_ERROR;
  localparam logic [COL_W-1:0] COL_IDLE = {1'b0, 8'hff, {8{C_IDLE}}};
  localparam logic [COL_W-1:0] COL_PRE  = {1'b1, 8'h01, beryl_eth_pkg::ETH_SFD, {6{beryl_eth_pkg::ETH_PRE}},
                                           beryl_eth_pkg::XGMII_START};

  logic [QCAP*COL_W-1:0]  queue_q, queue_d;
  logic [4:0]             q_q, q_d;           // columns in the queue, 0..12
  logic [2:0]             dic_q, dic_d;       // deficit idle count, 0..7 bytes
  logic [2:0]             dic_plan;           // deficit after this clock's /T/, if any
  logic                   drop_q, drop_d;     // skipping the rest of an underflowed frame
  logic                   wire_open_q, wire_open_d;
  logic [511:0]           txd_q, txd_d;
  logic [63:0]            txc_q, txc_d;
  logic [31:0]            ufl_cnt_q;
  logic [STAT_LEN_W-1:0]  len_q, len_d;
  logic                   bcast_q, bcast_d, mcast_q, mcast_d;
  beryl_eth_pkg::mac_stat_t stat_d, stat_q;

  logic                   push;
  logic [PMAX*COL_W-1:0]  pushed;
  logic [COL_W*9-1:0]     dcols;              // data (+ /T/) columns of the stage-1 beat
  logic [3:0]             ndc;                // data columns, 1..9
  logic [1:0]             nidle;              // idle columns after /T/
  logic [3:0]             p;                  // pushed columns
  logic [5:0]             total;
  logic [CMAX*COL_W-1:0]  comb;
  logic                   last_col_open;
  logic                   last_open;
  logic [2:0]             tl;                 // lane of /T/ in its column
  logic [2:0]             r;                  // bytes the next start would move earlier
  logic [STAT_LEN_W:0]    len_sum;
  logic                   is_bcast, is_mcast;

  assign take = v1_q && (drop_q || q_q <= 5'd8);
  assign push = take && !drop_q;

  // data columns of the beat; the last one holds n mod 8 bytes then /T/ (or /E/ bytes on abort)
  always_comb begin
    tl  = n1_q[2:0];
    ndc = last1_q ? 4'(n1_q[6:3]) + 4'd1 : 4'd8;
    for (int unsigned c = 0; c < 9; c++) begin
      dcols[COL_W*c +: COL_W] = {1'b1, 8'h00, d1_q[64*c +: 64]};
      if (last1_q) begin
        for (int unsigned l = 0; l < 8; l++) begin
          if (7'(8*c + l) < n1_q) begin
            if (err1_q) begin
              dcols[COL_W*c + 8*l +: 8] = C_ERR;
              dcols[COL_W*c + 64 + l]   = 1'b1;
            end
          end else if (7'(8*c + l) == n1_q) begin
            dcols[COL_W*c + 8*l +: 8] = C_TERM;
            dcols[COL_W*c + 64 + l]   = 1'b1;
          end else begin
            dcols[COL_W*c + 8*l +: 8] = C_IDLE;
            dcols[COL_W*c + 64 + l]   = 1'b1;
          end
        end
        if (4'(c) == 4'(n1_q[6:3])) dcols[COL_W*c + 72] = 1'b0;
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
    if (push && last1_q && r != 3'd0) begin
      if (DIC_EN && ({1'b0, dic_q} + {1'b0, r} <= 4'd7)) begin
        dic_plan = dic_q + r;
      end else begin
        nidle    = nidle + 2'd1;
        dic_plan = (dic_q > 3'(4'd8 - {1'b0, r})) ? 3'(dic_q - 3'(4'd8 - {1'b0, r})) : 3'd0;
      end
    end
    if (!(push && last1_q)) nidle = 2'd0;
  end

  always_comb begin
    p = push ? 4'(first1_q) + ndc + 4'(nidle) : 4'd0;
    for (int unsigned m = 0; m < PMAX; m++) begin
      pushed[COL_W*m +: COL_W] = COL_IDLE;
      if (first1_q) begin
        if (m == 0) pushed[COL_W*m +: COL_W] = COL_PRE;
        else if (m <= 9 && 4'(m - 1) < ndc) pushed[COL_W*m +: COL_W] = dcols[COL_W*(m-1) +: COL_W];
      end else begin
        if (m < 9 && 4'(m) < ndc) pushed[COL_W*m +: COL_W] = dcols[COL_W*m +: COL_W];
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

  assign len_sum  = {1'b0, len_q} + (STAT_LEN_W + 1)'(n1_q);
  assign is_bcast = &d1_q[47:0];
  assign is_mcast = d1_q[0] && !is_bcast;

  always_comb begin
    queue_d     = queue_q;
    q_d         = 5'd0;
    drop_d      = drop_q;
    wire_open_d = 1'b0;
    txd_d       = '0;
    txc_d       = '0;
    len_d       = len_q;
    bcast_d     = bcast_q;
    mcast_d     = mcast_q;
    stat_d      = '0;
    dic_d       = dic_plan;

    if (take && drop_q && last1_q) drop_d = 1'b0;

    if (push) begin
      if (first1_q) begin
        len_d   = (STAT_LEN_W)'(n1_q);
        bcast_d = is_bcast;
        mcast_d = is_mcast;
      end else begin
        len_d = len_sum[STAT_LEN_W] ? '1 : len_sum[STAT_LEN_W-1:0];
      end
      if (last1_q) begin
        stat_d.valid    = 1'b1;
        stat_d.good     = !err1_q;
        stat_d.err_ctrl = err1_q;
        stat_d.bcast    = first1_q ? is_bcast : bcast_q;
        stat_d.mcast    = first1_q ? is_mcast : mcast_q;
        stat_d.len      = first1_q ? (STAT_LEN_W)'(n1_q) : len_d;
      end
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
      // skip its remaining beats and leave two idle columns before the next start
      for (int unsigned j = 0; j < 8; j++) begin
        txd_d[64*j +: 64] = (6'(j) < total) ? comb[COL_W*j +: 64] : {8{C_ERR}};
        txc_d[8*j +: 8]   = (6'(j) < total) ? comb[COL_W*j + 64 +: 8] : 8'hff;
      end
      for (int unsigned i = 0; i < QCAP; i++) queue_d[COL_W*i +: COL_W] = COL_IDLE;
      q_d              = 5'd2;
      drop_d           = 1'b1;   // the frame's last beat has not been pushed, or it would not be open
      dic_d            = 3'd0;
      stat_d.valid     = 1'b1;
      stat_d.underflow = 1'b1;
      stat_d.bcast     = bcast_d;
      stat_d.mcast     = mcast_d;
      stat_d.len       = len_d;
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
    end else begin
      q_q         <= q_d;
      dic_q       <= dic_d;
      drop_q      <= drop_d;
      wire_open_q <= wire_open_d;
      txd_q       <= txd_d;
      txc_q       <= txc_d;
      stat_q      <= stat_d;
      if (stat_d.underflow) ufl_cnt_q <= ufl_cnt_q + 32'd1;
    end
    queue_q <= queue_d;
    len_q   <= len_d;
    bcast_q <= bcast_d;
    mcast_q <= mcast_d;
  end

  assign cgmii_txd          = txd_q;
  assign cgmii_txc          = txc_q;
  assign tx_stat            = stat_q;
  assign tx_underflow_count = ufl_cnt_q;

endmodule

`resetall
