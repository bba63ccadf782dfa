// SPDX-License-Identifier: MIT
// Drops a DESC_DW-dword descriptor from the front of each AXI-Stream packet and shifts the
// payload down so its first dword lands in dword 0 (hard-IP CQ/RC -> neutral TLP stream).
// With MID_START_EN a packet may instead begin at dword DATA_W/64 (a straddled RC beat split by
// the parent). One beat per cycle, no bubbles: output beats never outnumber input beats.
// Latency 2 cycles. s_bad on any beat of a packet (the hard IP's discontinue) comes out as
// m_bad with the packet's last output beat: the consumer discards the TLP.
`default_nettype none

module beryl_pcie_us_strip #(
  parameter int DATA_W  = 512,  // stream width in bits: 256 or 512
  parameter int DESC_DW = 4,    // descriptor length in dwords: 1 .. DATA_W/32-1
  parameter int SIDE_W  = 128,  // per-TLP sideband, sampled on the first beat, >= 1
  parameter bit MID_START_EN = 1'b0  // packets may start at dword DATA_W/64 (s_start_mid); 0 or 1
) (
  input  wire logic                 clk,
  input  wire logic                 rst,

  // Packet in, descriptor in dwords [DESC_DW-1:0] of the first beat (tkeep contiguous)
  input  wire logic [DATA_W-1:0]    s_axis_tdata,
  input  wire logic [DATA_W/32-1:0] s_axis_tkeep,
  input  wire logic                 s_axis_tlast,
  input  wire logic [SIDE_W-1:0]    s_side,        // decoded from the first beat by the parent
  input  wire logic                 s_start_mid,   // first beat: descriptor starts at dword DATA_W/64
  input  wire logic                 s_bad,         // any beat: the packet is corrupt
  input  wire logic                 s_axis_tvalid,
  output      logic                 s_axis_tready,

  // Payload out, dword-aligned, header sideband held for the whole TLP
  output      logic [DATA_W-1:0]    m_tlp_data,
  output      logic [DATA_W/32-1:0] m_tlp_strb,
  output      logic                 m_tlp_sop,
  output      logic                 m_tlp_eop,
  output      logic [SIDE_W-1:0]    m_side,
  output      logic                 m_bad,         // with m_tlp_eop: s_bad on some beat; else 0
  output      logic                 m_tlp_valid,
  input  wire logic                 m_tlp_ready
);

  localparam int N  = DATA_W / 32;                         // dwords per beat
  localparam int K0 = DESC_DW;                             // shift of a packet starting at dword 0
  localparam int K1 = MID_START_EN ? DESC_DW + N / 2 : K0; // ... at dword N/2
  localparam int U  = N - K0;  // dwords of the first beat that follow the descriptor (widest case)
  localparam int U1 = N - K1;

  if (DATA_W != 256 && DATA_W != 512) begin : g_bad_width
    $error("%m: DATA_W must be 256 or 512, got %0d", DATA_W);
  end
  if (DESC_DW < 1 || DESC_DW >= N) begin : g_bad_desc
    $error("%m: DESC_DW must be 1 .. %0d, got %0d", N - 1, DESC_DW);
  end
  if (MID_START_EN && DESC_DW >= N / 2) begin : g_bad_mid
    $error("%m: MID_START_EN needs DESC_DW below %0d, got %0d", N / 2, DESC_DW);
  end

  // The upper U (or U1) dwords of the last accepted beat, waiting for the next beat's lower
  // K0 (or K1) dwords to complete an output beat (or, on the packet's last beat, to be flushed).
  // hold_mid_q: the packet being assembled started mid-beat, so it shifts by K1, not K0.
  // hold_bad_q: s_bad seen on some beat of the packet so far (ORed up to and with the held beat).
  logic              hold_valid_q, hold_sop_q, hold_last_q, hold_mid_q, hold_bad_q;
  logic [U*32-1:0]   hold_data_q;
  logic [U-1:0]      hold_keep_q;
  logic [SIDE_W-1:0] hold_side_q;

  logic              out_valid, out_ready;
  logic [DATA_W-1:0] out_data;
  logic [N-1:0]      out_strb;
  logic              out_eop, out_bad, in_bad;
  logic              in_fire, in_upper_empty, in_first, in_mid;
  logic [U*32-1:0]   in_upper;
  logic [U-1:0]      in_upper_keep;
  logic              gclk;

  // A beat with the hold empty or holding a finished packet starts a new packet.
  assign in_first       = !hold_valid_q || hold_last_q;
  assign in_mid         = in_first ? MID_START_EN && s_start_mid : hold_mid_q;
  assign in_upper_empty = hold_mid_q ? s_axis_tkeep[N-1:K1] == '0 : s_axis_tkeep[N-1:K0] == '0;
  always_comb begin
    in_upper      = s_axis_tdata[DATA_W-1:K0*32];
    in_upper_keep = s_axis_tkeep[N-1:K0];
    if (in_mid) begin
      in_upper                = '0;
      in_upper_keep           = '0;
      in_upper[U1*32-1:0]     = s_axis_tdata[DATA_W-1:K1*32];
      in_upper_keep[U1-1:0]   = s_axis_tkeep[N-1:K1];
    end
  end
  // the packet's discontinue so far, this beat included (a first beat starts afresh)
  assign in_bad = s_bad || (!in_first && hold_bad_q);
  // Filling an empty hold register needs no output slot; completing a beat does.
  assign s_axis_tready  = !hold_valid_q || out_ready;
  assign in_fire        = s_axis_tvalid && s_axis_tready;

  // A held non-last beat needs the next input beat; a held last beat flushes on its own.
  assign out_valid = hold_valid_q && (hold_last_q || s_axis_tvalid);
  always_comb begin
    if (hold_last_q) begin
      // a mid-start packet's hold has only U1 dwords; the rest of hold is zero
      out_data = {{(K0*32){1'b0}}, hold_data_q};
      out_strb = {{K0{1'b0}}, hold_keep_q};
      out_eop  = 1'b1;
      out_bad  = hold_bad_q;
    end else begin
      if (hold_mid_q) begin
        out_data = {s_axis_tdata[K1*32-1:0], hold_data_q[U1*32-1:0]};
        out_strb = {s_axis_tkeep[K1-1:0], hold_keep_q[U1-1:0]};
      end else begin
        out_data = {s_axis_tdata[K0*32-1:0], hold_data_q};
        out_strb = {s_axis_tkeep[K0-1:0], hold_keep_q};
      end
      out_eop  = s_axis_tlast && in_upper_empty;
      out_bad  = out_eop && in_bad;
    end
  end

  always_ff @(posedge gclk) begin
    if (in_fire) begin
      hold_data_q <= in_upper;
      hold_keep_q <= in_upper_keep;
      hold_last_q <= s_axis_tlast;
      hold_sop_q  <= in_first;
      hold_bad_q  <= in_bad;
      if (in_first) begin
        hold_side_q <= s_side;
        hold_mid_q  <= in_mid;
      end
    end
  end

  always_ff @(posedge gclk) begin
    if (rst) begin
      hold_valid_q <= 1'b0;
    end else if (in_fire) begin
      // A first beat always waits (its header must go out); a later last beat whose
      // dwords all fit in the beat just completed leaves nothing behind.
      hold_valid_q <= in_first || !(s_axis_tlast && in_upper_empty);
    end else if (out_valid && out_ready) begin
      hold_valid_q <= 1'b0;
    end
  end

  beryl_pcie_us_skid #(
    .DATA_W(DATA_W + N + 3 + SIDE_W)
  ) u_out_skid (
    .clk    (gclk),
    .rst    (rst),
    // the data in the low bits: word-aligned copies in the C++ model, not a shift per word
    .s_data ({hold_side_q, out_bad, out_eop, hold_sop_q, out_strb, out_data}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data ({m_side, m_bad, m_tlp_eop, m_tlp_sop, m_tlp_strb, m_tlp_data}),
    .m_valid(m_tlp_valid),
    .m_ready(m_tlp_ready)
  );

  // Clock gate (sim/README.md, "Clock gates"): the hold registers load only with an input beat taken
  // (in_fire), hold_valid_q also clears when the held beat goes out (out_valid && out_ready), and the
  // skid buffer changes only with a beat it takes (out_ready: its spare entry is free) or one taken
  // from it (its main entry leaves or is refilled from the spare, which is used only while the main
  // one is full). A beat waiting at the input, in the hold register or in the skid buffer moves nothing.
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || in_fire || (out_valid && out_ready) || (m_tlp_valid && m_tlp_ready)),
    .gclk (gclk)
  );

endmodule

`resetall
