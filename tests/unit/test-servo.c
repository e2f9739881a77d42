// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/servo*.c: the PI servo closing the loop on a simulated clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptp/clock.h"
#include "tests/doubles/clock-sim.h"
#include "ptp/outlier.h"
#include "ptp/servo.h"
#include "ptp/util.h"

struct loop {
	/* inputs */
	enum servo_type type;
	double freq_error_ppb;
	ns_t initial_offset;
	double noise_ns; /* timestamp noise on each measured offset, standard deviation */
	bool sw_ts;	 /* linuxptp's software timestamping constants */
	ns_t interval;
	int samples;
	int tail; /* the last samples the statistics cover */
	uint64_t seed;
	/* results */
	int reported;		 /* samples answered with a state and a finite, clamped frequency */
	int jumps, first_locked; /* sample index of the first LOCKED, -1 if never */
	enum servo_state last_state;
	double max_abs_freq;
	ns_t tail_max_abs; /* true clock error over the tail */
	double tail_rms;
	double final_freq;
};

/*
 * A slave's loop: every interval the simulated clock drifts on, the "measured" offset is its true
 * error plus Gaussian timestamp noise, the servo answers, and its answer is applied as phcd-port
 * will: step by -offset on JUMP, then set the frequency.
 */
static void run_loop(struct loop *l, const struct servo_config *override)
{
	struct clock_sim_config sc = {
		.start = 1000 * NS_PER_SEC,
		.freq_error_ppb = l->freq_error_ppb,
		.seed = l->seed,
	};
	struct servo_config cfg;
	struct clock *c = NULL;
	struct servo *s = NULL;
	double sum2 = 0;

	if (override) {
		cfg = *override;
	} else {
		servo_config_default(&cfg, l->sw_ts);
		cfg.type = l->type;
	}
	assert_int_equal(clock_sim_new(&sc, &c), 0);
	assert_int_equal(servo_new(&cfg, 0, &s), 0);
	servo_set_interval(s, (double) l->interval / NS_PER_SEC);
	assert_int_equal(clock_step(c, l->initial_offset), 0);

	l->jumps = 0;
	l->reported = 0;
	l->first_locked = -1;
	l->max_abs_freq = 0;
	l->tail_max_abs = 0;
	for (int i = 0; i < l->samples; i++) {
		ns_t local, meas;
		double freq;

		assert_int_equal(clock_sim_advance(c, l->interval), 0);
		assert_int_equal(clock_get_time(c, &local), 0);
		meas = clock_sim_error(c) + llround(clock_sim_gauss(c, l->noise_ns));
		freq = NAN;
		l->last_state = servo_sample(s, meas, local, &freq);
		if (servo_state_to_string(l->last_state) && isfinite(freq) &&
		    fabs(freq) <= cfg.max_freq_ppb) {
			l->reported++;
		}
		if (l->last_state == SERVO_JUMP) {
			l->jumps++;
			assert_int_equal(clock_step(c, -meas), 0);
		}
		if (l->last_state == SERVO_LOCKED && l->first_locked < 0) {
			l->first_locked = i;
		}
		assert_int_equal(clock_adj_freq(c, freq), 0);
		if (fabs(freq) > l->max_abs_freq) {
			l->max_abs_freq = fabs(freq);
		}
		l->final_freq = freq;
		if (i >= l->samples - l->tail) {
			ns_t e = clock_sim_error(c);

			if (llabs(e) > l->tail_max_abs) {
				l->tail_max_abs = llabs(e);
			}
			sum2 += (double) e * (double) e;
		}
	}
	l->tail_rms = sqrt(sum2 / l->tail);
	servo_free(s);
	clock_free(c);
}

/*
 * The claim: from any frequency error in -500..+500 ppm and a 2 ms start offset, with Gaussian
 * timestamp noise, the PI servo with linuxptp's default constants steps once, locks, and holds
 * the true offset within bounds. Hardware-like: 20 ns noise, 8 samples/s, 60 s; over the last
 * 30 s |offset| < 100 ns (5 sigma) and RMS < 30 ns. Software-like (veth): 300 ns noise, the
 * software constants, 300 s; locked within 10 samples (its first frequency estimate is a
 * least-squares slope over 1 s, not over 0.016 / ki s, 37 s here, as linuxptp waits); over the last
 * 60 s |offset| < 1000 ns and RMS < 150 ns. Errors in 100 ppm steps and 20 random ones, each with
 * its own noise seed.
 */
