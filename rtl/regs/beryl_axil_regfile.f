// Generic AXI4-Lite register file (header + read-only words + write enables)
beryl_axil_regfile.sv
