// SPDX-License-Identifier: MIT
// DMA RAM read-port demux: the top log2(PORTS) bits of each segment's row address pick the client; a FIFO
// per segment remembers the client of each read so responses return in command order. Combinational
// (no added latency, valid/ready pass through); up to FIFO_DEPTH reads outstanding per segment.
// resp_any/resp_sel name the client whose response a segment waits for. With DATA = 0 the demux does not
// select the response data (s_ram_rd_resp_data is 0, m_ram_rd_resp_data is not read): the parent does,
// with resp_any/resp_sel, from its clients' data as separate variables. (A Verilator model copies every
// client's read data into the concatenated m_ram_rd_resp_data whenever the client's clock runs, about 1 %
// of a busy simulated cycle in beryl_nic_if; separate variables are its clients' own outputs.)
`default_nettype none

module beryl_dma_ram_rd_demux #(
  parameter int PORTS             = 2,                  // clients, power of two, 1..16
  parameter int SEG_COUNT         = 2,                  // RAM segments, fixed at 2
  parameter int SEG_DATA_W        = 512,                // bits per segment
  parameter int SEG_ADDR_W        = 12,                 // engine-side row address width, > log2(PORTS)
  // client row address width: the low bits of the engine row address; = SEG_ADDR_W - log2(PORTS)
  parameter int CLIENT_SEG_ADDR_W = SEG_ADDR_W - $clog2(PORTS),
  parameter int FIFO_DEPTH        = 8,                  // reads outstanding per segment, power of two, 2..64
  parameter bit DATA              = 1'b1                // select the response data (0: the parent does)
) (
  input  wire logic                                            clk,
  input  wire logic                                            rst,

  // engine side (the DMA write engine's RAM read port)
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0]                 s_ram_rd_cmd_addr,
  input  wire logic [SEG_COUNT-1:0]                            s_ram_rd_cmd_valid,
  output logic [SEG_COUNT-1:0]                                 s_ram_rd_cmd_ready,
  output logic [SEG_COUNT*SEG_DATA_W-1:0]                      s_ram_rd_resp_data,
  output logic [SEG_COUNT-1:0]                                 s_ram_rd_resp_valid,
  input  wire logic [SEG_COUNT-1:0]                            s_ram_rd_resp_ready,

  // client side: client p, segment s in slice p*SEG_COUNT + s
  output logic [PORTS*SEG_COUNT*CLIENT_SEG_ADDR_W-1:0]         m_ram_rd_cmd_addr,
  output logic [PORTS*SEG_COUNT-1:0]                           m_ram_rd_cmd_valid,
  input  wire logic [PORTS*SEG_COUNT-1:0]                      m_ram_rd_cmd_ready,
  input  wire logic [PORTS*SEG_COUNT*SEG_DATA_W-1:0]           m_ram_rd_resp_data,
  input  wire logic [PORTS*SEG_COUNT-1:0]                      m_ram_rd_resp_valid,
  output logic [PORTS*SEG_COUNT-1:0]                           m_ram_rd_resp_ready,

  // per segment: a read is outstanding, and the client its oldest response comes from
  output logic [SEG_COUNT-1:0]                                 resp_any,
  output logic [SEG_COUNT*(PORTS > 1 ? $clog2(PORTS) : 1)-1:0] resp_sel
);

  localparam int SEL_W = $clog2(PORTS);
  localparam int IDX_W = PORTS > 1 ? SEL_W : 1;
  localparam int PTR_W = $clog2(FIFO_DEPTH);

  if (PORTS < 1 || PORTS > 16 || (PORTS & (PORTS - 1)) != 0) begin : g_chk_ports
    $error("%m: PORTS must be a power of two, 1..16");
  end
  if (SEG_COUNT != 2) begin : g_chk_seg
    $error("%m: SEG_COUNT must be 2");
  end
  if (SEG_ADDR_W <= SEL_W || CLIENT_SEG_ADDR_W != SEG_ADDR_W - SEL_W) begin : g_chk_addr
    $error("%m: SEG_ADDR_W must exceed log2(PORTS) and CLIENT_SEG_ADDR_W must be SEG_ADDR_W - log2(PORTS)");
  end
  if (FIFO_DEPTH < 2 || FIFO_DEPTH > 64 || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin : g_chk_depth
    $error("%m: FIFO_DEPTH must be a power of two, 2..64");
  end

  logic [SEG_COUNT*IDX_W-1:0] sel;     // client of each segment's command
  logic [SEG_COUNT*IDX_W-1:0] head;    // client of each segment's oldest outstanding read
  logic [SEG_COUNT-1:0]       full;
  logic [SEG_COUNT-1:0]       empty;

  // Clock gate: the order FIFOs change only with a read command (push) or while reads are outstanding
  // (pop needs a non-empty FIFO).
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (|s_ram_rd_cmd_valid) || !(&empty)),
    .gclk (gclk)
  );

  for (genvar s = 0; s < SEG_COUNT; s++) begin : g_seg
    logic [IDX_W-1:0] fifo_q [FIFO_DEPTH];
    logic [PTR_W:0]   wr_q;
    logic [PTR_W:0]   rd_q;
    logic             push;
    logic             pop;

    if (PORTS > 1) begin : g_multi
      assign sel[s*IDX_W +: IDX_W] = s_ram_rd_cmd_addr[s*SEG_ADDR_W + SEG_ADDR_W - 1 -: SEL_W];
    end else begin : g_single
      // a single client takes the whole address; the FIFO only bounds the reads outstanding
      assign sel[s*IDX_W +: IDX_W] = '0;
    end

    assign full[s]  = wr_q == {~rd_q[PTR_W], rd_q[PTR_W-1:0]};
    assign empty[s] = wr_q == rd_q;
    assign head[s*IDX_W +: IDX_W] = fifo_q[rd_q[PTR_W-1:0]];
    assign push = s_ram_rd_cmd_valid[s] && s_ram_rd_cmd_ready[s];
    assign pop  = s_ram_rd_resp_valid[s] && s_ram_rd_resp_ready[s];

    always_ff @(posedge gclk) begin
      if (push) begin
        fifo_q[wr_q[PTR_W-1:0]] <= sel[s*IDX_W +: IDX_W];
        wr_q <= wr_q + 1'b1;
      end
      if (pop) rd_q <= rd_q + 1'b1;
      if (rst) begin
        wr_q <= '0;
        rd_q <= '0;
      end
    end
  end

  assign resp_any = ~empty;
  assign resp_sel = head;

  if (!DATA) begin : g_no_data
    // the parent selects the data (resp_any, resp_sel)
    logic unused_data;
    assign unused_data = ^m_ram_rd_resp_data;
  end

  // Commands: address to every client, valid to the selected one while the order FIFO has room.
  // Responses: only the client of the oldest read is listened to (and given ready).
  always_comb begin
    for (int p = 0; p < PORTS; p++) begin
      for (int s = 0; s < SEG_COUNT; s++) begin
        m_ram_rd_cmd_addr[(p*SEG_COUNT + s)*CLIENT_SEG_ADDR_W +: CLIENT_SEG_ADDR_W] =
          s_ram_rd_cmd_addr[s*SEG_ADDR_W +: CLIENT_SEG_ADDR_W];
        m_ram_rd_cmd_valid[p*SEG_COUNT + s]  = s_ram_rd_cmd_valid[s] && !full[s] &&
                                               sel[s*IDX_W +: IDX_W] == IDX_W'(p);
        m_ram_rd_resp_ready[p*SEG_COUNT + s] = s_ram_rd_resp_ready[s] && !empty[s] &&
                                               head[s*IDX_W +: IDX_W] == IDX_W'(p);
      end
    end
    for (int s = 0; s < SEG_COUNT; s++) begin
      s_ram_rd_cmd_ready[s]  = !full[s] && m_ram_rd_cmd_ready[sel[s*IDX_W +: IDX_W]*SEG_COUNT + s];
      s_ram_rd_resp_valid[s] = !empty[s] && m_ram_rd_resp_valid[head[s*IDX_W +: IDX_W]*SEG_COUNT + s];
      // the data only with a read outstanding (it is meaningless otherwise): the C++ simulator
      // then skips the 512-bit selection on idle cycles
      s_ram_rd_resp_data[s*SEG_DATA_W +: SEG_DATA_W] = '0;
      if (DATA && !empty[s]) begin
        s_ram_rd_resp_data[s*SEG_DATA_W +: SEG_DATA_W] =
          m_ram_rd_resp_data[(head[s*IDX_W +: IDX_W]*SEG_COUNT + s)*SEG_DATA_W +: SEG_DATA_W];
      end
    end
  end

endmodule

`resetall
