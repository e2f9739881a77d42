// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The boundary clock across NICs (daemon/phc-follow.c) over simulated PHCs: a sysoff double reads
 * each against a simulated CLOCK_REALTIME with a read window, and every read takes time.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "daemon/phc-follow.h"
#include "tests/doubles/clock-sim.h"

#define NPHC 3
#define START_NS (INT64_C(1700000000) * NS_PER_SEC)
#define READ_NS 3000   /* each sysoff reading takes this long */
#define WINDOW_NS 1000 /* and brackets the PHC read within this window */
#define INTERVAL_NS (NS_PER_SEC / 8)
#define TAI_UTC_NS (37 * NS_PER_SEC)

struct rig {
	struct clock *phc[NPHC];
	struct clock *sys; /* CLOCK_REALTIME, never steered here */
	struct phc_follow *pf;
	int open_error[NPHC];  /* what open answers for that PHC */
	unsigned int measured; /* sysoff readings taken */
	unsigned int open;     /* clocks handed out and not closed */
};

static void rig_advance(struct rig *r, ns_t dt)
{
	for (int k = 0; k < NPHC; k++) {
		assert_int_equal(clock_sim_advance(r->phc[k], dt), 0);
	}
	assert_int_equal(clock_sim_advance(r->sys, dt), 0);
}

static int sim_measure(void *userdata, int phc_index, struct sysoff_pair *ret)
{
	struct rig *r = userdata;
	ns_t sys;

	if (phc_index == PHC_FOLLOW_REALTIME) {
		/* CLOCK_REALTIME on the PHCs' timescale: TAI, UTC plus 37 s (instance-follow.c) */
		r->measured++;
		assert_int_equal(clock_get_time(r->sys, &ret->sys), 0);
		ret->phc = ret->sys + TAI_UTC_NS;
		ret->error = 0;
		rig_advance(r, READ_NS);
		return 0;
	}
	if (phc_index < 0 || phc_index >= NPHC) {
		return -ENODEV;
	}
	r->measured++;
	rig_advance(r, READ_NS / 2);
	assert_int_equal(clock_get_time(r->phc[phc_index], &ret->phc), 0);
	assert_int_equal(clock_get_time(r->sys, &sys), 0);
	/* the window's middle is somewhere within it: the error the follower must allow for */
	ret->sys = sys + (ns_t) llround(clock_sim_gauss(r->sys, WINDOW_NS / 6.0));
	ret->error = WINDOW_NS / 2;
	rig_advance(r, READ_NS - READ_NS / 2);
	return 0;
}

static int sim_open(void *userdata, int phc_index, struct clock **ret)
{
	struct rig *r = userdata;

	if (phc_index < 0 || phc_index >= NPHC) {
		return -ENODEV;
	}
	if (r->open_error[phc_index]) {
		return r->open_error[phc_index];
	}
	r->open++;
	*ret = r->phc[phc_index];
	return 0;
}

static void sim_close(void *userdata, struct clock *c)
{
	struct rig *r = userdata;

	(void) c;
	assert_true(r->open > 0);
	r->open--;
}

static const struct phc_follow_ops sim_ops = {
	.measure = sim_measure,
	.open = sim_open,
	.close = sim_close,
};

/* PHC k runs freq_ppb[k] fast and starts offset[k] ahead of true time. */
static void rig_init(struct rig *r, const double *freq_ppb, const ns_t *offset,
		     const struct phc_follow_config *cfg)
{
	struct phc_follow_config def;

	*r = (struct rig){ 0 };
	for (int k = 0; k < NPHC; k++) {
		struct clock_sim_config c = {
			.start = START_NS,
			.freq_error_ppb = freq_ppb[k],
			.noise_ns = 20,
			.seed = 17 + (uint64_t) k,
			.max_freq_ppb = 500000,
		};

		assert_int_equal(clock_sim_new(&c, &r->phc[k]), 0);
		if (offset[k]) {
			assert_int_equal(clock_step(r->phc[k], offset[k]), 0);
		}
	}
	assert_int_equal(
		clock_sim_new(&(struct clock_sim_config){ .start = START_NS, .seed = 99 }, &r->sys),
		0);
	if (!cfg) {
		phc_follow_config_default(&def);
		def.interval_s = (double) INTERVAL_NS / NS_PER_SEC;
		cfg = &def;
	}
	assert_int_equal(phc_follow_new(&sim_ops, r, cfg, &r->pf), 0);
}

