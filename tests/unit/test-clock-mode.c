// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/clock-mode.c: every transition of the holdover machine, the class tables of
 * G.8275.1 and IEEE 1588, and that no input sequence announces a better mode before the lock time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>

#include "ptp/clock-mode.h"
#include "ptp/ds.h"

#define S NS_PER_SEC

static const struct clock_mode_input good = { .reference_ok = true,
					      .offset_rms_ns = 20,
					      .freq_sigma_ppb = 1 };
static const struct clock_mode_input lost = { .reference_ok = false };

static struct clock_mode_config cfg(void)
{
	struct clock_mode_config c;

	clock_mode_config_default(&c);
	c.holdover_time = 100 * S;
	c.holdover_max_error = 1000;
	c.out_of_spec_time = 200 * S;
	c.lock_time = 10 * S;
	return c;
}

/* Feed in every second from *t to until (exclusive); return how many steps changed the mode. */
static int run(struct clock_mode_fsm *f, const struct clock_mode_config *c,
	       const struct clock_mode_input *in, ns_t *t, ns_t until)
{
	int changes = 0;

	for (; *t < until; *t += S) {
		changes += clock_mode_step(f, c, in, *t);
	}
	return changes;
}

/* Locked after lock_time of a steady reference, not one second earlier. */
static void test_free_run_to_locked(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;
	ns_t t = 0;

	(void) state;
	clock_mode_init(&f, 0);
	assert_int_equal(f.mode, CLOCK_MODE_FREE_RUN);
	assert_int_equal(run(&f, &c, &lost, &t, 5 * S), 0);
	assert_int_equal(run(&f, &c, &good, &t, 5 * S + c.lock_time), 0);
	assert_int_equal(f.mode, CLOCK_MODE_FREE_RUN);
	assert_string_equal(f.reason, "reference not yet steady for the lock time");
	assert_true(clock_mode_step(&f, &c, &good, t));
	assert_int_equal(f.mode, CLOCK_MODE_LOCKED);
	assert_int_equal(f.since, t);
	assert_true(f.te_ns == 0);
}

static void lock(struct clock_mode_fsm *f, const struct clock_mode_config *c, ns_t *t)
{
	clock_mode_init(f, *t);
	run(f, c, &good, t, *t + c->lock_time + S);
	assert_int_equal(f->mode, CLOCK_MODE_LOCKED);
}

/* Locked -> holdover within spec at once -> beyond it at holdover_time -> free-run after. */
static void test_holdover_by_time(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;
	ns_t t = 0, lost_at;

	(void) state;
	lock(&f, &c, &t);
	lost_at = t;
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_IN_SPEC);
	assert_int_equal(f.ref_lost, lost_at);
	t += S;
	/* te0 20 ns + 1 ppb * 99 s = 119 ns: within the 1 us bound until the time runs out. */
	assert_int_equal(run(&f, &c, &lost, &t, lost_at + c.holdover_time), 0);
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_IN_SPEC);
	assert_true(f.te_ns > 100 && f.te_ns < 130);
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC);
	assert_string_equal(f.reason, "reference lost, holdover time exceeded");
	t += S;
	assert_int_equal(run(&f, &c, &lost, &t, lost_at + c.holdover_time + c.out_of_spec_time), 0);
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_FREE_RUN);
	assert_string_equal(f.reason, "reference lost, holdover over");
	t += S;
	assert_int_equal(run(&f, &c, &lost, &t, t + 1000 * S), 0);
}

