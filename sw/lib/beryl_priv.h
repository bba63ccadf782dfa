/* SPDX-License-Identifier: MIT */
/* libberyl internals: device, interface and ring objects shared by the library's files. */
#ifndef BERYL_PRIV_H
#define BERYL_PRIV_H

#include "beryl.h"
#include "beryl_regs.h"

#define BERYL_DESC_BYTES 16u
#define BERYL_CPL_BYTES 32u
#define BERYL_TX_FLAG_MORE 0x1u
#define BERYL_TX_FLAG_CSUM 0x2u

/* Record a detailed message for beryl_errmsg() and return err (negative errno). */
int beryl_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A ring in DMA memory: 2^log_size entries of stride bytes, 16-bit free-running pointers. */
struct beryl_ring {
	struct beryl_dma_buf mem;
	struct beryl_dma_buf bufs;      /* descriptor rings: one buffer per slot, buf_size each */
	uint8_t *ndesc;                 /* TX: descriptors of the packet starting at a slot */
	unsigned log_size, size, stride, buf_size, index, cq;
	uint16_t prod, cons;
	/* TX: the last packet to complete, if it completed with an error: first index, descriptors
	 * (fail_ndesc 0: the last one completed OK, or none yet); tx.c, take_tx */
	uint16_t fail_start;
	uint8_t fail_ndesc;
};

struct beryl_if {
	struct beryl_dev *dev;
	uint32_t base, version;
	struct beryl_if_params p;
	bool started, irq;
	int vector;
	unsigned txq_count, rxq_count;
	struct beryl_ring *txq, *rxq, *cq;    /* arrays; cq has txq_count + rxq_count entries */
	struct beryl_ring eq;
};

struct beryl_dev {
	struct beryl_transport *t;
	struct beryl_identity id;
	struct beryl_block *blocks;
	unsigned nblocks;
	struct beryl_if *ifs;
	unsigned nifs;
	int pcie_base;                  /* BAR0 offset of the PCIe block (DMA counters), or -1 */
	int ptp_base;                   /* BAR0 offset of the PTP clock block, or -1 */
	uint64_t ptp_nom_incr;          /* its nominal increment, 2^-32 ns */
};

/* PTP clock block at BAR0 offset `base`: read its build parameters (ptp.c) */
int beryl_ptp_load(struct beryl_dev *dev, uint32_t base);

/* registers of an interface block */
int beryl_if_rd(struct beryl_if *nif, uint32_t reg, uint32_t *val);
int beryl_if_wr(struct beryl_if *nif, uint32_t reg, uint32_t val);
int beryl_q_select(struct beryl_if *nif, enum beryl_qtype type, unsigned idx);
int beryl_q_write(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint32_t reg, uint32_t val);
int beryl_doorbell(struct beryl_if *nif, enum beryl_qtype type, unsigned idx, uint16_t ptr, bool arm);

int beryl_rx_refill(struct beryl_if *nif, unsigned rxq);

/* rings (ring.c) */
int beryl_ring_alloc(struct beryl_if *nif, struct beryl_ring *r, unsigned log_size, unsigned stride,
		     unsigned buf_size);
void beryl_ring_free(struct beryl_if *nif, struct beryl_ring *r);
unsigned beryl_ring_slot(const struct beryl_ring *r, uint16_t ptr);
unsigned beryl_ring_free_slots(const struct beryl_ring *r);
/* The completion/event entry at cons if the device wrote it (phase bit), else NULL. */
const uint8_t *beryl_ring_entry_ready(const struct beryl_ring *r);
void beryl_cpl_parse(const uint8_t *e, struct beryl_cpl *c);

/* little-endian access to host-memory structures */
static inline void beryl_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void beryl_put32(uint8_t *p, uint32_t v)
{
	beryl_put16(p, (uint16_t)v);
	beryl_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void beryl_put64(uint8_t *p, uint64_t v)
{
	beryl_put32(p, (uint32_t)v);
	beryl_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t beryl_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t beryl_get32(const uint8_t *p)
{
	return beryl_get16(p) | (uint32_t)beryl_get16(p + 2) << 16;
}

static inline uint64_t beryl_get64(const uint8_t *p)
{
	return beryl_get32(p) | (uint64_t)beryl_get32(p + 4) << 32;
}

#endif /* BERYL_PRIV_H */
