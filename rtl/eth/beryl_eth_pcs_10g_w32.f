-f beryl_eth_pcs_10g.f
-f beryl_eth_pcs_serdes_w32.f
beryl_eth_pcs_10g_w32.sv
