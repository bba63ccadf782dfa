/* SPDX-License-Identifier: MIT */
/*
 * A small fake Beryl device for tests: answers the register chain, the queue registers and RSS,
 * and moves frames: a TX doorbell sends the queue's packets at once to the peer interface
 * (interface i ^ 1, or itself with one interface), with completions, events and interrupts.
 * Optionally a PTP block (its build parameters only) and the ports' transmit-scheduler registers
 * (SCHED_*, TDMA_*) answering as rtl/nic/beryl_nic_port_sched.sv does, without time: no slot opens
 * and no counter moves unless a test says so (fake_dev_sched_observe).
 * The PCIe block's event counters (UNMAPPED_RD_COUNT at +0x28 to DMA_RD_CPL_DISCARDED_COUNT at +0x5c)
 * hold fixed distinct values, 1001 x their index from UNMAPPED_RD_COUNT (0, 1001, 2002, ... 13013),
 * whatever traffic there is; the other PCIe registers read 0.
 */
#ifndef FAKE_DEV_H
#define FAKE_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "beryl.h"

/* FAKE_SCHED_REFUSE: the schedulers refuse every SCHED_Q_CMD (ERR) whatever TX_SCHED says */
enum fake_fault { FAKE_OK, FAKE_LOOP, FAKE_GARBAGE, FAKE_NOT_BERYL, FAKE_SCHED_REFUSE };

struct fake_dev_cfg {
	unsigned nifs;                  /* NIC interfaces (0..4) */
	uint32_t if_version, id_version;
	enum fake_fault fault;
	unsigned txq, rxq, cq, eq, ports, rss_table, max_frame, max_desc;
	unsigned tx_sched;              /* 0 round robin, 1 token bucket, 2 TDMA */
	unsigned tdma_slots_max;        /* 1..32 (reported when tx_sched is 2) */
	uint64_t ptp_nom_incr;          /* PTP block's nominal increment, 2^-32 ns; 0: no PTP block */
	bool no_pcie;                   /* leave the PCIe block out of the chain (id -> msix) */
	uint32_t pcie_version;          /* the PCIe block's VERSION; 0: 1.0.0 */
};

/* What the schedulers' timer and gate would show (the fake has no time): TDMA builds only, except
 * bad_sts. */
struct fake_sched_obs {
	bool slot_valid, searching;
	unsigned slot_index;
	uint32_t hold, offslot, overrun, park, bad_sts;
};

struct fake_dev;

void fake_dev_default_cfg(struct fake_dev_cfg *cfg);
struct fake_dev *fake_dev_create(const struct fake_dev_cfg *cfg, uint8_t *mem, uint64_t mem_base,
				 size_t mem_size);
void fake_dev_destroy(struct fake_dev *d);
uint32_t fake_dev_read(struct fake_dev *d, uint32_t off);
void fake_dev_write(struct fake_dev *d, uint32_t off, uint32_t val);
int fake_dev_irq_pop(struct fake_dev *d, uint32_t *vector);   /* 1 if one was pending */
uint64_t fake_dev_accesses(const struct fake_dev *d);
void fake_dev_sched_observe(struct fake_dev *d, unsigned ifi, unsigned port, const struct fake_sched_obs *o);
/* The TX engine's fetch of descriptors [first, first + count) of TX queue txq (interface ifi) fails
 * for good, after two retries (TX_DESC_RETRY += 2): when the fake reaches them it completes them as
 * rtl/nic/beryl_nic_tx_engine.sv does (docs/blocks/nic_core.md, "Failed TX descriptor reads"), count
 * within what the driver posts. first must lie in a packet the fake has not sent yet. */
void fake_dev_tx_fetch_fail(struct fake_dev *d, unsigned ifi, unsigned txq, uint16_t first, unsigned count);
/* Write a completion (index, status) into TX queue txq's completion queue, as a device bug would. */
void fake_dev_tx_cpl(struct fake_dev *d, unsigned ifi, unsigned txq, uint16_t index, uint8_t status);

/* An in-process transport over a fake device (host memory from malloc). */
int fake_transport_open(const struct fake_dev_cfg *cfg, size_t mem_size, struct beryl_transport **out);
struct fake_dev *fake_transport_dev(struct beryl_transport *t);
size_t fake_transport_dma_in_use(struct beryl_transport *t);

#endif /* FAKE_DEV_H */
