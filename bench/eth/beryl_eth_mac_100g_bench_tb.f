-f ../../rtl/eth/beryl_eth_mac_100g_tx.f
-f ../../rtl/eth/beryl_eth_mac_100g_rx.f
beryl_eth_mac_100g_bench_tb.sv
