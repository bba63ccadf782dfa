-f ../common/beryl_clk_gate.f
beryl_dma_desc_mux.sv
