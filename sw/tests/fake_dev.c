// SPDX-License-Identifier: MIT
/* Fake Beryl device for the library's tests (see fake_dev.h); not a model of the RTL's timing. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "beryl_priv.h"
#include "beryl_transport.h"
#include "fake_dev.h"

#define MAX_IFS 4
#define MAX_Q 64
#define MAX_PORTS 8
#define IF_WIN (1u << BERYL_NIC_IF_BLOCK_ADDR_W)
#define PTP_BASE (BERYL_APP_BASE + BERYL_PTP_BLOCK_APP_OFFSET)
#define KIND_PTP 100

struct fq {
	uint64_t base;
	uint32_t ctrl, target;
	uint16_t prod, cons;
	uint64_t pkts, bytes, drops;
	uint16_t fail_first;            /* TX: a descriptor fetch that fails for good (fake_dev_tx_fetch_fail) */
	unsigned fail_count;            /* its descriptors; 0: none */
};

/* One port's scheduler block (beryl_nic_port_sched): staging registers and per-queue parameters. */
struct fsched {
	uint32_t qsel, op, rate, burst, tokens, slots;
	bool err;
	uint32_t ctrl, sec_lo, sec_hi, ns, period, slot, count, guard, gate_rate, gate_cfg;
	bool cfg_err;
	struct fake_sched_obs obs;
	uint32_t q_rate[MAX_Q], q_burst[MAX_Q], q_mask[MAX_Q];
	int32_t q_tokens[MAX_Q];
};

struct fif {
	struct fq q[4][MAX_Q];
	struct fsched sched[MAX_PORTS];
	unsigned port_sel_raw;                 /* PORT_SEL as written (port_sel: modulo the arrays) */
	unsigned qsel_type, qsel_idx;
	uint32_t qstatus, snap[6];
	uint32_t cnt[(BERYL_NIC_IF_IRQ_MERGED_OFFSET - BERYL_NIC_IF_TX_PKTS_OFFSET) / 4 + 1];
	uint32_t rss_ctrl, rss_default, rss_idx, key[10];
	uint16_t table[4096];
	unsigned port_sel;
	uint32_t port_ctrl[8], port_cnt[8][4], port_drop[8][2];   /* drops: TX, RX */
	uint32_t desc_retry;                   /* TX_DESC_RETRY */
};

struct fake_dev {
	struct fake_dev_cfg c;
	uint8_t *mem;
	uint64_t base;
	size_t size;
	struct fif ifs[MAX_IFS];
	uint32_t irqs[256];
	unsigned nirq;
	uint64_t accesses;
	uint32_t scratch;
};

#define CNT(f, reg) ((f)->cnt[((reg) - BERYL_NIC_IF_TX_PKTS_OFFSET) / 4])

void fake_dev_default_cfg(struct fake_dev_cfg *c)
{
	*c = (struct fake_dev_cfg){ .nifs = 2, .if_version = BERYL_NIC_IF_BLOCK_VERSION,
				    .id_version = BERYL_ID_BLOCK_VERSION, .txq = 4, .rxq = 4, .cq = 8, .eq = 1,
				    .ports = 1, .rss_table = 128, .max_frame = 9600, .max_desc = 8, .tdma_slots_max = 8 };
}

/* The TDMA scheduler's SLOTS_MAX bits. */
static uint32_t slot_bits(const struct fake_dev *d)
{
	return d->c.tdma_slots_max >= 32 ? 0xffffffffu : (1u << d->c.tdma_slots_max) - 1;
}

struct fake_dev *fake_dev_create(const struct fake_dev_cfg *cfg, uint8_t *mem, uint64_t base, size_t size)
{
	struct fake_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->c = *cfg;
	d->mem = mem;
	d->base = base;
	d->size = size;
	for (unsigned i = 0; i < MAX_IFS; i++) {
		for (unsigned p = 0; p < MAX_PORTS; p++) {
			struct fsched *sc = &d->ifs[i].sched[p];

			d->ifs[i].port_ctrl[p] = BERYL_NIC_IF_PORT_CTRL_RESET;
			sc->gate_rate = BERYL_NIC_IF_TDMA_GATE_RATE_RESET;
			sc->gate_cfg = BERYL_NIC_IF_TDMA_GATE_CFG_RESET;
			for (unsigned q = 0; q < MAX_Q; q++)
				sc->q_mask[q] = slot_bits(d);   /* the TDMA scheduler's reset: every slot */
		}
	}
	return d;
}

void fake_dev_destroy(struct fake_dev *d)
{
	free(d);
}

uint64_t fake_dev_accesses(const struct fake_dev *d)
{
	return d->accesses;
}

int fake_dev_irq_pop(struct fake_dev *d, uint32_t *vector)
{
	if (!d->nirq)
		return 0;
	*vector = d->irqs[0];
	memmove(d->irqs, d->irqs + 1, --d->nirq * sizeof(d->irqs[0]));
	return 1;
}

static uint8_t *host(struct fake_dev *d, uint64_t addr, size_t len)
{
	if (addr < d->base || addr - d->base > d->size || len > d->size - (addr - d->base))
		return NULL;
	return d->mem + (addr - d->base);
}

static unsigned qcount(struct fake_dev *d, unsigned type)
{
	const unsigned n[4] = { d->c.txq, d->c.rxq, d->c.cq, d->c.eq };

	return n[type];
}

static unsigned qlog(const struct fq *q)
{
	return (q->ctrl & BERYL_NIC_IF_Q_CTRL_LOG_SIZE_MASK) >> BERYL_NIC_IF_Q_CTRL_LOG_SIZE_LSB;
}

