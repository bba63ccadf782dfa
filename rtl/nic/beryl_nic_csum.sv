// SPDX-License-Identifier: MIT
// RX checksum: passes a 512-bit AXI-Stream frame through unchanged (wires) and reports, per frame, the
// 16-bit ones'-complement sum (RFC 1071, not complemented) of the bytes from csum_start to the frame end.
// One beat per cycle; the sum appears 2 cycles after the last beat.
`default_nettype none

module beryl_nic_csum #(
  parameter int DATA_W    = 512,         // stream width, bits: 512 only
  parameter int KEEP_W    = DATA_W / 8,
  parameter int START_W   = 14,          // start offset width, bytes; frames up to 2^START_W bytes
  parameter int FIFO_DEPTH = 4           // results waiting for csum_ready, 4 (fixed)
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  input  wire logic [DATA_W-1:0]         s_axis_tdata,
  input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
  input  wire logic                      s_axis_tvalid,
  output logic                           s_axis_tready,
  input  wire logic                      s_axis_tlast,
  // first byte summed, sampled with the first beat of each frame (e.g. 14: everything after the
  // Ethernet header, as Corundum-class NICs report it)
  input  wire logic [START_W-1:0]        csum_start,

  output logic [DATA_W-1:0]              m_axis_tdata,
  output logic [KEEP_W-1:0]              m_axis_tkeep,
  output logic                           m_axis_tvalid,
  input  wire logic                      m_axis_tready,
  output logic                           m_axis_tlast,

  output logic [15:0]                    csum,
  output logic                           csum_valid,
  input  wire logic                      csum_ready
);

  if (DATA_W != 512 || FIFO_DEPTH != 4) begin : g_chk
    $error("%m: DATA_W must be 512 and FIFO_DEPTH 4");
  end

  logic [2:0]         pend_q;        // frames accepted whose sum has not been taken, 0..4
  logic               block;
  logic               accept;
  logic               first_q;       // next beat starts a frame
  logic [START_W-1:0] start_q;
  logic [START_W-1:0] start;
  logic [START_W-1:0] base_q;        // byte offset of the next beat
  logic [DATA_W-1:0]  masked;
  logic [20:0]        beat_sum;      // 32 words of 16 bits

  // Clock gate: the flops change only with a beat at the input (accept), a beat in stage 1 (v1_q)
  // or a result in the FIFO (pop; pend_q counts only accepts and pops).
  logic        gclk;
  logic        v1_q;
  logic [2:0]  cnt_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || s_axis_tvalid || v1_q || cnt_q != 3'd0),
    .gclk (gclk)
  );

  // A last beat waits while every result slot is taken; depends on state and tlast, never on ready.
  assign block         = s_axis_tlast && pend_q == 3'(FIFO_DEPTH);
  assign s_axis_tready = m_axis_tready && !block;
  assign m_axis_tvalid = s_axis_tvalid && !block;
  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tlast  = s_axis_tlast;
  assign accept        = s_axis_tvalid && s_axis_tready;
  assign start         = first_q ? csum_start : start_q;

  // the byte lanes only on an accepted beat (stage 1 loads only then): Verilator skips the loops on
  // the other cycles (C++ simulator speed).
  // The bytes that do not count (not kept, or before the start) are zeroed, then the high (even)
  // and low (odd) bytes of the words are summed in 64-bit lanes of four 16-bit fields (each
  // field's sum stays below 8 * 255: no carry between fields). A beat whose bytes all count (all
  // but a frame's first and last beats) skips the byte-by-byte zeroing; that test is redundant in
  // hardware.
  logic [63:0] lane, hi, lo;
  logic [13:0] hi_sum, lo_sum;

  always_comb begin
    masked   = '0;
    beat_sum = '0;
    lane     = '0;
    hi       = '0;
    lo       = '0;
    hi_sum   = '0;
    lo_sum   = '0;
    if (accept) begin
      masked = s_axis_tdata;
      if (!(&s_axis_tkeep && !first_q && base_q >= start)) begin
        for (int i = 0; i < KEEP_W; i++) begin
          if (!(s_axis_tkeep[i] && START_W'(i) + (first_q ? '0 : base_q) >= start)) begin
            masked[i*8 +: 8] = 8'h00;
          end
        end
      end
      for (int w = 0; w < 8; w++) begin
        lane = masked[w*64 +: 64];
        hi   = hi + (lane & 64'h00ff_00ff_00ff_00ff);
        lo   = lo + ((lane >> 8) & 64'h00ff_00ff_00ff_00ff);
      end
      hi_sum   = 14'(hi[15:0]) + 14'(hi[31:16]) + 14'(hi[47:32]) + 14'(hi[63:48]);
      lo_sum   = 14'(lo[15:0]) + 14'(lo[31:16]) + 14'(lo[47:32]) + 14'(lo[63:48]);
      beat_sum = 21'({hi_sum, 8'h00}) + 21'(lo_sum);
    end
  end

  // stage 1: per-beat sum
  logic [20:0] bsum_q;
  logic        last1_q, odd1_q;

  always_ff @(posedge gclk) begin
    v1_q <= accept;
    if (accept) begin
      bsum_q  <= beat_sum;
      last1_q <= s_axis_tlast;
      odd1_q  <= start[0];
      first_q <= s_axis_tlast;
      base_q  <= first_q ? START_W'(KEEP_W) : base_q + START_W'(KEEP_W);
      start_q <= start;
    end
    if (rst) begin
      v1_q    <= 1'b0;
      first_q <= 1'b1;
    end
  end

  // stage 2: frame accumulator and end-around-carry fold (RFC 1071 section 2)
  logic [31:0] acc_q;
  logic [31:0] acc_sum;
  logic [16:0] fold1;
  logic [15:0] fold2;
  logic [15:0] result;

  always_comb begin
    acc_sum = acc_q + 32'(bsum_q);
    fold1   = {1'b0, acc_sum[15:0]} + {1'b0, acc_sum[31:16]};
    fold2   = fold1[15:0] + 16'(fold1[16]);
    // a sum started at an odd offset pairs bytes the other way round: swap (RFC 1071 "byte order
    // independence")
    result  = odd1_q ? {fold2[7:0], fold2[15:8]} : fold2;
  end

  // result FIFO
  logic [15:0] fifo_q [FIFO_DEPTH];
  logic [1:0]  wr_ptr_q, rd_ptr_q;
  logic        push, pop;

  assign push       = v1_q && last1_q;
  assign pop        = csum_valid && csum_ready;
  assign csum_valid = cnt_q != 3'd0;
  assign csum       = fifo_q[rd_ptr_q];

  always_ff @(posedge gclk) begin
    if (v1_q) begin
      acc_q <= last1_q ? 32'd0 : acc_sum;
    end
    if (push) begin
      fifo_q[wr_ptr_q] <= result;
      wr_ptr_q         <= wr_ptr_q + 2'd1;
    end
    if (pop) begin
      rd_ptr_q <= rd_ptr_q + 2'd1;
    end
    cnt_q  <= cnt_q + 3'(push) - 3'(pop);
    pend_q <= pend_q + 3'(accept && s_axis_tlast) - 3'(pop);
    if (rst) begin
      acc_q    <= '0;
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      cnt_q    <= '0;
      pend_q   <= '0;
    end
  end

endmodule

`resetall
