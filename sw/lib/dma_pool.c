// SPDX-License-Identifier: MIT
/* First-fit allocator of DMA memory over one window (free list sorted by offset, merged on free). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "beryl_priv.h"
#include "beryl_transport.h"

struct free_range {
	size_t off, size;
	struct free_range *next;
};

struct beryl_dma_pool {
	uint8_t *va;
	uint64_t bus;
	size_t size, in_use;
	struct free_range *free;
};

int beryl_dma_pool_create(void *va, uint64_t bus, size_t size, struct beryl_dma_pool **out)
{
	struct beryl_dma_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->free = calloc(1, sizeof(*p->free));
	if (!p->free) {
		free(p);
		return -ENOMEM;
	}
	p->va = va;
	p->bus = bus;
	p->size = size;
	p->free->size = size;
	*out = p;
	return 0;
}

int beryl_dma_pool_alloc(struct beryl_dma_pool *p, size_t size, size_t align, struct beryl_dma_buf *buf)
{
	struct free_range **link, *r;

	if (!size)
		size = 1;
	if (align < 64)
		align = 64;
	if (align & (align - 1))
		return beryl_fail(-EINVAL, "DMA alignment %zu is not a power of two", align);
	size = (size + 63) & ~(size_t)63;
	for (link = &p->free; (r = *link); link = &r->next) {
		/* align the bus address (the window base may be aligned less than align) */
		size_t start = (size_t)(((p->bus + r->off + align - 1) & ~(uint64_t)(align - 1)) - p->bus);
		size_t pad = start - r->off;

		if (pad + size > r->size)
			continue;
		if (pad) {
			/* keep the gap in front as its own free range */
			struct free_range *tail = malloc(sizeof(*tail));

			if (!tail)
				return -ENOMEM;
			tail->off = start;
			tail->size = r->size - pad;
			tail->next = r->next;
			r->size = pad;
			r->next = tail;
			link = &r->next;
			r = tail;
		}
		r->off += size;
		r->size -= size;
		if (!r->size) {
			*link = r->next;
			free(r);
		}
		buf->va = p->va + start;
		buf->bus = p->bus + start;
		buf->size = size;
		memset(buf->va, 0, size);
		p->in_use += size;
		return 0;
	}
	return beryl_fail(-ENOMEM, "DMA memory exhausted: %zu bytes wanted, %zu of %zu in use",
			  size, p->in_use, p->size);
}

void beryl_dma_pool_free(struct beryl_dma_pool *p, struct beryl_dma_buf *buf)
{
	struct free_range **link = &p->free, *r, *n;
	size_t off;

	if (!buf->va)
		return;
	off = (size_t)((uint8_t *)buf->va - p->va);
	while (*link && (*link)->off < off)
		link = &(*link)->next;
	n = malloc(sizeof(*n));
	if (!n)
		return;   /* leaks the range, never the bookkeeping */
	n->off = off;
	n->size = buf->size;
	n->next = *link;
	*link = n;
	p->in_use -= buf->size;
	/* merge with the following range, then with the previous one */
	if (n->next && n->off + n->size == n->next->off) {
		r = n->next;
		n->size += r->size;
		n->next = r->next;
		free(r);
	}
	for (r = p->free; r && r != n; r = r->next) {
		if (r->next == n && r->off + r->size == n->off) {
			r->size += n->size;
			r->next = n->next;
			free(n);
			break;
		}
	}
	memset(buf, 0, sizeof(*buf));
}

size_t beryl_dma_pool_in_use(const struct beryl_dma_pool *p)
{
	return p->in_use;
}

void beryl_dma_pool_destroy(struct beryl_dma_pool *p)
{
	struct free_range *r, *n;

	if (!p)
		return;
	for (r = p->free; r; r = n) {
		n = r->next;
		free(r);
	}
	free(p);
}