/* Write an entry into a completion or event queue; raise its event/interrupt if armed. */
static void cpl_write(struct fake_dev *d, struct fif *f, unsigned type, unsigned idx, uint8_t *e)
{
	struct fq *q = &f->q[type][idx];
	unsigned lg = qlog(q);
	uint8_t *dst;

	if (idx >= qcount(d, type) || !(q->ctrl & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK)) {
		CNT(f, type == BERYL_CQ ? BERYL_NIC_IF_CQ_DROP_DISABLED_OFFSET : BERYL_NIC_IF_EQ_DROP_DISABLED_OFFSET)++;
		return;
	}
	if ((uint16_t)(q->prod - q->cons) >= (1u << lg)) {
		CNT(f, type == BERYL_CQ ? BERYL_NIC_IF_CQ_DROP_FULL_OFFSET : BERYL_NIC_IF_EQ_DROP_FULL_OFFSET)++;
		return;
	}
	dst = host(d, q->base + (uint64_t)(q->prod & ((1u << lg) - 1)) * 32, 32);
	if (!dst) {
		CNT(f, BERYL_NIC_IF_CPL_DMA_ERR_OFFSET)++;
		return;
	}
	e[31] = (uint8_t)((e[31] & 0x7f) | (((q->prod >> lg) & 1) ? 0 : 0x80));
	memcpy(dst, e, 32);
	q->prod++;
	if (q->ctrl & BERYL_NIC_IF_Q_CTRL_ARMED_MASK) {
		q->ctrl &= ~BERYL_NIC_IF_Q_CTRL_ARMED_MASK;
		if (type == BERYL_CQ) {
			uint8_t ev[32] = { 0 };

			beryl_put16(ev + 2, (uint16_t)idx);
			cpl_write(d, f, BERYL_EQ, q->target, ev);
		} else if (d->nirq < 256) {
			d->irqs[d->nirq++] = q->target & 0xffff;
			CNT(f, BERYL_NIC_IF_IRQ_COUNT_OFFSET)++;
		}
	}
}

static uint16_t ones_sum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void rx_frame(struct fake_dev *d, unsigned ifi, unsigned port, const uint8_t *fr, size_t len)
{
	struct fif *f = &d->ifs[ifi];
	unsigned qi = f->rss_default;
	struct fq *q;
	uint8_t e[32] = { 0 };
	uint8_t *desc, *buf;
	uint32_t blen;

	f->port_cnt[port][2]++;
	f->port_cnt[port][3] += (uint32_t)len;
	if ((f->rss_ctrl & BERYL_NIC_IF_RSS_CTRL_ENABLE_MASK) && d->c.rss_table)
		qi = f->table[ones_sum(fr, len) % d->c.rss_table];
	q = &f->q[BERYL_RXQ][qi];
	if (qi >= d->c.rxq || !(q->ctrl & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK)) {
		CNT(f, BERYL_NIC_IF_RX_DROP_DISABLED_OFFSET)++;
		f->port_drop[port][1]++;
		return;
	}
	if (q->prod == q->cons) {
		CNT(f, BERYL_NIC_IF_RX_DROP_NO_DESC_OFFSET)++;
		f->port_drop[port][1]++;
		q->drops++;
		return;
	}
	desc = host(d, q->base + (uint64_t)(q->cons & ((1u << qlog(q)) - 1)) * 16, 16);
	beryl_put16(e, (uint16_t)qi);
	beryl_put16(e + 2, q->cons);
	e[4] = (uint8_t)port;
	q->cons++;
	blen = desc ? beryl_get32(desc + 8) : 0;
	buf = desc ? host(d, beryl_get64(desc), blen) : NULL;
	if (!buf) {
		e[5] = BERYL_CPL_DMA_ERR;
		CNT(f, BERYL_NIC_IF_RX_DMA_ERR_OFFSET)++;
		f->port_drop[port][1]++;
	} else if (len > blen) {
		e[5] = BERYL_CPL_TOO_LONG;
		CNT(f, BERYL_NIC_IF_RX_DROP_TOO_LONG_OFFSET)++;
		f->port_drop[port][1]++;
		q->drops++;
	} else {
		memcpy(buf, fr, len);
		e[7] = BERYL_CPL_FLAG_CSUM_VALID;
		beryl_put16(e + 12, len > 14 ? ones_sum(fr + 14, len - 14) : 0);
		beryl_put16(e + 14, (uint16_t)len);
		CNT(f, BERYL_NIC_IF_RX_PKTS_OFFSET)++;
		CNT(f, BERYL_NIC_IF_RX_BYTES_OFFSET) += (uint32_t)len;
		q->pkts++;
		q->bytes += len;
	}
	cpl_write(d, f, BERYL_CQ, q->target, e);
}

static void tx_err_cpl(struct fake_dev *d, struct fif *f, struct fq *q, unsigned qi, unsigned port, uint16_t idx)
{
	uint8_t e[32] = { 0 };

	beryl_put16(e, (uint16_t)qi);
	beryl_put16(e + 2, idx);
	e[4] = (uint8_t)port;
	e[5] = BERYL_CPL_DMA_ERR;
	CNT(f, BERYL_NIC_IF_TX_DMA_ERR_OFFSET)++;
	f->port_drop[port][0]++;
	cpl_write(d, f, BERYL_CQ, q->target, e);
}

/*
 * The failed fetch of TX queue qi, reached with the packet at `first` (the batch starts in it), as the
 * TX engine completes it: the packet it cut at its first index (if it started before the batch), each
 * descriptor of the batch at its own index, then the resync run (the following descriptors up to and
 * including the first without MORE) once at its first index; nothing is sent. The fetch failed after
 * two retries. Returns false while the batch or the run is not posted in full (wait for the rest).
 */
