// SPDX-License-Identifier: MIT
// Per-queue statistics (docs/blocks/nic_core.md, "Statistics increments"): 64-bit packet, byte and
// drop counters for COUNT queues in an inferred RAM. One increment per cycle, never stalled; one read
// per cycle, answered 2 cycles after acceptance.
`default_nettype none

// The three counters of a queue share one RAM word, so a read returns one consistent snapshot: it
// includes every increment presented in the cycles before the read was accepted, none after.
// Increments go through a 2-stage read-modify-write; the word written in the previous cycle is
// forwarded to both the increment and the read path, so back-to-back increments of one queue add up.
// The RAM has one write and two read ports (increments, register reads); synthesis builds it as two
// copies of a simple-dual-port RAM.
// Reset: the RAM is cleared by a counter for COUNT cycles after reset; rd_req_ready is low and
// increments presented meanwhile are ignored (not counted anywhere).
module beryl_nic_stats_ram #(
  parameter int COUNT = 4096,                            // counter sets (queues), power of two, 2..65536
  parameter int IDX_W = COUNT > 1 ? $clog2(COUNT) : 1    // queue index width, bits
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // increments from the engines, no backpressure
  input  wire logic              stat_valid,
  input  wire logic [IDX_W-1:0]  stat_qidx,
  input  wire logic [15:0]       stat_bytes,     // packet bytes (ignored for a drop)
  input  wire logic              stat_drop,      // 1: drops += 1; 0: packets += 1, bytes += stat_bytes

  // register reads
  input  wire logic              rd_req_valid,
  output logic                   rd_req_ready,
  input  wire logic [IDX_W-1:0]  rd_req_idx,
  output logic                   rd_rsp_valid,   // one-cycle pulse per request, in order
  output logic [63:0]            rd_rsp_pkts,
  output logic [63:0]            rd_rsp_bytes,
  output logic [63:0]            rd_rsp_drops
);

  if (COUNT < 2 || COUNT > 65536 || (COUNT & (COUNT - 1)) != 0) begin : g_chk_count
    $error("%m: COUNT must be a power of two, 2..65536");
  end
  if ((1 << IDX_W) != COUNT) begin : g_chk_idx
    $error("%m: IDX_W must be $clog2(COUNT)");
  end

  // word layout: [63:0] packets, [127:64] bytes, [191:128] drops
  localparam int W = 192;

  // ---------------------------------------------------------------- clock gate
  // Every flop and RAM word below is clocked by gclk. The block is clocked in a cycle with a reset, the
  // clear after reset, an increment or a read request at its port, an increment in stage 1, or a read in
  // r1 or its response pulse. No flop changes in any other cycle: the RAM is written only by the clear
  // and stage 1, the pipeline registers load their index, data and read word only with a valid (they are
  // used only with it), and the forwarding register only in a cycle with an increment or read request
  // (it is read only in the cycle after one, by stage 1 or r1).
  logic             clr_q;
  logic [IDX_W-1:0] clr_idx_q;
  logic             s1_valid_q;
  logic             r1_valid_q;
  logic             gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || clr_q || stat_valid || s1_valid_q || rd_req_valid || r1_valid_q || rd_rsp_valid),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- clear after reset
  always_ff @(posedge gclk) begin
    if (clr_q) begin
      clr_idx_q <= clr_idx_q + 1'b1;
      if (clr_idx_q == IDX_W'(COUNT - 1)) begin
        clr_q <= 1'b0;
      end
    end
    if (rst) begin
      clr_q     <= 1'b1;
      clr_idx_q <= '0;
    end
  end

  // ---------------------------------------------------------------- RAM
  logic [W-1:0]     mem [COUNT];
  logic [W-1:0]     inc_rdata_q;
  logic [W-1:0]     rd_rdata_q;
  logic             mem_we;
  logic [IDX_W-1:0] mem_waddr;
  logic [W-1:0]     mem_wdata;
  logic [W-1:0]     new_word;

  // increment stage 1
  logic [IDX_W-1:0] s1_idx_q;
  logic [15:0]      s1_bytes_q;
  logic             s1_drop_q;

  assign mem_we    = clr_q || s1_valid_q;
  assign mem_waddr = clr_q ? clr_idx_q : s1_idx_q;
  assign mem_wdata = clr_q ? '0 : new_word;

  always_ff @(posedge gclk) begin
    if (mem_we) begin
      mem[mem_waddr] <= mem_wdata;
    end
  end

  always_ff @(posedge gclk) begin
    if (stat_valid) inc_rdata_q <= mem[stat_qidx];   // only with an increment (used only by stage 1)
  end

  always_ff @(posedge gclk) begin
    if (rd_req_valid && rd_req_ready) begin
      rd_rdata_q <= mem[rd_req_idx];
    end
  end

  // ---------------------------------------------------------------- increment pipeline
  // forwarding: a RAM read in the same cycle as a write to its word returned the old word
  logic             fwd_valid_q;
  logic [IDX_W-1:0] fwd_idx_q;
  logic [W-1:0]     fwd_data_q;
  logic [W-1:0]     cur;

  assign cur = (fwd_valid_q && fwd_idx_q == s1_idx_q) ? fwd_data_q : inc_rdata_q;

  always_comb begin
    new_word = cur;
    if (s1_drop_q) begin
      new_word[128 +: 64] = cur[128 +: 64] + 64'd1;
    end else begin
      new_word[0 +: 64]  = cur[0 +: 64] + 64'd1;
      new_word[64 +: 64] = cur[64 +: 64] + {48'd0, s1_bytes_q};
    end
  end

  always_ff @(posedge gclk) begin
    // the stage and forwarding fields only with their valid (they are used only with it); fwd_valid_q
    // only in a cycle with an increment or read request: cur and rd_word read it only in the cycle after
    s1_valid_q  <= stat_valid && !clr_q;
    if (stat_valid) begin
      s1_idx_q   <= stat_qidx;
      s1_bytes_q <= stat_bytes;
      s1_drop_q  <= stat_drop;
    end
    if (stat_valid || rd_req_valid) fwd_valid_q <= s1_valid_q;
    if (s1_valid_q) begin
      fwd_idx_q  <= s1_idx_q;
      fwd_data_q <= new_word;
    end
    if (rst) begin
      s1_valid_q  <= 1'b0;
      fwd_valid_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- read path
  logic [IDX_W-1:0] r1_idx_q;
  logic [W-1:0]     rd_word;

  assign rd_req_ready = !clr_q;
  assign rd_word      = (fwd_valid_q && fwd_idx_q == r1_idx_q) ? fwd_data_q : rd_rdata_q;

  always_ff @(posedge gclk) begin
    r1_valid_q   <= rd_req_valid && rd_req_ready;
    if (rd_req_valid) r1_idx_q <= rd_req_idx;   // only with a request (rd_word is used only then)
    rd_rsp_valid <= r1_valid_q;
    if (r1_valid_q) begin
      rd_rsp_pkts  <= rd_word[0 +: 64];
      rd_rsp_bytes <= rd_word[64 +: 64];
      rd_rsp_drops <= rd_word[128 +: 64];
    end
    if (rst) begin
      r1_valid_q   <= 1'b0;
      rd_rsp_valid <= 1'b0;
    end
  end

endmodule

`resetall
