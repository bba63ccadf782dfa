// SPDX-License-Identifier: MIT
/* Statistics: device (PCIe block), interface and per-port counters (32-bit, wrapping). */
#include <errno.h>

#include "beryl_priv.h"

static const struct {
	const char *name;
	uint32_t reg;
} counters[] = {
	{ "tx_pkts", BERYL_NIC_IF_TX_PKTS_OFFSET },
	{ "tx_bytes", BERYL_NIC_IF_TX_BYTES_OFFSET },
	{ "tx_drop_bad_desc", BERYL_NIC_IF_TX_DROP_BAD_DESC_OFFSET },
	{ "tx_dma_err", BERYL_NIC_IF_TX_DMA_ERR_OFFSET },
	{ "tx_desc_retry", BERYL_NIC_IF_TX_DESC_RETRY_OFFSET },
	{ "tx_data_retry", BERYL_NIC_IF_TX_DATA_RETRY_OFFSET },
	{ "rx_pkts", BERYL_NIC_IF_RX_PKTS_OFFSET },
	{ "rx_bytes", BERYL_NIC_IF_RX_BYTES_OFFSET },
	{ "rx_drop_no_desc", BERYL_NIC_IF_RX_DROP_NO_DESC_OFFSET },
	{ "rx_drop_disabled", BERYL_NIC_IF_RX_DROP_DISABLED_OFFSET },
	{ "rx_drop_too_long", BERYL_NIC_IF_RX_DROP_TOO_LONG_OFFSET },
	{ "rx_drop_no_slot", BERYL_NIC_IF_RX_DROP_NO_SLOT_OFFSET },
	{ "rx_drop_oversize", BERYL_NIC_IF_RX_DROP_OVERSIZE_OFFSET },
	{ "rx_drop_mac_err", BERYL_NIC_IF_RX_DROP_MAC_ERR_OFFSET },
	{ "rx_dma_err", BERYL_NIC_IF_RX_DMA_ERR_OFFSET },
	{ "rx_desc_retry", BERYL_NIC_IF_RX_DESC_RETRY_OFFSET },
	{ "cq_drop_full", BERYL_NIC_IF_CQ_DROP_FULL_OFFSET },
	{ "cq_drop_disabled", BERYL_NIC_IF_CQ_DROP_DISABLED_OFFSET },
	{ "eq_drop_full", BERYL_NIC_IF_EQ_DROP_FULL_OFFSET },
	{ "eq_drop_disabled", BERYL_NIC_IF_EQ_DROP_DISABLED_OFFSET },
	{ "cpl_dma_err", BERYL_NIC_IF_CPL_DMA_ERR_OFFSET },
	{ "db_bad", BERYL_NIC_IF_DB_BAD_OFFSET },
	{ "irq_count", BERYL_NIC_IF_IRQ_COUNT_OFFSET },
	{ "irq_merged", BERYL_NIC_IF_IRQ_MERGED_OFFSET },
};

#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

unsigned beryl_if_counter_count(void)
{
	return NCOUNTERS;
}

int beryl_if_counters(struct beryl_if *nif, struct beryl_counter *out, unsigned max)
{
	unsigned n = max < NCOUNTERS ? max : NCOUNTERS;
	struct beryl_access a[NCOUNTERS];
	int err;

	for (unsigned i = 0; i < n; i++)
		a[i] = (struct beryl_access){ .off = nif->base + counters[i].reg };
	err = beryl_access_batch(nif->dev, a, n);
	if (err)
		return err;
	for (unsigned i = 0; i < n; i++) {
		out[i].name = counters[i].name;
		out[i].value = a[i].val;
	}
	return (int)n;
}

/*
 * The PCIe block's event counters (regs/beryl_pcie.rdl, docs/regs/pcie.md): host requests to the
 * BARs first, then the DMA engines' work, then their errors.
 */
static const struct {
	const char *name;
	uint32_t reg;
} dev_counters[] = {
	{ "bar_rd_unmapped", BERYL_PCIE_UNMAPPED_RD_COUNT_OFFSET },
	{ "bar_wr_unmapped", BERYL_PCIE_UNMAPPED_WR_COUNT_OFFSET },
	{ "bar_req_unsupported", BERYL_PCIE_UNSUPPORTED_REQ_COUNT_OFFSET },
	{ "bar_req_discarded", BERYL_PCIE_DISCARDED_REQ_COUNT_OFFSET },
	{ "dma_rd_desc", BERYL_PCIE_DMA_RD_DESC_COUNT_OFFSET },
	{ "dma_wr_desc", BERYL_PCIE_DMA_WR_DESC_COUNT_OFFSET },
	{ "dma_rd_bytes", BERYL_PCIE_DMA_RD_BYTES_OFFSET },
	{ "dma_wr_bytes", BERYL_PCIE_DMA_WR_BYTES_OFFSET },
	{ "dma_rd_err_timeout", BERYL_PCIE_DMA_RD_ERR_TIMEOUT_COUNT_OFFSET },
	{ "dma_rd_err_ur", BERYL_PCIE_DMA_RD_ERR_UR_COUNT_OFFSET },
	{ "dma_rd_err_ca", BERYL_PCIE_DMA_RD_ERR_CA_COUNT_OFFSET },
	{ "dma_rd_err_poison", BERYL_PCIE_DMA_RD_ERR_POISON_COUNT_OFFSET },
	{ "dma_rd_cpl_unexpected", BERYL_PCIE_DMA_RD_CPL_UNEXPECTED_COUNT_OFFSET },
	{ "dma_rd_cpl_discarded", BERYL_PCIE_DMA_RD_CPL_DISCARDED_COUNT_OFFSET },
};

