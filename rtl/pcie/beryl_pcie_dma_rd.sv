// SPDX-License-Identifier: MIT
// DMA read engine: host memory -> device RAM. Splits descriptors into memory reads (<= MRRS,
// never across 4 KiB), keeps up to PCIE_TAG_COUNT requests outstanding, and writes completions,
// in any order across tags, into the segmented RAM at one full-width beat per cycle (latency 3).
// A completion the PCIe core discontinued (rx_cpl_tlp_bad) ends or marks its descriptor with
// DMA_ERR_POISON: its data has already gone to the RAM and must not be used.
`default_nettype none

module beryl_pcie_dma_rd #(
  parameter int TLP_DATA_W     = 512,      // TLP stream width, bits: 256 or 512
  parameter int TLP_STRB_W     = TLP_DATA_W / 32,
  parameter int RAM_ADDR_W     = 20,       // device RAM byte address width, 12..32
  parameter int LEN_W          = 17,       // descriptor length width; longest transfer 2^(LEN_W-1) bytes
  parameter int TAG_W          = 8,        // client tag width, 1..16
  parameter int PCIE_TAG_COUNT = 64,       // outstanding read requests (PCIe tags), 32..256
  parameter int OP_COUNT       = 16,       // descriptors in flight, 2..256
  parameter int CPL_BUF_BYTES  = 32768,    // completion bytes in flight (hard IP RX buffer), >= 4096
  parameter int TIMEOUT_CYCLES = 2500000,  // completion timeout in cycles (10 ms at 250 MHz), >= 64
  parameter int SEG_COUNT      = 2,        // RAM segments: fixed at 2
  parameter int SEG_DATA_W     = TLP_DATA_W,
  parameter int SEG_BE_W       = SEG_DATA_W / 8,
  parameter int SEG_ADDR_W     = RAM_ADDR_W - $clog2(SEG_COUNT * SEG_BE_W)
) (
  input  wire logic                           clk,
  input  wire logic                           rst,

  // descriptors from on-chip clients
  input  wire logic [63:0]                    rd_desc_host_addr,
  input  wire logic [RAM_ADDR_W-1:0]          rd_desc_ram_addr,
  input  wire logic [LEN_W-1:0]               rd_desc_len,
  input  wire logic [TAG_W-1:0]               rd_desc_tag,
  input  wire logic                           rd_desc_valid,
  output logic                                rd_desc_ready,
  output logic [TAG_W-1:0]                    rd_desc_status_tag,
  output logic [3:0]                          rd_desc_status_error,
  output logic                                rd_desc_status_valid,

  // memory read requests (header-only TLPs)
  output logic [TLP_DATA_W-1:0]               tx_rd_req_tlp_data,
  output logic [TLP_STRB_W-1:0]               tx_rd_req_tlp_strb,
  output logic [127:0]                        tx_rd_req_tlp_hdr,
  output logic                                tx_rd_req_tlp_sop,
  output logic                                tx_rd_req_tlp_eop,
  output logic                                tx_rd_req_tlp_valid,
  input  wire logic                           tx_rd_req_tlp_ready,

  // completions
  input  wire logic [TLP_DATA_W-1:0]          rx_cpl_tlp_data,
  input  wire logic [TLP_STRB_W-1:0]          rx_cpl_tlp_strb,
  input  wire logic [127:0]                   rx_cpl_tlp_hdr,
  input  wire logic                           rx_cpl_tlp_sop,
  input  wire logic                           rx_cpl_tlp_eop,
  input  wire logic                           rx_cpl_tlp_bad,   // with eop: discontinued by the core
  input  wire logic                           rx_cpl_tlp_valid,
  output logic                                rx_cpl_tlp_ready,

  // segmented RAM write port
  output logic [SEG_COUNT*SEG_ADDR_W-1:0]     ram_wr_cmd_addr,
  output logic [SEG_COUNT*SEG_BE_W-1:0]       ram_wr_cmd_be,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]     ram_wr_cmd_data,
  output logic [SEG_COUNT-1:0]                ram_wr_cmd_valid,
  input  wire logic [SEG_COUNT-1:0]           ram_wr_cmd_ready,

  // configuration
  input  wire logic [2:0]                     max_read_req_size,
  input  wire logic                           ext_tag_en,
  input  wire logic                           bus_master_en,

  // statistics (32-bit, wrapping); error counters count descriptors finished with that error
  output logic [31:0]                         stat_desc_done,
  output logic [31:0]                         stat_bytes,
  output logic [31:0]                         stat_err_timeout,
  output logic [31:0]                         stat_err_ur,
  output logic [31:0]                         stat_err_ca,
  output logic [31:0]                         stat_err_poison,
  output logic [31:0]                         stat_cpl_unexpected,
  output logic [31:0]                         stat_cpl_discarded  // completions with rx_cpl_tlp_bad
);

  localparam int BEAT_BYTES = TLP_DATA_W / 8;
  localparam int ROW_BYTES  = SEG_COUNT * SEG_BE_W;
  localparam int ROW_OFF_W  = $clog2(ROW_BYTES);
  localparam int BEAT_OFF_W = $clog2(BEAT_BYTES);
  localparam int PT_W       = $clog2(PCIE_TAG_COUNT);
  localparam int OP_W       = $clog2(OP_COUNT);
  localparam int OUT_W      = LEN_W - 6;   // requests per descriptor: at least 128 bytes each
  localparam int CRED_W     = $clog2(CPL_BUF_BYTES + 4096) + 1;
  localparam int TICK       = TIMEOUT_CYCLES / 4;
  localparam int TICK_W     = $clog2(TICK + 1);
  localparam logic [LEN_W-1:0] LEN_MAX = LEN_W'(1) << (LEN_W - 1);

  // Illegal configurations stop elaboration.
  if (TLP_DATA_W != 256 && TLP_DATA_W != 512) begin : g_chk1
    $error("%m: TLP_DATA_W must be 256 or 512");
  end
  if (SEG_COUNT != 2 || SEG_DATA_W != TLP_DATA_W) begin : g_chk2
    $error("%m: segmented RAM must have 2 segments of TLP_DATA_W bits");
  end
  if (PCIE_TAG_COUNT < 32 || PCIE_TAG_COUNT > 256) begin : g_chk3
    $error("%m: PCIE_TAG_COUNT must be 32..256");
  end
  if (OP_COUNT < 2 || OP_COUNT > 256 || (OP_COUNT & (OP_COUNT - 1)) != 0) begin : g_chk4
    $error("%m: OP_COUNT must be a power of two, 2..256");
  end
  if (LEN_W < 13 || LEN_W > 24) begin : g_chk5
    $error("%m: LEN_W must be 13..24");
  end
  if (CPL_BUF_BYTES < 4096) begin : g_chk6
    $error("%m: CPL_BUF_BYTES must be at least 4096");
  end
  if (TIMEOUT_CYCLES < 64) begin : g_chk7
    $error("%m: TIMEOUT_CYCLES must be at least 64");
  end

  logic gclk;     // all flops but the timeout tick counter and the completion pipeline (gates at the end)
  logic gclk_c;   // the completion pipeline (stages A, B, C) and its per-beat statistics

  // ---------------------------------------------------------------------------------------
  // Tag and operation state
  // ---------------------------------------------------------------------------------------
  logic [PCIE_TAG_COUNT-1:0] tag_active_q;
  logic [RAM_ADDR_W-1:0]     tag_ram_addr_q [PCIE_TAG_COUNT];
  logic [12:0]               tag_len_q      [PCIE_TAG_COUNT];
  logic [OP_W-1:0]           tag_op_q       [PCIE_TAG_COUNT];
  logic [2:0]                tag_age_q      [PCIE_TAG_COUNT];

  logic [OP_COUNT-1:0]       op_active_q;
  logic [OP_COUNT-1:0]       op_issued_all_q;
  logic [OUT_W-1:0]          op_outstanding_q [OP_COUNT];
  logic [TAG_W-1:0]          op_tag_q         [OP_COUNT];
  logic [3:0]                op_err_q         [OP_COUNT];

  logic [CRED_W-1:0]         inflight_q;   // completion bytes requested, not yet received

  // ---------------------------------------------------------------------------------------
  // Request generator
  // ---------------------------------------------------------------------------------------
  logic                  gen_active_q;
  logic [63:0]           gen_host_addr_q;
  logic [RAM_ADDR_W-1:0] gen_ram_addr_q;
  logic [LEN_W-1:0]      gen_rem_q;
  logic [OP_W-1:0]       gen_op_q;

  logic                  req_valid_q;
  logic [127:0]          req_hdr_q;

  // lowest free tag (only tags 0..31 without extended tags) and lowest free op slot
  logic [PCIE_TAG_COUNT-1:0] tag_allowed;
  logic [PCIE_TAG_COUNT-1:0] tag_free;
  logic                      tag_avail;
  logic [PT_W-1:0]           tag_sel;
  logic                      op_avail;
  logic [OP_W-1:0]           op_sel;

  // Lowest set bit of a tag vector, in two levels (the lowest non-zero 32-bit group, then the
  // lowest bit in it): the same function as one scan over all tags, but a quarter of the work
  // for Verilator at 256 tags. 0 when no bit is set.
  localparam int GRP_COUNT = (PCIE_TAG_COUNT + 31) / 32;
  localparam int GRP_W     = (GRP_COUNT > 1) ? $clog2(GRP_COUNT) : 1;
  localparam int PAD_W     = GRP_COUNT * 32;

  function automatic logic [PT_W-1:0] lowest_tag(input logic [PCIE_TAG_COUNT-1:0] v);
    logic [PAD_W-1:0]        pad;
    logic [GRP_W-1:0]        grp;
    logic [31:0]             word;
    logic [4:0]              bit_sel;
    pad = PAD_W'(v);
    grp = '0;
    for (int g = GRP_COUNT - 1; g >= 0; g--) if (pad[g*32 +: 32] != '0) grp = GRP_W'(g);
    word    = pad[32'(grp)*32 +: 32];
    bit_sel = '0;
    for (int i = 31; i >= 0; i--) if (word[i]) bit_sel = 5'(i);
    lowest_tag = PT_W'({grp, bit_sel});
  endfunction

  // the lowest free op slot: its bit isolated (~active & (active + 1)), then encoded one index bit at a
  // time with constant masks (a priority loop over the slots costs a C++ model a test per slot per
  // cycle; Yosys also maps this form smaller. The tag search above keeps its loop, which it maps
  // about 1 700 LUT smaller than the isolated form)
  logic [OP_COUNT-1:0] op_free_1h;
  assign op_free_1h = ~op_active_q & (op_active_q + 1'b1);

  function automatic logic [OP_COUNT-1:0] op_bit_mask(input int b);   // slots whose index has bit b set
    for (int i = 0; i < OP_COUNT; i++) op_bit_mask[i] = 1'((i >> b) & 1);
  endfunction

  always_comb begin
    // tags 0..31, all of them with extended tags
    tag_allowed = ext_tag_en ? {PCIE_TAG_COUNT{1'b1}} : PCIE_TAG_COUNT'({32{1'b1}});
    tag_free  = ~tag_active_q & tag_allowed;
    op_avail  = ~&op_active_q;
    // the tag scan only where it is used (a request to issue): Verilator skips it on idle cycles
    // (C++ simulator speed); in hardware an AND on the result
    tag_avail = 1'b0;
    tag_sel   = '0;
    if (gen_active_q) begin
      tag_avail = |tag_free;
      tag_sel   = lowest_tag(tag_free);
    end
  end

  for (genvar b = 0; b < OP_W; b++) begin : g_op_sel
    localparam logic [OP_COUNT-1:0] MASK = op_bit_mask(b);
    assign op_sel[b] = |(op_free_1h & MASK);
  end

  // Size of the next request: up to the next MRRS-aligned host address (which also keeps
  // the request inside its 4 KiB page, PCIe 3.0 section 2.2.7), at most what remains.
  logic [12:0] mrrs_bytes;
  logic [12:0] chunk_room;
  logic [12:0] chunk;
  logic        chunk_last;
  logic [1:0]  first_off;
  logic [13:0] span;          // byte offset in first DW + chunk
  logic [10:0] len_dw;
  logic [3:0]  first_be;
  logic [3:0]  last_be;
  beryl_pcie_pkg::tlp_mem_hdr_t req_hdr;

  always_comb begin
    mrrs_bytes = 13'd128 << ((max_read_req_size > 3'd5) ? 3'd5 : max_read_req_size);
    chunk_room = mrrs_bytes - (gen_host_addr_q[12:0] & (mrrs_bytes - 13'd1));
    if ({{(32 - LEN_W){1'b0}}, gen_rem_q} <= {19'd0, chunk_room}) begin
      chunk      = gen_rem_q[12:0];
      chunk_last = 1'b1;
    end else begin
      chunk      = chunk_room;
      chunk_last = 1'b0;
    end
    first_off = gen_host_addr_q[1:0];
    span      = {12'd0, first_off} + {1'b0, chunk};
    len_dw    = 11'((span + 14'd3) >> 2);
    // Byte enables (PCIe 3.0 section 2.2.5): a 1-DW request uses first BE only.
    if (len_dw == 11'd1) begin
      first_be = 4'((5'd1 << span[2:0]) - 5'd1) & (4'hf << first_off);
      last_be  = 4'h0;
    end else begin
      first_be = 4'hf << first_off;
      last_be  = (span[1:0] == 2'd0) ? 4'hf : 4'((5'd1 << span[1:0]) - 5'd1);
    end
    req_hdr              = '0;
    req_hdr.dw0.fmt      = beryl_pcie_pkg::FMT_4DW_NODATA;
    req_hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_MEM;
    req_hdr.dw0.length   = len_dw[9:0];  // 1024 DW encodes as 0
    req_hdr.tag          = 8'(tag_sel);
    req_hdr.first_be     = first_be;
    req_hdr.last_be      = last_be;
    req_hdr.addr         = gen_host_addr_q[63:2];
  end

  logic credit_ok;
  logic issue;
  assign credit_ok = ({1'b0, inflight_q} + (CRED_W + 1)'(chunk)) <= (CRED_W + 1)'(CPL_BUF_BYTES);
  assign issue = gen_active_q && bus_master_en && tag_avail && credit_ok &&
                 (!req_valid_q || tx_rd_req_tlp_ready);

  assign tx_rd_req_tlp_data  = '0;
  assign tx_rd_req_tlp_strb  = '0;
  assign tx_rd_req_tlp_hdr   = req_hdr_q;
  assign tx_rd_req_tlp_sop   = 1'b1;
  assign tx_rd_req_tlp_eop   = 1'b1;
  assign tx_rd_req_tlp_valid = req_valid_q;

  // ---------------------------------------------------------------------------------------
  // Completion pipeline: A registers the input, B works out where the beat goes,
  // C rotates it into the two-segment row and writes the RAM. All stages move on `adv`.
  // ---------------------------------------------------------------------------------------
  logic                  c_valid_q;
  logic [SEG_COUNT-1:0]  c_pending_q;
  logic                  adv;
  assign adv = !c_valid_q || ((c_pending_q & ~ram_wr_cmd_ready) == '0);
  assign rx_cpl_tlp_ready = adv;

  // stage A
  logic                  a_valid_q;
  logic [TLP_DATA_W-1:0] a_data_q;
  logic [TLP_STRB_W-1:0] a_strb_q;
  logic                  a_sop_q;
  logic                  a_eop_q;
  logic                  a_bad_q;     // with a_eop_q: the core discontinued the completion
  // requester/completer ids, BCM and DW3 are not needed to place the data
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_pcie_pkg::tlp_cpl_hdr_t a_hdr_q;
  /* verilator lint_on UNUSEDSIGNAL */

  always_ff @(posedge gclk_c) begin
    if (adv) begin
      a_valid_q <= rx_cpl_tlp_valid;
      // the fields load only with a beat (in every stage): Verilator then copies no 512/1024-bit
      // words on idle cycles, and the clock gate needs no wake-up for an idle input; the stage's
      // valid qualifies them (stage B reads a_sop_q/a_eop_q only with a_valid_q)
      if (rx_cpl_tlp_valid) begin
        a_data_q <= rx_cpl_tlp_data;
        a_strb_q <= rx_cpl_tlp_strb;
        a_sop_q  <= rx_cpl_tlp_sop;
        a_eop_q  <= rx_cpl_tlp_eop;
        a_bad_q  <= rx_cpl_tlp_eop && rx_cpl_tlp_bad;
      end
      if (rx_cpl_tlp_valid && rx_cpl_tlp_sop) a_hdr_q <= rx_cpl_tlp_hdr;
    end
    if (rst) a_valid_q <= 1'b0;
  end

  // stage B: per-completion context is worked out on the first beat and kept for the rest
  logic [PT_W-1:0]       a_tag;
  logic                  a_tag_ok;
  logic [12:0]           a_bc;
  logic [12:0]           a_avail;
  logic                  a_has_data;
  logic                  a_status_ok;
  logic [12:0]           a_nbytes;
  logic                  a_last;
  logic [12:0]           a_offset;
  logic [RAM_ADDR_W-1:0] a_first;
  logic [3:0]            a_err;

  always_comb begin
    a_tag       = a_hdr_q.tag[PT_W-1:0];
    a_tag_ok    = (32'(a_hdr_q.tag) < PCIE_TAG_COUNT) && tag_active_q[a_tag];
    a_bc        = (a_hdr_q.byte_count == 12'd0) ? 13'd4096 : {1'b0, a_hdr_q.byte_count};
    a_avail     = ((a_hdr_q.dw0.length == 10'd0) ? 13'd4096 : {1'b0, a_hdr_q.dw0.length, 2'b00})
                  - {11'd0, a_hdr_q.lower_addr[1:0]};
    a_has_data  = a_hdr_q.dw0.fmt[1];
    a_status_ok = (a_hdr_q.status == beryl_pcie_pkg::CPL_SC) && !a_hdr_q.dw0.ep;
    a_nbytes    = (a_has_data && a_status_ok) ? ((a_bc <= a_avail) ? a_bc : a_avail) : 13'd0;
    // A completion ends its request when it carries the last bytes, or when its status is not
    // SC (PCIe 3.0 section 2.3.2: UR/CA completions terminate the request).
    a_last      = (a_hdr_q.status != beryl_pcie_pkg::CPL_SC) || (a_bc <= a_avail);
    a_offset    = tag_len_q[a_tag] - a_bc;
    a_first     = tag_ram_addr_q[a_tag] + RAM_ADDR_W'(a_offset);
    if (a_hdr_q.status == beryl_pcie_pkg::CPL_UR)      a_err = beryl_pcie_pkg::DMA_ERR_UR;
    else if (a_hdr_q.status != beryl_pcie_pkg::CPL_SC) a_err = beryl_pcie_pkg::DMA_ERR_CA;
    else if (a_hdr_q.dw0.ep)                           a_err = beryl_pcie_pkg::DMA_ERR_POISON;
    else                                               a_err = beryl_pcie_pkg::DMA_OK;
  end

  // context held across the beats of one completion
  logic [RAM_ADDR_W-1:0] ctx_base_q;   // RAM address of byte 0 of the next beat
  logic [13:0]           ctx_rem_q;    // bytes from byte 0 of the next beat to the end
  logic                  ctx_ok_q;
  logic                  ctx_last_q;
  logic [PT_W-1:0]       ctx_tag_q;
  logic [3:0]            ctx_err_q;

  logic [RAM_ADDR_W-1:0] b_base;
  logic [13:0]           b_rem;
  logic                  b_ok;
  logic                  b_last;
  logic [PT_W-1:0]       b_tag;
  logic [3:0]            b_err;
  logic [BEAT_OFF_W:0]   b_start;
  logic [BEAT_OFF_W:0]   b_end;

  always_comb begin
    if (a_sop_q) begin
      b_base  = a_first - RAM_ADDR_W'(a_hdr_q.lower_addr[1:0]);
      b_rem   = {1'b0, a_nbytes} + {12'd0, a_hdr_q.lower_addr[1:0]};
      b_ok    = a_tag_ok;
      b_last  = a_last;
      b_tag   = a_tag;
      b_err   = a_err;
      b_start = (BEAT_OFF_W + 1)'(a_hdr_q.lower_addr[1:0]);
    end else begin
      b_base  = ctx_base_q;
      b_rem   = ctx_rem_q;
      b_ok    = ctx_ok_q;
      b_last  = ctx_last_q;
      b_tag   = ctx_tag_q;
      b_err   = ctx_err_q;
      b_start = '0;
    end
    b_end = (b_rem >= 14'(BEAT_BYTES)) ? (BEAT_OFF_W + 1)'(BEAT_BYTES) : (BEAT_OFF_W + 1)'(b_rem);
  end

  always_ff @(posedge gclk_c) begin
    if (adv && a_valid_q) begin
      ctx_base_q <= b_base + RAM_ADDR_W'(BEAT_BYTES);
      ctx_rem_q  <= (b_rem >= 14'(BEAT_BYTES)) ? b_rem - 14'(BEAT_BYTES) : 14'd0;
      ctx_ok_q   <= b_ok;
      ctx_last_q <= b_last;
      ctx_tag_q  <= b_tag;
      ctx_err_q  <= b_err;
    end
  end

  // byte j of the beat is written when its DW is strobed and b_start <= j < b_end (as masks,
  // not a per-byte loop: the same function, cheaper for Verilator)
  logic [BEAT_BYTES-1:0] b_strb_bytes;
  logic [BEAT_BYTES-1:0] b_be;
  always_comb begin
    for (int k = 0; k < TLP_STRB_W; k++) b_strb_bytes[k*4 +: 4] = {4{a_strb_q[k]}};
    b_be = b_ok ? (b_strb_bytes & ({BEAT_BYTES{1'b1}} << b_start) & ~({BEAT_BYTES{1'b1}} << b_end)) : '0;
  end

  // stage B registers
  logic                  b_valid_q;
  logic [TLP_DATA_W-1:0] b_data_q;
  logic [BEAT_BYTES-1:0] b_be_q;
  logic [RAM_ADDR_W-1:0] b_base_q;
  logic                  b_done_q;     // last beat of the request's last completion
  logic                  b_eop_q;
  logic                  b_unexp_q;    // completion for a tag that is not outstanding
  logic                  b_bad_q;      // last beat of a completion the core discontinued
  logic [PT_W-1:0]       b_tag_q;
  logic [3:0]            b_err_q;
  logic [12:0]           b_nbytes_q;   // bytes this beat writes (for statistics)

  // the fields load only with a beat in A (stage C reads them only with b_valid_q): without the
  // guard they would follow the tag table a cycle late, on cycles the clock gate does not wake for
  always_ff @(posedge gclk_c) begin
    if (adv) begin
      b_valid_q <= a_valid_q;
      if (a_valid_q) begin
        b_data_q   <= a_data_q;
        b_be_q     <= b_be;
        b_base_q   <= b_base;
        b_done_q   <= a_eop_q && b_last && b_ok;
        b_eop_q    <= a_eop_q;
        b_unexp_q  <= a_sop_q && !a_tag_ok;
        b_bad_q    <= a_bad_q;
        b_tag_q    <= b_tag;
        // a discontinued completion's data (already on its way to the RAM) is not trusted: its
        // request ends (or goes on) marked as poisoned, unless it already carries another error
        b_err_q    <= !b_ok ? beryl_pcie_pkg::DMA_OK
                    : (a_bad_q && b_err == beryl_pcie_pkg::DMA_OK) ? beryl_pcie_pkg::DMA_ERR_POISON : b_err;
        b_nbytes_q <= b_ok ? 13'(b_end - b_start) : 13'd0;
      end
    end
    if (rst) b_valid_q <= 1'b0;
  end

  // stage C: rotate the beat into its row position; segment 0 takes the next row on wrap
  logic [ROW_OFF_W-1:0]      rot;
  // only the upper half of each double-width shift is the rotated row
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*ROW_BYTES-1:0]    rot_be_wide;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [ROW_BYTES-1:0]      rot_be;
  logic [SEG_ADDR_W-1:0]     row;

  always_comb begin
    rot           = b_base_q[ROW_OFF_W-1:0];
    row           = b_base_q[RAM_ADDR_W-1:ROW_OFF_W];
    rot_be_wide   = '0;
    if (b_valid_q) begin
      rot_be_wide = {{BEAT_BYTES{1'b0}}, b_be_q, {BEAT_BYTES{1'b0}}, b_be_q} << rot;
    end
    rot_be        = rot_be_wide[2*ROW_BYTES-1:ROW_BYTES];
  end

  logic [ROW_BYTES*8-1:0]  c_data_q;
  logic [ROW_BYTES-1:0]    c_be_q;
  logic [SEG_ADDR_W-1:0]   c_addr0_q;
  logic [SEG_ADDR_W-1:0]   c_addr1_q;
  logic                    c_done_q;
  logic                    c_eop_q;
  logic                    c_unexp_q;
  logic                    c_bad_q;
  logic [PT_W-1:0]         c_tag_q;
  logic [3:0]              c_err_q;
  logic [12:0]             c_nbytes_q;

  // the fields load only with a beat in B: every reader qualifies them with c_valid_q (the RAM
  // and its demux use the address only with a write valid)
  always_ff @(posedge gclk_c) begin
    if (adv) begin
      c_valid_q   <= b_valid_q;
      c_pending_q <= b_valid_q ? {|rot_be[ROW_BYTES-1:BEAT_BYTES], |rot_be[BEAT_BYTES-1:0]} : '0;
      if (b_valid_q) begin
        // the rotation is written where C loads, not in a process or a function (the C++ model
        // clears function variables on every evaluation): no shift on idle cycles. The row is two
        // beats: the beat rotated by rot bytes within the row is the beat rotated by rot mod
        // BEAT_BYTES, twice (a 2 x 512-bit shift, not 4 x 512 as the row rotation written out)
        c_data_q   <= {2{TLP_DATA_W'({b_data_q, b_data_q} << (8 * 32'(rot[BEAT_OFF_W-1:0])) >> TLP_DATA_W)}};
        c_be_q     <= rot_be;
        c_addr0_q  <= row + SEG_ADDR_W'(32'(rot) >= BEAT_BYTES);
        c_addr1_q  <= row;
        c_done_q   <= b_done_q;
        c_eop_q    <= b_eop_q;
        c_unexp_q  <= b_unexp_q;
        c_bad_q    <= b_bad_q;
        c_tag_q    <= b_tag_q;
        c_err_q    <= b_err_q;
        c_nbytes_q <= b_nbytes_q;
      end
    end else begin
      c_pending_q <= c_pending_q & ~ram_wr_cmd_ready;
    end
    if (rst) begin
      c_valid_q   <= 1'b0;
      c_pending_q <= '0;
    end
  end

  assign ram_wr_cmd_addr  = {c_addr1_q, c_addr0_q};
  assign ram_wr_cmd_be    = c_be_q;
  assign ram_wr_cmd_data  = c_data_q;
  assign ram_wr_cmd_valid = c_valid_q ? c_pending_q : '0;

  // ---------------------------------------------------------------------------------------
  // Book-keeping: a finished request (last beat written, error completion, or timeout)
  // frees its tag and counts down its descriptor; the descriptor reports when all are done.
  // ---------------------------------------------------------------------------------------
  logic                  c_retire;
  assign c_retire = adv && c_valid_q && c_done_q;

  // timeout: every TICK cycles each outstanding tag ages by one; age 5 means at least
  // TIMEOUT_CYCLES without its last completion. expired_q[i] is kept equal to
  // tag_active_q[i] && tag_age_q[i] >= 5 (updated where those change: tick, issue, retire),
  // so no cycle has to scan all tags' ages.
  logic [TICK_W-1:0]         tick_cnt_q;
  logic                      tick;
  logic [PCIE_TAG_COUNT-1:0] expired_q;
  logic                      to_any;
  logic [PT_W-1:0]           to_tag;
  logic                      to_retire;

  assign tick   = (tick_cnt_q == '0);
  assign to_any = |expired_q;
  always_comb begin
    to_tag = '0;
    if (to_any) to_tag = lowest_tag(expired_q);   // the scan only with a timed-out tag
  end
  assign to_retire = to_any && !c_retire;

  logic            ret_valid;
  logic [PT_W-1:0] ret_tag;
  logic [OP_W-1:0] ret_op;
  logic [3:0]      ret_err;
  logic [3:0]      ret_final_err;
  logic            ret_op_done;

  always_comb begin
    ret_valid = c_retire || to_retire;
    ret_tag   = c_retire ? c_tag_q : to_tag;
    ret_err   = c_retire ? c_err_q : beryl_pcie_pkg::DMA_ERR_TIMEOUT;
    ret_op    = tag_op_q[ret_tag];
    ret_op_done = ret_valid && op_issued_all_q[ret_op] && (op_outstanding_q[ret_op] == OUT_W'(1));
    // the first error a descriptor saw wins
    ret_final_err = (op_err_q[ret_op] != beryl_pcie_pkg::DMA_OK) ? op_err_q[ret_op] : ret_err;
  end

  // length-error descriptors complete at once, in a cycle with no other status
  logic desc_bad;
  logic desc_take;
  logic desc_bad_take;
  // the generator takes the next descriptor in the cycle its current one issues its last request
  logic gen_free;
  assign gen_free      = !gen_active_q || (issue && chunk_last);
  assign desc_bad      = (rd_desc_len == '0) || (rd_desc_len > LEN_MAX);
  assign desc_take     = rd_desc_valid && !desc_bad && gen_free && op_avail;
  assign desc_bad_take = rd_desc_valid && desc_bad && !ret_op_done;
  assign rd_desc_ready = desc_bad ? !ret_op_done : (gen_free && op_avail);

  always_ff @(posedge gclk) begin
    // status output
    rd_desc_status_valid <= 1'b0;
    if (ret_op_done) begin
      rd_desc_status_valid <= 1'b1;
      rd_desc_status_tag   <= op_tag_q[ret_op];
      rd_desc_status_error <= ret_final_err;
      stat_desc_done       <= stat_desc_done + 32'd1;
      // error counters count descriptors by the error they finished with
      case (ret_final_err)
        beryl_pcie_pkg::DMA_ERR_TIMEOUT: stat_err_timeout <= stat_err_timeout + 32'd1;
        beryl_pcie_pkg::DMA_ERR_UR:      stat_err_ur      <= stat_err_ur + 32'd1;
        beryl_pcie_pkg::DMA_ERR_CA:      stat_err_ca      <= stat_err_ca + 32'd1;
        beryl_pcie_pkg::DMA_ERR_POISON:  stat_err_poison  <= stat_err_poison + 32'd1;
        default: ;
      endcase
    end else if (desc_bad_take) begin
      rd_desc_status_valid <= 1'b1;
      rd_desc_status_tag   <= rd_desc_tag;
      rd_desc_status_error <= beryl_pcie_pkg::DMA_ERR_LEN;
      stat_desc_done       <= stat_desc_done + 32'd1;   // finished, with an error
    end

    // request output register
    if (tx_rd_req_tlp_ready) req_valid_q <= 1'b0;
    if (issue) begin
      req_valid_q <= 1'b1;
      req_hdr_q   <= req_hdr;
    end

    // generator
    if (desc_take) begin
      gen_active_q    <= 1'b1;
      gen_host_addr_q <= rd_desc_host_addr;
      gen_ram_addr_q  <= rd_desc_ram_addr;
      gen_rem_q       <= rd_desc_len;
      gen_op_q        <= op_sel;
    end else if (issue) begin
      gen_host_addr_q <= gen_host_addr_q + 64'(chunk);
      gen_ram_addr_q  <= gen_ram_addr_q + RAM_ADDR_W'(chunk);
      gen_rem_q       <= gen_rem_q - LEN_W'(chunk);
      if (chunk_last) gen_active_q <= 1'b0;
    end

    // tag table
    if (issue) begin
      tag_ram_addr_q[tag_sel] <= gen_ram_addr_q;
      tag_len_q[tag_sel]      <= chunk;
      tag_op_q[tag_sel]       <= gen_op_q;
    end
    // ageing only on the tick (the issued tag's reset to 0 below wins, being the later assignment)
    if (tick) begin
      for (int i = 0; i < PCIE_TAG_COUNT; i++) begin
        if (tag_active_q[i] && tag_age_q[i] != 3'd7) tag_age_q[i] <= tag_age_q[i] + 3'd1;
        expired_q[i] <= tag_active_q[i] && (tag_age_q[i] >= 3'd4);   // its age after this tick >= 5
      end
    end
    if (issue) tag_age_q[tag_sel] <= '0;
    if (ret_valid) begin
      tag_active_q[ret_tag] <= 1'b0;
      expired_q[ret_tag]    <= 1'b0;
    end
    if (issue) begin
      tag_active_q[tag_sel] <= 1'b1;
      expired_q[tag_sel]    <= 1'b0;
    end

    // completion bytes in flight
    inflight_q <= inflight_q + (issue ? CRED_W'(chunk) : '0)
                             - (ret_valid ? CRED_W'(tag_len_q[ret_tag]) : '0);

    // operations
    if (desc_take) begin
      op_active_q[op_sel]      <= 1'b1;
      op_issued_all_q[op_sel]  <= 1'b0;
      op_tag_q[op_sel]         <= rd_desc_tag;
      op_err_q[op_sel]         <= beryl_pcie_pkg::DMA_OK;
    end
    // requests outstanding per descriptor: +1 on issue, -1 on retire, 0 when taken (later
    // assignments win); only the slots involved are touched, no loop over all of them
    if (issue) begin
      op_outstanding_q[gen_op_q] <= op_outstanding_q[gen_op_q] + OUT_W'(1)
                                    - ((ret_valid && ret_op == gen_op_q) ? OUT_W'(1) : '0);
    end
    if (ret_valid && !(issue && ret_op == gen_op_q)) begin
      op_outstanding_q[ret_op] <= op_outstanding_q[ret_op] - OUT_W'(1);
    end
    if (desc_take) op_outstanding_q[op_sel] <= '0;
    if (issue && chunk_last) op_issued_all_q[gen_op_q] <= 1'b1;
    if (ret_valid && ret_err != beryl_pcie_pkg::DMA_OK && op_err_q[ret_op] == beryl_pcie_pkg::DMA_OK) begin
      op_err_q[ret_op] <= ret_err;
    end
    if (ret_op_done) op_active_q[ret_op] <= 1'b0;

    // errors that do not end a request (poisoned data in a middle completion) still mark it
    if (adv && c_valid_q && c_eop_q && !c_done_q && c_err_q != beryl_pcie_pkg::DMA_OK) begin
      if (op_err_q[tag_op_q[c_tag_q]] == beryl_pcie_pkg::DMA_OK) op_err_q[tag_op_q[c_tag_q]] <= c_err_q;
    end

    if (rst) begin
      rd_desc_status_valid <= 1'b0;
      req_valid_q          <= 1'b0;
      gen_active_q         <= 1'b0;
      tag_active_q         <= '0;
      expired_q            <= '0;
      op_active_q          <= '0;
      op_issued_all_q      <= '0;
      inflight_q           <= '0;
      stat_desc_done       <= '0;
      stat_err_timeout     <= '0;
      stat_err_ur          <= '0;
      stat_err_ca          <= '0;
      stat_err_poison      <= '0;
    end
  end

  // per-beat statistics: with the completion pipeline (gclk_c)
  always_ff @(posedge gclk_c) begin
    if (adv && c_valid_q) stat_bytes <= stat_bytes + 32'(c_nbytes_q);
    if (adv && c_valid_q && c_unexp_q) stat_cpl_unexpected <= stat_cpl_unexpected + 32'd1;
    if (adv && c_valid_q && c_bad_q) stat_cpl_discarded <= stat_cpl_discarded + 32'd1;
    if (rst) begin
      stat_bytes          <= '0;
      stat_cpl_unexpected <= '0;
      stat_cpl_discarded  <= '0;
    end
  end

  // timeout tick: free running on clk (it counts in idle cycles too, and its phase decides when
  // a tag times out), so it is not behind the clock gate
  always_ff @(posedge clk) begin
    tick_cnt_q <= tick ? TICK_W'(TICK - 1) : tick_cnt_q - TICK_W'(1);
    if (rst) tick_cnt_q <= TICK_W'(TICK - 1);
  end

  // ---------------------------------------------------------------------------------------
  // Clock gate: the flops above (all but tick_cnt_q) are clocked only in cycles in which one of
  // them could change. Every update happens under one of: a descriptor offered (taken, or a length
  // error reported), a status pulse to clear, a request not yet taken by the TLP stream, the
  // generator active (issue), a completion beat at the input or in stages A, B, C (C also retires
  // requests, marks errors and counts), a timed-out tag (to_any) or a tick with a tag outstanding
  // (ageing; without tags a tick changes nothing, as expired_q is a subset of tag_active_q).
  // inflight_q, the tag and op tables change only with issue or a retire; the pipeline fields load
  // only with their stage's valid.
  // ---------------------------------------------------------------------------------------
  // The terms the engine's own state decides are a variable of their own (kept in a Verilator model,
  // public_flat_rd), which a C++ model then re-evaluates only when that state changes, not whenever one
  // of the enable's inputs from other blocks does (sim/README.md, "Clock gates").
  // The completion pipeline (stages A, B, C and the per-beat statistics) has a gate of its own
  // (gclk_c): it moves with every completion beat, the rest only per descriptor, request and
  // completion end. Of the pipeline, the rest reads a completion's last beat in stage C (a retire, or
  // an error that marks its descriptor: c_eop_q; c_done_q implies it).
  logic busy_int /*verilator public_flat_rd*/;
  assign busy_int = rd_desc_status_valid || req_valid_q || gen_active_q || (c_valid_q && c_eop_q) || to_any;
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || rd_desc_valid || (tick && (|tag_active_q)) || busy_int),
    .gclk (gclk)
  );
  logic busy_c /*verilator public_flat_rd*/;
  assign busy_c = a_valid_q || b_valid_q || c_valid_q;
  beryl_clk_gate u_gate_c (
    .clk  (clk),
    .en   (rst || rx_cpl_tlp_valid || busy_c),
    .gclk (gclk_c)
  );

endmodule

`resetall