static void rig_free(struct rig *r)
{
	r->pf = phc_follow_free(r->pf);
	assert_int_equal(r->open, 0);
	for (int k = 0; k < NPHC; k++) {
		clock_free(r->phc[k]);
	}
	clock_free(r->sys);
}

/* Run for seconds at the Sync rate. */
static void rig_run(struct rig *r, double seconds)
{
	long n = lround(seconds * NS_PER_SEC / INTERVAL_NS);

	for (long k = 0; k < n; k++) {
		assert_int_equal(phc_follow_tick(r->pf), 0);
		rig_advance(r, INTERVAL_NS);
	}
}

/* The exact (noise-free) time of PHC a minus PHC b. */
static ns_t rig_diff(const struct rig *r, int a, int b)
{
	return clock_sim_error(r->phc[a]) - clock_sim_error(r->phc[b]);
}

static const struct phc_follower *rig_f(const struct rig *r, int phc)
{
	const struct phc_follower *f = phc_follow_find(r->pf, phc);

	assert_non_null(f);
	return f;
}

/*
 * A PHC 10 us and +50 ppm off the source: at the PI servo's second sample (when it may step) it
 * is 16 us off, within first_step_threshold (20 us): slewed, never stepped.
 */
static void test_converge_slew(void **state)
{
	const double freq[NPHC] = { 0, 50000, 0 };
	const ns_t off[NPHC] = { 0, 10000, 0 };
	const int targets[] = { 0, 1 };
	const struct phc_follower *f;
	struct rig r;
	double freq_b;

	(void) state;
	rig_init(&r, freq, off, NULL);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 2), 0);
	/* the source is not its own target */
	assert_null(phc_follow_find(r.pf, 0));
	assert_int_equal(r.pf->n, 1);
	assert_false(phc_follow_locked(r.pf));
	rig_run(&r, 60);
	f = rig_f(&r, 1);
	assert_int_equal(f->steps, 0);
	assert_int_equal(f->state, PHC_FOLLOWER_LOCKED);
	assert_true(phc_follow_locked(r.pf));
	assert_true(llabs(rig_diff(&r, 1, 0)) < 200);
	/* the PHC's own +50 ppm learnt (the applied adjustment adds the phase correction) */
	freq_b = f->servo->ops->stable_freq(f->servo);
	assert_true(fabs(freq_b + 50000) < 50);
	assert_int_equal(clock_get_freq(r.phc[1], &freq_b), 0);
	assert_true(fabs(freq_b + 50000) < 2000);
	rig_free(&r);
}

/* 1 ms off: beyond first_step_threshold (20 us), stepped once, then locked. */
static void test_converge_step(void **state)
{
	const double freq[NPHC] = { -20000, 30000, 0 };
	const ns_t off[NPHC] = { 0, -NS_PER_MSEC, 0 };
	const int targets[] = { 1 };
	const struct phc_follower *f;
	struct rig r;

	(void) state;
	rig_init(&r, freq, off, NULL);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	rig_run(&r, 60);
	f = rig_f(&r, 1);
	assert_int_equal(f->steps, 1);
	assert_int_equal(f->state, PHC_FOLLOWER_LOCKED);
	assert_true(llabs(rig_diff(&r, 1, 0)) < 200);
	assert_true(llabs(f->offset) < 1000);
	rig_free(&r);
}

