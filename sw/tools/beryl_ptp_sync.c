// SPDX-License-Identifier: MIT
/*
 * beryl-ptp-sync: two-step PTP (IEEE 1588-2008 end-to-end delay mechanism) between two devices, the
 * master's port cabled to the slave's, driven by one process. Each exchange sends real PTPv2 Ethernet
 * frames (EtherType 0x88F7): Sync, Follow_Up carrying the Sync's TX timestamp t1, Delay_Req,
 * Delay_Resp carrying its RX timestamp t4. Timestamps come from the NICs' TX and RX completions; the
 * slave takes t1 and t4 out of the received messages (the 16 fractional bits in correctionField).
 * offset = ((t2 - t1) - (t4 - t3)) / 2, path delay = ((t2 - t1) + (t4 - t3)) / 2; the servo
 * (libberyl beryl_servo_*) adjusts the slave clock. Prints one JSON line per exchange with --verbose
 * and a summary JSON line at the end.
 *   beryl-ptp-sync --master SOCKET --slave SOCKET [--master-if N] [--slave-if N] [--count N]
 *                  [--interval-us X] [--settle N] [--pcap FILE] [--init-offset-ns N]
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "beryl.h"

enum { PTP_SYNC = 0x0, PTP_DELAY_REQ = 0x1, PTP_FOLLOW_UP = 0x8, PTP_DELAY_RESP = 0x9 };
#define ETH_P_1588 0x88f7
#define HDR 14        /* Ethernet */
#define PTP_HDR 34

struct end {
	struct beryl_dev *dev;
	struct beryl_if *nif;
	const char *sock;
	unsigned ifn;
	uint8_t mac[6];
	uint8_t clock_id[8];
};

static FILE *pcap;

static void pcap_open(const char *path)
{
	static const uint32_t hdr[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 65535, 1 };   /* ns resolution */

	pcap = fopen(path, "wb");
	if (pcap)
		fwrite(hdr, sizeof(hdr), 1, pcap);
}

/* frames as sent, stamped with the sender's PTP time */
static void pcap_put(const uint8_t *f, size_t len, const struct beryl_ptp_time *t)
{
	uint32_t rec[4] = { (uint32_t)t->sec, t->nsec, (uint32_t)len, (uint32_t)len };

	if (!pcap)
		return;
	fwrite(rec, sizeof(rec), 1, pcap);
	fwrite(f, len, 1, pcap);
}

static void put48(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 6; i++)
		p[i] = (uint8_t)(v >> (40 - 8 * i));
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* PTPv2 message: header + a 10-byte timestamp (+ requestingPortIdentity for Delay_Resp) */
static size_t ptp_msg(uint8_t *f, const struct end *from, int type, uint16_t seq, const struct beryl_ptp_time *ts,
		      const uint8_t *req_port)
{
	static const uint8_t dst[6] = { 0x01, 0x1b, 0x19, 0, 0, 0 };   /* PTP primary multicast (802.3) */
	size_t plen = PTP_HDR + 10 + (type == PTP_DELAY_RESP ? 10 : 0);
	uint8_t *p = f + HDR;

	memset(f, 0, HDR + plen);
	memcpy(f, dst, 6);
	memcpy(f + 6, from->mac, 6);
	f[12] = ETH_P_1588 >> 8;
	f[13] = ETH_P_1588 & 0xff;
	p[0] = (uint8_t)type;                 /* transportSpecific 0 */
	p[1] = 2;                             /* versionPTP */
	put_be(p + 2, plen, 2);
	p[6] = type == PTP_SYNC ? 0x02 : 0;   /* flagField: twoStepFlag on Sync */
	if (ts)
		put_be(p + 8, ts->fns, 8);    /* correctionField: ns * 2^16; carries the sub-ns part */
	memcpy(p + 20, from->clock_id, 8);
	put_be(p + 28, 1, 2);                 /* portNumber */
	put_be(p + 30, seq, 2);
	p[32] = type == PTP_SYNC ? 0 : type == PTP_DELAY_REQ ? 1 : type == PTP_FOLLOW_UP ? 2 : 3;
	p[33] = type == PTP_DELAY_RESP ? 0x7f : 0xfd;   /* logMessageInterval */
	if (ts) {
		put48(p + 34, ts->sec);
		put_be(p + 40, ts->nsec, 4);
	}
	if (req_port)
		memcpy(p + 44, req_port, 10);
	return HDR + plen < 60 ? 60 : HDR + plen;
}

