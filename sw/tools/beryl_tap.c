// SPDX-License-Identifier: MIT
/*
 * beryl-tap: each NIC interface appears as a Linux TAP device. Frames flow TAP -> TX ring -> device
 * and device -> RX ring -> TAP, polling or interrupt-driven, with checksum offload through the TAP's
 * virtio-net header. Needs root (CAP_NET_ADMIN). Ctrl-C/SIGTERM stops it; the TAPs go with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "beryl.h"
#include "beryl_regs.h"

#define MAX_IFS 16
#define BATCH 32
#define VNET_HDR sizeof(struct virtio_net_hdr)

struct port {
	struct beryl_if *nif;
	int fd;
	char name[IFNAMSIZ];
	unsigned nq;
	uint8_t frame[VNET_HDR + 65536];   /* a frame read from the TAP waiting for ring space */
	ssize_t pending;
	unsigned long tap_in, tx_sent, tx_csum, tx_drop, tx_err, rx_frames, rx_csum_ok, rx_err, tap_drop;
};

static volatile sig_atomic_t stop;
static int failed;   /* a device error stopped the bridge */
static const char *prog = "beryl-tap";

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-s SOCKET] [-t TRANSPORT] [-p PREFIX] [--irq] [--queues N] [--ring LOG2]\n"
		"          [--mtu N] [--up] [--no-offload] [--coalesce N] [--verbose]\n"
		"  Creates one TAP device PREFIX<i> (default beryl<i>) per NIC interface and bridges it to\n"
		"  the interface's rings until Ctrl-C or SIGTERM; then prints packet counters.\n"
		"  --irq        interrupt-driven (default: polling)\n"
		"  --queues N   TX and RX queues per interface (RSS spreads RX over them)\n"
		"  --mtu N      the TAPs' MTU; TX buffers hold a whole frame (MTU + 18 B, within MAX_FRAME)\n"
		"  --no-offload no checksum offload (no virtio-net header on the TAPs)\n"
		"  --coalesce N interrupt moderation: at least N x 256 cycles between interrupts\n"
		"exit codes: 0 ok, 1 device error, 2 usage, 3 no device reachable, 4 version mismatch,\n"
		"            5 no permission to create TAP devices\n", prog);
}

static int dev_exit(int err)
{
	return err == -ENOENT || err == -ECONNREFUSED || err == -ENODEV ? 3 : err == -EPROTO ? 4 : 1;
}

static int tap_open(struct port *p, const char *name, bool vnet, unsigned mtu, bool up)
{
	struct ifreq ifr = { 0 };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC), s;

	if (fd < 0) {
		fprintf(stderr, "%s: /dev/net/tun: %s\n", prog, strerror(errno));
		return -errno;
	}
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (vnet ? IFF_VNET_HDR : 0);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = -errno;

		if (err == -EPERM)
			fprintf(stderr, "%s: creating TAP device %s needs root (CAP_NET_ADMIN); run as root\n",
				prog, name);
		else
			fprintf(stderr, "%s: TAP device %s: %s\n", prog, name, strerror(-err));
		close(fd);
		return err;
	}
	if (vnet && ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM))
		fprintf(stderr, "%s: %s: no checksum offload: %s\n", prog, name, strerror(errno));
	snprintf(p->name, IFNAMSIZ, "%s", ifr.ifr_name);
	p->fd = fd;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0) {
		struct ifreq r = { 0 };

		snprintf(r.ifr_name, IFNAMSIZ, "%s", p->name);
		r.ifr_mtu = (int)mtu;
		if (mtu && ioctl(s, SIOCSIFMTU, &r))
			fprintf(stderr, "%s: %s: MTU %u: %s\n", prog, p->name, mtu, strerror(errno));
		if (up && !ioctl(s, SIOCGIFFLAGS, &r)) {
			r.ifr_flags |= IFF_UP;
			if (ioctl(s, SIOCSIFFLAGS, &r))
				fprintf(stderr, "%s: %s: up: %s\n", prog, p->name, strerror(errno));
		}
		close(s);
	}
	return 0;
}

