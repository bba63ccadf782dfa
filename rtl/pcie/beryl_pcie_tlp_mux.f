-f ../common/beryl_clk_gate.f
../pcie/beryl_pcie_pkg.sv
beryl_pcie_tlp_mux.sv
