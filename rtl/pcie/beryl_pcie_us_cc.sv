// SPDX-License-Identifier: MIT
// Neutral tx_cpl TLP stream -> UltraScale+ completer completion (CC): packs tlp_cpl_hdr_t into
// the 96-bit CC descriptor and shifts the payload behind it. One beat per cycle, plus one beat
// per TLP whose payload spills past its input beat count; latency 1 cycle. No straddle.
// The hard IP nullifies a packet whose tvalid drops mid-TLP (PG213): the tx_cpl source must
// keep tvalid high from sop to eop.
`default_nettype none

module beryl_pcie_us_cc #(
  parameter int TLP_DATA_W     = 512,                        // 256 (Gen3 x8) or 512 (Gen3 x16)
  parameter int AXIS_CC_USER_W = (TLP_DATA_W == 512) ? 81 : 33  // PG213 CC tuser width
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // Our completions to host requests
  input  wire logic [127:0]              tx_cpl_tlp_hdr,
  input  wire logic [TLP_DATA_W-1:0]     tx_cpl_tlp_data,
  input  wire logic [TLP_DATA_W/32-1:0]  tx_cpl_tlp_strb,
  input  wire logic                      tx_cpl_tlp_sop,
  input  wire logic                      tx_cpl_tlp_eop,
  input  wire logic                      tx_cpl_tlp_valid,
  output      logic                      tx_cpl_tlp_ready,

  // Completer completion to the hard IP (PG213, dword-aligned, no straddle)
  output      logic [TLP_DATA_W-1:0]     m_axis_cc_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_cc_tkeep,
  output      logic                      m_axis_cc_tlast,
  output      logic [AXIS_CC_USER_W-1:0] m_axis_cc_tuser,
  output      logic                      m_axis_cc_tvalid,
  input  wire logic                      m_axis_cc_tready
);

  localparam int IDX_W = $clog2(TLP_DATA_W / 32);

  if (!((TLP_DATA_W == 512 && AXIS_CC_USER_W == 81) || (TLP_DATA_W == 256 && AXIS_CC_USER_W == 33)))
  begin : g_bad_param
    $error("%m: TLP_DATA_W %0d with AXIS_CC_USER_W %0d is not a PG213 CC configuration",
           TLP_DATA_W, AXIS_CC_USER_W);
  end

  beryl_pcie_pkg::tlp_cpl_hdr_t hdr;
  assign hdr = tx_cpl_tlp_hdr;  // packed struct, same 128 bits

  // PG213 "Completer Completion Descriptor Format".
  logic [31:0] desc_dw0, desc_dw1, desc_dw2;
  logic [12:0] byte_count;
  logic [10:0] dword_count;
  // The descriptor's byte count is 13 bits wide: the wire's 0 (= 4096) is spelled out.
  assign byte_count  = (hdr.byte_count == '0) ? 13'h1000 : {1'b0, hdr.byte_count};
  // A completion without data (Fmt bit 1 clear) has no payload; with data, length 0 is 1024.
  assign dword_count = !hdr.dw0.fmt[1]   ? 11'd0 :
                       (hdr.dw0.length == '0) ? 11'd1024 : {1'b0, hdr.dw0.length};
  assign desc_dw0 = {2'b00,
                     hdr.dw0.tlp_type[0],   // locked read completion (CplLk/CplDLk)
                     byte_count,
                     6'd0,
                     hdr.dw0.at,
                     1'b0,
                     hdr.lower_addr};
  assign desc_dw1 = {hdr.requester_id,
                     1'b0,
                     hdr.dw0.ep,           // poisoned
                     hdr.status,
                     dword_count};
  assign desc_dw2 = {1'b0,                  // force ECRC
                     hdr.dw0.attr2, hdr.dw0.attr,
                     hdr.dw0.tc,
                     1'b0,                  // completer ID enable: the core supplies its bus number
                     hdr.completer_id,
                     hdr.tag};

  // Header fields the descriptor has no room for (bcm is only set by bridges; rsvd DW3).
  logic unused_hdr;
  assign unused_hdr = ^{hdr.dw0.fmt[2], hdr.dw0.fmt[0], hdr.dw0.tlp_type[4:1], hdr.dw0.t9, hdr.dw0.t8,
                        hdr.dw0.ln, hdr.dw0.th, hdr.dw0.td, hdr.bcm, hdr.r, hdr.rsvd};

  logic             out_sop;
  logic [IDX_W-1:0] out_last_idx;
  logic             unused_side;
  // no CC straddle: only one TLP per beat, so the straddle outputs stay 0
  logic             unused_sop_mid, unused_eop_lo;
  logic [IDX_W-1:0] unused_eop_lo_idx;

  beryl_pcie_us_prepend #(
    .DATA_W (TLP_DATA_W),
    .DESC_DW(3),
    .SIDE_W (1)
  ) u_prepend (
    .clk          (clk),
    .rst          (rst),
    .s_tlp_data   (tx_cpl_tlp_data),
    .s_tlp_strb   (tx_cpl_tlp_strb),
    .s_tlp_sop    (tx_cpl_tlp_sop),
    .s_tlp_eop    (tx_cpl_tlp_eop),
    .s_desc       ({desc_dw2, desc_dw1, desc_dw0}),
    .s_side       (1'b0),
    .s_tlp_valid  (tx_cpl_tlp_valid),
    .s_tlp_ready  (tx_cpl_tlp_ready),
    .m_axis_tdata (m_axis_cc_tdata),
    .m_axis_tkeep (m_axis_cc_tkeep),
    .m_axis_tlast (m_axis_cc_tlast),
    .m_sop        (out_sop),
    .m_sop_mid    (unused_sop_mid),
    .m_last_idx   (out_last_idx),
    .m_eop_lo     (unused_eop_lo),
    .m_eop_lo_idx (unused_eop_lo_idx),
    .m_side       (unused_side),
    .m_axis_tvalid(m_axis_cc_tvalid),
    .m_axis_tready(m_axis_cc_tready)
  );

  // CC tuser. 512-bit: is_sop[1:0], is_sop0/1_ptr[5:2], is_eop[7:6], is_eop0/1_ptr[15:8],
  // discontinue[16], parity[80:17]. 256-bit: discontinue[0], parity[32:1]. Parity is left 0
  // (the core's parity check must stay disabled); the 256-bit core delimits with tlast/tkeep.
  if (TLP_DATA_W == 512) begin : g_user512
    assign m_axis_cc_tuser = {64'd0, 1'b0, 4'd0, 4'(out_last_idx), 1'b0, m_axis_cc_tlast,
                              4'd0, 1'b0, out_sop};
  end else begin : g_user256
    logic unused_user;
    assign unused_user     = ^{out_sop, out_last_idx};
    assign m_axis_cc_tuser = '0;
  end

endmodule

`resetall
