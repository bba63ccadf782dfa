// Bench top for beryl_axil_decode
-f ../../../rtl/regs/beryl_axil_decode.f
-f ../../../rtl/regs/beryl_id_block.f
tb_beryl_axil_decode.sv
