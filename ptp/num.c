/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * num_pow() as 2^(y log2 x): x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m from the atanh
 * series, 2^t = 2^n e^(f ln 2) with |f| <= 1/2 from the exponential series; frexp() and ldexp()
 * are libc's. Both series are summed until a term no longer changes the sum.
 */
#include <math.h>

#include "ptp/num.h"

#define LN2 0.693147180559945309417232121458176568
#define SQRT1_2 0.707106781186547524400844362104849039

/* ln m for m in [sqrt(1/2), sqrt(2)): 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172. */
static double log_near_one(double m)
{
	double s = (m - 1) / (m + 1), s2 = s * s, term = s, sum = s;

	for (int k = 3; k < 64; k += 2) {
		double next;

		term *= s2;
		next = sum + term / k;
		if (next == sum) {
			break;
		}
		sum = next;
	}
	return 2 * sum;
}

/* e^z for |z| <= ln 2 / 2. */
static double exp_small(double z)
{
	double term = 1, sum = 1;

	for (int k = 1; k < 40; k++) {
		double next;

		term *= z / k;
		next = sum + term;
		if (next == sum) {
			break;
		}
		sum = next;
	}
	return sum;
}

double num_pow(double x, double y)
{
	int e;
	double m, t, n;

	if (!(x > 0) || __builtin_isinf(x) || __builtin_isnan(y)) {
		return __builtin_nan("");
	}
	if (y == 0 || x == 1) {
		return 1;
	}
	m = frexp(x, &e); /* x = m 2^e, m in [1/2, 1) */
	if (m < SQRT1_2) {
		m *= 2;
		e--;
	}
	t = y * (e + log_near_one(m) / LN2);
	if (!(t < 1100)) {
		return __builtin_inf();
	}
	if (!(t > -1100)) {
		return 0;
	}
	n = (double) num_llround(t);
	return ldexp(exp_small((t - n) * LN2), (int) n);
}
