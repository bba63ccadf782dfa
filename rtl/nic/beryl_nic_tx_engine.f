-f ../common/beryl_clk_gate.f
beryl_nic_pkg.sv
-f ../pcie/beryl_dma_psdp_ram.f
-f beryl_nic_tx_ts_wait.f
-f beryl_nic_tx_ts_wait_ooo.f
beryl_nic_tx_engine.sv
