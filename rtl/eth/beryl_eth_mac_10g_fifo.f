-f beryl_eth_mac_10g.f
-f ../common/beryl_axis_async_fifo.f
beryl_eth_mac_10g_fifo.sv
