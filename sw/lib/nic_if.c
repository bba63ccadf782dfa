// SPDX-License-Identifier: MIT
/* NIC interface bring-up and tear-down: rings, queue programming, buffer posting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beryl_priv.h"

const struct beryl_if_params *beryl_if_params(const struct beryl_if *nif)
{
	return &nif->p;
}

uint32_t beryl_if_offset(const struct beryl_if *nif)
{
	return nif->base;
}

uint32_t beryl_if_version(const struct beryl_if *nif)
{
	return nif->version;
}

bool beryl_if_started(const struct beryl_if *nif)
{
	return nif->started;
}

unsigned beryl_if_txq_count(const struct beryl_if *nif)
{
	return nif->txq_count;
}

unsigned beryl_if_rxq_count(const struct beryl_if *nif)
{
	return nif->rxq_count;
}

bool beryl_if_irq_mode(const struct beryl_if *nif)
{
	return nif->irq;
}

int beryl_if_vector(const struct beryl_if *nif)
{
	return nif->vector;
}

static uint32_t ctrl_word(const struct beryl_ring *r, unsigned port, bool armed, bool enable)
{
	return ((uint32_t)r->log_size << BERYL_NIC_IF_Q_CTRL_LOG_SIZE_LSB & BERYL_NIC_IF_Q_CTRL_LOG_SIZE_MASK) |
	       ((uint32_t)port << BERYL_NIC_IF_Q_CTRL_PORT_LSB & BERYL_NIC_IF_Q_CTRL_PORT_MASK) |
	       (armed ? BERYL_NIC_IF_Q_CTRL_ARMED_MASK : 0) | (enable ? BERYL_NIC_IF_Q_CTRL_ENABLE_MASK : 0);
}

/*
 * Program one queue in one batch of accesses: disabled, base/size/target/pointers, enabled, then
 * Q_STATUS (which reports the last access only) and the base read back. A queue left enabled with
 * another size by a driver that did not stop refuses the first write: disable it and start over.
 */
static int setup_queue(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, struct beryl_ring *r,
		       uint32_t target, unsigned port, bool armed)
{
	const uint32_t base = nif->base;
	struct beryl_access a[12];
	unsigned n = 0;
	int err;

	r->index = idx;
#define W(reg, v) (a[n++] = (struct beryl_access){ .off = base + (reg), .val = (v), .write = true })
#define R(reg) (a[n++] = (struct beryl_access){ .off = base + (reg) })
	W(BERYL_NIC_IF_Q_SEL_OFFSET, ((uint32_t)type << BERYL_NIC_IF_Q_SEL_TYPE_LSB & BERYL_NIC_IF_Q_SEL_TYPE_MASK) |
	  (idx << BERYL_NIC_IF_Q_SEL_QUEUE_LSB & BERYL_NIC_IF_Q_SEL_QUEUE_MASK));
	W(BERYL_NIC_IF_Q_CTRL_OFFSET, 0);
	R(BERYL_NIC_IF_Q_STATUS_OFFSET);                                  /* a[2] */
	W(BERYL_NIC_IF_Q_BASE_LO_OFFSET, (uint32_t)r->mem.bus);
	W(BERYL_NIC_IF_Q_BASE_HI_OFFSET, (uint32_t)(r->mem.bus >> 32));
	W(BERYL_NIC_IF_Q_CTRL_OFFSET, ctrl_word(r, port, false, false));
	W(BERYL_NIC_IF_Q_TARGET_OFFSET, target);
	W(BERYL_NIC_IF_Q_PROD_OFFSET, 0);
	W(BERYL_NIC_IF_Q_CONS_OFFSET, 0);
	W(BERYL_NIC_IF_Q_CTRL_OFFSET, ctrl_word(r, port, armed, true));
	R(BERYL_NIC_IF_Q_STATUS_OFFSET);                                  /* a[10] */
	R(BERYL_NIC_IF_Q_BASE_LO_OFFSET);                                 /* a[11] */
#undef W
#undef R
	err = beryl_access_batch(nif->dev, a, n);
	if (err)
		return err;
	if (a[2].val & BERYL_NIC_IF_Q_STATUS_ERR_MASK) {
		uint32_t ctrl;

		err = beryl_if_rd(nif, BERYL_NIC_IF_Q_CTRL_OFFSET, &ctrl);
		if (!err)
			err = beryl_q_write(nif, type, idx, BERYL_NIC_IF_Q_CTRL_OFFSET,
					    ctrl & ~(BERYL_NIC_IF_Q_CTRL_ENABLE_MASK | BERYL_NIC_IF_Q_CTRL_ARMED_MASK));
		if (err)
			return err;
		err = beryl_access_batch(nif->dev, a, n);   /* now disabled: the sequence goes through */
		if (err)
			return err;
		if (a[2].val & BERYL_NIC_IF_Q_STATUS_ERR_MASK)
			return beryl_fail(-EIO, "%s %u of interface %u: cannot disable the queue",
					  beryl_qtype_name(type), idx, nif->p.if_index);
	}
	if (a[10].val & BERYL_NIC_IF_Q_STATUS_ERR_MASK || a[11].val != (uint32_t)r->mem.bus)
		return beryl_fail(-EIO, "%s %u of interface %u: setup refused by the device (base reads 0x%08x)",
				  beryl_qtype_name(type), idx, nif->p.if_index, a[11].val);
	return 0;
}

