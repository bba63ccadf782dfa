// SPDX-License-Identifier: MIT
/*
 * loopback: integration check through a device: frames from interface A to interface B (cabled to
 * each other, or A looped to itself), data, checksum insertion and RX sums checked, then the NIC's
 * counters. With a PTP clock, also the RX - TX timestamp difference of every frame (the wire's delay,
 * first bit out to first bit in, when the ports' corrections are 0). Prints one JSON line; exit 0 if
 * everything arrived intact.
 *   loopback [-s SOCKET] [--count N] [--irq] [--queues N] [--from A] [--to B]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beryl.h"

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Ethernet + IPv4 + UDP, the UDP checksum field holding the pseudo-header sum; flow picks the port. */
static size_t udp_frame(uint8_t *f, size_t payload, unsigned seq, unsigned flow)
{
	size_t ulen = 8 + payload, len = 42 + payload;
	uint32_t ph;

	memset(f, 0, len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	f[14] = 0x45;
	f[16] = (uint8_t)((20 + ulen) >> 8);
	f[17] = (uint8_t)(20 + ulen);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\0\0\x01\x0a\0\0\x02", 8);
	f[34] = 0x30;
	f[35] = (uint8_t)flow;
	f[36] = 0x40;
	f[38] = (uint8_t)(ulen >> 8);
	f[39] = (uint8_t)ulen;
	ph = sum16(f + 14, 20, 0);
	ph = (uint16_t)~ph;
	f[24] = (uint8_t)(ph >> 8);
	f[25] = (uint8_t)ph;
	f[42] = (uint8_t)(seq >> 8);
	f[43] = (uint8_t)seq;
	for (size_t i = 2; i < payload; i++)
		f[42 + i] = (uint8_t)(seq * 13 + i);
	ph = sum16(f + 26, 8, 17 + (uint32_t)ulen);
	f[40] = (uint8_t)(ph >> 8);
	f[41] = (uint8_t)ph;
	return len;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' }, { "count", required_argument, NULL, 'n' },
		{ "irq", no_argument, NULL, 'i' }, { "queues", required_argument, NULL, 'q' },
		{ "from", required_argument, NULL, 'a' }, { "to", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	const char *sock = NULL;
	unsigned count = 64, nq = 1, ia = 0, ib = 1, got = 0, bad = 0, csum_bad = 0, done = 0;
	unsigned *seen;
	double timeout = 60, t0;
	bool irq = false;
	struct beryl_dev *dev;
	struct beryl_if *a, *b;
	struct beryl_counter ca[32], cb[32];
	uint32_t *tx_seq = NULL;        /* TX queue q, ring index i -> frame number */
	uint64_t *tx_ts = NULL, *rx_ts = NULL;
	struct beryl_ptp_time tnow;
	double dmin = 0, dmax = 0, dsum = 0;
	unsigned long long sent_bytes = 0, got_bytes = 0;     /* frame bytes sent and received */
	unsigned nts = 0;
	int c, err, na, nb;

	while ((c = getopt_long(argc, argv, "s:n:iq:a:b:t:", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'n':
			count = (unsigned)atoi(optarg);
			break;
		case 'i':
			irq = true;
			break;
		case 'q':
			nq = (unsigned)atoi(optarg);
			break;
		case 'a':
			ia = (unsigned)atoi(optarg);
			break;
		case 'b':
			ib = (unsigned)atoi(optarg);
			break;
		case 't':
			timeout = atof(optarg);
			break;
		default:
			return 2;
		}
	}
	err = beryl_open("sim", sock, &dev);
	if (err) {
		fprintf(stderr, "loopback: %s\n", beryl_errmsg());
		return 3;
	}
	seen = calloc(count, sizeof(*seen));
	tx_ts = calloc(count, sizeof(*tx_ts));
	rx_ts = calloc(count, sizeof(*rx_ts));
	tx_seq = calloc((size_t)nq * 65536u, sizeof(*tx_seq));
	a = beryl_if_get(dev, ia);
	b = ia == ib ? a : beryl_if_get(dev, ib);
	if (!a || !b || !seen || !tx_ts || !rx_ts || !tx_seq) {
		fprintf(stderr, "loopback: %s\n", beryl_errmsg());
		beryl_close(dev);
		free(seen);
		free(tx_ts);
		free(rx_ts);
		free(tx_seq);
		return 2;
	}
	{
		struct beryl_if_config cfg = { .txq_count = nq, .rxq_count = nq, .tx_log_size = 6,
					       .rx_log_size = 8, .tx_buf_size = 512, .rx_buf_size = 2048,
					       .irq = irq, .vector = -1 };

		err = beryl_if_start(a, &cfg);
		if (!err && b != a)
			err = beryl_if_start(b, &cfg);
		if (!err) {
			/* RSS as this test wants it: spread over nq queues, or off (everything to queue 0) */
			uint16_t tbl[4096];
			struct beryl_rss r = { .table = tbl };

			err = beryl_rss_get(b, &r);
			for (unsigned k = 0; k < r.table_size; k++)
				tbl[k] = (uint16_t)(k % nq);
			for (unsigned k = 0; k < BERYL_RSS_KEY_BYTES; k++)
				r.key[k] = (uint8_t)(0x6d + 17 * k);
			r.enable = nq > 1;
			r.hash_en = BERYL_RSS_HASH_ALL;
			r.default_queue = 0;
			if (!err)
				err = beryl_rss_set(b, &r, true);
		}
		if (err) {
			fprintf(stderr, "loopback: start: %s\n", beryl_errmsg());
			beryl_close(dev);
			free(seen);
			free(tx_ts);
			free(rx_ts);
			free(tx_seq);
			return 1;
		}
	}
	t0 = now();
	for (unsigned sent = 0; (got < count || done < count) && now() - t0 < timeout;) {
		struct beryl_rx_pkt pk[32];
		uint32_t vec;

		/* keep a window of frames in flight; sizes 60..1500, every third with checksum insertion; only
		 * while the ring has room for a frame's descriptors (at most 5 of 512 bytes): on a full ring
		 * send reclaims completions itself, and their timestamps would be lost to this program */
		while (sent < count && sent - got < 48 && beryl_tx_pending(a, sent % nq) + 5 <= 64) {
			uint8_t f[2048];
			size_t len = udp_frame(f, 18 + (sent * 97) % 1440, sent, sent % 16);
			struct iovec iov[3] = { { f, 20 }, { f + 20, 30 }, { f + 50, len - 50 } };
			struct beryl_tx_csum cs = { .start = 34, .offset = 6 };
			unsigned q = sent % nq;

			err = beryl_tx_send(a, q, sent % 2 ? iov : (struct iovec[]){ { f, len } }, sent % 2 ? 3 : 1,
					    sent % 3 == 0 ? &cs : NULL, 0);
			if (err == -EAGAIN)
				break;
			if (err < 0) {
				fprintf(stderr, "loopback: send: %s\n", beryl_errmsg());
				goto out;
			}
			tx_seq[q * 65536u + (unsigned)err] = sent;
			sent_bytes += len;
			sent++;
		}
		if (irq) {
			if (beryl_wait_irq(dev, 10, &vec) == 1) {
				beryl_if_events(a);
				if (b != a)
					beryl_if_events(b);
			}
		}
		for (unsigned q = 0; q < nq; q++) {
			struct beryl_cpl tc[64];
			int n = beryl_tx_complete(a, q, tc, 64);

			if (n < 0) {
				fprintf(stderr, "loopback: tx completions: %s\n", beryl_errmsg());
				goto out;
			}
			done += (unsigned)n;   /* one completion per frame (the window above keeps send from reclaiming) */
			for (int i = 0; i < n; i++)
				if (tc[i].status == BERYL_CPL_OK)
					tx_ts[tx_seq[q * 65536u + tc[i].index]] = tc[i].timestamp;
			n = beryl_rx_poll(b, q, pk, 32);
			if (n < 0) {
				fprintf(stderr, "loopback: receive: %s\n", beryl_errmsg());
				goto out;
			}
			for (int i = 0; i < n; i++) {
				uint8_t want[2048];
				unsigned seq = pk[i].len >= 44 ? (unsigned)pk[i].data[42] << 8 | pk[i].data[43] : 0;
				size_t len = seq < count ? udp_frame(want, 18 + (seq * 97) % 1440, seq, seq % 16) : 0;
				uint32_t s;

				got++;
				got_bytes += pk[i].len;
				if (seq < count)
					rx_ts[seq] = pk[i].cpl.timestamp;
				/* the checksum field differs where the device inserted it: compare the rest */
				if (pk[i].cpl.status || !len || pk[i].len != len || memcmp(pk[i].data, want, 40) ||
				    memcmp(pk[i].data + 42, want + 42, len - 42) ||
				    (seq % 3 && memcmp(pk[i].data + 40, want + 40, 2)) || seen[seq]++) {
					bad++;
					continue;
				}
				/* the UDP checksum verifies, and the device's RX sum (from byte 14) is right */
				s = sum16(pk[i].data + 34, len - 34, 0);
				s = sum16(pk[i].data + 26, 8, s + 17u + (uint32_t)(len - 34));
				if ((seq % 3 == 0 && s != 0xffff) ||
				    ((pk[i].cpl.flags & BERYL_CPL_FLAG_CSUM_VALID) &&
				     pk[i].cpl.csum != sum16(pk[i].data + 14, len - 14, 0)))
					csum_bad++;
			}
		}
	}
out:
	na = beryl_if_counters(a, ca, 32);
	nb = beryl_if_counters(b, cb, 32);
	if (beryl_ptp_present(dev) && !beryl_ptp_gettime(dev, &tnow)) {
		for (unsigned k = 0; k < count; k++) {
			if (!tx_ts[k] || !rx_ts[k])
				continue;
			struct beryl_ptp_time tt = beryl_ptp_ts_to_time(tx_ts[k], tnow.sec);
			struct beryl_ptp_time rt = beryl_ptp_ts_to_time(rx_ts[k], tnow.sec);
			double d = beryl_ptp_diff_ns(&rt, &tt);

			dmin = nts && dmin < d ? dmin : d;
			dmax = nts && dmax > d ? dmax : d;
			dsum += d;
			nts++;
		}
	}
	printf("{\"count\": %u, \"received\": %u, \"bad\": %u, \"csum_bad\": %u, \"tx_completions\": %u, "
	       "\"seconds\": %.3f, \"tx_pkts\": %u, \"rx_pkts\": %u, \"ts_frames\": %u, \"ts_delay_min_ns\": %.4f, "
	       "\"ts_delay_max_ns\": %.4f, \"ts_delay_mean_ns\": %.4f, \"sent_bytes\": %llu, \"received_bytes\": %llu}\n",
	       count, got, bad, csum_bad, done, now() - t0, na > 0 ? ca[0].value : 0, nb > 4 ? cb[4].value : 0, nts,
	       dmin, dmax, nts ? dsum / nts : 0.0, sent_bytes, got_bytes);
	beryl_close(dev);
	free(seen);
	free(tx_seq);
	free(tx_ts);
	free(rx_ts);
	return got == count && done == count && !bad && !csum_bad ? 0 : 1;
}
