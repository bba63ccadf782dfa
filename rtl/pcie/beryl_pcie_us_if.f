beryl_pcie_pkg.sv
-f beryl_pcie_us_cq.f
-f beryl_pcie_us_cc.f
-f beryl_pcie_us_rq.f
-f beryl_pcie_us_rc.f
-f beryl_pcie_us_cfg.f
beryl_pcie_us_if.sv
