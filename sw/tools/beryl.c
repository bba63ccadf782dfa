// SPDX-License-Identifier: MIT
/*
 * beryl: device tool in the habits of ethtool/iproute2. Verbs: info, dump, stats, rss, ptp, sched.
 * Every read verb takes --json. Exit codes: 0 ok, 1 device error, 2 usage, 3 no device reachable,
 * 4 version mismatch.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beryl.h"
#include "beryl_regs.h"

enum { EXIT_DEV = 1, EXIT_USAGE = 2, EXIT_NODEV = 3, EXIT_VERSION = 4 };

struct opts {
	const char *socket, *transport;
	bool json, all, queues;
	int ifn;                   /* -1: every interface */
	int qtype, qidx;           /* --queue TYPE:IDX; qtype -1: none */
	const char *key, *table, *hash;
	int equal, enable, defq;   /* -1: unchanged */
	int port;                  /* sched: -1: every port, or the queue's own */
	bool raw, gate, hold_own;  /* sched rate: RATE is 8.24; sched tdma set: the gate */
	const char *start, *period, *slot, *slots, *guard, *line_rate, *overhead, *margin;
};

static const char *prog = "beryl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-s SOCKET] [-t TRANSPORT] [--json] COMMAND [options]\n"
		"  info                                identity, build parameters, register blocks\n"
		"  dump  [--if N] [--queue TYPE:IDX] [--all]\n"
		"                                      queue state (TYPE txq|rxq|cq|eq; enabled queues unless --all)\n"
		"  stats [--if N] [--queues|--queue TYPE:IDX] [--all]\n"
		"                                      device (PCIe block: BAR requests, DMA), interface and\n"
		"                                      port counters; per-queue counters with --queues\n"
		"                                      (non-zero ones unless --all)\n"
		"  rss get [--if N]\n"
		"  rss set [--if N] [--key HEX] [--table Q0,Q1,..|--equal N] [--hash LIST] [--enable|--disable]\n"
		"          [--default Q]               LIST: ipv4,ipv4-tcp,ipv4-udp,ipv6,ipv6-tcp,ipv6-udp,all,none\n"
		"  ptp get                             PTP clock: time of day and frequency offset\n"
		"  ptp set SEC[.NSEC]|now              set the time (now: this host's CLOCK_REALTIME)\n"
		"  ptp adjtime NS | adjfreq PPB        step by NS ns / run PPB ppb fast (negative after --)\n"
		"  ptp perout START_SEC PERIOD_NS [WIDTH_NS] | perout off\n"
		"                                      periodic output (default width: half the period)\n"
		"  sched [show] [--if N] [--port P]   transmit scheduler type; per port: bad statuses, TDMA\n"
		"                                      schedule, state and gate counters\n"
		"  sched rate get [--if N] [--port P] [Q] [--all]\n"
		"                                      token bucket of TX queue Q (default: queues with a rate)\n"
		"  sched rate set [--if N] [--port P] [--raw] Q RATE [BURST]\n"
		"                                      RATE bit/s of frame bytes (no FCS): 100M, 2.5G, 0 = not\n"
		"                                      limited (--raw: 8.24 bytes per cycle); BURST bytes (k, Ki,\n"
		"                                      M, Mi; default MAX_FRAME)\n"
		"  sched tdma set [--if N] [--port P] --period T --slot T --slots N [--start now|+T|SEC[.NSEC]]\n"
		"          [--guard T] [--gate] [--hold-own] [--line-rate BPS] [--overhead B] [--margin T]\n"
		"                                      T: ns, or with ns/us/ms/s; start default now (PTP time);\n"
		"                                      gate defaults: 100G, overhead 24, margin 16ns\n"
		"  sched tdma disable|status [--if N] [--port P]   (disabled: the port sends nothing)\n"
		"  sched mask get [--if N] [--port P] Q | mask set [--if N] [--port P] Q MASK\n"
		"                                      TDMA slot mask of TX queue Q (bit i: slot i)\n"
		"                                      --port default: every port, or for Q the port it sends on\n"
		"options: -s, --socket PATH  simulator socket (default %s)\n"
		"         -t, --transport T  transport (default sim)\n"
		"         -j, --json         JSON output\n"
		"exit codes: 0 ok, 1 device error, 2 usage, 3 no device reachable, 4 version mismatch\n",
		prog, BERYL_SIM_DEFAULT_SOCKET);
}

static int fail(int err, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, beryl_errmsg());
	switch (-err) {
	case ENOENT:
	case ECONNREFUSED:
	case ENODEV:
		return EXIT_NODEV;
	case EPROTO:
		return EXIT_VERSION;
	default:
		return EXIT_DEV;
	}
}

static void version_str(uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", v >> 24, (v >> 16) & 0xff, v & 0xffff);
}

static const char *const hash_names[] = { "ipv4", "ipv4-tcp", "ipv4-udp", "ipv6", "ipv6-tcp", "ipv6-udp" };
static const struct {
	uint32_t mask;
	const char *name;
} features[] = {
	{ BERYL_NIC_IF_FEATURES_TX_CSUM_MASK, "tx-csum" }, { BERYL_NIC_IF_FEATURES_RX_CSUM_MASK, "rx-csum" },
	{ BERYL_NIC_IF_FEATURES_RSS_MASK, "rss" }, { BERYL_NIC_IF_FEATURES_TX_SG_MASK, "tx-sg" },
	{ BERYL_NIC_IF_FEATURES_PTP_TS_MASK, "ptp-ts" },
};

/* ------------------------------------------------------------------ info */

