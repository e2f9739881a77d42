/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clock back ends behind one ops table: PHC by fd, free-running, virtual (the simulated one for
 * tests is tests/doubles/clock-sim.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ptp/types.h"

struct clock;

/*
 * One static const table per back end. Every op returns 0 or -errno. A raw timestamp is a time
 * read on the clock that stamps the port's frames (the PHC, or CLOCK_REALTIME for software
 * timestamps); from_raw maps it onto this clock's own timescale, which differs for the virtual
 * clock only.
 */
struct clock_ops {
	const char *name;
	int (*gettime)(struct clock *c, ns_t *ret);
	/* Set the frequency adjustment, ppb, positive = faster. Absolute, not cumulative. */
	int (*adjfreq)(struct clock *c, double ppb);
	int (*getfreq)(struct clock *c, double *ppb);
	/* Step the time by delta ns. */
	int (*step)(struct clock *c, ns_t delta);
	int (*from_raw)(struct clock *c, ns_t raw, ns_t *ret);
	void (*free)(struct clock *c);
};

/* Every back end embeds this first. */
struct clock {
	const struct clock_ops *ops;
	double max_freq_ppb; /* largest |adjfreq| the back end takes */
};

int clock_get_time(struct clock *c, ns_t *ret);
int clock_adj_freq(struct clock *c, double ppb);
int clock_get_freq(struct clock *c, double *ppb);
int clock_step(struct clock *c, ns_t delta);
int clock_from_raw(struct clock *c, ns_t raw, ns_t *ret);
/* Accept NULL, return NULL. */
struct clock *clock_free(struct clock *c);
const char *clock_name(const struct clock *c);

/*
 * A PHC through its read-write fd (clock_gettime/clock_adjtime on FD_TO_CLOCKID(fd)). Takes
 * ownership of fd on success (closed by clock_free). max_freq_ppb from PTP_CLOCK_GETCAPS when
 * available, else 500000.
 */
int clock_phc_new(int fd, struct clock **ret);
/* The dynamic POSIX clock id of an open /dev/ptpN (the kernel's FD_TO_CLOCKID), for any fd >= 0. */
clockid_t clock_phc_clockid(int fd);

struct timex;
/*
 * Fill tx for a step of delta with clock_adjtime(): ADJ_SETOFFSET | ADJ_NANO, the nanoseconds
 * made non-negative as the kernel requires. For the PHC back end and the system clock alike.
 */
void clock_timex_set_offset(struct timex *tx, ns_t delta);
/*
 * Free-running: reads clockid (CLOCK_REALTIME, or FD_TO_CLOCKID of a PHC fd the caller keeps),
 * never adjusts it: adjfreq and step remember nothing and return -EPERM, like ptp4l
 * --free_running 1 measuring only.
 */
int clock_freerun_new(clockid_t clockid, struct clock **ret);

/*
 * Virtual: a software-corrected view of a raw clock, local = raw + offset + (raw - ref) * f with
 * f = (freq + freq_error) / 1e9. The raw clock is only read (borrowed, must outlive this one);
 * adjfreq re-anchors ref so the view stays continuous, step adds to offset exactly. A step or a
 * view beyond ns_t is refused (-ERANGE): the steps follow offsets from the wire.
 * initial_offset and freq_error_ppb are for tests: they start the view off by that much.
 */
struct clock_virtual_config {
	ns_t initial_offset;
	double freq_error_ppb;
	double max_freq_ppb; /* 0 = 1e6 (1000 ppm) */
};
int clock_virtual_new(struct clock *raw, const struct clock_virtual_config *cfg,
		      struct clock **ret);
/*
 * A virtual clock's correction as a point and a rate: local = s.local + (raw - s.raw) +
 * (raw - s.raw) * s.rate_ppb / 1e9, rate_ppb being the frequency adjustment plus freq_error.
 * get reads the clock's anchor (no clock read); set makes another virtual clock over the same raw
 * clock take exactly that view (its own freq_error is accounted for), which is how the ports of
 * one boundary clock share one timescale. -EINVAL on a clock that is not virtual, -ERANGE for a
 * rate set beyond the clock's max_freq_ppb or not finite.
 */
struct clock_virtual_state {
	ns_t raw;
	ns_t local;
	double rate_ppb;
};
int clock_virtual_get_state(struct clock *c, struct clock_virtual_state *ret);
/* The time the state shows at raw time raw (what from_raw gives on a clock in that state). */
ns_t clock_virtual_state_at(const struct clock_virtual_state *s, ns_t raw);
int clock_virtual_set_state(struct clock *c, const struct clock_virtual_state *s);
