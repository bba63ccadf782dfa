// SPDX-License-Identifier: MIT
// NIC receive engine: MAC frames (PORT_COUNT ports, round robin per frame) into frame slots at one beat
// per cycle with parse/RSS/checksum; then per frame, in order: RXQ op, descriptor fetch, DMA write,
// completion, statistics. SLOTS frames in flight; latency a few cycles plus the DMA and QM round trips.
`default_nettype none

module beryl_nic_rx_engine #(
  parameter int DATA_W          = 512,     // MAC stream width, bits: 512 only
  parameter int KEEP_W          = DATA_W / 8,
  parameter int PORT_COUNT      = 1,       // MAC ports, 1..8
  parameter int QI_W            = 8,       // RX queue index width, bits, 1..16
  parameter int SLOTS           = 32,      // frames in flight (frame slots), power of two, 2..256
  parameter int SLOT_BYTES      = 16384,   // bytes per slot = largest frame accepted, power of two, 128..32768
  parameter int RSS_TABLE_DEPTH = 256,     // RSS indirection entries, power of two, 128..65536
  parameter int CNT_W           = 4,       // queue-manager op count width, bits, >= 1
  parameter int LEN_W           = 17,      // DMA length width, bits: 17 only
  parameter int TAG_W           = 8,       // DMA tag width, bits, >= log2(SLOTS)
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
  output logic [PORT_COUNT*32-1:0]             port_pkt_count,
  output logic [PORT_COUNT*32-1:0]             port_byte_count
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

  // =========================================================================================
  // Ingress: port arbiter (round robin at frame boundaries), slot allocation, frame RAM write
  // =========================================================================================
  logic [SLOTS-1:0]      busy_q;          // slot holds a frame
  logic [SLOTS-1:0]      busy_set, busy_clr;
  logic [SLOT_W-1:0]     free_slot;
  logic                  no_free;

  always_comb begin
    free_slot = '0;
    no_free   = 1'b1;
    for (int i = SLOTS - 1; i >= 0; i--) begin
      if (!busy_q[i]) begin
        free_slot = SLOT_W'(i);
        no_free   = 1'b0;
      end
    end
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
    keep_bytes = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      keep_bytes = keep_bytes + 7'(in_keep[i]);
    end
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
  logic [REC_DEPTH-1:0]  rec_err, rec_over;
  logic [4:0]            rec_wp_q, rec_rp_q;
  logic                  rec_push, rec_valid, rec_pop;
  logic                  frame_over;

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
  always_ff @(posedge clk) begin
    if (in_acc) begin
      if (in_last) begin
        in_frame_q <= 1'b0;
        rr_q       <= 32'(sel) == PORT_COUNT - 1 ? '0 : sel + PORT_W'(1);
      end else begin
        in_frame_q <= 1'b1;
      end
      cur_port_q <= sel;
      drop_q     <= in_drop;
      slot_q     <= in_slot;
      off_q      <= end_off > (OFF_W + 1)'(SLOT_BYTES) ? OFF_W'(SLOT_BYTES) : OFF_W'(end_off);
      over_q     <= frame_over;
    end
    if (rec_push) begin
      rec_slot[rec_wp_q[3:0]] <= in_slot;
      rec_len[rec_wp_q[3:0]]  <= 16'(end_off);
      rec_port[rec_wp_q[3:0]] <= sel;
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
  logic [SLOT_W:0]       wp_q, reqp_q, rspp_q, txp_q, donep_q;   // ring pointers, one per stage

  // The checksum block holds only 4 results and a frame's RSS result comes several cycles after its
  // checksum: take checksums at once into a deeper FIFO so back-to-back 1-beat frames keep flowing.
  logic [15:0]           csf_q [CSF_DEPTH];
  logic [3:0]            csf_wp_q, csf_rp_q;
  logic                  csf_valid;

  assign csum_ready = (csf_wp_q - csf_rp_q) != 4'(CSF_DEPTH);
  assign csf_valid  = csf_wp_q != csf_rp_q;

  always_ff @(posedge clk) begin
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
  logic [1:0]            e_status [SLOTS];   // queue-manager status
  logic [15:0]           e_ptr    [SLOTS];   // descriptor ring pointer
  logic [15:0]           e_cq     [SLOTS];   // completion queue (the RX queue's target)
  logic [SLOTS-1:0]      e_desc_done_q, e_desc_err_q, e_too_long_q, e_wr_done_q, e_wr_err_q;

  // descriptors as written by the DMA read engine (upper half of the region), 16 bytes each
  logic [SLOTS*128-1:0]  desc_q;

  always_ff @(posedge clk) begin
    if (join_fire && !j_err && !j_over) begin
      e_slot[wp_q[SLOT_W-1:0]]  <= j_slot;
      e_len[wp_q[SLOT_W-1:0]]   <= rec_len[rec_rp_q[3:0]];
      e_port[wp_q[SLOT_W-1:0]]  <= rec_port[rec_rp_q[3:0]];
      e_queue[wp_q[SLOT_W-1:0]] <= (rss_enable && rss_hash_type != beryl_nic_pkg::HASH_NONE)
                                   ? rss_queue : default_queue;
      e_hash[wp_q[SLOT_W-1:0]]  <= rss_hash;
      e_htype[wp_q[SLOT_W-1:0]] <= rss_hash_type;
      e_csum[wp_q[SLOT_W-1:0]]  <= csf_q[csf_rp_q[2:0]];
    end
  end

  // =========================================================================================
  // Queue-manager requests (one entry each) and responses (start the descriptor fetch)
  // =========================================================================================
  logic op_req_valid_q;
  logic rd_desc_valid_q;
  logic rsp_fire;

  assign op_req_valid = op_req_valid_q;
  assign op_req_count = CNT_W'(1);
  assign op_rsp_ready = !rd_desc_valid_q || rd_desc_ready;
  assign rsp_fire     = op_rsp_valid && op_rsp_ready;
  assign rd_desc_valid = rd_desc_valid_q;
  assign rd_desc_len   = LEN_W'(beryl_nic_pkg::DESC_BYTES);

  always_ff @(posedge clk) begin
    if (op_req_ready) op_req_valid_q <= 1'b0;
    if (reqp_q != wp_q && (!op_req_valid_q || op_req_ready)) begin
      op_req_valid_q <= 1'b1;
      op_req_qidx    <= e_queue[reqp_q[SLOT_W-1:0]];
      reqp_q         <= reqp_q + 1'b1;
    end
    if (rd_desc_ready) rd_desc_valid_q <= 1'b0;
    if (rsp_fire) begin
      e_status[rspp_q[SLOT_W-1:0]] <= op_rsp_status;
      e_ptr[rspp_q[SLOT_W-1:0]]    <= op_rsp_ptr;
      e_cq[rspp_q[SLOT_W-1:0]]     <= op_rsp_target[15:0];
      rspp_q                       <= rspp_q + 1'b1;
      if (op_rsp_status == beryl_nic_pkg::QM_OK) begin
        rd_desc_valid_q   <= 1'b1;
        rd_desc_host_addr <= op_rsp_addr;
        rd_desc_ram_addr  <= RAM_ADDR_W'(FRAME_RAM_BYTES)
                             + RAM_ADDR_W'(rspp_q[SLOT_W-1:0]) * RAM_ADDR_W'(beryl_nic_pkg::DESC_BYTES);
        rd_desc_tag       <= TAG_W'(rspp_q[SLOT_W-1:0]);
      end
    end
    if (rst) begin
      op_req_valid_q  <= 1'b0;
      rd_desc_valid_q <= 1'b0;
      reqp_q          <= '0;
      rspp_q          <= '0;
    end
  end

  // descriptor RAM write port: row r, segment s, 16-byte chunk c hold descriptor 8r + 4s + c
  assign ram_wr_cmd_ready = '1;

  always_ff @(posedge clk) begin
    for (int d = 0; d < SLOTS; d++) begin
      for (int b = 0; b < 16; b++) begin
        if (ram_wr_cmd_valid[(d / 4) % 2]
            && ram_wr_cmd_addr[((d / 4) % 2) * SEG_ADDR_W +: SEG_ADDR_W - 1] == (SEG_ADDR_W - 1)'(d / 8)
            && ram_wr_cmd_be[((d / 4) % 2) * SEG_BE_W + (d % 4) * 16 + b]) begin
          desc_q[d*128 + b*8 +: 8] <= ram_wr_cmd_data[((d / 4) % 2) * SEG_DATA_W + ((d % 4) * 16 + b) * 8 +: 8];
        end
      end
    end
  end

  // =========================================================================================
  // Frame transmission to the host, in order: check the buffer, then DMA write
  // =========================================================================================
  logic [SLOT_W-1:0]        tx_i;
  beryl_nic_pkg::rx_desc_t  tx_desc;
  logic                     wr_desc_valid_q;
  logic                     tx_fire, tx_issue, tx_long;

  assign tx_i          = txp_q[SLOT_W-1:0];
  assign tx_desc       = desc_q[tx_i*128 +: 128];
  assign wr_desc_valid = wr_desc_valid_q;
  assign tx_long       = tx_desc.len < 32'(e_len[tx_i]);

  always_comb begin
    tx_fire  = 1'b0;
    tx_issue = 1'b0;
    if (txp_q != rspp_q) begin
      if (e_status[tx_i] != beryl_nic_pkg::QM_OK) begin
        tx_fire = 1'b1;
      end else if (e_desc_done_q[tx_i]) begin
        if (e_desc_err_q[tx_i] || tx_long) begin
          tx_fire = 1'b1;
        end else if (!wr_desc_valid_q || wr_desc_ready) begin
          tx_fire  = 1'b1;
          tx_issue = 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk) begin
    if (wr_desc_ready) wr_desc_valid_q <= 1'b0;
    if (tx_fire) txp_q <= txp_q + 1'b1;
    if (tx_issue) begin
      wr_desc_valid_q   <= 1'b1;
      wr_desc_host_addr <= tx_desc.addr;
      wr_desc_ram_addr  <= RAM_ADDR_W'(e_slot[tx_i]) * RAM_ADDR_W'(SLOT_BYTES);
      wr_desc_len       <= LEN_W'(e_len[tx_i]);
      wr_desc_tag       <= TAG_W'(tx_i);
    end
    if (rst) begin
      wr_desc_valid_q <= 1'b0;
      txp_q           <= '0;
    end
  end

  // per-entry status bits: cleared when the entry is written, set by the stages and DMA statuses
  always_ff @(posedge clk) begin
    if (join_fire && !j_err && !j_over) begin
      e_desc_done_q[wp_q[SLOT_W-1:0]] <= 1'b0;
      e_desc_err_q[wp_q[SLOT_W-1:0]]  <= 1'b0;
      e_too_long_q[wp_q[SLOT_W-1:0]]  <= 1'b0;
      e_wr_done_q[wp_q[SLOT_W-1:0]]   <= 1'b0;
      e_wr_err_q[wp_q[SLOT_W-1:0]]    <= 1'b0;
    end
    if (rd_desc_status_valid) begin
      e_desc_done_q[rd_desc_status_tag[SLOT_W-1:0]] <= 1'b1;
      e_desc_err_q[rd_desc_status_tag[SLOT_W-1:0]]  <= rd_desc_status_error != 4'd0;
    end
    if (tx_fire && e_status[tx_i] == beryl_nic_pkg::QM_OK && !e_desc_err_q[tx_i] && tx_long) begin
      e_too_long_q[tx_i] <= 1'b1;
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
  beryl_nic_pkg::cpl_t   cpl_d;

  assign dn_i  = donep_q[SLOT_W-1:0];
  assign dn_ok = e_status[dn_i] == beryl_nic_pkg::QM_OK;
  assign cpl_valid = cpl_valid_q;

  always_comb begin
    dn_fire       = 1'b0;
    dn_cpl        = 1'b0;
    dn_cpl_status = beryl_nic_pkg::CPL_OK;
    if (donep_q != txp_q) begin
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
  end

  assign busy_clr = ((join_fire && (j_err || j_over)) ? SLOTS'(1) << j_slot : '0)
                  | (dn_fire ? SLOTS'(1) << e_slot[dn_i] : '0);

  always_ff @(posedge clk) begin
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
    if (rst) begin
      busy_q      <= '0;
      wp_q        <= '0;
      donep_q     <= '0;
      cpl_valid_q <= 1'b0;
      stat_valid  <= 1'b0;
    end
  end

  // counters
  always_ff @(posedge clk) begin
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

  // only the fields the engine uses; the rest of the response is for other clients
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused;
  assign unused = ^{op_rsp_qidx, op_rsp_count, op_rsp_target[31:16], rd_desc_status_tag, wr_desc_status_tag,
                    ram_wr_cmd_addr, ram_rd_cmd_addr, desc_q, tx_desc.rsvd,
                    fram_wr_ready, fram_byte[5:0]};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
