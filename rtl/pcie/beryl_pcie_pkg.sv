// SPDX-License-Identifier: MIT
// Beryl PCIe package: TLP header layouts and constants for the vendor-neutral TLP stream.
// Headers follow PCIe Base Spec 3.0 section 2.2 bit for bit; DW0 sits in bits [127:96].
`default_nettype none

// Not every user of the package needs every constant.
/* verilator lint_off UNUSEDPARAM */
package beryl_pcie_pkg;

  // Fmt field (PCIe 3.0 table 2-2)
  localparam logic [2:0] FMT_3DW_NODATA = 3'b000;
  localparam logic [2:0] FMT_4DW_NODATA = 3'b001;
  localparam logic [2:0] FMT_3DW_DATA   = 3'b010;
  localparam logic [2:0] FMT_4DW_DATA   = 3'b011;

  // Type field (PCIe 3.0 table 2-3)
  localparam logic [4:0] TYPE_MEM = 5'b00000;
  localparam logic [4:0] TYPE_IO  = 5'b00010;
  localparam logic [4:0] TYPE_CPL = 5'b01010;

  // Completion status (PCIe 3.0 section 2.2.9)
  localparam logic [2:0] CPL_SC  = 3'b000;  // successful completion
  localparam logic [2:0] CPL_UR  = 3'b001;  // unsupported request
  localparam logic [2:0] CPL_CRS = 3'b010;  // configuration request retry
  localparam logic [2:0] CPL_CA  = 3'b100;  // completer abort

  // DMA status codes returned to on-chip clients with each descriptor's status
  localparam logic [3:0] DMA_OK          = 4'd0;
  localparam logic [3:0] DMA_ERR_TIMEOUT = 4'd1;  // no completion within the timeout
  localparam logic [3:0] DMA_ERR_UR      = 4'd2;  // completion with UR status
  localparam logic [3:0] DMA_ERR_CA      = 4'd3;  // completion with CA (or CRS/reserved) status
  localparam logic [3:0] DMA_ERR_POISON  = 4'd4;  // completion with EP (poisoned) set, or discontinued
  localparam logic [3:0] DMA_ERR_LEN     = 4'd5;  // descriptor length 0 or too long

  // Header DW0, common to all TLPs (PCIe 3.0 figure 2-5)
  typedef struct packed {
    logic [2:0] fmt;
    logic [4:0] tlp_type;
    logic       t9;
    logic [2:0] tc;
    logic       t8;
    logic       attr2;
    logic       ln;
    logic       th;
    logic       td;
    logic       ep;
    logic [1:0] attr;
    logic [1:0] at;
    logic [9:0] length;  // payload length in DW, 0 means 1024
  } tlp_dw0_t;

  // Memory request header. In the neutral stream memory requests always use the
  // 4DW form (64-bit address in DW2/DW3, fmt = 4DW); a shim for raw-TLP hard IP
  // shortens it to 3DW when the upper address bits are zero.
  typedef struct packed {
    tlp_dw0_t    dw0;
    logic [15:0] requester_id;
    logic [7:0]  tag;
    logic [3:0]  last_be;
    logic [3:0]  first_be;
    logic [61:0] addr;  // address bits [63:2]
    logic [1:0]  ph;
  } tlp_mem_hdr_t;

  // Completion header (PCIe 3.0 figure 2-32); DW3 is unused and zero.
  typedef struct packed {
    tlp_dw0_t    dw0;
    logic [15:0] completer_id;
    logic [2:0]  status;
    logic        bcm;
    logic [11:0] byte_count;  // bytes left to complete, including this TLP's; 0 means 4096
    logic [15:0] requester_id;
    logic [7:0]  tag;
    logic        r;
    logic [6:0]  lower_addr;
    logic [31:0] rsvd;
  } tlp_cpl_hdr_t;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
