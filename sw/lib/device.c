// SPDX-License-Identifier: MIT
/* Device: open through a transport, walk the register chain, read identity and interfaces. */
#include <errno.h>
#include <stdlib.h>

#include "beryl_priv.h"

#define BAR0_SIZE (1u << BERYL_BAR0_ADDR_W)

static const struct {
	uint32_t type;
	const char *name;
} block_names[] = {
	{ BERYL_ID_BLOCK_TYPE, "id" },
	{ BERYL_PCIE_BLOCK_TYPE, "pcie" },
	{ BERYL_MSIX_BLOCK_TYPE, "msix" },
	{ BERYL_NIC_IF_BLOCK_TYPE, "nic_if" },
	{ BERYL_PTP_BLOCK_TYPE, "ptp" },
};

static const char *block_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(block_names) / sizeof(block_names[0]); i++)
		if (block_names[i].type == type)
			return block_names[i].name;
	return NULL;
}

static unsigned major(uint32_t version)
{
	return (version & BERYL_BLOCK_VERSION_MAJOR_MASK) >> BERYL_BLOCK_VERSION_MAJOR_LSB;
}

int beryl_read32(struct beryl_dev *dev, uint64_t off, uint32_t *val)
{
	return dev->t->ops->read32(dev->t, off, val);
}

int beryl_write32(struct beryl_dev *dev, uint64_t off, uint32_t val)
{
	return dev->t->ops->write32(dev->t, off, val);
}

int beryl_access_batch(struct beryl_dev *dev, struct beryl_access *acc, unsigned n)
{
	struct beryl_transport *t = dev->t;
	int err = 0;

	if (t->ops->batch)
		return t->ops->batch(t, acc, n);
	for (unsigned i = 0; i < n && !err; i++)
		err = acc[i].write ? t->ops->write32(t, acc[i].off, acc[i].val) :
				     t->ops->read32(t, acc[i].off, &acc[i].val);
	return err;
}

/* Walk the chain from offset 0; every failure names the offset and what was read. */
static int discover(struct beryl_dev *dev)
{
	uint32_t off = 0, from = 0;
	int err;

	dev->blocks = calloc(BERYL_MAX_BLOCKS, sizeof(*dev->blocks));
	if (!dev->blocks)
		return -ENOMEM;
	for (;;) {
		struct beryl_block *b = &dev->blocks[dev->nblocks];
		uint32_t typ;

		for (unsigned i = 0; i < dev->nblocks; i++)
			if (dev->blocks[i].offset == off)
				return beryl_fail(-ELOOP, "register chain loops: NEXT of block at 0x%x points "
						  "back to block %u at 0x%x", from, i, off);
		if (off % 4 || off + 4 * BERYL_BLOCK_HDR_WORDS > BAR0_SIZE)
			return beryl_fail(-EBADMSG, "register chain: NEXT of block at 0x%x is 0x%x "
					  "(misaligned or past the end of BAR0)", from, off);
		if (dev->nblocks == BERYL_MAX_BLOCKS)
			return beryl_fail(-EBADMSG, "register chain longer than %u blocks", BERYL_MAX_BLOCKS);
		err = beryl_read32(dev, off + BERYL_BLOCK_TYPE_OFFSET, &typ);
		if (err)
			return err;
		if (typ >> 16 != BERYL_BLOCK_MAGIC) {
			if (!off)
				return beryl_fail(-ENODEV, "not a Beryl device: BAR0 offset 0 reads 0x%08x, "
						  "expected a block type 0x4252xxxx", typ);
			return beryl_fail(-EBADMSG, "no block header at 0x%x (NEXT of block at 0x%x): "
					  "TYPE reads 0x%08x%s", off, from, typ,
					  typ == 0xffffffffu ? " (all-ones: nothing mapped there)" : "");
		}
		b->type = typ;
		b->offset = off;
		b->name = block_name(typ);
		err = beryl_read32(dev, off + BERYL_BLOCK_VERSION_OFFSET, &b->version);
		if (!err)
			err = beryl_read32(dev, off + BERYL_BLOCK_NEXT_OFFSET, &b->next);
		if (err)
			return err;
		dev->nblocks++;
		if (!b->next)
			return 0;
		from = off;
		off = b->next;
	}
}

