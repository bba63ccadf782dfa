// SPDX-License-Identifier: MIT
/* Unit tests of libberyl against the in-process fake device: discovery, misuse, data path, RSS, stats. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beryl_priv.h"
#include "beryl_transport.h"
#include "fake_dev.h"

static int failures, checks;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		checks++;                                                             \
		if (!(cond)) {                                                        \
			failures++;                                                   \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
			printf(__VA_ARGS__);                                          \
			printf(" [last error: %s]\n", beryl_errmsg());                \
		}                                                                     \
	} while (0)

#define MEM (8u << 20)

static int open_fake(const struct fake_dev_cfg *cfg, struct beryl_dev **dev, struct beryl_transport **t)
{
	int err = fake_transport_open(cfg, MEM, t);

	return err ? err : beryl_open_transport(*t, dev);
}

static struct beryl_dev *open_default(struct beryl_transport **t)
{
	struct fake_dev_cfg cfg;
	struct beryl_dev *dev = NULL;
	int err;

	fake_dev_default_cfg(&cfg);
	err = open_fake(&cfg, &dev, t);
	CHECK(!err, "open: %d", err);
	return dev;
}

static void test_discovery(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	const char *want[] = { "id", "pcie", "msix", "nic_if", "nic_if" };

	if (!dev)
		return;
	CHECK(beryl_block_count(dev) == 5, "%u blocks", beryl_block_count(dev));
	for (unsigned i = 0; i < 5 && i < beryl_block_count(dev); i++)
		CHECK(!strcmp(beryl_block_get(dev, i)->name, want[i]), "block %u is %s", i,
		      beryl_block_get(dev, i)->name);
	CHECK(beryl_identity(dev)->device_id == 0xbe01 && beryl_identity(dev)->vendor_id == 0x1234, "ids");
	CHECK(beryl_identity(dev)->git_hash == 0x1234abcd, "git hash");
	CHECK(beryl_identity(dev)->msix_vectors == 32, "vectors");
	CHECK(beryl_if_count(dev) == 2, "%u interfaces", beryl_if_count(dev));
	CHECK(beryl_if_params(beryl_if_get(dev, 1))->if_index == 1, "if index");
	CHECK(beryl_if_params(beryl_if_get(dev, 0))->txq_count == 4, "txq count");
	CHECK(beryl_if_get(dev, 2) == NULL, "interface 2 must not exist");
	beryl_close(dev);
}

static void expect_open_error(struct fake_dev_cfg *cfg, int want, const char *text)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = NULL;
	int err = open_fake(cfg, &dev, &t);

	CHECK(err == want, "open gave %d (%s), want %d", err, beryl_strerror(err), want);
	CHECK(strstr(beryl_errmsg(), text), "message '%s' lacks '%s'", beryl_errmsg(), text);
	CHECK(dev == NULL, "no device on failure");
	if (!err)
		beryl_close(dev);
}

static void test_open_errors(void)
{
	struct fake_dev_cfg cfg;
	struct beryl_dev *dev = NULL;
	int err;

	fake_dev_default_cfg(&cfg);
	cfg.if_version = 0x02000000u;
	expect_open_error(&cfg, -EPROTO, "version mismatch");
	fake_dev_default_cfg(&cfg);
	cfg.id_version = 0x07000000u;
	expect_open_error(&cfg, -EPROTO, "version mismatch");
	fake_dev_default_cfg(&cfg);
	cfg.fault = FAKE_LOOP;
	expect_open_error(&cfg, -ELOOP, "loops");
	cfg.fault = FAKE_GARBAGE;
	expect_open_error(&cfg, -EBADMSG, "all-ones");
	cfg.fault = FAKE_NOT_BERYL;
	expect_open_error(&cfg, -ENODEV, "not a Beryl device");

	err = beryl_open("sim", "/tmp/beryl-test-no-such.sock", &dev);
	CHECK(err == -ENOENT, "missing socket gave %d", err);
	CHECK(strstr(beryl_errmsg(), "/tmp/beryl-test-no-such.sock"), "message names the socket: %s",
	      beryl_errmsg());
	err = beryl_open("pci", NULL, &dev);
	CHECK(err == -EINVAL, "unknown transport gave %d", err);
	CHECK(strcmp(beryl_strerror(-EPROTO), beryl_strerror(-ELOOP)), "distinct messages");
}

static void test_misuse(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	struct beryl_if *nif;
	struct beryl_if_config cfg = { .txq_count = 1, .rxq_count = 1, .tx_log_size = 16 };
	struct beryl_queue_state qs;
	struct beryl_rx_pkt pk;
	uint8_t fr[64] = { 0 };
	struct iovec iov = { fr, sizeof(fr) };
	int err;

	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	err = beryl_if_start(nif, &cfg);
	CHECK(err == -E2BIG, "ring 2^16 gave %d", err);
	CHECK(strstr(beryl_errmsg(), "too large"), "%s", beryl_errmsg());
	cfg.tx_log_size = 4;
	cfg.rx_log_size = 20;
	CHECK(beryl_if_start(nif, &cfg) == -E2BIG, "rx ring too large");
	cfg.rx_log_size = 0;
	cfg.txq_count = 5;
	CHECK(beryl_if_start(nif, &cfg) == -ERANGE, "5 TX queues of 4");
	cfg.txq_count = 4;
	cfg.rxq_count = 5;
	CHECK(beryl_if_start(nif, &cfg) == -ERANGE, "5 RX queues of 4");
	CHECK(beryl_tx_send(nif, 0, &iov, 1, NULL, 0) == -ENOTCONN, "send before start");
	CHECK(beryl_queue_read(nif, BERYL_TXQ, 4, &qs) == -ERANGE, "queue read out of range");
	CHECK(beryl_queue_read(nif, BERYL_CQ, 7, &qs) == 0, "cq 7 exists");
	CHECK(fake_transport_dma_in_use(t) == 0, "failed starts leave no DMA memory: %zu",
	      fake_transport_dma_in_use(t));
	cfg = (struct beryl_if_config){ .txq_count = 2, .rxq_count = 2, .tx_log_size = 4 };
	err = beryl_if_start(nif, &cfg);
	CHECK(!err, "start: %d", err);
	CHECK(beryl_if_start(nif, &cfg) == -EBUSY, "second start");
	CHECK(beryl_tx_send(nif, 2, &iov, 1, NULL, 0) == -ERANGE, "txq 2 of 2");
	CHECK(beryl_rx_poll(nif, 2, &pk, 1) == -ERANGE, "rxq 2 of 2");
	iov.iov_len = 0;
	CHECK(beryl_tx_send(nif, 0, &iov, 1, NULL, 0) == -EINVAL, "empty frame");
	beryl_if_stop(nif);
	CHECK(fake_transport_dma_in_use(t) == 0, "stop frees DMA memory: %zu", fake_transport_dma_in_use(t));

	/* queues a crashed driver left enabled (another ring size): start disables them first */
	for (unsigned type = 0; type < 4; type++) {
		beryl_write32(dev, beryl_if_offset(nif) + BERYL_NIC_IF_Q_SEL_OFFSET,
			      type << BERYL_NIC_IF_Q_SEL_TYPE_LSB);
		beryl_write32(dev, beryl_if_offset(nif) + BERYL_NIC_IF_Q_CTRL_OFFSET,
			      7u << BERYL_NIC_IF_Q_CTRL_LOG_SIZE_LSB | BERYL_NIC_IF_Q_CTRL_ENABLE_MASK);
	}
	CHECK(!beryl_queue_read(nif, BERYL_CQ, 0, &qs) && qs.enable && qs.log_size == 7, "left enabled");
	cfg = (struct beryl_if_config){ .txq_count = 1, .rxq_count = 1, .tx_log_size = 4 };
	err = beryl_if_start(nif, &cfg);
	CHECK(!err, "start over leftovers: %d", err);
	CHECK(!beryl_queue_read(nif, BERYL_CQ, 0, &qs) && qs.enable && qs.log_size == 4, "cq 0 reprogrammed");
	beryl_close(dev);
}

