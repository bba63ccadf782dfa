// SPDX-License-Identifier: MIT
/*
 * Transmit schedulers of the ports: token-bucket rates, TDMA schedules and slot masks, status.
 * Each call selects the port (PORT_SEL) and, for queue parameters, the queue (SCHED_Q_SEL), and runs
 * as one batch of accesses; a queue command (SCHED_Q_CMD) answers when the scheduler has done it, so
 * the reads after it in the batch see its result.
 */
#include <errno.h>

#include "beryl_priv.h"

#define NS_PER_SEC 1000000000ull
#define OP_WRITE 1u
#define OP_READ 2u
/* 8 bits/byte x 10^9 ns/s x 2^8 (2^32 of the nominal increment over 2^24 of the rate) */
#define BPS_DEN (8ull * NS_PER_SEC * 256u)

/* A batch of accesses to one interface block. */
struct batch {
	struct beryl_if *nif;
	struct beryl_access a[24];
	unsigned n;
};

static void wr(struct batch *b, uint32_t reg, uint32_t val)
{
	b->a[b->n++] = (struct beryl_access){ .off = b->nif->base + reg, .val = val, .write = true };
}

/* Queue a read; returns its index for the value after run(). */
static unsigned rd(struct batch *b, uint32_t reg)
{
	b->a[b->n] = (struct beryl_access){ .off = b->nif->base + reg };
	return b->n++;
}

static int run(struct batch *b)
{
	return beryl_access_batch(b->nif->dev, b->a, b->n);
}

const char *beryl_sched_type_name(unsigned type)
{
	static const char *const names[] = { "round-robin", "token-bucket", "tdma" };

	return type < 3 ? names[type] : "unknown";
}

enum beryl_sched_type beryl_sched_type(const struct beryl_if *nif)
{
	return (enum beryl_sched_type)nif->p.tx_sched;
}

static int need_type(const struct beryl_if *nif, enum beryl_sched_type want, const char *what)
{
	if (nif->p.tx_sched == want)
		return 0;
	return beryl_fail(-EOPNOTSUPP, "%s needs a %s scheduler: interface %u was built with %s (TX_SCHED %u)",
			  what, beryl_sched_type_name(want), nif->p.if_index,
			  beryl_sched_type_name(nif->p.tx_sched), nif->p.tx_sched);
}

static int check_port(const struct beryl_if *nif, unsigned port)
{
	if (port >= nif->p.port_count)
		return beryl_fail(-ERANGE, "port %u out of range (interface %u has %u)", port, nif->p.if_index,
				  nif->p.port_count);
	return 0;
}

/* Type, port and queue checks of a per-queue call. */
static int check_queue(const struct beryl_if *nif, enum beryl_sched_type want, const char *what, unsigned port,
		       unsigned queue)
{
	int err = need_type(nif, want, what);

	if (!err)
		err = check_port(nif, port);
	if (!err && queue >= nif->p.txq_count)
		err = beryl_fail(-ERANGE, "TX queue %u out of range (interface %u has %u)", queue,
				 nif->p.if_index, nif->p.txq_count);
	return err;
}

/*
 * One queue command in one batch: select port and queue, write the staged (register, value) pairs, the
 * command op, read its ERR bit and then nrd registers from `first` on (what a read command loaded).
 */
