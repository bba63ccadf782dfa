// SPDX-License-Identifier: MIT
/*
 * Simulator transport (docs/sim_protocol.md): BAR0 accesses as messages on a UNIX stream socket,
 * host memory in a shared-memory file both processes map, MSI-X messages queued as they arrive.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "beryl_priv.h"
#include "beryl_transport.h"

enum { MSG_HELLO = 1, MSG_READ32 = 2, MSG_WRITE32 = 3, MSG_IRQ = 4, MSG_STATS = 5, MSG_ERROR = 6,
       MSG_BYE = 7 };
#define SIM_PROTOCOL_VERSION 1
#define SIM_HDR_BYTES 24
#define SIM_MAX_PAYLOAD (1u << 20)

struct sim_msg {
	uint32_t type, len;
	uint64_t addr, data;
	char *payload;          /* NUL-terminated copy, or NULL */
};

struct sim {
	struct beryl_transport t;
	int fd;
	bool dead;
	uint8_t *mem;
	size_t mem_size;
	uint64_t mem_base;
	struct beryl_dma_pool *pool;
	uint32_t *irqs;         /* vectors received while waiting for replies (FIFO) */
	unsigned irq_head, irq_count, irq_cap;
};

static struct sim *to_sim(struct beryl_transport *t)
{
	return t->priv;
}

static int sim_lost(struct sim *s, const char *what)
{
	s->dead = true;
	return beryl_fail(-ECONNRESET, "simulator connection lost (%s)", what);
}

