/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CLOCK_REALTIME following a PTP clock: servo, UTC offset, leap flags and kernel sync status. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/timex.h>
#include <time.h>

#include "ptp/ds.h"
#include "ptp/servo.h"
#include "ptp/sysoff.h"
#include "ptp/types.h"

/*
 * The kernel side behind one ops table: the real one calls clock_adjtime(CLOCK_REALTIME) and
 * clock_gettime, the simulated one (tests/doubles/sysclock-sim.h) emulates both in memory, so the
 * whole discipline runs in unit tests without touching a clock. adjtime returns the clock state
 * (TIME_OK, TIME_INS, ..., TIME_ERROR) or -errno, as adjtimex(2) does.
 */
struct sysclock_ops {
	const char *name;
	int (*adjtime)(void *userdata, struct timex *tx);
	int (*gettime)(void *userdata, clockid_t id, ns_t *ret);
	/* Where to look for other programs that steer this clock (clock-rivals.h); NULL: none. */
	const char *proc_root;
	/*
	 * CLOCK_REALTIME against /dev/ptp<phc_index>; NULL: the PTP_SYS_OFFSET* ioctls
	 * (sysclock_phc_reader in daemon/sysclock-follow.h). The simulated clock has a PHC.
	 */
	int (*phc_measure)(void *userdata, int phc_index, struct sysoff_pair *ret);
};

extern const struct sysclock_ops sysclock_linux_ops;

enum sysclock_state {
	SYSCLOCK_UNSYNC = 0, /* no reference, or lost it beyond holdover: STA_UNSYNC set */
	SYSCLOCK_LOCKING,    /* samples arrive, servo not (yet) within sync_threshold */
	SYSCLOCK_LOCKED,     /* STA_UNSYNC clear, maxerror/esterror kept current */
	SYSCLOCK_HOLDOVER,   /* samples stopped: keep the frequency, let maxerror grow */
};

/* Why we think something else steers the clock (bits of sysclock.conflict). */
enum {
	SYSCLOCK_CONFLICT_FREQ = 1 << 0,   /* the frequency is not the one we set */
	SYSCLOCK_CONFLICT_STATUS = 1 << 1, /* STA_PLL/FLL/PPS* or leap bits we did not set */
	SYSCLOCK_CONFLICT_OFFSET = 1 << 2, /* an ADJ_OFFSET/adjtime() slew is running */
	SYSCLOCK_CONFLICT_STEP = 1 << 3,   /* the clock jumped against CLOCK_MONOTONIC */
};

struct sysclock_config {
	struct servo_config servo;
	ns_t sync_threshold;   /* |offset| at most this while LOCKED counts as synchronized */
	ns_t holdover_timeout; /* no sample this long after LOCKED: UNSYNC */
	ns_t sample_timeout;   /* no sample this long: HOLDOVER */
	ns_t step_tolerance;   /* unexplained jump of REALTIME - MONOTONIC that is a step */
};

/*
 * One comparison of the system clock with the reference: sys is CLOCK_REALTIME and ref the
 * reference clock (PTP timescale, normally TAI) at the same instant, error the uncertainty of
 * that pairing (half the read window of a PHC, or the path delay estimate of a port).
 */
struct sysclock_sample {
	ns_t sys;
	ns_t ref;
	ns_t error;
};

struct sysclock {
	const struct sysclock_ops *ops;
	void *userdata;
	struct sysclock_config cfg;
	struct servo *servo;
	enum sysclock_state state;
	/* What we last wrote, to see others' writes. */
	long freq_set; /* timex.freq units */
	int status_set;
	bool have_set;
	ns_t last_sample_mono; /* CLOCK_MONOTONIC of the last sample */
	ns_t real_minus_mono;  /* changes only by steps: ours, leap seconds, or someone else's */
	/* Leap second bookkeeping (linuxptp's leap_second_status). */
	int leap;     /* the announced leap, +1/-1/0, as we apply it */
	int leap_set; /* the leap the kernel was told (STA_INS +1, STA_DEL -1) */
	/* Statistics of the last samples. */
	ns_t offset;	   /* last offset, system clock minus UTC reference */
	double esterror2;  /* running mean of offset^2 (ns^2) */
	int utc_offset;	   /* seconds subtracted from the reference */
	unsigned conflict; /* SYSCLOCK_CONFLICT_* seen at the last check */
	int last_error;	   /* -errno of the last failed adjustment, 0 if none */
	uint64_t steps;
	uint64_t samples;
	uint64_t ignored; /* samples dropped around a leap second */
	/* The clock locked (or stepped) once: a rebuilt sysclock gets no new first step. */
	bool locked_once;
};

/* Defaults: PI with hardware constants, 1 ms sync threshold, 5 s holdover start, 60 s holdover. */
void sysclock_config_default(struct sysclock_config *cfg);

/*
 * Reads the kernel's current frequency so a restart keeps it. -EINVAL for a bad config, -ENOMEM,
 * or the read error. Nothing is written to the clock here.
 */
int sysclock_new(const struct sysclock_ops *ops, void *userdata, const struct sysclock_config *cfg,
		 struct sysclock **ret);
/* Accept NULL, return NULL. Leaves the clock as it is (frequency, flags). */
struct sysclock *sysclock_free(struct sysclock *s);

/*
 * The step policy of the clock (struct servo_config's first_step_threshold, step_threshold,
 * max_offset_jump) holds for the system clock too: a sample refused by max_offset_jump changes
 * nothing but the state (SYSCLOCK_HOLDOVER, the frequency held, servo->refused counted).
 *
 * Feed one sample with the instance's timePropertiesDS. Computes UTC from the reference with
 * currentUtcOffset (when ptpTimescale), honours leap59/leap61 through STA_DEL/STA_INS, runs the
 * servo and applies its output, and while locked clears STA_UNSYNC and sets maxerror/esterror.
 * Returns the new state, or -errno if an adjustment failed (-EPERM without CAP_SYS_TIME); the
 * error is also kept in last_error. -EAGAIN: the sample was dropped (leap second window).
 */
int sysclock_sample(struct sysclock *s, const struct sysclock_sample *sample,
		    const struct timePropertiesDS *tp);

/*
 * Periodic check without a sample (call about once a second): holdover, then UNSYNC with
 * STA_UNSYNC set; and the conflict check. Returns the state or -errno.
 */
int sysclock_check(struct sysclock *s);

/* The master is gone (port left SLAVE): start holdover now rather than at sample_timeout. */
void sysclock_lost_reference(struct sysclock *s);

/* Is the kernel's clock marked synchronized (what timedatectl and time-wait-sync look at)? */
int sysclock_kernel_synchronized(struct sysclock *s, bool *ret);

/* maxerror in us as we set it: |offset| + sample error + the servo's unsettled margin. */
long sysclock_maxerror_us(ns_t offset, ns_t error);

/*
 * linuxptp's leap_second_status(): which leap the kernel should have pending at UTC second
 * utc_s. leap61/leap59 are accepted at most 12 h before midnight and cleared after it; a master
 * that updates the flags and currentUtcOffset too early or too late is corrected through *leap and
 * *utc_offset. leap_set is what the kernel has now; returns +1, -1 or 0.
 */
int sysclock_leap_status(int64_t utc_s, int leap_set, int *leap, int *utc_offset);
/* The two seconds around midnight where UTC is ambiguous while a leap is pending. */
bool sysclock_utc_ambiguous(int64_t utc_s);

const char *sysclock_state_to_string(enum sysclock_state st);
