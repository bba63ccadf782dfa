/* SPDX-License-Identifier: MIT */
/* For transport implementations: a DMA allocator over a window of host memory. */
#ifndef BERYL_TRANSPORT_H
#define BERYL_TRANSPORT_H

#include "beryl.h"

struct beryl_dma_pool;

/* Manage [va, va + size) seen by the device at bus address bus; allocations are zero-filled. */
int beryl_dma_pool_create(void *va, uint64_t bus, size_t size, struct beryl_dma_pool **out);
int beryl_dma_pool_alloc(struct beryl_dma_pool *pool, size_t size, size_t align,
			 struct beryl_dma_buf *buf);
void beryl_dma_pool_free(struct beryl_dma_pool *pool, struct beryl_dma_buf *buf);
size_t beryl_dma_pool_in_use(const struct beryl_dma_pool *pool);   /* bytes allocated */
void beryl_dma_pool_destroy(struct beryl_dma_pool *pool);

#endif /* BERYL_TRANSPORT_H */
