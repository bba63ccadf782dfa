../regs/beryl_regs_pkg.sv
-f beryl_nic_sched_rr.f
-f beryl_nic_sched_tb.f
-f beryl_nic_sched_tdma.f
-f beryl_nic_tx_gate.f
-f ../ptp/beryl_ptp_tdma_timer.f
beryl_nic_port_sched.sv
