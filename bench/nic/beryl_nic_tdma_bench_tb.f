-f ../../rtl/ptp/beryl_ptp_clock.f
-f ../../rtl/ptp/beryl_ptp_tdma_timer.f
-f ../../rtl/nic/beryl_nic_sched_tdma.f
-f ../../rtl/nic/beryl_nic_tx_gate.f
beryl_nic_tdma_bench_tb.sv
