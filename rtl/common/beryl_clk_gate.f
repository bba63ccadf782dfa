beryl_clk_gate.sv
