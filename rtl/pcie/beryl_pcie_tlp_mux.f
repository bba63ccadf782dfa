../pcie/beryl_pcie_pkg.sv
beryl_pcie_tlp_mux.sv