static void print_params_json(const struct beryl_if *nif)
{
	const struct beryl_if_params *p = beryl_if_params(nif);
	char v[32];

	version_str(beryl_if_version(nif), v, sizeof(v));
	printf("{\"index\": %u, \"offset\": %u, \"version\": \"%s\", \"if_count\": %u, \"port_count\": %u, "
	       "\"txq_count\": %u, \"rxq_count\": %u, \"cq_count\": %u, \"eq_count\": %u, \"tx_slots\": %u, "
	       "\"rx_slots\": %u, \"max_frame\": %u, \"rss_table_size\": %u, \"desc_batch\": %u, "
	       "\"cpl_batch\": %u, \"max_desc_per_pkt\": %u, \"tx_sched\": \"%s\", \"tdma_slots_max\": %u, "
	       "\"features\": [", p->if_index, beryl_if_offset(nif), v, p->if_count, p->port_count, p->txq_count,
	       p->rxq_count, p->cq_count, p->eq_count, p->tx_slots, p->rx_slots, p->max_frame, p->rss_table_size,
	       p->desc_batch, p->cpl_batch, p->max_desc_per_pkt, beryl_sched_type_name(p->tx_sched),
	       p->tdma_slots_max);
	for (unsigned i = 0, n = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (p->features & features[i].mask)
			printf("%s\"%s\"", n++ ? ", " : "", features[i].name);
	printf("]}");
}

static int cmd_info(struct beryl_dev *dev, const struct opts *o)
{
	const struct beryl_identity *id = beryl_identity(dev);
	struct beryl_transport *t = beryl_dev_transport(dev);
	static char sim[65536];
	char rel[32];
	bool have_sim = t->ops->info_json && !t->ops->info_json(t, sim, sizeof(sim));

	version_str(id->beryl_version, rel, sizeof(rel));
	if (o->json) {
		printf("{\"transport\": \"%s\", \"identity\": {\"vendor_id\": %u, \"device_id\": %u, "
		       "\"subsys_vendor_id\": %u, \"subsys_id\": %u, \"release\": \"%s\", \"git_hash\": \"%08x\", "
		       "\"build_date\": \"%04x-%02x-%02x\", \"build_time\": \"%02x:%02x:%02x\", \"msix_vectors\": %u}, "
		       "\"blocks\": [", t->ops->name, id->vendor_id, id->device_id, id->subsys_vendor_id,
		       id->subsys_id, rel, id->git_hash, id->build_date >> 16, (id->build_date >> 8) & 0xff,
		       id->build_date & 0xff, (id->build_time >> 16) & 0xff, (id->build_time >> 8) & 0xff,
		       id->build_time & 0xff, id->msix_vectors);
		for (unsigned i = 0; i < beryl_block_count(dev); i++) {
			const struct beryl_block *b = beryl_block_get(dev, i);
			char v[32];

			version_str(b->version, v, sizeof(v));
			printf("%s{\"name\": %s%s%s, \"type\": %u, \"version\": \"%s\", \"offset\": %u, \"next\": %u}",
			       i ? ", " : "", b->name ? "\"" : "", b->name ? b->name : "null", b->name ? "\"" : "",
			       b->type, v, b->offset, b->next);
		}
		printf("], \"interfaces\": [");
		for (unsigned i = 0; i < beryl_if_count(dev); i++) {
			printf(i ? ", " : "");
			print_params_json(beryl_if_get(dev, i));
		}
		printf("], \"simulator\": %s}\n", have_sim ? sim : "null");
		return 0;
	}
	printf("Beryl device (transport %s)\n", t->ops->name);
	printf("  PCI id:          %04x:%04x (subsystem %04x:%04x)\n", id->vendor_id, id->device_id,
	       id->subsys_vendor_id, id->subsys_id);
	printf("  release:         %s\n", rel);
	printf("  git hash:        %08x\n", id->git_hash);
	printf("  built:           %04x-%02x-%02x %02x:%02x:%02x UTC\n", id->build_date >> 16,
	       (id->build_date >> 8) & 0xff, id->build_date & 0xff, (id->build_time >> 16) & 0xff,
	       (id->build_time >> 8) & 0xff, id->build_time & 0xff);
	printf("  MSI-X vectors:   %u\n", id->msix_vectors);
	printf("Register blocks:\n  %-9s %-11s %-9s %s\n", "offset", "type", "version", "name");
	for (unsigned i = 0; i < beryl_block_count(dev); i++) {
		const struct beryl_block *b = beryl_block_get(dev, i);
		char v[32];

		version_str(b->version, v, sizeof(v));
		printf("  0x%05x   0x%08x  %-9s %s\n", b->offset, b->type, v, b->name ? b->name : "(unknown)");
	}
	printf("NIC interfaces: %u\n", beryl_if_count(dev));
	for (unsigned i = 0; i < beryl_if_count(dev); i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		const struct beryl_if_params *p = beryl_if_params(nif);

		printf("  if %u at 0x%05x: %u port(s), %u TXQ, %u RXQ, %u CQ, %u EQ\n", p->if_index,
		       beryl_if_offset(nif), p->port_count, p->txq_count, p->rxq_count, p->cq_count, p->eq_count);
		printf("    max frame %u, RSS table %u, TX slots %u, RX slots %u, descriptor batch %u, "
		       "completion batch %u, descriptors/packet %u\n", p->max_frame, p->rss_table_size,
		       p->tx_slots, p->rx_slots, p->desc_batch, p->cpl_batch, p->max_desc_per_pkt);
		printf("    TX scheduler %s", beryl_sched_type_name(p->tx_sched));
		if (p->tx_sched == BERYL_SCHED_TDMA)
			printf(" (%u slots per period at most)", p->tdma_slots_max);
		printf("\n    features:");
		for (unsigned k = 0; k < sizeof(features) / sizeof(features[0]); k++)
			if (p->features & features[k].mask)
				printf(" %s", features[k].name);
		printf("\n");
	}
	if (have_sim)
		printf("Simulator: %s\n", sim);
	return 0;
}

/* ------------------------------------------------------------------ dump */

static int if_range(struct beryl_dev *dev, const struct opts *o, unsigned *lo, unsigned *hi)
{
	if (o->ifn >= 0) {
		if ((unsigned)o->ifn >= beryl_if_count(dev)) {
			fprintf(stderr, "%s: interface %d out of range (the device has %u)\n", prog, o->ifn,
				beryl_if_count(dev));
			return EXIT_USAGE;
		}
		*lo = (unsigned)o->ifn;
		*hi = *lo + 1;
	} else {
		*lo = 0;
		*hi = beryl_if_count(dev);
	}
	return 0;
}

/* if_range, and with --json the opening of the {"interfaces": [...]} answer */
static int if_range_open(struct beryl_dev *dev, const struct opts *o, unsigned *lo, unsigned *hi)
{
	int rc = if_range(dev, o, lo, hi);

	if (!rc && o->json)
		printf("{\"interfaces\": [");
	return rc;
}

static int cmd_dump(struct beryl_dev *dev, const struct opts *o)
{
	unsigned lo, hi, n = 0;
	int rc = if_range(dev, o, &lo, &hi);

	if (rc)
		return rc;
	if (o->json)
		printf("{\"queues\": [");
	else
		printf("%-3s %-4s %5s  %-3s %-3s %-5s %-4s %-18s %-10s %6s %6s\n", "if", "type", "index", "en",
		       "arm", "log2", "port", "base", "target", "prod", "cons");
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);

		for (int t = 0; t < 4; t++) {
			unsigned count = beryl_queue_count(nif, (enum beryl_qtype)t);
			unsigned first = o->qtype >= 0 ? (unsigned)o->qidx : 0;
			uint32_t *ctrl = NULL;

			if (o->qtype >= 0 && t != o->qtype)
				continue;
			if (o->qtype >= 0) {
				count = first + 1;   /* one queue asked for: out of range is an error */
			} else if (!o->all) {
				/* a listing skips disabled queues: their control words first, in one batch */
				int err;

				ctrl = calloc(count ? count : 1, sizeof(*ctrl));
				err = ctrl ? beryl_queue_ctrl_all(nif, (enum beryl_qtype)t, ctrl) : -ENOMEM;
				if (err) {
					free(ctrl);
					return fail(err, "dump");
				}
			}
			for (unsigned q = first; q < count; q++) {
				struct beryl_queue_state s;
				int err;

				if (ctrl && !(ctrl[q] & 1u))
					continue;
				err = beryl_queue_read(nif, (enum beryl_qtype)t, q, &s);
				if (err)
					free(ctrl);
				if (err == -ERANGE) {
					fprintf(stderr, "%s: %s\n", prog, beryl_errmsg());
					return EXIT_USAGE;
				}
				if (err)
					return fail(err, "dump");
				if (!s.enable && !o->all && o->qtype < 0)
					continue;
				if (o->json)
					printf("%s{\"if\": %u, \"type\": \"%s\", \"index\": %u, \"enable\": %s, "
					       "\"armed\": %s, \"log_size\": %u, \"port\": %u, \"base\": %llu, "
					       "\"target\": %u, \"prod\": %u, \"cons\": %u}", n ? ", " : "", i,
					       beryl_qtype_name(t), q, s.enable ? "true" : "false",
					       s.armed ? "true" : "false", s.log_size, s.port,
					       (unsigned long long)s.base, s.target, s.prod, s.cons);
				else
					printf("%-3u %-4s %5u  %-3s %-3s %-5u %-4u 0x%016llx 0x%08x %6u %6u\n", i,
					       beryl_qtype_name(t), q, s.enable ? "yes" : "no", s.armed ? "yes" : "no",
					       s.log_size, s.port, (unsigned long long)s.base, s.target, s.prod, s.cons);
				n++;
			}
			free(ctrl);
		}
	}
	if (o->json)
		printf("]}\n");
	else if (!n)
		printf("(no enabled queues; --all lists every queue)\n");
	return 0;
}

