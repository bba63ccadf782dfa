// SPDX-License-Identifier: MIT
// Portable PCIe host interface: BAR0 register space (identity, PCIe and MSI-X blocks, MSI-X
// table/PBA, and an application window), DMA read and write engines for on-chip clients, and
// MSI-X. Speaks only the vendor-neutral TLP streams; a hard-IP shim sits in front of it.
`default_nettype none

module beryl_pcie_host_if #(
  parameter int TLP_DATA_W     = 512,            // TLP stream width, bits: 256 or 512
  parameter int TLP_STRB_W     = TLP_DATA_W / 32,
  parameter int RAM_ADDR_W     = 20,             // DMA RAM byte address width
  parameter int LEN_W          = 17,             // DMA length width: up to 2^(LEN_W-1) bytes
  parameter int TAG_W          = 8,              // DMA client tag width
  parameter int PCIE_TAG_COUNT = 256,            // outstanding DMA reads, 32..256 (above 32 needs Extended Tag)
  parameter int RD_OP_COUNT    = 64,             // read descriptors in flight, power of two
  parameter int CPL_BUF_BYTES  = 32768,          // completion buffer of the hard IP, bytes
  parameter int TIMEOUT_CYCLES = 2500000,        // DMA read completion timeout, cycles
  parameter int MSIX_VECTORS   = 32,             // MSI-X vectors, 1..256
  parameter logic [15:0] VENDOR_ID = 16'h1234,   // placeholder ids: the build passes real ones
  parameter logic [15:0] DEVICE_ID = 16'hbe01,
  parameter logic [31:0] GIT_HASH   = 32'h0,     // first 8 hex digits of the commit
  parameter logic [31:0] BUILD_DATE = 32'h0,     // BCD YYYYMMDD
  parameter logic [31:0] BUILD_TIME = 32'h0,     // BCD 00HHMMSS
  parameter int APP_ADDR_W     = beryl_regs_pkg::APP_ADDR_W,   // fixed by the register map
  parameter bit APP_CHAIN      = 1'b0,           // 1: blocks at APP offset 0 (NIC build): MSI-X NEXT points there
  parameter int BAR0_ADDR_W    = beryl_regs_pkg::BAR0_ADDR_W,  // fixed by the register map
  parameter int SEG_COUNT      = 2,
  parameter int SEG_DATA_W     = TLP_DATA_W,
  parameter int SEG_BE_W       = SEG_DATA_W / 8,
  parameter int SEG_ADDR_W     = RAM_ADDR_W - $clog2(SEG_COUNT * SEG_BE_W)
) (
  input  wire logic                        clk,
  input  wire logic                        rst,

  // TLP streams from/to the hard-IP shim
  input  wire logic [TLP_DATA_W-1:0]       rx_req_tlp_data,
  input  wire logic [TLP_STRB_W-1:0]       rx_req_tlp_strb,
  input  wire logic [127:0]                rx_req_tlp_hdr,
  input  wire logic [2:0]                  rx_req_tlp_bar_id,
  input  wire logic                        rx_req_tlp_sop,
  input  wire logic                        rx_req_tlp_eop,
  input  wire logic                        rx_req_tlp_bad,   // with eop: discard (PG213 discontinue)
  input  wire logic                        rx_req_tlp_valid,
  output logic                             rx_req_tlp_ready,

  output logic [TLP_DATA_W-1:0]            tx_cpl_tlp_data,
  output logic [TLP_STRB_W-1:0]            tx_cpl_tlp_strb,
  output logic [127:0]                     tx_cpl_tlp_hdr,
  output logic                             tx_cpl_tlp_sop,
  output logic                             tx_cpl_tlp_eop,
  output logic                             tx_cpl_tlp_valid,
  input  wire logic                        tx_cpl_tlp_ready,

  output logic [TLP_DATA_W-1:0]            tx_req_tlp_data,
  output logic [TLP_STRB_W-1:0]            tx_req_tlp_strb,
  output logic [127:0]                     tx_req_tlp_hdr,
  output logic                             tx_req_tlp_sop,
  output logic                             tx_req_tlp_eop,
  output logic                             tx_req_tlp_valid,
  input  wire logic                        tx_req_tlp_ready,

  input  wire logic [TLP_DATA_W-1:0]       rx_cpl_tlp_data,
  input  wire logic [TLP_STRB_W-1:0]       rx_cpl_tlp_strb,
  input  wire logic [127:0]                rx_cpl_tlp_hdr,
  input  wire logic                        rx_cpl_tlp_sop,
  input  wire logic                        rx_cpl_tlp_eop,
  input  wire logic                        rx_cpl_tlp_bad,   // with eop: data not trusted
  input  wire logic                        rx_cpl_tlp_valid,
  output logic                             rx_cpl_tlp_ready,

  // configuration from the shim
  input  wire logic [2:0]                  max_payload_size,
  input  wire logic [2:0]                  max_read_req_size,
  input  wire logic                        rcb_128,
  input  wire logic                        ext_tag_en,
  input  wire logic                        bus_master_en,
  input  wire logic                        msix_enable,
  input  wire logic                        msix_mask,
  input  wire logic [3:0]                  link_speed,
  input  wire logic [5:0]                  link_width,

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

  // ---------------------------------------------------------------------------------------
  // BAR0 -> AXI-Lite -> decoder; the map comes from regs/beryl_bar0.rdl
  // ---------------------------------------------------------------------------------------
  localparam int NS = 5;  // id, pcie, msix regs, msix table+pba, application window
  if (APP_ADDR_W != beryl_regs_pkg::APP_ADDR_W || BAR0_ADDR_W != beryl_regs_pkg::BAR0_ADDR_W) begin : g_chk_map
    $error("%m: APP_ADDR_W and BAR0_ADDR_W are set by the register map, not per instance");
  end
  if (MSIX_VECTORS < 1 || MSIX_VECTORS > 256) begin : g_chk_msix
    $error("%m: MSIX_VECTORS must be 1..256");
  end

  logic [BAR0_ADDR_W-1:0] bar_awaddr, bar_araddr;
  logic [2:0]  bar_awprot, bar_arprot;
  logic        bar_awvalid, bar_awready, bar_wvalid, bar_wready, bar_bvalid, bar_bready;
  logic        bar_arvalid, bar_arready, bar_rvalid, bar_rready;
  logic [31:0] bar_wdata, bar_rdata;
  logic [3:0]  bar_wstrb;
  logic [1:0]  bar_bresp, bar_rresp;
  logic [31:0] stat_rd_unmapped, stat_wr_unmapped, stat_req_unsupported, stat_req_discarded;

  beryl_pcie_axil_master #(
    .TLP_DATA_W  (TLP_DATA_W),
    .AXIL_ADDR_W (BAR0_ADDR_W),
    .BAR_ID      (0)
  ) u_bar0 (
    .clk                  (clk),
    .rst                  (rst),
    .rx_req_tlp_data      (rx_req_tlp_data),
    .rx_req_tlp_strb      (rx_req_tlp_strb),
    .rx_req_tlp_hdr       (rx_req_tlp_hdr),
    .rx_req_tlp_bar_id    (rx_req_tlp_bar_id),
    .rx_req_tlp_sop       (rx_req_tlp_sop),
    .rx_req_tlp_eop       (rx_req_tlp_eop),
    .rx_req_tlp_bad       (rx_req_tlp_bad),
    .rx_req_tlp_valid     (rx_req_tlp_valid),
    .rx_req_tlp_ready     (rx_req_tlp_ready),
    .tx_cpl_tlp_data      (tx_cpl_tlp_data),
    .tx_cpl_tlp_strb      (tx_cpl_tlp_strb),
    .tx_cpl_tlp_hdr       (tx_cpl_tlp_hdr),
    .tx_cpl_tlp_sop       (tx_cpl_tlp_sop),
    .tx_cpl_tlp_eop       (tx_cpl_tlp_eop),
    .tx_cpl_tlp_valid     (tx_cpl_tlp_valid),
    .tx_cpl_tlp_ready     (tx_cpl_tlp_ready),
    .m_axil_awaddr        (bar_awaddr),
    .m_axil_awprot        (bar_awprot),
    .m_axil_awvalid       (bar_awvalid),
    .m_axil_awready       (bar_awready),
    .m_axil_wdata         (bar_wdata),
    .m_axil_wstrb         (bar_wstrb),
    .m_axil_wvalid        (bar_wvalid),
    .m_axil_wready        (bar_wready),
    .m_axil_bresp         (bar_bresp),
    .m_axil_bvalid        (bar_bvalid),
    .m_axil_bready        (bar_bready),
    .m_axil_araddr        (bar_araddr),
    .m_axil_arprot        (bar_arprot),
    .m_axil_arvalid       (bar_arvalid),
    .m_axil_arready       (bar_arready),
    .m_axil_rdata         (bar_rdata),
    .m_axil_rresp         (bar_rresp),
    .m_axil_rvalid        (bar_rvalid),
    .m_axil_rready        (bar_rready),
    .stat_rd_unmapped     (stat_rd_unmapped),
    .stat_wr_unmapped     (stat_wr_unmapped),
    .stat_req_unsupported (stat_req_unsupported),
    .stat_req_discarded   (stat_req_discarded)
  );

  // each slave uses only the address bits of its own window
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NS*BAR0_ADDR_W-1:0] s_awaddr, s_araddr;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NS*3-1:0]  s_awprot, s_arprot;
  logic [NS-1:0]    s_awvalid, s_awready, s_wvalid, s_wready, s_bvalid, s_bready;
  logic [NS-1:0]    s_arvalid, s_arready, s_rvalid, s_rready;
  logic [NS*32-1:0] s_wdata, s_rdata;
  logic [NS*4-1:0]  s_wstrb;
  logic [NS*2-1:0]  s_bresp, s_rresp;

  // decode unmapped pulses are not needed: the bridge counts DECERR responses itself
  /* verilator lint_off PINCONNECTEMPTY */
  beryl_axil_decode #(
    .M_COUNT (NS),
    .ADDR_W  (BAR0_ADDR_W),
    .M_BASE  ({BAR0_ADDR_W'(beryl_regs_pkg::APP_BASE),
               BAR0_ADDR_W'(beryl_regs_pkg::MSIX_TABLE_BASE),
               BAR0_ADDR_W'(beryl_regs_pkg::MSIX_BLOCK_BASE),
               BAR0_ADDR_W'(beryl_regs_pkg::PCIE_BLOCK_BASE),
               BAR0_ADDR_W'(beryl_regs_pkg::ID_BLOCK_BASE)}),
    .M_ADDR_W ({32'(APP_ADDR_W), 32'd13,
                32'(beryl_regs_pkg::MSIX_BLOCK_ADDR_W),
                32'(beryl_regs_pkg::PCIE_BLOCK_ADDR_W),
                32'(beryl_regs_pkg::ID_BLOCK_ADDR_W)})
  ) u_decode (
    .clk            (clk),
    .rst            (rst),
    .s_axil_awaddr  (bar_awaddr),
    .s_axil_awprot  (bar_awprot),
    .s_axil_awvalid (bar_awvalid),
    .s_axil_awready (bar_awready),
    .s_axil_wdata   (bar_wdata),
    .s_axil_wstrb   (bar_wstrb),
    .s_axil_wvalid  (bar_wvalid),
    .s_axil_wready  (bar_wready),
    .s_axil_bresp   (bar_bresp),
    .s_axil_bvalid  (bar_bvalid),
    .s_axil_bready  (bar_bready),
    .s_axil_araddr  (bar_araddr),
    .s_axil_arprot  (bar_arprot),
    .s_axil_arvalid (bar_arvalid),
    .s_axil_arready (bar_arready),
    .s_axil_rdata   (bar_rdata),
    .s_axil_rresp   (bar_rresp),
    .s_axil_rvalid  (bar_rvalid),
    .s_axil_rready  (bar_rready),
    .m_axil_awaddr  (s_awaddr),
    .m_axil_awprot  (s_awprot),
    .m_axil_awvalid (s_awvalid),
    .m_axil_awready (s_awready),
    .m_axil_wdata   (s_wdata),
    .m_axil_wstrb   (s_wstrb),
    .m_axil_wvalid  (s_wvalid),
    .m_axil_wready  (s_wready),
    .m_axil_bresp   (s_bresp),
    .m_axil_bvalid  (s_bvalid),
    .m_axil_bready  (s_bready),
    .m_axil_araddr  (s_araddr),
    .m_axil_arprot  (s_arprot),
    .m_axil_arvalid (s_arvalid),
    .m_axil_arready (s_arready),
    .m_axil_rdata   (s_rdata),
    .m_axil_rresp   (s_rresp),
    .m_axil_rvalid  (s_rvalid),
    .m_axil_rready  (s_rready),
    .unmapped_rd    (),
    .unmapped_wr    ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---------------------------------------------------------------------------------------
  // identity block (slave 0)
  // ---------------------------------------------------------------------------------------
  localparam int ID_AW   = beryl_regs_pkg::ID_BLOCK_ADDR_W;
  localparam int PCIE_AW = beryl_regs_pkg::PCIE_BLOCK_ADDR_W;
  localparam int MSIX_AW = beryl_regs_pkg::MSIX_BLOCK_ADDR_W;

  beryl_id_block #(
    .VENDOR_ID  (VENDOR_ID),
    .DEVICE_ID  (DEVICE_ID),
    .GIT_HASH   (GIT_HASH),
    .BUILD_DATE (BUILD_DATE),
    .BUILD_TIME (BUILD_TIME)
  ) u_id (
    .clk            (clk),
    .rst            (rst),
    .s_axil_awaddr  (s_awaddr[0*BAR0_ADDR_W +: ID_AW]),
    .s_axil_awprot  (s_awprot[0*3 +: 3]),
    .s_axil_awvalid (s_awvalid[0]),
    .s_axil_awready (s_awready[0]),
    .s_axil_wdata   (s_wdata[0*32 +: 32]),
    .s_axil_wstrb   (s_wstrb[0*4 +: 4]),
    .s_axil_wvalid  (s_wvalid[0]),
    .s_axil_wready  (s_wready[0]),
    .s_axil_bresp   (s_bresp[0*2 +: 2]),
    .s_axil_bvalid  (s_bvalid[0]),
    .s_axil_bready  (s_bready[0]),
    .s_axil_araddr  (s_araddr[0*BAR0_ADDR_W +: ID_AW]),
    .s_axil_arprot  (s_arprot[0*3 +: 3]),
    .s_axil_arvalid (s_arvalid[0]),
    .s_axil_arready (s_arready[0]),
    .s_axil_rdata   (s_rdata[0*32 +: 32]),
    .s_axil_rresp   (s_rresp[0*2 +: 2]),
    .s_axil_rvalid  (s_rvalid[0]),
    .s_axil_rready  (s_rready[0])
  );

  // ---------------------------------------------------------------------------------------
  // DMA engines
  // ---------------------------------------------------------------------------------------
  logic [TLP_DATA_W-1:0] rdq_data, wrq_data, mxq_data;
  logic [TLP_STRB_W-1:0] rdq_strb, wrq_strb, mxq_strb;
  logic [127:0]          rdq_hdr, wrq_hdr, mxq_hdr;
  logic rdq_sop, rdq_eop, rdq_valid, rdq_ready;
  logic wrq_sop, wrq_eop, wrq_valid, wrq_ready;
  logic mxq_sop, mxq_eop, mxq_valid, mxq_ready;

  logic [31:0] rd_desc_done, rd_bytes, rd_err_timeout, rd_err_ur, rd_err_ca, rd_err_poison, rd_cpl_unexpected;
  logic [31:0] rd_cpl_discarded;
  logic [31:0] wr_desc_done, wr_bytes;

  beryl_pcie_dma_rd #(
    .TLP_DATA_W     (TLP_DATA_W),
    .RAM_ADDR_W     (RAM_ADDR_W),
    .LEN_W          (LEN_W),
    .TAG_W          (TAG_W),
    .PCIE_TAG_COUNT (PCIE_TAG_COUNT),
    .OP_COUNT       (RD_OP_COUNT),
    .CPL_BUF_BYTES  (CPL_BUF_BYTES),
    .TIMEOUT_CYCLES (TIMEOUT_CYCLES)
  ) u_dma_rd (
    .clk                  (clk),
    .rst                  (rst),
    .rd_desc_host_addr    (rd_desc_host_addr),
    .rd_desc_ram_addr     (rd_desc_ram_addr),
    .rd_desc_len          (rd_desc_len),
    .rd_desc_tag          (rd_desc_tag),
    .rd_desc_valid        (rd_desc_valid),
    .rd_desc_ready        (rd_desc_ready),
    .rd_desc_status_tag   (rd_desc_status_tag),
    .rd_desc_status_error (rd_desc_status_error),
    .rd_desc_status_valid (rd_desc_status_valid),
    .tx_rd_req_tlp_data   (rdq_data),
    .tx_rd_req_tlp_strb   (rdq_strb),
    .tx_rd_req_tlp_hdr    (rdq_hdr),
    .tx_rd_req_tlp_sop    (rdq_sop),
    .tx_rd_req_tlp_eop    (rdq_eop),
    .tx_rd_req_tlp_valid  (rdq_valid),
    .tx_rd_req_tlp_ready  (rdq_ready),
    .rx_cpl_tlp_data      (rx_cpl_tlp_data),
    .rx_cpl_tlp_strb      (rx_cpl_tlp_strb),
    .rx_cpl_tlp_hdr       (rx_cpl_tlp_hdr),
    .rx_cpl_tlp_sop       (rx_cpl_tlp_sop),
    .rx_cpl_tlp_eop       (rx_cpl_tlp_eop),
    .rx_cpl_tlp_bad       (rx_cpl_tlp_bad),
    .rx_cpl_tlp_valid     (rx_cpl_tlp_valid),
    .rx_cpl_tlp_ready     (rx_cpl_tlp_ready),
    .ram_wr_cmd_addr      (ram_wr_cmd_addr),
    .ram_wr_cmd_be        (ram_wr_cmd_be),
    .ram_wr_cmd_data      (ram_wr_cmd_data),
    .ram_wr_cmd_valid     (ram_wr_cmd_valid),
    .ram_wr_cmd_ready     (ram_wr_cmd_ready),
    .max_read_req_size    (max_read_req_size),
    .ext_tag_en           (ext_tag_en),
    .bus_master_en        (bus_master_en),
    .stat_desc_done       (rd_desc_done),
    .stat_bytes           (rd_bytes),
    .stat_err_timeout     (rd_err_timeout),
    .stat_err_ur          (rd_err_ur),
    .stat_err_ca          (rd_err_ca),
    .stat_err_poison      (rd_err_poison),
    .stat_cpl_unexpected  (rd_cpl_unexpected),
    .stat_cpl_discarded   (rd_cpl_discarded)
  );

  beryl_pcie_dma_wr #(
    .TLP_DATA_W (TLP_DATA_W),
    .RAM_ADDR_W (RAM_ADDR_W),
    .LEN_W      (LEN_W),
    .TAG_W      (TAG_W)
  ) u_dma_wr (
    .clk                  (clk),
    .rst                  (rst),
    .wr_desc_host_addr    (wr_desc_host_addr),
    .wr_desc_ram_addr     (wr_desc_ram_addr),
    .wr_desc_len          (wr_desc_len),
    .wr_desc_tag          (wr_desc_tag),
    .wr_desc_valid        (wr_desc_valid),
    .wr_desc_ready        (wr_desc_ready),
    .wr_desc_status_tag   (wr_desc_status_tag),
    .wr_desc_status_error (wr_desc_status_error),
    .wr_desc_status_valid (wr_desc_status_valid),
    .tx_wr_req_tlp_hdr    (wrq_hdr),
    .tx_wr_req_tlp_data   (wrq_data),
    .tx_wr_req_tlp_strb   (wrq_strb),
    .tx_wr_req_tlp_sop    (wrq_sop),
    .tx_wr_req_tlp_eop    (wrq_eop),
    .tx_wr_req_tlp_valid  (wrq_valid),
    .tx_wr_req_tlp_ready  (wrq_ready),
    .ram_rd_cmd_addr      (ram_rd_cmd_addr),
    .ram_rd_cmd_valid     (ram_rd_cmd_valid),
    .ram_rd_cmd_ready     (ram_rd_cmd_ready),
    .ram_rd_resp_data     (ram_rd_resp_data),
    .ram_rd_resp_valid    (ram_rd_resp_valid),
    .ram_rd_resp_ready    (ram_rd_resp_ready),
    .max_payload_size     (max_payload_size),
    .bus_master_en        (bus_master_en),
    .stat_desc_count      (wr_desc_done),
    .stat_byte_count      (wr_bytes)
  );

  // ---------------------------------------------------------------------------------------
  // PCIe register block (slave 1): parameters, negotiated settings, counters
  // ---------------------------------------------------------------------------------------
  localparam int PCIE_RC = beryl_regs_pkg::PCIE_REG_COUNT;
  logic [PCIE_RC*32-1:0] pcie_words;

  always_comb begin
    pcie_words = '0;
    pcie_words[32*(beryl_regs_pkg::PCIE_TLP_DATA_W_OFFSET/4) +: 32]    = 32'(TLP_DATA_W);
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_TAG_COUNT_OFFSET/4) +: 32] = 32'(PCIE_TAG_COUNT);
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_LEN_MAX_OFFSET/4) +: 32] = 32'd1 << (LEN_W - 1);
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_WR_LEN_MAX_OFFSET/4) +: 32] = 32'd1 << (LEN_W - 1);
    pcie_words[32*(beryl_regs_pkg::PCIE_RAM_SIZE_OFFSET/4) +: 32]      = 32'd1 << RAM_ADDR_W;
    pcie_words[32*(beryl_regs_pkg::PCIE_LINK_STATUS_OFFSET/4) +: 32]   = {22'd0, link_width, link_speed};
    pcie_words[32*(beryl_regs_pkg::PCIE_HOST_CFG_OFFSET/4) +: 32]      =
        {21'd0, rcb_128, bus_master_en, ext_tag_en, 1'b0, max_read_req_size, 1'b0, max_payload_size};
    pcie_words[32*(beryl_regs_pkg::PCIE_UNMAPPED_RD_COUNT_OFFSET/4) +: 32]     = stat_rd_unmapped;
    pcie_words[32*(beryl_regs_pkg::PCIE_UNMAPPED_WR_COUNT_OFFSET/4) +: 32]     = stat_wr_unmapped;
    pcie_words[32*(beryl_regs_pkg::PCIE_UNSUPPORTED_REQ_COUNT_OFFSET/4) +: 32] = stat_req_unsupported;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_DESC_COUNT_OFFSET/4) +: 32]     = rd_desc_done;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_WR_DESC_COUNT_OFFSET/4) +: 32]     = wr_desc_done;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_ERR_TIMEOUT_COUNT_OFFSET/4) +: 32] = rd_err_timeout;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_ERR_UR_COUNT_OFFSET/4) +: 32]   = rd_err_ur;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_ERR_CA_COUNT_OFFSET/4) +: 32]   = rd_err_ca;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_ERR_POISON_COUNT_OFFSET/4) +: 32] = rd_err_poison;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_BYTES_OFFSET/4) +: 32]          = rd_bytes;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_WR_BYTES_OFFSET/4) +: 32]          = wr_bytes;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_CPL_UNEXPECTED_COUNT_OFFSET/4) +: 32] = rd_cpl_unexpected;
    pcie_words[32*(beryl_regs_pkg::PCIE_DISCARDED_REQ_COUNT_OFFSET/4) +: 32]   = stat_req_discarded;
    pcie_words[32*(beryl_regs_pkg::PCIE_DMA_RD_CPL_DISCARDED_COUNT_OFFSET/4) +: 32] = rd_cpl_discarded;
  end

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_axil_regfile #(
    .ADDR_W        (PCIE_AW),
    .REG_COUNT     (PCIE_RC),
    .BLOCK_TYPE    (beryl_regs_pkg::PCIE_BLOCK_TYPE),
    .BLOCK_VERSION (beryl_regs_pkg::PCIE_BLOCK_VERSION),
    .BLOCK_NEXT    (beryl_regs_pkg::PCIE_BLOCK_NEXT),
    .WR_MASK       ('0)
  ) u_pcie_regs (
    .clk            (clk),
    .rst            (rst),
    .s_axil_awaddr  (s_awaddr[1*BAR0_ADDR_W +: PCIE_AW]),
    .s_axil_awprot  (s_awprot[1*3 +: 3]),
    .s_axil_awvalid (s_awvalid[1]),
    .s_axil_awready (s_awready[1]),
    .s_axil_wdata   (s_wdata[1*32 +: 32]),
    .s_axil_wstrb   (s_wstrb[1*4 +: 4]),
    .s_axil_wvalid  (s_wvalid[1]),
    .s_axil_wready  (s_wready[1]),
    .s_axil_bresp   (s_bresp[1*2 +: 2]),
    .s_axil_bvalid  (s_bvalid[1]),
    .s_axil_bready  (s_bready[1]),
    .s_axil_araddr  (s_araddr[1*BAR0_ADDR_W +: PCIE_AW]),
    .s_axil_arprot  (s_arprot[1*3 +: 3]),
    .s_axil_arvalid (s_arvalid[1]),
    .s_axil_arready (s_arready[1]),
    .s_axil_rdata   (s_rdata[1*32 +: 32]),
    .s_axil_rresp   (s_rresp[1*2 +: 2]),
    .s_axil_rvalid  (s_rvalid[1]),
    .s_axil_rready  (s_rready[1]),
    .reg_rd_data    (pcie_words),
    .reg_wr_en      (),
    .reg_wr_data    (),
    .reg_wr_strb    ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---------------------------------------------------------------------------------------
  // MSI-X register block (slave 2), table and PBA (slave 3)
  // ---------------------------------------------------------------------------------------
  localparam int MSIX_RC = beryl_regs_pkg::MSIX_REG_COUNT;
  localparam int TEST_IRQ_WORD = beryl_regs_pkg::MSIX_TEST_IRQ_OFFSET / 4;
  logic [MSIX_RC*32-1:0] msix_words;
  logic [MSIX_RC-1:0]    msix_wr_en;
  logic [31:0]           msix_wr_data;
  logic [31:0]           msix_sent, msix_deferred;

  always_comb begin
    msix_words = '0;
    msix_words[32*(beryl_regs_pkg::MSIX_VECTOR_COUNT_OFFSET/4) +: 32]       = 32'(MSIX_VECTORS);
    msix_words[32*(beryl_regs_pkg::MSIX_TABLE_OFFSET_OFFSET/4) +: 32]       = beryl_regs_pkg::MSIX_TABLE_BASE;
    msix_words[32*(beryl_regs_pkg::MSIX_PBA_OFFSET_OFFSET/4) +: 32]         = beryl_regs_pkg::MSIX_PBA_BASE;
    msix_words[32*(beryl_regs_pkg::MSIX_MSG_SENT_COUNT_OFFSET/4) +: 32]     = msix_sent;
    msix_words[32*(beryl_regs_pkg::MSIX_MSG_DEFERRED_COUNT_OFFSET/4) +: 32] = msix_deferred;
  end

  /* verilator lint_off PINCONNECTEMPTY */
  beryl_axil_regfile #(
    .ADDR_W        (MSIX_AW),
    .REG_COUNT     (MSIX_RC),
    .BLOCK_TYPE    (beryl_regs_pkg::MSIX_BLOCK_TYPE),
    .BLOCK_VERSION (beryl_regs_pkg::MSIX_BLOCK_VERSION),
    .BLOCK_NEXT    (APP_CHAIN ? beryl_regs_pkg::APP_BASE : beryl_regs_pkg::MSIX_BLOCK_NEXT),
    .WR_MASK       (MSIX_RC'(1) << TEST_IRQ_WORD)
  ) u_msix_regs (
    .clk            (clk),
    .rst            (rst),
    .s_axil_awaddr  (s_awaddr[2*BAR0_ADDR_W +: MSIX_AW]),
    .s_axil_awprot  (s_awprot[2*3 +: 3]),
    .s_axil_awvalid (s_awvalid[2]),
    .s_axil_awready (s_awready[2]),
    .s_axil_wdata   (s_wdata[2*32 +: 32]),
    .s_axil_wstrb   (s_wstrb[2*4 +: 4]),
    .s_axil_wvalid  (s_wvalid[2]),
    .s_axil_wready  (s_wready[2]),
    .s_axil_bresp   (s_bresp[2*2 +: 2]),
    .s_axil_bvalid  (s_bvalid[2]),
    .s_axil_bready  (s_bready[2]),
    .s_axil_araddr  (s_araddr[2*BAR0_ADDR_W +: MSIX_AW]),
    .s_axil_arprot  (s_arprot[2*3 +: 3]),
    .s_axil_arvalid (s_arvalid[2]),
    .s_axil_arready (s_arready[2]),
    .s_axil_rdata   (s_rdata[2*32 +: 32]),
    .s_axil_rresp   (s_rresp[2*2 +: 2]),
    .s_axil_rvalid  (s_rvalid[2]),
    .s_axil_rready  (s_rready[2]),
    .reg_rd_data    (msix_words),
    .reg_wr_en      (msix_wr_en),
    .reg_wr_data    (msix_wr_data),
    .reg_wr_strb    ()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // Test interrupts from the register take a turn with client requests: a pending test
  // request goes first, then clients. A test write while one is pending replaces it.
  localparam int IRQ_W = (MSIX_VECTORS > 1) ? $clog2(MSIX_VECTORS) : 1;
  logic       test_irq_pending_q;
  logic [7:0] test_irq_index_q;
  logic [7:0] mx_irq_index;
  logic       mx_irq_valid;
  logic       mx_irq_ready;

  // A request for a vector the table does not have is taken and dropped (it cannot alias
  // another vector).
  logic irq_in_range;
  assign mx_irq_index = test_irq_pending_q ? test_irq_index_q : irq_index;
  assign irq_in_range = (32'(mx_irq_index) < MSIX_VECTORS);
  assign mx_irq_valid = (test_irq_pending_q || irq_valid) && irq_in_range;
  assign irq_ready    = (mx_irq_ready || !irq_in_range) && !test_irq_pending_q;

  // clocked only with a test request pending or written (beryl_clk_gate): the MSI-X request mux that
  // reads these flops is then evaluated by a C++ model only with a request, not in every cycle
  logic tgclk;

  beryl_clk_gate u_test_irq_gate (
    .clk  (clk),
    .en   (rst || test_irq_pending_q || msix_wr_en[TEST_IRQ_WORD]),
    .gclk (tgclk)
  );

  always_ff @(posedge tgclk) begin
    if (test_irq_pending_q && (mx_irq_ready || !irq_in_range)) test_irq_pending_q <= 1'b0;
    if (msix_wr_en[TEST_IRQ_WORD]) begin
      test_irq_pending_q <= 1'b1;
      test_irq_index_q   <= msix_wr_data[7:0];
    end
    if (rst) test_irq_pending_q <= 1'b0;
  end

  // other write-enable bits are never set (only TEST_IRQ is writable); the upper data bits are
  // ignored: vector numbers fit in 8 bits
  /* verilator lint_off UNUSEDSIGNAL */
  logic [MSIX_RC-1:0] unused_msix_wr_en;
  logic [23:0]        unused_msix_wr_data;
  assign unused_msix_wr_en   = msix_wr_en;
  assign unused_msix_wr_data = msix_wr_data[31:8];
  /* verilator lint_on UNUSEDSIGNAL */

  // MSI-X messages need Bus Master Enable (PCIe 3.0 section 6.8.1.3): without it requests stay
  // pending in the PBA until the host enables both

  beryl_pcie_msix #(
    .TLP_DATA_W   (TLP_DATA_W),
    .VECTOR_COUNT (MSIX_VECTORS),
    .AXIL_ADDR_W  (13),
    .PBA_OFFSET   (beryl_regs_pkg::MSIX_PBA_BASE - beryl_regs_pkg::MSIX_TABLE_BASE)
  ) u_msix (
    .clk                  (clk),
    .rst                  (rst),
    .s_axil_awaddr        (s_awaddr[3*BAR0_ADDR_W +: 13]),
    .s_axil_awprot        (s_awprot[3*3 +: 3]),
    .s_axil_awvalid       (s_awvalid[3]),
    .s_axil_awready       (s_awready[3]),
    .s_axil_wdata         (s_wdata[3*32 +: 32]),
    .s_axil_wstrb         (s_wstrb[3*4 +: 4]),
    .s_axil_wvalid        (s_wvalid[3]),
    .s_axil_wready        (s_wready[3]),
    .s_axil_bresp         (s_bresp[3*2 +: 2]),
    .s_axil_bvalid        (s_bvalid[3]),
    .s_axil_bready        (s_bready[3]),
    .s_axil_araddr        (s_araddr[3*BAR0_ADDR_W +: 13]),
    .s_axil_arprot        (s_arprot[3*3 +: 3]),
    .s_axil_arvalid       (s_arvalid[3]),
    .s_axil_arready       (s_arready[3]),
    .s_axil_rdata         (s_rdata[3*32 +: 32]),
    .s_axil_rresp         (s_rresp[3*2 +: 2]),
    .s_axil_rvalid        (s_rvalid[3]),
    .s_axil_rready        (s_rready[3]),
    .irq_index            (mx_irq_index[IRQ_W-1:0]),
    .irq_valid            (mx_irq_valid),
    .irq_ready            (mx_irq_ready),
    .msix_enable          (msix_enable && bus_master_en),
    .msix_mask            (msix_mask),
    .tx_msix_req_tlp_data  (mxq_data),
    .tx_msix_req_tlp_strb  (mxq_strb),
    .tx_msix_req_tlp_hdr   (mxq_hdr),
    .tx_msix_req_tlp_sop   (mxq_sop),
    .tx_msix_req_tlp_eop   (mxq_eop),
    .tx_msix_req_tlp_valid (mxq_valid),
    .tx_msix_req_tlp_ready (mxq_ready),
    .stat_msg_count       (msix_sent),
    .stat_deferred_count  (msix_deferred)
  );

  // ---------------------------------------------------------------------------------------
  // application window (slave 4)
  // ---------------------------------------------------------------------------------------
  assign m_axil_app_awaddr  = s_awaddr[4*BAR0_ADDR_W +: APP_ADDR_W];
  assign m_axil_app_awprot  = s_awprot[4*3 +: 3];
  assign m_axil_app_awvalid = s_awvalid[4];
  assign s_awready[4]       = m_axil_app_awready;
  assign m_axil_app_wdata   = s_wdata[4*32 +: 32];
  assign m_axil_app_wstrb   = s_wstrb[4*4 +: 4];
  assign m_axil_app_wvalid  = s_wvalid[4];
  assign s_wready[4]        = m_axil_app_wready;
  assign s_bresp[4*2 +: 2]  = m_axil_app_bresp;
  assign s_bvalid[4]        = m_axil_app_bvalid;
  assign m_axil_app_bready  = s_bready[4];
  assign m_axil_app_araddr  = s_araddr[4*BAR0_ADDR_W +: APP_ADDR_W];
  assign m_axil_app_arprot  = s_arprot[4*3 +: 3];
  assign m_axil_app_arvalid = s_arvalid[4];
  assign s_arready[4]       = m_axil_app_arready;
  assign s_rdata[4*32 +: 32] = m_axil_app_rdata;
  assign s_rresp[4*2 +: 2]  = m_axil_app_rresp;
  assign s_rvalid[4]        = m_axil_app_rvalid;
  assign m_axil_app_rready  = s_rready[4];

  // ---------------------------------------------------------------------------------------
  // request mux: DMA reads, DMA writes, MSI-X writes
  // ---------------------------------------------------------------------------------------
  beryl_pcie_tlp_mux #(
    .TLP_DATA_W (TLP_DATA_W),
    .PORTS      (3)
  ) u_req_mux (
    .clk             (clk),
    .rst             (rst),
    .s_tlp_data      ({mxq_data, wrq_data, rdq_data}),
    .s_tlp_strb      ({mxq_strb, wrq_strb, rdq_strb}),
    .s_tlp_hdr       ({mxq_hdr, wrq_hdr, rdq_hdr}),
    .s_tlp_sop       ({mxq_sop, wrq_sop, rdq_sop}),
    .s_tlp_eop       ({mxq_eop, wrq_eop, rdq_eop}),
    .s_tlp_valid     ({mxq_valid, wrq_valid, rdq_valid}),
    .s_tlp_ready     ({mxq_ready, wrq_ready, rdq_ready}),
    .m_tlp_data      (tx_req_tlp_data),
    .m_tlp_strb      (tx_req_tlp_strb),
    .m_tlp_hdr       (tx_req_tlp_hdr),
    .m_tlp_sop       (tx_req_tlp_sop),
    .m_tlp_eop       (tx_req_tlp_eop),
    .m_tlp_valid     (tx_req_tlp_valid),
    .m_tlp_ready     (tx_req_tlp_ready)
  );

endmodule

`resetall
