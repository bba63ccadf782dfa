// SPDX-License-Identifier: MIT
// One port's TX completions waiting for their start-of-frame timestamp (docs/blocks/ptp.md, "TX timestamp
// return"): a FIFO filled when a frame's first beat leaves the TX engine (its tag = the FIFO's write count),
// resolved by a returned (tag, time), by a later frame's return (IN_ORDER: mismatch) or a timeout, released in order
// once the frame's last beat has left. One allocation, one return, one resolution and one release per clock.
`default_nettype none

module beryl_nic_tx_ts_wait #(
  parameter int ENT_W  = 64,   // completion fields kept per frame, bits, >= 1
  parameter int TAG_W  = 8,    // tag width, bits, clog2(DEPTH)+1..16
  parameter int DEPTH  = 16,   // frames waiting at most (first beat left, completion not released), 2^n, 2..256
  parameter int RET_EN = 1,    // 1: frames that need a time wait for a return; 0: returns ignored (never counted)
  // 1: returns come in frame order (a MAC, no reordering between): a later frame's time resolves the older
  // frames still without one as mismatches (time 0); 0: any order within the waiting frames (a TDMA gate
  // with a park buffer lets frames pass each other): a lost return is resolved by the timeout only
  parameter int IN_ORDER = 1
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // a frame's first beat leaves (needs alloc_space); alloc_tag is the frame's tag
  input  wire logic              alloc_valid,
  input  wire logic [ENT_W-1:0]  alloc_ent,
  input  wire logic              alloc_need,    // wait for a returned time (else alloc_ts is final)
  input  wire logic [63:0]       alloc_ts,      // the time of a frame that needs none (0: none)
  input  wire logic              alloc_open,    // its last beat has not left with the first
  output logic                   alloc_space,
  output logic [TAG_W-1:0]       alloc_tag,
  input  wire logic              close_valid,   // the last beat of the open frame left

  // returned start-of-frame times, in frame order
  input  wire logic              ret_valid,
  input  wire logic [TAG_W-1:0]  ret_tag,
  input  wire logic [63:0]       ret_ts,
  input  wire logic [31:0]       timeout,       // cycles the oldest waiting frame waits at most; 0: forever

  // the oldest completion, ready to go (its time resolved, its last beat gone)
  output logic                   head_valid,
  output logic [ENT_W-1:0]       head_ent,
  output logic [63:0]            head_ts,
  input  wire logic              head_pop,      // only with head_valid (not checked)
  output logic                   empty,

  output logic [31:0]            mismatch_count,  // frames given time 0: a later frame's time came first
  output logic [31:0]            timeout_count,   // frames given time 0: no time within `timeout` cycles
  output logic [31:0]            spurious_count   // returns dropped: their tag named no frame waiting
);

  localparam int IDX_W = $clog2(DEPTH);

  if (DEPTH < 2 || DEPTH > 256 || (1 << IDX_W) != DEPTH || TAG_W <= IDX_W || TAG_W > 16 || ENT_W < 1)
  begin : g_chk
    $error("%m: DEPTH must be a power of two 2..256, TAG_W clog2(DEPTH)+1..16");
  end

  // Pointers count frames modulo 2^TAG_W: rd (next release) <= tp (oldest unresolved) <= wr (next tag).
  logic [ENT_W-1:0]  ent_q [DEPTH];
  logic [63:0]       ts_q  [DEPTH];
  logic [DEPTH-1:0]  need_q, got_q;
  logic [TAG_W-1:0]  wr_q, tp_q, rd_q;
  logic              open_q;          // the newest frame's last beat has not left
  logic              skip_v_q;        // a frame after tp already has its time: tp ...
  logic [TAG_W-1:0]  skip_q;          // ... and every unresolved frame before skip_q gets 0 (mismatch)
  logic [31:0]       age_q;           // cycles the frame at tp has waited as the oldest

  logic [TAG_W-1:0]  ret_off, n_unres;
  logic [IDX_W-1:0]  ret_idx, tp_idx;
  logic              hit, tp_any, tp_got, tp_wait, adv, adv_mm, adv_to;
  logic              gclk;

  assign alloc_space = (wr_q - rd_q) != TAG_W'(DEPTH);
  assign alloc_tag   = wr_q;
  assign empty       = wr_q == rd_q;

  // a return names an unresolved frame waiting for a time (tags are consecutive from tp_q)
  assign n_unres = wr_q - tp_q;
  assign ret_off = ret_tag - tp_q;
  assign ret_idx = ret_tag[IDX_W-1:0];
  assign hit     = RET_EN != 0 && ret_valid && ret_off < n_unres && need_q[ret_idx] && !got_q[ret_idx];

  // resolution of the oldest unresolved frame: its time (also one returned this cycle) wins over a mismatch,
  // a mismatch over the timeout
  assign tp_idx  = tp_q[IDX_W-1:0];
  assign tp_any  = tp_q != wr_q;
  assign tp_got  = !need_q[tp_idx] || got_q[tp_idx] || (hit && ret_off == '0);
  assign tp_wait = tp_any && !tp_got;
  assign adv_mm  = IN_ORDER != 0 && tp_wait && skip_v_q;
  assign adv_to  = tp_wait && !adv_mm && timeout != '0 && age_q >= timeout;
  assign adv     = tp_any && (tp_got || adv_mm || adv_to);

  // release: resolved, and not the newest frame while its last beat is still to go
  assign head_valid = rd_q != tp_q && !(open_q && rd_q + 1'b1 == wr_q);
  assign head_ent   = ent_q[rd_q[IDX_W-1:0]];
  assign head_ts    = ts_q[rd_q[IDX_W-1:0]];

  always_ff @(posedge gclk) begin
    if (alloc_valid) begin
      ent_q[wr_q[IDX_W-1:0]]  <= alloc_ent;
      ts_q[wr_q[IDX_W-1:0]]   <= (RET_EN != 0 && alloc_need) ? 64'd0 : alloc_ts;
      need_q[wr_q[IDX_W-1:0]] <= RET_EN != 0 && alloc_need;
      got_q[wr_q[IDX_W-1:0]]  <= 1'b0;
    end
    // (a hit names an allocated entry, never the one allocated in this cycle)
    if (hit) begin
      ts_q[ret_idx]  <= ret_ts;
      got_q[ret_idx] <= 1'b1;
    end
  end

  always_ff @(posedge gclk) begin
    if (alloc_valid) begin
      wr_q   <= wr_q + 1'b1;
      open_q <= alloc_open;
    end else if (close_valid) begin
      open_q <= 1'b0;
    end
    if (adv) tp_q <= tp_q + 1'b1;
    if (head_pop) rd_q <= rd_q + 1'b1;
    age_q <= (adv || !tp_wait) ? 32'd0 : (age_q == '1 ? age_q : age_q + 1'b1);
    // the furthest frame with its time (never moves back); cleared once tp reaches it
    if (hit && ret_off != '0 && (!skip_v_q || ret_off > skip_q - tp_q)) begin
      skip_v_q <= 1'b1;
      skip_q   <= ret_tag;
    end else if (adv && tp_q == skip_q) begin
      skip_v_q <= 1'b0;
    end
    if (adv_mm) mismatch_count <= mismatch_count + 1'b1;
    if (adv_to) timeout_count <= timeout_count + 1'b1;
    if (RET_EN != 0 && ret_valid && !hit) spurious_count <= spurious_count + 1'b1;
    if (rst) begin
      wr_q           <= '0;
      tp_q           <= '0;
      rd_q           <= '0;
      open_q         <= 1'b0;
      skip_v_q       <= 1'b0;
      age_q          <= '0;
      mismatch_count <= '0;
      timeout_count  <= '0;
      spurious_count <= '0;
    end
  end

  // Clock gate (sim/README.md, "Clock gates"): the entries change only with an allocation or a
  // return, the pointers with an allocation, a close, a resolution (tp_any) or a release (head_pop),
  // skip and the counters with a return or a resolution; age_q counts only while tp_any and clears
  // in the cycle after (age_q != 0 covers that cycle).
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || alloc_valid || close_valid || ret_valid || head_pop || tp_any || age_q != '0),
    .gclk (gclk)
  );

endmodule

`resetall
