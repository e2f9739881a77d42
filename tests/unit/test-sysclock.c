// SPDX-License-Identifier: GPL-2.0-or-later
/* System clock discipline on a simulated kernel clock: servo, UTC offset, leaps, maxerror. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/doubles/sysclock-sim.h"

/* 2017-01-01 00:00:00 UTC, after the leap second inserted at the end of 2016 (TAI-UTC 36 -> 37). */
#define MIDNIGHT_2017 INT64_C(1483228800)
#define SAMPLE_ERROR_NS 100

struct rig {
	struct sysclock_sim *sim;
	struct sysclock *sc;
	ns_t tai_minus_true; /* the reference (TAI) is true time plus this */
	struct timePropertiesDS tp;
	int last; /* return of the last sysclock_sample */
};

static const struct timePropertiesDS tp_tai37 = {
	.currentUtcOffset = 37,
	.currentUtcOffsetValid = true,
	.ptpTimescale = true,
};

/* The kernel clock starts real_error off true UTC and runs freq_error_ppb fast. */
static void rig_init(struct rig *r, ns_t start_utc, ns_t real_error, double freq_error_ppb,
		     bool cap)
{
	struct sysclock_sim_config sc = {
		.start_real = start_utc,
		.freq_error_ppb = freq_error_ppb,
		.cap_sys_time = cap,
	};
	struct sysclock_config cfg;

	sysclock_config_default(&cfg);
	assert_int_equal(sysclock_sim_new(&sc, &r->sim), 0);
	assert_int_equal(sysclock_new(&sysclock_sim_ops, r->sim, &cfg, &r->sc), 0);
	r->tp = tp_tai37;
	/* REALTIME starts at true time: put the reference real_error behind it, on TAI */
	r->tai_minus_true = (ns_t) r->tp.currentUtcOffset * NS_PER_SEC - real_error;
}

static void rig_free(struct rig *r)
{
	sysclock_free(r->sc);
	sysclock_sim_free(r->sim);
}

static ns_t true_utc(const struct rig *r, int utc_offset)
{
	return sysclock_sim_true(r->sim) + r->tai_minus_true - (ns_t) utc_offset * NS_PER_SEC;
}

static void rig_sample(struct rig *r)
{
	struct sysclock_sample s = {
		.sys = sysclock_sim_real(r->sim),
		.ref = sysclock_sim_true(r->sim) + r->tai_minus_true,
		.error = SAMPLE_ERROR_NS,
	};

	r->last = sysclock_sample(r->sc, &s, &r->tp);
}

/* n samples, one a second. */
static void rig_run(struct rig *r, int n)
{
	for (int i = 0; i < n; i++) {
		sysclock_sim_advance(r->sim, NS_PER_SEC);
		rig_sample(r);
	}
}

static bool kernel_synced(struct rig *r)
{
	bool synced = false;

	assert_int_equal(sysclock_kernel_synchronized(r->sc, &synced), 0);
	return synced;
}

static struct timex kernel(struct rig *r)
{
	struct timex tx;

	sysclock_sim_read(r->sim, &tx);
	return tx;
}

static void assert_within(ns_t v, ns_t bound)
{
	if (llabs(v) > bound) {
		fail_msg("expected |%lld| <= %lld ns", (long long) v, (long long) bound);
	}
}

/* The simulated kernel itself: maxerror grows 500 us/s and turns into STA_UNSYNC at 16 s. */
static void test_sim_kernel(void **state)
{
	struct sysclock_sim_config cfg = { .start_real = 100 * NS_PER_SEC, .cap_sys_time = true };
	struct sysclock_sim *sim;
	struct timex tx = { .modes = ADJ_STATUS | ADJ_MAXERROR, .status = 0, .maxerror = 1000 };

	assert_int_equal(sysclock_sim_new(&cfg, &sim), 0);
	assert_int_equal(sysclock_sim_read(sim, &tx), TIME_ERROR);
	tx = (struct timex){ .modes = ADJ_STATUS | ADJ_MAXERROR, .status = 0, .maxerror = 1000 };
	assert_int_equal(sysclock_sim_ops.adjtime(sim, &tx), TIME_OK);
	sysclock_sim_advance(sim, 10 * NS_PER_SEC);
	assert_int_equal(sysclock_sim_read(sim, &tx), TIME_OK);
	assert_int_equal(tx.maxerror, 1000 + 10 * 500);
	sysclock_sim_advance(sim, 40000 * NS_PER_SEC);
	assert_int_equal(sysclock_sim_read(sim, &tx), TIME_ERROR);
	assert_true(tx.status & STA_UNSYNC);
	assert_int_equal(tx.maxerror, 16000000);
	sysclock_sim_free(sim);
}

