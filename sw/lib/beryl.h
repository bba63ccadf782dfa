/* SPDX-License-Identifier: MIT */
/*
 * libberyl: user-space driver of the Beryl NIC. A device is reached through a transport
 * (the simulator today, VFIO later), discovered by walking the register chain from BAR0
 * offset 0, and driven through its NIC interfaces: queues and rings, RSS, statistics.
 *
 * Errors are negative errno codes; beryl_strerror() gives the generic meaning and
 * beryl_errmsg() the detailed message of the last failure in the calling thread.
 * A device and its interfaces are used from one thread at a time (no locking inside).
 * The data path (send, completions, receive, events) never reads a device register: it looks at
 * host memory and writes doorbells only.
 */
#ifndef BERYL_H
#define BERYL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

const char *beryl_strerror(int err);      /* generic text for a (negative) error code */
const char *beryl_errmsg(void);           /* detailed text of the last failure (thread-local) */

/* ------------------------------------------------------------------ transports */

struct beryl_transport;

/* Host memory a device can reach by DMA. */
struct beryl_dma_buf {
	void *va;          /* host virtual address */
	uint64_t bus;      /* bus address the device uses */
	size_t size;
};

/* One register access of a batch: reads fill in val. */
struct beryl_access {
	uint64_t off;
	uint32_t val;
	bool write;
};

/*
 * What the library needs from a way of reaching the device. Every function returns 0 or a
 * negative errno (wait_irq: 1 = an interrupt, 0 = timeout). A new transport (VFIO) fills
 * this table and nothing else changes.
 */
struct beryl_transport_ops {
	const char *name;
	int (*read32)(struct beryl_transport *t, uint64_t off, uint32_t *val);
	int (*write32)(struct beryl_transport *t, uint64_t off, uint32_t val);
	int (*dma_alloc)(struct beryl_transport *t, size_t size, size_t align,
			 struct beryl_dma_buf *buf);       /* zero-filled */
	void (*dma_free)(struct beryl_transport *t, struct beryl_dma_buf *buf);
	/* Wait up to timeout_ms (0: poll, <0: forever) for an MSI-X message. */
	int (*wait_irq)(struct beryl_transport *t, int timeout_ms, uint32_t *vector);
	/* A file descriptor readable when an interrupt may be pending (or -1). */
	int (*irq_fd)(struct beryl_transport *t);
	/* Optional: accesses applied in order, reads pipelined (one round trip instead of n). */
	int (*batch)(struct beryl_transport *t, struct beryl_access *acc, unsigned n);
	/* Optional: transport-specific status as JSON (simulator speed), or NULL; -ENOSPC when it
	 * does not fit in len bytes (never truncated). */
	int (*info_json)(struct beryl_transport *t, char *buf, size_t len);
	void (*close)(struct beryl_transport *t);
};

struct beryl_transport {
	const struct beryl_transport_ops *ops;
	void *priv;
};

/* Open a transport by name ("sim"); path = its address (simulator socket), NULL = default. */
int beryl_transport_open(const char *name, const char *path, struct beryl_transport **out);
int beryl_sim_transport_open(const char *path, struct beryl_transport **out);
#define BERYL_SIM_DEFAULT_SOCKET "/tmp/beryl-sim.sock"

/* ------------------------------------------------------------------ device */

struct beryl_dev;
struct beryl_if;

struct beryl_block {
	const char *name;       /* "id", "pcie", "msix", "nic_if", or NULL (unknown type) */
	uint32_t type;
	uint32_t version;
	uint32_t offset;        /* BAR0 byte offset */
	uint32_t next;
};

struct beryl_identity {
	uint16_t vendor_id, device_id, subsys_vendor_id, subsys_id;
	uint32_t beryl_version; /* 8.8.16 */
	uint32_t git_hash;      /* first 8 hex digits */
	uint32_t build_date;    /* BCD 0xYYYYMMDD */
	uint32_t build_time;    /* BCD 0x00HHMMSS */
	uint32_t msix_vectors;
};

/* Build parameters of one NIC interface (registers of the nic_if block). */
struct beryl_if_params {
	uint32_t if_index, if_count, port_count;
	uint32_t txq_count, rxq_count, cq_count, eq_count;
	uint32_t tx_slots, rx_slots, max_frame, rss_table_size;
	uint32_t desc_batch, cpl_batch, max_desc_per_pkt, features;
	uint32_t tx_sched;          /* enum beryl_sched_type of every port (0 on blocks before 0.4) */
	uint32_t tdma_slots_max;    /* TDMA slots per period at most; 0 unless tx_sched is TDMA */
};

