// SPDX-License-Identifier: MIT
// Two-entry skid buffer: registered m_valid/m_data and registered s_ready, so neither
// side sees a combinational path from the other. Latency 1 cycle, one beat per cycle.
`default_nettype none

module beryl_pcie_us_skid #(
  parameter int DATA_W = 8  // payload width in bits, >= 1
) (
  input  wire logic              clk,
  input  wire logic              rst,

  input  wire logic [DATA_W-1:0] s_data,
  input  wire logic              s_valid,
  output      logic              s_ready,

  output      logic [DATA_W-1:0] m_data,
  output      logic              m_valid,
  input  wire logic              m_ready
);

  logic [DATA_W-1:0] main_q, spare_q;
  logic              main_valid_q, spare_valid_q;

  assign s_ready = !spare_valid_q;
  assign m_valid = main_valid_q;
  assign m_data  = main_q;

  // Data registers carry no reset: only the valid flags matter after reset.
  always_ff @(posedge clk) begin
    if (m_ready || !main_valid_q) begin
      // Main slot drains (or is empty) this cycle: refill from the spare first.
      if (spare_valid_q) begin
        main_q <= spare_q;
      end else if (s_valid) begin
        main_q <= s_data;
      end
    end else if (s_valid && !spare_valid_q) begin
      spare_q <= s_data;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      main_valid_q  <= 1'b0;
      spare_valid_q <= 1'b0;
    end else if (m_ready || !main_valid_q) begin
      main_valid_q  <= spare_valid_q || s_valid;
      spare_valid_q <= 1'b0;
    end else if (s_valid && !spare_valid_q) begin
      spare_valid_q <= 1'b1;
    end
  end

endmodule

`resetall