static bool tx_fetch_fail(struct fake_dev *d, struct fif *f, struct fq *q, unsigned qi, unsigned port,
			  uint16_t first)
{
	unsigned mask = (1u << qlog(q)) - 1;
	uint16_t end = (uint16_t)(q->fail_first + q->fail_count), run = end;

	if ((uint16_t)(q->prod - q->fail_first) < q->fail_count)
		return false;
	while (run != q->prod) {
		const uint8_t *desc = host(d, q->base + (uint64_t)(run & mask) * 16, 16);

		run++;
		if (!(beryl_get16(desc + 12) & BERYL_TX_FLAG_MORE))
			break;
		if (run == q->prod)
			return false;
	}
	f->desc_retry += 2;
	if (first != q->fail_first)
		tx_err_cpl(d, f, q, qi, port, first);
	for (uint16_t i = q->fail_first; i != end; i++)
		tx_err_cpl(d, f, q, qi, port, i);
	if (run != end)
		tx_err_cpl(d, f, q, qi, port, end);
	q->cons = run;
	q->fail_count = 0;
	return true;
}

/* Send every complete packet of TX queue qi (a failed fetch of its descriptors: tx_fetch_fail). */
static void tx_run(struct fake_dev *d, unsigned ifi, unsigned qi)
{
	struct fif *f = &d->ifs[ifi];
	struct fq *q = &f->q[BERYL_TXQ][qi];
	unsigned mask = (1u << qlog(q)) - 1, port = (q->ctrl & BERYL_NIC_IF_Q_CTRL_PORT_MASK) >>
					       BERYL_NIC_IF_Q_CTRL_PORT_LSB;
	static uint8_t fr[65536];

	while (q->cons != q->prod) {
		uint16_t first = q->cons, p = q->cons;
		size_t len = 0;
		unsigned n = 0, cs = 0, co = 0;
		bool more = true, csum = false, bad = false;
		uint8_t e[32] = { 0 };

		while (more) {
			uint8_t *desc;
			uint32_t dl;
			uint16_t fl;
			uint8_t *src;

			if (p == q->prod)
				return;   /* chain cut short: wait for the rest */
			desc = host(d, q->base + (uint64_t)(p & mask) * 16, 16);
			dl = beryl_get32(desc + 8);
			fl = beryl_get16(desc + 12);
			if (!n) {
				csum = fl & BERYL_TX_FLAG_CSUM;
				cs = desc[14];
				co = desc[15];
			}
			more = fl & BERYL_TX_FLAG_MORE;
			src = host(d, beryl_get64(desc), dl);
			if (!dl || !src || len + dl > d->c.max_frame || ++n > d->c.max_desc)
				bad = true;
			else
				memcpy(fr + len, src, dl);
			len += dl;
			p++;
		}
		if (q->fail_count && (uint16_t)(q->fail_first - first) < (uint16_t)(p - first)) {
			if (!tx_fetch_fail(d, f, q, qi, port, first))
				return;
			continue;
		}
		q->cons = p;
		beryl_put16(e, (uint16_t)qi);
		beryl_put16(e + 2, first);
		e[4] = (uint8_t)port;
		if (bad) {
			e[5] = BERYL_CPL_BAD_DESC;
			CNT(f, BERYL_NIC_IF_TX_DROP_BAD_DESC_OFFSET)++;
			f->port_drop[port][0]++;
			q->drops++;
			cpl_write(d, f, BERYL_CQ, q->target, e);
			continue;
		}
		if (csum && cs + co + 2 <= len) {
			uint16_t s;

			s = (uint16_t)~ones_sum(fr + cs, len - cs);
			fr[cs + co] = (uint8_t)(s >> 8);
			fr[cs + co + 1] = (uint8_t)s;
		}
		beryl_put16(e + 14, (uint16_t)len);
		CNT(f, BERYL_NIC_IF_TX_PKTS_OFFSET)++;
		CNT(f, BERYL_NIC_IF_TX_BYTES_OFFSET) += (uint32_t)len;
		f->port_cnt[port][0]++;
		f->port_cnt[port][1] += (uint32_t)len;
		q->pkts++;
		q->bytes += len;
		cpl_write(d, f, BERYL_CQ, q->target, e);
		rx_frame(d, d->c.nifs > 1 ? ifi ^ 1 : ifi, port, fr, len);
	}
}

/* The block at off: its base and kind (0 none, 1 id, 2 pcie, 3 msix, 4 + i nic_if i, KIND_PTP). */
static int block_at(struct fake_dev *d, uint32_t off, uint32_t *base)
{
	if (d->c.ptp_nom_incr && off >= PTP_BASE && off < PTP_BASE + (1u << BERYL_PTP_BLOCK_ADDR_W)) {
		*base = PTP_BASE;
		return KIND_PTP;
	}
	if (off < 0x300) {
		if (d->c.no_pcie && off >> 8 == 1)
			return 0;
		*base = off & ~0xffu;
		return (int)(off >> 8) + 1;
	}
	if (off >= BERYL_APP_BASE && off < BERYL_APP_BASE + d->c.nifs * IF_WIN) {
		*base = off & ~(IF_WIN - 1);
		return 4 + (int)((off - BERYL_APP_BASE) / IF_WIN);
	}
	return 0;
}

