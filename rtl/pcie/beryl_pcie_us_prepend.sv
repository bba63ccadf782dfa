// SPDX-License-Identifier: MIT
// Puts a DESC_DW-dword descriptor in front of each TLP's dword-aligned payload and shifts
// the payload up behind it (neutral TLP stream -> hard-IP CC/RQ). One beat per cycle; a TLP
// whose payload no longer fits its beat count takes one extra beat (input stalls one cycle).
// Latency 1 cycle.
`default_nettype none

module beryl_pcie_us_prepend #(
  parameter int DATA_W  = 512,  // stream width in bits: 256 or 512
  parameter int DESC_DW = 4,    // descriptor length in dwords: 1 .. DATA_W/32-1
  parameter int SIDE_W  = 8     // per-TLP sideband, passed on the first output beat only, >= 1
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

  // Packet out; m_sop marks the first beat, m_last_idx is the last valid dword's index
  output      logic [DATA_W-1:0]            m_axis_tdata,
  output      logic [DATA_W/32-1:0]         m_axis_tkeep,
  output      logic                         m_axis_tlast,
  output      logic                         m_sop,
  output      logic [$clog2(DATA_W/32)-1:0] m_last_idx,
  output      logic [SIDE_W-1:0]            m_side,
  output      logic                         m_axis_tvalid,
  input  wire logic                         m_axis_tready
);

  localparam int N     = DATA_W / 32;  // dwords per beat
  localparam int L     = N - DESC_DW;  // payload dwords that fit in a beat after the carry
  localparam int IDX_W = $clog2(N);

  if (DATA_W != 256 && DATA_W != 512) begin : g_bad_width
    $error("%m: DATA_W must be 256 or 512, got %0d", DATA_W);
  end
  if (DESC_DW < 1 || DESC_DW >= N) begin : g_bad_desc
    $error("%m: DESC_DW must be 1 .. %0d, got %0d", N - 1, DESC_DW);
  end

  // Top DESC_DW dwords of the last accepted beat; they open the next output beat.
  // flush_q: the packet's last input beat left dwords here, so one more beat goes out.
  logic [DESC_DW*32-1:0] carry_q;
  logic [DESC_DW-1:0]    carry_keep_q;
  logic                  flush_q;

  logic                  out_valid, out_ready, out_last, out_sop;
  logic [DATA_W-1:0]     out_data;
  logic [N-1:0]          out_keep;
  logic [IDX_W-1:0]      out_last_idx;
  logic [SIDE_W-1:0]     out_side;
  logic                  in_fire, in_upper_used;

  assign in_upper_used = s_tlp_strb[N-1:L] != '0;
  assign s_tlp_ready   = out_ready && !flush_q;
  assign in_fire       = s_tlp_valid && s_tlp_ready;
  assign out_valid     = flush_q || s_tlp_valid;

  always_comb begin
    out_sop  = 1'b0;
    out_side = '0;
    if (flush_q) begin
      out_data = {{(L*32){1'b0}}, carry_q};
      out_keep = {{L{1'b0}}, carry_keep_q};
      out_last = 1'b1;
    end else begin
      out_last = s_tlp_eop && !in_upper_used;
      if (s_tlp_sop) begin
        out_data = {s_tlp_data[L*32-1:0], s_desc};
        out_keep = {s_tlp_strb[L-1:0], {DESC_DW{1'b1}}};
        out_sop  = 1'b1;
        out_side = s_side;
      end else begin
        out_data = {s_tlp_data[L*32-1:0], carry_q};
        out_keep = {s_tlp_strb[L-1:0], carry_keep_q};
      end
    end
  end

  // tkeep is contiguous from dword 0, so the last set bit is the end of the packet.
  always_comb begin
    out_last_idx = '0;
    for (int i = 0; i < N; i++) begin
      if (out_keep[i]) begin
        out_last_idx = IDX_W'(i);
      end
    end
  end

  always_ff @(posedge clk) begin
    if (in_fire) begin
      carry_q      <= s_tlp_data[DATA_W-1:L*32];
      carry_keep_q <= s_tlp_strb[N-1:L];
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      flush_q <= 1'b0;
    end else if (in_fire) begin
      flush_q <= s_tlp_eop && in_upper_used;
    end else if (out_ready) begin
      flush_q <= 1'b0;
    end
  end

  beryl_pcie_us_skid #(
    .DATA_W(DATA_W + N + 2 + IDX_W + SIDE_W)
  ) u_out_skid (
    .clk    (clk),
    .rst    (rst),
    .s_data ({out_data, out_keep, out_last, out_sop, out_last_idx, out_side}),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .m_data ({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_sop, m_last_idx, m_side}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready)
  );

endmodule

`resetall
