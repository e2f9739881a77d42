/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The few libm functions the protocol core needs, without libm: phcd-port links no libm, which
 * every worker would map and relocate (8 kB of private memory each, docs/performance.md,
 * "Footprint and scale"). The rounding and minimum/maximum here are inline and exact; num_pow()
 * is accurate to a few units in the last place, for the servo's gains.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>

/* llround(): half away from zero; beyond the range of long long, saturated (NaN: LLONG_MIN). */
static inline long long num_llround(double x)
{
	if (!(x > (double) LLONG_MIN && x < (double) LLONG_MAX)) {
		return x > 0 ? LLONG_MAX : LLONG_MIN;
	}
	long long t = (long long) x;  /* toward zero */
	double frac = x - (double) t; /* exact: |frac| < 1 */

	return frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
}

/* The same for a long double (llroundl()). */
static inline long long num_llroundl(long double x)
{
	if (!(x > (long double) LLONG_MIN && x < (long double) LLONG_MAX)) {
		return x > 0 ? LLONG_MAX : LLONG_MIN;
	}
	long long t = (long long) x;
	long double frac = x - (long double) t;

	return frac >= 0.5L ? t + 1 : frac <= -0.5L ? t - 1 : t;
}

/* ceil() for |x| < 2^63 (the others as they are). */
static inline double num_ceil(double x)
{
	if (!(x > (double) LLONG_MIN && x < (double) LLONG_MAX)) {
		return x;
	}
	long long t = (long long) x;

	return (double) t < x ? (double) (t + 1) : (double) t;
}

/* fmin() and fmax(): a NaN argument gives the other one. */
static inline double num_min(double a, double b)
{
	return __builtin_isnan(a) ? b : __builtin_isnan(b) ? a : a < b ? a : b;
}

static inline double num_max(double a, double b)
{
	return __builtin_isnan(a) ? b : __builtin_isnan(b) ? a : a > b ? a : b;
}

/* pow(x, y) for x > 0 (NaN otherwise); within about 1e-15 relative for |y log2 x| < 64. */
double num_pow(double x, double y);