/*
 * Wait until the interface is quiet: its counters and the device's DMA counters read the same
 * three times in a row (frames in flight retire, unused RX descriptors come back). Only simulated
 * or real device time drains the pipeline; each batch of reads gives it some.
 */
static void drain(struct beryl_if *nif)
{
	struct beryl_counter c[32];
	struct beryl_access a[34];
	uint32_t prev[34];
	unsigned nc = beryl_if_counter_count(), n, stable = 0;

	if (nc > 32)
		nc = 32;
	for (int round = 0; round < 100 && stable < 3; round++) {
		const struct timespec ts = { 0, 2000000 };
		int k = beryl_if_counters(nif, c, nc);

		n = 0;
		if (nif->dev->pcie_base >= 0) {
			a[0] = (struct beryl_access){ .off = (uint32_t)nif->dev->pcie_base +
							     BERYL_PCIE_DMA_RD_DESC_COUNT_OFFSET };
			a[1] = (struct beryl_access){ .off = (uint32_t)nif->dev->pcie_base +
							     BERYL_PCIE_DMA_WR_DESC_COUNT_OFFSET };
			n = beryl_access_batch(nif->dev, a, 2) ? 0 : 2;
		}
		if (k < 0)
			return;
		for (int i = 0; i < k; i++)
			a[n++].val = c[i].value;
		bool same = round > 0;

		for (unsigned i = 0; i < n; i++) {
			same = same && prev[i] == a[i].val;
			prev[i] = a[i].val;
		}
		stable = same ? stable + 1 : 0;
		nanosleep(&ts, NULL);
	}
}

/* Disable every enabled queue of a type (a previous driver may have left them running). */
static int disable_enabled(struct beryl_if *nif, enum beryl_qtype type, unsigned *found)
{
	unsigned n = beryl_queue_count(nif, type), k = 0;
	uint32_t *ctrl = calloc(n ? n : 1, sizeof(*ctrl));
	struct beryl_access *a = calloc(2 * (size_t)n + 1, sizeof(*a));
	int err = ctrl && a ? beryl_queue_ctrl_all(nif, type, ctrl) : -ENOMEM;

	for (unsigned q = 0; q < n && !err; q++) {
		if (!(ctrl[q] & BERYL_NIC_IF_Q_CTRL_ENABLE_MASK))
			continue;
		a[k++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_Q_SEL_OFFSET, .write = true,
						.val = ((uint32_t)type << BERYL_NIC_IF_Q_SEL_TYPE_LSB) | q };
		a[k++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_Q_CTRL_OFFSET, .write = true,
						.val = ctrl[q] & ~(BERYL_NIC_IF_Q_CTRL_ENABLE_MASK |
								   BERYL_NIC_IF_Q_CTRL_ARMED_MASK) };
	}
	if (!err && k)
		err = beryl_access_batch(nif->dev, a, k);
	*found += k / 2;
	free(ctrl);
	free(a);
	return err;
}

/* Stop whatever a previous driver left running before reusing the queues and host memory. */
static int quiesce(struct beryl_if *nif)
{
	unsigned found = 0;
	int err = disable_enabled(nif, BERYL_TXQ, &found);

	if (!err)
		err = disable_enabled(nif, BERYL_RXQ, &found);
	if (!err && found)
		drain(nif);
	if (!err)
		err = disable_enabled(nif, BERYL_CQ, &found);
	if (!err)
		err = disable_enabled(nif, BERYL_EQ, &found);
	return err;
}

