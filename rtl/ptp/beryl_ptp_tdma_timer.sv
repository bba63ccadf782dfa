// SPDX-License-Identifier: MIT
// TDMA slot timer: from the PTP time of day, the schedule's current slot (index, first-cycle pulse, whole ns
// left until it closes). Outputs describe tod of 2 clocks earlier. A step or a start in the past re-finds the
// slot with a 79-clock remainder search (no division per clock, no burst of slot starts); otherwise exact.
`default_nettype none

module beryl_ptp_tdma_timer #(
  parameter int SLOTS_MAX = 8,                                    // slots per period, 1..256
  parameter int SI_W      = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1, // slot index width, bits (derived)
  parameter int SC_W      = $clog2(SLOTS_MAX + 1)                  // slot count width, bits (derived)
) (
  input  wire logic             clk,
  input  wire logic             rst,

  /* verilator lint_off UNUSEDSIGNAL */      // ns bits 47:46 are always 0 (ns < 10^9)
  input  wire logic [95:0]      tod,          // beryl_ptp_clock tod {sec48, ns32 (0..999999999), fns16}
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic             tod_step,     // beryl_ptp_clock step: this cycle's tod was set or adjusted

  // configuration, latched when enable rises (changes while enabled are ignored; re-arm: enable low 1 clock)
  input  wire logic             enable,
  input  wire logic [47:0]      start_sec,    // schedule start {sec, ns}: period 0 begins here
  input  wire logic [29:0]      start_ns,     // 0..999999999
  input  wire logic [31:0]      period_ns,    // period, ns, >= slot_count * slot_ns, not 0
  input  wire logic [31:0]      slot_ns,      // timeslot length, ns, not 0; slot i = [i, i+1) * slot_ns in a period
  input  wire logic [SC_W-1:0]  slot_count,   // slots per period, 1..SLOTS_MAX; the rest of the period is a gap

  output logic                  slot_valid,   // tod is inside slot slot_index of the schedule
  output logic [SI_W-1:0]       slot_index,   // 0 when not slot_valid
  output logic                  slot_start,   // one clock: the first cycle showing this slot (also when entered
                                              // mid-slot after arming or a search)
  output logic [31:0]           slot_left_ns, // floor(ns until the slot ends); not slot_valid: until the next
                                              // slot begins (gap, before the start), 0 while searching;
                                              // saturates at 2^32 - 1
  output logic                  searching,    // enabled, slot not known this cycle (arming, after a step)
  output logic                  cfg_err       // enable rose with an illegal configuration: not running
);

  if (SLOTS_MAX < 1 || SLOTS_MAX > 256) begin : g_bad_slots
    $error("%m: SLOTS_MAX must be within 1..256");
  end

  localparam int T_W      = 80;       // signed ns relative to the schedule start (|t| < 2^78 ns)
  localparam int DIV_W    = 79;       // dividend bits of the remainder search (t >= 0)
  localparam int WALK_MAX = 255;      // intervals walked without a step before a search is forced

  localparam logic [1:0] M_OFF  = 2'd0;  // disabled or bad configuration
  localparam logic [1:0] M_ARM  = 2'd1;  // configuration latched; relative time not yet valid
  localparam logic [1:0] M_DIV  = 2'd2;  // remainder search
  localparam logic [1:0] M_RUN  = 2'd3;

  // ---------------------------------------------------------------- configuration
  logic                  en_q;
  logic [47:0]           start_sec_q;
  logic [29:0]           start_ns_q;
  logic [31:0]           period_q;
  logic [31:0]           slot_q;
  logic [SC_W-1:0]       count_q;
  logic                  gap_q;          // slot_count * slot_ns < period: a gap ends each period
  logic [SC_W+31:0]      busy_ns;        // slot_count * slot_ns
  logic                  cfg_bad;

  // ---------------------------------------------------------------- relative time pipeline
  logic signed [48:0]    dsec;
  logic signed [30:0]    dns;
  logic signed [T_W-1:0] t_d;
  logic signed [T_W-1:0] t_q;            // integer ns of tod - start
  logic [15:0]           fns_q;
  logic                  step_q;

  // ---------------------------------------------------------------- tracker
  // Interval 1 = [e0, e1) with slot i1 (or the gap when gap1), interval 2 = [e1, e2) with i2 / gap2; np2 is
  // the end of the period interval 2 belongs to. e0_inf: interval 1 reaches back to minus infinity (before
  // the start of the schedule).
  logic [1:0]            mode_q;
  logic signed [T_W-1:0] e0_q;
  logic signed [T_W-1:0] e1_q;
  logic signed [T_W-1:0] e2_q;
  logic signed [T_W-1:0] np2_q;
  logic [SI_W-1:0]       i1_q;
  logic [SI_W-1:0]       i2_q;
  logic                  gap1_q;
  logic                  gap2_q;
  logic                  e0_inf_q;
  logic                  shown_q;        // interval 1 was already output as a valid slot
  logic [7:0]            walk_q;

  // remainder search: r = t mod period, one dividend bit per clock, MSB first
  logic                  div_cap_q;      // first search cycle: take this cycle's t
  logic                  div_pre_q;      // t was before the schedule start: seed at the start, no division
  logic [DIV_W-1:0]      div_d_q;
  logic [32:0]           div_r_q;
  logic [6:0]            div_n_q;        // dividend bits done
  logic signed [T_W-1:0] div_t_q;
  logic [32:0]           div_sh;
  logic [32:0]           div_sub;
  logic signed [T_W-1:0] seed_p;         // period start found by the search

  // next interval after interval 2
  logic [SI_W-1:0]       nx_i;
  logic                  nx_gap;
  logic signed [T_W-1:0] nx_e;
  logic signed [T_W-1:0] nx_np;
  logic                  last2;          // interval 2 is the last slot of its period

  logic                  lost;           // t before interval 1 (a backward step)
  logic                  in1;
  logic                  in2;
  logic                  run;
  logic                  advance;
  logic                  to_div;
  logic signed [T_W-1:0] sel_e;
  /* verilator lint_off UNUSEDSIGNAL */      // the fraction below 1 ns is truncated (slot_left_ns is a floor)
  logic signed [T_W+16:0] left_full;     // (e << 16) - t, in 2^-16 ns; e is whole ns
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------- configuration
  assign busy_ns = (SC_W + 32)'(count_q) * (SC_W + 32)'(slot_q);
  assign cfg_bad = start_ns_q >= 30'd1000000000 || period_q == '0 || slot_q == '0 || count_q == '0 ||
                   count_q > SC_W'(SLOTS_MAX) || busy_ns > (SC_W + 32)'(period_q);

  always_ff @(posedge clk) begin
    if (enable && !en_q) begin
      start_sec_q <= start_sec;
      start_ns_q  <= start_ns;
      period_q    <= period_ns;
      slot_q      <= slot_ns;
      count_q     <= slot_count;
    end
    if (mode_q == M_ARM) gap_q <= busy_ns < (SC_W + 32)'(period_q);
  end

  // ---------------------------------------------------------------- tod - start in ns (one multiply by 10^9)
  assign dsec = $signed({1'b0, tod[95:48]}) - $signed({1'b0, start_sec_q});
  assign dns  = $signed({1'b0, tod[45:16]}) - $signed({1'b0, start_ns_q});
  assign t_d  = T_W'(dsec) * $signed(T_W'(1000000000)) + T_W'(dns);

  always_ff @(posedge clk) begin
    t_q    <= t_d;
    fns_q  <= tod[15:0];
    step_q <= tod_step;
  end

  // ---------------------------------------------------------------- interval iterator
  assign last2 = !gap2_q && SC_W'(i2_q) == count_q - 1'b1;
  always_comb begin
    nx_i   = i2_q + 1'b1;
    nx_gap = 1'b0;
    nx_e   = e2_q + T_W'(slot_q);
    nx_np  = np2_q;
    if (gap2_q) begin
      nx_i  = '0;
      nx_np = np2_q + T_W'(period_q);
    end else if (last2) begin
      nx_i = '0;
      if (gap_q) begin
        nx_gap = 1'b1;
        nx_e   = np2_q;
      end else begin
        nx_np = np2_q + T_W'(period_q);
      end
    end
  end

  // ---------------------------------------------------------------- placement of this cycle's t
  assign run     = enable && en_q && mode_q == M_RUN;
  assign lost    = !e0_inf_q && t_q < e0_q;
  assign in1     = t_q < e1_q;
  assign in2     = t_q < e2_q;
  assign advance = run && !lost && !in1;
  // a backward step out of interval 1, a step far ahead, or too long a walk: search
  assign to_div  = run && (lost || (!in1 && !in2 && (step_q || walk_q == 8'(WALK_MAX))));
  assign sel_e   = in1 ? e1_q : e2_q;
  assign left_full = {sel_e[T_W-1], sel_e, 16'd0} - {t_q[T_W-1], t_q, fns_q};

  assign div_sh  = {div_r_q[31:0], div_d_q[DIV_W-1]};
  assign div_sub = div_sh - {1'b0, period_q};
  assign seed_p  = div_t_q - T_W'(div_r_q);

  // outputs (registered): slot of this cycle's t
  always_ff @(posedge clk) begin
    slot_valid   <= 1'b0;
    slot_index   <= '0;
    slot_start   <= 1'b0;
    slot_left_ns <= '0;
    searching    <= enable && (!en_q || (mode_q != M_OFF && !(mode_q == M_ARM && cfg_bad)));
    if (run && !to_div) begin
      searching <= !in1 && !in2;       // behind: walking one interval per clock, nothing shown
      if (in1 && !gap1_q) begin
        slot_valid <= 1'b1;
        slot_index <= i1_q;
        slot_start <= !shown_q;
      end else if (!in1 && in2 && !gap2_q) begin
        slot_valid <= 1'b1;
        slot_index <= i2_q;
        slot_start <= 1'b1;
      end
      if (in1 || in2) slot_left_ns <= left_full[T_W+16:48] != '0 ? '1 : left_full[47:16];
    end
    if (rst) begin
      slot_valid <= 1'b0;
      slot_start <= 1'b0;
      searching  <= 1'b0;
    end
  end

  // tracker and search
  always_ff @(posedge clk) begin
    en_q <= enable;
    if (!enable) begin
      mode_q  <= M_OFF;
      cfg_err <= 1'b0;
    end else if (!en_q) begin
      mode_q  <= M_ARM;            // the configuration registers load on this edge
      cfg_err <= 1'b0;
    end else begin
      case (mode_q)
        M_ARM: begin
          // t_q follows the new start from the next cycle on
          cfg_err   <= cfg_bad;
          mode_q    <= cfg_bad ? M_OFF : M_DIV;
          div_cap_q <= 1'b1;
        end
        M_DIV: begin
          div_cap_q <= 1'b0;        // a step during the search restarts it from the stepped time
          if (div_cap_q || step_q) begin
            div_t_q   <= t_q;
            div_d_q   <= t_q[DIV_W-1:0];
            div_r_q   <= '0;
            div_n_q   <= '0;
            div_pre_q <= t_q < 0;
          end else if (!div_pre_q && div_n_q != 7'(DIV_W)) begin
            div_r_q <= div_sub[32] ? div_sh : div_sub;
            div_d_q <= div_d_q << 1;
            div_n_q <= div_n_q + 1'b1;
          end else begin
            // seed at the period start P = t - (t mod period) (P = 0 before the schedule start):
            // interval 1 = [P, P), empty (before the start: reaching back to minus infinity),
            // interval 2 = slot 0 of the period beginning at P; the walk then finds t's interval.
            mode_q   <= M_RUN;
            e0_inf_q <= div_pre_q;
            e0_q     <= div_pre_q ? '0 : seed_p;
            e1_q     <= div_pre_q ? '0 : seed_p;
            gap1_q   <= 1'b1;
            i1_q     <= '0;
            i2_q     <= '0;
            gap2_q   <= 1'b0;
            e2_q     <= (div_pre_q ? '0 : seed_p) + T_W'(slot_q);
            np2_q    <= (div_pre_q ? '0 : seed_p) + T_W'(period_q);
            shown_q  <= 1'b0;
            walk_q   <= '0;
          end
        end
        M_RUN: begin
          if (to_div) begin
            mode_q    <= M_DIV;
            div_cap_q <= 1'b1;
          end else begin
            if (in1) begin
              shown_q <= shown_q || !gap1_q;
              walk_q  <= '0;
            end else if (in2) begin
              shown_q <= !gap2_q;
              walk_q  <= '0;
            end else begin
              shown_q <= 1'b0;
              walk_q  <= walk_q + 1'b1;
            end
          end
          if (advance && !to_div) begin
            e0_inf_q <= 1'b0;
            e0_q     <= e1_q;
            e1_q     <= e2_q;
            i1_q     <= i2_q;
            gap1_q   <= gap2_q;
            e2_q     <= nx_e;
            i2_q     <= nx_i;
            gap2_q   <= nx_gap;
            np2_q    <= nx_np;
          end
        end
        default: ;
      endcase
    end
    if (rst) begin
      en_q    <= 1'b0;
      mode_q  <= M_OFF;
      cfg_err <= 1'b0;
    end
  end

endmodule

`resetall
