// SPDX-License-Identifier: MIT
// DMA RAM write-port demux: the top log2(PORTS) bits of each segment's row address pick the client
// (pcie_interfaces.md, "Device memory: segmented RAM interface"). Combinational: no added latency,
// valid and ready pass straight through (the paths continue into the engine and the clients).
`default_nettype none

module beryl_dma_ram_wr_demux #(
  parameter int PORTS             = 2,                  // clients, power of two, 1..16
  parameter int SEG_COUNT         = 2,                  // RAM segments, fixed at 2
  parameter int SEG_DATA_W        = 512,                // bits per segment
  parameter int SEG_BE_W          = SEG_DATA_W / 8,     // byte enables per segment
  parameter int SEG_ADDR_W        = 12,                 // engine-side row address width, > log2(PORTS)
  // client row address width: the low bits of the engine row address; = SEG_ADDR_W - log2(PORTS)
  parameter int CLIENT_SEG_ADDR_W = SEG_ADDR_W - $clog2(PORTS)
) (
  // engine side (the DMA read engine's RAM write port)
  input  wire logic [SEG_COUNT*SEG_ADDR_W-1:0]                 s_ram_wr_cmd_addr,
  input  wire logic [SEG_COUNT*SEG_BE_W-1:0]                   s_ram_wr_cmd_be,
  input  wire logic [SEG_COUNT*SEG_DATA_W-1:0]                 s_ram_wr_cmd_data,
  input  wire logic [SEG_COUNT-1:0]                            s_ram_wr_cmd_valid,
  output logic [SEG_COUNT-1:0]                                 s_ram_wr_cmd_ready,

  // client side: client p, segment s in slice p*SEG_COUNT + s
  output logic [PORTS*SEG_COUNT*CLIENT_SEG_ADDR_W-1:0]         m_ram_wr_cmd_addr,
  output logic [PORTS*SEG_COUNT*SEG_BE_W-1:0]                  m_ram_wr_cmd_be,
  output logic [PORTS*SEG_COUNT*SEG_DATA_W-1:0]                m_ram_wr_cmd_data,
  output logic [PORTS*SEG_COUNT-1:0]                           m_ram_wr_cmd_valid,
  input  wire logic [PORTS*SEG_COUNT-1:0]                      m_ram_wr_cmd_ready
);

  localparam int SEL_W = $clog2(PORTS);
  localparam int IDX_W = PORTS > 1 ? SEL_W : 1;

  if (PORTS < 1 || PORTS > 16 || (PORTS & (PORTS - 1)) != 0) begin : g_chk_ports
    $error("%m: PORTS must be a power of two, 1..16");
  end
  if (SEG_COUNT != 2) begin : g_chk_seg
    $error("%m: SEG_COUNT must be 2");
  end
  if (SEG_ADDR_W <= SEL_W || CLIENT_SEG_ADDR_W != SEG_ADDR_W - SEL_W) begin : g_chk_addr
    $error("%m: SEG_ADDR_W must exceed log2(PORTS) and CLIENT_SEG_ADDR_W must be SEG_ADDR_W - log2(PORTS)");
  end

  logic [SEG_COUNT*IDX_W-1:0] sel;   // client of each segment's command

  for (genvar s = 0; s < SEG_COUNT; s++) begin : g_sel
    if (PORTS > 1) begin : g_multi
      assign sel[s*IDX_W +: IDX_W] = s_ram_wr_cmd_addr[s*SEG_ADDR_W + SEG_ADDR_W - 1 -: SEL_W];
    end else begin : g_single
      // a single client takes the whole address: nothing to decode
      assign sel[s*IDX_W +: IDX_W] = '0;
    end
  end

  // address, data and byte enables go to every client; only the selected one sees valid
  always_comb begin
    for (int p = 0; p < PORTS; p++) begin
      for (int s = 0; s < SEG_COUNT; s++) begin
        m_ram_wr_cmd_addr[(p*SEG_COUNT + s)*CLIENT_SEG_ADDR_W +: CLIENT_SEG_ADDR_W] =
          s_ram_wr_cmd_addr[s*SEG_ADDR_W +: CLIENT_SEG_ADDR_W];
        m_ram_wr_cmd_be[(p*SEG_COUNT + s)*SEG_BE_W +: SEG_BE_W]       = s_ram_wr_cmd_be[s*SEG_BE_W +: SEG_BE_W];
        m_ram_wr_cmd_data[(p*SEG_COUNT + s)*SEG_DATA_W +: SEG_DATA_W] = s_ram_wr_cmd_data[s*SEG_DATA_W +: SEG_DATA_W];
        m_ram_wr_cmd_valid[p*SEG_COUNT + s] = s_ram_wr_cmd_valid[s] && sel[s*IDX_W +: IDX_W] == IDX_W'(p);
      end
    end
    for (int s = 0; s < SEG_COUNT; s++) begin
      s_ram_wr_cmd_ready[s] = m_ram_wr_cmd_ready[sel[s*IDX_W +: IDX_W]*SEG_COUNT + s];
    end
  end

endmodule

`resetall