/* From 0.5 s off and 50 ppm fast: one step, then locked within 1 us, kernel synchronized. */
static void test_servo_locks(void **state)
{
	struct rig r;

	rig_init(&r, 1700000000 * NS_PER_SEC, NS_PER_SEC / 2, 50000, true);
	assert_false(kernel_synced(&r));
	rig_run(&r, 2);
	assert_int_equal(r.sc->steps, 1);
	rig_run(&r, 30);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_int_equal(r.sc->steps, 1);
	assert_within(sysclock_sim_real(r.sim) - true_utc(&r, 37), 1000);
	assert_true(kernel_synced(&r));
	/* -50 ppm in timex units, to within 0.1 ppm */
	assert_within(kernel(&r).freq + 50 * 65536, 6554);
	assert_int_equal(kernel(&r).tai, 37);
	assert_int_equal(r.sc->conflict, 0);
	rig_free(&r);
}

/*
 * Finding 2 of issue 17: the system clock, locked, is handed a new grandmaster a day off. The
 * sysclock the follower rebuilds for it (first_step_taken: this clock locked before) never takes
 * a first step, and with max_offset_jump the day is refused: HOLDOVER, the kernel clock
 * neither stepped nor slewed, and after holdover_timeout without a sane sample, STA_UNSYNC.
 */
static void test_policy_new_grandmaster(void **state)
{
	struct sysclock_config cfg;
	struct rig r;
	ns_t err;

	rig_init(&r, 1700000000 * NS_PER_SEC, NS_PER_SEC / 2, 50000, true);
	rig_run(&r, 30);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_int_equal(r.sc->steps, 1);
	assert_true(r.sc->locked_once);

	/* the parent changed: a new sysclock, as the follower builds it */
	sysclock_free(r.sc);
	sysclock_config_default(&cfg);
	cfg.servo.max_offset_jump = NS_PER_SEC;
	cfg.servo.first_step_taken = true;
	assert_int_equal(sysclock_new(&sysclock_sim_ops, r.sim, &cfg, &r.sc), 0);
	r.tai_minus_true += INT64_C(86326) * NS_PER_SEC;
	err = sysclock_sim_real(r.sim) - sysclock_sim_true(r.sim);
	rig_run(&r, 20);
	assert_int_equal(r.last, SYSCLOCK_HOLDOVER);
	assert_int_equal(r.sc->steps, 0);
	assert_int_equal(r.sc->servo->refused, 20);
	/* 20 s on the learnt frequency: well within a millisecond of where it was */
	assert_within(sysclock_sim_real(r.sim) - sysclock_sim_true(r.sim) - err, 100000);
	assert_within(kernel(&r).freq + 50 * 65536, 65536);
	assert_false(r.sc->state == SYSCLOCK_LOCKED);
	/* refused samples are no samples: holdover runs out, the kernel is told */
	for (int i = 0; i < 61; i++) {
		sysclock_sim_advance(r.sim, NS_PER_SEC);
		rig_sample(&r);
		sysclock_check(r.sc);
	}
	assert_int_equal(r.sc->state, SYSCLOCK_UNSYNC);
	assert_true(kernel(&r).status & STA_UNSYNC);
	assert_int_equal(r.sc->steps, 0);

	/* without first_step_taken and without the bound, the old behaviour: a step by a day */
	sysclock_free(r.sc);
	sysclock_config_default(&cfg);
	assert_int_equal(sysclock_new(&sysclock_sim_ops, r.sim, &cfg, &r.sc), 0);
	rig_run(&r, 3);
	assert_int_equal(r.sc->steps, 1);
	rig_free(&r);
}

