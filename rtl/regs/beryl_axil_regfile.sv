// SPDX-License-Identifier: MIT
// AXI4-Lite register file for one Beryl register block: answers the TYPE/VERSION/NEXT header from
// parameters and every other word from a flattened input vector; writes to writable words come
// out as a one-cycle enable. One read and one write in flight; each completes in 2 cycles.
//
// Ports besides clk/rst and the AXI4-Lite slave (s_axil_*, 32-bit data, addresses are byte
// offsets within the block):
//   reg_rd_data  REG_COUNT words, word i (block offset 4*i) in bits [32*i+31:32*i]; sampled when
//                the read address is accepted. Words 0..2 are ignored (the header comes from
//                BLOCK_TYPE/BLOCK_VERSION/BLOCK_NEXT).
//   reg_wr_en    bit i pulses for one cycle after a write to word i if WR_MASK[i] is set;
//   reg_wr_data  reg_wr_data/reg_wr_strb hold that write's data and byte strobes during the pulse.
//   reg_wr_strb
// Reads of words at or above REG_COUNT return 0; writes to them or to read-only words are
// dropped. Every response is OKAY (a decode error is the decoder's business, not the block's).
`default_nettype none

module beryl_axil_regfile #(
  parameter int ADDR_W = 8,                      // address bits of the block window, 4..32
  parameter int REG_COUNT = 4,                   // words from +0x0 to the last register, 4..2**(ADDR_W-2)
  parameter logic [31:0] BLOCK_TYPE = 32'h0,     // TYPE (+0x0) value, <blk>_BLOCK_TYPE
  parameter logic [31:0] BLOCK_VERSION = 32'h0,  // VERSION (+0x4) value, <blk>_BLOCK_VERSION
  parameter logic [31:0] BLOCK_NEXT = 32'h0,     // NEXT (+0x8) value, <blk>_BLOCK_NEXT
  parameter logic [REG_COUNT-1:0] WR_MASK = '0   // bit i set: word i is writable; bits 2..0 must be 0
) (
  input  wire                   clk,
  input  wire                   rst,

  input  wire  [ADDR_W-1:0]     s_axil_awaddr,
  input  wire  [2:0]            s_axil_awprot,
  input  wire                   s_axil_awvalid,
  output logic                  s_axil_awready,
  input  wire  [31:0]           s_axil_wdata,
  input  wire  [3:0]            s_axil_wstrb,
  input  wire                   s_axil_wvalid,
  output logic                  s_axil_wready,
  output logic [1:0]            s_axil_bresp,
  output logic                  s_axil_bvalid,
  input  wire                   s_axil_bready,
  input  wire  [ADDR_W-1:0]     s_axil_araddr,
  input  wire  [2:0]            s_axil_arprot,
  input  wire                   s_axil_arvalid,
  output logic                  s_axil_arready,
  output logic [31:0]           s_axil_rdata,
  output logic [1:0]            s_axil_rresp,
  output logic                  s_axil_rvalid,
  input  wire                   s_axil_rready,

  // Header words 0..2 of reg_rd_data are replaced by the parameters.
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire  [REG_COUNT*32-1:0] reg_rd_data,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [REG_COUNT-1:0]  reg_wr_en,
  output logic [31:0]           reg_wr_data,
  output logic [3:0]            reg_wr_strb
);

  localparam int IDX_W = ADDR_W - 2;
  localparam logic [1:0] RESP_OKAY = 2'b00;

  if (ADDR_W < 4 || ADDR_W > 32) begin : g_bad_addr_w
    $fatal(1, "beryl_axil_regfile: ADDR_W = %0d, must be 4..32", ADDR_W);
  end
  if (REG_COUNT < 4 || REG_COUNT > (1 << IDX_W)) begin : g_bad_reg_count
    $fatal(1, "beryl_axil_regfile: REG_COUNT = %0d, must be 4..2**(ADDR_W-2)", REG_COUNT);
  end
  if (WR_MASK[2:0] != 3'b000) begin : g_bad_wr_mask
    $fatal(1, "beryl_axil_regfile: WR_MASK marks a header word (TYPE/VERSION/NEXT) writable");
  end

  // Whole block as seen by software: header from parameters, the rest from the input.
  logic [REG_COUNT*32-1:0] words;
  assign words = {reg_rd_data[REG_COUNT*32-1:96], BLOCK_NEXT, BLOCK_VERSION, BLOCK_TYPE};

  // ---------------------------------------------------------------- clock gate
  // The flops change only with a write offered (awvalid and wvalid: taken when no response waits),
  // a read offered (arvalid), a response not yet taken (bvalid_q, rvalid_q clear when taken), and in
  // the cycle after a write to a writable word (the wr_en_q pulse clears itself).
  logic                 gclk;
  logic                 bvalid_q;
  logic                 rvalid_q;
  logic [REG_COUNT-1:0] wr_en_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (s_axil_awvalid && s_axil_wvalid) || s_axil_arvalid || bvalid_q || rvalid_q || (|wr_en_q)),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- write channel
  // AW and W are taken together (AXI4 A3.3.1 lets a slave wait for both valids before either
  // ready), so the address and its data never need to be stored apart.
  logic            wr_fire;
  logic [IDX_W-1:0] wr_idx;
  logic [31:0]     wr_data_q;
  logic [3:0]      wr_strb_q;

  assign wr_fire = s_axil_awvalid && s_axil_wvalid && !bvalid_q;
  assign wr_idx = s_axil_awaddr[ADDR_W-1:2];
  assign s_axil_awready = wr_fire;
  assign s_axil_wready = wr_fire;

  always_ff @(posedge gclk) begin
    wr_en_q <= '0;
    if (wr_fire) begin
      for (int i = 0; i < REG_COUNT; i++) begin
        wr_en_q[i] <= WR_MASK[i] && (wr_idx == IDX_W'(i));
      end
      wr_data_q <= s_axil_wdata;
      wr_strb_q <= s_axil_wstrb;
      bvalid_q <= 1'b1;
    end else if (s_axil_bready) begin
      bvalid_q <= 1'b0;
    end
    if (rst) begin
      bvalid_q <= 1'b0;
      wr_en_q <= '0;
    end
  end

  assign s_axil_bvalid = bvalid_q;
  assign s_axil_bresp = RESP_OKAY;
  assign reg_wr_en = wr_en_q;
  assign reg_wr_data = wr_data_q;
  assign reg_wr_strb = wr_strb_q;

  // ---------------------------------------------------------------- read channel
  logic            rd_fire;
  logic [IDX_W-1:0] rd_idx;
  logic [31:0]     rd_word;
  logic [31:0]     rdata_q;

  assign s_axil_arready = !rvalid_q;
  assign rd_fire = s_axil_arvalid && !rvalid_q;
  assign rd_idx = s_axil_araddr[ADDR_W-1:2];

  // worked out only for a read being accepted (rdata_q loads only then): the C++ simulator skips
  // the word select on every other cycle
  always_comb begin
    rd_word = '0;  // words past the last register read as zero
    if (rd_fire && 32'(rd_idx) < REG_COUNT) begin
      rd_word = words[32*rd_idx +: 32];
    end
  end

  always_ff @(posedge gclk) begin
    if (rd_fire) begin
      rdata_q <= rd_word;
      rvalid_q <= 1'b1;
    end else if (s_axil_rready) begin
      rvalid_q <= 1'b0;
    end
    if (rst) begin
      rvalid_q <= 1'b0;
    end
  end

  assign s_axil_rvalid = rvalid_q;
  assign s_axil_rdata = rdata_q;
  assign s_axil_rresp = RESP_OKAY;

  // Byte lanes inside a word and the protection bits carry no meaning for registers.
  logic unused;
  assign unused = ^{s_axil_awaddr[1:0], s_axil_araddr[1:0], s_axil_awprot, s_axil_arprot};

endmodule

`resetall
