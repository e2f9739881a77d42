/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What phcd makes of gpsd's reports: each way to ok and out of it, the offset, TAI - UTC,
 * staleness.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/gpsd-view.h"

#define NS INT64_C(1000000000)
#define SEC UINT64_C(1000000)
#define T0 (UINT64_C(1000) * SEC) /* CLOCK_MONOTONIC of the first report */

static struct gpsd_msg tpv(int mode, bool has_time, int leapseconds, int64_t ept_ns)
{
	return (struct gpsd_msg){
		.cls = GPSD_CLASS_TPV,
		.tpv = { .mode = mode,
			 .has_time = has_time,
			 .time_ns = has_time ? INT64_C(1796627386) * NS : 0,
			 .has_leapseconds = leapseconds >= 0,
			 .leapseconds = leapseconds >= 0 ? leapseconds : 0,
			 .ept_ns = ept_ns },
	};
}

static struct gpsd_msg delta(enum gpsd_class cls, int64_t real_ns, int64_t clock_ns)
{
	return (struct gpsd_msg){ .cls = cls,
				  .delta = { .real_ns = real_ns, .clock_ns = clock_ns } };
}

static void expect(const struct gpsd_view *v, uint64_t now, bool ok, const char *reason)
{
	struct time_source_report r;

	gpsd_view_report(v, now, &r);
	assert_int_equal(r.at_usec, now);
	if (r.ok != ok || !r.reason || strcmp(r.reason, reason)) {
		fail_msg("expected ok %d (%s), got ok %d (%s)", ok, reason, r.ok,
			 r.reason ? r.reason : "no reason");
	}
}

static void test_down(void **state)
{
	struct gpsd_view v;
	struct gpsd_msg m = tpv(3, true, 18, 5000000);
	struct time_source_report r;

	(void) state;
	gpsd_view_down(&v, "gpsd: connection closed");
	expect(&v, T0, false, "gpsd: connection closed");
	assert_int_equal(gpsd_view_deadline(&v, T0), 0);
	/* what was learnt before the loss is forgotten */
	gpsd_view_up(&v);
	(void) gpsd_view_take(&v, &m, T0);
	m = delta(GPSD_CLASS_TOFF, 5 * NS, 5 * NS);
	(void) gpsd_view_take(&v, &m, T0);
	expect(&v, T0, true, "gpsd: a fix, time of day (TOFF)");
	gpsd_view_down(&v, "gpsd: connection lost");
	gpsd_view_report(&v, T0, &r);
	assert_false(r.ok);
	assert_false(r.has_offset);
	assert_false(r.utc_offset_valid);
	assert_int_equal(r.max_error_ns, -1);
	assert_int_equal(gpsd_view_deadline(&v, T0), 0);
}

