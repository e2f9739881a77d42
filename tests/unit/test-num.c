// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of ptp/num.h: the rounding, minimum, maximum and power the programs use instead of
 * libm's, checked against libm's own on edge cases and sweeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "ptp/num.h"

/* Values around every rounding edge: halves, their neighbours, integers, large magnitudes. */
static const double round_cases[] = {
	0.0,
	-0.0,
	0.5,
	-0.5,
	1.5,
	-1.5,
	2.5,
	-2.5,
	0.49999999999999994,
	-0.49999999999999994,
	1.0,
	-1.0,
	123456.5,
	-123456.5,
	4503599627370495.5,
	-4503599627370495.5,
	4503599627370497.0,
	9007199254740993.0,
	1e18,
	-1e18,
	9.2e18,
	-9.2e18,
	DBL_MIN,
	-DBL_MIN,
	1e-300,
};

static void test_llround_matches_libm(void **state)
{
	for (size_t i = 0; i < sizeof(round_cases) / sizeof(round_cases[0]); i++) {
		double x = round_cases[i];

		if (num_llround(x) != llround(x)) {
			fail_msg("num_llround(%.17g) = %lld, llround %lld", x, num_llround(x),
				 llround(x));
		}
		if (num_llroundl(x) != llroundl(x)) {
			fail_msg("num_llroundl(%.17g) = %lld, llroundl %lld", x, num_llroundl(x),
				 llroundl(x));
		}
		if (num_ceil(x) != ceil(x)) {
			fail_msg("num_ceil(%.17g) = %.17g, ceil %.17g", x, num_ceil(x), ceil(x));
		}
	}
	/* A sweep across the halves and their neighbours. */
	for (int k = -2000; k <= 2000; k++) {
		double h = k + 0.5;
		double xs[] = { h, nextafter(h, -INFINITY), nextafter(h, INFINITY), k / 7.0 };

		for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
			assert_true(num_llround(xs[i]) == llround(xs[i]));
			assert_true(num_llroundl(xs[i] / 3.0L) == llroundl(xs[i] / 3.0L));
			assert_true(num_ceil(xs[i]) == ceil(xs[i]));
		}
	}
}

/* Beyond long long it saturates, where llround() is unspecified; NaN gives LLONG_MIN. */
static void test_llround_saturates(void **state)
{
	assert_true(num_llround(1e19) == LLONG_MAX);
	assert_true(num_llround(-1e19) == LLONG_MIN);
	assert_true(num_llround(INFINITY) == LLONG_MAX);
	assert_true(num_llround(NAN) == LLONG_MIN);
	assert_true(num_llroundl(1e30L) == LLONG_MAX);
	assert_true(num_llroundl(-1e30L) == LLONG_MIN);
	assert_true(num_ceil(1e300) == 1e300);
}

static void test_min_max_match_libm(void **state)
{
	static const double v[] = { -INFINITY, -1.5, -0.0, 0.0, 2.0, INFINITY, NAN };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			double a = v[i], b = v[j];

			/* Zeros compare equal either way: fmin's sign of zero is unspecified. */
			if (isnan(fmin(a, b))) {
				assert_true(isnan(num_min(a, b)) && isnan(num_max(a, b)));
				continue;
			}
			assert_true(num_min(a, b) == fmin(a, b));
			assert_true(num_max(a, b) == fmax(a, b));
		}
	}
}

/* Within 4e-15 relative of libm's pow() where the servo uses it (intervals 2^-10..2^10, any
 * exponent up to 1 in magnitude) and beyond. */
static void test_pow_matches_libm(void **state)
{
	double worst = 0;

	for (int l = -10; l <= 10; l++) {
		for (int k = -40; k <= 40; k++) {
			double xs[] = { ldexp(1.0, l), ldexp(1.0, l) * 1.37, ldexp(1.0, l) * 0.71 };
			double y = k / 20.0;

			for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
				double want = pow(xs[i], y), got = num_pow(xs[i], y);
				double rel = fabs(got - want) / want;

				if (!(rel <= 4e-15)) {
					fail_msg("num_pow(%.17g, %.17g) = %.17g, pow %.17g", xs[i],
						 y, got, want);
				}
				worst = rel > worst ? rel : worst;
			}
		}
	}
	printf("num_pow: worst relative difference from pow() %.3g\n", worst);
	/* The defaults of ptp4l's PI servo: interval^-0.3 and interval^0.4. */
	assert_true(fabs(num_pow(0.125, -0.3) - pow(0.125, -0.3)) < 1e-15);
	assert_true(num_pow(2.0, 10.0) == 1024.0);
	assert_true(num_pow(1.0, 5.5) == 1.0);
	assert_true(num_pow(3.0, 0.0) == 1.0);
	assert_true(isnan(num_pow(0.0, 1.0)) && isnan(num_pow(-2.0, 2.0)));
	assert_true(isnan(num_pow(2.0, NAN)));
	assert_true(num_pow(2.0, 2000.0) == INFINITY && num_pow(2.0, -2000.0) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llround_matches_libm),
		cmocka_unit_test(test_llround_saturates),
		cmocka_unit_test(test_min_max_match_libm),
		cmocka_unit_test(test_pow_matches_libm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
