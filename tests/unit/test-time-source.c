// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A grandmaster's own time source (issue 28): the kernel's sync state judged (time-source-
 * system.c), and every transition of the clock-mode machine of a T-GM fed by its reports
 * (instance-source.c, clock-mode-step.c): the class, flags, UTC offset and timeSource announced
 * in each, the hysteresis back to locked, a stale or unusable reference, the override.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/time-util.h"
#include "daemon/clock-mode-step.h"
#include "daemon/instance-source.h"
#include "daemon/manager-internal.h"
#include "daemon/time-source-system.h"
#include "tests/unit/mode-rig.h"

/* ---- the kernel's sync state ---- */

static void test_judge(void **state)
{
	struct timex tx = { .status = 0, .maxerror = 1500, .tai = 37 };
	struct time_source_report r;

	time_source_system_judge(&tx, TIME_OK, 42, 7, &r);
	assert_true(r.ok);
	assert_int_equal(r.at_usec, 42);
	assert_true(r.has_offset);
	assert_int_equal(r.offset_ns, 0);
	assert_int_equal(r.realtime_ns, 7);
	assert_int_equal(r.max_error_ns, 1500000);
	assert_int_equal(r.est_error_ns, 0);
	assert_true(r.utc_offset_valid);
	assert_int_equal(r.utc_offset, 37);
	assert_false(r.leap61 || r.leap59);
	assert_string_equal(r.reason, "the kernel's clock is synchronized");

	tx.status = STA_UNSYNC;
	time_source_system_judge(&tx, TIME_ERROR, 42, 7, &r);
	assert_false(r.ok);
	assert_string_equal(r.reason, "the kernel's clock is not synchronized (STA_UNSYNC)");

	tx.status = 0;
	time_source_system_judge(&tx, TIME_ERROR, 42, 7, &r);
	assert_false(r.ok);
	assert_string_equal(r.reason, "the kernel's clock state is TIME_ERROR");

	tx.esterror = 250;
	time_source_system_judge(&tx, TIME_OK, 42, 7, &r);
	assert_int_equal(r.est_error_ns, 250000);
	tx.esterror = TIME_SOURCE_SYSTEM_MAXERROR_LIMIT_US;
	time_source_system_judge(&tx, TIME_OK, 42, 7, &r);
	assert_int_equal(r.est_error_ns, -1);

	tx.maxerror = TIME_SOURCE_SYSTEM_MAXERROR_LIMIT_US;
	time_source_system_judge(&tx, TIME_OK, 42, 7, &r);
	assert_false(r.ok);
	assert_int_equal(r.max_error_ns, -1);

	/* A TAI offset nobody set (0) or out of range is no UTC offset; leap bits pass. */
	tx = (struct timex){ .status = STA_INS, .maxerror = 10, .tai = 0 };
	time_source_system_judge(&tx, TIME_INS, 42, 7, &r);
	assert_true(r.ok);
	assert_false(r.utc_offset_valid);
	assert_true(r.leap61);
	tx.tai = 5000;
	tx.status = STA_DEL;
	time_source_system_judge(&tx, TIME_DEL, 42, 7, &r);
	assert_false(r.utc_offset_valid);
	assert_true(r.leap59);

	time_source_system_judge(&tx, -EPERM, 42, 7, &r);
	assert_false(r.ok);
	assert_false(r.has_offset);
	assert_string_equal(r.reason, "cannot read the kernel's clock state");
}

/* ---- the T-GM machine wired in ---- */

/* time_source system on a clock that is CLOCK_REALTIME itself: on the reference whenever no port
 * follows a master. */
static void tgm(struct instance_options *o)
{
	o->time_source = OPTIONS_TIME_SOURCE_SYSTEM;
	o->clock_backend = OPTIONS_CLOCK_SYSTEM;
	o->holdover.gm_out_of_spec_class = 150;
}

/* One instance with a time source and one MASTER port. */
static void rig_init(struct mode_rig *r, bool g8275, void (*tune)(struct instance_options *))
{
	mode_rig_init(r, "tgm", g8275, tgm, tune, true);
	assert_non_null(r->inst->source);
}

/* One derive step: the quality pushed when it moved. */
static void step(struct mode_rig *r)
{
	uint64_t wake;

	if (instance_clock_mode_step(r->inst, &wake)) {
		instance_push_own_quality(r->inst);
	}
	/* A time source asks for a pass a second: its report may go stale. */
	assert_int_not_equal(wake, 0);
}

/* The kernel says synchronized (or not) now, with TAI - UTC 37; then one derive step. */
static void report_esterror(struct mode_rig *r, bool ok, long esterror_us)
{
	struct timex tx = {
		.status = ok ? 0 : STA_UNSYNC, .maxerror = 1000, .esterror = esterror_us, .tai = 37
	};
	struct time_source_report rep;

	time_source_system_judge(&tx, ok ? TIME_OK : TIME_ERROR, time_mono_usec(),
				 (ns_t) time_usec(CLOCK_REALTIME) * 1000, &rep);
	instance_source_report(r->inst, &rep);
	step(r);
}

