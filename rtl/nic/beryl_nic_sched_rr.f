-f ../common/beryl_clk_gate.f
beryl_nic_pkg.sv
beryl_nic_sched_rr.sv