static int queue_cmd(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t op, const uint32_t stage[][2],
		     unsigned nstage, uint32_t first, unsigned nrd, uint32_t *vals)
{
	struct batch b = { .nif = nif };
	unsigned c;
	int err;

	wr(&b, BERYL_NIC_IF_PORT_SEL_OFFSET, port << BERYL_NIC_IF_PORT_SEL_PORT_LSB & BERYL_NIC_IF_PORT_SEL_PORT_MASK);
	wr(&b, BERYL_NIC_IF_SCHED_Q_SEL_OFFSET, queue << BERYL_NIC_IF_SCHED_Q_SEL_QUEUE_LSB &
		BERYL_NIC_IF_SCHED_Q_SEL_QUEUE_MASK);
	for (unsigned k = 0; k < nstage; k++)
		wr(&b, stage[k][0], stage[k][1]);
	wr(&b, BERYL_NIC_IF_SCHED_Q_CMD_OFFSET, op << BERYL_NIC_IF_SCHED_Q_CMD_OP_LSB);
	c = rd(&b, BERYL_NIC_IF_SCHED_Q_CMD_OFFSET);
	for (unsigned k = 0; k < nrd; k++)
		rd(&b, first + 4 * k);
	err = run(&b);
	if (err)
		return err;
	if (b.a[c].val & BERYL_NIC_IF_SCHED_Q_CMD_ERR_MASK)
		return beryl_fail(-EIO, "port %u of interface %u refused the %s of TX queue %u's scheduler "
				  "parameters (SCHED_Q_CMD reads 0x%08x)", port, nif->p.if_index,
				  op == OP_WRITE ? "write" : "read", queue, b.a[c].val);
	for (unsigned k = 0; k < nrd; k++)
		vals[k] = b.a[c + 1 + k].val;
	return 0;
}

int beryl_sched_bad_sts(struct beryl_if *nif, unsigned port, uint32_t *count)
{
	struct batch b = { .nif = nif };
	unsigned i;
	int err = check_port(nif, port);

	if (err)
		return err;
	wr(&b, BERYL_NIC_IF_PORT_SEL_OFFSET, port << BERYL_NIC_IF_PORT_SEL_PORT_LSB);
	i = rd(&b, BERYL_NIC_IF_SCHED_BAD_STS_OFFSET);
	err = run(&b);
	if (!err)
		*count = b.a[i].val;
	return err;
}

/* ------------------------------------------------------------------ token bucket */

int beryl_sched_rate_set(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t rate, uint32_t burst)
{
	int err = check_queue(nif, BERYL_SCHED_TB, "a queue rate", port, queue);

	if (err)
		return err;
	if (burst > BERYL_SCHED_BURST_MAX)
		return beryl_fail(-ERANGE, "burst %u bytes above the bucket's %u", burst, BERYL_SCHED_BURST_MAX);
	/* a queue sends while it has tokens; a bucket of 0 never has any */
	if (rate && !burst)
		return beryl_fail(-EINVAL, "a rate with a burst of 0 bytes would never let TX queue %u send",
				  queue);
	return queue_cmd(nif, port, queue, OP_WRITE, (const uint32_t[][2]){
		{ BERYL_NIC_IF_SCHED_Q_RATE_OFFSET, rate },
		{ BERYL_NIC_IF_SCHED_Q_BURST_OFFSET, burst << BERYL_NIC_IF_SCHED_Q_BURST_BURST_LSB } }, 2, 0, 0, NULL);
}

int beryl_sched_rate_get(struct beryl_if *nif, unsigned port, unsigned queue, struct beryl_tb_queue *out)
{
	uint32_t v[3];   /* SCHED_Q_RATE, SCHED_Q_BURST, SCHED_Q_TOKENS */
	int err = check_queue(nif, BERYL_SCHED_TB, "a queue rate", port, queue);

	if (!err)
		err = queue_cmd(nif, port, queue, OP_READ, NULL, 0, BERYL_NIC_IF_SCHED_Q_RATE_OFFSET, 3, v);
	if (err)
		return err;
	out->rate = v[0];
	out->burst = (v[1] & BERYL_NIC_IF_SCHED_Q_BURST_BURST_MASK) >> BERYL_NIC_IF_SCHED_Q_BURST_BURST_LSB;
	out->tokens = (int32_t)v[2];
	return 0;
}

static int need_clock(const struct beryl_if *nif)
{
	if (nif->dev->ptp_base < 0)
		return beryl_fail(-ENODEV, "converting bit/s needs the core clock period, read from the PTP clock "
				  "block (type 0x%08x), which this device does not have: give the rate as 8.24 bytes "
				  "per cycle", BERYL_PTP_BLOCK_TYPE);
	return 0;
}

