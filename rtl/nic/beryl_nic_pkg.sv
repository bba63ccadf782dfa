// SPDX-License-Identifier: MIT
// Beryl NIC core package: header layouts the offload blocks parse (as packed structs, first byte on
// the wire in the most significant bits), the parse result record and the RSS hash type codes.
`default_nettype none

package beryl_nic_pkg;

  // Each user picks the constants it needs; unused ones are not a defect here.
  /* verilator lint_off UNUSEDPARAM */

  // EtherTypes (IEEE 802.3 clause 3.2.6, IEEE 802.1Q clause 9.5)
  localparam logic [15:0] ETYPE_IPV4  = 16'h0800;
  localparam logic [15:0] ETYPE_IPV6  = 16'h86dd;
  localparam logic [15:0] ETYPE_VLAN  = 16'h8100;  // C-tag
  localparam logic [15:0] ETYPE_QINQ  = 16'h88a8;  // S-tag

  // IP protocol numbers (IANA)
  localparam logic [7:0] IPPROTO_TCP = 8'd6;
  localparam logic [7:0] IPPROTO_UDP = 8'd17;

  // Parsing needs the first 2 beats of 64 bytes: the deepest field is the destination port of an
  // IPv4 header with 40 option bytes behind two VLAN tags, bytes 82..85.
  localparam int HDR_BYTES = 128;

  // L3 and L4 classes of a parsed frame (2 bits each)
  localparam logic [1:0] L3_OTHER = 2'd0;
  localparam logic [1:0] L3_IPV4  = 2'd1;
  localparam logic [1:0] L3_IPV6  = 2'd2;
  localparam logic [1:0] L4_OTHER = 2'd0;
  localparam logic [1:0] L4_TCP   = 2'd1;
  localparam logic [1:0] L4_UDP   = 2'd2;

  // RSS hash types, as reported in the completion (3 bits)
  localparam logic [2:0] HASH_NONE     = 3'd0;
  localparam logic [2:0] HASH_IPV4     = 3'd1;
  localparam logic [2:0] HASH_IPV4_TCP = 3'd2;
  localparam logic [2:0] HASH_IPV4_UDP = 3'd3;
  localparam logic [2:0] HASH_IPV6     = 3'd4;
  localparam logic [2:0] HASH_IPV6_TCP = 3'd5;
  localparam logic [2:0] HASH_IPV6_UDP = 3'd6;

  // Bits of the RSS hash-enable mask (which tuples software wants hashed)
  localparam int HASH_EN_IPV4     = 0;
  localparam int HASH_EN_IPV4_TCP = 1;
  localparam int HASH_EN_IPV4_UDP = 2;
  localparam int HASH_EN_IPV6     = 3;
  localparam int HASH_EN_IPV6_TCP = 4;
  localparam int HASH_EN_IPV6_UDP = 5;

  /* verilator lint_on UNUSEDPARAM */

  // IPv4 header without options (RFC 791 section 3.1)
  typedef struct packed {
    logic [3:0]  version;
    logic [3:0]  ihl;
    logic [7:0]  tos;
    logic [15:0] total_len;
    logic [15:0] id;
    logic        flag_rsvd;
    logic        flag_df;
    logic        flag_mf;
    logic [12:0] frag_off;
    logic [7:0]  ttl;
    logic [7:0]  protocol;
    logic [15:0] hdr_csum;
    logic [31:0] src;
    logic [31:0] dst;
  } ipv4_hdr_t;

  // IPv6 fixed header (RFC 8200 section 3)
  typedef struct packed {
    logic [3:0]   version;
    logic [7:0]   traffic_class;
    logic [19:0]  flow_label;
    logic [15:0]  payload_len;
    logic [7:0]   next_hdr;
    logic [7:0]   hop_limit;
    logic [127:0] src;
    logic [127:0] dst;
  } ipv6_hdr_t;

  // First 4 bytes of a TCP (RFC 9293 section 3.1) or UDP (RFC 768) header
  typedef struct packed {
    logic [15:0] sport;
    logic [15:0] dport;
  } l4_ports_t;

  // Parse result, one per frame. Addresses are 128 bits; an IPv4 address sits in bits 31:0.
  // l3_off is valid when l3 != L3_OTHER; l4_off (the byte after the IP header) likewise; ports are
  // valid when l4 != L4_OTHER. Fields that are not valid read zero.
  typedef struct packed {
    logic [1:0]   vlan_cnt;
    logic [1:0]   l3;
    logic [1:0]   l4;
    logic [7:0]   l3_off;
    logic [7:0]   l4_off;
    logic [127:0] ip_src;
    logic [127:0] ip_dst;
    logic [15:0]  sport;
    logic [15:0]  dport;
  } rx_meta_t;

endpackage

`resetall