/* A poor frequency estimate ends holdover within spec when the estimate crosses the bound. */
static void test_holdover_by_error(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_input noisy = good;
	struct clock_mode_fsm f;
	ns_t t = 0, lost_at;

	(void) state;
	noisy.freq_sigma_ppb = 50; /* 1 us after 19.6 s with te0 20 ns */
	clock_mode_init(&f, 0);
	run(&f, &c, &noisy, &t, c.lock_time + S);
	assert_int_equal(f.mode, CLOCK_MODE_LOCKED);
	lost_at = t;
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_IN_SPEC);
	t += S;
	assert_int_equal(run(&f, &c, &lost, &t, lost_at + 21 * S), 1);
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC);
	assert_int_equal(f.since, lost_at + 20 * S);
	assert_string_equal(f.reason, "reference lost, time error beyond the bound");
	/* out of specification for out_of_spec_time from there, not from the loss */
	t += S;
	assert_int_equal(run(&f, &c, &lost, &t, f.since + c.out_of_spec_time), 0);
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC);
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_FREE_RUN);
	/* The drift term: d * t^2 / 2. */
	assert_true(clock_mode_time_error(0, 0, 2, 10 * S) == 100);
	assert_true(clock_mode_time_error(-5, -1, 0, 3 * S) == 8);
	assert_true(clock_mode_time_error(7, 1, 1, -S) == 7);
}

/* out_of_spec_time 0: out of specification for good, never free-run. */
static void test_no_free_run(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;
	ns_t t = 0;

	(void) state;
	c.out_of_spec_time = 0;
	lock(&f, &c, &t);
	run(&f, &c, &lost, &t, t + 100000 * S);
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC);
}

/* holdover_time 0: straight out of specification when the reference goes. */
static void test_no_holdover(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;
	ns_t t = 0;

	(void) state;
	c.holdover_time = 0;
	lock(&f, &c, &t);
	assert_true(clock_mode_step(&f, &c, &lost, t));
	assert_int_equal(f.mode, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC);
}

/*
 * Back from holdover (in or out of spec) and from free-run after holdover: only after lock_time
 * of a steady reference; a flapping one (good one second in two) never locks; the holdover clock
 * keeps running from the first loss, not from the last flap.
 */
static void test_relock_hysteresis(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;
	ns_t t = 0, lost_at, end;

	(void) state;
	for (int from = CLOCK_MODE_HOLDOVER_IN_SPEC; from <= CLOCK_MODE_HOLDOVER_OUT_OF_SPEC + 1;
	     from++) {
		t = 0;
		lock(&f, &c, &t);
		lost_at = t;
		if (from == CLOCK_MODE_HOLDOVER_IN_SPEC) {
			end = t + 30 * S;
		} else if (from == CLOCK_MODE_HOLDOVER_OUT_OF_SPEC) {
			end = t + c.holdover_time + 30 * S;
		} else {
			end = t + c.holdover_time + c.out_of_spec_time + 30 * S;
		}
		run(&f, &c, &lost, &t, end);
		enum clock_mode was = f.mode;

		assert_int_equal(was, from > CLOCK_MODE_HOLDOVER_OUT_OF_SPEC ? CLOCK_MODE_FREE_RUN
									     : from);
		for (int k = 0; k < 40; k++, t += S) {
			clock_mode_step(&f, &c, k % 2 ? &lost : &good, t);
			assert_int_not_equal(f.mode, CLOCK_MODE_LOCKED);
		}
		assert_int_equal(f.ref_lost, lost_at);
		ns_t back = t;

		assert_int_equal(run(&f, &c, &good, &t, back + c.lock_time), 0);
		assert_int_not_equal(f.mode, CLOCK_MODE_LOCKED);
		assert_true(clock_mode_step(&f, &c, &good, t));
		assert_int_equal(f.mode, CLOCK_MODE_LOCKED);
		assert_int_equal(f.ref_lost, -1);
	}
}

