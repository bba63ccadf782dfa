// SPDX-License-Identifier: MIT
// Frame-aligned 512-bit AXI-Stream (one frame per beat sequence, tkeep contiguous from byte 0) -> the
// segmented 4 x 16-byte TX input of beryl_eth_mac_100g_tx. One beat becomes one seg word, one register
// stage: latency 1 clock, one beat per clock.
//
// Words are not packed: a frame always starts at segment 0 of its own word (never behind another frame's
// eop), which the seg rules allow (docs/blocks/eth.md). That costs bus time only for the last, partial
// word of each frame; with the NIC's 512-bit core stream at 250 MHz (128 Gb/s) feeding a 100G MAC the bus
// has room for it. The source must not pause inside a frame once its first beat went: the MAC would end
// the frame with /E/ (underflow); this block passes such a pause on as it comes.
`default_nettype none

module beryl_eth_axis_to_seg #(
  parameter int unsigned TAG_W = 16   // frame tag width, bits, 1..64 (the MAC's TX_TAG_W)
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // AXI-Stream frame (DA through payload, no FCS): every beat but the last has all 64 bytes; the last
  // has tkeep contiguous from bit 0 with at least one byte. tuser on the last beat aborts the frame.
  input  wire logic [511:0]      s_axis_tdata,
  input  wire logic [63:0]       s_axis_tkeep,
  input  wire logic              s_axis_tvalid,
  output      logic              s_axis_tready,
  input  wire logic              s_axis_tlast,
  input  wire logic              s_axis_tuser,
  input  wire logic [TAG_W-1:0]  s_axis_tag,      // the frame's tag, read with its first beat

  // seg word towards the MAC (its s_seg_* inputs); a word with ena != 0 is held until m_seg_ready
  output      logic [511:0]      m_seg_data,
  output      logic [3:0]        m_seg_ena,
  output      logic [3:0]        m_seg_sop,
  output      logic [3:0]        m_seg_eop,
  output      logic [15:0]       m_seg_mty,
  output      logic [3:0]        m_seg_err,
  output      logic [TAG_W-1:0]  m_seg_tag,       // with the sop word
  input  wire logic              m_seg_ready
);

  if (TAG_W < 1 || TAG_W > 64) begin : g_bad_tag_w
    $error("%m: TAG_W must be 1..64");
  end

  logic             mid_q;          // a frame's first beat was taken and its last not yet
  logic [6:0]       nbytes;         // bytes in this beat, 1..64 (tkeep is contiguous)
  logic [2:0]       nseg;           // segments they fill, 1..4
  logic [3:0]       ena, sop, eop, err;
  logic [15:0]      mty;
  logic             take;

  // a word is taken at an edge with m_seg_ready = 1 (seg rule 1); an empty register always takes
  assign s_axis_tready = m_seg_ena == 4'd0 || m_seg_ready;
  assign take          = s_axis_tvalid && s_axis_tready;

  always_comb begin
    nbytes = 7'd0;
    for (int i = 0; i < 64; i++) nbytes = nbytes + 7'(s_axis_tkeep[i]);
    nseg = s_axis_tlast ? 3'((nbytes + 7'd15) >> 4) : 3'd4;
    ena  = 4'((5'd1 << nseg) - 5'd1);
    sop  = mid_q ? 4'd0 : 4'd1;
    eop  = s_axis_tlast ? 4'(5'd1 << (nseg - 3'd1)) : 4'd0;
    err  = s_axis_tuser ? eop : 4'd0;
    // unused bytes at the end of the eop segment (seg rule 2), in that segment's 4 bits
    mty  = s_axis_tlast ? 16'(7'(16 * nseg) - nbytes) << (4 * (nseg - 3'd1)) : 16'd0;
  end

  always_ff @(posedge clk) begin
    if (s_axis_tready) begin
      m_seg_ena  <= take ? ena : 4'd0;
      m_seg_sop  <= sop;
      m_seg_eop  <= eop;
      m_seg_mty  <= mty;
      m_seg_err  <= err;
      m_seg_data <= s_axis_tdata;
      m_seg_tag  <= s_axis_tag;
    end
    if (take) mid_q <= !s_axis_tlast;
    if (rst) begin
      m_seg_ena <= 4'd0;
      mid_q     <= 1'b0;
    end
  end

endmodule

`resetall
