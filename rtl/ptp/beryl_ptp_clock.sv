// SPDX-License-Identifier: MIT
// PTP hardware clock: 96-bit time of day {sec48, ns32, fns16} and a monotonic 80-bit relative
// counter {ns64, fns16}, both advanced by a software-set increment every clock (FNS_W fractional bits
// inside). Set / offset / increment commands take effect at the tick one clock after they are
// sampled (visible 2 clocks after the command cycle); snapshot in one clock. One tick per clock.
`default_nettype none

module beryl_ptp_clock #(
  parameter int unsigned FNS_W      = 32, // fractional ns bits kept inside (increment resolution 2^-FNS_W ns), 16..32
  parameter int unsigned PERIOD_NS  = 4,  // integer ns of the increment after reset, 0..255 (4 = 250 MHz clk)
  parameter int unsigned PERIOD_FNS = 0   // fractional ns of the increment after reset, units 2^-32 ns, 0..2^32-1
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // new increment {ns8, fns FNS_W}: used from the tick after the one at the end of this cycle
  input  wire logic              incr_valid,
  input  wire logic [FNS_W+7:0]  incr,
  // set the time of day to {sec48, ns32, fns16}; ns >= 10^9 is rejected (set_err). Wins over adj_valid.
  input  wire logic              set_tod_valid,
  input  wire logic [95:0]       set_tod,
  // add a signed offset {ns32 (two's complement), fns16} to the time of day, range -2^31 .. 2^31 - 2^-16 ns
  input  wire logic              adj_valid,
  input  wire logic [47:0]       adj_offset,
  // capture tod and rel of this cycle into snap_tod / snap_rel (visible from the next cycle)
  input  wire logic              snap_req,

  output      logic [95:0]       tod,      // {sec48, ns32 (0..999999999), fns16}
  output      logic [79:0]       rel,      // {ns64, fns16}, never stepped, wraps at 2^64 ns
  output      logic              pps,      // one clock: first cycle of a new second reached by counting
  output      logic              step,     // one clock: first cycle showing a set or adjusted tod
  output      logic              set_err,  // one clock after a set_tod_valid with ns >= 10^9 (set ignored)
  output      logic [95:0]       snap_tod,
  output      logic [79:0]       snap_rel,
  output      logic [FNS_W+7:0]  incr_cur  // increment in use
);

  if (FNS_W < 16 || FNS_W > 32) begin : g_bad_fns_w
    $error("%m: FNS_W must be within 16..32");
  end
  if (PERIOD_NS > 255) begin : g_bad_period_ns
    $error("%m: PERIOD_NS must be within 0..255");
  end

  localparam int unsigned INCR_W = FNS_W + 8;   // increment {ns8, fns}
  localparam int unsigned NSF_W  = FNS_W + 30;  // time of day below the second {ns30, fns}
  localparam int unsigned S_W    = FNS_W + 35;  // signed increment + offset, integer part 35 bits
  localparam int unsigned HI_W   = NSF_W + 2;   // {ns, fns} with room for a sign and a carry

  localparam logic [INCR_W-1:0] INCR_RST = {8'(PERIOD_NS), FNS_W'(PERIOD_FNS >> (32 - FNS_W))};
  // 10^9 ns in the {ns, fns} units, two's complement width NSF_W + 2
  localparam logic [NSF_W+1:0]  ONE_SEC  = HI_W'(1000000000) << FNS_W;
  localparam logic [NSF_W+1:0]  ADD_HI_RST = HI_W'(INCR_RST) - ONE_SEC;

  // ---------------------------------------------------------------------------------------------
  // Command stage: the addend of the next tick. increment + offset is normalised to
  // k * 10^9 ns + rem with rem in [0, 10^9) ns, so the tick itself needs one conditional carry.
  // ---------------------------------------------------------------------------------------------
  logic [INCR_W-1:0]   incr_q;        // increment of the next tick (also counted by rel)
  logic [NSF_W-1:0]    add_lo_q;      // rem
  logic [NSF_W+1:0]    add_hi_q;      // rem - 10^9 ns, two's complement
  logic [2:0]          add_sec_q;     // k, -3..2
  logic                set_pend_q;
  logic                adj_pend_q;
  logic [47:0]         set_sec_q;
  logic [NSF_W-1:0]    set_nsf_q;

  logic [INCR_W-1:0]   incr_sel;
  logic                adj_take;
  logic [S_W-1:0]      off_ext;
  logic [S_W-1:0]      s_sum;
  logic signed [34:0]  s_int;
  // only the low 30 bits of the remainder (< 10^9) are kept
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [34:0]  s_rem;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0]          s_k;
  logic [NSF_W-1:0]    add_lo_d;
  logic                set_ok;

  assign incr_sel = incr_valid ? incr : incr_q;
  assign adj_take = adj_valid && !set_tod_valid;
  assign set_ok   = set_tod[47:16] < 32'd1000000000;

  // The step registers below reload only when the increment or an adjustment changes them: a new
  // increment, an adjustment, or the cycle after one (back to the plain increment). In other cycles
  // they already hold what this computes from incr_q, so it is skipped (a C++ model would evaluate
  // it in every cycle).
  logic step_upd;
  assign step_upd = incr_valid || adj_take || adj_pend_q;

  always_comb begin
    off_ext  = '0;
    s_sum    = '0;
    s_int    = '0;
    s_k      = '0;
    s_rem    = '0;
    add_lo_d = '0;
    if (step_upd) begin
      // offset in fns units: sign-extend {ns32, fns16}, then scale 2^-16 -> 2^-FNS_W
      off_ext = adj_take ? ({{(S_W - 48){adj_offset[47]}}, adj_offset} << (FNS_W - 16)) : '0;
      s_sum   = {{(S_W - INCR_W){1'b0}}, incr_sel} + off_ext;
      s_int   = s_sum[S_W-1:FNS_W];
      // floor division by 10^9 for s_int in [-2^31, 2^31 + 256): k in -3..2
      if (s_int >= 35'sd2000000000) begin
        s_k = 3'd2;
        s_rem = s_int - 35'sd2000000000;
      end else if (s_int >= 35'sd1000000000) begin
        s_k = 3'd1;
        s_rem = s_int - 35'sd1000000000;
      end else if (s_int >= 35'sd0) begin
        s_k = 3'd0;
        s_rem = s_int;
      end else if (s_int >= -35'sd1000000000) begin
        s_k = 3'b111;
        s_rem = s_int + 35'sd1000000000;
      end else if (s_int >= -35'sd2000000000) begin
        s_k = 3'b110;
        s_rem = s_int + 35'sd2000000000;
      end else begin
        s_k = 3'b101;
        s_rem = s_int + 35'sd3000000000;
      end
      add_lo_d = {s_rem[29:0], s_sum[FNS_W-1:0]};
    end
  end

  // The step, set and snapshot registers change only with a reset, a step update, a set (and the cycle
  // after it), a set error to clear or a snapshot request: a clock gate (beryl_clk_gate) open only
  // then, so that a C++ model evaluates the logic reading them (the register block's read words, the
  // step computation) only when they can have changed. The tick below keeps clk.
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || step_upd || set_tod_valid || set_pend_q || set_err || snap_req),
    .gclk (gclk)
  );

  always_ff @(posedge gclk) begin
    if (rst) begin
      incr_q     <= INCR_RST;
      add_lo_q   <= NSF_W'(INCR_RST);
      add_hi_q   <= ADD_HI_RST;
      add_sec_q  <= '0;
      set_pend_q <= 1'b0;
      adj_pend_q <= 1'b0;
      set_err    <= 1'b0;
    end else begin
      if (step_upd) begin
        incr_q     <= incr_sel;
        add_lo_q   <= add_lo_d;
        add_hi_q   <= {2'b00, add_lo_d} - ONE_SEC;
        add_sec_q  <= s_k;
      end
      set_pend_q <= set_tod_valid && set_ok;
      adj_pend_q <= adj_take;
      set_err    <= set_tod_valid && !set_ok;
    end
    // read only in the cycle after a set (set_pend_q)
    if (set_tod_valid) begin
      set_sec_q <= set_tod[95:48];
      set_nsf_q <= NSF_W'(set_tod[45:0]) << (FNS_W - 16);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Tick: tod += addend (one conditional carry into the seconds), rel += increment
  // ---------------------------------------------------------------------------------------------
  logic [47:0]        sec_q;
  logic [NSF_W-1:0]   nsf_q;
  // rel = {rel_ns_q, rel_fns_q}: two sums of at most 64 bits with a carry between them (a C++ model
  // then adds machine words instead of a 96-bit vector every cycle)
  logic [63:0]        rel_ns_q;
  logic [FNS_W-1:0]   rel_fns_q;
  logic [FNS_W:0]     rel_fns_sum;
  assign rel_fns_sum = {1'b0, rel_fns_q} + {1'b0, incr_q[FNS_W-1:0]};

  // the top bits of the two sums only decide which one is kept
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NSF_W:0]     sum_lo;
  logic [NSF_W+1:0]   sum_hi;
  /* verilator lint_on UNUSEDSIGNAL */
  logic               carry;

  assign sum_lo = {1'b0, nsf_q} + {1'b0, add_lo_q};
  assign sum_hi = {2'b00, nsf_q} + add_hi_q;
  assign carry  = !sum_hi[NSF_W+1];   // nsf + rem >= 10^9 ns

  always_ff @(posedge clk) begin
    if (rst) begin
      sec_q <= '0;
      nsf_q <= '0;
      rel_ns_q  <= '0;
      rel_fns_q <= '0;
      pps   <= 1'b0;
      step  <= 1'b0;
    end else begin
      rel_fns_q <= rel_fns_sum[FNS_W-1:0];
      rel_ns_q  <= rel_ns_q + 64'(incr_q[INCR_W-1:FNS_W]) + 64'(rel_fns_sum[FNS_W]);
      if (set_pend_q) begin
        sec_q <= set_sec_q;
        nsf_q <= set_nsf_q;
      end else begin
        sec_q <= sec_q + {{45{add_sec_q[2]}}, add_sec_q} + 48'(carry);
        nsf_q <= carry ? sum_hi[NSF_W-1:0] : sum_lo[NSF_W-1:0];
      end
      pps   <= carry && !set_pend_q && !adj_pend_q;
      step  <= set_pend_q || adj_pend_q;
    end
  end

  assign tod      = {sec_q, 2'b00, nsf_q[NSF_W-1:FNS_W], nsf_q[FNS_W-1 -: 16]};
  assign rel      = {rel_ns_q, rel_fns_q[FNS_W-1 -: 16]};
  assign incr_cur = incr_q;

  always_ff @(posedge gclk) begin
    if (rst) begin
      snap_tod <= '0;
      snap_rel <= '0;
    end else if (snap_req) begin
      snap_tod <= tod;
      snap_rel <= rel;
    end
  end

endmodule

`resetall
