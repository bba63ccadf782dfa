// SPDX-License-Identifier: MIT
/*
 * fake-sim: serves the simulator protocol (docs/sim_protocol.md) with the fake device of the unit
 * tests, so the sim transport, the CLI and the TAP bridge can be tested without the RTL simulator.
 *   fake-sim --socket PATH [--mem-mb N] [--ifs N] [--if-version V] [--no-pcie]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "beryl_priv.h"
#include "fake_dev.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int send_msg(int fd, uint32_t type, uint64_t data, const char *payload)
{
	uint8_t h[24];
	size_t len = payload ? strlen(payload) : 0;

	beryl_put32(h, type);
	beryl_put32(h + 4, (uint32_t)len);
	beryl_put64(h + 8, 0);
	beryl_put64(h + 16, data);
	if (send(fd, h, 24, MSG_NOSIGNAL) != 24)
		return -1;
	if (len && send(fd, payload, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	return 0;
}

static int recv_all(int fd, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sock = BERYL_SIM_DEFAULT_SOCKET;
	size_t mem_mb = 64;
	struct fake_dev_cfg cfg;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char shm[64], hello[256];
	struct fake_dev *dev;
	uint8_t *mem;
	int lfd, cfd = -1, fd;
	struct timespec t0, t1;

	fake_dev_default_cfg(&cfg);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--socket") && i + 1 < argc)
			sock = argv[++i];
		else if (!strcmp(argv[i], "--mem-mb") && i + 1 < argc)
			mem_mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ifs") && i + 1 < argc)
			cfg.nifs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--if-version") && i + 1 < argc)
			cfg.if_version = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--no-pcie"))
			cfg.no_pcie = true;
		else {
			fprintf(stderr, "usage: fake-sim [--socket PATH] [--mem-mb N] [--ifs N] [--if-version V] "
				"[--no-pcie]\n");
			return 2;
		}
	}
	snprintf(shm, sizeof(shm), "/dev/shm/beryl-fake-%d", (int)getpid());
	fd = open(shm, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)(mem_mb << 20))) {
		perror(shm);
		return 1;
	}
	mem = mmap(NULL, mem_mb << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	dev = fake_dev_create(&cfg, mem, 0x100000000ull, mem_mb << 20);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	unlink(sock);
	if (!dev || lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4)) {
		perror(sock);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	snprintf(hello, sizeof(hello), "{\"shm\": \"%s\", \"mem_size\": %zu, \"mem_base\": %llu, "
		 "\"bar0_size\": %u, \"clock_hz\": 250000000}", shm, mem_mb << 20, 0x100000000ull,
		 1u << BERYL_BAR0_ADDR_W);
	fprintf(stderr, "fake-sim: listening on %s\n", sock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		struct pollfd p[2] = { { .fd = lfd, .events = POLLIN }, { .fd = cfd, .events = POLLIN } };
		uint8_t h[24];
		uint32_t type, vec;
		uint64_t addr, data;

		if (poll(p, cfd >= 0 ? 2 : 1, 500) <= 0)
			continue;
		/* the attached driver's messages first: a BYE just before a new connection frees the slot */
		if (p[0].revents & POLLIN && !(cfd >= 0 && p[1].revents)) {
			int nfd = accept(lfd, NULL, NULL);

			if (nfd >= 0 && cfd >= 0) {
				send_msg(nfd, 6, 0, "another driver is attached");
				close(nfd);
			} else {
				cfd = nfd;
			}
			continue;
		}
		if (cfd < 0 || !(p[1].revents & (POLLIN | POLLHUP)))
			continue;
		if (recv_all(cfd, h, 24)) {
			close(cfd);
			cfd = -1;
			continue;
		}
		type = beryl_get32(h);
		addr = beryl_get64(h + 8);
		data = beryl_get64(h + 16);
		if (beryl_get32(h + 4)) {   /* no driver message carries a payload */
			close(cfd);
			cfd = -1;
			continue;
		}
		switch (type) {
		case 1:
			send_msg(cfd, 1, 1, hello);
			break;
		case 2:
			send_msg(cfd, 2, fake_dev_read(dev, (uint32_t)addr), NULL);
			break;
		case 3:
			fake_dev_write(dev, (uint32_t)addr, (uint32_t)data);
			while (fake_dev_irq_pop(dev, &vec))
				send_msg(cfd, 4, vec, NULL);
			break;
		case 5: {
			char js[160];
			double s;

			clock_gettime(CLOCK_MONOTONIC, &t1);
			s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
			snprintf(js, sizeof(js), "{\"cycles\": %llu, \"wall_s\": %.3f, \"cycles_per_s\": %.1f}",
				 (unsigned long long)fake_dev_accesses(dev), s, (double)fake_dev_accesses(dev) / s);
			send_msg(cfd, 5, 0, js);
			break;
		}
		case 7:
			close(cfd);
			cfd = -1;
			break;
		default:
			send_msg(cfd, 6, 0, "unknown message type");
			close(cfd);
			cfd = -1;
		}
	}
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	unlink(sock);
	unlink(shm);
	munmap(mem, mem_mb << 20);
	fake_dev_destroy(dev);
	return 0;
}
