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
	assert_null(worker_trust_check_clock_state(&t, &servo_limits, &cs, SEC));
	assert_non_null(worker_trust_check_clock_state(&t, &system_limits, &cs, SEC));
	cs.rate_ppb = 1e8;
	assert_non_null(worker_trust_check_clock_state(&t, &servo_limits, &cs, SEC));
	cs.rate_ppb = 100;
	worker_trust_reset(&t);
	assert_non_null(worker_trust_check_clock_state(&t, &servo_limits, &cs, SEC));
}

/* A flood of STATUS datagrams: WORKER_TRUST_STATUS_PER_SEC a second pass, one more does not. */
static void test_flood(void **state)
{
	struct worker_trust t;
	struct ipc_status m = status(PORT_STATE_MASTER, SERVO_UNLOCKED, 0);

	worker_trust_reset(&t);
	for (int k = 0; k < WORKER_TRUST_STATUS_PER_SEC; k++) {
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, true, 5 * SEC + k));
	}
	assert_non_null(worker_trust_check_status(&t, &servo_limits, &m, true, 5 * SEC + 999));
	/* a new second: a new budget; the status page is not counted */
	worker_trust_reset(&t);
	for (int k = 0; k < 3 * WORKER_TRUST_STATUS_PER_SEC; k++) {
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, k % 3 == 0,
						      (uint64_t) k * SEC / 100));
		assert_null(worker_trust_check_status(&t, &servo_limits, &m, false, 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slave_only_when_recommended),
		cmocka_unit_test(test_impossible_values),
		cmocka_unit_test(test_flood),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
