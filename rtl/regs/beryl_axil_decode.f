// AXI4-Lite 1-to-N address decoder
beryl_axil_decode.sv
