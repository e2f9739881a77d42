// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/delay.c: 11.3 / 11.4 arithmetic with correction fields, and the filter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "ptp/delay.h"
#include "ptp/util.h"

/* The results of the checked functions, which must succeed here. */
static ns_t e2e(const struct delay_e2e *d)
{
	ns_t v = INT64_MIN;

	assert_int_equal(delay_e2e_mean_path_delay(d, &v), 0);
	return v;
}

static ns_t offset_of(ns_t t1, ns_t t2, ns_t corr, ns_t mpd)
{
	ns_t v = INT64_MIN;

	assert_int_equal(delay_offset_from_master(t1, t2, corr, mpd, &v), 0);
	return v;
}

static ns_t p2p(const struct delay_p2p *d, double nrr)
{
	ns_t v = INT64_MIN;

	assert_int_equal(delay_p2p_mean_link_delay(d, nrr, &v), 0);
	return v;
}

/*
 * A worked E2E exchange: the slave is `offset` ahead of the master, the link takes `path` each
 * way, a transparent clock adds residence times it reports in the correction fields (split over
 * Sync and Follow_Up for a two-step master). 11.3.2 must give back path and offset exactly.
 */
struct e2e_case {
	ns_t offset, path, sync_res, fup_res, req_res, t1, gap;
};

static void build_e2e(const struct e2e_case *c, struct delay_e2e *d)
{
	d->t1 = c->t1;
	d->t2 = c->t1 + c->path + c->sync_res + c->fup_res + c->offset;
	d->sync_correction = c->sync_res + c->fup_res;
	d->t3 = d->t2 + c->gap;
	d->t4 = d->t3 - c->offset + c->path + c->req_res;
	d->delay_resp_correction = c->req_res;
}

