// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a port steers: every clock_backend x time_stamping x kind of interface, through the whole
 * chain (the timestamps asked for, what the interface gives, whether the PHC is held, the
 * decision), against a table written out by hand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ptp/steer.h"
#include "ptp/util.h"

enum iface_kind {
	IF_NOPHC,   /* veth: no PHC, hardware timestamping refused */
	IF_OK,	    /* igb: PHC, hardware timestamps, the PHC opens and adjusts */
	IF_REFUSED, /* a PHC, but the driver refuses SIOCSHWTSTAMP */
	IF_NOOPEN,  /* hardware timestamps, but /dev/ptpN cannot be opened */
	IF_NOADJ,   /* the PHC opens but refuses adjustment */
	_IF_MAX,
};

static const char *const if_names[] = { "no-phc", "ok", "refused", "no-open", "no-adjust" };

/* The interface's answer to a request, as the transport and the supervisor would see it. */
static void simulate(enum options_clock_backend b, enum options_timestamping ts, enum iface_kind i,
		     struct steer_input *in)
{
	enum options_timestamping req = steer_ts_request(b, ts);
	bool want_hw = req == OPTIONS_TS_HARDWARE || (req == OPTIONS_TS_AUTO && i != IF_NOPHC);

	*in = (struct steer_input){
		.backend = b,
		.time_stamping = ts,
		.phc_index = i == IF_NOPHC ? -1 : 0,
	};
	in->hw_timestamps = want_hw && i != IF_NOPHC && i != IF_REFUSED;
	if (want_hw && !in->hw_timestamps) {
		in->hw_error = i == IF_NOPHC ? -EOPNOTSUPP : -ERANGE;
	}
	if (steer_wants_phc(b, in->hw_timestamps)) {
		in->phc_open = i != IF_NOOPEN;
		in->phc_error = i == IF_NOOPEN ? -EACCES : i == IF_NOADJ ? -EPERM : 0;
	}
}

#define F STEER_FAULTY
#define P STEER_PHC
#define V STEER_VIRTUAL
#define S STEER_SYSTEM
#define N STEER_NOTHING

struct expect {
	enum steer_target target;
	bool raw_phc;
};

/* [backend][time_stamping][interface] */
static const struct expect table[4][3][_IF_MAX] = {
	[OPTIONS_CLOCK_PHC] = {
		[OPTIONS_TS_HARDWARE] = { { F, 0 }, { P, 1 }, { F, 0 }, { F, 0 }, { F, 0 } },
		[OPTIONS_TS_SOFTWARE] = { { N, 0 }, { N, 0 }, { N, 0 }, { N, 0 }, { N, 0 } },
		[OPTIONS_TS_AUTO] = { { N, 0 }, { P, 1 }, { N, 0 }, { F, 0 }, { F, 0 } },
	},
	[OPTIONS_CLOCK_VIRTUAL] = {
		[OPTIONS_TS_HARDWARE] = { { F, 0 }, { V, 1 }, { F, 0 }, { F, 0 }, { V, 1 } },
		[OPTIONS_TS_SOFTWARE] = { { V, 0 }, { V, 0 }, { V, 0 }, { V, 0 }, { V, 0 } },
		[OPTIONS_TS_AUTO] = { { V, 0 }, { V, 1 }, { V, 0 }, { F, 0 }, { V, 1 } },
	},
	[OPTIONS_CLOCK_SYSTEM] = {
		[OPTIONS_TS_HARDWARE] = { { F, 0 }, { F, 0 }, { F, 0 }, { F, 0 }, { F, 0 } },
		[OPTIONS_TS_SOFTWARE] = { { S, 0 }, { S, 0 }, { S, 0 }, { S, 0 }, { S, 0 } },
		[OPTIONS_TS_AUTO] = { { S, 0 }, { S, 0 }, { S, 0 }, { S, 0 }, { S, 0 } },
	},
	[OPTIONS_CLOCK_FREE_RUNNING] = {
		[OPTIONS_TS_HARDWARE] = { { F, 0 }, { N, 1 }, { F, 0 }, { F, 0 }, { N, 1 } },
		[OPTIONS_TS_SOFTWARE] = { { N, 0 }, { N, 0 }, { N, 0 }, { N, 0 }, { N, 0 } },
		[OPTIONS_TS_AUTO] = { { N, 0 }, { N, 1 }, { N, 0 }, { F, 0 }, { N, 1 } },
	},
};

