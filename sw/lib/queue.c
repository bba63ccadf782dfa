// SPDX-License-Identifier: MIT
/* Queue registers of an interface: indirect access through Q_SEL, doorbells, state and statistics. */
#include <errno.h>
#include <stdlib.h>

#include "beryl_priv.h"

int beryl_if_rd(struct beryl_if *nif, uint32_t reg, uint32_t *val)
{
	return beryl_read32(nif->dev, nif->base + reg, val);
}

int beryl_if_wr(struct beryl_if *nif, uint32_t reg, uint32_t val)
{
	return beryl_write32(nif->dev, nif->base + reg, val);
}

const char *beryl_qtype_name(enum beryl_qtype t)
{
	static const char *const names[] = { "txq", "rxq", "cq", "eq" };

	return (unsigned)t < 4 ? names[t] : "?";
}

unsigned beryl_queue_count(const struct beryl_if *nif, enum beryl_qtype type)
{
	switch (type) {
	case BERYL_TXQ:
		return nif->p.txq_count;
	case BERYL_RXQ:
		return nif->p.rxq_count;
	case BERYL_CQ:
		return nif->p.cq_count;
	case BERYL_EQ:
		return nif->p.eq_count;
	}
	return 0;
}

static int check_queue(struct beryl_if *nif, enum beryl_qtype type, unsigned idx)
{
	if ((unsigned)type > BERYL_EQ)
		return beryl_fail(-EINVAL, "unknown queue type %d", (int)type);
	if (idx >= beryl_queue_count(nif, type))
		return beryl_fail(-ERANGE, "%s %u out of range: interface %u has %u", beryl_qtype_name(type),
				  idx, nif->p.if_index, beryl_queue_count(nif, type));
	return 0;
}

int beryl_q_select(struct beryl_if *nif, enum beryl_qtype type, unsigned idx)
{
	uint32_t v = ((uint32_t)type << BERYL_NIC_IF_Q_SEL_TYPE_LSB & BERYL_NIC_IF_Q_SEL_TYPE_MASK) |
		     (idx << BERYL_NIC_IF_Q_SEL_QUEUE_LSB & BERYL_NIC_IF_Q_SEL_QUEUE_MASK);

	return beryl_if_wr(nif, BERYL_NIC_IF_Q_SEL_OFFSET, v);
}

static int q_status(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, const char *what)
{
	uint32_t st;
	int err = beryl_if_rd(nif, BERYL_NIC_IF_Q_STATUS_OFFSET, &st);

	if (err)
		return err;
	if (st & BERYL_NIC_IF_Q_STATUS_ERR_MASK)
		return beryl_fail(-EIO, "%s %u of interface %u: %s refused by the device",
				  beryl_qtype_name(type), idx, nif->p.if_index, what);
	return 0;
}

/* Write one queue field (queue already selected) and check the device accepted it. */
int beryl_q_write(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint32_t reg, uint32_t val)
{
	int err = beryl_if_wr(nif, reg, val);

	return err ? err : q_status(nif, type, idx, "queue register write");
}

int beryl_doorbell(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint16_t ptr, bool arm)
{
	static const uint32_t reg[2][4] = {
		{ BERYL_NIC_IF_TXQ_DB_OFFSET, BERYL_NIC_IF_RXQ_DB_OFFSET, BERYL_NIC_IF_CQ_DB_OFFSET,
		  BERYL_NIC_IF_EQ_DB_OFFSET },
		{ BERYL_NIC_IF_TXQ_DB_OFFSET, BERYL_NIC_IF_RXQ_DB_OFFSET, BERYL_NIC_IF_CQ_DB_ARM_OFFSET,
		  BERYL_NIC_IF_EQ_DB_ARM_OFFSET },
	};
	/* every doorbell register has the same QUEUE | PTR << 16 layout */
	uint32_t v = ((uint32_t)ptr << BERYL_NIC_IF_TXQ_DB_PTR_LSB & BERYL_NIC_IF_TXQ_DB_PTR_MASK) |
		     (idx << BERYL_NIC_IF_TXQ_DB_QUEUE_LSB & BERYL_NIC_IF_TXQ_DB_QUEUE_MASK);

	return beryl_if_wr(nif, reg[arm][type], v);
}

static uint32_t qsel_word(enum beryl_qtype type, unsigned idx)
{
	return ((uint32_t)type << BERYL_NIC_IF_Q_SEL_TYPE_LSB & BERYL_NIC_IF_Q_SEL_TYPE_MASK) |
	       (idx << BERYL_NIC_IF_Q_SEL_QUEUE_LSB & BERYL_NIC_IF_Q_SEL_QUEUE_MASK);
}

static struct beryl_access rd(struct beryl_if *nif, uint32_t reg)
{
	return (struct beryl_access){ .off = nif->base + reg };
}

static struct beryl_access wr(struct beryl_if *nif, uint32_t reg, uint32_t val)
{
	return (struct beryl_access){ .off = nif->base + reg, .val = val, .write = true };
}

static int refused(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint32_t status, const char *what)
{
	if (status & BERYL_NIC_IF_Q_STATUS_ERR_MASK)
		return beryl_fail(-EIO, "%s %u of interface %u: %s refused by the device",
				  beryl_qtype_name(type), idx, nif->p.if_index, what);
	return 0;
}

