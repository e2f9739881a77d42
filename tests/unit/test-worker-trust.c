// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon/worker-trust: what the supervisor believes of a worker's reports (issue 17, finding 3). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/worker-trust.h"

#define SEC UINT64_C(1000000)

static const struct worker_trust_limits servo_limits = { .may_run_servo = true,
							 .max_frequency_ppb = 500000 };
static const struct worker_trust_limits system_limits = { .may_run_servo = false,
							  .max_frequency_ppb = 500000 };

static const struct worker_trust_served none = { .valid = false };

static struct ipc_status status(enum port_state st, enum servo_state servo, double freq)
{
	return (struct ipc_status){ .port_state = st, .servo_state = servo, .freq_ppb = freq };
}

/* SLAVE (or UNCALIBRATED) only as recommended, and for a grace after S1 is taken back. */
static void test_slave_only_when_recommended(void **state)
{
	struct worker_trust t;
	struct ipc_status s = status(PORT_STATE_SLAVE, SERVO_LOCKED, 10);
	struct ipc_status u = status(PORT_STATE_UNCALIBRATED, SERVO_UNLOCKED, 0);
	struct ipc_status m = status(PORT_STATE_MASTER, SERVO_UNLOCKED, 0);

	worker_trust_reset(&t);
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &s, false, 10 * SEC));
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &u, false, 10 * SEC));
	assert_null(worker_trust_check_status(&t, &servo_limits, &m, false, 10 * SEC));
	assert_false(worker_trust_slave(&t, 10 * SEC));
	worker_trust_recommended(&t, BMCA_DECISION_M1, 10 * SEC);
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &s, false, 11 * SEC));
	worker_trust_recommended(&t, BMCA_DECISION_S1, 12 * SEC);
	assert_true(worker_trust_slave(&t, 12 * SEC));
	assert_null(worker_trust_check_status(&t, &servo_limits, &s, false, 13 * SEC));
	/* taken back: what was on its way still says SLAVE for a while */
	worker_trust_recommended(&t, BMCA_DECISION_M1, 20 * SEC);
	assert_null(worker_trust_check_status(&t, &servo_limits, &s, false, 22 * SEC));
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &s, false, 24 * SEC));
	assert_false(worker_trust_slave(&t, 24 * SEC));
	/* a designated slave (BMCA noop) is SLAVE by configuration, whatever was recommended */
	t.static_slave = true;
	assert_null(worker_trust_check_status(&t, &servo_limits, &s, false, 60 * SEC));
	t.static_slave = false;
	/* a new worker starts with nothing granted */
	worker_trust_recommended(&t, BMCA_DECISION_S1, 30 * SEC);
	worker_trust_reset(&t);
	assert_false(worker_trust_slave(&t, 30 * SEC));
}

/* Values no honest worker reports. */
static void test_impossible_values(void **state)
{
	struct worker_trust t;
	struct ipc_status s;
	struct ipc_clock_state cs = { .raw_ns = 1, .local_ns = 2, .rate_ppb = 100 };

	worker_trust_reset(&t);
	worker_trust_recommended(&t, BMCA_DECISION_S1, 0);
	/* a port without a servo (clock_backend system, free_running) is never LOCKED */
	s = status(PORT_STATE_SLAVE, SERVO_LOCKED, 0);
	assert_non_null(worker_trust_check_status(&t, &system_limits, &s, false, SEC));
	s = status(PORT_STATE_SLAVE, SERVO_UNLOCKED, 0);
	s.servo_stable = true;
	assert_non_null(worker_trust_check_status(&t, &system_limits, &s, false, SEC));
	s = status(PORT_STATE_SLAVE, SERVO_UNLOCKED, 0);
	assert_null(worker_trust_check_status(&t, &system_limits, &s, false, SEC));
	/* frequencies beyond the clamp, or not numbers */
	s = status(PORT_STATE_SLAVE, SERVO_LOCKED, 500000);
	assert_null(worker_trust_check_status(&t, &servo_limits, &s, false, SEC));
	s = status(PORT_STATE_SLAVE, SERVO_LOCKED, -600000);
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &s, false, SEC));
	s = status(PORT_STATE_SLAVE, SERVO_LOCKED, NAN);
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &s, false, SEC));
	/* clock states: from the recommended SLAVE with a servo, within the clamp */
	assert_null(worker_trust_check_clock_state(&t, &servo_limits, &none, &cs, 0, SEC));
	assert_non_null(worker_trust_check_clock_state(&t, &system_limits, &none, &cs, 0, SEC));
	cs.rate_ppb = 1e8;
	assert_non_null(worker_trust_check_clock_state(&t, &servo_limits, &none, &cs, 0, SEC));
	cs.rate_ppb = 100;
	worker_trust_reset(&t);
	assert_non_null(worker_trust_check_clock_state(&t, &servo_limits, &none, &cs, 0, SEC));
}

/*
 * Issue 31, finding 3: a clock state is judged by the instance's step policy against the one
 * served: the first is a first step (unbounded, as for any servo), and so is any before the
 * port's servo said LOCKED; after, a step beyond
 * max_offset_jump is a lie (+1 year, and just past the bound), one within it is not, nor is the
 * drift of the served state's own rate; without a bound (max_offset_jump 0), nothing is refused.
 */
