// SPDX-License-Identifier: MIT
// 10GBASE-R block lock (IEEE 802.3 clause 49.2.13.2.2, figure 49-12): 64 good sync headers in a row
// give lock, 16 bad ones within 64 lose it; while unlocked every bad header asks the SerDes gearbox to
// slip one bit. One header checked per clock.
`default_nettype none

module beryl_eth_pcs_block_lock #(
  parameter int unsigned SLIP_WAIT = 32  // clocks to ignore headers after a slip request (gearbox
                                         // settling time), 1..255
) (
  input  wire logic       clk,
  input  wire logic       rst,
  input  wire logic [1:0] serdes_rx_hdr,
  output      logic       serdes_rx_bitslip,  // one-clock pulse: shift the block boundary by one bit
  output      logic       rx_block_lock
);

  if (SLIP_WAIT < 1 || SLIP_WAIT > 255) begin : g_bad_wait
    $error("%m: SLIP_WAIT must be within 1..255");
  end

  logic [6:0] sh_cnt_q;        // headers tested in this window (64 per window)
  logic [4:0] sh_invld_cnt_q;  // bad headers in this window
  logic [7:0] wait_q;          // slip settling countdown
  logic       lock_q;
  logic       slip_q;
  logic       sh_valid;

  assign sh_valid = serdes_rx_hdr[0] ^ serdes_rx_hdr[1];

  always_ff @(posedge clk) begin
    if (rst) begin
      sh_cnt_q       <= '0;
      sh_invld_cnt_q <= '0;
      wait_q         <= '0;
      lock_q         <= 1'b0;
      slip_q         <= 1'b0;
    end else begin
      slip_q <= 1'b0;
      if (wait_q != 8'd0) begin
        wait_q <= wait_q - 8'd1;
      end else if (sh_valid) begin
        // VALID_SH: a full window of 64 with no bad header gives (or keeps) lock (64_GOOD)
        if (sh_cnt_q == 7'd63) begin
          if (sh_invld_cnt_q == 5'd0) lock_q <= 1'b1;
          sh_cnt_q       <= '0;
          sh_invld_cnt_q <= '0;
        end else begin
          sh_cnt_q <= sh_cnt_q + 7'd1;
        end
      end else begin
        // INVALID_SH: unlocked, or 16 bad in this window -> SLIP
        if (!lock_q || sh_invld_cnt_q == 5'd15) begin
          lock_q         <= 1'b0;
          slip_q         <= 1'b1;
          wait_q         <= 8'(SLIP_WAIT);
          sh_cnt_q       <= '0;
          sh_invld_cnt_q <= '0;
        end else if (sh_cnt_q == 7'd63) begin
          sh_cnt_q       <= '0;
          sh_invld_cnt_q <= '0;
        end else begin
          sh_cnt_q       <= sh_cnt_q + 7'd1;
          sh_invld_cnt_q <= sh_invld_cnt_q + 5'd1;
        end
      end
    end
  end

  assign serdes_rx_bitslip = slip_q;
  assign rx_block_lock     = lock_q;

endmodule

`resetall
