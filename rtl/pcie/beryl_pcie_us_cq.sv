// SPDX-License-Identifier: MIT
// UltraScale+ completer request (CQ) -> neutral rx_req TLP stream: decodes the 128-bit
// CQ descriptor into a 4DW tlp_mem_hdr_t and realigns the payload to dword 0.
// One beat per cycle, latency 3 cycles (input register, strip). Straddle must be off (one TLP per
// beat at most).
// PG213 discontinue on any beat of a request (the core found an uncorrectable error in it)
// comes out as rx_req_tlp_bad with the request's last beat: the consumer discards it.
`default_nettype none

module beryl_pcie_us_cq #(
  parameter int TLP_DATA_W     = 512,                         // 256 (Gen3 x8) or 512 (Gen3 x16)
  parameter int AXIS_CQ_USER_W = (TLP_DATA_W == 512) ? 183 : 88  // PG213 CQ tuser width
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // Completer request from the hard IP (PG213, dword-aligned, no straddle)
  input  wire logic [TLP_DATA_W-1:0]     s_axis_cq_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_cq_tkeep,
  input  wire logic                      s_axis_cq_tlast,
  input  wire logic [AXIS_CQ_USER_W-1:0] s_axis_cq_tuser,
  input  wire logic                      s_axis_cq_tvalid,
  output      logic                      s_axis_cq_tready,

  // Host requests to our BARs
  output      logic [127:0]              rx_req_tlp_hdr,
  output      logic [TLP_DATA_W-1:0]     rx_req_tlp_data,
  output      logic [TLP_DATA_W/32-1:0]  rx_req_tlp_strb,
  output      logic [2:0]                rx_req_tlp_bar_id,
  output      logic                      rx_req_tlp_sop,
  output      logic                      rx_req_tlp_eop,
  output      logic                      rx_req_tlp_bad,    // with eop: discontinued, discard
  output      logic                      rx_req_tlp_valid,
  input  wire logic                      rx_req_tlp_ready
);

  if (!((TLP_DATA_W == 512 && AXIS_CQ_USER_W == 183) || (TLP_DATA_W == 256 && AXIS_CQ_USER_W == 88)))
  begin : g_bad_param
    $error("%m: TLP_DATA_W %0d with AXIS_CQ_USER_W %0d is not a PG213 CQ configuration",
           TLP_DATA_W, AXIS_CQ_USER_W);
  end

  // Input register: every CQ beat is registered before any logic looks at it (a cycle of latency;
  // the hard IP's outputs straight into flops also eases timing). In the C++ model the descriptor
  // decode and the strip then run only where this register or the strip is clocked, not whenever
  // another input of the NIC changes (the input-combinational region).
  logic [TLP_DATA_W-1:0]     cq_tdata;
  logic [TLP_DATA_W/32-1:0]  cq_tkeep;
  logic                      cq_tlast;
  logic [AXIS_CQ_USER_W-1:0] cq_tuser;
  logic                      cq_tvalid, cq_tready;

  beryl_axis_in_reg #(
    .DATA_W (TLP_DATA_W), .KEEP_W (TLP_DATA_W / 32), .USER_W (AXIS_CQ_USER_W)
  ) u_in_reg (
    .clk      (clk),
    .rst      (rst),
    .s_tdata  (s_axis_cq_tdata),
    .s_tkeep  (s_axis_cq_tkeep),
    .s_tlast  (s_axis_cq_tlast),
    .s_tuser  (s_axis_cq_tuser),
    .s_tvalid (s_axis_cq_tvalid),
    .s_tready (s_axis_cq_tready),
    .m_tdata  (cq_tdata),
    .m_tkeep  (cq_tkeep),
    .m_tlast  (cq_tlast),
    .m_tuser  (cq_tuser),
    .m_tvalid (cq_tvalid),
    .m_tready (cq_tready)
  );

  // PG213 "Completer Request Descriptor Format": DW0 {addr[31:2], at}, DW1 addr[63:32],
  // DW2 {requester id, rsvd, req type, dword count}, DW3 {attr, tc, bar aperture, bar id,
  // target function, tag}. first/last BE live in tuser (positions differ per width).
  logic [31:0] desc_dw0, desc_dw1, desc_dw2, desc_dw3;
  logic [3:0]  first_be, last_be;
  logic        discontinue;
  assign {desc_dw3, desc_dw2, desc_dw1, desc_dw0} = cq_tdata[127:0];
  if (TLP_DATA_W == 512) begin : g_be512
    assign first_be = cq_tuser[3:0];
    assign last_be  = cq_tuser[11:8];
    assign discontinue = cq_tuser[96];
  end else begin : g_be256
    assign first_be = cq_tuser[3:0];
    assign last_be  = cq_tuser[7:4];
    assign discontinue = cq_tuser[41];
  end

  beryl_pcie_pkg::tlp_mem_hdr_t hdr;
  logic [3:0] req_type;
  assign req_type = desc_dw2[14:11];

  always_comb begin
    hdr = '0;
    // PG213 request type codes -> PCIe Fmt/Type (PCIe 3.0 table 2-3). Requests that are
    // not plain memory reads/writes keep their PCIe type so the consumer can UR the non-posted
    // ones and drop messages (posted). Fmt's data bit says whether payload beats follow.
    unique case (req_type)
      4'b0000: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_NODATA; hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_MEM; end
      4'b0001: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_DATA;   hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_MEM; end
      4'b0010: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_NODATA; hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_IO;  end
      4'b0011: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_DATA;   hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_IO;  end
      4'b0100: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_DATA;   hdr.dw0.tlp_type = 5'b01100; end  // FetchAdd
      4'b0101: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_DATA;   hdr.dw0.tlp_type = 5'b01101; end  // Swap
      4'b0110: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_DATA;   hdr.dw0.tlp_type = 5'b01110; end  // CAS
      4'b0111: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_4DW_NODATA; hdr.dw0.tlp_type = 5'b00001; end  // MRdLk
      4'b1000: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_NODATA; hdr.dw0.tlp_type = 5'b00100; end  // CfgRd0
      4'b1001: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_NODATA; hdr.dw0.tlp_type = 5'b00101; end  // CfgRd1
      4'b1010: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_DATA;   hdr.dw0.tlp_type = 5'b00100; end  // CfgWr0
      4'b1011: begin hdr.dw0.fmt = beryl_pcie_pkg::FMT_3DW_DATA;   hdr.dw0.tlp_type = 5'b00101; end  // CfgWr1
      // messages (plain, vendor-defined, ATS): Msg/MsgD by the dword count; the routing
      // subfield is not decoded (reads as 000)
      4'b1100, 4'b1101, 4'b1110: begin
        hdr.dw0.fmt      = (desc_dw2[10:0] != 11'd0) ? beryl_pcie_pkg::FMT_4DW_DATA : beryl_pcie_pkg::FMT_4DW_NODATA;
        hdr.dw0.tlp_type = 5'b10000;
      end
      default: begin  // reserved code: not a request a consumer acts on
        hdr.dw0.fmt      = (desc_dw2[10:0] != 11'd0) ? beryl_pcie_pkg::FMT_4DW_DATA : beryl_pcie_pkg::FMT_4DW_NODATA;
        hdr.dw0.tlp_type = 5'b11111;
      end
    endcase
    hdr.dw0.tc     = desc_dw3[27:25];
    hdr.dw0.attr2  = desc_dw3[30];     // ID-based ordering
    hdr.dw0.attr   = desc_dw3[29:28];  // relaxed ordering, no snoop
    hdr.dw0.at     = desc_dw0[1:0];
    hdr.dw0.length = desc_dw2[9:0];    // 11-bit count; 1024 wraps to 0 as on the wire
    hdr.requester_id = desc_dw2[31:16];
    hdr.tag          = desc_dw3[7:0];
    hdr.last_be      = last_be;
    hdr.first_be     = first_be;
    hdr.addr         = {desc_dw1, desc_dw0[31:2]};
  end

  // Unused CQ fields: target function (single function), BAR aperture, dword count bit 10
  // (folded into length), tuser byte enables/parity/TPH/straddle flags (discontinue is used).
  logic unused_ok;
  assign unused_ok = ^{desc_dw2[15], desc_dw2[10], desc_dw3[31], desc_dw3[24:19], desc_dw3[15:8],
                       cq_tuser};

  beryl_pcie_us_strip #(
    .DATA_W (TLP_DATA_W),
    .DESC_DW(4),
    .SIDE_W (3 + 128)
  ) u_strip (
    .clk          (clk),
    .rst          (rst),
    .s_axis_tdata (cq_tdata),
    .s_axis_tkeep (cq_tkeep),
    .s_axis_tlast (cq_tlast),
    .s_side       ({desc_dw3[18:16], hdr}),
    .s_start_mid  (1'b0),
    .s_bad        (discontinue),
    .s_axis_tvalid(cq_tvalid),
    .s_axis_tready(cq_tready),
    .m_tlp_data   (rx_req_tlp_data),
    .m_tlp_strb   (rx_req_tlp_strb),
    .m_tlp_sop    (rx_req_tlp_sop),
    .m_tlp_eop    (rx_req_tlp_eop),
    .m_side       ({rx_req_tlp_bar_id, rx_req_tlp_hdr}),
    .m_bad        (rx_req_tlp_bad),
    .m_tlp_valid  (rx_req_tlp_valid),
    .m_tlp_ready  (rx_req_tlp_ready)
  );

endmodule

`resetall
