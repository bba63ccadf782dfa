// Identity block
beryl_regs_pkg.sv
-f beryl_axil_regfile.f
beryl_id_block.sv
