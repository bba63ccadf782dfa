// SPDX-License-Identifier: MIT
// UltraScale+ requester completion (RC) descriptor -> neutral completion header plus the core's
// error code and "request completed" flag. Combinational.
`default_nettype none

module beryl_pcie_us_rc_desc (
  input  wire logic [95:0]                  desc,      // RC descriptor, DW0 in bits [31:0]
  output      beryl_pcie_pkg::tlp_cpl_hdr_t hdr,
  output      logic [3:0]                   err_code,  // PG213 "Requester Completion Error Codes"
  output      logic                         req_done   // last completion of the request
);

  localparam logic [3:0] ERR_NORMAL   = 4'b0000;
  localparam logic [3:0] ERR_POISONED = 4'b0001;

  // PG213 "Requester Completion Descriptor Format": DW0 {rsvd, request completed, locked,
  // byte count[28:16], error code[15:12], lower address[11:0]}, DW1 {requester id, rsvd,
  // poisoned, status, dword count}, DW2 {rsvd, attr, tc, rsvd, completer id, tag}.
  logic [31:0] desc_dw0, desc_dw1, desc_dw2;
  logic [10:0] dword_count;
  assign {desc_dw2, desc_dw1, desc_dw0} = desc;
  assign err_code    = desc_dw0[15:12];
  assign req_done    = desc_dw0[30];
  assign dword_count = desc_dw1[10:0];

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
  // wire), byte count bit 12, dword count bit 10, reserved bits.
  logic unused_ok;
  assign unused_ok = ^{desc_dw0[11:7], desc_dw0[28], desc_dw0[31], desc_dw1[15], desc_dw1[10],
                       desc_dw2[31], desc_dw2[24]};

endmodule

`resetall
