-f ../../../rtl/nic/beryl_nic_us_mac_top.f
tb_beryl_nic_us_mac_top.sv