int beryl_sched_bps_to_rate(const struct beryl_if *nif, uint64_t bps, uint32_t *rate)
{
	unsigned __int128 v;
	int err = need_clock(nif);

	if (err)
		return err;
	/* exact: bps x nominal increment (2^-32 ns) needs up to 64 + 40 bits */
	v = (unsigned __int128)bps * nif->dev->ptp_nom_incr / BPS_DEN;
	if (v > UINT32_MAX)
		return beryl_fail(-ERANGE, "%llu bit/s is 256 bytes per core clock cycle or more (the most a "
				  "rate can be is %.6g bit/s)", (unsigned long long)bps,
				  (double)UINT32_MAX * (double)BPS_DEN / (double)nif->dev->ptp_nom_incr);
	if (bps && !v)
		return beryl_fail(-ERANGE, "%llu bit/s is below the rate's step of %.6g bit/s (a rate of 0 would "
				  "mean not limited)", (unsigned long long)bps,
				  (double)BPS_DEN / (double)nif->dev->ptp_nom_incr);
	*rate = (uint32_t)v;
	return 0;
}

int beryl_sched_rate_to_bps(const struct beryl_if *nif, uint32_t rate, double *bps)
{
	int err = need_clock(nif);

	if (!err)
		*bps = (double)rate * (double)BPS_DEN / (double)nif->dev->ptp_nom_incr;
	return err;
}

int beryl_sched_rate_set_bps(struct beryl_if *nif, unsigned port, unsigned queue, uint64_t bps, uint32_t burst)
{
	uint32_t rate;
	int err = check_queue(nif, BERYL_SCHED_TB, "a queue rate", port, queue);

	if (!err)
		err = beryl_sched_bps_to_rate(nif, bps, &rate);
	return err ? err : beryl_sched_rate_set(nif, port, queue, rate, burst);
}

/* ------------------------------------------------------------------ TDMA */

void beryl_tdma_defaults(struct beryl_tdma_schedule *s)
{
	*s = (struct beryl_tdma_schedule){
		.gate_nspb = BERYL_NIC_IF_TDMA_GATE_RATE_RESET,
		.overhead = (BERYL_NIC_IF_TDMA_GATE_CFG_RESET & BERYL_NIC_IF_TDMA_GATE_CFG_OVERHEAD_MASK) >>
			    BERYL_NIC_IF_TDMA_GATE_CFG_OVERHEAD_LSB,
		.margin_ns = (BERYL_NIC_IF_TDMA_GATE_CFG_RESET & BERYL_NIC_IF_TDMA_GATE_CFG_MARGIN_NS_MASK) >>
			     BERYL_NIC_IF_TDMA_GATE_CFG_MARGIN_NS_LSB,
	};
}

int beryl_tdma_nspb(uint64_t line_bps, uint32_t *nspb)
{
	/* 8 x 10^9 x 2^24 ns/byte at 1 bit/s fits 64 bits (1.3 x 10^17) */
	const uint64_t num = 8ull * NS_PER_SEC << 24;
	uint64_t v;

	if (!line_bps)
		return beryl_fail(-ERANGE, "a line rate of 0 bit/s");
	v = num / line_bps + (num % line_bps != 0);
	if (v > UINT32_MAX)
		return beryl_fail(-ERANGE, "line rate %llu bit/s: below 31.25 Mb/s the gate's ns per byte do not fit "
				  "8.24 bits", (unsigned long long)line_bps);
	*nspb = (uint32_t)v;
	return 0;
}

static int check_tdma_port(const struct beryl_if *nif, const char *what, unsigned port)
{
	int err = need_type(nif, BERYL_SCHED_TDMA, what);

	return err ? err : check_port(nif, port);
}

static uint32_t ctrl_word(bool enable, bool gate, bool hold_own)
{
	return (enable ? BERYL_NIC_IF_TDMA_CTRL_ENABLE_MASK : 0) | (gate ? BERYL_NIC_IF_TDMA_CTRL_GATE_MASK : 0) |
	       (hold_own ? BERYL_NIC_IF_TDMA_CTRL_HOLD_OWN_MASK : 0);
}

