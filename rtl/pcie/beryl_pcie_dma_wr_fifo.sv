// SPDX-License-Identifier: MIT
// First-word-fall-through FIFO in flops, used inside the DMA write engine's pipeline.
// A pushed entry shows at the output the next cycle; one push and one pop per cycle.
`default_nettype none

module beryl_pcie_dma_wr_fifo #(
  parameter int WIDTH = 8,  // entry width in bits, 1 or more
  parameter int DEPTH = 4   // entries, a power of two, 2..256
) (
  input  wire                     clk,
  input  wire                     rst,

  input  wire [WIDTH-1:0]         in_data,
  input  wire                     in_valid,
  output logic                    in_ready,

  output logic [WIDTH-1:0]        out_data,
  output logic                    out_valid,
  input  wire                     out_ready
);

  localparam int PTR_W = $clog2(DEPTH);

  if (DEPTH < 2 || DEPTH > 256 || (1 << PTR_W) != DEPTH) begin : g_check_depth
    $error("%m: DEPTH must be a power of two in 2..256");
  end
  if (WIDTH < 1) begin : g_check_width
    $error("%m: WIDTH must be at least 1");
  end

  logic [WIDTH-1:0] mem_q [DEPTH];
  logic [PTR_W-1:0] wr_ptr_q;
  logic [PTR_W-1:0] rd_ptr_q;
  logic [PTR_W:0]   count_q;
  logic             push;
  logic             pop;

  assign in_ready  = (count_q != (PTR_W + 1)'(DEPTH));
  assign out_valid = (count_q != '0);
  assign out_data  = mem_q[rd_ptr_q];
  assign push      = in_valid && in_ready;
  assign pop       = out_valid && out_ready;

  // Storage has no reset: only entries below count_q are ever read.
  always_ff @(posedge clk) begin
    if (push) begin
      mem_q[wr_ptr_q] <= in_data;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      if (push) begin
        wr_ptr_q <= wr_ptr_q + 1'b1;
      end
      if (pop) begin
        rd_ptr_q <= rd_ptr_q + 1'b1;
      end
      if (push && !pop) begin
        count_q <= count_q + 1'b1;
      end else if (pop && !push) begin
        count_q <= count_q - 1'b1;
      end
    end
  end

endmodule

`resetall