static uint16_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Ethernet + IPv4 + UDP frame with the UDP checksum field holding the pseudo-header sum. */
static size_t udp_frame(uint8_t *f, size_t payload, uint8_t seed)
{
	size_t ulen = 8 + payload, len = 14 + 20 + ulen;
	uint16_t ph;

	memset(f, 0, len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	f[14] = 0x45;
	f[16] = (uint8_t)((20 + ulen) >> 8);
	f[17] = (uint8_t)(20 + ulen);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\0\0\x01\x0a\0\0\x02", 8);
	f[34] = 0x30;
	f[36] = 0x40;
	f[38] = (uint8_t)(ulen >> 8);
	f[39] = (uint8_t)ulen;
	for (size_t i = 0; i < payload; i++)
		f[42 + i] = (uint8_t)(seed + i * 7);
	ph = sum16(f + 26, 8, 17 + (uint32_t)ulen);
	f[40] = (uint8_t)(ph >> 8);
	f[41] = (uint8_t)ph;
	return len;
}

static int poll_all(struct beryl_if *nif, struct beryl_rx_pkt *pk, unsigned max)
{
	int n = 0;

	for (unsigned q = 0; q < beryl_if_rxq_count(nif) && (unsigned)n < max; q++) {
		int k = beryl_rx_poll(nif, q, pk + n, max - (unsigned)n);

		if (k < 0)
			return k;
		n += k;
	}
	return n;
}

static void test_loopback(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	struct beryl_if_config cfg = { .txq_count = 2, .rxq_count = 2, .tx_log_size = 4, .rx_log_size = 5,
				       .tx_buf_size = 512, .rx_buf_size = 2048 };
	struct beryl_if *a, *b;
	struct beryl_rx_pkt pk[64];
	struct beryl_cpl cpl[64];
	struct beryl_counter cnt[32];
	struct beryl_queue_stats qst;
	struct beryl_port_stats ps;
	struct beryl_queue_state qs;
	uint8_t f[4096], g[4096];
	struct iovec iov[3];
	size_t len;
	int n, err;

	if (!dev)
		return;
	a = beryl_if_get(dev, 0);
	b = beryl_if_get(dev, 1);
	CHECK(!beryl_if_start(a, &cfg) && !beryl_if_start(b, &cfg), "start both");

	/* plain frame, a -> b, in one piece (1000 bytes: two 512-byte descriptors) */
	len = udp_frame(f, 958, 1);
	iov[0] = (struct iovec){ f, len };
	n = beryl_tx_send(a, 1, iov, 1, NULL, 0);
	CHECK(n == 0, "send: %d", n);
	n = poll_all(b, pk, 64);
	CHECK(n == 1 && pk[0].len == len && !memcmp(pk[0].data, f, len), "received %d", n);
	CHECK(n == 1 && pk[0].cpl.status == BERYL_CPL_OK && pk[0].cpl.flags & BERYL_CPL_FLAG_CSUM_VALID,
	      "cpl ok");
	CHECK(n == 1 && pk[0].cpl.csum == sum16(f + 14, len - 14, 0), "rx csum 0x%x", pk[0].cpl.csum);
	n = beryl_tx_complete(a, 1, cpl, 64);
	CHECK(n == 1 && cpl[0].index == 0 && cpl[0].len == len, "tx completion %d", n);
	CHECK(beryl_tx_pending(a, 1) == 0, "tx ring empty");

	/* scatter/gather with checksum insertion, b -> a */
	len = udp_frame(f, 300, 9);
	memcpy(g, f, len);
	iov[0] = (struct iovec){ f, 20 };
	iov[1] = (struct iovec){ f + 20, 100 };
	iov[2] = (struct iovec){ f + 120, len - 120 };
	n = beryl_tx_send(b, 0, iov, 3, &(struct beryl_tx_csum){ .start = 34, .offset = 6 }, 0);
	CHECK(n >= 0, "sg send %d", n);
	n = poll_all(a, pk, 64);
	CHECK(n == 1 && pk[0].len == len, "sg frame received %d", n);
	if (n == 1) {
		/* the received UDP checksum verifies: pseudo header + UDP sums to 0xffff */
		uint16_t s = sum16(pk[0].data + 34, len - 34, 0);

		s = sum16(pk[0].data + 26, 8, s + 17u + (uint32_t)(len - 34));
		CHECK(s == 0xffff, "udp checksum verifies: 0x%04x", s);
		CHECK(!memcmp(pk[0].data, g, 40) && !memcmp(pk[0].data + 42, g + 42, len - 42), "payload");
	}
	CHECK(beryl_tx_complete(b, 0, NULL, 0) == 1, "one sg completion");

	/* too long for the RX buffer: completes with TOO_LONG, length 0, buffer reclaimed */
	len = udp_frame(f, 2100, 3);
	iov[0] = (struct iovec){ f, len };
	CHECK(beryl_tx_send(a, 0, iov, 1, NULL, 0) >= 0, "jumbo send");
	n = poll_all(b, pk, 64);
	CHECK(n == 1 && pk[0].cpl.status == BERYL_CPL_TOO_LONG && pk[0].len == 0, "too long: %d", n);
	iov[0].iov_len = 9601;
	memset(f, 0, sizeof(f));
	CHECK(beryl_tx_send(a, 0, iov, 1, NULL, 0) == -EMSGSIZE, "beyond MAX_FRAME");
	iov[0].iov_len = 512 * 8 + 1;
	CHECK(beryl_tx_send(a, 0, iov, 1, NULL, 0) == -EMSGSIZE, "more descriptors than MAX_DESC_PER_PKT");

	/* many frames, more than the TX ring: send reclaims completions itself */
	for (int i = 0; i < 40; i++) {
		len = udp_frame(f, 60 + (size_t)i, (uint8_t)i);
		iov[0] = (struct iovec){ f, len };
		err = beryl_tx_send(a, 0, iov, 1, NULL, 0);
		CHECK(err >= 0, "send %d: %d", i, err);
		if (i % 8 == 7) {
			n = poll_all(b, pk, 64);
			CHECK(n == 8, "batch of 8: %d", n);
		}
	}
	beryl_tx_complete(a, 0, NULL, 0);

	/* counters and queue state */
	n = beryl_if_counters(a, cnt, 32);
	CHECK(n == (int)beryl_if_counter_count() && !strcmp(cnt[0].name, "tx_pkts") && cnt[0].value == 42,
	      "tx_pkts %u", cnt[0].value);
	CHECK(!beryl_queue_stats(a, BERYL_TXQ, 0, &qst) && qst.packets == 41, "txq0 packets %llu",
	      (unsigned long long)qst.packets);
	CHECK(beryl_queue_stats(a, BERYL_CQ, 0, &qst) == -EINVAL, "no cq stats");
	CHECK(!beryl_port_stats(b, 0, &ps) && ps.rx_pkts == 42 && ps.tx_enable, "port rx %u", ps.rx_pkts);
	{
		/* one port: its RX drops are the interface's RX drops by reason, summed */
		struct beryl_counter cb[32];
		int nb = beryl_if_counters(b, cb, 32);
		uint32_t rxd = 0;

		for (int i = 0; i < nb; i++)
			if (!strncmp(cb[i].name, "rx_drop", 7) || !strcmp(cb[i].name, "rx_dma_err"))
				rxd += cb[i].value;
		CHECK(ps.tx_drops == 0 && ps.rx_drops == rxd, "port drops %u/%u, interface rx drops %u",
		      ps.tx_drops, ps.rx_drops, rxd);
	}
	CHECK(beryl_port_stats(b, 1, &ps) == -ERANGE, "port 1 of 1");
	CHECK(!beryl_queue_read(a, BERYL_TXQ, 0, &qs) && qs.enable && qs.log_size == 4 && qs.prod == qs.cons,
	      "txq state");
	CHECK(!beryl_queue_read(b, BERYL_RXQ, 0, &qs) && qs.log_size == 5 && qs.target == 2, "rxq state");
	beryl_close(dev);
}

/* The PCIe block's counters: every name with its register's value (the fake's 1001 x index from
 * UNMAPPED_RD_COUNT, docs/regs/pcie.md order), truncation, misuse, a missing or foreign block. */
static void test_dev_counters(void)
{
	static const struct {
		const char *name;
		uint32_t value;
	} want[] = {
		{ "bar_rd_unmapped", 0 },           /* +0x28 UNMAPPED_RD_COUNT */
		{ "bar_wr_unmapped", 1001 },        /* +0x2c UNMAPPED_WR_COUNT */
		{ "bar_req_unsupported", 2002 },    /* +0x30 UNSUPPORTED_REQ_COUNT */
		{ "dma_rd_desc", 3003 },            /* +0x34 DMA_RD_DESC_COUNT */
		{ "dma_wr_desc", 4004 },            /* +0x38 DMA_WR_DESC_COUNT */
		{ "dma_rd_err_timeout", 5005 },     /* +0x3c DMA_RD_ERR_TIMEOUT_COUNT */
		{ "dma_rd_err_ur", 6006 },          /* +0x40 DMA_RD_ERR_UR_COUNT */
		{ "dma_rd_err_ca", 7007 },          /* +0x44 DMA_RD_ERR_CA_COUNT */
		{ "dma_rd_err_poison", 8008 },      /* +0x48 DMA_RD_ERR_POISON_COUNT */
		{ "dma_rd_bytes", 9009 },           /* +0x4c DMA_RD_BYTES */
		{ "dma_wr_bytes", 10010 },          /* +0x50 DMA_WR_BYTES */
		{ "dma_rd_cpl_unexpected", 11011 }, /* +0x54 DMA_RD_CPL_UNEXPECTED_COUNT */
		{ "bar_req_discarded", 12012 },     /* +0x58 DISCARDED_REQ_COUNT */
		{ "dma_rd_cpl_discarded", 13013 },  /* +0x5c DMA_RD_CPL_DISCARDED_COUNT */
	};
	enum { NWANT = sizeof(want) / sizeof(want[0]) };
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	struct fake_dev_cfg cfg;
	struct beryl_counter c[32], few[3];
	int n;

	if (!dev)
		return;
	CHECK(beryl_dev_counter_count() == NWANT, "%u device counters, want %d", beryl_dev_counter_count(), NWANT);
	n = beryl_dev_counters(dev, c, 32);
	CHECK(n == NWANT, "beryl_dev_counters gave %d", n);
	for (int w = 0; w < NWANT; w++) {
		int found = 0;

		for (int i = 0; i < n; i++) {
			if (strcmp(c[i].name, want[w].name))
				continue;
			found++;
			CHECK(c[i].value == want[w].value, "%s = %u, want %u", want[w].name, c[i].value, want[w].value);
		}
		CHECK(found == 1, "%s listed %d times", want[w].name, found);
	}
	/* max cuts the list short; 0 with no array is fine */
	n = beryl_dev_counters(dev, few, 3);
	CHECK(n == 3 && !strcmp(few[0].name, c[0].name) && few[2].value == c[2].value, "3 of them: %d", n);
	CHECK(beryl_dev_counters(dev, NULL, 0) == 0, "none asked");
	CHECK(beryl_dev_counters(dev, NULL, 4) == -EINVAL && strstr(beryl_errmsg(), "NULL"), "NULL array");
	CHECK(beryl_dev_counters(NULL, c, 32) == -EINVAL && strstr(beryl_errmsg(), "NULL"), "NULL device");
	beryl_close(dev);

	/* no PCIe block in the chain: a clear error; the interfaces still work */
	fake_dev_default_cfg(&cfg);
	cfg.no_pcie = true;
	dev = NULL;
	n = open_fake(&cfg, &dev, &t);
	CHECK(!n, "open without a PCIe block: %d", n);
	if (dev) {
		CHECK(beryl_block_count(dev) == 4 && !strcmp(beryl_block_get(dev, 1)->name, "msix"), "id -> msix");
		n = beryl_dev_counters(dev, c, 32);
		CHECK(n == -ENODEV && strstr(beryl_errmsg(), "no PCIe block"), "missing block gave %d", n);
		CHECK(beryl_if_counters(beryl_if_get(dev, 0), c, 32) == (int)beryl_if_counter_count(),
		      "interface counters without a PCIe block");
		beryl_close(dev);
	}

	/* another major version of the block: refused, not misread */
	fake_dev_default_cfg(&cfg);
	cfg.pcie_version = 0x02000000u;
	dev = NULL;
	n = open_fake(&cfg, &dev, &t);
	CHECK(!n, "open with PCIe block 2.0.0: %d", n);
	if (dev) {
		n = beryl_dev_counters(dev, c, 32);
		CHECK(n == -EPROTO && strstr(beryl_errmsg(), "2.0.0"), "PCIe block 2.0.0 gave %d", n);
		beryl_close(dev);
	}
}

static void test_rss(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	struct beryl_if *nif;
	uint16_t table[128], back[128];
	struct beryl_rss rss = { .enable = true, .hash_en = BERYL_RSS_HASH_ALL, .default_queue = 1,
				 .table = table, .table_size = 128 };
	struct beryl_rss got = { .table = back };

	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	for (unsigned i = 0; i < 128; i++)
		table[i] = (uint16_t)(i % 4);
	for (unsigned i = 0; i < BERYL_RSS_KEY_BYTES; i++)
		rss.key[i] = (uint8_t)(0x6d + 3 * i);
	CHECK(!beryl_rss_set(nif, &rss, true), "rss set");
	CHECK(!beryl_rss_get(nif, &got), "rss get");
	CHECK(got.enable && got.hash_en == 0x3f && got.default_queue == 1, "ctrl back");
	CHECK(!memcmp(got.key, rss.key, 40), "key back");
	CHECK(!memcmp(back, table, sizeof(table)), "table back");
	table[5] = 4;
	CHECK(beryl_rss_set(nif, &rss, false) == -ERANGE, "table entry out of range");
	table[5] = 0;
	rss.table_size = 64;
	CHECK(beryl_rss_set(nif, &rss, false) == -EINVAL, "wrong table size");
	rss.table_size = 128;
	rss.hash_en = 0x40;
	CHECK(beryl_rss_set(nif, &rss, false) == -EINVAL, "bad hash bits");
	beryl_close(dev);
}

static void test_irq(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_default(&t);
	struct beryl_if_config cfg = { .txq_count = 1, .rxq_count = 1, .tx_log_size = 3, .irq = true };
	struct beryl_rx_pkt pk[4];
	uint8_t f[128];
	struct iovec iov = { f, udp_frame(f, 40, 5) };
	struct beryl_if *a, *b;
	uint32_t vec = 99;
	int n;

	if (!dev)
		return;
	a = beryl_if_get(dev, 0);
	b = beryl_if_get(dev, 1);
	cfg.vector = 3;
	CHECK(!beryl_if_start(b, &cfg), "start b");
	cfg.vector = -1;
	CHECK(!beryl_if_start(a, &cfg), "start a");
	CHECK(beryl_wait_irq(dev, 0, &vec) == 0, "no interrupt yet");
	for (int round = 0; round < 3; round++) {
		CHECK(beryl_tx_send(a, 0, &iov, 1, NULL, 0) >= 0, "send");
		/* TX completion on a (vector 0) and RX on b (vector 3) */
		n = 0;
		for (int k = 0; k < 2; k++) {
			if (beryl_wait_irq(dev, 100, &vec) == 1)
				n |= vec == 0 ? 1 : vec == 3 ? 2 : 4;
		}
		CHECK(n == 3, "round %d: interrupts seen 0x%x", round, n);
		CHECK(beryl_if_events(b) == 1, "one event on b");
		CHECK(beryl_rx_poll(b, 0, pk, 4) == 1, "frame on b");
		CHECK(beryl_if_events(a) == 1, "one event on a");
		CHECK(beryl_tx_complete(a, 0, NULL, 0) == 1, "completion on a");
	}
	CHECK(beryl_wait_irq(dev, 0, &vec) == 0, "nothing left");
	beryl_close(dev);
}

/* Interfaces 0 -> 1 of a fresh fake device, one TX queue of 32 descriptors of 256 bytes. */
static struct beryl_dev *open_fetch_fail(struct beryl_transport **t, struct beryl_if **a, struct beryl_if **b)
{
	struct beryl_dev *dev = open_default(t);
	struct beryl_if_config cfg = { .txq_count = 1, .rxq_count = 1, .tx_log_size = 5, .rx_log_size = 5,
				       .tx_buf_size = 256, .rx_buf_size = 2048 };

	if (!dev)
		return NULL;
	*a = beryl_if_get(dev, 0);
	*b = beryl_if_get(dev, 1);
	CHECK(!beryl_if_start(*a, &cfg) && !beryl_if_start(*b, &cfg), "start both");
	return dev;
}

/* Queue a frame of len bytes (filled with seed) on a's TX queue 0 without a doorbell; its first index. */
static int queue_frame(struct beryl_if *a, uint8_t *f, size_t len, uint8_t seed)
{
	struct iovec iov = { f, len };

	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i * 7);
	return beryl_tx_send(a, 0, &iov, 1, NULL, BERYL_TX_NO_DOORBELL);
}

