// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A PHC pin's 1PPS edges paired with gpsd's TPV seconds (daemon/extts-pair.c): the offset exact
 * for edges at known PHC times, the TPV before or after its edge, a stale or fixless TPV refused,
 * an edge not 1 s after the last refused, a second paired twice refused, the loss after 2 s, the
 * report it makes of gpsd's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/extts-pair.h"
#include "ptp/types.h"

/* 2026-12-07 10:00:00 UTC, and TAI - UTC 37. */
#define UTC0 INT64_C(1796637600)
#define TAI_UTC 37
#define T0 (INT64_C(1000) * 1000000) /* CLOCK_MONOTONIC usec of the first edge */

static struct extts_tpv tpv_at(int64_t utc_s, uint64_t at_usec)
{
	return (struct extts_tpv){ .valid = true,
				   .utc_ns = utc_s * NS_PER_SEC,
				   .at_usec = at_usec };
}

/*
 * A receiver sending its TPV 120 ms after each edge, a PHC 1.5 us ahead of TAI and 2 ppm fast: each
 * edge is paired with its own second, the offset exactly the PHC's error.
 */
static void test_pairs_exactly(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv = { 0 };
	(void) state;

	extts_pair_init(&p, 0);
	for (int k = 0; k < 10; k++) {
		uint64_t edge_at = T0 + (uint64_t) k * 1000000 + 300; /* read 0.3 ms late */
		int64_t err = 1500 + 2000 * k;
		int64_t t = (UTC0 + k + TAI_UTC) * NS_PER_SEC + err;
		enum extts_pair_verdict v = extts_pair_edge(&p, t, edge_at, &tpv, TAI_UTC, false,
							    &s);

		if (k == 0) {
			assert_int_equal(v, EXTTS_PAIR_FIRST);
		} else {
			assert_int_equal(v, EXTTS_PAIR_OK);
			assert_int_equal(s.tai_s, UTC0 + k + TAI_UTC);
			assert_int_equal(s.offset_ns, err);
			assert_int_equal(s.phc_ns, t);
		}
		/* its TPV, naming the second that began at this edge, 120 ms after it */
		tpv = tpv_at(UTC0 + k, edge_at + 120000);
	}
	assert_int_equal(p.counters.edges, 10);
	assert_int_equal(p.counters.paired, 9);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_FIRST], 1);
	assert_false(extts_pair_lost(&p, T0 + 9 * 1000000 + 300));
}

/* The TPV read before its edge (the loop slow to read the PHC): the same second. */
static void test_tpv_before_edge_read(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv;
	(void) state;

	extts_pair_init(&p, 0);
	tpv = tpv_at(UTC0 - 1, T0 - 1000000 + 100000);
	assert_int_equal(extts_pair_edge(&p, (UTC0 - 1 + TAI_UTC) * NS_PER_SEC, T0 - 1000000, &tpv,
					 TAI_UTC, false, &s),
			 EXTTS_PAIR_FIRST);
	/* edge UTC0 at T0, read at T0 + 200 ms, its TPV came at T0 + 100 ms */
	tpv = tpv_at(UTC0, T0 + 100000);
	assert_int_equal(extts_pair_edge(&p, (UTC0 + TAI_UTC) * NS_PER_SEC - 40, T0 + 200000, &tpv,
					 TAI_UTC, false, &s),
			 EXTTS_PAIR_OK);
	assert_int_equal(s.tai_s, UTC0 + TAI_UTC);
	assert_int_equal(s.offset_ns, -40);
}

