// SPDX-License-Identifier: MIT
// PTP periodic output: out rises at the first clock whose tod >= start + k * period (exact fixed-point
// accumulation) and falls at the first clock whose tod >= that edge + width. Registered: out follows
// tod by one clock. Edges passed by a step are skipped (doubling search) and counted, never burst.
`default_nettype none

module beryl_ptp_perout #(
  parameter int unsigned PFNS_W = 32  // fractional ns bits of the period and the edge accumulator, 16..32
) (
  input  wire logic              clk,
  input  wire logic              rst,

  input  wire logic [95:0]       tod,        // beryl_ptp_clock tod {sec48, ns32, fns16}
  input  wire logic              tod_step,   // beryl_ptp_clock step: this cycle's tod was set or adjusted

  // configuration, latched when enable rises (changes while enabled are ignored)
  input  wire logic              enable,
  input  wire logic [47:0]       start_sec,  // first edge {sec, ns}; ns 0..999999999
  input  wire logic [31:0]       start_ns,
  input  wire logic [31:0]       period_sec, // period {sec, ns, fns}; ns 0..999999999, not zero
  input  wire logic [31:0]       period_ns,
  input  wire logic [PFNS_W-1:0] period_fns, // units 2^-PFNS_W ns
  input  wire logic [31:0]       width_ns,   // pulse width, 0..999999999 ns (0 = one clock)

  output      logic              out,
  output      logic [31:0]       skip_cnt,   // edges skipped since enable rose, saturating
  output      logic              cfg_err     // enable rose with an illegal configuration: not running
);

  if (PFNS_W < 16 || PFNS_W > 32) begin : g_bad_pfns_w
    $error("%m: PFNS_W must be within 16..32");
  end

  // a time: {sec 49 bits (one more than tod so edges past 2^48 s never fire), ns 30 bits, fns}
  localparam int unsigned NF_W = PFNS_W + 30;
  localparam int unsigned T_W  = NF_W + 49;
  localparam int unsigned C_W  = PFNS_W + 81;  // compare format {sec49, ns32, fns}
  localparam logic [NF_W:0] ONE_SEC = (NF_W + 1)'(1000000000) << PFNS_W;

  // a + b for normalised times (ns < 10^9): one conditional carry into the seconds
  // (the sign of s - 10^9 ns decides, no separate comparator)
  function automatic logic [T_W-1:0] t_add(input logic [T_W-1:0] a, input logic [T_W-1:0] b);
    logic [NF_W:0]   s;
    logic [NF_W+1:0] d;
    s = {1'b0, a[NF_W-1:0]} + {1'b0, b[NF_W-1:0]};
    d = {1'b0, s} - {1'b0, ONE_SEC};
    t_add = {a[T_W-1:NF_W] + b[T_W-1:NF_W] + 49'(!d[NF_W+1]), d[NF_W+1] ? s[NF_W-1:0] : d[NF_W-1:0]};
  endfunction

  function automatic logic [C_W-1:0] t_cmp(input logic [T_W-1:0] a);
    t_cmp = {a[T_W-1:NF_W], 2'b00, a[NF_W-1:0]};
  endfunction

  logic              en_q;
  logic              armed_q;
  logic              resync_q;   // the pending edge may already be past: skip, do not fire
  logic [T_W-1:0]    edge_q;     // pending edge
  logic [T_W-1:0]    jump_q;     // search jump: period * 2^jlog_q
  logic [6:0]        jlog_q;
  logic [31:0]       per_sec_q;
  logic [NF_W-1:0]   per_nsf_q;
  logic [29:0]       wid_q;
  logic [T_W-1:0]    fall_q;

  logic [C_W-1:0]    tod_c;
  logic [T_W-1:0]    next1;      // edge + period
  logic [T_W-1:0]    nextj;      // edge + jump
  logic [T_W-1:0]    dbl;        // jump * 2
  logic [T_W-1:0]    fall_d;
  logic              due;
  logic              next1_due;
  logic              nextj_due;
  logic              fall_due;
  logic              stale;
  logic              fire;
  logic              grow;
  logic              arm;
  logic              cfg_bad;
  logic [32:0]       skip_sum;
  logic [6:0]        skip_log2;  // a skip passes 2^skip_log2 edges

  assign next1     = t_add(edge_q, {17'd0, per_sec_q, per_nsf_q});
  assign nextj     = t_add(edge_q, jump_q);
  assign dbl       = t_add(jump_q, jump_q);
  assign fall_d    = t_add(edge_q, {49'd0, wid_q, PFNS_W'(0)});
  // The comparisons with tod are read only while armed (every use is under armed_q); computed only
  // then, since tod changes every cycle and the C++ model would otherwise evaluate them in every one.
  always_comb begin
    tod_c     = '0;
    due       = 1'b0;
    next1_due = 1'b0;
    nextj_due = 1'b0;
    fall_due  = 1'b0;
    if (armed_q) begin
      tod_c     = C_W'({1'b0, tod}) << (PFNS_W - 16);
      due       = t_cmp(edge_q) <= tod_c;
      next1_due = t_cmp(next1) <= tod_c;
      nextj_due = t_cmp(nextj) <= tod_c;
      fall_due  = t_cmp(fall_q) <= tod_c;
    end
  end
  assign stale     = armed_q && due && (tod_step || resync_q);
  assign fire      = armed_q && due && !tod_step && !resync_q;
  assign arm       = enable && !en_q;
  assign cfg_bad   = start_ns >= 32'd1000000000 || period_ns >= 32'd1000000000 || width_ns >= 32'd1000000000 ||
                     (period_sec == 32'd0 && period_ns == 32'd0 && period_fns == '0);
  // the jump doubles while it still lands on a passed edge (kept below 2^47 s)
  assign grow      = stale && nextj_due;

  // Skipping a stale edge (one clock each): if edge + jump is still passed, take it (2^jlog edges) and
  // double the jump; else take edge + period (one edge) and restart the jump at one period. The search
  // ends on the first edge after tod: O(log^2 n) clocks for n edges while tod moves slower than one
  // period per clock, and one edge skipped per clock at the least.
  assign skip_log2 = grow ? jlog_q : 7'd0;
  assign skip_sum  = {1'b0, skip_cnt} + (33'd1 << skip_log2[4:0]);

  // Clock gate: the flops are clocked only in cycles in which one of them could change: a reset, enable
  // differing from en_q (arming when it rises; when it falls, the clear of armed_q/out/cfg_err/resync_q),
  // or running (armed_q: the edge search compares against tod every cycle). Enabled and not armed (an
  // illegal configuration) nothing changes; disabled, armed_q/out/cfg_err/resync_q were cleared when
  // en_q fell. jump_q reloads only while armed (it is read only then; arming loads it).
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (enable != en_q) || armed_q),
    .gclk (gclk)
  );

  always_ff @(posedge gclk) begin
    if (rst) begin
      en_q     <= 1'b0;
      armed_q  <= 1'b0;
      resync_q <= 1'b0;
      jlog_q   <= '0;
      out      <= 1'b0;
      skip_cnt <= '0;
      cfg_err  <= 1'b0;
    end else begin
      en_q <= enable;
      if (!enable) begin
        armed_q  <= 1'b0;
        resync_q <= 1'b0;
        out      <= 1'b0;
        cfg_err  <= 1'b0;
      end else if (arm) begin
        armed_q  <= !cfg_bad;
        cfg_err  <= cfg_bad;
        resync_q <= 1'b1;     // edges at or before the first armed cycle's tod are skipped
        jlog_q   <= '0;
        out      <= 1'b0;
        skip_cnt <= '0;
      end else if (armed_q) begin
        if (fire) begin
          out <= 1'b1;
        end else if (tod_step || (out && fall_due)) begin
          out <= 1'b0;            // a step ends a pulse in progress
        end
        if (fire) begin
          resync_q <= next1_due;  // period shorter than a tick: the next edge is already past
        end else if (stale) begin
          resync_q <= next1_due;  // still passed edges to skip
        end else begin
          resync_q <= 1'b0;       // not due: the pending edge is in the future
        end
        if (grow) begin
          if (jump_q[T_W-1:T_W-3] == 3'd0 && jlog_q != 7'h7F) begin
            jlog_q <= jlog_q + 7'd1;
          end
        end else begin
          jlog_q <= '0;
        end
        if (stale) begin
          skip_cnt <= (skip_log2[6:5] != 2'd0 || skip_sum[32]) ? '1 : skip_sum[31:0];
        end
      end
    end
  end

  always_ff @(posedge gclk) begin
    if (arm) begin
      edge_q <= {1'b0, start_sec, start_ns[29:0], PFNS_W'(0)};
      per_sec_q <= period_sec;
      per_nsf_q <= {period_ns[29:0], period_fns};
      jump_q <= {17'd0, period_sec, period_ns[29:0], period_fns};
      wid_q  <= width_ns[29:0];
    end else begin
      if (grow) begin
        edge_q <= nextj;
      end else if (fire || stale) begin
        edge_q <= next1;
      end
      if (grow) begin
        if (jump_q[T_W-1:T_W-3] == 3'd0 && jlog_q != 7'h7F) begin
          jump_q <= dbl;
        end
      end else if (armed_q) begin   // read only while armed (grow); arming loads it
        jump_q <= {17'd0, per_sec_q, per_nsf_q};
      end
    end
    if (fire) begin
      fall_q <= fall_d;
    end
  end

endmodule

`resetall