static uint32_t sum_bytes(const uint8_t *d, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)d[i] << 8 | d[i + 1];
	if (n & 1)
		s += (uint32_t)d[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * RX checksum offload: the device gives the ones'-complement sum of the frame from byte 14. For an
 * unfragmented IPv4 TCP/UDP frame without padding, L4 sum = that - IP header sum; with the pseudo
 * header it must fold to 0xffff.
 */
static bool rx_csum_ok(const struct beryl_rx_pkt *pk)
{
	const uint8_t *f = pk->data;
	unsigned ihl, tot, l4len;
	uint32_t s;

	if (!(pk->cpl.flags & BERYL_CPL_FLAG_CSUM_VALID) || pk->len < 34 || f[12] != 0x08 || f[13] != 0 ||
	    (f[14] >> 4) != 4)
		return false;
	ihl = (f[14] & 15u) * 4;
	tot = (unsigned)f[16] << 8 | f[17];
	if (ihl < 20 || tot != pk->len - 14 || tot <= ihl || (f[20] & 0x3f) || f[21] || (f[23] != 6 && f[23] != 17))
		return false;
	if (f[23] == 17 && !(f[14 + ihl + 6] | f[14 + ihl + 7]))
		return false;   /* UDP without a checksum */
	l4len = tot - ihl;
	/* total - ip header, in ones' complement: add the complement */
	s = (uint32_t)pk->cpl.csum + (uint16_t)~fold(sum_bytes(f + 14, ihl, 0));
	s = sum_bytes(f + 26, 8, s) + f[23] + l4len;
	return fold(s) == 0xffff;
}

static void tap_tx(struct port *p, bool vnet)
{
	struct beryl_rx_pkt pk[BATCH];

	for (unsigned q = 0; q < p->nq; q++) {
		int n = beryl_rx_poll(p->nif, q, pk, BATCH);

		if (n < 0) {
			fprintf(stderr, "%s: %s: receive: %s\n", prog, p->name, beryl_errmsg());
			stop = failed = 1;
			return;
		}
		for (int i = 0; i < n; i++) {
			struct virtio_net_hdr h = { 0 };
			struct iovec iov[2] = { { &h, VNET_HDR }, { (void *)pk[i].data, pk[i].len } };

			if (pk[i].cpl.status != BERYL_CPL_OK) {
				p->rx_err++;
				continue;
			}
			p->rx_frames++;
			if (vnet && rx_csum_ok(&pk[i])) {
				h.flags = VIRTIO_NET_HDR_F_DATA_VALID;
				p->rx_csum_ok++;
			}
			if (writev(p->fd, vnet ? iov : iov + 1, vnet ? 2 : 1) < 0)
				p->tap_drop++;
		}
	}
}

/* Software checksum for what the device cannot take (no TX_CSUM, or csum_start beyond 255). */
static void sw_csum(uint8_t *f, size_t len, unsigned start, unsigned off)
{
	uint16_t s = (uint16_t)~fold(sum_bytes(f + start, len - start, 0));

	if (!s)
		s = 0xffff;     /* as the device does: 0 would mean "no checksum" in UDP (RFC 768) */

	f[start + off] = (uint8_t)(s >> 8);
	f[start + off + 1] = (uint8_t)s;
}

static unsigned pick_txq(const uint8_t *f, size_t len, unsigned nq)
{
	uint32_t h = 0;

	if (nq < 2 || len < 38)
		return 0;
	for (unsigned i = 26; i < 38; i++)
		h = h * 31 + f[i];
	return h % nq;
}

/* Move frames from the TAP to the TX rings; returns the number sent. */
static int tap_rx(struct port *p, bool vnet, unsigned max_frame)
{
	unsigned sent = 0, kick = 0;

	while (sent < BATCH && !stop) {
		uint8_t *f = p->frame + (vnet ? VNET_HDR : 0);
		struct virtio_net_hdr *h = (struct virtio_net_hdr *)p->frame;
		static const uint8_t pad[64];
		struct beryl_tx_csum cs, *csp = NULL;
		struct iovec iov[2];
		size_t len;
		unsigned q;
		int err;

		if (!p->pending) {
			ssize_t n = read(p->fd, p->frame, sizeof(p->frame));

			if (n <= 0)
				break;
			p->tap_in++;
			p->pending = n;
		}
		len = (size_t)p->pending - (vnet ? VNET_HDR : 0);
		if ((ssize_t)len <= 0 || len > max_frame) {
			p->tx_drop++;
			p->pending = 0;
			continue;
		}
		if (vnet && (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    (size_t)h->csum_start + h->csum_offset + 2 <= len) {
			bool hw = beryl_if_params(p->nif)->features & BERYL_NIC_IF_FEATURES_TX_CSUM_MASK;

			if (hw && h->csum_start <= 255 && h->csum_offset <= 255) {
				cs.start = (uint8_t)h->csum_start;
				cs.offset = (uint8_t)h->csum_offset;
				csp = &cs;
				p->tx_csum++;
			} else {
				sw_csum(f, len, h->csum_start, h->csum_offset);
			}
		}
		iov[0] = (struct iovec){ f, len };
		iov[1] = (struct iovec){ (void *)pad, len < 60 ? 60 - len : 0 };   /* Ethernet minimum */
		q = pick_txq(f, len, p->nq);
		err = beryl_tx_send(p->nif, q, iov, len < 60 ? 2 : 1, csp, BERYL_TX_NO_DOORBELL);
		if (err == -EAGAIN) {
			if (vnet && csp)
				p->tx_csum--;
			break;   /* ring full: keep the frame, retry after completions */
		}
		p->pending = 0;
		if (err < 0) {
			p->tx_err++;
			fprintf(stderr, "%s: %s: transmit: %s\n", prog, p->name, beryl_errmsg());
			if (err == -ECONNRESET || err == -EIO) {
				stop = failed = 1;
				break;
			}
			continue;
		}
		kick |= 1u << q;
		p->tx_sent++;
		sent++;
	}
	for (unsigned q = 0; q < p->nq; q++) {
		if ((kick & (1u << q)) && beryl_tx_flush(p->nif, q)) {
			fprintf(stderr, "%s: %s: transmit: %s\n", prog, p->name, beryl_errmsg());
			stop = failed = 1;
		}
	}
	return (int)sent;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' }, { "transport", required_argument, NULL, 't' },
		{ "prefix", required_argument, NULL, 'p' }, { "irq", no_argument, NULL, 'i' },
		{ "queues", required_argument, NULL, 'q' }, { "ring", required_argument, NULL, 'r' },
		{ "mtu", required_argument, NULL, 'm' }, { "up", no_argument, NULL, 'u' },
		{ "no-offload", no_argument, NULL, 'n' }, { "verbose", no_argument, NULL, 'v' },
		{ "coalesce", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *transport = NULL, *prefix = "beryl";
	unsigned nq = 1, ring = 9, mtu = 0, coalesce = 0, nports;
	bool irq = false, up = false, vnet = true, verbose = false;
	static struct port ports[MAX_IFS];
	struct sigaction sa = { .sa_handler = on_signal };
	struct beryl_dev *dev;
	int c, err, rc = 0;

	while ((c = getopt_long(argc, argv, "s:t:p:iq:r:m:unvc:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 't':
			transport = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'i':
			irq = true;
			break;
		case 'q':
			nq = (unsigned)atoi(optarg);
			break;
		case 'r':
			ring = (unsigned)atoi(optarg);
			break;
		case 'm':
			mtu = (unsigned)atoi(optarg);
			break;
		case 'u':
			up = true;
			break;
		case 'n':
			vnet = false;
			break;
		case 'v':
			verbose = true;
			break;
		case 'c':
			coalesce = (unsigned)atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !nq || nq > 32 || !ring || ring > 15 || strlen(prefix) > IFNAMSIZ - 4) {
		usage(stderr);
		return 2;
	}
	err = beryl_open(transport, sock, &dev);
	if (err) {
		fprintf(stderr, "%s: cannot open the device: %s\n", prog, beryl_errmsg());
		return dev_exit(err);
	}
	nports = beryl_if_count(dev) < MAX_IFS ? beryl_if_count(dev) : MAX_IFS;
	if (!nports) {
		fprintf(stderr, "%s: the device has no NIC interface\n", prog);
		beryl_close(dev);
		return 3;
	}
	for (unsigned i = 0; i < nports && !rc; i++) {
		struct port *p = &ports[i];
		struct beryl_if_config cfg = { .txq_count = nq, .rxq_count = nq, .tx_log_size = ring,
					       .rx_log_size = ring, .irq = irq, .vector = -1,
					       .irq_interval = coalesce };
		const struct beryl_if_params *par;
		char name[IFNAMSIZ];

		p->fd = -1;
		p->nif = beryl_if_get(dev, i);
		par = beryl_if_params(p->nif);
		p->nq = nq;
		/* one RX buffer per frame: big enough for the largest frame the TAP may hand back */
		cfg.rx_buf_size = par->max_frame < 16384 ? par->max_frame : 16384;
		/* one TX descriptor per frame up to the MTU (a descriptor batch then carries as many
		   frames as descriptors): 2 KiB buffers for the standard MTU, larger for jumbo frames */
		cfg.tx_buf_size = mtu + ETH_HLEN + 4 > 2048 ? (mtu + ETH_HLEN + 4 + 1023) & ~1023u : 2048;
		if (mtu && mtu + ETH_HLEN + 4 > par->max_frame) {
			fprintf(stderr, "%s: MTU %u does not fit the interface's MAX_FRAME %u (frame = MTU + 18)\n",
				prog, mtu, par->max_frame);
			rc = 2;
			break;
		}
		snprintf(name, sizeof(name), "%s%u", prefix, i);
		err = tap_open(p, name, vnet, mtu, up);
		if (err) {
			rc = err == -EPERM ? 5 : 1;
			break;
		}
		err = beryl_if_start(p->nif, &cfg);
		if (!err) {
			/* RSS over the nq RX queues (off for one): every hash type, the key left as it is */
			uint16_t *tbl = calloc(par->rss_table_size, sizeof(*tbl));
			struct beryl_rss r = { .table = tbl };

			err = tbl ? beryl_rss_get(p->nif, &r) : -ENOMEM;
			for (unsigned k = 0; !err && k < r.table_size; k++)
				tbl[k] = (uint16_t)(k % nq);
			r.enable = nq > 1;
			r.hash_en = BERYL_RSS_HASH_ALL;
			r.default_queue = 0;
			if (!err)
				err = beryl_rss_set(p->nif, &r, false);
			free(tbl);
		}
		if (err) {
			fprintf(stderr, "%s: interface %u: %s\n", prog, i, beryl_errmsg());
			rc = dev_exit(err);
			break;
		}
		printf("%s: interface %u <-> %s (%u queue%s, %s)\n", prog, i, p->name, nq, nq > 1 ? "s" : "",
		       irq ? "interrupts" : "polling");
	}
	fflush(stdout);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (!rc && !stop) {
		struct pollfd pfd[MAX_IFS + 1];
		unsigned n = 0;
		int work = 0;
		uint32_t vec;

		for (unsigned i = 0; i < nports; i++) {
			pfd[n++] = (struct pollfd){ .fd = ports[i].fd, .events = ports[i].pending ? 0 : POLLIN };
			/* reclaim TX descriptors: reads host memory only, doorbells just when there is work */
			if (beryl_tx_pending(ports[i].nif, 0) || ports[i].pending)
				for (unsigned q = 0; q < nq; q++)
					beryl_tx_complete(ports[i].nif, q, NULL, 0);
			work += tap_rx(&ports[i], vnet, beryl_if_params(ports[i].nif)->max_frame);
		}
		if (irq) {
			/* interrupts already queued by the transport first, then sleep on its fd */
			while ((err = beryl_wait_irq(dev, 0, &vec)) == 1) {
				for (unsigned i = 0; i < nports; i++)
					if ((uint32_t)beryl_if_vector(ports[i].nif) == vec)
						beryl_if_events(ports[i].nif);
				work++;
			}
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "%s: %s\n", prog, beryl_errmsg());
				rc = 1;
				break;
			}
		}
		/* the device connection: interrupts, or only hang-up in polling mode */
		pfd[n++] = (struct pollfd){ .fd = beryl_irq_fd(dev), .events = irq ? POLLIN : 0 };
		for (unsigned i = 0; i < nports; i++)
			tap_tx(&ports[i], vnet);
		if (work || stop)
			continue;
		/* polling mode: sleep at most 1 ms (frames from the device are seen by looking at memory) */
		if (poll(pfd, n, irq ? 100 : 1) < 0 && errno != EINTR)
			break;
		if (pfd[n - 1].fd >= 0 && pfd[n - 1].revents & (POLLHUP | POLLERR)) {
			fprintf(stderr, "%s: device connection lost\n", prog);
			rc = 1;
		}
	}
	printf("%s: stopping\n", prog);
	for (unsigned i = 0; i < nports; i++) {
		struct port *p = &ports[i];

		if (p->fd < 0)
			continue;
		printf("%s: %s: tap->nic %lu frames read, %lu sent (%lu checksum offloaded), %lu dropped, %lu errors; "
		       "nic->tap %lu frames (%lu checksums verified), %lu bad completions, %lu TAP write drops\n",
		       prog, p->name, p->tap_in, p->tx_sent, p->tx_csum, p->tx_drop, p->tx_err, p->rx_frames,
		       p->rx_csum_ok, p->rx_err, p->tap_drop);
		if (verbose) {
			struct beryl_counter cnt[64];
			int k = beryl_if_counters(p->nif, cnt, 64);

			for (int j = 0; j < k; j++)
				if (cnt[j].value)
					printf("    %s %u\n", cnt[j].name, cnt[j].value);
		}
		close(p->fd);   /* the TAP device disappears with its last file descriptor */
	}
	beryl_close(dev);
	return rc ? rc : failed;
}
