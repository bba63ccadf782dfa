// SPDX-License-Identifier: MIT
// RSS indirection table: the low bits of the hash pick a queue from a programmable table
// (inferred RAM, registered read). Latency 1 cycle, one lookup per cycle.
`default_nettype none

module beryl_nic_rss_indir #(
  parameter int TABLE_DEPTH = 128,   // entries, power of two, 128..65536
  parameter int QUEUE_W     = 12,    // queue index width, bits, 1..24
  parameter int IDX_W       = $clog2(TABLE_DEPTH)
) (
  input  wire logic                clk,
  input  wire logic                rst,

  // table write port; a write and a lookup of the same entry in one cycle read the old entry
  input  wire logic                tbl_wr_en,
  input  wire logic [IDX_W-1:0]    tbl_wr_addr,
  input  wire logic [QUEUE_W-1:0]  tbl_wr_data,

  // hash in (from beryl_nic_rss_toeplitz)
  input  wire logic [31:0]         hash,
  input  wire logic [2:0]          hash_type,
  input  wire logic                hash_valid,
  output logic                     hash_ready,

  // queue out; a frame with hash type HASH_NONE goes to queue 0 (the default queue)
  output logic [QUEUE_W-1:0]       rss_queue,
  output logic [31:0]              rss_hash,
  output logic [2:0]               rss_hash_type,
  output logic                     rss_valid,
  input  wire logic                rss_ready
);

  if (TABLE_DEPTH < 128 || TABLE_DEPTH > 65536 || (TABLE_DEPTH & (TABLE_DEPTH - 1)) != 0) begin : g_chk1
    $error("%m: TABLE_DEPTH must be a power of two, 128..65536");
  end
  if (QUEUE_W < 1 || QUEUE_W > 24) begin : g_chk2
    $error("%m: QUEUE_W must be 1..24");
  end

  logic [QUEUE_W-1:0] table_q [TABLE_DEPTH];
  logic [QUEUE_W-1:0] entry_q;
  logic               en;

  // Clock gate: the flops change only with a table write, or with a hash taken (en) or a result taken
  // (rss_valid clears); while the result waits for rss_ready, nothing moves.
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || tbl_wr_en || ((hash_valid || rss_valid) && en)),
    .gclk (gclk)
  );

  assign en         = !rss_valid || rss_ready;
  assign hash_ready = en;
  assign rss_queue  = rss_hash_type == beryl_nic_pkg::HASH_NONE ? '0 : entry_q;

  always_ff @(posedge gclk) begin
    if (tbl_wr_en) begin
      table_q[tbl_wr_addr] <= tbl_wr_data;
    end
  end

  always_ff @(posedge gclk) begin
    if (en) begin
      rss_valid     <= hash_valid;
      if (hash_valid) begin   // the result fields are read only with rss_valid
        entry_q       <= table_q[hash[IDX_W-1:0]];
        rss_hash      <= hash;
        rss_hash_type <= hash_type;
      end
    end
    if (rst) begin
      rss_valid <= 1'b0;
    end
  end

endmodule

`resetall
