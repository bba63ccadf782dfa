-f ../common/beryl_clk_gate.f
beryl_nic_pkg.sv
-f beryl_nic_rx_parse.f
-f beryl_nic_csum.f
-f beryl_nic_rss_toeplitz.f
-f beryl_nic_rss_indir.f
-f ../pcie/beryl_dma_psdp_ram.f
beryl_nic_rx_engine.sv
