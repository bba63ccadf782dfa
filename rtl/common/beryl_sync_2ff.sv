// SPDX-License-Identifier: MIT
// Two-flop synchroniser for signals entering the `clk` domain from another clock. Each bit is
// synchronised on its own: use it for single bits, Gray-coded counters (one bit changes per step) or
// buses that are held stable until a synchronised handshake says they have been sampled.
// Latency 2 clk cycles (plus up to one for the asynchronous arrival).
`default_nettype none

module beryl_sync_2ff #(
  parameter int unsigned    WIDTH     = 1,  // bits to synchronise, 1..1024
  parameter logic [WIDTH-1:0] RESET_VAL = '0  // value of the output during and after reset
) (
  input  wire logic             clk,
  input  wire logic             rst,
  input  wire logic [WIDTH-1:0] in_async,  // from another clock domain (must come from a flop there)
  output      logic [WIDTH-1:0] out_sync
);

  if (WIDTH < 1 || WIDTH > 1024) begin : g_bad_width
    $error("%m: WIDTH must be within 1..1024");
  end

  // ASYNC_REG keeps the pair together in one slice and out of retiming (Xilinx); other tools ignore it
  (* ASYNC_REG = "TRUE" *) logic [WIDTH-1:0] meta_q;
  (* ASYNC_REG = "TRUE" *) logic [WIDTH-1:0] sync_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      meta_q <= RESET_VAL;
      sync_q <= RESET_VAL;
    end else begin
      meta_q <= in_async;
      sync_q <= meta_q;
    end
  end

  assign out_sync = sync_q;

endmodule

`resetall