/*
 * time_source = system: every PHC follows CLOCK_REALTIME itself (PHC_FOLLOW_REALTIME, a valid
 * source, not "none"): each stepped once onto TAI (37 s ahead of UTC), then locked on it with its
 * own frequency error learnt.
 */
static void test_realtime_source(void **state)
{
	const double freq[NPHC] = { -20000, 30000, 0 };
	const ns_t off[NPHC] = { 0, NS_PER_MSEC, 0 };
	const int targets[] = { 0, 1 };
	struct rig r;

	(void) state;
	rig_init(&r, freq, off, NULL);
	assert_int_equal(phc_follow_set(r.pf, PHC_FOLLOW_REALTIME, targets, 2), 0);
	assert_int_equal(r.pf->source, PHC_FOLLOW_REALTIME);
	assert_int_equal(r.pf->n, 2);
	rig_run(&r, 60);
	for (int k = 0; k < 2; k++) {
		const struct phc_follower *f = rig_f(&r, k);
		ns_t err = clock_sim_error(r.phc[k]) - clock_sim_error(r.sys) - TAI_UTC_NS;

		assert_int_equal(f->state, PHC_FOLLOWER_LOCKED);
		assert_int_equal(f->steps, 1);
		if (llabs(err) >= 200) {
			fail_msg("PHC %d: expected within 200 ns of CLOCK_REALTIME + 37 s, got "
				 "%lld ns",
				 k, (long long) err);
		}
	}
	assert_true(phc_follow_locked(r.pf));
	rig_free(&r);
}

/*
 * A 1PPS on the PHC's own pin (PHC_FOLLOW_PIN): a tick reads nothing, each edge's offset from the
 * second it marks (here the simulated PHC's exact error at each whole second) comes through
 * phc_follow_sample(); 1 ms and +30 ppm off: stepped once, then locked within 200 ns with its
 * frequency learnt. A sample for a PHC it does not follow, or under another source, is refused.
 */
static void test_pin_source(void **state)
{
	const double freq[NPHC] = { 0, 30000, 0 };
	const ns_t off[NPHC] = { 0, NS_PER_MSEC, 0 };
	const int targets[] = { 1 };
	struct phc_follow_config cfg;
	const struct phc_follower *f;
	struct rig r;
	double fr;

	(void) state;
	phc_follow_config_default(&cfg);
	cfg.interval_s = 1;
	rig_init(&r, freq, off, &cfg);
	assert_int_equal(phc_follow_sample(r.pf, 1, 0, 0, START_NS), -EAGAIN);
	assert_int_equal(phc_follow_set(r.pf, PHC_FOLLOW_PIN, targets, 1), 0);
	assert_int_equal(phc_follow_sample(r.pf, 2, 0, 0, START_NS), -ENOENT);
	for (int k = 0; k < 60; k++) {
		ns_t ts;

		rig_advance(&r, NS_PER_SEC);
		assert_int_equal(phc_follow_tick(r.pf), 0);
		assert_int_equal(clock_get_time(r.phc[1], &ts), 0);
		assert_int_equal(phc_follow_sample(r.pf, 1, clock_sim_error(r.phc[1]), 0, ts), 0);
	}
	assert_int_equal(r.measured, 0);
	f = rig_f(&r, 1);
	assert_int_equal(f->steps, 1);
	assert_int_equal(f->samples, 60);
	assert_int_equal(f->state, PHC_FOLLOWER_LOCKED);
	if (llabs(clock_sim_error(r.phc[1])) >= 200) {
		fail_msg("expected the PHC within 200 ns of the pin's seconds, got %lld ns",
			 (long long) clock_sim_error(r.phc[1]));
	}
	assert_int_equal(clock_get_freq(r.phc[1], &fr), 0);
	assert_true(fabs(fr + 30000) < 2000);
	rig_free(&r);
}

