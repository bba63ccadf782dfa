-f ../common/beryl_clk_gate.f
../pcie/beryl_pcie_pkg.sv
beryl_pcie_dma_wr_fifo.sv
beryl_pcie_dma_wr.sv