#define BERYL_MAX_BLOCKS 256

/* Open a device: transport by name and path (see beryl_transport_open). */
int beryl_open(const char *transport, const char *path, struct beryl_dev **out);
/* Open a device on a transport already opened; the device owns it from now (also on failure). */
int beryl_open_transport(struct beryl_transport *t, struct beryl_dev **out);
/* Stop every started interface, free everything, close the transport. NULL is allowed. */
void beryl_close(struct beryl_dev *dev);

const struct beryl_identity *beryl_identity(const struct beryl_dev *dev);
unsigned beryl_block_count(const struct beryl_dev *dev);
const struct beryl_block *beryl_block_get(const struct beryl_dev *dev, unsigned i);
unsigned beryl_if_count(const struct beryl_dev *dev);
struct beryl_if *beryl_if_get(struct beryl_dev *dev, unsigned index);   /* NULL if out of range */
struct beryl_transport *beryl_dev_transport(struct beryl_dev *dev);
int beryl_read32(struct beryl_dev *dev, uint64_t off, uint32_t *val);
int beryl_write32(struct beryl_dev *dev, uint64_t off, uint32_t val);
/* In-order accesses, pipelined where the transport can (falls back to one at a time). */
int beryl_access_batch(struct beryl_dev *dev, struct beryl_access *acc, unsigned n);
/* Wait for any MSI-X message of the device (see beryl_transport_ops.wait_irq). */
int beryl_wait_irq(struct beryl_dev *dev, int timeout_ms, uint32_t *vector);
int beryl_irq_fd(struct beryl_dev *dev);

/* ------------------------------------------------------------------ interfaces */

enum beryl_qtype { BERYL_TXQ = 0, BERYL_RXQ = 1, BERYL_CQ = 2, BERYL_EQ = 3 };
const char *beryl_qtype_name(enum beryl_qtype t);   /* "txq", "rxq", "cq", "eq" */

#define BERYL_MAX_LOG_SIZE 15    /* rings of 2^1..2^15 entries */

struct beryl_if_config {
	unsigned txq_count, rxq_count;   /* 0 -> 1 */
	unsigned tx_log_size;            /* TX ring 2^n entries; 0 -> 8 */
	unsigned rx_log_size;            /* RX ring; 0 -> tx_log_size */
	unsigned tx_buf_size;            /* bytes per TX descriptor buffer; 0 -> 2048 */
	unsigned rx_buf_size;            /* bytes per RX buffer; 0 -> 2048 */
	bool irq;                        /* arm queues: events and MSI-X (else polling) */
	int vector;                      /* MSI-X vector of the event queue; <0 -> if_index */
	unsigned irq_interval;           /* moderation, units of 256 cycles */
	const uint8_t *tx_ports;         /* port of each TX queue; NULL -> i mod PORT_COUNT */
};

const struct beryl_if_params *beryl_if_params(const struct beryl_if *nif);
uint32_t beryl_if_offset(const struct beryl_if *nif);       /* BAR0 offset of its block */
uint32_t beryl_if_version(const struct beryl_if *nif);
/* Open queues and rings (txq i -> cq i, rxq j -> cq txq_count+j, all cqs -> eq 0). */
int beryl_if_start(struct beryl_if *nif, const struct beryl_if_config *cfg);
/* Disable the queues and free the rings (also done by beryl_close). */
void beryl_if_stop(struct beryl_if *nif);
bool beryl_if_started(const struct beryl_if *nif);
unsigned beryl_if_txq_count(const struct beryl_if *nif);
unsigned beryl_if_rxq_count(const struct beryl_if *nif);
bool beryl_if_irq_mode(const struct beryl_if *nif);
int beryl_if_vector(const struct beryl_if *nif);

/* ------------------------------------------------------------------ data path */

/* BERYL_CPL_UNUSED (an RX descriptor handed back unused) never reaches the caller: the library
 * takes the buffer back itself. */
enum beryl_cpl_status { BERYL_CPL_OK = 0, BERYL_CPL_TOO_LONG = 1, BERYL_CPL_DMA_ERR = 2,
			BERYL_CPL_BAD_DESC = 3, BERYL_CPL_UNUSED = 4 };
