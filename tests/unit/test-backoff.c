/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Worker restarts: the backoff doubles up to its ceiling, the rate limit gives up, a reset. */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/backoff.h"
#include "ptp/types.h"

/* phcd.conf(5)'s defaults: 5 restarts in 60 s, 100 ms doubling up to 10 s. */
static const struct daemon_options defaults = {
	.restart_limit_burst = 5,
	.restart_limit_interval_sec = 60,
	.restart_backoff_initial_ms = 100,
	.restart_backoff_max_ms = 10000,
};

#define T0 (1000 * USEC_PER_SEC) /* CLOCK_MONOTONIC of the first death */

static uint64_t next_ok(struct backoff *b, const struct daemon_options *d, uint64_t now)
{
	uint64_t delay = UINT64_MAX;

	assert_true(backoff_next(b, d, now, &delay));
	assert_false(b->given_up);
	return delay;
}

static void test_doubles_then_gives_up(void **state)
{
	struct backoff b = { 0 };
	uint64_t delay;

	assert_int_equal(next_ok(&b, &defaults, T0), 100 * USEC_PER_MSEC);
	assert_int_equal(next_ok(&b, &defaults, T0 + 1), 200 * USEC_PER_MSEC);
	assert_int_equal(next_ok(&b, &defaults, T0 + 2), 400 * USEC_PER_MSEC);
	assert_int_equal(next_ok(&b, &defaults, T0 + 3), 800 * USEC_PER_MSEC);
	assert_int_equal(next_ok(&b, &defaults, T0 + 4), 1600 * USEC_PER_MSEC);
	/* The sixth death within 60 s: no restart until the window has passed. */
	assert_false(backoff_next(&b, &defaults, T0 + 5, &delay));
	assert_true(b.given_up);
	assert_int_equal(b.in_window, 5);
	assert_int_equal(delay, 60 * USEC_PER_SEC - 5 + 1);
	/* Issue 31: then one more try, in a fresh window (and its backoff from the start). */
	b.given_up = false;
	assert_int_equal(next_ok(&b, &defaults, T0 + 5 + delay), 100 * USEC_PER_MSEC);
	assert_int_equal(b.in_window, 1);
}

static void test_ceiling(void **state)
{
	struct daemon_options d = defaults;
	struct backoff b = { 0 };

	d.restart_limit_burst = 1000;
	d.restart_backoff_max_ms = 1000;
	for (int k = 0; k < 4; k++) {
		next_ok(&b, &d, T0);
	}
	/* 100 * 2^4 = 1600 ms is past the ceiling, and so is everything after. */
	for (int k = 0; k < 990; k++) {
		assert_int_equal(next_ok(&b, &d, T0), 1000 * USEC_PER_MSEC);
	}
	/* The largest values the configuration accepts do not overflow. */
	d.restart_backoff_initial_ms = 60000;
	d.restart_backoff_max_ms = 600000;
	b = (struct backoff){ 0 };
	assert_int_equal(next_ok(&b, &d, T0), 60000 * USEC_PER_MSEC);
	for (int k = 0; k < 900; k++) {
		assert_true(next_ok(&b, &d, T0) <= 600000 * USEC_PER_MSEC);
	}
	assert_int_equal(next_ok(&b, &d, T0), 600000 * USEC_PER_MSEC);
}

static void test_zero_delay(void **state)
{
	struct daemon_options d = defaults;
	struct backoff b = { 0 };

	d.restart_backoff_initial_ms = 0;
	for (int k = 0; k < 5; k++) {
		assert_int_equal(next_ok(&b, &d, T0), 0);
	}
}

/* A window older than the interval starts afresh: the count and the backoff begin again. */
static void test_window(void **state)
{
	struct backoff b = { 0 };
	uint64_t interval = defaults.restart_limit_interval_sec * USEC_PER_SEC, delay;

	for (int k = 0; k < 5; k++) {
		next_ok(&b, &defaults, T0);
	}
	/* At exactly the interval the window still holds. */
	assert_false(backoff_next(&b, &defaults, T0 + interval, &delay));
	b.given_up = false;
	assert_int_equal(next_ok(&b, &defaults, T0 + interval + 1), 100 * USEC_PER_MSEC);
	assert_int_equal(b.window_start, T0 + interval + 1);
	assert_int_equal(next_ok(&b, &defaults, T0 + interval + 2), 200 * USEC_PER_MSEC);
}

/* Deaths spread wider than the interval never reach the limit. */
static void test_slow_deaths_never_give_up(void **state)
{
	struct backoff b = { 0 };
	uint64_t t = T0;

	for (int k = 0; k < 100; k++) {
		t += defaults.restart_limit_interval_sec * USEC_PER_SEC + 1;
		assert_int_equal(next_ok(&b, &defaults, t), 100 * USEC_PER_MSEC);
	}
}

static void test_reset(void **state)
{
	struct backoff b = { 0 };
	uint64_t delay;

	for (int k = 0; k < 5; k++) {
		next_ok(&b, &defaults, T0);
	}
	assert_false(backoff_next(&b, &defaults, T0, &delay));
	backoff_reset(&b);
	assert_false(b.given_up);
	assert_int_equal(next_ok(&b, &defaults, T0 + 1), 100 * USEC_PER_MSEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_then_gives_up),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_zero_delay),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_slow_deaths_never_give_up),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
