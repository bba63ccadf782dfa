// SPDX-License-Identifier: MIT
// UltraScale+ requester completion (RC) -> neutral rx_cpl TLP stream: decodes the 96-bit RC
// descriptor into tlp_cpl_hdr_t and realigns the payload to dword 0. Every RC packet, error
// reports included, yields a header so the DMA engine sees the status. One beat per cycle,
// latency 2 cycles. Straddle must be off (one TLP per beat at most).
`default_nettype none

module beryl_pcie_us_rc #(
  parameter int TLP_DATA_W     = 512,                         // 256 (Gen3 x8) or 512 (Gen3 x16)
  parameter int AXIS_RC_USER_W = (TLP_DATA_W == 512) ? 161 : 75  // PG213 RC tuser width
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // Requester completion from the hard IP (PG213, dword-aligned, no straddle)
  input  wire logic [TLP_DATA_W-1:0]     s_axis_rc_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_rc_tkeep,
  input  wire logic                      s_axis_rc_tlast,
  input  wire logic [AXIS_RC_USER_W-1:0] s_axis_rc_tuser,
  input  wire logic                      s_axis_rc_tvalid,
  output      logic                      s_axis_rc_tready,

  // Completions to our reads
  output      logic [127:0]              rx_cpl_tlp_hdr,
  output      logic [TLP_DATA_W-1:0]     rx_cpl_tlp_data,
  output      logic [TLP_DATA_W/32-1:0]  rx_cpl_tlp_strb,
  output      logic                      rx_cpl_tlp_sop,
  output      logic                      rx_cpl_tlp_eop,
  output      logic                      rx_cpl_tlp_valid,
  input  wire logic                      rx_cpl_tlp_ready,
  // Optional extras, valid with the header: the core's RC error code (PG213 table
  // "Requester Completion Error Codes", 0 = normal; 9 = completion timeout) and its
  // "request completed" flag (last completion of that tag).
  output      logic [3:0]                rx_cpl_tlp_err_code,
  output      logic                      rx_cpl_tlp_req_done
);

  localparam logic [3:0] ERR_NORMAL   = 4'b0000;
  localparam logic [3:0] ERR_POISONED = 4'b0001;

  if (!((TLP_DATA_W == 512 && AXIS_RC_USER_W == 161) || (TLP_DATA_W == 256 && AXIS_RC_USER_W == 75)))
  begin : g_bad_param
    $error("%m: TLP_DATA_W %0d with AXIS_RC_USER_W %0d is not a PG213 RC configuration",
           TLP_DATA_W, AXIS_RC_USER_W);
  end

  // PG213 "Requester Completion Descriptor Format": DW0 {rsvd, request completed, locked,
  // byte count[28:16], error code[15:12], lower address[11:0]}, DW1 {requester id, rsvd,
  // poisoned, status, dword count}, DW2 {rsvd, attr, tc, rsvd, completer id, tag}.
  logic [31:0] desc_dw0, desc_dw1, desc_dw2;
  logic [3:0]  err_code;
  logic [10:0] dword_count;
  assign {desc_dw2, desc_dw1, desc_dw0} = s_axis_rc_tdata[95:0];
  assign err_code    = desc_dw0[15:12];
  assign dword_count = desc_dw1[10:0];

  beryl_pcie_pkg::tlp_cpl_hdr_t hdr;
  always_comb begin
    hdr = '0;
    hdr.dw0.fmt      = (dword_count != '0) ? beryl_pcie_pkg::FMT_3DW_DATA : beryl_pcie_pkg::FMT_3DW_NODATA;
    hdr.dw0.tlp_type = {beryl_pcie_pkg::TYPE_CPL[4:1], desc_dw0[29]};  // CplLk for locked reads
    hdr.dw0.tc       = desc_dw2[27:25];
    hdr.dw0.attr2    = desc_dw2[30];
    hdr.dw0.attr     = desc_dw2[29:28];
    hdr.dw0.ep       = desc_dw1[14];
    hdr.dw0.length   = dword_count[9:0];  // 1024 wraps to 0 as on the wire
    hdr.completer_id = desc_dw2[23:8];
    hdr.status       = desc_dw1[13:11];
    // The core reports completions it found malformed (bad length, requester/attr mismatch,
    // lower address mismatch, unknown tag), completion timeouts and FLR aborts with SC status
    // and a non-zero error code. Those must not look like good data: report completer abort.
    if (hdr.status == beryl_pcie_pkg::CPL_SC && err_code != ERR_NORMAL && err_code != ERR_POISONED) begin
      hdr.status = beryl_pcie_pkg::CPL_CA;
    end
    hdr.byte_count   = desc_dw0[27:16];   // 13-bit count; 4096 wraps to 0 as on the wire
    hdr.requester_id = desc_dw1[31:16];
    hdr.tag          = desc_dw2[7:0];
    hdr.lower_addr   = desc_dw0[6:0];
  end

  // Unused RC fields: lower address bits above 6 (the neutral header has 7, as on the
  // wire), byte count bit 12, dword count bit 10, and tuser (byte enables, parity,
  // straddle flags: dword-aligned, straddle off, tlast/tkeep delimit packets).
  logic unused_ok;
  assign unused_ok = ^{desc_dw0[11:7], desc_dw0[28], desc_dw0[31], desc_dw1[15], desc_dw1[10],
                       desc_dw2[31], desc_dw2[24], s_axis_rc_tuser};

  beryl_pcie_us_strip #(
    .DATA_W (TLP_DATA_W),
    .DESC_DW(3),
    .SIDE_W (4 + 1 + 128)
  ) u_strip (
    .clk          (clk),
    .rst          (rst),
    .s_axis_tdata (s_axis_rc_tdata),
    .s_axis_tkeep (s_axis_rc_tkeep),
    .s_axis_tlast (s_axis_rc_tlast),
    .s_side       ({err_code, desc_dw0[30], hdr}),
    .s_axis_tvalid(s_axis_rc_tvalid),
    .s_axis_tready(s_axis_rc_tready),
    .m_tlp_data   (rx_cpl_tlp_data),
    .m_tlp_strb   (rx_cpl_tlp_strb),
    .m_tlp_sop    (rx_cpl_tlp_sop),
    .m_tlp_eop    (rx_cpl_tlp_eop),
    .m_side       ({rx_cpl_tlp_err_code, rx_cpl_tlp_req_done, rx_cpl_tlp_hdr}),
    .m_tlp_valid  (rx_cpl_tlp_valid),
    .m_tlp_ready  (rx_cpl_tlp_ready)
  );

endmodule

`resetall