#define BERYL_CPL_FLAG_CSUM_VALID 0x01u
#define BERYL_CPL_FLAG_HASH_VALID 0x02u
enum beryl_hash_type { BERYL_HASH_NONE, BERYL_HASH_IPV4, BERYL_HASH_IPV4_TCP, BERYL_HASH_IPV4_UDP,
		       BERYL_HASH_IPV6, BERYL_HASH_IPV6_TCP, BERYL_HASH_IPV6_UDP };

/* A completion entry (TX and RX), decoded. */
struct beryl_cpl {
	uint16_t queue, index;
	uint8_t port, status, hash_type, flags;
	uint32_t rss_hash;
	uint16_t csum, len;
	uint64_t timestamp;
};

/* Checksum insertion request (CHECKSUM_PARTIAL: the field holds the pseudo-header sum). */
struct beryl_tx_csum {
	uint8_t start;          /* first byte summed, from the frame start */
	uint8_t offset;         /* checksum field, from start */
};

#define BERYL_TX_NO_DOORBELL 0x1u   /* queue only; beryl_tx_flush() rings the doorbell */

/*
 * Queue one frame, given as iovcnt pieces (scatter/gather: each piece takes one or more
 * descriptors of at most tx_buf_size bytes), on TX queue txq. Returns the ring index of its
 * first descriptor, -EAGAIN when the ring is full (after reclaiming completions),
 * -EMSGSIZE beyond MAX_FRAME or MAX_DESC_PER_PKT.
 */
int beryl_tx_send(struct beryl_if *nif, unsigned txq, const struct iovec *iov, unsigned iovcnt,
		  const struct beryl_tx_csum *csum, unsigned flags);
int beryl_tx_flush(struct beryl_if *nif, unsigned txq);
/*
 * Completions of TX queue txq (frees their descriptors); up to max into cpl (may be NULL). One per
 * packet, at its first descriptor's index. The extra error completions a descriptor fetch that failed
 * for good produces inside a packet that has just completed with an error are consumed and not
 * returned (docs/blocks/nic_core.md, "Failed TX descriptor reads"); any other completion that names
 * no packet sent gives -EIO and stays in the queue.
 */
int beryl_tx_complete(struct beryl_if *nif, unsigned txq, struct beryl_cpl *cpl, unsigned max);
/* Descriptors of TX queue txq not yet completed (0: everything sent was completed). */
unsigned beryl_tx_pending(const struct beryl_if *nif, unsigned txq);

struct beryl_rx_pkt {
	const uint8_t *data;    /* in the ring's buffer: valid until the next poll of this queue */
	uint32_t len;
	unsigned rxq;
	struct beryl_cpl cpl;
};

/* Frames received on RX queue rxq, up to max. Buffers of the previous call are reposted. */
int beryl_rx_poll(struct beryl_if *nif, unsigned rxq, struct beryl_rx_pkt *pkts, unsigned max);

/*
 * Interrupt mode: consume the interface's events and re-arm the event queue; returns the number
 * of events. Then poll the queues (rx_poll/tx_complete re-arm their completion queues).
 */
int beryl_if_events(struct beryl_if *nif);

/* ------------------------------------------------------------------ RSS */

#define BERYL_RSS_KEY_BYTES 40
#define BERYL_RSS_HASH_IPV4 0x01u
#define BERYL_RSS_HASH_IPV4_TCP 0x02u
#define BERYL_RSS_HASH_IPV4_UDP 0x04u
#define BERYL_RSS_HASH_IPV6 0x08u
#define BERYL_RSS_HASH_IPV6_TCP 0x10u
#define BERYL_RSS_HASH_IPV6_UDP 0x20u
#define BERYL_RSS_HASH_ALL 0x3fu

struct beryl_rss {
	bool enable;
	uint32_t hash_en;                     /* BERYL_RSS_HASH_* */
	uint32_t default_queue;
	uint8_t key[BERYL_RSS_KEY_BYTES];
	uint16_t *table;                      /* rss_table_size entries */
	unsigned table_size;
};

/* Set: key written if set_key, table if table != NULL (must hold RSS_TABLE_SIZE entries). */
int beryl_rss_set(struct beryl_if *nif, const struct beryl_rss *rss, bool set_key);
/* Get: table must hold rss_table_size entries (or be NULL to skip it). */
int beryl_rss_get(struct beryl_if *nif, struct beryl_rss *rss);

/* ------------------------------------------------------------------ statistics and state */