static uint32_t next_of(struct fake_dev *d, int kind)
{
	switch (kind) {
	case 1:
		return d->c.no_pcie ? 0x200 : 0x100;
	case 2:
		return 0x200;
	case 3:
		if (d->c.fault == FAKE_LOOP)
			return 0x100;
		if (d->c.fault == FAKE_GARBAGE)
			return 0x30000;
		return d->c.nifs ? BERYL_APP_BASE : d->c.ptp_nom_incr ? PTP_BASE : 0;
	case KIND_PTP:
		return 0;
	default:
		if (kind - 4 + 1u < d->c.nifs)
			return BERYL_APP_BASE + (uint32_t)(kind - 3) * IF_WIN;
		return d->c.ptp_nom_incr ? PTP_BASE : 0;
	}
}

static uint32_t qfield_read(struct fif *f, struct fq *q, uint32_t reg)
{
	switch (reg) {
	case BERYL_NIC_IF_Q_BASE_LO_OFFSET:
		return (uint32_t)q->base;
	case BERYL_NIC_IF_Q_BASE_HI_OFFSET:
		return (uint32_t)(q->base >> 32);
	case BERYL_NIC_IF_Q_CTRL_OFFSET:
		return q->ctrl;
	case BERYL_NIC_IF_Q_TARGET_OFFSET:
		return q->target;
	case BERYL_NIC_IF_Q_PROD_OFFSET:
		return q->prod;
	case BERYL_NIC_IF_Q_CONS_OFFSET:
		return q->cons;
	}
	(void)f;
	return 0;
}

/* ------------------------------------------------------------------ port schedulers */

/* The selected port's scheduler; NULL when PORT_SEL is out of range (reads 0, writes ignored). */
static struct fsched *sched_of(struct fake_dev *d, struct fif *f)
{
	return f->port_sel_raw < d->c.ports && f->port_sel_raw < MAX_PORTS ? &f->sched[f->port_sel_raw] : NULL;
}

/* Registers that only hold what was written (in their width). */
static const struct {
	uint32_t reg, mask;
	size_t off;
} sched_plain[] = {
#define P(name, mask, field) { BERYL_NIC_IF_##name##_OFFSET, mask, offsetof(struct fsched, field) }
	P(SCHED_Q_SEL, BERYL_NIC_IF_SCHED_Q_SEL_QUEUE_MASK, qsel),
	P(SCHED_Q_RATE, ~0u, rate),
	P(SCHED_Q_BURST, BERYL_NIC_IF_SCHED_Q_BURST_BURST_MASK, burst),
	P(SCHED_Q_SLOTS, ~0u, slots),
	P(TDMA_START_SEC_LO, ~0u, sec_lo),
	P(TDMA_START_SEC_HI, BERYL_NIC_IF_TDMA_START_SEC_HI_SEC_MASK, sec_hi),
	P(TDMA_START_NS, BERYL_NIC_IF_TDMA_START_NS_NS_MASK, ns),
	P(TDMA_PERIOD_NS, ~0u, period),
	P(TDMA_SLOT_NS, ~0u, slot),
	P(TDMA_SLOT_COUNT, BERYL_NIC_IF_TDMA_SLOT_COUNT_COUNT_MASK, count),
	P(TDMA_GUARD_NS, ~0u, guard),
	P(TDMA_GATE_RATE, ~0u, gate_rate),
	P(TDMA_GATE_CFG, BERYL_NIC_IF_TDMA_GATE_CFG_OVERHEAD_MASK | BERYL_NIC_IF_TDMA_GATE_CFG_MARGIN_NS_MASK, gate_cfg),
#undef P
};

static uint32_t *sched_plain_reg(struct fsched *sc, uint32_t reg, uint32_t *mask)
{
	for (size_t i = 0; i < sizeof(sched_plain) / sizeof(sched_plain[0]); i++) {
		if (sched_plain[i].reg == reg) {
			*mask = sched_plain[i].mask;
			return (uint32_t *)((char *)sc + sched_plain[i].off);
		}
	}
	return NULL;
}

static uint32_t sched_read(struct fake_dev *d, struct fif *f, uint32_t reg)
{
	struct fsched *sc = sched_of(d, f);
	const struct fake_sched_obs *o = sc ? &sc->obs : NULL;
	bool tdma = d->c.tx_sched == 2;   /* only a TDMA build has the timer and the gate */
	uint32_t mask, *p;

	if (!sc)
		return 0;
	p = sched_plain_reg(sc, reg, &mask);
	if (p)
		return *p;
	switch (reg) {
	case BERYL_NIC_IF_SCHED_Q_CMD_OFFSET:
		return (sc->err ? BERYL_NIC_IF_SCHED_Q_CMD_ERR_MASK : 0) | sc->op;
	case BERYL_NIC_IF_SCHED_Q_TOKENS_OFFSET:
		return sc->tokens;
	case BERYL_NIC_IF_TDMA_CTRL_OFFSET:
		if (!tdma)
			return sc->ctrl;
		return sc->ctrl | (o->searching ? BERYL_NIC_IF_TDMA_CTRL_SEARCHING_MASK : 0) |
		       (sc->cfg_err ? BERYL_NIC_IF_TDMA_CTRL_CFG_ERR_MASK : 0) |
		       (o->slot_valid ? BERYL_NIC_IF_TDMA_CTRL_SLOT_VALID_MASK : 0) |
		       (o->slot_index << BERYL_NIC_IF_TDMA_CTRL_SLOT_INDEX_LSB & BERYL_NIC_IF_TDMA_CTRL_SLOT_INDEX_MASK);
	case BERYL_NIC_IF_TDMA_HOLD_OFFSET:
		return tdma ? o->hold : 0;
	case BERYL_NIC_IF_TDMA_OFFSLOT_OFFSET:
		return tdma ? o->offslot : 0;
	case BERYL_NIC_IF_TDMA_OVERRUN_OFFSET:
		return tdma ? o->overrun : 0;
	case BERYL_NIC_IF_TDMA_PARK_OFFSET:
		return tdma ? o->park : 0;
	case BERYL_NIC_IF_SCHED_BAD_STS_OFFSET:
		return o->bad_sts;
	}
	return 0;
}

