// SPDX-License-Identifier: MIT
/* Receive: completions name the ring slot whose buffer holds the frame; events for interrupt mode. */
#include <errno.h>

#include "beryl_priv.h"

/* Frames from RX queue rxq's completions into pkts (up to max); *taken = completion entries used. */
static unsigned take_rx(struct beryl_if *nif, struct beryl_ring *r, unsigned rxq, struct beryl_rx_pkt *pkts,
			unsigned max, unsigned *taken)
{
	struct beryl_ring *cq = &nif->cq[r->cq];
	uint16_t start = cq->cons;
	const uint8_t *e;
	unsigned n = 0;

	while (n < max && (e = beryl_ring_entry_ready(cq))) {
		struct beryl_rx_pkt *pk = &pkts[n];
		unsigned slot;

		beryl_cpl_parse(e, &pk->cpl);
		cq->cons++;
		/* a completion outside the posted descriptors is stale (a previous driver's): skip it */
		if ((uint16_t)(pk->cpl.index - r->cons) >= (uint16_t)(r->prod - r->cons))
			continue;
		r->cons = (uint16_t)(pk->cpl.index + 1);
		/* a prefetched descriptor handed back unused: its buffer is simply posted again */
		if (pk->cpl.status == BERYL_CPL_UNUSED)
			continue;
		n++;
		slot = beryl_ring_slot(r, pk->cpl.index);
		pk->rxq = rxq;
		pk->data = (const uint8_t *)r->bufs.va + (size_t)slot * r->buf_size;
		pk->len = pk->cpl.status == BERYL_CPL_OK ? pk->cpl.len : 0;
		if (pk->len > r->buf_size)
			pk->len = r->buf_size;
	}
	*taken = (uint16_t)(cq->cons - start);
	return n;
}

int beryl_rx_poll(struct beryl_if *nif, unsigned rxq, struct beryl_rx_pkt *pkts, unsigned max)
{
	struct beryl_ring *r;
	unsigned total = 0;
	int err;

	if (!nif->started)
		return beryl_fail(-ENOTCONN, "interface %u is not started", nif->p.if_index);
	if (rxq >= nif->rxq_count)
		return beryl_fail(-ERANGE, "RX queue %u out of range (%u opened)", rxq, nif->rxq_count);
	r = &nif->rxq[rxq];
	/* the buffers handed out by the previous call go back to the device */
	err = beryl_rx_refill(nif, rxq);
	if (err)
		return err;
	while (total < max) {
		unsigned taken, n = take_rx(nif, r, rxq, pkts + total, max - total, &taken);

		if (!taken)
			break;
		total += n;
		/* free the CQ space, re-arm, then look again (an entry may have come before the arm) */
		err = beryl_doorbell(nif, BERYL_CQ, r->cq, nif->cq[r->cq].cons, nif->irq);
		if (err)
			return err;
	}
	return (int)total;
}

int beryl_if_events(struct beryl_if *nif)
{
	struct beryl_ring *eq = &nif->eq;
	int n = 0;

	if (!nif->started)
		return beryl_fail(-ENOTCONN, "interface %u is not started", nif->p.if_index);
	while (beryl_ring_entry_ready(eq)) {
		eq->cons++;
		n++;
	}
	if (n || nif->irq) {
		int err = beryl_doorbell(nif, BERYL_EQ, 0, eq->cons, nif->irq);

		if (err)
			return err;
	}
	return n;
}
