// SPDX-License-Identifier: MIT
// AXI-Stream FIFO between two unrelated clocks (s_clk writes, m_clk reads). Gray-coded pointers cross
// through beryl_sync_2ff. Frame mode (FRAME_EN) is store-and-forward: the reader sees a frame only once
// its last beat is in, so a frame leaves without gaps; with DROP_WHEN_FULL_EN the writer never stalls
// and a frame that meets a full FIFO is dropped whole and counted. Throughput one beat per clock on
// each side; latency about 5 m_clk cycles (plus the frame in frame mode, plus one handshake).
`default_nettype none

module beryl_axis_async_fifo #(
  parameter int unsigned DATA_W            = 64,    // tdata width in bits, 8..1024, multiple of 8
  parameter int unsigned USER_W            = 1,     // tuser width in bits, 1..256
  parameter int unsigned DEPTH             = 512,   // entries (beats), power of two, 4..65536
  parameter bit          FRAME_EN          = 1'b0,  // 1: store-and-forward, whole frames only
  parameter bit          DROP_WHEN_FULL_EN = 1'b0,  // 1 (needs FRAME_EN): never stall the writer, drop
                                                    // frames that do not fit; 0: backpressure
  parameter int unsigned CNT_W             = 32     // width of the drop counter, 1..64
) (
  input  wire logic                s_clk,
  input  wire logic                s_rst,   // reset both sides together (overlapping, a few
  input  wire logic                m_clk,   // cycles of the slower clock)
  input  wire logic                m_rst,

  input  wire logic [DATA_W-1:0]   s_axis_tdata,
  input  wire logic [DATA_W/8-1:0] s_axis_tkeep,
  input  wire logic                s_axis_tvalid,
  output      logic                s_axis_tready,
  input  wire logic                s_axis_tlast,
  input  wire logic [USER_W-1:0]   s_axis_tuser,

  output      logic [DATA_W-1:0]   m_axis_tdata,
  output      logic [DATA_W/8-1:0] m_axis_tkeep,
  output      logic                m_axis_tvalid,
  input  wire logic                m_axis_tready,
  output      logic                m_axis_tlast,
  output      logic [USER_W-1:0]   m_axis_tuser,

  // s_clk domain: a frame was dropped (full FIFO, or in frame mode a frame longer than DEPTH beats)
  output      logic                s_drop_frame,
  output      logic [CNT_W-1:0]    s_drop_count   // wraps
);

  if (DATA_W < 8 || DATA_W > 1024 || DATA_W % 8 != 0) begin : g_bad_data_w
    $error("%m: DATA_W must be a multiple of 8 within 8..1024");
  end
  if (DEPTH < 4 || DEPTH > 65536 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
    $error("%m: DEPTH must be a power of two within 4..65536");
  end
  if (DROP_WHEN_FULL_EN && !FRAME_EN) begin : g_bad_drop
    $error("%m: DROP_WHEN_FULL_EN needs FRAME_EN (only whole frames can be dropped)");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("%m: CNT_W must be within 1..64");
  end

  localparam int unsigned KEEP_W = DATA_W / 8;
  localparam int unsigned ADDR_W = $clog2(DEPTH);
  localparam int unsigned PTR_W  = ADDR_W + 1;      // one extra bit tells full from empty
  localparam int unsigned WORD_W = 1 + USER_W + KEEP_W + DATA_W;
  localparam logic [PTR_W-1:0] PTR_MSB = {1'b1, {ADDR_W{1'b0}}};

  function automatic logic [PTR_W-1:0] bin2gray(input logic [PTR_W-1:0] b);
    bin2gray = b ^ (b >> 1);
  endfunction

  function automatic logic [PTR_W-1:0] gray2bin(input logic [PTR_W-1:0] g);
    logic [PTR_W-1:0] b;
    b[PTR_W-1] = g[PTR_W-1];
    for (int unsigned i = 1; i < PTR_W; i++) b[PTR_W-1-i] = b[PTR_W-i] ^ g[PTR_W-1-i];
    gray2bin = b;
  endfunction

  logic [WORD_W-1:0] mem [DEPTH];
  logic [PTR_W-1:0]  m_rd_gray_q;      // read pointer, Gray coded (m_clk), for the writer's full test

  // ---------------------------------------------------------------------------------------------
  // Write side (s_clk)
  // ---------------------------------------------------------------------------------------------
  logic [PTR_W-1:0] s_wr_ptr_q, s_wr_ptr_d;     // next entry to write
  logic [PTR_W-1:0] s_commit_q, s_commit_d;     // end of the last whole frame (= s_wr_ptr outside frame mode)
  logic [PTR_W-1:0] s_wr_gray_q;                // pointer the reader may use, Gray coded
  logic [PTR_W-1:0] s_rd_gray, s_rd_ptr;
  logic             s_drop_q, s_drop_d;         // discarding the rest of a frame
  logic             s_drop_pulse_q, s_drop_pulse_d;
  logic [CNT_W-1:0] s_drop_cnt_q;
  logic             s_full, s_fills, s_beat, s_wr_en;

  beryl_sync_2ff #(
    .WIDTH (PTR_W)
  ) u_sync_rd_ptr (
    .clk      (s_clk),
    .rst      (s_rst),
    .in_async (m_rd_gray_q),
    .out_sync (s_rd_gray)
  );

  assign s_rd_ptr = gray2bin(s_rd_gray);
  assign s_full   = s_wr_ptr_q == (s_rd_ptr ^ PTR_MSB);
  // the frame being written alone fills the FIFO: it can never be committed, so it must be dropped
  assign s_fills  = FRAME_EN && (s_wr_ptr_q == (s_commit_q ^ PTR_MSB));

  always_comb begin
    if (!FRAME_EN)              s_axis_tready = !s_full;
    else if (DROP_WHEN_FULL_EN) s_axis_tready = 1'b1;
    else                        s_axis_tready = !s_full || s_drop_q || s_fills;
  end

  assign s_beat = s_axis_tvalid && s_axis_tready;

  always_comb begin
    s_wr_ptr_d     = s_wr_ptr_q;
    s_commit_d     = s_commit_q;
    s_drop_d       = s_drop_q;
    s_drop_pulse_d = 1'b0;
    s_wr_en        = 1'b0;
    if (s_beat) begin
      if (s_drop_q) begin
        if (s_axis_tlast) s_drop_d = 1'b0;
      end else if (s_full) begin
        // only reachable in frame mode (elsewhere tready is low when full): forget the frame so far
        s_wr_ptr_d     = s_commit_q;
        s_drop_d       = !s_axis_tlast;
        s_drop_pulse_d = 1'b1;
      end else begin
        s_wr_en    = 1'b1;
        s_wr_ptr_d = s_wr_ptr_q + 1'b1;
        if (s_axis_tlast || !FRAME_EN) s_commit_d = s_wr_ptr_q + 1'b1;
      end
    end
  end

  always_ff @(posedge s_clk) begin
    if (s_wr_en) mem[s_wr_ptr_q[ADDR_W-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
  end

  always_ff @(posedge s_clk) begin
    if (s_rst) begin
      s_wr_ptr_q     <= '0;
      s_commit_q     <= '0;
      s_drop_q       <= 1'b0;
      s_drop_pulse_q <= 1'b0;
      s_drop_cnt_q   <= '0;
    end else begin
      s_wr_ptr_q     <= s_wr_ptr_d;
      s_commit_q     <= s_commit_d;
      s_drop_q       <= s_drop_d;
      s_drop_pulse_q <= s_drop_pulse_d;
      s_drop_cnt_q   <= s_drop_cnt_q + CNT_W'(s_drop_pulse_d);
    end
  end

  assign s_drop_frame = s_drop_pulse_q;
  assign s_drop_count = s_drop_cnt_q;

  // ---------------------------------------------------------------------------------------------
  // Write pointer to the read side
  // ---------------------------------------------------------------------------------------------
  logic [PTR_W-1:0] m_wr_gray, m_wr_ptr;

  if (!FRAME_EN) begin : g_ptr_gray
    // the pointer moves by at most one per clock: one Gray bit changes, safe through a 2-flop sync
    always_ff @(posedge s_clk) begin
      if (s_rst) s_wr_gray_q <= '0;
      else       s_wr_gray_q <= bin2gray(s_wr_ptr_d);
    end

    beryl_sync_2ff #(
      .WIDTH (PTR_W)
    ) u_sync_wr_ptr (
      .clk      (m_clk),
      .rst      (m_rst),
      .in_async (s_wr_gray_q),
      .out_sync (m_wr_gray)
    );

    assign m_wr_ptr = gray2bin(m_wr_gray);
  end else begin : g_ptr_handshake
    // The commit pointer jumps by a whole frame, so several Gray bits may change at once. It is
    // published only when the previous value has been taken: the Gray value is held, a request toggle
    // follows it through one more flop than the value has, and the reader acknowledges.
    logic s_req_q, s_ack;
    logic m_req_sync, m_req_q, m_ack_q;
    logic [PTR_W-1:0] m_wr_ptr_q;

    always_ff @(posedge s_clk) begin
      if (s_rst) begin
        s_wr_gray_q <= '0;
        s_req_q     <= 1'b0;
      end else if (s_req_q == s_ack && s_wr_gray_q != bin2gray(s_commit_q)) begin
        s_wr_gray_q <= bin2gray(s_commit_q);
        s_req_q     <= !s_req_q;
      end
    end

    beryl_sync_2ff #(
      .WIDTH (PTR_W)
    ) u_sync_wr_ptr (
      .clk      (m_clk),
      .rst      (m_rst),
      .in_async (s_wr_gray_q),
      .out_sync (m_wr_gray)
    );

    beryl_sync_2ff u_sync_req (
      .clk      (m_clk),
      .rst      (m_rst),
      .in_async (s_req_q),
      .out_sync (m_req_sync)
    );

    beryl_sync_2ff u_sync_ack (
      .clk      (s_clk),
      .rst      (s_rst),
      .in_async (m_ack_q),
      .out_sync (s_ack)
    );

    always_ff @(posedge m_clk) begin
      if (m_rst) begin
        m_req_q    <= 1'b0;
        m_ack_q    <= 1'b0;
        m_wr_ptr_q <= '0;
      end else begin
        m_req_q <= m_req_sync;
        if (m_req_q != m_ack_q) begin
          m_wr_ptr_q <= gray2bin(m_wr_gray);
          m_ack_q    <= m_req_q;
        end
      end
    end

    assign m_wr_ptr = m_wr_ptr_q;
  end

  // ---------------------------------------------------------------------------------------------
  // Read side (m_clk): memory output register, then the output register
  // ---------------------------------------------------------------------------------------------
  logic [PTR_W-1:0]  m_rd_ptr_q, m_rd_ptr_d;
  logic [WORD_W-1:0] m_mem_q, m_out_q;
  logic              m_mem_valid_q, m_out_valid_q;
  logic              m_empty, m_out_adv, m_rd_en;

  assign m_empty    = m_rd_ptr_q == m_wr_ptr;
  assign m_out_adv  = !m_out_valid_q || m_axis_tready;
  assign m_rd_en    = !m_empty && (!m_mem_valid_q || m_out_adv);
  assign m_rd_ptr_d = m_rd_ptr_q + PTR_W'(m_rd_en);

  always_ff @(posedge m_clk) begin
    if (m_rd_en) m_mem_q <= mem[m_rd_ptr_q[ADDR_W-1:0]];
    if (m_out_adv && m_mem_valid_q) m_out_q <= m_mem_q;
  end

  always_ff @(posedge m_clk) begin
    if (m_rst) begin
      m_rd_ptr_q    <= '0;
      m_rd_gray_q   <= '0;
      m_mem_valid_q <= 1'b0;
      m_out_valid_q <= 1'b0;
    end else begin
      m_rd_ptr_q    <= m_rd_ptr_d;
      m_rd_gray_q   <= bin2gray(m_rd_ptr_d);
      m_mem_valid_q <= m_rd_en || (m_mem_valid_q && !m_out_adv);
      if (m_out_adv) m_out_valid_q <= m_mem_valid_q;
    end
  end

  assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = m_out_q;
  assign m_axis_tvalid = m_out_valid_q;

endmodule

`resetall
