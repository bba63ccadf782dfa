// SPDX-License-Identifier: MIT
// UltraScale+ configuration status -> Beryl config inputs (registered, 1 cycle). The core has
// no status pin for Extended Tag Field Enable, so it is polled from the Device Control register
// over the cfg_mgmt port: a read is held until the core answers (no timeout: a core that never
// answers keeps ext_tag_en at its last value), then the next read starts CFG_POLL_CYCLES + 1
// cycles after the answer.
`default_nettype none

module beryl_pcie_us_cfg #(
  parameter int CFG_POLL_CYCLES = 256  // cycles between Device Control reads, 1 .. 65535
) (
  input  wire logic        clk,
  input  wire logic        rst,

  // Configuration status from the hard IP (PG213), physical function 0 is bit 0 / nibble 0
  input  wire logic [1:0]  cfg_max_payload,             // 0 = 128 B .. 3 = 1024 B
  input  wire logic [2:0]  cfg_max_read_req,            // 0 = 128 B .. 5 = 4096 B
  input  wire logic [15:0] cfg_function_status,         // per PF: {intx dis, bme, mem en, io en}
  input  wire logic [3:0]  cfg_rcb_status,              // per PF: 1 = 128 B RCB
  input  wire logic [3:0]  cfg_interrupt_msix_enable,
  input  wire logic [3:0]  cfg_interrupt_msix_mask,

  // Configuration management (PG213), used read-only for Device Control
  output      logic [9:0]  cfg_mgmt_addr,               // dword address
  output      logic [7:0]  cfg_mgmt_function_number,
  output      logic        cfg_mgmt_write,
  output      logic [31:0] cfg_mgmt_write_data,
  output      logic [3:0]  cfg_mgmt_byte_enable,
  output      logic        cfg_mgmt_read,
  input  wire logic [31:0] cfg_mgmt_read_data,
  input  wire logic        cfg_mgmt_read_write_done,
  output      logic        cfg_mgmt_debug_access,

  // Beryl config inputs (docs/blocks/pcie_interfaces.md)
  output      logic [2:0]  max_payload_size,
  output      logic [2:0]  max_read_req_size,
  output      logic        rcb_128,
  output      logic        ext_tag_en,
  output      logic        bus_master_en,
  output      logic        msix_enable,
  output      logic        msix_mask
);

  if (CFG_POLL_CYCLES < 1 || CFG_POLL_CYCLES > 65535) begin : g_bad_poll
    $error("%m: CFG_POLL_CYCLES must be 1 .. 65535, got %0d", CFG_POLL_CYCLES);
  end

  // The UltraScale+ core places the PCI Express capability at 0x70 (PG213 configuration
  // space map); Device Control is its dword 2, Extended Tag Field Enable is bit 8 (PCIe 3.0
  // section 7.8.4).
  localparam logic [9:0] DEVCTL_DW_ADDR = 10'h1e;
  localparam int         DEVCTL_EXT_TAG = 8;

  // The status registers and ext_tag_en change only with a reset, a status input that differs from
  // its register, or a Device Control answer, so they are clocked by a gate (beryl_clk_gate) that is
  // open only then: a C++ model then evaluates the logic reading them (DMA engines, MSI-X) only when
  // they can have changed, not in every cycle. The poll counter keeps clk.
  logic gclk;
  logic dev_done;
  assign dev_done = cfg_mgmt_read && cfg_mgmt_read_write_done;

  // The status comparison is a variable of its own (kept in a Verilator model, public_flat_rd): a C++
  // model then evaluates it only when a status input or register changes, not in every cycle in which
  // the poller (on clk) moves dev_done's inputs (sim/README.md, "Clock gates").
  logic stat_chg /*verilator public_flat_rd*/;
  assign stat_chg = max_payload_size != {1'b0, cfg_max_payload}
                    || max_read_req_size != cfg_max_read_req || rcb_128 != cfg_rcb_status[0]
                    || bus_master_en != cfg_function_status[2] || msix_enable != cfg_interrupt_msix_enable[0]
                    || msix_mask != cfg_interrupt_msix_mask[0];
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || dev_done || stat_chg),
    .gclk (gclk)
  );

  always_ff @(posedge gclk) begin
    if (rst) begin
      max_payload_size  <= 3'd0;
      max_read_req_size <= 3'd0;
      rcb_128           <= 1'b0;
      bus_master_en     <= 1'b0;
      msix_enable       <= 1'b0;
      msix_mask         <= 1'b1;
    end else begin
      max_payload_size  <= {1'b0, cfg_max_payload};
      max_read_req_size <= cfg_max_read_req;
      rcb_128           <= cfg_rcb_status[0];
      bus_master_en     <= cfg_function_status[2];
      msix_enable       <= cfg_interrupt_msix_enable[0];
      msix_mask         <= cfg_interrupt_msix_mask[0];
    end
  end

  logic [15:0] poll_cnt_q;

  assign cfg_mgmt_addr            = DEVCTL_DW_ADDR;
  assign cfg_mgmt_function_number = 8'd0;
  assign cfg_mgmt_write           = 1'b0;
  assign cfg_mgmt_write_data      = 32'd0;
  assign cfg_mgmt_byte_enable     = 4'd0;
  assign cfg_mgmt_debug_access    = 1'b0;

  // Extended Tag Field Enable from the Device Control answer
  always_ff @(posedge gclk) begin
    if (rst) ext_tag_en <= 1'b0;
    else if (dev_done) ext_tag_en <= cfg_mgmt_read_data[DEVCTL_EXT_TAG];
  end

  // Read request held until the core answers (PG213 cfg_mgmt handshake), then a pause.
  always_ff @(posedge clk) begin
    if (rst) begin
      cfg_mgmt_read <= 1'b0;
      poll_cnt_q    <= 16'd0;
    end else if (cfg_mgmt_read) begin
      if (cfg_mgmt_read_write_done) begin
        cfg_mgmt_read <= 1'b0;
        poll_cnt_q    <= 16'(CFG_POLL_CYCLES);
      end
    end else if (poll_cnt_q != 16'd0) begin
      poll_cnt_q <= poll_cnt_q - 16'd1;
    end else begin
      cfg_mgmt_read <= 1'b1;
    end
  end

  // Other PFs, the I/O/memory enable and INTx disable bits, and the rest of Device Control.
  logic unused_ok;
  assign unused_ok = ^{cfg_function_status[15:3], cfg_function_status[1:0], cfg_rcb_status[3:1],
                       cfg_interrupt_msix_enable[3:1], cfg_interrupt_msix_mask[3:1],
                       cfg_mgmt_read_data[31:DEVCTL_EXT_TAG+1], cfg_mgmt_read_data[DEVCTL_EXT_TAG-1:0]};

endmodule

`resetall
