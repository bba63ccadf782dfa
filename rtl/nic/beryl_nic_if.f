-f ../common/beryl_axis_in_reg.f
beryl_nic_pkg.sv
../regs/beryl_regs_pkg.sv
-f beryl_nic_if_regs.f
-f beryl_nic_queue_mgr.f
-f beryl_nic_port_sched.f
-f beryl_nic_tx_engine.f
-f beryl_nic_rx_engine.f
-f beryl_nic_cpl_write.f
-f beryl_nic_irq_mod.f
-f beryl_nic_stats_ram.f
-f ../pcie/beryl_dma_desc_mux.f
-f ../pcie/beryl_dma_ram_wr_demux.f
-f ../pcie/beryl_dma_ram_rd_demux.f
beryl_nic_if.sv