/* ts2phc.extts_correction is added to the edge's PHC time. */
static void test_correction(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv = tpv_at(UTC0, T0 + 100000);
	(void) state;

	extts_pair_init(&p, -250);
	(void) extts_pair_edge(&p, (UTC0 + TAI_UTC) * NS_PER_SEC, T0, &tpv, TAI_UTC, false, &s);
	assert_int_equal(extts_pair_edge(&p, (UTC0 + 1 + TAI_UTC) * NS_PER_SEC + 1000, T0 + 1000000,
					 &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_OK);
	assert_int_equal(s.offset_ns, 750);
	assert_int_equal(s.phc_ns, (UTC0 + 1 + TAI_UTC) * NS_PER_SEC + 750);
}

/* No TPV, one without a fix, a stale one (a TPV lost), one from after the edge: refused. */
static void test_tpv_refused(void **state)
{
	struct extts_pair p;
	struct extts_sample s = { .offset_ns = 12345 };
	struct extts_tpv tpv = { 0 };
	int64_t t = (UTC0 + TAI_UTC) * NS_PER_SEC;
	uint64_t at = T0;
	(void) state;

	extts_pair_init(&p, 0);
	(void) extts_pair_edge(&p, t, at, NULL, TAI_UTC, false, &s);
	t += NS_PER_SEC, at += 1000000;
	assert_int_equal(extts_pair_edge(&p, t, at, NULL, TAI_UTC, false, &s), EXTTS_PAIR_NO_TPV);
	t += NS_PER_SEC, at += 1000000;
	assert_int_equal(extts_pair_edge(&p, t, at, &tpv, TAI_UTC, false, &s), EXTTS_PAIR_NO_TPV);
	/* the last TPV 1.5 s before the edge: one went missing, the second is not sure */
	tpv = tpv_at(UTC0 + 1, at - EXTTS_PAIR_TPV_MAX_AGE_USEC + 1000000);
	t += NS_PER_SEC, at += 1000000;
	assert_int_equal(extts_pair_edge(&p, t, at, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_STALE_TPV);
	tpv = tpv_at(UTC0 + 4, at + 1000000 + 1);
	t += NS_PER_SEC, at += 1000000;
	assert_int_equal(extts_pair_edge(&p, t, at, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_STALE_TPV);
	/* just inside the bound: taken, UTC0 + 4 and 1.5 s after, rounded */
	t += NS_PER_SEC, at += 1000000;
	tpv = tpv_at(UTC0 + 4, at - EXTTS_PAIR_TPV_MAX_AGE_USEC + 1);
	assert_int_equal(extts_pair_edge(&p, t, at, &tpv, TAI_UTC, false, &s), EXTTS_PAIR_OK);
	assert_int_equal(s.tai_s, UTC0 + 5 + TAI_UTC);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_NO_TPV], 2);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_STALE_TPV], 2);
	assert_int_equal(p.counters.paired, 1);
}

/*
 * Edges not 1 s +- 10 ms apart on the PHC (a glitch, a second pulse, a lost one) are refused,
 * and the next one too (its interval is from the refused one).
 */
static void test_interval(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv;
	int64_t t = (UTC0 + TAI_UTC) * NS_PER_SEC;
	(void) state;

	extts_pair_init(&p, 0);
	tpv = tpv_at(UTC0, T0 + 100000);
	(void) extts_pair_edge(&p, t, T0 + 200000, &tpv, TAI_UTC, false, &s);
	/* a glitch 300 ms later */
	assert_int_equal(extts_pair_edge(&p, t + 300000000, T0 + 300000, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_BAD_INTERVAL);
	/* the true edge, 0.7 s after the glitch */
	tpv = tpv_at(UTC0 + 1, T0 + 1100000);
	assert_int_equal(
		extts_pair_edge(&p, t + NS_PER_SEC, T0 + 1200000, &tpv, TAI_UTC, false, &s),
		EXTTS_PAIR_BAD_INTERVAL);
	/* 2 s later: an edge lost */
	tpv = tpv_at(UTC0 + 3, T0 + 3100000);
	assert_int_equal(
		extts_pair_edge(&p, t + 3 * NS_PER_SEC, T0 + 3200000, &tpv, TAI_UTC, false, &s),
		EXTTS_PAIR_BAD_INTERVAL);
	/* 1 s + 10 ms: the bound, taken */
	tpv = tpv_at(UTC0 + 4, T0 + 4100000);
	assert_int_equal(extts_pair_edge(&p, t + 4 * NS_PER_SEC + EXTTS_PAIR_INTERVAL_TOLERANCE_NS,
					 T0 + 4200000, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_OK);
	assert_int_equal(s.offset_ns, EXTTS_PAIR_INTERVAL_TOLERANCE_NS);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_BAD_INTERVAL], 3);
}