struct convergence {
	const char *name;
	enum servo_type type;
	bool sw_ts;
	double noise_ns;
	int samples, tail, lock_by;
	ns_t max_abs;
	double max_rms;
};

static const struct convergence convergence_cases[] = {
	{ "hardware", SERVO_TYPE_PI, false, 20, 8 * 60, 8 * 30, 3, 100, 30 },
	{ "software", SERVO_TYPE_PI, true, 300, 8 * 300, 8 * 60, 10, 1000, 150 },
};

/*
 * linreg: the same clocks and noise and bounds, and locked right after the step: its first
 * estimate needs two samples with hardware timestamps (the second one steps), with software ones
 * samples that span freq_est_min, 1 s (the ninth at Sync 8/s; the second at 1/s), as the PI
 * waits. The software case runs 60 s: a fit needs no long settling.
 */
static const struct convergence linreg_cases[] = {
	{ "linreg hardware", SERVO_TYPE_LINREG, false, 20, 8 * 60, 8 * 30, 2, 100, 30 },
	{ "linreg software", SERVO_TYPE_LINREG, true, 300, 8 * 60, 8 * 30, 9, 1000, 150 },
};

static void check_convergence(const struct convergence *c, double error_ppb, uint64_t seed,
			      unsigned int *failed)
{
	struct loop l = {
		.type = c->type,
		.freq_error_ppb = error_ppb,
		.initial_offset = 2 * NS_PER_MSEC,
		.noise_ns = c->noise_ns,
		.sw_ts = c->sw_ts,
		.interval = NS_PER_SEC / 8,
		.samples = c->samples,
		.tail = c->tail,
		.seed = seed,
	};

	run_loop(&l, NULL);
	if (l.jumps != 1 || l.reported != l.samples || l.first_locked < 0 ||
	    l.first_locked > c->lock_by || l.last_state != SERVO_LOCKED ||
	    l.tail_max_abs >= c->max_abs || l.tail_rms >= c->max_rms) {
		print_error("%s, %+.0f ppb: expected 1 jump, %d samples reported, lock by sample "
			    "%d, |offset| < %" PRId64
			    " ns, rms < %.0f ns; got %d jumps, %d reported, "
			    "lock at %d (%s at the end), |offset| %" PRId64 " ns, rms %.1f ns\n",
			    c->name, error_ppb, l.samples, c->lock_by, c->max_abs, c->max_rms,
			    l.jumps, l.reported, l.first_locked,
			    servo_state_to_string(l.last_state), l.tail_max_abs, l.tail_rms);
		(*failed)++;
	}
}

static void check_cases(const struct convergence *cases, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct convergence *c = &cases[k];
		unsigned int failed = 0, runs = 0;
		uint64_t rng = 99 + k;

		for (int ppm = -500; ppm <= 500; ppm += 100, runs++) {
			check_convergence(c, ppm * 1000.0, runs + 1, &failed);
		}
		for (int i = 0; i < 20; i++, runs++) {
			/* a uniform error in [-500, +500] ppm from the sim clock's own PRNG style
			 */
			rng = rng * UINT64_C(6364136223846793005) + 1442695040888963407;
			double ppb = ((double) (rng >> 11) / 9007199254740992.0 - 0.5) * 1e6;

			check_convergence(c, ppb, runs + 1, &failed);
		}
		print_message("%s: %u runs, %u outside the bounds\n", c->name, runs, failed);
		assert_int_equal(failed, 0);
	}
}

static void test_pi_converges(void **state)
{
	check_cases(convergence_cases, ARRAY_SIZE(convergence_cases));
}

static void test_linreg_converges(void **state)
{
	check_cases(linreg_cases, ARRAY_SIZE(linreg_cases));
}

static struct servo *new_pi(const struct servo_config *cfg)
{
	struct servo *s = NULL;

	assert_int_equal(servo_pi_new(cfg, 0, &s), 0);
	servo_set_interval(s, 1.0);
	return s;
}

static struct servo *new_linreg(const struct servo_config *cfg)
{
	struct servo_config c = *cfg;
	struct servo *s = NULL;

