// SPDX-License-Identifier: MIT
// Puts a DESC_DW-dword descriptor in front of each TLP's dword-aligned payload and shifts
// the payload up behind it (neutral TLP stream -> hard-IP CC/RQ). One beat per cycle; a TLP
// whose payload no longer fits its beat count takes one extra beat (input stalls one cycle).
// With MID_START_EN that extra beat, when its dwords fit in the lower half, also carries the
// next TLP's start at dword DATA_W/64 (PG213 straddle), so the stall is only paid when the next
// TLP is not there yet or the spill is longer. Latency 1 cycle.
`default_nettype none

module beryl_pcie_us_prepend #(
  parameter int DATA_W  = 512,  // stream width in bits: 256 or 512
  parameter int DESC_DW = 4,    // descriptor length in dwords: 1 .. DATA_W/32-1
  parameter int SIDE_W  = 8,    // per-TLP sideband, passed on the first output beat only, >= 1
  parameter bit MID_START_EN = 1'b0  // a TLP may start at dword DATA_W/64 of a beat; 0 or 1
) (
  input  wire logic                         clk,
  input  wire logic                         rst,

  // Payload in (neutral TLP stream), descriptor and sideband valid on the sop beat
  input  wire logic [DATA_W-1:0]            s_tlp_data,
  input  wire logic [DATA_W/32-1:0]         s_tlp_strb,
  input  wire logic                         s_tlp_sop,
  input  wire logic                         s_tlp_eop,
  input  wire logic [DESC_DW*32-1:0]        s_desc,
  input  wire logic [SIDE_W-1:0]            s_side,
  input  wire logic                         s_tlp_valid,
  output      logic                         s_tlp_ready,

  // Packet out. m_sop: a TLP starts in this beat, at dword 0 or (m_sop_mid) at dword
  // DATA_W/64; m_side is its sideband. m_axis_tlast: no TLP continues into the next beat.
  // m_last_idx: the beat's last valid dword. m_eop_lo/m_eop_lo_idx: a straddled beat, where
  // the previous TLP ends at that dword before the one at m_sop_mid starts. tkeep then has a
  // hole between the two TLPs.
  output      logic [DATA_W-1:0]            m_axis_tdata,
  output      logic [DATA_W/32-1:0]         m_axis_tkeep,
  output      logic                         m_axis_tlast,
  output      logic                         m_sop,
  output      logic                         m_sop_mid,
  output      logic [$clog2(DATA_W/32)-1:0] m_last_idx,
  output      logic                         m_eop_lo,
  output      logic [$clog2(DATA_W/32)-1:0] m_eop_lo_idx,
  output      logic [SIDE_W-1:0]            m_side,
  output      logic                         m_axis_tvalid,
  input  wire logic                         m_axis_tready
);

  localparam int N     = DATA_W / 32;                          // dwords per beat
  localparam int H     = N / 2;
  localparam int K0    = DESC_DW;                              // payload shift, TLP at dword 0
  localparam int K1    = MID_START_EN ? DESC_DW + H : DESC_DW; // ... TLP at dword N/2
  localparam int L0    = N - K0;  // payload dwords of an input beat that fit behind the carry
  localparam int L1    = N - K1;
  localparam int IDX_W = $clog2(N);

  if (DATA_W != 256 && DATA_W != 512) begin : g_bad_width
    $error("%m: DATA_W must be 256 or 512, got %0d", DATA_W);
  end
  if (DESC_DW < 1 || DESC_DW >= N) begin : g_bad_desc
    $error("%m: DESC_DW must be 1 .. %0d, got %0d", N - 1, DESC_DW);
  end
  if (MID_START_EN && DESC_DW >= H) begin : g_bad_mid
    $error("%m: MID_START_EN needs DESC_DW below %0d, got %0d", H, DESC_DW);
  end

  // Top K0 (K1 for a TLP that started mid-beat: mid_q) dwords of the last accepted beat;
  // they open the next output beat. flush_q: the TLP's last input beat left dwords here,
  // so one more beat goes out.
  logic [K1*32-1:0] carry_q;
  logic [K1-1:0]    carry_keep_q;
  logic             flush_q, mid_q;

  logic                  out_valid, out_ready, out_last, out_sop, out_sop_mid, out_eop_lo;
  logic [DATA_W-1:0]     out_data;
  logic [N-1:0]          out_keep;
  logic [IDX_W-1:0]      out_last_idx, out_eop_lo_idx;
  logic [SIDE_W-1:0]     out_side;
  logic                  in_fire, in_mid, in_upper_used, carry_fits_lo, share;
  logic [K1*32-1:0]      in_carry;
  logic [K1-1:0]         in_carry_keep;
  logic [DATA_W-1:0]     share_data;
  logic [N-1:0]          share_keep;
  logic                  gclk;

  // A flush beat whose dwords all sit in the lower half can take the next TLP's first beat
  // in its upper half. The beat after an eop is always a sop, so no need to look at sop.
  // Straddled beat: the previous TLP's spill in the lower half, the next TLP from dword H.
  if (MID_START_EN) begin : g_share
    assign carry_fits_lo = carry_keep_q[K1-1:H] == '0;
    assign share_data    = {s_tlp_data[L1*32-1:0], s_desc, carry_q[H*32-1:0]};
    assign share_keep    = {s_tlp_strb[L1-1:0], {DESC_DW{1'b1}}, carry_keep_q[H-1:0]};
  end else begin : g_no_share
    assign carry_fits_lo = 1'b0;
    assign share_data    = '0;
    assign share_keep    = '0;
  end
  assign share         = flush_q && carry_fits_lo && s_tlp_valid;
  // ready does not look at valid: a flush beat that could share still goes out on its own
  // when no TLP is waiting (holding it back would be a gap inside its TLP).
  assign s_tlp_ready   = out_ready && (!flush_q || carry_fits_lo);
  assign in_fire       = s_tlp_valid && s_tlp_ready;
  assign out_valid     = flush_q || s_tlp_valid;
  // shift of the TLP this input beat belongs to
  assign in_mid        = s_tlp_sop ? share : mid_q;
  assign in_upper_used = in_mid ? s_tlp_strb[N-1:L1] != '0 : s_tlp_strb[N-1:L0] != '0;

  // The output beat only while one is offered (out_valid): the skid buffer takes it only then, and a
  // C++ model then skips the beat's formation in the cycles an input changes without one (e.g. a BAR
  // write, which has no completion, moving the completer's registers).
  always_comb begin
    out_sop     = 1'b0;
    out_sop_mid = 1'b0;
    out_eop_lo  = 1'b0;
    out_side    = '0;
    out_last    = 1'b0;
    if (!out_valid) begin
      out_data = '0;
      out_keep = '0;
    end else if (share) begin
      out_last    = s_tlp_eop && !in_upper_used;
      out_data    = share_data;
      out_keep    = share_keep;
      out_sop     = 1'b1;
      out_sop_mid = 1'b1;
      out_eop_lo  = 1'b1;
      out_side    = s_side;
    end else if (flush_q) begin
      out_data = DATA_W'(carry_q);
      out_keep = N'(carry_keep_q);
      out_last = 1'b1;
    end else if (s_tlp_sop) begin
      out_last = s_tlp_eop && !in_upper_used;
      out_data = {s_tlp_data[L0*32-1:0], s_desc};
      out_keep = {s_tlp_strb[L0-1:0], {DESC_DW{1'b1}}};
      out_sop  = 1'b1;
      out_side = s_side;
    end else if (mid_q) begin
      out_last = s_tlp_eop && !in_upper_used;
      out_data = {s_tlp_data[L1*32-1:0], carry_q};
      out_keep = {s_tlp_strb[L1-1:0], carry_keep_q};
    end else begin
      out_last = s_tlp_eop && !in_upper_used;
      out_data = {s_tlp_data[L0*32-1:0], carry_q[K0*32-1:0]};
      out_keep = {s_tlp_strb[L0-1:0], carry_keep_q[K0-1:0]};
    end
  end

  // tkeep is contiguous from dword 0 within each TLP, so the last set bit ends the beat and
  // the last set bit of the lower half ends the first TLP of a straddled beat.
  always_comb begin
    out_last_idx   = '0;
    out_eop_lo_idx = '0;
    for (int i = 0; i < N; i++) begin
      if (out_keep[i]) begin
        out_last_idx = IDX_W'(i);
        if (i < H) begin
          out_eop_lo_idx = IDX_W'(i);
        end
      end
    end
  end

  always_comb begin
    in_carry      = '0;
    in_carry_keep = '0;
    if (in_mid) begin
      in_carry      = s_tlp_data[DATA_W-1:L1*32];
      in_carry_keep = s_tlp_strb[N-1:L1];
    end else begin
      in_carry[K0*32-1:0]   = s_tlp_data[DATA_W-1:L0*32];
      in_carry_keep[K0-1:0] = s_tlp_strb[N-1:L0];
    end
  end

  always_ff @(posedge gclk) begin
    if (in_fire) begin
      carry_q      <= in_carry;
      carry_keep_q <= in_carry_keep;
      mid_q        <= in_mid;
    end
  end

  always_ff @(posedge gclk) begin
    if (rst) begin
      flush_q <= 1'b0;
    end else if (in_fire) begin
      flush_q <= s_tlp_eop && in_upper_used;
    end else if (out_ready) begin
      flush_q <= 1'b0;
    end
  end

  beryl_pcie_us_skid #(
    .DATA_W(DATA_W + N + 4 + 2 * IDX_W + SIDE_W)
  ) u_out_skid (
    .clk    (gclk),
    .rst    (rst),
    // the data in the low bits: word-aligned copies in the C++ model, not a shift per word
    .s_data ({out_side, out_eop_lo_idx, out_last_idx, out_eop_lo, out_sop_mid, out_sop, out_last,
              out_keep, out_data}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data ({m_side, m_eop_lo_idx, m_last_idx, m_eop_lo, m_sop_mid, m_sop, m_axis_tlast,
              m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
  );

  // Clock gate (sim/README.md, "Clock gates"): the carry registers load only with an input beat
  // taken (which needs out_ready), flush_q changes with one or clears when set and taken, and the
  // skid buffer changes only with a beat it takes (out_valid && out_ready: its spare entry is free)
  // or one taken from it (its main entry leaves or is refilled from the spare, which is used only
  // while the main one is full). A beat waiting at the input, in flush or at the output moves nothing.
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (out_valid && out_ready) || (m_axis_tvalid && m_axis_tready)),
    .gclk (gclk)
  );

endmodule

`resetall
