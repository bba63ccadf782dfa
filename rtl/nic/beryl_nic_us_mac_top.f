-f beryl_nic_us_top.f
-f ../eth/beryl_eth_axis_to_seg.f
-f ../eth/beryl_eth_mac_100g_tx.f
-f ../eth/beryl_eth_mac_100g_rx.f
-f ../eth/beryl_eth_seg_to_axis.f
beryl_nic_us_mac_top.sv
