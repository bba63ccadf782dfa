-f ../pcie/beryl_pcie_us_top.f
-f ../regs/beryl_axil_decode.f
-f beryl_nic_if.f
-f ../ptp/beryl_ptp_regs.f
beryl_nic_us_top.sv
