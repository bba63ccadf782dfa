// SPDX-License-Identifier: MIT
// Completion/event writer (docs/blocks/nic_core.md, "Completion requests"): reserves ring entries in a
// MODE 1 queue manager, writes up to BATCH same-queue entries into its DMA RAM and DMAs them to the host
// in one write. About BATCH + 6 cycles plus the queue-manager latency per batch; one entry per cycle.
`default_nettype none

// Order: one queue-manager operation is in flight at a time and DMA descriptors go out in grant order,
// so entries of one queue reach the host in request order. SLOTS batches may wait for their DMA status
// (statuses may return in any order); slots retire in order, and a retired batch whose grant said
// "armed" emits one event {queue target, queue}. A DMA error is counted and the event still follows.
// Coalescing never waits: a request asks for the leading FIFO entries of the head's queue (up to
// BATCH) that are present now. A grant may be smaller (ring end, space); the rest is asked for again.
// Drops: QM_EMPTY (ring full) counts drop_full_count, QM_DISABLED and QM_BAD_IDX count
// drop_disabled_count, one per entry. op_rsp must come at least one cycle after op_req is accepted.
// RAM layout: slot s holds its batch at byte s*BATCH*32, entry j at +32*j.
module beryl_nic_cpl_write #(
  parameter int QI_W       = 8,                  // queue index width, bits, 1..16
  parameter int BATCH      = 8,                  // entries per DMA at most, power of two, 1..256
  parameter int SLOTS      = 4,                  // DMA batches in flight, power of two, 2..16
  parameter int FIFO_DEPTH = 2 * BATCH,          // input FIFO entries, power of two, >= BATCH and >= 2
  parameter int CNT_W      = $clog2(BATCH) + 1,  // queue-manager op count width, bits, >= $clog2(BATCH)+1
  // DMA RAM region address width, bits (byte address), 12..32 and >= $clog2(SLOTS*BATCH*32)
  parameter int RAM_ADDR_W = ($clog2(SLOTS * BATCH * 32) > 12) ? $clog2(SLOTS * BATCH * 32) : 12,
  parameter int LEN_W      = 17,                 // DMA length width, bits, >= $clog2(BATCH*32)+1
  parameter int TAG_W      = $clog2(SLOTS),      // DMA client tag width, bits, >= $clog2(SLOTS)
  parameter int SEG_COUNT  = 2,                  // RAM segments, fixed 2
  parameter int SEG_DATA_W = 512,                // bits per segment, 256 or 512
  parameter int SEG_BE_W   = SEG_DATA_W / 8,     // byte enables per segment
  parameter int SEG_ADDR_W = RAM_ADDR_W - $clog2(SEG_COUNT * SEG_BE_W)  // row address width, bits
) (
  input  wire logic                            clk,
  input  wire logic                            rst,

  // completion requests (entries; the writer sets the phase bit)
  input  wire logic                            cpl_valid,
  output logic                                 cpl_ready,
  input  wire logic [QI_W-1:0]                 cpl_qidx,
  input  wire logic [255:0]                    cpl_data,

  // queue-manager operation port (MODE 1)
  output logic                                 op_req_valid,
  input  wire logic                            op_req_ready,
  output logic [QI_W-1:0]                      op_req_qidx,
  output logic [CNT_W-1:0]                     op_req_count,
  input  wire logic                            op_rsp_valid,
  output logic                                 op_rsp_ready,
  input  wire logic [QI_W-1:0]                 op_rsp_qidx,
  input  wire logic [1:0]                      op_rsp_status,
  input  wire logic [63:0]                     op_rsp_addr,
  input  wire logic [15:0]                     op_rsp_ptr,
  input  wire logic [CNT_W-1:0]                op_rsp_count,
  input  wire logic                            op_rsp_phase,
  input  wire logic                            op_rsp_armed,
  input  wire logic [31:0]                     op_rsp_target,

  // DMA write channel client
  output logic [63:0]                          wr_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]                wr_desc_ram_addr,
  output logic [LEN_W-1:0]                     wr_desc_len,
  output logic [TAG_W-1:0]                     wr_desc_tag,
  output logic                                 wr_desc_valid,
  input  wire logic                            wr_desc_ready,
  input  wire logic [TAG_W-1:0]                wr_desc_status_tag,
  input  wire logic [3:0]                      wr_desc_status_error,
  input  wire logic                            wr_desc_status_valid,

  // DMA-side read port of the entry RAM (segmented RAM interface)
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_rd_cmd_addr,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_cmd_valid,
  output logic [SEG_COUNT-1:0]                 ram_rd_cmd_ready,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]      ram_rd_resp_data,
  output logic [SEG_COUNT-1:0]                 ram_rd_resp_valid,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_resp_ready,

  // events of armed queues after their entries were written
  output logic                                 evt_valid,
  input  wire logic                            evt_ready,
  output logic [31:0]                          evt_target,
  output logic [QI_W-1:0]                      evt_source,

  // statistics (entries; wrap at 2^32)
  output logic [31:0]                          drop_full_count,
  output logic [31:0]                          drop_disabled_count,
  output logic [31:0]                          dma_err_count
);

  localparam int ENT_BYTES = beryl_nic_pkg::CPL_BYTES;          // 32, the size of cpl_t and evt_t
  localparam int ROW_BYTES = SEG_COUNT * SEG_BE_W;
  localparam int SLOT_BYTES = BATCH * ENT_BYTES;
  localparam int RAM_SIZE  = (SLOTS * SLOT_BYTES > 2 * ROW_BYTES) ? SLOTS * SLOT_BYTES : 2 * ROW_BYTES;
  localparam int ROW_W     = $clog2(RAM_SIZE / ROW_BYTES);       // rows actually built
  localparam int SL_W      = $clog2(SLOTS);
  localparam int FA_W      = $clog2(FIFO_DEPTH);
  localparam int REPL      = SEG_COUNT * SEG_BE_W / ENT_BYTES;   // entries per row
  localparam int FC_W      = FA_W + 1;                           // FIFO count width
  localparam int SU_W      = SL_W + 1;                           // slot count width

  if (QI_W < 1 || QI_W > 16) begin : g_chk_qi
    $error("%m: QI_W must be 1..16");
  end
  if (BATCH < 1 || BATCH > 256 || (BATCH & (BATCH - 1)) != 0) begin : g_chk_batch
    $error("%m: BATCH must be a power of two, 1..256");
  end
  if (SLOTS < 2 || SLOTS > 16 || (SLOTS & (SLOTS - 1)) != 0) begin : g_chk_slots
    $error("%m: SLOTS must be a power of two, 2..16");
  end
  if (FIFO_DEPTH < 2 || FIFO_DEPTH < BATCH || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin : g_chk_fifo
    $error("%m: FIFO_DEPTH must be a power of two, >= BATCH and >= 2");
  end
  if (CNT_W < $clog2(BATCH) + 1 || CNT_W > 16) begin : g_chk_cnt
    $error("%m: CNT_W must be $clog2(BATCH)+1..16");
  end
  if (RAM_ADDR_W < 12 || RAM_ADDR_W > 32 || (1 << RAM_ADDR_W) < RAM_SIZE) begin : g_chk_ram
    $error("%m: RAM_ADDR_W must be 12..32 and cover SLOTS*BATCH*32 bytes");
  end
  if (LEN_W < $clog2(SLOT_BYTES) + 1) begin : g_chk_len
    $error("%m: LEN_W too small for BATCH*32 bytes");
  end
  if (TAG_W < SL_W) begin : g_chk_tag
    $error("%m: TAG_W must be >= $clog2(SLOTS)");
  end
  if (SEG_COUNT != 2 || (SEG_DATA_W != 256 && SEG_DATA_W != 512) || SEG_BE_W * 8 != SEG_DATA_W ||
      SEG_ADDR_W != RAM_ADDR_W - $clog2(ROW_BYTES)) begin : g_chk_seg
    $error("%m: segments must be 2 x 256 or 2 x 512 bits with SEG_ADDR_W = RAM_ADDR_W - log2(row bytes)");
  end

  // ---------------------------------------------------------------- clock gate
  // Every flop below is clocked by gclk; the enable (wake) is at the end of the module.
  logic gclk;
  logic wake;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (wake),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- input FIFO
  // same_q[i]: entry i has the queue of the entry pushed just before it, so the head's run of
  // same-queue entries is the run of set bits after it (the head's own bit is meaningless).
  logic [255:0]          fifo_data [FIFO_DEPTH];
  logic [QI_W-1:0]       fifo_qidx [FIFO_DEPTH];
  logic [FIFO_DEPTH-1:0] same_q;
  logic [FA_W-1:0]       wr_ptr_q, rd_ptr_q;
  logic [FA_W:0]         fifo_cnt_q;
  logic [QI_W-1:0]       last_qidx_q;
  logic                  push;
  logic [CNT_W-1:0]      pop_n;
  logic [CNT_W-1:0]      run;
  logic [QI_W-1:0]       head_qidx;
  logic [255:0]          head_data;

  assign cpl_ready = fifo_cnt_q != FC_W'(FIFO_DEPTH);
  assign push      = cpl_valid && cpl_ready;
  assign head_qidx = fifo_qidx[rd_ptr_q];
  assign head_data = fifo_data[rd_ptr_q];

  always_ff @(posedge gclk) begin
    if (push) begin
      fifo_data[wr_ptr_q] <= cpl_data;
      fifo_qidx[wr_ptr_q] <= cpl_qidx;
    end
  end

  always_ff @(posedge gclk) begin
    if (push) begin
      same_q[wr_ptr_q] <= cpl_qidx == last_qidx_q;
      last_qidx_q      <= cpl_qidx;
      wr_ptr_q         <= wr_ptr_q + 1'b1;
    end
    rd_ptr_q   <= rd_ptr_q + FA_W'(pop_n);
    fifo_cnt_q <= fifo_cnt_q + FC_W'(push) - FC_W'(pop_n);
    if (rst) begin
      same_q      <= '0;
      last_qidx_q <= '0;
      wr_ptr_q    <= '0;
      rd_ptr_q    <= '0;
      fifo_cnt_q  <= '0;
    end
  end

  // leading same-queue entries present now, at most BATCH
  always_comb begin
    logic stop;
    run  = CNT_W'(1);
    stop = 1'b0;
    for (int i = 1; i < BATCH; i++) begin
      if (!stop && FC_W'(i) < fifo_cnt_q && same_q[rd_ptr_q + FA_W'(i)]) begin
        run = CNT_W'(i + 1);
      end else begin
        stop = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------- control
  localparam logic [2:0] ST_IDLE  = 3'd0;   // wait for entries and a free slot
  localparam logic [2:0] ST_REQ   = 3'd1;   // op_req offered
  localparam logic [2:0] ST_RSP   = 3'd2;   // wait for the grant
  localparam logic [2:0] ST_WRITE = 3'd3;   // copy granted entries into the slot, one per cycle
  localparam logic [2:0] ST_DESC  = 3'd4;   // DMA descriptor offered

  logic [2:0]       state_q;
  logic [CNT_W-1:0] req_cnt_q;              // entries asked for (and dropped on refusal)
  logic [CNT_W-1:0] grant_q;                // entries granted
  logic [CNT_W-1:0] wr_idx_q;               // entry being copied
  logic [63:0]      host_addr_q;
  logic             phase_q;
  logic             grant_ok;
  logic [CNT_W-1:0] grant_n;

  // slots: alloc_q is the slot being filled, retire_q the oldest one in flight
  logic [SL_W-1:0]  alloc_q, retire_q;
  logic [SL_W:0]    used_q;
  logic [SLOTS-1:0] inflight_q, done_q, armed_q;
  logic [31:0]      target_q [SLOTS];
  logic [QI_W-1:0]  source_q [SLOTS];
  logic             desc_hs, retire, sts_hit;
  logic [SL_W-1:0]  sts_slot;

  // event FIFO, SLOTS deep: {target, source}
  logic [32+QI_W-1:0] evt_mem [SLOTS];
  logic [SL_W-1:0]    evt_wr_q, evt_rd_q;
  logic [SL_W:0]      evt_cnt_q;
  logic               evt_push, evt_pop, evt_full;

  assign grant_ok = op_rsp_status == beryl_nic_pkg::QM_OK && op_rsp_count != '0;
  assign grant_n  = (op_rsp_count < req_cnt_q) ? op_rsp_count : req_cnt_q;
  assign op_rsp_ready = state_q == ST_RSP;
  assign desc_hs  = wr_desc_valid && wr_desc_ready;

  // entry RAM write: one 32-byte entry per cycle into one segment
  logic [RAM_ADDR_W-1:0]           ent_addr;
  logic [$clog2(ROW_BYTES)-1:0]    ent_off;
  logic                            ent_seg;
  logic                            ram_wr_ok;
  logic [SEG_COUNT*SEG_ADDR_W-1:0] unused_rd_addr;
  logic [SEG_COUNT*ROW_W-1:0]      ram_wr_cmd_addr, ram_rd_row;
  logic [SEG_COUNT*SEG_BE_W-1:0]   ram_wr_cmd_be;
  logic [SEG_COUNT*SEG_DATA_W-1:0] ram_wr_cmd_data;
  logic [SEG_COUNT-1:0]            ram_wr_cmd_valid, ram_wr_cmd_ready;
  beryl_nic_pkg::cpl_t             ent;   // evt_t keeps its phase in the same bit 255

  assign ent_addr = RAM_ADDR_W'(alloc_q) * RAM_ADDR_W'(SLOT_BYTES) + RAM_ADDR_W'(wr_idx_q) * RAM_ADDR_W'(ENT_BYTES);
  assign ent_off  = ent_addr[$clog2(ROW_BYTES)-1:0];
  assign ent_seg  = ent_addr[$clog2(SEG_BE_W)];
  assign ram_wr_ok = ram_wr_cmd_ready[ent_seg];

  always_comb begin
    ent       = head_data;
    ent.phase = phase_q;
    ram_wr_cmd_data  = {REPL{ent}};
    // ent_off is a multiple of ENT_BYTES (slots and entries are): the byte enables of one entry
    // lane, the same as ENT_BYTES ones shifted left by ent_off without a wide shift
    for (int k = 0; k < REPL; k++) begin
      ram_wr_cmd_be[k*ENT_BYTES +: ENT_BYTES] = {ENT_BYTES{32'(ent_off) == k * ENT_BYTES}};
    end
    ram_wr_cmd_valid = '0;
    ram_wr_cmd_valid[ent_seg] = state_q == ST_WRITE;
    for (int s = 0; s < SEG_COUNT; s++) begin
      ram_wr_cmd_addr[s*ROW_W +: ROW_W] = ent_addr[$clog2(ROW_BYTES) +: ROW_W];
      ram_rd_row[s*ROW_W +: ROW_W]      = ram_rd_cmd_addr[s*SEG_ADDR_W +: ROW_W];
    end
  end

  // the row bits above the built RAM are not decoded: the DMA engine only reads where we point it
  assign unused_rd_addr = ram_rd_cmd_addr;

  beryl_dma_psdp_ram #(
    .SEG_COUNT  (SEG_COUNT),
    .SEG_DATA_W (SEG_DATA_W),
    .SEG_BE_W   (SEG_BE_W),
    .SIZE       (RAM_SIZE),
    .SEG_ADDR_W (ROW_W)
  ) u_ram (
    .clk               (clk),   // the RAM gates itself (a gate must take the free-running clock)
    .rst               (rst),
    .ram_wr_cmd_addr   (ram_wr_cmd_addr),
    .ram_wr_cmd_be     (ram_wr_cmd_be),
    .ram_wr_cmd_data   (ram_wr_cmd_data),
    .ram_wr_cmd_valid  (ram_wr_cmd_valid),
    .ram_wr_cmd_ready  (ram_wr_cmd_ready),
    .ram_rd_cmd_addr   (ram_rd_row),
    .ram_rd_cmd_valid  (ram_rd_cmd_valid),
    .ram_rd_cmd_ready  (ram_rd_cmd_ready),
    .ram_rd_resp_data  (ram_rd_resp_data),
    .ram_rd_resp_valid (ram_rd_resp_valid),
    .ram_rd_resp_ready (ram_rd_resp_ready)
  );

  // pops: the whole request on a refusal, one entry per accepted RAM write
  always_comb begin
    pop_n = '0;
    if (state_q == ST_RSP && op_rsp_valid && !grant_ok) pop_n = req_cnt_q;
    if (state_q == ST_WRITE && ram_wr_ok) pop_n = CNT_W'(1);
  end

  always_ff @(posedge gclk) begin
    case (state_q)
      ST_IDLE: begin
        if (fifo_cnt_q != '0 && used_q != SU_W'(SLOTS)) begin
          op_req_valid <= 1'b1;
          op_req_qidx  <= head_qidx;
          op_req_count <= run;
          req_cnt_q    <= run;
          state_q      <= ST_REQ;
        end
      end
      ST_REQ: begin
        if (op_req_ready) begin
          op_req_valid <= 1'b0;
          state_q      <= ST_RSP;
        end
      end
      ST_RSP: begin
        if (op_rsp_valid) begin
          if (grant_ok) begin
            grant_q            <= grant_n;
            wr_idx_q           <= '0;
            host_addr_q        <= op_rsp_addr;
            phase_q            <= op_rsp_phase;
            armed_q[alloc_q]   <= op_rsp_armed;
            target_q[alloc_q]  <= op_rsp_target;
            source_q[alloc_q]  <= op_req_qidx;
            state_q            <= ST_WRITE;
          end else begin
            if (op_rsp_status == beryl_nic_pkg::QM_OK || op_rsp_status == beryl_nic_pkg::QM_EMPTY) begin
              drop_full_count <= drop_full_count + 32'(req_cnt_q);
            end else begin
              drop_disabled_count <= drop_disabled_count + 32'(req_cnt_q);
            end
            state_q <= ST_IDLE;
          end
        end
      end
      ST_WRITE: begin
        if (ram_wr_ok) begin
          wr_idx_q <= wr_idx_q + 1'b1;
          if (wr_idx_q + 1'b1 == grant_q) begin
            wr_desc_valid     <= 1'b1;
            wr_desc_host_addr <= host_addr_q;
            wr_desc_ram_addr  <= RAM_ADDR_W'(alloc_q) * RAM_ADDR_W'(SLOT_BYTES);
            wr_desc_len       <= LEN_W'(grant_q) * LEN_W'(ENT_BYTES);
            wr_desc_tag       <= TAG_W'(alloc_q);
            state_q           <= ST_DESC;
          end
        end
      end
      ST_DESC: begin
        if (wr_desc_ready) begin
          wr_desc_valid <= 1'b0;
          state_q       <= ST_IDLE;
        end
      end
      default: state_q <= ST_IDLE;
    endcase
    if (rst) begin
      state_q             <= ST_IDLE;
      op_req_valid        <= 1'b0;
      wr_desc_valid       <= 1'b0;
      drop_full_count     <= '0;
      drop_disabled_count <= '0;
    end
  end

  // ---------------------------------------------------------------- slots in flight
  // A status is taken only for a slot in flight that has none yet (a stray tag is ignored).
  assign sts_slot = wr_desc_status_tag[SL_W-1:0];
  assign sts_hit  = wr_desc_status_valid && (wr_desc_status_tag >> SL_W) == '0 && !done_q[sts_slot] &&
                    (inflight_q[sts_slot] || (desc_hs && alloc_q == sts_slot));
  assign retire   = inflight_q[retire_q] && done_q[retire_q] && (!armed_q[retire_q] || !evt_full);

  always_ff @(posedge gclk) begin
    if (desc_hs) begin
      inflight_q[alloc_q] <= 1'b1;
      done_q[alloc_q]     <= 1'b0;
      alloc_q             <= alloc_q + 1'b1;
    end
    if (retire) begin
      inflight_q[retire_q] <= 1'b0;
      retire_q             <= retire_q + 1'b1;
    end
    if (sts_hit) begin
      done_q[sts_slot] <= 1'b1;
      if (wr_desc_status_error != 4'd0) dma_err_count <= dma_err_count + 1'b1;
    end
    used_q <= used_q + SU_W'(desc_hs) - SU_W'(retire);
    if (rst) begin
      alloc_q       <= '0;
      retire_q      <= '0;
      used_q        <= '0;
      inflight_q    <= '0;
      done_q        <= '0;
      dma_err_count <= '0;
    end
  end

  // ---------------------------------------------------------------- event FIFO
  assign evt_full   = evt_cnt_q == SU_W'(SLOTS);
  assign evt_push   = retire && armed_q[retire_q];
  assign evt_valid  = evt_cnt_q != '0;
  assign evt_pop    = evt_valid && evt_ready;
  assign {evt_target, evt_source} = evt_mem[evt_rd_q];

  always_ff @(posedge gclk) begin
    if (evt_push) evt_mem[evt_wr_q] <= {target_q[retire_q], source_q[retire_q]};
  end

  always_ff @(posedge gclk) begin
    if (evt_push) evt_wr_q <= evt_wr_q + 1'b1;
    if (evt_pop) evt_rd_q <= evt_rd_q + 1'b1;
    evt_cnt_q <= evt_cnt_q + SU_W'(evt_push) - SU_W'(evt_pop);
    if (rst) begin
      evt_wr_q  <= '0;
      evt_rd_q  <= '0;
      evt_cnt_q <= '0;
    end
  end

  // ---------------------------------------------------------------- clock gate enable
  // The block is clocked in a cycle with a reset, an entry pushed, a step of the control FSM (ST_IDLE
  // with entries and a free slot, op_req taken, the grant, every ST_WRITE cycle, the descriptor taken;
  // an undefined state steps to ST_IDLE), a DMA status, a slot retiring or an event taken. No flop
  // changes in any other cycle: the FIFO moves only with push and pop_n (pops only in ST_RSP with
  // op_rsp_valid and in ST_WRITE), the slots with desc_hs, retire and sts_hit (a status), the event
  // FIFO with retire and evt_pop. The entry RAM (u_ram) has its own gate.
  logic fsm_go;

  always_comb begin
    case (state_q)
      ST_IDLE:  fsm_go = fifo_cnt_q != '0 && used_q != SU_W'(SLOTS);
      ST_REQ:   fsm_go = op_req_ready;
      ST_RSP:   fsm_go = op_rsp_valid;
      ST_DESC:  fsm_go = wr_desc_ready;
      default:  fsm_go = 1'b1;   // ST_WRITE and the undefined states
    endcase
  end

  assign wake = rst || push || fsm_go || wr_desc_status_valid || retire || evt_pop;

  // op_rsp_qidx equals the request's queue, op_rsp_ptr is implied by op_rsp_addr
  logic unused;
  assign unused = ^{op_rsp_qidx, op_rsp_ptr, unused_rd_addr};

endmodule

`resetall
