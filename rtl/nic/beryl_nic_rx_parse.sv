// SPDX-License-Identifier: MIT
// RX header parser: passes a 512-bit AXI-Stream frame through unchanged (zero latency, wires) and
// emits one beryl_nic_pkg::rx_meta_t per frame (VLAN tags, L3/L4 class, 5-tuple, offsets), 1 cycle
// after the header is captured (the first 2 beats). One frame per cycle, back-to-back 1-beat frames.
`default_nettype none

module beryl_nic_rx_parse #(
  parameter int DATA_W = 512,            // stream width, bits: 512 only
  parameter int KEEP_W = DATA_W / 8
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // frame in; tkeep must be contiguous from bit 0 (only the last beat may be partial)
  input  wire logic [DATA_W-1:0]         s_axis_tdata,
  input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
  input  wire logic                      s_axis_tvalid,
  output logic                           s_axis_tready,
  input  wire logic                      s_axis_tlast,

  // frame out (the same beats)
  output logic [DATA_W-1:0]              m_axis_tdata,
  output logic [KEEP_W-1:0]              m_axis_tkeep,
  output logic                           m_axis_tvalid,
  input  wire logic                      m_axis_tready,
  output logic                           m_axis_tlast,

  // parse result, one per frame, in frame order
  output beryl_nic_pkg::rx_meta_t        meta,
  output logic                           meta_valid,
  input  wire logic                      meta_ready
);

  localparam int HB = beryl_nic_pkg::HDR_BYTES;

  if (DATA_W != 512) begin : g_chk
    $error("%m: DATA_W must be 512");
  end

  // ---------------------------------------------------------------------------------------
  // Header capture: first two beats of each frame, bytes past the frame end zeroed
  // ---------------------------------------------------------------------------------------
  logic [HB*8-1:0] hdr_q;
  logic [7:0]      hdr_len_q;       // captured bytes, 1..128
  logic            hdr_full_q;      // capture complete, waiting for the parse stage
  logic [1:0]      beat_q;          // 0: next beat starts a frame, 1: second beat, 2: later beats
  logic [1:0]      fifo_cnt_q;
  logic            block;           // a new frame must wait: capture buffer and output FIFO full
  logic            accept;
  logic            parse_go;
  logic [DATA_W-1:0] data_masked;
  logic [7:0]      keep_bytes;

  // Clock gate: the flops change only with an accepted header beat or last beat (a beat past the
  // header, beat_q 2, moves nothing), a captured header parsed (parse_go) or a result taken from the
  // output FIFO (pop); a beat not accepted, a header or a result waiting move nothing either.
  logic gclk;
  logic pop;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || (accept && (beat_q != 2'd2 || s_axis_tlast)) || parse_go || pop),
    .gclk (gclk)
  );

  // Blocking depends only on state, never on meta_ready, so valid stays independent of ready.
  assign block    = beat_q == 2'd0 && hdr_full_q && fifo_cnt_q == 2'd2;
  assign parse_go = hdr_full_q && fifo_cnt_q != 2'd2;

  assign s_axis_tready = m_axis_tready && !block;
  assign m_axis_tvalid = s_axis_tvalid && !block;
  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tlast  = s_axis_tlast;
  assign accept        = s_axis_tvalid && s_axis_tready;

  // only used on an accepted header beat: the test lets Verilator skip the 64 lanes otherwise
  always_comb begin
    keep_bytes  = '0;
    data_masked = '0;
    if (accept && beat_q != 2'd2) begin
      for (int i = 0; i < KEEP_W; i++) begin
        data_masked[i*8 +: 8] = s_axis_tkeep[i] ? s_axis_tdata[i*8 +: 8] : 8'h00;
        keep_bytes = keep_bytes + 8'(s_axis_tkeep[i]);
      end
    end
  end

  always_ff @(posedge gclk) begin
    if (parse_go) begin
      hdr_full_q <= 1'b0;
    end
    if (accept) begin
      if (s_axis_tlast) begin
        beat_q <= 2'd0;
      end else if (beat_q != 2'd2) begin
        beat_q <= beat_q + 2'd1;
      end
      if (beat_q == 2'd0) begin
        hdr_q      <= {{(HB * 8 - DATA_W){1'b0}}, data_masked};
        hdr_len_q  <= keep_bytes;
        hdr_full_q <= s_axis_tlast;
      end else if (beat_q == 2'd1) begin
        hdr_q[HB*8-1:DATA_W] <= data_masked;
        hdr_len_q  <= hdr_len_q + keep_bytes;
        hdr_full_q <= 1'b1;
      end
    end
    if (rst) begin
      beat_q     <= 2'd0;
      hdr_full_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Parse (combinational from the capture buffer)
  // ---------------------------------------------------------------------------------------
  // Bytes on the wire are little-endian in tdata (byte 0 in bits 7:0); headers are big-endian.
  function automatic logic [15:0] be16(input logic [HB*8-1:0] h, input int off);
    be16 = {h[off*8 +: 8], h[(off + 1)*8 +: 8]};
  endfunction

  logic [15:0] etype0, etype1, etype2, etype;
  logic [1:0]  vlan_cnt;
  logic [7:0]  l3_off;
  logic [319:0] l3_bytes;        // 40 bytes from l3_off, first byte in the top bits
  logic [319:0] l3_shift;        // the 40 bytes from l3_off, wire order from bit 0
  logic [31:0] l4_word;           // 4 bytes at l4_off, wire order from bit 0
  // only some header fields matter to the parser (no checksum, length or TTL checks)
  /* verilator lint_off UNUSEDSIGNAL */
  beryl_nic_pkg::ipv4_hdr_t ip4;
  beryl_nic_pkg::ipv6_hdr_t ip6;
  /* verilator lint_on UNUSEDSIGNAL */
  beryl_nic_pkg::l4_ports_t ports;
  beryl_nic_pkg::rx_meta_t  res;
  logic [7:0]  l4_off;
  logic [8:0]  len9;
  logic        is_ip4, is_ip6, has_ports;
  logic [7:0]  proto;

  function automatic logic is_tag(input logic [15:0] t);
    is_tag = t == beryl_nic_pkg::ETYPE_VLAN || t == beryl_nic_pkg::ETYPE_QINQ;
  endfunction

  // worked out only when the parse stage takes the captured header (res is stored only then): the
  // C++ simulator skips the two 1024-bit shifts and the field decode on every other cycle
  always_comb begin
    etype0 = '0; etype1 = '0; etype2 = '0; etype = '0; len9 = '0; vlan_cnt = '0; l3_off = '0;
    l3_shift = '0; l3_bytes = '0; ip4 = '0; ip6 = '0; l4_off = '0; proto = '0; l4_word = '0;
    ports = '0; is_ip4 = 1'b0; is_ip6 = 1'b0; has_ports = 1'b0; res = '0;
    if (parse_go) begin
      etype0 = be16(hdr_q, 12);
      etype1 = be16(hdr_q, 16);
      etype2 = be16(hdr_q, 20);
      len9   = {1'b0, hdr_len_q};
      // IEEE 802.1Q: each tag is 4 bytes (TPID, TCI) in front of the EtherType; at most 2 are parsed,
      // a third tag leaves the frame as L3 other.
      if (!is_tag(etype0)) begin
        vlan_cnt = 2'd0;
        etype    = etype0;
        l3_off   = 8'd14;
      end else if (!is_tag(etype1)) begin
        vlan_cnt = 2'd1;
        etype    = etype1;
        l3_off   = 8'd18;
      end else begin
        vlan_cnt = 2'd2;
        etype    = etype2;
        l3_off   = 8'd22;
      end
      l3_shift = 320'(hdr_q >> {l3_off, 3'b000});
      for (int i = 0; i < 40; i++) begin
        l3_bytes[319 - i*8 -: 8] = l3_shift[i*8 +: 8];
      end
      ip4 = l3_bytes[319 -: 160];
      ip6 = l3_bytes;

      // RFC 791: the header is IHL 32-bit words, at least 5; the whole header must be present.
      is_ip4 = etype == beryl_nic_pkg::ETYPE_IPV4 && ip4.version == 4'd4 && ip4.ihl >= 4'd5
               && len9 >= 9'(l3_off) + 9'({ip4.ihl, 2'b00});
      is_ip6 = etype == beryl_nic_pkg::ETYPE_IPV6 && ip6.version == 4'd6
               && len9 >= 9'(l3_off) + 9'd40;
      l4_off = '0;
      proto  = '0;
      if (is_ip4) begin
        l4_off = l3_off + {2'b00, ip4.ihl, 2'b00};
        // a fragment (MF set or offset non-zero) carries no reliable L4 header for hashing
        proto  = (ip4.flag_mf || ip4.frag_off != '0) ? 8'hff : ip4.protocol;
      end else if (is_ip6) begin
        l4_off = l3_off + 8'd40;
        // extension headers are not followed: any next header but TCP/UDP is L4 other
        proto  = ip6.next_hdr;
      end
      l4_word   = 32'(hdr_q >> {l4_off, 3'b000});
      ports     = {l4_word[7:0], l4_word[15:8], l4_word[23:16], l4_word[31:24]};
      has_ports = (is_ip4 || is_ip6) && len9 >= 9'(l4_off) + 9'd4
                  && (proto == beryl_nic_pkg::IPPROTO_TCP || proto == beryl_nic_pkg::IPPROTO_UDP);

      res.vlan_cnt = vlan_cnt;
      if (is_ip4) begin
        res.l3      = beryl_nic_pkg::L3_IPV4;
        res.l3_off  = l3_off;
        res.l4_off  = l4_off;
        res.ip_src  = {96'h0, ip4.src};
        res.ip_dst  = {96'h0, ip4.dst};
      end else if (is_ip6) begin
        res.l3      = beryl_nic_pkg::L3_IPV6;
        res.l3_off  = l3_off;
        res.l4_off  = l4_off;
        res.ip_src  = ip6.src;
        res.ip_dst  = ip6.dst;
      end
      if (has_ports) begin
        res.l4    = proto == beryl_nic_pkg::IPPROTO_TCP ? beryl_nic_pkg::L4_TCP : beryl_nic_pkg::L4_UDP;
        res.sport = ports.sport;
        res.dport = ports.dport;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Output FIFO, 2 entries: lets a new header be parsed while the previous result waits
  // ---------------------------------------------------------------------------------------
  beryl_nic_pkg::rx_meta_t fifo_q [2];
  logic wr_ptr_q, rd_ptr_q;

  assign meta_valid = fifo_cnt_q != 2'd0;
  assign meta       = fifo_q[rd_ptr_q];
  assign pop        = meta_valid && meta_ready;

  always_ff @(posedge gclk) begin
    if (parse_go) begin
      fifo_q[wr_ptr_q] <= res;
      wr_ptr_q         <= !wr_ptr_q;
    end
    if (pop) begin
      rd_ptr_q <= !rd_ptr_q;
    end
    fifo_cnt_q <= fifo_cnt_q + 2'(parse_go) - 2'(pop);
    if (rst) begin
      wr_ptr_q   <= 1'b0;
      rd_ptr_q   <= 1'b0;
      fifo_cnt_q <= 2'd0;
    end
  end

endmodule

`resetall
