// SPDX-License-Identifier: MIT
/* PTP hardware clock: time of day, steps, frequency, periodic output, timestamp conversion. */
#include <errno.h>

#include "beryl_priv.h"

#define NS_PER_SEC 1000000000ull

static int need_ptp(const struct beryl_dev *dev)
{
	if (dev->ptp_base < 0)
		return beryl_fail(-ENODEV, "this device has no PTP clock block (type 0x%08x) in its register chain",
				  BERYL_PTP_BLOCK_TYPE);
	return 0;
}

static struct beryl_access wr(const struct beryl_dev *dev, uint32_t reg, uint32_t val)
{
	return (struct beryl_access){ .off = (uint32_t)dev->ptp_base + reg, .val = val, .write = true };
}

static struct beryl_access rd(const struct beryl_dev *dev, uint32_t reg)
{
	return (struct beryl_access){ .off = (uint32_t)dev->ptp_base + reg };
}

int beryl_ptp_load(struct beryl_dev *dev, uint32_t base)
{
	struct beryl_access a[2];
	int err;

	dev->ptp_base = (int)base;
	a[0] = rd(dev, BERYL_PTP_NOM_INCR_NS_OFFSET);
	a[1] = rd(dev, BERYL_PTP_NOM_INCR_FNS_OFFSET);
	err = beryl_access_batch(dev, a, 2);
	if (err)
		return err;
	dev->ptp_nom_incr = (uint64_t)a[0].val << 32 | a[1].val;
	if (!dev->ptp_nom_incr)
		return beryl_fail(-EBADMSG, "PTP block at 0x%x reports a zero nominal increment", base);
	return 0;
}

bool beryl_ptp_present(const struct beryl_dev *dev)
{
	return dev->ptp_base >= 0;
}

int beryl_ptp_gettime(struct beryl_dev *dev, struct beryl_ptp_time *t)
{
	struct beryl_access a[5];
	int err = need_ptp(dev);

	if (err)
		return err;
	a[0] = wr(dev, BERYL_PTP_CMD_OFFSET, BERYL_PTP_CMD_SNAP_MASK);
	a[1] = rd(dev, BERYL_PTP_SNAP_TOD_FNS_OFFSET);
	a[2] = rd(dev, BERYL_PTP_SNAP_TOD_NS_OFFSET);
	a[3] = rd(dev, BERYL_PTP_SNAP_TOD_SEC_LO_OFFSET);
	a[4] = rd(dev, BERYL_PTP_SNAP_TOD_SEC_HI_OFFSET);
	err = beryl_access_batch(dev, a, 5);
	if (err)
		return err;
	t->fns = (uint16_t)a[1].val;
	t->nsec = a[2].val;
	t->sec = (uint64_t)(a[4].val & 0xffff) << 32 | a[3].val;
	if (t->nsec >= NS_PER_SEC)
		return beryl_fail(-EBADMSG, "PTP snapshot ns %u out of range", t->nsec);
	return 0;
}

int beryl_ptp_settime(struct beryl_dev *dev, const struct beryl_ptp_time *t)
{
	struct beryl_access a[5];
	int err = need_ptp(dev);

	if (err)
		return err;
	if (t->nsec >= NS_PER_SEC || t->sec >> 48)
		return beryl_fail(-EINVAL, "settime: %llu s %u ns out of range (ns < 10^9, s < 2^48)",
				  (unsigned long long)t->sec, t->nsec);
	a[0] = wr(dev, BERYL_PTP_SET_SEC_HI_OFFSET, (uint32_t)(t->sec >> 32));
	a[1] = wr(dev, BERYL_PTP_SET_SEC_LO_OFFSET, (uint32_t)t->sec);
	a[2] = wr(dev, BERYL_PTP_SET_NS_OFFSET, t->nsec);
	a[3] = wr(dev, BERYL_PTP_SET_FNS_OFFSET, t->fns);
	a[4] = wr(dev, BERYL_PTP_CMD_OFFSET, BERYL_PTP_CMD_SET_TOD_MASK);
	return beryl_access_batch(dev, a, 5);
}

int beryl_ptp_adjtime(struct beryl_dev *dev, int64_t delta_ns)
{
	struct beryl_access a[3];
	int err = need_ptp(dev);

	if (err)
		return err;
	if (delta_ns < INT32_MIN || delta_ns > INT32_MAX) {
		/* beyond one command's range: read, add, set (the clock runs on meanwhile: not exact) */
		struct beryl_ptp_time t;
		int64_t ns;

		err = beryl_ptp_gettime(dev, &t);
		if (err)
			return err;
		ns = (int64_t)t.nsec + delta_ns % (int64_t)NS_PER_SEC;
		int64_t sec = (int64_t)t.sec + delta_ns / (int64_t)NS_PER_SEC;
		if (ns < 0) {
			ns += NS_PER_SEC;
			sec--;
		} else if (ns >= (int64_t)NS_PER_SEC) {
			ns -= NS_PER_SEC;
			sec++;
		}
		if (sec < 0)
			return beryl_fail(-ERANGE, "adjtime: the step would take the clock below 0 s");
		t.sec = (uint64_t)sec;
		t.nsec = (uint32_t)ns;
		return beryl_ptp_settime(dev, &t);
	}
	a[0] = wr(dev, BERYL_PTP_ADJ_NS_OFFSET, (uint32_t)(int32_t)delta_ns);
	a[1] = wr(dev, BERYL_PTP_ADJ_FNS_OFFSET, 0);
	a[2] = wr(dev, BERYL_PTP_CMD_OFFSET, BERYL_PTP_CMD_ADJ_MASK);
	return beryl_access_batch(dev, a, 3);
}