static void report(struct mode_rig *r, bool ok)
{
	report_esterror(r, ok, 0);
}

/* What the instance announces as grandmaster, and what its workers were sent last. */
static void expect(struct mode_rig *r, enum clock_mode mode, uint8_t cls, bool traceable)
{
	struct defaultDS dds;
	struct gm_settings gm;

	if (r->inst->clock_mode.mode != mode) {
		fail_msg("expected mode %s, got %s (%s; reference: %s)", clock_mode_to_string(mode),
			 clock_mode_to_string(r->inst->clock_mode.mode), r->inst->clock_mode.reason,
			 r->inst->reference.reason);
	}
	instance_default_ds(r->inst, &dds);
	assert_int_equal(dds.clockQuality.clockClass, cls);
	instance_announced_gm_settings(r->inst, &gm);
	assert_int_equal(gm.clockQuality.clockClass, cls);
	assert_int_equal(gm.tp.timeTraceable, traceable);
	assert_int_equal(gm.tp.frequencyTraceable, traceable);
	assert_int_equal(r->inst->push_gm_settings.clockQuality.clockClass, cls);
	assert_int_equal(r->inst->push_gm_settings.tp.timeTraceable, traceable);
}

/* Time passes for the machine: its holdover began, its mode began, this much earlier. */
static void age(struct mode_rig *r, ns_t ns)
{
	struct clock_mode_fsm *f = &r->inst->clock_mode;

	f->since -= ns;
	if (f->ref_lost >= 0) {
		f->ref_lost -= ns;
	}
	if (f->ref_steady_since >= 0) {
		f->ref_steady_since -= ns;
	}
}

static void class_6(struct instance_options *o)
{
	/* A grandmaster by configuration: with a time source, still 248 until locked. */
	o->clockClass = 6;
}

/* G.8275.1 T-GM: 248 -> 6 -> 7 -> 150 -> 248 -> 6, flags with them, UTC and timeSource. */
static void test_g8275_every_transition(void **state)
{
	struct mode_rig r;
	struct gm_settings gm;

	rig_init(&r, true, class_6);
	step(&r);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	assert_string_equal(r.inst->reference.reason, "no report yet");
	assert_false(r.inst->reference.ok);

	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	assert_true(r.inst->reference.ok);
	assert_string_equal(r.inst->reference.reason, "the kernel's clock is synchronized");
	instance_announced_gm_settings(r.inst, &gm);
	assert_int_equal(gm.tp.timeSource, TIME_SOURCE_NTP);
	assert_int_equal(gm.tp.currentUtcOffset, 37);
	assert_true(gm.tp.currentUtcOffsetValid);
	assert_int_equal(r.inst->time_error_ns, 0);

	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	assert_string_equal(r.inst->reference.reason,
			    "the kernel's clock is not synchronized (STA_UNSYNC)");
	instance_announced_gm_settings(r.inst, &gm);
	assert_int_equal(gm.tp.timeSource, TIME_SOURCE_INTERNAL_OSCILLATOR);
	assert_true(r.inst->dirty & INSTANCE_CHANGED_CLOCK_MODE);
	assert_true(r.inst->dirty & INSTANCE_CHANGED_REFERENCE);

	/* Still within holdover_time (300 s): 7. Then beyond: gm_out_of_spec_class. */
	age(&r, 299 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	age(&r, 2 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, 150, false);

	/* holdover_out_of_spec_time (3600 s) from when it went out: free-run, flags cleared. */
	age(&r, 3599 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, 150, false);
	age(&r, 2 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);

	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	instance_free(r.inst);
}

static void lock_10(struct instance_options *o)
{
	o->holdover.lock_time = 10;
}

/* Back to locked only after holdover_lock_time of a steady reference; one bad report restarts it.
 */
static void test_hysteresis(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, lock_10);
	report(&r, true);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	age(&r, 10 * NS_PER_SEC);
	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	report(&r, true);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	age(&r, 9 * NS_PER_SEC);
	report(&r, true);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	/* a flap: the count starts again */
	report(&r, false);
	report(&r, true);
	age(&r, 9 * NS_PER_SEC);
	report(&r, true);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	age(&r, 1 * NS_PER_SEC);
	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	instance_free(r.inst);
}