static void test_matrix(void **state)
{
	int failures = 0;

	for (int b = 0; b < 4; b++) {
		for (int ts = 0; ts < 3; ts++) {
			for (int i = 0; i < _IF_MAX; i++) {
				const struct expect *e = &table[b][ts][i];
				struct steer_input in;
				struct steer_decision d;
				bool servo = e->target == P || e->target == V;
				/* Only a PHC back end left without its PHC says why it only
				 * measures. */
				bool error = e->target == F ||
					     (b == OPTIONS_CLOCK_PHC && e->target == N);

				simulate(b, ts, i, &in);
				steer_decide(&in, &d);
				if (d.target != e->target || d.servo != servo ||
				    d.raw_phc != e->raw_phc || (d.error != 0) != error ||
				    (d.reason != NULL) != error || d.error > 0 ||
				    (d.reason && strlen(d.reason) >= STEER_REASON_MAX)) {
					fprintf(stderr,
						"%s/%s/%s: expected %s servo %d raw_phc %d error "
						"%d, "
						"got %s servo %d raw_phc %d error %d (%s)\n",
						options_clock_backend_to_string(b),
						options_timestamping_to_string(ts), if_names[i],
						steer_target_to_string(e->target), servo,
						e->raw_phc, error, steer_target_to_string(d.target),
						d.servo, d.raw_phc, d.error,
						d.reason ? d.reason : "");
					failures++;
				}
			}
		}
	}
	assert_int_equal(failures, 0);
}

/*
 * The bug this module exists for: the worker handed the PHC to its clock and then decided from
 * "is the PHC fd still mine" that there was no PHC, so no servo ran. Held means held.
 */
static void test_phc_held_is_steered(void **state)
{
	struct steer_input in = {
		.backend = OPTIONS_CLOCK_PHC,
		.time_stamping = OPTIONS_TS_HARDWARE,
		.hw_timestamps = true,
		.phc_index = 1,
		.phc_open = true,
	};
	struct steer_decision d;

	steer_decide(&in, &d);
	assert_int_equal(d.target, STEER_PHC);
	assert_true(d.servo);
	assert_int_equal(d.error, 0);
	assert_null(d.reason);
}

/* A refusal keeps the driver's errno, so the port's LastError says what the kernel said. */
static void test_reason_keeps_errno(void **state)
{
	struct steer_input in = {
		.backend = OPTIONS_CLOCK_PHC,
		.time_stamping = OPTIONS_TS_HARDWARE,
		.hw_error = -ERANGE,
		.phc_index = 0,
	};
	struct steer_decision d;

	steer_decide(&in, &d);
	assert_int_equal(d.target, STEER_FAULTY);
	assert_int_equal(d.error, -ERANGE);
	assert_non_null(d.reason);
	in.phc_index = -1;
	in.hw_error = 0;
	steer_decide(&in, &d);
	assert_int_equal(d.error, -EOPNOTSUPP);
}

static void test_wants_phc(void **state)
{
	assert_true(steer_wants_phc(OPTIONS_CLOCK_PHC, true));
	assert_true(steer_wants_phc(OPTIONS_CLOCK_VIRTUAL, true));
	assert_true(steer_wants_phc(OPTIONS_CLOCK_FREE_RUNNING, true));
	assert_false(steer_wants_phc(OPTIONS_CLOCK_SYSTEM, true));
	for (int b = 0; b < 4; b++) {
		assert_false(steer_wants_phc(b, false));
	}
	assert_int_equal(steer_ts_request(OPTIONS_CLOCK_SYSTEM, OPTIONS_TS_AUTO),
			 OPTIONS_TS_SOFTWARE);
	assert_int_equal(steer_ts_request(OPTIONS_CLOCK_PHC, OPTIONS_TS_AUTO), OPTIONS_TS_AUTO);
	assert_int_equal(steer_ts_request(OPTIONS_CLOCK_SYSTEM, OPTIONS_TS_HARDWARE),
			 OPTIONS_TS_HARDWARE);
}

static void test_names(void **state)
{
	assert_string_equal(steer_target_to_string(STEER_PHC), "phc");
	assert_string_equal(steer_target_to_string(STEER_VIRTUAL), "virtual");
	assert_string_equal(steer_target_to_string(STEER_SYSTEM), "system");
	assert_string_equal(steer_target_to_string(STEER_NOTHING), "nothing");
	assert_string_equal(steer_target_to_string(STEER_FAULTY), "faulty");
	assert_string_equal(steer_target_to_string(_STEER_TARGET_MAX), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_phc_held_is_steered),
		cmocka_unit_test(test_reason_keeps_errno),
		cmocka_unit_test(test_wants_phc),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