#define NDEV_COUNTERS (sizeof(dev_counters) / sizeof(dev_counters[0]))

unsigned beryl_dev_counter_count(void)
{
	return NDEV_COUNTERS;
}

int beryl_dev_counters(struct beryl_dev *dev, struct beryl_counter *out, unsigned max)
{
	unsigned n = max < NDEV_COUNTERS ? max : NDEV_COUNTERS;
	struct beryl_access a[NDEV_COUNTERS];
	uint32_t version = 0, major;
	int err;

	if (!dev || (n && !out))
		return beryl_fail(-EINVAL, "device counters: %s is NULL", dev ? "the output array" : "the device");
	if (dev->pcie_base < 0)
		return beryl_fail(-ENODEV, "this device has no PCIe block (type 0x%08x) in its register chain: "
				  "no device counters", BERYL_PCIE_BLOCK_TYPE);
	for (unsigned i = 0; i < dev->nblocks; i++)
		if (dev->blocks[i].offset == (uint32_t)dev->pcie_base)
			version = dev->blocks[i].version;
	/* another major version may have moved or redefined them (device.c keeps such a block's offset) */
	major = (version & BERYL_BLOCK_VERSION_MAJOR_MASK) >> BERYL_BLOCK_VERSION_MAJOR_LSB;
	if (major != BERYL_PCIE_BLOCK_VERSION >> BERYL_BLOCK_VERSION_MAJOR_LSB)
		return beryl_fail(-EPROTO, "version mismatch: PCIe block at 0x%x has version %u.%u.%u, this "
				  "driver speaks major %u", (uint32_t)dev->pcie_base, major, (version >> 16) & 0xff,
				  version & 0xffff, BERYL_PCIE_BLOCK_VERSION >> BERYL_BLOCK_VERSION_MAJOR_LSB);
	for (unsigned i = 0; i < n; i++)
		a[i] = (struct beryl_access){ .off = (uint32_t)dev->pcie_base + dev_counters[i].reg };
	err = beryl_access_batch(dev, a, n);
	if (err)
		return err;
	for (unsigned i = 0; i < n; i++) {
		out[i].name = dev_counters[i].name;
		out[i].value = a[i].val;
	}
	return (int)n;
}

int beryl_port_stats(struct beryl_if *nif, unsigned port, struct beryl_port_stats *s)
{
	static const uint32_t regs[] = {
		BERYL_NIC_IF_PORT_CTRL_OFFSET, BERYL_NIC_IF_PORT_TX_PKTS_OFFSET, BERYL_NIC_IF_PORT_TX_BYTES_OFFSET,
		BERYL_NIC_IF_PORT_RX_PKTS_OFFSET, BERYL_NIC_IF_PORT_RX_BYTES_OFFSET, BERYL_NIC_IF_PORT_TX_DROPS_OFFSET,
		BERYL_NIC_IF_PORT_RX_DROPS_OFFSET, BERYL_NIC_IF_PORT_TX_TS_MISMATCH_OFFSET,
		BERYL_NIC_IF_PORT_TX_TS_TIMEOUT_OFFSET, BERYL_NIC_IF_PORT_TX_TS_SPURIOUS_OFFSET,
	};
	enum { NREG = sizeof(regs) / sizeof(regs[0]) };
	struct beryl_access a[NREG + 1];
	int err;

	if (port >= nif->p.port_count)
		return beryl_fail(-ERANGE, "port %u out of range (interface %u has %u)", port, nif->p.if_index,
				  nif->p.port_count);
	a[0] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_PORT_SEL_OFFSET,
				      .val = port << BERYL_NIC_IF_PORT_SEL_PORT_LSB, .write = true };
	for (int i = 0; i < NREG; i++)
		a[i + 1] = (struct beryl_access){ .off = nif->base + regs[i] };
	err = beryl_access_batch(nif->dev, a, NREG + 1);
	if (err)
		return err;
	s->tx_enable = a[1].val & BERYL_NIC_IF_PORT_CTRL_TX_ENABLE_MASK;
	s->tx_pkts = a[2].val;
	s->tx_bytes = a[3].val;
	s->rx_pkts = a[4].val;
	s->rx_bytes = a[5].val;
	s->tx_drops = a[6].val;
	s->rx_drops = a[7].val;
	s->tx_ts_mismatch = a[8].val;
	s->tx_ts_timeout = a[9].val;
	s->tx_ts_dropped = a[10].val;
	return 0;
}
