-f ../common/beryl_axis_in_reg.f
beryl_pcie_pkg.sv
-f beryl_pcie_us_strip.f
-f beryl_pcie_us_rc_desc.f
beryl_pcie_us_rc.sv
