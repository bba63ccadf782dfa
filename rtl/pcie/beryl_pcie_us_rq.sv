// SPDX-License-Identifier: MIT
// Neutral tx_req TLP stream (memory reads/writes) -> UltraScale+ requester request (RQ):
// packs tlp_mem_hdr_t into the 128-bit RQ descriptor, first/last BE into tuser, payload behind.
// One beat per cycle, plus one beat per TLP whose payload spills past its input beat count;
// with RQ_STRADDLE (512-bit) a spill beat whose dwords fit in the lower half also carries the
// next TLP's start at dword 8 (PG213 straddle). Latency 1 cycle. Tags come from the header (the
// core must use client tags); the requester ID is left to the core. The hard IP nullifies a
// packet whose tvalid drops mid-TLP (PG213): the tx_req source must keep tvalid high from sop
// to eop.
`default_nettype none

module beryl_pcie_us_rq #(
  parameter int TLP_DATA_W     = 512,                            // 256 (Gen3 x8) or 512 (Gen3 x16)
  parameter int AXIS_RQ_USER_W = (TLP_DATA_W == 512) ? 137 : 62, // PG213 RQ tuser width
  parameter bit RQ_STRADDLE    = (TLP_DATA_W == 512)             // core's RQ straddle, 512 only
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // Our requests: DMA reads and writes, MSI-X writes
  input  wire logic [127:0]              tx_req_tlp_hdr,
  input  wire logic [TLP_DATA_W-1:0]     tx_req_tlp_data,
  input  wire logic [TLP_DATA_W/32-1:0]  tx_req_tlp_strb,
  input  wire logic                      tx_req_tlp_sop,
  input  wire logic                      tx_req_tlp_eop,
  input  wire logic                      tx_req_tlp_valid,
  output      logic                      tx_req_tlp_ready,

  // Requester request to the hard IP (PG213, dword-aligned, straddle per RQ_STRADDLE)
  output      logic [TLP_DATA_W-1:0]     m_axis_rq_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_rq_tkeep,
  output      logic                      m_axis_rq_tlast,
  output      logic [AXIS_RQ_USER_W-1:0] m_axis_rq_tuser,
  output      logic                      m_axis_rq_tvalid,
  input  wire logic                      m_axis_rq_tready
);

  localparam int IDX_W = $clog2(TLP_DATA_W / 32);

  if (!((TLP_DATA_W == 512 && AXIS_RQ_USER_W == 137) || (TLP_DATA_W == 256 && AXIS_RQ_USER_W == 62)))
  begin : g_bad_param
    $error("%m: TLP_DATA_W %0d with AXIS_RQ_USER_W %0d is not a PG213 RQ configuration",
           TLP_DATA_W, AXIS_RQ_USER_W);
  end
  if (RQ_STRADDLE && TLP_DATA_W != 512) begin : g_bad_straddle
    $error("%m: RQ_STRADDLE is supported at TLP_DATA_W 512 only (got %0d)", TLP_DATA_W);
  end

  beryl_pcie_pkg::tlp_mem_hdr_t hdr;
  assign hdr = tx_req_tlp_hdr;  // packed struct, same 128 bits

  // PG213 "Requester Request Descriptor Format" for memory requests.
  logic [31:0] desc_dw0, desc_dw1, desc_dw2, desc_dw3;
  logic [10:0] dword_count;
  logic [3:0]  req_type;
  assign dword_count = (hdr.dw0.length == '0) ? 11'd1024 : {1'b0, hdr.dw0.length};
  // Memory write when the TLP carries data, memory read otherwise (PG213 request type).
  assign req_type    = hdr.dw0.fmt[1] ? 4'b0001 : 4'b0000;
  assign {desc_dw1, desc_dw0} = {hdr.addr, hdr.dw0.at};
  assign desc_dw2 = {hdr.requester_id,      // ignored: requester ID enable is 0
                     hdr.dw0.ep,            // poisoned
                     req_type,
                     dword_count};
  assign desc_dw3 = {1'b0,                  // force ECRC
                     hdr.dw0.attr2, hdr.dw0.attr,
                     hdr.dw0.tc,
                     1'b0,                  // requester ID enable: the core supplies its own ID
                     16'd0,                 // completer ID: only for configuration requests
                     hdr.tag};

  // Header fields the descriptor has no room for: the neutral stream carries only memory
  // requests here (type is implied by fmt), TLP processing hints are not supported.
  logic unused_hdr;
  assign unused_hdr = ^{hdr.dw0.fmt[2], hdr.dw0.fmt[0], hdr.dw0.tlp_type, hdr.dw0.t9, hdr.dw0.t8,
                        hdr.dw0.ln, hdr.dw0.th, hdr.dw0.td, hdr.ph};

  logic             out_sop, out_sop_mid, out_eop_lo;
  logic [IDX_W-1:0] out_last_idx, out_eop_lo_idx;
  logic [3:0]       out_first_be, out_last_be;

  beryl_pcie_us_prepend #(
    .DATA_W (TLP_DATA_W),
    .DESC_DW     (4),
    .SIDE_W      (8),
    .MID_START_EN(RQ_STRADDLE)
  ) u_prepend (
    .clk          (clk),
    .rst          (rst),
    .s_tlp_data   (tx_req_tlp_data),
    .s_tlp_strb   (tx_req_tlp_strb),
    .s_tlp_sop    (tx_req_tlp_sop),
    .s_tlp_eop    (tx_req_tlp_eop),
    .s_desc       ({desc_dw3, desc_dw2, desc_dw1, desc_dw0}),
    .s_side       ({hdr.last_be, hdr.first_be}),
    .s_tlp_valid  (tx_req_tlp_valid),
    .s_tlp_ready  (tx_req_tlp_ready),
    .m_axis_tdata (m_axis_rq_tdata),
    .m_axis_tkeep (m_axis_rq_tkeep),
    .m_axis_tlast (m_axis_rq_tlast),
    .m_sop        (out_sop),
    .m_sop_mid    (out_sop_mid),
    .m_last_idx   (out_last_idx),
    .m_eop_lo     (out_eop_lo),
    .m_eop_lo_idx (out_eop_lo_idx),
    .m_side       ({out_last_be, out_first_be}),
    .m_axis_tvalid(m_axis_rq_tvalid),
    .m_axis_tready(m_axis_rq_tready)
  );

  // RQ tuser. 512-bit: first_be[7:0], last_be[15:8] (4 bits per TLP starting in the beat, in
  // order), addr_offset[19:16], is_sop[21:20], is_sop0/1_ptr[25:22] (128-bit units),
  // is_eop[27:26], is_eop0/1_ptr[35:28] (last dword), discontinue[36], TPH[60:37],
  // seq_num0/1[72:61], parity[136:73]. 256-bit: first_be[3:0], last_be[7:4], addr_offset[10:8],
  // discontinue[11], TPH[23:12], seq_num[27:24], parity[59:28], seq_num[61:60].
  // At most one TLP starts per beat here (a straddled beat is a spill plus one new TLP), so only
  // slot 0 of the per-TLP fields is used; a straddled beat has two eops. Parity is left 0 (core
  // parity check off). tlast is set when no TLP continues into the next beat.
  if (TLP_DATA_W == 512) begin : g_user512
    logic [1:0] is_sop0_ptr, is_eop;
    logic [3:0] is_eop0_ptr, is_eop1_ptr;
    assign is_sop0_ptr = out_sop_mid ? 2'd2 : 2'd0;
    assign is_eop      = out_eop_lo ? {m_axis_rq_tlast, 1'b1} : {1'b0, m_axis_rq_tlast};
    assign is_eop0_ptr = out_eop_lo ? 4'(out_eop_lo_idx) : 4'(out_last_idx);
    assign is_eop1_ptr = out_eop_lo ? 4'(out_last_idx) : 4'd0;
    assign m_axis_rq_tuser = {64'd0, 12'd0, 24'd0, 1'b0,
                              is_eop1_ptr, is_eop0_ptr, is_eop,
                              2'd0, is_sop0_ptr, 1'b0, out_sop,
                              4'd0,
                              4'd0, out_last_be, 4'd0, out_first_be};
  end else begin : g_user256
    logic unused_user;
    assign unused_user     = ^{out_sop, out_sop_mid, out_eop_lo, out_last_idx, out_eop_lo_idx};
    assign m_axis_rq_tuser = {2'd0, 32'd0, 4'd0, 12'd0, 1'b0, 3'd0, out_last_be, out_first_be};
  end

endmodule

`resetall
