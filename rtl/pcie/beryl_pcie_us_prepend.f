-f ../common/beryl_clk_gate.f
beryl_pcie_pkg.sv
-f beryl_pcie_us_skid.f
beryl_pcie_us_prepend.sv