	c.type = SERVO_TYPE_LINREG;
	assert_int_equal(servo_new(&c, 0, &s), 0);
	assert_string_equal(s->ops->name, "linreg");
	servo_set_interval(s, 1.0);
	return s;
}

/* Feed a clock that is off by a constant: the frequency estimate needs two samples. */
static enum servo_state feed(struct servo *s, ns_t offset, int n, ns_t *t, double *freq)
{
	enum servo_state st = SERVO_UNLOCKED;

	for (int i = 0; i < n; i++) {
		*t += NS_PER_SEC;
		st = servo_sample(s, offset, *t, freq);
	}
	return st;
}

static void test_first_step_threshold(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f;

	servo_config_default(&cfg, false);
	/* 10 us is under the 20 us default: slew, no step */
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 10000, 1, &t, &f), SERVO_UNLOCKED);
	assert_int_equal(feed(s, 10000, 1, &t, &f), SERVO_LOCKED);
	servo_free(s);
	/* 30 us is over it: step once */
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 30000, 2, &t, &f), SERVO_JUMP);
	/* the first-step threshold is spent: a later big offset no longer steps */
	servo_reset(s);
	assert_int_equal(feed(s, 30000, 2, &t, &f), SERVO_LOCKED);
	servo_free(s);
	/* 0 disables it */
	cfg.first_step_threshold = 0;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 5 * NS_PER_SEC, 2, &t, &f), SERVO_LOCKED);
	servo_free(s);
}

/*
 * The step policy on a simulated clock, for each servo: locked to the true time, the master
 * (a rogue grandmaster, a lying worker) suddenly claims a day of offset. After the first lock no
 * step is taken (step_threshold 0, ptp4l), and beyond max_offset_jump the sample is refused
 * outright: the servo holds over on its stable frequency, the clock neither steps nor slews
 * (its true error stays where it was), and it locks again when sane offsets return.
 */
static void policy_rogue_after_lock(enum servo_type type)
{
	struct clock_sim_config sc = { .start = 1000 * NS_PER_SEC, .freq_error_ppb = 40000 };
	const ns_t rogue = INT64_C(86326) * NS_PER_SEC;
	struct servo_config cfg;
	struct clock *c = NULL;
	struct servo *s = NULL;
	double freq = 0, held;
	ns_t local, err_before;
	int jumps = 0;

	servo_config_default(&cfg, false);
	cfg.type = type;
	cfg.max_offset_jump = NS_PER_SEC;
	assert_int_equal(clock_sim_new(&sc, &c), 0);
	assert_int_equal(servo_new(&cfg, 0, &s), 0);
	servo_set_interval(s, 1.0);
	assert_int_equal(clock_step(c, 3 * NS_PER_MSEC), 0);
	for (int i = 0; i < 120; i++) {
		enum servo_state st;

		assert_int_equal(clock_sim_advance(c, NS_PER_SEC), 0);
		assert_int_equal(clock_get_time(c, &local), 0);
		st = servo_sample(s, clock_sim_error(c), local, &freq);
		if (st == SERVO_JUMP) {
			jumps++;
			assert_int_equal(clock_step(c, -clock_sim_error(c)), 0);
		}
		assert_int_equal(clock_adj_freq(c, freq), 0);
	}
	assert_int_equal(jumps, 1); /* the first step, 3 ms > first_step_threshold */
	assert_int_equal(s->state, SERVO_LOCKED);
	assert_true(llabs(clock_sim_error(c)) < 1000);
	held = s->ops->stable_freq(s);
	err_before = clock_sim_error(c);

	/* the rogue: 30 samples a day off */
	for (int i = 0; i < 30; i++) {
		assert_int_equal(clock_sim_advance(c, NS_PER_SEC), 0);
		assert_int_equal(clock_get_time(c, &local), 0);
		assert_int_equal(servo_sample(s, clock_sim_error(c) + rogue, local, &freq),
				 SERVO_HOLDOVER);
		assert_true(fabs(freq - held) < 1e-6);
		assert_int_equal(clock_adj_freq(c, freq), 0);
	}
	assert_int_equal(s->refused, 30);
	assert_true(s->refused_offset > rogue - NS_PER_MSEC);
	assert_false(servo_stable(s));
	/* holdover on the learnt frequency: the clock moved by far less than a millisecond */
	assert_true(llabs(clock_sim_error(c) - err_before) < 100000);

	/* the real master again: locks without a step */
	for (int i = 0; i < 10; i++) {
		enum servo_state st;

		assert_int_equal(clock_sim_advance(c, NS_PER_SEC), 0);
		assert_int_equal(clock_get_time(c, &local), 0);
		st = servo_sample(s, clock_sim_error(c), local, &freq);
		assert_int_not_equal(st, SERVO_JUMP);
		assert_int_equal(clock_adj_freq(c, freq), 0);
	}
	assert_int_equal(s->state, SERVO_LOCKED);
	servo_free(s);
	clock_free(c);
}

