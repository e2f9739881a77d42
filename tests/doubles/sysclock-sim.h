/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The simulated kernel clock, a test double behind daemon/sysclock.h's ops. */
#pragma once

#include "daemon/sysclock.h"

/*
 * Simulated kernel clock for tests. True time moves only by sysclock_sim_advance(); like the
 * kernel, CLOCK_MONOTONIC and CLOCK_REALTIME both run at (1 + (freq_error + freq) / 1e9) of it
 * and only REALTIME is stepped (ADJ_SETOFFSET, leap seconds). maxerror grows by 500 us/s and
 * STA_UNSYNC comes back at 16 s; STA_INS/STA_DEL insert/delete a second at UTC midnight. adjtime
 * with modes other than 0 fails with -EPERM when cap_sys_time is false.
 */
struct sysclock_sim;
struct sysclock_sim_config {
	ns_t start_real; /* CLOCK_REALTIME at creation */
	double freq_error_ppb;
	bool cap_sys_time;
	ns_t phc_offset; /* the simulated PHC (sysclock_ops.phc_measure) minus true time */
};
int sysclock_sim_new(const struct sysclock_sim_config *cfg, struct sysclock_sim **ret);
struct sysclock_sim *sysclock_sim_free(struct sysclock_sim *sim);
extern const struct sysclock_ops sysclock_sim_ops;
/* Advance true time by dt ns (leap seconds and maxerror growth happen on the way). */
void sysclock_sim_advance(struct sysclock_sim *sim, ns_t dt);
/* Exact CLOCK_REALTIME of the simulation, and true time (starts at start_real). */
ns_t sysclock_sim_real(const struct sysclock_sim *sim);
ns_t sysclock_sim_true(const struct sysclock_sim *sim);
/* The kernel state as adjtimex(modes = 0) would show it. */
int sysclock_sim_read(struct sysclock_sim *sim, struct timex *tx);
