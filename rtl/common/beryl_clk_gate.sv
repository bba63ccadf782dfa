// SPDX-License-Identifier: MIT
// Clock gate for a block that is idle most of the time (sim/README.md, "Clock gates").
//
// `gclk` follows `clk` in every cycle whose `en` was high at the end of the low phase of `clk`
// before its rising edge; in other cycles it stays low, so the block's flops hold. `en` passes a
// latch that is open while `clk` is low (the usual integrated clock-gating cell), so `gclk` cannot
// glitch when `en` changes after a rising edge, and an input a test bench drives at the falling edge
// still counts for the next rising edge.
//
// A block gates itself only with an exact enable: `en` is high in every cycle in which any of its
// flops or RAM words could change (a request at an input, work in flight, a reset). Gating then never
// changes what the block does, only what a simulator has to evaluate: a Verilator model evaluates a
// gated block's flops, and the logic that depends only on them, only in cycles its clock rises.
//
// Synthesis (SYNTHESIS defined, as Yosys and Vivado do) and simulation with BERYL_NO_CLK_GATE get
// `gclk = clk`: the FPGA design clocks every block in every cycle (on an FPGA a clock enable is the
// better tool, and with an exact enable both give the same behaviour). beryl-sim's lock-step check
// (sim/README.md) runs a gated and an ungated build of the NIC side by side and compares every output
// and design variable in every cycle.
`default_nettype none

// `clk` must be the free-running clock, never another gate's output: a latch on a gated clock is
// evaluated by a Verilator model only where that clock is (not in the input region of a falling-edge
// eval), and beryl-sim's lock-step check found the completion writer's RAM misbehaving that way.
module beryl_clk_gate (
  input  wire logic clk,
  input  wire logic en,    // clock the block at the next rising edge of clk
  output wire logic gclk
);

`ifdef SYNTHESIS
  assign gclk = clk;
  logic unused_en;
  assign unused_en = en;
`elsif BERYL_NO_CLK_GATE
  assign gclk = clk;
  logic unused_en;
  assign unused_en = en;
`else
  // gate_en_now: en as a variable of its own that the model keeps (public), so that beryl-sim can
  // read it for the gate's trigger at a rising edge (sim/main.cpp, rise_triggers)
  logic gate_en_now /*verilator public_flat_rd*/;
  logic gate_en_l;
  assign gate_en_now = en;
  always_latch begin
    if (!clk) begin
      gate_en_l = gate_en_now;
    end
  end
  assign gclk = clk & gate_en_l;
`endif

endmodule

`resetall
