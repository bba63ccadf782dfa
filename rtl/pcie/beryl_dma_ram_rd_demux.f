-f ../common/beryl_clk_gate.f
beryl_dma_ram_rd_demux.sv