/* ------------------------------------------------------------------ stats */

/*
 * The device's (PCIe block's) counters: a "device:" section, or with --json the opening of
 * {"device": {"counters": {...}}, "interfaces": [...]}. A device without the block has none
 * (empty in JSON, said in text) rather than failing the whole verb.
 */
static int print_dev_counters(struct beryl_dev *dev, const struct opts *o)
{
	struct beryl_counter c[64];
	int n = beryl_dev_counters(dev, c, 64);

	if (n == -ENODEV)
		n = 0;
	else if (n < 0)
		return fail(n, "stats");
	if (o->json) {
		printf("{\"device\": {\"counters\": {");
		for (int k = 0; k < n; k++)
			printf("%s\"%s\": %u", k ? ", " : "", c[k].name, c[k].value);
		printf("}}, \"interfaces\": [");
		return 0;
	}
	printf("device:%s\n", n ? "" : " (no PCIe block: no device counters)");
	for (int k = 0; k < n; k++)
		if (c[k].value || o->all)
			printf("  %-22s %u\n", c[k].name, c[k].value);
	return 0;
}

static int cmd_stats(struct beryl_dev *dev, const struct opts *o)
{
	unsigned lo, hi;
	int rc = if_range(dev, o, &lo, &hi);

	if (!rc)
		rc = print_dev_counters(dev, o);
	if (rc)
		return rc;
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		const struct beryl_if_params *p = beryl_if_params(nif);
		struct beryl_counter c[64];
		int n = beryl_if_counters(nif, c, 64), nq = 0;

		if (n < 0)
			return fail(n, "stats");
		if (o->json) {
			printf("%s{\"if\": %u, \"counters\": {", i > lo ? ", " : "", i);
			for (int k = 0; k < n; k++)
				printf("%s\"%s\": %u", k ? ", " : "", c[k].name, c[k].value);
			printf("}, \"ports\": [");
		} else {
			printf("interface %u:\n", i);
			for (int k = 0; k < n; k++)
				if (c[k].value || o->all)
					printf("  %-20s %u\n", c[k].name, c[k].value);
		}
		for (unsigned port = 0; port < p->port_count; port++) {
			struct beryl_port_stats ps;
			int err = beryl_port_stats(nif, port, &ps);

			if (err)
				return fail(err, "stats");
			if (o->json)
				printf("%s{\"port\": %u, \"tx_enable\": %s, \"tx_pkts\": %u, \"tx_bytes\": %u, "
				       "\"tx_drops\": %u, \"rx_pkts\": %u, \"rx_bytes\": %u, \"rx_drops\": %u, "
				       "\"tx_ts_mismatch\": %u, \"tx_ts_timeout\": %u, \"tx_ts_dropped\": %u}",
				       port ? ", " : "", port, ps.tx_enable ? "true" : "false", ps.tx_pkts, ps.tx_bytes,
				       ps.tx_drops, ps.rx_pkts, ps.rx_bytes, ps.rx_drops, ps.tx_ts_mismatch,
				       ps.tx_ts_timeout, ps.tx_ts_dropped);
			else
				printf("  port %u: tx %u pkts %u bytes %u drops, rx %u pkts %u bytes %u drops%s\n", port,
				       ps.tx_pkts, ps.tx_bytes, ps.tx_drops, ps.rx_pkts, ps.rx_bytes, ps.rx_drops,
				       ps.tx_enable ? "" : " (tx disabled)");
			if (!o->json && (ps.tx_ts_mismatch || ps.tx_ts_timeout || ps.tx_ts_dropped || o->all))
				printf("  port %u: tx timestamps %u mismatched, %u timed out, %u returns dropped\n", port,
				       ps.tx_ts_mismatch, ps.tx_ts_timeout, ps.tx_ts_dropped);
		}
		if (o->json)
			printf("], \"queues\": [");
		for (int t = BERYL_TXQ; t <= BERYL_RXQ && (o->queues || o->qtype >= 0); t++) {
			for (unsigned q = 0; q < beryl_queue_count(nif, (enum beryl_qtype)t); q++) {
				struct beryl_queue_stats s;
				int err;

				if (o->qtype >= 0 && (t != o->qtype || q != (unsigned)o->qidx))
					continue;
				err = beryl_queue_stats(nif, (enum beryl_qtype)t, q, &s);
				if (err)
					return fail(err, "stats");
				if (!s.packets && !s.drops && !o->all && o->qtype < 0)
					continue;
				if (o->json)
					printf("%s{\"type\": \"%s\", \"index\": %u, \"packets\": %llu, \"bytes\": %llu, "
					       "\"drops\": %llu}", nq ? ", " : "", beryl_qtype_name(t), q,
					       (unsigned long long)s.packets, (unsigned long long)s.bytes,
					       (unsigned long long)s.drops);
				else
					printf("  %s %-4u %llu pkts %llu bytes %llu drops\n", beryl_qtype_name(t), q,
					       (unsigned long long)s.packets, (unsigned long long)s.bytes,
					       (unsigned long long)s.drops);
				nq++;
			}
		}
		if (o->json)
			printf("]}");
	}
	if (o->json)
		printf("]}\n");
	return 0;
}

