// SPDX-License-Identifier: MIT
// Token-bucket TX scheduler (docs/blocks/nic_core.md, "Scheduler interface"): round robin among queues with
// tokens, per-queue rate (8.24 bytes/cycle, 0 = unlimited) and burst, lazy refill on every state access; a
// command is debited at its status, and refills are capped at the burst only while the queue has none in flight.
// One queue operation (doorbell, status, config, selection) per 3 cycles; doorbell to command about 10 cycles.
`default_nettype none

module beryl_nic_sched_tb #(
  parameter int QUEUE_COUNT    = 4096,                // TX queues of this port, power of two, 2..32768
  parameter int QI_W           = $clog2(QUEUE_COUNT), // queue index width, bits, = log2(QUEUE_COUNT)
  parameter int MAX_CMDS       = 8,                   // commands in flight (issued, no status yet), 1..64
  parameter int OVERHEAD_BYTES = 0,                   // bytes debited per packet on top of tx_sts_bytes, 0..255;
                                                      // 24 (preamble+SFD 8, FCS 4, IFG 12) limits Ethernet wire rate
  parameter int BURST_W        = 24,                  // width of the burst size in bytes, 8..30
  parameter int WAIT_INTERVAL  = 16                   // cycles between two checks of the wait list, 1..65535
) (
  input  wire logic               clk,
  input  wire logic               rst,

  // doorbell events from the TXQ manager (queues of this port); held off while the state RAM clears
  input  wire logic               db_evt_valid,
  output logic                    db_evt_ready,
  input  wire logic [QI_W-1:0]    db_evt_qidx,

  // commands to the TX engine
  output logic                    tx_cmd_valid,
  input  wire logic               tx_cmd_ready,
  output logic [QI_W-1:0]         tx_cmd_qidx,

  // command results, any order, no backpressure
  input  wire logic               tx_sts_valid,
  input  wire logic [QI_W-1:0]    tx_sts_qidx,
  input  wire logic [1:0]         tx_sts_result,   // beryl_nic_pkg::TXS_*
  input  wire logic [7:0]         tx_sts_pkts,     // packets sent by the command
  input  wire logic [31:0]        tx_sts_bytes,    // bytes sent by the command

  // 0: no new commands (a presented one is held); doorbells, statuses and configuration still work
  input  wire logic               sched_enable,

  // per-queue configuration; a write refills the bucket (tokens = burst)
  input  wire logic               cfg_valid,
  output logic                    cfg_ready,
  input  wire logic               cfg_write,       // 1 write rate and burst, 0 read
  input  wire logic [QI_W-1:0]    cfg_qidx,
  input  wire logic [31:0]        cfg_rate,        // bytes per clock cycle, unsigned 8.24 fixed point; 0 unlimited
  input  wire logic [BURST_W-1:0] cfg_burst,       // bucket size, bytes
  output logic                    cfg_rd_valid,    // one-cycle pulse per read, in request order
  output logic [31:0]             cfg_rd_rate,
  output logic [BURST_W-1:0]      cfg_rd_burst,
  output logic [31:0]             cfg_rd_tokens,   // tokens now, whole bytes (floor), signed; above the burst
                                                   // only while a command is in flight (its cost still owed)

  output logic [31:0]             bad_sts_count    // statuses for a queue with no command in flight (wrapping)
);

  if (QUEUE_COUNT < 2 || QUEUE_COUNT > 32768 || (QUEUE_COUNT & (QUEUE_COUNT - 1)) != 0) begin : g_chk_qc
    $error("%m: QUEUE_COUNT must be a power of two, 2..32768");
  end
  if (QI_W != $clog2(QUEUE_COUNT)) begin : g_chk_qiw
    $error("%m: QI_W must be log2(QUEUE_COUNT)");
  end
  if (MAX_CMDS < 1 || MAX_CMDS > 64) begin : g_chk_cmds
    $error("%m: MAX_CMDS must be 1..64");
  end
  if (OVERHEAD_BYTES < 0 || OVERHEAD_BYTES > 255) begin : g_chk_ovh
    $error("%m: OVERHEAD_BYTES must be 0..255");
  end
  if (BURST_W < 8 || BURST_W > 30) begin : g_chk_bw
    $error("%m: BURST_W must be 8..30");
  end
  if (WAIT_INTERVAL < 1 || WAIT_INTERVAL > 65535) begin : g_chk_wi
    $error("%m: WAIT_INTERVAL must be 1..65535");
  end

  localparam int SLOT_W = MAX_CMDS > 1 ? $clog2(MAX_CMDS) : 1;
  localparam int FRAC_W = 24;                 // fractional bits of rate and tokens
  localparam int TS_W   = 32;                 // timestamps, cycles (wrapping)
  // tokens: signed, -2^(BURST_W+1) .. 2^(BURST_W+1) bytes. Above the burst only while a command is in flight,
  // where refills saturate at TOK_MAX; the debit's cap at the burst makes that exact for any turnaround as
  // long as the command costs at most TOK_MAX - burst > 2^BURST_W bytes (below that the debit saturates too).
  localparam int TOK_W  = BURST_W + 2 + FRAC_W;
  localparam int CALC_W = 66;                 // refill / debit arithmetic, signed, never overflows

  // queue state word, one per queue in an inferred RAM: {st, rate, burst, tokens, ts}
  localparam int TS_LSB  = 0;
  localparam int TOK_LSB = TS_LSB + TS_W;
  localparam int BU_LSB  = TOK_LSB + TOK_W;
  localparam int RA_LSB  = BU_LSB + BURST_W;
  localparam int ST_LSB  = RA_LSB + 32;
  localparam int WORD_W  = ST_LSB + 2;

  // st: where the queue is. QUEUED = in the run list or the wait list (exactly once in one of them).
  localparam logic [1:0] ST_IDLE      = 2'd0;
  localparam logic [1:0] ST_QUEUED    = 2'd1;
  localparam logic [1:0] ST_INFL      = 2'd2;  // command reserved or in flight
  localparam logic [1:0] ST_INFL_PEND = 2'd3;  // in flight, and a doorbell came after the engine took it

  localparam logic [2:0] OP_STS   = 3'd0;
  localparam logic [2:0] OP_CFG   = 3'd1;
  localparam logic [2:0] OP_DB    = 3'd2;
  localparam logic [2:0] OP_WAIT  = 3'd3;      // re-examine the head of the wait list
  localparam logic [2:0] OP_RUN   = 3'd4;      // select the head of the run list

  localparam logic signed [CALC_W-1:0] TOK_MIN = -(CALC_W'(1) <<< (TOK_W - 1));
  localparam logic signed [CALC_W-1:0] TOK_MAX = (CALC_W'(1) <<< (TOK_W - 1)) - CALC_W'(1);

  // ---------------------------------------------------------------- declarations
  logic [WORD_W-1:0]        st_mem [QUEUE_COUNT];
  logic                     ram_we;
  logic [QI_W-1:0]          ram_waddr;
  logic [WORD_W-1:0]        ram_wdata;
  logic                     ram_re;
  logic [QI_W-1:0]          ram_raddr;
  logic [WORD_W-1:0]        ram_rdata_q;

  logic                     init_q;
  logic [QI_W-1:0]          init_addr_q;
  logic [TS_W-1:0]          now_q;

  // input registers
  logic                     db_v_q;
  logic [QI_W-1:0]          db_q;
  logic                     db_taken;      // the doorbell's queue has a command the engine took (or takes now)
  logic                     db_taken_q;
  logic                     cfg_v_q;
  logic                     cfg_we_q;
  logic [QI_W-1:0]          cfg_qidx_q;
  logic [31:0]              cfg_rate_q;
  logic [BURST_W-1:0]       cfg_burst_q;

  // command slots: busy = reserved until its status is processed; sent = taken by the engine, no status yet
  logic [MAX_CMDS-1:0]      slot_busy_q;
  logic [MAX_CMDS-1:0]      slot_sent_q;
  logic [MAX_CMDS*QI_W-1:0] slot_qidx_q;
  logic [MAX_CMDS*2-1:0]    slot_res_q;
  logic [MAX_CMDS*8-1:0]    slot_pkts_q;
  logic [MAX_CMDS*32-1:0]   slot_bytes_q;
  logic [SLOT_W-1:0]        free_slot;
  logic                     free_any;
  // slots whose status arrived, in arrival order (each slot at most once, so 2^SLOT_W entries suffice)
  logic [SLOT_W-1:0]        ans_fifo_q [2**SLOT_W];
  logic [SLOT_W:0]          ans_wr_q;
  logic [SLOT_W:0]          ans_rd_q;
  logic [SLOT_W-1:0]        ans_slot;
  logic                     ans_any;
  logic [SLOT_W-1:0]        hit_slot;
  logic [SLOT_W-1:0]        cmd_slot_q;

  // status input stage
  logic                     sts_valid_q;
  logic [QI_W-1:0]          sts_qidx_q;
  logic [1:0]               sts_result_q;
  logic [7:0]               sts_pkts_q;
  logic [31:0]              sts_bytes_q;
  logic [MAX_CMDS-1:0]      sts_hit;

  // run list and wait list: FIFOs of queue indices with a head register (block-RAM read)
  logic [QI_W-1:0]          run_mem [QUEUE_COUNT];
  logic [QI_W:0]            run_wr_q;
  logic [QI_W:0]            run_rd_q;
  logic                     run_hv_q;
  logic [QI_W-1:0]          run_head_q;
  logic                     run_push;
  logic                     run_pop;
  logic                     run_fetch;
  logic [QI_W-1:0]          wait_mem [QUEUE_COUNT];
  logic [QI_W:0]            wait_wr_q;
  logic [QI_W:0]            wait_rd_q;
  logic                     wait_hv_q;
  logic [QI_W-1:0]          wait_head_q;
  logic                     wait_push;
  logic                     wait_pop;
  logic                     wait_fetch;
  logic [15:0]              wait_tmr_q;
  logic [QI_W-1:0]          push_qidx;
  // a selected queue that could not go because sched_enable fell meanwhile: first in line when it rises
  logic                     front_v_q;
  logic [QI_W-1:0]          front_q;
  logic                     front_set;

  // operation pipeline: S0 choose and read, S1 multiply, S2 refill, S3 apply and write
  logic [3:0]               stage_q;       // one-hot S0..S3 (S0 = bit 0)
  logic                     last_in_q;     // the last operation came from an input (fairness to selection)
  logic                     can_issue;
  logic                     want;          // an operation is ready to start
  logic                     start;         // it starts: S0, or S3 of an operation it cannot conflict with
  logic [2:0]               op_sel;
  logic [QI_W-1:0]          op_sel_qidx;
  logic [2:0]               op_q;
  logic [QI_W-1:0]          op_qidx_q;
  logic [SLOT_W-1:0]        op_slot_q;
  logic [1:0]               op_res_q;
  logic                     op_taken_q;    // OP_DB: db_taken_q
  logic [40:0]              op_cost_q;     // bytes + pkts * OVERHEAD_BYTES
  logic                     op_we_q;
  logic [31:0]              op_rate_q;
  logic [BURST_W-1:0]       op_burst_q;

  logic [WORD_W-1:TS_W]     word_q;        // the word without its timestamp
  logic [TS_W-1:0]          t_now_q;
  logic [63:0]              prod_q;
  logic [TOK_W-1:0]         tok_ref_q;

  logic [1:0]               w_st;
  logic [31:0]              w_rate;
  logic [BURST_W-1:0]       w_burst;
  logic [TOK_W-1:0]         w_tok;
  logic [TS_W-1:0]          dt;            // cycles since the last update (wraps after 2^32 cycles)
  // tokens sign-extended by hand to the arithmetic width
  logic signed [CALC_W-1:0] w_tok_x;
  logic signed [CALC_W-1:0] tok_ref_x;
  logic signed [CALC_W-1:0] sum_s;
  logic signed [CALC_W-1:0] burst_x;       // the burst in token units
  /* verilator lint_off UNUSEDSIGNAL */  // capped and clamped values fit TOK_W bits; the rest is sign
  logic signed [CALC_W-1:0] cap_s;
  logic signed [CALC_W-1:0] deb_s;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                     w_infl;        // the queue has a command reserved or in flight
  logic                     unlimited;
  logic                     eligible;
  logic                     issue;

  assign w_st      = word_q[ST_LSB +: 2];
  assign w_rate    = word_q[RA_LSB +: 32];
  assign w_burst   = word_q[BU_LSB +: BURST_W];
  assign w_tok     = word_q[TOK_LSB +: TOK_W];
  assign dt        = now_q - ram_rdata_q[TS_LSB +: TS_W];
  assign w_infl    = w_st == ST_INFL || w_st == ST_INFL_PEND;
  assign unlimited = w_rate == '0;

  // ---------------------------------------------------------------- status input: bad ones counted here
  always_comb begin
    for (int i = 0; i < MAX_CMDS; i++) begin
      sts_hit[i] = slot_sent_q[i] && slot_qidx_q[i*QI_W +: QI_W] == sts_qidx_q;
    end
  end

  always_ff @(posedge clk) begin
    sts_valid_q  <= tx_sts_valid;
    sts_qidx_q   <= tx_sts_qidx;
    sts_result_q <= tx_sts_result;
    sts_pkts_q   <= tx_sts_pkts;
    sts_bytes_q  <= tx_sts_bytes;
    if (sts_valid_q && !(|sts_hit)) bad_sts_count <= bad_sts_count + 1'b1;
    if (rst) begin
      sts_valid_q   <= 1'b0;
      bad_sts_count <= '0;
    end
  end

  // ---------------------------------------------------------------- slot search
  always_comb begin
    free_slot = '0;
    free_any  = 1'b0;
    hit_slot  = '0;
    for (int i = MAX_CMDS - 1; i >= 0; i--) begin
      if (!slot_busy_q[i]) begin
        free_slot = SLOT_W'(i);
        free_any  = 1'b1;
      end
      if (sts_hit[i]) hit_slot = SLOT_W'(i);
    end
  end

  // statuses are processed in arrival order, so a re-queued queue goes behind those answered after it
  assign ans_any  = ans_wr_q != ans_rd_q;
  assign ans_slot = ans_fifo_q[ans_rd_q[SLOT_W-1:0]];

  always_ff @(posedge clk) begin
    if (sts_valid_q && |sts_hit) begin
      ans_fifo_q[ans_wr_q[SLOT_W-1:0]] <= hit_slot;
      ans_wr_q <= ans_wr_q + 1'b1;
    end
    if (start && op_sel == OP_STS) ans_rd_q <= ans_rd_q + 1'b1;
    if (rst) begin
      ans_wr_q <= '0;
      ans_rd_q <= '0;
    end
  end

  // ---------------------------------------------------------------- operation choice (S0)
  // A selection needs a free slot and an empty command register, both of which only a selection fills, so
  // they still hold when it reaches S3. Statuses first (they free slots), then configuration and doorbells
  // alternating with selections; the wait list's head is looked at no more often than every WAIT_INTERVAL
  // cycles, so queues waiting for tokens do not keep the pipeline busy.
  assign can_issue = sched_enable && free_any && !tx_cmd_valid;

  always_comb begin
    op_sel      = OP_STS;
    op_sel_qidx = slot_qidx_q[ans_slot*QI_W +: QI_W];
    want        = 1'b0;
    if (!init_q) begin
      if (ans_any) begin
        want = 1'b1;
      end else if ((cfg_v_q || db_v_q) && !(last_in_q && can_issue && (front_v_q || run_hv_q || wait_hv_q))) begin
        want = 1'b1;
        if (cfg_v_q) begin
          op_sel      = OP_CFG;
          op_sel_qidx = cfg_qidx_q;
        end else begin
          op_sel      = OP_DB;
          op_sel_qidx = db_q;
        end
      end else if (can_issue && front_v_q) begin
        want        = 1'b1;
        op_sel      = OP_RUN;
        op_sel_qidx = front_q;
      end else if (can_issue && wait_hv_q && wait_tmr_q == '0) begin
        want        = 1'b1;
        op_sel      = OP_WAIT;
        op_sel_qidx = wait_head_q;
      end else if (can_issue && run_hv_q) begin
        want        = 1'b1;
        op_sel      = OP_RUN;
        op_sel_qidx = run_head_q;
      end
    end
  end

  // Overlap with S3: not the same queue (its RAM write lands on the same edge as the read), and no
  // selection behind a selection (the first may still fill the command register or a slot).
  assign start = want && (stage_q[0] || (stage_q[3] && op_sel_qidx != op_qidx_q &&
                                         !((op_sel == OP_RUN || op_sel == OP_WAIT) &&
                                           (op_q == OP_RUN || op_q == OP_WAIT))));

  assign run_pop  = start && op_sel == OP_RUN && !front_v_q;
  assign wait_pop = start && op_sel == OP_WAIT;

  assign db_evt_ready = !init_q && !db_v_q;

  // Only a doorbell that comes after the engine took the queue's command may mark the queue pending: the
  // engine reads the producer pointer when it takes a command, so an earlier doorbell (even while the
  // command waits in the command register) is served by it, and pending would give the queue an extra,
  // empty command. Decided at the doorbell's handshake; its operation starts a few cycles later. For the
  // same reason a doorbell still waiting when its queue's command is issued or taken is dropped below.
  always_comb begin
    db_taken = tx_cmd_valid && tx_cmd_ready && tx_cmd_qidx == db_evt_qidx;
    for (int i = 0; i < MAX_CMDS; i++) begin
      if (slot_sent_q[i] && slot_qidx_q[i*QI_W +: QI_W] == db_evt_qidx) db_taken = 1'b1;
    end
  end
  assign cfg_ready    = !init_q && !cfg_v_q;

  always_ff @(posedge clk) begin
    if (db_evt_valid && db_evt_ready) begin
      db_v_q     <= 1'b1;
      db_q       <= db_evt_qidx;
      db_taken_q <= db_taken;
    end else if ((start && op_sel == OP_DB) || (issue && db_q == op_qidx_q) ||
                 (tx_cmd_valid && tx_cmd_ready && tx_cmd_qidx == db_q)) begin
      // a doorbell still waiting when its queue's command goes (or is taken) is served by that command (the
      // engine reads the producer pointer after the doorbell), so it must not mark the queue pending
      db_v_q <= 1'b0;
    end
    if (cfg_valid && cfg_ready) begin
      cfg_v_q     <= 1'b1;
      cfg_we_q    <= cfg_write;
      cfg_qidx_q  <= cfg_qidx;
      cfg_rate_q  <= cfg_rate;
      cfg_burst_q <= cfg_burst;
    end else if (start && op_sel == OP_CFG) begin
      cfg_v_q <= 1'b0;
    end
    if (rst) begin
      db_v_q  <= 1'b0;
      cfg_v_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- pipeline
  always_ff @(posedge clk) begin
    now_q <= now_q + 1'b1;
    if (start) begin
      stage_q   <= 4'b0010;
      last_in_q <= op_sel == OP_CFG || op_sel == OP_DB;
      op_q      <= op_sel;
      op_qidx_q <= op_sel_qidx;
      op_slot_q <= ans_slot;
      op_res_q  <= slot_res_q[ans_slot*2 +: 2];
      op_taken_q <= db_taken_q;
      op_cost_q <= 41'(slot_bytes_q[ans_slot*32 +: 32]) + 41'(slot_pkts_q[ans_slot*8 +: 8]) * 41'(OVERHEAD_BYTES);
      op_we_q   <= cfg_we_q;
      op_rate_q <= cfg_rate_q;
      op_burst_q <= cfg_burst_q;
    end else if (!stage_q[0]) begin
      stage_q <= {stage_q[2:0], stage_q[3]};
    end
    // S1: the word is in the RAM output register
    if (stage_q[1]) begin
      word_q  <= ram_rdata_q[WORD_W-1:TS_W];
      t_now_q <= now_q;
      prod_q  <= 64'(ram_rdata_q[RA_LSB +: 32]) * 64'(dt);
    end
    // S2: refill (capped at the burst unless a command is in flight)
    if (stage_q[2]) begin
      tok_ref_q <= cap_s[TOK_W-1:0];
    end
    if (wait_pop) begin
      wait_tmr_q <= 16'(WAIT_INTERVAL - 1);
    end else if (wait_tmr_q != '0) begin
      wait_tmr_q <= wait_tmr_q - 1'b1;
    end
    if (rst) begin
      now_q      <= '0;
      stage_q    <= 4'b0001;
      last_in_q  <= 1'b0;
      wait_tmr_q <= '0;
    end
  end

  assign w_tok_x   = {{(CALC_W - TOK_W){w_tok[TOK_W-1]}}, w_tok};
  assign tok_ref_x = {{(CALC_W - TOK_W){tok_ref_q[TOK_W-1]}}, tok_ref_q};

  assign burst_x = $signed(CALC_W'({w_burst, {FRAC_W{1'b0}}}));

  // Refill and debit. While a command is in flight its cost is still owed, so what the queue earns meanwhile
  // is kept whole (up to TOK_MAX) and the burst applies after the debit: tokens = min(earned - cost, burst).
  // Capping during the flight would throw away what the queue earns above the burst in every turnaround,
  // and the long-term rate would fall short of the setting whenever the burst is below rate x turnaround.
  // An idle or waiting queue still holds at most the burst. (The cap after the debit keeps the stored word
  // within the burst; the queue's next refill, no longer in flight, would cap it as well.)
  always_comb begin
    sum_s = w_tok_x + $signed({2'b00, prod_q});           // >= TOK_MIN: tokens >= TOK_MIN, product >= 0
    if (w_infl) cap_s = sum_s > TOK_MAX ? TOK_MAX : sum_s;
    else        cap_s = sum_s > burst_x ? burst_x : sum_s;
    deb_s = tok_ref_x - $signed(CALC_W'({op_cost_q, {FRAC_W{1'b0}}}));
    if (deb_s > burst_x) deb_s = burst_x;
    else if (deb_s < TOK_MIN) deb_s = TOK_MIN;
  end

  // S3: apply the operation
  assign eligible = unlimited || !tok_ref_q[TOK_W-1];
  assign issue    = stage_q[3] && (op_q == OP_RUN || op_q == OP_WAIT) && w_st == ST_QUEUED && eligible &&
                    sched_enable;

  always_comb begin
    ram_we    = 1'b0;
    ram_waddr = op_qidx_q;
    ram_wdata = {w_st, w_rate, w_burst, tok_ref_q, t_now_q};
    run_push  = 1'b0;
    wait_push = 1'b0;
    front_set = 1'b0;
    push_qidx = op_qidx_q;
    if (init_q) begin
      ram_we    = 1'b1;
      ram_waddr = init_addr_q;
      ram_wdata = '0;
    end else if (stage_q[3]) begin
      ram_we = 1'b1;
      case (op_q)
        OP_STS: begin
          if (!unlimited) ram_wdata[TOK_LSB +: TOK_W] = deb_s[TOK_W-1:0];
          if (w_st == ST_INFL || w_st == ST_INFL_PEND) begin
            if (op_res_q == beryl_nic_pkg::TXS_SENT || op_res_q == beryl_nic_pkg::TXS_ERROR ||
                w_st == ST_INFL_PEND) begin
              ram_wdata[ST_LSB +: 2] = ST_QUEUED;
              if (!unlimited && deb_s < 0) wait_push = 1'b1;
              else run_push = 1'b1;
            end else begin
              ram_wdata[ST_LSB +: 2] = ST_IDLE;
            end
          end
        end
        OP_CFG: begin
          if (op_we_q) begin
            ram_wdata[RA_LSB +: 32]      = op_rate_q;
            ram_wdata[BU_LSB +: BURST_W] = op_burst_q;
            ram_wdata[TOK_LSB +: TOK_W]  = TOK_W'({op_burst_q, {FRAC_W{1'b0}}});
          end
        end
        OP_DB: begin
          if (w_st == ST_IDLE) begin
            ram_wdata[ST_LSB +: 2] = ST_QUEUED;
            if (eligible) run_push = 1'b1;
            else wait_push = 1'b1;
          end else if (w_st == ST_INFL && op_taken_q) begin
            ram_wdata[ST_LSB +: 2] = ST_INFL_PEND;
          end
        end
        default: begin  // OP_RUN, OP_WAIT
          if (w_st == ST_QUEUED) begin
            if (!eligible) wait_push = 1'b1;
            else if (!sched_enable) front_set = 1'b1;  // enable fell since S0: keeps its turn
            else ram_wdata[ST_LSB +: 2] = ST_INFL;
          end
        end
      endcase
    end
  end

  assign ram_re    = start;
  assign ram_raddr = op_sel_qidx;

  always_ff @(posedge clk) begin
    if (ram_we) st_mem[ram_waddr] <= ram_wdata;
    if (ram_re) ram_rdata_q <= st_mem[ram_raddr];
  end

  always_ff @(posedge clk) begin
    if (init_q) begin
      init_addr_q <= init_addr_q + 1'b1;
      if (init_addr_q == QI_W'(QUEUE_COUNT - 1)) init_q <= 1'b0;
    end
    if (rst) begin
      init_q      <= 1'b1;
      init_addr_q <= '0;
    end
  end

  // configuration read response
  always_ff @(posedge clk) begin
    cfg_rd_valid <= stage_q[3] && op_q == OP_CFG && !op_we_q;
    if (stage_q[3]) begin
      cfg_rd_rate   <= w_rate;
      cfg_rd_burst  <= w_burst;
      cfg_rd_tokens <= tok_ref_x[FRAC_W +: 32];
    end
    if (rst) cfg_rd_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- run and wait lists
  // Every queue is at most once in one of them (state QUEUED), so QUEUE_COUNT entries never overflow.
  assign run_fetch  = run_wr_q != run_rd_q && (!run_hv_q || run_pop);
  assign wait_fetch = wait_wr_q != wait_rd_q && (!wait_hv_q || wait_pop);

  always_ff @(posedge clk) begin
    if (run_push) run_mem[run_wr_q[QI_W-1:0]] <= push_qidx;
    if (run_fetch) run_head_q <= run_mem[run_rd_q[QI_W-1:0]];
    if (wait_push) wait_mem[wait_wr_q[QI_W-1:0]] <= push_qidx;
    if (wait_fetch) wait_head_q <= wait_mem[wait_rd_q[QI_W-1:0]];
  end

  always_ff @(posedge clk) begin
    if (run_push) run_wr_q <= run_wr_q + 1'b1;
    if (run_fetch) begin
      run_rd_q <= run_rd_q + 1'b1;
      run_hv_q <= 1'b1;
    end else if (run_pop) begin
      run_hv_q <= 1'b0;
    end
    if (wait_push) wait_wr_q <= wait_wr_q + 1'b1;
    if (front_set) begin
      front_v_q <= 1'b1;
      front_q   <= op_qidx_q;
    end else if (start && op_sel == OP_RUN) begin
      front_v_q <= 1'b0;
    end
    if (wait_fetch) begin
      wait_rd_q <= wait_rd_q + 1'b1;
      wait_hv_q <= 1'b1;
    end else if (wait_pop) begin
      wait_hv_q <= 1'b0;
    end
    if (rst) begin
      run_wr_q  <= '0;
      run_rd_q  <= '0;
      run_hv_q  <= 1'b0;
      wait_wr_q <= '0;
      wait_rd_q <= '0;
      wait_hv_q <= 1'b0;
      front_v_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- command register and slots
  always_ff @(posedge clk) begin
    if (issue) begin
      tx_cmd_valid <= 1'b1;
      tx_cmd_qidx  <= op_qidx_q;
      cmd_slot_q   <= free_slot;
    end else if (tx_cmd_ready) begin
      tx_cmd_valid <= 1'b0;
    end
    for (int i = 0; i < MAX_CMDS; i++) begin
      if (tx_cmd_valid && tx_cmd_ready && cmd_slot_q == SLOT_W'(i)) slot_sent_q[i] <= 1'b1;
      if (issue && free_slot == SLOT_W'(i)) begin
        slot_busy_q[i] <= 1'b1;
        slot_qidx_q[i*QI_W +: QI_W] <= op_qidx_q;
      end
      if (sts_valid_q && sts_hit[i]) begin
        slot_sent_q[i] <= 1'b0;
        slot_res_q[i*2 +: 2]    <= sts_result_q;
        slot_pkts_q[i*8 +: 8]   <= sts_pkts_q;
        slot_bytes_q[i*32 +: 32] <= sts_bytes_q;
      end
      if (stage_q[3] && op_q == OP_STS && op_slot_q == SLOT_W'(i)) slot_busy_q[i] <= 1'b0;
    end
    if (rst) begin
      tx_cmd_valid <= 1'b0;
      slot_busy_q  <= '0;
      slot_sent_q  <= '0;
    end
  end

endmodule

`resetall
