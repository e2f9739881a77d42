// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of worker/mgmt-rate.c: Management messages per source MAC and in total. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "worker/mgmt-rate.h"

#define T0 (1000 * NS_PER_SEC)

static unsigned allowed(struct mgmt_rate *r, const uint8_t mac[MGMT_RATE_ADDR_LEN], unsigned n,
			ns_t from, ns_t step)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++) {
		ok += mgmt_rate_allow(r, mac, from + (ns_t) i * step);
	}
	return ok;
}

/* One source flooding: its burst, then its rate; another source is not held back by it. */
static void test_per_source(void **state)
{
	static const uint8_t a[MGMT_RATE_ADDR_LEN] = { 2, 0, 0, 0, 0, 1 },
			     b[MGMT_RATE_ADDR_LEN] = { 2, 0, 0, 0, 0, 2 };
	struct mgmt_rate r;

	memset(&r, 0, sizeof(r));
	/* 1000 at once: the burst only. */
	assert_int_equal(allowed(&r, a, 1000, T0, 0), MGMT_RATE_PER_SOURCE_BURST);
	assert_true(mgmt_rate_allow(&r, b, T0));
	/* 10 s at 1000/s: the burst came back at most once (it refills at the rate), then the rate.
	 */
	unsigned n = allowed(&r, a, 10000, T0 + NS_PER_MSEC, NS_PER_MSEC);

	assert_in_range(n, 10 * MGMT_RATE_PER_SOURCE - 1, 10 * MGMT_RATE_PER_SOURCE + 1);
	/* A well-behaved source, once a second, always gets through. */
	for (int i = 0; i < 20; i++) {
		assert_true(mgmt_rate_allow(&r, b, T0 + 20 * NS_PER_SEC + i * NS_PER_SEC));
	}
}

/* A sender that changes its MAC at every frame: a new bucket each time, but the total holds. */
static void test_total(void **state)
{
	struct mgmt_rate r;
	unsigned ok = 0;

	memset(&r, 0, sizeof(r));
	/* 20,000 frames at 10,000/s from 20,000 MACs over 2 s. */
	for (unsigned i = 0; i < 20000; i++) {
		uint8_t mac[MGMT_RATE_ADDR_LEN] = {
			2, 0, 0, (uint8_t) (i >> 16), (uint8_t) (i >> 8), (uint8_t) i
		};

		ok += mgmt_rate_allow(&r, mac, T0 + (ns_t) i * 100 * NS_PER_USEC);
	}
	assert_in_range(ok, MGMT_RATE_TOTAL_BURST, MGMT_RATE_TOTAL_BURST + 2 * MGMT_RATE_TOTAL + 1);
	/* The table stayed bounded (it is a fixed array) and holds the latest sources. */
	uint8_t last[MGMT_RATE_ADDR_LEN] = { 2, 0, 0, 0, (uint8_t) (19999 >> 8), (uint8_t) 19999 };
	bool found = false;

	for (size_t i = 0; i < MGMT_RATE_SOURCES; i++) {
		found |= r.src[i].used && memcmp(r.src[i].addr, last, MGMT_RATE_ADDR_LEN) == 0;
	}
	assert_true(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_source),
		cmocka_unit_test(test_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
