-f ../../../rtl/pcie/beryl_pcie_us_top.f
-f ../../../rtl/pcie/beryl_dma_psdp_ram.f
tb_beryl_pcie_us_top.sv