static int read_identity(struct beryl_dev *dev, const struct beryl_block *b)
{
	struct beryl_identity *id = &dev->id;
	uint32_t v = 0;
	int err;

	if (major(b->version) != major(BERYL_ID_BLOCK_VERSION))
		return beryl_fail(-EPROTO, "version mismatch: identity block version %u.%u.%u, this driver "
				  "speaks major %u", major(b->version), (b->version >> 16) & 0xff,
				  b->version & 0xffff, major(BERYL_ID_BLOCK_VERSION));
	err = beryl_read32(dev, b->offset + BERYL_ID_PCI_ID_OFFSET, &v);
	id->vendor_id = (uint16_t)((v & BERYL_ID_PCI_ID_VENDOR_ID_MASK) >> BERYL_ID_PCI_ID_VENDOR_ID_LSB);
	id->device_id = (uint16_t)((v & BERYL_ID_PCI_ID_DEVICE_ID_MASK) >> BERYL_ID_PCI_ID_DEVICE_ID_LSB);
	if (!err)
		err = beryl_read32(dev, b->offset + BERYL_ID_PCI_SUBSYS_ID_OFFSET, &v);
	id->subsys_vendor_id = (uint16_t)((v & BERYL_ID_PCI_SUBSYS_ID_SUBSYS_VENDOR_ID_MASK) >>
					  BERYL_ID_PCI_SUBSYS_ID_SUBSYS_VENDOR_ID_LSB);
	id->subsys_id = (uint16_t)((v & BERYL_ID_PCI_SUBSYS_ID_SUBSYS_ID_MASK) >>
				   BERYL_ID_PCI_SUBSYS_ID_SUBSYS_ID_LSB);
	if (!err)
		err = beryl_read32(dev, b->offset + BERYL_ID_BERYL_VERSION_OFFSET, &id->beryl_version);
	if (!err)
		err = beryl_read32(dev, b->offset + BERYL_ID_GIT_HASH_OFFSET, &id->git_hash);
	if (!err)
		err = beryl_read32(dev, b->offset + BERYL_ID_BUILD_DATE_OFFSET, &id->build_date);
	if (!err)
		err = beryl_read32(dev, b->offset + BERYL_ID_BUILD_TIME_OFFSET, &id->build_time);
	return err;
}

static int load_if(struct beryl_dev *dev, struct beryl_if *nif, const struct beryl_block *b)
{
	static const uint32_t regs[] = {
		BERYL_NIC_IF_IF_INDEX_OFFSET, BERYL_NIC_IF_IF_COUNT_OFFSET, BERYL_NIC_IF_PORT_COUNT_OFFSET,
		BERYL_NIC_IF_TXQ_COUNT_OFFSET, BERYL_NIC_IF_RXQ_COUNT_OFFSET, BERYL_NIC_IF_CQ_COUNT_OFFSET,
		BERYL_NIC_IF_EQ_COUNT_OFFSET, BERYL_NIC_IF_TX_SLOTS_OFFSET, BERYL_NIC_IF_RX_SLOTS_OFFSET,
		BERYL_NIC_IF_MAX_FRAME_OFFSET, BERYL_NIC_IF_RSS_TABLE_SIZE_OFFSET,
		BERYL_NIC_IF_DESC_BATCH_OFFSET, BERYL_NIC_IF_CPL_BATCH_OFFSET,
		BERYL_NIC_IF_MAX_DESC_PER_PKT_OFFSET, BERYL_NIC_IF_FEATURES_OFFSET,
		BERYL_NIC_IF_TX_SCHED_OFFSET, BERYL_NIC_IF_TDMA_SLOTS_MAX_OFFSET,
	};
	uint32_t *p = &nif->p.if_index;   /* struct beryl_if_params lists them in this order */

	_Static_assert(sizeof(struct beryl_if_params) == sizeof(regs), "params follow the register list");
	if (major(b->version) != major(BERYL_NIC_IF_BLOCK_VERSION))
		return beryl_fail(-EPROTO, "version mismatch: NIC interface block at 0x%x has version "
				  "%u.%u.%u, this driver speaks major %u", b->offset, major(b->version),
				  (b->version >> 16) & 0xff, b->version & 0xffff,
				  major(BERYL_NIC_IF_BLOCK_VERSION));
	nif->dev = dev;
	nif->base = b->offset;
	nif->version = b->version;
	nif->vector = -1;
	{
		struct beryl_access acc[sizeof(regs) / sizeof(regs[0])];
		int err;

		for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			acc[i] = (struct beryl_access){ .off = b->offset + regs[i] };
		err = beryl_access_batch(dev, acc, sizeof(regs) / sizeof(regs[0]));
		if (err)
			return err;
		for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			p[i] = acc[i].val;
	}
	if (!nif->p.txq_count || !nif->p.rxq_count || !nif->p.cq_count || !nif->p.eq_count ||
	    !nif->p.port_count || nif->p.txq_count > 0xffff || nif->p.rxq_count > 0xffff ||
	    nif->p.cq_count > 0xffff || nif->p.rss_table_size > 0x10000 || nif->p.port_count > 256 ||
	    nif->p.tdma_slots_max > 32)
		return beryl_fail(-EBADMSG, "NIC interface block at 0x%x has implausible parameters "
				  "(%u TXQ, %u RXQ, %u CQ, %u EQ, %u ports, %u TDMA slots)", b->offset,
				  nif->p.txq_count, nif->p.rxq_count, nif->p.cq_count, nif->p.eq_count,
				  nif->p.port_count, nif->p.tdma_slots_max);
	return 0;
}

