// SPDX-License-Identifier: MIT
/* Transmit: frames copied into per-slot buffers, one or more descriptors each, producer doorbell;
 * completions free a packet's descriptors. */
#include <errno.h>
#include <string.h>

#include "beryl_priv.h"

static int check_txq(struct beryl_if *nif, unsigned txq)
{
	if (!nif->started)
		return beryl_fail(-ENOTCONN, "interface %u is not started", nif->p.if_index);
	if (txq >= nif->txq_count)
		return beryl_fail(-ERANGE, "TX queue %u out of range (%u opened)", txq, nif->txq_count);
	return 0;
}

/*
 * A TX completion names the first descriptor of a packet sent, with one exception: when a descriptor
 * fetch fails for good, the TX engine completes each descriptor of the failed batch at its own index
 * and then skips the rest of a packet the batch cut, completing that run once at its first index
 * (docs/blocks/nic_core.md, "Failed TX descriptor reads"). Those extra completions carry an error
 * status and lie inside a packet that has just completed with an error: completions come in ring
 * order, so inside the last packet of this queue to complete, and before any later packet's. Such a
 * completion (status not OK, index in (fail_start, fail_start + fail_ndesc) modulo 2^16, no packet
 * completed since) is consumed: its CQ entry is taken, it frees nothing (cons stays after that packet)
 * and the caller does not see it. Any other completion that names no packet's first descriptor (an OK
 * one inside a failed packet, anything inside a packet that completed OK or has not completed) is a
 * device or driver bug: -EIO, and the entry stays.
 */
static bool inside_failed(const struct beryl_ring *r, const struct beryl_cpl *c)
{
	uint16_t off = (uint16_t)(c->index - r->fail_start);

	return c->status != BERYL_CPL_OK && off > 0 && off < r->fail_ndesc;
}

/* Take ready completions of TX ring r: up to max packets into cpl (if not NULL); returns the packets,
 * *taken the CQ entries consumed (packets and completions inside a failed packet). */
static unsigned take_tx(struct beryl_if *nif, struct beryl_ring *r, struct beryl_cpl *cpl, unsigned max,
			unsigned *taken, int *err)
{
	struct beryl_ring *cq = &nif->cq[r->cq];
	const uint8_t *e;
	unsigned n = 0;

	*taken = 0;
	while ((!cpl || n < max) && (e = beryl_ring_entry_ready(cq))) {
		struct beryl_cpl c;
		unsigned slot;

		beryl_cpl_parse(e, &c);
		/* checked first: the slots of the failed packet may already hold the next lap's packets */
		if (inside_failed(r, &c)) {
			cq->cons++;
			(*taken)++;
			continue;
		}
		slot = beryl_ring_slot(r, c.index);
		if (!r->ndesc[slot]) {
			*err = beryl_fail(-EIO, "TX completion on queue %u for index %u (status %u) matches no "
					  "packet sent", r->index, c.index, c.status);
			return n;
		}
		r->fail_start = c.index;
		r->fail_ndesc = c.status != BERYL_CPL_OK ? r->ndesc[slot] : 0;
		r->cons = (uint16_t)(c.index + r->ndesc[slot]);
		r->ndesc[slot] = 0;
		cq->cons++;
		(*taken)++;
		if (cpl)
			cpl[n] = c;
		n++;
	}
	return n;
}

int beryl_tx_complete(struct beryl_if *nif, unsigned txq, struct beryl_cpl *cpl, unsigned max)
{
	struct beryl_ring *r;
	unsigned total = 0;
	int err = check_txq(nif, txq);

	if (err)
		return err;
	r = &nif->txq[txq];
	for (;;) {
		unsigned taken, n = take_tx(nif, r, cpl ? cpl + total : NULL, max - total, &taken, &err);

		total += n;
		if (taken) {
			/* free the CQ space, re-arm; then look again: an entry may have come before the arm */
			int e2 = beryl_doorbell(nif, BERYL_CQ, r->cq, nif->cq[r->cq].cons, nif->irq);

			err = err ? err : e2;
		}
		if (err)
			return err;
		if (!taken || (cpl && total == max))
			return (int)total;
	}
}

