-f ../../../rtl/eth/beryl_eth_mac_10g.f
-f ../../../rtl/eth/beryl_eth_pcs_10g.f
beryl_eth_10g_loop_tb.sv
