../pcie/beryl_pcie_pkg.sv
beryl_pcie_msix.sv
