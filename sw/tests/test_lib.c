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
		{ "misuse", test_misuse }, { "loopback", test_loopback }, { "rss", test_rss }, { "irq", test_irq },
		{ "servo", test_servo },
	};

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;

		tests[i].fn();
		printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
