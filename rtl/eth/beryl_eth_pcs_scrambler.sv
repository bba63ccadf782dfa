// SPDX-License-Identifier: MIT
// 10GBASE-R self-synchronous scrambler, polynomial x^58 + x^39 + 1 (IEEE 802.3 clause 49.2.6), 64 bits
// per clock, bit 0 first. Sync headers bypass it. Latency 1 cycle, one block per clock.
`default_nettype none

module beryl_eth_pcs_scrambler (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic [63:0] in_data,
  input  wire logic [1:0]  in_hdr,
  output      logic [63:0] out_data,
  output      logic [1:0]  out_hdr
);

  // state_q[57] is the most recent scrambled bit: S57..S0 of figure 49-8 in time order
  logic [57:0]  state_q;
  logic [121:0] hist;   // {scrambled bits of this block, state}: bit 58 + i is output bit i
  logic [63:0]  scr;

  always_comb begin
    hist = {64'd0, state_q};
    for (int unsigned i = 0; i < 64; i++) begin
      // output bit i = input ^ the scrambled bits 39 and 58 positions earlier
      hist[58 + i] = in_data[i] ^ hist[58 + i - 39] ^ hist[i];
    end
    scr = hist[121:58];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      // any seed works for a self-synchronous scrambler; all ones avoids a long all-zero start
      state_q <= '1;
    end else begin
      state_q <= hist[121:64];
    end
    out_data <= scr;
    out_hdr  <= in_hdr;
  end

endmodule

`resetall
