// SPDX-License-Identifier: GPL-2.0-or-later
/* PHC-to-system offset: best-of-N selection of the narrowest read window, and method names. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ptp/sysoff.h"

/* The narrowest window wins; sys is its middle, error half its width rounded up. */
static void test_best_of(void **state)
{
	static const ns_t ts[][3] = {
		{ 1000, 5000, 1900 }, /* 900 wide */
		{ 3000, 7000, 3301 }, /* 301 wide: best */
		{ 4000, 8000, 4302 }, /* 302 */
		{ 6000, 9000, 6900 },
	};
	struct sysoff_pair p;

	assert_int_equal(sysoff_best(ts, 4, &p), 0);
	assert_int_equal(p.sys, 3150);
	assert_int_equal(p.phc, 7000);
	assert_int_equal(p.error, 151);
}

/* Order does not matter, and the first of equal windows is kept. */
static void test_best_order_independent(void **state)
{
	static const ns_t a[][3] = { { 0, 10, 100 }, { 200, 210, 250 }, { 300, 310, 350 } };
	static const ns_t b[][3] = { { 300, 310, 350 }, { 0, 10, 100 }, { 200, 210, 250 } };
	struct sysoff_pair pa, pb;

	assert_int_equal(sysoff_best(a, 3, &pa), 0);
	assert_int_equal(sysoff_best(b, 3, &pb), 0);
	assert_int_equal(pa.phc, 210);
	assert_int_equal(pb.phc, 310);
	assert_int_equal(pa.error, pb.error);
}

/* A window that runs backwards (the clock stepped under the read) is never picked. */
static void test_backwards_window(void **state)
{
	static const ns_t ts[][3] = { { 5000, 1, 4000 }, { 100, 2, 800 } };
	static const ns_t bad[][3] = { { 5000, 1, 4000 } };
	struct sysoff_pair p;

	assert_int_equal(sysoff_best(ts, 2, &p), 0);
	assert_int_equal(p.phc, 2);
	assert_int_equal(sysoff_best(bad, 1, &p), -EINVAL);
	assert_int_equal(sysoff_best(ts, 0, &p), -EINVAL);
}

/* The ioctl path refuses bad sample counts before touching the fd. */
static void test_measure_args(void **state)
{
	struct sysoff_pair p;

	assert_int_equal(sysoff_measure(-1, SYSOFF_EXTENDED, 0, &p), -EINVAL);
	assert_int_equal(sysoff_measure(-1, SYSOFF_BASIC, SYSOFF_MAX_SAMPLES + 1, &p), -EINVAL);
	assert_int_equal(sysoff_measure(-1, SYSOFF_BASIC, 1, &p), -EBADF);
	assert_int_equal(sysoff_measure(-1, SYSOFF_NONE, 1, &p), -EOPNOTSUPP);
}

static void test_names(void **state)
{
	assert_string_equal(sysoff_method_to_string(SYSOFF_PRECISE), "PTP_SYS_OFFSET_PRECISE");
	assert_string_equal(sysoff_method_to_string(SYSOFF_BASIC), "PTP_SYS_OFFSET");
	assert_null(sysoff_method_to_string((enum sysoff_method) 9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_of),
		cmocka_unit_test(test_best_order_independent),
		cmocka_unit_test(test_backwards_window),
		cmocka_unit_test(test_measure_args),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
