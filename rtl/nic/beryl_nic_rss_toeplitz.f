-f ../common/beryl_clk_gate.f
beryl_nic_pkg.sv
beryl_nic_rss_toeplitz.sv