static void test_clock_state_step_policy(void **state)
{
	const ns_t now = INT64_C(1764500000) * NS_PER_SEC, year = INT64_C(31536000) * NS_PER_SEC;
	struct worker_trust_limits l = servo_limits;
	struct worker_trust_served served = { .valid = true };
	struct ipc_clock_state cs = { .raw_ns = now, .local_ns = now + 37 * NS_PER_SEC };
	struct worker_trust t;

	worker_trust_reset(&t);
	worker_trust_recommended(&t, BMCA_DECISION_S1, 0);
	servo_config_default(&l.policy, true);
	l.policy.max_offset_jump = NS_PER_SEC;
	/* the first: 37 s (TAI over UTC) or a year, a first step either way */
	assert_null(worker_trust_check_clock_state(&t, &l, &none, &cs, now, SEC));
	cs.local_ns = now + year;
	assert_null(worker_trust_check_clock_state(&t, &l, &none, &cs, now, SEC));

	served.state = (struct ipc_clock_state){ .raw_ns = now - 10 * NS_PER_SEC,
						 .local_ns = now - 10 * NS_PER_SEC +
							     37 * NS_PER_SEC,
						 .rate_ppb = 500 };
	/* before its servo said LOCKED, a port's states are its first steps: neither served nor
	 * bounded (a restarted worker's virtual clock starts afresh) */
	cs = (struct ipc_clock_state){ .raw_ns = now, .local_ns = now };
	assert_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	{
		struct ipc_status locked = status(PORT_STATE_SLAVE, SERVO_LOCKED, 0);

		assert_null(worker_trust_check_status(&t, &l, &locked, true, SEC));
		assert_true(t.servo_locked);
	}
	/* the served state 10 s on at +500 ppb: 37 s + 5 us now */
	cs = (struct ipc_clock_state){ .raw_ns = now, .local_ns = now + 37 * NS_PER_SEC + 5000 };
	assert_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	/* a step of 1 s - 1 us from there, then 1 s + 1 us */
	cs.local_ns += NS_PER_SEC - 1000;
	assert_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	cs.local_ns += 2000;
	assert_non_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	cs.local_ns = now + 37 * NS_PER_SEC + year;
	assert_string_equal(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC),
			    "sent a clock state that steps beyond max_offset_jump");
	cs.local_ns = now + 37 * NS_PER_SEC - year;
	assert_non_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	/* the extremes of int64 neither wrap nor pass */
	cs = (struct ipc_clock_state){ .raw_ns = INT64_MIN, .local_ns = INT64_MAX };
	assert_non_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	cs = (struct ipc_clock_state){ .raw_ns = INT64_MAX, .local_ns = INT64_MIN };
	assert_non_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
	/* no sanity bound configured: a servo would take it, so may a sibling */
	l.policy.max_offset_jump = 0;
	cs = (struct ipc_clock_state){ .raw_ns = now, .local_ns = now + year };
	assert_null(worker_trust_check_clock_state(&t, &l, &served, &cs, now, SEC));
}

/*
 * Issue 31, finding 2: an honest worker sends each kind of news once a tick at most; at that
 * rate, for a minute, nothing is a flood; nor is the backlog a 20 s stall of the supervisor
 * leaves; a worker sending more is found out, at once when it bursts; the status page is not
 * counted; each kind has its own budget.
 */
static void test_flood(void **state)
{
	const uint64_t tick = IPC_NEWS_TICK_NS / 1000;
	struct worker_trust t;
	struct ipc_status m = status(PORT_STATE_MASTER, SERVO_UNLOCKED, 0);
	uint64_t now = 5 * SEC;
	int k;

	assert_int_equal(WORKER_TRUST_NEWS_PER_SEC, 20);
	worker_trust_reset(&t);
	for (k = 0; k < 600; k++, now += tick) {
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, true, now));
		assert_null(worker_trust_check_news(&t, WORKER_NEWS_PRIORITY, now));
		assert_null(worker_trust_check_news(&t, WORKER_NEWS_GM_SETTINGS, now));
	}
	/* 20 s of the supervisor's own stall: the honest backlog, read at once */
	now += 20 * SEC;
	for (k = 0; k < 200; k++) {
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, true, now));
	}
	/* the status page, any number of times */
	for (k = 0; k < 1000; k++) {
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, false, now));
	}
	/* more than the rate: dry within the burst, whatever the other kinds did */
	worker_trust_reset(&t);
	for (k = 0; k < WORKER_TRUST_NEWS_BURST; k++) {
		assert_null(worker_trust_check_news(&t, WORKER_NEWS_PRIORITY, now));
	}
	assert_string_equal(worker_trust_check_news(&t, WORKER_NEWS_PRIORITY, now),
			    "flooded the supervisor with PRIORITY_REQUEST messages");
	assert_null(worker_trust_check_status(&t, &servo_limits, &m, true, now));
	/* sustained at three times the honest rate: found out within a minute */
	worker_trust_reset(&t);
	for (k = 0; k < 1800; k++, now += tick / 3) {
		if (worker_trust_check_status(&t, &servo_limits, &m, true, now)) {
			break;
		}
	}
	assert_true(k > WORKER_TRUST_NEWS_BURST && k < 1800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slave_only_when_recommended),
		cmocka_unit_test(test_impossible_values),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_clock_state_step_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
