// SPDX-License-Identifier: MIT
// Segmented simple-dual-port RAM for the DMA engines: SEG_COUNT independent banks, one write
// and one read per bank per cycle. Writes take effect when accepted; reads return after 1 cycle.
// A read of a row written in the same cycle returns the row's old contents (read-first).
`default_nettype none

module beryl_dma_psdp_ram #(
  parameter int SEG_COUNT  = 2,                 // segments (banks), fixed at 2 for the DMA engines
  parameter int SEG_DATA_W = 512,               // bits per segment
  parameter int SEG_BE_W   = SEG_DATA_W / 8,    // byte enables per segment
  parameter int SIZE       = 65536,             // bytes, multiple of SEG_COUNT*SEG_BE_W
  parameter int SEG_ADDR_W = $clog2(SIZE / (SEG_COUNT * SEG_BE_W))  // row address width
) (
  input  wire logic                          clk,
  input  wire logic                          rst,

  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_wr_cmd_addr,
  input  wire logic [SEG_COUNT*SEG_BE_W-1:0]   ram_wr_cmd_be,
  input  wire logic [SEG_COUNT*SEG_DATA_W-1:0] ram_wr_cmd_data,
  input  wire logic [SEG_COUNT-1:0]            ram_wr_cmd_valid,
  output logic [SEG_COUNT-1:0]                 ram_wr_cmd_ready,

  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_rd_cmd_addr,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_cmd_valid,
  output logic [SEG_COUNT-1:0]                 ram_rd_cmd_ready,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]      ram_rd_resp_data,
  output logic [SEG_COUNT-1:0]                 ram_rd_resp_valid,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_resp_ready
);

  localparam int ROWS = SIZE / (SEG_COUNT * SEG_BE_W);

  if (SIZE % (SEG_COUNT * SEG_BE_W) != 0 || (1 << SEG_ADDR_W) != ROWS) begin : g_chk_size
    $error("%m: SIZE must be a power-of-two multiple of the row size");
  end

  // Clock gate: the RAM and its read registers change only with a write, a read command taken (its
  // segment's output register free), or a read word being taken (ram_rd_resp_valid clears then); a
  // read command waiting behind an output word not taken moves nothing.
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (|ram_wr_cmd_valid) || (|(ram_rd_cmd_valid & ~ram_rd_resp_valid)) ||
           (|(ram_rd_resp_valid & ram_rd_resp_ready))),
    .gclk (gclk)
  );

  for (genvar s = 0; s < SEG_COUNT; s++) begin : g_seg
    logic [SEG_DATA_W-1:0] mem [ROWS];
    logic [SEG_ADDR_W-1:0] wr_addr;
    logic [SEG_ADDR_W-1:0] rd_addr;
    logic                  rd_en;

    assign wr_addr = ram_wr_cmd_addr[s*SEG_ADDR_W +: SEG_ADDR_W];
    assign rd_addr = ram_rd_cmd_addr[s*SEG_ADDR_W +: SEG_ADDR_W];
    assign ram_wr_cmd_ready[s] = 1'b1;
    // the output register holds its word until taken, so a read is accepted when it is free
    assign ram_rd_cmd_ready[s] = !ram_rd_resp_valid[s] || ram_rd_resp_ready[s];
    assign rd_en = ram_rd_cmd_valid[s] && ram_rd_cmd_ready[s];

    // A write stores the whole addressed row with the enabled bytes merged in. Yosys turns the
    // merge back into byte write enables (the same block RAM); Verilator then keeps one pending
    // write per segment instead of one per byte lane, which it cleared and tested every cycle. The
    // merge sits in the clocked block, under the write valid: as combinational logic a C++ model
    // re-evaluated it (and cleared the row) whenever the shared write port changed.
    always_ff @(posedge gclk) begin
      logic [SEG_DATA_W-1:0] wr_row;
      if (ram_wr_cmd_valid[s]) begin
        if (&ram_wr_cmd_be[s*SEG_BE_W +: SEG_BE_W]) begin
          // a whole row (most writes): no merge (this also skips the row read)
          wr_row = ram_wr_cmd_data[s*SEG_DATA_W +: SEG_DATA_W];
        end else begin
          wr_row = mem[wr_addr];
          for (int b = 0; b < SEG_BE_W; b++) begin
            if (ram_wr_cmd_be[s*SEG_BE_W + b]) wr_row[b*8 +: 8] = ram_wr_cmd_data[s*SEG_DATA_W + b*8 +: 8];
          end
        end
        mem[wr_addr] <= wr_row;   // one write statement: one write port
      end
    end

    always_ff @(posedge gclk) begin
      if (rd_en) ram_rd_resp_data[s*SEG_DATA_W +: SEG_DATA_W] <= mem[rd_addr];
      if (rd_en) ram_rd_resp_valid[s] <= 1'b1;
      else if (ram_rd_resp_ready[s]) ram_rd_resp_valid[s] <= 1'b0;
      if (rst) ram_rd_resp_valid[s] <= 1'b0;
    end
  end

endmodule

`resetall