/* With step_threshold 0 and first_step_threshold 0 nothing ever steps, however far. */
static void test_no_step_policy(void **state)
{
	const double freq[NPHC] = { 0, 10000, 0 };
	const ns_t off[NPHC] = { 0, 200000, 0 };
	const int targets[] = { 1 };
	struct phc_follow_config cfg;
	struct rig r;

	(void) state;
	phc_follow_config_default(&cfg);
	cfg.interval_s = (double) INTERVAL_NS / NS_PER_SEC;
	cfg.servo.first_step_threshold = 0;
	cfg.servo.step_threshold = 0;
	rig_init(&r, freq, off, &cfg);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	rig_run(&r, 120);
	assert_int_equal(rig_f(&r, 1)->steps, 0);
	/* slewed at up to the clamp: 200 us go in well under two minutes */
	assert_true(llabs(rig_diff(&r, 1, 0)) < 1000);
	rig_free(&r);
}

/*
 * The BMCA moves SLAVE from PHC 0 to PHC 1: 1 becomes the source, 0 and 2 its targets. The
 * instance had locked: 30 us (beyond first_step_threshold) is slewed, not stepped.
 */
static void test_role_change(void **state)
{
	const double freq[NPHC] = { 0, 40000, -25000 };
	const ns_t off[NPHC] = { 0, 5000, -8000 };
	const int targets[] = { 0, 1, 2 };
	struct rig r;
	double f0;

	(void) state;
	rig_init(&r, freq, off, NULL);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 3), 0);
	rig_run(&r, 60);
	assert_true(phc_follow_locked(r.pf));
	assert_int_equal(r.pf->n, 2);
	/* the new SLAVE's worker pulls PHC 1 30 us away and 5 ppm faster */
	assert_int_equal(clock_step(r.phc[1], 30000), 0);
	assert_int_equal(clock_get_freq(r.phc[1], &f0), 0);
	assert_int_equal(clock_adj_freq(r.phc[1], f0 + 5000), 0);
	assert_int_equal(phc_follow_set(r.pf, 1, targets, 3), 0);
	assert_int_equal(r.pf->n, 2);
	assert_null(phc_follow_find(r.pf, 1));
	assert_int_equal(rig_f(&r, 0)->state, PHC_FOLLOWER_UNLOCKED);
	assert_false(phc_follow_locked(r.pf));
	rig_run(&r, 90);
	assert_int_equal(rig_f(&r, 0)->steps, 0);
	assert_int_equal(rig_f(&r, 2)->steps, 0);
	assert_true(phc_follow_locked(r.pf));
	assert_true(llabs(rig_diff(&r, 0, 1)) < 200);
	assert_true(llabs(rig_diff(&r, 2, 1)) < 200);
	/* PHC 1 is a source now: we no longer steer it (its adjustment is the worker's) */
	assert_int_equal(clock_get_freq(r.phc[1], &f0), 0);
	assert_true(fabs(f0 - (-40000 + 5000)) < 200);
	rig_free(&r);
}

/* No SLAVE port: nothing is read, the learnt frequency is held, the PHCs stay close. */
static void test_holdover(void **state)
{
	const double freq[NPHC] = { 0, 50000, 0 };
	const ns_t off[NPHC] = { 0, 10000, 0 };
	const int targets[] = { 1 };
	const struct phc_follower *f;
	struct rig r;
	unsigned int measured;
	double freq_b;

	(void) state;
	rig_init(&r, freq, off, NULL);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	rig_run(&r, 60);
	assert_true(phc_follow_locked(r.pf));
	assert_int_equal(phc_follow_set(r.pf, -1, targets, 1), 0);
	f = rig_f(&r, 1);
	assert_int_equal(f->state, PHC_FOLLOWER_HOLDOVER);
	assert_false(phc_follow_locked(r.pf));
	measured = r.measured;
	rig_run(&r, 30);
	assert_int_equal(r.measured, measured);
	assert_int_equal(clock_get_freq(r.phc[1], &freq_b), 0);
	assert_true(fabs(freq_b + 50000) < 50);
	/* 30 s at a residual under 50 ppb: within 1.5 us */
	assert_true(llabs(rig_diff(&r, 1, 0)) < 1500);
	/* the source comes back: locked again without a step */
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	rig_run(&r, 30);
	assert_int_equal(f->steps, 0);
	assert_true(phc_follow_locked(r.pf));
	rig_free(&r);
}