struct beryl_counter {
	const char *name;
	uint32_t value;
};
/* Interface counters (32-bit, wrapping); returns the number written (at most max). */
int beryl_if_counters(struct beryl_if *nif, struct beryl_counter *out, unsigned max);
unsigned beryl_if_counter_count(void);
/*
 * Device counters: the PCIe block's (32-bit, wrapping; docs/regs/pcie.md), in one batch of reads.
 * Host requests to the BARs: bar_rd_unmapped, bar_wr_unmapped (no block decodes the address),
 * bar_req_unsupported (answered UR or dropped), bar_req_discarded (discontinued by the PCIe core);
 * DMA: dma_rd_desc, dma_wr_desc (descriptors finished), dma_rd_bytes, dma_wr_bytes (low 32 bits;
 * descriptors, completions and events count too, not only frames), read errors dma_rd_err_timeout,
 * _ur, _ca, _poison, and read completions dma_rd_cpl_unexpected (no outstanding read) and
 * dma_rd_cpl_discarded (discontinued by the PCIe core). Returns the number written (at most max);
 * -ENODEV without a PCIe block, -EPROTO for another major version of it, -EINVAL for a NULL dev
 * (or out with max > 0).
 */
int beryl_dev_counters(struct beryl_dev *dev, struct beryl_counter *out, unsigned max);
unsigned beryl_dev_counter_count(void);

struct beryl_port_stats {
	uint32_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint32_t tx_drops;      /* packets of the port's queues not sent (bad descriptor, DMA error) */
	uint32_t rx_drops;      /* frames received on the port and not delivered, any reason */
	/* TX timestamp return (docs/blocks/ptp.md): completions given timestamp 0 because a later frame's
	 * time came first / none came in time, and returned times that matched no waiting frame */
	uint32_t tx_ts_mismatch, tx_ts_timeout, tx_ts_dropped;
	bool tx_enable;
};
int beryl_port_stats(struct beryl_if *nif, unsigned port, struct beryl_port_stats *out);

/*
 * PTP hardware clock (regs/beryl_ptp.rdl, docs/blocks/ptp.md): one per device. Time of day is
 * {sec 48 bits, nsec 0..999999999, fns 16 bits = 2^-16 ns}. All calls return -ENODEV on a build
 * without the block. Completion timestamps (struct beryl_cpl.timestamp) carry the low 18 bits of the
 * seconds; beryl_ptp_ts_to_time() extends them from a recent clock read.
 */
struct beryl_ptp_time {
	uint64_t sec;
	uint32_t nsec;
	uint16_t fns;
};
bool beryl_ptp_present(const struct beryl_dev *dev);
int beryl_ptp_gettime(struct beryl_dev *dev, struct beryl_ptp_time *t);        /* atomic */
int beryl_ptp_settime(struct beryl_dev *dev, const struct beryl_ptp_time *t);  /* -EINVAL: nsec >= 10^9 */
/* Step by delta ns (+-2^31 ns in one command; larger steps are done as get + set). */
int beryl_ptp_adjtime(struct beryl_dev *dev, int64_t delta_ns);
/* Run ppb parts per billion fast (negative: slow) of the nominal rate; -ERANGE beyond +-10^8 ppb. */
int beryl_ptp_adjfreq(struct beryl_dev *dev, double ppb);
/* The frequency offset in use, ppb of the nominal increment (rounded to the clock's resolution). */
int beryl_ptp_getfreq(struct beryl_dev *dev, double *ppb);
/* Periodic output: first edge at start, then every period_ns (>= 1 ns), high for width_ns;
 * period_ns 0 disables it. */
int beryl_ptp_perout(struct beryl_dev *dev, const struct beryl_ptp_time *start, uint64_t period_ns,
		     uint32_t width_ns);
/* Completion timestamp -> time of day, the seconds taken nearest ref_sec (within 2^17 s). */
struct beryl_ptp_time beryl_ptp_ts_to_time(uint64_t ts, uint64_t ref_sec);
/* Time difference a - b in ns (double: 2^-16 ns resolution is kept for |a - b| < ~1.5 days). */
double beryl_ptp_diff_ns(const struct beryl_ptp_time *a, const struct beryl_ptp_time *b);
/* Per-port timestamp corrections in 2^-16 ns, added to the port's TX / RX timestamps (the MAC/PCS
 * delays between the core and the wire); NULL leaves one unchanged. */
int beryl_port_ts_corr(struct beryl_if *nif, unsigned port, const int32_t *tx_units, const int32_t *rx_units);

