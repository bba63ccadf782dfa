-f ../common/beryl_clk_gate.f
../regs/beryl_regs_pkg.sv
../regs/beryl_axil_regfile.sv
beryl_ptp_clock.sv
beryl_ptp_perout.sv
beryl_ptp_regs.sv