/* After the lock, a jump beyond max_offset_jump is refused: the frequency is held, no step. */
static void test_max_offset_jump(void **state)
{
	const double freq[NPHC] = { 0, 20000, 0 };
	const ns_t off[NPHC] = { 0, 3000, 0 };
	const int targets[] = { 1 };
	struct phc_follow_config cfg;
	const struct phc_follower *f;
	struct rig r;

	(void) state;
	phc_follow_config_default(&cfg);
	cfg.interval_s = (double) INTERVAL_NS / NS_PER_SEC;
	cfg.servo.step_threshold = NS_PER_MSEC / 10;
	cfg.servo.max_offset_jump = NS_PER_MSEC;
	rig_init(&r, freq, off, &cfg);
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	rig_run(&r, 60);
	assert_true(phc_follow_locked(r.pf));
	f = rig_f(&r, 1);
	assert_int_equal(f->steps, 0);
	assert_int_equal(clock_step(r.phc[0], 5 * NS_PER_MSEC), 0);
	rig_run(&r, 5);
	assert_int_equal(f->steps, 0);
	assert_int_equal(f->state, PHC_FOLLOWER_HOLDOVER);
	assert_true(f->servo->refused > 0);
	/* back to 500 us: beyond step_threshold (100 us), within max_offset_jump: one step */
	assert_int_equal(clock_step(r.phc[0], -4500 * NS_PER_USEC), 0);
	rig_run(&r, 30);
	assert_int_equal(f->steps, 1);
	assert_true(phc_follow_locked(r.pf));
	rig_free(&r);
}

/* A PHC that cannot be opened (or adjusted) is FAULTY with the reason; the others go on. */
static void test_faulty(void **state)
{
	const double freq[NPHC] = { 0, 1000, 2000 };
	const ns_t off[NPHC] = { 0, 0, 0 };
	const int targets[] = { 1, 2 };
	struct rig r;

	(void) state;
	rig_init(&r, freq, off, NULL);
	r.open_error[2] = -EACCES;
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 2), -EACCES);
	assert_int_equal(rig_f(&r, 2)->state, PHC_FOLLOWER_FAULTY);
	assert_int_equal(rig_f(&r, 2)->error_code, -EACCES);
	for (int k = 0; k < 8 * 60; k++) {
		assert_int_equal(phc_follow_tick(r.pf), -EACCES);
		rig_advance(&r, INTERVAL_NS);
	}
	assert_int_equal(rig_f(&r, 1)->state, PHC_FOLLOWER_LOCKED);
	assert_false(phc_follow_locked(r.pf));
	/* retried at the next set */
	r.open_error[2] = 0;
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 2), 0);
	assert_int_equal(rig_f(&r, 2)->error_code, 0);
	rig_run(&r, 60);
	assert_true(phc_follow_locked(r.pf));
	/* a target leaves the instance: closed */
	assert_int_equal(phc_follow_set(r.pf, 0, targets, 1), 0);
	assert_null(phc_follow_find(r.pf, 2));
	assert_int_equal(r.open, 1);
	rig_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converge_slew),  cmocka_unit_test(test_converge_step),
		cmocka_unit_test(test_no_step_policy), cmocka_unit_test(test_role_change),
		cmocka_unit_test(test_holdover),       cmocka_unit_test(test_max_offset_jump),
		cmocka_unit_test(test_faulty),	       cmocka_unit_test(test_realtime_source),
		cmocka_unit_test(test_pin_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