static void test_policy_rogue_after_lock(void **state)
{
	policy_rogue_after_lock(SERVO_TYPE_PI);
	policy_rogue_after_lock(SERVO_TYPE_LINREG);
}

/*
 * A servo made for a clock that locked before (the system-clock servo rebuilt on a new parent):
 * no first step, and the sanity bound holds from its first sample. Without first_step_taken
 * the same offset is stepped (what a new grandmaster got before: a new first step).
 */
static void test_policy_first_step_taken(void **state)
{
	enum servo_type types[] = { SERVO_TYPE_PI, SERVO_TYPE_LINREG };

	for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
		struct servo_config cfg;
		struct servo *s;
		ns_t t = 0;
		double f;
		int jumps = 0;

		servo_config_default(&cfg, false);
		cfg.type = types[k];
		cfg.max_offset_jump = NS_PER_SEC;
		/* 0.5 s: within the bound, beyond first_step_threshold */
		cfg.first_step_taken = true;
		assert_int_equal(servo_new(&cfg, 0, &s), 0);
		servo_set_interval(s, 1.0);
		for (int i = 0; i < 20; i++) {
			jumps += feed(s, NS_PER_SEC / 2, 1, &t, &f) == SERVO_JUMP;
		}
		assert_int_equal(jumps, 0);
		/* a day: refused from the first sample on */
		assert_int_equal(feed(s, INT64_C(86326) * NS_PER_SEC, 1, &t, &f), SERVO_HOLDOVER);
		assert_int_equal(s->refused, 1);
		servo_free(s);

		cfg.first_step_taken = false;
		assert_int_equal(servo_new(&cfg, 0, &s), 0);
		servo_set_interval(s, 1.0);
		for (int i = 0; i < 20; i++) {
			jumps += feed(s, NS_PER_SEC / 2, 1, &t, &f) == SERVO_JUMP;
		}
		assert_int_equal(jumps, 1);
		servo_free(s);
	}
}

/* step_threshold within the bound still steps after lock; beyond the bound nothing does. */
static void test_policy_step_within_bound(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f;
	int jumps = 0;

	servo_config_default(&cfg, false);
	cfg.step_threshold = NS_PER_MSEC;
	cfg.max_offset_jump = NS_PER_SEC;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 100, 3, &t, &f), SERVO_LOCKED);
	for (int i = 0; i < 5; i++) {
		jumps += feed(s, 10 * NS_PER_MSEC, 1, &t, &f) == SERVO_JUMP;
	}
	assert_int_equal(jumps, 1);
	assert_int_equal(feed(s, 100, 3, &t, &f), SERVO_LOCKED);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(feed(s, 2 * NS_PER_SEC, 1, &t, &f), SERVO_HOLDOVER);
	}
	assert_int_equal(s->refused, 5);
	/* 0 turns the bound off: the PI is back to ptp4l's rules */
	servo_free(s);
	cfg.max_offset_jump = 0;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 100, 3, &t, &f), SERVO_LOCKED);
	assert_int_not_equal(feed(s, 2 * NS_PER_SEC, 1, &t, &f), SERVO_HOLDOVER);
	assert_int_equal(s->refused, 0);
	servo_free(s);
}

static void test_step_threshold(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f;

	servo_config_default(&cfg, false);
	cfg.step_threshold = 1000;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 100, 2, &t, &f), SERVO_LOCKED);
	assert_int_equal(feed(s, 100, 3, &t, &f), SERVO_LOCKED);
	/* beyond it while locked: start over, re-estimate, then step */
	assert_int_equal(feed(s, 5000, 1, &t, &f), SERVO_UNLOCKED);
	assert_int_equal(feed(s, 5000, 1, &t, &f), SERVO_UNLOCKED);
	assert_int_equal(feed(s, 5000, 1, &t, &f), SERVO_JUMP);
	servo_free(s);
}