static int io_all(struct sim *s, void *buf, size_t len, bool wr)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = wr ? send(s->fd, p, len, MSG_NOSIGNAL) : recv(s->fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sim_lost(s, n < 0 ? strerror(errno) : "closed by the simulator");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sim_send(struct sim *s, uint32_t type, uint64_t addr, uint64_t data)
{
	uint8_t h[SIM_HDR_BYTES];

	if (s->dead)
		return beryl_fail(-ECONNRESET, "simulator connection lost");
	beryl_put32(h, type);
	beryl_put32(h + 4, 0);
	beryl_put64(h + 8, addr);
	beryl_put64(h + 16, data);
	return io_all(s, h, sizeof(h), true);
}

static int sim_recv(struct sim *s, struct sim_msg *m)
{
	uint8_t h[SIM_HDR_BYTES];
	int err;

	m->payload = NULL;
	err = io_all(s, h, sizeof(h), false);
	if (err)
		return err;
	m->type = beryl_get32(h);
	m->len = beryl_get32(h + 4);
	m->addr = beryl_get64(h + 8);
	m->data = beryl_get64(h + 16);
	if (m->len > SIM_MAX_PAYLOAD)
		return sim_lost(s, "oversized message");
	m->payload = malloc(m->len + 1);
	if (!m->payload)
		return -ENOMEM;
	err = io_all(s, m->payload, m->len, false);
	if (err) {
		free(m->payload);
		m->payload = NULL;
		return err;
	}
	m->payload[m->len] = 0;
	return 0;
}

static int irq_push(struct sim *s, uint32_t vec)
{
	if (s->irq_count == s->irq_cap) {
		unsigned cap = s->irq_cap ? 2 * s->irq_cap : 16;
		uint32_t *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (unsigned i = 0; i < s->irq_count; i++)
			n[i] = s->irqs[(s->irq_head + i) % s->irq_cap];
		free(s->irqs);
		s->irqs = n;
		s->irq_head = 0;
		s->irq_cap = cap;
	}
	s->irqs[(s->irq_head + s->irq_count++) % s->irq_cap] = vec;
	return 0;
}

/* Read messages until one of type want; IRQs met on the way are queued. */
static int sim_reply(struct sim *s, uint32_t want, struct sim_msg *m)
{
	for (;;) {
		int err = sim_recv(s, m);

		if (err)
			return err;
		if (m->type == want)
			return 0;
		if (m->type == MSG_IRQ) {
			err = irq_push(s, (uint32_t)m->data);
		} else if (m->type == MSG_ERROR) {
			err = beryl_fail(-ECONNRESET, "simulator: %s", m->payload);
			s->dead = true;
		}
		free(m->payload);
		m->payload = NULL;
		if (err)
			return err;
	}
}

static int sim_read32(struct beryl_transport *t, uint64_t off, uint32_t *val)
{
	struct sim *s = to_sim(t);
	struct sim_msg m;
	int err = sim_send(s, MSG_READ32, off, 0);

	if (!err)
		err = sim_reply(s, MSG_READ32, &m);
	if (err) {
		*val = 0xffffffffu;
		return err;
	}
	free(m.payload);
	*val = (uint32_t)m.data;
	return 0;
}

static int sim_write32(struct beryl_transport *t, uint64_t off, uint32_t val)
{
	return sim_send(to_sim(t), MSG_WRITE32, off, val);
}

/* Send up to SIM_PIPELINE reads (and the writes between them) at once, then take the replies. */
#define SIM_PIPELINE 256

static int sim_batch(struct beryl_transport *t, struct beryl_access *acc, unsigned n)
{
	struct sim *s = to_sim(t);
	uint8_t *buf;
	unsigned i = 0;
	int err = 0;

	if (s->dead)
		return beryl_fail(-ECONNRESET, "simulator connection lost");
	buf = malloc((size_t)SIM_HDR_BYTES * n);
	if (!buf)
		return -ENOMEM;
	while (i < n && !err) {
		unsigned first = i, reads = 0;
		size_t len = 0;

		for (; i < n && reads < SIM_PIPELINE; i++) {
			uint8_t *h = buf + len;

			beryl_put32(h, acc[i].write ? MSG_WRITE32 : MSG_READ32);
			beryl_put32(h + 4, 0);
			beryl_put64(h + 8, acc[i].off);
			beryl_put64(h + 16, acc[i].write ? acc[i].val : 0);
			len += SIM_HDR_BYTES;
			reads += !acc[i].write;
		}
		err = io_all(s, buf, len, true);
		for (unsigned k = first; k < i && !err; k++) {
			struct sim_msg m;

			if (acc[k].write)
				continue;
			err = sim_reply(s, MSG_READ32, &m);
			if (!err) {
				free(m.payload);
				acc[k].val = (uint32_t)m.data;
			}
		}
	}
	free(buf);
	return err;
}

static int sim_dma_alloc(struct beryl_transport *t, size_t size, size_t align, struct beryl_dma_buf *buf)
{
	return beryl_dma_pool_alloc(to_sim(t)->pool, size, align, buf);
}

static void sim_dma_free(struct beryl_transport *t, struct beryl_dma_buf *buf)
{
	beryl_dma_pool_free(to_sim(t)->pool, buf);
}

static int sim_wait_irq(struct beryl_transport *t, int timeout_ms, uint32_t *vector)
{
	struct sim *s = to_sim(t);

	for (;;) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		struct sim_msg m;
		int n, err;

		if (s->irq_count) {
			*vector = s->irqs[s->irq_head];
			s->irq_head = (s->irq_head + 1) % s->irq_cap;
			s->irq_count--;
			return 1;
		}
		if (s->dead)
			return beryl_fail(-ECONNRESET, "simulator connection lost");
		n = poll(&pfd, 1, timeout_ms);
		if (n < 0 && errno == EINTR)
			return -EINTR;
		if (n < 0)
			return beryl_fail(-errno, "poll: %s", strerror(errno));
		if (!n)
			return 0;
		err = sim_reply(s, MSG_IRQ, &m);
		if (err)
			return err;
		free(m.payload);
		err = irq_push(s, (uint32_t)m.data);
		if (err)
			return err;
		timeout_ms = 0;
	}
}

static int sim_irq_fd(struct beryl_transport *t)
{
	return to_sim(t)->fd;
}

static int sim_info_json(struct beryl_transport *t, char *buf, size_t len)
{
	struct sim *s = to_sim(t);
	struct sim_msg m;
	int err = sim_send(s, MSG_STATS, 0, 0);

	if (!err)
		err = sim_reply(s, MSG_STATS, &m);
	if (err)
		return err;
	/* never hand out a cut JSON document: too small a buffer is an error */
	if (!m.payload || strlen(m.payload) >= len)
		err = m.payload ? -ENOSPC : -EPROTO;
	else
		memcpy(buf, m.payload, strlen(m.payload) + 1);
	free(m.payload);
	return err;
}