static void disable_queue(struct beryl_if *nif, enum beryl_qtype type, struct beryl_ring *r)
{
	/* best effort: the device may be gone; keep size and port, clear enable and armed */
	if (r->mem.va && !beryl_q_select(nif, type, r->index))
		beryl_if_wr(nif, BERYL_NIC_IF_Q_CTRL_OFFSET, ctrl_word(r, 0, false, false));
}

/* Post empty buffers to every free slot of RX queue j. */
int beryl_rx_refill(struct beryl_if *nif, unsigned j)
{
	struct beryl_ring *r = &nif->rxq[j];
	unsigned n = beryl_ring_free_slots(r);

	if (!n)
		return 0;
	while (n--) {
		unsigned slot = beryl_ring_slot(r, r->prod);
		uint8_t *d = (uint8_t *)r->mem.va + slot * BERYL_DESC_BYTES;

		beryl_put64(d, r->bufs.bus + (uint64_t)slot * r->buf_size);
		beryl_put32(d + 8, r->buf_size);
		beryl_put32(d + 12, 0);
		r->prod++;
	}
	/* descriptors visible before the doorbell */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return beryl_doorbell(nif, BERYL_RXQ, j, r->prod, false);
}

static int check_log(const char *what, unsigned log_size)
{
	if (log_size > BERYL_MAX_LOG_SIZE)
		return beryl_fail(-E2BIG, "%s ring of 2^%u entries is too large (at most 2^%u)", what, log_size,
				  BERYL_MAX_LOG_SIZE);
	return 0;
}