/* The same TPV labelling two edges (gpsd stuck on a second) pairs the first only. */
static void test_same_second(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv = tpv_at(UTC0, T0 + 100000);
	int64_t t = (UTC0 + TAI_UTC) * NS_PER_SEC;
	(void) state;

	extts_pair_init(&p, 0);
	(void) extts_pair_edge(&p, t - NS_PER_SEC, T0 - 1000000, &tpv, TAI_UTC, false, &s);
	assert_int_equal(extts_pair_edge(&p, t, T0 + 200000, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_OK);
	/* the next edge read early, 0.4 s after the same TPV: labelled UTC0 again */
	assert_int_equal(extts_pair_edge(&p, t + NS_PER_SEC, T0 + 500000, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_SAME_SECOND);
}

/* With a leap pending, the seconds around midnight are not paired. */
static void test_leap_ambiguous(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	int64_t midnight = INT64_C(1798761600); /* 2027-01-01 00:00:00 UTC */
	struct extts_tpv tpv = tpv_at(midnight - 1, T0 + 100000);
	int64_t t = (midnight + TAI_UTC) * NS_PER_SEC;
	(void) state;

	extts_pair_init(&p, 0);
	(void) extts_pair_edge(&p, t - NS_PER_SEC, T0, &tpv, TAI_UTC, true, &s);
	assert_int_equal(extts_pair_edge(&p, t, T0 + 1000000, &tpv, TAI_UTC, true, &s),
			 EXTTS_PAIR_AMBIGUOUS);
	/* no leap pending: midnight is paired (the ambiguous edge set no label) */
	assert_int_equal(
		extts_pair_edge(&p, t + NS_PER_SEC, T0 + 1000000 + 1000, &tpv, TAI_UTC, false, &s),
		EXTTS_PAIR_OK);
	assert_int_equal(s.tai_s, midnight + TAI_UTC);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_AMBIGUOUS], 1);
}

/* An edge the kernel may report (below 2^63 ns) whose correction would overflow: refused. */
static void test_out_of_range(void **state)
{
	struct extts_pair p;
	struct extts_sample s;
	int64_t t = (INT64_MAX / NS_PER_SEC - 1) * NS_PER_SEC + 999999999;
	struct extts_tpv tpv = tpv_at(UTC0, T0 + 100000);
	(void) state;

	extts_pair_init(&p, NS_PER_SEC);
	(void) extts_pair_edge(&p, t - NS_PER_SEC, T0, &tpv, TAI_UTC, false, &s);
	assert_int_equal(extts_pair_edge(&p, t, T0 + 1000000, &tpv, TAI_UTC, false, &s),
			 EXTTS_PAIR_OUT_OF_RANGE);
	assert_int_equal(p.counters.refused[EXTTS_PAIR_OUT_OF_RANGE], 1);
	assert_int_equal(p.counters.paired, 0);
}

/* gpsd ok and edges paired: ok; edges stopped for more than 2 s: not ok; gpsd's own loss wins. */
static void test_judge(void **state)
{
	struct time_source_report gpsd = { .ok = true, .reason = "gpsd: ok", .utc_offset = 37 };
	struct time_source_report r;
	struct extts_pair p;
	struct extts_sample s;
	struct extts_tpv tpv = tpv_at(UTC0, T0 + 100000);
	(void) state;

	extts_pair_init(&p, 0);
	extts_pair_judge(&p, &gpsd, T0, &r);
	assert_false(r.ok);
	assert_string_equal(r.reason, "PHC pin: no paired 1PPS edge yet");
	assert_int_equal(extts_pair_deadline(&p), 0);
	(void) extts_pair_edge(&p, (UTC0 + TAI_UTC - 1) * NS_PER_SEC, T0 - 1000000, &tpv, TAI_UTC,
			       false, &s);
	assert_int_equal(extts_pair_edge(&p, (UTC0 + TAI_UTC) * NS_PER_SEC, T0 + 200000, &tpv,
					 TAI_UTC, false, &s),
			 EXTTS_PAIR_OK);
	extts_pair_judge(&p, &gpsd, T0 + 200000 + EXTTS_PAIR_LOST_USEC, &r);
	assert_true(r.ok);
	assert_int_equal(r.utc_offset, 37);
	assert_string_equal(r.reason, "gpsd: a fix, the 1PPS on the PHC's pin paired with its TPV");
	assert_int_equal(extts_pair_deadline(&p), T0 + 200000 + EXTTS_PAIR_LOST_USEC + 1);
	extts_pair_judge(&p, &gpsd, extts_pair_deadline(&p), &r);
	assert_false(r.ok);
	assert_string_equal(r.reason, "PHC pin: no paired 1PPS edge for 2 s");
	gpsd = (struct time_source_report){ .ok = false, .reason = "gpsd: no fix" };
	extts_pair_judge(&p, &gpsd, T0 + 200000, &r);
	assert_false(r.ok);
	assert_string_equal(r.reason, "gpsd: no fix");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_exactly),  cmocka_unit_test(test_tpv_before_edge_read),
		cmocka_unit_test(test_correction),     cmocka_unit_test(test_tpv_refused),
		cmocka_unit_test(test_interval),       cmocka_unit_test(test_same_second),
		cmocka_unit_test(test_leap_ambiguous), cmocka_unit_test(test_judge),
		cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
