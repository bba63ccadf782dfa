-f ../common/beryl_clk_gate.f
beryl_nic_pkg.sv
-f ../pcie/beryl_dma_psdp_ram.f
beryl_nic_cpl_write.sv
