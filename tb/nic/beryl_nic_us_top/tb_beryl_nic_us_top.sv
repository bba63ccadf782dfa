// SPDX-License-Identifier: MIT
// System-test wrapper: the NIC on the UltraScale+ PCIe model with its ports looped back on the
// MAC side. LOOP = 0: each port's TX stream feeds its own RX; LOOP = 1: ports are cabled in pairs
// (flat port 2k <-> 2k+1, so with two interfaces of one port each, interface 0 <-> interface 1).
// One register stage per direction stands in for the cable. LOOP = 2 (benchmark): every TX port
// drains into a sink that accepts at exactly LINE_GBPS line rate (charging per frame the preamble
// and SFD, the FCS the MAC appends and the 12-byte gap: 24 bytes), and every RX port is fed by a
// generator that sends gen_count frames of gen_len bytes back to back at that line rate.
`default_nettype none

module tb_beryl_nic_us_top #(
  parameter int  IF_COUNT       = 1,
  parameter int  PORT_COUNT     = 1,
  parameter int  TXQ_COUNT      = 256,
  parameter int  RXQ_COUNT      = 16,
  parameter int  CQ_COUNT       = 512,
  parameter int  EQ_COUNT       = 4,
  parameter int  TX_SLOTS       = 16,
  parameter int  RX_SLOTS       = 16,
  parameter int  MAX_FRAME      = 16384,
  parameter int  TIMEOUT_CYCLES = 20000,
  parameter int  MSIX_VECTORS   = 32,
  parameter int  LOOP           = 0,
  parameter int  LINE_GBPS      = 100,    // LOOP = 2: line rate of the sink and the generator
  parameter int  TX_SCHED       = 0,      // the ports' TX scheduler (beryl_nic_us_top)
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
  // LOOP = 2 only: frame generator into the RX ports
  input  wire logic [15:0]                gen_len,
  input  wire logic [31:0]                gen_count,
  input  wire logic                       gen_start,   // pulse: start sending gen_count frames
  output logic [31:0]                     gen_sent,
  // the NIC's PTP time of day (for tests that check TDMA slots)
  output logic [95:0]                     ptp_tod
);

  logic [NP*512-1:0] tx_tdata;
  logic [NP*64-1:0]  tx_tkeep;
  logic [NP-1:0]     tx_tvalid, tx_tready, tx_tlast;
  logic [NP*512-1:0] rx_tdata;
  logic [NP*64-1:0]  rx_tkeep;
  logic [NP-1:0]     rx_tvalid, rx_tready, rx_tlast;

  beryl_nic_us_top #(
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
    .GIT_HASH       (GIT_HASH),
    .TX_SCHED       (TX_SCHED)
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
    .m_axis_tx_tdata           (tx_tdata),
    .m_axis_tx_tkeep           (tx_tkeep),
    .m_axis_tx_tvalid          (tx_tvalid),
    .m_axis_tx_tready          (tx_tready),
    .m_axis_tx_tlast           (tx_tlast),
    .m_axis_tx_tag             (),          // TX_TS_SRC 0: the interfaces stamp TX themselves
    .s_tx_ts_valid             ({NP{1'b0}}),
    .s_tx_ts_tag               ('0),
    .s_tx_ts                   ('0),
    .s_axis_rx_tdata           (rx_tdata),
    .s_axis_rx_tkeep           (rx_tkeep),
    .s_axis_rx_tvalid          (rx_tvalid),
    .s_axis_rx_tready          (rx_tready),
    .s_axis_rx_tlast           (rx_tlast),
    .s_axis_rx_tuser           ({NP{1'b0}}),
    .s_axis_rx_ts              ('0),        // RX_TS_SRC 0: stamped at the port input
    .ptp_tod                   (ptp_tod),
    .ptp_tod_step              (),
    .ptp_pps                   (),
    .ptp_perout                ()
  );

  if (LOOP == 2) begin : g_bench
    // bytes of line time per clock at 250 MHz, times 4 to keep it integral at 10G steps
    localparam int CREDIT4 = LINE_GBPS * 4 * 1000 / 8 / 250;
    logic [31:0] sent_q, left_q;
    logic [15:0] pos_q;        // byte offset of the next beat in the current frame
    integer      gcred_q;      // generator credit, quarter bytes
    for (genvar p = 0; p < NP; p++) begin : g_port
      // TX sink: accept a beat when the credit is not negative; charge its bytes (+24 at the end)
      integer cred_q;
      logic [6:0] nbytes;
      always_comb begin
        nbytes = 7'd0;
        for (int b = 0; b < 64; b++) nbytes = nbytes + 7'(tx_tkeep[p*64 + b]);
      end
      assign tx_tready[p] = cred_q >= 0;
      always_ff @(posedge clk) begin
        cred_q <= cred_q + CREDIT4 - ((tx_tvalid[p] && tx_tready[p]) ?
                  4 * (int'(nbytes) + (tx_tlast[p] ? 24 : 0)) : 0);
        if (cred_q > 4 * 64) cred_q <= 4 * 64 - ((tx_tvalid[p] && tx_tready[p]) ?
                  4 * (int'(nbytes) + (tx_tlast[p] ? 24 : 0)) : 0);
        if (rst) cred_q <= 0;
      end
      // generator: the same frame on every RX port (ports are fed in lock step)
      assign rx_tvalid[p]           = left_q != 0 && gcred_q >= 0;
      assign rx_tlast[p]            = 32'(pos_q) + 64 >= 32'(gen_len);
      assign rx_tkeep[p*64 +: 64]   = rx_tlast[p] ? ~(64'hffffffffffffffff << (gen_len - pos_q)) : '1;
      for (genvar w = 0; w < 16; w++) begin : g_word
        // frame bytes: a local-EtherType header, then the frame number and byte offset
        assign rx_tdata[p*512 + w*32 +: 32] = (pos_q == 0 && w < 4) ?
            ((w == 0) ? 32'h00000002 : (w == 1) ? 32'h00020100 : (w == 2) ? 32'h00000000 : 32'h0000b588) :
            {sent_q[15:0], pos_q + 16'(w * 4)};
      end
    end
    logic go;
    assign go = rx_tvalid[0] && (&rx_tready);
    always_ff @(posedge clk) begin
      gcred_q <= gcred_q + CREDIT4;
      if (gcred_q > 4 * 64) gcred_q <= 4 * 64;
      if (go) begin
        gcred_q <= gcred_q + CREDIT4 -
                   4 * ((rx_tlast[0] ? 32'(gen_len) - 32'(pos_q) : 32'd64) + (rx_tlast[0] ? 24 : 0));
        pos_q   <= rx_tlast[0] ? 16'd0 : pos_q + 16'd64;
        if (rx_tlast[0]) begin
          sent_q <= sent_q + 1;
          left_q <= left_q - 1;
        end
      end
      if (gen_start) begin
        left_q <= gen_count;
        pos_q  <= '0;
      end
      if (rst) begin
        gcred_q <= 0;
        sent_q  <= '0;
        left_q  <= '0;
        pos_q   <= '0;
      end
    end
    assign gen_sent = sent_q;
  end else begin : g_cable
  assign gen_sent = '0;
  for (genvar p = 0; p < NP; p++) begin : g_loop
    localparam int Q = (LOOP == 1) ? (p ^ 1) : p;   // port that receives what p sends
    logic [511:0] d_q;
    logic [63:0]  k_q;
    logic         v_q, l_q;
    assign tx_tready[p] = !v_q || rx_tready[Q];
    always_ff @(posedge clk) begin
      if (tx_tready[p]) begin
        v_q <= tx_tvalid[p];
        d_q <= tx_tdata[p*512 +: 512];
        k_q <= tx_tkeep[p*64 +: 64];
        l_q <= tx_tlast[p];
      end
      if (rst) v_q <= 1'b0;
    end
    assign rx_tvalid[Q]           = v_q;
    assign rx_tdata[Q*512 +: 512] = d_q;
    assign rx_tkeep[Q*64 +: 64]   = k_q;
    assign rx_tlast[Q]            = l_q;
  end
  end

endmodule

`resetall
