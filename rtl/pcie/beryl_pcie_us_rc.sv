// SPDX-License-Identifier: MIT
// UltraScale+ requester completion (RC) -> neutral rx_cpl TLP stream: decodes the 96-bit RC
// descriptor into tlp_cpl_hdr_t and realigns the payload to dword 0. Every RC packet, error
// reports included, yields a header so the DMA engine sees the status. Latency 3 cycles (an input
// register, then the strip's two).
// Without straddle one beat per cycle. With RC_STRADDLE (512-bit) a beat may carry the end of
// one TLP and the start of the next at dword 8 (PG213 2-TLP straddle): TLPs alternate between two
// strip lanes and are merged back in order, one beat per cycle, so the core is held off only
// while rx_cpl is busy (up to two short TLPs arrive per RC beat, one leaves per rx_cpl beat).
// PG213 discontinue (the core found an uncorrectable error in the TLP; discard it) comes out as
// rx_cpl_tlp_bad with the TLP's last beat: set for every TLP that has a beat with discontinue
// set (with straddle the flag cannot tell the two TLPs of a beat apart: both are marked).
`default_nettype none

module beryl_pcie_us_rc #(
  parameter int TLP_DATA_W     = 512,                            // 256 (Gen3 x8) or 512 (Gen3 x16)
  parameter int AXIS_RC_USER_W = (TLP_DATA_W == 512) ? 161 : 75, // PG213 RC tuser width
  parameter bit RC_STRADDLE    = (TLP_DATA_W == 512)             // core's RC 2-TLP straddle, 512 only
) (
  input  wire logic                      clk,
  input  wire logic                      rst,

  // Requester completion from the hard IP (PG213, dword-aligned; 4-TLP straddle off)
  input  wire logic [TLP_DATA_W-1:0]     s_axis_rc_tdata,
  input  wire logic [TLP_DATA_W/32-1:0]  s_axis_rc_tkeep,
  input  wire logic                      s_axis_rc_tlast,
  input  wire logic [AXIS_RC_USER_W-1:0] s_axis_rc_tuser,
  input  wire logic                      s_axis_rc_tvalid,
  output      logic                      s_axis_rc_tready,

  // Completions to our reads
  output      logic [127:0]              rx_cpl_tlp_hdr,
  output      logic [TLP_DATA_W-1:0]     rx_cpl_tlp_data,
  output      logic [TLP_DATA_W/32-1:0]  rx_cpl_tlp_strb,
  output      logic                      rx_cpl_tlp_sop,
  output      logic                      rx_cpl_tlp_eop,
  output      logic                      rx_cpl_tlp_valid,
  input  wire logic                      rx_cpl_tlp_ready,
  // Optional extras, valid with the header: the core's RC error code (PG213 table
  // "Requester Completion Error Codes", 0 = normal; 9 = completion timeout) and its
  // "request completed" flag (last completion of that tag).
  output      logic [3:0]                rx_cpl_tlp_err_code,
  output      logic                      rx_cpl_tlp_req_done,
  // with eop: the core discontinued the TLP; its data (already passed on) must not be used
  output      logic                      rx_cpl_tlp_bad
);

  localparam int N      = TLP_DATA_W / 32;  // dwords per beat
  localparam int SIDE_W = 4 + 1 + 128;      // err_code, req_done, header
  localparam int DISC   = (TLP_DATA_W == 512) ? 96 : 42;  // PG213 RC tuser discontinue

  if (!((TLP_DATA_W == 512 && AXIS_RC_USER_W == 161) || (TLP_DATA_W == 256 && AXIS_RC_USER_W == 75)))
  begin : g_bad_param
    $error("%m: TLP_DATA_W %0d with AXIS_RC_USER_W %0d is not a PG213 RC configuration",
           TLP_DATA_W, AXIS_RC_USER_W);
  end
  if (RC_STRADDLE && TLP_DATA_W != 512) begin : g_bad_straddle
    $error("%m: RC_STRADDLE is supported at TLP_DATA_W 512 only (got %0d)", TLP_DATA_W);
  end

  // Input register: every RC beat is registered before any logic looks at it (a cycle of latency;
  // the hard IP's outputs straight into flops also eases timing). The rest of the module reads the
  // registered beat rc_*; the core sees a ready that depends only on this module's state, so in the
  // C++ model no RC logic runs when another input of the NIC changes (the input-combinational
  // region), only when this register or the strip lanes are clocked.
  logic [TLP_DATA_W-1:0]     rc_tdata;
  logic [TLP_DATA_W/32-1:0]  rc_tkeep;
  logic                      rc_tlast;
  logic [AXIS_RC_USER_W-1:0] rc_tuser;
  logic                      rc_tvalid, rc_tready;

  beryl_axis_in_reg #(
    .DATA_W (TLP_DATA_W), .KEEP_W (TLP_DATA_W / 32), .USER_W (AXIS_RC_USER_W)
  ) u_in_reg (
    .clk      (clk),
    .rst      (rst),
    .s_tdata  (s_axis_rc_tdata),
    .s_tkeep  (s_axis_rc_tkeep),
    .s_tlast  (s_axis_rc_tlast),
    .s_tuser  (s_axis_rc_tuser),
    .s_tvalid (s_axis_rc_tvalid),
    .s_tready (s_axis_rc_tready),
    .m_tdata  (rc_tdata),
    .m_tkeep  (rc_tkeep),
    .m_tlast  (rc_tlast),
    .m_tuser  (rc_tuser),
    .m_tvalid (rc_tvalid),
    .m_tready (rc_tready)
  );

  // Descriptor decoded at dword 0 and, with straddle, at dword N/2 (a TLP starting mid-beat)
  // into the sideband {error code, request completed, tlp_cpl_hdr_t}.
  localparam int DEC_COUNT = RC_STRADDLE ? 2 : 1;
  logic [DEC_COUNT*SIDE_W-1:0] dec_side;  // decoder d in slice d

  for (genvar d = 0; d < DEC_COUNT; d++) begin : g_dec
    beryl_pcie_pkg::tlp_cpl_hdr_t hdr;
    logic [3:0]                   err_code;
    logic                         req_done;
    beryl_pcie_us_rc_desc u_desc (
      .desc    (rc_tdata[d*(N/2)*32 +: 96]),
      .hdr     (hdr),
      .err_code(err_code),
      .req_done(req_done)
    );
    assign dec_side[d*SIDE_W +: SIDE_W] = {err_code, req_done, hdr};
  end

  if (RC_STRADDLE) begin : g_straddle
    // ---- 2-TLP straddle: split each beat into a lower piece (a TLP continuing from the last
    // beat or starting at dword 0) and an upper piece (a TLP starting at dword 8), and give
    // TLPs alternately to strip lane 0 and 1, so each lane sees at most one TLP per beat.
    localparam int H = N / 2;

    // PG213 RC tuser (512-bit): byte_en[63:0], is_sop[67:64], is_sop0..3_ptr[75:68] (in
    // 128-bit units), is_eop[79:76], is_eop0..3_ptr[95:80] (last dword), discontinue[96],
    // parity[160:97]. tlast/tkeep are not used: with straddle the pointers delimit TLPs.
    logic [1:0] is_sop, is_eop;
    logic [1:0] sop0_ptr, sop1_ptr;
    logic [3:0] eop0_ptr, eop1_ptr;
    assign is_sop   = rc_tuser[65:64];
    assign sop0_ptr = rc_tuser[69:68];
    assign sop1_ptr = rc_tuser[71:70];
    assign is_eop   = rc_tuser[77:76];
    assign eop0_ptr = rc_tuser[83:80];
    assign eop1_ptr = rc_tuser[87:84];

    logic unused_ok;
    assign unused_ok = ^{rc_tuser[AXIS_RC_USER_W-1:DISC+1], rc_tuser[DISC-1:88], rc_tuser[79:78],
                         rc_tuser[75:72], rc_tuser[67:66], rc_tuser[63:0],
                         rc_tkeep, rc_tlast};

    // in_pkt_q: a TLP continues into the next beat; next_lane_q: lane of the next TLP to start.
    logic in_pkt_q, next_lane_q;
    logic gclk;

    logic         lo_used, lo_new, lo_end, hi_used, hi_end, lo_lane, hi_lane;
    logic [3:0]   hi_eop_ptr;
    logic [N-1:0] lo_keep, hi_keep;
    assign lo_new     = !in_pkt_q && is_sop[0] && sop0_ptr == 2'd0;
    assign lo_used    = in_pkt_q || lo_new;
    assign lo_end     = lo_used && is_eop[0];
    assign hi_used    = (is_sop[0] && sop0_ptr == 2'd2) || (is_sop[1] && sop1_ptr == 2'd2);
    // The first eop of the beat belongs to the lower piece when there is one.
    assign hi_end     = lo_used ? is_eop[1] : is_eop[0];
    assign hi_eop_ptr = lo_used ? eop1_ptr : eop0_ptr;
    assign lo_lane    = next_lane_q ^ in_pkt_q;  // a continuing TLP took the lane before
    assign hi_lane    = next_lane_q ^ lo_new;
    always_comb begin
      for (int i = 0; i < N; i++) begin
        lo_keep[i] = !lo_end || 4'(i) <= eop0_ptr;
        hi_keep[i] = i >= H && (!hi_end || 4'(i) <= hi_eop_ptr);
      end
    end

    logic [SIDE_W-1:0] side_lo, side_hi;
    assign side_lo = dec_side[0 +: SIDE_W];
    assign side_hi = dec_side[SIDE_W +: SIDE_W];

    // Per lane: which piece it takes from this beat. The beat is accepted when every lane
    // that takes a piece can.
    logic [1:0] take, take_hi, lane_ready, lane_out_valid, lane_out_ready;
    logic [1:0] lane_out_sop, lane_out_eop, lane_out_bad;
    logic [2*TLP_DATA_W-1:0] lane_out_data;  // lane l in slice l
    logic [2*N-1:0]          lane_out_strb;
    logic [2*SIDE_W-1:0]     lane_out_side;
    for (genvar l = 0; l < 2; l++) begin : g_lane
      assign take_hi[l] = hi_used && hi_lane == 1'(l);
      assign take[l]    = take_hi[l] || (lo_used && lo_lane == 1'(l));
    end
    assign rc_tready = (!take[0] || lane_ready[0]) && (!take[1] || lane_ready[1]);

    for (genvar l = 0; l < 2; l++) begin : g_strip
      beryl_pcie_us_strip #(
        .DATA_W      (TLP_DATA_W),
        .DESC_DW     (3),
        .SIDE_W      (SIDE_W),
        .MID_START_EN(1'b1)
      ) u_strip (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (rc_tdata),
        .s_axis_tkeep (take_hi[l] ? hi_keep : lo_keep),
        .s_axis_tlast (take_hi[l] ? hi_end : lo_end),
        .s_side       (take_hi[l] ? side_hi : side_lo),
        .s_start_mid  (take_hi[l]),
        .s_bad        (rc_tuser[DISC]),
        .s_axis_tvalid(rc_tvalid && rc_tready && take[l]),
        .s_axis_tready(lane_ready[l]),
        .m_tlp_data   (lane_out_data[l*TLP_DATA_W +: TLP_DATA_W]),
        .m_tlp_strb   (lane_out_strb[l*N +: N]),
        .m_tlp_sop    (lane_out_sop[l]),
        .m_tlp_eop    (lane_out_eop[l]),
        .m_side       (lane_out_side[l*SIDE_W +: SIDE_W]),
        .m_bad        (lane_out_bad[l]),
        .m_tlp_valid  (lane_out_valid[l]),
        .m_tlp_ready  (lane_out_ready[l])
      );
    end

    always_ff @(posedge gclk) begin
      if (rst) begin
        in_pkt_q    <= 1'b0;
        next_lane_q <= 1'b0;
      end else if (rc_tvalid && rc_tready) begin
        in_pkt_q    <= hi_used ? !hi_end : (lo_used ? !lo_end : in_pkt_q);
        next_lane_q <= next_lane_q ^ lo_new ^ hi_used;
      end
    end

    // In-order merge: stay on a lane until its TLP's last beat has gone out.
    logic out_lane_q;
    assign lane_out_ready[0] = rx_cpl_tlp_ready && !out_lane_q;
    assign lane_out_ready[1] = rx_cpl_tlp_ready && out_lane_q;
    assign rx_cpl_tlp_valid  = lane_out_valid[out_lane_q];
    assign rx_cpl_tlp_data   = lane_out_data[out_lane_q*TLP_DATA_W +: TLP_DATA_W];
    assign rx_cpl_tlp_strb   = lane_out_strb[out_lane_q*N +: N];
    assign rx_cpl_tlp_sop    = lane_out_sop[out_lane_q];
    assign rx_cpl_tlp_eop    = lane_out_eop[out_lane_q];
    assign rx_cpl_tlp_bad    = lane_out_bad[out_lane_q];
    assign {rx_cpl_tlp_err_code, rx_cpl_tlp_req_done, rx_cpl_tlp_hdr} =
      lane_out_side[out_lane_q*SIDE_W +: SIDE_W];

    always_ff @(posedge gclk) begin
      if (rst) begin
        out_lane_q <= 1'b0;
      end else if (rx_cpl_tlp_valid && rx_cpl_tlp_ready && rx_cpl_tlp_eop) begin
        out_lane_q <= !out_lane_q;
      end
    end

    // Clock gate (sim/README.md, "Clock gates") for the lane and merge state above (the lanes gate
    // themselves): in_pkt_q/next_lane_q change only with an RC beat, out_lane_q only with an output
    // beat of a lane.
    beryl_clk_gate u_gate (
      .clk  (clk),
      .en   (rst || rc_tvalid || (|lane_out_valid)),
      .gclk (gclk)
    );
  end else begin : g_plain
    // ---- one TLP per beat: tlast/tkeep delimit packets; of tuser only discontinue is needed
    logic unused_ok;
    assign unused_ok = ^{rc_tuser[AXIS_RC_USER_W-1:DISC+1], rc_tuser[DISC-1:0]};

    beryl_pcie_us_strip #(
      .DATA_W (TLP_DATA_W),
      .DESC_DW(3),
      .SIDE_W (SIDE_W)
    ) u_strip (
      .clk          (clk),
      .rst          (rst),
      .s_axis_tdata (rc_tdata),
      .s_axis_tkeep (rc_tkeep),
      .s_axis_tlast (rc_tlast),
      .s_side       (dec_side),
      .s_start_mid  (1'b0),
      .s_bad        (rc_tuser[DISC]),
      .s_axis_tvalid(rc_tvalid),
      .s_axis_tready(rc_tready),
      .m_tlp_data   (rx_cpl_tlp_data),
      .m_tlp_strb   (rx_cpl_tlp_strb),
      .m_tlp_sop    (rx_cpl_tlp_sop),
      .m_tlp_eop    (rx_cpl_tlp_eop),
      .m_side       ({rx_cpl_tlp_err_code, rx_cpl_tlp_req_done, rx_cpl_tlp_hdr}),
      .m_bad        (rx_cpl_tlp_bad),
      .m_tlp_valid  (rx_cpl_tlp_valid),
      .m_tlp_ready  (rx_cpl_tlp_ready)
    );
  end

endmodule

`resetall