int beryl_queue_ctrl(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint32_t *ctrl)
{
	struct beryl_access a[3];
	int err = check_queue(nif, type, idx);

	if (err)
		return err;
	a[0] = wr(nif, BERYL_NIC_IF_Q_SEL_OFFSET, qsel_word(type, idx));
	a[1] = rd(nif, BERYL_NIC_IF_Q_CTRL_OFFSET);
	a[2] = rd(nif, BERYL_NIC_IF_Q_STATUS_OFFSET);
	err = beryl_access_batch(nif->dev, a, 3);
	*ctrl = a[1].val;
	return err ? err : refused(nif, type, idx, a[2].val, "queue read");
}

int beryl_queue_ctrl_all(struct beryl_if *nif, enum beryl_qtype type, uint32_t *ctrl)
{
	unsigned n = beryl_queue_count(nif, type);
	struct beryl_access *a = calloc(3 * (size_t)n + 1, sizeof(*a));
	int err = 0;

	if (!a)
		return -ENOMEM;
	for (unsigned q = 0; q < n; q++) {
		a[3 * q] = wr(nif, BERYL_NIC_IF_Q_SEL_OFFSET, qsel_word(type, q));
		a[3 * q + 1] = rd(nif, BERYL_NIC_IF_Q_CTRL_OFFSET);
		a[3 * q + 2] = rd(nif, BERYL_NIC_IF_Q_STATUS_OFFSET);
	}
	err = beryl_access_batch(nif->dev, a, 3 * n);
	for (unsigned q = 0; q < n && !err; q++) {
		ctrl[q] = a[3 * q + 1].val;
		err = refused(nif, type, q, a[3 * q + 2].val, "queue read");
	}
	free(a);
	return err;
}

int beryl_queue_read(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, struct beryl_queue_state *q)
{
	static const uint32_t regs[] = {
		BERYL_NIC_IF_Q_BASE_LO_OFFSET, BERYL_NIC_IF_Q_BASE_HI_OFFSET, BERYL_NIC_IF_Q_CTRL_OFFSET,
		BERYL_NIC_IF_Q_TARGET_OFFSET, BERYL_NIC_IF_Q_PROD_OFFSET, BERYL_NIC_IF_Q_CONS_OFFSET,
		BERYL_NIC_IF_Q_STATUS_OFFSET,
	};
	struct beryl_access a[8];
	int err = check_queue(nif, type, idx);

	if (err)
		return err;
	a[0] = wr(nif, BERYL_NIC_IF_Q_SEL_OFFSET, qsel_word(type, idx));
	for (int i = 0; i < 7; i++)
		a[i + 1] = rd(nif, regs[i]);
	err = beryl_access_batch(nif->dev, a, 8);
	if (!err)
		err = refused(nif, type, idx, a[7].val, "queue read");
	if (err)
		return err;
	q->base = (uint64_t)a[2].val << 32 | a[1].val;
	q->ctrl = a[3].val;
	q->target = a[4].val;
	q->prod = (uint16_t)((a[5].val & BERYL_NIC_IF_Q_PROD_PTR_MASK) >> BERYL_NIC_IF_Q_PROD_PTR_LSB);
	q->cons = (uint16_t)((a[6].val & BERYL_NIC_IF_Q_CONS_PTR_MASK) >> BERYL_NIC_IF_Q_CONS_PTR_LSB);
	q->enable = q->ctrl & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK;
	q->armed = q->ctrl & BERYL_NIC_IF_Q_CTRL_ARMED_MASK;
	q->log_size = (q->ctrl & BERYL_NIC_IF_Q_CTRL_LOG_SIZE_MASK) >> BERYL_NIC_IF_Q_CTRL_LOG_SIZE_LSB;
	q->port = (q->ctrl & BERYL_NIC_IF_Q_CTRL_PORT_MASK) >> BERYL_NIC_IF_Q_CTRL_PORT_LSB;
	return 0;
}

int beryl_queue_stats(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, struct beryl_queue_stats *s)
{
	struct beryl_access a[8];
	int err;

	if (type != BERYL_TXQ && type != BERYL_RXQ)
		return beryl_fail(-EINVAL, "statistics exist for TX and RX queues only, not %s",
				  beryl_qtype_name(type));
	err = check_queue(nif, type, idx);
	if (err)
		return err;
	a[0] = wr(nif, BERYL_NIC_IF_Q_SEL_OFFSET, qsel_word(type, idx));
	/* the PKTS_LO read takes the snapshot the other five words return */
	a[1] = rd(nif, BERYL_NIC_IF_Q_STAT_PKTS_LO_OFFSET);
	a[2] = rd(nif, BERYL_NIC_IF_Q_STATUS_OFFSET);
	a[3] = rd(nif, BERYL_NIC_IF_Q_STAT_PKTS_HI_OFFSET);
	a[4] = rd(nif, BERYL_NIC_IF_Q_STAT_BYTES_LO_OFFSET);
	a[5] = rd(nif, BERYL_NIC_IF_Q_STAT_BYTES_HI_OFFSET);
	a[6] = rd(nif, BERYL_NIC_IF_Q_STAT_DROPS_LO_OFFSET);
	a[7] = rd(nif, BERYL_NIC_IF_Q_STAT_DROPS_HI_OFFSET);
	err = beryl_access_batch(nif->dev, a, 8);
	if (!err)
		err = refused(nif, type, idx, a[2].val, "statistics read");
	if (err)
		return err;
	s->packets = (uint64_t)a[3].val << 32 | a[1].val;
	s->bytes = (uint64_t)a[5].val << 32 | a[4].val;
	s->drops = (uint64_t)a[7].val << 32 | a[6].val;
	return 0;
}
