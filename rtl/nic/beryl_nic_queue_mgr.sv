// SPDX-License-Identifier: MIT
// Queue manager (docs/blocks/nic_core.md, "Queue manager"): ring state of QUEUE_COUNT queues in an
// inferred RAM, changed by config requests, doorbells and operations through a read-modify-write
// pipeline with forwarding. One request per cycle, responses 2 cycles after acceptance.
`default_nettype none

// Reset: the state RAM is cleared by a counter after reset (QUEUE_COUNT cycles, all request readies
// low meanwhile), so every queue starts disabled with all fields 0.
// Arbitration: round-robin over the op, doorbell and config ports; no port waits more than two
// accepted requests of the others.
// The pipeline forwards the word written in the previous cycle, so back-to-back requests for the same
// queue need no stall. It stalls only while the output a request needs is full (op_rsp for ops,
// db_evt for MODE 0 doorbells); nothing is ever dropped.
// Config port details beyond the contract: a CTRL write to an enabled queue applies enable, armed and
// aux but keeps log_size (err if the written log_size differs and the write keeps the queue enabled),
// so writing 0 always disables a queue without error; fields 6 and 7 read 0 and report err. QM_BAD_IDX never occurs: QUEUE_COUNT is a power of
// two and every port carries exactly QI_W index bits (range checks belong to the register block).
module beryl_nic_queue_mgr #(
  parameter int MODE        = 0,     // 0: descriptor queue (host produces), 1: completion/event queue
  parameter int QUEUE_COUNT = 4096,  // queues, power of two, 2..32768
  parameter int QI_W        = QUEUE_COUNT > 1 ? $clog2(QUEUE_COUNT) : 1,  // queue index width, bits
  parameter int CNT_W       = 4,     // op count width, bits, 2..16; an op asks for 1..2^(CNT_W-1) entries
  parameter int ENTRY_LOG2  = 4      // log2 of the entry size in bytes, 0..12 (4 descriptors, 5 cpl/events)
) (
  input  wire logic              clk,
  input  wire logic              rst,

  // configuration port (register block)
  input  wire logic              cfg_req_valid,
  output logic                   cfg_req_ready,
  input  wire logic              cfg_req_we,
  input  wire logic [QI_W-1:0]   cfg_req_qidx,
  input  wire logic [2:0]        cfg_req_field,
  input  wire logic [31:0]       cfg_req_wdata,
  output logic                   cfg_rsp_valid,
  output logic [31:0]            cfg_rsp_rdata,
  output logic                   cfg_rsp_err,

  // doorbell port
  input  wire logic              db_valid,
  output logic                   db_ready,
  input  wire logic [QI_W-1:0]   db_qidx,
  input  wire logic [15:0]       db_ptr,
  input  wire logic              db_arm,

  // doorbell events (MODE 0 only; tied off in MODE 1)
  output logic                   db_evt_valid,
  input  wire logic              db_evt_ready,
  output logic [QI_W-1:0]        db_evt_qidx,
  output logic [7:0]             db_evt_aux,

  // operation port
  input  wire logic              op_req_valid,
  output logic                   op_req_ready,
  input  wire logic [QI_W-1:0]   op_req_qidx,
  input  wire logic [CNT_W-1:0]  op_req_count,
  output logic                   op_rsp_valid,
  input  wire logic              op_rsp_ready,
  output logic [QI_W-1:0]        op_rsp_qidx,
  output logic [1:0]             op_rsp_status,
  output logic [63:0]            op_rsp_addr,
  output logic [15:0]            op_rsp_ptr,
  output logic [CNT_W-1:0]       op_rsp_count,
  output logic                   op_rsp_phase,
  output logic                   op_rsp_armed,
  output logic [31:0]            op_rsp_target,
  output logic [7:0]             op_rsp_aux,
  output logic [3:0]             op_rsp_log_size,
  output logic                   op_rsp_empty,

  output logic [31:0]            db_bad_count    // rejected doorbells, wraps
);

  if (MODE != 0 && MODE != 1) begin : g_chk_mode
    $error("%m: MODE must be 0 (descriptor queue) or 1 (completion queue)");
  end
  if (QUEUE_COUNT < 2 || QUEUE_COUNT > 32768 || (QUEUE_COUNT & (QUEUE_COUNT - 1)) != 0) begin : g_chk_count
    $error("%m: QUEUE_COUNT must be a power of two, 2..32768");
  end
  if ((1 << QI_W) != QUEUE_COUNT) begin : g_chk_qi
    $error("%m: QI_W must be $clog2(QUEUE_COUNT)");
  end
  if (CNT_W < 2 || CNT_W > 16) begin : g_chk_cnt
    $error("%m: CNT_W must be 2..16");
  end
  if (ENTRY_LOG2 < 0 || ENTRY_LOG2 > 12) begin : g_chk_entry
    $error("%m: ENTRY_LOG2 must be 0..12");
  end

  // ---------------------------------------------------------------- state word layout
  localparam int O_BASE   = 0;     // [63:0]  base_addr
  localparam int O_PROD   = 64;    // [15:0]  prod
  localparam int O_CONS   = 80;    // [15:0]  cons
  localparam int O_TARGET = 96;    // [31:0]  target
  localparam int O_AUX    = 128;   // [7:0]   aux
  localparam int O_LSZ    = 136;   // [3:0]   log_size
  localparam int O_EN     = 140;   //         enable
  localparam int O_ARMED  = 141;   //         armed
  localparam int ST_W     = 142;

  // request kinds
  localparam logic [1:0] K_OP  = 2'd0;
  localparam logic [1:0] K_DB  = 2'd1;
  localparam logic [1:0] K_CFG = 2'd2;

  // config fields
  localparam logic [2:0] F_BASE_LO = 3'd0;
  localparam logic [2:0] F_BASE_HI = 3'd1;
  localparam logic [2:0] F_CTRL    = 3'd2;
  localparam logic [2:0] F_TARGET  = 3'd3;
  localparam logic [2:0] F_PROD    = 3'd4;
  localparam logic [2:0] F_CONS    = 3'd5;

  // ---------------------------------------------------------------- clock gate
  // Every flop below is clocked by gclk. The block is clocked in a cycle with a request at a port, work
  // in its pipeline, a response or event not yet taken, the clear after reset, or a reset; in any other
  // cycle no flop or RAM word of it would change (s1 and the forwarding registers load only with a
  // request taken or in stage 1), so the gate changes nothing but what a simulator evaluates.
  logic clr_q;
  logic s1_valid_q;
  logic fwd_valid_q;
  logic gclk;

  beryl_clk_gate u_gate (
    .clk  (clk),
    .en   (rst || clr_q || cfg_req_valid || db_valid || op_req_valid || s1_valid_q || fwd_valid_q ||
           op_rsp_valid || cfg_rsp_valid || db_evt_valid),
    .gclk (gclk)
  );

  // ---------------------------------------------------------------- clear after reset
  logic [QI_W-1:0] clr_idx_q;

  always_ff @(posedge gclk) begin
    if (clr_q) begin
      clr_idx_q <= clr_idx_q + 1'b1;
      if (clr_idx_q == QI_W'(QUEUE_COUNT - 1)) begin
        clr_q <= 1'b0;
      end
    end
    if (rst) begin
      clr_q     <= 1'b1;
      clr_idx_q <= '0;
    end
  end

  // ---------------------------------------------------------------- stage 0: arbitration, RAM read
  logic [1:0]       s1_kind_q;
  logic [QI_W-1:0]  s1_qidx_q;
  logic [CNT_W-1:0] s1_cnt_q;
  logic [15:0]      s1_ptr_q;
  logic             s1_arm_q;
  logic             s1_we_q;
  logic [2:0]       s1_field_q;
  logic [31:0]      s1_wdata_q;

  logic             s1_go;       // stage 1 can hand its request on this cycle
  logic             en;          // the pipeline moves
  logic [2:0]       req;         // [0] op, [1] db, [2] cfg
  logic [2:0]       gnt;
  logic [1:0]       last_q;      // port granted last (round-robin pointer)
  logic             take;
  logic [QI_W-1:0]  s0_qidx;

  assign en   = !s1_valid_q || s1_go;
  assign req  = {cfg_req_valid, db_valid, op_req_valid};
  assign take = en && !clr_q && (|req);

  // round-robin: the port after the last granted one has priority
  always_comb begin
    gnt = 3'b000;
    case (last_q)
      2'd0:    gnt = req[1] ? 3'b010 : req[2] ? 3'b100 : req[0] ? 3'b001 : 3'b000;
      2'd1:    gnt = req[2] ? 3'b100 : req[0] ? 3'b001 : req[1] ? 3'b010 : 3'b000;
      default: gnt = req[0] ? 3'b001 : req[1] ? 3'b010 : req[2] ? 3'b100 : 3'b000;
    endcase
  end

  assign op_req_ready  = en && !clr_q && gnt[0];
  assign db_ready      = en && !clr_q && gnt[1];
  assign cfg_req_ready = en && !clr_q && gnt[2];
  assign s0_qidx       = gnt[1] ? db_qidx : gnt[2] ? cfg_req_qidx : op_req_qidx;

  always_ff @(posedge gclk) begin
    if (en) begin
      s1_valid_q <= take;
    end
    if (take) begin   // the request's fields only with a request (stage 1 reads them only then)
      s1_kind_q  <= gnt[1] ? K_DB : gnt[2] ? K_CFG : K_OP;
      s1_qidx_q  <= s0_qidx;
      s1_cnt_q   <= op_req_count;
      s1_ptr_q   <= db_ptr;
      s1_arm_q   <= db_arm;
      s1_we_q    <= cfg_req_we;
      s1_field_q <= cfg_req_field;
      s1_wdata_q <= cfg_req_wdata;
      last_q     <= gnt[1] ? 2'd1 : gnt[2] ? 2'd2 : 2'd0;
    end
    if (rst) begin
      s1_valid_q <= 1'b0;
      last_q     <= 2'd2;
    end
  end

  // ---------------------------------------------------------------- state RAM
  logic [ST_W-1:0] mem [QUEUE_COUNT];
  logic [ST_W-1:0] ram_rdata_q;
  logic            mem_we;
  logic [QI_W-1:0] mem_waddr;
  logic [ST_W-1:0] mem_wdata;
  logic [ST_W-1:0] st_new;

  assign mem_we    = clr_q || (en && s1_valid_q);
  assign mem_waddr = clr_q ? clr_idx_q : s1_qidx_q;
  assign mem_wdata = clr_q ? '0 : st_new;

  always_ff @(posedge gclk) begin
    if (mem_we) begin
      mem[mem_waddr] <= mem_wdata;
    end
  end

  // the read register holds while stage 1 waits (read enable), like a block RAM output; it reads only
  // for a request taken (stage 1 uses it only then), so idle cycles copy no state word (simulator speed)
  always_ff @(posedge gclk) begin
    if (take) begin
      ram_rdata_q <= mem[s0_qidx];
    end
  end

  // forwarding: a read in the same cycle as the write to its queue returned the old word
  logic [QI_W-1:0] fwd_qidx_q;
  logic [ST_W-1:0] fwd_data_q;

  always_ff @(posedge gclk) begin
    if (en) begin
      fwd_valid_q <= s1_valid_q;
    end
    if (en && s1_valid_q) begin   // the word only with a write to forward
      fwd_qidx_q  <= s1_qidx_q;
      fwd_data_q  <= st_new;
    end
    if (rst) begin
      fwd_valid_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- stage 1: modify
  logic [ST_W-1:0]  cur;
  logic [63:0]      base;
  logic [15:0]      prod;
  logic [15:0]      cons;
  logic [7:0]       aux;
  logic [3:0]       lsz;
  logic             q_en;
  logic             q_armed;
  logic [16:0]      size;        // 2^log_size entries
  logic [15:0]      mask;
  logic [15:0]      ptr;         // first entry of an op: cons (MODE 0) or prod (MODE 1)
  logic [15:0]      used;
  logic [16:0]      avail;
  logic [16:0]      to_end;
  logic [16:0]      grant_full;
  logic [CNT_W-1:0] grant;
  logic [1:0]       status;
  logic             armed_out;
  logic [15:0]      db_diff;
  logic             db_bad;
  logic             evt;
  logic [31:0]      rdata;
  logic             err;

  always_comb begin
    cur = '0;   // stage 1's word only with a request in it (its results are used only then)
    if (s1_valid_q) cur = (fwd_valid_q && fwd_qidx_q == s1_qidx_q) ? fwd_data_q : ram_rdata_q;
  end
  assign base    = cur[O_BASE +: 64];
  assign prod    = cur[O_PROD +: 16];
  assign cons    = cur[O_CONS +: 16];
  assign aux     = cur[O_AUX +: 8];
  assign lsz     = cur[O_LSZ +: 4];
  assign q_en    = cur[O_EN];
  assign q_armed = cur[O_ARMED];
  assign size    = 17'd1 << lsz;
  assign mask    = 16'(size - 17'd1);
  assign ptr     = MODE == 0 ? cons : prod;
  assign used    = prod - cons;
  assign to_end  = size - {1'b0, ptr & mask};

  always_comb begin
    if (MODE == 0) begin
      avail = {1'b0, used};
    end else begin
      avail = {1'b0, used} >= size ? 17'd0 : size - {1'b0, used};
    end
    grant_full = {{(17 - CNT_W){1'b0}}, s1_cnt_q};
    if (avail < grant_full) begin
      grant_full = avail;
    end
    if (to_end < grant_full) begin
      grant_full = to_end;
    end
    if (!q_en) begin
      status = beryl_nic_pkg::QM_DISABLED;
    end else if (avail == 17'd0) begin
      status = beryl_nic_pkg::QM_EMPTY;
    end else begin
      status = beryl_nic_pkg::QM_OK;
    end
    grant = status == beryl_nic_pkg::QM_OK ? grant_full[CNT_W-1:0] : '0;
    armed_out = MODE == 1 && q_armed && grant != '0;
  end

  // doorbell check: the ring may never hold more than its size
  assign db_diff = MODE == 0 ? s1_ptr_q - cons : prod - s1_ptr_q;
  assign db_bad  = {1'b0, db_diff} > size;
  assign evt     = MODE == 0 && !db_bad && q_en;

  always_comb begin
    st_new = cur;
    rdata  = 32'd0;
    err    = 1'b0;
    case (s1_kind_q)
      K_OP: begin
        if (MODE == 0) begin
          st_new[O_CONS +: 16] = cons + 16'(grant);
        end else begin
          st_new[O_PROD +: 16] = prod + 16'(grant);
          if (armed_out) begin
            st_new[O_ARMED] = 1'b0;
          end
        end
      end
      K_DB: begin
        if (!db_bad) begin
          if (MODE == 0) begin
            st_new[O_PROD +: 16] = s1_ptr_q;
          end else begin
            st_new[O_CONS +: 16] = s1_ptr_q;
            if (s1_arm_q) begin
              st_new[O_ARMED] = 1'b1;
            end
          end
        end
      end
      default: begin
        if (s1_we_q) begin
          case (s1_field_q)
            F_BASE_LO, F_BASE_HI: begin
              if (q_en) begin
                err = 1'b1;
              end else if (s1_field_q == F_BASE_LO) begin
                st_new[O_BASE +: 32] = s1_wdata_q;
              end else begin
                st_new[O_BASE + 32 +: 32] = s1_wdata_q;
              end
            end
            F_CTRL: begin
              st_new[O_EN]        = s1_wdata_q[0];
              st_new[O_ARMED]     = s1_wdata_q[1];
              st_new[O_AUX +: 8]  = s1_wdata_q[23:16];
              if (!q_en) begin
                st_new[O_LSZ +: 4] = s1_wdata_q[11:8];
              end else if (s1_wdata_q[0] && s1_wdata_q[11:8] != lsz) begin
                err = 1'b1;
              end
            end
            F_TARGET: st_new[O_TARGET +: 32] = s1_wdata_q;
            F_PROD:   st_new[O_PROD +: 16]   = s1_wdata_q[15:0];
            F_CONS:   st_new[O_CONS +: 16]   = s1_wdata_q[15:0];
            default:  err = 1'b1;
          endcase
        end else begin
          case (s1_field_q)
            F_BASE_LO: rdata = base[31:0];
            F_BASE_HI: rdata = base[63:32];
            F_CTRL:    rdata = {8'd0, aux, 4'd0, lsz, 6'd0, q_armed, q_en};
            F_TARGET:  rdata = cur[O_TARGET +: 32];
            F_PROD:    rdata = {16'd0, prod};
            F_CONS:    rdata = {16'd0, cons};
            default:   err   = 1'b1;
          endcase
        end
      end
    endcase
  end

  // stage 1 waits only for the output its request fills
  always_comb begin
    case (s1_kind_q)
      K_OP:    s1_go = !op_rsp_valid || op_rsp_ready;
      K_DB:    s1_go = MODE != 0 || !db_evt_valid || db_evt_ready;
      default: s1_go = 1'b1;
    endcase
  end

  // ---------------------------------------------------------------- outputs
  logic fire_op;
  logic fire_db;
  logic fire_cfg;

  assign fire_op  = s1_valid_q && s1_go && s1_kind_q == K_OP;
  assign fire_db  = s1_valid_q && s1_go && s1_kind_q == K_DB;
  assign fire_cfg = s1_valid_q && s1_go && s1_kind_q == K_CFG;

  always_ff @(posedge gclk) begin
    if (op_rsp_ready) begin
      op_rsp_valid <= 1'b0;
    end
    if (fire_op) begin
      op_rsp_valid    <= 1'b1;
      op_rsp_qidx     <= s1_qidx_q;
      op_rsp_status   <= status;
      op_rsp_addr     <= base + (64'(ptr & mask) << ENTRY_LOG2);
      op_rsp_ptr      <= ptr;
      op_rsp_count    <= grant;
      op_rsp_phase    <= MODE == 1 && !ptr[lsz];
      op_rsp_armed    <= armed_out;
      op_rsp_target   <= cur[O_TARGET +: 32];
      op_rsp_aux      <= aux;
      op_rsp_log_size <= lsz;
      op_rsp_empty    <= MODE == 0 && prod == cons + 16'(grant);
    end

    cfg_rsp_valid <= fire_cfg;
    if (fire_cfg) begin
      cfg_rsp_rdata <= rdata;
      cfg_rsp_err   <= err;
    end

    if (fire_db && db_bad) begin
      db_bad_count <= db_bad_count + 32'd1;
    end

    if (rst) begin
      op_rsp_valid  <= 1'b0;
      cfg_rsp_valid <= 1'b0;
      db_bad_count  <= 32'd0;
    end
  end

  if (MODE == 0) begin : g_evt
    always_ff @(posedge gclk) begin
      if (db_evt_ready) begin
        db_evt_valid <= 1'b0;
      end
      if (fire_db && evt) begin
        db_evt_valid <= 1'b1;
        db_evt_qidx  <= s1_qidx_q;
        db_evt_aux   <= aux;
      end
      if (rst) begin
        db_evt_valid <= 1'b0;
      end
    end
  end else begin : g_no_evt
    assign db_evt_valid = 1'b0;
    assign db_evt_qidx  = '0;
    assign db_evt_aux   = '0;
    // completion queues have no doorbell events; the ready input and evt go nowhere
    logic unused_evt;
    assign unused_evt = db_evt_ready | evt;
  end

endmodule

`resetall