static uint32_t if_counter(struct beryl_if *nif, const char *name)
{
	struct beryl_counter c[32];
	int n = beryl_if_counters(nif, c, 32);

	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].value;
	CHECK(0, "no counter %s", name);
	return 0;
}

/*
 * A TX descriptor fetch that fails for good (docs/blocks/nic_core.md, "Failed TX descriptor reads"):
 * the engine's extra error completions inside a packet that completed with an error are consumed,
 * the packets around them complete as usual; any other completion that names no packet's first
 * descriptor is still -EIO.
 */
static void test_tx_fetch_fail(void)
{
	struct beryl_transport *t;
	struct beryl_if *a, *b;
	struct beryl_dev *dev = open_fetch_fail(&t, &a, &b);
	struct beryl_rx_pkt pk[8];
	struct beryl_cpl cpl[8];
	uint8_t f[4][700];
	int n, err;

	if (!dev)
		return;
	/* 0..2, 3..4, 5, 6..8; the fetch of 1..3 fails: P0 (open) completes at 0, 1 and 2 inside it,
	 * 3 starts P1, the resync skips 4 (inside P1); P2 and P3 go out */
	CHECK(queue_frame(a, f[0], 600, 1) == 0 && queue_frame(a, f[1], 400, 2) == 3 &&
	      queue_frame(a, f[2], 100, 3) == 5 && queue_frame(a, f[3], 520, 4) == 6, "queue 4 frames");
	fake_dev_tx_fetch_fail(fake_transport_dev(t), 0, 0, 1, 3);
	CHECK(!beryl_tx_flush(a, 0), "doorbell");
	n = beryl_tx_complete(a, 0, cpl, 8);
	CHECK(n == 4, "4 packets completed: %d", n);
	if (n == 4) {
		CHECK(cpl[0].index == 0 && cpl[0].status == BERYL_CPL_DMA_ERR, "P0: %u/%u", cpl[0].index, cpl[0].status);
		CHECK(cpl[1].index == 3 && cpl[1].status == BERYL_CPL_DMA_ERR, "P1: %u/%u", cpl[1].index, cpl[1].status);
		CHECK(cpl[2].index == 5 && cpl[2].status == BERYL_CPL_OK, "P2: %u/%u", cpl[2].index, cpl[2].status);
		CHECK(cpl[3].index == 6 && cpl[3].status == BERYL_CPL_OK, "P3: %u/%u", cpl[3].index, cpl[3].status);
	}
	CHECK(beryl_tx_pending(a, 0) == 0, "all freed: %u pending", beryl_tx_pending(a, 0));
	n = poll_all(b, pk, 8);
	CHECK(n == 2 && pk[0].len == 100 && !memcmp(pk[0].data, f[2], 100) && pk[1].len == 520 &&
	      !memcmp(pk[1].data, f[3], 520), "P2 and P3 arrive, nothing else: %d", n);
	CHECK(if_counter(a, "tx_desc_retry") == 2 && if_counter(a, "tx_dma_err") == 5, "retries %u, DMA errors %u",
	      if_counter(a, "tx_desc_retry"), if_counter(a, "tx_dma_err"));

	/* 9..10, 11..13, 14; the fetch of 9..10 fails on a packet boundary: the resync drops P5 whole
	 * (its own index); taken one packet per call, cons never goes back */
	CHECK(queue_frame(a, f[0], 300, 5) == 9 && queue_frame(a, f[1], 700, 6) == 11 &&
	      queue_frame(a, f[2], 60, 7) == 14, "queue 3 frames");
	fake_dev_tx_fetch_fail(fake_transport_dev(t), 0, 0, 9, 2);
	CHECK(!beryl_tx_flush(a, 0), "doorbell");
	n = beryl_tx_complete(a, 0, cpl, 1);
	CHECK(n == 1 && cpl[0].index == 9 && cpl[0].status == BERYL_CPL_DMA_ERR, "P4: %d", n);
	CHECK(beryl_tx_pending(a, 0) == 4, "after P4: %u pending", beryl_tx_pending(a, 0));
	n = beryl_tx_complete(a, 0, cpl, 1);
	CHECK(n == 1 && cpl[0].index == 11 && cpl[0].status == BERYL_CPL_DMA_ERR, "P5: %d", n);
	CHECK(beryl_tx_pending(a, 0) == 1, "after P5: %u pending", beryl_tx_pending(a, 0));
	n = beryl_tx_complete(a, 0, cpl, 1);
	CHECK(n == 1 && cpl[0].index == 14 && cpl[0].status == BERYL_CPL_OK, "P6: %d", n);
	CHECK(beryl_tx_complete(a, 0, cpl, 1) == 0 && beryl_tx_pending(a, 0) == 0, "nothing left");
	n = poll_all(b, pk, 8);
	CHECK(n == 1 && pk[0].len == 60 && !memcmp(pk[0].data, f[2], 60), "only P6 arrives: %d", n);

	/* the queue goes on */
	CHECK(queue_frame(a, f[0], 500, 8) == 15 && !beryl_tx_flush(a, 0), "send after");
	n = beryl_tx_complete(a, 0, cpl, 8);
	CHECK(n == 1 && cpl[0].index == 15 && cpl[0].status == BERYL_CPL_OK, "P7: %d", n);
	CHECK(poll_all(b, pk, 8) == 1 && pk[0].len == 500 && !memcmp(pk[0].data, f[0], 500), "P7 arrives");
	beryl_close(dev);

	/* an error completion inside a packet that completed OK: -EIO, the entry stays */
	dev = open_fetch_fail(&t, &a, &b);
	if (!dev)
		return;
	CHECK(queue_frame(a, f[0], 600, 1) == 0 && !beryl_tx_flush(a, 0), "send");
	CHECK(beryl_tx_complete(a, 0, NULL, 0) == 1, "completed OK");
	fake_dev_tx_cpl(fake_transport_dev(t), 0, 0, 1, BERYL_CPL_DMA_ERR);
	err = beryl_tx_complete(a, 0, NULL, 0);
	CHECK(err == -EIO && strstr(beryl_errmsg(), "matches no packet"), "inside an OK packet: %d", err);
	CHECK(beryl_tx_complete(a, 0, NULL, 0) == -EIO, "still there");
	beryl_close(dev);

	/* inside a failed packet, but after a later packet completed: -EIO (completions come in ring order) */
	dev = open_fetch_fail(&t, &a, &b);
	if (!dev)
		return;
	CHECK(queue_frame(a, f[0], 600, 1) == 0 && queue_frame(a, f[1], 100, 2) == 3, "queue 2");
	fake_dev_tx_fetch_fail(fake_transport_dev(t), 0, 0, 0, 1);
	CHECK(!beryl_tx_flush(a, 0) && beryl_tx_complete(a, 0, NULL, 0) == 2, "P0 failed, P1 sent");
	fake_dev_tx_cpl(fake_transport_dev(t), 0, 0, 2, BERYL_CPL_DMA_ERR);
	err = beryl_tx_complete(a, 0, NULL, 0);
	CHECK(err == -EIO, "inside P0 after P1: %d", err);
	beryl_close(dev);

	/* an OK completion inside a failed packet: -EIO, nothing freed again */
	dev = open_fetch_fail(&t, &a, &b);
	if (!dev)
		return;
	CHECK(queue_frame(a, f[0], 600, 1) == 0, "queue");
	fake_dev_tx_fetch_fail(fake_transport_dev(t), 0, 0, 0, 1);
	CHECK(!beryl_tx_flush(a, 0), "doorbell");
	n = beryl_tx_complete(a, 0, cpl, 8);
	CHECK(n == 1 && cpl[0].index == 0 && cpl[0].status == BERYL_CPL_DMA_ERR, "P0 failed: %d", n);
	CHECK(queue_frame(a, f[1], 300, 2) == 3, "queue P1 (no doorbell)");
	fake_dev_tx_cpl(fake_transport_dev(t), 0, 0, 2, BERYL_CPL_OK);
	err = beryl_tx_complete(a, 0, cpl, 8);
	CHECK(err == -EIO && strstr(beryl_errmsg(), "index 2 (status 0)"), "OK inside P0: %d (%s)", err,
	      beryl_errmsg());
	CHECK(beryl_tx_pending(a, 0) == 2, "P1 still pending: %u", beryl_tx_pending(a, 0));
	beryl_close(dev);
}

