beryl_nic_csum.sv