int beryl_tdma_set(struct beryl_if *nif, unsigned port, const struct beryl_tdma_schedule *s)
{
	struct batch b = { .nif = nif };
	unsigned i;
	int err = check_tdma_port(nif, "a TDMA schedule", port);

	if (err)
		return err;
	/* what the registers would truncate, and the slot count (the timer's CFG_ERR says less) */
	if (!s->slot_count || s->slot_count > nif->p.tdma_slots_max)
		return beryl_fail(-EINVAL, "%u TDMA slots: interface %u takes 1..%u per period", s->slot_count,
				  nif->p.if_index, nif->p.tdma_slots_max);
	if (s->start.nsec >= NS_PER_SEC || s->start.sec >> 48)
		return beryl_fail(-EINVAL, "TDMA start %llu s %u ns out of range (ns < 10^9, s < 2^48)",
				  (unsigned long long)s->start.sec, s->start.nsec);
	if (s->overhead > 255 || s->margin_ns > 65535)
		return beryl_fail(-EINVAL, "TDMA gate overhead %u bytes (0..255) or margin %u ns (0..65535) out of "
				  "range", s->overhead, s->margin_ns);
	wr(&b, BERYL_NIC_IF_PORT_SEL_OFFSET, port << BERYL_NIC_IF_PORT_SEL_PORT_LSB);
	wr(&b, BERYL_NIC_IF_TDMA_CTRL_OFFSET, 0);
	wr(&b, BERYL_NIC_IF_TDMA_START_SEC_LO_OFFSET, (uint32_t)s->start.sec);
	wr(&b, BERYL_NIC_IF_TDMA_START_SEC_HI_OFFSET, (uint32_t)(s->start.sec >> 32));
	wr(&b, BERYL_NIC_IF_TDMA_START_NS_OFFSET, s->start.nsec);
	wr(&b, BERYL_NIC_IF_TDMA_PERIOD_NS_OFFSET, s->period_ns);
	wr(&b, BERYL_NIC_IF_TDMA_SLOT_NS_OFFSET, s->slot_ns);
	wr(&b, BERYL_NIC_IF_TDMA_SLOT_COUNT_OFFSET, s->slot_count);
	wr(&b, BERYL_NIC_IF_TDMA_GUARD_NS_OFFSET, s->guard_ns);
	wr(&b, BERYL_NIC_IF_TDMA_GATE_RATE_OFFSET, s->gate_nspb);
	wr(&b, BERYL_NIC_IF_TDMA_GATE_CFG_OFFSET, s->overhead << BERYL_NIC_IF_TDMA_GATE_CFG_OVERHEAD_LSB |
	   s->margin_ns << BERYL_NIC_IF_TDMA_GATE_CFG_MARGIN_NS_LSB);
	wr(&b, BERYL_NIC_IF_TDMA_CTRL_OFFSET, ctrl_word(true, s->gate, s->hold_own));
	/* the timer decides CFG_ERR two clocks after ENABLE rises; the second read is surely later */
	rd(&b, BERYL_NIC_IF_TDMA_CTRL_OFFSET);
	i = rd(&b, BERYL_NIC_IF_TDMA_CTRL_OFFSET);
	err = run(&b);
	if (err)
		return err;
	if (b.a[i].val & BERYL_NIC_IF_TDMA_CTRL_CFG_ERR_MASK)
		return beryl_fail(-EINVAL, "port %u of interface %u refused the TDMA schedule (CFG_ERR): period %u ns, "
				  "%u slots of %u ns; a period must not be 0 nor shorter than its slots, a slot not 0",
				  port, nif->p.if_index, s->period_ns, s->slot_count, s->slot_ns);
	return 0;
}

int beryl_tdma_disable(struct beryl_if *nif, unsigned port)
{
	struct batch b = { .nif = nif };
	int err = check_tdma_port(nif, "disabling TDMA", port);

	if (err)
		return err;
	wr(&b, BERYL_NIC_IF_PORT_SEL_OFFSET, port << BERYL_NIC_IF_PORT_SEL_PORT_LSB);
	wr(&b, BERYL_NIC_IF_TDMA_CTRL_OFFSET, 0);
	return run(&b);
}