int beryl_open_transport(struct beryl_transport *t, struct beryl_dev **out)
{
	struct beryl_dev *dev = calloc(1, sizeof(*dev));
	unsigned n = 0;
	int err;

	if (!dev) {
		t->ops->close(t);
		return -ENOMEM;
	}
	dev->t = t;
	err = discover(dev);
	if (err)
		goto fail;
	if (dev->blocks[0].type != BERYL_ID_BLOCK_TYPE) {
		err = beryl_fail(-ENODEV, "BAR0 offset 0 holds block type 0x%08x, not the identity block",
				 dev->blocks[0].type);
		goto fail;
	}
	err = read_identity(dev, &dev->blocks[0]);
	if (err)
		goto fail;
	dev->pcie_base = -1;
	dev->ptp_base = -1;
	for (unsigned i = 0; i < dev->nblocks; i++) {
		if (dev->blocks[i].type == BERYL_PCIE_BLOCK_TYPE && dev->pcie_base < 0)
			dev->pcie_base = (int)dev->blocks[i].offset;
		if (dev->blocks[i].type == BERYL_PTP_BLOCK_TYPE && dev->ptp_base < 0 &&
		    major(dev->blocks[i].version) == major(BERYL_PTP_BLOCK_VERSION)) {
			err = beryl_ptp_load(dev, dev->blocks[i].offset);
			if (err)
				goto fail;
		}
		if (dev->blocks[i].type == BERYL_MSIX_BLOCK_TYPE) {
			err = beryl_read32(dev, dev->blocks[i].offset + BERYL_MSIX_VECTOR_COUNT_OFFSET,
					   &dev->id.msix_vectors);
			if (err)
				goto fail;
		}
		n += dev->blocks[i].type == BERYL_NIC_IF_BLOCK_TYPE;
	}
	if (n) {
		dev->ifs = calloc(n, sizeof(*dev->ifs));
		if (!dev->ifs) {
			err = -ENOMEM;
			goto fail;
		}
	}
	for (unsigned i = 0; i < dev->nblocks; i++) {
		if (dev->blocks[i].type != BERYL_NIC_IF_BLOCK_TYPE)
			continue;
		err = load_if(dev, &dev->ifs[dev->nifs], &dev->blocks[i]);
		if (err)
			goto fail;
		dev->nifs++;
	}
	*out = dev;
	return 0;
fail:
	beryl_close(dev);
	return err;
}

int beryl_open(const char *transport, const char *path, struct beryl_dev **out)
{
	struct beryl_transport *t;
	int err = beryl_transport_open(transport, path, &t);

	if (err)
		return err;
	return beryl_open_transport(t, out);
}

void beryl_close(struct beryl_dev *dev)
{
	if (!dev)
		return;
	for (unsigned i = 0; i < dev->nifs; i++)
		beryl_if_stop(&dev->ifs[i]);
	free(dev->ifs);
	free(dev->blocks);
	dev->t->ops->close(dev->t);
	free(dev);
}

const struct beryl_identity *beryl_identity(const struct beryl_dev *dev)
{
	return &dev->id;
}

unsigned beryl_block_count(const struct beryl_dev *dev)
{
	return dev->nblocks;
}

const struct beryl_block *beryl_block_get(const struct beryl_dev *dev, unsigned i)
{
	return i < dev->nblocks ? &dev->blocks[i] : NULL;
}

unsigned beryl_if_count(const struct beryl_dev *dev)
{
	return dev->nifs;
}

struct beryl_if *beryl_if_get(struct beryl_dev *dev, unsigned index)
{
	if (index >= dev->nifs) {
		beryl_fail(-ERANGE, "interface %u out of range (the device has %u)", index, dev->nifs);
		return NULL;
	}
	return &dev->ifs[index];
}

struct beryl_transport *beryl_dev_transport(struct beryl_dev *dev)
{
	return dev->t;
}

int beryl_wait_irq(struct beryl_dev *dev, int timeout_ms, uint32_t *vector)
{
	return dev->t->ops->wait_irq(dev->t, timeout_ms, vector);
}

int beryl_irq_fd(struct beryl_dev *dev)
{
	return dev->t->ops->irq_fd ? dev->t->ops->irq_fd(dev->t) : -1;
}
