// SPDX-License-Identifier: MIT
// Interrupt moderation (docs/blocks/nic_core.md, "Arming"): per event queue, at most one MSI-X request
// per minimum interval; events inside the interval merge into one request at its end. An event for a
// quiet queue gives irq_valid the next cycle; pending queues are found by a scan of one queue per cycle.
`default_nettype none

// Time: a free-running TIME_W-bit cycle counter; last_mem[e] is when e's last request was taken
// (irq_valid && irq_ready), so requests of one queue are taken at least interval*256 cycles apart.
// A queue fires when (now - last) >= interval*256 or it never fired. With TIME_W below 64 the scan
// also forgets a last time older than 2^(TIME_W-1) cycles (before the counter could wrap onto it), so
// a queue quiet for a long time fires at once; with 64 bits the counter does not wrap in any run
// (2^64 cycles are over 2 000 years at 250 MHz) and nothing is forgotten. The scan moves only while a
// queue is pending (or, below 64 bits, holds a last time that still counts), and waits on a queue that
// is ready to fire while the output is busy, so a pending queue goes out at most interval*256 +
// EQ_COUNT cycles (plus output stalls) after it could.
// Counters: irq_count counts requests taken; merged_count counts events that found their queue
// already pending (so events = irq_count + merged_count + queues still pending). Events whose source
// is not below EQ_COUNT are ignored.
//
// Clock gate (rtl/common/beryl_clk_gate.sv): only the time counter runs on clk. Every other flop is
// clocked by gclk, enabled by a reset, an event at the input, a request on the output, a pending
// queue, or (below 64 bits) a last time still counting: in any other cycle none of them would change.
module beryl_nic_irq_mod #(
  parameter int EQ_COUNT = 32,                               // event queues, 1..256
  parameter int QI_W     = (EQ_COUNT > 1) ? $clog2(EQ_COUNT) : 1,  // event queue index width, bits
  parameter int VEC_W    = 8,                                // MSI-X vector index width, bits, 1..16
  // time stamp width, bits, 12..64. 25 covers every interval (up to 65535*256 cycles); with less,
  // intervals above 2^(TIME_W-9) units act as 2^(TIME_W-9) (for tests of the wrap handling). 64: no
  // wrap handling, and the block sleeps (clock gate) whenever no queue is pending.
  parameter int TIME_W   = 25
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // events from the EQ writer: target [15:0] MSI-X vector, [31:16] minimum interval in 256-cycle
  // units (0: no moderation); source = the event queue. Always ready.
  input  wire logic              evt_valid,
  output logic                   evt_ready,
  input  wire logic [31:0]       evt_target,
  input  wire logic [QI_W-1:0]   evt_source,

  // interrupt requests to the MSI-X block
  output logic [VEC_W-1:0]       irq_index,
  output logic                   irq_valid,
  input  wire logic              irq_ready,

  // statistics (wrap at 2^32)
  output logic [31:0]            irq_count,
  output logic [31:0]            merged_count
);

  if (EQ_COUNT < 1 || EQ_COUNT > 256) begin : g_chk_count
    $error("%m: EQ_COUNT must be 1..256");
  end
  if (QI_W < 1 || (1 << QI_W) < EQ_COUNT) begin : g_chk_qi
    $error("%m: QI_W must be at least $clog2(EQ_COUNT) and 1");
  end
  if (VEC_W < 1 || VEC_W > 16) begin : g_chk_vec
    $error("%m: VEC_W must be 1..16");
  end
  if (TIME_W < 12 || TIME_W > 64) begin : g_chk_time
    $error("%m: TIME_W must be 12..64");
  end

  // the scan forgets last times before the counter wraps onto them (not with 64 bits)
  localparam bit FORGET = TIME_W < 64;
  // elapsed times are compared with an interval (up to 24 bits of cycles) in CMP_W bits
  localparam int CMP_W  = (TIME_W > 24) ? TIME_W : 24;

  logic gclk;
  logic gate_en;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (gate_en),
    .gclk (gclk)
  );

  logic [TIME_W-1:0]   now_q;
  logic [EQ_COUNT-1:0] pending_q;                 // an event waits for its request
  logic [EQ_COUNT-1:0] have_q;                    // last_mem holds a time that still counts
  logic [TIME_W-1:0]   last_mem [EQ_COUNT];       // when the last request was taken
  logic [VEC_W-1:0]    vec_mem  [EQ_COUNT];       // vector and interval of the latest event
  logic [15:0]         ivl_mem  [EQ_COUNT];
  logic [QI_W-1:0]     out_eq_q;                  // queue of the request on the output
  logic [QI_W-1:0]     scan_q;

  logic [15:0]         evt_ivl;
  logic [VEC_W-1:0]    evt_vec;
  logic                evt_take, evt_elig, evt_fire, evt_pend;
  logic [TIME_W-1:0]   evt_elapsed, scan_elapsed;
  logic                scan_elig, scan_want, scan_fire, scan_old, scan_run;
  logic                out_free, irq_taken;

  assign evt_ready = 1'b1;
  assign evt_ivl   = evt_target[31:16];
  assign evt_vec   = evt_target[VEC_W-1:0];
  assign out_free  = !irq_valid;
  assign irq_taken = irq_valid && irq_ready;

  // the scan fires a pending queue whose interval has passed when the output is free; it moves while
  // there is something to find: a pending queue, or a last time to forget
  assign scan_run     = pending_q != '0 || (FORGET && have_q != '0);

  // The elapsed times are formed only for an event and while the scan runs (every use is qualified
  // by one of them): the time counter changes in every cycle, and a C++ model evaluates whatever
  // reads it in every cycle.
  always_comb begin
    evt_elapsed  = '0;
    evt_elig     = 1'b0;
    scan_elapsed = '0;
    scan_elig    = 1'b0;
    if (evt_valid) begin
      evt_elapsed = now_q - last_mem[evt_source];
      evt_elig    = !have_q[evt_source] || CMP_W'(evt_elapsed) >= CMP_W'({evt_ivl, 8'd0});
    end
    if (scan_run) begin
      scan_elapsed = now_q - last_mem[scan_q];
      scan_elig    = !have_q[scan_q] || CMP_W'(scan_elapsed) >= CMP_W'({ivl_mem[scan_q], 8'd0});
    end
  end

  // an event fires at once if its queue is quiet and the output is free, else it waits as pending
  assign evt_take    = evt_valid && 32'(evt_source) < 32'(EQ_COUNT);
  assign evt_fire    = evt_take && out_free && evt_elig;
  assign evt_pend    = evt_take && !evt_fire;

  assign scan_want    = pending_q[scan_q] && scan_elig;
  assign scan_fire    = scan_want && out_free && !evt_fire;
  assign scan_old     = FORGET && have_q[scan_q] && scan_elapsed[TIME_W-1];

  assign gate_en = rst || evt_valid || irq_valid || scan_run;

  always_ff @(posedge clk) begin
    now_q <= now_q + 1'b1;
    if (rst) now_q <= '0;
  end

  always_ff @(posedge gclk) begin
    if (evt_take) begin
      vec_mem[evt_source] <= evt_vec;
      ivl_mem[evt_source] <= evt_ivl;
    end
    if (irq_taken) last_mem[out_eq_q] <= now_q;
  end

  always_ff @(posedge gclk) begin
    if (scan_run && (!scan_want || scan_fire)) begin
      scan_q <= (32'(scan_q) == EQ_COUNT - 1) ? '0 : scan_q + 1'b1;
    end
    if (scan_old) have_q[scan_q] <= 1'b0;
    if (evt_take && pending_q[evt_source]) merged_count <= merged_count + 1'b1;
    if (evt_pend) pending_q[evt_source] <= 1'b1;
    if (evt_fire) begin
      pending_q[evt_source] <= 1'b0;   // this request also covers an earlier pending event
      irq_valid             <= 1'b1;
      irq_index             <= evt_vec;
      out_eq_q              <= evt_source;
    end
    if (scan_fire) begin
      pending_q[scan_q] <= 1'b0;       // covers an event of the same queue arriving now
      irq_valid         <= 1'b1;
      irq_index         <= vec_mem[scan_q];
      out_eq_q          <= scan_q;
    end
    if (irq_taken) begin
      irq_valid        <= 1'b0;
      have_q[out_eq_q] <= 1'b1;
      irq_count        <= irq_count + 1'b1;
    end
    if (rst) begin
      scan_q       <= '0;
      pending_q    <= '0;
      have_q       <= '0;
      irq_valid    <= 1'b0;
      irq_count    <= '0;
      merged_count <= '0;
    end
  end

  // vector bits above VEC_W are not used by this build
  logic unused;
  assign unused = ^evt_target[15:0];

endmodule

`resetall