int beryl_if_start(struct beryl_if *nif, const struct beryl_if_config *cfg)
{
	struct beryl_if_config c = cfg ? *cfg : (struct beryl_if_config){ 0 };
	const struct beryl_if_params *p = &nif->p;
	unsigned eq_log, ncq;
	int err;

	if (nif->started)
		return beryl_fail(-EBUSY, "interface %u is already started", p->if_index);
	c.txq_count = c.txq_count ? c.txq_count : 1;
	c.rxq_count = c.rxq_count ? c.rxq_count : 1;
	c.tx_log_size = c.tx_log_size ? c.tx_log_size : 8;
	c.rx_log_size = c.rx_log_size ? c.rx_log_size : c.tx_log_size;
	c.tx_buf_size = c.tx_buf_size ? c.tx_buf_size : 2048;
	c.rx_buf_size = c.rx_buf_size ? c.rx_buf_size : 2048;
	if (c.vector < 0)
		c.vector = (int)p->if_index;
	if (c.txq_count > p->txq_count)
		return beryl_fail(-ERANGE, "%u TX queues asked for, interface %u has %u", c.txq_count,
				  p->if_index, p->txq_count);
	if (c.rxq_count > p->rxq_count)
		return beryl_fail(-ERANGE, "%u RX queues asked for, interface %u has %u", c.rxq_count,
				  p->if_index, p->rxq_count);
	ncq = c.txq_count + c.rxq_count;
	if (ncq > p->cq_count)
		return beryl_fail(-ERANGE, "%u TX + %u RX queues need %u completion queues, interface %u "
				  "has %u", c.txq_count, c.rxq_count, ncq, p->if_index, p->cq_count);
	err = check_log("TX", c.tx_log_size);
	if (!err)
		err = check_log("RX", c.rx_log_size);
	if (err)
		return err;
	if (c.tx_buf_size > 65535 || c.rx_buf_size > 65535)
		return beryl_fail(-EINVAL, "buffer sizes are at most 65535 bytes");
	if (c.irq && nif->dev->id.msix_vectors && (unsigned)c.vector >= nif->dev->id.msix_vectors)
		return beryl_fail(-ERANGE, "MSI-X vector %d out of range (the device has %u)", c.vector,
				  nif->dev->id.msix_vectors);
	for (unsigned i = 0; c.tx_ports && i < c.txq_count; i++)
		if (c.tx_ports[i] >= p->port_count)
			return beryl_fail(-ERANGE, "port %u of TX queue %u out of range (interface %u has %u)",
					  c.tx_ports[i], i, p->if_index, p->port_count);
	eq_log = (c.tx_log_size > c.rx_log_size ? c.tx_log_size : c.rx_log_size) + 1;
	/* an armed CQ raises one event at a time: room for one event per CQ, twice over */
	while ((1u << eq_log) < 2 * ncq)
		eq_log++;
	eq_log = eq_log > BERYL_MAX_LOG_SIZE ? BERYL_MAX_LOG_SIZE : eq_log;

	err = quiesce(nif);
	if (err)
		return err;
	nif->irq = c.irq;
	nif->vector = c.vector;
	nif->txq = calloc(c.txq_count, sizeof(*nif->txq));
	nif->rxq = calloc(c.rxq_count, sizeof(*nif->rxq));
	nif->cq = calloc(ncq, sizeof(*nif->cq));
	nif->started = true;   /* from here beryl_if_stop() undoes whatever was done */
	if (!nif->txq || !nif->rxq || !nif->cq) {
		err = -ENOMEM;
		goto fail;
	}
	nif->txq_count = c.txq_count;
	nif->rxq_count = c.rxq_count;
	err = beryl_ring_alloc(nif, &nif->eq, eq_log, BERYL_CPL_BYTES, 0);
	if (!err)
		err = setup_queue(nif, BERYL_EQ, 0, &nif->eq, (uint32_t)c.vector | c.irq_interval << 16, 0, c.irq);
	for (unsigned i = 0; i < c.txq_count && !err; i++) {
		unsigned port = c.tx_ports ? c.tx_ports[i] : i % p->port_count;
		struct beryl_ring *r = &nif->txq[i];

		err = beryl_ring_alloc(nif, &nif->cq[i], c.tx_log_size, BERYL_CPL_BYTES, 0);
		if (!err)
			err = setup_queue(nif, BERYL_CQ, i, &nif->cq[i], 0, 0, c.irq);
		if (!err)
			err = beryl_ring_alloc(nif, r, c.tx_log_size, BERYL_DESC_BYTES, c.tx_buf_size);
		if (!err) {
			r->cq = i;
			r->ndesc = calloc(r->size, 1);
			err = r->ndesc ? setup_queue(nif, BERYL_TXQ, i, r, i, port, false) : -ENOMEM;
		}
	}
	for (unsigned j = 0; j < c.rxq_count && !err; j++) {
		unsigned cqi = c.txq_count + j;
		struct beryl_ring *r = &nif->rxq[j];

		err = beryl_ring_alloc(nif, &nif->cq[cqi], c.rx_log_size, BERYL_CPL_BYTES, 0);
		if (!err)
			err = setup_queue(nif, BERYL_CQ, cqi, &nif->cq[cqi], 0, 0, c.irq);
		if (!err)
			err = beryl_ring_alloc(nif, r, c.rx_log_size, BERYL_DESC_BYTES, c.rx_buf_size);
		if (!err) {
			r->cq = cqi;
			err = setup_queue(nif, BERYL_RXQ, j, r, cqi, 0, false);
		}
		if (!err)
			err = beryl_rx_refill(nif, j);
	}
	if (!err)
		return 0;
fail:
	beryl_if_stop(nif);
	return err;
}

void beryl_if_stop(struct beryl_if *nif)
{
	unsigned ncq = nif->txq_count + nif->rxq_count;

	if (!nif->started)
		return;
	for (unsigned i = 0; nif->txq && i < nif->txq_count; i++)
		disable_queue(nif, BERYL_TXQ, &nif->txq[i]);
	for (unsigned j = 0; nif->rxq && j < nif->rxq_count; j++)
		disable_queue(nif, BERYL_RXQ, &nif->rxq[j]);
	/* let frames in flight retire before their completion queues and memory go away */
	drain(nif);
	for (unsigned k = 0; nif->cq && k < ncq; k++)
		disable_queue(nif, BERYL_CQ, &nif->cq[k]);
	disable_queue(nif, BERYL_EQ, &nif->eq);
	for (unsigned i = 0; nif->txq && i < nif->txq_count; i++)
		beryl_ring_free(nif, &nif->txq[i]);
	for (unsigned j = 0; nif->rxq && j < nif->rxq_count; j++)
		beryl_ring_free(nif, &nif->rxq[j]);
	for (unsigned k = 0; nif->cq && k < ncq; k++)
		beryl_ring_free(nif, &nif->cq[k]);
	beryl_ring_free(nif, &nif->eq);
	free(nif->txq);
	free(nif->rxq);
	free(nif->cq);
	nif->txq = nif->rxq = nif->cq = NULL;
	memset(&nif->eq, 0, sizeof(nif->eq));
	nif->txq_count = nif->rxq_count = 0;
	nif->started = false;
}