/* The invariant, over a spread of starts: converges within the sync threshold, one step at most. */
static void test_servo_converges_from_any_start(void **state)
{
	static const struct {
		ns_t error;
		double ppb;
	} starts[] = {
		{ 0, 0 },
		{ 15000, -100000 },
		{ -3 * NS_PER_SEC, 400000 },
		{ 999, 12345 },
		{ 86400 * NS_PER_SEC, -300000 },
	};

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		struct rig r;

		rig_init(&r, 1600000000 * NS_PER_SEC, starts[i].error, starts[i].ppb, true);
		rig_run(&r, 60);
		if (r.last != SYSCLOCK_LOCKED || r.sc->steps > 1) {
			fail_msg("start %zu: expected LOCKED after <= 1 step, got %s after %llu", i,
				 sysclock_state_to_string(r.last),
				 (unsigned long long) r.sc->steps);
		}
		assert_within(sysclock_sim_real(r.sim) - true_utc(&r, 37), 1000);
		rig_free(&r);
	}
}

/* ARB timescale: the reference is taken as it is; no TAI offset is handed to the kernel. */
static void test_utc_offset(void **state)
{
	struct rig r;

	rig_init(&r, 1700000000 * NS_PER_SEC, 0, 0, true);
	r.tp.ptpTimescale = false;
	/* the reference then is UTC-like already */
	r.tai_minus_true = 0;
	rig_run(&r, 20);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_within(sysclock_sim_real(r.sim) - sysclock_sim_true(r.sim), 1000);
	assert_int_equal(kernel(&r).tai, 0);
	rig_free(&r);

	/* PTP timescale with currentUtcOffsetValid false: offset applied, TAI left alone */
	rig_init(&r, 1700000000 * NS_PER_SEC, 0, 0, true);
	r.tp.currentUtcOffsetValid = false;
	rig_run(&r, 20);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_within(sysclock_sim_real(r.sim) - true_utc(&r, 37), 1000);
	assert_int_equal(kernel(&r).tai, 0);
	assert_int_equal(r.sc->utc_offset, 37);
	rig_free(&r);
}

/*
 * A leap second inserted at the end of 2016, with the master switching its flags late_s seconds
 * after midnight (late masters are corrected): STA_INS before, the kernel repeats 23:59:59, no
 * step, samples around midnight dropped, and STA_INS gone after.
 */
static void run_leap_insert(int late_s)
{
	struct rig r;
	int drops = 0;

	rig_init(&r, (MIDNIGHT_2017 - 120) * NS_PER_SEC, 0, 2000, true);
	r.tp.currentUtcOffset = 36;
	r.tp.leap61 = true;
	r.tai_minus_true = 36 * NS_PER_SEC;
	rig_run(&r, 60);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_true(kernel(&r).status & STA_INS);
	assert_int_equal(r.sc->leap_set, 1);
	for (int i = 0; i < 120; i++) {
		sysclock_sim_advance(r.sim, NS_PER_SEC);
		/* true is continuous: UTC 00:00:00 is true time MIDNIGHT + 1 s (the inserted 61st)
		 */
		if (sysclock_sim_true(r.sim) >= (MIDNIGHT_2017 + 1 + late_s) * NS_PER_SEC) {
			r.tp.currentUtcOffset = 37;
			r.tp.leap61 = false;
		}
		rig_sample(&r);
		drops += r.last == -EAGAIN;
		if ((r.last < 0 && r.last != -EAGAIN) || r.sc->conflict) {
			fail_msg("sample %d: expected no error, no conflict; got %d, conflict %#x",
				 i, r.last, r.sc->conflict);
		}
	}
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_true(drops >= 1 && drops <= 3);
	assert_int_equal(r.sc->steps, 0);
	assert_false(kernel(&r).status & (STA_INS | STA_DEL));
	assert_int_equal(r.sc->utc_offset, 37);
	assert_int_equal(kernel(&r).tai, 37);
	/* after the leap, REALTIME is UTC with the new offset: 37 s behind TAI */
	assert_within(sysclock_sim_real(r.sim) - true_utc(&r, 37), 1000);
	assert_int_equal(r.sc->conflict, 0);
	assert_true(kernel_synced(&r));
	rig_free(&r);
}

static void test_leap_insert(void **state)
{
	run_leap_insert(0);
	run_leap_insert(5);
}

