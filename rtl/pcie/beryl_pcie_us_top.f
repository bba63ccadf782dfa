beryl_pcie_pkg.sv
../regs/beryl_regs_pkg.sv
-f beryl_pcie_us_if.f
-f beryl_pcie_host_if.f
beryl_pcie_us_top.sv