/* ITU-T G.8275.1 Table 2 and IEEE 1588-2019 Table 4, for each role. */
static void test_quality_tables(void **state)
{
	static const struct {
		enum clock_mode_classes classes;
		enum clock_mode_role role;
		uint8_t cls[4]; /* free-run, locked, in spec, out of spec */
	} want[] = {
		{ CLOCK_MODE_CLASSES_G8275, CLOCK_MODE_ROLE_GRANDMASTER, { 248, 6, 7, 150 } },
		{ CLOCK_MODE_CLASSES_G8275, CLOCK_MODE_ROLE_BOUNDARY, { 248, 248, 135, 165 } },
		{ CLOCK_MODE_CLASSES_IEEE1588, CLOCK_MODE_ROLE_GRANDMASTER, { 248, 6, 7, 52 } },
		{ CLOCK_MODE_CLASSES_IEEE1588, CLOCK_MODE_ROLE_BOUNDARY, { 248, 248, 248, 248 } },
	};
	static const bool traceable[4] = { false, true, true, false };
	struct clock_mode_config c;

	(void) state;
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		clock_mode_config_default(&c);
		c.classes = want[k].classes;
		c.role = want[k].role;
		c.gm_out_of_spec_class = 150;
		for (int m = 0; m <= CLOCK_MODE_MAX; m++) {
			struct clock_mode_quality q = clock_mode_quality(&c, m);

			if (q.clockClass != want[k].cls[m] || q.timeTraceable != traceable[m] ||
			    q.frequencyTraceable != traceable[m]) {
				fail_msg("table %zu mode %s: expected class %u traceable %d, got "
					 "%u %d/%d",
					 k, clock_mode_to_string(m), want[k].cls[m], traceable[m],
					 q.clockClass, q.timeTraceable, q.frequencyTraceable);
			}
		}
	}
	/* Free-run is the configured class, whatever it is. */
	clock_mode_config_default(&c);
	c.configured_class = 187;
	assert_int_equal(clock_mode_quality(&c, CLOCK_MODE_FREE_RUN).clockClass, 187);
}

/*
 * Invariant over random inputs: the machine enters LOCKED only after lock_time of good inputs
 * without a break, and leaves LOCKED on the first bad one.
 */
static void test_never_better_early(void **state)
{
	struct clock_mode_config c = cfg();
	struct clock_mode_fsm f;

	(void) state;
	srand(1588);
	for (int run_ = 0; run_ < 200; run_++) {
		ns_t t = 0, good_since = -1;

		clock_mode_init(&f, 0);
		for (int k = 0; k < 600; k++, t += S) {
			/* Runs of good inputs of random length, so some reach the lock time. */
			bool ok = (rand() % 100) < (k % 60 < 30 ? 97 : 40);
			enum clock_mode was = f.mode;

			clock_mode_step(&f, &c, ok ? &good : &lost, t);
			good_since = ok ? (good_since < 0 ? t : good_since) : -1;
			if (f.mode == CLOCK_MODE_LOCKED && was != CLOCK_MODE_LOCKED) {
				assert_true(good_since >= 0 && t - good_since >= c.lock_time);
			}
			if (!ok) {
				assert_int_not_equal(f.mode, CLOCK_MODE_LOCKED);
			}
		}
	}
}

static void test_names(void **state)
{
	enum clock_mode m;

	(void) state;
	for (int k = 0; k <= CLOCK_MODE_MAX; k++) {
		assert_non_null(clock_mode_to_string(k));
		assert_int_equal(clock_mode_from_string(clock_mode_to_string(k), &m), 0);
		assert_int_equal(m, k);
	}
	assert_null(clock_mode_to_string(CLOCK_MODE_MAX + 1));
	assert_int_equal(clock_mode_from_string("LOCKED", &m), -EINVAL);
	assert_int_equal(clock_mode_from_string(NULL, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_run_to_locked),
		cmocka_unit_test(test_holdover_by_time),
		cmocka_unit_test(test_holdover_by_error),
		cmocka_unit_test(test_no_free_run),
		cmocka_unit_test(test_no_holdover),
		cmocka_unit_test(test_relock_hysteresis),
		cmocka_unit_test(test_quality_tables),
		cmocka_unit_test(test_never_better_early),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
