beryl_nic_pkg.sv
-f ../pcie/beryl_dma_psdp_ram.f
beryl_nic_tx_engine.sv