/* ------------------------------------------------------------------ rss */

static int parse_hash(const char *s, uint32_t *out)
{
	char buf[256], *save, *tok;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned k;

		if (!strcmp(tok, "all")) {
			*out |= BERYL_RSS_HASH_ALL;
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		for (k = 0; k < 6 && strcmp(tok, hash_names[k]); k++)
			;
		if (k == 6)
			return -1;
		*out |= 1u << k;
	}
	return 0;
}

static int parse_key(const char *s, uint8_t *key)
{
	unsigned n = 0;

	while (*s && n < BERYL_RSS_KEY_BYTES) {
		unsigned v;

		if (*s == ':' || *s == ' ') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &v) != 1 || !s[1])
			return -1;
		key[n++] = (uint8_t)v;
		s += 2;
	}
	return n == BERYL_RSS_KEY_BYTES && !*s ? 0 : -1;
}

static int rss_get(struct beryl_if *nif, const struct opts *o, bool first)
{
	const struct beryl_if_params *p = beryl_if_params(nif);
	uint16_t *table = calloc(p->rss_table_size ? p->rss_table_size : 1, sizeof(*table));
	struct beryl_rss r = { .table = table };
	int err;

	if (!table)
		return fail(-ENOMEM, "rss");
	err = beryl_rss_get(nif, &r);
	if (err) {
		free(table);
		return fail(err, "rss get");
	}
	if (o->json) {
		printf("%s{\"if\": %u, \"enable\": %s, \"hash\": [", first ? "" : ", ", p->if_index,
		       r.enable ? "true" : "false");
		for (unsigned k = 0, n = 0; k < 6; k++)
			if (r.hash_en & (1u << k))
				printf("%s\"%s\"", n++ ? ", " : "", hash_names[k]);
		printf("], \"default_queue\": %u, \"key\": \"", r.default_queue);
		for (unsigned k = 0; k < BERYL_RSS_KEY_BYTES; k++)
			printf("%02x", r.key[k]);
		printf("\", \"table\": [");
		for (unsigned k = 0; k < r.table_size; k++)
			printf("%s%u", k ? ", " : "", table[k]);
		printf("]}");
	} else {
		printf("interface %u: RSS %s, default queue %u\n  hash:", p->if_index,
		       r.enable ? "enabled" : "disabled", r.default_queue);
		for (unsigned k = 0; k < 6; k++)
			if (r.hash_en & (1u << k))
				printf(" %s", hash_names[k]);
		printf("%s\n  key:  ", r.hash_en ? "" : " none");
		for (unsigned k = 0; k < BERYL_RSS_KEY_BYTES; k++)
			printf("%02x%s", r.key[k], k % 20 == 19 && k + 1 < BERYL_RSS_KEY_BYTES ? "\n        " : "");
		printf("\n  indirection table (%u entries):", r.table_size);
		for (unsigned k = 0; k < r.table_size; k++)
			printf("%s%4u", k % 16 ? "" : "\n   ", table[k]);
		printf("\n");
	}
	free(table);
	return 0;
}

static int rss_set(struct beryl_if *nif, const struct opts *o)
{
	const struct beryl_if_params *p = beryl_if_params(nif);
	uint16_t *table = calloc(p->rss_table_size ? p->rss_table_size : 1, sizeof(*table));
	struct beryl_rss r = { .table = table };
	bool set_key = false;
	int err;

	if (!table)
		return fail(-ENOMEM, "rss");
	err = beryl_rss_get(nif, &r);
	if (err)
		goto out;
	if (o->key) {
		if (parse_key(o->key, r.key)) {
			fprintf(stderr, "%s: --key wants %d hex bytes (colons allowed)\n", prog, BERYL_RSS_KEY_BYTES);
			free(table);
			return EXIT_USAGE;
		}
		set_key = true;
	}
	if (o->hash && parse_hash(o->hash, &r.hash_en)) {
		fprintf(stderr, "%s: --hash: unknown type in '%s'\n", prog, o->hash);
		free(table);
		return EXIT_USAGE;
	}
	if (o->equal > 0) {
		for (unsigned k = 0; k < r.table_size; k++)
			table[k] = (uint16_t)(k % (unsigned)o->equal);
	} else if (o->table) {
		uint16_t list[4096];
		unsigned n = 0;
		const char *s = o->table;

		while (*s && n < 4096) {
			char *end;
			unsigned long v = strtoul(s, &end, 0);

			if (end == s || (*end && *end != ',')) {
				fprintf(stderr, "%s: --table wants comma-separated queue numbers\n", prog);
				free(table);
				return EXIT_USAGE;
			}
			list[n++] = (uint16_t)v;
			s = *end ? end + 1 : end;
		}
		/* a shorter list repeats over the whole table */
		for (unsigned k = 0; n && k < r.table_size; k++)
			table[k] = list[k % n];
	}
	if (o->enable >= 0)
		r.enable = o->enable;
	if (o->defq >= 0)
		r.default_queue = (uint32_t)o->defq;
	err = beryl_rss_set(nif, &r, set_key);
out:
	free(table);
	if (err)
		return err == -ERANGE || err == -EINVAL ? (fprintf(stderr, "%s: rss set: %s\n", prog, beryl_errmsg()),
							   EXIT_USAGE) : fail(err, "rss set");
	return 0;
}

