// SPDX-License-Identifier: MIT
// Beryl NIC on the Xilinx UltraScale+ PCIe hard IP: the PCIe subsystem (shim, BAR0 registers, DMA
// engines, MSI-X) and IF_COUNT NIC interfaces (beryl_nic_if), each with PORT_COUNT AXI-Stream port
// pairs towards the MACs (and, with TX_TS_SRC / RX_TS_SRC 1, the MACs' timestamps). Gen3 x16, 512-bit TLP
// stream at 250 MHz.
`default_nettype none

module beryl_nic_us_top #(
  parameter int TLP_DATA_W     = 512,            // 512 only (Gen3 x16)
  parameter int AXIS_CQ_USER_W = 183,            // PG213 tuser widths at 512 bits
  parameter int AXIS_CC_USER_W = 81,
  parameter int AXIS_RQ_USER_W = 137,
  parameter int AXIS_RC_USER_W = 161,
  parameter bit RQ_STRADDLE    = 1'b1,           // the core's straddle options: must match the IP
  parameter bit RC_STRADDLE    = 1'b1,
  parameter int IF_COUNT       = 1,              // interfaces, power of two, 1..4
  parameter int PORT_COUNT     = 1,              // ports per interface, 1..8
  parameter int TXQ_COUNT      = 4096,           // per interface, power of two, 2..32768
  parameter int RXQ_COUNT      = 256,
  parameter int CQ_COUNT       = 8192,
  parameter int EQ_COUNT       = 32,
  parameter int TX_SLOTS       = 32,             // TX packets in flight per interface
  parameter int RX_SLOTS       = 32,             // RX frames in flight per interface
  parameter int MAX_FRAME      = 16384,          // largest frame, bytes, power of two
  parameter int RSS_TABLE_SIZE = 256,
  parameter int DESC_BATCH     = 8,
  parameter int CPL_BATCH      = 8,
  parameter int TX_SCHED       = 0,              // ports' TX scheduler: 0 round robin, 1 token bucket, 2 TDMA
  parameter int TDMA_SLOTS_MAX = 8,              // TX_SCHED 2: slots per TDMA period, 1..32
  // TX timestamps: 0 = stamped in each interface at its port output; 1 = returned by the MACs on s_tx_ts_*
  // for the tag they got on m_axis_tx_tag (docs/blocks/ptp.md)
  parameter int TX_TS_SRC      = 0,
  // RX timestamps: 0 = stamped in each interface at its port input; 1 = the MACs' times on s_axis_rx_ts
  parameter int RX_TS_SRC      = 0,
  // TX timestamp tag width, bits: beryl_nic_if's default for this TX_SCHED (clog2 of its wait depth + 1)
  parameter int TX_TS_TAG_W    = (TX_SCHED == 2) ? 9 : 5,
  parameter int MSIX_VECTORS   = 32,             // MSI-X vectors, 1..256
  parameter int TIMEOUT_CYCLES = 2500000,        // DMA read completion timeout, cycles
  parameter logic [15:0] VENDOR_ID = 16'h1234,   // placeholder ids: the build passes real ones
  parameter logic [15:0] DEVICE_ID = 16'hbe01,
  parameter logic [31:0] GIT_HASH   = 32'h0,
  parameter logic [31:0] BUILD_DATE = 32'h0,
  parameter logic [31:0] BUILD_TIME = 32'h0,
  parameter int NP             = IF_COUNT * PORT_COUNT  // ports in all
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

  // ports of interface i, port p at index i*PORT_COUNT + p
  output logic [NP*512-1:0]              m_axis_tx_tdata,
  output logic [NP*64-1:0]               m_axis_tx_tkeep,
  output logic [NP-1:0]                  m_axis_tx_tvalid,
  input  wire logic [NP-1:0]             m_axis_tx_tready,
  output logic [NP-1:0]                  m_axis_tx_tlast,
  output logic [NP*TX_TS_TAG_W-1:0]      m_axis_tx_tag,     // the frame's TX timestamp tag, every beat
  // TX_TS_SRC 1: per port, the start-of-frame time (completion format) of the frame with this tag
  input  wire logic [NP-1:0]             s_tx_ts_valid,
  input  wire logic [NP*TX_TS_TAG_W-1:0] s_tx_ts_tag,
  input  wire logic [NP*64-1:0]          s_tx_ts,
  input  wire logic [NP*512-1:0]         s_axis_rx_tdata,
  input  wire logic [NP*64-1:0]          s_axis_rx_tkeep,
  input  wire logic [NP-1:0]             s_axis_rx_tvalid,
  output logic [NP-1:0]                  s_axis_rx_tready,
  input  wire logic [NP-1:0]             s_axis_rx_tlast,
  input  wire logic [NP-1:0]             s_axis_rx_tuser,
  input  wire logic [NP*64-1:0]          s_axis_rx_ts,      // RX_TS_SRC 1: the frame's time, first beat

  // PTP clock (regs/beryl_ptp.rdl): time of day for the MACs' timestamp units, pulse per second,
  // periodic output
  output logic [95:0]                    ptp_tod,
  output logic                           ptp_tod_step,
  output logic                           ptp_pps,
  output logic                           ptp_perout
);

  localparam int IFS_W      = (IF_COUNT > 1) ? $clog2(IF_COUNT) : 0;
  localparam int IF_TAG_W   = 10;      // 8 bits per DMA client inside an interface
  localparam int TAG_W      = IF_TAG_W + IFS_W;
  localparam int REGION_W   = $clog2(TX_SLOTS * MAX_FRAME) + 1;
  localparam int IF_RAM_W   = REGION_W + 2;
  localparam int RAM_ADDR_W = IF_RAM_W + IFS_W;
  localparam int SEG_ADDR_W = RAM_ADDR_W - 7;
  localparam int IF_SEG_W   = IF_RAM_W - 7;
  localparam int APP_ADDR_W = beryl_regs_pkg::APP_ADDR_W;
  localparam int IFA_W      = beryl_regs_pkg::NIC_IF_BLOCK_ADDR_W;
  localparam int PTPA_W     = beryl_regs_pkg::PTP_BLOCK_ADDR_W;
  localparam int PTP_OFF    = beryl_regs_pkg::PTP_BLOCK_APP_OFFSET;
  localparam int NB         = IF_COUNT + 1;   // register blocks in the window: interfaces, PTP clock

  if (TLP_DATA_W != 512 || IF_COUNT < 1 || IF_COUNT > 4 || (1 << IFS_W) != IF_COUNT) begin : g_chk
    $error("%m: TLP_DATA_W must be 512 and IF_COUNT a power of two 1..4");
  end
  if (MAX_FRAME < 256 || (1 << $clog2(MAX_FRAME)) != MAX_FRAME || TX_SLOTS < 2 || TX_SLOTS > 128
      || (1 << $clog2(TX_SLOTS)) != TX_SLOTS) begin : g_chk_slots
    $error("%m: MAX_FRAME must be a power of two >= 256, TX_SLOTS a power of two 2..128 (8-bit tags)");
  end
  if (TX_TS_TAG_W != $clog2((TX_SCHED == 2) ? 256 : 16) + 1) begin : g_chk_tag
    $error("%m: TX_TS_TAG_W must be beryl_nic_if's default for this TX_SCHED (5, or 9 with TDMA)");
  end
  if ((IF_COUNT << IFA_W) > PTP_OFF) begin : g_chk_ptp
    $error("%m: the interface blocks overlap the PTP block (regs/beryl_app.rdl)");
  end

  // Reset registered once (the core's user_reset is synchronous to clk) on a clock of its own that
  // rises only when rst changes. Everything inside reads rst_r: in the C++ model the clock-gate
  // enables, which all have a reset term, then no longer read a top-level input and leave the
  // input-combinational region (evaluated in every falling-edge eval whose inputs changed). rst_r is
  // high from power-up (the flop's initial value), so the design is in reset before the first edge
  // as it was when every block read rst directly.
  logic rst_r, rst_gclk;
  initial rst_r = 1'b1;
  beryl_clk_gate u_rst_gate (.clk (clk), .en (rst ^ rst_r), .gclk (rst_gclk));
  always_ff @(posedge rst_gclk) rst_r <= rst;

  logic [APP_ADDR_W-1:0] app_awaddr, app_araddr;
  logic [2:0]  app_awprot, app_arprot;
  logic        app_awvalid, app_awready, app_wvalid, app_wready, app_bvalid, app_bready;
  logic        app_arvalid, app_arready, app_rvalid, app_rready;
  logic [31:0] app_wdata, app_rdata;
  logic [3:0]  app_wstrb;
  logic [1:0]  app_bresp, app_rresp;

  logic [63:0]           rd_desc_host_addr, wr_desc_host_addr;
  logic [RAM_ADDR_W-1:0] rd_desc_ram_addr, wr_desc_ram_addr;
  logic [16:0]           rd_desc_len, wr_desc_len;
  logic [TAG_W-1:0]      rd_desc_tag, wr_desc_tag, rd_desc_status_tag, wr_desc_status_tag;
  logic                  rd_desc_valid, rd_desc_ready, wr_desc_valid, wr_desc_ready;
  logic [3:0]            rd_desc_status_error, wr_desc_status_error;
  logic                  rd_desc_status_valid, wr_desc_status_valid;
  logic [2*SEG_ADDR_W-1:0] ram_wr_cmd_addr, ram_rd_cmd_addr;
  logic [2*64-1:0]       ram_wr_cmd_be;
  logic [2*512-1:0]      ram_wr_cmd_data, ram_rd_resp_data;
  logic [1:0]            ram_wr_cmd_valid, ram_wr_cmd_ready, ram_rd_cmd_valid, ram_rd_cmd_ready;
  logic [1:0]            ram_rd_resp_valid, ram_rd_resp_ready;
  logic [7:0]            irq_index;
  logic                  irq_valid, irq_ready;

  beryl_pcie_us_top #(
    .TLP_DATA_W     (512),
    .AXIS_CQ_USER_W (AXIS_CQ_USER_W),
    .AXIS_CC_USER_W (AXIS_CC_USER_W),
    .AXIS_RQ_USER_W (AXIS_RQ_USER_W),
    .AXIS_RC_USER_W (AXIS_RC_USER_W),
    .RAM_ADDR_W     (RAM_ADDR_W),
    .TAG_W          (TAG_W),
    .TIMEOUT_CYCLES (TIMEOUT_CYCLES),
    .MSIX_VECTORS   (MSIX_VECTORS),
    .RQ_STRADDLE    (RQ_STRADDLE),
    .RC_STRADDLE    (RC_STRADDLE),
    .VENDOR_ID      (VENDOR_ID),
    .DEVICE_ID      (DEVICE_ID),
    .GIT_HASH       (GIT_HASH),
    .BUILD_DATE     (BUILD_DATE),
    .BUILD_TIME     (BUILD_TIME),
    .APP_CHAIN      (1'b1)
  ) u_pcie (
    .clk                       (clk),
    .rst                       (rst_r),
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
    .cfg_negotiated_width      (cfg_negotiated_width),
    .cfg_current_speed         (cfg_current_speed),
    .m_axil_app_awaddr         (app_awaddr),
    .m_axil_app_awprot         (app_awprot),
    .m_axil_app_awvalid        (app_awvalid),
    .m_axil_app_awready        (app_awready),
    .m_axil_app_wdata          (app_wdata),
    .m_axil_app_wstrb          (app_wstrb),
    .m_axil_app_wvalid         (app_wvalid),
    .m_axil_app_wready         (app_wready),
    .m_axil_app_bresp          (app_bresp),
    .m_axil_app_bvalid         (app_bvalid),
    .m_axil_app_bready         (app_bready),
    .m_axil_app_araddr         (app_araddr),
    .m_axil_app_arprot         (app_arprot),
    .m_axil_app_arvalid        (app_arvalid),
    .m_axil_app_arready        (app_arready),
    .m_axil_app_rdata          (app_rdata),
    .m_axil_app_rresp          (app_rresp),
    .m_axil_app_rvalid         (app_rvalid),
    .m_axil_app_rready         (app_rready),
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

  // ------------------------------------------------------------------ register window: one block per
  // interface, then the PTP clock block (decoder port IF_COUNT)
  function automatic logic [NB*APP_ADDR_W-1:0] if_bases();
    for (int i = 0; i < IF_COUNT; i++) if_bases[i*APP_ADDR_W +: APP_ADDR_W] = APP_ADDR_W'(i << IFA_W);
    if_bases[IF_COUNT*APP_ADDR_W +: APP_ADDR_W] = APP_ADDR_W'(PTP_OFF);
  endfunction
  function automatic logic [NB*32-1:0] if_addr_w();
    for (int i = 0; i < IF_COUNT; i++) if_addr_w[i*32 +: 32] = 32'(IFA_W);
    if_addr_w[IF_COUNT*32 +: 32] = 32'(PTPA_W);
  endfunction

  logic [NB*APP_ADDR_W-1:0] i_awaddr, i_araddr;
  logic [NB*3-1:0]  i_awprot, i_arprot;
  logic [NB-1:0]    i_awvalid, i_awready, i_wvalid, i_wready, i_bvalid, i_bready;
  logic [NB-1:0]    i_arvalid, i_arready, i_rvalid, i_rready;
  logic [NB*32-1:0] i_wdata, i_rdata;
  logic [NB*4-1:0]  i_wstrb;
  logic [NB*2-1:0]  i_bresp, i_rresp;

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_axil_decode #(
    .M_COUNT  (NB),
    .ADDR_W   (APP_ADDR_W),
    .M_BASE   (if_bases()),
    .M_ADDR_W (if_addr_w())
  ) u_app_decode (
    .clk            (clk),
    .rst            (rst_r),
    .s_axil_awaddr  (app_awaddr),
    .s_axil_awprot  (app_awprot),
    .s_axil_awvalid (app_awvalid),
    .s_axil_awready (app_awready),
    .s_axil_wdata   (app_wdata),
    .s_axil_wstrb   (app_wstrb),
    .s_axil_wvalid  (app_wvalid),
    .s_axil_wready  (app_wready),
    .s_axil_bresp   (app_bresp),
    .s_axil_bvalid  (app_bvalid),
    .s_axil_bready  (app_bready),
    .s_axil_araddr  (app_araddr),
    .s_axil_arprot  (app_arprot),
    .s_axil_arvalid (app_arvalid),
    .s_axil_arready (app_arready),
    .s_axil_rdata   (app_rdata),
    .s_axil_rresp   (app_rresp),
    .s_axil_rvalid  (app_rvalid),
    .s_axil_rready  (app_rready),
    .m_axil_awaddr  (i_awaddr),
    .m_axil_awprot  (i_awprot),
    .m_axil_awvalid (i_awvalid),
    .m_axil_awready (i_awready),
    .m_axil_wdata   (i_wdata),
    .m_axil_wstrb   (i_wstrb),
    .m_axil_wvalid  (i_wvalid),
    .m_axil_wready  (i_wready),
    .m_axil_bresp   (i_bresp),
    .m_axil_bvalid  (i_bvalid),
    .m_axil_bready  (i_bready),
    .m_axil_araddr  (i_araddr),
    .m_axil_arprot  (i_arprot),
    .m_axil_arvalid (i_arvalid),
    .m_axil_arready (i_arready),
    .m_axil_rdata   (i_rdata),
    .m_axil_rresp   (i_rresp),
    .m_axil_rvalid  (i_rvalid),
    .m_axil_rready  (i_rready),
    .unmapped_rd    (),
    .unmapped_wr    ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ------------------------------------------------------------------ interfaces
  logic [IF_COUNT*64-1:0]         f_rd_host_addr, f_wr_host_addr;
  logic [IF_COUNT*IF_RAM_W-1:0]   f_rd_ram_addr, f_wr_ram_addr;
  logic [IF_COUNT*17-1:0]         f_rd_len, f_wr_len;
  logic [IF_COUNT*IF_TAG_W-1:0]   f_rd_tag, f_wr_tag, f_rd_sts_tag, f_wr_sts_tag;
  logic [IF_COUNT-1:0]            f_rd_valid, f_rd_ready, f_wr_valid, f_wr_ready, f_rd_sts_valid, f_wr_sts_valid;
  logic [IF_COUNT*4-1:0]          f_rd_sts_error, f_wr_sts_error;
  logic [IF_COUNT*2*IF_SEG_W-1:0] f_wr_addr, f_rd_addr;
  logic [IF_COUNT*2*64-1:0]       f_wr_be;
  logic [IF_COUNT*2*512-1:0]      f_wr_data;
  // each interface's RAM read data as an array element of its own: the read demux below selects from
  // it (DATA = 0), so a Verilator model need not copy every interface's data into one concatenation
  logic [2*512-1:0]               f_rd_resp_data [IF_COUNT];
  logic [IF_COUNT*2-1:0]          f_wr_valid_r, f_wr_ready_r, f_rd_valid_r, f_rd_ready_r;
  logic [IF_COUNT*2-1:0]          f_rd_resp_valid, f_rd_resp_ready;
  logic [IF_COUNT*8-1:0]          f_irq_index;
  logic [IF_COUNT-1:0]            f_irq_valid, f_irq_ready;

  for (genvar i = 0; i < IF_COUNT; i++) begin : g_if
    localparam logic [31:0] NEXT = (i + 1 < IF_COUNT) ?
        beryl_regs_pkg::APP_BASE + 32'((i + 1) << IFA_W) : beryl_regs_pkg::APP_BASE + 32'(PTP_OFF);
    beryl_nic_if #(
      .IF_INDEX       (i),
      .IF_COUNT       (IF_COUNT),
      .BLOCK_NEXT     (NEXT),
      .PORT_COUNT     (PORT_COUNT),
      .TXQ_COUNT      (TXQ_COUNT),
      .RXQ_COUNT      (RXQ_COUNT),
      .CQ_COUNT       (CQ_COUNT),
      .EQ_COUNT       (EQ_COUNT),
      .TX_SLOTS       (TX_SLOTS),
      .RX_SLOTS       (RX_SLOTS),
      .MAX_FRAME      (MAX_FRAME),
      .RSS_TABLE_SIZE (RSS_TABLE_SIZE),
      .DESC_BATCH     (DESC_BATCH),
      .CPL_BATCH      (CPL_BATCH),
      .TX_SCHED       (TX_SCHED),
      .TDMA_SLOTS_MAX (TDMA_SLOTS_MAX),
      .TX_TS_SRC      (TX_TS_SRC),
      .RX_TS_SRC      (RX_TS_SRC),
      .TX_TS_TAG_W    (TX_TS_TAG_W),
      .TAG_W          (IF_TAG_W)
    ) u_if (
      .clk                  (clk),
      .rst                  (rst_r),
      .s_axil_awaddr        (i_awaddr[i*APP_ADDR_W +: IFA_W]),
      .s_axil_awprot        (i_awprot[i*3 +: 3]),
      .s_axil_awvalid       (i_awvalid[i]),
      .s_axil_awready       (i_awready[i]),
      .s_axil_wdata         (i_wdata[i*32 +: 32]),
      .s_axil_wstrb         (i_wstrb[i*4 +: 4]),
      .s_axil_wvalid        (i_wvalid[i]),
      .s_axil_wready        (i_wready[i]),
      .s_axil_bresp         (i_bresp[i*2 +: 2]),
      .s_axil_bvalid        (i_bvalid[i]),
      .s_axil_bready        (i_bready[i]),
      .s_axil_araddr        (i_araddr[i*APP_ADDR_W +: IFA_W]),
      .s_axil_arprot        (i_arprot[i*3 +: 3]),
      .s_axil_arvalid       (i_arvalid[i]),
      .s_axil_arready       (i_arready[i]),
      .s_axil_rdata         (i_rdata[i*32 +: 32]),
      .s_axil_rresp         (i_rresp[i*2 +: 2]),
      .s_axil_rvalid        (i_rvalid[i]),
      .s_axil_rready        (i_rready[i]),
      .rd_desc_host_addr    (f_rd_host_addr[i*64 +: 64]),
      .rd_desc_ram_addr     (f_rd_ram_addr[i*IF_RAM_W +: IF_RAM_W]),
      .rd_desc_len          (f_rd_len[i*17 +: 17]),
      .rd_desc_tag          (f_rd_tag[i*IF_TAG_W +: IF_TAG_W]),
      .rd_desc_valid        (f_rd_valid[i]),
      .rd_desc_ready        (f_rd_ready[i]),
      .rd_desc_status_tag   (f_rd_sts_tag[i*IF_TAG_W +: IF_TAG_W]),
      .rd_desc_status_error (f_rd_sts_error[i*4 +: 4]),
      .rd_desc_status_valid (f_rd_sts_valid[i]),
      .ram_wr_cmd_addr      (f_wr_addr[i*2*IF_SEG_W +: 2*IF_SEG_W]),
      .ram_wr_cmd_be        (f_wr_be[i*128 +: 128]),
      .ram_wr_cmd_data      (f_wr_data[i*1024 +: 1024]),
      .ram_wr_cmd_valid     (f_wr_valid_r[i*2 +: 2]),
      .ram_wr_cmd_ready     (f_wr_ready_r[i*2 +: 2]),
      .wr_desc_host_addr    (f_wr_host_addr[i*64 +: 64]),
      .wr_desc_ram_addr     (f_wr_ram_addr[i*IF_RAM_W +: IF_RAM_W]),
      .wr_desc_len          (f_wr_len[i*17 +: 17]),
      .wr_desc_tag          (f_wr_tag[i*IF_TAG_W +: IF_TAG_W]),
      .wr_desc_valid        (f_wr_valid[i]),
      .wr_desc_ready        (f_wr_ready[i]),
      .wr_desc_status_tag   (f_wr_sts_tag[i*IF_TAG_W +: IF_TAG_W]),
      .wr_desc_status_error (f_wr_sts_error[i*4 +: 4]),
      .wr_desc_status_valid (f_wr_sts_valid[i]),
      .ram_rd_cmd_addr      (f_rd_addr[i*2*IF_SEG_W +: 2*IF_SEG_W]),
      .ram_rd_cmd_valid     (f_rd_valid_r[i*2 +: 2]),
      .ram_rd_cmd_ready     (f_rd_ready_r[i*2 +: 2]),
      .ram_rd_resp_data     (f_rd_resp_data[i]),
      .ram_rd_resp_valid    (f_rd_resp_valid[i*2 +: 2]),
      .ram_rd_resp_ready    (f_rd_resp_ready[i*2 +: 2]),
      .irq_index            (f_irq_index[i*8 +: 8]),
      .irq_valid            (f_irq_valid[i]),
      .irq_ready            (f_irq_ready[i]),
      .m_axis_tx_tdata      (m_axis_tx_tdata[i*PORT_COUNT*512 +: PORT_COUNT*512]),
      .m_axis_tx_tkeep      (m_axis_tx_tkeep[i*PORT_COUNT*64 +: PORT_COUNT*64]),
      .m_axis_tx_tvalid     (m_axis_tx_tvalid[i*PORT_COUNT +: PORT_COUNT]),
      .m_axis_tx_tready     (m_axis_tx_tready[i*PORT_COUNT +: PORT_COUNT]),
      .m_axis_tx_tlast      (m_axis_tx_tlast[i*PORT_COUNT +: PORT_COUNT]),
      .m_axis_tx_tag        (m_axis_tx_tag[i*PORT_COUNT*TX_TS_TAG_W +: PORT_COUNT*TX_TS_TAG_W]),
      .s_tx_ts_valid        (s_tx_ts_valid[i*PORT_COUNT +: PORT_COUNT]),
      .s_tx_ts_tag          (s_tx_ts_tag[i*PORT_COUNT*TX_TS_TAG_W +: PORT_COUNT*TX_TS_TAG_W]),
      .s_tx_ts              (s_tx_ts[i*PORT_COUNT*64 +: PORT_COUNT*64]),
      .s_axis_rx_tdata      (s_axis_rx_tdata[i*PORT_COUNT*512 +: PORT_COUNT*512]),
      .s_axis_rx_tkeep      (s_axis_rx_tkeep[i*PORT_COUNT*64 +: PORT_COUNT*64]),
      .s_axis_rx_tvalid     (s_axis_rx_tvalid[i*PORT_COUNT +: PORT_COUNT]),
      .s_axis_rx_tready     (s_axis_rx_tready[i*PORT_COUNT +: PORT_COUNT]),
      .s_axis_rx_tlast      (s_axis_rx_tlast[i*PORT_COUNT +: PORT_COUNT]),
      .s_axis_rx_tuser      (s_axis_rx_tuser[i*PORT_COUNT +: PORT_COUNT]),
      .s_axis_rx_ts         (s_axis_rx_ts[i*PORT_COUNT*64 +: PORT_COUNT*64]),
      .ptp_ts               (beryl_nic_pkg::ts_of_tod(ptp_tod)),
      .ptp_tod              (ptp_tod),
      .ptp_tod_step         (ptp_tod_step)
    );
  end

  // ------------------------------------------------------------------ PTP hardware clock
  beryl_ptp_regs #(
    .FNS_W      (32),
    .PERIOD_NS  (4),     // user_clk of the 512-bit Gen3 x16 subsystem: 250 MHz
    .PERIOD_FNS (0),
    .BLOCK_NEXT (32'h0)
  ) u_ptp (
    .clk            (clk),
    .rst            (rst_r),
    .s_axil_awaddr  (i_awaddr[IF_COUNT*APP_ADDR_W +: PTPA_W]),
    .s_axil_awprot  (i_awprot[IF_COUNT*3 +: 3]),
    .s_axil_awvalid (i_awvalid[IF_COUNT]),
    .s_axil_awready (i_awready[IF_COUNT]),
    .s_axil_wdata   (i_wdata[IF_COUNT*32 +: 32]),
    .s_axil_wstrb   (i_wstrb[IF_COUNT*4 +: 4]),
    .s_axil_wvalid  (i_wvalid[IF_COUNT]),
    .s_axil_wready  (i_wready[IF_COUNT]),
    .s_axil_bresp   (i_bresp[IF_COUNT*2 +: 2]),
    .s_axil_bvalid  (i_bvalid[IF_COUNT]),
    .s_axil_bready  (i_bready[IF_COUNT]),
    .s_axil_araddr  (i_araddr[IF_COUNT*APP_ADDR_W +: PTPA_W]),
    .s_axil_arprot  (i_arprot[IF_COUNT*3 +: 3]),
    .s_axil_arvalid (i_arvalid[IF_COUNT]),
    .s_axil_arready (i_arready[IF_COUNT]),
    .s_axil_rdata   (i_rdata[IF_COUNT*32 +: 32]),
    .s_axil_rresp   (i_rresp[IF_COUNT*2 +: 2]),
    .s_axil_rvalid  (i_rvalid[IF_COUNT]),
    .s_axil_rready  (i_rready[IF_COUNT]),
    .tod            (ptp_tod),
    .tod_step       (ptp_tod_step),
    .pps            (ptp_pps),
    .perout         (ptp_perout)
  );

  // the decoder hands each interface the whole window address; the block uses its low IFA_W bits
  logic unused;
  assign unused = ^{i_awaddr, i_araddr};

  // ------------------------------------------------------------------ DMA channels and RAM ports
  if (IF_COUNT == 1) begin : g_one
    assign rd_desc_host_addr = f_rd_host_addr;
    assign rd_desc_ram_addr  = f_rd_ram_addr;
    assign rd_desc_len       = f_rd_len;
    assign rd_desc_tag       = f_rd_tag;
    assign rd_desc_valid     = f_rd_valid[0];
    assign f_rd_ready        = rd_desc_ready;
    assign f_rd_sts_tag      = rd_desc_status_tag;
    assign f_rd_sts_error    = rd_desc_status_error;
    assign f_rd_sts_valid    = rd_desc_status_valid;
    assign wr_desc_host_addr = f_wr_host_addr;
    assign wr_desc_ram_addr  = f_wr_ram_addr;
    assign wr_desc_len       = f_wr_len;
    assign wr_desc_tag       = f_wr_tag;
    assign wr_desc_valid     = f_wr_valid[0];
    assign f_wr_ready        = wr_desc_ready;
    assign f_wr_sts_tag      = wr_desc_status_tag;
    assign f_wr_sts_error    = wr_desc_status_error;
    assign f_wr_sts_valid    = wr_desc_status_valid;
    assign f_wr_addr         = ram_wr_cmd_addr;
    assign f_wr_be           = ram_wr_cmd_be;
    assign f_wr_data         = ram_wr_cmd_data;
    assign f_wr_valid_r      = ram_wr_cmd_valid;
    assign ram_wr_cmd_ready  = f_wr_ready_r;
    assign f_rd_addr         = ram_rd_cmd_addr;
    assign f_rd_valid_r      = ram_rd_cmd_valid;
    assign ram_rd_cmd_ready  = f_rd_ready_r;
    assign ram_rd_resp_data  = f_rd_resp_data[0];
    assign ram_rd_resp_valid = f_rd_resp_valid;
    assign f_rd_resp_ready   = ram_rd_resp_ready;
    assign irq_index         = f_irq_index;
    assign irq_valid         = f_irq_valid[0];
    assign f_irq_ready       = irq_ready;
  end else begin : g_many
    // interface i owns DMA addresses [i << IF_RAM_W, (i+1) << IF_RAM_W)
    logic [IF_COUNT*RAM_ADDR_W-1:0] rd_ram_full, wr_ram_full;
    for (genvar i = 0; i < IF_COUNT; i++) begin : g_addr
      assign rd_ram_full[i*RAM_ADDR_W +: RAM_ADDR_W] = {IFS_W'(i), f_rd_ram_addr[i*IF_RAM_W +: IF_RAM_W]};
      assign wr_ram_full[i*RAM_ADDR_W +: RAM_ADDR_W] = {IFS_W'(i), f_wr_ram_addr[i*IF_RAM_W +: IF_RAM_W]};
    end
    beryl_dma_desc_mux #(
      .PORTS (IF_COUNT), .RAM_ADDR_W (RAM_ADDR_W), .LEN_W (17), .CLIENT_TAG_W (IF_TAG_W), .TAG_W (TAG_W)
    ) u_rd_mux (
      .clk (clk), .rst (rst_r),
      .s_desc_host_addr (f_rd_host_addr), .s_desc_ram_addr (rd_ram_full), .s_desc_len (f_rd_len),
      .s_desc_tag (f_rd_tag), .s_desc_valid (f_rd_valid), .s_desc_ready (f_rd_ready),
      .s_desc_status_tag (f_rd_sts_tag), .s_desc_status_error (f_rd_sts_error),
      .s_desc_status_valid (f_rd_sts_valid),
      .m_desc_host_addr (rd_desc_host_addr), .m_desc_ram_addr (rd_desc_ram_addr), .m_desc_len (rd_desc_len),
      .m_desc_tag (rd_desc_tag), .m_desc_valid (rd_desc_valid), .m_desc_ready (rd_desc_ready),
      .m_desc_status_tag (rd_desc_status_tag), .m_desc_status_error (rd_desc_status_error),
      .m_desc_status_valid (rd_desc_status_valid)
    );
    beryl_dma_desc_mux #(
      .PORTS (IF_COUNT), .RAM_ADDR_W (RAM_ADDR_W), .LEN_W (17), .CLIENT_TAG_W (IF_TAG_W), .TAG_W (TAG_W)
    ) u_wr_mux (
      .clk (clk), .rst (rst_r),
      .s_desc_host_addr (f_wr_host_addr), .s_desc_ram_addr (wr_ram_full), .s_desc_len (f_wr_len),
      .s_desc_tag (f_wr_tag), .s_desc_valid (f_wr_valid), .s_desc_ready (f_wr_ready),
      .s_desc_status_tag (f_wr_sts_tag), .s_desc_status_error (f_wr_sts_error),
      .s_desc_status_valid (f_wr_sts_valid),
      .m_desc_host_addr (wr_desc_host_addr), .m_desc_ram_addr (wr_desc_ram_addr), .m_desc_len (wr_desc_len),
      .m_desc_tag (wr_desc_tag), .m_desc_valid (wr_desc_valid), .m_desc_ready (wr_desc_ready),
      .m_desc_status_tag (wr_desc_status_tag), .m_desc_status_error (wr_desc_status_error),
      .m_desc_status_valid (wr_desc_status_valid)
    );
    beryl_dma_ram_wr_demux #(.PORTS (IF_COUNT), .SEG_ADDR_W (SEG_ADDR_W)) u_wr_demux (
      .s_ram_wr_cmd_addr (ram_wr_cmd_addr), .s_ram_wr_cmd_be (ram_wr_cmd_be), .s_ram_wr_cmd_data (ram_wr_cmd_data),
      .s_ram_wr_cmd_valid (ram_wr_cmd_valid), .s_ram_wr_cmd_ready (ram_wr_cmd_ready),
      .m_ram_wr_cmd_addr (f_wr_addr), .m_ram_wr_cmd_be (f_wr_be), .m_ram_wr_cmd_data (f_wr_data),
      .m_ram_wr_cmd_valid (f_wr_valid_r), .m_ram_wr_cmd_ready (f_wr_ready_r)
    );
    /* verilator lint_off PINCONNECTEMPTY */
    logic [1:0]         rd_resp_any;
    logic [2*IFS_W-1:0] rd_resp_sel;
    beryl_dma_ram_rd_demux #(.PORTS (IF_COUNT), .SEG_ADDR_W (SEG_ADDR_W), .DATA (1'b0)) u_rd_demux (
      .clk (clk), .rst (rst_r),
      .s_ram_rd_cmd_addr (ram_rd_cmd_addr), .s_ram_rd_cmd_valid (ram_rd_cmd_valid),
      .s_ram_rd_cmd_ready (ram_rd_cmd_ready), .s_ram_rd_resp_data (),   // 0 with DATA = 0
      .s_ram_rd_resp_valid (ram_rd_resp_valid), .s_ram_rd_resp_ready (ram_rd_resp_ready),
      .m_ram_rd_cmd_addr (f_rd_addr), .m_ram_rd_cmd_valid (f_rd_valid_r), .m_ram_rd_cmd_ready (f_rd_ready_r),
      .m_ram_rd_resp_data ('0), .m_ram_rd_resp_valid (f_rd_resp_valid),
      .m_ram_rd_resp_ready (f_rd_resp_ready), .resp_any (rd_resp_any), .resp_sel (rd_resp_sel)
    );
    /* verilator lint_on PINCONNECTEMPTY */
    // the response data of the interface each segment's oldest read went to (0 with none outstanding)
    always_comb begin
      for (int s = 0; s < 2; s++) begin
        ram_rd_resp_data[s*512 +: 512] = '0;
        if (rd_resp_any[s]) begin
          ram_rd_resp_data[s*512 +: 512] = f_rd_resp_data[rd_resp_sel[s*IFS_W +: IFS_W]][s*512 +: 512];
        end
      end
    end
    // interrupts: round robin among the interfaces (the scan only with a request: the C++ simulator
    // then skips it in the cycles without one)
    logic [IFS_W-1:0] irq_last_q, irq_sel;
    logic             irq_any;
    always_comb begin
      irq_sel = irq_last_q;
      irq_any = 1'b0;
      if (f_irq_valid != '0) begin
        for (int k = 1; k <= IF_COUNT; k++) begin
          if (!irq_any && f_irq_valid[IFS_W'(32'(irq_last_q) + 32'(k))]) begin
            irq_sel = IFS_W'(32'(irq_last_q) + 32'(k));
            irq_any = 1'b1;
          end
        end
      end
    end
    assign irq_valid = irq_any;
    assign irq_index = f_irq_index[irq_sel*8 +: 8];
    always_comb begin
      f_irq_ready = '0;
      f_irq_ready[irq_sel] = irq_any && irq_ready;
    end
    // irq_last_q changes only with a request taken (or a reset): its own clock gate, so that the logic
    // reading it is evaluated by a C++ model only then
    logic irq_gclk;
    beryl_clk_gate u_irq_gate (
      .clk  (clk),
      .en   (rst_r || (irq_valid && irq_ready)),
      .gclk (irq_gclk)
    );
    always_ff @(posedge irq_gclk) begin
      if (irq_valid && irq_ready) irq_last_q <= irq_sel;
      if (rst_r) irq_last_q <= '0;
    end
  end

endmodule

`resetall