/* The timer's check when ENABLE rises (a count above SLOTS_MAX reaches it as 0). */
static bool tdma_cfg_bad(const struct fake_dev *d, const struct fsched *sc)
{
	return sc->ns >= 1000000000u || !sc->period || !sc->slot || !sc->count || sc->count > d->c.tdma_slots_max ||
	       (uint64_t)sc->count * sc->slot > sc->period;
}

/* SCHED_Q_CMD: carried out by a token-bucket or TDMA scheduler for a queue in range, else refused. */
static void sched_cmd(struct fake_dev *d, struct fsched *sc, uint32_t op)
{
	unsigned q = sc->qsel;

	sc->op = op & BERYL_NIC_IF_SCHED_Q_CMD_OP_MASK;
	sc->err = d->c.tx_sched == 0 || (sc->op != 1 && sc->op != 2) || q >= d->c.txq || q >= MAX_Q ||
		  d->c.fault == FAKE_SCHED_REFUSE;
	if (sc->err)
		return;
	if (d->c.tx_sched == 1 && sc->op == 1) {
		sc->q_rate[q] = sc->rate;
		sc->q_burst[q] = sc->burst;
		sc->q_tokens[q] = (int32_t)sc->burst;   /* the bucket refills on a write */
	} else if (d->c.tx_sched == 1) {
		sc->rate = sc->q_rate[q];
		sc->burst = sc->q_burst[q];
		sc->tokens = (uint32_t)sc->q_tokens[q];
	} else if (sc->op == 1) {
		sc->q_mask[q] = sc->slots & slot_bits(d);
	} else {
		sc->slots = sc->q_mask[q];
	}
}

static void sched_write(struct fake_dev *d, struct fif *f, uint32_t reg, uint32_t v)
{
	struct fsched *sc = sched_of(d, f);
	uint32_t mask, *p;
	bool was_on;

	if (!sc)
		return;
	p = sched_plain_reg(sc, reg, &mask);
	if (p) {
		*p = v & mask;
	} else if (reg == BERYL_NIC_IF_SCHED_Q_CMD_OFFSET) {
		sched_cmd(d, sc, v);
	} else if (reg == BERYL_NIC_IF_TDMA_CTRL_OFFSET) {
		was_on = sc->ctrl & BERYL_NIC_IF_TDMA_CTRL_ENABLE_MASK;
		sc->ctrl = v & (BERYL_NIC_IF_TDMA_CTRL_ENABLE_MASK | BERYL_NIC_IF_TDMA_CTRL_GATE_MASK |
				BERYL_NIC_IF_TDMA_CTRL_HOLD_OWN_MASK);
		if (!(sc->ctrl & BERYL_NIC_IF_TDMA_CTRL_ENABLE_MASK))
			sc->cfg_err = false;
		else if (!was_on && d->c.tx_sched == 2)
			sc->cfg_err = tdma_cfg_bad(d, sc);   /* the timer latches the schedule on this edge */
	}
}

void fake_dev_sched_observe(struct fake_dev *d, unsigned ifi, unsigned port, const struct fake_sched_obs *o)
{
	if (ifi < MAX_IFS && port < MAX_PORTS)
		d->ifs[ifi].sched[port].obs = *o;
}

static uint32_t ptp_read(struct fake_dev *d, uint32_t reg)
{
	switch (reg) {
	case BERYL_PTP_NOM_INCR_NS_OFFSET:
		return (uint32_t)(d->c.ptp_nom_incr >> 32);
	case BERYL_PTP_NOM_INCR_FNS_OFFSET:
		return (uint32_t)d->c.ptp_nom_incr;
	case BERYL_PTP_FNS_W_OFFSET:
		return 32;
	}
	return 0;
}

