// SPDX-License-Identifier: GPL-2.0-or-later
/* PHC against CLOCK_REALTIME: PTP_SYS_OFFSET_PRECISE, _EXTENDED or the basic ioctl, best of N. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ptp_clock.h>

#include "ptp/sysoff.h"
#include "ptp/util.h"

static ns_t pct_ns(const struct ptp_clock_time *t)
{
	return (ns_t) t->sec * NS_PER_SEC + t->nsec;
}

int sysoff_best(const ns_t (*ts)[3], unsigned int n, struct sysoff_pair *ret)
{
	ns_t best = -1;

	for (unsigned int i = 0; i < n; i++) {
		ns_t width = ts[i][2] - ts[i][0];

		/* A window that runs backwards had the clock stepped under it: unusable. */
		if (width < 0 || (best >= 0 && width >= best)) {
			continue;
		}
		best = width;
		*ret = (struct sysoff_pair){
			.sys = ts[i][0] + width / 2,
			.phc = ts[i][1],
			.error = (width + 1) / 2,
		};
	}
	return best < 0 ? -EINVAL : 0;
}

static int measure_precise(int fd, struct sysoff_pair *ret)
{
	struct ptp_sys_offset_precise p;

	memset(&p, 0, sizeof(p));
	if (ioctl(fd, PTP_SYS_OFFSET_PRECISE, &p) < 0) {
		return -errno;
	}
	*ret = (struct sysoff_pair){ .sys = pct_ns(&p.sys_realtime), .phc = pct_ns(&p.device) };
	return 0;
}

static int measure_extended(int fd, unsigned int n, struct sysoff_pair *ret)
{
	struct ptp_sys_offset_extended e;
	ns_t ts[SYSOFF_MAX_SAMPLES][3];

	memset(&e, 0, sizeof(e));
	e.n_samples = n;
	if (ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &e) < 0) {
		return -errno;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < 3; j++) {
			ts[i][j] = pct_ns(&e.ts[i][j]);
		}
	}
	return sysoff_best((const ns_t(*)[3]) ts, n, ret);
}

/* ts[] holds sys, phc, sys, phc, ..., sys: 2n + 1 readings. */
static int measure_basic(int fd, unsigned int n, struct sysoff_pair *ret)
{
	struct ptp_sys_offset b;
	ns_t ts[SYSOFF_MAX_SAMPLES][3];

	memset(&b, 0, sizeof(b));
	b.n_samples = n;
	if (ioctl(fd, PTP_SYS_OFFSET, &b) < 0) {
		return -errno;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < 3; j++) {
			ts[i][j] = pct_ns(&b.ts[2 * i + j]);
		}
	}
	return sysoff_best((const ns_t(*)[3]) ts, n, ret);
}

int sysoff_measure(int fd, enum sysoff_method m, unsigned int n, struct sysoff_pair *ret)
{
	if (n == 0 || n > SYSOFF_MAX_SAMPLES) {
		return -EINVAL;
	}
	switch (m) {
	case SYSOFF_PRECISE:
		return measure_precise(fd, ret);
	case SYSOFF_EXTENDED:
		return measure_extended(fd, n, ret);
	case SYSOFF_BASIC:
		return measure_basic(fd, n, ret);
	default:
		return -EOPNOTSUPP;
	}
}

int sysoff_probe(int fd, enum sysoff_method *ret)
{
	struct sysoff_pair p;

	for (enum sysoff_method m = SYSOFF_PRECISE; m < SYSOFF_NONE; m++) {
		if (sysoff_measure(fd, m, 1, &p) == 0) {
			*ret = m;
			return 0;
		}
	}
	*ret = SYSOFF_NONE;
	return -EOPNOTSUPP;
}

static const char *const sysoff_method_names[] = {
	[SYSOFF_PRECISE] = "PTP_SYS_OFFSET_PRECISE",
	[SYSOFF_EXTENDED] = "PTP_SYS_OFFSET_EXTENDED",
	[SYSOFF_BASIC] = "PTP_SYS_OFFSET",
	[SYSOFF_NONE] = "none",
};

const char *sysoff_method_to_string(enum sysoff_method m)
{
	if ((unsigned int) m >= ARRAY_SIZE(sysoff_method_names)) {
		return NULL;
	}
	return sysoff_method_names[m];
}
