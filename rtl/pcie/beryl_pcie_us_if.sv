// SPDX-License-Identifier: MIT
// UltraScale+ PCIe hard IP (PG213, dword-aligned) <-> Beryl vendor-neutral TLP streams:
// CQ -> rx_req, tx_cpl -> CC, tx_req -> RQ, RC -> rx_cpl, plus config status. Each direction
// moves one beat per cycle (CC/RQ add one beat when a TLP's payload spills into an extra beat).
// At 512 bits RQ and RC straddle (PG213: a second TLP may start at dword 8) are supported and
// must match the core's setting (RQ_STRADDLE, RC_STRADDLE); CQ/CC straddle and RC 4-TLP straddle
// must stay disabled in the core.
`default_nettype none

module beryl_pcie_us_if #(
  parameter int TLP_DATA_W      = 512,                          // 512 (Gen3 x16) or 256 (Gen3 x8)
  parameter int AXIS_CQ_USER_W  = (TLP_DATA_W == 512) ? 183 : 88,  // PG213 tuser widths
  parameter int AXIS_CC_USER_W  = (TLP_DATA_W == 512) ? 81  : 33,
  parameter int AXIS_RQ_USER_W  = (TLP_DATA_W == 512) ? 137 : 62,
  parameter int AXIS_RC_USER_W  = (TLP_DATA_W == 512) ? 161 : 75,
  parameter int CFG_POLL_CYCLES = 256,                           // Device Control poll period, 1 .. 65535
  // Core's "RQ straddle" and "RC straddle" (2 TLPs per beat) options; 512-bit only, 0 or 1
  parameter bit RQ_STRADDLE     = (TLP_DATA_W == 512),
  parameter bit RC_STRADDLE     = (TLP_DATA_W == 512)
) (
  input  wire logic                      clk,  // the core's user_clk
  input  wire logic                      rst,  // the core's user_reset

  // Completer request (host -> our BARs)
  input  wire logic [TLP_DATA_W-1:0]     s_axis_cq_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_cq_tkeep,
  input  wire logic                      s_axis_cq_tlast,
  input  wire logic [AXIS_CQ_USER_W-1:0] s_axis_cq_tuser,
  input  wire logic                      s_axis_cq_tvalid,
  output      logic                      s_axis_cq_tready,
  output      logic [1:0]                pcie_cq_np_req,

  // Completer completion
  output      logic [TLP_DATA_W-1:0]     m_axis_cc_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_cc_tkeep,
  output      logic                      m_axis_cc_tlast,
  output      logic [AXIS_CC_USER_W-1:0] m_axis_cc_tuser,
  output      logic                      m_axis_cc_tvalid,
  input  wire logic                      m_axis_cc_tready,

  // Requester request (our DMA / MSI-X -> host)
  output      logic [TLP_DATA_W-1:0]     m_axis_rq_tdata,
  output      logic [TLP_DATA_W/32-1:0]  m_axis_rq_tkeep,
  output      logic                      m_axis_rq_tlast,
  output      logic [AXIS_RQ_USER_W-1:0] m_axis_rq_tuser,
  output      logic                      m_axis_rq_tvalid,
  input  wire logic                      m_axis_rq_tready,

  // Requester completion
  input  wire logic [TLP_DATA_W-1:0]     s_axis_rc_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_rc_tkeep,
  input  wire logic                      s_axis_rc_tlast,
  input  wire logic [AXIS_RC_USER_W-1:0] s_axis_rc_tuser,
  input  wire logic                      s_axis_rc_tvalid,
  output      logic                      s_axis_rc_tready,

  // Configuration status and management
  input  wire logic [1:0]                cfg_max_payload,
  input  wire logic [2:0]                cfg_max_read_req,
  input  wire logic [15:0]               cfg_function_status,
  input  wire logic [3:0]                cfg_rcb_status,
  input  wire logic [3:0]                cfg_interrupt_msix_enable,
  input  wire logic [3:0]                cfg_interrupt_msix_mask,
  output      logic [9:0]                cfg_mgmt_addr,
  output      logic [7:0]                cfg_mgmt_function_number,
  output      logic                      cfg_mgmt_write,
  output      logic [31:0]               cfg_mgmt_write_data,
  output      logic [3:0]                cfg_mgmt_byte_enable,
  output      logic                      cfg_mgmt_read,
  input  wire logic [31:0]               cfg_mgmt_read_data,
  input  wire logic                      cfg_mgmt_read_write_done,
  output      logic                      cfg_mgmt_debug_access,

  // Neutral TLP streams (docs/blocks/pcie_interfaces.md)
  output      logic [127:0]              rx_req_tlp_hdr,
  output      logic [TLP_DATA_W-1:0]     rx_req_tlp_data,
  output      logic [TLP_DATA_W/32-1:0]  rx_req_tlp_strb,
  output      logic [2:0]                rx_req_tlp_bar_id,
  output      logic                      rx_req_tlp_sop,
  output      logic                      rx_req_tlp_eop,
  output      logic                      rx_req_tlp_bad,
  output      logic                      rx_req_tlp_valid,
  input  wire logic                      rx_req_tlp_ready,

  input  wire logic [127:0]              tx_cpl_tlp_hdr,
  input  wire logic [TLP_DATA_W-1:0]     tx_cpl_tlp_data,
  input  wire logic [TLP_DATA_W/32-1:0]  tx_cpl_tlp_strb,
  input  wire logic                      tx_cpl_tlp_sop,
  input  wire logic                      tx_cpl_tlp_eop,
  input  wire logic                      tx_cpl_tlp_valid,
  output      logic                      tx_cpl_tlp_ready,

  input  wire logic [127:0]              tx_req_tlp_hdr,
  input  wire logic [TLP_DATA_W-1:0]     tx_req_tlp_data,
  input  wire logic [TLP_DATA_W/32-1:0]  tx_req_tlp_strb,
  input  wire logic                      tx_req_tlp_sop,
  input  wire logic                      tx_req_tlp_eop,
  input  wire logic                      tx_req_tlp_valid,
  output      logic                      tx_req_tlp_ready,

  output      logic [127:0]              rx_cpl_tlp_hdr,
  output      logic [TLP_DATA_W-1:0]     rx_cpl_tlp_data,
  output      logic [TLP_DATA_W/32-1:0]  rx_cpl_tlp_strb,
  output      logic                      rx_cpl_tlp_sop,
  output      logic                      rx_cpl_tlp_eop,
  output      logic                      rx_cpl_tlp_valid,
  input  wire logic                      rx_cpl_tlp_ready,
  output      logic [3:0]                rx_cpl_tlp_err_code,
  output      logic                      rx_cpl_tlp_req_done,
  output      logic                      rx_cpl_tlp_bad,

  // Config inputs shared by the engines
  output      logic [2:0]                max_payload_size,
  output      logic [2:0]                max_read_req_size,
  output      logic                      rcb_128,
  output      logic                      ext_tag_en,
  output      logic                      bus_master_en,
  output      logic                      msix_enable,
  output      logic                      msix_mask
);

  // rx_req has its own backpressure, so grant the core one non-posted credit every cycle
  // (PG213: pcie_cq_np_req[0] adds a credit); posted requests are never held behind them.
  assign pcie_cq_np_req = 2'b01;

  beryl_pcie_us_cq #(
    .TLP_DATA_W    (TLP_DATA_W),
    .AXIS_CQ_USER_W(AXIS_CQ_USER_W)
  ) u_cq (
    .clk              (clk),
    .rst              (rst),
    .s_axis_cq_tdata  (s_axis_cq_tdata),
    .s_axis_cq_tkeep  (s_axis_cq_tkeep),
    .s_axis_cq_tlast  (s_axis_cq_tlast),
    .s_axis_cq_tuser  (s_axis_cq_tuser),
    .s_axis_cq_tvalid (s_axis_cq_tvalid),
    .s_axis_cq_tready (s_axis_cq_tready),
    .rx_req_tlp_hdr   (rx_req_tlp_hdr),
    .rx_req_tlp_data  (rx_req_tlp_data),
    .rx_req_tlp_strb  (rx_req_tlp_strb),
    .rx_req_tlp_bar_id(rx_req_tlp_bar_id),
    .rx_req_tlp_sop   (rx_req_tlp_sop),
    .rx_req_tlp_eop   (rx_req_tlp_eop),
    .rx_req_tlp_bad   (rx_req_tlp_bad),
    .rx_req_tlp_valid (rx_req_tlp_valid),
    .rx_req_tlp_ready (rx_req_tlp_ready)
  );

  beryl_pcie_us_cc #(
    .TLP_DATA_W    (TLP_DATA_W),
    .AXIS_CC_USER_W(AXIS_CC_USER_W)
  ) u_cc (
    .clk             (clk),
    .rst             (rst),
    .tx_cpl_tlp_hdr  (tx_cpl_tlp_hdr),
    .tx_cpl_tlp_data (tx_cpl_tlp_data),
    .tx_cpl_tlp_strb (tx_cpl_tlp_strb),
    .tx_cpl_tlp_sop  (tx_cpl_tlp_sop),
    .tx_cpl_tlp_eop  (tx_cpl_tlp_eop),
    .tx_cpl_tlp_valid(tx_cpl_tlp_valid),
    .tx_cpl_tlp_ready(tx_cpl_tlp_ready),
    .m_axis_cc_tdata (m_axis_cc_tdata),
    .m_axis_cc_tkeep (m_axis_cc_tkeep),
    .m_axis_cc_tlast (m_axis_cc_tlast),
    .m_axis_cc_tuser (m_axis_cc_tuser),
    .m_axis_cc_tvalid(m_axis_cc_tvalid),
    .m_axis_cc_tready(m_axis_cc_tready)
  );

  beryl_pcie_us_rq #(
    .TLP_DATA_W    (TLP_DATA_W),
    .AXIS_RQ_USER_W(AXIS_RQ_USER_W),
    .RQ_STRADDLE   (RQ_STRADDLE)
  ) u_rq (
    .clk             (clk),
    .rst             (rst),
    .tx_req_tlp_hdr  (tx_req_tlp_hdr),
    .tx_req_tlp_data (tx_req_tlp_data),
    .tx_req_tlp_strb (tx_req_tlp_strb),
    .tx_req_tlp_sop  (tx_req_tlp_sop),
    .tx_req_tlp_eop  (tx_req_tlp_eop),
    .tx_req_tlp_valid(tx_req_tlp_valid),
    .tx_req_tlp_ready(tx_req_tlp_ready),
    .m_axis_rq_tdata (m_axis_rq_tdata),
    .m_axis_rq_tkeep (m_axis_rq_tkeep),
    .m_axis_rq_tlast (m_axis_rq_tlast),
    .m_axis_rq_tuser (m_axis_rq_tuser),
    .m_axis_rq_tvalid(m_axis_rq_tvalid),
    .m_axis_rq_tready(m_axis_rq_tready)
  );

  beryl_pcie_us_rc #(
    .TLP_DATA_W    (TLP_DATA_W),
    .AXIS_RC_USER_W(AXIS_RC_USER_W),
    .RC_STRADDLE   (RC_STRADDLE)
  ) u_rc (
    .clk                (clk),
    .rst                (rst),
    .s_axis_rc_tdata    (s_axis_rc_tdata),
    .s_axis_rc_tkeep    (s_axis_rc_tkeep),
    .s_axis_rc_tlast    (s_axis_rc_tlast),
    .s_axis_rc_tuser    (s_axis_rc_tuser),
    .s_axis_rc_tvalid   (s_axis_rc_tvalid),
    .s_axis_rc_tready   (s_axis_rc_tready),
    .rx_cpl_tlp_hdr     (rx_cpl_tlp_hdr),
    .rx_cpl_tlp_data    (rx_cpl_tlp_data),
    .rx_cpl_tlp_strb    (rx_cpl_tlp_strb),
    .rx_cpl_tlp_sop     (rx_cpl_tlp_sop),
    .rx_cpl_tlp_eop     (rx_cpl_tlp_eop),
    .rx_cpl_tlp_valid   (rx_cpl_tlp_valid),
    .rx_cpl_tlp_ready   (rx_cpl_tlp_ready),
    .rx_cpl_tlp_err_code(rx_cpl_tlp_err_code),
    .rx_cpl_tlp_req_done(rx_cpl_tlp_req_done),
    .rx_cpl_tlp_bad     (rx_cpl_tlp_bad)
  );

  beryl_pcie_us_cfg #(
    .CFG_POLL_CYCLES(CFG_POLL_CYCLES)
  ) u_cfg (
    .clk                      (clk),
    .rst                      (rst),
    .cfg_max_payload          (cfg_max_payload),
    .cfg_max_read_req         (cfg_max_read_req),
    .cfg_function_status      (cfg_function_status),
    .cfg_rcb_status           (cfg_rcb_status),
    .cfg_interrupt_msix_enable(cfg_interrupt_msix_enable),
    .cfg_interrupt_msix_mask  (cfg_interrupt_msix_mask),
    .cfg_mgmt_addr            (cfg_mgmt_addr),
    .cfg_mgmt_function_number (cfg_mgmt_function_number),
    .cfg_mgmt_write           (cfg_mgmt_write),
    .cfg_mgmt_write_data      (cfg_mgmt_write_data),
    .cfg_mgmt_byte_enable     (cfg_mgmt_byte_enable),
    .cfg_mgmt_read            (cfg_mgmt_read),
    .cfg_mgmt_read_data       (cfg_mgmt_read_data),
    .cfg_mgmt_read_write_done (cfg_mgmt_read_write_done),
    .cfg_mgmt_debug_access    (cfg_mgmt_debug_access),
    .max_payload_size         (max_payload_size),
    .max_read_req_size        (max_read_req_size),
    .rcb_128                  (rcb_128),
    .ext_tag_en               (ext_tag_en),
    .bus_master_en            (bus_master_en),
    .msix_enable              (msix_enable),
    .msix_mask                (msix_mask)
  );

endmodule

`resetall
