/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The simulated clock, a test double behind ptp/clock.h's ops, for unit tests of servos and ports.
 */
#pragma once

#include "ptp/clock.h"

/*
 * Simulated: deterministic. Its time runs at (1 + (freq_error + adj) / 1e9) of a true time that
 * only clock_sim_advance() moves; gettime adds Gaussian noise of noise_ns standard deviation from
 * a PRNG seeded with seed (no global state).
 */
struct clock_sim_config {
	ns_t start;	       /* true time and clock time at creation */
	double freq_error_ppb; /* the oscillator's own error */
	double noise_ns;       /* standard deviation of gettime noise */
	uint64_t seed;
	double max_freq_ppb; /* 0 = 1e6 */
};
int clock_sim_new(const struct clock_sim_config *cfg, struct clock **ret);
/* Move true time forward by dt ns (>= 0). -EINVAL on a clock that is not simulated. */
int clock_sim_advance(struct clock *c, ns_t dt);
/* True time, and the exact clock time minus true time (no noise). */
ns_t clock_sim_true_time(const struct clock *c);
ns_t clock_sim_error(const struct clock *c);
/* A Gaussian sample from the clock's PRNG, for tests that need noise of their own. */
double clock_sim_gauss(struct clock *c, double stddev);
