// SPDX-License-Identifier: MIT
// AXI4-Lite 1-to-M_COUNT address decoder. Each slave owns an aligned power-of-two window and
// sees the byte offset within it; an address no window covers is answered here with DECERR
// (reads return all-ones). One read and one write in flight; slave ports are combinational
// pass-throughs apart from the registered address, so a transaction costs the slave's latency
// plus one cycle.
//
// Ports besides clk/rst: the AXI4-Lite slave port s_axil_* (from the master, full ADDR_W
// address), the M_COUNT master ports m_axil_* flattened (slave i in slice i of every vector; all
// slaves see the same address, data and strobe vectors, only m_axil_*valid/*ready are per slave),
// and unmapped_rd/unmapped_wr, one-cycle pulses when a DECERR read/write response is accepted
// (for the unmapped-access counters).
`default_nettype none

module beryl_axil_decode #(
  parameter int M_COUNT = 2,                      // slaves, 1..32
  parameter int ADDR_W = 16,                      // byte address width, 3..32
  // Slave i's base address in M_BASE[ADDR_W*i +: ADDR_W]; its window is 2**M_ADDR_W[32*i +: 32]
  // bytes (2..ADDR_W address bits) and its base a multiple of the window. Defaults: 0x000, 0x100.
  parameter logic [M_COUNT*ADDR_W-1:0] M_BASE = {16'h0100, 16'h0000},
  parameter logic [M_COUNT*32-1:0] M_ADDR_W = {32'd8, 32'd8}
) (
  input  wire                       clk,
  input  wire                       rst,

  input  wire  [ADDR_W-1:0]         s_axil_awaddr,
  input  wire  [2:0]                s_axil_awprot,
  input  wire                       s_axil_awvalid,
  output logic                      s_axil_awready,
  input  wire  [31:0]               s_axil_wdata,
  input  wire  [3:0]                s_axil_wstrb,
  input  wire                       s_axil_wvalid,
  output logic                      s_axil_wready,
  output logic [1:0]                s_axil_bresp,
  output logic                      s_axil_bvalid,
  input  wire                       s_axil_bready,
  input  wire  [ADDR_W-1:0]         s_axil_araddr,
  input  wire  [2:0]                s_axil_arprot,
  input  wire                       s_axil_arvalid,
  output logic                      s_axil_arready,
  output logic [31:0]               s_axil_rdata,
  output logic [1:0]                s_axil_rresp,
  output logic                      s_axil_rvalid,
  input  wire                       s_axil_rready,

  output logic [M_COUNT*ADDR_W-1:0] m_axil_awaddr,
  output logic [M_COUNT*3-1:0]      m_axil_awprot,
  output logic [M_COUNT-1:0]        m_axil_awvalid,
  input  wire  [M_COUNT-1:0]        m_axil_awready,
  output logic [M_COUNT*32-1:0]     m_axil_wdata,
  output logic [M_COUNT*4-1:0]      m_axil_wstrb,
  output logic [M_COUNT-1:0]        m_axil_wvalid,
  input  wire  [M_COUNT-1:0]        m_axil_wready,
  input  wire  [M_COUNT*2-1:0]      m_axil_bresp,
  input  wire  [M_COUNT-1:0]        m_axil_bvalid,
  output logic [M_COUNT-1:0]        m_axil_bready,
  output logic [M_COUNT*ADDR_W-1:0] m_axil_araddr,
  output logic [M_COUNT*3-1:0]      m_axil_arprot,
  output logic [M_COUNT-1:0]        m_axil_arvalid,
  input  wire  [M_COUNT-1:0]        m_axil_arready,
  input  wire  [M_COUNT*32-1:0]     m_axil_rdata,
  input  wire  [M_COUNT*2-1:0]      m_axil_rresp,
  input  wire  [M_COUNT-1:0]        m_axil_rvalid,
  output logic [M_COUNT-1:0]        m_axil_rready,

  output logic                      unmapped_rd,
  output logic                      unmapped_wr
);

  localparam int SEL_W = (M_COUNT > 1) ? $clog2(M_COUNT) : 1;
  localparam logic [1:0] RESP_DECERR = 2'b11;

  // Address bits above slave i's window: an address hits slave i when they equal its base's.
  // (Assignments to the function name rather than `return`: Yosys 0.70 rejects `return expr`.)
  function automatic logic [ADDR_W-1:0] hi_mask(input int i);
    logic [ADDR_W-1:0] ones;
    ones = {ADDR_W{1'b1}};  // not '1: Yosys 0.23 sizes it to one bit inside a constant function
    hi_mask = ones << M_ADDR_W[32*i +: 32];
  endfunction

  function automatic logic [M_COUNT*ADDR_W-1:0] all_hi_masks();
    for (int i = 0; i < M_COUNT; i++) all_hi_masks[ADDR_W*i +: ADDR_W] = hi_mask(i);
  endfunction
  localparam logic [M_COUNT*ADDR_W-1:0] HI_MASKS = all_hi_masks();

  if (M_COUNT < 1 || M_COUNT > 32) begin : g_bad_count
    $fatal(1, "beryl_axil_decode: M_COUNT = %0d, must be 1..32", M_COUNT);
  end
  if (ADDR_W < 3 || ADDR_W > 32) begin : g_bad_addr_w
    $fatal(1, "beryl_axil_decode: ADDR_W = %0d, must be 3..32", ADDR_W);
  end
  for (genvar i = 0; i < M_COUNT; i++) begin : g_check
    if (M_ADDR_W[32*i +: 32] < 2 || M_ADDR_W[32*i +: 32] > ADDR_W) begin : g_bad_win
      $fatal(1, "beryl_axil_decode: slave %0d window 2**%0d is outside 4 bytes..2**ADDR_W", i, M_ADDR_W[32*i +: 32]);
    end
    if ((M_BASE[ADDR_W*i +: ADDR_W] & ~hi_mask(i)) != '0) begin : g_bad_align
      $fatal(1, "beryl_axil_decode: slave %0d base 0x%0h is not a multiple of its window", i,
             M_BASE[ADDR_W*i +: ADDR_W]);
    end
    for (genvar j = 0; j < i; j++) begin : g_overlap
      // Two aligned power-of-two windows overlap iff the larger one contains the other's base.
      if (((M_BASE[ADDR_W*i +: ADDR_W] ^ M_BASE[ADDR_W*j +: ADDR_W]) & hi_mask(i) & hi_mask(j)) == '0) begin : g_bad
        $fatal(1, "beryl_axil_decode: windows of slaves %0d and %0d overlap", j, i);
      end
    end
  end

  // ---------------------------------------------------------------- clock gate
  // The flops change only when an address is offered (awvalid, arvalid: taken when its path is free),
  // while a transaction is in flight (wr_busy_q/rd_busy_q: AW, W or AR handed on, the response taken;
  // the pend flags are set only together with busy, but are terms of their own so that exactness does
  // not rest on that), and in the cycle after a DECERR response (the unmapped pulses clear themselves).
  logic gclk;
  logic wr_busy_q, aw_pend_q, w_pend_q, rd_busy_q, ar_pend_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || s_axil_awvalid || s_axil_arvalid || wr_busy_q || rd_busy_q || aw_pend_q || w_pend_q ||
           ar_pend_q || unmapped_wr || unmapped_rd),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- write path
  // wr_busy_q spans AW acceptance to the B handshake. AW and W are offered to the slave at the
  // same time (a slave may wait for both valids, AXI4 A3.3.1); W is held off until AW is in.
  logic                     wr_hit_q;
  logic [SEL_W-1:0]         wr_sel_q;
  logic [ADDR_W-1:0]        wr_addr_q;
  logic [2:0]               wr_prot_q;
  logic                     wr_hit_d;
  logic [SEL_W-1:0]         wr_sel_d;
  logic [ADDR_W-1:0]        wr_addr_d;
  logic                     aw_fire, w_fire, b_fire, b_phase;

  assign s_axil_awready = !wr_busy_q;
  assign aw_fire = s_axil_awvalid && !wr_busy_q;
  assign b_phase = wr_busy_q && !aw_pend_q && !w_pend_q;

  always_comb begin
    m_axil_awvalid = '0;
    m_axil_wvalid = '0;
    m_axil_bready = '0;
    m_axil_awvalid[wr_sel_q] = aw_pend_q;
    m_axil_wvalid[wr_sel_q] = w_pend_q && wr_hit_q && s_axil_wvalid;
    m_axil_bready[wr_sel_q] = b_phase && wr_hit_q && s_axil_bready;
  end

  assign m_axil_awaddr = {M_COUNT{wr_addr_q}};
  assign m_axil_awprot = {M_COUNT{wr_prot_q}};
  assign m_axil_wdata = {M_COUNT{s_axil_wdata}};
  assign m_axil_wstrb = {M_COUNT{s_axil_wstrb}};

  // A miss swallows its W beat and answers DECERR itself.
  assign s_axil_wready = w_pend_q && (wr_hit_q ? m_axil_wready[wr_sel_q] : 1'b1);
  assign s_axil_bvalid = b_phase && (wr_hit_q ? m_axil_bvalid[wr_sel_q] : 1'b1);
  assign s_axil_bresp = wr_hit_q ? m_axil_bresp[2*wr_sel_q +: 2] : RESP_DECERR;
  assign w_fire = s_axil_wvalid && s_axil_wready;
  assign b_fire = s_axil_bvalid && s_axil_bready;

  always_ff @(posedge gclk) begin
    if (aw_fire) begin
      wr_busy_q <= 1'b1;
      aw_pend_q <= wr_hit_d;
      w_pend_q <= 1'b1;
      wr_hit_q <= wr_hit_d;
      wr_sel_q <= wr_sel_d;
      wr_addr_q <= wr_addr_d;
      wr_prot_q <= s_axil_awprot;
    end else begin
      if (aw_pend_q && m_axil_awready[wr_sel_q]) begin
        aw_pend_q <= 1'b0;
      end
      if (w_fire) begin
        w_pend_q <= 1'b0;
      end
      if (b_fire) begin
        wr_busy_q <= 1'b0;
      end
    end
    unmapped_wr <= b_fire && !wr_hit_q;
    if (rst) begin
      wr_busy_q <= 1'b0;
      aw_pend_q <= 1'b0;
      w_pend_q <= 1'b0;
      wr_hit_q <= 1'b0;
      wr_sel_q <= '0;
      unmapped_wr <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- read path
  logic                     rd_hit_q;
  logic [SEL_W-1:0]         rd_sel_q;
  logic [ADDR_W-1:0]        rd_addr_q;
  logic [2:0]               rd_prot_q;
  logic                     rd_hit_d;
  logic [SEL_W-1:0]         rd_sel_d;
  logic [ADDR_W-1:0]        rd_addr_d;
  logic                     ar_fire, r_fire, r_phase;

  assign s_axil_arready = !rd_busy_q;
  assign ar_fire = s_axil_arvalid && !rd_busy_q;
  assign r_phase = rd_busy_q && !ar_pend_q;

  // ---------------------------------------------------------------- address decode
  // Which slave an address hits (the first match) and the offset inside its window, for the write
  // (channel 0) and the read address (channel 1). Worked out only for an address being accepted
  // (the results are stored only then), so the C++ simulator skips the window compares on every
  // other cycle; no function (the C++ model clears a function's variables on every evaluation).
  logic [1:0]          dec_go, dec_hit;
  logic [2*ADDR_W-1:0] dec_addr, dec_off;
  logic [2*SEL_W-1:0]  dec_sel;
  assign dec_go   = {ar_fire, aw_fire};
  assign dec_addr = {s_axil_araddr, s_axil_awaddr};
  always_comb begin
    dec_hit = '0;
    dec_sel = '0;
    dec_off = '0;
    for (int c = 0; c < 2; c++) begin
      if (dec_go[c]) begin
        for (int i = 0; i < M_COUNT; i++) begin
          if (!dec_hit[c] && ((dec_addr[c*ADDR_W +: ADDR_W] ^ M_BASE[ADDR_W*i +: ADDR_W])
                              & HI_MASKS[ADDR_W*i +: ADDR_W]) == '0) begin
            dec_hit[c]                   = 1'b1;
            dec_sel[c*SEL_W +: SEL_W]    = SEL_W'(i);
            dec_off[c*ADDR_W +: ADDR_W]  = dec_addr[c*ADDR_W +: ADDR_W] & ~HI_MASKS[ADDR_W*i +: ADDR_W];
          end
        end
      end
    end
  end
  assign {wr_hit_d, wr_sel_d, wr_addr_d} = {dec_hit[0], dec_sel[0 +: SEL_W], dec_off[0 +: ADDR_W]};
  assign {rd_hit_d, rd_sel_d, rd_addr_d} = {dec_hit[1], dec_sel[SEL_W +: SEL_W], dec_off[ADDR_W +: ADDR_W]};

  always_comb begin
    m_axil_arvalid = '0;
    m_axil_rready = '0;
    m_axil_arvalid[rd_sel_q] = ar_pend_q;
    m_axil_rready[rd_sel_q] = r_phase && rd_hit_q && s_axil_rready;
  end

  assign m_axil_araddr = {M_COUNT{rd_addr_q}};
  assign m_axil_arprot = {M_COUNT{rd_prot_q}};

  assign s_axil_rvalid = r_phase && (rd_hit_q ? m_axil_rvalid[rd_sel_q] : 1'b1);
  assign s_axil_rdata = rd_hit_q ? m_axil_rdata[32*rd_sel_q +: 32] : 32'hffff_ffff;
  assign s_axil_rresp = rd_hit_q ? m_axil_rresp[2*rd_sel_q +: 2] : RESP_DECERR;
  assign r_fire = s_axil_rvalid && s_axil_rready;

  always_ff @(posedge gclk) begin
    if (ar_fire) begin
      rd_busy_q <= 1'b1;
      ar_pend_q <= rd_hit_d;
      rd_hit_q <= rd_hit_d;
      rd_sel_q <= rd_sel_d;
      rd_addr_q <= rd_addr_d;
      rd_prot_q <= s_axil_arprot;
    end else begin
      if (ar_pend_q && m_axil_arready[rd_sel_q]) begin
        ar_pend_q <= 1'b0;
      end
      if (r_fire) begin
        rd_busy_q <= 1'b0;
      end
    end
    unmapped_rd <= r_fire && !rd_hit_q;
    if (rst) begin
      rd_busy_q <= 1'b0;
      ar_pend_q <= 1'b0;
      rd_hit_q <= 1'b0;
      rd_sel_q <= '0;
      unmapped_rd <= 1'b0;
    end
  end

endmodule

`resetall
