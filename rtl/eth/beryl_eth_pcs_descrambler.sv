// SPDX-License-Identifier: MIT
// 10GBASE-R self-synchronous descrambler, x^58 + x^39 + 1 (IEEE 802.3 clause 49.2.10), 64 bits per
// clock. Recovers on its own 58 bits after any error or slip. Latency 1 cycle, one block per clock.
`default_nettype none

module beryl_eth_pcs_descrambler (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic [63:0] in_data,
  input  wire logic [1:0]  in_hdr,
  output      logic [63:0] out_data,
  output      logic [1:0]  out_hdr
);

  logic [57:0]  state_q;   // last 58 received (scrambled) bits, [57] most recent
  logic [121:0] hist;
  logic [63:0]  dsc;

  assign hist = {in_data, state_q};

  always_comb begin
    for (int unsigned i = 0; i < 64; i++) begin
      dsc[i] = in_data[i] ^ hist[58 + i - 39] ^ hist[i];
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state_q <= '0;
    end else begin
      state_q <= in_data[63:6];
    end
    out_data <= dsc;
    out_hdr  <= in_hdr;
  end

endmodule

`resetall