static uint32_t if_read(struct fake_dev *d, struct fif *f, unsigned ifi, uint32_t reg)
{
	const uint32_t params[] = { ifi, d->c.nifs, d->c.ports, d->c.txq, d->c.rxq, d->c.cq, d->c.eq, 16, 16,
				    d->c.max_frame, d->c.rss_table, 8, 8, d->c.max_desc, 0xf, d->c.tx_sched,
				    d->c.tx_sched == 2 ? d->c.tdma_slots_max : 0 };
	bool qok = f->qsel_idx < qcount(d, f->qsel_type) && f->qsel_idx < MAX_Q;
	struct fq *q = qok ? &f->q[f->qsel_type][f->qsel_idx] : NULL;

	if (reg >= BERYL_NIC_IF_IF_INDEX_OFFSET && reg <= BERYL_NIC_IF_TDMA_SLOTS_MAX_OFFSET)
		return params[(reg - BERYL_NIC_IF_IF_INDEX_OFFSET) / 4];
	if (reg >= BERYL_NIC_IF_SCHED_Q_SEL_OFFSET && reg <= BERYL_NIC_IF_SCHED_BAD_STS_OFFSET)
		return sched_read(d, f, reg);
	if (reg >= BERYL_NIC_IF_Q_BASE_LO_OFFSET && reg <= BERYL_NIC_IF_Q_CONS_OFFSET) {
		f->qstatus = !qok;
		return q ? qfield_read(f, q, reg) : 0;
	}
	if (reg >= BERYL_NIC_IF_Q_STAT_PKTS_LO_OFFSET && reg <= BERYL_NIC_IF_Q_STAT_DROPS_HI_OFFSET) {
		if (reg == BERYL_NIC_IF_Q_STAT_PKTS_LO_OFFSET) {
			f->qstatus = !qok || f->qsel_type > BERYL_RXQ;
			memset(f->snap, 0, sizeof(f->snap));
			if (!f->qstatus) {
				f->snap[0] = (uint32_t)q->pkts;
				f->snap[1] = (uint32_t)(q->pkts >> 32);
				f->snap[2] = (uint32_t)q->bytes;
				f->snap[3] = (uint32_t)(q->bytes >> 32);
				f->snap[4] = (uint32_t)q->drops;
				f->snap[5] = (uint32_t)(q->drops >> 32);
			}
		}
		return f->snap[(reg - BERYL_NIC_IF_Q_STAT_PKTS_LO_OFFSET) / 4];
	}
	if (reg >= BERYL_NIC_IF_RSS_KEY0_OFFSET && reg <= BERYL_NIC_IF_RSS_KEY9_OFFSET)
		return f->key[(reg - BERYL_NIC_IF_RSS_KEY0_OFFSET) / 4];
	if (reg >= BERYL_NIC_IF_TX_PKTS_OFFSET && reg <= BERYL_NIC_IF_IRQ_MERGED_OFFSET)
		return CNT(f, reg);
	if (reg == BERYL_NIC_IF_TX_DESC_RETRY_OFFSET)
		return f->desc_retry;
	if (reg >= BERYL_NIC_IF_PORT_TX_PKTS_OFFSET && reg <= BERYL_NIC_IF_PORT_RX_BYTES_OFFSET)
		return f->port_cnt[f->port_sel][(reg - BERYL_NIC_IF_PORT_TX_PKTS_OFFSET) / 4];
	if (reg == BERYL_NIC_IF_PORT_TX_DROPS_OFFSET || reg == BERYL_NIC_IF_PORT_RX_DROPS_OFFSET)
		return f->port_drop[f->port_sel][reg == BERYL_NIC_IF_PORT_RX_DROPS_OFFSET];
	switch (reg) {
	case BERYL_NIC_IF_Q_SEL_OFFSET:
		return f->qsel_type << BERYL_NIC_IF_Q_SEL_TYPE_LSB | f->qsel_idx;
	case BERYL_NIC_IF_Q_STATUS_OFFSET:
		return f->qstatus;
	case BERYL_NIC_IF_RSS_CTRL_OFFSET:
		return f->rss_ctrl;
	case BERYL_NIC_IF_RSS_DEFAULT_QUEUE_OFFSET:
		return f->rss_default;
	case BERYL_NIC_IF_RSS_TBL_IDX_OFFSET:
		return f->rss_idx;
	case BERYL_NIC_IF_RSS_TBL_DATA_OFFSET:
		return d->c.rss_table ? f->table[f->rss_idx++ % d->c.rss_table] : 0;
	case BERYL_NIC_IF_PORT_SEL_OFFSET:
		return f->port_sel;
	case BERYL_NIC_IF_PORT_CTRL_OFFSET:
		return f->port_ctrl[f->port_sel];
	}
	return 0;
}

static void qfield_write(struct fif *f, struct fq *q, uint32_t reg, uint32_t v)
{
	bool en = q->ctrl & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK;

	switch (reg) {
	case BERYL_NIC_IF_Q_BASE_LO_OFFSET:
		if (en)
			f->qstatus = 1;
		else
			q->base = (q->base & ~0xffffffffull) | v;
		break;
	case BERYL_NIC_IF_Q_BASE_HI_OFFSET:
		if (en)
			f->qstatus = 1;
		else
			q->base = (q->base & 0xffffffffull) | (uint64_t)v << 32;
		break;
	case BERYL_NIC_IF_Q_CTRL_OFFSET:
		if (en && ((v ^ q->ctrl) & BERYL_NIC_IF_Q_CTRL_LOG_SIZE_MASK))
			f->qstatus = 1;
		else
			q->ctrl = v & (BERYL_NIC_IF_Q_CTRL_ENABLE_MASK | BERYL_NIC_IF_Q_CTRL_ARMED_MASK |
				       BERYL_NIC_IF_Q_CTRL_LOG_SIZE_MASK | BERYL_NIC_IF_Q_CTRL_PORT_MASK);
		break;
	case BERYL_NIC_IF_Q_TARGET_OFFSET:
		q->target = v;
		break;
	case BERYL_NIC_IF_Q_PROD_OFFSET:
		q->prod = (uint16_t)v;
		break;
	case BERYL_NIC_IF_Q_CONS_OFFSET:
		q->cons = (uint16_t)v;
		break;
	}
}

static void doorbell(struct fake_dev *d, struct fif *f, unsigned ifi, unsigned type, uint32_t v, bool arm)
{
	unsigned idx = v & 0xffff;
	uint16_t ptr = (uint16_t)(v >> 16);
	struct fq *q = &f->q[type][idx];
	unsigned size;

	if (idx >= qcount(d, type) || idx >= MAX_Q) {
		CNT(f, BERYL_NIC_IF_DB_BAD_OFFSET)++;
		return;
	}
	size = 1u << qlog(q);
	if (type <= BERYL_RXQ) {
		if ((uint16_t)(ptr - q->cons) > size) {
			CNT(f, BERYL_NIC_IF_DB_BAD_OFFSET)++;
			return;
		}
		q->prod = ptr;
		if (type == BERYL_TXQ && (q->ctrl & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK))
			tx_run(d, ifi, idx);
		return;
	}
	if ((uint16_t)(q->prod - ptr) > size) {
		CNT(f, BERYL_NIC_IF_DB_BAD_OFFSET)++;
		return;
	}
	q->cons = ptr;
	if (arm)
		q->ctrl |= BERYL_NIC_IF_Q_CTRL_ARMED_MASK;
}

