# SPDX-License-Identifier: MIT
# DMA=1 (make -C sim DMA=1): beryl-dma-bench, the PCIe subsystem with its DMA RAM
# (tb/pcie/beryl_pcie_us_top/tb_beryl_pcie_us_top.sv, the wrapper bench/pcie_dma runs under cocotb)
# verilated and linked with dma/main_dma.cpp and the shared host model. Included by sim/Makefile.
DMA_PARAMS := TLP_DATA_W=512 RAM_ADDR_W=18 TIMEOUT_CYCLES=20000
OUT      ?= $(ROOT)/build/sim-cpp/dma_w512_r18
VDIR     := $(OUT)/vobj
BIN      := $(OUT)/beryl-dma-bench
TOP      := tb_beryl_pcie_us_top
RTL_SRCS := $(shell cd $(ROOT) && python3 scripts/filelist.py tb/pcie/beryl_pcie_us_top/$(TOP).f)
VLIB     := $(VDIR)/V$(TOP)__ALL.a
VFLAGS   := --cc --build -O3 --x-assign fast --x-initial fast -Wno-fatal -Wno-lint -Wno-style \
            --top-module $(TOP) --Mdir $(VDIR) --build-jobs $(VJOBS) $(foreach p,$(DMA_PARAMS),-G$(p)) \
            $(if $(CARCH),-CFLAGS $(CARCH))
VROOT    := $(shell $(VERILATOR) --getenv VERILATOR_ROOT)
CXXFLAGS := -std=c++17 -O2 $(CARCH) -g0 -Wall -I$(VDIR) -isystem $(VROOT)/include -isystem $(VROOT)/include/vltstd

.PHONY: all print-bin clean
all: $(BIN)

print-bin:
	@echo $(BIN)

$(VLIB): $(RTL_SRCS) $(ROOT)/sim/dma/dma.mk
	@mkdir -p $(VDIR)
	cd $(ROOT) && MAKEFLAGS="CFG_CXXFLAGS_PCH_I=-include OPT_FAST=$(COPT) OPT_SLOW=-O1 OPT_GLOBAL=-O2" \
	  $(VERILATOR) $(VFLAGS) $(RTL_SRCS)

$(BIN): $(VLIB) $(ROOT)/sim/dma/main_dma.cpp $(ROOT)/sim/pcie_host.hpp $(ROOT)/sim/usp_if.hpp \
        $(ROOT)/sim/rng.hpp
	$(CXX) $(CXXFLAGS) -o $@ $(ROOT)/sim/dma/main_dma.cpp $(VLIB) $(VDIR)/libverilated.a -lpthread -latomic

clean:
	rm -rf $(OUT)