static void test_e2e_cases(void **state)
{
	static const struct e2e_case cases[] = {
		/* offset, path, Sync res, Follow_Up res, Delay_Req res, t1, t3 - t2 */
		{ 0, 0, 0, 0, 0, 1000, 10 },
		{ 0, 500, 0, 0, 0, NS_PER_SEC, 1000 },
		{ 1234, 500, 0, 0, 0, NS_PER_SEC, 1000 },
		{ -1234, 500, 0, 0, 0, NS_PER_SEC, 1000 },
		{ -500 * NS_PER_MSEC, 300, 20000, 0, 15000, 1700000000 * NS_PER_SEC, 125000000 },
		{ 7, 3, 100, 250, 40, 5 * NS_PER_SEC, 50 },
		{ 123456789, 2500, -10, 10, 0, 42 * NS_PER_SEC, 7 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct delay_e2e d;
		ns_t mpd, off;

		build_e2e(&cases[i], &d);
		mpd = e2e(&d);
		off = offset_of(d.t1, d.t2, d.sync_correction, mpd);
		if (mpd != cases[i].path || off != cases[i].offset) {
			print_error("case %zu: expected delay %" PRId64 " offset %" PRId64
				    ", got %" PRId64 " %" PRId64 "\n",
				    i, cases[i].path, cases[i].offset, mpd, off);
			fail();
		}
	}
}

/* Ignoring a correction field shows up as an error of that size: the fields are honoured. */
static void test_e2e_corrections_matter(void **state)
{
	const struct e2e_case c = { 100, 1000, 400, 200, 600, NS_PER_SEC, 500 };
	struct delay_e2e d;

	build_e2e(&c, &d);
	d.sync_correction -= c.fup_res; /* forgot Follow_Up's correction */
	assert_int_not_equal(e2e(&d), c.path);
	build_e2e(&c, &d);
	d.delay_resp_correction = 0;
	assert_int_equal(e2e(&d), c.path + c.req_res / 2);
}

/* Odd sums halve toward negative infinity on both signs, as linuxptp's integer arithmetic. */
static void test_e2e_rounding(void **state)
{
	struct delay_e2e d = { .t1 = 0, .t2 = 3, .t3 = 10, .t4 = 10 };

	assert_int_equal(e2e(&d), 1);
	d.t2 = -3;
	assert_int_equal(e2e(&d), -2);
}

/* A worked P2P exchange; responder offset cancels, turnaround comes out either way. */
static void test_p2p_one_and_two_step(void **state)
{
	static const struct {
		ns_t path, resp_offset, turnaround, res1, res2;
	} cases[] = {
		{ 0, 0, 0, 0, 0 },
		{ 800, 0, 20000, 0, 0 },
		{ 800, -5 * NS_PER_SEC, 20000, 0, 0 },
		{ 333, 777, 1000000, 100, 50 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ns_t t1 = 10 * NS_PER_SEC;
		ns_t t2 = t1 + cases[i].path + cases[i].res1 + cases[i].resp_offset;
		ns_t t3 = t2 + cases[i].turnaround;
		ns_t t4 = t3 - cases[i].resp_offset + cases[i].path + cases[i].res2;
		struct delay_p2p two = { .t1 = t1,
					 .t2 = t2,
					 .t3 = t3,
					 .t4 = t4,
					 .resp_correction = cases[i].res1 + cases[i].res2 };
		struct delay_p2p one = { .t1 = t1,
					 .t4 = t4,
					 .resp_correction = cases[i].res1 + cases[i].res2 +
							    delay_p2p_turnaround(t2, t3) };
		/* two-step, residence reported half in each message */
		struct delay_p2p split = two;

		split.resp_correction = cases[i].res1;
		split.resp_fup_correction = cases[i].res2;
		assert_int_equal(p2p(&two, 1.0), cases[i].path);
		assert_int_equal(p2p(&one, 1.0), cases[i].path);
		assert_int_equal(p2p(&split, 1.0), cases[i].path);
	}
}

/*
 * The responder's clock runs 100 ppm fast: its turnaround of 1 ms reads 100 ns long against
 * ours, so without neighborRateRatio the delay comes out about 50 ns short; with it, right
 * (in the responder's timescale, 1.0001 x path).
 */
static void test_p2p_neighbor_rate_ratio(void **state)
{
	const double r = 1.0001;
	const ns_t path = 1000, turnaround = NS_PER_MSEC;
	ns_t t1 = NS_PER_SEC, t2 = 77 * NS_PER_SEC;
	ns_t t4 = t1 + 2 * path + (ns_t) (turnaround / r);
	struct delay_p2p d = { .t1 = t1, .t2 = t2, .t3 = t2 + turnaround, .t4 = t4 };
	double nrr;
	ns_t with, without;

	without = p2p(&d, 1.0);
	with = p2p(&d, r);
	assert_in_range(without, path - 51, path - 49);
	assert_in_range(with, path - 1, path + 1);

	/* measuring it: the responder's t3 advance over our t4 advance */
	assert_int_equal(delay_neighbor_rate_ratio(0, 0, 10001000, 10000000, &nrr), 0);
	assert_true(nrr > 1.0000999 && nrr < 1.0001001);
	assert_int_equal(delay_neighbor_rate_ratio(0, 5, 10, 5, &nrr), -EINVAL);
}

/*
 * Issue 17 finding 8: extreme but valid values from the wire (timestamps up to ns_t's end, a
 * correctionField of INT64_MAX, that is "too big", or 2^47 ns) never overflow (UBSan would stop
 * the test) and never give a result beyond +-DELAY_NS_MAX: -ERANGE, nothing written.
 */
static void test_extreme_values(void **state)
{
	/* The largest Timestamp timestamp_to_ns() converts, and correction_to_ns() results. */
	const ns_t tmax = ((INT64_MAX / NS_PER_SEC) - 1) * NS_PER_SEC + NS_PER_SEC - 1;
	const ns_t now = 1764700000 * NS_PER_SEC;
	const ns_t vals[] = { 0,
			      1,
			      -1,
			      now,
			      tmax,
			      INT64_MAX,
			      INT64_MIN,
			      INT64_C(1) << 47,
			      -(INT64_C(1) << 47),
			      DELAY_NS_MAX,
			      -DELAY_NS_MAX,
			      DELAY_NS_MAX + 1,
			      INT64_MAX / 2 };
	const size_t n = ARRAY_SIZE(vals);
	size_t ok = 0, refused = 0;

	for (size_t a = 0; a < n; a++) {
		for (size_t b = 0; b < n; b++) {
			for (size_t c = 0; c < n; c++) {
				struct delay_e2e d = { .t1 = vals[a],
						       .t2 = now,
						       .t3 = now + 1000,
						       .t4 = vals[b],
						       .sync_correction = vals[c],
						       .delay_resp_correction = vals[(a + c) % n] };
				struct delay_p2p q = { .t1 = now,
						       .t2 = vals[a],
						       .t3 = vals[b],
						       .t4 = now + 5000,
						       .resp_correction = vals[c],
						       .resp_fup_correction = vals[(b + c) % n] };
				ns_t v = 12345, w = 12345;
				int r;

				r = delay_e2e_mean_path_delay(&d, &v);
				if (r == 0) {
					assert_true(v >= -DELAY_NS_MAX && v <= DELAY_NS_MAX);
					ok++;
				} else {
					assert_int_equal(r, -ERANGE);
					assert_int_equal(v, 12345);
					refused++;
				}
				r = delay_offset_from_master(vals[a], now, vals[b], vals[c], &w);
				if (r == 0) {
					assert_true(w >= -DELAY_NS_MAX && w <= DELAY_NS_MAX);
				} else {
					assert_int_equal(r, -ERANGE);
					assert_int_equal(w, 12345);
				}
				for (int k = 0; k < 2; k++) {
					w = 12345;
					r = delay_p2p_mean_link_delay(&q, k ? 1.0001 : 1.0, &w);
					if (r == 0) {
						assert_true(w >= -DELAY_NS_MAX &&
							    w <= DELAY_NS_MAX);
					} else {
						assert_int_equal(r, -ERANGE);
						assert_int_equal(w, 12345);
					}
				}
			}
		}
	}
	/* Both outcomes occur: the table is not all one kind. */
	assert_true(ok > 0 && refused > 0);

	/* The attack review's case: a Follow_Up of tmax against now gives no -7.4e18 offset. */
	ns_t off = 0;

	assert_int_equal(delay_offset_from_master(tmax, now, 0, 0, &off), -ERANGE);
	assert_int_equal(delay_offset_from_master(tmax, now, INT64_MAX, 0, &off), -ERANGE);
	/* A PHC that started at 0 against a master's TAI of today is a real offset. */
	assert_int_equal(delay_offset_from_master(now, 5 * NS_PER_SEC, 0, 300, &off), 0);
	assert_int_equal(off, 5 * NS_PER_SEC - now - 300);

	ns_t x;

	assert_false(delay_ns_add(DELAY_NS_MAX, 1, &x));
	assert_false(delay_ns_add(INT64_MAX, INT64_MAX, &x));
	assert_false(delay_ns_sub(INT64_MIN, 1, &x));
	assert_true(delay_ns_sub(-DELAY_NS_MAX, 0, &x));
	assert_int_equal(x, -DELAY_NS_MAX);
}

static void test_filter_average(void **state)
{
	struct delay_filter f;

	assert_int_equal(delay_filter_init(&f, DELAY_FILTER_AVERAGE, 4), 0);
	assert_int_equal(delay_filter_sample(&f, 100), 100);
	assert_int_equal(delay_filter_sample(&f, 200), 150);
	assert_int_equal(delay_filter_sample(&f, 300), 200);
	assert_int_equal(delay_filter_sample(&f, 400), 250);
	/* the 100 falls out of the window */
	assert_int_equal(delay_filter_sample(&f, 500), 350);
	delay_filter_reset(&f);
	assert_int_equal(delay_filter_sample(&f, -7), -7);
}

static void test_filter_median(void **state)
{
	struct delay_filter f;

	assert_int_equal(delay_filter_init(&f, DELAY_FILTER_MEDIAN, 5), 0);
	assert_int_equal(delay_filter_sample(&f, 300), 300);
	/* of two, the shorter: a late message only lengthens a sample */
	assert_int_equal(delay_filter_sample(&f, 100), 100);
	assert_int_equal(delay_filter_sample(&f, 26000), 300); /* a veth spike is ignored */
	assert_int_equal(delay_filter_sample(&f, 280), 290);
	assert_int_equal(delay_filter_sample(&f, 290), 290);
	/* 300 evicted: 100 26000 280 290 310 */
	assert_int_equal(delay_filter_sample(&f, 310), 290);
}

static void test_filter_init_and_names(void **state)
{
	struct delay_filter f;
	enum delay_filter_kind k;

	assert_int_equal(delay_filter_init(&f, DELAY_FILTER_AVERAGE, 0), -EINVAL);
	assert_int_equal(delay_filter_init(&f, DELAY_FILTER_MEDIAN, DELAY_FILTER_MAX + 1), -EINVAL);
	assert_int_equal(delay_filter_init(&f, 7, 3), -EINVAL);
	assert_int_equal(delay_filter_init(&f, DELAY_FILTER_MEDIAN, DELAY_FILTER_MAX), 0);
	for (int i = 0; i < 3 * DELAY_FILTER_MAX; i++) {
		delay_filter_sample(&f, i);
	}
	assert_int_equal(f.count, DELAY_FILTER_MAX);
	assert_int_equal(delay_filter_kind_from_string("moving_median", &k), 0);
	assert_int_equal(k, DELAY_FILTER_MEDIAN);
	assert_string_equal(delay_filter_kind_to_string(DELAY_FILTER_AVERAGE), "moving_average");
	assert_int_equal(delay_filter_kind_from_string("median", &k), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_e2e_cases),
		cmocka_unit_test(test_e2e_corrections_matter),
		cmocka_unit_test(test_e2e_rounding),
		cmocka_unit_test(test_p2p_one_and_two_step),
		cmocka_unit_test(test_p2p_neighbor_rate_ratio),
		cmocka_unit_test(test_extreme_values),
		cmocka_unit_test(test_filter_average),
		cmocka_unit_test(test_filter_median),
		cmocka_unit_test(test_filter_init_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
