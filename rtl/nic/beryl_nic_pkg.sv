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

  // ---------------------------------------------------------------- host memory formats
  // Little-endian in host memory: byte 0 of a structure is bits 7:0 of its packed vector, so the
  // LAST member of each struct below is the first in memory (docs/blocks/nic_core.md, "Host formats").

  // TX descriptor, 16 bytes. A packet is one or more descriptors; MORE says the next descriptor
  // continues the same packet. The checksum fields count only in a packet's first descriptor.
  localparam int TX_DESC_FLAG_MORE = 0;   // packet continues in the next descriptor
  localparam int TX_DESC_FLAG_CSUM = 1;   // insert a checksum (CHECKSUM_PARTIAL semantics)
  typedef struct packed {
    logic [7:0]  csum_offset;   // byte 15: field offset from csum_start
    logic [7:0]  csum_start;    // byte 14: first byte summed, from the frame start
    logic [15:0] flags;         // bytes 12-13: TX_DESC_FLAG_*
    logic [31:0] len;           // bytes 8-11: buffer bytes, 1..MAX_FRAME
    logic [63:0] addr;          // bytes 0-7: buffer bus address, any alignment
  } tx_desc_t;

  // RX descriptor, 16 bytes: one buffer per frame (no RX scatter).
  typedef struct packed {
    logic [31:0] rsvd;          // bytes 12-15
    logic [31:0] len;           // bytes 8-11: buffer bytes
    logic [63:0] addr;          // bytes 0-7: buffer bus address, any alignment
  } rx_desc_t;

  // Completion status codes (cpl_t.status)
  localparam logic [7:0] CPL_OK        = 8'd0;
  localparam logic [7:0] CPL_TOO_LONG  = 8'd1;  // RX: frame longer than the buffer, frame dropped
  localparam logic [7:0] CPL_DMA_ERR   = 8'd2;  // a DMA transfer of the packet failed
  localparam logic [7:0] CPL_BAD_DESC  = 8'd3;  // TX: zero length, chain too long or cut short
  localparam logic [7:0] CPL_UNUSED    = 8'd4;  // RX: descriptor returned unused (prefetched, then evicted), length 0

  // Completion-entry flags (cpl_t.flags)
  localparam int CPL_FLAG_CSUM_VALID = 0;       // csum holds the RX payload sum
  localparam int CPL_FLAG_HASH_VALID = 1;       // rss_hash / hash_type hold the RSS hash

  // TX and RX completion, 32 bytes. The phase bit is written last in the entry's top byte.
  // (`queue` is a keyword only in SystemC, which this package never meets.)
  /* verilator lint_off SYMRSVDWORD */
  typedef struct packed {
    logic        phase;         // byte 31 bit 7: flips each pass around the ring, 1 on the first
    logic [6:0]  rsvd1;         // byte 31 bits 6:0
    logic [55:0] rsvd0;         // bytes 24-30
    logic [63:0] timestamp;     // bytes 16-23: PTP time of the frame start {sec[17:0], ns[29:0], fns16}, 0 if none
    logic [15:0] len;           // bytes 14-15: frame length (0 when dropped)
    logic [15:0] csum;          // bytes 12-13: RX ones'-complement sum from byte 14, not complemented
    logic [31:0] rss_hash;      // bytes 8-11
    logic [7:0]  flags;         // byte 7: CPL_FLAG_*
    logic [4:0]  rsvd3;         // byte 6 bits 7:3
    logic [2:0]  hash_type;     // byte 6 bits 2:0: HASH_* code
    logic [7:0]  status;        // byte 5: CPL_* code
    logic [7:0]  port;          // byte 4: port the frame came in on / went out of
    logic [15:0] index;         // bytes 2-3: ring index of the packet's (first) descriptor
    logic [15:0] queue;         // bytes 0-1: TX or RX queue
  } cpl_t;
  /* verilator lint_on SYMRSVDWORD */

  // Event entry, 32 bytes: "completion queue CQ has new entries".
  localparam logic [15:0] EVT_CPL = 16'd0;
  typedef struct packed {
    logic        phase;         // byte 31 bit 7
    logic [6:0]  rsvd1;
    logic [215:0] rsvd0;        // bytes 4-30
    logic [15:0] source;        // bytes 2-3: the completion queue
    logic [15:0] evt_type;      // bytes 0-1: EVT_*
  } evt_t;

  localparam int DESC_BYTES = 16;
  localparam int CPL_BYTES  = 32;

  // Queue-manager response status
  localparam logic [1:0] QM_OK       = 2'd0;
  localparam logic [1:0] QM_EMPTY    = 2'd1;   // descriptor queue: nothing to take; completion queue: full
  localparam logic [1:0] QM_DISABLED = 2'd2;
  localparam logic [1:0] QM_BAD_IDX  = 2'd3;   // queue index out of range

  // Scheduler -> TX engine command result
  localparam logic [1:0] TXS_SENT     = 2'd0;  // one or more packets sent; queue may have more
  localparam logic [1:0] TXS_EMPTY    = 2'd1;  // queue had nothing (or was drained by this command)
  localparam logic [1:0] TXS_DISABLED = 2'd2;
  localparam logic [1:0] TXS_ERROR    = 2'd3;  // bad descriptor or DMA error; queue may have more

  /* verilator lint_on UNUSEDPARAM */

  // ---------------------------------------------------------------- PTP timestamps
  // Completion timestamp {sec[17:0], ns[29:0] (0..999999999), fns[15:0] (2^-16 ns)} from the clock's
  // time of day {sec48, ns32, fns16}; software extends the seconds from a recent clock read.
  // (the seconds above bit 17 and ns bits 31:30, always 0, are dropped)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [63:0] ts_of_tod(input logic [95:0] tod);
    ts_of_tod = {tod[65:48], tod[45:16], tod[15:0]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ts + corr, corr signed in 2^-16 ns (|corr| < 2^31 units, well under a second): one carry or
  // borrow across the second
  function automatic logic [63:0] ts_add(input logic [63:0] ts, input logic [31:0] corr);
    logic signed [47:0] sum;
    logic [17:0]        sec;
    sum = $signed({2'b00, ts[45:0]}) + 48'($signed(corr));
    sec = ts[63:46];
    if (sum < 0) begin
      sum = sum + (48'sd1000000000 <<< 16);
      sec = sec - 18'd1;
    end else if (sum >= (48'sd1000000000 <<< 16)) begin
      sum = sum - (48'sd1000000000 <<< 16);
      sec = sec + 18'd1;
    end
    ts_add = {sec, sum[45:0]};
  endfunction

endpackage

`resetall
