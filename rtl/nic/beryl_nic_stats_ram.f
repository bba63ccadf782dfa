-f ../common/beryl_clk_gate.f
beryl_nic_stats_ram.sv