static void sim_close(struct beryl_transport *t)
{
	struct sim *s = to_sim(t);

	if (s->fd >= 0) {
		if (!s->dead)
			sim_send(s, MSG_BYE, 0, 0);
		close(s->fd);
	}
	if (s->mem)
		munmap(s->mem, s->mem_size);
	beryl_dma_pool_destroy(s->pool);
	free(s->irqs);
	free(s);
}

static const struct beryl_transport_ops sim_ops = {
	.name = "sim",
	.read32 = sim_read32,
	.write32 = sim_write32,
	.batch = sim_batch,
	.dma_alloc = sim_dma_alloc,
	.dma_free = sim_dma_free,
	.wait_irq = sim_wait_irq,
	.irq_fd = sim_irq_fd,
	.info_json = sim_info_json,
	.close = sim_close,
};

/* The value of "key" in a flat JSON object: a string copied into str, or a number into *num. */
static const char *json_value(const char *js, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(js, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ':')
		p++;
	return p;
}

static bool json_u64(const char *js, const char *key, uint64_t *num)
{
	const char *p = json_value(js, key);
	char *end;

	if (!p)
		return false;
	*num = strtoull(p, &end, 0);
	return end != p;
}

static bool json_str(const char *js, const char *key, char *str, size_t len)
{
	const char *p = json_value(js, key);
	size_t n = 0;

	if (!p || *p != '"')
		return false;
	for (p++; *p && *p != '"' && n + 1 < len; p++) {
		if (*p == '\\' && p[1])
			p++;
		str[n++] = *p;
	}
	str[n] = 0;
	return *p == '"';
}

static int sim_attach(struct sim *s, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sim_msg m;
	char shm[256];
	uint64_t mem_size = 0;
	struct stat st;
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return beryl_fail(-EINVAL, "socket path too long: %s", path);
	strcpy(sa.sun_path, path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return beryl_fail(-errno, "socket: %s", strerror(errno));
	if (connect(s->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		return beryl_fail(err, "cannot reach the simulator at %s: %s (is beryl-sim running?)",
				  path, strerror(-err));
	}
	err = sim_send(s, MSG_HELLO, 0, SIM_PROTOCOL_VERSION);
	if (!err)
		err = sim_recv(s, &m);
	if (err)
		return err;
	if (m.type == MSG_ERROR) {
		beryl_fail(-ECONNREFUSED, "simulator at %s refused: %s", path, m.payload);
		free(m.payload);
		return -ECONNREFUSED;
	}
	if (m.type != MSG_HELLO || m.data != SIM_PROTOCOL_VERSION) {
		free(m.payload);
		return beryl_fail(-EPROTO, "simulator protocol version mismatch: it speaks %" PRIu64
				  " (message type %u), this driver %d", m.data, m.type, SIM_PROTOCOL_VERSION);
	}
	s->mem_base = 0x100000000ull;
	json_u64(m.payload, "mem_base", &s->mem_base);
	if (!json_str(m.payload, "shm", shm, sizeof(shm)) ||
	    !json_u64(m.payload, "mem_size", &mem_size) || !mem_size) {
		err = beryl_fail(-EPROTO, "simulator HELLO lacks shm/mem_size: %s", m.payload);
		free(m.payload);
		return err;
	}
	free(m.payload);
	s->mem_size = (size_t)mem_size;
	fd = open(shm, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return beryl_fail(-errno, "cannot open the simulator's host memory %s: %s", shm, strerror(errno));
	if (fstat(fd, &st) || (uint64_t)st.st_size < s->mem_size) {
		close(fd);
		return beryl_fail(-EIO, "host memory file %s is smaller than %zu bytes", shm, s->mem_size);
	}
	s->mem = mmap(NULL, s->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->mem == MAP_FAILED) {
		s->mem = NULL;
		return beryl_fail(-errno, "mmap of %s: %s", shm, strerror(errno));
	}
	return beryl_dma_pool_create(s->mem, s->mem_base, s->mem_size, &s->pool);
}

int beryl_sim_transport_open(const char *path, struct beryl_transport **out)
{
	struct sim *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->t.ops = &sim_ops;
	s->t.priv = s;
	err = sim_attach(s, path ? path : BERYL_SIM_DEFAULT_SOCKET);
	if (err) {
		s->dead = true;
		sim_close(&s->t);
		return err;
	}
	*out = &s->t;
	return 0;
}
