// SPDX-License-Identifier: MIT
/* Rings in DMA memory: allocation, slots, phase-bit ownership of completion and event entries. */
#include <errno.h>
#include <stdlib.h>

#include "beryl_priv.h"

int beryl_ring_alloc(struct beryl_if *nif, struct beryl_ring *r, unsigned log_size, unsigned stride,
		     unsigned buf_size)
{
	struct beryl_transport *t = nif->dev->t;
	size_t bytes = ((size_t)stride) << log_size;
	/* base aligned to the ring's byte size or 4 KiB, whichever is smaller (nic_core.md) */
	size_t align = bytes < 4096 ? bytes : 4096;
	int err;

	r->log_size = log_size;
	r->size = 1u << log_size;
	r->stride = stride;
	r->buf_size = buf_size;
	r->prod = r->cons = 0;
	r->fail_start = 0;
	r->fail_ndesc = 0;
	err = t->ops->dma_alloc(t, bytes, align, &r->mem);
	if (err)
		return err;
	if (buf_size) {
		err = t->ops->dma_alloc(t, (size_t)buf_size << log_size, 64, &r->bufs);
		if (err)
			return err;
	}
	return 0;
}

void beryl_ring_free(struct beryl_if *nif, struct beryl_ring *r)
{
	struct beryl_transport *t = nif->dev->t;

	if (r->mem.va)
		t->ops->dma_free(t, &r->mem);
	if (r->bufs.va)
		t->ops->dma_free(t, &r->bufs);
	free(r->ndesc);
	r->ndesc = NULL;
}

unsigned beryl_ring_slot(const struct beryl_ring *r, uint16_t ptr)
{
	return ptr & (r->size - 1);
}

unsigned beryl_ring_free_slots(const struct beryl_ring *r)
{
	return r->size - (uint16_t)(r->prod - r->cons);
}

const uint8_t *beryl_ring_entry_ready(const struct beryl_ring *r)
{
	const volatile uint8_t *e = (const uint8_t *)r->mem.va + beryl_ring_slot(r, r->cons) * r->stride;
	unsigned want = 1u ^ ((r->cons >> r->log_size) & 1u);

	if ((e[r->stride - 1] >> 7) != want)
		return NULL;
	/* the device wrote the entry before its phase byte became visible: read the rest after */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (const uint8_t *)e;
}

void beryl_cpl_parse(const uint8_t *e, struct beryl_cpl *c)
{
	c->queue = beryl_get16(e);
	c->index = beryl_get16(e + 2);
	c->port = e[4];
	c->status = e[5];
	c->hash_type = e[6] & 7;
	c->flags = e[7];
	c->rss_hash = beryl_get32(e + 8);
	c->csum = beryl_get16(e + 12);
	c->len = beryl_get16(e + 14);
	c->timestamp = beryl_get64(e + 16);
}
