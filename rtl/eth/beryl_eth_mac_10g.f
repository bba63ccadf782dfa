-f beryl_eth_mac_10g_tx.f
-f beryl_eth_mac_10g_rx.f
-f beryl_eth_mac_stats.f
beryl_eth_mac_10g.sv