/* A report that goes stale is no reference; nor is a clock a port's servo steers. */
static void test_stale_and_slave(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, NULL);
	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	r.inst->reference.last.at_usec -= TIME_SOURCE_STALE_USEC + 1;
	step(&r);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	assert_string_equal(r.inst->reference.reason, "no report from the time source for 3 s");

	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	r.port.state = PORT_STATE_SLAVE;
	step(&r);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	assert_string_equal(r.inst->reference.reason,
			    "a port follows a master: the time source steers nothing");
	r.port.state = PORT_STATE_MASTER;

	/* A PHC measured only is not on CLOCK_REALTIME: never locked. */
	r.port.timestamping = TRANSPORT_TS_MODE_HARDWARE;
	report(&r, true);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	assert_string_equal(r.inst->reference.reason,
			    "a PHC measured only is not kept on CLOCK_REALTIME");
	instance_free(r.inst);
}

/* IEEE 1588-2019 Table 4 under the default profile: 6, 7, 52, 248. */
static void test_ieee1588_classes(void **state)
{
	struct mode_rig r;

	rig_init(&r, false, NULL);
	step(&r);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	age(&r, 301 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, 52, false);
	age(&r, 3601 * NS_PER_SEC);
	report(&r, false);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	instance_free(r.inst);
}

/* SetGrandmasterSettings stays the override with a time source, until a reload. */
static void test_override(void **state)
{
	struct mode_rig r;
	struct gm_settings gm;
	struct instance_options file;

	rig_init(&r, true, NULL);
	file = r.inst->options;
	report(&r, false);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	options_gm_settings(&r.inst->options, &gm);
	gm.clockQuality.clockClass = 7;
	gm.tp.timeTraceable = gm.tp.frequencyTraceable = true;
	assert_int_equal(instance_set_gm_settings(r.inst, &gm), 0);
	report(&r, false);
	expect(&r, CLOCK_MODE_FREE_RUN, 7, true);
	instance_apply_options(r.inst, &file);
	report(&r, false);
	expect(&r, CLOCK_MODE_FREE_RUN, 248, false);
	instance_free(r.inst);
}

/*
 * time_source system: EstimatedTimeError is the clock's error against CLOCK_REALTIME (0 for the
 * clock that is CLOCK_REALTIME) plus the kernel's esterror, locked and in holdover; the holdover
 * bound still judges the former only (class 7, not out of specification, with 250 us).
 */
static void test_system_esterror(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, NULL);
	report_esterror(&r, true, 250);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	assert_int_equal(r.inst->time_error_ns, 250000);
	report_esterror(&r, true, 40);
	assert_int_equal(r.inst->time_error_ns, 40000);
	report_esterror(&r, false, 40);
	expect(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 7, true);
	assert_int_equal(r.inst->time_error_ns, 40000);
	instance_free(r.inst);
}

static char leapfile[] = "/tmp/test-time-source-XXXXXX";

static void with_leapfile(struct instance_options *o)
{
	snprintf(o->leapfile, sizeof(o->leapfile), "%s", leapfile);
}

/*
 * A T-GM with text as its leapfile, locked on a source that says TAI - UTC 37: what it announces.
 */
static void locked_with_leapfile(const char *text, struct gm_settings *ret)
{
	struct mode_rig r;
	int fd;

	/* a fresh name each time: mkstemp() writes it into the template */
	memcpy(leapfile + sizeof(leapfile) - 7, "XXXXXX", 6);
	fd = mkstemp(leapfile);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
	close(fd);
	rig_init(&r, true, with_leapfile);
	report(&r, true);
	expect(&r, CLOCK_MODE_LOCKED, 6, true);
	instance_announced_gm_settings(r.inst, ret);
	instance_free(r.inst);
	unlink(leapfile);
}

/* The leapfile's TAI - UTC wins over the source's (which the test makes 37, the file 36). */
static void test_leapfile_wins(void **state)
{
	struct gm_settings gm;

	locked_with_leapfile("3550089600 35\n3644697600 36\n", &gm);
	assert_int_equal(gm.tp.currentUtcOffset, 36);
	assert_true(gm.tp.currentUtcOffsetValid);
	assert_false(gm.tp.leap61 || gm.tp.leap59);
}

/*
 * An expired leapfile (its "#@" expiry in the past) counts as no file: the source's TAI - UTC (37)
 * is announced, not the file's 36. NTP seconds: 36 from 2015-07-01, expired on 2015-12-23.
 */
static void test_leapfile_expired(void **state)
{
	struct gm_settings gm;

	locked_with_leapfile("#@ 3660000000\n3550089600 35\n3644697600 36\n", &gm);
	assert_int_equal(gm.tp.currentUtcOffset, 37);
	assert_true(gm.tp.currentUtcOffsetValid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_g8275_every_transition),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_stale_and_slave),
		cmocka_unit_test(test_ieee1588_classes),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_leapfile_wins),
		cmocka_unit_test(test_leapfile_expired),
		cmocka_unit_test(test_system_esterror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