static int cmd_rss(struct beryl_dev *dev, const struct opts *o, const char *verb)
{
	unsigned lo, hi;
	int rc = if_range(dev, o, &lo, &hi);

	if (rc)
		return rc;
	if (!strcmp(verb, "get")) {
		if (o->json)
			printf("{\"interfaces\": [");
		for (unsigned i = lo; i < hi && !rc; i++)
			rc = rss_get(beryl_if_get(dev, i), o, i == lo);
		if (o->json)
			printf("]}\n");
		return rc;
	}
	if (!strcmp(verb, "set")) {
		for (unsigned i = lo; i < hi && !rc; i++)
			rc = rss_set(beryl_if_get(dev, i), o);
		return rc;
	}
	fprintf(stderr, "%s: rss wants get or set\n", prog);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ main */

static int parse_queue(const char *s, struct opts *o)
{
	char type[8];
	unsigned idx;

	if (sscanf(s, "%7[a-z]:%u", type, &idx) != 2)
		return -1;
	for (int t = 0; t < 4; t++) {
		if (!strcmp(type, beryl_qtype_name(t))) {
			o->qtype = t;
			o->qidx = (int)idx;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ ptp */

static int parse_i64(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

/* SEC[.NSEC] with up to 9 fraction digits */
static int parse_time(const char *s, struct beryl_ptp_time *t)
{
	char *end;
	unsigned long long sec;

	memset(t, 0, sizeof(*t));
	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	t->sec = sec;
	if (*end == '.') {
		unsigned digits = 0;
		for (end++; *end >= '0' && *end <= '9' && digits < 9; end++, digits++)
			t->nsec = t->nsec * 10 + (uint32_t)(*end - '0');
		for (; digits < 9; digits++)
			t->nsec *= 10;
	}
	return *end ? -1 : 0;
}

static int cmd_ptp(struct beryl_dev *dev, const struct opts *o, const char *verb, char **args, int nargs)
{
	struct beryl_ptp_time t;
	long long v;
	double ppb;
	int err = 0;

	if (!strcmp(verb, "get")) {
		if (nargs)
			goto usage;
		err = beryl_ptp_gettime(dev, &t);
		if (!err)
			err = beryl_ptp_getfreq(dev, &ppb);
		if (err)
			return fail(err, "ptp get");
		if (o->json)
			printf("{\"sec\": %llu, \"nsec\": %u, \"fns\": %u, \"freq_ppb\": %.6f}\n",
			       (unsigned long long)t.sec, t.nsec, t.fns, ppb);
		else
			printf("time %llu.%09u s, frequency %+.6f ppb\n", (unsigned long long)t.sec, t.nsec, ppb);
		return 0;
	}
	if (!strcmp(verb, "set") && nargs == 1) {
		if (!strcmp(args[0], "now")) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			t = (struct beryl_ptp_time){ .sec = (uint64_t)ts.tv_sec, .nsec = (uint32_t)ts.tv_nsec };
		} else if (parse_time(args[0], &t)) {
			goto usage;
		}
		err = beryl_ptp_settime(dev, &t);
	} else if (!strcmp(verb, "adjtime") && nargs == 1) {
		if (parse_i64(args[0], &v))
			goto usage;
		err = beryl_ptp_adjtime(dev, v);
	} else if (!strcmp(verb, "adjfreq") && nargs == 1) {
		char *end;
		ppb = strtod(args[0], &end);
		if (end == args[0] || *end)
			goto usage;
		err = beryl_ptp_adjfreq(dev, ppb);
	} else if (!strcmp(verb, "perout") && nargs == 1 && !strcmp(args[0], "off")) {
		err = beryl_ptp_perout(dev, NULL, 0, 0);
	} else if (!strcmp(verb, "perout") && (nargs == 2 || nargs == 3)) {
		long long period, width = -1;
		if (parse_time(args[0], &t) || parse_i64(args[1], &period) || period <= 0 ||
		    (nargs == 3 && (parse_i64(args[2], &width) || width < 0)))
			goto usage;
		if (width < 0)
			width = period / 2 < 999999999 ? period / 2 : 999999999;
		err = beryl_ptp_perout(dev, &t, (uint64_t)period, (uint32_t)width);
	} else {
		goto usage;
	}
	if (err)
		return fail(err, verb);
	return 0;
usage:
	fprintf(stderr, "%s: ptp: bad arguments (see --help)\n", prog);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ sched */

struct unit {
	const char *suffix;
	uint64_t mult;
};

static const struct unit bps_units[] = {
	{ "", 1 }, { "k", 1000 }, { "K", 1000 }, { "M", 1000000 }, { "G", 1000000000 }, { "T", 1000000000000ull },
	{ NULL, 0 },
};
static const struct unit byte_units[] = {
	{ "", 1 }, { "B", 1 }, { "k", 1000 }, { "K", 1000 }, { "kB", 1000 }, { "Ki", 1024 }, { "KiB", 1024 },
	{ "M", 1000000 }, { "MB", 1000000 }, { "Mi", 1 << 20 }, { "MiB", 1 << 20 }, { NULL, 0 },
};
static const struct unit count_units[] = { { "", 1 }, { NULL, 0 } };
static const struct unit ns_units[] = {
	{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { NULL, 0 },
};

/* DIGITS[.DIGITS][SUFFIX] -> a whole number (2.5G is exact; 1.5ns is not a whole number: refused). */
static int parse_scaled(const char *s, const struct unit *units, uint64_t *out)
{
	unsigned __int128 ip = 0, fp = 0, scale = 1, v;
	const char *p = s;
	size_t n;

	if (!(*p >= '0' && *p <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9' && ip <= UINT64_MAX; p++)
		ip = ip * 10 + (unsigned)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && scale <= UINT64_MAX; p++, scale *= 10)
			fp = fp * 10 + (unsigned)(*p - '0');
	/* a trailing "bps" or "bit/s" after a rate's multiplier */
	n = strlen(p);
	if (units == bps_units && n >= 3 && !strcmp(p + n - 3, "bps"))
		n -= 3;
	else if (units == bps_units && n >= 5 && !strcmp(p + n - 5, "bit/s"))
		n -= 5;
	for (; units->suffix; units++) {
		if (strlen(units->suffix) != n || strncmp(p, units->suffix, n))
			continue;
		if (ip > UINT64_MAX || scale > UINT64_MAX || fp * units->mult % scale)
			return -1;
		v = ip * units->mult + fp * units->mult / scale;
		if (v > UINT64_MAX)
			return -1;
		*out = (uint64_t)v;
		return 0;
	}
	return -1;
}

static int parse_u32_scaled(const char *what, const char *s, const struct unit *units, uint32_t *out)
{
	uint64_t v;

	if (parse_scaled(s, units, &v) || v > UINT32_MAX) {
		fprintf(stderr, "%s: %s: '%s' is not a number this tool takes there\n", prog, what, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A library error of a sched call: out-of-range or invalid values are usage errors. */
static int sched_fail(int err, const char *what)
{
	if (err == -ERANGE || err == -EINVAL) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, beryl_errmsg());
		return EXIT_USAGE;
	}
	return fail(err, what);
}

static void print_bps(double bps)
{
	static const char *const pre[] = { "", "k", "M", "G", "T" };
	unsigned k = 0;

	while (bps >= 1000 && k < 4) {
		bps /= 1000;
		k++;
	}
	printf("%.6g %sbit/s", bps, pre[k]);
}

/* The ports a port verb covers: --port, or every port. */
static void port_range(const struct beryl_if *nif, const struct opts *o, unsigned *lo, unsigned *hi)
{
	*lo = o->port >= 0 ? (unsigned)o->port : 0;
	*hi = o->port >= 0 ? *lo + 1 : beryl_if_params(nif)->port_count;
}

/* The port of a queue verb: --port, or the port the queue transmits on (its Q_CTRL.PORT). */
static int queue_port(struct beryl_if *nif, const struct opts *o, unsigned q, unsigned *port)
{
	uint32_t ctrl = 0;
	int err;

	if (o->port >= 0) {
		*port = (unsigned)o->port;
		return 0;
	}
	err = beryl_queue_ctrl(nif, BERYL_TXQ, q, &ctrl);
	*port = (ctrl & BERYL_NIC_IF_Q_CTRL_PORT_MASK) >> BERYL_NIC_IF_Q_CTRL_PORT_LSB;
	return err;
}

static int parse_queue_arg(const char *s, unsigned *q)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || *end || v > 0xffff) {
		fprintf(stderr, "%s: sched: '%s' is not a TX queue number\n", prog, s);
		return -1;
	}
	*q = (unsigned)v;
	return 0;
}

static void tdma_json(const struct beryl_tdma_status *st)
{
	const struct beryl_tdma_schedule *s = &st->sched;

	printf("{\"enable\": %s, \"searching\": %s, \"cfg_err\": %s, \"slot_valid\": %s, \"slot_index\": %u, "
	       "\"start_sec\": %llu, \"start_nsec\": %u, \"period_ns\": %u, \"slot_ns\": %u, \"slot_count\": %u, "
	       "\"guard_ns\": %u, \"gate\": %s, \"hold_own\": %s, \"gate_nspb\": %u, \"overhead\": %u, "
	       "\"margin_ns\": %u, \"hold\": %u, \"offslot\": %u, \"overrun\": %u, \"park\": %u}",
	       st->enable ? "true" : "false", st->searching ? "true" : "false", st->cfg_err ? "true" : "false",
	       st->slot_valid ? "true" : "false", st->slot_index, (unsigned long long)s->start.sec, s->start.nsec,
	       s->period_ns, s->slot_ns, s->slot_count, s->guard_ns, s->gate ? "true" : "false",
	       s->hold_own ? "true" : "false", s->gate_nspb, s->overhead, s->margin_ns, st->hold, st->offslot,
	       st->overrun, st->park);
}

static void tdma_text(const struct beryl_tdma_status *st)
{
	const struct beryl_tdma_schedule *s = &st->sched;

	printf("    TDMA %s", !st->enable ? "disabled (the port sends nothing)" :
				 st->cfg_err ? "refused (CFG_ERR): not running" :
				 st->searching ? "enabled, searching the slot" : "enabled");
	if (st->enable && !st->cfg_err && !st->searching) {
		if (st->slot_valid)
			printf(", slot %u open", st->slot_index);
		else
			printf(", no slot open (before the start or in the gap)");
	}
	printf("\n    start %llu.%09u, period %u ns, %u slot(s) of %u ns, guard %u ns\n",
	       (unsigned long long)s->start.sec, s->start.nsec, s->period_ns, s->slot_count, s->slot_ns, s->guard_ns);
	printf("    gate %s%s, 0x%08x ns/byte (", s->gate ? "on" : "off", s->hold_own ? " (hold own)" : "",
	       s->gate_nspb);
	print_bps(s->gate_nspb ? 8e9 * 16777216.0 / s->gate_nspb : 0);
	printf("), overhead %u B, margin %u ns\n", s->overhead, s->margin_ns);
	printf("    gate holds %u, off-slot waits %u, overruns %u, parked %u\n", st->hold, st->offslot, st->overrun,
	       st->park);
}

/* sched show / sched tdma status */
static int sched_show(struct beryl_dev *dev, const struct opts *o, bool tdma_only)
{
	unsigned lo, hi;
	int rc = if_range_open(dev, o, &lo, &hi);

	if (rc)
		return rc;
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		const struct beryl_if_params *p = beryl_if_params(nif);
		unsigned plo, phi;

		port_range(nif, o, &plo, &phi);
		for (unsigned port = plo; port < phi; port++) {
			struct beryl_tdma_status st;
			bool tdma = p->tx_sched == BERYL_SCHED_TDMA || tdma_only;
			int err = tdma ? beryl_tdma_status(nif, port, &st) : beryl_sched_bad_sts(nif, port, &st.bad_sts);

			if (err)
				return sched_fail(err, tdma_only ? "sched tdma status" : "sched");
			/* the interface's line after its first port answered: an error prints alone */
			if (port == plo && o->json)
				printf("%s{\"if\": %u, \"sched\": \"%s\", \"tx_sched\": %u, \"tdma_slots_max\": %u, "
				       "\"ports\": [", i > lo ? ", " : "", i, beryl_sched_type_name(p->tx_sched), p->tx_sched,
				       p->tdma_slots_max);
			else if (port == plo && p->tx_sched == BERYL_SCHED_TDMA)
				printf("interface %u: tdma scheduler (%u slots per period at most)\n", i, p->tdma_slots_max);
			else if (port == plo)
				printf("interface %u: %s scheduler\n", i, beryl_sched_type_name(p->tx_sched));
			if (o->json) {
				printf("%s{\"port\": %u, \"bad_sts\": %u", port > plo ? ", " : "", port, st.bad_sts);
				if (tdma) {
					printf(", \"tdma\": ");
					tdma_json(&st);
				}
				printf("}");
			} else {
				printf("  port %u: bad statuses %u\n", port, st.bad_sts);
				if (tdma)
					tdma_text(&st);
			}
		}
		if (o->json)
			printf("]}");
	}
	if (o->json)
		printf("]}\n");
	return 0;
}

static int rate_get(struct beryl_dev *dev, const struct opts *o, char **args, int nargs)
{
	unsigned lo, hi, qn = 0, n = 0;
	int rc;

	if (nargs > 1)
		return -1;
	if (nargs == 1 && parse_queue_arg(args[0], &qn))
		return EXIT_USAGE;
	rc = if_range_open(dev, o, &lo, &hi);
	if (rc)
		return rc;
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		unsigned first = nargs ? qn : 0, last = nargs ? qn + 1 : beryl_if_params(nif)->txq_count;

		if (o->json)
			printf("%s{\"if\": %u, \"queues\": [", i > lo ? ", " : "", i);
		for (unsigned q = first, k = 0; q < last; q++) {
			struct beryl_tb_queue tb;
			unsigned port;
			double bps;
			bool have_bps;
			int err = queue_port(nif, o, q, &port);

			if (!err)
				err = beryl_sched_rate_get(nif, port, q, &tb);
			if (err)
				return sched_fail(err, "sched rate get");
			if (!tb.rate && !nargs && !o->all)
				continue;
			have_bps = !beryl_sched_rate_to_bps(nif, tb.rate, &bps);
			if (o->json) {
				printf("%s{\"queue\": %u, \"port\": %u, \"rate\": %u, \"bps\": ", k++ ? ", " : "", q, port,
				       tb.rate);
				if (have_bps)
					printf("%.3f", bps);
				else
					printf("null");
				printf(", \"burst\": %u, \"tokens\": %d}", tb.burst, tb.tokens);
			} else {
				printf("interface %u port %u txq %u: ", i, port, q);
				if (!tb.rate) {
					printf("not limited");
				} else if (have_bps) {
					print_bps(bps);
					printf(" (0x%08x bytes/cycle 8.24)", tb.rate);
				} else {
					printf("0x%08x bytes/cycle 8.24", tb.rate);
				}
				printf(", burst %u B, tokens %d B\n", tb.burst, tb.tokens);
			}
			n++;
		}
		if (o->json)
			printf("]}");
	}
	if (o->json)
		printf("]}\n");
	else if (!n)
		printf("(no queue has a rate; --all lists every queue)\n");
	return 0;
}

static int rate_set(struct beryl_dev *dev, const struct opts *o, char **args, int nargs)
{
	unsigned lo, hi, q;
	uint64_t rate = 0;
	uint32_t burst = 0;
	char *end = NULL;
	int rc = if_range(dev, o, &lo, &hi);

	if (rc)
		return rc;
	if (nargs != 2 && nargs != 3)
		return -1;
	if (parse_queue_arg(args[0], &q))
		return EXIT_USAGE;
	errno = 0;
	if (o->raw)
		rate = strtoull(args[1], &end, 0);
	if (!strcmp(args[1], "unlimited")) {
		rate = 0;
	} else if (o->raw ? errno || end == args[1] || *end || rate > UINT32_MAX : parse_scaled(args[1], bps_units, &rate)) {
		fprintf(stderr, "%s: sched rate set: '%s' is not a rate (%s)\n", prog, args[1],
			o->raw ? "8.24 bytes per cycle, 0..0xffffffff" : "bit/s: 100M, 2.5G, 0");
		return EXIT_USAGE;
	}
	if (nargs == 3 && parse_u32_scaled("sched rate set: burst", args[2], byte_units, &burst))
		return EXIT_USAGE;
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		unsigned port;
		uint32_t b = nargs == 3 ? burst : beryl_if_params(nif)->max_frame;
		int err = queue_port(nif, o, q, &port);

		if (!err)
			err = o->raw ? beryl_sched_rate_set(nif, port, q, (uint32_t)rate, b) :
				       beryl_sched_rate_set_bps(nif, port, q, rate, b);
		if (err)
			return sched_fail(err, "sched rate set");
	}
	return 0;
}

static int mask_cmd(struct beryl_dev *dev, const struct opts *o, bool set, char **args, int nargs)
{
	unsigned lo, hi, q;
	uint32_t mask = 0;
	char *end;
	int rc;

	if (nargs != (set ? 2 : 1))
		return -1;
	if (parse_queue_arg(args[0], &q))
		return EXIT_USAGE;
	if (set) {
		unsigned long v;

		errno = 0;
		v = strtoul(args[1], &end, 0);
		if (errno || end == args[1] || *end || v > UINT32_MAX) {
			fprintf(stderr, "%s: sched mask set: '%s' is not a mask (0x5: slots 0 and 2)\n", prog, args[1]);
			return EXIT_USAGE;
		}
		mask = (uint32_t)v;
	}
	rc = set ? if_range(dev, o, &lo, &hi) : if_range_open(dev, o, &lo, &hi);
	if (rc)
		return rc;
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		unsigned port;
		int err = queue_port(nif, o, q, &port);

		if (!err)
			err = set ? beryl_tdma_mask_set(nif, port, q, mask) : beryl_tdma_mask_get(nif, port, q, &mask);
		if (err)
			return sched_fail(err, set ? "sched mask set" : "sched mask get");
		if (set)
			continue;
		if (o->json)
			printf("%s{\"if\": %u, \"port\": %u, \"queue\": %u, \"mask\": %u}", i > lo ? ", " : "", i, port, q,
			       mask);
		else
			printf("interface %u port %u txq %u: slot mask 0x%08x\n", i, port, q, mask);
	}
	if (o->json && !set)
		printf("]}\n");
	return 0;
}

/* --start: now (default), +T after now, or an absolute PTP time SEC[.NSEC] */
static int tdma_start(struct beryl_dev *dev, const char *s, struct beryl_ptp_time *t)
{
	uint64_t ns;
	int err;

	if (s && *s != '+' && strcmp(s, "now"))
		return parse_time(s, t) ? -EINVAL : 0;
	if (s && *s == '+' && parse_scaled(s + 1, ns_units, &ns))
		return -EINVAL;
	err = beryl_ptp_gettime(dev, t);
	if (err)
		return err;
	if (s && *s == '+') {
		ns += t->nsec;
		t->sec += ns / 1000000000u;
		t->nsec = (uint32_t)(ns % 1000000000u);
	}
	return 0;
}

static int tdma_set(struct beryl_dev *dev, const struct opts *o)
{
	struct beryl_tdma_schedule s;
	unsigned lo, hi;
	uint64_t line;
	int rc = if_range(dev, o, &lo, &hi), err;

	if (rc)
		return rc;
	beryl_tdma_defaults(&s);
	if (!o->period || !o->slot || !o->slots) {
		fprintf(stderr, "%s: sched tdma set wants --period, --slot and --slots\n", prog);
		return EXIT_USAGE;
	}
	if (parse_u32_scaled("--period", o->period, ns_units, &s.period_ns) ||
	    parse_u32_scaled("--slot", o->slot, ns_units, &s.slot_ns) ||
	    parse_u32_scaled("--slots", o->slots, count_units, &s.slot_count) ||
	    (o->guard && parse_u32_scaled("--guard", o->guard, ns_units, &s.guard_ns)) ||
	    (o->overhead && parse_u32_scaled("--overhead", o->overhead, byte_units, &s.overhead)) ||
	    (o->margin && parse_u32_scaled("--margin", o->margin, ns_units, &s.margin_ns)))
		return EXIT_USAGE;
	if (o->line_rate) {
		if (parse_scaled(o->line_rate, bps_units, &line)) {
			fprintf(stderr, "%s: --line-rate: '%s' is not a rate in bit/s (100G, 25G)\n", prog, o->line_rate);
			return EXIT_USAGE;
		}
		err = beryl_tdma_nspb(line, &s.gate_nspb);
		if (err)
			return sched_fail(err, "sched tdma set");
	}
	s.gate = o->gate;
	s.hold_own = o->hold_own;
	err = tdma_start(dev, o->start, &s.start);
	if (err == -EINVAL) {
		fprintf(stderr, "%s: --start wants now, +T (1ms, 500us) or SEC[.NSEC]\n", prog);
		return EXIT_USAGE;
	}
	if (err)
		return fail(err, "sched tdma set");
	for (unsigned i = lo; i < hi; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		unsigned plo, phi;

		port_range(nif, o, &plo, &phi);
		for (unsigned port = plo; port < phi; port++) {
			err = beryl_tdma_set(nif, port, &s);
			if (err)
				return sched_fail(err, "sched tdma set");
		}
	}
	return 0;
}

static int tdma_disable(struct beryl_dev *dev, const struct opts *o)
{
	unsigned lo, hi;
	int rc = if_range(dev, o, &lo, &hi);

	for (unsigned i = lo; i < hi && !rc; i++) {
		struct beryl_if *nif = beryl_if_get(dev, i);
		unsigned plo, phi;

		port_range(nif, o, &plo, &phi);
		for (unsigned port = plo; port < phi && !rc; port++) {
			int err = beryl_tdma_disable(nif, port);

			if (err)
				rc = sched_fail(err, "sched tdma disable");
		}
	}
	return rc;
}

static int cmd_sched(struct beryl_dev *dev, const struct opts *o, const char *verb, char **args, int nargs)
{
	const char *sub = nargs ? args[0] : "";
	int rc = -1;

	if (!strcmp(verb, "show") && !nargs)
		rc = sched_show(dev, o, false);
	else if (!strcmp(verb, "rate") && !strcmp(sub, "get"))
		rc = rate_get(dev, o, args + 1, nargs - 1);
	else if (!strcmp(verb, "rate") && !strcmp(sub, "set"))
		rc = rate_set(dev, o, args + 1, nargs - 1);
	else if (!strcmp(verb, "tdma") && !strcmp(sub, "set") && nargs == 1)
		rc = tdma_set(dev, o);
	else if (!strcmp(verb, "tdma") && !strcmp(sub, "disable") && nargs == 1)
		rc = tdma_disable(dev, o);
	else if (!strcmp(verb, "tdma") && (!strcmp(sub, "status") || !nargs) && nargs <= 1)
		rc = sched_show(dev, o, true);
	else if (!strcmp(verb, "mask") && (!strcmp(sub, "get") || !strcmp(sub, "set")))
		rc = mask_cmd(dev, o, !strcmp(sub, "set"), args + 1, nargs - 1);
	if (rc < 0) {
		fprintf(stderr, "%s: sched: bad arguments (see --help)\n", prog);
		return EXIT_USAGE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' }, { "transport", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "if", required_argument, NULL, 'i' }, { "queue", required_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' }, { "queues", no_argument, NULL, 'Q' }, { "key", required_argument, NULL, 'k' },
		{ "table", required_argument, NULL, 'T' }, { "equal", required_argument, NULL, 'e' },
		{ "hash", required_argument, NULL, 'H' }, { "enable", no_argument, NULL, 'E' },
		{ "disable", no_argument, NULL, 'D' }, { "default", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' }, { "raw", no_argument, NULL, 'r' },
		{ "start", required_argument, NULL, 1000 }, { "period", required_argument, NULL, 1001 },
		{ "slot", required_argument, NULL, 1002 }, { "slots", required_argument, NULL, 1003 },
		{ "guard", required_argument, NULL, 1004 }, { "gate", no_argument, NULL, 1005 },
		{ "hold-own", no_argument, NULL, 1006 }, { "line-rate", required_argument, NULL, 1007 },
		{ "overhead", required_argument, NULL, 1008 }, { "margin", required_argument, NULL, 1009 },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .ifn = -1, .qtype = -1, .equal = -1, .enable = -1, .defq = -1, .port = -1 };
	const char *cmd = NULL, *verb = NULL;
	struct beryl_dev *dev;
	int c, err, rc;

	while ((c = getopt_long(argc, argv, "s:t:jhi:q:ap:", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.socket = optarg;
			break;
		case 't':
			o.transport = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'i':
			o.ifn = atoi(optarg);
			break;
		case 'q':
			if (parse_queue(optarg, &o)) {
				fprintf(stderr, "%s: --queue wants TYPE:INDEX, TYPE one of txq rxq cq eq\n", prog);
				return EXIT_USAGE;
			}
			break;
		case 'a':
			o.all = true;
			break;
		case 'Q':
			o.queues = true;
			break;
		case 'k':
			o.key = optarg;
			break;
		case 'T':
			o.table = optarg;
			break;
		case 'e':
			o.equal = atoi(optarg);
			if (o.equal <= 0) {
				fprintf(stderr, "%s: --equal wants a queue count >= 1\n", prog);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			o.hash = optarg;
			break;
		case 'E':
			o.enable = 1;
			break;
		case 'D':
			o.enable = 0;
			break;
		case 'd':
			o.defq = atoi(optarg);
			break;
		case 'p':
			o.port = atoi(optarg);
			if (o.port < 0) {
				fprintf(stderr, "%s: --port wants a port number\n", prog);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			o.raw = true;
			break;
		case 1000:
			o.start = optarg;
			break;
		case 1001:
			o.period = optarg;
			break;
		case 1002:
			o.slot = optarg;
			break;
		case 1003:
			o.slots = optarg;
			break;
		case 1004:
			o.guard = optarg;
			break;
		case 1005:
			o.gate = true;
			break;
		case 1006:
			o.hold_own = true;
			break;
		case 1007:
			o.line_rate = optarg;
			break;
		case 1008:
			o.overhead = optarg;
			break;
		case 1009:
			o.margin = optarg;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		cmd = argv[optind++];
	if (optind < argc)
		verb = argv[optind++];
	if (!cmd || (strcmp(cmd, "rss") && strcmp(cmd, "ptp") && strcmp(cmd, "sched") && verb) ||
	    (strcmp(cmd, "ptp") && strcmp(cmd, "sched") && optind < argc) ||
	    (strcmp(cmd, "info") && strcmp(cmd, "dump") && strcmp(cmd, "stats") && strcmp(cmd, "rss") &&
	     strcmp(cmd, "ptp") && strcmp(cmd, "sched"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((!strcmp(cmd, "rss") || !strcmp(cmd, "ptp")) && !verb)
		verb = "get";
	if (!strcmp(cmd, "sched") && !verb)
		verb = "show";
	err = beryl_open(o.transport, o.socket, &dev);
	if (err)
		return fail(err, "cannot open the device");
	if (!strcmp(cmd, "info"))
		rc = cmd_info(dev, &o);
	else if (!strcmp(cmd, "dump"))
		rc = cmd_dump(dev, &o);
	else if (!strcmp(cmd, "stats"))
		rc = cmd_stats(dev, &o);
	else if (!strcmp(cmd, "ptp"))
		rc = cmd_ptp(dev, &o, verb, argv + optind, argc - optind);
	else if (!strcmp(cmd, "sched"))
		rc = cmd_sched(dev, &o, verb, argv + optind, argc - optind);
	else
		rc = cmd_rss(dev, &o, verb);
	beryl_close(dev);
	return rc;
}
