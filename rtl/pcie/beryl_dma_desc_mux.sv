// SPDX-License-Identifier: MIT
// DMA descriptor mux: PORTS client channels onto one engine channel (pcie_interfaces.md, "DMA descriptors"),
// round robin, client index above the client tag; statuses go back by that index. Descriptor latency 1
// cycle (registered output), one descriptor per cycle; status latency 1 cycle.
`default_nettype none

module beryl_dma_desc_mux #(
  parameter int PORTS        = 4,                 // client channels, 1..16
  parameter int RAM_ADDR_W   = 20,                // device RAM byte address width (engine side, clients
                                                  // drive full addresses including their region), 1..64
  parameter int LEN_W        = 17,                // descriptor length width, bits
  parameter int CLIENT_TAG_W = 8,                 // client tag width, bits, 1..24
  // engine tag width, bits: CLIENT_TAG_W + log2(PORTS) rounded up (+ 0 for PORTS = 1)
  parameter int TAG_W        = CLIENT_TAG_W + (PORTS > 1 ? $clog2(PORTS) : 0)
) (
  input  wire logic                         clk,
  input  wire logic                         rst,

  // client channels, client p in slice p
  input  wire logic [PORTS*64-1:0]          s_desc_host_addr,
  input  wire logic [PORTS*RAM_ADDR_W-1:0]  s_desc_ram_addr,
  input  wire logic [PORTS*LEN_W-1:0]       s_desc_len,
  input  wire logic [PORTS*CLIENT_TAG_W-1:0] s_desc_tag,
  input  wire logic [PORTS-1:0]             s_desc_valid,
  output logic [PORTS-1:0]                  s_desc_ready,
  output logic [PORTS*CLIENT_TAG_W-1:0]     s_desc_status_tag,
  output logic [PORTS*4-1:0]                s_desc_status_error,
  output logic [PORTS-1:0]                  s_desc_status_valid,

  // engine channel; tag = {client index, client tag}
  output logic [63:0]                       m_desc_host_addr,
  output logic [RAM_ADDR_W-1:0]             m_desc_ram_addr,
  output logic [LEN_W-1:0]                  m_desc_len,
  output logic [TAG_W-1:0]                  m_desc_tag,
  output logic                              m_desc_valid,
  input  wire logic                         m_desc_ready,
  input  wire logic [TAG_W-1:0]             m_desc_status_tag,
  input  wire logic [3:0]                   m_desc_status_error,
  input  wire logic                         m_desc_status_valid
);

  if (PORTS < 1 || PORTS > 16) begin : g_chk_ports
    $error("%m: PORTS must be 1..16");
  end
  localparam int SEL_W = PORTS > 1 ? $clog2(PORTS) : 0;   // client index bits in the engine tag
  localparam int IDX_W = PORTS > 1 ? SEL_W : 1;            // index width inside the block (never 0)

  if (TAG_W != CLIENT_TAG_W + SEL_W) begin : g_chk_tag
    $error("%m: TAG_W must be CLIENT_TAG_W + log2(PORTS) (rounded up; + 0 for PORTS = 1)");
  end
  if (CLIENT_TAG_W < 1 || CLIENT_TAG_W > 24) begin : g_chk_ctag
    $error("%m: CLIENT_TAG_W must be 1..24");
  end

  logic [IDX_W-1:0] last_q;     // last granted client; the search starts after it
  logic [IDX_W-1:0] grant;
  logic             grant_any;
  logic             load;
  logic [IDX_W:0]   rr_idx;

  // Clock gate: the flops change only with a client descriptor taken (load), the engine taking the
  // output descriptor (m_desc_valid clears), a status at the engine side, or the status pulse (it
  // clears); client descriptors waiting behind an output one not taken move nothing.
  logic gclk;
  logic sts_valid_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || load || (m_desc_valid && m_desc_ready) || m_desc_status_valid || sts_valid_q),
    .gclk (gclk)
  );

  // round robin: first valid client after the last granted one
  always_comb begin
    grant     = last_q;
    grant_any = 1'b0;
    rr_idx    = '0;
    for (int k = PORTS; k >= 1; k--) begin
      rr_idx = {1'b0, last_q} + (IDX_W + 1)'(k);
      if (rr_idx >= (IDX_W + 1)'(PORTS)) rr_idx = rr_idx - (IDX_W + 1)'(PORTS);
      if (s_desc_valid[rr_idx[IDX_W-1:0]]) begin
        grant     = rr_idx[IDX_W-1:0];
        grant_any = 1'b1;
      end
    end
  end

  assign load = grant_any && (!m_desc_valid || m_desc_ready);

  always_comb begin
    s_desc_ready = '0;
    s_desc_ready[grant] = load;
  end

  always_ff @(posedge gclk) begin
    if (load) begin
      last_q           <= grant;
      m_desc_host_addr <= s_desc_host_addr[grant*64 +: 64];
      m_desc_ram_addr  <= s_desc_ram_addr[grant*RAM_ADDR_W +: RAM_ADDR_W];
      m_desc_len       <= s_desc_len[grant*LEN_W +: LEN_W];
      m_desc_valid     <= 1'b1;
    end else if (m_desc_ready) begin
      m_desc_valid     <= 1'b0;
    end
    if (rst) begin
      last_q       <= IDX_W'(PORTS - 1);   // client 0 first after reset
      m_desc_valid <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- status: one-cycle pulse to the client
  logic [IDX_W-1:0]        sts_port_q;
  logic [CLIENT_TAG_W-1:0] sts_tag_q;
  logic [3:0]              sts_error_q;

  if (PORTS > 1) begin : g_multi
    always_ff @(posedge gclk) begin
      if (load) m_desc_tag <= {grant[SEL_W-1:0], s_desc_tag[grant*CLIENT_TAG_W +: CLIENT_TAG_W]};
      if (m_desc_status_valid) sts_port_q <= m_desc_status_tag[TAG_W-1 -: SEL_W];
    end
  end else begin : g_single
    always_ff @(posedge gclk) begin
      if (load) m_desc_tag <= s_desc_tag;
      if (rst) sts_port_q <= '0;
    end
  end

  always_ff @(posedge gclk) begin
    sts_valid_q <= m_desc_status_valid;
    if (m_desc_status_valid) begin   // the status fields only with a status (clients read them only then)
      sts_tag_q   <= m_desc_status_tag[CLIENT_TAG_W-1:0];
      sts_error_q <= m_desc_status_error;
    end
    if (rst) sts_valid_q <= 1'b0;
  end

  // a status whose index names no client (PORTS not a power of two) is dropped
  for (genvar p = 0; p < PORTS; p++) begin : g_sts
    assign s_desc_status_valid[p] = sts_valid_q && sts_port_q == IDX_W'(p);
    assign s_desc_status_tag[p*CLIENT_TAG_W +: CLIENT_TAG_W] = sts_tag_q;
    assign s_desc_status_error[p*4 +: 4] = sts_error_q;
  end

endmodule

`resetall