int beryl_tdma_mask_set(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t mask)
{
	int err = check_queue(nif, BERYL_SCHED_TDMA, "a TDMA slot mask", port, queue);

	if (err)
		return err;
	/* the device keeps tdma_slots_max bits and drops the rest without a word */
	if (nif->p.tdma_slots_max < 32 && mask >> nif->p.tdma_slots_max)
		return beryl_fail(-EINVAL, "slot mask 0x%x names slots beyond the %u of interface %u", mask,
				  nif->p.tdma_slots_max, nif->p.if_index);
	return queue_cmd(nif, port, queue, OP_WRITE, (const uint32_t[][2]){ { BERYL_NIC_IF_SCHED_Q_SLOTS_OFFSET, mask } },
			 1, 0, 0, NULL);
}

int beryl_tdma_mask_get(struct beryl_if *nif, unsigned port, unsigned queue, uint32_t *mask)
{
	int err = check_queue(nif, BERYL_SCHED_TDMA, "a TDMA slot mask", port, queue);

	return err ? err : queue_cmd(nif, port, queue, OP_READ, NULL, 0, BERYL_NIC_IF_SCHED_Q_SLOTS_OFFSET, 1, mask);
}

int beryl_tdma_status(struct beryl_if *nif, unsigned port, struct beryl_tdma_status *out)
{
	/* TDMA_CTRL .. TDMA_PARK and SCHED_BAD_STS follow each other, one word each */
	enum { FIRST = BERYL_NIC_IF_TDMA_CTRL_OFFSET, NREG = (BERYL_NIC_IF_SCHED_BAD_STS_OFFSET - FIRST) / 4 + 1 };
	struct batch b = { .nif = nif };
	struct beryl_tdma_schedule *s = &out->sched;
	uint32_t v[NREG];
	int err = check_tdma_port(nif, "TDMA status", port);

	if (err)
		return err;
	wr(&b, BERYL_NIC_IF_PORT_SEL_OFFSET, port << BERYL_NIC_IF_PORT_SEL_PORT_LSB);
	for (unsigned k = 0; k < NREG; k++)
		rd(&b, FIRST + 4 * k);
	err = run(&b);
	if (err)
		return err;
	for (unsigned k = 0; k < NREG; k++)
		v[k] = b.a[1 + k].val;
#define REG(name) v[(BERYL_NIC_IF_##name##_OFFSET - FIRST) / 4]
#define FIELD(name, f) ((REG(name) & BERYL_NIC_IF_##name##_##f##_MASK) >> BERYL_NIC_IF_##name##_##f##_LSB)
	out->enable = FIELD(TDMA_CTRL, ENABLE);
	out->searching = FIELD(TDMA_CTRL, SEARCHING);
	out->cfg_err = FIELD(TDMA_CTRL, CFG_ERR);
	out->slot_valid = FIELD(TDMA_CTRL, SLOT_VALID);
	out->slot_index = FIELD(TDMA_CTRL, SLOT_INDEX);
	s->gate = FIELD(TDMA_CTRL, GATE);
	s->hold_own = FIELD(TDMA_CTRL, HOLD_OWN);
	s->start.sec = (uint64_t)FIELD(TDMA_START_SEC_HI, SEC) << 32 | REG(TDMA_START_SEC_LO);
	s->start.nsec = FIELD(TDMA_START_NS, NS);
	s->start.fns = 0;
	s->period_ns = REG(TDMA_PERIOD_NS);
	s->slot_ns = REG(TDMA_SLOT_NS);
	s->slot_count = FIELD(TDMA_SLOT_COUNT, COUNT);
	s->guard_ns = REG(TDMA_GUARD_NS);
	s->gate_nspb = REG(TDMA_GATE_RATE);
	s->overhead = FIELD(TDMA_GATE_CFG, OVERHEAD);
	s->margin_ns = FIELD(TDMA_GATE_CFG, MARGIN_NS);
	out->hold = REG(TDMA_HOLD);
	out->offslot = REG(TDMA_OFFSLOT);
	out->overrun = REG(TDMA_OVERRUN);
	out->park = REG(TDMA_PARK);
	out->bad_sts = REG(SCHED_BAD_STS);
#undef FIELD
#undef REG
	return 0;
}
