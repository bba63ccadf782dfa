// SPDX-License-Identifier: MIT
// TDMA TX scheduler (docs/blocks/nic_core.md "Scheduler interface", docs/blocks/tdma.md): a queue gets commands
// only while a slot of its mask is open (slot valid and more than guard_ns left), round robin per slot list;
// queues left over when a slot closes move to the list of their next slot. One queue operation per 2 cycles;
// doorbell to command about 6 cycles in an open slot. After reset, QUEUE_COUNT cycles initialise the state RAM.
`default_nettype none

module beryl_nic_sched_tdma #(
  parameter int QUEUE_COUNT = 4096,                            // TX queues of this port, power of two, 2..32768
  parameter int QI_W        = $clog2(QUEUE_COUNT),             // queue index width, bits, = log2(QUEUE_COUNT)
  parameter int MAX_CMDS    = 8,                               // commands in flight (no status yet), 1..64
  parameter int SLOTS_MAX   = 8,                               // slots per period (timer's SLOTS_MAX), 1..32
  parameter int SI_W        = SLOTS_MAX > 1 ? $clog2(SLOTS_MAX) : 1, // slot index width (derived)
  parameter int SC_W        = $clog2(SLOTS_MAX + 1)            // slot count width (derived)
) (
  input  wire logic                 clk,
  input  wire logic                 rst,

  // doorbell events from the TXQ manager (queues of this port); held off while the state RAM clears
  input  wire logic                 db_evt_valid,
  output logic                      db_evt_ready,
  input  wire logic [QI_W-1:0]      db_evt_qidx,

  // commands to the TX engine
  output logic                      tx_cmd_valid,
  input  wire logic                 tx_cmd_ready,
  output logic [QI_W-1:0]           tx_cmd_qidx,

  // command results, any order, no backpressure
  input  wire logic                 tx_sts_valid,
  input  wire logic [QI_W-1:0]      tx_sts_qidx,
  input  wire logic [1:0]           tx_sts_result,   // beryl_nic_pkg::TXS_*
  // packet and byte counts are for schedulers that weigh queues; slots are time, not bytes
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [7:0]           tx_sts_pkts,
  input  wire logic [31:0]          tx_sts_bytes,
  /* verilator lint_on UNUSEDSIGNAL */

  // 0: no new commands (a presented one is held); doorbells, statuses and configuration still work
  input  wire logic                 sched_enable,

  // per-queue slot mask (bit i: the queue may send in slot i); all ones after reset
  input  wire logic                 cfg_valid,
  output logic                      cfg_ready,
  input  wire logic                 cfg_write,       // 1 write the mask, 0 read it
  input  wire logic [QI_W-1:0]      cfg_qidx,
  input  wire logic [SLOTS_MAX-1:0] cfg_mask,
  output logic                      cfg_rd_valid,    // one-cycle pulse per read, in request order
  output logic [SLOTS_MAX-1:0]      cfg_rd_mask,

  // slot of beryl_ptp_tdma_timer (same SLOTS_MAX) and the schedule's slot count
  input  wire logic                 slot_valid,
  input  wire logic [SI_W-1:0]      slot_index,
  input  wire logic [31:0]          slot_left_ns,
  input  wire logic [SC_W-1:0]      slot_count,      // 1..SLOTS_MAX: mask bits at and above it are ignored
  input  wire logic [31:0]          guard_ns,        // a slot closes for new commands when guard_ns or less is left

  output logic [31:0]               bad_sts_count    // statuses for a queue with no command in flight (wrapping)
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
  if (SLOTS_MAX < 1 || SLOTS_MAX > 32) begin : g_chk_slots
    $error("%m: SLOTS_MAX must be 1..32");
  end

  localparam int SLOT_W = MAX_CMDS > 1 ? $clog2(MAX_CMDS) : 1;
  localparam int CNT_W  = QI_W + 1;
  localparam int WORD_W = SLOTS_MAX + 2;       // {st, mask}

  // queue state: LISTED = in exactly one slot list; PARKED = has work but no slot in its mask
  localparam logic [1:0] ST_IDLE   = 2'd0;
  localparam logic [1:0] ST_LISTED = 2'd1;
  localparam logic [1:0] ST_INFL   = 2'd2;      // command reserved or in flight
  localparam logic [1:0] ST_PARKED = 2'd3;

  localparam logic [2:0] OP_STS = 3'd0;
  localparam logic [2:0] OP_CFG = 3'd1;
  localparam logic [2:0] OP_DB  = 3'd2;
  localparam logic [2:0] OP_RUN = 3'd3;         // serve the head of the open slot's list
  localparam logic [2:0] OP_MIG = 3'd4;         // move the head of a closed slot's list to its next slot

  // ---------------------------------------------------------------- declarations
  logic [WORD_W-1:0]        q_mem [QUEUE_COUNT];
  logic [QI_W-1:0]          nx_mem [QUEUE_COUNT];   // next queue in the same list
  logic [WORD_W-1:0]        q_rdata_q;
  logic [QI_W-1:0]          nx_rdata_q;
  logic                     q_we;
  logic [QI_W-1:0]          q_waddr;
  logic [WORD_W-1:0]        q_wdata;
  logic                     nx_we;
  logic [QI_W-1:0]          nx_waddr;
  logic [QI_W-1:0]          nx_wdata;

  logic                     init_q;
  logic [QI_W-1:0]          init_addr_q;

  // slot lists: FIFOs of queue indices linked through nx_mem
  logic [QI_W-1:0]          head_q [SLOTS_MAX];
  logic [QI_W-1:0]          tail_q [SLOTS_MAX];
  logic [CNT_W-1:0]         cnt_q  [SLOTS_MAX];
  logic [CNT_W-1:0]         mig_q  [SLOTS_MAX];     // entries at the head still to be moved on
  logic [CNT_W-1:0]         cnt_nx [SLOTS_MAX];

  // slot inputs, registered
  logic                     open_q;                 // slot valid and more than guard_ns left
  logic [SI_W-1:0]          cur_q;                  // current slot, or the last one while none is valid
  logic [SC_W-1:0]          count_q;
  logic                     open_d_q;
  logic [SI_W-1:0]          cur_d_q;
  logic [SLOTS_MAX-1:0]     cmask;                  // slots that exist
  logic [SI_W-1:0]          base;                   // first slot a queue may be placed for

  // input registers
  logic                     db_v_q;
  logic                     db_new_q;               // first cycle: look for the queue among the commands
  logic [QI_W-1:0]          db_q;
  logic                     cfg_v_q;
  logic                     cfg_we_q;
  logic [QI_W-1:0]          cfg_qidx_q;
  logic [SLOTS_MAX-1:0]     cfg_mask_q;

  // command slots: busy = reserved; sent = taken by the engine, no status yet; ans = status waiting
  logic [MAX_CMDS-1:0]      cs_busy_q;
  logic [MAX_CMDS-1:0]      cs_sent_q;
  logic [MAX_CMDS-1:0]      cs_ans_q;
  logic [MAX_CMDS-1:0]      cs_pend_q;              // a doorbell came after the command was taken
  logic [MAX_CMDS*QI_W-1:0] cs_qidx_q;
  logic [MAX_CMDS*2-1:0]    cs_res_q;
  logic [SLOT_W-1:0]        free_cs;
  logic                     free_any;
  logic [SLOT_W-1:0]        cmd_cs_q;
  logic [MAX_CMDS-1:0]      db_hit_fly;             // doorbell's queue: taken or answered
  logic [MAX_CMDS-1:0]      db_hit_rsv;             // doorbell's queue: reserved, not yet taken
  logic                     db_consume;

  // status input stage and answered-slot FIFO (each slot at most once)
  logic                     sts_valid_q;
  logic [QI_W-1:0]          sts_qidx_q;
  logic [1:0]               sts_result_q;
  logic [MAX_CMDS-1:0]      sts_hit;
  logic [SLOT_W-1:0]        sts_cs;
  logic [SLOT_W-1:0]        ans_fifo_q [2**SLOT_W];
  logic [SLOT_W:0]          ans_wr_q;
  logic [SLOT_W:0]          ans_rd_q;
  logic                     ans_any;
  logic [SLOT_W-1:0]        ans_cs;

  // operation: S0 choose and read, S1 apply
  logic                     s1_q;
  logic [1:0]               rr_q;                   // rotation among inputs, RUN, MIG
  logic                     want_in;
  logic                     want_run;
  logic                     want_mig;
  logic                     pick_in;
  logic                     pick_run;
  logic                     pick_mig;
  logic [SI_W-1:0]          mig_l;
  logic                     start;
  logic [2:0]               op_sel;
  logic [QI_W-1:0]          op_sel_q;
  logic [SI_W-1:0]          op_sel_l;
  logic [2:0]               op_q;
  logic [QI_W-1:0]          op_qidx_q;
  logic [SI_W-1:0]          op_l_q;
  logic [SLOT_W-1:0]        op_cs_q;
  logic                     can_issue;

  // S1 decision
  logic [1:0]               w_st;
  logic [SLOTS_MAX-1:0]     w_mask;
  logic [SLOTS_MAX-1:0]     new_mask;
  logic [SLOTS_MAX-1:0]     m_eff;
  logic [SI_W-1:0]          tgt;
  logic                     place;
  logic                     pop;
  logic                     issue;
  logic [1:0]               new_st;
  logic                     requeue;
  logic                     slot_ok;

  // ---------------------------------------------------------------- slot inputs
  always_comb begin
    for (int i = 0; i < SLOTS_MAX; i++) cmask[i] = SC_W'(i) < count_q;
  end

  always_ff @(posedge clk) begin
    open_q   <= slot_valid && slot_left_ns > guard_ns;
    if (slot_valid) cur_q <= slot_index;
    count_q  <= slot_count;
    open_d_q <= open_q;
    cur_d_q  <= cur_q;
    if (rst) begin
      open_q   <= 1'b0;
      open_d_q <= 1'b0;
      cur_q    <= '0;
      cur_d_q  <= '0;
      count_q  <= '0;
    end
  end

  // queues are placed for the open slot, or else for the next one after the current (or last) slot
  always_comb begin
    base = cur_q;
    if (!open_q) base = (32'(cur_q) + 1 >= SLOTS_MAX) ? '0 : cur_q + 1'b1;
  end

  // ---------------------------------------------------------------- statuses
  always_comb begin
    sts_cs = '0;
    for (int i = 0; i < MAX_CMDS; i++) begin
      sts_hit[i] = cs_sent_q[i] && cs_qidx_q[i*QI_W +: QI_W] == sts_qidx_q;
      if (sts_hit[i]) sts_cs = SLOT_W'(i);
    end
  end

  assign ans_any = ans_wr_q != ans_rd_q;
  assign ans_cs  = ans_fifo_q[ans_rd_q[SLOT_W-1:0]];

  always_ff @(posedge clk) begin
    sts_valid_q  <= tx_sts_valid;
    sts_qidx_q   <= tx_sts_qidx;
    sts_result_q <= tx_sts_result;
    if (sts_valid_q && |sts_hit) begin
      ans_fifo_q[ans_wr_q[SLOT_W-1:0]] <= sts_cs;
      ans_wr_q <= ans_wr_q + 1'b1;
    end
    if (start && op_sel == OP_STS) ans_rd_q <= ans_rd_q + 1'b1;
    if (sts_valid_q && !(|sts_hit)) bad_sts_count <= bad_sts_count + 1'b1;
    if (rst) begin
      sts_valid_q   <= 1'b0;
      ans_wr_q      <= '0;
      ans_rd_q      <= '0;
      bad_sts_count <= '0;
    end
  end

  // ---------------------------------------------------------------- doorbells and configuration
  // In the cycle after a doorbell is taken, its queue is looked up among the commands: one the engine has
  // taken (or answered) must go again after its status (pending); one reserved but not yet taken serves the
  // doorbell (the engine reads the producer pointer after taking it), and so does a command issued while the
  // doorbell waits. Otherwise a DB operation lists the queue if it is idle.
  always_comb begin
    for (int i = 0; i < MAX_CMDS; i++) begin
      db_hit_fly[i] = db_new_q && cs_busy_q[i] && (cs_sent_q[i] || cs_ans_q[i]) &&
                      cs_qidx_q[i*QI_W +: QI_W] == db_q;
      db_hit_rsv[i] = db_new_q && cs_busy_q[i] && !cs_sent_q[i] && !cs_ans_q[i] &&
                      cs_qidx_q[i*QI_W +: QI_W] == db_q;
    end
  end
  assign db_consume = |db_hit_fly || |db_hit_rsv || (issue && op_qidx_q == db_q);

  assign db_evt_ready = !init_q && !db_v_q;
  assign cfg_ready    = !init_q && !cfg_v_q;

  always_ff @(posedge clk) begin
    db_new_q <= 1'b0;
    if (db_evt_valid && db_evt_ready) begin
      db_v_q   <= 1'b1;
      db_new_q <= 1'b1;
      db_q     <= db_evt_qidx;
    end else if (db_v_q && (db_consume || (s1_q && op_q == OP_DB))) begin
      db_v_q <= 1'b0;
    end
    if (cfg_valid && cfg_ready) begin
      cfg_v_q    <= 1'b1;
      cfg_we_q   <= cfg_write;
      cfg_qidx_q <= cfg_qidx;
      cfg_mask_q <= cfg_mask;
    end else if (s1_q && op_q == OP_CFG) begin
      cfg_v_q <= 1'b0;
    end
    if (rst) begin
      db_v_q   <= 1'b0;
      db_new_q <= 1'b0;
      cfg_v_q  <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- operation choice (S0)
  always_comb begin
    free_cs  = '0;
    free_any = 1'b0;
    for (int i = MAX_CMDS - 1; i >= 0; i--) begin
      if (!cs_busy_q[i]) begin
        free_cs  = SLOT_W'(i);
        free_any = 1'b1;
      end
    end
    mig_l    = '0;
    want_mig = 1'b0;
    for (int l = SLOTS_MAX - 1; l >= 0; l--) begin
      if (mig_q[l] != '0 && cnt_q[l] != '0 && !(open_q && cur_q == SI_W'(l))) begin
        mig_l    = SI_W'(l);
        want_mig = 1'b1;
      end
    end
  end

  assign can_issue = sched_enable && free_any && !tx_cmd_valid;
  assign want_in   = cfg_v_q || (db_v_q && !db_new_q);
  assign want_run  = open_q && cnt_q[cur_q] != '0 && can_issue;

  // statuses first (at most one per command); inputs, RUN and MIG take turns in the order rr_q names
  // (0: IN RUN MIG, 1: RUN MIG IN, 2: MIG IN RUN)
  always_comb begin
    pick_in  = want_in && (rr_q == 2'd0 || (rr_q == 2'd1 && !want_run && !want_mig) || (rr_q == 2'd2 && !want_mig));
    pick_run = !pick_in && want_run && (rr_q != 2'd2 || !want_mig);
    pick_mig = !pick_in && !pick_run && want_mig;
    op_sel   = OP_STS;
    op_sel_q = cs_qidx_q[ans_cs*QI_W +: QI_W];
    op_sel_l = cur_q;
    start    = !init_q && !s1_q;
    if (ans_any) begin
      op_sel = OP_STS;
    end else if (pick_in) begin
      op_sel   = cfg_v_q ? OP_CFG : OP_DB;
      op_sel_q = cfg_v_q ? cfg_qidx_q : db_q;
    end else if (pick_run) begin
      op_sel   = OP_RUN;
      op_sel_q = head_q[cur_q];
    end else if (pick_mig) begin
      op_sel   = OP_MIG;
      op_sel_l = mig_l;
      op_sel_q = head_q[mig_l];
    end else begin
      start = 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    s1_q <= start;
    if (start) begin
      op_q      <= op_sel;
      op_qidx_q <= op_sel_q;
      op_l_q    <= op_sel_l;
      op_cs_q   <= ans_cs;
      if (op_sel == OP_CFG || op_sel == OP_DB) rr_q <= 2'd1;
      else if (op_sel == OP_RUN) rr_q <= 2'd2;
      else if (op_sel == OP_MIG) rr_q <= 2'd0;
    end
    if (rst) begin
      s1_q <= 1'b0;
      rr_q <= 2'd0;
    end
  end

  always_ff @(posedge clk) begin
    if (start) begin
      q_rdata_q  <= q_mem[op_sel_q];
      nx_rdata_q <= nx_mem[op_sel_q];
    end
    if (q_we) q_mem[q_waddr] <= q_wdata;
    if (nx_we) nx_mem[nx_waddr] <= nx_wdata;
  end

  // ---------------------------------------------------------------- apply (S1)
  assign w_st   = q_rdata_q[SLOTS_MAX +: 2];
  assign w_mask = q_rdata_q[SLOTS_MAX-1:0];
  assign new_mask = (op_q == OP_CFG && cfg_we_q) ? cfg_mask_q : w_mask;
  assign m_eff  = new_mask & cmask;
  assign requeue = cs_res_q[op_cs_q*2 +: 2] == beryl_nic_pkg::TXS_SENT ||
                   cs_res_q[op_cs_q*2 +: 2] == beryl_nic_pkg::TXS_ERROR ||
                   cs_pend_q[op_cs_q] || db_hit_fly[op_cs_q];
  assign slot_ok = open_q && cur_q == op_l_q && m_eff[op_l_q];

  // first slot of the mask at or after base, cyclically
  always_comb begin
    tgt = base;
    for (int p = SLOTS_MAX - 1; p >= 0; p--) begin
      if (m_eff[(32'(base) + p) % SLOTS_MAX]) tgt = SI_W'((32'(base) + p) % SLOTS_MAX);
    end
  end

  always_comb begin
    place  = 1'b0;
    pop    = 1'b0;
    issue  = 1'b0;
    new_st = w_st;
    q_we   = 1'b0;
    if (s1_q) begin
      case (op_q)
        OP_STS: begin
          if (w_st == ST_INFL) begin
            q_we = 1'b1;
            if (requeue) place = 1'b1;
            else new_st = ST_IDLE;
          end
        end
        OP_DB: begin
          if (w_st == ST_IDLE) begin
            q_we  = 1'b1;
            place = 1'b1;
          end
        end
        OP_CFG: begin
          q_we  = cfg_we_q;
          place = cfg_we_q && w_st == ST_PARKED;
        end
        OP_RUN: begin
          if (w_st != ST_LISTED) begin
            pop = 1'b1;                       // not expected: drop the entry
          end else if (slot_ok && can_issue) begin
            pop    = 1'b1;
            issue  = 1'b1;
            q_we   = 1'b1;
            new_st = ST_INFL;
          end else if (!slot_ok) begin
            pop   = 1'b1;                     // mask changed or slot closed meanwhile: to its next slot
            q_we  = 1'b1;
            place = 1'b1;
          end                                 // else (enable fell): stays at the head
        end
        default: begin                        // OP_MIG
          pop = 1'b1;
          if (w_st == ST_LISTED) begin
            q_we  = 1'b1;
            place = 1'b1;
          end
        end
      endcase
      if (place) new_st = m_eff == '0 ? ST_PARKED : ST_LISTED;
    end
    if (init_q) begin
      q_we = 1'b1;
    end
  end

  assign q_waddr = init_q ? init_addr_q : op_qidx_q;
  assign q_wdata = init_q ? {ST_IDLE, {SLOTS_MAX{1'b1}}} : {new_st, new_mask};

  // list updates: at most one pop (from op_l_q) and one push (to tgt's tail) per operation
  always_comb begin
    for (int l = 0; l < SLOTS_MAX; l++) begin
      cnt_nx[l] = cnt_q[l];
      if (pop && op_l_q == SI_W'(l)) cnt_nx[l] = cnt_nx[l] - 1'b1;
      if (place && m_eff != '0 && tgt == SI_W'(l)) cnt_nx[l] = cnt_nx[l] + 1'b1;
    end
    nx_we    = 1'b0;
    nx_waddr = tail_q[tgt];
    nx_wdata = op_qidx_q;
    // the tail link is written unless the target list is empty after the pop
    if (place && m_eff != '0 && cnt_q[tgt] != '0 && !(pop && op_l_q == tgt && cnt_q[tgt] == CNT_W'(1))) begin
      nx_we = 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    for (int l = 0; l < SLOTS_MAX; l++) begin
      cnt_q[l] <= cnt_nx[l];
      if (pop && op_l_q == SI_W'(l)) head_q[l] <= nx_rdata_q;
      if (place && m_eff != '0 && tgt == SI_W'(l)) begin
        tail_q[l] <= op_qidx_q;
        if (cnt_q[l] == '0 || (pop && op_l_q == SI_W'(l) && cnt_q[l] == CNT_W'(1))) head_q[l] <= op_qidx_q;
      end
      // moving on: what a slot's list holds when the slot closes (and all of a list beyond slot_count)
      if (pop && op_q == OP_MIG && op_l_q == SI_W'(l) && mig_q[l] != '0) mig_q[l] <= mig_q[l] - 1'b1;
      if (cnt_nx[l] == '0) mig_q[l] <= '0;
      if (open_d_q && cur_d_q == SI_W'(l) && (!open_q || cur_q != cur_d_q)) mig_q[l] <= cnt_nx[l];
      if (open_q && cur_q == SI_W'(l)) mig_q[l] <= '0;
      if (!cmask[l]) mig_q[l] <= cnt_nx[l];
    end
    if (rst) begin
      for (int l = 0; l < SLOTS_MAX; l++) begin
        cnt_q[l] <= '0;
        mig_q[l] <= '0;
      end
    end
  end

  // ---------------------------------------------------------------- init
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

  // ---------------------------------------------------------------- configuration read
  always_ff @(posedge clk) begin
    cfg_rd_valid <= s1_q && op_q == OP_CFG && !cfg_we_q;
    if (s1_q && op_q == OP_CFG) cfg_rd_mask <= w_mask;
    if (rst) cfg_rd_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- command register and command slots
  always_ff @(posedge clk) begin
    if (issue) begin
      tx_cmd_valid <= 1'b1;
      tx_cmd_qidx  <= op_qidx_q;
      cmd_cs_q     <= free_cs;
    end else if (tx_cmd_ready) begin
      tx_cmd_valid <= 1'b0;
    end
    for (int i = 0; i < MAX_CMDS; i++) begin
      if (tx_cmd_valid && tx_cmd_ready && cmd_cs_q == SLOT_W'(i)) cs_sent_q[i] <= 1'b1;
      if (db_hit_fly[i]) cs_pend_q[i] <= 1'b1;
      if (issue && free_cs == SLOT_W'(i)) begin
        cs_busy_q[i] <= 1'b1;
        cs_pend_q[i] <= 1'b0;
        cs_qidx_q[i*QI_W +: QI_W] <= op_qidx_q;
      end
      if (sts_valid_q && sts_hit[i]) begin
        cs_sent_q[i] <= 1'b0;
        cs_ans_q[i]  <= 1'b1;
        cs_res_q[i*2 +: 2] <= sts_result_q;
      end
      if (s1_q && op_q == OP_STS && op_cs_q == SLOT_W'(i)) begin
        cs_busy_q[i] <= 1'b0;
        cs_ans_q[i]  <= 1'b0;
      end
    end
    if (rst) begin
      tx_cmd_valid <= 1'b0;
      cs_busy_q    <= '0;
      cs_sent_q    <= '0;
      cs_ans_q     <= '0;
    end
  end

endmodule

`resetall
