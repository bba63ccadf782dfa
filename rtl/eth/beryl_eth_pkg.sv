// SPDX-License-Identifier: MIT
// Beryl Ethernet package: XGMII and 10GBASE-R code points, the per-frame statistics record that
// MACs hand to beryl_eth_mac_stats, the statistics counter map, and the Ethernet CRC-32.
`default_nettype none

package beryl_eth_pkg;

  // Each user picks the constants it needs; unused ones are not a defect here.
  /* verilator lint_off UNUSEDPARAM */

  // XGMII control characters (IEEE 802.3 clause 46, table 46-3)
  localparam logic [7:0] XGMII_IDLE  = 8'h07;
  localparam logic [7:0] XGMII_LPI   = 8'h06;
  localparam logic [7:0] XGMII_START = 8'hfb;
  localparam logic [7:0] XGMII_TERM  = 8'hfd;
  localparam logic [7:0] XGMII_ERROR = 8'hfe;
  localparam logic [7:0] XGMII_SEQ   = 8'h9c;  // sequence ordered set (link fault signalling)
  localparam logic [7:0] XGMII_SIG   = 8'h5c;  // signal ordered set (reserved)

  // Preamble and start frame delimiter (IEEE 802.3 clause 3.2.1, 3.2.2)
  localparam logic [7:0] ETH_PRE = 8'h55;
  localparam logic [7:0] ETH_SFD = 8'hd5;

  // 10GBASE-R 7-bit control codes (IEEE 802.3 clause 49, table 49-1)
  localparam logic [6:0] BASER_IDLE  = 7'h00;
  localparam logic [6:0] BASER_LPI   = 7'h06;
  localparam logic [6:0] BASER_ERROR = 7'h1e;
  localparam logic [6:0] BASER_RES0  = 7'h2d;
  localparam logic [6:0] BASER_RES1  = 7'h33;
  localparam logic [6:0] BASER_RES2  = 7'h4b;
  localparam logic [6:0] BASER_RES3  = 7'h55;
  localparam logic [6:0] BASER_RES4  = 7'h66;
  localparam logic [6:0] BASER_RES5  = 7'h78;
  // XGMII reserved control characters that map 1:1 onto BASER_RES0..5
  localparam logic [7:0] XGMII_RES0  = 8'h1c;
  localparam logic [7:0] XGMII_RES1  = 8'h3c;
  localparam logic [7:0] XGMII_RES2  = 8'h7c;
  localparam logic [7:0] XGMII_RES3  = 8'hbc;
  localparam logic [7:0] XGMII_RES4  = 8'hdc;
  localparam logic [7:0] XGMII_RES5  = 8'hf7;

  // 10GBASE-R O codes for ordered sets (clause 49, table 49-1)
  localparam logic [3:0] BASER_O_SEQ = 4'h0;
  localparam logic [3:0] BASER_O_SIG = 4'hf;

  // 66-bit sync headers, bit 0 is sent first (clause 49.2.4.3): data "01", control "10" on the wire
  localparam logic [1:0] SYNC_DATA = 2'b10;
  localparam logic [1:0] SYNC_CTRL = 2'b01;

  // Block type field values (clause 49, figure 49-7). Names list lanes 0..7:
  // C control, O ordered set, S start, D data, T terminate.
  localparam logic [7:0] BT_C8    = 8'h1e;  // C0 C1 C2 C3 C4 C5 C6 C7
  localparam logic [7:0] BT_C4_O4 = 8'h2d;  // C0 C1 C2 C3 O4 D5 D6 D7
  localparam logic [7:0] BT_C4_S4 = 8'h33;  // C0 C1 C2 C3 S4 D5 D6 D7
  localparam logic [7:0] BT_O0_S4 = 8'h66;  // O0 D1 D2 D3 S4 D5 D6 D7
  localparam logic [7:0] BT_O0_O4 = 8'h55;  // O0 D1 D2 D3 O4 D5 D6 D7
  localparam logic [7:0] BT_S0    = 8'h78;  // S0 D1 D2 D3 D4 D5 D6 D7
  localparam logic [7:0] BT_O0_C4 = 8'h4b;  // O0 D1 D2 D3 C4 C5 C6 C7
  localparam logic [7:0] BT_T0    = 8'h87;  // T0 C1 .. C7
  localparam logic [7:0] BT_T1    = 8'h99;  // D0 T1 C2 .. C7
  localparam logic [7:0] BT_T2    = 8'haa;
  localparam logic [7:0] BT_T3    = 8'hb4;
  localparam logic [7:0] BT_T4    = 8'hcc;
  localparam logic [7:0] BT_T5    = 8'hd2;
  localparam logic [7:0] BT_T6    = 8'he1;
  localparam logic [7:0] BT_T7    = 8'hff;  // D0 .. D6 T7

  // Smallest frame on the wire, DA through FCS (clause 4.4.2: minFrameSize 512 bits)
  localparam int unsigned MIN_FRAME_LEN = 64;
  // Frame lengths in statistics records saturate at this value
  localparam int unsigned STAT_LEN_W = 14;

  // One record per frame, valid for one cycle when the frame has ended (TX: the terminate is on
  // the wire; RX: the terminate was seen). `len` counts DA through FCS, saturating.
  typedef struct packed {
    logic                  valid;
    logic                  good;       // delivered with no error flag below
    logic                  bad_fcs;    // RX: FCS mismatch
    logic                  runt;       // RX: shorter than 64 bytes with FCS
    logic                  oversize;   // RX: longer than MAX_FRAME_LEN (frame truncated)
    logic                  err_ctrl;   // RX: /E/ or other control character inside the frame, bad SFD;
                                       // TX: frame aborted by the user (tuser error bit)
    logic                  underflow;  // TX: user stream ran dry mid-frame, frame aborted with /E/
    logic                  pause;      // MAC control PAUSE (type 0x8808, opcode 1); RX only counts good ones
    logic                  bcast;      // destination ff:ff:ff:ff:ff:ff
    logic                  mcast;      // destination group bit set, not broadcast
    logic [STAT_LEN_W-1:0] len;
  } mac_stat_t;

  // Counter map of beryl_eth_mac_stats (read address -> counter). RMON buckets count every frame
  // of 64 bytes or more whatever its status (RFC 2819 etherStatsPktsXXtoYYOctets); shorter frames
  // count as runts, longer than MAX_FRAME_LEN as oversize.
  localparam int unsigned STAT_FRAMES_GOOD = 0;
  localparam int unsigned STAT_FRAMES_BAD  = 1;
  localparam int unsigned STAT_BYTES_GOOD  = 2;   // DA through FCS of good frames
  localparam int unsigned STAT_BYTES_ALL   = 3;   // DA through FCS of every frame
  localparam int unsigned STAT_BAD_FCS     = 4;
  localparam int unsigned STAT_RUNT        = 5;
  localparam int unsigned STAT_OVERSIZE    = 6;
  localparam int unsigned STAT_ERR_CTRL    = 7;
  localparam int unsigned STAT_UNDERFLOW   = 8;
  localparam int unsigned STAT_PAUSE       = 9;
  localparam int unsigned STAT_BCAST       = 10;
  localparam int unsigned STAT_MCAST       = 11;
  localparam int unsigned STAT_LEN_64      = 12;
  localparam int unsigned STAT_LEN_65      = 13;  // 65..127
  localparam int unsigned STAT_LEN_128     = 14;  // 128..255
  localparam int unsigned STAT_LEN_256     = 15;  // 256..511
  localparam int unsigned STAT_LEN_512     = 16;  // 512..1023
  localparam int unsigned STAT_LEN_1024    = 17;  // 1024..1518
  localparam int unsigned STAT_LEN_1519    = 18;  // 1519..MAX_FRAME_LEN
  localparam int unsigned STAT_COUNT       = 19;

  // Ethernet CRC-32 (clause 3.2.9): reflected polynomial 0xedb88320, bytes LSB first. Folds the
  // first `nbytes` bytes of `data` (byte 0 in bits [7:0]) into the running remainder `crc`.
  // Called with a constant `nbytes`, synthesis reduces it to one XOR network.
  function automatic logic [31:0] crc32_upd(input logic [31:0] crc, input logic [63:0] data,
                                            input int unsigned nbytes);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < 64; i++) begin
      if (i < nbytes * 8) begin
        c = (c[0] ^ data[i]) ? ((c >> 1) ^ 32'hedb88320) : (c >> 1);
      end
    end
    crc32_upd = c;
  endfunction

  // Remainder left in the CRC register after a frame and its own FCS (bit-reversed 0xc704dd7b)
  localparam logic [31:0] CRC32_RESIDUE = 32'hdebb20e3;
  /* verilator lint_on UNUSEDPARAM */

  // XGMII control character -> 10GBASE-R 7-bit control code (table 49-1): {valid, code}.
  // /S/, /T/ and ordered-set characters have no 7-bit code and return valid = 0.
  function automatic logic [7:0] xgmii_to_baser(input logic [7:0] x);
    unique case (x)
      XGMII_IDLE:  xgmii_to_baser = {1'b1, BASER_IDLE};
      XGMII_LPI:   xgmii_to_baser = {1'b1, BASER_LPI};
      XGMII_ERROR: xgmii_to_baser = {1'b1, BASER_ERROR};
      XGMII_RES0:  xgmii_to_baser = {1'b1, BASER_RES0};
      XGMII_RES1:  xgmii_to_baser = {1'b1, BASER_RES1};
      XGMII_RES2:  xgmii_to_baser = {1'b1, BASER_RES2};
      XGMII_RES3:  xgmii_to_baser = {1'b1, BASER_RES3};
      XGMII_RES4:  xgmii_to_baser = {1'b1, BASER_RES4};
      XGMII_RES5:  xgmii_to_baser = {1'b1, BASER_RES5};
      default:     xgmii_to_baser = 8'h00;
    endcase
  endfunction

  // 10GBASE-R 7-bit control code -> XGMII control character: {valid, character}
  function automatic logic [8:0] baser_to_xgmii(input logic [6:0] c);
    unique case (c)
      BASER_IDLE:  baser_to_xgmii = {1'b1, XGMII_IDLE};
      BASER_LPI:   baser_to_xgmii = {1'b1, XGMII_LPI};
      BASER_ERROR: baser_to_xgmii = {1'b1, XGMII_ERROR};
      BASER_RES0:  baser_to_xgmii = {1'b1, XGMII_RES0};
      BASER_RES1:  baser_to_xgmii = {1'b1, XGMII_RES1};
      BASER_RES2:  baser_to_xgmii = {1'b1, XGMII_RES2};
      BASER_RES3:  baser_to_xgmii = {1'b1, XGMII_RES3};
      BASER_RES4:  baser_to_xgmii = {1'b1, XGMII_RES4};
      BASER_RES5:  baser_to_xgmii = {1'b1, XGMII_RES5};
      default:     baser_to_xgmii = 9'h000;
    endcase
  endfunction

  // Block classes for the clause 49 transmit/receive sequence checks (T_TYPE / R_TYPE, 49.2.13.2.3)
  typedef enum logic [2:0] {BLK_C, BLK_S, BLK_D, BLK_T, BLK_E} blk_class_e;

endpackage

`resetall
