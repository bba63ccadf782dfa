-f ../common/beryl_clk_gate.f
beryl_nic_tx_ts_wait.sv
