-f ../common/beryl_clk_gate.f
beryl_nic_irq_mod.sv