static void test_alloc(void)
{
	uint8_t *mem = aligned_alloc(4096, 1 << 20);
	struct beryl_dma_pool *p;
	struct beryl_dma_buf b[8];

	CHECK(!beryl_dma_pool_create(mem, 0x100000000ull, 1 << 20, &p), "pool");
	CHECK(!beryl_dma_pool_alloc(p, 100, 64, &b[0]) && b[0].bus == 0x100000000ull, "first");
	CHECK(!beryl_dma_pool_alloc(p, 4096, 4096, &b[1]) && !(b[1].bus & 4095), "aligned");
	CHECK(!beryl_dma_pool_alloc(p, 64, 64, &b[2]) && b[2].bus == 0x100000080ull, "gap reused");
	CHECK(beryl_dma_pool_alloc(p, 2 << 20, 64, &b[3]) == -ENOMEM, "too big");
	beryl_dma_pool_free(p, &b[1]);
	beryl_dma_pool_free(p, &b[0]);
	beryl_dma_pool_free(p, &b[2]);
	CHECK(beryl_dma_pool_in_use(p) == 0, "all free");
	CHECK(!beryl_dma_pool_alloc(p, 1 << 20, 64, &b[4]), "whole window after merging");
	beryl_dma_pool_free(p, &b[4]);
	beryl_dma_pool_destroy(p);
	free(mem);
}