int beryl_ptp_adjfreq(struct beryl_dev *dev, double ppb)
{
	struct beryl_access a[3];
	double incr;
	uint64_t v;
	int err = need_ptp(dev);

	if (err)
		return err;
	if (!(ppb >= -1e8 && ppb <= 1e8))
		return beryl_fail(-ERANGE, "adjfreq: %g ppb outside +-10^8", ppb);
	incr = (double)dev->ptp_nom_incr * (1.0 + ppb * 1e-9);
	if (incr <= 0 || incr >= 256.0 * 4294967296.0)
		return beryl_fail(-ERANGE, "adjfreq: %g ppb gives an increment the clock cannot hold", ppb);
	v = (uint64_t)(incr + 0.5);
	a[0] = wr(dev, BERYL_PTP_INCR_NS_OFFSET, (uint32_t)(v >> 32));
	a[1] = wr(dev, BERYL_PTP_INCR_FNS_OFFSET, (uint32_t)v);
	a[2] = wr(dev, BERYL_PTP_CMD_OFFSET, BERYL_PTP_CMD_INCR_MASK);
	return beryl_access_batch(dev, a, 3);
}

int beryl_ptp_getfreq(struct beryl_dev *dev, double *ppb)
{
	struct beryl_access a[2];
	int err = need_ptp(dev);

	if (err)
		return err;
	a[0] = rd(dev, BERYL_PTP_INCR_CUR_NS_OFFSET);
	a[1] = rd(dev, BERYL_PTP_INCR_CUR_FNS_OFFSET);
	err = beryl_access_batch(dev, a, 2);
	if (err)
		return err;
	*ppb = ((double)((uint64_t)a[0].val << 32 | a[1].val) / (double)dev->ptp_nom_incr - 1.0) * 1e9;
	return 0;
}

int beryl_ptp_perout(struct beryl_dev *dev, const struct beryl_ptp_time *start, uint64_t period_ns,
		     uint32_t width_ns)
{
	struct beryl_access a[9];
	unsigned n = 0;
	int err = need_ptp(dev);

	if (err)
		return err;
	a[n++] = wr(dev, BERYL_PTP_PEROUT_CTRL_OFFSET, 0);
	if (period_ns) {
		if (start->nsec >= NS_PER_SEC || width_ns >= NS_PER_SEC || period_ns / NS_PER_SEC > UINT32_MAX)
			return beryl_fail(-EINVAL, "perout: start ns, width or period out of range");
		a[n++] = wr(dev, BERYL_PTP_PEROUT_START_SEC_HI_OFFSET, (uint32_t)(start->sec >> 32));
		a[n++] = wr(dev, BERYL_PTP_PEROUT_START_SEC_LO_OFFSET, (uint32_t)start->sec);
		a[n++] = wr(dev, BERYL_PTP_PEROUT_START_NS_OFFSET, start->nsec);
		a[n++] = wr(dev, BERYL_PTP_PEROUT_PERIOD_SEC_OFFSET, (uint32_t)(period_ns / NS_PER_SEC));
		a[n++] = wr(dev, BERYL_PTP_PEROUT_PERIOD_NS_OFFSET, (uint32_t)(period_ns % NS_PER_SEC));
		a[n++] = wr(dev, BERYL_PTP_PEROUT_PERIOD_FNS_OFFSET, 0);
		a[n++] = wr(dev, BERYL_PTP_PEROUT_WIDTH_NS_OFFSET, width_ns);
		a[n++] = wr(dev, BERYL_PTP_PEROUT_CTRL_OFFSET, BERYL_PTP_PEROUT_CTRL_ENABLE_MASK);
	}
	err = beryl_access_batch(dev, a, n);
	if (err || !period_ns)
		return err;
	a[0] = rd(dev, BERYL_PTP_STATUS_OFFSET);
	err = beryl_access_batch(dev, a, 1);
	if (err)
		return err;
	if (a[0].val & BERYL_PTP_STATUS_PEROUT_CFG_ERR_MASK)
		return beryl_fail(-EINVAL, "perout: the clock refused the configuration");
	return 0;
}

struct beryl_ptp_time beryl_ptp_ts_to_time(uint64_t ts, uint64_t ref_sec)
{
	struct beryl_ptp_time t;
	uint64_t lo = ts >> 46, span = 1ull << 18;
	uint64_t sec = ref_sec - ((ref_sec - lo) & (span - 1));

	if (ref_sec - sec >= span / 2)
		sec += span;
	t.sec = sec;
	t.nsec = (uint32_t)(ts >> 16) & ((1u << 30) - 1);
	t.fns = (uint16_t)ts;
	return t;
}

double beryl_ptp_diff_ns(const struct beryl_ptp_time *a, const struct beryl_ptp_time *b)
{
	int64_t units = ((int64_t)(a->sec - b->sec) * (int64_t)NS_PER_SEC + ((int64_t)a->nsec - (int64_t)b->nsec)) * 65536 +
			((int64_t)a->fns - (int64_t)b->fns);
	return (double)units / 65536.0;
}

int beryl_port_ts_corr(struct beryl_if *nif, unsigned port, const int32_t *tx_units, const int32_t *rx_units)
{
	int err;

	if (port >= nif->p.port_count)
		return beryl_fail(-ERANGE, "port %u out of range (interface %u has %u)", port, nif->p.if_index,
				  nif->p.port_count);
	err = beryl_if_wr(nif, BERYL_NIC_IF_PORT_SEL_OFFSET, port);
	if (!err && tx_units)
		err = beryl_if_wr(nif, BERYL_NIC_IF_PORT_TX_TS_CORR_OFFSET, (uint32_t)*tx_units);
	if (!err && rx_units)
		err = beryl_if_wr(nif, BERYL_NIC_IF_PORT_RX_TS_CORR_OFFSET, (uint32_t)*rx_units);
	return err;
}