/*
 * A fast start: with the software constants at Sync 1/s the PI's first frequency estimate (and
 * lock) comes with the second sample, 1 s after the first, not 16 s later; the estimate is the
 * clock's drift. Hardware: the second sample at any interval.
 */
static void test_pi_fast_start(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	double f;

	servo_config_default(&cfg, true);
	assert_int_equal(cfg.freq_est_min, NS_PER_SEC);
	s = new_pi(&cfg);
	assert_int_equal(servo_sample(s, 1000, 10 * NS_PER_SEC, &f), SERVO_UNLOCKED);
	assert_int_equal(servo_sample(s, 1500, 10 * NS_PER_SEC + NS_PER_SEC / 2, &f),
			 SERVO_UNLOCKED);
	/* +1000 ns/s: 1 ppm fast, so -1000 ppb */
	assert_int_equal(servo_sample(s, 2000, 11 * NS_PER_SEC, &f), SERVO_LOCKED);
	assert_true(fabs(f + 1000.0) < 1.0);
	servo_free(s);

	servo_config_default(&cfg, false);
	assert_int_equal(cfg.freq_est_min, 0);
	s = new_pi(&cfg);
	servo_set_interval(s, 1.0 / 128);
	assert_int_equal(servo_sample(s, 1000, 10 * NS_PER_SEC, &f), SERVO_UNLOCKED);
	assert_int_equal(servo_sample(s, 1010, 10 * NS_PER_SEC + NS_PER_SEC / 128, &f),
			 SERVO_LOCKED);
	servo_free(s);
}

/* linreg steps only as first_step_threshold and step_threshold allow. */
static void test_linreg_step_policy(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f;

	servo_config_default(&cfg, false);
	/* 10 us is under the 20 us default: slew, no step; the first sample only primes */
	s = new_linreg(&cfg);
	assert_int_equal(feed(s, 10000, 1, &t, &f), SERVO_UNLOCKED);
	assert_int_equal(feed(s, 10000, 1, &t, &f), SERVO_LOCKED);
	assert_true(f < 0); /* ahead: slow down */
	servo_free(s);
	/* 30 us is over it: one step, then never again without a step_threshold */
	s = new_linreg(&cfg);
	assert_int_equal(feed(s, 30000, 1, &t, &f), SERVO_UNLOCKED);
	assert_int_equal(feed(s, 30000, 1, &t, &f), SERVO_JUMP);
	assert_int_equal(feed(s, 30000, 1, &t, &f), SERVO_LOCKED);
	servo_reset(s);
	assert_int_equal(feed(s, 30000, 2, &t, &f), SERVO_LOCKED);
	servo_free(s);
	/* 0 disables the first step */
	cfg.first_step_threshold = 0;
	s = new_linreg(&cfg);
	assert_int_equal(feed(s, 5 * NS_PER_SEC, 2, &t, &f), SERVO_LOCKED);
	assert_true(f == -cfg.max_freq_ppb);
	servo_free(s);
	/* step_threshold: a jump of the offset beyond it while locked steps */
	cfg.step_threshold = 1000;
	s = new_linreg(&cfg);
	assert_int_equal(feed(s, 100, 4, &t, &f), SERVO_LOCKED);
	assert_int_equal(feed(s, 900, 1, &t, &f), SERVO_LOCKED);
	assert_int_equal(feed(s, 50000, 3, &t, &f), SERVO_JUMP);
	servo_free(s);
}

/* linreg from far off: 1 ms and 400 ppm off, no step allowed: it slews there, clamped. */
static void test_linreg_no_step_slews(void **state)
{
	struct servo_config cfg;
	struct loop l = { .type = SERVO_TYPE_LINREG,
			  .freq_error_ppb = 400000,
			  .initial_offset = NS_PER_MSEC,
			  .noise_ns = 20,
			  .interval = NS_PER_SEC / 8,
			  .samples = 8 * 60,
			  .tail = 8 * 20,
			  .seed = 11 };

	servo_config_default(&cfg, false);
	cfg.type = SERVO_TYPE_LINREG;
	cfg.first_step_threshold = 0;
	cfg.max_freq_ppb = 900000; /* within the simulated clock's range */
	run_loop(&l, &cfg);
	assert_int_equal(l.jumps, 0);
	assert_int_equal(l.reported, l.samples);
	assert_int_equal(l.last_state, SERVO_LOCKED);
	assert_true(l.tail_max_abs < 100);
}

