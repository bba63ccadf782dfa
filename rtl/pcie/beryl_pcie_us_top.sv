// SPDX-License-Identifier: MIT
// PCIe subsystem for the Xilinx UltraScale+ hard IP: the vendor shim (beryl_pcie_us_if) in front
// of the portable host interface (BAR0 registers, DMA engines, MSI-X). Gen3 x16 at 512 bits or
// Gen3 x8 at 256 bits, 250 MHz; the synthesis smoke check and the system tests use this top.
`default_nettype none

module beryl_pcie_us_top #(
  parameter int TLP_DATA_W     = 512,            // 512 (Gen3 x16) or 256 (Gen3 x8)
  parameter int TLP_STRB_W     = TLP_DATA_W / 32,
  parameter int AXIS_CQ_USER_W = (TLP_DATA_W == 512) ? 183 : 88,  // PG213 tuser widths
  parameter int AXIS_CC_USER_W = (TLP_DATA_W == 512) ? 81  : 33,
  parameter int AXIS_RQ_USER_W = (TLP_DATA_W == 512) ? 137 : 62,
  parameter int AXIS_RC_USER_W = (TLP_DATA_W == 512) ? 161 : 75,
  parameter int RAM_ADDR_W     = 20,             // DMA RAM byte address width
  parameter int LEN_W          = 17,             // DMA length width: up to 2^(LEN_W-1) bytes
  parameter int TAG_W          = 8,              // DMA client tag width
  parameter int PCIE_TAG_COUNT = 256,            // outstanding DMA reads, 32..256 (above 32 needs Extended Tag)
  parameter int RD_OP_COUNT    = 64,             // read descriptors in flight, power of two
  parameter int CPL_BUF_BYTES  = 32768,          // completion buffer of the hard IP, bytes
  parameter int TIMEOUT_CYCLES = 2500000,        // DMA read completion timeout, cycles (10 ms)
  parameter int MSIX_VECTORS   = 32,             // MSI-X vectors, 1..256
  // The core's RQ / RC straddle options (2 TLPs per beat, PG213), 512-bit only: must match the IP
  parameter bit RQ_STRADDLE    = (TLP_DATA_W == 512),
  parameter bit RC_STRADDLE    = (TLP_DATA_W == 512),
  parameter logic [15:0] VENDOR_ID = 16'h1234,   // placeholder ids: the build passes real ones
  parameter logic [15:0] DEVICE_ID = 16'hbe01,
  parameter logic [31:0] GIT_HASH   = 32'h0,     // first 8 hex digits of the commit
  parameter logic [31:0] BUILD_DATE = 32'h0,     // BCD YYYYMMDD
  parameter logic [31:0] BUILD_TIME = 32'h0,     // BCD 00HHMMSS
  parameter int APP_ADDR_W     = beryl_regs_pkg::APP_ADDR_W,   // fixed by the register map
  parameter bit APP_CHAIN      = 1'b0,           // 1: blocks at APP offset 0 (NIC build): MSI-X NEXT points there
  parameter int SEG_COUNT      = 2,
  parameter int SEG_DATA_W     = TLP_DATA_W,
  parameter int SEG_BE_W       = SEG_DATA_W / 8,
  parameter int SEG_ADDR_W     = RAM_ADDR_W - $clog2(SEG_COUNT * SEG_BE_W)
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
  input  wire logic [2:0]                cfg_negotiated_width,
  input  wire logic [1:0]                cfg_current_speed,

  // application register window (AXI-Lite master, offsets within the window)
  output logic [APP_ADDR_W-1:0]            m_axil_app_awaddr,
  output logic [2:0]                       m_axil_app_awprot,
  output logic                             m_axil_app_awvalid,
  input  wire logic                        m_axil_app_awready,
  output logic [31:0]                      m_axil_app_wdata,
  output logic [3:0]                       m_axil_app_wstrb,
  output logic                             m_axil_app_wvalid,
  input  wire logic                        m_axil_app_wready,
  input  wire logic [1:0]                  m_axil_app_bresp,
  input  wire logic                        m_axil_app_bvalid,
  output logic                             m_axil_app_bready,
  output logic [APP_ADDR_W-1:0]            m_axil_app_araddr,
  output logic [2:0]                       m_axil_app_arprot,
  output logic                             m_axil_app_arvalid,
  input  wire logic                        m_axil_app_arready,
  input  wire logic [31:0]                 m_axil_app_rdata,
  input  wire logic [1:0]                  m_axil_app_rresp,
  input  wire logic                        m_axil_app_rvalid,
  output logic                             m_axil_app_rready,

  // DMA read channel (host to device)
  input  wire logic [63:0]                 rd_desc_host_addr,
  input  wire logic [RAM_ADDR_W-1:0]       rd_desc_ram_addr,
  input  wire logic [LEN_W-1:0]            rd_desc_len,
  input  wire logic [TAG_W-1:0]            rd_desc_tag,
  input  wire logic                        rd_desc_valid,
  output logic                             rd_desc_ready,
  output logic [TAG_W-1:0]                 rd_desc_status_tag,
  output logic [3:0]                       rd_desc_status_error,
  output logic                             rd_desc_status_valid,

  // DMA write channel (device to host)
  input  wire logic [63:0]                 wr_desc_host_addr,
  input  wire logic [RAM_ADDR_W-1:0]       wr_desc_ram_addr,
  input  wire logic [LEN_W-1:0]            wr_desc_len,
  input  wire logic [TAG_W-1:0]            wr_desc_tag,
  input  wire logic                        wr_desc_valid,
  output logic                             wr_desc_ready,
  output logic [TAG_W-1:0]                 wr_desc_status_tag,
  output logic [3:0]                       wr_desc_status_error,
  output logic                             wr_desc_status_valid,

  // segmented RAM: the read engine writes it, the write engine reads it
  output logic [SEG_COUNT*SEG_ADDR_W-1:0]  ram_wr_cmd_addr,
  output logic [SEG_COUNT*SEG_BE_W-1:0]    ram_wr_cmd_be,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]  ram_wr_cmd_data,
  output logic [SEG_COUNT-1:0]             ram_wr_cmd_valid,
  input  wire logic [SEG_COUNT-1:0]        ram_wr_cmd_ready,
  output logic [SEG_COUNT*SEG_ADDR_W-1:0]  ram_rd_cmd_addr,
  output logic [SEG_COUNT-1:0]             ram_rd_cmd_valid,
  input  wire logic [SEG_COUNT-1:0]        ram_rd_cmd_ready,
  input  wire logic [SEG_COUNT*SEG_DATA_W-1:0] ram_rd_resp_data,
  input  wire logic [SEG_COUNT-1:0]        ram_rd_resp_valid,
  output logic [SEG_COUNT-1:0]             ram_rd_resp_ready,

  // interrupt requests from clients
  input  wire logic [7:0]                  irq_index,
  input  wire logic                        irq_valid,
  output logic                             irq_ready
);

  logic [TLP_DATA_W-1:0] rx_req_tlp_data, tx_cpl_tlp_data, tx_req_tlp_data, rx_cpl_tlp_data;
  logic [TLP_STRB_W-1:0] rx_req_tlp_strb, tx_cpl_tlp_strb, tx_req_tlp_strb, rx_cpl_tlp_strb;
  logic [127:0]          rx_req_tlp_hdr, tx_cpl_tlp_hdr, tx_req_tlp_hdr, rx_cpl_tlp_hdr;
  logic [2:0]            rx_req_tlp_bar_id;
  logic rx_req_tlp_sop, rx_req_tlp_eop, rx_req_tlp_bad, rx_req_tlp_valid, rx_req_tlp_ready;
  logic tx_cpl_tlp_sop, tx_cpl_tlp_eop, tx_cpl_tlp_valid, tx_cpl_tlp_ready;
  logic tx_req_tlp_sop, tx_req_tlp_eop, tx_req_tlp_valid, tx_req_tlp_ready;
  logic rx_cpl_tlp_sop, rx_cpl_tlp_eop, rx_cpl_tlp_bad, rx_cpl_tlp_valid, rx_cpl_tlp_ready;
  logic [2:0] max_payload_size, max_read_req_size;
  logic rcb_128, ext_tag_en, bus_master_en, msix_enable, msix_mask;

  // PG213 encodings: speed 0 = 2.5 GT/s .. 3 = 16 GT/s; width log2(lanes)
  logic [3:0] link_speed;
  logic [5:0] link_width;
  assign link_speed = 4'(cfg_current_speed) + 4'd1;
  assign link_width = 6'd1 << cfg_negotiated_width;

  // the RC error code and request-done flag are not needed: the header carries the status
  /* verilator lint_off PINCONNECTEMPTY */
  beryl_pcie_us_if #(
    .TLP_DATA_W     (TLP_DATA_W),
    .AXIS_CQ_USER_W (AXIS_CQ_USER_W),
    .AXIS_CC_USER_W (AXIS_CC_USER_W),
    .AXIS_RQ_USER_W (AXIS_RQ_USER_W),
    .AXIS_RC_USER_W (AXIS_RC_USER_W),
    .RQ_STRADDLE    (RQ_STRADDLE),
    .RC_STRADDLE    (RC_STRADDLE)
  ) u_us_if (
    .clk                       (clk),
    .rst                       (rst),
    .s_axis_cq_tdata           (s_axis_cq_tdata),
    .s_axis_cq_tkeep           (s_axis_cq_tkeep),
    .s_axis_cq_tlast           (s_axis_cq_tlast),
    .s_axis_cq_tuser           (s_axis_cq_tuser),
    .s_axis_cq_tvalid          (s_axis_cq_tvalid),
    .s_axis_cq_tready          (s_axis_cq_tready),
    .pcie_cq_np_req            (pcie_cq_np_req),
    .m_axis_cc_tdata           (m_axis_cc_tdata),
    .m_axis_cc_tkeep           (m_axis_cc_tkeep),
    .m_axis_cc_tlast           (m_axis_cc_tlast),
    .m_axis_cc_tuser           (m_axis_cc_tuser),
    .m_axis_cc_tvalid          (m_axis_cc_tvalid),
    .m_axis_cc_tready          (m_axis_cc_tready),
    .m_axis_rq_tdata           (m_axis_rq_tdata),
    .m_axis_rq_tkeep           (m_axis_rq_tkeep),
    .m_axis_rq_tlast           (m_axis_rq_tlast),
    .m_axis_rq_tuser           (m_axis_rq_tuser),
    .m_axis_rq_tvalid          (m_axis_rq_tvalid),
    .m_axis_rq_tready          (m_axis_rq_tready),
    .s_axis_rc_tdata           (s_axis_rc_tdata),
    .s_axis_rc_tkeep           (s_axis_rc_tkeep),
    .s_axis_rc_tlast           (s_axis_rc_tlast),
    .s_axis_rc_tuser           (s_axis_rc_tuser),
    .s_axis_rc_tvalid          (s_axis_rc_tvalid),
    .s_axis_rc_tready          (s_axis_rc_tready),
    .cfg_max_payload           (cfg_max_payload),
    .cfg_max_read_req          (cfg_max_read_req),
    .cfg_function_status       (cfg_function_status),
    .cfg_rcb_status            (cfg_rcb_status),
    .cfg_interrupt_msix_enable (cfg_interrupt_msix_enable),
    .cfg_interrupt_msix_mask   (cfg_interrupt_msix_mask),
    .cfg_mgmt_addr             (cfg_mgmt_addr),
    .cfg_mgmt_function_number  (cfg_mgmt_function_number),
    .cfg_mgmt_write            (cfg_mgmt_write),
    .cfg_mgmt_write_data       (cfg_mgmt_write_data),
    .cfg_mgmt_byte_enable      (cfg_mgmt_byte_enable),
    .cfg_mgmt_read             (cfg_mgmt_read),
    .cfg_mgmt_read_data        (cfg_mgmt_read_data),
    .cfg_mgmt_read_write_done  (cfg_mgmt_read_write_done),
    .cfg_mgmt_debug_access     (cfg_mgmt_debug_access),
    .rx_req_tlp_hdr            (rx_req_tlp_hdr),
    .rx_req_tlp_data           (rx_req_tlp_data),
    .rx_req_tlp_strb           (rx_req_tlp_strb),
    .rx_req_tlp_bar_id         (rx_req_tlp_bar_id),
    .rx_req_tlp_sop            (rx_req_tlp_sop),
    .rx_req_tlp_eop            (rx_req_tlp_eop),
    .rx_req_tlp_bad            (rx_req_tlp_bad),
    .rx_req_tlp_valid          (rx_req_tlp_valid),
    .rx_req_tlp_ready          (rx_req_tlp_ready),
    .tx_cpl_tlp_hdr            (tx_cpl_tlp_hdr),
    .tx_cpl_tlp_data           (tx_cpl_tlp_data),
    .tx_cpl_tlp_strb           (tx_cpl_tlp_strb),
    .tx_cpl_tlp_sop            (tx_cpl_tlp_sop),
    .tx_cpl_tlp_eop            (tx_cpl_tlp_eop),
    .tx_cpl_tlp_valid          (tx_cpl_tlp_valid),
    .tx_cpl_tlp_ready          (tx_cpl_tlp_ready),
    .tx_req_tlp_hdr            (tx_req_tlp_hdr),
    .tx_req_tlp_data           (tx_req_tlp_data),
    .tx_req_tlp_strb           (tx_req_tlp_strb),
    .tx_req_tlp_sop            (tx_req_tlp_sop),
    .tx_req_tlp_eop            (tx_req_tlp_eop),
    .tx_req_tlp_valid          (tx_req_tlp_valid),
    .tx_req_tlp_ready          (tx_req_tlp_ready),
    .rx_cpl_tlp_hdr            (rx_cpl_tlp_hdr),
    .rx_cpl_tlp_data           (rx_cpl_tlp_data),
    .rx_cpl_tlp_strb           (rx_cpl_tlp_strb),
    .rx_cpl_tlp_sop            (rx_cpl_tlp_sop),
    .rx_cpl_tlp_eop            (rx_cpl_tlp_eop),
    .rx_cpl_tlp_bad            (rx_cpl_tlp_bad),
    .rx_cpl_tlp_valid          (rx_cpl_tlp_valid),
    .rx_cpl_tlp_ready          (rx_cpl_tlp_ready),
    .rx_cpl_tlp_err_code       (),
    .rx_cpl_tlp_req_done       (),
    .max_payload_size          (max_payload_size),
    .max_read_req_size         (max_read_req_size),
    .rcb_128                   (rcb_128),
    .ext_tag_en                (ext_tag_en),
    .bus_master_en             (bus_master_en),
    .msix_enable               (msix_enable),
    .msix_mask                 (msix_mask)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  beryl_pcie_host_if #(
    .TLP_DATA_W     (TLP_DATA_W),
    .RAM_ADDR_W     (RAM_ADDR_W),
    .LEN_W          (LEN_W),
    .TAG_W          (TAG_W),
    .PCIE_TAG_COUNT (PCIE_TAG_COUNT),
    .RD_OP_COUNT    (RD_OP_COUNT),
    .CPL_BUF_BYTES  (CPL_BUF_BYTES),
    .TIMEOUT_CYCLES (TIMEOUT_CYCLES),
    .MSIX_VECTORS   (MSIX_VECTORS),
    .VENDOR_ID      (VENDOR_ID),
    .DEVICE_ID      (DEVICE_ID),
    .GIT_HASH       (GIT_HASH),
    .BUILD_DATE     (BUILD_DATE),
    .BUILD_TIME     (BUILD_TIME),
    .APP_CHAIN      (APP_CHAIN)
  ) u_host_if (
    .clk                       (clk),
    .rst                       (rst),
    .rx_req_tlp_data           (rx_req_tlp_data),
    .rx_req_tlp_strb           (rx_req_tlp_strb),
    .rx_req_tlp_hdr            (rx_req_tlp_hdr),
    .rx_req_tlp_bar_id         (rx_req_tlp_bar_id),
    .rx_req_tlp_sop            (rx_req_tlp_sop),
    .rx_req_tlp_eop            (rx_req_tlp_eop),
    .rx_req_tlp_bad            (rx_req_tlp_bad),
    .rx_req_tlp_valid          (rx_req_tlp_valid),
    .rx_req_tlp_ready          (rx_req_tlp_ready),
    .tx_cpl_tlp_data           (tx_cpl_tlp_data),
    .tx_cpl_tlp_strb           (tx_cpl_tlp_strb),
    .tx_cpl_tlp_hdr            (tx_cpl_tlp_hdr),
    .tx_cpl_tlp_sop            (tx_cpl_tlp_sop),
    .tx_cpl_tlp_eop            (tx_cpl_tlp_eop),
    .tx_cpl_tlp_valid          (tx_cpl_tlp_valid),
    .tx_cpl_tlp_ready          (tx_cpl_tlp_ready),
    .tx_req_tlp_data           (tx_req_tlp_data),
    .tx_req_tlp_strb           (tx_req_tlp_strb),
    .tx_req_tlp_hdr            (tx_req_tlp_hdr),
    .tx_req_tlp_sop            (tx_req_tlp_sop),
    .tx_req_tlp_eop            (tx_req_tlp_eop),
    .tx_req_tlp_valid          (tx_req_tlp_valid),
    .tx_req_tlp_ready          (tx_req_tlp_ready),
    .rx_cpl_tlp_data           (rx_cpl_tlp_data),
    .rx_cpl_tlp_strb           (rx_cpl_tlp_strb),
    .rx_cpl_tlp_hdr            (rx_cpl_tlp_hdr),
    .rx_cpl_tlp_sop            (rx_cpl_tlp_sop),
    .rx_cpl_tlp_eop            (rx_cpl_tlp_eop),
    .rx_cpl_tlp_bad            (rx_cpl_tlp_bad),
    .rx_cpl_tlp_valid          (rx_cpl_tlp_valid),
    .rx_cpl_tlp_ready          (rx_cpl_tlp_ready),
    .max_payload_size          (max_payload_size),
    .max_read_req_size         (max_read_req_size),
    .rcb_128                   (rcb_128),
    .ext_tag_en                (ext_tag_en),
    .bus_master_en             (bus_master_en),
    .msix_enable               (msix_enable),
    .msix_mask                 (msix_mask),
    .link_speed                (link_speed),
    .link_width                (link_width),
    .m_axil_app_awaddr         (m_axil_app_awaddr),
    .m_axil_app_awprot         (m_axil_app_awprot),
    .m_axil_app_awvalid        (m_axil_app_awvalid),
    .m_axil_app_awready        (m_axil_app_awready),
    .m_axil_app_wdata          (m_axil_app_wdata),
    .m_axil_app_wstrb          (m_axil_app_wstrb),
    .m_axil_app_wvalid         (m_axil_app_wvalid),
    .m_axil_app_wready         (m_axil_app_wready),
    .m_axil_app_bresp          (m_axil_app_bresp),
    .m_axil_app_bvalid         (m_axil_app_bvalid),
    .m_axil_app_bready         (m_axil_app_bready),
    .m_axil_app_araddr         (m_axil_app_araddr),
    .m_axil_app_arprot         (m_axil_app_arprot),
    .m_axil_app_arvalid        (m_axil_app_arvalid),
    .m_axil_app_arready        (m_axil_app_arready),
    .m_axil_app_rdata          (m_axil_app_rdata),
    .m_axil_app_rresp          (m_axil_app_rresp),
    .m_axil_app_rvalid         (m_axil_app_rvalid),
    .m_axil_app_rready         (m_axil_app_rready),
    .rd_desc_host_addr         (rd_desc_host_addr),
    .rd_desc_ram_addr          (rd_desc_ram_addr),
    .rd_desc_len               (rd_desc_len),
    .rd_desc_tag               (rd_desc_tag),
    .rd_desc_valid             (rd_desc_valid),
    .rd_desc_ready             (rd_desc_ready),
    .rd_desc_status_tag        (rd_desc_status_tag),
    .rd_desc_status_error      (rd_desc_status_error),
    .rd_desc_status_valid      (rd_desc_status_valid),
    .wr_desc_host_addr         (wr_desc_host_addr),
    .wr_desc_ram_addr          (wr_desc_ram_addr),
    .wr_desc_len               (wr_desc_len),
    .wr_desc_tag               (wr_desc_tag),
    .wr_desc_valid             (wr_desc_valid),
    .wr_desc_ready             (wr_desc_ready),
    .wr_desc_status_tag        (wr_desc_status_tag),
    .wr_desc_status_error      (wr_desc_status_error),
    .wr_desc_status_valid      (wr_desc_status_valid),
    .ram_wr_cmd_addr           (ram_wr_cmd_addr),
    .ram_wr_cmd_be             (ram_wr_cmd_be),
    .ram_wr_cmd_data           (ram_wr_cmd_data),
    .ram_wr_cmd_valid          (ram_wr_cmd_valid),
    .ram_wr_cmd_ready          (ram_wr_cmd_ready),
    .ram_rd_cmd_addr           (ram_rd_cmd_addr),
    .ram_rd_cmd_valid          (ram_rd_cmd_valid),
    .ram_rd_cmd_ready          (ram_rd_cmd_ready),
    .ram_rd_resp_data          (ram_rd_resp_data),
    .ram_rd_resp_valid         (ram_rd_resp_valid),
    .ram_rd_resp_ready         (ram_rd_resp_ready),
    .irq_index                 (irq_index),
    .irq_valid                 (irq_valid),
    .irq_ready                 (irq_ready)
  );

endmodule

`resetall