/* A fix needs a mode of 2 or 3, a time, and a PPS or TOFF; each missing piece has its reason. */
static void test_to_ok_and_back(void **state)
{
	struct gpsd_view v;
	struct gpsd_msg m;
	struct time_source_report r;

	(void) state;
	gpsd_view_up(&v);
	expect(&v, T0, false, "gpsd: connected, no TPV report yet");
	assert_int_equal(gpsd_view_deadline(&v, T0), 0);
	m = tpv(GPSD_MODE_3D, true, -1, -1);
	assert_false(gpsd_view_take(&v, &m, T0));
	expect(&v, T0, false, "gpsd: a fix, no PPS or TOFF report for 3 s");
	/* TOFF: the time of day; real - clock is the offset at the clock's time */
	m = delta(GPSD_CLASS_TOFF, INT64_C(1796627386) * NS, INT64_C(1796627386) * NS + 20406054);
	assert_true(gpsd_view_take(&v, &m, T0 + 1));
	expect(&v, T0 + 1, true, "gpsd: a fix, time of day (TOFF)");
	gpsd_view_report(&v, T0 + 1, &r);
	assert_true(r.has_offset);
	assert_int_equal(r.offset_ns, -20406054);
	assert_int_equal(r.realtime_ns, INT64_C(1796627386) * NS + 20406054);
	assert_false(r.utc_offset_valid);
	assert_int_equal(r.max_error_ns, -1);
	/* PPS comes: it wins over TOFF */
	m = delta(GPSD_CLASS_PPS, INT64_C(1796627387) * NS, INT64_C(1796627386) * NS + 999998765);
	assert_true(gpsd_view_take(&v, &m, T0 + 2));
	gpsd_view_report(&v, T0 + 2, &r);
	assert_true(r.ok);
	assert_string_equal(r.reason, "gpsd: a fix, time from PPS");
	assert_int_equal(r.offset_ns, 1235);
	/* and even a newer TOFF does not take the offset back from a PPS that is still fresh */
	m = delta(GPSD_CLASS_TOFF, INT64_C(1796627387) * NS, INT64_C(1796627387) * NS + 20000000);
	(void) gpsd_view_take(&v, &m, T0 + 3);
	gpsd_view_report(&v, T0 + 3, &r);
	assert_int_equal(r.offset_ns, 1235);
	/* the fix lost: mode 1, the time still there */
	m = tpv(GPSD_MODE_NO_FIX, true, -1, -1);
	(void) gpsd_view_take(&v, &m, T0 + 4);
	expect(&v, T0 + 4, false, "gpsd: no fix");
	m = tpv(GPSD_MODE_UNKNOWN, true, -1, -1);
	(void) gpsd_view_take(&v, &m, T0 + 4);
	expect(&v, T0 + 4, false, "gpsd: no fix");
	/* a 2D fix is a fix */
	m = tpv(GPSD_MODE_2D, true, -1, -1);
	(void) gpsd_view_take(&v, &m, T0 + 5);
	expect(&v, T0 + 5, true, "gpsd: a fix, time from PPS");
	/* a fix without time is not time */
	m = tpv(GPSD_MODE_3D, false, -1, -1);
	(void) gpsd_view_take(&v, &m, T0 + 6);
	expect(&v, T0 + 6, false, "gpsd: a fix without time");
}

/* TAI - UTC is GPS - UTC (gpsd's leapseconds) + 19; the error bound is ept. */
static void test_utc_offset_and_error(void **state)
{
	struct gpsd_view v;
	struct gpsd_msg m;
	struct time_source_report r;

	(void) state;
	gpsd_view_up(&v);
	m = tpv(GPSD_MODE_3D, true, 18, 5000000);
	(void) gpsd_view_take(&v, &m, T0);
	m = delta(GPSD_CLASS_TOFF, 10 * NS, 10 * NS);
	(void) gpsd_view_take(&v, &m, T0);
	gpsd_view_report(&v, T0, &r);
	assert_true(r.ok);
	assert_true(r.utc_offset_valid);
	assert_int_equal(r.utc_offset, 37);
	assert_int_equal(r.max_error_ns, 5000000);
	assert_false(r.leap61);
	assert_false(r.leap59);
	/* 2007's receiver: 14 -> 33 */
	m = tpv(GPSD_MODE_3D, true, 14, -1);
	(void) gpsd_view_take(&v, &m, T0 + 1);
	gpsd_view_report(&v, T0 + 1, &r);
	assert_int_equal(r.utc_offset, 33);
	assert_int_equal(r.max_error_ns, -1);
	/* the next TPV without leapseconds: no longer known from the source */
	m = tpv(GPSD_MODE_3D, true, -1, -1);
	(void) gpsd_view_take(&v, &m, T0 + 2);
	gpsd_view_report(&v, T0 + 2, &r);
	assert_false(r.utc_offset_valid);
}

