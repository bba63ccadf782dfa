-f ../../../rtl/eth/beryl_eth_mac_100g_rx.f
-f ../../../rtl/eth/beryl_eth_seg_to_axis.f
beryl_eth_seg_to_axis_mac_tb.sv
