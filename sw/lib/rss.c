// SPDX-License-Identifier: MIT
/* RSS configuration: Toeplitz key (ten words, byte 4i in bits 7:0), indirection table, hash types. */
#include <errno.h>
#include <stdlib.h>

#include "beryl_priv.h"

static const uint32_t key_regs[10] = {
	BERYL_NIC_IF_RSS_KEY0_OFFSET, BERYL_NIC_IF_RSS_KEY1_OFFSET, BERYL_NIC_IF_RSS_KEY2_OFFSET,
	BERYL_NIC_IF_RSS_KEY3_OFFSET, BERYL_NIC_IF_RSS_KEY4_OFFSET, BERYL_NIC_IF_RSS_KEY5_OFFSET,
	BERYL_NIC_IF_RSS_KEY6_OFFSET, BERYL_NIC_IF_RSS_KEY7_OFFSET, BERYL_NIC_IF_RSS_KEY8_OFFSET,
	BERYL_NIC_IF_RSS_KEY9_OFFSET,
};

int beryl_rss_set(struct beryl_if *nif, const struct beryl_rss *rss, bool set_key)
{
	uint32_t ctrl;
	int err = 0;

	if (rss->hash_en & ~(BERYL_NIC_IF_RSS_CTRL_HASH_EN_MASK >> BERYL_NIC_IF_RSS_CTRL_HASH_EN_LSB))
		return beryl_fail(-EINVAL, "unknown RSS hash type bits 0x%x", rss->hash_en);
	if (rss->default_queue >= nif->p.rxq_count)
		return beryl_fail(-ERANGE, "RSS default queue %u out of range (interface %u has %u RX queues)",
				  rss->default_queue, nif->p.if_index, nif->p.rxq_count);
	if (rss->table) {
		if (rss->table_size != nif->p.rss_table_size)
			return beryl_fail(-EINVAL, "the indirection table has %u entries, %u given",
					  nif->p.rss_table_size, rss->table_size);
		for (unsigned i = 0; i < rss->table_size; i++)
			if (rss->table[i] >= nif->p.rxq_count)
				return beryl_fail(-ERANGE, "indirection table entry %u names RX queue %u, interface "
						  "%u has %u", i, rss->table[i], nif->p.if_index, nif->p.rxq_count);
	}
	if (set_key)
		for (unsigned i = 0; i < 10 && !err; i++)
			err = beryl_if_wr(nif, key_regs[i], beryl_get32(&rss->key[4 * i]));
	if (!err && rss->table) {
		/* the index auto-increments on each data access */
		err = beryl_if_wr(nif, BERYL_NIC_IF_RSS_TBL_IDX_OFFSET, 0);
		for (unsigned i = 0; i < rss->table_size && !err; i++)
			err = beryl_if_wr(nif, BERYL_NIC_IF_RSS_TBL_DATA_OFFSET, rss->table[i]);
	}
	if (!err)
		err = beryl_if_wr(nif, BERYL_NIC_IF_RSS_DEFAULT_QUEUE_OFFSET, rss->default_queue);
	ctrl = (rss->enable ? BERYL_NIC_IF_RSS_CTRL_ENABLE_MASK : 0) |
	       (rss->hash_en << BERYL_NIC_IF_RSS_CTRL_HASH_EN_LSB & BERYL_NIC_IF_RSS_CTRL_HASH_EN_MASK);
	if (!err)
		err = beryl_if_wr(nif, BERYL_NIC_IF_RSS_CTRL_OFFSET, ctrl);
	return err;
}

int beryl_rss_get(struct beryl_if *nif, struct beryl_rss *rss)
{
	unsigned nt = rss->table ? nif->p.rss_table_size : 0, n = 0;
	struct beryl_access *a = calloc(13 + (size_t)nt, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a[n++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_RSS_CTRL_OFFSET };
	a[n++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_RSS_DEFAULT_QUEUE_OFFSET };
	for (unsigned i = 0; i < 10; i++)
		a[n++] = (struct beryl_access){ .off = nif->base + key_regs[i] };
	/* the index auto-increments on each data access */
	a[n++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_RSS_TBL_IDX_OFFSET, .write = true };
	for (unsigned i = 0; i < nt; i++)
		a[n++] = (struct beryl_access){ .off = nif->base + BERYL_NIC_IF_RSS_TBL_DATA_OFFSET };
	err = beryl_access_batch(nif->dev, a, nt ? n : 12);
	if (!err) {
		rss->enable = a[0].val & BERYL_NIC_IF_RSS_CTRL_ENABLE_MASK;
		rss->hash_en = (a[0].val & BERYL_NIC_IF_RSS_CTRL_HASH_EN_MASK) >> BERYL_NIC_IF_RSS_CTRL_HASH_EN_LSB;
		rss->default_queue = (a[1].val & BERYL_NIC_IF_RSS_DEFAULT_QUEUE_QUEUE_MASK) >>
				     BERYL_NIC_IF_RSS_DEFAULT_QUEUE_QUEUE_LSB;
		for (unsigned i = 0; i < 10; i++)
			beryl_put32(&rss->key[4 * i], a[2 + i].val);
		rss->table_size = nif->p.rss_table_size;
		for (unsigned i = 0; i < nt; i++)
			rss->table[i] = (uint16_t)((a[13 + i].val & BERYL_NIC_IF_RSS_TBL_DATA_QUEUE_MASK) >>
						   BERYL_NIC_IF_RSS_TBL_DATA_QUEUE_LSB);
	}
	free(a);
	return err;
}
