// SPDX-License-Identifier: MIT
// Input register for a valid/ready stream: one entry, the ready passed through.
//
// A beat offered at s_* is taken into the register when the register is empty or its beat leaves in
// the same cycle (s_ready = !m_valid || m_ready: a combinational path from m_ready to s_ready, none
// from s_* to m_*). One beat per cycle, a cycle of latency, no bubbles. The payload is loaded only
// with a valid beat, so m_data keeps the last beat while m_valid is low.
//
// Used where a stream from outside the NIC (the hard IP's RC and CQ, the Ethernet RX ports) enters
// it: the logic behind reads flops, which also eases timing on the FPGA. In the C++ model the logic
// behind no longer reads a top-level input, so it is not evaluated in the input-combinational region
// (every falling-edge eval whose inputs changed) but only where its block is clocked: the register
// gates its own clock (sim/README.md, "Clock gates") and rises only with a beat offered or held.
`default_nettype none

module beryl_axis_in_reg #(
  parameter int DATA_W = 512,
  parameter int KEEP_W = DATA_W / 8,
  parameter int USER_W = 1
) (
  input  wire logic              clk,
  input  wire logic              rst,

  input  wire logic [DATA_W-1:0] s_tdata,
  input  wire logic [KEEP_W-1:0] s_tkeep,
  input  wire logic              s_tlast,
  input  wire logic [USER_W-1:0] s_tuser,
  input  wire logic              s_tvalid,
  output      logic              s_tready,

  output      logic [DATA_W-1:0] m_tdata,
  output      logic [KEEP_W-1:0] m_tkeep,
  output      logic              m_tlast,
  output      logic [USER_W-1:0] m_tuser,
  output      logic              m_tvalid,
  input  wire logic              m_tready
);

  logic gclk;

  assign s_tready = !m_tvalid || m_tready;

  always_ff @(posedge gclk) begin
    if (s_tready) begin
      m_tvalid <= s_tvalid;
      if (s_tvalid) begin
        m_tdata <= s_tdata;
        m_tkeep <= s_tkeep;
        m_tlast <= s_tlast;
        m_tuser <= s_tuser;
      end
    end
    if (rst) m_tvalid <= 1'b0;
  end

  // exact enable: the register changes only with a beat offered (taken or not) or one held. Reset
  // needs no term of its own: it changes only m_tvalid, and only when m_tvalid is high.
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (s_tvalid || m_tvalid),
    .gclk (gclk)
  );

endmodule

`resetall
