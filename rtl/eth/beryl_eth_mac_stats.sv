// SPDX-License-Identifier: MIT
// Per-port MAC statistics: turns one beryl_eth_pkg::mac_stat_t record per frame into the counters
// listed in beryl_eth_pkg (frames and bytes good/bad by reason, RMON size buckets). Counters wrap;
// a read returns one counter a cycle after the address; clear zeroes all of them. Accepts one record
// per clock.
`default_nettype none

module beryl_eth_mac_stats #(
  parameter int unsigned CNT_W = 64  // counter width in bits, 16..64
) (
  input  wire logic                     clk,
  input  wire logic                     rst,

  input  wire beryl_eth_pkg::mac_stat_t mac_stat,

  input  wire logic                     stat_clear,   // zero every counter (wins over a record this cycle)
  input  wire logic [4:0]               stat_rd_addr, // counter index, beryl_eth_pkg::STAT_*
  output      logic [CNT_W-1:0]         stat_rd_data
);

  if (CNT_W < 16 || CNT_W > 64) begin : g_bad_cnt_w
    $error("%m: CNT_W must be within 16..64");
  end

  localparam int unsigned N = beryl_eth_pkg::STAT_COUNT;

  logic [CNT_W-1:0] cnt_q [N];
  logic [CNT_W-1:0] add   [N];
  logic             ge64;
  logic [13:0]      len;

  assign len  = mac_stat.len;
  assign ge64 = len >= 14'd64 && !mac_stat.runt && !mac_stat.oversize;

  always_comb begin
    for (int unsigned k = 0; k < N; k++) add[k] = '0;
    if (mac_stat.valid) begin
      add[beryl_eth_pkg::STAT_FRAMES_GOOD] = CNT_W'(mac_stat.good);
      add[beryl_eth_pkg::STAT_FRAMES_BAD]  = CNT_W'(!mac_stat.good);
      add[beryl_eth_pkg::STAT_BYTES_GOOD]  = mac_stat.good ? CNT_W'(len) : '0;
      add[beryl_eth_pkg::STAT_BYTES_ALL]   = CNT_W'(len);
      add[beryl_eth_pkg::STAT_BAD_FCS]     = CNT_W'(mac_stat.bad_fcs);
      add[beryl_eth_pkg::STAT_RUNT]        = CNT_W'(mac_stat.runt);
      add[beryl_eth_pkg::STAT_OVERSIZE]    = CNT_W'(mac_stat.oversize);
      add[beryl_eth_pkg::STAT_ERR_CTRL]    = CNT_W'(mac_stat.err_ctrl);
      add[beryl_eth_pkg::STAT_UNDERFLOW]   = CNT_W'(mac_stat.underflow);
      add[beryl_eth_pkg::STAT_PAUSE]       = CNT_W'(mac_stat.pause);
      add[beryl_eth_pkg::STAT_BCAST]       = CNT_W'(mac_stat.bcast);
      add[beryl_eth_pkg::STAT_MCAST]       = CNT_W'(mac_stat.mcast);
      // RMON (RFC 2819) size buckets, DA through FCS, every frame of legal size whatever its status
      add[beryl_eth_pkg::STAT_LEN_64]   = CNT_W'(ge64 && len == 14'd64);
      add[beryl_eth_pkg::STAT_LEN_65]   = CNT_W'(ge64 && len >= 14'd65 && len <= 14'd127);
      add[beryl_eth_pkg::STAT_LEN_128]  = CNT_W'(ge64 && len >= 14'd128 && len <= 14'd255);
      add[beryl_eth_pkg::STAT_LEN_256]  = CNT_W'(ge64 && len >= 14'd256 && len <= 14'd511);
      add[beryl_eth_pkg::STAT_LEN_512]  = CNT_W'(ge64 && len >= 14'd512 && len <= 14'd1023);
      add[beryl_eth_pkg::STAT_LEN_1024] = CNT_W'(ge64 && len >= 14'd1024 && len <= 14'd1518);
      add[beryl_eth_pkg::STAT_LEN_1519] = CNT_W'(ge64 && len >= 14'd1519);
    end
  end

  always_ff @(posedge clk) begin
    for (int unsigned k = 0; k < N; k++) begin
      if (rst || stat_clear) begin
        cnt_q[k] <= '0;
      end else begin
        cnt_q[k] <= cnt_q[k] + add[k];
      end
    end
    stat_rd_data <= (32'(stat_rd_addr) < N) ? cnt_q[stat_rd_addr] : '0;
  end

endmodule

`resetall
