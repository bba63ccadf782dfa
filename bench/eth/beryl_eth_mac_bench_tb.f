-f ../../rtl/eth/beryl_eth_mac_10g.f
beryl_eth_mac_bench_tb.sv
