-f beryl_clk_gate.f
beryl_axis_in_reg.sv