/*
 * Lock detection (servo_offset_threshold, servo_num_offset_values): stable only after that many
 * locked offsets in a row within the threshold; one outside starts the count again; without a
 * threshold, stable whenever locked.
 */
static void test_lock_detection(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f;

	servo_config_default(&cfg, false);
	assert_int_equal(cfg.offset_threshold, 0);
	assert_int_equal(cfg.num_offset_values, 10);
	s = new_pi(&cfg);
	assert_false(servo_stable(s));
	assert_int_equal(feed(s, 5000, 2, &t, &f), SERVO_LOCKED);
	assert_true(servo_stable(s));
	servo_free(s);

	cfg.offset_threshold = 100;
	cfg.num_offset_values = 3;
	for (int linreg = 0; linreg < 2; linreg++) {
		s = linreg ? new_linreg(&cfg) : new_pi(&cfg);
		assert_int_equal(feed(s, 50, 2, &t, &f), SERVO_LOCKED);
		assert_false(servo_stable(s)); /* one locked offset within */
		assert_int_equal(feed(s, 50, 1, &t, &f), SERVO_LOCKED);
		assert_false(servo_stable(s));
		assert_int_equal(feed(s, -80, 1, &t, &f), SERVO_LOCKED);
		assert_true(servo_stable(s));
		assert_int_equal(feed(s, 101, 1, &t, &f), SERVO_LOCKED);
		assert_false(servo_stable(s));
		assert_int_equal(feed(s, 10, 2, &t, &f), SERVO_LOCKED);
		assert_false(servo_stable(s));
		assert_int_equal(feed(s, 10, 1, &t, &f), SERVO_LOCKED);
		assert_true(servo_stable(s));
		servo_reset(s);
		assert_false(servo_stable(s));
		servo_free(s);
	}
}

/* A clamp below the clock's error: never more than the clamp, and so no convergence. */
static void test_max_frequency_clamp(void **state)
{
	struct servo_config cfg;
	struct loop l = { .freq_error_ppb = 500000,
			  .initial_offset = 0,
			  .noise_ns = 20,
			  .interval = NS_PER_SEC / 8,
			  .samples = 400,
			  .tail = 100,
			  .seed = 3 };

	servo_config_default(&cfg, false);
	cfg.max_freq_ppb = 100000;
	run_loop(&l, &cfg);
	assert_true(l.max_abs_freq <= 100000);
	assert_true(l.tail_max_abs > 10 * NS_PER_USEC);
}

/* Constants set by hand are used as they are (linuxptp pi_proportional_const and friends). */
static void test_fixed_constants(void **state)
{
	struct servo_options o = { .pi_proportional_const = 0.7,
				   .pi_integral_const = 0.3,
				   .first_step_threshold = 0.00002,
				   .step_threshold = 0.0,
				   .max_frequency = 900000 };
	struct servo_config cfg;
	struct loop l = { .freq_error_ppb = -321000,
			  .initial_offset = 3 * NS_PER_MSEC,
			  .noise_ns = 20,
			  .interval = NS_PER_SEC,
			  .samples = 120,
			  .tail = 60,
			  .seed = 5 };

	servo_config_from_options(&o, false, &cfg);
	assert_true(cfg.kp == 0.7 && cfg.ki == 0.3);
	assert_int_equal(cfg.first_step_threshold, 20000);
	assert_true(cfg.max_freq_ppb == 900000);
	run_loop(&l, &cfg);
	assert_int_equal(l.jumps, 1);
	assert_true(l.tail_max_abs < 100);
}

