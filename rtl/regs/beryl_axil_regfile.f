// Generic AXI4-Lite register file (header + read-only words + write enables)
-f ../common/beryl_clk_gate.f
beryl_axil_regfile.sv
