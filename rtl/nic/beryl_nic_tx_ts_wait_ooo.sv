// SPDX-License-Identifier: MIT
// One port's TX completions waiting for their start-of-frame timestamp, returns in any order and completions
// released out of order (docs/blocks/ptp.md, "TX timestamp return path"): TDMA builds, whose gate parks frames.
// One allocation, one return, one timeout and one release per clock; the port waits only when no entry is free.
//
// Entries come from a free list; a frame's tag is {generation, entry}. A completion may leave once its time is
// resolved (returned, or 0 after the timeout or for a frame that needs none) and its last beat has left, in any
// order across queues, but never before an older completion of its own queue (KEY): each entry is blocked by
// the previous live entry of its key (found by the key compare at allocation) until that one is released.
//
// Why this order is right. The TDMA gate (beryl_nic_tx_gate) lets a port's frames pass each other only across
// queues: a frame parks whole (FIFO), parked frames leave in FIFO order, and a stream frame passes the park
// buffer only if no frame of its own queue is parked (otherwise it parks behind them, or waits in the stage),
// so a queue's frames leave the port, and their times return, in ring order. Releasing across queues in any
// order therefore never reorders a queue's completions, and the per-key block costs a queue nothing in normal
// operation (its older frame's time always came back first). The block is still what guarantees ring order
// where no return orders the frames: a dropped packet (no time needed) behind a parked frame of its queue, a
// frame resolved by the timeout after a later one of its queue got its time, and two resolved frames of one
// queue released in the same burst.
//
// Timeout: a waiting entry ages by one at a tick every ceil(timeout / 2) clocks and is given 0 at age 3: after
// more than `timeout` and at most about 1.5 x `timeout` clocks from its first beat (one per clock when several).
`default_nettype none

module beryl_nic_tx_ts_wait_ooo #(
  parameter int ENT_W  = 64,   // completion fields kept per frame, bits, >= 1
  parameter int KEY_W  = 12,   // order key (the TX queue), bits, 1..16: completions of one key leave in order
  parameter int TAG_W  = 9,    // tag width, bits, clog2(DEPTH)+1..16 (the bits above the entry: generation)
  parameter int DEPTH  = 256,  // frames waiting at most (first beat left, completion not released), 2^n, 2..256
  parameter int RET_EN = 1     // 1: frames that need a time wait for a return; 0: returns ignored (never counted)
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // a frame's first beat leaves (needs alloc_space); alloc_tag is the frame's tag
  input  wire logic              alloc_valid,
  input  wire logic [ENT_W-1:0]  alloc_ent,
  input  wire logic [KEY_W-1:0]  alloc_key,     // the frame's queue
  input  wire logic              alloc_need,    // wait for a returned time (else alloc_ts is final)
  input  wire logic [63:0]       alloc_ts,      // the time of a frame that needs none (0: none)
  input  wire logic              alloc_open,    // its last beat has not left with the first
  output logic                   alloc_space,
  output logic [TAG_W-1:0]       alloc_tag,
  input  wire logic              close_valid,   // the last beat of the open frame left

  // returned start-of-frame times, any order
  input  wire logic              ret_valid,
  input  wire logic [TAG_W-1:0]  ret_tag,
  input  wire logic [63:0]       ret_ts,
  input  wire logic [31:0]       timeout,       // cycles a frame waits for its time, see above; 0: forever

  // a completion ready to go (its time resolved, its last beat gone, no older one of its key waiting)
  output logic                   head_valid,
  output logic [ENT_W-1:0]       head_ent,
  output logic [63:0]            head_ts,
  input  wire logic              head_pop,
  output logic                   empty,

  output logic [31:0]            mismatch_count,  // always 0 here (returns in any order: no mismatch rule)
  output logic [31:0]            timeout_count,   // frames given time 0: no time within the timeout
  output logic [31:0]            spurious_count   // returns dropped: their tag named no frame waiting
);

  localparam int IDX_W = $clog2(DEPTH);
  localparam int GEN_W = TAG_W - IDX_W;

  if (DEPTH < 2 || DEPTH > 256 || (1 << IDX_W) != DEPTH || TAG_W <= IDX_W || TAG_W > 16 || ENT_W < 1 ||
      KEY_W < 1 || KEY_W > 16)
  begin : g_chk
    $error("%m: DEPTH must be a power of two 2..256, TAG_W clog2(DEPTH)+1..16, KEY_W 1..16");
  end

  // per entry; the flags are vectors so that the masks below are word operations
  logic [ENT_W-1:0]  ent_q  [DEPTH];
  logic [63:0]       ts_q   [DEPTH];
  logic [KEY_W-1:0]  key_q  [DEPTH];
  logic [GEN_W-1:0]  gen_q  [DEPTH];  // no reset: a tag only has to differ from the entry's previous ones
  logic [IDX_W-1:0]  succ_q [DEPTH];  // the next entry of the same key (valid with succv_q)
  logic [IDX_W-1:0]  free_q [DEPTH];  // free list (FIFO of released entries)
  logic [DEPTH-1:0]  live_q;          // allocated, not released
  logic [DEPTH-1:0]  wait_q;          // waiting for its time
  logic [DEPTH-1:0]  tail_q;          // the newest live entry of its key
  logic [DEPTH-1:0]  blk_q;           // an older entry of its key is live
  logic [DEPTH-1:0]  succv_q;
  logic [DEPTH-1:0]  age0_q, age1_q;  // timeout ticks seen while waiting, saturating at 3
  logic [IDX_W:0]    init_q;          // entries never used yet: init_q .. DEPTH-1 (after reset)
  logic [IDX_W:0]    fr_rd_q, fr_wr_q;
  logic [IDX_W:0]    n_live_q;
  logic              open_v_q;        // the newest entry's last beat has not left
  logic [IDX_W-1:0]  open_q;
  logic [31:0]       tick_cnt_q;
  logic              tick;

  // one-hot to index: bit b of the index is set where the entry's number has bit b set
  logic [DEPTH-1:0]  idx_m [IDX_W];
  for (genvar b = 0; b < IDX_W; b++) begin : g_idx_m
    for (genvar i = 0; i < DEPTH; i++) begin : g_bit
      assign idx_m[b][i] = ((i >> b) & 1) != 0;
    end
  end

  logic [IDX_W-1:0]  a_idx, h_idx, x_idx, p_idx, r_idx;
  logic [GEN_W-1:0]  r_gen;
  logic [DEPTH-1:0]  rdy, h_one, expd, x_one, p_hit, open_m, ages_inc;
  logic              hit, x_any, p_any, p_blk;

  // allocation: first every entry once, then the free list
  assign a_idx       = init_q[IDX_W] ? free_q[fr_rd_q[IDX_W-1:0]] : init_q[IDX_W-1:0];
  assign alloc_space = n_live_q != (IDX_W + 1)'(DEPTH);
  assign alloc_tag   = {gen_q[a_idx] + 1'b1, a_idx};
  assign empty       = n_live_q == '0;

  // the previous live entry of the new frame's key (at most one tail per key); the compare runs only when a
  // frame is allocated. If that entry leaves in this cycle, the new one is not blocked.
  always_comb begin
    p_hit = '0;
    if (alloc_valid) begin
      for (int i = 0; i < DEPTH; i++) p_hit[i] = live_q[i] && tail_q[i] && key_q[i] == alloc_key;
    end
  end
  always_comb begin
    for (int b = 0; b < IDX_W; b++) p_idx[b] = |(p_hit & idx_m[b]);
  end
  assign p_any = |p_hit;
  assign p_blk = p_any && !(head_pop && h_idx == p_idx);

  // a return names a live entry of the same generation that waits
  assign r_idx = ret_tag[IDX_W-1:0];
  assign r_gen = ret_tag[TAG_W-1:IDX_W];
  assign hit   = RET_EN != 0 && ret_valid && live_q[r_idx] && wait_q[r_idx] && gen_q[r_idx] == r_gen;

  // timeout: the lowest expired entry, unless its time comes in this very cycle
  assign tick = timeout != '0 && tick_cnt_q >= (timeout >> 1) + 32'(timeout[0]) - 1;
  assign expd = (timeout != '0) ? (live_q & wait_q & age0_q & age1_q) : '0;
  assign x_one = expd & (~expd + DEPTH'(1));
  always_comb begin
    for (int b = 0; b < IDX_W; b++) x_idx[b] = |(x_one & idx_m[b]);
  end
  assign x_any = expd != '0 && !(hit && r_idx == x_idx);
  assign ages_inc = tick ? (live_q & wait_q & ~(age0_q & age1_q)) : '0;

  // release: resolved, not blocked by its key, not the open frame; the lowest entry first
  always_comb begin
    open_m = '0;
    open_m[open_q] = open_v_q;
  end
  assign rdy   = live_q & ~wait_q & ~blk_q & ~open_m;
  assign h_one = rdy & (~rdy + DEPTH'(1));
  always_comb begin
    for (int b = 0; b < IDX_W; b++) h_idx[b] = |(h_one & idx_m[b]);
  end
  assign head_valid     = rdy != '0;
  assign head_ent       = ent_q[h_idx];
  assign head_ts        = ts_q[h_idx];
  assign mismatch_count = '0;

  always_ff @(posedge clk) begin
    if (alloc_valid) begin
      ent_q[a_idx] <= alloc_ent;
      key_q[a_idx] <= alloc_key;
      gen_q[a_idx] <= gen_q[a_idx] + 1'b1;
      ts_q[a_idx]  <= (RET_EN != 0 && alloc_need) ? 64'd0 : alloc_ts;
      if (p_blk) succ_q[p_idx] <= a_idx;
    end
    // (a hit names a waiting entry, never the free one allocated in this cycle; an expired one keeps its 0)
    if (hit) ts_q[r_idx] <= ret_ts;
    if (head_pop) free_q[fr_wr_q[IDX_W-1:0]] <= h_idx;
  end

  always_ff @(posedge clk) begin
    age0_q <= age0_q ^ ages_inc;
    age1_q <= age1_q ^ (ages_inc & age0_q);
    if (hit) wait_q[r_idx] <= 1'b0;
    if (x_any) wait_q[x_idx] <= 1'b0;
    if (head_pop) begin
      live_q[h_idx]  <= 1'b0;
      tail_q[h_idx]  <= 1'b0;
      succv_q[h_idx] <= 1'b0;
      if (succv_q[h_idx]) blk_q[succ_q[h_idx]] <= 1'b0;
    end
    if (alloc_valid) begin
      live_q[a_idx]  <= 1'b1;
      wait_q[a_idx]  <= RET_EN != 0 && alloc_need;
      tail_q[a_idx]  <= 1'b1;
      blk_q[a_idx]   <= p_blk;
      succv_q[a_idx] <= 1'b0;
      age0_q[a_idx]  <= 1'b0;
      age1_q[a_idx]  <= 1'b0;
      if (p_blk) begin
        tail_q[p_idx]  <= 1'b0;
        succv_q[p_idx] <= 1'b1;
      end
      open_v_q <= alloc_open;
      open_q   <= a_idx;
      if (init_q[IDX_W]) fr_rd_q <= fr_rd_q + 1'b1;
      else init_q <= init_q + 1'b1;
    end else if (close_valid) begin
      open_v_q <= 1'b0;
    end
    if (head_pop) fr_wr_q <= fr_wr_q + 1'b1;
    n_live_q <= n_live_q + (IDX_W + 1)'(alloc_valid) - (IDX_W + 1)'(head_pop);
    tick_cnt_q <= (tick || timeout == '0) ? 32'd0 : tick_cnt_q + 1'b1;
    if (x_any) timeout_count <= timeout_count + 1'b1;
    if (RET_EN != 0 && ret_valid && !hit) spurious_count <= spurious_count + 1'b1;
    if (rst) begin
      live_q         <= '0;
      wait_q         <= '0;
      tail_q         <= '0;
      blk_q          <= '0;
      succv_q        <= '0;
      age0_q         <= '0;
      age1_q         <= '0;
      init_q         <= '0;
      fr_rd_q        <= '0;
      fr_wr_q        <= '0;
      n_live_q       <= '0;
      open_v_q       <= 1'b0;
      open_q         <= '0;
      tick_cnt_q     <= '0;
      timeout_count  <= '0;
      spurious_count <= '0;
    end
  end

endmodule

`resetall
