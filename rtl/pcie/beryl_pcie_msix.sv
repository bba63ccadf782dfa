// SPDX-License-Identifier: MIT
// MSI-X table and Pending Bit Array (PCIe 3.0 section 6.8.2) behind an AXI-Lite slave, and the
// message sender. An interrupt request sets its vector's pending bit; a scanner (32 vectors per
// cycle) sends pending vectors that are unmasked as 1-DW memory writes. About 4 cycles from
// request to TLP for an unmasked vector (plus up to VECTOR_COUNT/32 scan cycles).
//
// Requests for a vector whose message has not gone out yet merge into that one message
// (the PBA holds one bit per vector). Requests while MSI-X is disabled are held as pending,
// like masked ones, and go out once MSI-X is enabled and unmasked.
`default_nettype none

module beryl_pcie_msix #(
  parameter int VECTOR_COUNT = 32,   // MSI-X table entries, 1..2048
  // PBA byte offset in this block's window: QWORD aligned, at or above the table's end
  // (PCIe 3.0 section 6.8.2.4). Default: 0x800, or the table size rounded up to 4 KiB.
  parameter int PBA_OFFSET   = (VECTOR_COUNT * 16 <= 2048) ? 2048 : ((VECTOR_COUNT * 16 + 4095) / 4096) * 4096,
  // AXI-Lite byte address width; the window must hold the PBA. Default: just enough.
  parameter int AXIL_ADDR_W  = $clog2(PBA_OFFSET + ((VECTOR_COUNT + 63) / 64) * 8),
  parameter int TLP_DATA_W   = 512,  // TLP stream data width in bits: 256 or 512
  parameter int IRQ_INDEX_W  = (VECTOR_COUNT > 1) ? $clog2(VECTOR_COUNT) : 1  // irq_index width
) (
  input  wire                      clk,
  input  wire                      rst,

  // AXI-Lite slave: table at offset 0, PBA at PBA_OFFSET
  input  wire [AXIL_ADDR_W-1:0]    s_axil_awaddr,
  input  wire [2:0]                s_axil_awprot,
  input  wire                      s_axil_awvalid,
  output logic                     s_axil_awready,
  input  wire [31:0]               s_axil_wdata,
  input  wire [3:0]                s_axil_wstrb,
  input  wire                      s_axil_wvalid,
  output logic                     s_axil_wready,
  output logic [1:0]               s_axil_bresp,
  output logic                     s_axil_bvalid,
  input  wire                      s_axil_bready,
  input  wire [AXIL_ADDR_W-1:0]    s_axil_araddr,
  input  wire [2:0]                s_axil_arprot,
  input  wire                      s_axil_arvalid,
  output logic                     s_axil_arready,
  output logic [31:0]              s_axil_rdata,
  output logic [1:0]               s_axil_rresp,
  output logic                     s_axil_rvalid,
  input  wire                      s_axil_rready,

  // Interrupt requests from on-chip clients
  input  wire [IRQ_INDEX_W-1:0]    irq_index,
  input  wire                      irq_valid,
  output logic                     irq_ready,

  // MSI-X Message Control bits of the capability (PCIe 3.0 section 7.7.2)
  input  wire                      msix_enable,
  input  wire                      msix_mask,      // Function Mask

  // Message writes towards tx_req
  output logic [127:0]             tx_msix_req_tlp_hdr,
  output logic [TLP_DATA_W-1:0]    tx_msix_req_tlp_data,
  output logic [TLP_DATA_W/32-1:0] tx_msix_req_tlp_strb,
  output logic                     tx_msix_req_tlp_sop,
  output logic                     tx_msix_req_tlp_eop,
  output logic                     tx_msix_req_tlp_valid,
  input  wire                      tx_msix_req_tlp_ready,

  // Statistics (wrap at 2^32)
  output logic [31:0]              stat_msg_count,       // messages sent
  output logic [31:0]              stat_deferred_count   // requests that arrived masked or disabled
);

  localparam int TABLE_BYTES = VECTOR_COUNT * 16;
  localparam int WORDS       = (VECTOR_COUNT + 31) / 32;      // 32-vector groups
  localparam int WORD_W      = (WORDS > 1) ? $clog2(WORDS) : 1;
  localparam int VIDX_W      = $clog2(WORDS * 32);             // vector index incl. padding
  localparam int TBL_DEPTH   = 1 << VIDX_W;
  localparam int PBA_WORDS   = ((VECTOR_COUNT + 63) / 64) * 2;  // 32-bit words, QWORD multiple

  if (VECTOR_COUNT < 1 || VECTOR_COUNT > 2048) begin : g_check_count
    $error("%m: VECTOR_COUNT must be in 1..2048");
  end
  if (PBA_OFFSET % 8 != 0 || PBA_OFFSET < TABLE_BYTES) begin : g_check_pba
    $error("%m: PBA_OFFSET must be QWORD aligned and not overlap the table");
  end
  if (AXIL_ADDR_W > 32 || (64'd1 << AXIL_ADDR_W) < 64'(PBA_OFFSET + PBA_WORDS * 4)) begin : g_check_addr
    $error("%m: AXIL_ADDR_W must cover the PBA and be at most 32");
  end
  if (TLP_DATA_W != 256 && TLP_DATA_W != 512) begin : g_check_data_w
    $error("%m: TLP_DATA_W must be 256 or 512");
  end
  if ((1 << IRQ_INDEX_W) < VECTOR_COUNT) begin : g_check_irq_w
    $error("%m: IRQ_INDEX_W too narrow for VECTOR_COUNT");
  end

  // ---------------------------------------------------------------------------------------
  // State. Address and data live in RAM-style arrays (one write port from AXI, one read
  // port shared by AXI reads and the sender); mask and pending bits are flops because the
  // scanner looks at 32 of them per cycle. Bits past VECTOR_COUNT stay masked, never pending.
  // ---------------------------------------------------------------------------------------
  logic [31:0]             tbl_addr_lo [TBL_DEPTH];
  logic [31:0]             tbl_addr_hi [TBL_DEPTH];
  logic [31:0]             tbl_data    [TBL_DEPTH];
  logic [WORDS*32-1:0]     mask_q;
  logic [WORDS*32-1:0]     pend_q;

  logic                    rd_en;
  logic [VIDX_W-1:0]       rd_vec;
  logic [31:0]             rd_addr_lo_q;
  logic [31:0]             rd_addr_hi_q;
  logic [31:0]             rd_data_q;

  // ---------------------------------------------------------------------------------------
  // Clock gate. The flops and table words change only with an AXI-Lite write (awvalid; table,
  // mask, bvalid) or read (arvalid; read port, rd_pend_q, rdata), a response not yet taken
  // (bvalid, rvalid clear when taken), an interrupt request (irq_valid: pending bit, deferred
  // count), a pick (a pending unmasked vector while enabled: pend clear, snd_vec_q), and the
  // sender not scanning (SND_READ/LOAD/OUT, the message valid). In SND_SCAN without a pick only
  // scan_word_q moves, and only with more than one 32-vector group: then the block stays awake.
  // ---------------------------------------------------------------------------------------
  logic                    gclk;
  logic                    gate_en;
  logic                    rd_pend_q;      // table read issued, data in rd_*_q next cycle
  logic                    pick;
  logic                    snd_busy;       // sender not in SND_SCAN

  assign gate_en = rst || s_axil_awvalid || s_axil_bvalid || s_axil_arvalid || rd_pend_q || s_axil_rvalid ||
                   irq_valid || pick || snd_busy || tx_msix_req_tlp_valid || (WORDS > 1);

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (gate_en),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------------------------------
  // AXI-Lite writes: address and data taken together; every access responds OKAY.
  // ---------------------------------------------------------------------------------------
  logic                    wr_fire;
  logic [31:0]             wr_addr;
  logic                    wr_tbl;
  logic [VIDX_W-1:0]       wr_vec;
  logic [1:0]              wr_dw;

  always_comb begin
    s_axil_awready = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
    s_axil_wready  = s_axil_awready;
    wr_fire        = s_axil_awready;
    wr_addr        = 32'(s_axil_awaddr);
    wr_tbl         = (wr_addr < 32'(TABLE_BYTES));
    wr_vec         = wr_addr[VIDX_W+3:4];
    wr_dw          = wr_addr[3:2];
  end
  assign s_axil_bresp = 2'b00;

  // Message Address bits 1:0 read as zero (PCIe 3.0 section 6.8.2.1: permitted read-only).
  always_ff @(posedge gclk) begin
    if (wr_fire && wr_tbl && wr_dw == 2'd0) begin
      for (int b = 0; b < 4; b++) begin
        if (s_axil_wstrb[b]) begin
          tbl_addr_lo[wr_vec][8*b +: 8] <= s_axil_wdata[8*b +: 8] & ((b == 0) ? 8'hfc : 8'hff);
        end
      end
    end
    if (rd_en) begin
      rd_addr_lo_q <= tbl_addr_lo[rd_vec];
    end
  end

  always_ff @(posedge gclk) begin
    if (wr_fire && wr_tbl && wr_dw == 2'd1) begin
      for (int b = 0; b < 4; b++) begin
        if (s_axil_wstrb[b]) begin
          tbl_addr_hi[wr_vec][8*b +: 8] <= s_axil_wdata[8*b +: 8];
        end
      end
    end
    if (rd_en) begin
      rd_addr_hi_q <= tbl_addr_hi[rd_vec];
    end
  end

  always_ff @(posedge gclk) begin
    if (wr_fire && wr_tbl && wr_dw == 2'd2) begin
      for (int b = 0; b < 4; b++) begin
        if (s_axil_wstrb[b]) begin
          tbl_data[wr_vec][8*b +: 8] <= s_axil_wdata[8*b +: 8];
        end
      end
    end
    if (rd_en) begin
      rd_data_q <= tbl_data[rd_vec];
    end
  end

  always_ff @(posedge gclk) begin
    if (rst) begin
      s_axil_bvalid <= 1'b0;
    end else if (wr_fire) begin
      s_axil_bvalid <= 1'b1;
    end else if (s_axil_bready) begin
      s_axil_bvalid <= 1'b0;
    end
  end

  // ---------------------------------------------------------------------------------------
  // AXI-Lite reads: the table read takes one cycle in the array, then rdata is registered.
  // ---------------------------------------------------------------------------------------
  logic                    ar_fire;
  logic [31:0]             ar_addr;
  logic [1:0]              rd_kind_q;      // 0: table word, 1: vector control, 2: PBA, 3: zero
  logic [1:0]              rd_dw_q;
  logic [VIDX_W-1:0]       rd_ctl_vec_q;
  logic [WORD_W-1:0]       rd_pba_word_q;
  logic [31:0]             pba_off;

  always_comb begin
    s_axil_arready = !s_axil_rvalid && !rd_pend_q;
    ar_fire        = s_axil_arvalid && s_axil_arready;
    ar_addr        = 32'(s_axil_araddr);
    pba_off        = ar_addr - 32'(PBA_OFFSET);
  end
  assign s_axil_rresp = 2'b00;

  always_ff @(posedge gclk) begin
    if (ar_fire) begin
      rd_dw_q       <= ar_addr[3:2];
      rd_ctl_vec_q  <= ar_addr[VIDX_W+3:4];
      rd_pba_word_q <= WORD_W'(pba_off[31:2]);
      if (ar_addr < 32'(TABLE_BYTES)) begin
        rd_kind_q <= (ar_addr[3:2] == 2'd3) ? 2'd1 : 2'd0;
      end else if (ar_addr >= 32'(PBA_OFFSET) && pba_off < 32'(PBA_WORDS * 4)
                   && pba_off[31:2] < 30'(WORDS)) begin
        rd_kind_q <= 2'd2;
      end else begin
        rd_kind_q <= 2'd3;  // hole, or the PBA's padding past the last vector group
      end
    end
    if (rd_pend_q) begin
      unique case (rd_kind_q)
        2'd0: s_axil_rdata <= (rd_dw_q == 2'd0) ? rd_addr_lo_q
                            : (rd_dw_q == 2'd1) ? rd_addr_hi_q : rd_data_q;
        2'd1: s_axil_rdata <= {31'd0, mask_q[rd_ctl_vec_q]};
        2'd2: s_axil_rdata <= pend_q[rd_pba_word_q*32 +: 32];
        default: s_axil_rdata <= '0;
      endcase
    end
    if (rst) begin
      rd_pend_q     <= 1'b0;
      s_axil_rvalid <= 1'b0;
    end else begin
      rd_pend_q <= ar_fire;
      if (rd_pend_q) begin
        s_axil_rvalid <= 1'b1;
      end else if (s_axil_rready) begin
        s_axil_rvalid <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Sender: scan one group of 32 vectors per cycle for pending && unmasked, read the entry,
  // emit the message write.
  // ---------------------------------------------------------------------------------------
  typedef enum logic [1:0] {
    SND_SCAN,
    SND_READ,
    SND_LOAD,
    SND_OUT
  } snd_state_e;

  snd_state_e              snd_state_q;
  logic [WORD_W-1:0]       scan_word_q;
  logic [VIDX_W-1:0]       snd_vec_q;
  logic [31:0]             cand;
  logic                    cand_any;
  logic [4:0]              cand_idx;
  logic                    irq_fire;
  logic                    irq_in_range;
  logic                    irq_masked;

  always_comb begin
    cand     = pend_q[scan_word_q*32 +: 32] & ~mask_q[scan_word_q*32 +: 32];
    cand_any = (cand != '0);
    cand_idx = '0;
    if (cand_any) begin   // the scan only with a candidate (Verilator skips it on idle cycles)
      for (int i = 31; i >= 0; i--) begin
        if (cand[i]) begin
          cand_idx = 5'(i);
        end
      end
    end
    // PCIe 3.0 section 6.8.2: no message while MSI-X is disabled or the function is masked.
    pick = (snd_state_q == SND_SCAN) && msix_enable && !msix_mask && cand_any;

    // The read port serves an AXI read first; the sender retries the next cycle.
    rd_en  = ar_fire || (snd_state_q == SND_READ);
    rd_vec = ar_fire ? ar_addr[VIDX_W+3:4] : snd_vec_q;

    irq_ready    = 1'b1;
    irq_fire     = irq_valid;
    irq_in_range = (32'(irq_index) < 32'(VECTOR_COUNT));
    irq_masked   = !msix_enable || msix_mask || mask_q[VIDX_W'(irq_index)];
  end

  assign snd_busy = (snd_state_q != SND_SCAN);

  beryl_pcie_pkg::tlp_mem_hdr_t msg_hdr;

  always_comb begin
    msg_hdr              = '0;
    msg_hdr.dw0.fmt      = beryl_pcie_pkg::FMT_4DW_DATA;
    msg_hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_MEM;
    msg_hdr.dw0.length   = 10'd1;
    msg_hdr.first_be     = 4'hf;   // MSI-X writes a whole DW (PCIe 3.0 section 6.1.4)
    msg_hdr.last_be      = 4'h0;
    msg_hdr.addr         = {rd_addr_hi_q, rd_addr_lo_q[31:2]};
  end

  always_ff @(posedge gclk) begin
    if (pick) begin
      snd_vec_q <= VIDX_W'({scan_word_q, 5'b00000} | {{WORD_W{1'b0}}, cand_idx});
    end
    if (snd_state_q == SND_LOAD) begin
      tx_msix_req_tlp_hdr  <= msg_hdr;
      // Message Data goes out as written: the stream carries bytes little-endian in a DW.
      tx_msix_req_tlp_data <= TLP_DATA_W'(rd_data_q);
      tx_msix_req_tlp_strb <= (TLP_DATA_W / 32)'(1);
      tx_msix_req_tlp_sop  <= 1'b1;
      tx_msix_req_tlp_eop  <= 1'b1;
    end

    if (rst) begin
      snd_state_q           <= SND_SCAN;
      scan_word_q           <= '0;
      tx_msix_req_tlp_valid <= 1'b0;
      mask_q                <= '1;
      pend_q                <= '0;
      stat_msg_count        <= '0;
      stat_deferred_count   <= '0;
    end else begin
      if (snd_state_q == SND_SCAN) begin
        scan_word_q <= (32'(scan_word_q) == WORDS - 1) ? '0 : scan_word_q + 1'b1;
      end
      unique case (snd_state_q)
        SND_SCAN: if (pick) snd_state_q <= SND_READ;
        SND_READ: if (!ar_fire) snd_state_q <= SND_LOAD;
        SND_LOAD: snd_state_q <= SND_OUT;
        default:  if (tx_msix_req_tlp_ready) snd_state_q <= SND_SCAN;
      endcase
      if (snd_state_q == SND_LOAD) begin
        tx_msix_req_tlp_valid <= 1'b1;
      end else if (tx_msix_req_tlp_ready) begin
        tx_msix_req_tlp_valid <= 1'b0;
      end
      if (tx_msix_req_tlp_valid && tx_msix_req_tlp_ready) begin
        stat_msg_count <= stat_msg_count + 1'b1;
      end

      // Vector Control: only the Mask bit (bit 0) is implemented; the rest read as zero.
      if (wr_fire && wr_tbl && wr_dw == 2'd3 && s_axil_wstrb[0]) begin
        mask_q[wr_vec] <= s_axil_wdata[0];
      end
      // A new request wins over the clear of the vector being picked in the same cycle.
      if (pick) begin
        pend_q[VIDX_W'({scan_word_q, 5'b00000} | {{WORD_W{1'b0}}, cand_idx})] <= 1'b0;
      end
      if (irq_fire && irq_in_range) begin
        pend_q[VIDX_W'(irq_index)] <= 1'b1;
        if (irq_masked) begin
          stat_deferred_count <= stat_deferred_count + 1'b1;
        end
      end
    end
  end

  // AXI protection bits carry no meaning here.
  logic unused_prot;
  assign unused_prot = ^{s_axil_awprot, s_axil_arprot};

endmodule

`resetall
