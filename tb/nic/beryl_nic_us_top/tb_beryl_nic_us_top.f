-f ../../../rtl/nic/beryl_nic_us_top.f
tb_beryl_nic_us_top.sv
