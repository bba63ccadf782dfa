beryl_pcie_pkg.sv
../regs/beryl_regs_pkg.sv
-f beryl_pcie_axil_master.f
-f ../regs/beryl_axil_decode.f
-f ../regs/beryl_id_block.f
-f ../regs/beryl_axil_regfile.f
-f beryl_pcie_dma_rd.f
-f beryl_pcie_dma_wr.f
-f beryl_pcie_msix.f
-f beryl_pcie_tlp_mux.f
beryl_pcie_host_if.sv