/*
 * One noisy sample just after the first estimate must not set the frequency. With software
 * timestamps, Kp 0.7 and Ki 0.3 set by hand (the UDP and unicast tests' phcd.conf) and Sync 8/s,
 * the line that refines the first estimate restarts at the next sample and refining ends 0.016 /
 * Ki = 53 ms after the start: the estimate was replaced by a line through two samples 125 ms apart.
 * A 4.3 us spike on either of them (a loaded host) set 29 ppm, which the integrator then took 5 s
 * to unwind through 13 us of offset (test-attack-19-unicast-cancel failed CI on it: a median of
 * 5058 ns against 5 us). A spike of 4 us on the sample after the estimate, or on the next, moves
 * the frequency by the gains' share of it only: the clock stays within 1 us.
 */
static void test_pi_refine_spike(void **state)
{
	struct servo_options o = { .pi_proportional_const = 0.7,
				   .pi_integral_const = 0.3,
				   .first_step_threshold = 0.00002,
				   .max_frequency = 900000 };

	for (int after = 1; after <= 2; after++) {
		for (int sign = -1; sign <= 1; sign += 2) {
			struct clock_sim_config sc = { .start = 1000 * NS_PER_SEC, .seed = 3 };
			struct servo_config cfg;
			struct clock *c = NULL;
			struct servo *s = NULL;
			int locked = -1;
			ns_t max_err = 0;
			double max_hold = 0;

			servo_config_from_options(&o, true, &cfg);
			assert_int_equal(cfg.freq_est_min, NS_PER_SEC);
			assert_int_equal(clock_sim_new(&sc, &c), 0);
			assert_int_equal(servo_new(&cfg, 0, &s), 0);
			servo_set_interval(s, 0.125);
			for (int i = 0; i < 8 * 10; i++) {
				ns_t local, meas;
				double freq = 0;
				enum servo_state st;

				assert_int_equal(clock_sim_advance(c, NS_PER_SEC / 8), 0);
				assert_int_equal(clock_get_time(c, &local), 0);
				meas = clock_sim_error(c) + llround(clock_sim_gauss(c, 100));
				if (locked >= 0 && i == locked + after) {
					meas += sign * 4000;
				}
				st = servo_sample(s, meas, local, &freq);
				assert_int_not_equal(st, SERVO_JUMP);
				if (st == SERVO_LOCKED && locked < 0) {
					locked = i;
				}
				assert_int_equal(clock_adj_freq(c, freq), 0);
				if (locked >= 0 && i > locked + after) {
					ns_t e = llabs(clock_sim_error(c));

					max_err = e > max_err ? e : max_err;
					if (fabs(s->ops->stable_freq(s)) > max_hold) {
						max_hold = fabs(s->ops->stable_freq(s));
					}
				}
			}
			print_message("spike %+d us on sample %d after the first estimate: "
				      "|offset| at most %" PRId64
				      " ns, |integrator| at most %.0f ppb\n",
				      sign * 4, after, max_err, max_hold);
			assert_true(locked >= 0);
			assert_true(max_err < NS_PER_USEC);
			assert_true(max_hold < 2000);
			servo_free(s);
			clock_free(c);
		}
	}
}

static void test_holdover(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	ns_t t = 0;
	double f, locked_freq;

	servo_config_default(&cfg, false);
	cfg.holdover_timeout = 5 * NS_PER_SEC;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 50, 4, &t, &f), SERVO_LOCKED);
	locked_freq = s->freq_ppb;
	assert_int_equal(servo_check_holdover(s, t + 5 * NS_PER_SEC), SERVO_LOCKED);
	assert_int_equal(servo_check_holdover(s, t + 5 * NS_PER_SEC + 1), SERVO_HOLDOVER);
	assert_true(s->freq_ppb == locked_freq);
	/* samples again: locked again */
	t += 6 * NS_PER_SEC;
	assert_int_equal(servo_sample(s, 50, t, &f), SERVO_LOCKED);
	servo_free(s);

	/* no timeout configured: never holdover */
	cfg.holdover_timeout = 0;
	s = new_pi(&cfg);
	assert_int_equal(feed(s, 50, 4, &t, &f), SERVO_LOCKED);
	assert_int_equal(servo_check_holdover(s, t + 1000 * NS_PER_SEC), SERVO_LOCKED);
	servo_free(s);
}

