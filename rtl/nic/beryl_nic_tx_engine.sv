// SPDX-License-Identifier: MIT
// Beryl NIC transmit engine: scheduler command -> QM grant + descriptor batch DMA -> per-packet scatter-gather
// DMA into packet slots (TX checksum summed on the RAM write port) -> AXI-Stream to the MAC ports with the sum
// inserted -> completion, stats. Latency: QM + 2 DMA round trips + 3 cycles; throughput one beat per cycle.
// TX timestamps (TS_RET_EN): each frame carries a per-port tag; its completion waits in the port's
// beryl_nic_tx_ts_wait until the start-of-frame time for that tag comes back from the port (or times out).
// A failed descriptor-batch read is issued again up to DESC_RETRIES times; if the last try fails, its
// descriptors complete with CPL_DMA_ERR one by one and the walker resyncs on the queue's next descriptors
// (w_rs_q below; docs/blocks/nic_core.md, "Failed TX descriptor reads"). A packet whose data read failed
// is read again whole, up to DATA_RETRIES times, before it is dropped with CPL_DMA_ERR.
`default_nettype none

module beryl_nic_tx_engine #(
  parameter int DATA_W           = 512,     // AXI-Stream width, bits: 512 only
  parameter int PORT_COUNT       = 1,       // MAC ports, 1..8
  parameter int QI_W             = 12,      // TX queue index width, bits, 1..16
  parameter int PKT_SLOTS        = 32,      // packets in flight, power of two, 2..256
  parameter int SLOT_BYTES       = 16384,   // packet slot = max frame, bytes, power of two, 256..32768
  parameter int DESC_BATCH       = 8,       // descriptors per QM/DMA fetch, power of two, 1..64
  parameter int BATCH_SLOTS      = 4,       // descriptor batches in flight, 1..16
  parameter int MAX_DESC_PER_PKT = 16,      // descriptors per packet, 1..255
  // a failed descriptor-batch fetch is issued again up to this many times before its descriptors
  // complete with CPL_DMA_ERR (host memory reads have no side effects), 0..7
  parameter int DESC_RETRIES     = 2,
  // a packet with a failed data read has all its data read again (after its other reads finished; the
  // checksum starts afresh) up to this many times before it completes with CPL_DMA_ERR, 0..7
  parameter int DATA_RETRIES     = 2,
  parameter int CNT_W            = $clog2(DESC_BATCH) + 1,  // QM count width (derived)
  parameter int LEN_W            = 17,      // DMA length width, bits (17)
  parameter int TAG_W            = 8,       // DMA client tag width, bits; > clog2(max(PKT_SLOTS,BATCH_SLOTS))
  parameter int SEG_COUNT        = 2,       // DMA RAM segments (2)
  parameter int SEG_DATA_W       = 512,     // DMA RAM segment width, bits (512)
  parameter int SEG_BE_W         = 64,      // DMA RAM segment byte enables (64)
  // DMA region, bytes (log2): lower half packet slots, upper half descriptor batches (derived)
  parameter int RAM_ADDR_W       = $clog2(PKT_SLOTS * SLOT_BYTES) + 1,
  parameter int SEG_ADDR_W       = RAM_ADDR_W - 7,          // row address width (derived)
  parameter int PSEL_W           = (PORT_COUNT > 1) ? $clog2(PORT_COUNT) : 1, // port select (derived)
  // TX timestamps: 1 = a completion carries the time returned for its frame's tag (s_tx_ts_*); 0 = the
  // engine's own: ptp_ts of the cycle the frame's first beat left it (returns ignored, tags still sent)
  parameter int TS_RET_EN        = 1,
  parameter int TS_TAG_W         = 8,       // tag width, bits, clog2(TS_WAIT_DEPTH)+1..16
  parameter int TS_WAIT_DEPTH    = 16,      // per port: frames between first beat out and completion, 2^n, 2..256
  // 1: returns come in frame order, a later frame's time makes older waiting frames mismatches (time 0);
  // 0: any order (frames reordered after the engine, e.g. by a TDMA gate's park buffer): timeout only, and
  // completions leave out of order (each queue's in ring order, beryl_nic_tx_ts_wait_ooo)
  parameter int TS_RET_ORDERED   = 1
) (
  input  wire logic                             clk,
  input  wire logic                             rst,

  // commands from the port schedulers
  input  wire logic                             tx_cmd_valid,
  output logic                                  tx_cmd_ready,
  input  wire logic [QI_W-1:0]                  tx_cmd_qidx,
  input  wire logic [PSEL_W-1:0]                tx_cmd_port,
  // one status per command (pulse)
  output logic                                  tx_sts_valid,
  output logic [PSEL_W-1:0]                     tx_sts_port,
  output logic [QI_W-1:0]                       tx_sts_qidx,
  output logic [1:0]                            tx_sts_result,
  output logic [7:0]                            tx_sts_pkts,
  output logic [31:0]                           tx_sts_bytes,

  // TXQ manager operation port (MODE 0)
  output logic                                  op_req_valid,
  input  wire logic                             op_req_ready,
  output logic [QI_W-1:0]                       op_req_qidx,
  output logic [CNT_W-1:0]                      op_req_count,
  input  wire logic                             op_rsp_valid,
  output logic                                  op_rsp_ready,
  input  wire logic [QI_W-1:0]                  op_rsp_qidx,
  input  wire logic [1:0]                       op_rsp_status,
  input  wire logic [63:0]                      op_rsp_addr,
  input  wire logic [15:0]                      op_rsp_ptr,
  input  wire logic [CNT_W-1:0]                 op_rsp_count,
  input  wire logic [31:0]                      op_rsp_target,
  input  wire logic [7:0]                       op_rsp_aux,
  input  wire logic                             op_rsp_empty,
  input  wire logic                             op_rsp_phase,
  input  wire logic                             op_rsp_armed,
  input  wire logic [3:0]                       op_rsp_log_size,

  // DMA read channel client
  output logic [63:0]                           rd_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]                 rd_desc_ram_addr,
  output logic [LEN_W-1:0]                      rd_desc_len,
  output logic [TAG_W-1:0]                      rd_desc_tag,
  output logic                                  rd_desc_valid,
  input  wire logic                             rd_desc_ready,
  input  wire logic [TAG_W-1:0]                 rd_desc_status_tag,
  input  wire logic [3:0]                       rd_desc_status_error,
  input  wire logic                             rd_desc_status_valid,

  // DMA-side RAM write port into this client's region
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0]  ram_wr_cmd_addr,
  input  wire logic [SEG_COUNT*SEG_BE_W-1:0]    ram_wr_cmd_be,
  input  wire logic [SEG_COUNT*SEG_DATA_W-1:0]  ram_wr_cmd_data,
  input  wire logic [SEG_COUNT-1:0]             ram_wr_cmd_valid,
  output logic [SEG_COUNT-1:0]                  ram_wr_cmd_ready,

  // AXI-Stream to the MACs, one per port
  output logic [PORT_COUNT*DATA_W-1:0]          m_axis_tx_tdata,
  output logic [PORT_COUNT*DATA_W/8-1:0]        m_axis_tx_tkeep,
  output logic [PORT_COUNT-1:0]                 m_axis_tx_tvalid,
  input  wire logic [PORT_COUNT-1:0]            m_axis_tx_tready,
  output logic [PORT_COUNT-1:0]                 m_axis_tx_tlast,
  // with every beat: the packet's length in bytes and its TX queue (for a TDMA gate on the stream)
  output logic [PORT_COUNT*16-1:0]              m_axis_tx_len,
  output logic [PORT_COUNT*QI_W-1:0]            m_axis_tx_qidx,
  // with every beat: the frame's tag (per port, counts the port's frames modulo 2^TS_TAG_W)
  output logic [PORT_COUNT*TS_TAG_W-1:0]        m_axis_tx_tag,
  // TS_RET_EN 0, per port: PTP time now (docs/blocks/ptp.md format, corrected for the port's MAC delay);
  // the value of the cycle a packet's first beat leaves is its timestamp in the TX completion
  input  wire logic [PORT_COUNT*64-1:0]         ptp_ts,
  // TS_RET_EN 1, per port: the start-of-frame time of the frame with this tag, in frame order, no ready
  input  wire logic [PORT_COUNT-1:0]            s_tx_ts_valid,
  input  wire logic [PORT_COUNT*TS_TAG_W-1:0]   s_tx_ts_tag,
  input  wire logic [PORT_COUNT*64-1:0]         s_tx_ts,
  // cycles the oldest frame of a port waits for its time before it completes with 0; 0: forever
  input  wire logic [31:0]                      ts_timeout,

  // completion requests to the CQ writer
  output logic                                  cpl_valid,
  input  wire logic                             cpl_ready,
  output logic [15:0]                           cpl_qidx,
  output logic [255:0]                          cpl_data,

  // statistics increments
  output logic                                  stat_valid,
  output logic [QI_W-1:0]                       stat_qidx,
  output logic [15:0]                           stat_bytes,
  output logic                                  stat_drop,

  output logic [31:0]                           pkt_count,
  output logic [31:0]                           byte_count,
  output logic [31:0]                           bad_desc_count,
  output logic [31:0]                           dma_err_count,
  output logic [31:0]                           desc_retry_count,  // descriptor-batch fetches issued again
  output logic [31:0]                           data_retry_count,  // packets whose data was read again
  output logic [PORT_COUNT*32-1:0]              port_pkt_count,
  output logic [PORT_COUNT*32-1:0]              port_byte_count,
  output logic [PORT_COUNT*32-1:0]              port_drop_count,  // packets of the port's queues not sent
  // per port, TX timestamp return (docs/blocks/ptp.md): frames given 0 because a later frame's time came
  // first, frames given 0 after ts_timeout, returns dropped because their tag named no waiting frame
  output logic [PORT_COUNT*32-1:0]              port_ts_mismatch_count,
  output logic [PORT_COUNT*32-1:0]              port_ts_timeout_count,
  output logic [PORT_COUNT*32-1:0]              port_ts_spurious_count
);

  localparam int SLOT_W      = $clog2(PKT_SLOTS);
  localparam int BS_W        = (BATCH_SLOTS > 1) ? $clog2(BATCH_SLOTS) : 1;
  localparam int DENT        = BATCH_SLOTS * DESC_BATCH;           // descriptor entries
  localparam int DENT_W      = (DENT > 1) ? $clog2(DENT) : 1;
  localparam int PKT_ROW_W   = SEG_ADDR_W - 1;                      // rows of the packet half
  localparam int SROW_W      = $clog2(SLOT_BYTES / 128);            // rows per slot (log2)
  localparam int SLEN_W      = $clog2(SLOT_BYTES) + 1;              // 0..SLOT_BYTES
  localparam int BEAT_W      = $clog2(SLOT_BYTES / 64);             // beat index in a slot
  localparam int ND_W        = $clog2(MAX_DESC_PER_PKT + 1);        // descriptors of a packet
  localparam int PEND_W      = ND_W;                                // data DMAs in flight per slot
  localparam int FIFO_DEPTH  = 4;                                   // output beat FIFO
  localparam int CPLQ_DEPTH  = 4;                                   // completion request FIFO
  localparam int CPLE_W      = 16 + QI_W + 64 + 16 + 8 + 8 + 16;    // cq, queue, timestamp, index, port, status, len
  localparam int WENT_W      = CPLE_W - 64;                         // the same without the timestamp
  localparam logic [SEG_ADDR_W-1:0] DROW_BASE = SEG_ADDR_W'(1) << (SEG_ADDR_W - 1);

  if (DATA_W != 512 || SEG_COUNT != 2 || SEG_DATA_W != 512 || SEG_BE_W != 64) begin : g_chk_w
    $error("%m: DATA_W, SEG_DATA_W must be 512, SEG_COUNT 2, SEG_BE_W 64");
  end
  if (PORT_COUNT < 1 || PORT_COUNT > 8 || QI_W < 1 || QI_W > 16) begin : g_chk_port
    $error("%m: PORT_COUNT must be 1..8 and QI_W 1..16");
  end
  if (PKT_SLOTS < 2 || PKT_SLOTS > 256 || (1 << SLOT_W) != PKT_SLOTS || SLOT_BYTES < 256
      || SLOT_BYTES > 32768 || (1 << $clog2(SLOT_BYTES)) != SLOT_BYTES) begin : g_chk_slot
    $error("%m: PKT_SLOTS must be a power of two 2..256, SLOT_BYTES a power of two 256..32768");
  end
  if (DESC_BATCH < 1 || DESC_BATCH > 64 || (1 << $clog2(DESC_BATCH)) != DESC_BATCH
      || BATCH_SLOTS < 1 || BATCH_SLOTS > 16 || CNT_W != $clog2(DESC_BATCH) + 1) begin : g_chk_batch
    $error("%m: DESC_BATCH must be a power of two 1..64, BATCH_SLOTS 1..16, CNT_W clog2(DESC_BATCH)+1");
  end
  if (MAX_DESC_PER_PKT < 1 || MAX_DESC_PER_PKT > 255 || LEN_W != 17 || TAG_W - 1 < SLOT_W
      || TAG_W - 1 < BS_W || RAM_ADDR_W != $clog2(PKT_SLOTS * SLOT_BYTES) + 1
      || SEG_ADDR_W != RAM_ADDR_W - 7 || DENT * 16 > PKT_SLOTS * SLOT_BYTES) begin : g_chk_misc
    $error("%m: bad MAX_DESC_PER_PKT, LEN_W, TAG_W, RAM_ADDR_W or SEG_ADDR_W");
  end
  if (DESC_RETRIES < 0 || DESC_RETRIES > 7 || DATA_RETRIES < 0 || DATA_RETRIES > 7) begin : g_chk_retry
    $error("%m: DESC_RETRIES and DATA_RETRIES must be 0..7");
  end
  if (TS_RET_EN < 0 || TS_RET_EN > 1 || TS_WAIT_DEPTH < 2 || TS_WAIT_DEPTH > 256
      || (1 << $clog2(TS_WAIT_DEPTH)) != TS_WAIT_DEPTH || TS_TAG_W <= $clog2(TS_WAIT_DEPTH) || TS_TAG_W > 16)
  begin : g_chk_ts
    $error("%m: TS_RET_EN must be 0 or 1, TS_WAIT_DEPTH a power of two 2..256, TS_TAG_W clog2(TS_WAIT_DEPTH)+1..16");
  end

  // ------------------------------------------------------------------ declarations
  // batch slots (circular, allocated on a QM grant, retired in command order)
  localparam logic [1:0] B_FREE = 2'd0, B_FETCH = 2'd1, B_READY = 2'd2, B_ERR = 2'd3;
  logic [1:0]            b_state_q [BATCH_SLOTS];
  logic [QI_W-1:0]       b_qidx_q  [BATCH_SLOTS];
  logic [PSEL_W-1:0]     b_sport_q [BATCH_SLOTS];   // scheduler that issued the command
  logic [15:0]           b_ptr_q   [BATCH_SLOTS];
  logic [CNT_W-1:0]      b_cnt_q   [BATCH_SLOTS];
  logic [15:0]           b_cq_q    [BATCH_SLOTS];
  logic [7:0]            b_aux_q   [BATCH_SLOTS];
  logic                  b_empty_q [BATCH_SLOTS];
  logic [63:0]           b_addr_q  [BATCH_SLOTS];   // host address of the batch's fetch (for a retry)
  logic [2:0]            b_try_q   [BATCH_SLOTS];   // retries of the batch's fetch so far
  logic [BATCH_SLOTS-1:0] b_rty_q;                  // the batch's failed fetch waits to be issued again
  logic [BS_W-1:0]       b_wr_q;                    // next batch slot to allocate
  logic [BS_W:0]         b_used_q;

  // packet slots (circular: allocated by the walker, streamed and freed in the same order)
  logic [QI_W-1:0]       p_qidx_q  [PKT_SLOTS];
  logic [15:0]           p_index_q [PKT_SLOTS];
  logic [15:0]           p_cq_q    [PKT_SLOTS];
  logic [7:0]            p_port_q  [PKT_SLOTS];
  logic [SLEN_W-1:0]     p_len_q   [PKT_SLOTS];
  logic [7:0]            p_cs_start_q [PKT_SLOTS];
  logic [8:0]            p_cs_pos_q [PKT_SLOTS];
  logic [PKT_SLOTS-1:0]  p_cs_en_q;
  logic [PKT_SLOTS-1:0]  p_closed_q;                // all descriptors seen, not yet streamed
  logic [PKT_SLOTS-1:0]  p_bad_q;
  logic [PKT_SLOTS-1:0]  p_err_q;
  logic [PKT_SLOTS*PEND_W-1:0] p_pend_q;           // data DMAs in flight, per slot
  logic [PKT_SLOTS-1:0]  p_rty_q;                   // a data read of the packet failed (this round)
  logic [2:0]            p_try_q   [PKT_SLOTS];     // rounds of data reads issued again
  logic [ND_W-1:0]       p_nd_q    [PKT_SLOTS];     // data reads of the packet (one per descriptor)
  logic [31:0]           p_acc_q   [PKT_SLOTS];     // ones'-complement sum, unfolded
  logic [SLOT_W-1:0]     p_alloc_q, p_tx_q, p_free_q;
  logic [SLOT_W:0]       p_used_q;

  // ------------------------------------------------------------------ clock gate
  // Every flop and RAM word of this block is clocked by gclk, except the streamer's and the checksum
  // sums (gclk_s, gclk_t, below; the packet RAM and the timestamp waits keep clk). gate_en (assigned at
  // the end, where its signals are declared) wakes the block for a reset; a command it takes; a QM
  // request or response in flight (op_st_q); a refused command's status or a batch fetch not yet sent
  // (fsts_pend_q, fq_valid_q); the walker not idle, or idle with its batch fetched or failed; a DMA
  // status or a DMA RAM write to the descriptor words; valids to clear (rd_desc_valid, tx_sts_valid,
  // stat_valid); a packet starting to stream or its last beat leaving the FIFO (s_cpl_push); a
  // completion released by a timestamp wait (rel_push) or taken (c_pop). In any other cycle no flop
  // would change: every other update is qualified by one of these, the DMA descriptor and
  // stat data load only with their valids, and the status data load fsts_* (which change only with
  // fsts_pend_q set next cycle) or the walker's, so the gate changes nothing but what a simulator evaluates.
  logic gclk;
  logic gate_en;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (gate_en),
    .gclk (gclk)
  );

  // The streamer (stage 1 and the output FIFO, below) has a gate of its own: it moves with every beat
  // read and sent, the rest of the engine only when a packet starts streaming or leaves (gate_s_en,
  // assigned at the end).
  logic gclk_s;
  logic gate_s_en;

  beryl_clk_gate u_gate_s (
    .clk  (clk),
    .en   (gate_s_en),
    .gclk (gclk_s)
  );

  // ... and so have the checksum sums (p_acc_q; gate_t_en at the end)
  logic gclk_t;
  logic gate_t_en;

  beryl_clk_gate u_gate_t (
    .clk  (clk),
    .en   (gate_t_en),
    .gclk (gclk_t)
  );

  // ------------------------------------------------------------------ descriptor area
  // Entry e (16 bytes) lives at byte DESC_BASE + 16e: row DROW_BASE + e/8, segment (e/4)%2, lane e%4.
  // One 64-byte word per row and segment, read asynchronously by the walker (LUT RAM). A write
  // stores the addressed word with the enabled bytes merged in (Yosys turns the merge back into byte
  // write enables); the byte loop runs only on a descriptor-area write, so Verilator skips it on the
  // cycles that write packet data (an earlier loop over all DENT entries ran on every RAM write and
  // cost the C++ simulator a third of its speed with DESC_BATCH 32).
  localparam int DROWS  = (DENT + 7) / 8;
  localparam int DROW_W = (DROWS > 1) ? $clog2(DROWS) : 1;
  logic [511:0]          dmem0 [DROWS];
  logic [511:0]          dmem1 [DROWS];
  logic [SEG_ADDR_W-1:0] dw_off0, dw_off1;
  logic                  dw_hit0, dw_hit1;

  assign dw_off0 = ram_wr_cmd_addr[0 +: SEG_ADDR_W] - DROW_BASE;
  assign dw_off1 = ram_wr_cmd_addr[SEG_ADDR_W +: SEG_ADDR_W] - DROW_BASE;
  assign dw_hit0 = ram_wr_cmd_valid[0] && ram_wr_cmd_addr[SEG_ADDR_W - 1] && 32'(dw_off0) < DROWS;
  assign dw_hit1 = ram_wr_cmd_valid[1] && ram_wr_cmd_addr[2 * SEG_ADDR_W - 1] && 32'(dw_off1) < DROWS;

  // The row is read and merged inside the clocked block, only on a hit: as combinational logic
  // (two 512-bit words, cleared when not hit) a C++ model re-evaluated it whenever the shared write
  // port changed, on every packet data beat of either interface's TX engine.
  always_ff @(posedge gclk) begin
    logic [511:0] w;
    if (dw_hit0) begin
      w = dmem0[DROW_W'(dw_off0)];
      for (int b = 0; b < 64; b++) begin
        if (ram_wr_cmd_be[b]) w[b*8 +: 8] = ram_wr_cmd_data[b*8 +: 8];
      end
      dmem0[DROW_W'(dw_off0)] <= w;
    end
    if (dw_hit1) begin
      w = dmem1[DROW_W'(dw_off1)];
      for (int b = 0; b < 64; b++) begin
        if (ram_wr_cmd_be[64 + b]) w[b*8 +: 8] = ram_wr_cmd_data[512 + b*8 +: 8];
      end
      dmem1[DROW_W'(dw_off1)] <= w;
    end
  end

  // ------------------------------------------------------------------ packet data RAM + checksum tap
  logic [2*PKT_ROW_W-1:0] pr_wr_addr;
  logic [1:0]             pr_wr_valid;
  logic [2*PKT_ROW_W-1:0] pr_rd_addr;
  logic [1:0]             pr_rd_valid;
  logic [1:0]             pr_rd_ready;
  logic [1023:0]          pr_rd_data;
  logic [1:0]             pr_rd_resp_valid;
  logic [1:0]             pr_wr_ready;

  assign ram_wr_cmd_ready = 2'b11;   // both RAMs take a write every cycle
  for (genvar s = 0; s < 2; s++) begin : g_wr
    assign pr_wr_addr[s*PKT_ROW_W +: PKT_ROW_W] = ram_wr_cmd_addr[s*SEG_ADDR_W +: PKT_ROW_W];
    assign pr_wr_valid[s] = ram_wr_cmd_valid[s] && !ram_wr_cmd_addr[s*SEG_ADDR_W + SEG_ADDR_W - 1];
  end

  beryl_dma_psdp_ram #(
    .SEG_COUNT  (2),
    .SEG_DATA_W (512),
    .SEG_BE_W   (64),
    .SIZE       (PKT_SLOTS * SLOT_BYTES)
  ) u_pkt_ram (
    .clk               (clk),
    .rst               (rst),
    .ram_wr_cmd_addr   (pr_wr_addr),
    .ram_wr_cmd_be     (ram_wr_cmd_be),
    .ram_wr_cmd_data   (ram_wr_cmd_data),
    .ram_wr_cmd_valid  (pr_wr_valid),
    .ram_wr_cmd_ready  (pr_wr_ready),
    .ram_rd_cmd_addr   (pr_rd_addr),
    .ram_rd_cmd_valid  (pr_rd_valid),
    .ram_rd_cmd_ready  (pr_rd_ready),
    .ram_rd_resp_data  (pr_rd_data),
    .ram_rd_resp_valid (pr_rd_resp_valid),
    .ram_rd_resp_ready (2'b11)
  );

  // Checksum while the DMA writes: each byte at slot offset o >= csum_start adds byte<<8 when
  // (o - csum_start) is even, else byte (RFC 1071 big-endian words). Order-independent. The bytes
  // that do not count (not enabled, or before csum_start) are zeroed, then the even and the odd
  // bytes are summed in 64-bit lanes of four 16-bit fields (each field's sum stays below 8 * 255:
  // no carry between fields). A segment whose bytes all count (all but a transfer's first and
  // last beats) skips the byte-by-byte zeroing; that test is redundant in hardware.
  logic [21:0]       tap_sum  [2];
  logic [SLOT_W-1:0] tap_slot [2];
  always_comb begin
    for (int s = 0; s < 2; s++) begin
      logic [PKT_ROW_W-1:0]  row;
      logic [SROW_W-1:0]     rin;
      logic [7:0]            cs;
      logic [7:0]            off;       // slot offset, meaningful below 256
      logic [511:0]          seg;
      logic [63:0]           lane, ev, od;
      logic [13:0]           ev_sum, od_sum;
      row = ram_wr_cmd_addr[s*SEG_ADDR_W +: PKT_ROW_W];
      tap_slot[s] = row[PKT_ROW_W-1 -: SLOT_W];
      rin = row[SROW_W-1:0];
      cs = p_cs_start_q[tap_slot[s]];
      tap_sum[s] = '0;
      off = '0;
      seg = '0;
      lane = '0;
      ev = '0;
      od = '0;
      ev_sum = '0;
      od_sum = '0;
      // only used with its write valid (acc_add); the test lets Verilator skip idle cycles
      if (ram_wr_cmd_valid[s]) begin
        seg = ram_wr_cmd_data[s*512 +: 512];
        if (!(&ram_wr_cmd_be[s*64 +: 64] && ((rin >> 1) != '0 || cs <= {rin[0], 1'(s), 6'd0}))) begin
          for (int b = 0; b < 64; b++) begin
            off = {rin[0], 1'(s), 6'(b)};
            if (!(ram_wr_cmd_be[s*64 + b] && ((rin >> 1) != '0 || off >= cs))) seg[b*8 +: 8] = 8'h00;
          end
        end
        for (int w = 0; w < 8; w++) begin
          lane = seg[w*64 +: 64];
          ev = ev + (lane & 64'h00ff_00ff_00ff_00ff);
          od = od + ((lane >> 8) & 64'h00ff_00ff_00ff_00ff);
        end
        ev_sum = 14'(ev[15:0]) + 14'(ev[31:16]) + 14'(ev[47:32]) + 14'(ev[63:48]);
        od_sum = 14'(od[15:0]) + 14'(od[31:16]) + 14'(od[47:32]) + 14'(od[63:48]);
        // even bytes sit at even offsets: they are the high bytes of the words when cs is even
        if (cs[0]) tap_sum[s] = 22'({od_sum, 8'h00}) + 22'(ev_sum);
        else tap_sum[s] = 22'({ev_sum, 8'h00}) + 22'(od_sum);
      end
    end
  end

  // ------------------------------------------------------------------ DMA status decode
  logic              st_desc, st_data, st_err;
  logic [BS_W-1:0]   st_b;
  logic [SLOT_W-1:0] st_slot;
  assign st_desc = rd_desc_status_valid && rd_desc_status_tag[TAG_W-1];
  assign st_data = rd_desc_status_valid && !rd_desc_status_tag[TAG_W-1];
  assign st_err  = rd_desc_status_error != 4'd0;
  assign st_b    = rd_desc_status_tag[BS_W-1:0];
  assign st_slot = rd_desc_status_tag[SLOT_W-1:0];

  // the lowest batch slot whose failed fetch waits for a retry; issued when no new fetch waits
  logic            rty_any, rty_go;
  logic [BS_W-1:0] rty_b;
  assign rty_any = b_rty_q != '0;
  // the scan runs only with a retry waiting (the C++ model evaluates it in no other cycle)
  always_comb begin
    rty_b = '0;
    if (rty_any) begin
      for (int b = BATCH_SLOTS - 1; b >= 0; b--) begin
        if (b_rty_q[b]) rty_b = BS_W'(b);
      end
    end
  end

  // ------------------------------------------------------------------ QM op port / command intake
  localparam logic [1:0] OP_IDLE = 2'd0, OP_REQ = 2'd1, OP_RSP = 2'd2;
  localparam logic [2:0] W_IDLE = 3'd0, W_DESC = 3'd1, W_CONT = 3'd2, W_CONTWAIT = 3'd3,
                         W_ERRCPL = 3'd4, W_STS = 3'd5;
  logic [1:0]        op_st_q;
  logic              op_who_q;          // 1: continuation for the walker
  logic [QI_W-1:0]   op_qidx_q;
  logic [PSEL_W-1:0] cmd_port_q;
  logic              fsts_pend_q;       // immediate status of a refused command
  logic [1:0]        fsts_res_q;
  logic [QI_W-1:0]   fsts_qidx_q;
  logic [PSEL_W-1:0] fsts_port_q;
  logic              fq_valid_q;        // descriptor fetch waiting for the DMA channel
  logic [BS_W-1:0]   fq_b_q;
  logic [63:0]       fq_addr_q;
  logic [CNT_W-1:0]  fq_cnt_q;
  logic [2:0]        w_st_q;
  logic [BS_W-1:0]   proc_q;            // batch slot being walked
  logic              rsp_fire, rsp_ok, cont_take, b_alloc, b_retire;

  assign rsp_fire  = op_rsp_valid && op_rsp_ready;
  assign rsp_ok    = op_rsp_status == beryl_nic_pkg::QM_OK && op_rsp_count != '0;
  assign cont_take = w_st_q == W_CONT && op_st_q == OP_IDLE;
  assign b_alloc   = rsp_fire && !op_who_q && rsp_ok;
  assign b_retire  = w_st_q == W_STS;

  assign tx_cmd_ready = op_st_q == OP_IDLE && w_st_q != W_CONT && !fsts_pend_q
                        && b_used_q < (BS_W + 1)'(BATCH_SLOTS);
  assign op_req_valid = op_st_q == OP_REQ;
  assign op_req_qidx  = op_qidx_q;
  assign op_req_count = CNT_W'(DESC_BATCH);
  assign op_rsp_ready = op_st_q == OP_RSP && !fq_valid_q;

  always_ff @(posedge gclk) begin
    case (op_st_q)
      OP_IDLE: begin
        if (cont_take) begin
          op_st_q   <= OP_REQ;
          op_who_q  <= 1'b1;
          op_qidx_q <= b_qidx_q[proc_q];
        end else if (tx_cmd_valid && tx_cmd_ready) begin
          op_st_q    <= OP_REQ;
          op_who_q   <= 1'b0;
          op_qidx_q  <= tx_cmd_qidx;
          cmd_port_q <= tx_cmd_port;
        end
      end
      OP_REQ: if (op_req_ready) op_st_q <= OP_RSP;
      default: if (rsp_fire) op_st_q <= OP_IDLE;
    endcase
    if (rsp_fire && !op_who_q && !rsp_ok) begin
      fsts_pend_q <= 1'b1;
      fsts_qidx_q <= op_qidx_q;
      fsts_port_q <= cmd_port_q;
      fsts_res_q  <= op_rsp_status == beryl_nic_pkg::QM_EMPTY ? beryl_nic_pkg::TXS_EMPTY
                                                               : beryl_nic_pkg::TXS_DISABLED;
    end else if (!b_retire) begin
      fsts_pend_q <= 1'b0;      // sent this cycle (the walker's status has priority)
    end
    if (rsp_fire && rsp_ok) begin
      fq_valid_q <= 1'b1;
      fq_b_q     <= op_who_q ? proc_q : b_wr_q;
      fq_addr_q  <= op_rsp_addr;
      fq_cnt_q   <= op_rsp_count;
    end else if (fq_valid_q && (!rd_desc_valid || rd_desc_ready)) begin
      fq_valid_q <= 1'b0;
    end
    if (b_alloc) b_wr_q <= (b_wr_q == BS_W'(BATCH_SLOTS - 1)) ? '0 : b_wr_q + 1'b1;
    b_used_q <= b_used_q + (BS_W + 1)'(b_alloc) - (BS_W + 1)'(b_retire);
    if (rst) begin
      op_st_q     <= OP_IDLE;
      fsts_pend_q <= 1'b0;
      fq_valid_q  <= 1'b0;
      b_wr_q      <= '0;
      b_used_q    <= '0;
    end
  end

  // ------------------------------------------------------------------ descriptor walker
  logic [CNT_W-1:0]  w_di_q;
  logic              w_open_q;
  logic [SLOT_W-1:0] w_slot_q;
  logic [SLEN_W-1:0] w_len_q;
  logic [ND_W-1:0]   w_nd_q;
  logic              w_bad_q;
  logic [9:0]        w_cs_end_q;        // csum_start + csum_offset + 2 of the open packet (up to 512)
  logic              w_cs_en_q;
  logic [7:0]        w_pkts_q;
  logic [31:0]       w_bytes_q;
  logic              w_ferr_q;          // a descriptor fetch of this command failed
  // Resync after a failed fetch: the engine never saw that batch's descriptors, so the batch after it
  // may start inside a packet. The walker fetches the queue's next descriptors into the same batch slot
  // (a continuation) and skips every descriptor up to and including the first without MORE as one
  // packet that completes with CPL_DMA_ERR (no data read, nothing sent); the rest of that batch is
  // walked as usual. If the failed batch ended on a packet boundary, the skipped packet was a whole
  // good one: it is dropped with CPL_DMA_ERR (never sent as garbage). Nothing more posted: no resync.
  logic              w_rs_q;

  beryl_nic_pkg::tx_desc_t d;
  logic [DENT_W-1:0] d_idx;
  logic              w_go, w_alloc, w_dma, w_close, w_bad_now, w_last_di, w_more;
  logic [SLOT_W-1:0] w_slot;
  logic [31:0]       w_sum;
  logic [9:0]        w_cs_end;
  logic              w_cs_en, w_cs_bad, w_pkt_good;
  logic              rd_load;
  logic              w_cpl_push, s_cpl_push;
  logic [$clog2(CPLQ_DEPTH):0] cq_cnt_q;

  assign d_idx     = DENT_W'(proc_q) * DENT_W'(DESC_BATCH) + DENT_W'(w_di_q);
  // the descriptor is read only while the walker is on one (every use below is qualified by W_DESC),
  // so the C++ simulator does no wide part-select on the other cycles
  always_comb begin
    d = '0;
    if (w_st_q == W_DESC) begin
      d = ((32'(d_idx) / 4) % 2 == 1) ? dmem1[DROW_W'(32'(d_idx) / 8)][(32'(d_idx) % 4) * 128 +: 128]
                                      : dmem0[DROW_W'(32'(d_idx) / 8)][(32'(d_idx) % 4) * 128 +: 128];
    end
  end
  assign w_more    = d.flags[beryl_nic_pkg::TX_DESC_FLAG_MORE];
  assign w_slot    = w_open_q ? w_slot_q : p_alloc_q;
  assign w_sum     = 32'(w_open_q ? w_len_q : '0) + d.len;
  assign w_bad_now = !w_rs_q && ((w_open_q ? w_bad_q : 32'(b_aux_q[proc_q]) >= PORT_COUNT)
                     || d.len == 32'd0 || d.len > 32'(SLOT_BYTES) || w_sum > 32'(SLOT_BYTES)
                     || (w_open_q && 32'(w_nd_q) >= 32'(MAX_DESC_PER_PKT)));
  assign w_cs_en   = w_open_q ? w_cs_en_q : d.flags[beryl_nic_pkg::TX_DESC_FLAG_CSUM];
  assign w_cs_end  = w_open_q ? w_cs_end_q : 10'(d.csum_start) + 10'(d.csum_offset) + 10'd2;
  assign w_cs_bad  = !w_rs_q && w_cs_en && 32'(w_cs_end) > w_sum;
  assign rd_load   = !rd_desc_valid || rd_desc_ready;
  assign rty_go    = rd_load && !fq_valid_q && rty_any;
  assign w_dma     = w_st_q == W_DESC && !w_bad_now && !w_rs_q;
  assign w_go      = w_st_q == W_DESC && (w_open_q || p_used_q != (SLOT_W + 1)'(PKT_SLOTS))
                     && (!w_dma || (rd_load && !fq_valid_q && !rty_any && !rr_act_q));
  assign w_alloc   = w_go && !w_open_q;
  assign w_close   = w_go && !w_more;
  assign w_last_di = w_di_q + 1'b1 == b_cnt_q[proc_q];
  assign w_pkt_good = !w_bad_now && !w_cs_bad;

  always_ff @(posedge gclk) begin
    case (w_st_q)
      W_IDLE: begin
        if (b_state_q[proc_q] == B_READY) begin
          w_st_q <= W_DESC;
          w_di_q <= '0;
        end else if (b_state_q[proc_q] == B_ERR) begin
          w_st_q   <= W_ERRCPL;
          w_di_q   <= '0;
          w_ferr_q <= 1'b1;
          w_open_q <= 1'b0;     // an open packet is closed with its err flag (below)
        end
      end
      W_DESC: begin
        if (w_go) begin
          w_di_q   <= w_di_q + 1'b1;
          w_open_q <= w_more;
          w_slot_q <= w_slot;
          w_len_q  <= SLEN_W'(w_sum);
          w_bad_q  <= w_bad_now;
          w_nd_q   <= w_open_q ? w_nd_q + 1'b1 : ND_W'(1);
          w_cs_en_q  <= w_cs_en;
          w_cs_end_q <= w_cs_end;
          if (w_rs_q && w_close) w_rs_q <= 1'b0;    // the skipped packet ends here
          if (w_close && w_pkt_good && !w_rs_q) begin
            w_pkts_q  <= w_pkts_q + 1'b1;
            w_bytes_q <= w_bytes_q + w_sum;
          end
          if (w_last_di) w_st_q <= w_more ? W_CONT : W_STS;
        end
      end
      W_CONT: if (cont_take) w_st_q <= W_CONTWAIT;
      W_CONTWAIT: begin
        if (rsp_fire) begin
          w_st_q <= rsp_ok ? W_IDLE : W_STS;
          if (!rsp_ok) begin
            w_open_q <= 1'b0;
            w_rs_q   <= 1'b0;
          end
        end
      end
      W_ERRCPL: begin
        if (w_cpl_push) begin
          w_di_q <= w_di_q + 1'b1;
          if (w_last_di) begin
            w_st_q <= W_CONT;     // resync: fetch what follows the failed batch
            w_rs_q <= 1'b1;
          end
        end
      end
      default: begin    // W_STS
        w_st_q    <= W_IDLE;
        w_pkts_q  <= '0;
        w_bytes_q <= '0;
        w_ferr_q  <= 1'b0;
        w_rs_q    <= 1'b0;
        proc_q    <= (proc_q == BS_W'(BATCH_SLOTS - 1)) ? '0 : proc_q + 1'b1;
      end
    endcase
    if (rst) begin
      w_st_q    <= W_IDLE;
      w_open_q  <= 1'b0;
      w_pkts_q  <= '0;
      w_bytes_q <= '0;
      w_ferr_q  <= 1'b0;
      w_rs_q    <= 1'b0;
      proc_q    <= '0;
    end
  end

  // batch slot state, written at the slot each event names (no loop over the slots: Verilator
  // keeps and tests a pending-write flag per slot and array); a later write to one slot wins
  always_ff @(posedge gclk) begin
    if (b_alloc) begin
      b_state_q[b_wr_q] <= B_FETCH;
      b_qidx_q[b_wr_q]  <= op_qidx_q;
      b_sport_q[b_wr_q] <= cmd_port_q;
      b_ptr_q[b_wr_q]   <= op_rsp_ptr;
      b_cnt_q[b_wr_q]   <= op_rsp_count;
      b_cq_q[b_wr_q]    <= op_rsp_target[15:0];
      b_aux_q[b_wr_q]   <= op_rsp_aux;
      b_empty_q[b_wr_q] <= op_rsp_empty;
    end
    if (rsp_fire && op_who_q) begin
      b_empty_q[proc_q] <= rsp_ok ? op_rsp_empty : op_rsp_status == beryl_nic_pkg::QM_EMPTY;
      if (rsp_ok) begin
        b_state_q[proc_q] <= B_FETCH;
        b_ptr_q[proc_q]   <= op_rsp_ptr;
        b_cnt_q[proc_q]   <= op_rsp_count;
      end
    end
    if (rsp_fire && rsp_ok) begin
      b_addr_q[op_who_q ? proc_q : b_wr_q] <= op_rsp_addr;
      b_try_q[op_who_q ? proc_q : b_wr_q]  <= '0;
    end
    if (rty_go) b_rty_q[rty_b] <= 1'b0;
    // a failed fetch with retries left is issued again (the slot stays B_FETCH meanwhile)
    if (st_desc) begin
      if (st_err && b_try_q[st_b] != 3'(DESC_RETRIES)) begin     // it counts up to DESC_RETRIES
        b_rty_q[st_b] <= 1'b1;
        b_try_q[st_b] <= b_try_q[st_b] + 1'b1;
      end else begin
        b_state_q[st_b] <= st_err ? B_ERR : B_READY;
      end
    end
    if (b_retire) b_state_q[proc_q] <= B_FREE;
    if (rst) begin
      for (int b = 0; b < BATCH_SLOTS; b++) b_state_q[b] <= B_FREE;
      b_rty_q <= '0;
    end
  end

  // ------------------------------------------------------------------ data read retries
  // Each data read the walker issues is recorded (host address, length) per packet slot and descriptor.
  // A failed data read marks its packet (p_rty_q). When that packet is the next to stream, closed, with
  // no read in flight, and DATA_RETRIES rounds are not used up, the re-reader issues all of its reads
  // again in order (the failed read's data may be partly written, and the checksum taps add every byte
  // written, so the sum starts from 0 and every byte is read once more). A packet that still fails, or
  // was bad or cut short anyway, completes with CPL_DMA_ERR.
  localparam int REC_N = PKT_SLOTS * MAX_DESC_PER_PKT;
  localparam int REC_W = (REC_N > 1) ? $clog2(REC_N) : 1;
  logic [64+SLEN_W-1:0] rec_mem [REC_N];
  logic [REC_W-1:0]     rec_wa, rec_ra;
  logic [64+SLEN_W-1:0] rr_rec;
  logic                 rr_act_q, rr_elig, rr_start, rr_go;
  logic [SLOT_W-1:0]    rr_slot_q;
  logic [ND_W-1:0]      rr_i_q;
  logic [SLEN_W-1:0]    rr_off_q;

  assign rec_wa   = REC_W'(32'(w_slot) * MAX_DESC_PER_PKT + 32'(w_open_q ? w_nd_q : '0));
  assign rec_ra   = REC_W'(32'(rr_slot_q) * MAX_DESC_PER_PKT + 32'(rr_i_q));
  assign rr_elig  = p_rty_q[p_tx_q] && !p_bad_q[p_tx_q] && !p_err_q[p_tx_q] && p_try_q[p_tx_q] != 3'(DATA_RETRIES);
  assign rr_start = !rr_act_q && rr_elig && p_closed_q[p_tx_q] && p_pend_q[p_tx_q*PEND_W +: PEND_W] == '0;
  assign rr_go    = rr_act_q && rd_load && !fq_valid_q && !rty_any;
  // a data read issued (re-reader or walker) and the packet slot it is for
  logic              di_fire;
  logic [SLOT_W-1:0] di_slot;
  assign di_fire  = rr_go || (w_dma && w_go);
  assign di_slot  = rr_go ? rr_slot_q : w_slot;
  // read only while re-reading, so the C++ simulator does no wide copy on the other cycles
  always_comb begin
    rr_rec = '0;
    if (rr_act_q) rr_rec = rec_mem[rec_ra];
  end

  always_ff @(posedge gclk) begin
    if (w_dma && w_go) rec_mem[rec_wa] <= {d.addr, SLEN_W'(d.len)};
  end

  always_ff @(posedge gclk) begin
    if (rr_start) begin
      rr_act_q  <= 1'b1;
      rr_slot_q <= p_tx_q;
      rr_i_q    <= '0;
      rr_off_q  <= '0;
      data_retry_count <= data_retry_count + 1'b1;
    end
    if (rr_go) begin
      rr_i_q   <= rr_i_q + 1'b1;
      rr_off_q <= rr_off_q + rr_rec[SLEN_W-1:0];
      if (rr_i_q + 1'b1 == p_nd_q[rr_slot_q]) rr_act_q <= 1'b0;
    end
    if (rst) begin
      rr_act_q         <= 1'b0;
      data_retry_count <= '0;
    end
  end

  // DMA descriptor output: batch fetches first, then retries of failed fetches, then packet data
  // (a packet's reads issued again before the walker's)
  logic [BS_W-1:0] f_b;
  assign f_b = fq_valid_q ? fq_b_q : rty_b;
  always_ff @(posedge gclk) begin
    if (rd_load) begin
      rd_desc_valid <= fq_valid_q || rty_any || rr_act_q || w_dma && w_go;
    end
    // the descriptor loads only with its valid (the DMA mux reads it only then), so idle cycles change nothing
    if (rd_load && (fq_valid_q || rty_any || rr_act_q || w_dma && w_go)) begin
      if (fq_valid_q || rty_any) begin
        rd_desc_host_addr <= fq_valid_q ? fq_addr_q : b_addr_q[rty_b];
        rd_desc_ram_addr  <= RAM_ADDR_W'(PKT_SLOTS * SLOT_BYTES)
                             + RAM_ADDR_W'(f_b) * RAM_ADDR_W'(DESC_BATCH * 16);
        rd_desc_len       <= LEN_W'(fq_valid_q ? fq_cnt_q : b_cnt_q[rty_b]) * LEN_W'(16);
        rd_desc_tag       <= {1'b1, (TAG_W - 1)'(f_b)};
      end else if (rr_act_q) begin
        rd_desc_host_addr <= rr_rec[SLEN_W +: 64];
        rd_desc_ram_addr  <= {1'b0, rr_slot_q, (RAM_ADDR_W - 1 - SLOT_W)'(rr_off_q)};
        rd_desc_len       <= LEN_W'(rr_rec[SLEN_W-1:0]);
        rd_desc_tag       <= {1'b0, (TAG_W - 1)'(rr_slot_q)};
      end else begin
        rd_desc_host_addr <= d.addr;
        rd_desc_ram_addr  <= {1'b0, w_slot, (RAM_ADDR_W - 1 - SLOT_W)'(w_open_q ? w_len_q : '0)};
        rd_desc_len       <= LEN_W'(d.len);
        rd_desc_tag       <= {1'b0, (TAG_W - 1)'(w_slot)};
      end
    end
    if (rty_go) desc_retry_count <= desc_retry_count + 1'b1;
    if (rst) begin
      rd_desc_valid    <= 1'b0;
      desc_retry_count <= '0;
    end
  end

  // status to the schedulers: the walker's retirement wins, a refused command waits a cycle
  always_ff @(posedge gclk) begin
    tx_sts_valid <= b_retire || fsts_pend_q;
    if (b_retire) begin
      tx_sts_port  <= b_sport_q[proc_q];
      tx_sts_qidx  <= b_qidx_q[proc_q];
      tx_sts_pkts  <= w_pkts_q;
      tx_sts_bytes <= w_bytes_q;
      tx_sts_result <= w_ferr_q ? beryl_nic_pkg::TXS_ERROR
                     : w_pkts_q == '0 ? beryl_nic_pkg::TXS_ERROR
                     : b_empty_q[proc_q] ? beryl_nic_pkg::TXS_EMPTY : beryl_nic_pkg::TXS_SENT;
    end else begin
      tx_sts_port   <= fsts_port_q;
      tx_sts_qidx   <= fsts_qidx_q;
      tx_sts_pkts   <= '0;
      tx_sts_bytes  <= '0;
      tx_sts_result <= fsts_res_q;
    end
    if (rst) tx_sts_valid <= 1'b0;
  end

  // ------------------------------------------------------------------ streamer
  logic              s_act_q;
  logic [BEAT_W-1:0] s_beat_q;
  logic [SLOT_W-1:0] s_slot_q;
  logic [SLEN_W-1:0] s_len_q;
  logic [PSEL_W-1:0] s_port_q;
  logic              s_drop_q;
  logic [7:0]        s_status_q;
  logic              s_cs_en_q;
  logic [8:0]        s_cs_pos_q;
  logic [15:0]       s_cs_val_q;

  logic              s_start, s_issue, s_last;
  logic [SLOT_W-1:0] v_slot;
  logic [BEAT_W-1:0] v_beat;
  logic [SLEN_W-1:0] v_len;
  logic [PSEL_W-1:0] v_port;
  logic              v_drop, v_cs_en;
  logic [7:0]        v_status;
  logic [8:0]        v_cs_pos;
  logic [9:0]        v_cs_pos1;
  logic [15:0]       v_cs_val;
  logic [16:0]       fold1;
  logic [15:0]       fold2;
  logic [2:0]        f_cnt_q;
  logic              s1_valid_q;
  logic [SLEN_W-1:0] v_lastb;

  assign s_start  = !s_act_q && p_closed_q[p_tx_q] && p_pend_q[p_tx_q*PEND_W +: PEND_W] == '0
                    && !rr_elig && !rr_act_q;     // not while its data is to be read again
  assign s_issue  = (s_act_q || s_start) && (32'(f_cnt_q) + 32'(s1_valid_q) < FIFO_DEPTH);
  assign fold1    = 17'(p_acc_q[p_tx_q][31:16]) + 17'(p_acc_q[p_tx_q][15:0]);
  assign fold2    = fold1[15:0] + 16'(fold1[16]);
  assign v_slot   = s_act_q ? s_slot_q : p_tx_q;
  assign v_beat   = s_act_q ? s_beat_q : '0;
  assign v_len    = s_act_q ? s_len_q : p_len_q[p_tx_q];
  assign v_port   = s_act_q ? s_port_q : PSEL_W'(p_port_q[p_tx_q]);
  assign v_drop   = s_act_q ? s_drop_q : p_bad_q[p_tx_q] || p_err_q[p_tx_q] || p_rty_q[p_tx_q];
  assign v_status = s_act_q ? s_status_q
                  : p_bad_q[p_tx_q] ? beryl_nic_pkg::CPL_BAD_DESC
                  : (p_err_q[p_tx_q] || p_rty_q[p_tx_q]) ? beryl_nic_pkg::CPL_DMA_ERR : beryl_nic_pkg::CPL_OK;
  assign v_cs_en  = s_act_q ? s_cs_en_q : p_cs_en_q[p_tx_q];
  assign v_cs_pos = s_act_q ? s_cs_pos_q : p_cs_pos_q[p_tx_q];
  // a result of 0 is written as 0xffff: RFC 768 reserves 0 for "no UDP checksum", and for every other
  // Internet checksum the two are the same ones'-complement value (Linux's skb_checksum_help does the same)
  assign v_cs_val = s_act_q ? s_cs_val_q : (fold2 == 16'hffff) ? 16'hffff : ~fold2;
  assign v_cs_pos1 = 10'(v_cs_pos) + 10'd1;
  assign v_lastb  = (v_len - 1'b1) >> 6;
  assign s_last   = v_drop || SLEN_W'(v_beat) == v_lastb;

  for (genvar s = 0; s < 2; s++) begin : g_rd
    assign pr_rd_addr[s*PKT_ROW_W +: PKT_ROW_W] = {v_slot, (SROW_W)'(v_beat >> 1)};
    assign pr_rd_valid[s] = s_issue && !v_drop && v_beat[0] == 1'(s);
  end

  // stage 1: the RAM answers one cycle after the read
  logic              s1_seg_q, s1_last_q, s1_drop_q, s1_hi_q, s1_lo_q;
  logic [63:0]       s1_keep_q;
  logic [PSEL_W-1:0] s1_port_q;
  logic [7:0]        s1_status_q;
  logic [5:0]        s1_hi_lane_q, s1_lo_lane_q;
  logic [15:0]       s1_cs_val_q;

  always_ff @(posedge gclk_s) begin
    s1_valid_q <= s_issue;
    if (s_issue) begin
      s1_seg_q    <= v_beat[0];
      s1_last_q   <= s_last;
      s1_drop_q   <= v_drop;
      s1_port_q   <= v_port;
      s1_status_q <= v_status;
      s1_keep_q   <= (s_last && v_len[5:0] != 6'd0) ? ~(64'hffff_ffff_ffff_ffff << v_len[5:0]) : '1;
      s1_hi_q     <= v_cs_en && 32'(v_cs_pos[8:6]) == 32'(v_beat);
      s1_lo_q     <= v_cs_en && 32'(v_cs_pos1[9:6]) == 32'(v_beat);
      s1_hi_lane_q <= v_cs_pos[5:0];
      s1_lo_lane_q <= v_cs_pos1[5:0];
      s1_cs_val_q <= v_cs_val;
    end
    if (s_issue) begin
      s_act_q    <= !s_last;
      s_beat_q   <= v_beat + 1'b1;
      s_slot_q   <= v_slot;
      s_len_q    <= v_len;
      s_port_q   <= v_port;
      s_drop_q   <= v_drop;
      s_status_q <= v_status;
      s_cs_en_q  <= v_cs_en;
      s_cs_pos_q <= v_cs_pos;
      s_cs_val_q <= v_cs_val;
    end
    if (s_issue && s_start) p_tx_q <= p_tx_q + 1'b1;
    if (rst) begin
      s1_valid_q <= 1'b0;
      s_act_q    <= 1'b0;
      p_tx_q     <= '0;
    end
  end

  // checksum insertion (the 2 bytes may straddle beats) and the output FIFO
  logic [511:0]      s1_data;
  always_comb begin
    s1_data = pr_rd_data[s1_seg_q * 512 +: 512];
    if (s1_hi_q) s1_data[s1_hi_lane_q * 8 +: 8] = s1_cs_val_q[15:8];
    if (s1_lo_q) s1_data[s1_lo_lane_q * 8 +: 8] = s1_cs_val_q[7:0];
  end

  logic [511:0]      f_data_q   [FIFO_DEPTH];
  logic [63:0]       f_keep_q   [FIFO_DEPTH];
  logic [PSEL_W-1:0] f_port_q   [FIFO_DEPTH];
  logic [7:0]        f_status_q [FIFO_DEPTH];
  logic [FIFO_DEPTH-1:0] f_last_q, f_drop_q;
  logic [1:0]        f_wr_q, f_rd_q;
  logic              f_pop, h_valid, h_last, h_drop, h_first, cpl_space;
  logic [PSEL_W-1:0] h_port, h_wport;
  logic              s_mid_q;     // a packet's first beat has left, its last not yet
  logic [TS_TAG_W-1:0] s_tag_q;   // ... and its tag
  logic [TS_TAG_W-1:0] h_tag;
  logic [PORT_COUNT-1:0] wq_space, wq_alloc, wq_close, wq_empty;
  logic [PORT_COUNT*TS_TAG_W-1:0] wq_tag;

  assign h_valid   = f_cnt_q != '0;
  assign h_last    = f_last_q[f_rd_q];
  assign h_drop    = f_drop_q[f_rd_q];
  assign h_port    = f_port_q[f_rd_q];
  assign h_first   = !s_mid_q;
  // the completion waits in its port's FIFO; a packet refused for a bad port completes through port 0's
  assign h_wport   = (32'(h_port) < PORT_COUNT) ? h_port : '0;
  assign h_tag     = s_mid_q ? s_tag_q : wq_tag[h_wport*TS_TAG_W +: TS_TAG_W];
  assign cpl_space = 32'(cq_cnt_q) < CPLQ_DEPTH;
  // One streamer feeds all ports in packet-slot order: a stalled port blocks the others at the head
  // of this FIFO (head-of-line blocking, accepted for now); fetching and DMA go on until slots run out.
  // A first beat (and a dropped packet) leaves only when its port's completion FIFO has room (state only,
  // never ready).
  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_port
    assign m_axis_tx_tdata[p*512 +: 512] = f_data_q[f_rd_q];
    assign m_axis_tx_tkeep[p*64 +: 64]   = f_keep_q[f_rd_q];
    assign m_axis_tx_tlast[p]            = h_last;
    assign m_axis_tx_tvalid[p]           = h_valid && !h_drop && 32'(h_port) == p && (s_mid_q || wq_space[p]);
    // the head beat belongs to the oldest packet slot not yet completed (slots leave in order)
    assign m_axis_tx_len[p*16 +: 16]     = 16'(p_len_q[p_free_q]);
    assign m_axis_tx_qidx[p*QI_W +: QI_W] = p_qidx_q[p_free_q];
    assign m_axis_tx_tag[p*TS_TAG_W +: TS_TAG_W] = h_tag;
    assign wq_alloc[p] = f_pop && h_first && h_wport == PSEL_W'(p);
    assign wq_close[p] = f_pop && s_mid_q && h_last && h_wport == PSEL_W'(p);
  end
  assign f_pop = h_valid && (h_drop ? wq_space[h_wport]
                                    : (m_axis_tx_tready[h_port] && (s_mid_q || wq_space[h_wport])));
  assign s_cpl_push = f_pop && h_last;    // the packet slot is free

  always_ff @(posedge gclk_s) begin
    if (f_pop) begin
      s_mid_q <= !h_last;
      s_tag_q <= h_tag;
    end
    if (rst) s_mid_q <= 1'b0;
  end

  always_ff @(posedge gclk_s) begin
    if (s1_valid_q) begin
      f_data_q[f_wr_q]   <= s1_data;
      f_keep_q[f_wr_q]   <= s1_keep_q;
      f_port_q[f_wr_q]   <= s1_port_q;
      f_status_q[f_wr_q] <= s1_status_q;
      f_last_q[f_wr_q]   <= s1_last_q;
      f_drop_q[f_wr_q]   <= s1_drop_q;
      f_wr_q <= f_wr_q + 1'b1;
    end
    if (f_pop) f_rd_q <= f_rd_q + 1'b1;
    f_cnt_q <= f_cnt_q + 3'(s1_valid_q) - 3'(f_pop);
    if (rst) begin
      f_wr_q  <= '0;
      f_rd_q  <= '0;
      f_cnt_q <= '0;
    end
  end

  // ------------------------------------------------------------------ packet slot state
  // Each event writes the slot it names (no loop over the slots: Verilator would keep and test a
  // pending-write flag per slot and per array every cycle). Statement order is the priority: a
  // later write to the same slot wins (allocation clears the sum a tap adds in the same cycle: both
  // in the checksum block below).
  // The checksum sums have a gate of their own (gclk_t): the taps move them with every packet data
  // beat the DMA writes, the rest of the packet state only per descriptor, DMA status and packet.
  always_ff @(posedge gclk_t) begin
    // checksum taps; both segments may write one slot
    if (pr_wr_valid[0]) begin
      p_acc_q[tap_slot[0]] <= p_acc_q[tap_slot[0]] + 32'(23'(tap_sum[0])
                              + 23'((pr_wr_valid[1] && tap_slot[1] == tap_slot[0]) ? tap_sum[1] : '0));
    end
    if (pr_wr_valid[1] && !(pr_wr_valid[0] && tap_slot[0] == tap_slot[1])) begin
      p_acc_q[tap_slot[1]] <= p_acc_q[tap_slot[1]] + 32'(tap_sum[1]);
    end
    // a round of reads again, or the slot allocated: the sum starts afresh (after the taps: a later
    // write to the same slot wins)
    if (rr_start) p_acc_q[p_tx_q] <= '0;
    if (w_alloc) p_acc_q[w_slot] <= '0;
  end

  always_ff @(posedge gclk) begin
    // data DMAs in flight: one issued, one finished (the same slot: unchanged)
    if (di_fire) begin
      p_pend_q[di_slot*PEND_W +: PEND_W] <= p_pend_q[di_slot*PEND_W +: PEND_W] + PEND_W'(1)
                                            - PEND_W'(st_data && st_slot == di_slot);
    end
    if (st_data && !(di_fire && di_slot == st_slot)) begin
      p_pend_q[st_slot*PEND_W +: PEND_W] <= p_pend_q[st_slot*PEND_W +: PEND_W] - PEND_W'(1);
    end
    if (st_data && st_err) p_rty_q[st_slot] <= 1'b1;
    // a round of reads again (no read of the packet is in flight; its sum is cleared above)
    if (rr_start) begin
      p_rty_q[p_tx_q] <= 1'b0;
      p_try_q[p_tx_q] <= p_try_q[p_tx_q] + 1'b1;
    end
    if (w_alloc) begin
      p_err_q[w_slot]      <= 1'b0;
      p_rty_q[w_slot]      <= 1'b0;
      p_try_q[w_slot]      <= '0;
      p_qidx_q[w_slot]     <= b_qidx_q[proc_q];
      p_index_q[w_slot]    <= b_ptr_q[proc_q] + 16'(w_di_q);
      p_cq_q[w_slot]       <= b_cq_q[proc_q];
      p_port_q[w_slot]     <= b_aux_q[proc_q];
      p_cs_start_q[w_slot] <= d.csum_start;
    end
    if (w_go && w_rs_q) p_err_q[w_slot] <= 1'b1;     // a packet skipped by a resync
    if (w_close) begin
      p_closed_q[w_slot] <= 1'b1;
      p_len_q[w_slot]    <= SLEN_W'(w_sum);
      p_nd_q[w_slot]     <= w_open_q ? w_nd_q + 1'b1 : ND_W'(1);
      p_bad_q[w_slot]    <= w_bad_now || w_cs_bad;
      p_cs_en_q[w_slot]  <= w_cs_en;
      p_cs_pos_q[w_slot] <= 9'(w_cs_end - 10'd2);
    end
    // an open packet cut short: by a refused continuation (bad) or a failed fetch (DMA error)
    if (w_open_q) begin
      if (w_st_q == W_CONTWAIT && rsp_fire && !rsp_ok) begin
        p_closed_q[w_slot_q] <= 1'b1;
        p_bad_q[w_slot_q]    <= 1'b1;
        p_len_q[w_slot_q]    <= w_len_q;
      end
      if (w_st_q == W_IDLE && b_state_q[proc_q] == B_ERR) begin
        p_closed_q[w_slot_q] <= 1'b1;
        p_bad_q[w_slot_q]    <= w_bad_q;
        p_err_q[w_slot_q]    <= 1'b1;
        p_len_q[w_slot_q]    <= w_len_q;
      end
    end
    if (s_issue && s_start) p_closed_q[p_tx_q] <= 1'b0;
    if (rst) begin
      p_closed_q <= '0;
      p_pend_q   <= '0;
    end
    if (w_alloc) p_alloc_q <= p_alloc_q + 1'b1;
    if (s_cpl_push) p_free_q <= p_free_q + 1'b1;
    p_used_q <= p_used_q + (SLOT_W + 1)'(w_alloc) - (SLOT_W + 1)'(s_cpl_push);
    if (rst) begin
      p_alloc_q <= '0;
      p_free_q  <= '0;
      p_used_q  <= '0;
    end
  end

  // ------------------------------------------------------------------ completions, stats, counters
  logic [CPLE_W-1:0] cq_q [CPLQ_DEPTH];
  logic [$clog2(CPLQ_DEPTH)-1:0] cq_wr_q, cq_rd_q;
  logic [CPLE_W-1:0] c_ent;
  logic [QI_W-1:0]   c_queue;
  logic [15:0]       c_len;
  logic [7:0]        c_status, c_port;
  logic              c_push;

  // Per port, the completions of frames whose first beat has left wait for their timestamps
  // (beryl_nic_tx_ts_wait); one port's wait never holds back another port's completions.
  logic [WENT_W-1:0] a_ent;
  logic [7:0]        a_status;
  logic [PORT_COUNT*WENT_W-1:0] wq_head_ent;
  logic [PORT_COUNT*64-1:0]     wq_head_ts;
  logic [PORT_COUNT-1:0]        wq_head_valid, wq_pop;
  logic [PSEL_W-1:0] rel_last_q, rel_sel;
  logic              rel_any, rel_push;
  logic [WENT_W-1:0] r_ent;

  assign a_status = f_status_q[f_rd_q];
  assign a_ent    = {p_cq_q[p_free_q], p_qidx_q[p_free_q], p_index_q[p_free_q], p_port_q[p_free_q], a_status,
                     (a_status == beryl_nic_pkg::CPL_OK) ? 16'(p_len_q[p_free_q]) : 16'd0};

  // In order (TS_RET_ORDERED 1): a FIFO per port, completions in the port's frame order. Any order (TDMA
  // builds, whose gate parks frames): completions leave out of order, each queue's in ring order
  // (beryl_nic_tx_ts_wait_ooo, keyed by the TX queue), so a parked frame holds back only its own queue's.
  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_wq
    if (TS_RET_ORDERED != 0) begin : g_ord
      beryl_nic_tx_ts_wait #(
        .ENT_W    (WENT_W),
        .TAG_W    (TS_TAG_W),
        .DEPTH    (TS_WAIT_DEPTH),
        .RET_EN   (TS_RET_EN),
        .IN_ORDER (1)
      ) u_wait (
        .clk            (clk),
        .rst            (rst),
        .alloc_valid    (wq_alloc[p]),
        .alloc_ent      (a_ent),
        .alloc_need     (!h_drop),
        .alloc_ts       (h_drop ? 64'd0 : ptp_ts[p*64 +: 64]),
        .alloc_open     (!h_last),
        .alloc_space    (wq_space[p]),
        .alloc_tag      (wq_tag[p*TS_TAG_W +: TS_TAG_W]),
        .close_valid    (wq_close[p]),
        .ret_valid      (s_tx_ts_valid[p]),
        .ret_tag        (s_tx_ts_tag[p*TS_TAG_W +: TS_TAG_W]),
        .ret_ts         (s_tx_ts[p*64 +: 64]),
        .timeout        (ts_timeout),
        .head_valid     (wq_head_valid[p]),
        .head_ent       (wq_head_ent[p*WENT_W +: WENT_W]),
        .head_ts        (wq_head_ts[p*64 +: 64]),
        .head_pop       (wq_pop[p]),
        .empty          (wq_empty[p]),
        .mismatch_count (port_ts_mismatch_count[p*32 +: 32]),
        .timeout_count  (port_ts_timeout_count[p*32 +: 32]),
        .spurious_count (port_ts_spurious_count[p*32 +: 32])
      );
    end else begin : g_any
      beryl_nic_tx_ts_wait_ooo #(
        .ENT_W    (WENT_W),
        .KEY_W    (QI_W),
        .TAG_W    (TS_TAG_W),
        .DEPTH    (TS_WAIT_DEPTH),
        .RET_EN   (TS_RET_EN)
      ) u_wait (
        .clk            (clk),
        .rst            (rst),
        .alloc_valid    (wq_alloc[p]),
        .alloc_ent      (a_ent),
        .alloc_key      (p_qidx_q[p_free_q]),
        .alloc_need     (!h_drop),
        .alloc_ts       (h_drop ? 64'd0 : ptp_ts[p*64 +: 64]),
        .alloc_open     (!h_last),
        .alloc_space    (wq_space[p]),
        .alloc_tag      (wq_tag[p*TS_TAG_W +: TS_TAG_W]),
        .close_valid    (wq_close[p]),
        .ret_valid      (s_tx_ts_valid[p]),
        .ret_tag        (s_tx_ts_tag[p*TS_TAG_W +: TS_TAG_W]),
        .ret_ts         (s_tx_ts[p*64 +: 64]),
        .timeout        (ts_timeout),
        .head_valid     (wq_head_valid[p]),
        .head_ent       (wq_head_ent[p*WENT_W +: WENT_W]),
        .head_ts        (wq_head_ts[p*64 +: 64]),
        .head_pop       (wq_pop[p]),
        .empty          (wq_empty[p]),
        .mismatch_count (port_ts_mismatch_count[p*32 +: 32]),
        .timeout_count  (port_ts_timeout_count[p*32 +: 32]),
        .spurious_count (port_ts_spurious_count[p*32 +: 32])
      );
    end
  end

  // round robin among the ports' ready completions
  always_comb begin
    rel_sel = rel_last_q;
    rel_any = 1'b0;
    for (int k = 1; k <= PORT_COUNT; k++) begin
      if (!rel_any && wq_head_valid[(32'(rel_last_q) + 32'(k)) % PORT_COUNT]) begin
        rel_sel = PSEL_W'((32'(rel_last_q) + 32'(k)) % PORT_COUNT);
        rel_any = 1'b1;
      end
    end
  end
  assign rel_push = rel_any && cpl_space;
  always_comb begin
    wq_pop = '0;
    wq_pop[rel_sel] = rel_push;
  end
  always_ff @(posedge gclk) begin
    if (rel_push) rel_last_q <= rel_sel;
    if (rst) rel_last_q <= '0;
  end
  assign r_ent = wq_head_ent[rel_sel*WENT_W +: WENT_W];

  // a failed descriptor fetch completes its descriptors after every packet in flight (ring order)
  assign w_cpl_push = w_st_q == W_ERRCPL && cpl_space && !rel_any && p_used_q == '0 && wq_empty == '1;
  assign c_push     = rel_push || w_cpl_push;
  always_comb begin
    if (rel_push) begin
      c_queue  = r_ent[WENT_W-17 -: QI_W];
      c_status = r_ent[23:16];
      c_port   = r_ent[31:24];
      c_len    = r_ent[15:0];
      c_ent    = {r_ent[WENT_W-1 -: 16 + QI_W], wq_head_ts[rel_sel*64 +: 64], r_ent[47:0]};
    end else begin
      c_queue  = b_qidx_q[proc_q];
      c_status = beryl_nic_pkg::CPL_DMA_ERR;
      c_port   = b_aux_q[proc_q];
      c_len    = 16'd0;
      c_ent    = {b_cq_q[proc_q], c_queue, 64'd0, b_ptr_q[proc_q] + 16'(w_di_q), c_port, c_status, c_len};
    end
  end

  logic [CPLE_W-1:0] c_head;
  logic              c_pop;
  beryl_nic_pkg::cpl_t cpl_ent;
  assign c_head    = cq_q[cq_rd_q];
  assign cpl_valid = cq_cnt_q != '0;
  assign c_pop     = cpl_valid && cpl_ready;
  assign cpl_qidx  = c_head[CPLE_W-1 -: 16];
  always_comb begin
    cpl_ent           = '0;
    cpl_ent.queue     = 16'(c_head[CPLE_W-17 -: QI_W]);
    cpl_ent.timestamp = c_head[111:48];
    cpl_ent.index     = c_head[47:32];
    cpl_ent.port      = c_head[31:24];
    cpl_ent.status    = c_head[23:16];
    cpl_ent.len       = c_head[15:0];
  end
  assign cpl_data = cpl_ent;

  logic [31:0] port_pkt_q  [PORT_COUNT];
  logic [31:0] port_byte_q [PORT_COUNT];
  logic [31:0] port_drop_q [PORT_COUNT];
  logic        c_ok;
  assign c_ok = c_status == beryl_nic_pkg::CPL_OK;

  always_ff @(posedge gclk) begin
    if (c_push) begin
      cq_q[cq_wr_q] <= c_ent;
      cq_wr_q <= cq_wr_q + 1'b1;
    end
    if (c_pop) cq_rd_q <= cq_rd_q + 1'b1;
    cq_cnt_q <= cq_cnt_q + ($clog2(CPLQ_DEPTH) + 1)'(c_push) - ($clog2(CPLQ_DEPTH) + 1)'(c_pop);

    stat_valid <= c_push;
    // the stat fields load only with their valid (the stats RAM uses them only then)
    if (c_push) begin
      stat_qidx  <= c_queue;
      stat_bytes <= c_len;
      stat_drop  <= !c_ok;
      if (c_ok) begin
        pkt_count  <= pkt_count + 1'b1;
        byte_count <= byte_count + 32'(c_len);
      end
      if (c_status == beryl_nic_pkg::CPL_BAD_DESC) bad_desc_count <= bad_desc_count + 1'b1;
      if (c_status == beryl_nic_pkg::CPL_DMA_ERR) dma_err_count <= dma_err_count + 1'b1;
    end
    for (int p = 0; p < PORT_COUNT; p++) begin
      if (c_push && c_ok && 32'(c_port) == p) begin
        port_pkt_q[p]  <= port_pkt_q[p] + 1'b1;
        port_byte_q[p] <= port_byte_q[p] + 32'(c_len);
      end
      if (c_push && !c_ok && 32'(c_port) == p) port_drop_q[p] <= port_drop_q[p] + 1'b1;
      if (rst) begin
        port_pkt_q[p]  <= '0;
        port_byte_q[p] <= '0;
        port_drop_q[p] <= '0;
      end
    end
    if (rst) begin
      cq_wr_q        <= '0;
      cq_rd_q        <= '0;
      cq_cnt_q       <= '0;
      stat_valid     <= 1'b0;
      pkt_count      <= '0;
      byte_count     <= '0;
      bad_desc_count <= '0;
      dma_err_count  <= '0;
    end
  end

  for (genvar p = 0; p < PORT_COUNT; p++) begin : g_cnt
    assign port_pkt_count[p*32 +: 32]  = port_pkt_q[p];
    assign port_byte_count[p*32 +: 32] = port_byte_q[p];
    assign port_drop_count[p*32 +: 32] = port_drop_q[p];
  end

  // clock gate enable (see the clock gate above)
  // The terms the engine's own state decides are a variable of their own (kept in a Verilator model,
  // public_flat_rd), which a C++ model then re-evaluates only when that state changes, not whenever one
  // of the enable's inputs from other blocks does (sim/README.md, "Clock gates").
  logic busy_int /*verilator public_flat_rd*/;
  assign busy_int = op_st_q != OP_IDLE || fsts_pend_q || fq_valid_q || w_st_q != W_IDLE
                    || b_state_q[proc_q] == B_READY || b_state_q[proc_q] == B_ERR || rd_desc_valid || rty_any
                    || rr_act_q || rr_start || tx_sts_valid || stat_valid;
  // the streamer's beats reach the rest of the engine only as a packet's start (its slot no longer
  // closed) and its last beat leaving (the slot free)
  assign gate_en = rst || (tx_cmd_valid && tx_cmd_ready) || rd_desc_status_valid || dw_hit0 || dw_hit1
                   || (s_issue && s_start) || s_cpl_push || rel_push || c_pop || busy_int;
  // streamer: a beat read (s_issue) or in stage 1 (s1_valid_q follows s_issue, the FIFO count moves with
  // it and with f_pop), a beat leaving the FIFO
  assign gate_s_en = rst || s_issue || s1_valid_q || f_pop;
  // checksum sums: a packet data beat written (the taps), a slot allocated or read again (cleared)
  assign gate_t_en = pr_wr_valid != '0 || rr_start || w_alloc;

  // inputs the engine does not need: MODE 1 fields, the response's queue (responses are in order),
  // the RAM's always-high readies and its response valids (reads are scheduled by credit)
  logic unused;
  assign unused = ^{op_rsp_qidx, op_rsp_phase, op_rsp_armed, op_rsp_log_size, op_rsp_target[31:16],
                    pr_rd_ready, pr_rd_resp_valid, pr_wr_ready, d.flags[15:2]};

endmodule

`resetall
