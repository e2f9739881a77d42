// SPDX-License-Identifier: GPL-2.0-or-later
/* POSIX clock back ends: a PHC steered through its fd, and a free-running read-only clock. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/timex.h>
#include <linux/ptp_clock.h>

#include "ptp/clock.h"
#include "ptp/num.h"
#include "ptp/util.h"

/*
 * linux/posix-timers.h, not exported to userspace: a dynamic clock id from an open fd. The shift
 * is done unsigned: shifting the negative ~fd is undefined behaviour in C.
 */
#define PHC_DEFAULT_MAX_FREQ_PPB 500000.0

struct clock_posix {
	struct clock base;
	clockid_t id;
	int fd; /* owned for a PHC, -1 for free-running */
};

static struct clock_posix *to_posix(struct clock *c)
{
	return container_of(c, struct clock_posix, base);
}

static int posix_gettime(struct clock *c, ns_t *ret)
{
	struct timespec ts;

	if (clock_gettime(to_posix(c)->id, &ts) < 0) {
		return -errno;
	}
	*ret = (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
	return 0;
}

/* The timestamps are taken on this clock itself. */
static int posix_from_raw(struct clock *c, ns_t raw, ns_t *ret)
{
	*ret = raw;
	return 0;
}

static int phc_adjtime(struct clock *c, struct timex *tx)
{
	if (clock_adjtime(to_posix(c)->id, tx) < 0) {
		return -errno;
	}
	return 0;
}

/* struct timex freq is in ppm with a 16-bit fraction: ppb * 2^16 / 1000. */
static int phc_adjfreq(struct clock *c, double ppb)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = (long) num_llround(ppb * 65.536) };

	if (!(fabs(ppb) <= c->max_freq_ppb)) {
		return -ERANGE;
	}
	return phc_adjtime(c, &tx);
}

static int phc_getfreq(struct clock *c, double *ppb)
{
	struct timex tx = { .modes = 0 };
	int r = phc_adjtime(c, &tx);

	if (r < 0) {
		return r;
	}
	*ppb = tx.freq / 65.536;
	return 0;
}

/* ADJ_SETOFFSET | ADJ_NANO: time.tv_usec carries nanoseconds and must be in [0, 1e9). */
void clock_timex_set_offset(struct timex *tx, ns_t delta)
{
	ns_t sec = delta / NS_PER_SEC, nsec = delta % NS_PER_SEC;

	if (nsec < 0) {
		sec--;
		nsec += NS_PER_SEC;
	}
	*tx = (struct timex){ .modes = ADJ_SETOFFSET | ADJ_NANO };
	tx->time.tv_sec = sec;
	tx->time.tv_usec = nsec;
}

static int phc_step(struct clock *c, ns_t delta)
{
	struct timex tx;

	clock_timex_set_offset(&tx, delta);
	return phc_adjtime(c, &tx);
}

static void posix_free(struct clock *c)
{
	struct clock_posix *p = to_posix(c);

	if (p->fd >= 0) {
		close(p->fd);
	}
	free(p);
}

static const struct clock_ops clock_phc_ops = {
	.name = "phc",
	.gettime = posix_gettime,
	.adjfreq = phc_adjfreq,
	.getfreq = phc_getfreq,
	.step = phc_step,
	.from_raw = posix_from_raw,
	.free = posix_free,
};

static int freerun_adjfreq(struct clock *c, double ppb)
{
	return -EPERM;
}

static int freerun_getfreq(struct clock *c, double *ppb)
{
	*ppb = 0;
	return 0;
}

static int freerun_step(struct clock *c, ns_t delta)
{
	return -EPERM;
}

static const struct clock_ops clock_freerun_ops = {
	.name = "free-running",
	.gettime = posix_gettime,
	.adjfreq = freerun_adjfreq,
	.getfreq = freerun_getfreq,
	.step = freerun_step,
	.from_raw = posix_from_raw,
	.free = posix_free,
};

clockid_t clock_phc_clockid(int fd)
{
	/* Computed unsigned: ~fd is negative, and shifting a negative int is undefined. */
	return (clockid_t) ((~(unsigned int) fd << 3) | 3);
}

static int posix_new(const struct clock_ops *ops, clockid_t id, int fd, double max_freq_ppb,
		     struct clock **ret)
{
	struct clock_posix *p = calloc(1, sizeof(*p));
	struct timespec ts;

	if (!p) {
		return -ENOMEM;
	}
	/* A bad fd or clock id shows here rather than at the first sample. */
	if (clock_gettime(id, &ts) < 0) {
		int r = -errno;

		free(p);
		return r;
	}
	p->base.ops = ops;
	p->base.max_freq_ppb = max_freq_ppb;
	p->id = id;
	p->fd = fd;
	*ret = &p->base;
	return 0;
}

int clock_phc_new(int fd, struct clock **ret)
{
	struct ptp_clock_caps caps = { 0 };
	double max = PHC_DEFAULT_MAX_FREQ_PPB;

	if (fd < 0) {
		return -EBADF;
	}
	if (ioctl(fd, PTP_CLOCK_GETCAPS, &caps) == 0 && caps.max_adj > 0) {
		max = caps.max_adj;
	}
	return posix_new(&clock_phc_ops, clock_phc_clockid(fd), fd, max, ret);
}

int clock_freerun_new(clockid_t clockid, struct clock **ret)
{
	return posix_new(&clock_freerun_ops, clockid, -1, 0, ret);
}
