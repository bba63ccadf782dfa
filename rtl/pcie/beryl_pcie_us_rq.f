beryl_pcie_pkg.sv
-f beryl_pcie_us_prepend.f
beryl_pcie_us_rq.sv