/*
 * PTP servo (ptp_servo.c): a proportional-integral controller for a slave clock, fed one offset
 * (slave - master, ns) per sync exchange with the slave's local time of the sample. The first two
 * samples estimate the frequency error from the offset's slope; the clock is then stepped once and
 * the loop runs with gains normalised to the sync interval: each sample corrects kp of the offset
 * in the next interval and adds ki of it to the frequency estimate. Never steps again while locked
 * unless an offset exceeds step_ns.
 */
enum beryl_servo_state { BERYL_SERVO_UNLOCKED, BERYL_SERVO_JUMP, BERYL_SERVO_LOCKED };
struct beryl_servo {
	double kp, ki;            /* normalised gains (defaults 0.7, 0.3) */
	double max_ppb;           /* output clamp (default 5e5) */
	double step_ns;           /* a locked offset beyond this re-steps (default 1e6) */
	double freq_ppb;          /* frequency estimate (integral term), ppb */
	double last_t;            /* local time of the previous sample, ns */
	double first_offset;      /* unlocked: first sample */
	enum beryl_servo_state state;
};
void beryl_servo_init(struct beryl_servo *s, double freq_ppb);
/* Feed a sample; returns the state after it. *adj_ppb is the frequency to apply now; *step_ns,
 * when the state is BERYL_SERVO_JUMP, the step to apply to the slave clock (0 otherwise). */
enum beryl_servo_state beryl_servo_sample(struct beryl_servo *s, double offset_ns, double local_ns,
					  double *adj_ppb, double *step_ns);

/*
 * Transmit schedulers (sched.c; regs/beryl_nic_if.rdl SCHED_*, TDMA_*; docs/blocks/tdma.md). Every
 * port of an interface has the scheduler its build chose (beryl_if_params.tx_sched). Each port's
 * scheduler keeps parameters for every TX queue of the interface; they matter on the port the queue
 * transmits on (its Q_CTRL.PORT). A call meant for another scheduler type fails with -EOPNOTSUPP;
 * a port or queue out of range with -ERANGE; a command the device refuses with -EIO.
 */
enum beryl_sched_type { BERYL_SCHED_RR = 0, BERYL_SCHED_TB = 1, BERYL_SCHED_TDMA = 2 };
enum beryl_sched_type beryl_sched_type(const struct beryl_if *nif);
const char *beryl_sched_type_name(unsigned type);   /* "round-robin", "token-bucket", "tdma", "unknown" */
/* SCHED_BAD_STS of a port (any scheduler type): engine results nobody asked for, should stay 0. */
int beryl_sched_bad_sts(struct beryl_if *nif, unsigned port, uint32_t *count);

/*
 * Token bucket. rate: bytes per core clock cycle of frames as the host wrote them (no FCS, no
 * preamble or gap), unsigned 8.24 fixed point, 0 = not limited; burst: bucket size in bytes
 * (1..2^24-1 with a rate; the bucket refills to it on every set); tokens: the bucket's whole bytes
 * (signed: a command may overdraw it) when it was read.
 */
#define BERYL_SCHED_BURST_MAX 0xffffffu
struct beryl_tb_queue {
	uint32_t rate, burst;
	int32_t tokens;
};
int beryl_sched_rate_set(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t rate, uint32_t burst);
int beryl_sched_rate_get(struct beryl_if *nif, unsigned port, unsigned queue, struct beryl_tb_queue *out);
/*
 * Bits per second <-> the 8.24 rate, with the core clock period from the PTP block's nominal increment
 * (NOM_INCR_NS + NOM_INCR_FNS x 2^-32 ns): rate = floor(bps x period_ns x 2^24 / (8 x 10^9)), rounded
 * down so that the queue never goes faster than asked (the step is 2^-24 bytes per cycle: 119 bit/s at
 * 4 ns). bps 0 gives rate 0 (not limited). -ENODEV without a PTP block, -ERANGE for a rate below the
 * step (it would read as "not limited") or above 256 bytes per cycle.
 */
int beryl_sched_bps_to_rate(const struct beryl_if *nif, uint64_t bps, uint32_t *rate);
int beryl_sched_rate_to_bps(const struct beryl_if *nif, uint32_t rate, double *bps);
int beryl_sched_rate_set_bps(struct beryl_if *nif, unsigned port, unsigned queue, uint64_t bps, uint32_t burst);