unsigned beryl_tx_pending(const struct beryl_if *nif, unsigned txq)
{
	if (!nif->started || txq >= nif->txq_count)
		return 0;
	return (uint16_t)(nif->txq[txq].prod - nif->txq[txq].cons);
}

int beryl_tx_flush(struct beryl_if *nif, unsigned txq)
{
	int err = check_txq(nif, txq);

	if (err)
		return err;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return beryl_doorbell(nif, BERYL_TXQ, txq, nif->txq[txq].prod, false);
}

int beryl_tx_send(struct beryl_if *nif, unsigned txq, const struct iovec *iov, unsigned iovcnt,
		  const struct beryl_tx_csum *csum, unsigned flags)
{
	struct beryl_ring *r;
	size_t total = 0, ndesc = 0;
	uint16_t first;
	bool head = true;
	int err = check_txq(nif, txq);

	if (err)
		return err;
	r = &nif->txq[txq];
	for (unsigned i = 0; i < iovcnt; i++) {
		total += iov[i].iov_len;
		ndesc += (iov[i].iov_len + r->buf_size - 1) / r->buf_size;
	}
	if (!total)
		return beryl_fail(-EINVAL, "empty frame");
	if (total > nif->p.max_frame)
		return beryl_fail(-EMSGSIZE, "frame of %zu bytes exceeds MAX_FRAME %u", total, nif->p.max_frame);
	if (ndesc > nif->p.max_desc_per_pkt || ndesc > r->size)
		return beryl_fail(-EMSGSIZE, "frame needs %zu descriptors of at most %u bytes; the device takes "
				  "%u per packet, the ring holds %u", ndesc, r->buf_size, nif->p.max_desc_per_pkt,
				  r->size);
	if (csum) {
		if (!(nif->p.features & BERYL_NIC_IF_FEATURES_TX_CSUM_MASK))
			return beryl_fail(-EOPNOTSUPP, "this build has no TX checksum offload");
		if ((size_t)csum->start + csum->offset + 2 > total)
			return beryl_fail(-EINVAL, "checksum field %u+%u lies outside the %zu-byte frame",
					  csum->start, csum->offset, total);
	}
	if (beryl_ring_free_slots(r) < ndesc) {
		err = beryl_tx_complete(nif, txq, NULL, 0);
		if (err < 0)
			return err;
		if (beryl_ring_free_slots(r) < ndesc)
			return -EAGAIN;
	}
	first = r->prod;
	for (unsigned i = 0; i < iovcnt; i++) {
		const uint8_t *src = iov[i].iov_base;
		size_t left = iov[i].iov_len;

		while (left) {
			unsigned slot = beryl_ring_slot(r, r->prod);
			uint8_t *d = (uint8_t *)r->mem.va + slot * BERYL_DESC_BYTES;
			size_t seg = left < r->buf_size ? left : r->buf_size;
			uint16_t fl = 0;

			memcpy((uint8_t *)r->bufs.va + (size_t)slot * r->buf_size, src, seg);
			src += seg;
			left -= seg;
			ndesc--;
			if (ndesc)
				fl |= BERYL_TX_FLAG_MORE;
			if (head && csum)
				fl |= BERYL_TX_FLAG_CSUM;
			beryl_put64(d, r->bufs.bus + (uint64_t)slot * r->buf_size);
			beryl_put32(d + 8, (uint32_t)seg);
			beryl_put16(d + 12, fl);
			d[14] = head && csum ? csum->start : 0;
			d[15] = head && csum ? csum->offset : 0;
			head = false;
			r->prod++;
		}
	}
	r->ndesc[beryl_ring_slot(r, first)] = (uint8_t)(uint16_t)(r->prod - first);
	if (flags & BERYL_TX_NO_DOORBELL)
		return first;
	err = beryl_tx_flush(nif, txq);
	return err ? err : first;
}