/* A fake device with the given scheduler type (2 ports, 4 TX queues), a PTP block when nom_incr != 0. */
static struct beryl_dev *open_sched(unsigned type, uint64_t nom_incr, enum fake_fault fault, struct beryl_transport **t)
{
	struct fake_dev_cfg cfg;
	struct beryl_dev *dev = NULL;
	int err;

	fake_dev_default_cfg(&cfg);
	cfg.ports = 2;
	cfg.tx_sched = type;
	cfg.ptp_nom_incr = nom_incr;
	cfg.fault = fault;
	err = open_fake(&cfg, &dev, t);
	CHECK(!err, "open (scheduler %u): %d", type, err);
	return dev;
}

#define NOM_4NS (4ull << 32)

static void test_sched_rate_conversion(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_sched(1, NOM_4NS, FAKE_OK, &t);
	struct beryl_if *nif;
	uint32_t r = 7;
	double bps;

	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	CHECK(beryl_ptp_present(dev) && beryl_block_count(dev) == 6, "PTP block found (%u blocks)",
	      beryl_block_count(dev));
	/* at 4 ns a cycle: 10 Gb/s = 1.25 GB/s = 5 bytes per cycle = 5 x 2^24 */
	CHECK(!beryl_sched_bps_to_rate(nif, 10000000000ull, &r) && r == 5u << 24, "10G: 0x%x", r);
	CHECK(!beryl_sched_bps_to_rate(nif, 2500000000ull, &r) && r == 20971520, "2.5G: %u", r);
	/* 100 Mb/s: 0.05 bytes per cycle = 838860.8 x 2^-24, rounded down */
	CHECK(!beryl_sched_bps_to_rate(nif, 100000000ull, &r) && r == 838860, "100M: %u", r);
	CHECK(!beryl_sched_bps_to_rate(nif, 0, &r) && r == 0, "0 = not limited: %u", r);
	/* the step is 2^-24 bytes per 4 ns = 119.2 bit/s; 256 bytes per cycle = 512 Gb/s does not fit */
	CHECK(!beryl_sched_bps_to_rate(nif, 120, &r) && r == 1, "120 bit/s: %u", r);
	CHECK(beryl_sched_bps_to_rate(nif, 119, &r) == -ERANGE && strstr(beryl_errmsg(), "step"), "119 bit/s");
	CHECK(!beryl_sched_bps_to_rate(nif, 511999999881ull, &r) && r == 0xffffffffu, "just below 512G: 0x%x", r);
	CHECK(beryl_sched_bps_to_rate(nif, 512000000000ull, &r) == -ERANGE, "512G");
	CHECK(!beryl_sched_rate_to_bps(nif, 5u << 24, &bps) && bps == 1e10, "back to bit/s: %g", bps);
	beryl_close(dev);

	/* 156.25 MHz: 6.4 ns = 27487790694.4 x 2^-32 ns, the build's increment 27487790694 */
	dev = open_sched(1, 27487790694ull, FAKE_OK, &t);
	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	/* 1 Gb/s x 6.4 ns / 8 = 0.8 bytes per cycle = 13421772.8 x 2^-24; with the build's increment 13421772.79 */
	CHECK(!beryl_sched_bps_to_rate(nif, 1000000000ull, &r) && r == 13421772, "1G at 6.4 ns: %u", r);
	beryl_close(dev);

	/* no PTP block: bit/s cannot be converted, raw rates still work */
	dev = open_sched(1, 0, FAKE_OK, &t);
	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	CHECK(beryl_sched_rate_set_bps(nif, 0, 1, 1000000, 1500) == -ENODEV && strstr(beryl_errmsg(), "PTP"),
	      "bit/s without a PTP block");
	CHECK(!beryl_sched_rate_set(nif, 0, 1, 1u << 24, 1500), "raw rate without a PTP block");
	beryl_close(dev);
}