static void if_write(struct fake_dev *d, struct fif *f, unsigned ifi, uint32_t reg, uint32_t v)
{
	if (reg >= BERYL_NIC_IF_Q_BASE_LO_OFFSET && reg <= BERYL_NIC_IF_Q_CONS_OFFSET) {
		bool qok = f->qsel_idx < qcount(d, f->qsel_type) && f->qsel_idx < MAX_Q;

		f->qstatus = !qok;
		if (qok)
			qfield_write(f, &f->q[f->qsel_type][f->qsel_idx], reg, v);
		return;
	}
	if (reg >= BERYL_NIC_IF_RSS_KEY0_OFFSET && reg <= BERYL_NIC_IF_RSS_KEY9_OFFSET) {
		f->key[(reg - BERYL_NIC_IF_RSS_KEY0_OFFSET) / 4] = v;
		return;
	}
	if (reg >= BERYL_NIC_IF_SCHED_Q_SEL_OFFSET && reg <= BERYL_NIC_IF_SCHED_BAD_STS_OFFSET) {
		sched_write(d, f, reg, v);
		return;
	}
	switch (reg) {
	case BERYL_NIC_IF_TXQ_DB_OFFSET:
		doorbell(d, f, ifi, BERYL_TXQ, v, false);
		break;
	case BERYL_NIC_IF_RXQ_DB_OFFSET:
		doorbell(d, f, ifi, BERYL_RXQ, v, false);
		break;
	case BERYL_NIC_IF_CQ_DB_OFFSET:
	case BERYL_NIC_IF_CQ_DB_ARM_OFFSET:
		doorbell(d, f, ifi, BERYL_CQ, v, reg == BERYL_NIC_IF_CQ_DB_ARM_OFFSET);
		break;
	case BERYL_NIC_IF_EQ_DB_OFFSET:
	case BERYL_NIC_IF_EQ_DB_ARM_OFFSET:
		doorbell(d, f, ifi, BERYL_EQ, v, reg == BERYL_NIC_IF_EQ_DB_ARM_OFFSET);
		break;
	case BERYL_NIC_IF_Q_SEL_OFFSET:
		f->qsel_type = (v & BERYL_NIC_IF_Q_SEL_TYPE_MASK) >> BERYL_NIC_IF_Q_SEL_TYPE_LSB;
		f->qsel_idx = (v & BERYL_NIC_IF_Q_SEL_QUEUE_MASK) >> BERYL_NIC_IF_Q_SEL_QUEUE_LSB;
		break;
	case BERYL_NIC_IF_RSS_CTRL_OFFSET:
		f->rss_ctrl = v & (BERYL_NIC_IF_RSS_CTRL_ENABLE_MASK | BERYL_NIC_IF_RSS_CTRL_HASH_EN_MASK);
		break;
	case BERYL_NIC_IF_RSS_DEFAULT_QUEUE_OFFSET:
		f->rss_default = v & 0xffff;
		break;
	case BERYL_NIC_IF_RSS_TBL_IDX_OFFSET:
		f->rss_idx = v & 0xffff;
		break;
	case BERYL_NIC_IF_RSS_TBL_DATA_OFFSET:
		if (d->c.rss_table)
			f->table[f->rss_idx++ % d->c.rss_table] = (uint16_t)v;
		break;
	case BERYL_NIC_IF_PORT_SEL_OFFSET:
		f->port_sel_raw = v & 0xff;
		f->port_sel = f->port_sel_raw % MAX_PORTS;
		break;
	case BERYL_NIC_IF_PORT_CTRL_OFFSET:
		f->port_ctrl[f->port_sel] = v & 1;
		break;
	}
}

/* PCIe block: its event counters hold 1001 x their index (fake_dev.h), the rest reads 0. */
static uint32_t pcie_read(uint32_t reg)
{
	if (reg >= BERYL_PCIE_UNMAPPED_RD_COUNT_OFFSET && reg <= BERYL_PCIE_DMA_RD_CPL_DISCARDED_COUNT_OFFSET)
		return (reg - BERYL_PCIE_UNMAPPED_RD_COUNT_OFFSET) / 4 * 1001u;
	return 0;
}

