// SPDX-License-Identifier: MIT
// 10GBASE-R PCS receive: one 66-bit block per clock in (64-bit payload plus sync header, from a SerDes
// gearbox that slips one bit on request), 64-bit SDR XGMII out. Block lock (clause 49.2.13.2.2), the
// descrambler, 64b/66b decoding (figure 49-7) and the receive sequence check of figure 49-15: invalid
// blocks and illegal sequences become /E/ on XGMII; without block lock the output is the local fault
// ordered set. Latency 2 cycles.
`default_nettype none

module beryl_eth_pcs_10g_rx #(
  parameter int unsigned SLIP_WAIT = 32  // clocks the gearbox needs after a slip, 1..255
) (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic [63:0] serdes_rx_data,
  input  wire logic [1:0]  serdes_rx_hdr,
  output      logic        serdes_rx_bitslip,
  output      logic [63:0] xgmii_rxd,
  output      logic [7:0]  xgmii_rxc,
  output      logic        rx_block_lock,
  output      logic        rx_error_block   // one pulse per block decoded as /E/ while locked
);

  // Local fault: sequence ordered set 0x9c 00 00 01 in both columns (clause 46.3.4)
  localparam logic [63:0] LF_D = 64'h0100009c_0100009c;
  localparam logic [7:0]  LF_C = 8'h11;
  localparam logic [63:0] E_D  = {8{beryl_eth_pkg::XGMII_ERROR}};

  logic [63:0] blk;
  logic [1:0]  hdr;

  beryl_eth_pcs_block_lock #(
    .SLIP_WAIT (SLIP_WAIT)
  ) u_block_lock (
    .clk               (clk),
    .rst               (rst),
    .serdes_rx_hdr     (serdes_rx_hdr),
    .serdes_rx_bitslip (serdes_rx_bitslip),
    .rx_block_lock     (rx_block_lock)
  );

  beryl_eth_pcs_descrambler u_descrambler (
    .clk      (clk),
    .rst      (rst),
    .in_data  (serdes_rx_data),
    .in_hdr   (serdes_rx_hdr),
    .out_data (blk),
    .out_hdr  (hdr)
  );

  logic [8:0]  cx [8];      // {valid, XGMII character} of the 7-bit code in lane i's position
  logic [7:0]  cx_ok;
  logic [7:0]  btype;
  logic [63:0] dec_d;
  logic [7:0]  dec_c;
  logic        o0_ok, o4_ok;
  logic [7:0]  o0_x, o4_x;
  logic        has_err;
  beryl_eth_pkg::blk_class_e cls;

  assign btype = blk[7:0];

  always_comb begin
    for (int unsigned i = 0; i < 8; i++) begin
      cx[i]    = beryl_eth_pkg::baser_to_xgmii(blk[8 + 7*i +: 7]);
      cx_ok[i] = cx[i][8];
    end
    // O codes: lane 0's in bits [35:32], lane 4's in [39:36]
    o0_ok = blk[35:32] == beryl_eth_pkg::BASER_O_SEQ || blk[35:32] == beryl_eth_pkg::BASER_O_SIG;
    o4_ok = blk[39:36] == beryl_eth_pkg::BASER_O_SEQ || blk[39:36] == beryl_eth_pkg::BASER_O_SIG;
    o0_x  = (blk[35:32] == beryl_eth_pkg::BASER_O_SEQ) ? beryl_eth_pkg::XGMII_SEQ : beryl_eth_pkg::XGMII_SIG;
    o4_x  = (blk[39:36] == beryl_eth_pkg::BASER_O_SEQ) ? beryl_eth_pkg::XGMII_SEQ : beryl_eth_pkg::XGMII_SIG;
  end

  // terminate blocks: lane k holds /T/, data below it, 7-bit control codes above it
  logic [63:0] term_d;
  logic [7:0]  term_c;
  logic        term_ok;
  logic [2:0]  term_k;

  always_comb begin
    unique case (btype)
      beryl_eth_pkg::BT_T0: term_k = 3'd0;
      beryl_eth_pkg::BT_T1: term_k = 3'd1;
      beryl_eth_pkg::BT_T2: term_k = 3'd2;
      beryl_eth_pkg::BT_T3: term_k = 3'd3;
      beryl_eth_pkg::BT_T4: term_k = 3'd4;
      beryl_eth_pkg::BT_T5: term_k = 3'd5;
      beryl_eth_pkg::BT_T6: term_k = 3'd6;
      default:              term_k = 3'd7;
    endcase
    term_ok = 1'b1;
    for (int unsigned i = 0; i < 8; i++) begin
      if (i < 32'(term_k)) begin
        term_d[8*i +: 8] = blk[8 + 8*i +: 8];
        term_c[i]        = 1'b0;
      end else if (i == 32'(term_k)) begin
        term_d[8*i +: 8] = beryl_eth_pkg::XGMII_TERM;
        term_c[i]        = 1'b1;
      end else begin
        term_d[8*i +: 8] = cx[i][7:0];
        term_c[i]        = 1'b1;
        if (!cx_ok[i]) term_ok = 1'b0;
      end
    end
  end

  always_comb begin
    dec_d   = E_D;
    dec_c   = 8'hff;
    cls     = beryl_eth_pkg::BLK_E;
    has_err = 1'b0;
    if (hdr == beryl_eth_pkg::SYNC_DATA) begin
      dec_d = blk;
      dec_c = 8'h00;
      cls   = beryl_eth_pkg::BLK_D;
    end else if (hdr == beryl_eth_pkg::SYNC_CTRL) begin
      unique case (btype)
        beryl_eth_pkg::BT_C8: begin
          if (cx_ok == 8'hff) begin
            for (int unsigned i = 0; i < 8; i++) begin
              dec_d[8*i +: 8] = cx[i][7:0];
              if (cx[i][7:0] == beryl_eth_pkg::XGMII_ERROR) has_err = 1'b1;
            end
            cls = has_err ? beryl_eth_pkg::BLK_E : beryl_eth_pkg::BLK_C;
          end
        end
        beryl_eth_pkg::BT_C4_S4: begin
          if (cx_ok[3:0] == 4'hf) begin
            dec_d = {blk[63:40], beryl_eth_pkg::XGMII_START, cx[3][7:0], cx[2][7:0], cx[1][7:0], cx[0][7:0]};
            dec_c = 8'h1f;
            cls   = beryl_eth_pkg::BLK_S;
          end
        end
        beryl_eth_pkg::BT_C4_O4: begin
          if (cx_ok[3:0] == 4'hf && o4_ok) begin
            dec_d = {blk[63:40], o4_x, cx[3][7:0], cx[2][7:0], cx[1][7:0], cx[0][7:0]};
            dec_c = 8'h1f;
            cls   = beryl_eth_pkg::BLK_C;
          end
        end
        beryl_eth_pkg::BT_O0_S4: begin
          if (o0_ok) begin
            dec_d = {blk[63:40], beryl_eth_pkg::XGMII_START, blk[31:8], o0_x};
            dec_c = 8'h11;
            cls   = beryl_eth_pkg::BLK_S;
          end
        end
        beryl_eth_pkg::BT_O0_O4: begin
          if (o0_ok && o4_ok) begin
            dec_d = {blk[63:40], o4_x, blk[31:8], o0_x};
            dec_c = 8'h11;
            cls   = beryl_eth_pkg::BLK_C;
          end
        end
        beryl_eth_pkg::BT_S0: begin
          dec_d = {blk[63:8], beryl_eth_pkg::XGMII_START};
          dec_c = 8'h01;
          cls   = beryl_eth_pkg::BLK_S;
        end
        beryl_eth_pkg::BT_O0_C4: begin
          if (o0_ok && cx_ok[7:4] == 4'hf) begin
            dec_d = {cx[7][7:0], cx[6][7:0], cx[5][7:0], cx[4][7:0], blk[31:8], o0_x};
            dec_c = 8'hf1;
            cls   = beryl_eth_pkg::BLK_C;
          end
        end
        beryl_eth_pkg::BT_T0, beryl_eth_pkg::BT_T1, beryl_eth_pkg::BT_T2, beryl_eth_pkg::BT_T3,
        beryl_eth_pkg::BT_T4, beryl_eth_pkg::BT_T5, beryl_eth_pkg::BT_T6, beryl_eth_pkg::BT_T7: begin
          if (term_ok) begin
            dec_d = term_d;
            dec_c = term_c;
            cls   = beryl_eth_pkg::BLK_T;
          end
        end
        default: ;
      endcase
    end
  end

  // Receive sequence check (figure 49-15, without the look-ahead past a /T/ block)
  typedef enum logic [1:0] {RX_C, RX_D, RX_E} rx_state_e;
  rx_state_e st_q, st_d;
  logic      send_e;

  always_comb begin
    send_e = 1'b0;
    st_d   = st_q;
    unique case (cls)
      beryl_eth_pkg::BLK_C: begin
        send_e = (st_q == RX_D);
        st_d   = send_e ? RX_E : RX_C;
      end
      beryl_eth_pkg::BLK_S: begin
        send_e = (st_q == RX_D);
        st_d   = send_e ? RX_E : RX_D;
      end
      beryl_eth_pkg::BLK_D: begin
        send_e = (st_q == RX_C);
        st_d   = send_e ? RX_E : RX_D;
      end
      beryl_eth_pkg::BLK_T: begin
        send_e = (st_q == RX_C);
        st_d   = send_e ? RX_E : RX_C;
      end
      default: begin
        send_e = 1'b1;
        st_d   = RX_E;
      end
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst || !rx_block_lock) begin
      st_q           <= RX_C;
      xgmii_rxd      <= LF_D;
      xgmii_rxc      <= LF_C;
      rx_error_block <= 1'b0;
    end else begin
      st_q           <= st_d;
      xgmii_rxd      <= send_e ? E_D : dec_d;
      xgmii_rxc      <= send_e ? 8'hff : dec_c;
      rx_error_block <= send_e;
    end
  end

endmodule

`resetall