static void test_sched_rate(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_sched(1, NOM_4NS, FAKE_OK, &t);
	struct beryl_tb_queue q;
	struct beryl_if *nif;
	uint32_t mask;
	int err;

	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	CHECK(beryl_if_params(nif)->tx_sched == 1 && beryl_if_params(nif)->tdma_slots_max == 0, "params %u %u",
	      beryl_if_params(nif)->tx_sched, beryl_if_params(nif)->tdma_slots_max);
	CHECK(beryl_sched_type(nif) == BERYL_SCHED_TB && !strcmp(beryl_sched_type_name(1), "token-bucket"), "type");
	CHECK(!beryl_sched_rate_get(nif, 0, 1, &q) && q.rate == 0 && q.burst == 0 && q.tokens == 0, "reset: unlimited");
	CHECK(!beryl_sched_rate_set(nif, 0, 1, 0x01800000, 3000), "set raw");
	CHECK(!beryl_sched_rate_set_bps(nif, 1, 1, 100000000, 9000), "set 100M on port 1");
	CHECK(!beryl_sched_rate_get(nif, 0, 1, &q) && q.rate == 0x01800000 && q.burst == 3000 && q.tokens == 3000,
	      "port 0 queue 1: 0x%x %u %d", q.rate, q.burst, q.tokens);
	CHECK(!beryl_sched_rate_get(nif, 1, 1, &q) && q.rate == 838860 && q.burst == 9000, "port 1 queue 1: %u %u",
	      q.rate, q.burst);
	CHECK(!beryl_sched_rate_get(nif, 0, 2, &q) && q.rate == 0, "queue 2 untouched");
	/* the last access left the staging registers as a read command loads them */
	CHECK(fake_dev_read(fake_transport_dev(t), beryl_if_offset(nif) + BERYL_NIC_IF_SCHED_Q_CMD_OFFSET) == 2,
	      "SCHED_Q_CMD reads the last op");
	CHECK(!beryl_sched_rate_set(nif, 0, 3, 0, 0), "unlimited, no burst");
	CHECK(!beryl_sched_rate_set(nif, 0, 3, 1, BERYL_SCHED_BURST_MAX), "largest burst");

	/* misuse */
	err = beryl_sched_rate_set(nif, 2, 1, 1, 1);
	CHECK(err == -ERANGE && strstr(beryl_errmsg(), "port 2"), "port 2 of 2: %d", err);
	err = beryl_sched_rate_get(nif, 0, 4, &q);
	CHECK(err == -ERANGE && strstr(beryl_errmsg(), "TX queue 4"), "queue 4 of 4: %d", err);
	CHECK(beryl_sched_rate_set(nif, 0, 1, 1, BERYL_SCHED_BURST_MAX + 1) == -ERANGE, "burst of 2^24");
	err = beryl_sched_rate_set(nif, 0, 1, 1, 0);
	CHECK(err == -EINVAL && strstr(beryl_errmsg(), "never"), "rate with a burst of 0: %d", err);
	CHECK(beryl_sched_rate_set_bps(nif, 0, 1, 10, 1500) == -ERANGE, "10 bit/s");
	err = beryl_tdma_mask_get(nif, 0, 1, &mask);
	CHECK(err == -EOPNOTSUPP && strstr(beryl_errmsg(), "tdma scheduler") && strstr(beryl_errmsg(), "token-bucket"),
	      "mask on a token-bucket build: %d", err);
	CHECK(beryl_tdma_set(nif, 0, &(struct beryl_tdma_schedule){ .slot_count = 1 }) == -EOPNOTSUPP, "TDMA");
	beryl_close(dev);

	/* a device whose scheduler refuses the command (ERR) although it says token bucket */
	dev = open_sched(1, NOM_4NS, FAKE_SCHED_REFUSE, &t);
	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	err = beryl_sched_rate_set(nif, 0, 1, 1, 1);
	CHECK(err == -EIO && strstr(beryl_errmsg(), "refused the write"), "refused write: %d", err);
	err = beryl_sched_rate_get(nif, 0, 1, &q);
	CHECK(err == -EIO && strstr(beryl_errmsg(), "refused the read"), "refused read: %d", err);
	beryl_close(dev);

	/* round robin: no per-queue parameters */
	dev = open_sched(0, NOM_4NS, FAKE_OK, &t);
	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	err = beryl_sched_rate_set_bps(nif, 0, 1, 1000000, 1500);
	CHECK(err == -EOPNOTSUPP && strstr(beryl_errmsg(), "round-robin"), "rate on round robin: %d", err);
	CHECK(beryl_sched_rate_get(nif, 0, 1, &q) == -EOPNOTSUPP, "rate get on round robin");
	fake_dev_sched_observe(fake_transport_dev(t), 0, 1, &(struct fake_sched_obs){ .bad_sts = 3 });
	CHECK(!beryl_sched_bad_sts(nif, 1, &mask) && mask == 3, "bad statuses on any build: %u", mask);
	CHECK(beryl_sched_bad_sts(nif, 2, &mask) == -ERANGE, "bad statuses of port 2");
	beryl_close(dev);
}