/*
 * TDMA: one schedule per port. Period p begins at start + p x period_ns; slot i of a period covers
 * [i, i+1) x slot_ns from its beginning; the rest of the period is a gap. A queue sends in the slots
 * of its mask (all ones after reset). The scheduler gives a queue no new commands in the last guard_ns
 * of its slot; the gate (optional) starts a frame only if its last byte leaves before the slot ends,
 * by its rule: ceil((max(len, 60) + overhead) x gate_nspb) + margin_ns <= ns left.
 * While no schedule runs (disabled, or refused) a TDMA port sends nothing.
 */
struct beryl_tdma_schedule {
	struct beryl_ptp_time start;   /* PTP time period 0 begins (fns not used; ns resolution) */
	uint32_t period_ns;            /* >= slot_count x slot_ns */
	uint32_t slot_ns;              /* > 0 */
	uint32_t slot_count;           /* 1..tdma_slots_max */
	uint32_t guard_ns;
	bool gate, hold_own;           /* gate on; gate lets a frame go only in its own queue's slots */
	uint32_t gate_nspb;            /* line rate for the gate, ns per byte 8.24 (beryl_tdma_nspb) */
	uint32_t overhead;             /* wire bytes per frame besides its length (24), 0..255 */
	uint32_t margin_ns;            /* gate release to first byte on the wire, worst case, 0..65535 */
};
/* The register defaults: no schedule, gate off, 100 Gb/s, overhead 24, margin 16 ns. */
void beryl_tdma_defaults(struct beryl_tdma_schedule *s);
/* ns per byte at line_bps bit/s as 8.24, rounded up (the gate then never underestimates a frame's
 * time): 100G 0x00147ae2, 25G 0x0051eb86, 10G 0x00cccccd. -ERANGE below 31.25 Mb/s (or 0). */
int beryl_tdma_nspb(uint64_t line_bps, uint32_t *nspb);
/*
 * Write the schedule and re-arm the port's timer (ENABLE 0, then 1: it latches start, period, slot
 * length and count on that edge). The library checks what the registers cannot hold (slot_count above
 * tdma_slots_max, start ns >= 10^9, overhead, margin); the timer checks the rest, and its CFG_ERR
 * gives -EINVAL (the schedule stays enabled and refused, see beryl_tdma_status).
 */
int beryl_tdma_set(struct beryl_if *nif, unsigned port, const struct beryl_tdma_schedule *s);
/* ENABLE 0 and gate off: the port sends nothing until the next beryl_tdma_set. */
int beryl_tdma_disable(struct beryl_if *nif, unsigned port);
/* A queue's slot mask: bit i = may send in slot i; bits at or above tdma_slots_max give -EINVAL. */
int beryl_tdma_mask_set(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t mask);
int beryl_tdma_mask_get(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t *mask);

struct beryl_tdma_status {
	bool enable, searching, cfg_err, slot_valid;
	unsigned slot_index;                 /* the open slot (when slot_valid) */
	struct beryl_tdma_schedule sched;    /* the registers as written (enable above) */
	uint32_t hold, offslot, overrun, park;   /* gate counters (wrapping), docs/blocks/tdma.md */
	uint32_t bad_sts;                    /* SCHED_BAD_STS */
};
int beryl_tdma_status(struct beryl_if *nif, unsigned port, struct beryl_tdma_status *out);

struct beryl_queue_stats {
	uint64_t packets, bytes, drops;
};
/* Per-queue statistics of a TX or RX queue (snapshot taken on the PKTS_LO read). */
int beryl_queue_stats(struct beryl_if *nif, enum beryl_qtype type, unsigned idx,
		      struct beryl_queue_stats *out);

struct beryl_queue_state {
	uint64_t base;
	uint32_t ctrl, target;
	uint16_t prod, cons;
	unsigned log_size, port;
	bool enable, armed;
};
int beryl_queue_read(struct beryl_if *nif, enum beryl_qtype type, unsigned idx,
		     struct beryl_queue_state *out);
/* Just the queue's Q_CTRL word (enable, armed, size, port): cheaper than the whole state. */
int beryl_queue_ctrl(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint32_t *ctrl);
/* Q_CTRL of every queue of a type (ctrl holds beryl_queue_count() words), in one batch. */
int beryl_queue_ctrl_all(struct beryl_if *nif, enum beryl_qtype type, uint32_t *ctrl);
unsigned beryl_queue_count(const struct beryl_if *nif, enum beryl_qtype type);

#ifdef __cplusplus
}
#endif

#endif /* BERYL_H */
