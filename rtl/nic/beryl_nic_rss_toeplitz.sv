// SPDX-License-Identifier: MIT
// RSS Toeplitz hash (Microsoft RSS hashing functions) over the tuple of a parsed frame, with a
// programmable 40-byte key and the hash type. Latency 3 cycles, one tuple per cycle.
`default_nettype none

module beryl_nic_rss_toeplitz (
  input  wire logic                clk,
  input  wire logic                rst,

  // key write port: word i (0..9) holds key bytes 4i..4i+3, byte 4i in bits 7:0 (the order in which
  // a little-endian host writes the key as a byte array). Takes effect for tuples accepted later.
  input  wire logic                key_wr_en,
  input  wire logic [3:0]          key_wr_addr,
  input  wire logic [31:0]         key_wr_data,
  // which tuples to hash, bits beryl_nic_pkg::HASH_EN_*; a frame whose tuple is not enabled falls
  // back to its IP-only type if that is enabled, else gets HASH_NONE and hash 0
  input  wire logic [5:0]          hash_en,

  // tuple in (fields of beryl_nic_pkg::rx_meta_t)
  input  wire logic [1:0]          tup_l3,
  input  wire logic [1:0]          tup_l4,
  input  wire logic [127:0]        tup_ip_src,
  input  wire logic [127:0]        tup_ip_dst,
  input  wire logic [15:0]         tup_sport,
  input  wire logic [15:0]         tup_dport,
  input  wire logic                tup_valid,
  output logic                     tup_ready,

  // hash out
  output logic [31:0]              hash,
  output logic [2:0]               hash_type,
  output logic                     hash_valid,
  input  wire logic                hash_ready
);

  localparam int IN_BITS = 288;            // longest input: IPv6 addresses and ports, 36 bytes
  localparam int GROUPS  = IN_BITS / 32;   // partial XORs in stage 2

  // Clock gate: the flops change only with a key write, a tuple at the input, or a hash in one of the
  // three pipeline stages (v1_q, v2_q, hash_valid; the valids clear themselves as they move on).
  logic gclk;
  logic v1_q, v2_q;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || key_wr_en || tup_valid || v1_q || v2_q || hash_valid),
    .gclk (gclk)
  );

  // key byte 0 in the top bits, so the 32-bit window for input bit i is key_q[319-i -: 32]
  logic [319:0] key_q;

  always_ff @(posedge gclk) begin
    if (key_wr_en && key_wr_addr < 4'd10) begin
      for (int b = 0; b < 4; b++) begin
        key_q[319 - ({28'd0, key_wr_addr} * 4 + b) * 8 -: 8] <= key_wr_data[b*8 +: 8];
      end
    end
    if (rst) begin
      key_q <= '0;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Stage 0 (combinational): hash type and input byte string, first byte in the top bits.
  // Input strings per Microsoft's RSS hashing types: IPv4 src, dst [, src port, dst port];
  // IPv6 src, dst [, src port, dst port]. Trailing zero bits add nothing to the hash.
  // ---------------------------------------------------------------------------------------
  logic [IN_BITS-1:0] vec;
  logic [2:0]         type0;
  logic               en;

  always_comb begin
    vec   = '0;
    type0 = beryl_nic_pkg::HASH_NONE;
    if (!tup_valid) begin
      // nothing to hash (vec_q and type1_q load only with tup_valid)
    end else if (tup_l3 == beryl_nic_pkg::L3_IPV4) begin
      if (tup_l4 == beryl_nic_pkg::L4_TCP && hash_en[beryl_nic_pkg::HASH_EN_IPV4_TCP]) begin
        type0 = beryl_nic_pkg::HASH_IPV4_TCP;
      end else if (tup_l4 == beryl_nic_pkg::L4_UDP && hash_en[beryl_nic_pkg::HASH_EN_IPV4_UDP]) begin
        type0 = beryl_nic_pkg::HASH_IPV4_UDP;
      end else if (hash_en[beryl_nic_pkg::HASH_EN_IPV4]) begin
        type0 = beryl_nic_pkg::HASH_IPV4;
      end
      if (type0 == beryl_nic_pkg::HASH_IPV4) begin
        vec[IN_BITS-1 -: 64] = {tup_ip_src[31:0], tup_ip_dst[31:0]};
      end else begin
        vec[IN_BITS-1 -: 96] = {tup_ip_src[31:0], tup_ip_dst[31:0], tup_sport, tup_dport};
      end
    end else if (tup_l3 == beryl_nic_pkg::L3_IPV6) begin
      if (tup_l4 == beryl_nic_pkg::L4_TCP && hash_en[beryl_nic_pkg::HASH_EN_IPV6_TCP]) begin
        type0 = beryl_nic_pkg::HASH_IPV6_TCP;
      end else if (tup_l4 == beryl_nic_pkg::L4_UDP && hash_en[beryl_nic_pkg::HASH_EN_IPV6_UDP]) begin
        type0 = beryl_nic_pkg::HASH_IPV6_UDP;
      end else if (hash_en[beryl_nic_pkg::HASH_EN_IPV6]) begin
        type0 = beryl_nic_pkg::HASH_IPV6;
      end
      if (type0 == beryl_nic_pkg::HASH_IPV6) begin
        vec[IN_BITS-1 -: 256] = {tup_ip_src, tup_ip_dst};
      end else begin
        vec = {tup_ip_src, tup_ip_dst, tup_sport, tup_dport};
      end
    end
    if (type0 == beryl_nic_pkg::HASH_NONE) begin
      vec = '0;
    end
  end

  // The whole pipeline advances together; it stalls only when the output is held.
  assign en        = !hash_valid || hash_ready;
  assign tup_ready = en;

  // ---------------------------------------------------------------------------------------
  // Stages 1-3: register the input, XOR key windows in GROUPS partial sums, combine
  // ---------------------------------------------------------------------------------------
  logic [IN_BITS-1:0] vec_q;
  logic [2:0]         type1_q, type2_q;
  logic [31:0]        part_d [GROUPS];
  logic [31:0]        part_q [GROUPS];
  logic [31:0]        hash_d;

  always_comb begin
    for (int g = 0; g < GROUPS; g++) begin
      part_d[g] = '0;
      // an all-zero group adds nothing: the test lets Verilator skip it (IPv4, idle cycles)
      if (v1_q && vec_q[IN_BITS - 1 - g * 32 -: 32] != '0) begin
        for (int j = 0; j < 32; j++) begin
          // input bit i = g*32+j counted from the first (most significant) bit of the string
          if (vec_q[IN_BITS - 1 - (g * 32 + j)]) begin
            part_d[g] = part_d[g] ^ key_q[319 - (g * 32 + j) -: 32];
          end
        end
      end
    end
    hash_d = '0;
    if (v2_q) begin
      for (int g = 0; g < GROUPS; g++) begin
        hash_d = hash_d ^ part_q[g];
      end
    end
  end

  always_ff @(posedge gclk) begin
    if (en) begin
      // payload registers load only with a valid entry (the C++ simulator then skips the
      // 288-bit vector, the nine partial XORs and the final XOR on idle cycles)
      if (tup_valid) begin
        vec_q   <= vec;
        type1_q <= type0;
      end
      v1_q       <= tup_valid;
      if (v1_q) begin
        for (int g = 0; g < GROUPS; g++) begin
          part_q[g] <= part_d[g];
        end
        type2_q <= type1_q;
      end
      v2_q       <= v1_q;
      if (v2_q) begin
        hash      <= hash_d;
        hash_type <= type2_q;
      end
      hash_valid <= v2_q;
    end
    if (rst) begin
      v1_q       <= 1'b0;
      v2_q       <= 1'b0;
      hash_valid <= 1'b0;
    end
  end

endmodule

`resetall