uint32_t fake_dev_read(struct fake_dev *d, uint32_t off)
{
	uint32_t base, reg;
	int kind;

	d->accesses++;
	if (d->c.fault == FAKE_NOT_BERYL || off % 4)
		return 0xffffffffu;
	kind = block_at(d, off, &base);
	reg = off - base;
	if (!kind)
		return 0xffffffffu;
	if (reg == BERYL_BLOCK_TYPE_OFFSET) {
		const uint32_t types[] = { BERYL_ID_BLOCK_TYPE, BERYL_PCIE_BLOCK_TYPE, BERYL_MSIX_BLOCK_TYPE };

		return kind == KIND_PTP ? BERYL_PTP_BLOCK_TYPE : kind < 4 ? types[kind - 1] : BERYL_NIC_IF_BLOCK_TYPE;
	}
	if (reg == BERYL_BLOCK_VERSION_OFFSET)
		return kind == KIND_PTP ? BERYL_PTP_BLOCK_VERSION : kind == 1 ? d->c.id_version :
		       kind == 2 && d->c.pcie_version ? d->c.pcie_version : kind < 4 ? 0x01000000u : d->c.if_version;
	if (reg == BERYL_BLOCK_NEXT_OFFSET)
		return next_of(d, kind);
	if (kind == 1) {
		switch (reg) {
		case BERYL_ID_PCI_ID_OFFSET:
			return 0xbe011234u;
		case BERYL_ID_PCI_SUBSYS_ID_OFFSET:
			return 0x00011234u;
		case BERYL_ID_BERYL_VERSION_OFFSET:
			return BERYL_BERYL_RELEASE;
		case BERYL_ID_GIT_HASH_OFFSET:
			return 0x1234abcdu;
		case BERYL_ID_BUILD_DATE_OFFSET:
			return 0x20261122u;
		case BERYL_ID_BUILD_TIME_OFFSET:
			return 0x00123456u;
		case BERYL_ID_SCRATCH_OFFSET:
			return d->scratch;
		}
		return 0;
	}
	if (kind == 2)
		return pcie_read(reg);
	if (kind == 3)
		return reg == BERYL_MSIX_VECTOR_COUNT_OFFSET ? 32 : 0;
	if (kind == KIND_PTP)
		return ptp_read(d, reg);
	if (kind >= 4 && kind < KIND_PTP)
		return if_read(d, &d->ifs[kind - 4], (unsigned)kind - 4, reg);
	return 0;
}

void fake_dev_write(struct fake_dev *d, uint32_t off, uint32_t val)
{
	uint32_t base;
	int kind;

	d->accesses++;
	if (d->c.fault == FAKE_NOT_BERYL || off % 4)
		return;
	kind = block_at(d, off, &base);
	if (kind == 1 && off - base == BERYL_ID_SCRATCH_OFFSET)
		d->scratch = val;
	if (kind >= 4 && kind != KIND_PTP)
		if_write(d, &d->ifs[kind - 4], (unsigned)kind - 4, off - base, val);
}

/* ------------------------------------------------------------------ in-process transport */

struct fake_tr {
	struct beryl_transport t;
	struct fake_dev *dev;
	uint8_t *mem;
	struct beryl_dma_pool *pool;
};

static struct fake_tr *ft(struct beryl_transport *t)
{
	return t->priv;
}

static int ft_read32(struct beryl_transport *t, uint64_t off, uint32_t *val)
{
	*val = fake_dev_read(ft(t)->dev, (uint32_t)off);
	return 0;
}

static int ft_write32(struct beryl_transport *t, uint64_t off, uint32_t val)
{
	fake_dev_write(ft(t)->dev, (uint32_t)off, val);
	return 0;
}

static int ft_dma_alloc(struct beryl_transport *t, size_t size, size_t align, struct beryl_dma_buf *buf)
{
	return beryl_dma_pool_alloc(ft(t)->pool, size, align, buf);
}

static void ft_dma_free(struct beryl_transport *t, struct beryl_dma_buf *buf)
{
	beryl_dma_pool_free(ft(t)->pool, buf);
}

static int ft_wait_irq(struct beryl_transport *t, int timeout_ms, uint32_t *vector)
{
	(void)timeout_ms;
	return fake_dev_irq_pop(ft(t)->dev, vector);
}

static void ft_close(struct beryl_transport *t)
{
	struct fake_tr *f = ft(t);

	fake_dev_destroy(f->dev);
	beryl_dma_pool_destroy(f->pool);
	free(f->mem);
	free(f);
}

static const struct beryl_transport_ops fake_ops = {
	.name = "fake",
	.read32 = ft_read32,
	.write32 = ft_write32,
	.dma_alloc = ft_dma_alloc,
	.dma_free = ft_dma_free,
	.wait_irq = ft_wait_irq,
	.close = ft_close,
};

int fake_transport_open(const struct fake_dev_cfg *cfg, size_t mem_size, struct beryl_transport **out)
{
	struct fake_tr *f = calloc(1, sizeof(*f));
	const uint64_t base = 0x100000000ull;

	if (!f)
		return -ENOMEM;
	f->t.ops = &fake_ops;
	f->t.priv = f;
	f->mem = aligned_alloc(4096, mem_size);
	f->dev = f->mem ? fake_dev_create(cfg, f->mem, base, mem_size) : NULL;
	if (!f->dev || beryl_dma_pool_create(f->mem, base, mem_size, &f->pool)) {
		fake_dev_destroy(f->dev);
		free(f->mem);
		free(f);
		return -ENOMEM;
	}
	*out = &f->t;
	return 0;
}

struct fake_dev *fake_transport_dev(struct beryl_transport *t)
{
	return ft(t)->dev;
}

size_t fake_transport_dma_in_use(struct beryl_transport *t)
{
	return beryl_dma_pool_in_use(ft(t)->pool);
}

void fake_dev_tx_fetch_fail(struct fake_dev *d, unsigned ifi, unsigned txq, uint16_t first, unsigned count)
{
	struct fq *q = &d->ifs[ifi].q[BERYL_TXQ][txq];

	q->fail_first = first;
	q->fail_count = count;
}

void fake_dev_tx_cpl(struct fake_dev *d, unsigned ifi, unsigned txq, uint16_t index, uint8_t status)
{
	struct fif *f = &d->ifs[ifi];
	struct fq *q = &f->q[BERYL_TXQ][txq];
	uint8_t e[32] = { 0 };

	beryl_put16(e, (uint16_t)txq);
	beryl_put16(e + 2, index);
	e[5] = status;
	cpl_write(d, f, BERYL_CQ, q->target, e);
}
