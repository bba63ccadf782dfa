// SPDX-License-Identifier: MIT
// NIC receive engine: MAC frames (PORT_COUNT ports, round robin per frame) into frame slots at one beat
// per cycle with parse/RSS/checksum; then per frame, in order: descriptor from a prefetching per-queue
// cache (a miss waits for a QM op and a DMA read; a failed read is issued again up to RX_DESC_RETRIES
// times), DMA write, completion, statistics. SLOTS frames in flight.
`default_nettype none

module beryl_nic_rx_engine #(
  parameter int DATA_W          = 512,     // MAC stream width, bits: 512 only
  parameter int KEEP_W          = DATA_W / 8,
  parameter int PORT_COUNT      = 1,       // MAC ports, 1..8
  parameter int QI_W            = 8,       // RX queue index width, bits, 1..16
  parameter int SLOTS           = 32,      // frames in flight (frame slots), power of two, 2..256
  parameter int SLOT_BYTES      = 16384,   // bytes per slot = largest frame accepted, power of two, 128..32768
  parameter int RSS_TABLE_DEPTH = 256,     // RSS indirection entries, power of two, 128..65536
  parameter int DCACHE_ENTRIES  = 4,       // descriptor cache entries (RX queues cached), power of two, 1..16
  parameter int RX_DESC_BATCH   = 8,       // descriptors per fetch (QM op + DMA read), power of two, <= 2^(CNT_W-1)
  parameter int DCACHE_BATCHES  = 16,      // fetches buffered per entry (prefetch depth), power of two, 2..64
  // a failed descriptor read is issued again up to this many times before the frames that get its
  // descriptors complete with CPL_DMA_ERR (host memory reads have no side effects), 0..7
  parameter int RX_DESC_RETRIES = 2,
  parameter int CNT_W           = 4,       // queue-manager op count width, bits, >= log2(RX_DESC_BATCH)+1
  parameter int LEN_W           = 17,      // DMA length width, bits: 17 only
  parameter int TAG_W           = 8,       // DMA tag width, bits, >= log2(SLOTS), >= log2(entries*batches)
  parameter int SEG_COUNT       = 2,       // DMA RAM segments: 2 only
  parameter int SEG_DATA_W      = 512,     // DMA RAM segment width, bits: 512 only
  parameter int SEG_BE_W        = SEG_DATA_W / 8,
  parameter int RAM_ADDR_W      = $clog2(SLOTS * SLOT_BYTES) + 1,  // DMA region byte address width
  parameter int SEG_ADDR_W      = RAM_ADDR_W - 7,                  // DMA region row address width
  parameter int RSS_IDX_W       = $clog2(RSS_TABLE_DEPTH),
  parameter int PORT_W          = PORT_COUNT > 1 ? $clog2(PORT_COUNT) : 1
) (
  input  wire logic                            clk,
  input  wire logic                            rst,

  // frames from the MACs; tuser on the last beat: 1 = bad frame (dropped and counted)
  input  wire logic [PORT_COUNT*DATA_W-1:0]    s_axis_rx_tdata,
  input  wire logic [PORT_COUNT*KEEP_W-1:0]    s_axis_rx_tkeep,
  input  wire logic [PORT_COUNT-1:0]           s_axis_rx_tvalid,
  output logic [PORT_COUNT-1:0]                s_axis_rx_tready,
  input  wire logic [PORT_COUNT-1:0]           s_axis_rx_tlast,
  input  wire logic [PORT_COUNT-1:0]           s_axis_rx_tuser,
  // per port: PTP timestamp of the frame's start (docs/blocks/ptp.md format), valid with its first beat
  input  wire logic [PORT_COUNT*64-1:0]        s_axis_rx_ts,

  // RSS configuration
  input  wire logic                            rss_enable,      // 0: every frame to default_queue
  input  wire logic [QI_W-1:0]                 default_queue,   // also the queue of HASH_NONE frames
  input  wire logic [5:0]                      rss_hash_en,     // beryl_nic_pkg::HASH_EN_* bits
  input  wire logic                            rss_key_wr_en,
  input  wire logic [3:0]                      rss_key_wr_addr,
  input  wire logic [31:0]                     rss_key_wr_data,
  input  wire logic                            rss_tbl_wr_en,
  input  wire logic [RSS_IDX_W-1:0]            rss_tbl_wr_addr,
  input  wire logic [QI_W-1:0]                 rss_tbl_wr_data,

  // RX queue manager operation port (docs/blocks/nic_core.md, MODE 0)
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
  input  wire logic [31:0]                     op_rsp_target,

  // an RX queue's configuration was written: its cached descriptors are discarded (not completed)
  input  wire logic                            flush_valid,
  input  wire logic [QI_W-1:0]                 flush_qidx,

  // DMA read channel (descriptor fetch) and its RAM write port (upper half of the region)
  output logic [63:0]                          rd_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]                rd_desc_ram_addr,
  output logic [LEN_W-1:0]                     rd_desc_len,
  output logic [TAG_W-1:0]                     rd_desc_tag,
  output logic                                 rd_desc_valid,
  input  wire logic                            rd_desc_ready,
  input  wire logic [TAG_W-1:0]                rd_desc_status_tag,
  input  wire logic [3:0]                      rd_desc_status_error,
  input  wire logic                            rd_desc_status_valid,
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_wr_cmd_addr,
  input  wire logic [SEG_COUNT*SEG_BE_W-1:0]   ram_wr_cmd_be,
  input  wire logic [SEG_COUNT*SEG_DATA_W-1:0] ram_wr_cmd_data,
  input  wire logic [SEG_COUNT-1:0]            ram_wr_cmd_valid,
  output logic [SEG_COUNT-1:0]                 ram_wr_cmd_ready,

  // DMA write channel (frames to the host) and its RAM read port (lower half of the region)
  output logic [63:0]                          wr_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]                wr_desc_ram_addr,
  output logic [LEN_W-1:0]                     wr_desc_len,
  output logic [TAG_W-1:0]                     wr_desc_tag,
  output logic                                 wr_desc_valid,
  input  wire logic                            wr_desc_ready,
  input  wire logic [TAG_W-1:0]                wr_desc_status_tag,
  input  wire logic [3:0]                      wr_desc_status_error,
  input  wire logic                            wr_desc_status_valid,
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_rd_cmd_addr,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_cmd_valid,
  output logic [SEG_COUNT-1:0]                 ram_rd_cmd_ready,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]      ram_rd_resp_data,
  output logic [SEG_COUNT-1:0]                 ram_rd_resp_valid,
  input  wire logic [SEG_COUNT-1:0]            ram_rd_resp_ready,

  // completion requests to the CQ writer (cpl_qidx = the RX queue's target CQ)
  output logic                                 cpl_valid,
  input  wire logic                            cpl_ready,
  output logic [15:0]                          cpl_qidx,
  output logic [255:0]                         cpl_data,

  // per-queue statistics increments
  output logic                                 stat_valid,
  output logic [QI_W-1:0]                      stat_qidx,
  output logic [15:0]                          stat_bytes,
  output logic                                 stat_drop,

  // counters (free running, wrap)
  output logic [31:0]                          pkt_count,
  output logic [31:0]                          byte_count,
  output logic [31:0]                          drop_no_desc_count,
  output logic [31:0]                          drop_disabled_count,
  output logic [31:0]                          drop_too_long_count,
  output logic [31:0]                          drop_no_slot_count,
  output logic [31:0]                          drop_oversize_count,
  output logic [31:0]                          drop_mac_err_count,
  output logic [31:0]                          dma_err_count,
  output logic [31:0]                          desc_retry_count,  // descriptor reads issued again
  output logic [PORT_COUNT*32-1:0]             port_pkt_count,
  output logic [PORT_COUNT*32-1:0]             port_byte_count,
  output logic [PORT_COUNT*32-1:0]             port_drop_count   // frames of the port not delivered, any reason
);

  localparam int SLOT_W   = SLOTS > 1 ? $clog2(SLOTS) : 1;   // slot / ring index width
  localparam int OFF_W    = $clog2(SLOT_BYTES) + 1;          // byte offset inside a frame, saturating
  localparam int FRAME_RAM_BYTES = SLOTS * SLOT_BYTES;
  localparam int REC_DEPTH = 16;                             // frame records waiting for parse/csum
  localparam int CSF_DEPTH = 8;                              // checksums waiting for the RSS result

  if (DATA_W != 512 || SEG_COUNT != 2 || SEG_DATA_W != 512 || SEG_BE_W != 64 || LEN_W != 17) begin : g_chk1
    $error("%m: DATA_W, SEG_DATA_W must be 512, SEG_COUNT 2, SEG_BE_W 64, LEN_W 17");
  end
  if (PORT_COUNT < 1 || PORT_COUNT > 8 || QI_W < 1 || QI_W > 16 || CNT_W < 1) begin : g_chk2
    $error("%m: PORT_COUNT must be 1..8, QI_W 1..16, CNT_W >= 1");
  end
  if (SLOTS < 2 || SLOTS > 256 || (SLOTS & (SLOTS - 1)) != 0 || TAG_W < SLOT_W) begin : g_chk3
    $error("%m: SLOTS must be a power of two 2..256 and TAG_W >= log2(SLOTS)");
  end
  if (SLOT_BYTES < 128 || SLOT_BYTES > 32768 || (SLOT_BYTES & (SLOT_BYTES - 1)) != 0) begin : g_chk4
    $error("%m: SLOT_BYTES must be a power of two 128..32768");
  end
  if (RAM_ADDR_W != $clog2(SLOTS * SLOT_BYTES) + 1 || SEG_ADDR_W != RAM_ADDR_W - 7) begin : g_chk5
    $error("%m: RAM_ADDR_W must be log2(SLOTS*SLOT_BYTES)+1 and SEG_ADDR_W RAM_ADDR_W-7");
  end

  logic gclk;      // the engine's own flops (the clock gates are at the end); its sub-blocks run on clk
  logic gclk_in;   // the ingress state and the frame records (the block that takes the input beats)

  // =========================================================================================
  // Ingress: port arbiter (round robin at frame boundaries), slot allocation, frame RAM write
  // =========================================================================================
  logic [SLOTS-1:0]      busy_q;          // slot holds a frame
  logic [SLOTS-1:0]      busy_set, busy_clr;
  logic [SLOT_W-1:0]     free_slot;
  logic                  no_free;

  // the lowest free slot: its bit isolated (~busy & (busy + 1)), then encoded one index bit at a time
  // with constant masks (a priority loop over the slots cost a C++ model a test per slot per cycle)
  logic [SLOTS-1:0]      free_1h;
  assign no_free = &busy_q;
  assign free_1h = ~busy_q & (busy_q + 1'b1);

  function automatic logic [SLOTS-1:0] slot_bit_mask(input int b);   // slots whose index has bit b set
    for (int i = 0; i < SLOTS; i++) slot_bit_mask[i] = 1'((i >> b) & 1);
  endfunction
  for (genvar b = 0; b < SLOT_W; b++) begin : g_free_slot
    localparam logic [SLOTS-1:0] MASK = slot_bit_mask(b);
    assign free_slot[b] = |(free_1h & MASK);
  end

  logic                  in_frame_q;      // a frame of cur_port_q is being received
  logic [PORT_W-1:0]     cur_port_q;
  logic [PORT_W-1:0]     rr_q;            // first port looked at for the next frame
  logic                  drop_q;          // current frame dropped at ingress (no free slot)
  logic [SLOT_W-1:0]     slot_q;
  logic [OFF_W-1:0]      off_q;           // byte offset of the next beat (saturates at SLOT_BYTES)
  logic                  over_q;          // frame ran past SLOT_BYTES

  logic [PORT_W-1:0]     sel;
  logic                  sel_any;
  logic                  in_valid, in_last, in_user;
  logic [DATA_W-1:0]     in_data;
  logic [KEEP_W-1:0]     in_keep;
  logic                  in_drop;
  logic [SLOT_W-1:0]     in_slot;
  logic [OFF_W-1:0]      in_off;
  logic                  chain_ready;
  logic                  in_acc;
  logic [6:0]            keep_bytes;
  logic [OFF_W:0]        end_off;

  // port choice: the current frame's port, else the first port with a beat from rr_q on
  always_comb begin
    sel     = cur_port_q;
    sel_any = in_frame_q;
    if (!in_frame_q) begin
      for (int i = PORT_COUNT - 1; i >= 0; i--) begin
        if (s_axis_rx_tvalid[(32'(rr_q) + i) % PORT_COUNT]) begin
          sel     = PORT_W'((32'(rr_q) + i) % PORT_COUNT);
          sel_any = 1'b1;
        end
      end
    end
  end

  always_comb begin
    in_valid = sel_any && s_axis_rx_tvalid[sel];
    in_data  = s_axis_rx_tdata[sel*DATA_W +: DATA_W];
    in_keep  = s_axis_rx_tkeep[sel*KEEP_W +: KEEP_W];
    in_last  = s_axis_rx_tlast[sel];
    in_user  = s_axis_rx_tuser[sel];
    in_drop  = in_frame_q ? drop_q : no_free;
    in_slot  = in_frame_q ? slot_q : free_slot;
    in_off   = in_frame_q ? off_q : '0;
    keep_bytes = 7'($countones(in_keep));   // a population count, not a 64-step loop every cycle
    end_off = {1'b0, in_off} + (OFF_W + 1)'(keep_bytes);
  end

  // a frame without a slot bypasses the offload chain, so it never waits for it
  assign in_acc = in_valid && (in_drop || chain_ready);

  always_comb begin
    for (int i = 0; i < PORT_COUNT; i++) begin
      s_axis_rx_tready[i] = sel_any && PORT_W'(i) == sel && (in_drop || chain_ready);
    end
  end

  // frame record: written at the last beat, joined with the parse/RSS and checksum results
  logic [SLOT_W-1:0]     rec_slot [REC_DEPTH];
  logic [15:0]           rec_len  [REC_DEPTH];
  logic [PORT_W-1:0]     rec_port [REC_DEPTH];
  logic [63:0]           rec_ts   [REC_DEPTH];
  logic [63:0]           ts_q;       // timestamp of the frame being received (from its first beat)
  logic [63:0]           in_ts;
  logic [REC_DEPTH-1:0]  rec_err, rec_over;
  logic [4:0]            rec_wp_q, rec_rp_q;
  logic                  rec_push, rec_valid, rec_pop;
  logic                  frame_over;

  assign in_ts      = in_frame_q ? ts_q : s_axis_rx_ts[sel*64 +: 64];
  assign frame_over = (over_q && in_frame_q) || end_off > (OFF_W + 1)'(SLOT_BYTES);
  assign rec_push   = in_acc && !in_drop && in_last;
  assign rec_valid  = rec_wp_q != rec_rp_q;

  // frame RAM write port: one 64-byte segment per beat
  logic [SEG_COUNT*(SEG_ADDR_W-1)-1:0] fram_wr_addr;
  logic [SEG_COUNT-1:0]                fram_wr_valid;
  logic [$clog2(FRAME_RAM_BYTES)-1:0]  fram_byte;
  logic                                fram_wr_ok;
  logic [SEG_COUNT-1:0]                fram_wr_ready;   // always 1

  always_comb begin
    fram_byte     = $clog2(FRAME_RAM_BYTES)'(in_slot) * $clog2(FRAME_RAM_BYTES)'(SLOT_BYTES)
                    + $clog2(FRAME_RAM_BYTES)'(in_off);
    fram_wr_ok    = in_acc && !in_drop && in_off < OFF_W'(SLOT_BYTES);
    fram_wr_addr  = {SEG_COUNT{fram_byte[$clog2(FRAME_RAM_BYTES)-1:7]}};
    fram_wr_valid = '0;
    fram_wr_valid[fram_byte[6]] = fram_wr_ok;
  end

  // A frame is in flight between ingress and join while its checksum is pending in the checksum
  // block (at most 4) or in the checksum FIFO (CSF_DEPTH), so REC_DEPTH = 16 never overflows.
  // Clocked by a gate of its own (gclk_in, end of the module): it changes with every accepted beat,
  // the rest of the engine only with the first beat of a frame and per-frame work.
  always_ff @(posedge gclk_in) begin
    if (in_acc) begin
      if (in_last) begin
        in_frame_q <= 1'b0;
        rr_q       <= 32'(sel) == PORT_COUNT - 1 ? '0 : sel + PORT_W'(1);
      end else begin
        in_frame_q <= 1'b1;
      end
      cur_port_q <= sel;
      ts_q       <= in_ts;
      drop_q     <= in_drop;
      slot_q     <= in_slot;
      off_q      <= end_off > (OFF_W + 1)'(SLOT_BYTES) ? OFF_W'(SLOT_BYTES) : OFF_W'(end_off);
      over_q     <= frame_over;
    end
    if (rec_push) begin
      rec_slot[rec_wp_q[3:0]] <= in_slot;
      rec_len[rec_wp_q[3:0]]  <= 16'(end_off);
      rec_port[rec_wp_q[3:0]] <= sel;
      rec_ts[rec_wp_q[3:0]]   <= in_ts;
      rec_err[rec_wp_q[3:0]]  <= in_user;
      rec_over[rec_wp_q[3:0]] <= frame_over;
      rec_wp_q <= rec_wp_q + 5'd1;
    end
    if (rec_pop) begin
      rec_rp_q <= rec_rp_q + 5'd1;
    end
    if (rst) begin
      in_frame_q <= 1'b0;
      rr_q       <= '0;
      rec_wp_q   <= '0;
      rec_rp_q   <= '0;
    end
  end

  assign busy_set = (in_acc && !in_drop && !in_frame_q) ? SLOTS'(1) << in_slot : '0;

  beryl_dma_psdp_ram #(
    .SEG_COUNT (SEG_COUNT),
    .SEG_DATA_W(SEG_DATA_W),
    .SEG_BE_W  (SEG_BE_W),
    .SIZE      (FRAME_RAM_BYTES)
  ) u_frame_ram (
    .clk              (clk),
    .rst              (rst),
    .ram_wr_cmd_addr  (fram_wr_addr),
    .ram_wr_cmd_be    ({SEG_COUNT * SEG_BE_W{1'b1}}),
    .ram_wr_cmd_data  ({SEG_COUNT{in_data}}),
    .ram_wr_cmd_valid (fram_wr_valid),
    .ram_wr_cmd_ready (fram_wr_ready),
    // the DMA write engine reads frames in the lower half of the region: drop the half bit
    .ram_rd_cmd_addr  ({ram_rd_cmd_addr[SEG_ADDR_W +: SEG_ADDR_W - 1], ram_rd_cmd_addr[0 +: SEG_ADDR_W - 1]}),
    .ram_rd_cmd_valid (ram_rd_cmd_valid),
    .ram_rd_cmd_ready (ram_rd_cmd_ready),
    .ram_rd_resp_data (ram_rd_resp_data),
    .ram_rd_resp_valid(ram_rd_resp_valid),
    .ram_rd_resp_ready(ram_rd_resp_ready)
  );

  // =========================================================================================
  // Offload chain: parser and checksum pass the frame through; parse -> Toeplitz -> indirection
  // =========================================================================================
  logic [DATA_W-1:0]      p_tdata;
  logic [KEEP_W-1:0]      p_tkeep;
  logic                   p_tvalid, p_tready, p_tlast;
  // VLAN count and offsets are not needed by RSS
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_nic_pkg::rx_meta_t meta;
  /* verilator lint_on UNUSEDSIGNAL */
  logic                   meta_valid, meta_ready;

  beryl_nic_rx_parse #(
    .DATA_W(DATA_W)
  ) u_parse (
    .clk          (clk),
    .rst          (rst),
    .s_axis_tdata (in_data),
    .s_axis_tkeep (in_keep),
    .s_axis_tvalid(in_valid && !in_drop),
    .s_axis_tready(chain_ready),
    .s_axis_tlast (in_last),
    .m_axis_tdata (p_tdata),
    .m_axis_tkeep (p_tkeep),
    .m_axis_tvalid(p_tvalid),
    .m_axis_tready(p_tready),
    .m_axis_tlast (p_tlast),
    .meta         (meta),
    .meta_valid   (meta_valid),
    .meta_ready   (meta_ready)
  );

  // the frame itself is taken from the ingress mux; the checksum block's stream output is unused
  /* verilator lint_off UNUSEDSIGNAL */
  logic [DATA_W-1:0]      c_tdata;
  logic [KEEP_W-1:0]      c_tkeep;
  logic                   c_tvalid, c_tlast;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]            csum;
  logic                   csum_valid, csum_ready;

  beryl_nic_csum #(
    .DATA_W (DATA_W),
    .START_W(OFF_W - 1)
  ) u_csum (
    .clk          (clk),
    .rst          (rst),
    .s_axis_tdata (p_tdata),
    .s_axis_tkeep (p_tkeep),
    .s_axis_tvalid(p_tvalid),
    .s_axis_tready(p_tready),
    .s_axis_tlast (p_tlast),
    .csum_start   ((OFF_W - 1)'(14)),   // after the Ethernet header, as the completion defines
    .m_axis_tdata (c_tdata),
    .m_axis_tkeep (c_tkeep),
    .m_axis_tvalid(c_tvalid),
    .m_axis_tready(1'b1),
    .m_axis_tlast (c_tlast),
    .csum         (csum),
    .csum_valid   (csum_valid),
    .csum_ready   (csum_ready)
  );

  logic [31:0] th_hash;
  logic [2:0]  th_type;
  logic        th_valid, th_ready;

  beryl_nic_rss_toeplitz u_toeplitz (
    .clk        (clk),
    .rst        (rst),
    .key_wr_en  (rss_key_wr_en),
    .key_wr_addr(rss_key_wr_addr),
    .key_wr_data(rss_key_wr_data),
    .hash_en    (rss_hash_en),
    .tup_l3     (meta.l3),
    .tup_l4     (meta.l4),
    .tup_ip_src (meta.ip_src),
    .tup_ip_dst (meta.ip_dst),
    .tup_sport  (meta.sport),
    .tup_dport  (meta.dport),
    .tup_valid  (meta_valid),
    .tup_ready  (meta_ready),
    .hash       (th_hash),
    .hash_type  (th_type),
    .hash_valid (th_valid),
    .hash_ready (th_ready)
  );

  logic [QI_W-1:0] rss_queue;
  logic [31:0]     rss_hash;
  logic [2:0]      rss_hash_type;
  logic            rss_valid, rss_ready;

  beryl_nic_rss_indir #(
    .TABLE_DEPTH(RSS_TABLE_DEPTH),
    .QUEUE_W    (QI_W)
  ) u_indir (
    .clk          (clk),
    .rst          (rst),
    .tbl_wr_en    (rss_tbl_wr_en),
    .tbl_wr_addr  (rss_tbl_wr_addr),
    .tbl_wr_data  (rss_tbl_wr_data),
    .hash         (th_hash),
    .hash_type    (th_type),
    .hash_valid   (th_valid),
    .hash_ready   (th_ready),
    .rss_queue    (rss_queue),
    .rss_hash     (rss_hash),
    .rss_hash_type(rss_hash_type),
    .rss_valid    (rss_valid),
    .rss_ready    (rss_ready)
  );

  // =========================================================================================
  // Join: frame record + RSS result + checksum, in frame order. Bad frames are dropped here;
  // good ones enter the in-order ring (index = position, also the DMA tag and descriptor slot).
  // =========================================================================================
  logic                  join_fire;
  logic [SLOT_W-1:0]     j_slot;
  logic                  j_err, j_over;
  logic [SLOT_W:0]       wp_q, asgp_q, asgd_q, txp_q, donep_q;   // ring pointers, one per stage

  // The checksum block holds only 4 results and a frame's RSS result comes several cycles after its
  // checksum: take checksums at once into a deeper FIFO so back-to-back 1-beat frames keep flowing.
  logic [15:0]           csf_q [CSF_DEPTH];
  logic [3:0]            csf_wp_q, csf_rp_q;
  logic                  csf_valid;

  assign csum_ready = (csf_wp_q - csf_rp_q) != 4'(CSF_DEPTH);
  assign csf_valid  = csf_wp_q != csf_rp_q;

  always_ff @(posedge gclk) begin
    if (csum_valid && csum_ready) begin
      csf_q[csf_wp_q[2:0]] <= csum;
      csf_wp_q             <= csf_wp_q + 4'd1;
    end
    if (join_fire) begin
      csf_rp_q <= csf_rp_q + 4'd1;
    end
    if (rst) begin
      csf_wp_q <= '0;
      csf_rp_q <= '0;
    end
  end

  assign join_fire  = rec_valid && rss_valid && csf_valid;
  assign rec_pop    = join_fire;
  assign rss_ready  = join_fire;
  assign j_slot     = rec_slot[rec_rp_q[3:0]];
  assign j_err      = rec_err[rec_rp_q[3:0]];
  assign j_over     = rec_over[rec_rp_q[3:0]];

  // ring entries (flops: several stages read them at their own pointer)
  logic [SLOT_W-1:0]     e_slot   [SLOTS];
  logic [15:0]           e_len    [SLOTS];
  logic [PORT_W-1:0]     e_port   [SLOTS];
  logic [QI_W-1:0]       e_queue  [SLOTS];
  logic [31:0]           e_hash   [SLOTS];
  logic [2:0]            e_htype  [SLOTS];
  logic [15:0]           e_csum   [SLOTS];
  logic [63:0]           e_ts     [SLOTS];
  logic [1:0]            e_status [SLOTS];   // queue-manager status (QM_OK: a descriptor was assigned)
  logic [15:0]           e_ptr    [SLOTS];   // descriptor ring pointer
  logic [15:0]           e_cq     [SLOTS];   // completion queue (the RX queue's target)
  logic [63:0]           e_daddr  [SLOTS];   // the descriptor's buffer address
  logic [SLOTS-1:0]      e_desc_err_q, e_too_long_q, e_wr_done_q, e_wr_err_q;

  always_ff @(posedge gclk) begin
    if (join_fire && !j_err && !j_over) begin
      e_slot[wp_q[SLOT_W-1:0]]  <= j_slot;
      e_len[wp_q[SLOT_W-1:0]]   <= rec_len[rec_rp_q[3:0]];
      e_port[wp_q[SLOT_W-1:0]]  <= rec_port[rec_rp_q[3:0]];
      e_queue[wp_q[SLOT_W-1:0]] <= (rss_enable && rss_hash_type != beryl_nic_pkg::HASH_NONE)
                                   ? rss_queue : default_queue;
      e_hash[wp_q[SLOT_W-1:0]]  <= rss_hash;
      e_htype[wp_q[SLOT_W-1:0]] <= rss_hash_type;
      e_csum[wp_q[SLOT_W-1:0]]  <= csf_q[csf_rp_q[2:0]];
      e_ts[wp_q[SLOT_W-1:0]]    <= rec_ts[rec_rp_q[3:0]];
    end
  end

  // =========================================================================================
  // RX descriptor cache. Each entry caches one RX queue: a FIFO of DCACHE_BATCHES batch buffers,
  // each filled by one QM op of RX_DESC_BATCH and one DMA read of the granted descriptors. The
  // descriptors of an entry are one contiguous run of ring pointers (grants of one queue follow each
  // other), used in order. An entry fetches while it holds (cached + in flight) <= its level: the
  // level starts at RX_DESC_BATCH/2 and doubles (plus a batch) each time a frame had to wait for
  // a descriptor or a batch was used up before the next arrived: a busy queue prefetches deep, an
  // idle one holds few. At most one QM op per entry is outstanding (its grant fixes where the next
  // starts). A refused op (QM_EMPTY/DISABLED) stops fetching for the queue until its next frame.
  // A miss takes an empty or the least recently used idle entry; the victim's unused run goes back to
  // the host as CPL_UNUSED completions after the frames assigned before it (ring order per queue).
  // =========================================================================================
  localparam int ENT_W     = DCACHE_ENTRIES > 1 ? $clog2(DCACHE_ENTRIES) : 1;
  localparam int KB_W      = $clog2(DCACHE_BATCHES);
  localparam int CB        = DCACHE_ENTRIES * DCACHE_BATCHES;         // batch buffers
  localparam int CB_W      = $clog2(CB);
  localparam int NDESC     = CB * RX_DESC_BATCH;                      // descriptor slots
  localparam int DI_W      = $clog2(NDESC);
  localparam int DROWS     = NDESC / 8;                               // RAM rows: 2 segments x 4 descriptors
  localparam int DROW_W    = $clog2(DROWS);
  localparam int HELD_W    = $clog2(DCACHE_BATCHES * RX_DESC_BATCH) + 1;
  localparam int LEVEL_MAX = (DCACHE_BATCHES - 1) * RX_DESC_BATCH + RX_DESC_BATCH / 2;
  localparam int RET_DEPTH = 4;                                       // eviction returns waiting
  localparam int NRET_W    = HELD_W;

  localparam logic [1:0] B_EMPTY = 2'd0, B_REQ = 2'd1, B_LOAD = 2'd2, B_READY = 2'd3;

  if (DCACHE_ENTRIES < 1 || DCACHE_ENTRIES > 16 || (DCACHE_ENTRIES & (DCACHE_ENTRIES - 1)) != 0
      || DCACHE_BATCHES < 2 || DCACHE_BATCHES > 64 || (DCACHE_BATCHES & (DCACHE_BATCHES - 1)) != 0
      || RX_DESC_BATCH < 1 || (RX_DESC_BATCH & (RX_DESC_BATCH - 1)) != 0
      || CNT_W < $clog2(RX_DESC_BATCH) + 1 || NDESC < 16 || TAG_W < CB_W
      || NDESC * beryl_nic_pkg::DESC_BYTES > FRAME_RAM_BYTES) begin : g_chk6
    // DCACHE_ENTRIES 1..16, DCACHE_BATCHES 2..64, RX_DESC_BATCH powers of two; the cache holds >= 16
    // descriptors and fits the region's upper half; TAG_W >= log2(entries * batches)
    $error("%m: bad descriptor cache parameters (DCACHE_*, RX_DESC_BATCH <= 2^(CNT_W-1), TAG_W)");
  end

  if (RX_DESC_RETRIES < 0 || RX_DESC_RETRIES > 7) begin : g_chk_retry
    $error("%m: RX_DESC_RETRIES must be 0..7");
  end

  // per batch buffer (index entry * DCACHE_BATCHES + batch)
  logic [1:0]            b_st_q  [CB];
  logic [CB-1:0]         b_load_q;       // b_st_q[i] == B_LOAD, kept beside it (c_busy without a scan)
  logic [CNT_W-1:0]      b_cnt_q [CB];   // descriptors granted
  logic [15:0]           b_ptr_q [CB];   // ring pointer of the first
  logic [CB-1:0]         b_err_q;        // the DMA read failed
  logic [63:0]           b_addr_q [CB];  // host address of the batch's read (for a retry)
  logic [2:0]            b_try_q  [CB];  // retries of the read so far
  logic [CB-1:0]         b_rty_q;        // the read failed and waits to be issued again (still B_LOAD)

  // per entry
  logic [DCACHE_ENTRIES-1:0] c_valid_q, c_req_q, c_empty_q, c_nack_q, c_demand_q, c_primed_q;
  logic [DCACHE_ENTRIES-1:0] c_flush_q;  // flushed: no longer hit or fetching; evicted once idle
  logic [QI_W-1:0]       c_qidx_q   [DCACHE_ENTRIES];
  logic [15:0]           c_cq_q     [DCACHE_ENTRIES];
  logic [KB_W-1:0]       c_hd_q     [DCACHE_ENTRIES];   // batch being used
  logic [KB_W-1:0]       c_tl_q     [DCACHE_ENTRIES];   // batch the next fetch fills
  logic [CNT_W-1:0]      c_used_q   [DCACHE_ENTRIES];   // descriptors used of the head batch
  logic [HELD_W-1:0]     c_held_q   [DCACHE_ENTRIES];   // cached unused + in flight (a pending op counts a batch)
  logic [HELD_W-1:0]     c_level_q  [DCACHE_ENTRIES];   // fetch while held <= level
  logic [1:0]            c_nstat_q  [DCACHE_ENTRIES];   // status of the last refused op
  logic [ENT_W-1:0]      c_age_q    [DCACHE_ENTRIES];   // 0 = most recently used

  // descriptor storage as written by the DMA read engine: row r, segment s, 16-byte chunk c hold
  // descriptor 8r + 4s + c; only bytes 0-11 (address, length) are kept
  logic [4*96-1:0]       dmem0 [DROWS];
  logic [4*96-1:0]       dmem1 [DROWS];

  assign ram_wr_cmd_ready = '1;

  // A write stores the whole addressed row with the enabled bytes merged in: the same block RAM
  // (Yosys turns the merge back into byte write enables), but Verilator keeps one pending write per
  // segment instead of one per byte lane, which it cleared and tested every cycle. The merge sits in
  // the clocked block, under the write valids: as combinational logic a C++ model re-evaluated it (and
  // cleared both rows) whenever the DMA read engine's writes to the other clients of the write demux
  // changed the shared address.
  always_ff @(posedge gclk) begin
    logic [4*96-1:0] w;
    if (ram_wr_cmd_valid[0]) begin
      w = dmem0[ram_wr_cmd_addr[DROW_W-1:0]];
      for (int c = 0; c < 4; c++) begin
        for (int b = 0; b < 12; b++) begin
          if (ram_wr_cmd_be[c * 16 + b]) w[c*96 + b*8 +: 8] = ram_wr_cmd_data[(c * 16 + b) * 8 +: 8];
        end
      end
      dmem0[ram_wr_cmd_addr[DROW_W-1:0]] <= w;
    end
    if (ram_wr_cmd_valid[1]) begin
      w = dmem1[ram_wr_cmd_addr[SEG_ADDR_W +: DROW_W]];
      for (int c = 0; c < 4; c++) begin
        for (int b = 0; b < 12; b++) begin
          if (ram_wr_cmd_be[SEG_BE_W + c * 16 + b]) begin
            w[c*96 + b*8 +: 8] = ram_wr_cmd_data[SEG_DATA_W + (c * 16 + b) * 8 +: 8];
          end
        end
      end
      dmem1[ram_wr_cmd_addr[SEG_ADDR_W +: DROW_W]] <= w;
    end
  end

  // ---- assignment stage: the frame at asgp_q takes its queue's next descriptor, in frame order
  logic                  a_valid, a_hit, a_ready, a_assign, a_drop, a_fire, a_alloc, a_stall, a_seen_q;
  logic [QI_W-1:0]       a_q;
  logic [ENT_W-1:0]      a_e, vic_e;
  logic                  vic_ok;
  logic [CB_W-1:0]       a_ci;
  logic [DI_W-1:0]       a_di;
  logic [4*96-1:0]       d_row0_q, d_row1_q;   // registered descriptor-store read (block RAM)
  logic [95:0]           d_desc;       // bytes 0-11 of beryl_nic_pkg::rx_desc_t: len, addr
  logic [DCACHE_ENTRIES-1:0] c_busy;    // an op or a DMA read in flight
  logic                  ret_full;

  always_comb begin
    for (int e = 0; e < DCACHE_ENTRIES; e++) begin
      c_busy[e] = c_req_q[e] || (b_load_q[e*DCACHE_BATCHES +: DCACHE_BATCHES] != '0);
    end
  end

  always_comb begin
    a_valid = asgp_q != wp_q;
    a_q     = e_queue[asgp_q[SLOT_W-1:0]];
    a_hit   = 1'b0;
    a_e     = '0;
    vic_ok  = 1'b0;
    vic_e   = '0;
    // everything below is used only with a_valid: the test lets Verilator skip the entry scans on
    // cycles without a waiting frame (C++ simulator speed; the same logic in hardware)
    if (a_valid) begin
      for (int e = 0; e < DCACHE_ENTRIES; e++) begin
        if (c_valid_q[e] && !c_flush_q[e] && c_qidx_q[e] == a_q) begin
          a_hit = 1'b1;
          a_e   = ENT_W'(e);
        end
      end
      // victim: an empty entry, else the least recently used idle one
      for (int e = DCACHE_ENTRIES - 1; e >= 0; e--) begin
        if (!c_valid_q[e]) begin
          vic_ok = 1'b1;
          vic_e  = ENT_W'(e);
        end
      end
      if (!vic_ok) begin
        for (int e = 0; e < DCACHE_ENTRIES; e++) begin
          if (!c_busy[e] && (!vic_ok || c_age_q[e] > c_age_q[vic_e])) begin
            vic_ok = 1'b1;
            vic_e  = ENT_W'(e);
          end
        end
      end
    end
    a_ci     = CB_W'({a_e, c_hd_q[a_e]});
    a_di     = DI_W'(a_ci) * DI_W'(RX_DESC_BATCH) + DI_W'(c_used_q[a_e]);
    a_ready  = b_st_q[a_ci] == B_READY;
    a_assign = a_valid && a_hit && a_ready;
    // refused op (asked for this or an earlier waiting frame) and nothing else coming: drop
    a_drop   = a_valid && a_hit && !a_ready && c_nack_q[a_e] && !c_busy[a_e];
    a_stall  = a_valid && a_hit && !a_ready && !a_drop;
    a_fire   = a_assign || a_drop;
    a_alloc  = a_valid && !a_hit && vic_ok && !(c_valid_q[vic_e] && c_held_q[vic_e] != '0 && ret_full);
  end

  // ---- fetch requests: one QM op per entry at a time, round robin over the entries that want one
  logic [DCACHE_ENTRIES-1:0] f_want;
  logic                  f_any, f_go;
  logic [ENT_W-1:0]      f_e, f_rr_q;
  logic                  op_req_valid_q;
  logic [ENT_W-1:0]      opf_q [DCACHE_ENTRIES];    // entries of the ops awaiting their response
  logic [ENT_W:0]        opf_wp_q, opf_rp_q;
  logic                  rsp_fire, rsp_ok;
  logic [ENT_W-1:0]      rsp_e;
  logic [KB_W-1:0]       rsp_b;
  logic [CB_W-1:0]       rsp_ci;
  logic                  rd_desc_valid_q;

  always_comb begin
    for (int e = 0; e < DCACHE_ENTRIES; e++) begin
      f_want[e] = c_valid_q[e] && !c_flush_q[e] && !c_req_q[e] && !c_empty_q[e]
                  && b_st_q[e * DCACHE_BATCHES + 32'(c_tl_q[e])] == B_EMPTY && c_held_q[e] <= c_level_q[e]
                  && !(a_alloc && vic_e == ENT_W'(e));
    end
    f_any = 1'b0;
    f_e   = '0;
    for (int i = DCACHE_ENTRIES - 1; i >= 0; i--) begin
      if (f_want[(32'(f_rr_q) + i) % DCACHE_ENTRIES]) begin
        f_any = 1'b1;
        f_e   = ENT_W'((32'(f_rr_q) + i) % DCACHE_ENTRIES);
      end
    end
  end
  // apart from the scan above: op_req_ready comes from the queue manager's arbiter, whose inputs change
  // in other blocks' cycles, and a C++ model evaluates a block again whenever one of its inputs can
  assign f_go = f_any && (!op_req_valid_q || op_req_ready);

  assign op_req_valid  = op_req_valid_q;
  assign op_req_count  = CNT_W'(RX_DESC_BATCH);
  // a failed read waiting for its retry goes before the next QM response's read
  logic                  rty_any, rty_go;
  logic [CB_W-1:0]       rty_ci;
  assign rty_any       = b_rty_q != '0;
  // the scan runs only with a retry waiting (the C++ model evaluates it in no other cycle)
  always_comb begin
    rty_ci = '0;
    if (rty_any) begin
      for (int i = CB - 1; i >= 0; i--) begin
        if (b_rty_q[i]) rty_ci = CB_W'(i);
      end
    end
  end
  assign rty_go        = rty_any && (!rd_desc_valid_q || rd_desc_ready);
  assign op_rsp_ready  = (!rd_desc_valid_q || rd_desc_ready) && !rty_any;
  assign rsp_fire      = op_rsp_valid && op_rsp_ready;
  assign rsp_ok        = op_rsp_status == beryl_nic_pkg::QM_OK;
  assign rsp_e         = opf_q[opf_rp_q[ENT_W-1:0]];
  assign rsp_b         = c_tl_q[rsp_e] - KB_W'(1);
  assign rsp_ci        = CB_W'({rsp_e, rsp_b});
  assign rd_desc_valid = rd_desc_valid_q;

  always_ff @(posedge gclk) begin
    if (op_req_ready) op_req_valid_q <= 1'b0;
    if (f_go) begin
      op_req_valid_q             <= 1'b1;
      op_req_qidx                <= c_qidx_q[f_e];
      opf_q[opf_wp_q[ENT_W-1:0]] <= f_e;
      opf_wp_q                   <= opf_wp_q + 1'b1;
      f_rr_q                     <= f_e + ENT_W'(1);
    end
    if (rd_desc_ready) rd_desc_valid_q <= 1'b0;
    if (rsp_fire) begin
      opf_rp_q <= opf_rp_q + 1'b1;
      if (rsp_ok) begin
        rd_desc_valid_q   <= 1'b1;
        rd_desc_host_addr <= op_rsp_addr;
        rd_desc_ram_addr  <= RAM_ADDR_W'(FRAME_RAM_BYTES)
                             + RAM_ADDR_W'(rsp_ci) * RAM_ADDR_W'(RX_DESC_BATCH * beryl_nic_pkg::DESC_BYTES);
        rd_desc_len       <= LEN_W'(op_rsp_count) * LEN_W'(beryl_nic_pkg::DESC_BYTES);
        rd_desc_tag       <= TAG_W'(rsp_ci);
      end
    end else if (rty_go) begin
      rd_desc_valid_q   <= 1'b1;
      rd_desc_host_addr <= b_addr_q[rty_ci];
      rd_desc_ram_addr  <= RAM_ADDR_W'(FRAME_RAM_BYTES)
                           + RAM_ADDR_W'(rty_ci) * RAM_ADDR_W'(RX_DESC_BATCH * beryl_nic_pkg::DESC_BYTES);
      rd_desc_len       <= LEN_W'(b_cnt_q[rty_ci]) * LEN_W'(beryl_nic_pkg::DESC_BYTES);
      rd_desc_tag       <= TAG_W'(rty_ci);
      desc_retry_count  <= desc_retry_count + 32'd1;
    end
    if (rst) begin
      op_req_valid_q  <= 1'b0;
      rd_desc_valid_q <= 1'b0;
      desc_retry_count <= '0;
      opf_wp_q        <= '0;
      opf_rp_q        <= '0;
      f_rr_q          <= '0;
    end
  end

  // ---- eviction returns: the unused run of an evicted entry goes back as CPL_UNUSED completions once
  // every frame assigned before the eviction has retired (ring order per queue)
  logic [SLOT_W:0]       ret_pos_q [RET_DEPTH];
  logic [QI_W-1:0]       ret_q_q   [RET_DEPTH];
  logic [15:0]           ret_cq_q  [RET_DEPTH];
  logic [15:0]           ret_ptr_q [RET_DEPTH];
  logic [NRET_W-1:0]     ret_n_q   [RET_DEPTH];
  logic [2:0]            ret_wp_q, ret_rp_q;
  logic [NRET_W-1:0]     ret_k_q;            // completions of the head run already sent
  logic                  ret_push, ret_go, ret_fire, ret_pop;

  // A flushed entry is dropped once idle (no op or read in flight), its descriptors discarded: the queue
  // was disabled or re-programmed, so the driver owns its buffers again and must not get completions for
  // them in a completion queue it may already be re-using.
  logic [DCACHE_ENTRIES-1:0] fl_idle;

  always_comb begin
    for (int e = 0; e < DCACHE_ENTRIES; e++) begin
      fl_idle[e] = c_valid_q[e] && c_flush_q[e] && !c_busy[e] && !(a_alloc && vic_e == ENT_W'(e));
    end
  end

  assign ret_full = (ret_wp_q - ret_rp_q) == 3'(RET_DEPTH);
  assign ret_push = a_alloc && c_valid_q[vic_e] && !c_flush_q[vic_e] && c_held_q[vic_e] != '0;
  assign ret_go   = ret_wp_q != ret_rp_q && ret_pos_q[ret_rp_q[1:0]] == donep_q;
  assign ret_pop  = ret_fire && ret_k_q + NRET_W'(1) == ret_n_q[ret_rp_q[1:0]];

  always_ff @(posedge gclk) begin
    if (ret_push) begin
      ret_pos_q[ret_wp_q[1:0]] <= asgp_q;
      ret_q_q[ret_wp_q[1:0]]   <= c_qidx_q[vic_e];
      ret_cq_q[ret_wp_q[1:0]]  <= c_cq_q[vic_e];
      ret_ptr_q[ret_wp_q[1:0]] <= b_ptr_q[{vic_e, c_hd_q[vic_e]}] + 16'(c_used_q[vic_e]);
      ret_n_q[ret_wp_q[1:0]]   <= c_held_q[vic_e];
      ret_wp_q                 <= ret_wp_q + 3'd1;
    end
    if (ret_fire) ret_k_q <= ret_k_q + NRET_W'(1);
    if (ret_pop) begin
      ret_k_q  <= '0;
      ret_rp_q <= ret_rp_q + 3'd1;
    end
    if (rst) begin
      ret_wp_q <= '0;
      ret_rp_q <= '0;
      ret_k_q  <= '0;
    end
  end

  // a wait doubles the level (plus a batch), up to all the entry's batch buffers
  logic [HELD_W:0] level_up_w;
  logic [HELD_W-1:0] level_up;
  assign level_up_w = {c_level_q[a_e], 1'b0} + (HELD_W + 1)'(RX_DESC_BATCH);
  assign level_up   = level_up_w > (HELD_W + 1)'(LEVEL_MAX) ? HELD_W'(LEVEL_MAX) : level_up_w[HELD_W-1:0];

  // ---- cache state updates
  always_ff @(posedge gclk) begin
    // fetch issued: the tail batch waits for the QM
    if (f_go) begin
      b_st_q[{f_e, c_tl_q[f_e]}] <= B_REQ;
      b_load_q[{f_e, c_tl_q[f_e]}] <= 1'b0;
      c_tl_q[f_e]                <= c_tl_q[f_e] + KB_W'(1);
      c_req_q[f_e]               <= 1'b1;
    end
    // QM response: start the DMA read, or give the batch back and stop fetching
    if (rsp_fire) begin
      c_req_q[rsp_e] <= 1'b0;
      if (rsp_ok) begin
        b_st_q[rsp_ci]  <= B_LOAD;
        b_load_q[rsp_ci] <= 1'b1;
        b_cnt_q[rsp_ci] <= op_rsp_count;
        b_ptr_q[rsp_ci] <= op_rsp_ptr;
        b_addr_q[rsp_ci] <= op_rsp_addr;
        b_try_q[rsp_ci] <= '0;
        c_cq_q[rsp_e]   <= op_rsp_target[15:0];
      end else begin
        b_st_q[rsp_ci]    <= B_EMPTY;
        b_load_q[rsp_ci]  <= 1'b0;
        c_tl_q[rsp_e]     <= rsp_b;
        c_empty_q[rsp_e]  <= 1'b1;
        c_nack_q[rsp_e]   <= c_demand_q[rsp_e];
        c_nstat_q[rsp_e]  <= op_rsp_status;
      end
    end
    // descriptors arrived, or the read failed: issued again while retries are left (stays B_LOAD)
    if (rty_go) b_rty_q[rty_ci] <= 1'b0;
    if (rd_desc_status_valid) begin
      if (rd_desc_status_error != 4'd0 && b_try_q[rd_desc_status_tag[CB_W-1:0]] != 3'(RX_DESC_RETRIES)) begin
        b_rty_q[rd_desc_status_tag[CB_W-1:0]] <= 1'b1;
        b_try_q[rd_desc_status_tag[CB_W-1:0]] <= b_try_q[rd_desc_status_tag[CB_W-1:0]] + 3'd1;
      end else begin
        b_st_q[rd_desc_status_tag[CB_W-1:0]]  <= B_READY;
        b_load_q[rd_desc_status_tag[CB_W-1:0]] <= 1'b0;
        b_err_q[rd_desc_status_tag[CB_W-1:0]] <= rd_desc_status_error != 4'd0;
      end
    end
    // held count: + a batch per op, - the part of it not granted, - one per descriptor used
    for (int e = 0; e < DCACHE_ENTRIES; e++) begin
      c_held_q[e] <= c_held_q[e]
                     + ((f_go && f_e == ENT_W'(e)) ? HELD_W'(RX_DESC_BATCH) : '0)
                     - ((rsp_fire && rsp_e == ENT_W'(e))
                        ? HELD_W'(RX_DESC_BATCH) - (rsp_ok ? HELD_W'(op_rsp_count) : '0) : '0)
                     - ((a_assign && a_e == ENT_W'(e)) ? HELD_W'(1) : '0);
    end
    // the frame at the head: a new frame for the queue re-enables fetching; a wait raises the level
    if (a_valid && a_hit && !a_seen_q) c_empty_q[a_e] <= 1'b0;
    if (a_stall) begin
      c_demand_q[a_e] <= 1'b1;
      if (!c_demand_q[a_e] && c_primed_q[a_e]) begin
        c_level_q[a_e] <= level_up;
      end
    end
    if (a_fire) begin
      c_demand_q[a_e] <= 1'b0;
      c_nack_q[a_e]   <= 1'b0;
    end
    if (a_assign) begin
      c_primed_q[a_e] <= 1'b1;
      if (c_used_q[a_e] + CNT_W'(1) == b_cnt_q[a_ci]) begin
        // the head batch is used up and the next is still on its way: prefetch is too shallow
        if (c_busy[a_e] && b_st_q[CB_W'({a_e, c_hd_q[a_e] + KB_W'(1)})] != B_READY) c_level_q[a_e] <= level_up;
        b_st_q[a_ci]  <= B_EMPTY;
        b_load_q[a_ci] <= 1'b0;
        c_hd_q[a_e]   <= c_hd_q[a_e] + KB_W'(1);
        c_used_q[a_e] <= '0;
      end else begin
        c_used_q[a_e] <= c_used_q[a_e] + CNT_W'(1);
      end
    end
    // LRU ages: the used entry becomes 0, the younger ones age by one
    if (a_assign || a_alloc) begin
      for (int e = 0; e < DCACHE_ENTRIES; e++) begin
        if (c_age_q[e] < c_age_q[a_assign ? a_e : vic_e]) c_age_q[e] <= c_age_q[e] + ENT_W'(1);
      end
      c_age_q[a_assign ? a_e : vic_e] <= '0;
    end
    // flush: the queue's entries stop hitting and fetching; idle ones leave
    for (int e = 0; e < DCACHE_ENTRIES; e++) begin
      if (flush_valid && c_valid_q[e] && c_qidx_q[e] == flush_qidx) c_flush_q[e] <= 1'b1;
      if (fl_idle[e]) begin
        c_valid_q[e] <= 1'b0;
        c_flush_q[e] <= 1'b0;
      end
    end
    // miss: take over the victim (idle, so all its batches are empty or ready) for the frame's queue
    if (a_alloc) begin
      for (int b = 0; b < DCACHE_BATCHES; b++) b_st_q[{vic_e, KB_W'(b)}] <= B_EMPTY;
      b_load_q[32'(vic_e)*DCACHE_BATCHES +: DCACHE_BATCHES] <= '0;
      c_valid_q[vic_e]  <= 1'b1;
      c_flush_q[vic_e]  <= 1'b0;
      c_qidx_q[vic_e]   <= a_q;
      c_hd_q[vic_e]     <= '0;
      c_tl_q[vic_e]     <= '0;
      c_used_q[vic_e]   <= '0;
      c_held_q[vic_e]   <= '0;
      c_level_q[vic_e]  <= HELD_W'(RX_DESC_BATCH / 2);
      c_empty_q[vic_e]  <= 1'b0;
      c_nack_q[vic_e]   <= 1'b0;
      c_demand_q[vic_e] <= 1'b1;
      c_primed_q[vic_e] <= 1'b0;
    end
    a_seen_q <= a_valid && !a_fire;
    if (rst) begin
      for (int i = 0; i < CB; i++) b_st_q[i] <= B_EMPTY;
      b_load_q <= '0;
      b_rty_q  <= '0;
      for (int e = 0; e < DCACHE_ENTRIES; e++) begin
        c_age_q[e]  <= ENT_W'(e);
        c_held_q[e] <= '0;
      end
      c_valid_q  <= '0;
      c_flush_q  <= '0;
      c_req_q    <= '0;
      c_empty_q  <= '0;
      c_nack_q   <= '0;
      c_demand_q <= '0;
      a_seen_q   <= 1'b0;
    end
  end

  // ---- the frame's descriptor (or the refusal) into its ring entry
  always_ff @(posedge gclk) begin
    if (a_fire) begin
      e_status[asgp_q[SLOT_W-1:0]] <= a_assign ? beryl_nic_pkg::QM_OK : c_nstat_q[a_e];
      e_ptr[asgp_q[SLOT_W-1:0]]    <= b_ptr_q[a_ci] + 16'(c_used_q[a_e]);
      e_cq[asgp_q[SLOT_W-1:0]]     <= c_cq_q[a_e];
      asgp_q                       <= asgp_q + 1'b1;
    end
    if (rst) asgp_q <= '0;
  end

  // The descriptor store is read with a register (so it maps to block RAM); the entry gets the
  // descriptor one cycle after its assignment, and the transmit stage follows the delayed pointer asgd_q.
  // The batch just used up cannot be refilled that soon (a QM op and a DMA read come first).
  logic                  d_valid_q, d_assign_q, d_err_q;
  logic [2:0]            d_sel_q;
  logic [SLOT_W-1:0]     d_idx_q;

  always_ff @(posedge gclk) begin
    if (a_fire) begin
      d_row0_q <= dmem0[a_di[DI_W-1:3]];
      d_row1_q <= dmem1[a_di[DI_W-1:3]];
    end
    d_valid_q  <= a_fire;
    if (a_fire) begin   // the rest is read only with d_valid_q
      d_assign_q <= a_assign;
      d_err_q    <= b_err_q[a_ci];
      d_sel_q    <= a_di[2:0];
      d_idx_q    <= asgp_q[SLOT_W-1:0];
    end
    asgd_q     <= asgp_q;
    if (rst) begin
      d_valid_q <= 1'b0;
      asgd_q    <= '0;
    end
  end

  assign d_desc = d_sel_q[2] ? d_row1_q[32'(d_sel_q[1:0]) * 96 +: 96] : d_row0_q[32'(d_sel_q[1:0]) * 96 +: 96];

  always_ff @(posedge gclk) begin
    if (d_valid_q) e_daddr[d_idx_q] <= d_desc[63:0];
  end

  // =========================================================================================
  // Frame transmission to the host, in order: check the buffer, then DMA write
  // =========================================================================================
  logic [SLOT_W-1:0]        tx_i;
  logic                     wr_desc_valid_q;
  logic                     tx_fire, tx_issue;

  assign tx_i          = txp_q[SLOT_W-1:0];
  assign wr_desc_valid = wr_desc_valid_q;

  always_comb begin
    tx_fire  = 1'b0;
    tx_issue = 1'b0;
    if (txp_q != asgd_q) begin
      if (e_status[tx_i] != beryl_nic_pkg::QM_OK || e_desc_err_q[tx_i] || e_too_long_q[tx_i]) begin
        tx_fire = 1'b1;
      end else if (!wr_desc_valid_q || wr_desc_ready) begin
        tx_fire  = 1'b1;
        tx_issue = 1'b1;
      end
    end
  end

  always_ff @(posedge gclk) begin
    if (wr_desc_ready) wr_desc_valid_q <= 1'b0;
    if (tx_fire) txp_q <= txp_q + 1'b1;
    if (tx_issue) begin
      wr_desc_valid_q   <= 1'b1;
      wr_desc_host_addr <= e_daddr[tx_i];
      wr_desc_ram_addr  <= RAM_ADDR_W'(e_slot[tx_i]) * RAM_ADDR_W'(SLOT_BYTES);
      wr_desc_len       <= LEN_W'(e_len[tx_i]);
      wr_desc_tag       <= TAG_W'(tx_i);
    end
    if (rst) begin
      wr_desc_valid_q <= 1'b0;
      txp_q           <= '0;
    end
  end

  // per-entry status bits: set at assignment and by the DMA write statuses
  always_ff @(posedge gclk) begin
    if (d_valid_q) begin
      e_desc_err_q[d_idx_q] <= d_assign_q && d_err_q;
      e_too_long_q[d_idx_q] <= d_assign_q && !d_err_q && d_desc[95:64] < 32'(e_len[d_idx_q]);
    end
    if (a_fire) begin
      e_wr_done_q[asgp_q[SLOT_W-1:0]]  <= 1'b0;
      e_wr_err_q[asgp_q[SLOT_W-1:0]]   <= 1'b0;
    end
    if (wr_desc_status_valid) begin
      e_wr_done_q[wr_desc_status_tag[SLOT_W-1:0]] <= 1'b1;
      e_wr_err_q[wr_desc_status_tag[SLOT_W-1:0]]  <= wr_desc_status_error != 4'd0;
    end
  end

  // =========================================================================================
  // Retire, in order: completion, statistics, counters, free the slot
  // =========================================================================================
  logic [SLOT_W-1:0]     dn_i;
  logic                  dn_ok, dn_fire, dn_cpl;
  logic [7:0]            dn_cpl_status;
  logic                  cpl_valid_q;
  beryl_nic_pkg::cpl_t   cpl_d, ret_cpl;

  assign dn_i  = donep_q[SLOT_W-1:0];
  assign dn_ok = e_status[dn_i] == beryl_nic_pkg::QM_OK;
  // the oldest frame handed to the DMA engine can retire: refused, failed or written. While it waits for
  // its DMA write status (an input, wr_desc_status_valid, which sets e_wr_done_q) nothing here changes
  logic dn_ready;
  assign dn_ready = donep_q != txp_q && (!dn_ok || e_desc_err_q[dn_i] || e_too_long_q[dn_i] || e_wr_done_q[dn_i]);
  assign cpl_valid = cpl_valid_q;

  always_comb begin
    dn_fire       = 1'b0;
    dn_cpl        = 1'b0;
    dn_cpl_status = beryl_nic_pkg::CPL_OK;
    if (donep_q != txp_q && !ret_go) begin
      if (!dn_ok) begin
        dn_fire = 1'b1;
      end else if (e_desc_err_q[dn_i] || e_too_long_q[dn_i] || e_wr_done_q[dn_i]) begin
        dn_cpl  = 1'b1;
        dn_fire = !cpl_valid_q || cpl_ready;
      end
    end
    if (e_desc_err_q[dn_i] || e_wr_err_q[dn_i]) begin
      dn_cpl_status = beryl_nic_pkg::CPL_DMA_ERR;
    end else if (e_too_long_q[dn_i]) begin
      dn_cpl_status = beryl_nic_pkg::CPL_TOO_LONG;
    end
    cpl_d           = '0;
    cpl_d.queue     = 16'(e_queue[dn_i]);
    cpl_d.index     = e_ptr[dn_i];
    cpl_d.port      = 8'(e_port[dn_i]);
    cpl_d.status    = dn_cpl_status;
    cpl_d.hash_type = e_htype[dn_i];
    cpl_d.flags[beryl_nic_pkg::CPL_FLAG_CSUM_VALID] = 1'b1;
    cpl_d.flags[beryl_nic_pkg::CPL_FLAG_HASH_VALID] = e_htype[dn_i] != beryl_nic_pkg::HASH_NONE;
    cpl_d.rss_hash  = e_hash[dn_i];
    cpl_d.csum      = e_csum[dn_i];
    cpl_d.len       = dn_cpl_status == beryl_nic_pkg::CPL_OK ? e_len[dn_i] : 16'd0;
    cpl_d.timestamp = e_ts[dn_i];
    ret_cpl         = '0;
    ret_cpl.queue   = 16'(ret_q_q[ret_rp_q[1:0]]);
    ret_cpl.index   = ret_ptr_q[ret_rp_q[1:0]] + 16'(ret_k_q);
    ret_cpl.status  = beryl_nic_pkg::CPL_UNUSED;
  end

  assign ret_fire = ret_go && (!cpl_valid_q || cpl_ready);

  assign busy_clr = ((join_fire && (j_err || j_over)) ? SLOTS'(1) << j_slot : '0)
                  | (dn_fire ? SLOTS'(1) << e_slot[dn_i] : '0);

  always_ff @(posedge gclk) begin
    busy_q <= (busy_q | busy_set) & ~busy_clr;
    if (join_fire && !j_err && !j_over) begin
      wp_q <= wp_q + 1'b1;
    end
    if (cpl_ready) cpl_valid_q <= 1'b0;
    stat_valid <= 1'b0;
    if (dn_fire) begin
      donep_q    <= donep_q + 1'b1;
      stat_valid <= 1'b1;
      stat_qidx  <= e_queue[dn_i];
      stat_bytes <= e_len[dn_i];
      stat_drop  <= !dn_ok || dn_cpl_status != beryl_nic_pkg::CPL_OK;
      if (dn_cpl) begin
        cpl_valid_q <= 1'b1;
        cpl_qidx    <= e_cq[dn_i];
        cpl_data    <= cpl_d;
      end
    end
    if (ret_fire) begin
      cpl_valid_q <= 1'b1;
      cpl_qidx    <= ret_cq_q[ret_rp_q[1:0]];
      cpl_data    <= ret_cpl;
    end
    if (rst) begin
      busy_q      <= '0;
      wp_q        <= '0;
      donep_q     <= '0;
      cpl_valid_q <= 1'b0;
      stat_valid  <= 1'b0;
    end
  end

  // per-port drops: a frame can leave at three points in one cycle (no slot at the input, MAC error or
  // oversize at the join, no descriptor / disabled / too long / DMA error at the end), each of another port
  logic [1:0] port_drop_inc [PORT_COUNT];
  always_comb begin
    for (int p = 0; p < PORT_COUNT; p++) begin
      port_drop_inc[p] = 2'(in_acc && in_drop && !in_frame_q && 32'(sel) == p)
                       + 2'(join_fire && (j_err || j_over) && 32'(rec_port[rec_rp_q[3:0]]) == p)
                       + 2'(dn_fire && !(dn_ok && dn_cpl_status == beryl_nic_pkg::CPL_OK) && 32'(e_port[dn_i]) == p);
    end
  end
  always_ff @(posedge gclk) begin
    for (int p = 0; p < PORT_COUNT; p++) begin
      port_drop_count[p*32 +: 32] <= port_drop_count[p*32 +: 32] + 32'(port_drop_inc[p]);
    end
    if (rst) port_drop_count <= '0;
  end

  // counters
  always_ff @(posedge gclk) begin
    if (in_acc && in_drop && !in_frame_q) drop_no_slot_count <= drop_no_slot_count + 32'd1;
    if (join_fire && j_err) drop_mac_err_count <= drop_mac_err_count + 32'd1;
    if (join_fire && !j_err && j_over) drop_oversize_count <= drop_oversize_count + 32'd1;
    if (dn_fire) begin
      if (e_status[dn_i] == beryl_nic_pkg::QM_EMPTY) drop_no_desc_count <= drop_no_desc_count + 32'd1;
      if (e_status[dn_i] == beryl_nic_pkg::QM_DISABLED || e_status[dn_i] == beryl_nic_pkg::QM_BAD_IDX) begin
        drop_disabled_count <= drop_disabled_count + 32'd1;
      end
      if (dn_ok && dn_cpl_status == beryl_nic_pkg::CPL_TOO_LONG) begin
        drop_too_long_count <= drop_too_long_count + 32'd1;
      end
      if (dn_ok && dn_cpl_status == beryl_nic_pkg::CPL_DMA_ERR) dma_err_count <= dma_err_count + 32'd1;
      if (dn_ok && dn_cpl_status == beryl_nic_pkg::CPL_OK) begin
        pkt_count  <= pkt_count + 32'd1;
        byte_count <= byte_count + 32'(e_len[dn_i]);
        port_pkt_count[e_port[dn_i]*32 +: 32]  <= port_pkt_count[e_port[dn_i]*32 +: 32] + 32'd1;
        port_byte_count[e_port[dn_i]*32 +: 32] <= port_byte_count[e_port[dn_i]*32 +: 32] + 32'(e_len[dn_i]);
      end
    end
    if (rst) begin
      pkt_count           <= '0;
      byte_count          <= '0;
      drop_no_desc_count  <= '0;
      drop_disabled_count <= '0;
      drop_too_long_count <= '0;
      drop_no_slot_count  <= '0;
      drop_oversize_count <= '0;
      drop_mac_err_count  <= '0;
      dma_err_count       <= '0;
      port_pkt_count      <= '0;
      port_byte_count     <= '0;
    end
  end

  // =========================================================================================
  // Clock gate: the engine's flops are clocked only in cycles in which one of them could change.
  // Every update above happens under one of: a beat at an input port (in_acc; past a frame's first
  // beat only in the ingress block, which has a gate of its own, u_gate_in), a frame record waiting
  // for its join (rec_valid), a checksum result (csum_valid), a descriptor write from the DMA engine,
  // a QM op or DMA read request not yet taken, a failed read waiting for its retry (rty_any), a fetch
  // wanted (f_any), a QM response, a DMA read or
  // write status, a flush, a flushed entry to drop (fl_idle), a frame waiting for its descriptor
  // (a_valid; also covers allocation and eviction returns being queued), the head-of-line flag
  // (a_seen_q), the descriptor-store read (d_valid_q; asgd_q follows asgp_q one cycle later),
  // frames to transmit, the oldest frame ready to retire (dn_ready: not one still waiting for its DMA
  // write status, which arrives as an input), eviction returns waiting, a completion not yet taken, a statistics
  // pulse (stat_valid clears itself). busy_q, the ring and the counters change only with those.
  // =========================================================================================
  // The terms the engine's own state decides are a variable of their own (kept in a Verilator model,
  // public_flat_rd), which a C++ model then re-evaluates only when that state changes, not whenever one
  // of the enable's inputs from other blocks does (sim/README.md, "Clock gates").
  logic busy_int /*verilator public_flat_rd*/;
  assign busy_int = rec_valid || op_req_valid_q || f_any || rd_desc_valid_q || rty_any || (|fl_idle) || a_valid ||
                    a_seen_q || d_valid_q || wr_desc_valid_q || txp_q != asgd_q || dn_ready ||
                    ret_wp_q != ret_rp_q || cpl_valid_q || stat_valid;
  // Every beat of a frame opens only the ingress gate; the rest of the engine reads the input beats
  // only at the first beat of a frame (a slot taken, or the frame dropped for want of one: busy_set,
  // the no-slot drop counters) and the ingress state through the frame records (rec_valid).
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (in_acc && !in_frame_q) || csum_valid || (|ram_wr_cmd_valid) || op_rsp_valid ||
           rd_desc_status_valid || flush_valid || wr_desc_status_valid || busy_int),
    .gclk (gclk)
  );
  // ingress: a beat taken (in_acc), a record taken by the join (rec_pop), reset
  beryl_clk_gate u_gate_in (
    .clk  (clk),
    .en   (rst || in_acc || rec_pop),
    .gclk (gclk_in)
  );

  // only the fields the engine uses; the rest of the response is for other clients
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused;
  assign unused = ^{op_rsp_qidx, op_rsp_target[31:16], rd_desc_status_tag, wr_desc_status_tag,
                    ram_wr_cmd_addr, ram_rd_cmd_addr, ram_wr_cmd_be, ram_wr_cmd_data,
                    fram_wr_ready, fram_byte[5:0]};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