/* leap59: STA_DEL before midnight; the kernel skips 23:59:59, still no step. */
static void test_leap_delete(void **state)
{
	struct rig r;

	rig_init(&r, (MIDNIGHT_2017 - 120) * NS_PER_SEC, 0, 0, true);
	r.tp.leap59 = true;
	rig_run(&r, 60);
	assert_true(kernel(&r).status & STA_DEL);
	assert_false(kernel(&r).status & STA_INS);
	for (int i = 0; i < 120; i++) {
		sysclock_sim_advance(r.sim, NS_PER_SEC);
		if (sysclock_sim_true(r.sim) >= (MIDNIGHT_2017 - 1) * NS_PER_SEC) {
			r.tp.currentUtcOffset = 36;
			r.tp.leap59 = false;
		}
		rig_sample(&r);
		if (r.sc->conflict) {
			fail_msg("sample %d: the kernel's own leap taken for a conflict %#x", i,
				 r.sc->conflict);
		}
	}
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_int_equal(r.sc->steps, 0);
	assert_false(kernel(&r).status & STA_DEL);
	assert_within(sysclock_sim_real(r.sim) - true_utc(&r, 37) - NS_PER_SEC, 1000);
	rig_free(&r);
}

/* Flags too early or late are corrected as linuxptp does. */
static void test_leap_status_table(void **state)
{
	static const struct {
		int64_t sod;
		int leap_set, leap, utc_offset;
		int want_status, want_leap, want_offset;
	} cases[] = {
		{ 23 * 3600, 0, 1, 36, 1, 1, 36 },    /* announced in the evening: set */
		{ 23 * 3600, 0, -1, 37, -1, -1, 37 }, /* deletion announced */
		{ 23 * 3600, 1, 0, 37, 1, 1, 36 },    /* master updated early: undo its offset */
		{ 1 * 3600, 1, 1, 36, 0, 0, 37 },     /* master late after midnight: apply it */
		{ 1 * 3600, 1, 0, 37, 0, 0, 37 },     /* on time after midnight: clear */
		{ 12 * 3600, 0, 0, 37, 0, 0, 37 },    /* nothing */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int leap = cases[i].leap, off = cases[i].utc_offset;
		int st = sysclock_leap_status(MIDNIGHT_2017 + cases[i].sod, cases[i].leap_set,
					      &leap, &off);

		if (st != cases[i].want_status || leap != cases[i].want_leap ||
		    off != cases[i].want_offset) {
			fail_msg("case %zu: expected status %d leap %d offset %d, got %d %d %d", i,
				 cases[i].want_status, cases[i].want_leap, cases[i].want_offset, st,
				 leap, off);
		}
	}
	assert_true(sysclock_utc_ambiguous(MIDNIGHT_2017 - 1));
	assert_true(sysclock_utc_ambiguous(MIDNIGHT_2017));
	assert_false(sysclock_utc_ambiguous(MIDNIGHT_2017 + 1));
	assert_false(sysclock_utc_ambiguous(MIDNIGHT_2017 - 2));
}

/*
 * maxerror: small and refreshed while locked; once samples stop, HOLDOVER keeps the kernel
 * synchronized while maxerror grows 500 us/s; past holdover_timeout STA_UNSYNC is set.
 */
static void test_maxerror_holdover_unsync(void **state)
{
	struct rig r;
	long locked_max;

	rig_init(&r, 1700000000 * NS_PER_SEC, 2000, 10000, true);
	rig_run(&r, 30);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	locked_max = kernel(&r).maxerror;
	/* |offset| + error rounded up + 1, or esterror if larger: a few us, set at the last sample
	 */
	assert_in_range(locked_max, 1, 10);
	assert_true(locked_max >= sysclock_maxerror_us(r.sc->offset, SAMPLE_ERROR_NS));
	assert_in_range(kernel(&r).esterror, 1, 10);
	assert_true(locked_max >= kernel(&r).esterror);

	for (int i = 1; i <= 70; i++) {
		sysclock_sim_advance(r.sim, NS_PER_SEC);
		int st = sysclock_check(r.sc);

		/* (a second of slack at each boundary: the clocks run at the servo's rate) */
		if (i <= 4) {
			assert_int_equal(st, SYSCLOCK_LOCKED);
		} else if (i >= 6 && i <= 59) {
			assert_int_equal(st, SYSCLOCK_HOLDOVER);
			assert_true(kernel_synced(&r));
			assert_int_equal(kernel(&r).maxerror, locked_max + 500 * i);
		} else if (i >= 62) {
			assert_int_equal(st, SYSCLOCK_UNSYNC);
			assert_false(kernel_synced(&r));
			assert_true(kernel(&r).status & STA_UNSYNC);
		}
	}
	/* The master comes back: locked again, no second step needed after a minute of drift. */
	rig_run(&r, 30);
	assert_int_equal(r.last, SYSCLOCK_LOCKED);
	assert_true(kernel_synced(&r));
	rig_free(&r);
}

