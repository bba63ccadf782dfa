// SPDX-License-Identifier: MIT
// Round-robin TX scheduler (docs/blocks/nic_core.md, "Scheduler interface"): active queues wait once each
// in a FIFO; up to MAX_CMDS commands in flight, one per queue. One command per cycle, one doorbell and
// one status per cycle; doorbell to command 3 cycles. After reset, QUEUE_COUNT cycles clear the state RAM.
`default_nettype none

module beryl_nic_sched_rr #(
  parameter int QUEUE_COUNT = 4096,                 // TX queues of this port, power of two, 2..32768
  parameter int QI_W        = $clog2(QUEUE_COUNT),  // queue index width, bits, = log2(QUEUE_COUNT)
  parameter int MAX_CMDS    = 8                     // commands in flight (issued, no status yet), 1..64
) (
  input  wire logic             clk,
  input  wire logic             rst,

  // doorbell events from the TXQ manager (queues of this port); held off while the state RAM clears
  input  wire logic             db_evt_valid,
  output logic                  db_evt_ready,
  input  wire logic [QI_W-1:0]  db_evt_qidx,

  // commands to the TX engine
  output logic                  tx_cmd_valid,
  input  wire logic             tx_cmd_ready,
  output logic [QI_W-1:0]       tx_cmd_qidx,

  // command results, any order, no backpressure
  input  wire logic             tx_sts_valid,
  input  wire logic [QI_W-1:0]  tx_sts_qidx,
  input  wire logic [1:0]       tx_sts_result,   // beryl_nic_pkg::TXS_*
  // packet and byte counts are for schedulers that weigh queues (DRR, shapers); round robin ignores them
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [7:0]       tx_sts_pkts,
  input  wire logic [31:0]      tx_sts_bytes,
  /* verilator lint_on UNUSEDSIGNAL */

  // 0: no new commands (a presented one is held); doorbells are still recorded
  input  wire logic             sched_enable,

  output logic [31:0]           bad_sts_count    // statuses for a queue with no command in flight (wrapping)
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

  localparam int SLOT_W = MAX_CMDS > 1 ? $clog2(MAX_CMDS) : 1;

  // Queue state. A queue is *active* while it sits in the FIFO or has a command reserved or in flight;
  // one bit per queue in an inferred RAM. Queues in flight (at most MAX_CMDS) live in a small table of
  // slots with their doorbell-pending bit, so a status finds its queue without a RAM read.
  logic                     active_mem [QUEUE_COUNT];
  logic                     act_we;
  logic [QI_W-1:0]          act_waddr;
  logic                     act_wdata;
  logic                     act_rdata_q;
  // last RAM write, to forward over a read of the same address in the same cycle
  logic                     wl_we_q;
  logic [QI_W-1:0]          wl_addr_q;
  logic                     wl_data_q;

  logic                     init_q;        // clearing active_mem after reset
  logic [QI_W-1:0]          init_addr_q;

  // slot table: busy = reserved by a command (in the output register or issued); sent = issued, qidx valid
  logic [MAX_CMDS-1:0]      slot_busy_q;
  logic [MAX_CMDS-1:0]      slot_sent_q;
  logic [MAX_CMDS-1:0]      slot_pend_q;   // doorbell arrived while in flight
  logic [MAX_CMDS*QI_W-1:0] slot_qidx_q;
  logic [SLOT_W-1:0]        free_slot;
  logic                     free_any;
  logic [SLOT_W-1:0]        cmd_slot_q;    // slot of the presented command

  // active-queue FIFO: each queue at most once, so QUEUE_COUNT entries never overflow
  logic [QI_W-1:0]          fifo_mem [QUEUE_COUNT];
  logic [QI_W:0]            fifo_wr_q;
  logic [QI_W:0]            fifo_rd_q;
  logic                     fifo_push;
  logic [QI_W-1:0]          fifo_wdata;
  logic                     fifo_empty;
  logic                     cmd_load;

  // status stage (registered inputs)
  logic                     sts_valid_q;
  logic [QI_W-1:0]          sts_qidx_q;
  logic [1:0]               sts_result_q;
  logic [MAX_CMDS-1:0]      sts_hit;
  logic                     sts_good;
  logic                     sts_requeue;
  logic                     sts_retire;

  // doorbell stage: the active bit was read when the doorbell was taken
  logic                     db_valid_q;
  logic [QI_W-1:0]          db_qidx_q;
  logic                     db_fresh_q;    // first cycle: the bit is in the RAM output register
  logic                     db_act_q;      // held bit while stalled
  logic                     db_act;
  logic [MAX_CMDS-1:0]      db_hit;
  logic                     db_activate;
  logic                     db_stall;
  logic                     db_fire;

  // ---------------------------------------------------------------- clock gate
  // Every flop and RAM word below is clocked by gclk. The block is clocked in a cycle with a reset, the
  // state RAM clearing, a doorbell taken or in the doorbell stage, a status at the input or in the status
  // register, a command loaded, or the presented command taken. No flop changes in any other cycle: the
  // RAM, FIFO and slot table are written only with a doorbell or status in its stage, a command load or
  // the command taken; the status register loads its queue and result only with a status, and the
  // write-forwarding register only with a RAM write or a doorbell taken (the only cycle before one reads it).
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || init_q || db_fire || db_valid_q || tx_sts_valid || sts_valid_q || cmd_load ||
           (tx_cmd_valid && tx_cmd_ready)),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- status
  // the per-slot compares only with a status (likewise doorbells and the free-slot scan below): the
  // result is used only then, and Verilator skips the loops on the other cycles (simulator speed)
  always_comb begin
    sts_hit = '0;
    if (sts_valid_q) begin
      for (int i = 0; i < MAX_CMDS; i++) begin
        sts_hit[i] = slot_sent_q[i] && slot_qidx_q[i*QI_W +: QI_W] == sts_qidx_q;
      end
    end
  end

  // A status for a queue not in flight (never issued, or already answered) is ignored and counted.
  // A doorbell for the same queue in the doorbell stage this cycle counts as pending (it saw the queue in
  // flight and its pending bit would be lost with the slot).
  assign sts_good    = sts_valid_q && |sts_hit;
  assign sts_requeue = sts_good && (sts_result_q == beryl_nic_pkg::TXS_SENT ||
                                    sts_result_q == beryl_nic_pkg::TXS_ERROR ||
                                    |(sts_hit & slot_pend_q) ||
                                    (db_valid_q && db_qidx_q == sts_qidx_q));
  assign sts_retire  = sts_good && !sts_requeue;

  // ---------------------------------------------------------------- doorbells
  always_comb begin
    db_hit = '0;
    if (db_valid_q) begin
      for (int i = 0; i < MAX_CMDS; i++) begin
        db_hit[i] = slot_sent_q[i] && slot_qidx_q[i*QI_W +: QI_W] == db_qidx_q;
      end
    end
  end

  assign db_act = db_fresh_q ? ((wl_we_q && wl_addr_q == db_qidx_q) ? wl_data_q : act_rdata_q) : db_act_q;
  // In flight: set pending (below). Queued or in the output register: nothing. Inactive: activate.
  assign db_activate = db_valid_q && !(|db_hit) && !db_act;
  // the FIFO and the state RAM have one write port each; a status uses them first (it cannot wait)
  assign db_stall    = db_activate && sts_good;
  assign db_evt_ready = !init_q && (!db_valid_q || !db_stall);
  assign db_fire      = db_evt_valid && db_evt_ready;

  // ---------------------------------------------------------------- state RAM
  always_comb begin
    act_we    = 1'b0;
    act_waddr = db_qidx_q;
    act_wdata = 1'b1;
    if (init_q) begin
      act_we    = 1'b1;
      act_waddr = init_addr_q;
      act_wdata = 1'b0;
    end else if (sts_retire) begin
      act_we    = 1'b1;
      act_waddr = sts_qidx_q;
      act_wdata = 1'b0;
    end else if (db_activate && !db_stall) begin
      act_we    = 1'b1;
    end
  end

  always_ff @(posedge gclk) begin
    if (act_we) active_mem[act_waddr] <= act_wdata;
    if (db_fire) act_rdata_q <= active_mem[db_evt_qidx];
  end

  always_ff @(posedge gclk) begin
    // db_act reads the last write only in the cycle after a doorbell was taken: wl_we_q loads in that
    // doorbell's cycle and with writes, the address and data only with a write (else they are unused)
    if (act_we || db_fire) wl_we_q <= act_we;
    if (act_we) begin
      wl_addr_q <= act_waddr;
      wl_data_q <= act_wdata;
    end
    if (init_q) begin
      init_addr_q <= init_addr_q + 1'b1;
      if (init_addr_q == QI_W'(QUEUE_COUNT - 1)) init_q <= 1'b0;
    end
    if (db_fire) begin
      db_valid_q <= 1'b1;
      db_qidx_q  <= db_evt_qidx;
      db_fresh_q <= 1'b1;
    end else if (!db_stall) begin
      db_valid_q <= 1'b0;
    end else begin
      db_fresh_q <= 1'b0;
      db_act_q   <= (act_we && act_waddr == db_qidx_q) ? act_wdata : db_act;
    end
    if (rst) begin
      init_q      <= 1'b1;
      init_addr_q <= '0;
      wl_we_q     <= 1'b0;
      db_valid_q  <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- FIFO and command register
  assign fifo_push  = sts_requeue || (db_activate && !db_stall);
  assign fifo_wdata = sts_requeue ? sts_qidx_q : db_qidx_q;
  assign fifo_empty = fifo_wr_q == fifo_rd_q;

  always_comb begin
    free_slot = '0;
    free_any  = ~&slot_busy_q;
    if (!fifo_empty) begin   // used only by cmd_load, which needs a queue
      for (int i = MAX_CMDS - 1; i >= 0; i--) if (!slot_busy_q[i]) free_slot = SLOT_W'(i);
    end
  end

  // slot table next state, in priority order (a later event on the same slot wins): a doorbell for a
  // queue in flight marks it pending; the presented command taken marks its slot sent; a loaded command
  // reserves its slot; a status frees its slot. Indexed writes, no loop over the slots.
  logic [MAX_CMDS-1:0] slot_busy_n, slot_sent_n, slot_pend_n;
  always_comb begin
    slot_busy_n = slot_busy_q;
    slot_sent_n = slot_sent_q;
    slot_pend_n = slot_pend_q | db_hit;                 // db_hit is 0 without a doorbell
    if (tx_cmd_valid && tx_cmd_ready) slot_sent_n[cmd_slot_q] = 1'b1;
    if (cmd_load) begin
      slot_busy_n[free_slot] = 1'b1;
      slot_pend_n[free_slot] = 1'b0;
    end
    slot_busy_n = slot_busy_n & ~sts_hit;               // sts_hit is 0 without a status
    slot_sent_n = slot_sent_n & ~sts_hit;
  end

  // a command reserves its slot when it is loaded; the FIFO read lands in the output register
  assign cmd_load = sched_enable && !init_q && !fifo_empty && free_any && (!tx_cmd_valid || tx_cmd_ready);

  always_ff @(posedge gclk) begin
    if (fifo_push) fifo_mem[fifo_wr_q[QI_W-1:0]] <= fifo_wdata;
    if (cmd_load) tx_cmd_qidx <= fifo_mem[fifo_rd_q[QI_W-1:0]];
  end

  always_ff @(posedge gclk) begin
    if (fifo_push) fifo_wr_q <= fifo_wr_q + 1'b1;
    if (cmd_load) begin
      fifo_rd_q    <= fifo_rd_q + 1'b1;
      tx_cmd_valid <= 1'b1;
      cmd_slot_q   <= free_slot;
    end else if (tx_cmd_ready) begin
      tx_cmd_valid <= 1'b0;
    end
    slot_busy_q <= slot_busy_n;
    slot_sent_q <= slot_sent_n;
    slot_pend_q <= slot_pend_n;
    if (tx_cmd_valid && tx_cmd_ready) slot_qidx_q[32'(cmd_slot_q)*QI_W +: QI_W] <= tx_cmd_qidx;
    if (rst) begin
      fifo_wr_q    <= '0;
      fifo_rd_q    <= '0;
      tx_cmd_valid <= 1'b0;
      slot_busy_q  <= '0;
      slot_sent_q  <= '0;
    end
  end

  // ---------------------------------------------------------------- status register and counter
  always_ff @(posedge gclk) begin
    sts_valid_q  <= tx_sts_valid;
    if (tx_sts_valid) begin   // queue and result only with a status (used only with sts_valid_q)
      sts_qidx_q   <= tx_sts_qidx;
      sts_result_q <= tx_sts_result;
    end
    if (sts_valid_q && !(|sts_hit)) bad_sts_count <= bad_sts_count + 1'b1;
    if (rst) begin
      sts_valid_q   <= 1'b0;
      bad_sts_count <= '0;
    end
  end

endmodule

`resetall
