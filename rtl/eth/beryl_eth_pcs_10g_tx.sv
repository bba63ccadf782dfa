// SPDX-License-Identifier: MIT
// 10GBASE-R PCS transmit: 64-bit SDR XGMII in, one 66-bit block per clock out (64-bit payload plus
// 2-bit sync header, for a SerDes with an external or built-in 64b/66b gearbox). 64b/66b encoding per
// IEEE 802.3 clause 49.2.4, the transmit sequence check of figure 49-14 (a character sequence that is
// not a legal frame becomes an /E/ block), then the scrambler. Latency 2 cycles.
`default_nettype none

module beryl_eth_pcs_10g_tx (
  input  wire logic        clk,
  input  wire logic        rst,
  input  wire logic [63:0] xgmii_txd,
  input  wire logic [7:0]  xgmii_txc,
  output      logic [63:0] serdes_tx_data,
  output      logic [1:0]  serdes_tx_hdr
);

  localparam logic [63:0] E_BLOCK = {{8{beryl_eth_pkg::BASER_ERROR}}, beryl_eth_pkg::BT_C8};

  logic [7:0] d [8];
  logic [7:0] cc [8];      // {valid, 7-bit code} for plain control characters
  logic [7:0] cc_ok, is_t;
  /* verilator lint_off UNUSEDSIGNAL */  // computed per lane, but /S/ and /O/ only count in lanes 0 and 4
  logic [7:0] is_s, is_o;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [3:0] o0, o4;
  logic       has_err;
  logic [63:0] enc_data;
  logic [1:0]  enc_hdr;
  beryl_eth_pkg::blk_class_e cls;

  always_comb begin
    for (int unsigned i = 0; i < 8; i++) begin
      d[i]     = xgmii_txd[8*i +: 8];
      cc[i]    = beryl_eth_pkg::xgmii_to_baser(d[i]);
      cc_ok[i] = xgmii_txc[i] && cc[i][7];
      is_s[i]  = xgmii_txc[i] && d[i] == beryl_eth_pkg::XGMII_START;
      is_t[i]  = xgmii_txc[i] && d[i] == beryl_eth_pkg::XGMII_TERM;
      is_o[i]  = xgmii_txc[i] && (d[i] == beryl_eth_pkg::XGMII_SEQ || d[i] == beryl_eth_pkg::XGMII_SIG);
    end
    o0      = (d[0] == beryl_eth_pkg::XGMII_SEQ) ? beryl_eth_pkg::BASER_O_SEQ : beryl_eth_pkg::BASER_O_SIG;
    o4      = (d[4] == beryl_eth_pkg::XGMII_SEQ) ? beryl_eth_pkg::BASER_O_SEQ : beryl_eth_pkg::BASER_O_SIG;
    has_err = 1'b0;
    for (int unsigned i = 0; i < 8; i++) begin
      if (xgmii_txc[i] && d[i] == beryl_eth_pkg::XGMII_ERROR) has_err = 1'b1;
    end
  end

  // 64b/66b encoder (figure 49-7). Control codes of lane i always sit in payload bits [8+7i +: 7].
  always_comb begin
    enc_hdr  = beryl_eth_pkg::SYNC_CTRL;
    enc_data = E_BLOCK;
    cls      = beryl_eth_pkg::BLK_E;
    if (xgmii_txc == 8'h00) begin
      enc_hdr  = beryl_eth_pkg::SYNC_DATA;
      enc_data = xgmii_txd;
      cls      = beryl_eth_pkg::BLK_D;
    end else if (xgmii_txc == 8'hff && cc_ok == 8'hff) begin
      enc_data = {cc[7][6:0], cc[6][6:0], cc[5][6:0], cc[4][6:0], cc[3][6:0], cc[2][6:0], cc[1][6:0],
                  cc[0][6:0], beryl_eth_pkg::BT_C8};
      cls      = has_err ? beryl_eth_pkg::BLK_E : beryl_eth_pkg::BLK_C;
    end else if (xgmii_txc == 8'h01 && is_s[0]) begin
      enc_data = {xgmii_txd[63:8], beryl_eth_pkg::BT_S0};
      cls      = beryl_eth_pkg::BLK_S;
    end else if (xgmii_txc == 8'h1f && cc_ok[3:0] == 4'hf && is_s[4]) begin
      enc_data = {xgmii_txd[63:40], 4'h0, cc[3][6:0], cc[2][6:0], cc[1][6:0], cc[0][6:0],
                  beryl_eth_pkg::BT_C4_S4};
      cls      = beryl_eth_pkg::BLK_S;
    end else if (xgmii_txc == 8'h11 && is_o[0] && is_s[4]) begin
      enc_data = {xgmii_txd[63:40], 4'h0, o0, xgmii_txd[31:8], beryl_eth_pkg::BT_O0_S4};
      cls      = beryl_eth_pkg::BLK_S;
    end else if (xgmii_txc == 8'h11 && is_o[0] && is_o[4]) begin
      enc_data = {xgmii_txd[63:40], o4, o0, xgmii_txd[31:8], beryl_eth_pkg::BT_O0_O4};
      cls      = beryl_eth_pkg::BLK_C;
    end else if (xgmii_txc == 8'hf1 && is_o[0] && cc_ok[7:4] == 4'hf) begin
      enc_data = {cc[7][6:0], cc[6][6:0], cc[5][6:0], cc[4][6:0], o0, xgmii_txd[31:8], beryl_eth_pkg::BT_O0_C4};
      cls      = beryl_eth_pkg::BLK_C;
    end else if (xgmii_txc == 8'h1f && cc_ok[3:0] == 4'hf && is_o[4]) begin
      enc_data = {xgmii_txd[63:40], o4, cc[3][6:0], cc[2][6:0], cc[1][6:0], cc[0][6:0], beryl_eth_pkg::BT_C4_O4};
      cls      = beryl_eth_pkg::BLK_C;
    end else begin
      // terminate in lane k: data below, /T/ in k, control characters above
      for (int unsigned k = 0; k < 8; k++) begin
        if (xgmii_txc == 8'(9'h1ff << k) && is_t[k] && (cc_ok >> (k + 1)) == (8'hff >> (k + 1))) begin
          enc_data = '0;
          for (int unsigned i = 0; i < 8; i++) begin
            if (i < k) enc_data[8 + 8*i +: 8] = d[i];
            if (i > k) enc_data[8 + 7*i +: 7] = cc[i][6:0];
          end
          unique case (k)
            0: enc_data[7:0] = beryl_eth_pkg::BT_T0;
            1: enc_data[7:0] = beryl_eth_pkg::BT_T1;
            2: enc_data[7:0] = beryl_eth_pkg::BT_T2;
            3: enc_data[7:0] = beryl_eth_pkg::BT_T3;
            4: enc_data[7:0] = beryl_eth_pkg::BT_T4;
            5: enc_data[7:0] = beryl_eth_pkg::BT_T5;
            6: enc_data[7:0] = beryl_eth_pkg::BT_T6;
            default: enc_data[7:0] = beryl_eth_pkg::BT_T7;
          endcase
          cls = beryl_eth_pkg::BLK_T;
        end
      end
    end
  end

  // Transmit sequence check (figure 49-14): inside a frame only D or T may follow; between frames
  // only C or S. Anything else is sent as an /E/ block.
  typedef enum logic [1:0] {TX_C, TX_D, TX_E} tx_state_e;
  tx_state_e   st_q, st_d;
  logic        send_e;
  logic [63:0] blk_data_q;
  logic [1:0]  blk_hdr_q;

  always_comb begin
    send_e = 1'b0;
    st_d   = st_q;
    unique case (cls)
      beryl_eth_pkg::BLK_C: begin
        send_e = (st_q == TX_D);
        st_d   = send_e ? TX_E : TX_C;
      end
      beryl_eth_pkg::BLK_S: begin
        send_e = (st_q == TX_D);
        st_d   = send_e ? TX_E : TX_D;
      end
      beryl_eth_pkg::BLK_D: begin
        send_e = (st_q == TX_C);
        st_d   = send_e ? TX_E : TX_D;
      end
      beryl_eth_pkg::BLK_T: begin
        send_e = (st_q == TX_C);
        st_d   = send_e ? TX_E : TX_C;
      end
      default: begin
        send_e = 1'b1;
        st_d   = TX_E;
      end
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q       <= TX_C;
      blk_hdr_q  <= beryl_eth_pkg::SYNC_CTRL;
      blk_data_q <= {{8{beryl_eth_pkg::BASER_IDLE}}, beryl_eth_pkg::BT_C8};
    end else begin
      st_q       <= st_d;
      blk_hdr_q  <= send_e ? beryl_eth_pkg::SYNC_CTRL : enc_hdr;
      blk_data_q <= send_e ? E_BLOCK : enc_data;
    end
  end

  beryl_eth_pcs_scrambler u_scrambler (
    .clk      (clk),
    .rst      (rst),
    .in_data  (blk_data_q),
    .in_hdr   (blk_hdr_q),
    .out_data (serdes_tx_data),
    .out_hdr  (serdes_tx_hdr)
  );

endmodule

`resetall
