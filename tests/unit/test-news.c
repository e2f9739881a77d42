// SPDX-License-Identifier: GPL-2.0-or-later
/* worker/news: a worker's news once a tick per kind, nothing lost (issue 31, finding 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/ipc.h"
#include "worker/news.h"

#define T0 (INT64_C(1000) * NS_PER_SEC)
#define TICK IPC_NEWS_TICK_NS

/* The first goes at once; what comes within the tick waits for its end, as one. */
static void test_first_at_once_then_one_per_tick(void **state)
{
	struct news n = { 0 };

	assert_int_equal(news_due(&n), INT64_MAX);
	assert_false(news_take(&n, NEWS_STATUS, T0));
	news_hold(&n, NEWS_STATUS);
	assert_int_equal(news_due(&n), 0);
	assert_true(news_take(&n, NEWS_STATUS, T0));
	assert_int_equal(news_due(&n), INT64_MAX);
	/* three changes within the tick: held, one message at its end */
	for (int k = 1; k <= 3; k++) {
		news_hold(&n, NEWS_STATUS);
		assert_false(news_take(&n, NEWS_STATUS, T0 + k * TICK / 4));
	}
	assert_int_equal(news_due(&n), T0 + TICK);
	assert_false(news_take(&n, NEWS_STATUS, T0 + TICK - 1));
	assert_true(news_take(&n, NEWS_STATUS, T0 + TICK));
	assert_false(news_take(&n, NEWS_STATUS, T0 + TICK));
	/* a kind of its own: requests are not held back by a STATUS just sent */
	news_hold(&n, NEWS_REQUESTS);
	assert_true(news_take(&n, NEWS_REQUESTS, T0 + TICK));
	/* after a quiet tick the next goes at once again */
	news_hold(&n, NEWS_STATUS);
	assert_true(news_take(&n, NEWS_STATUS, T0 + 5 * TICK));
}

/*
 * The invariant the supervisor's flood budget stands on: whatever is held however often, each
 * kind goes at most once a tick, and nothing held is left behind once it is due.
 */
static void test_flood_is_one_per_tick(void **state)
{
	struct news n = { 0 };
	int sent[_NEWS_KINDS] = { 0 };
	ns_t now = T0, last[_NEWS_KINDS] = { 0 };

	/* 10 s of a change every ms (state flips, pushes, SETs), the loop running after each */
	for (int i = 0; i < 10000; i++, now += NS_PER_MSEC) {
		for (int k = 0; k < _NEWS_KINDS; k++) {
			news_hold(&n, (enum news_kind) k);
			if (news_take(&n, (enum news_kind) k, now)) {
				assert_true(!sent[k] || now - last[k] >= TICK);
				last[k] = now;
				sent[k]++;
			}
		}
	}
	for (int k = 0; k < _NEWS_KINDS; k++) {
		assert_true(sent[k] <= 10 * NS_PER_SEC / TICK + 1);
		assert_true(sent[k] >= 10 * NS_PER_SEC / TICK - 1);
	}
	/* the last change is still held, due a tick after the last sent, and goes then */
	assert_true(news_due(&n) <= last[NEWS_STATUS] + TICK);
	assert_true(news_take(&n, NEWS_STATUS, last[NEWS_STATUS] + TICK));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_at_once_then_one_per_tick),
		cmocka_unit_test(test_flood_is_one_per_tick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