/* Nothing for GPSD_VIEW_STALE_USEC: the fix and the offset are gone; the deadline says when. */
static void test_stale(void **state)
{
	struct gpsd_view v;
	struct gpsd_msg m;
	struct time_source_report r;

	(void) state;
	gpsd_view_up(&v);
	m = tpv(GPSD_MODE_3D, true, 18, -1);
	(void) gpsd_view_take(&v, &m, T0);
	m = delta(GPSD_CLASS_PPS, 10 * NS, 10 * NS);
	(void) gpsd_view_take(&v, &m, T0);
	m = delta(GPSD_CLASS_TOFF, 10 * NS, 10 * NS + 30000000);
	(void) gpsd_view_take(&v, &m, T0 + SEC);
	assert_int_equal(gpsd_view_deadline(&v, T0), T0 + GPSD_VIEW_STALE_USEC + 1);
	expect(&v, T0 + GPSD_VIEW_STALE_USEC, true, "gpsd: a fix, time from PPS");
	/* past it: TPV stale, PPS stale, TOFF still fresh */
	expect(&v, T0 + GPSD_VIEW_STALE_USEC + 1, false, "gpsd: no TPV report for 3 s");
	gpsd_view_report(&v, T0 + GPSD_VIEW_STALE_USEC + 1, &r);
	assert_true(r.has_offset);
	assert_int_equal(r.offset_ns, -30000000);
	assert_false(r.utc_offset_valid);
	assert_int_equal(gpsd_view_deadline(&v, T0 + GPSD_VIEW_STALE_USEC + 1),
			 T0 + SEC + GPSD_VIEW_STALE_USEC + 1);
	/* a TPV again, the TOFF gone stale meanwhile: a fix, no time measurement */
	m = tpv(GPSD_MODE_3D, true, 18, -1);
	(void) gpsd_view_take(&v, &m, T0 + 5 * SEC);
	expect(&v, T0 + 5 * SEC, false, "gpsd: a fix, no PPS or TOFF report for 3 s");
	gpsd_view_report(&v, T0 + 5 * SEC, &r);
	assert_false(r.has_offset);
	/* everything stale: no deadline left */
	assert_int_equal(gpsd_view_deadline(&v, T0 + 9 * SEC), 0);
}

static void test_differs(void **state)
{
	struct time_source_report a = {
		.ok = true, .reason = "x", .offset_ns = 1, .max_error_ns = -1
	};
	struct time_source_report b = a;

	(void) state;
	b.offset_ns = 2;
	b.realtime_ns = 3;
	b.at_usec = 4;
	assert_false(gpsd_view_report_differs(&a, &b)); /* a new measurement is not a change */
	b.reason = "y";
	assert_true(gpsd_view_report_differs(&a, &b));
	b = a;
	b.ok = false;
	assert_true(gpsd_view_report_differs(&a, &b));
	b = a;
	b.utc_offset_valid = true;
	assert_true(gpsd_view_report_differs(&a, &b));
	b = a;
	b.max_error_ns = 5;
	assert_true(gpsd_view_report_differs(&a, &b));
	b = a;
	b.has_offset = true;
	assert_true(gpsd_view_report_differs(&a, &b));
}

/* Classes other than TPV, PPS and TOFF change nothing. */
static void test_ignored(void **state)
{
	static const enum gpsd_class others[] = { GPSD_CLASS_OTHER,   GPSD_CLASS_VERSION,
						  GPSD_CLASS_DEVICES, GPSD_CLASS_DEVICE,
						  GPSD_CLASS_WATCH,   GPSD_CLASS_ERROR };
	struct gpsd_view v, before;

	(void) state;
	gpsd_view_up(&v);
	before = v;
	for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
		struct gpsd_msg m = { .cls = others[k] };

		assert_false(gpsd_view_take(&v, &m, T0));
		assert_memory_equal(&v, &before, sizeof(v));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_to_ok_and_back),
		cmocka_unit_test(test_utc_offset_and_error),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_differs),
		cmocka_unit_test(test_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
