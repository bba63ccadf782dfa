// AXI4-Lite 1-to-N address decoder
-f ../common/beryl_clk_gate.f
beryl_axil_decode.sv
