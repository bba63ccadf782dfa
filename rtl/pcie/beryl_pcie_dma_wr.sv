// SPDX-License-Identifier: MIT
// DMA write engine (device RAM -> host): splits descriptors into memory-write TLPs and
// streams their payload from the segmented RAM. Throughput: one TLP beat per cycle on long
// transfers, short descriptors included; descriptor to first beat takes about 6 cycles plus the
// RAM read latency.
//
// Pipeline:
//   descriptor queue -> splitter (one TLP record per cycle) -> read issuer (one beat's RAM
//   reads per cycle, per-beat info FIFO, header FIFO) -> per-segment response FIFOs ->
//   assembler (carry register + barrel shifter, registered TLP output).
// Every RAM chunk (one segment of one row) a descriptor needs is read exactly once: a beat
// combines the chunk kept in the carry register with at most one new chunk, except the first
// beat of a descriptor, which may read both segments at once.
`default_nettype none

module beryl_pcie_dma_wr #(
  parameter int TLP_DATA_W      = 512,  // TLP stream data width in bits: 256 or 512
  parameter int RAM_ADDR_W      = 20,   // device RAM byte address width, 14..40
  parameter int LEN_W           = 17,   // descriptor length width; lengths 1..2^(LEN_W-1) bytes; 2..32
  parameter int TAG_W           = 8,    // client tag width in bits, 1..32
  parameter int SEG_COUNT       = 2,    // RAM segments; must be 2
  parameter int SEG_DATA_W      = TLP_DATA_W,  // RAM segment width in bits; must equal TLP_DATA_W
  parameter int SEG_ADDR_W      = RAM_ADDR_W - $clog2(SEG_COUNT * SEG_DATA_W / 8),  // RAM row address width
  // Per-segment read-response FIFO entries (power of two, 2..64). Also the bound on each
  // segment's outstanding reads: full rate needs about (RAM read latency + 3) / 2 entries.
  parameter int RESP_FIFO_DEPTH = 8
) (
  input  wire                           clk,
  input  wire                           rst,

  // Write descriptors (device to host)
  input  wire [63:0]                    wr_desc_host_addr,
  input  wire [RAM_ADDR_W-1:0]          wr_desc_ram_addr,
  input  wire [LEN_W-1:0]               wr_desc_len,
  input  wire [TAG_W-1:0]               wr_desc_tag,
  input  wire                           wr_desc_valid,
  output logic                          wr_desc_ready,

  output logic [TAG_W-1:0]              wr_desc_status_tag,
  output logic [3:0]                    wr_desc_status_error,
  output logic                          wr_desc_status_valid,

  // Memory-write TLPs towards tx_req
  output logic [127:0]                  tx_wr_req_tlp_hdr,
  output logic [TLP_DATA_W-1:0]         tx_wr_req_tlp_data,
  output logic [TLP_DATA_W/32-1:0]      tx_wr_req_tlp_strb,
  output logic                          tx_wr_req_tlp_sop,
  output logic                          tx_wr_req_tlp_eop,
  output logic                          tx_wr_req_tlp_valid,
  input  wire                           tx_wr_req_tlp_ready,

  // Segmented RAM read port
  output logic [SEG_COUNT*SEG_ADDR_W-1:0] ram_rd_cmd_addr,
  output logic [SEG_COUNT-1:0]          ram_rd_cmd_valid,
  input  wire  [SEG_COUNT-1:0]          ram_rd_cmd_ready,
  input  wire  [SEG_COUNT*SEG_DATA_W-1:0] ram_rd_resp_data,
  input  wire  [SEG_COUNT-1:0]          ram_rd_resp_valid,
  output logic [SEG_COUNT-1:0]          ram_rd_resp_ready,

  // Configuration
  input  wire [2:0]                     max_payload_size,  // Device Control MPS encoding
  input  wire                           bus_master_en,

  // Statistics (wrap at 2^32)
  output logic [31:0]                   stat_desc_count,   // descriptors finished, errors included
  output logic [31:0]                   stat_byte_count    // payload bytes in accepted TLPs
);

  // ---------------------------------------------------------------------------------------
  // Parameters and checks
  // ---------------------------------------------------------------------------------------
  localparam int BEAT_BYTES = TLP_DATA_W / 8;
  localparam int BEAT_DW    = TLP_DATA_W / 32;
  localparam int OFF_W      = $clog2(BEAT_BYTES);       // byte offset inside a chunk
  localparam int CHUNK_W    = RAM_ADDR_W - OFF_W;       // chunk (segment-row) index width
  localparam int TLEN_W     = 13;                        // bytes in one TLP, 1..4096
  localparam int DWLEN_W    = 11;                        // DWs in one TLP, 1..1024
  localparam int BEATS_W    = 9;                         // beats in one TLP, 1..128
  localparam int RDCNT_W    = 9;                         // chunk reads for one TLP, 0..129
  localparam int INFO_DEPTH = 2 * RESP_FIFO_DEPTH;
  localparam int HDR_DEPTH  = RESP_FIFO_DEPTH;
  localparam int OUT_W      = $clog2(RESP_FIFO_DEPTH) + 1;
  localparam logic [LEN_W:0] LEN_MAX = (LEN_W + 1)'(1) << (LEN_W - 1);

  if (TLP_DATA_W != 256 && TLP_DATA_W != 512) begin : g_check_data_w
    $error("%m: TLP_DATA_W must be 256 or 512");
  end
  if (SEG_COUNT != 2 || SEG_DATA_W != TLP_DATA_W) begin : g_check_seg
    $error("%m: the RAM must have SEG_COUNT = 2 segments of SEG_DATA_W = TLP_DATA_W bits");
  end
  if (SEG_ADDR_W != RAM_ADDR_W - OFF_W - 1) begin : g_check_seg_addr
    $error("%m: SEG_ADDR_W must be RAM_ADDR_W - log2(row bytes)");
  end
  if (RAM_ADDR_W < 14 || RAM_ADDR_W > 40) begin : g_check_ram_addr
    $error("%m: RAM_ADDR_W must be in 14..40");
  end
  if (LEN_W < 2 || LEN_W > 32) begin : g_check_len
    $error("%m: LEN_W must be in 2..32");
  end
  if (TAG_W < 1 || TAG_W > 32) begin : g_check_tag
    $error("%m: TAG_W must be in 1..32");
  end
  if (RESP_FIFO_DEPTH < 2 || RESP_FIFO_DEPTH > 64) begin : g_check_depth
    $error("%m: RESP_FIFO_DEPTH must be a power of two in 2..64");
  end

  // ---------------------------------------------------------------------------------------
  // Descriptor queue: two entries, so a descriptor can be accepted every cycle while the
  // splitter starts the next one in the cycle it emits the last TLP of the current one.
  // ---------------------------------------------------------------------------------------
  localparam int DQ_W = 64 + RAM_ADDR_W + LEN_W + TAG_W + 1;

  logic [63:0]            dq_host;
  logic [RAM_ADDR_W-1:0]  dq_ram;
  logic [LEN_W-1:0]       dq_len;
  logic [TAG_W-1:0]       dq_tag;
  logic                   dq_ok;
  logic                   dq_valid;
  logic                   dq_in_ready;
  logic                   dq_pop;
  logic                   desc_len_ok;

  assign desc_len_ok = (wr_desc_len != '0) && ((LEN_W + 1)'(wr_desc_len) <= LEN_MAX);

  // the engine's flops and its FIFOs (the clock gate is at the end)
  logic                   gclk;

  // bus_master_en gates the handshake only; queued descriptors wait in the splitter.
  beryl_pcie_dma_wr_fifo #(
    .WIDTH(DQ_W),
    .DEPTH(2)
  ) u_desc_fifo (
    .clk      (gclk),
    .rst      (rst),
    .in_data  ({wr_desc_host_addr, wr_desc_ram_addr, wr_desc_len, wr_desc_tag, desc_len_ok}),
    .in_valid (wr_desc_valid && bus_master_en),
    .in_ready (dq_in_ready),
    .out_data ({dq_host, dq_ram, dq_len, dq_tag, dq_ok}),
    .out_valid(dq_valid),
    .out_ready(dq_pop)
  );

  assign wr_desc_ready = bus_master_en && dq_in_ready;

  // Descriptors accepted and not yet reported; an erroneous descriptor waits for zero so
  // that statuses stay in descriptor order and never collide.
  logic [15:0]            inflight_q;

  // ---------------------------------------------------------------------------------------
  // Splitter: cuts the current descriptor into TLPs at MPS-aligned host addresses, which
  // keeps each TLP within MPS and within a 4 KiB page (PCIe 3.0 section 2.2.7: a request
  // must not cross a 4 KiB boundary; MPS divides 4096).
  // ---------------------------------------------------------------------------------------
  logic                   s1_active_q;
  logic [63:0]            s1_host_q;
  logic [RAM_ADDR_W-1:0]  s1_ram_q;
  logic [LEN_W-1:0]       s1_rem_q;
  logic [TAG_W-1:0]       s1_tag_q;
  logic                   s1_first_q;
  logic [CHUNK_W-1:0]     s1_prev_last_c_q;  // last chunk read for the previous TLP

  logic [2:0]             mps_enc;
  logic [TLEN_W-1:0]      mps_bytes;
  logic [TLEN_W-1:0]      to_boundary;
  logic [31:0]            rem_ext;
  logic                   s1_last;
  logic [TLEN_W-1:0]      tlp_len;
  logic [1:0]             first_off;
  logic [TLEN_W-1:0]      pay_bytes;  // first_off + tlp_len, at most 4096
  logic [DWLEN_W-1:0]     dw_len;
  logic [1:0]             end_off;
  logic [3:0]             first_mask;
  logic [3:0]             last_mask;
  logic [3:0]             first_be;
  logic [3:0]             last_be;
  logic [BEATS_W-1:0]     beats;
  logic [RAM_ADDR_W-1:0]  win_addr;   // RAM address of payload byte 0 of the first beat
  logic [CHUNK_W-1:0]     first_c;
  logic [CHUNK_W-1:0]     last_c;
  logic [CHUNK_W-1:0]     rd_first;
  logic [RDCNT_W-1:0]     rd_count;

  always_comb begin
    // MPS encodings above 4096 bytes are reserved; treat them as 4096.
    mps_enc     = (max_payload_size > 3'd5) ? 3'd5 : max_payload_size;
    mps_bytes   = TLEN_W'(128) << mps_enc;
    to_boundary = mps_bytes - (s1_host_q[TLEN_W-1:0] & (mps_bytes - 1'b1));
    rem_ext     = 32'(s1_rem_q);
    s1_last     = (rem_ext <= 32'(to_boundary));
    tlp_len     = s1_last ? rem_ext[TLEN_W-1:0] : to_boundary;

    // Byte enables, PCIe 3.0 section 2.2.5: a 1-DW request carries its enables in
    // First DW BE with Last DW BE = 0000b; a longer one enables all bytes from the start
    // address in the first DW and up to the end address in the last DW.
    first_off  = s1_host_q[1:0];
    pay_bytes  = TLEN_W'(first_off) + tlp_len;
    dw_len     = DWLEN_W'((pay_bytes + TLEN_W'(3)) >> 2);
    end_off    = first_off + tlp_len[1:0];
    first_mask = 4'hf << first_off;
    last_mask  = 4'hf >> (2'd0 - end_off);
    if (dw_len == DWLEN_W'(1)) begin
      first_be = first_mask & last_mask;
      last_be  = 4'h0;
    end else begin
      first_be = first_mask;
      last_be  = last_mask;
    end
    beats = BEATS_W'((pay_bytes + TLEN_W'(BEAT_BYTES - 1)) >> OFF_W);

    // Payload byte p of the TLP (p counted from the DW-aligned host address) comes from RAM
    // address win_addr + p; bytes before first_off are padding and masked by first_be.
    win_addr = s1_ram_q - RAM_ADDR_W'(first_off);
    first_c  = s1_ram_q[RAM_ADDR_W-1:OFF_W];
    last_c   = CHUNK_W'((s1_ram_q + RAM_ADDR_W'(tlp_len) - 1'b1) >> OFF_W);
    // Chunks up to the previous TLP's last one are already read (the carry holds the last).
    rd_first = s1_first_q ? first_c : s1_prev_last_c_q + 1'b1;
    rd_count = RDCNT_W'(last_c - rd_first + 1'b1);
  end

  // TLP record handed from the splitter to the read issuer
  logic                   rec_valid_q;
  logic [61:0]            rec_addr_q;
  logic [DWLEN_W-1:0]     rec_dw_len_q;
  logic [3:0]             rec_first_be_q;
  logic [3:0]             rec_last_be_q;
  logic [BEATS_W-1:0]     rec_beats_q;
  logic [OFF_W-1:0]       rec_shift_q;
  logic [CHUNK_W-1:0]     rec_lo_q;
  logic [CHUNK_W-1:0]     rec_rd_first_q;
  logic [RDCNT_W-1:0]     rec_rd_count_q;
  logic                   rec_desc_last_q;
  logic [TAG_W-1:0]       rec_tag_q;
  logic [TLEN_W-1:0]      rec_len_q;
  logic                   rec_take;

  logic                   s1_go;
  logic                   s1_load;
  logic                   s1_err;

  assign s1_go   = s1_active_q && bus_master_en && (!rec_valid_q || rec_take);
  assign s1_load = dq_valid && dq_ok && (!s1_active_q || (s1_go && s1_last));
  assign s1_err  = dq_valid && !dq_ok && !s1_active_q && (inflight_q == '0);
  assign dq_pop  = s1_load || s1_err;

  always_ff @(posedge gclk) begin
    if (s1_go) begin
      s1_host_q        <= s1_host_q + 64'(tlp_len);
      s1_ram_q         <= s1_ram_q + RAM_ADDR_W'(tlp_len);
      s1_rem_q         <= s1_rem_q - LEN_W'(tlp_len);
      s1_first_q       <= 1'b0;
      s1_prev_last_c_q <= last_c;

      rec_addr_q      <= s1_host_q[63:2];
      rec_dw_len_q    <= dw_len;
      rec_first_be_q  <= first_be;
      rec_last_be_q   <= last_be;
      rec_beats_q     <= beats;
      rec_shift_q     <= win_addr[OFF_W-1:0];
      rec_lo_q        <= win_addr[RAM_ADDR_W-1:OFF_W];
      rec_rd_first_q  <= rd_first;
      rec_rd_count_q  <= rd_count;
      rec_desc_last_q <= s1_last;
      rec_tag_q       <= s1_tag_q;
      rec_len_q       <= tlp_len;
    end
    if (s1_load) begin
      s1_host_q  <= dq_host;
      s1_ram_q   <= dq_ram;
      s1_rem_q   <= dq_len;
      s1_tag_q   <= dq_tag;
      s1_first_q <= 1'b1;
    end

    if (rst) begin
      s1_active_q <= 1'b0;
      rec_valid_q <= 1'b0;
    end else begin
      if (s1_load) begin
        s1_active_q <= 1'b1;
      end else if (s1_go && s1_last) begin
        s1_active_q <= 1'b0;
      end
      if (s1_go) begin
        rec_valid_q <= 1'b1;
      end else if (rec_take) begin
        rec_valid_q <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Read issuer: walks the beats of one TLP, one per cycle. Beat j covers RAM bytes
  // [win + j*BEAT_BYTES, +BEAT_BYTES): chunk lo (shifted down) and chunk lo+1 above it.
  // A chunk is read when it is the next unread one and still inside the TLP's range.
  // ---------------------------------------------------------------------------------------
  logic                   s2_active_q;
  logic [CHUNK_W-1:0]     s2_lo_q;
  logic [OFF_W-1:0]       s2_shift_q;
  logic [BEATS_W-1:0]     s2_beats_q;    // beats left, this one included
  logic [DWLEN_W-1:0]     s2_dw_q;       // DWs left, this beat's included
  logic [CHUNK_W-1:0]     s2_rd_next_q;  // next chunk to read
  logic [RDCNT_W-1:0]     s2_rd_left_q;  // chunk reads left for this TLP
  logic                   s2_sop_q;
  logic [SEG_COUNT-1:0]   s2_done_q;     // segment commands of this beat already accepted

  logic                   lo_unread;
  logic [1:0]             want;
  logic [1:0]             reads;
  logic                   rd_lo;
  logic                   rd_hi;
  logic                   seg_lo;
  logic [SEG_COUNT-1:0]   need;
  logic [CHUNK_W-1:0]     lo_plus1;
  logic                   s2_eop;
  logic [BEAT_DW-1:0]     s2_strb;
  logic                   can_issue;
  logic [SEG_COUNT-1:0]   seg_ok;
  logic                   beat_fire;
  logic [OUT_W-1:0]       outstanding_q [SEG_COUNT];
  logic [SEG_COUNT-1:0]   resp_pop;

  logic                   info_in_ready;
  logic                   hdr_in_valid;
  logic                   hdr_in_ready;

  always_comb begin
    lo_unread = (s2_lo_q == s2_rd_next_q);
    want      = {1'b0, lo_unread} + {1'b0, (s2_shift_q != '0)};
    reads     = (s2_rd_left_q < RDCNT_W'(want)) ? s2_rd_left_q[1:0] : want;
    rd_lo     = lo_unread && (reads != 2'd0);
    rd_hi     = (reads == 2'd2) || (!lo_unread && (reads == 2'd1));
    seg_lo    = s2_lo_q[0];
    need[0]   = seg_lo ? rd_hi : rd_lo;
    need[1]   = seg_lo ? rd_lo : rd_hi;
    lo_plus1  = s2_lo_q + 1'b1;
    // Chunk c sits in segment c % 2, row c / 2; segment 0 holds lo or, for odd lo, lo + 1.
    ram_rd_cmd_addr = {s2_lo_q[CHUNK_W-1:1], lo_plus1[CHUNK_W-1:1]};

    s2_eop = (s2_beats_q == BEATS_W'(1));
    for (int i = 0; i < BEAT_DW; i++) begin
      s2_strb[i] = (s2_dw_q > DWLEN_W'(i));
    end

    can_issue = s2_active_q && info_in_ready;
    for (int s = 0; s < SEG_COUNT; s++) begin
      ram_rd_cmd_valid[s] = can_issue && need[s] && !s2_done_q[s]
                            && (outstanding_q[s] != OUT_W'(RESP_FIFO_DEPTH));
      seg_ok[s] = !need[s] || s2_done_q[s] || (ram_rd_cmd_valid[s] && ram_rd_cmd_ready[s]);
    end
    beat_fire = can_issue && (&seg_ok);

    hdr_in_valid = rec_valid_q && (!s2_active_q || (beat_fire && s2_eop));
    rec_take     = hdr_in_valid && hdr_in_ready;
  end

  always_ff @(posedge gclk) begin
    if (rec_take) begin
      s2_lo_q      <= rec_lo_q;
      s2_shift_q   <= rec_shift_q;
      s2_beats_q   <= rec_beats_q;
      s2_dw_q      <= rec_dw_len_q;
      s2_rd_next_q <= rec_rd_first_q;
      s2_rd_left_q <= rec_rd_count_q;
      s2_sop_q     <= 1'b1;
    end else if (beat_fire) begin
      s2_lo_q      <= lo_plus1;
      s2_beats_q   <= s2_beats_q - 1'b1;
      s2_dw_q      <= s2_dw_q - DWLEN_W'(BEAT_DW);
      s2_rd_next_q <= s2_rd_next_q + CHUNK_W'(reads);
      s2_rd_left_q <= s2_rd_left_q - RDCNT_W'(reads);
      s2_sop_q     <= 1'b0;
    end

    if (rst) begin
      s2_active_q <= 1'b0;
      s2_done_q   <= '0;
    end else begin
      if (rec_take) begin
        s2_active_q <= 1'b1;
      end else if (beat_fire && s2_eop) begin
        s2_active_q <= 1'b0;
      end
      if (beat_fire) begin
        s2_done_q <= '0;
      end else begin
        s2_done_q <= s2_done_q | (ram_rd_cmd_valid & ram_rd_cmd_ready);
      end
    end
  end

  // Reads in flight or buffered, per segment: a command is only issued when its response
  // has a FIFO entry waiting, so ram_rd_resp_ready stays high and the RAM never stalls.
  for (genvar s = 0; s < SEG_COUNT; s++) begin : g_outstanding
    always_ff @(posedge gclk) begin
      if (rst) begin
        outstanding_q[s] <= '0;
      end else if ((ram_rd_cmd_valid[s] && ram_rd_cmd_ready[s]) && !resp_pop[s]) begin
        outstanding_q[s] <= outstanding_q[s] + 1'b1;
      end else if (!(ram_rd_cmd_valid[s] && ram_rd_cmd_ready[s]) && resp_pop[s]) begin
        outstanding_q[s] <= outstanding_q[s] - 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // FIFOs between issuer and assembler
  // ---------------------------------------------------------------------------------------
  localparam int INFO_W = 1 + 1 + BEAT_DW + OFF_W + 1 + 1 + 1;
  localparam int HDR_W  = 128 + TAG_W + 1 + TLEN_W;

  beryl_pcie_pkg::tlp_mem_hdr_t rec_hdr;

  always_comb begin
    rec_hdr              = '0;
    rec_hdr.dw0.fmt      = beryl_pcie_pkg::FMT_4DW_DATA;
    rec_hdr.dw0.tlp_type = beryl_pcie_pkg::TYPE_MEM;
    rec_hdr.dw0.length   = rec_dw_len_q[9:0];  // 1024 DW encodes as 0
    rec_hdr.last_be      = rec_last_be_q;
    rec_hdr.first_be     = rec_first_be_q;
    rec_hdr.addr         = rec_addr_q;
  end

  logic [INFO_W-1:0]      info_out;
  logic                   info_out_valid;
  logic                   info_pop;
  logic [HDR_W-1:0]       hdr_out;
  logic                   hdr_out_valid;
  logic                   hdr_pop;

  beryl_pcie_dma_wr_fifo #(
    .WIDTH(INFO_W),
    .DEPTH(INFO_DEPTH)
  ) u_info_fifo (
    .clk      (gclk),
    .rst      (rst),
    .in_data  ({s2_sop_q, s2_eop, s2_strb, s2_shift_q, rd_lo, rd_hi, seg_lo}),
    .in_valid (beat_fire),
    .in_ready (info_in_ready),
    .out_data (info_out),
    .out_valid(info_out_valid),
    .out_ready(info_pop)
  );

  beryl_pcie_dma_wr_fifo #(
    .WIDTH(HDR_W),
    .DEPTH(HDR_DEPTH)
  ) u_hdr_fifo (
    .clk      (gclk),
    .rst      (rst),
    .in_data  ({rec_hdr, rec_tag_q, rec_desc_last_q, rec_len_q}),
    .in_valid (hdr_in_valid),
    .in_ready (hdr_in_ready),
    .out_data (hdr_out),
    .out_valid(hdr_out_valid),
    .out_ready(hdr_pop)
  );

  logic [SEG_DATA_W-1:0]  resp_data [SEG_COUNT];
  logic [SEG_COUNT-1:0]   resp_valid;

  for (genvar s = 0; s < SEG_COUNT; s++) begin : g_resp_fifo
    beryl_pcie_dma_wr_fifo #(
      .WIDTH(SEG_DATA_W),
      .DEPTH(RESP_FIFO_DEPTH)
    ) u_resp_fifo (
      .clk      (gclk),
      .rst      (rst),
      .in_data  (ram_rd_resp_data[s*SEG_DATA_W +: SEG_DATA_W]),
      .in_valid (ram_rd_resp_valid[s]),
      .in_ready (ram_rd_resp_ready[s]),
      .out_data (resp_data[s]),
      .out_valid(resp_valid[s]),
      .out_ready(resp_pop[s])
    );
  end

  // ---------------------------------------------------------------------------------------
  // Assembler: output beat = ({hi, lo} >> shift bytes), lo from a new read or the carry.
  // ---------------------------------------------------------------------------------------
  logic                   i_sop;
  logic                   i_eop;
  logic [BEAT_DW-1:0]     i_strb;
  logic [OFF_W-1:0]       i_shift;
  logic                   i_rd_lo;
  logic                   i_rd_hi;
  logic                   i_seg_lo;
  logic [TLP_DATA_W-1:0]  carry_q;
  logic [TLP_DATA_W-1:0]  lo_data;
  logic [TLP_DATA_W-1:0]  hi_data;
  logic [TLP_DATA_W-1:0]  window;
  logic                   out_free;
  logic                   a_fire;

  logic [127:0]           hdr_in_fifo;
  logic [TAG_W-1:0]       tag_in_fifo;
  logic                   last_in_fifo;
  logic [TLEN_W-1:0]      len_in_fifo;

  logic [TAG_W-1:0]       out_tag_q;
  logic                   out_desc_last_q;
  logic [TLEN_W-1:0]      out_len_q;
  logic                   out_done;

  assign {i_sop, i_eop, i_strb, i_shift, i_rd_lo, i_rd_hi, i_seg_lo} = info_out;
  assign {hdr_in_fifo, tag_in_fifo, last_in_fifo, len_in_fifo} = hdr_out;

  always_comb begin
    out_free = !tx_wr_req_tlp_valid || tx_wr_req_tlp_ready;
    // A TLP starts only while bus mastering is enabled (PCIe 3.0 section 7.5.1.1).
    a_fire = info_out_valid && out_free && (!i_sop || (bus_master_en && hdr_out_valid))
             && (!i_rd_lo || resp_valid[i_seg_lo]) && (!i_rd_hi || resp_valid[!i_seg_lo]);
    info_pop = a_fire;
    hdr_pop  = a_fire && i_sop;
    resp_pop[0] = a_fire && ((i_rd_lo && !i_seg_lo) || (i_rd_hi && i_seg_lo));
    resp_pop[1] = a_fire && ((i_rd_lo && i_seg_lo) || (i_rd_hi && !i_seg_lo));

    lo_data = i_rd_lo ? resp_data[i_seg_lo] : carry_q;
    hi_data = i_rd_hi ? resp_data[!i_seg_lo] : carry_q;
    window  = TLP_DATA_W'({hi_data, lo_data} >> {i_shift, 3'b000});
    out_done = tx_wr_req_tlp_valid && tx_wr_req_tlp_ready && tx_wr_req_tlp_eop;
  end

  always_ff @(posedge gclk) begin
    if (a_fire) begin
      if (i_rd_hi) begin
        carry_q <= hi_data;
      end else if (i_rd_lo) begin
        carry_q <= lo_data;
      end
      tx_wr_req_tlp_data <= window;
      tx_wr_req_tlp_strb <= i_strb;
      tx_wr_req_tlp_sop  <= i_sop;
      tx_wr_req_tlp_eop  <= i_eop;
      if (i_sop) begin
        tx_wr_req_tlp_hdr <= hdr_in_fifo;
        out_tag_q         <= tag_in_fifo;
        out_desc_last_q   <= last_in_fifo;
        out_len_q         <= len_in_fifo;
      end
    end

    wr_desc_status_tag   <= s1_err ? dq_tag : out_tag_q;
    wr_desc_status_error <= s1_err ? beryl_pcie_pkg::DMA_ERR_LEN : beryl_pcie_pkg::DMA_OK;

    if (rst) begin
      tx_wr_req_tlp_valid  <= 1'b0;
      wr_desc_status_valid <= 1'b0;
      inflight_q           <= '0;
      stat_desc_count      <= '0;
      stat_byte_count      <= '0;
    end else begin
      if (a_fire) begin
        tx_wr_req_tlp_valid <= 1'b1;
      end else if (tx_wr_req_tlp_ready) begin
        tx_wr_req_tlp_valid <= 1'b0;
      end
      // s1_err needs inflight_q == 0, so it never coincides with a normal status.
      wr_desc_status_valid <= s1_err || (out_done && out_desc_last_q);
      if (s1_err || (out_done && out_desc_last_q)) begin
        stat_desc_count <= stat_desc_count + 1'b1;
      end
      if (out_done) begin
        stat_byte_count <= stat_byte_count + 32'(out_len_q);
      end
      if (s1_load && !(out_done && out_desc_last_q)) begin
        inflight_q <= inflight_q + 1'b1;
      end else if (!s1_load && (out_done && out_desc_last_q)) begin
        inflight_q <= inflight_q - 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Clock gate: the flops above and the FIFOs' are clocked only in cycles in which one of them
  // could change. Every update happens under one of: a descriptor offered (FIFO push), one queued
  // (load or length error), the splitter active, a TLP record waiting, the read issuer active (RAM
  // commands, beat info), beat info queued (assembler; it alone pops the header and response
  // FIFOs), a RAM read response (response FIFO push), an output beat not yet taken, a status pulse
  // (it clears itself). wr_desc_status_tag/error load every cycle but equal out_tag_q/DMA_OK except
  // in the cycle after a length error (status valid); out_tag_q changes only with an output beat.
  // ---------------------------------------------------------------------------------------
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (wr_desc_valid && bus_master_en) || dq_valid || s1_active_q || rec_valid_q || s2_active_q ||
           info_out_valid || (|ram_rd_resp_valid) || tx_wr_req_tlp_valid || wr_desc_status_valid),
    .gclk (gclk)
  );

endmodule

`resetall