static void test_sched_tdma(void)
{
	struct beryl_transport *t;
	struct beryl_dev *dev = open_sched(2, NOM_4NS, FAKE_OK, &t);
	struct beryl_tdma_schedule s;
	struct beryl_tdma_status st;
	struct beryl_tb_queue q;
	struct beryl_if *nif;
	uint32_t v = 0, base;
	int err;

	if (!dev)
		return;
	nif = beryl_if_get(dev, 0);
	base = beryl_if_offset(nif);
	CHECK(beryl_if_params(nif)->tdma_slots_max == 8, "slots max %u", beryl_if_params(nif)->tdma_slots_max);
	CHECK(!beryl_tdma_nspb(100000000000ull, &v) && v == 0x00147ae2, "100G: 0x%x", v);
	CHECK(!beryl_tdma_nspb(25000000000ull, &v) && v == 0x0051eb86, "25G: 0x%x", v);
	CHECK(!beryl_tdma_nspb(10000000000ull, &v) && v == 0x00cccccd, "10G: 0x%x", v);
	CHECK(!beryl_tdma_nspb(1000000000ull, &v) && v == 8u << 24, "1G: exactly 8 ns per byte: 0x%x", v);
	CHECK(beryl_tdma_nspb(31250000, &v) == -ERANGE && beryl_tdma_nspb(0, &v) == -ERANGE, "31.25M, 0");
	beryl_tdma_defaults(&s);
	CHECK(s.gate_nspb == 0x00147ae2 && s.overhead == 24 && s.margin_ns == 16 && !s.gate, "defaults");

	/* reset: no schedule, the gate registers at their defaults */
	CHECK(!beryl_tdma_status(nif, 1, &st) && !st.enable && !st.cfg_err && st.sched.gate_nspb == 0x00147ae2 &&
	      st.sched.overhead == 24 && st.sched.margin_ns == 16, "reset status");
	s.start = (struct beryl_ptp_time){ .sec = 0x123456789aull, .nsec = 999999999, .fns = 77 };
	s.period_ns = 20000;
	s.slot_ns = 8000;
	s.slot_count = 2;
	s.guard_ns = 1500;
	s.gate = s.hold_own = true;
	CHECK(!beryl_tdma_nspb(10000000000ull, &s.gate_nspb), "10G");
	s.overhead = 20;
	s.margin_ns = 40;
	err = beryl_tdma_set(nif, 1, &s);
	CHECK(!err, "set: %d", err);
	fake_dev_sched_observe(fake_transport_dev(t), 0, 1, &(struct fake_sched_obs){
		.slot_valid = true, .slot_index = 1, .hold = 11, .offslot = 12, .overrun = 13, .park = 14, .bad_sts = 15 });
	CHECK(!beryl_tdma_status(nif, 1, &st), "status");
	CHECK(st.enable && !st.cfg_err && !st.searching && st.slot_valid && st.slot_index == 1, "ctrl bits");
	CHECK(st.sched.start.sec == 0x123456789aull && st.sched.start.nsec == 999999999 && st.sched.start.fns == 0 &&
	      st.sched.period_ns == 20000 && st.sched.slot_ns == 8000 && st.sched.slot_count == 2 &&
	      st.sched.guard_ns == 1500 && st.sched.gate && st.sched.hold_own && st.sched.gate_nspb == 0x00cccccd &&
	      st.sched.overhead == 20 && st.sched.margin_ns == 40, "schedule read back");
	CHECK(st.hold == 11 && st.offslot == 12 && st.overrun == 13 && st.park == 14 && st.bad_sts == 15, "counters");
	CHECK(!beryl_tdma_status(nif, 0, &st) && !st.enable && st.sched.period_ns == 0, "port 0 untouched");

	/* a schedule the timer refuses; found only because the set re-arms (ENABLE 0, then 1) */
	s.slot_count = 3;
	err = beryl_tdma_set(nif, 1, &s);
	CHECK(err == -EINVAL && strstr(beryl_errmsg(), "CFG_ERR") && strstr(beryl_errmsg(), "3 slots of 8000 ns"),
	      "3 x 8 us in 20 us: %d", err);
	CHECK(!beryl_tdma_status(nif, 1, &st) && st.enable && st.cfg_err, "refused: enabled, CFG_ERR");
	s.slot_ns = 0;
	CHECK(beryl_tdma_set(nif, 1, &s) == -EINVAL, "slot length 0");
	s.slot_ns = 8000;
	s.period_ns = 24000;
	CHECK(!beryl_tdma_set(nif, 1, &s) && !beryl_tdma_status(nif, 1, &st) && st.enable && !st.cfg_err,
	      "3 x 8 us in 24 us");
	/* what the registers cannot hold is refused before any write */
	s.slot_count = 9;
	err = beryl_tdma_set(nif, 1, &s);
	CHECK(err == -EINVAL && strstr(beryl_errmsg(), "1..8"), "9 slots of 8: %d", err);
	s.slot_count = 0;
	CHECK(beryl_tdma_set(nif, 1, &s) == -EINVAL, "0 slots");
	s.slot_count = 2;
	s.start.nsec = 1000000000;
	CHECK(beryl_tdma_set(nif, 1, &s) == -EINVAL && strstr(beryl_errmsg(), "start"), "start ns 10^9");
	s.start.nsec = 0;
	s.margin_ns = 65536;
	CHECK(beryl_tdma_set(nif, 1, &s) == -EINVAL, "margin 65536");
	s.margin_ns = 16;
	CHECK(!beryl_tdma_status(nif, 1, &st) && st.sched.slot_count == 3 && !st.cfg_err, "left as it was");
	/* a count the library refuses, written behind its back: the timer refuses it too (CFG_ERR) */
	beryl_write32(dev, base + BERYL_NIC_IF_TDMA_CTRL_OFFSET, 0);
	beryl_write32(dev, base + BERYL_NIC_IF_TDMA_SLOT_COUNT_OFFSET, 17);
	beryl_write32(dev, base + BERYL_NIC_IF_TDMA_CTRL_OFFSET, 1);
	CHECK(!beryl_tdma_status(nif, 1, &st) && st.enable && st.cfg_err && st.sched.slot_count == 17,
	      "17 slots of 8 written directly: CFG_ERR");

	CHECK(!beryl_tdma_disable(nif, 1) && !beryl_tdma_status(nif, 1, &st) && !st.enable && !st.sched.gate,
	      "disabled");

	/* slot masks */
	CHECK(!beryl_tdma_mask_get(nif, 1, 3, &v) && v == 0xff, "reset mask: every slot: 0x%x", v);
	CHECK(!beryl_tdma_mask_set(nif, 1, 3, 0x05), "mask set");
	CHECK(!beryl_tdma_mask_get(nif, 1, 3, &v) && v == 0x05, "mask back: 0x%x", v);
	CHECK(!beryl_tdma_mask_get(nif, 0, 3, &v) && v == 0xff, "port 0's queue 3: 0x%x", v);
	CHECK(!beryl_tdma_mask_set(nif, 1, 2, 0), "empty mask (the queue parks)");
	err = beryl_tdma_mask_set(nif, 1, 3, 0x100);
	CHECK(err == -EINVAL && strstr(beryl_errmsg(), "beyond the 8"), "slot 8 of 8: %d", err);
	CHECK(!beryl_tdma_mask_get(nif, 1, 3, &v) && v == 0x05, "unchanged: 0x%x", v);
	CHECK(beryl_tdma_mask_set(nif, 1, 4, 1) == -ERANGE && beryl_tdma_mask_set(nif, 2, 0, 1) == -ERANGE, "range");
	CHECK(beryl_tdma_status(nif, 2, &st) == -ERANGE && beryl_tdma_disable(nif, 2) == -ERANGE, "port 2");
	err = beryl_sched_rate_get(nif, 0, 1, &q);
	CHECK(err == -EOPNOTSUPP && strstr(beryl_errmsg(), "tdma"), "rate on TDMA: %d", err);
	beryl_close(dev);
}

