# SPDX-License-Identifier: MIT
"""One place that connects cocotbext-pcie's UltraScale+ hard-IP model to a DUT whose ports carry
the model's names (s_axis_cq_*, m_axis_cc_*, m_axis_rq_*, s_axis_rc_*, cfg_*): the shim's own test
and the full-system harness both build their device model here."""
from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.xilinx.us import UltraScalePlusPcieDevice

# configuration-status pins a DUT may or may not have (the subsystem top has the link status ones)
_OPTIONAL_CFG = ("cfg_negotiated_width", "cfg_current_speed")
_CFG = ("cfg_mgmt_addr", "cfg_mgmt_function_number", "cfg_mgmt_write", "cfg_mgmt_write_data",
        "cfg_mgmt_byte_enable", "cfg_mgmt_read", "cfg_mgmt_read_data", "cfg_mgmt_read_write_done",
        "cfg_mgmt_debug_access", "cfg_max_payload", "cfg_max_read_req", "cfg_function_status",
        "cfg_rcb_status", "cfg_interrupt_msix_enable", "cfg_interrupt_msix_mask")


def usp_device(dut, *, rq_straddle, rc_straddle, msix_table_size, msix_table_offset, msix_pba_offset,
               max_payload=1024, gen=3, user_clk_hz=250e6):
    """UltraScale+ device model on `dut`: Gen `gen`, x16 at 512 bits or x8 at 256 bits, dword-aligned
    streams, client tags, extended tags, MSI-X table in BAR0."""
    width = len(dut.s_axis_cq_tdata)
    pins = {name: getattr(dut, name) for name in _CFG}
    pins.update({name: getattr(dut, name) for name in _OPTIONAL_CFG if hasattr(dut, name)})
    return UltraScalePlusPcieDevice(
        pcie_generation=gen,
        pcie_link_width=16 if width == 512 else 8,
        user_clk_frequency=user_clk_hz,
        alignment="dword",
        cq_straddle=False, cc_straddle=False, rq_straddle=rq_straddle,
        rc_straddle=rc_straddle, rc_4tlp_straddle=False,
        pf_count=1,
        max_payload_size=max_payload,
        enable_client_tag=True,
        enable_extended_tag=True,
        enable_parity=False,
        pf0_msix_enable=True,
        pf0_msix_table_size=msix_table_size,
        pf0_msix_table_bir=0,
        pf0_msix_table_offset=msix_table_offset,
        pf0_msix_pba_bir=0,
        pf0_msix_pba_offset=msix_pba_offset,
        user_clk=dut.clk,
        user_reset=dut.rst,
        rq_bus=AxiStreamBus.from_prefix(dut, "m_axis_rq"),
        rc_bus=AxiStreamBus.from_prefix(dut, "s_axis_rc"),
        cq_bus=AxiStreamBus.from_prefix(dut, "s_axis_cq"),
        pcie_cq_np_req=dut.pcie_cq_np_req,
        cc_bus=AxiStreamBus.from_prefix(dut, "m_axis_cc"),
        **pins,
    )
