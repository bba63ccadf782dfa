// SPDX-License-Identifier: MIT
// Identity block (BAR0 offset 0): PCI ids, Beryl release, git hash, build date/time and a scratch
// register, behind AXI4-Lite. Layout from regs/beryl_id.rdl via beryl_regs_pkg. Reads and writes
// complete in 2 cycles (beryl_axil_regfile).
`default_nettype none

module beryl_id_block #(
  parameter int ADDR_W = beryl_regs_pkg::ID_BLOCK_ADDR_W,  // address bits of the block window, 6..32
  parameter logic [15:0] VENDOR_ID = 16'h1234,         // PCI vendor id; placeholder, the build passes the real one
  parameter logic [15:0] DEVICE_ID = 16'hbe01,         // PCI device id
  parameter logic [15:0] SUBSYS_VENDOR_ID = 16'h1234,  // PCI subsystem vendor id
  parameter logic [15:0] SUBSYS_ID = 16'h0001,         // PCI subsystem id
  parameter logic [31:0] BERYL_VERSION = beryl_regs_pkg::BERYL_RELEASE,  // release, 8.8.16
  parameter logic [31:0] GIT_HASH = 32'h0,             // first 8 hex digits of the commit; 0 = unknown
  parameter logic [31:0] BUILD_DATE = 32'h0,           // UTC date, BCD 0xYYYYMMDD; 0 = unknown
  parameter logic [31:0] BUILD_TIME = 32'h0            // UTC time, BCD 0x00HHMMSS; 0 = unknown
) (
  input  wire               clk,
  input  wire               rst,

  input  wire  [ADDR_W-1:0] s_axil_awaddr,
  input  wire  [2:0]        s_axil_awprot,
  input  wire               s_axil_awvalid,
  output logic              s_axil_awready,
  input  wire  [31:0]       s_axil_wdata,
  input  wire  [3:0]        s_axil_wstrb,
  input  wire               s_axil_wvalid,
  output logic              s_axil_wready,
  output logic [1:0]        s_axil_bresp,
  output logic              s_axil_bvalid,
  input  wire               s_axil_bready,
  input  wire  [ADDR_W-1:0] s_axil_araddr,
  input  wire  [2:0]        s_axil_arprot,
  input  wire               s_axil_arvalid,
  output logic              s_axil_arready,
  output logic [31:0]       s_axil_rdata,
  output logic [1:0]        s_axil_rresp,
  output logic              s_axil_rvalid,
  input  wire               s_axil_rready
);

  localparam int REG_COUNT = beryl_regs_pkg::ID_REG_COUNT;
  localparam int SCRATCH_IDX = beryl_regs_pkg::ID_SCRATCH_OFFSET / 4;
  localparam logic [REG_COUNT-1:0] WR_MASK = REG_COUNT'(1) << SCRATCH_IDX;

  logic [REG_COUNT*32-1:0] reg_rd_data;
  logic [REG_COUNT-1:0]    reg_wr_en;
  logic [31:0]             reg_wr_data;
  logic [3:0]              reg_wr_strb;
  logic [31:0]             scratch_q;

  always_comb begin
    reg_rd_data = '0;
    reg_rd_data[8*beryl_regs_pkg::ID_PCI_ID_OFFSET +: 32] = {DEVICE_ID, VENDOR_ID};
    reg_rd_data[8*beryl_regs_pkg::ID_PCI_SUBSYS_ID_OFFSET +: 32] = {SUBSYS_ID, SUBSYS_VENDOR_ID};
    reg_rd_data[8*beryl_regs_pkg::ID_BERYL_VERSION_OFFSET +: 32] = BERYL_VERSION;
    reg_rd_data[8*beryl_regs_pkg::ID_GIT_HASH_OFFSET +: 32] = GIT_HASH;
    reg_rd_data[8*beryl_regs_pkg::ID_BUILD_DATE_OFFSET +: 32] = BUILD_DATE;
    reg_rd_data[8*beryl_regs_pkg::ID_BUILD_TIME_OFFSET +: 32] = BUILD_TIME;
    reg_rd_data[8*beryl_regs_pkg::ID_SCRATCH_OFFSET +: 32] = scratch_q;
  end

  always_ff @(posedge clk) begin
    if (reg_wr_en[SCRATCH_IDX]) begin
      for (int b = 0; b < 4; b++) begin
        if (reg_wr_strb[b]) begin
          scratch_q[8*b +: 8] <= reg_wr_data[8*b +: 8];
        end
      end
    end
    if (rst) begin
      scratch_q <= beryl_regs_pkg::ID_SCRATCH_RESET;
    end
  end

  beryl_axil_regfile #(
    .ADDR_W(ADDR_W),
    .REG_COUNT(REG_COUNT),
    .BLOCK_TYPE(beryl_regs_pkg::ID_BLOCK_TYPE),
    .BLOCK_VERSION(beryl_regs_pkg::ID_BLOCK_VERSION),
    .BLOCK_NEXT(beryl_regs_pkg::ID_BLOCK_NEXT),
    .WR_MASK(WR_MASK)
  ) u_regfile (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .reg_rd_data(reg_rd_data),
    .reg_wr_en(reg_wr_en),
    .reg_wr_data(reg_wr_data),
    .reg_wr_strb(reg_wr_strb)
  );

endmodule

`resetall
