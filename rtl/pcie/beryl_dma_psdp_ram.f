-f ../common/beryl_clk_gate.f
beryl_dma_psdp_ram.sv
