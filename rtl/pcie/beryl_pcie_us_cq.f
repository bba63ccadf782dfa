-f ../common/beryl_axis_in_reg.f
beryl_pcie_pkg.sv
-f beryl_pcie_us_strip.f
beryl_pcie_us_cq.sv