/*
 * The servo against a model of two clocks: the slave's oscillator runs err_ppb fast and starts
 * off0 ns away; every T ns of master time one offset sample (slave - master, with a uniform
 * +-noise ns timestamping error from a fixed-seed generator) is fed; the servo's steps and frequency
 * are applied to the model. The model's true offset must settle under 10 ns within 12 samples and
 * stay there; the frequency estimate must cancel the oscillator error to within 1 ppb.
 */
static void servo_case(double err_ppb, double off0, double noise)
{
	struct beryl_servo s;
	double master = 1e9, slave = 1e9 + off0, adj = 0, worst = 0, fsum = 0;
	const double T = 100e3;
	uint32_t rng = 12345;
	int locked_at = -1;

	beryl_servo_init(&s, 0);
	for (int k = 0; k < 200; k++) {
		double step, meas, u;
		enum beryl_servo_state st;

		rng = rng * 1664525u + 1013904223u;
		u = (double)(rng >> 8) / (double)(1u << 24) * 2 - 1;
		meas = slave - master + noise * u;
		st = beryl_servo_sample(&s, meas, slave, &adj, &step);
		slave += step;
		if (st == BERYL_SERVO_JUMP)
			CHECK(step != 0, "no step on the second sample");
		/* next interval: the slave advances by its oscillator rate times the servo's correction */
		master += T;
		slave += T * (1 + err_ppb * 1e-9) * (1 + adj * 1e-9);
		if (k >= 12) {
			double o = slave - master;
			worst = worst > (o < 0 ? -o : o) ? worst : (o < 0 ? -o : o);
		}
		if (k >= 100)
			fsum += ((1 + err_ppb * 1e-9) * (1 + s.freq_ppb * 1e-9) - 1) * 1e9;
		if (locked_at < 0 && st == BERYL_SERVO_LOCKED)
			locked_at = k;
	}
	CHECK(locked_at == 1 || locked_at == 2, "locked at sample %d", locked_at);
	CHECK(worst < 10, "err %g ppb off0 %g: max |offset| after 12 samples %g ns", err_ppb, off0, worst);
	/* (1 + err)(1 + estimate) = 1 on average: the estimate cancels the oscillator; the noise moves
	 * each sample's estimate by ki * noise / T (6000 ppb for 2 ns in 100 us), the mean much less */
	CHECK(fabs(fsum / 100) < 1 + 100 * noise, "err %g ppb: mean residual frequency %g ppb", err_ppb, fsum / 100);
}

static void test_servo(void)
{
	servo_case(100e3, 0, 0);        /* +100 ppm */
	servo_case(-100e3, 5e6, 2);     /* -100 ppm, 5 ms apart, +-2 ns timestamp noise */
	servo_case(37.5, -1e9, 4);      /* a second behind, +-4 ns noise */
	/* a locked servo that sees a huge offset starts over (steps again) */
	{
		struct beryl_servo s;
		double adj, step;

		beryl_servo_init(&s, 0);
		beryl_servo_sample(&s, 100, 0, &adj, &step);
		beryl_servo_sample(&s, 100, 1e5, &adj, &step);
		CHECK(s.state == BERYL_SERVO_LOCKED && step == -100, "locked after two samples, stepped by -offset");
		CHECK(beryl_servo_sample(&s, 5e6, 2e5, &adj, &step) == BERYL_SERVO_UNLOCKED, "re-lock on 5 ms");
	}
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "alloc", test_alloc }, { "discovery", test_discovery }, { "open_errors", test_open_errors },
		{ "misuse", test_misuse }, { "loopback", test_loopback }, { "dev_counters", test_dev_counters },
		{ "rss", test_rss }, { "irq", test_irq }, { "tx_fetch_fail", test_tx_fetch_fail },
		{ "servo", test_servo }, { "sched_rate_conversion", test_sched_rate_conversion },
		{ "sched_rate", test_sched_rate }, { "sched_tdma", test_sched_tdma },
	};

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;

		tests[i].fn();
		printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