static void test_lost_reference(void **state)
{
	struct rig r;

	rig_init(&r, 1700000000 * NS_PER_SEC, 0, 0, true);
	rig_run(&r, 20);
	sysclock_lost_reference(r.sc);
	assert_int_equal(r.sc->state, SYSCLOCK_HOLDOVER);
	assert_int_equal(sysclock_check(r.sc), SYSCLOCK_HOLDOVER);
	rig_free(&r);
}

/* Without CAP_SYS_TIME the write fails with -EPERM, reported, and nothing changes. */
static void test_eperm(void **state)
{
	struct rig r;

	rig_init(&r, 1700000000 * NS_PER_SEC, NS_PER_SEC, 0, false);
	rig_run(&r, 5);
	assert_int_equal(r.last, -EPERM);
	assert_int_equal(r.sc->last_error, -EPERM);
	assert_int_equal(r.sc->state, SYSCLOCK_UNSYNC);
	assert_true(kernel(&r).status & STA_UNSYNC);
	assert_int_equal(kernel(&r).freq, 0);
	rig_free(&r);
}

/* Someone else writing frequency, status, offset or stepping the clock is seen. */
static void test_conflict(void **state)
{
	static const struct {
		struct timex tx;
		unsigned int want;
	} intruders[] = {
		{ { .modes = ADJ_FREQUENCY, .freq = 123456 }, SYSCLOCK_CONFLICT_FREQ },
		{ { .modes = ADJ_STATUS, .status = STA_PLL }, SYSCLOCK_CONFLICT_STATUS },
		{ { .modes = ADJ_OFFSET, .offset = 5000 }, SYSCLOCK_CONFLICT_OFFSET },
		{ { .modes = ADJ_SETOFFSET | ADJ_NANO,
		    .time = { .tv_sec = 0, .tv_usec = 5000000 } },
		  SYSCLOCK_CONFLICT_STEP },
	};

	for (size_t i = 0; i < sizeof(intruders) / sizeof(intruders[0]); i++) {
		struct rig r;
		struct timex tx = intruders[i].tx;

		rig_init(&r, 1700000000 * NS_PER_SEC, NS_PER_SEC, 0, true);
		rig_run(&r, 20);
		assert_int_equal(sysclock_check(r.sc), SYSCLOCK_LOCKED);
		assert_int_equal(r.sc->conflict, 0);
		assert_true(sysclock_sim_ops.adjtime(r.sim, &tx) >= 0);
		sysclock_sim_advance(r.sim, NS_PER_SEC / 2);
		sysclock_check(r.sc);
		if (!(r.sc->conflict & intruders[i].want)) {
			fail_msg("intruder %zu: expected conflict bit %#x, got %#x", i,
				 intruders[i].want, r.sc->conflict);
		}
		rig_free(&r);
	}
}

static void test_names(void **state)
{
	assert_string_equal(sysclock_state_to_string(SYSCLOCK_LOCKED), "LOCKED");
	assert_string_equal(sysclock_state_to_string(SYSCLOCK_UNSYNC), "UNSYNC");
	assert_null(sysclock_state_to_string((enum sysclock_state) 42));
	assert_int_equal(sysclock_maxerror_us(0, 0), 1);
	assert_int_equal(sysclock_maxerror_us(-1001, 0), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_kernel),
		cmocka_unit_test(test_servo_locks),
		cmocka_unit_test(test_policy_new_grandmaster),
		cmocka_unit_test(test_servo_converges_from_any_start),
		cmocka_unit_test(test_utc_offset),
		cmocka_unit_test(test_leap_insert),
		cmocka_unit_test(test_leap_delete),
		cmocka_unit_test(test_leap_status_table),
		cmocka_unit_test(test_maxerror_holdover_unsync),
		cmocka_unit_test(test_lost_reference),
		cmocka_unit_test(test_eperm),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
