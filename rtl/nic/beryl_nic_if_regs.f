-f ../common/beryl_clk_gate.f
../regs/beryl_regs_pkg.sv
beryl_nic_if_regs.sv
