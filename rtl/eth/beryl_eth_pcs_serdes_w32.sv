// SPDX-License-Identifier: MIT
// 64b/66b width converter: the PCS's one 66-bit block per clock (tx_clk / rx_clk, f) <-> a 32-bit SerDes
// interface with the sync header on the first half (serdes_tx_clk / serdes_rx_clk, 2f, phase aligned).
// One block per f clock each way. Latency: TX 1 serdes clock, RX 1 or 2 serdes clocks (2 when realigned).
`default_nettype none

// Clocking: each serdes_*_clk runs at twice its tx_clk / rx_clk, from the same source and phase aligned
// (every rising edge of the f clock coincides with a rising edge of the 2f clock: USRCLK2 = USRCLK / 2 on
// a Xilinx transceiver, or two outputs of one MMCM). The crossings below are flop to flop (TX: through
// a 2:1 mux) between related clocks: let the timing tool analyse them as synchronous paths (its default
// for clocks of one source; the tightest edge pair is one 2f period). Do NOT put them in an asynchronous
// clock group or make them false paths.
module beryl_eth_pcs_serdes_w32 (
  // transmit, f side
  input  wire logic        tx_clk,
  input  wire logic        tx_rst,
  input  wire logic [63:0] pcs_tx_data,     // block payload, bit 0 first on the wire; a tx_clk register
  input  wire logic [1:0]  pcs_tx_hdr,      // sync header, bit 0 first
  // transmit, 2f side
  input  wire logic        serdes_tx_clk,
  input  wire logic        serdes_tx_rst,
  output      logic [31:0] serdes_tx_data,  // first half: payload [31:0], second half: payload [63:32]
  output      logic [1:0]  serdes_tx_hdr,   // the block's header while serdes_tx_hdr_valid, then held
  output      logic        serdes_tx_hdr_valid,  // 1 on the first half of every block
  // receive, 2f side
  input  wire logic        serdes_rx_clk,
  input  wire logic        serdes_rx_rst,
  input  wire logic [31:0] serdes_rx_data,
  input  wire logic [1:0]  serdes_rx_hdr,   // read only with serdes_rx_hdr_valid
  input  wire logic        serdes_rx_hdr_valid,  // 1 on the first half of a block
  output      logic        serdes_rx_bitslip,    // one serdes_rx_clk pulse per pcs_rx_bitslip pulse
  // receive, f side
  input  wire logic        rx_clk,
  input  wire logic        rx_rst,
  output      logic [63:0] pcs_rx_data,
  output      logic [1:0]  pcs_rx_hdr,      // 2'b00 on a fill block
  input  wire logic        pcs_rx_bitslip,  // one rx_clk pulse per slip request (may be back to back)
  output      logic        rx_fill_block,   // pcs_rx_* is a fill block: no whole block arrived this clock
  output      logic        rx_half_shift    // 1 while blocks are taken one half later (realigned)
);

  // ---------------------------------------------------------------------------------------------
  // TX. tx_tog_q flips on every tx_clk edge; the 2f side compares it with its own copy taken one 2f
  // clock earlier: they differ exactly on the 2f edge in the middle of a tx_clk cycle. On that edge the
  // first half goes out (the block was launched by the tx_clk edge one 2f clock before); on the next
  // (shared) edge the second half, read from the same tx_clk register before it changes.
  logic tx_tog_q;
  logic serdes_tx_tog_q;
  logic serdes_tx_first;

  always_ff @(posedge tx_clk) begin
    if (tx_rst) begin
      tx_tog_q <= 1'b0;
    end else begin
      tx_tog_q <= ~tx_tog_q;
    end
  end

  assign serdes_tx_first = tx_tog_q ^ serdes_tx_tog_q;

  always_ff @(posedge serdes_tx_clk) begin
    serdes_tx_tog_q <= tx_tog_q;
    serdes_tx_data  <= serdes_tx_first ? pcs_tx_data[31:0] : pcs_tx_data[63:32];
    if (serdes_tx_first) begin
      serdes_tx_hdr <= pcs_tx_hdr;
    end
    if (serdes_tx_rst) begin
      serdes_tx_hdr_valid <= 1'b0;
    end else begin
      serdes_tx_hdr_valid <= serdes_tx_first;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // RX. The 2f side only delays: it keeps the last three halves (1 = newest). At each rx_clk edge E
  // the halves h1, h2, h3 were sampled on the 2f edges E-P, E-2P, E-3P (P = 2f period). A block is a
  // half with header valid followed by one without:
  //   {h1, h2} a block: aligned, the header came on a shared edge; the block is one 2f clock old.
  //   {h2, h3} a block: the header came on a mid-cycle edge ("wrong" half); the block is taken one half
  //                     later instead of being split across two rx_clk cycles (+1 2f clock of latency).
  //   neither:          no whole block ended in this rx_clk cycle (the header moved by a half, or a half
  //                     went missing): a fill block, the previous payload with the invalid header 2'b00.
  // Blocks end at least two halves apart, so each one falls into exactly one rx_clk window: none is
  // lost or taken twice. The fill block costs one bad sync header in block lock and one /E/; repeating
  // the payload leaves the descrambler's state (the last 58 line bits) as the following block expects.
  logic [31:0] serdes_rx_d1_q, serdes_rx_d2_q, serdes_rx_d3_q;
  logic [1:0]  serdes_rx_hdr1_q, serdes_rx_hdr2_q, serdes_rx_hdr3_q;
  logic        serdes_rx_hv1_q, serdes_rx_hv2_q, serdes_rx_hv3_q;

  always_ff @(posedge serdes_rx_clk) begin
    serdes_rx_d1_q   <= serdes_rx_data;
    serdes_rx_d2_q   <= serdes_rx_d1_q;
    serdes_rx_d3_q   <= serdes_rx_d2_q;
    serdes_rx_hdr1_q <= serdes_rx_hdr;
    serdes_rx_hdr2_q <= serdes_rx_hdr1_q;
    serdes_rx_hdr3_q <= serdes_rx_hdr2_q;
    if (serdes_rx_rst) begin
      serdes_rx_hv1_q <= 1'b0;
      serdes_rx_hv2_q <= 1'b0;
      serdes_rx_hv3_q <= 1'b0;
    end else begin
      serdes_rx_hv1_q <= serdes_rx_hdr_valid;
      serdes_rx_hv2_q <= serdes_rx_hv1_q;
      serdes_rx_hv3_q <= serdes_rx_hv2_q;
    end
  end

  logic rx_take_now;    // {h1, h2} is a block
  logic rx_take_late;   // {h2, h3} is a block

  assign rx_take_now  = serdes_rx_hv2_q && !serdes_rx_hv1_q;
  assign rx_take_late = serdes_rx_hv3_q && !serdes_rx_hv2_q;

  always_ff @(posedge rx_clk) begin
    if (rx_take_now) begin
      pcs_rx_data <= {serdes_rx_d1_q, serdes_rx_d2_q};
      pcs_rx_hdr  <= serdes_rx_hdr2_q;
    end else if (rx_take_late) begin
      pcs_rx_data <= {serdes_rx_d2_q, serdes_rx_d3_q};
      pcs_rx_hdr  <= serdes_rx_hdr3_q;
    end else begin
      pcs_rx_hdr  <= 2'b00;
    end
    if (rx_rst) begin
      pcs_rx_hdr    <= 2'b00;
      rx_fill_block <= 1'b0;
      rx_half_shift <= 1'b0;
    end else begin
      rx_fill_block <= !rx_take_now && !rx_take_late;
      if (rx_take_now || rx_take_late) begin
        rx_half_shift <= rx_take_late;
      end
    end
  end

  // Slip requests cross as a toggle, so back-to-back rx_clk pulses still give one 2f pulse each
  // (2f pulse 1.5 rx_clk cycles after the rx_clk pulse).
  logic rx_slip_tog_q;
  logic serdes_rx_slip_tog_q;

  always_ff @(posedge rx_clk) begin
    if (rx_rst) begin
      rx_slip_tog_q <= 1'b0;
    end else begin
      rx_slip_tog_q <= rx_slip_tog_q ^ pcs_rx_bitslip;
    end
  end

  always_ff @(posedge serdes_rx_clk) begin
    serdes_rx_slip_tog_q <= rx_slip_tog_q;
    if (serdes_rx_rst) begin
      serdes_rx_bitslip <= 1'b0;
    end else begin
      serdes_rx_bitslip <= rx_slip_tog_q ^ serdes_rx_slip_tog_q;
    end
  end

endmodule

`resetall
