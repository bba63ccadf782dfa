-f beryl_eth_pcs_10g_tx.f
-f beryl_eth_pcs_10g_rx.f
beryl_eth_pcs_10g.sv