/* Time running backwards between the first samples (a step elsewhere) restarts the estimate. */
static void test_time_backwards(void **state)
{
	struct servo_config cfg;
	struct servo *s;
	double f;

	servo_config_default(&cfg, false);
	s = new_pi(&cfg);
	assert_int_equal(servo_sample(s, 10, 5 * NS_PER_SEC, &f), SERVO_UNLOCKED);
	assert_int_equal(servo_sample(s, 10, 4 * NS_PER_SEC, &f), SERVO_UNLOCKED);
	/* the sample at 4 s was dropped with the one at 5 s: this one starts over */
	assert_int_equal(servo_sample(s, 10, 6 * NS_PER_SEC, &f), SERVO_UNLOCKED);
	assert_int_equal(servo_sample(s, 10, 7 * NS_PER_SEC, &f), SERVO_LOCKED);
	servo_free(s);
}

static void test_config_and_names(void **state)
{
	struct servo_config cfg;
	struct servo *s = NULL;
	enum servo_state st;

	servo_config_default(&cfg, true);
	assert_true(cfg.kp_scale == 0.1 && cfg.ki_scale == 0.001);
	assert_int_equal(cfg.first_step_threshold, 20000);
	cfg.max_freq_ppb = 0;
	assert_int_equal(servo_pi_new(&cfg, 0, &s), -EINVAL);
	assert_null(s);
	assert_null(servo_free(NULL));

	assert_string_equal(servo_state_to_string(SERVO_LOCKED), "LOCKED");
	assert_string_equal(servo_state_to_string(SERVO_HOLDOVER), "HOLDOVER");
	assert_null(servo_state_to_string(SERVO_HOLDOVER + 1));
	assert_int_equal(servo_state_from_string("JUMP", &st), 0);
	assert_int_equal(st, SERVO_JUMP);
	assert_int_equal(servo_state_from_string("locked", &st), -EINVAL);
}

/*
 * servo_clip(): a residual beyond 2.5 times the learnt level counts as the bound; more than four
 * in a row on one side are a change, as large as the smallest of them (spikes of 100..300 us
 * around a level of 1 us once made the last of them the new level, whole).
 */
static void test_clip_run(void **state)
{
	static const double spikes[] = { 100, 40, 7, 90, 300 };
	struct servo_clip c = { 0 };
	double r;

	for (int i = 0; i < 8; i++) {
		assert_true(servo_clip(&c, i % 2 ? 1.0 : -1.0) == (i % 2 ? 1.0 : -1.0));
	}
	assert_true(fabs(c.scale - 1.0) < 1e-9);
	for (size_t i = 0; i < ARRAY_SIZE(spikes); i++) {
		r = servo_clip(&c, spikes[i]);
		if (i + 1 < ARRAY_SIZE(spikes)) {
			/* clipped to 2.5 times the level (which each spike lifts by at most 1.5x)
			 */
			assert_true(r > 2.4 && r < 2.5 * 1.1);
		}
	}
	print_message("five spikes 100, 40, 7, 90, 300: the fifth counts %.1f, the level %.1f\n", r,
		      c.scale);
	assert_true(r == 7.0);
	assert_true(c.scale == 7.0);
	/* a run broken by one within the bound starts over; a negative run is its own */
	for (int i = 0; i < 4; i++) {
		assert_true(servo_clip(&c, -50.0) < 0);
	}
	assert_true(servo_clip(&c, 1.0) == 1.0);
	for (int i = 0; i < 4; i++) {
		assert_true(servo_clip(&c, -50.0) > -50.0);
	}
	/* a real offset: five alike go in as they are */
	assert_true(servo_clip(&c, -50.0) == -50.0);
	assert_true(c.scale == 50.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pi_converges),
		cmocka_unit_test(test_first_step_threshold),
		cmocka_unit_test(test_linreg_converges),
		cmocka_unit_test(test_linreg_step_policy),
		cmocka_unit_test(test_linreg_no_step_slews),
		cmocka_unit_test(test_lock_detection),
		cmocka_unit_test(test_pi_fast_start),
		cmocka_unit_test(test_step_threshold),
		cmocka_unit_test(test_policy_rogue_after_lock),
		cmocka_unit_test(test_policy_first_step_taken),
		cmocka_unit_test(test_policy_step_within_bound),
		cmocka_unit_test(test_max_frequency_clamp),
		cmocka_unit_test(test_fixed_constants),
		cmocka_unit_test(test_pi_refine_spike),
		cmocka_unit_test(test_holdover),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_config_and_names),
		cmocka_unit_test(test_clip_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
