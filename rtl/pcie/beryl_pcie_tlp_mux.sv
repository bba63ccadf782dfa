// SPDX-License-Identifier: MIT
// PORTS-to-1 TLP stream arbiter: round robin between whole TLPs (an input keeps the output
// from its sop beat to its eop beat). Registered output, one beat per cycle, no bubble
// between TLPs from different inputs; latency one cycle.
`default_nettype none

module beryl_pcie_tlp_mux #(
  parameter int PORTS      = 3,    // input streams, 1..16
  parameter int TLP_DATA_W = 512   // TLP stream data width in bits: 256 or 512
) (
  input  wire                            clk,
  input  wire                            rst,

  // Inputs, port p in slice p
  input  wire [PORTS*128-1:0]            s_tlp_hdr,
  input  wire [PORTS*TLP_DATA_W-1:0]     s_tlp_data,
  input  wire [PORTS*TLP_DATA_W/32-1:0]  s_tlp_strb,
  input  wire [PORTS-1:0]                s_tlp_sop,
  input  wire [PORTS-1:0]                s_tlp_eop,
  input  wire [PORTS-1:0]                s_tlp_valid,
  output logic [PORTS-1:0]               s_tlp_ready,

  // Output
  output logic [127:0]                   m_tlp_hdr,
  output logic [TLP_DATA_W-1:0]          m_tlp_data,
  output logic [TLP_DATA_W/32-1:0]       m_tlp_strb,
  output logic                           m_tlp_sop,
  output logic                           m_tlp_eop,
  output logic                           m_tlp_valid,
  input  wire                            m_tlp_ready
);

  localparam int BEAT_DW = TLP_DATA_W / 32;
  localparam int IDX_W   = (PORTS > 1) ? $clog2(PORTS) : 1;

  if (PORTS < 1 || PORTS > 16) begin : g_check_ports
    $error("%m: PORTS must be in 1..16");
  end
  if (TLP_DATA_W != 256 && TLP_DATA_W != 512) begin : g_check_data_w
    $error("%m: TLP_DATA_W must be 256 or 512");
  end

  logic              locked_q;    // inside a TLP: the output belongs to lock_port_q
  logic [IDX_W-1:0]  lock_port_q;
  logic [IDX_W-1:0]  rr_ptr_q;    // first port to look at for the next TLP
  logic [IDX_W-1:0]  pick;
  logic              pick_valid;
  logic [IDX_W-1:0]  sel;
  logic              sel_valid;
  logic              out_free;
  logic              xfer;
  logic [IDX_W:0]    idx;
  logic              gclk;

  always_comb begin
    // Round robin: the first valid port at or after rr_ptr_q, wrapping.
    pick       = rr_ptr_q;
    pick_valid = 1'b0;
    for (int k = PORTS - 1; k >= 0; k--) begin
      idx = (IDX_W + 1)'(rr_ptr_q) + (IDX_W + 1)'(k);
      if (idx >= (IDX_W + 1)'(PORTS)) begin
        idx = idx - (IDX_W + 1)'(PORTS);
      end
      if (s_tlp_valid[IDX_W'(idx)]) begin
        pick       = IDX_W'(idx);
        pick_valid = 1'b1;
      end
    end
    sel       = locked_q ? lock_port_q : pick;
    sel_valid = locked_q ? s_tlp_valid[lock_port_q] : pick_valid;
    out_free  = !m_tlp_valid || m_tlp_ready;
    xfer      = sel_valid && out_free;
    s_tlp_ready = '0;
    s_tlp_ready[sel] = out_free && (locked_q || pick_valid);
  end

  always_ff @(posedge gclk) begin
    if (xfer) begin
      m_tlp_hdr  <= s_tlp_hdr[sel*128 +: 128];
      m_tlp_data <= s_tlp_data[sel*TLP_DATA_W +: TLP_DATA_W];
      m_tlp_strb <= s_tlp_strb[sel*BEAT_DW +: BEAT_DW];
      m_tlp_sop  <= s_tlp_sop[sel];
      m_tlp_eop  <= s_tlp_eop[sel];
    end
    if (rst) begin
      m_tlp_valid <= 1'b0;
      locked_q    <= 1'b0;
      lock_port_q <= '0;
      rr_ptr_q    <= '0;
    end else begin
      if (xfer) begin
        m_tlp_valid <= 1'b1;
      end else if (m_tlp_ready) begin
        m_tlp_valid <= 1'b0;
      end
      if (xfer) begin
        locked_q <= !s_tlp_eop[sel];
        if (!locked_q) begin
          lock_port_q <= sel;
          rr_ptr_q    <= (32'(sel) == PORTS - 1) ? '0 : sel + 1'b1;
        end
      end
    end
  end

  // Clock gate (sim/README.md, "Clock gates"): the output register loads only with a transfer (an
  // input valid) and clears only while valid; the lock and round-robin state change only with a
  // transfer. (An exact enable, xfer || (m_tlp_valid && m_tlp_ready), made no measurable difference to
  // beryl-sim's speed; not kept. Yosys mapped the 256-bit PCIe top to about 1 600 more LUTs with it,
  // and as many with it replaced by a constant under SYNTHESIS: that is Yosys's sensitivity to small
  // changes, not the enable.)
  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (|s_tlp_valid) || m_tlp_valid),
    .gclk (gclk)
  );

endmodule

`resetall
