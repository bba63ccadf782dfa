// SPDX-License-Identifier: MIT
// BAR to AXI-Lite bridge: turns the host's memory reads and writes to one BAR into 32-bit
// AXI-Lite accesses, one DW at a time, and answers reads with a completion. Every request gets a
// defined outcome: decode errors read as all-ones and are counted; unsupported requests are
// counted and, once their last beat is taken, answered with UR when non-posted (reads, IO,
// configuration, atomics, with or without data) or dropped when posted (memory writes, messages).
// A request the PCIe core discontinued (rx_req_tlp_bad with its last beat) is discarded and
// counted: not acted on, not answered. Writes are carried out beat by beat, so of a write longer
// than one stream beat (16 DW at 512 bits, 8 at 256) only the DWs of its last beat are discarded.
// Throughput: one DW per ~3 cycles.
`default_nettype none

module beryl_pcie_axil_master #(
  parameter int TLP_DATA_W  = 512,              // TLP stream width, bits: 256 or 512
  parameter int TLP_STRB_W  = TLP_DATA_W / 32,
  parameter int AXIL_ADDR_W = 24,               // BAR size is 2^AXIL_ADDR_W bytes, 12..32
  parameter int BAR_ID      = 0                 // the BAR this bridge serves
) (
  input  wire logic                   clk,
  input  wire logic                   rst,

  // host requests (from the hard IP's completer request interface)
  input  wire logic [TLP_DATA_W-1:0]  rx_req_tlp_data,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [TLP_STRB_W-1:0]  rx_req_tlp_strb,   // the header's length and BEs say which DWs count
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic [127:0]           rx_req_tlp_hdr,
  input  wire logic [2:0]             rx_req_tlp_bar_id,
  input  wire logic                   rx_req_tlp_sop,
  input  wire logic                   rx_req_tlp_eop,
  input  wire logic                   rx_req_tlp_bad,    // with eop: the core discontinued it
  input  wire logic                   rx_req_tlp_valid,
  output logic                        rx_req_tlp_ready,

  // completions to the host
  output logic [TLP_DATA_W-1:0]       tx_cpl_tlp_data,
  output logic [TLP_STRB_W-1:0]       tx_cpl_tlp_strb,
  output logic [127:0]                tx_cpl_tlp_hdr,
  output logic                        tx_cpl_tlp_sop,
  output logic                        tx_cpl_tlp_eop,
  output logic                        tx_cpl_tlp_valid,
  input  wire logic                   tx_cpl_tlp_ready,

  // AXI-Lite master
  output logic [AXIL_ADDR_W-1:0]      m_axil_awaddr,
  output logic [2:0]                  m_axil_awprot,
  output logic                        m_axil_awvalid,
  input  wire logic                   m_axil_awready,
  output logic [31:0]                 m_axil_wdata,
  output logic [3:0]                  m_axil_wstrb,
  output logic                        m_axil_wvalid,
  input  wire logic                   m_axil_wready,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [1:0]             m_axil_bresp,      // bit 1 set: SLVERR or DECERR
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   m_axil_bvalid,
  output logic                        m_axil_bready,
  output logic [AXIL_ADDR_W-1:0]      m_axil_araddr,
  output logic [2:0]                  m_axil_arprot,
  output logic                        m_axil_arvalid,
  input  wire logic                   m_axil_arready,
  input  wire logic [31:0]            m_axil_rdata,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [1:0]             m_axil_rresp,      // bit 1 set: SLVERR or DECERR
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   m_axil_rvalid,
  output logic                        m_axil_rready,

  // statistics (32-bit, wrapping)
  output logic [31:0]                 stat_rd_unmapped,     // reads that hit no register (DECERR/SLVERR)
  output logic [31:0]                 stat_wr_unmapped,     // writes that hit no register
  output logic [31:0]                 stat_req_unsupported, // wrong BAR, non-memory type, reads over one beat
  output logic [31:0]                 stat_req_discarded    // discontinued by the core (rx_req_tlp_bad)
);

  localparam int MAX_RD_DW = TLP_STRB_W;   // a read is answered in one completion beat

  if (AXIL_ADDR_W < 12 || AXIL_ADDR_W > 32) begin : g_chk_addr
    $error("%m: AXIL_ADDR_W must be 12..32");
  end

  typedef enum logic [2:0] {
    S_IDLE, S_RD_ADDR, S_RD_DATA, S_WR_ADDR, S_WR_RESP, S_WR_NEXT, S_CPL, S_DRAIN
  } state_t;

  state_t state_q;

  // request fields held while the request is served
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_pcie_pkg::tlp_mem_hdr_t req_q;          // processing hints (ph) are not used
  /* verilator lint_on UNUSEDSIGNAL */
  logic [TLP_DATA_W-1:0]        beat_q;         // current beat of write payload
  logic [10:0]                  len_dw_q;       // request length in DW
  logic [10:0]                  dw_q;           // DW being served
  logic [AXIL_ADDR_W-1:0]       addr_q;         // AXI-Lite address of DW dw_q
  logic [TLP_DATA_W-1:0]        rd_data_q;      // read data gathered for the completion
  logic [2:0]                   cpl_status_q;
  logic                         cpl_data_q;     // completion carries data
  logic                         ur_q;           // S_DRAIN: answer the drained request with UR

  beryl_pcie_pkg::tlp_mem_hdr_t in_hdr;
  assign in_hdr = rx_req_tlp_hdr;  // same width: a packed struct takes the vector as it is

  logic [10:0] in_len_dw;
  logic        in_is_mem;
  logic        in_has_data;
  logic        in_posted;
  logic        in_bar_ok;
  assign in_len_dw   = (in_hdr.dw0.length == 10'd0) ? 11'd1024 : {1'b0, in_hdr.dw0.length};
  assign in_is_mem   = (in_hdr.dw0.tlp_type == beryl_pcie_pkg::TYPE_MEM);
  assign in_has_data = in_hdr.dw0.fmt[1];
  // posted requests (PCIe 3.0 table 2-3): memory writes and messages (type 10rrr); every other
  // request expects a completion
  assign in_posted   = (in_is_mem && in_has_data) || in_hdr.dw0.tlp_type[4:3] == 2'b10;
  assign in_bar_ok   = (32'(rx_req_tlp_bar_id) == BAR_ID);

  // byte enables of the DW being served
  logic [3:0] dw_be;
  always_comb begin
    if (dw_q == 11'd0)               dw_be = req_q.first_be;
    else if (dw_q == len_dw_q - 1)   dw_be = req_q.last_be;
    else                             dw_be = 4'hf;
  end

  // DW dw_q of the write payload within the current beat
  logic [$clog2(TLP_STRB_W)-1:0] dw_lane;
  assign dw_lane = dw_q[$clog2(TLP_STRB_W)-1:0];

  // completion fields (PCIe 3.0 section 2.3.1.1: byte count and lower address of a read)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [12:0] rd_byte_count;   // at most one beat (64 bytes) here: bit 12 is always zero
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]  first_off;
  always_comb begin
    first_off = req_q.first_be[0] ? 2'd0 : req_q.first_be[1] ? 2'd1 : req_q.first_be[2] ? 2'd2 :
                req_q.first_be[3] ? 2'd3 : 2'd0;
    if (len_dw_q == 11'd1) begin
      casez (req_q.first_be)
        4'b1??1: rd_byte_count = 13'd4;
        4'b01?1, 4'b1?10: rd_byte_count = 13'd3;
        4'b0011, 4'b0110, 4'b1100: rd_byte_count = 13'd2;
        default: rd_byte_count = 13'd1;   // single byte, or zero-length read
      endcase
    end else begin
      rd_byte_count = {len_dw_q, 2'b00} - 13'(first_off)
                    - (req_q.last_be[3] ? 13'd0 : req_q.last_be[2] ? 13'd1 : req_q.last_be[1] ? 13'd2 : 13'd3);
    end
  end

  beryl_pcie_pkg::tlp_cpl_hdr_t cpl_hdr;
  always_comb begin
    cpl_hdr              = '0;
    cpl_hdr.dw0.fmt      = cpl_data_q ? beryl_pcie_pkg::FMT_3DW_DATA : beryl_pcie_pkg::FMT_3DW_NODATA;
    cpl_hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_CPL;
    cpl_hdr.dw0.tc       = req_q.dw0.tc;
    cpl_hdr.dw0.attr     = req_q.dw0.attr;
    cpl_hdr.dw0.attr2    = req_q.dw0.attr2;
    cpl_hdr.dw0.length   = cpl_data_q ? len_dw_q[9:0] : 10'd0;
    cpl_hdr.status       = cpl_status_q;
    cpl_hdr.byte_count   = cpl_data_q ? rd_byte_count[11:0] : 12'd0;
    cpl_hdr.requester_id = req_q.requester_id;
    cpl_hdr.tag          = req_q.tag;
    cpl_hdr.lower_addr   = cpl_data_q ? {req_q.addr[4:0], first_off} : 7'd0;
  end

  assign tx_cpl_tlp_data  = rd_data_q;
  assign tx_cpl_tlp_strb  = cpl_data_q ? TLP_STRB_W'((TLP_STRB_W + 1)'(1) << len_dw_q) - TLP_STRB_W'(1) : '0;
  assign tx_cpl_tlp_hdr   = cpl_hdr;
  assign tx_cpl_tlp_sop   = 1'b1;
  assign tx_cpl_tlp_eop   = 1'b1;
  assign tx_cpl_tlp_valid = (state_q == S_CPL);

  assign m_axil_awprot = 3'b010;   // unprivileged, non-secure, data
  assign m_axil_arprot = 3'b010;
  assign m_axil_awaddr = addr_q;
  assign m_axil_araddr = addr_q;
  assign m_axil_wdata  = beat_q[32*dw_lane +: 32];
  assign m_axil_wstrb  = dw_be;
  assign m_axil_bready = (state_q == S_WR_RESP);
  assign m_axil_rready = (state_q == S_RD_DATA);

  logic aw_done_q;
  logic w_done_q;
  assign m_axil_awvalid = (state_q == S_WR_ADDR) && !aw_done_q;
  assign m_axil_wvalid  = (state_q == S_WR_ADDR) && !w_done_q;
  assign m_axil_arvalid = (state_q == S_RD_ADDR);

  // input is taken: the first beat when a request starts, later beats of a write when its
  // previous beat's DWs are done, and every beat of a request being drained
  logic dw_last_lane;
  assign dw_last_lane = (dw_lane == $clog2(TLP_STRB_W)'(TLP_STRB_W - 1));
  assign rx_req_tlp_ready = (state_q == S_IDLE) || (state_q == S_DRAIN) ||
                            ((state_q == S_WR_NEXT) && dw_last_lane && (dw_q + 11'd1 != len_dw_q));

  // Clock gate: each state's flops change only with the handshake it waits for: a beat at the input
  // (S_IDLE: a request starts or a stray beat is counted; S_DRAIN), arready, rvalid, awready or wready
  // (or a DW with no byte to write), bvalid, the completion taken; S_WR_NEXT always moves on. While a
  // state waits (an AXI-Lite slave not answering yet, the completion not taken), nothing changes.
  logic gclk;
  logic gate_en;

  always_comb begin
    case (state_q)
      S_IDLE, S_DRAIN: gate_en = rx_req_tlp_valid;
      S_RD_ADDR:       gate_en = m_axil_arready;
      S_RD_DATA:       gate_en = m_axil_rvalid;
      S_WR_ADDR:       gate_en = dw_be == 4'h0 || m_axil_awready || m_axil_wready;
      S_WR_RESP:       gate_en = m_axil_bvalid;
      S_CPL:           gate_en = tx_cpl_tlp_ready;
      default:         gate_en = 1'b1;
    endcase
  end

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || gate_en),
    .gclk (gclk)
  );

  always_ff @(posedge gclk) begin
    case (state_q)
      S_IDLE: begin
        if (rx_req_tlp_valid && !rx_req_tlp_sop) begin
          // a stray beat outside a TLP: taken and counted, never acted on
          stat_req_unsupported <= stat_req_unsupported + 32'd1;
        end else if (rx_req_tlp_valid && rx_req_tlp_eop && rx_req_tlp_bad) begin
          // a one-beat request the core discontinued: discarded whole
          stat_req_discarded <= stat_req_discarded + 32'd1;
        end else if (rx_req_tlp_valid) begin
          req_q      <= in_hdr;
          beat_q     <= rx_req_tlp_data;
          len_dw_q   <= in_len_dw;
          dw_q       <= '0;
          addr_q     <= {in_hdr.addr[AXIL_ADDR_W-3:0], 2'b00};
          rd_data_q  <= '0;
          aw_done_q  <= 1'b0;
          w_done_q   <= 1'b0;
          if (!in_bar_ok || !in_is_mem || (!in_has_data && in_len_dw > 11'(MAX_RD_DW))) begin
            stat_req_unsupported <= stat_req_unsupported + 32'd1;
            // take the whole TLP, then UR a non-posted request; a posted one is dropped
            cpl_status_q <= beryl_pcie_pkg::CPL_UR;
            cpl_data_q   <= 1'b0;
            ur_q         <= !in_posted;
            state_q      <= !rx_req_tlp_eop ? S_DRAIN : in_posted ? S_IDLE : S_CPL;
          end else if (in_has_data) begin
            state_q <= S_WR_ADDR;
          end else begin
            cpl_status_q <= beryl_pcie_pkg::CPL_SC;
            cpl_data_q   <= 1'b1;
            state_q      <= S_RD_ADDR;
          end
        end
      end
      S_RD_ADDR: if (m_axil_arready) state_q <= S_RD_DATA;
      S_RD_DATA: begin
        if (m_axil_rvalid) begin
          // a decode or slave error reads as all-ones, like a missing device
          rd_data_q[32*dw_lane +: 32] <= (m_axil_rresp[1]) ? 32'hffff_ffff : m_axil_rdata;
          if (m_axil_rresp[1]) stat_rd_unmapped <= stat_rd_unmapped + 32'd1;
          dw_q   <= dw_q + 11'd1;
          addr_q <= addr_q + AXIL_ADDR_W'(4);
          state_q <= (dw_q + 11'd1 == len_dw_q) ? S_CPL : S_RD_ADDR;
        end
      end
      S_WR_ADDR: begin
        if (dw_be == 4'h0) begin
          state_q <= S_WR_NEXT;   // nothing to write in this DW
        end else begin
          if (m_axil_awready) aw_done_q <= 1'b1;
          if (m_axil_wready) w_done_q <= 1'b1;
          if ((aw_done_q || m_axil_awready) && (w_done_q || m_axil_wready)) state_q <= S_WR_RESP;
        end
      end
      S_WR_RESP: begin
        if (m_axil_bvalid) begin
          if (m_axil_bresp[1]) stat_wr_unmapped <= stat_wr_unmapped + 32'd1;
          state_q <= S_WR_NEXT;
        end
      end
      S_WR_NEXT: begin
        // next DW; a new beat is needed when the next DW starts one
        aw_done_q <= 1'b0;
        w_done_q  <= 1'b0;
        if (dw_q + 11'd1 == len_dw_q) begin
          state_q <= S_IDLE;
        end else if (!dw_last_lane) begin
          dw_q    <= dw_q + 11'd1;
          addr_q  <= addr_q + AXIL_ADDR_W'(4);
          state_q <= S_WR_ADDR;
        end else if (rx_req_tlp_valid && rx_req_tlp_eop && rx_req_tlp_bad) begin
          // the write's last beat says the core discontinued it: that beat's DWs are not written
          stat_req_discarded <= stat_req_discarded + 32'd1;
          state_q            <= S_IDLE;
        end else if (rx_req_tlp_valid) begin
          beat_q  <= rx_req_tlp_data;
          dw_q    <= dw_q + 11'd1;
          addr_q  <= addr_q + AXIL_ADDR_W'(4);
          state_q <= S_WR_ADDR;
        end
      end
      S_CPL: if (tx_cpl_tlp_ready) state_q <= S_IDLE;
      S_DRAIN: begin
        // an unsupported request the core discontinued is discarded: no UR for it
        if (rx_req_tlp_valid && rx_req_tlp_eop) state_q <= (ur_q && !rx_req_tlp_bad) ? S_CPL : S_IDLE;
        if (rx_req_tlp_valid && rx_req_tlp_eop && rx_req_tlp_bad) stat_req_discarded <= stat_req_discarded + 32'd1;
      end
      default: state_q <= S_IDLE;
    endcase
    if (rst) begin
      state_q              <= S_IDLE;
      stat_rd_unmapped     <= '0;
      stat_wr_unmapped     <= '0;
      stat_req_unsupported <= '0;
      stat_req_discarded   <= '0;
    end
  end

endmodule

`resetall
