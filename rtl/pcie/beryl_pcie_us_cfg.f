-f ../common/beryl_clk_gate.f
beryl_pcie_pkg.sv
beryl_pcie_us_cfg.sv
