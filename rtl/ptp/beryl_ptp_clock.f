-f ../common/beryl_clk_gate.f
beryl_ptp_clock.sv