/* the simulator's global time (ps) when the transport is beryl-sim's, else -1: lets a benchmark line the
 * exchanges up with the simulator's own record of the two clocks (beryl-sim --ptp-probe) */
static long long sim_time_ps(struct beryl_dev *dev)
{
	static char buf[65536];
	struct beryl_transport *t = beryl_dev_transport(dev);
	const char *p;

	if (!t->ops->info_json || t->ops->info_json(t, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\"sim_time_ps\": ");
	return p ? atoll(p + 15) : -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* send one frame on TX queue 0 and wait for its completion: its TX timestamp */
static int send_ts(struct end *e, const uint8_t *f, size_t len, struct beryl_ptp_time *ts)
{
	struct iovec iov = { (void *)f, len };
	struct beryl_ptp_time ref;
	struct beryl_cpl c;
	double t0 = now_s();
	int idx = beryl_tx_send(e->nif, 0, &iov, 1, NULL, 0);

	if (idx < 0)
		return idx;
	while (now_s() - t0 < 10) {
		int n = beryl_tx_complete(e->nif, 0, &c, 1);

		if (n < 0)
			return n;
		if (n == 1) {
			if (c.status != BERYL_CPL_OK || c.index != (uint16_t)idx || !c.timestamp) {
				fprintf(stderr, "beryl-ptp-sync: %s: TX completion status %u index %u (want %d) ts %llx\n",
					e->sock, c.status, c.index, idx, (unsigned long long)c.timestamp);
				return -EIO;
			}
			int err = beryl_ptp_gettime(e->dev, &ref);
			if (err)
				return err;
			*ts = beryl_ptp_ts_to_time(c.timestamp, ref.sec);
			pcap_put(f, len, ts);
			return 0;
		}
	}
	fprintf(stderr, "beryl-ptp-sync: %s: no TX completion within 10 s\n", e->sock);
	return -ETIMEDOUT;
}

/* wait for a PTP message of the given type; copies it to buf, its RX timestamp to ts */
static int recv_msg(struct end *e, int type, uint16_t seq, uint8_t *buf, struct beryl_ptp_time *ts)
{
	double t0 = now_s();

	while (now_s() - t0 < 10) {
		struct beryl_rx_pkt pk[8];
		int n = beryl_rx_poll(e->nif, 0, pk, 8);

		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			const uint8_t *d = pk[i].data;

			if (pk[i].len < HDR + PTP_HDR + 10 || get_be(d + 12, 2) != ETH_P_1588 || (d[HDR] & 0xf) != type ||
			    get_be(d + HDR + 30, 2) != seq) {
				fprintf(stderr, "beryl-ptp-sync: %s: unexpected frame (%u bytes, type %u) dropped\n",
					e->sock, pk[i].len, pk[i].len > HDR ? d[HDR] & 0xf : 0);
				continue;
			}
			struct beryl_ptp_time ref;
			int err = beryl_ptp_gettime(e->dev, &ref);
			if (err)
				return err;
			memcpy(buf, d, pk[i].len);
			*ts = beryl_ptp_ts_to_time(pk[i].cpl.timestamp, ref.sec);
			return 0;
		}
	}
	fprintf(stderr, "beryl-ptp-sync: %s: message type %d seq %u did not arrive within 10 s\n", e->sock, type, seq);
	return -ETIMEDOUT;
}

static struct beryl_ptp_time msg_ts(const uint8_t *d)
{
	struct beryl_ptp_time t;

	t.sec = get_be(d + HDR + 34, 6);
	t.nsec = (uint32_t)get_be(d + HDR + 40, 4);
	t.fns = (uint16_t)get_be(d + HDR + 8, 8);
	return t;
}

static int open_end(struct end *e, uint8_t tag)
{
	struct beryl_if_config cfg = { .txq_count = 1, .rxq_count = 1, .tx_log_size = 5, .rx_log_size = 6,
				       .tx_buf_size = 256, .rx_buf_size = 2048, .vector = -1 };
	int err = beryl_open("sim", e->sock, &e->dev);

	if (err)
		return err;
	if (!beryl_ptp_present(e->dev)) {
		fprintf(stderr, "beryl-ptp-sync: %s: the device has no PTP clock\n", e->sock);
		return -ENODEV;
	}
	e->nif = beryl_if_get(e->dev, e->ifn);
	if (!e->nif) {
		fprintf(stderr, "beryl-ptp-sync: %s: no interface %u\n", e->sock, e->ifn);
		return -ENODEV;
	}
	memcpy(e->mac, (uint8_t[]){ 0x02, 0, 0, 0, 0x15, tag }, 6);
	memcpy(e->clock_id, (uint8_t[]){ 0x02, 0, 0, 0xff, 0xfe, 0, 0x15, tag }, 8);
	return beryl_if_start(e->nif, &cfg);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "master", required_argument, NULL, 'm' }, { "slave", required_argument, NULL, 's' },
		{ "master-if", required_argument, NULL, 'a' }, { "slave-if", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' }, { "interval-us", required_argument, NULL, 'i' },
		{ "settle", required_argument, NULL, 'S' }, { "pcap", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' }, { "init-offset-ns", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct end m = { 0 }, s = { 0 };
	unsigned count = 60, settle = 20;
	double interval = 100e3;   /* ns of master time between exchange starts */
	bool verbose = false;
	struct beryl_servo sv;
	double sum = 0, sum_abs = 0, max_abs = 0, dsum = 0, fsum = 0, t_start = 0, conv_ns = -1, last_bad = -1;
	long long init_offset = 0;
	unsigned n_stat = 0;
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "m:s:a:b:n:i:S:p:vo:", lopts, NULL)) != -1) {
		switch (c) {
		case 'm': m.sock = optarg; break;
		case 's': s.sock = optarg; break;
		case 'a': m.ifn = (unsigned)atoi(optarg); break;
		case 'b': s.ifn = (unsigned)atoi(optarg); break;
		case 'n': count = (unsigned)atoi(optarg); break;
		case 'i': interval = atof(optarg) * 1e3; break;
		case 'S': settle = (unsigned)atoi(optarg); break;
		case 'p': pcap_open(optarg); break;
		case 'v': verbose = true; break;
		case 'o': init_offset = atoll(optarg); break;
		default:
			fprintf(stderr, "usage: beryl-ptp-sync --master SOCKET --slave SOCKET [--master-if N] [--slave-if N]\n"
					"       [--count N] [--interval-us X] [--settle N] [--pcap FILE] [--verbose]\n"
					"       [--init-offset-ns N]   (step the slave clock by N ns first)\n");
			return 2;
		}
	}
	if (!m.sock || !s.sock || count < 3 || settle >= count || !(interval > 0)) {
		fprintf(stderr, "beryl-ptp-sync: --master and --slave are needed; count >= 3, settle < count, interval > 0\n");
		return 2;
	}
	err = open_end(&m, 1);
	if (!err)
		err = open_end(&s, 2);
	if (err) {
		fprintf(stderr, "beryl-ptp-sync: %s\n", beryl_errmsg());
		beryl_close(m.dev);
		beryl_close(s.dev);
		return 3;
	}
	if (init_offset)
		err = beryl_ptp_adjtime(s.dev, init_offset);
	beryl_servo_init(&sv, 0);
	for (unsigned k = 0; k < count && !err; k++) {
		uint8_t f[128], r[2048];
		struct beryl_ptp_time t1, t2, t3, t4, unused, start, now;   /* unused: stamps of Follow_Up/Delay_Resp */
		size_t len;
		double offset, delay, adj, step;
		enum beryl_servo_state st;
		uint16_t seq = (uint16_t)k;

		long long sim_ps = verbose ? sim_time_ps(s.dev) : -1;

		err = beryl_ptp_gettime(m.dev, &start);   /* the interval runs on the master's clock (never stepped) */
		/* Sync and Follow_Up (t1 in the Follow_Up) */
		len = ptp_msg(f, &m, PTP_SYNC, seq, NULL, NULL);
		if (!err)
			err = send_ts(&m, f, len, &t1);
		if (!err)
			err = recv_msg(&s, PTP_SYNC, seq, r, &t2);
		len = ptp_msg(f, &m, PTP_FOLLOW_UP, seq, &t1, NULL);
		if (!err)
			err = send_ts(&m, f, len, &unused);
		if (!err)
			err = recv_msg(&s, PTP_FOLLOW_UP, seq, r, &unused);
		if (err)
			break;
		t1 = msg_ts(r);
		/* Delay_Req and Delay_Resp (t4 in the Delay_Resp) */
		len = ptp_msg(f, &s, PTP_DELAY_REQ, seq, NULL, NULL);
		err = send_ts(&s, f, len, &t3);
		if (!err)
			err = recv_msg(&m, PTP_DELAY_REQ, seq, r, &t4);
		len = ptp_msg(f, &m, PTP_DELAY_RESP, seq, &t4, r + HDR + 20);
		if (!err)
			err = send_ts(&m, f, len, &unused);
		if (!err)
			err = recv_msg(&s, PTP_DELAY_RESP, seq, r, &unused);
		if (err)
			break;
		t4 = msg_ts(r);
		if (memcmp(r + HDR + 44, s.clock_id, 8)) {
			fprintf(stderr, "beryl-ptp-sync: Delay_Resp for another port\n");
			err = -EPROTO;
			break;
		}
		offset = (beryl_ptp_diff_ns(&t2, &t1) - beryl_ptp_diff_ns(&t4, &t3)) / 2;
		delay = (beryl_ptp_diff_ns(&t2, &t1) + beryl_ptp_diff_ns(&t4, &t3)) / 2;
		/* the servo's local time: the slave's RX time of the Sync, in ns since its first exchange */
		if (!k)
			t_start = (double)t2.sec * 1e9 + t2.nsec;
		st = beryl_servo_sample(&sv, offset, (double)t2.sec * 1e9 + t2.nsec - t_start, &adj, &step);
		err = beryl_ptp_adjfreq(s.dev, adj);
		if (!err && step != 0)
			err = beryl_ptp_adjtime(s.dev, (int64_t)llround(step));
		if (verbose)
			printf("{\"seq\": %u, \"t_ns\": %.0f, \"sim_ps\": %lld, \"offset_ns\": %.3f, \"delay_ns\": %.3f, "
			       "\"freq_ppb\": %.3f, \"state\": %d, \"step_ns\": %.0f}\n", k,
			       (double)t2.sec * 1e9 + t2.nsec - t_start, sim_ps, offset, delay, adj, st, step);
		if (st == BERYL_SERVO_LOCKED) {
			if (fabs(offset) >= 10)
				last_bad = (double)t2.sec * 1e9 + t2.nsec - t_start;
			if (k >= settle) {
				sum += offset;
				sum_abs += fabs(offset);
				dsum += delay;
				fsum += adj;
				max_abs = fabs(offset) > max_abs ? fabs(offset) : max_abs;
				n_stat++;
			}
		} else {
			last_bad = (double)t2.sec * 1e9 + t2.nsec - t_start;
		}
		/* wait (by reading the master clock: simulated time runs while the device is busy) */
		do {
			if (!err)
				err = beryl_ptp_gettime(m.dev, &now);
		} while (!err && beryl_ptp_diff_ns(&now, &start) < interval);
	}
	if (err) {
		fprintf(stderr, "beryl-ptp-sync: %s\n", beryl_errmsg());
	} else {
		double ppb = 0;

		beryl_ptp_getfreq(s.dev, &ppb);
		conv_ns = last_bad;
		printf("{\"exchanges\": %u, \"settle\": %u, \"samples\": %u, \"mean_offset_ns\": %.3f, "
		       "\"mean_abs_offset_ns\": %.3f, \"max_abs_offset_ns\": %.3f, \"mean_delay_ns\": %.3f, "
		       "\"slave_freq_ppb\": %.3f, \"mean_freq_ppb\": %.3f, \"last_offset_over_10ns_at_ns\": %.0f}\n",
		       count, settle, n_stat, n_stat ? sum / n_stat : 0, n_stat ? sum_abs / n_stat : 0, max_abs,
		       n_stat ? dsum / n_stat : 0, ppb, n_stat ? fsum / n_stat : 0, conv_ns);
	}
	if (pcap)
		fclose(pcap);
	beryl_close(m.dev);
	beryl_close(s.dev);
	return err ? 1 : 0;
}
