// SPDX-License-Identifier: MIT
// System-test wrapper of the NIC with MACs (beryl_nic_us_mac_top) on the UltraScale+ PCIe model: flat
// port 0 (interface 0) and port 1 (interface 1) are cabled to each other through a wire of WIRE_DELAY
// registers per direction (a CGMII word on port 0's cgmii_txd in cycle c is on port 1's cgmii_rxd in cycle
// c + WIRE_DELAY, and back). wire_xor is XORed into every word entering the 0 -> 1 wire (the test flips a
// byte of one chosen frame with it). The PTP time of day and the MAC counters are brought out for the test.
`default_nettype none

module tb_beryl_nic_us_mac_top #(
  parameter int  IF_COUNT       = 2,      // 2 only: the two interfaces are cabled to each other
  parameter int  PORT_COUNT     = 1,      // 1 only
  parameter int  TXQ_COUNT      = 16,
  parameter int  RXQ_COUNT      = 4,
  parameter int  CQ_COUNT       = 32,
  parameter int  EQ_COUNT       = 2,
  parameter int  TX_SLOTS       = 16,
  parameter int  RX_SLOTS       = 16,
  parameter int  MAX_FRAME      = 16384,
  parameter int  TIMEOUT_CYCLES = 20000,
  parameter int  MSIX_VECTORS   = 32,
  parameter int  WIRE_DELAY     = 7,      // registers per direction in the cable, >= 1
  parameter bit  RQ_STRADDLE    = 1'b1,   // read by tb/common/beryl_pcie_tb.py
  parameter bit  RC_STRADDLE    = 1'b1,
  parameter logic [31:0] GIT_HASH = 32'h1234abcd,
  parameter int  AXIS_CQ_USER_W = 183,
  parameter int  AXIS_CC_USER_W = 81,
  parameter int  AXIS_RQ_USER_W = 137,
  parameter int  AXIS_RC_USER_W = 161,
  parameter int  TLP_DATA_W     = 512,
  parameter int  NP             = IF_COUNT * PORT_COUNT
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
  // the cable: both ends' CGMII words (monitored by the test) and the corruption input
  output logic [NP*512-1:0]               cgmii_txd,
  output logic [NP*64-1:0]                cgmii_txc,
  output logic [NP*512-1:0]               cgmii_rxd,
  output logic [NP*64-1:0]                cgmii_rxc,
  input  wire logic [511:0]               wire_xor,
  output logic [NP*32-1:0]                tx_underflow_count,
  output logic [NP*32-1:0]                rx_mac_drop_count,
  output logic [NP*32-1:0]                rx_mac_short_count,
  output logic [NP*32-1:0]                rx_fifo_drop_count,
  output logic [NP*32-1:0]                rx_fifo_cut_count,
  output logic [95:0]                     ptp_tod
);

  if (NP != 2 || WIRE_DELAY < 1) begin : g_chk
    $error("%m: two ports in all (IF_COUNT 2, PORT_COUNT 1) and WIRE_DELAY >= 1");
  end

  beryl_nic_us_mac_top #(
    .IF_COUNT       (IF_COUNT),
    .PORT_COUNT     (PORT_COUNT),
    .TXQ_COUNT      (TXQ_COUNT),
    .RXQ_COUNT      (RXQ_COUNT),
    .CQ_COUNT       (CQ_COUNT),
    .EQ_COUNT       (EQ_COUNT),
    .TX_SLOTS       (TX_SLOTS),
    .RX_SLOTS       (RX_SLOTS),
    .MAX_FRAME      (MAX_FRAME),
    .TIMEOUT_CYCLES (TIMEOUT_CYCLES),
    .MSIX_VECTORS   (MSIX_VECTORS),
    .RQ_STRADDLE    (RQ_STRADDLE),
    .RC_STRADDLE    (RC_STRADDLE),
    .GIT_HASH       (GIT_HASH)
  ) u_nic (
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
    .cfg_negotiated_width      (cfg_negotiated_width),
    .cfg_current_speed         (cfg_current_speed),
    .cgmii_txd                 (cgmii_txd),
    .cgmii_txc                 (cgmii_txc),
    .cgmii_rxd                 (cgmii_rxd),
    .cgmii_rxc                 (cgmii_rxc),
    .tx_underflow_count        (tx_underflow_count),
    .rx_mac_drop_count         (rx_mac_drop_count),
    .rx_mac_short_count        (rx_mac_short_count),
    .rx_fifo_drop_count        (rx_fifo_drop_count),
    .rx_fifo_cut_count         (rx_fifo_cut_count),
    .ptp_tod                   (ptp_tod),
    .ptp_tod_step              (),
    .ptp_pps                   (),
    .ptp_perout                ()
  );

  // the cable: WIRE_DELAY registers each way, idle (all /I/) after reset
  for (genvar p = 0; p < 2; p++) begin : g_wire
    logic [511:0] d_q [WIRE_DELAY];
    logic [63:0]  c_q [WIRE_DELAY];
    always_ff @(posedge clk) begin
      d_q[0] <= cgmii_txd[p*512 +: 512] ^ ((p == 0) ? wire_xor : 512'd0);
      c_q[0] <= cgmii_txc[p*64 +: 64];
      for (int k = 1; k < WIRE_DELAY; k++) begin
        d_q[k] <= d_q[k-1];
        c_q[k] <= c_q[k-1];
      end
      if (rst) begin
        for (int k = 0; k < WIRE_DELAY; k++) begin
          d_q[k] <= {64{8'h07}};
          c_q[k] <= '1;
        end
      end
    end
    assign cgmii_rxd[(1-p)*512 +: 512] = d_q[WIRE_DELAY-1];
    assign cgmii_rxc[(1-p)*64 +: 64]   = c_q[WIRE_DELAY-1];
  end

endmodule

`resetall
