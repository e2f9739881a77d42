// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A grandmaster's 1PPS on its PHC's pin wired in (daemon/instance-pin.c, instance-source.c): an
 * instance with time_source gnss, clock_backend phc and ts2phc.pin_index on a fake NIC with pins
 * (tests/unit/fake-nic.c), fed gpsd reports and TPV seconds: the pin enabled as ts2phc does, edges
 * paired with the exact offset, a stale TPV refused, events of another channel or impossible times
 * counted and dropped, the reference lost when edges stop, a PHC that refuses the pin leaving
 * gpsd's PPS with the reason on D-Bus, the pin given back when the key goes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/time-util.h"
#include "daemon/clock-mode-step.h"
#include "daemon/instance-follow.h"
#include "daemon/instance-pin.h"
#include "daemon/phc-follow.h"
#include "tests/doubles/clock-sim.h"
#include "daemon/instance-source.h"
#include "daemon/manager-internal.h"
#include "tests/unit/fake-nic.h"
#include "tests/unit/mode-rig.h"

/* 2026-12-07 10:00:00 UTC; TAI - UTC 37 from gpsd. */
#define UTC0 INT64_C(1796637600)
#define TAI_UTC 37

static int fake_open(void *userdata, int phc_index)
{
	(void) userdata;
	return phc_index == 0 ? FAKE_NIC_FD : -ENOENT;
}

static void fake_close(void *userdata, int fd)
{
	(void) userdata;
	assert_int_equal(fd, FAKE_NIC_FD);
}

static const struct instance_pin_ops fake_pin_ops = {
	.open = fake_open,
	.close = fake_close,
	.extts = &fake_nic_ops,
};

static void gnss_pin(struct instance_options *o)
{
	o->time_source = OPTIONS_TIME_SOURCE_GNSS;
	o->clock_backend = OPTIONS_CLOCK_PHC;
	o->pin.pin_index = 1;
	o->pin.channel = 0;
	o->pin.extts_correction = -20;
}

/* One MASTER port on /dev/ptp0 with hardware timestamps, the NIC's pins behind the seam. */
static void rig_init(struct mode_rig *r, struct fake_phc *nic)
{
	mode_rig_init(r, "gm", true, gnss_pin, NULL, true);
	r->port.timestamping = TRANSPORT_TS_MODE_HARDWARE;
	r->port.phc_index = 0;
	r->port.enabled = true;
	snprintf(r->port.ifname, sizeof(r->port.ifname), "eth0");
	r->m.pin_ops = &fake_pin_ops;
	r->m.pin_userdata = nic;
}

/* gpsd says: a fix, its time of day, TAI - UTC 37. */
static void gpsd_ok(struct mode_rig *r)
{
	struct time_source_report g = {
		.at_usec = time_mono_usec(),
		.ok = true,
		.utc_offset_valid = true,
		.utc_offset = TAI_UTC,
		.max_error_ns = -1,
		.est_error_ns = -1,
		.reason = "gpsd: a fix, time of day (TOFF)",
	};

	instance_source_report(r->inst, &g);
}

static void expect_reference(struct mode_rig *r, bool ok, const char *reason)
{
	const struct time_source_report *last = &r->inst->reference.last;

	if (last->ok != ok || strcmp(last->reason, reason)) {
		fail_msg("expected the reference %s (%s), got %s (%s)", ok ? "ok" : "not ok",
			 reason, last->ok ? "ok" : "not ok", last->reason);
	}
}

/*
 * Edge k of a second at PHC time UTC0 + k + 37 s + phc_err ns, read at at_usec, the TPV of the
 * second before it having come 880 ms earlier (a receiver that sends 120 ms after the edge).
 */
static void edge(struct mode_rig *r, struct fake_phc *nic, int k, int64_t phc_err, uint64_t at_usec)
{
	struct extts_tpv tpv = {
		.valid = true,
		.utc_ns = (UTC0 + k - 1) * NS_PER_SEC,
		.at_usec = at_usec - 880000,
	};

	fake_nic_queue(nic, 0, UTC0 + k + TAI_UTC, (uint32_t) phc_err);
	instance_pin_read(r->inst, at_usec, &tpv);
}

/* Enabled as ts2phc does; edges paired exactly (the correction added); lost when they stop. */
static void test_pairs_and_loses(void **state)
{
	struct fake_phc nic = fake_nic();
	const struct extts_pair *p;
	const struct phc_extts *x;
	const char *why;
	struct mode_rig r;
	uint64_t t0 = time_mono_usec();

	(void) state;
	rig_init(&r, &nic);
	gpsd_ok(&r);
	/* before the derive pass enabled the pin: gpsd's word alone */
	expect_reference(&r, true, "gpsd: a fix, time of day (TOFF)");
	instance_pin_update(r.inst);
	expect_reference(&r, false, "PHC pin: no paired 1PPS edge yet");
	assert_int_equal(instance_pin_phc(r.inst), 0);
	assert_int_equal(nic.n_calls, 3);
	assert_int_equal(nic.calls[1].request, PTP_PIN_SETFUNC2);
	assert_int_equal(nic.calls[1].index, 1);
	assert_int_equal(nic.calls[1].func, PTP_PF_EXTTS);
	assert_int_equal(nic.calls[2].request, PTP_EXTTS_REQUEST2);
	assert_int_equal(nic.calls[2].flags, PTP_ENABLE_FEATURE | PTP_RISING_EDGE);
	/* a second update changes nothing */
	instance_pin_update(r.inst);
	assert_int_equal(nic.n_calls, 3);

	/* 1 s apart on the PHC, 500 ns then 520 ns ahead of TAI */
	edge(&r, &nic, 0, 500, t0 - 2000000);
	expect_reference(&r, false, "PHC pin: no paired 1PPS edge yet");
	edge(&r, &nic, 1, 500, t0 - 1000000);
	p = instance_pin_pair(r.inst);
	assert_non_null(p);
	assert_int_equal(p->counters.paired, 1);
	assert_int_equal(p->last.tai_s, UTC0 + 1 + TAI_UTC);
	assert_int_equal(p->last.offset_ns, 480);
	edge(&r, &nic, 2, 520, t0);
	assert_int_equal(p->counters.paired, 2);
	assert_int_equal(p->last.offset_ns, 500);
	expect_reference(&r, true, "gpsd: a fix, the 1PPS on the PHC's pin paired with its TPV");
	/* the PHC's follower is not locked to the pin yet (no loop here): no lock */
	assert_false(instance_source_locked(r.inst, &why));
	assert_string_equal(why, "the PHC is not yet locked to the 1PPS on its pin");

	/* a stale TPV (2 s old): refused, the edge dropped; gpsd's other reports keep it ok */
	{
		struct extts_tpv old = { .valid = true,
					 .utc_ns = (UTC0 + 1) * NS_PER_SEC,
					 .at_usec = t0 - 1000000 };

		fake_nic_queue(&nic, 0, UTC0 + 3 + TAI_UTC, 500);
		instance_pin_read(r.inst, t0 + 1000000, &old);
	}
	assert_int_equal(p->counters.refused[EXTTS_PAIR_STALE_TPV], 1);
	assert_int_equal(p->counters.paired, 2);

	/* another channel's event and an impossible nanosecond: counted and dropped */
	fake_nic_queue(&nic, 1, UTC0 + 4 + TAI_UTC, 0);
	fake_nic_queue(&nic, 0, UTC0 + 4 + TAI_UTC, 1000000000);
	instance_pin_read(r.inst, t0 + 1500000, NULL);
	x = instance_pin_extts(r.inst);
	assert_non_null(x);
	assert_int_equal(x->foreign, 1);
	assert_int_equal(x->rejected, 1);
	assert_int_equal(p->counters.edges, 4);

	/* edges stop: 2 s after the last paired one (at t0) the reference is lost */
	{
		struct extts_pair *pw = (struct extts_pair *) p;

		pw->paired_usec = time_mono_usec() - EXTTS_PAIR_LOST_USEC - 1;
	}
	instance_source_pin_changed(r.inst);
	expect_reference(&r, false, "PHC pin: no paired 1PPS edge for 2 s");

	/* the key gone (a reload): the pin given back */
	r.inst->options.pin.pin_index = -1;
	instance_pin_update(r.inst);
	assert_int_equal(instance_pin_phc(r.inst), -1);
	assert_int_equal(nic.n_calls, 5);
	assert_int_equal(nic.calls[4].request, PTP_PIN_SETFUNC2);
	assert_int_equal(nic.calls[4].func, PTP_PF_NONE);
	expect_reference(&r, true, "gpsd: a fix, time of day (TOFF)");
	instance_free(r.inst);
}

/*
 * A PHC that refuses the pin: logged, not asked again, gpsd's PPS report taken with a reason
 * that says why (D-Bus ReferenceReason), and the PHC never counted as on the reference.
 */
static void test_refused(void **state)
{
	static const struct {
		struct ptp_clock_caps caps;
		unsigned long request;
		int error;
		const char *reason;
	} cases[] = {
		{ { .n_pins = 0, .n_ext_ts = 2 },
		  0,
		  0,
		  "gpsd's PPS: the PHC has no pin or no external timestamp channel (ENODEV)" },
		{ { .n_pins = 1, .n_ext_ts = 2 },
		  0,
		  0,
		  "gpsd's PPS: ts2phc.pin_index or ts2phc.channel beyond the PHC's (ERANGE)" },
		{ { .n_pins = 4, .n_ext_ts = 2 },
		  PTP_PIN_SETFUNC2,
		  EBUSY,
		  "gpsd's PPS: the PHC's pin is in use (EBUSY)" },
		{ { .n_pins = 4, .n_ext_ts = 2 },
		  PTP_EXTTS_REQUEST2,
		  EOPNOTSUPP,
		  "gpsd's PPS: the PHC's driver cannot timestamp the pin (EOPNOTSUPP)" },
	};

	(void) state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fake_phc nic = { .caps = cases[k].caps,
					.fail_request = cases[k].request,
					.fail_errno = cases[k].error };
		struct mode_rig r;
		const char *why;
		size_t calls;

		rig_init(&r, &nic);
		instance_pin_update(r.inst);
		assert_int_equal(instance_pin_phc(r.inst), -1);
		assert_null(instance_pin_pair(r.inst));
		calls = nic.n_calls;
		instance_pin_update(r.inst);
		assert_int_equal(nic.n_calls, calls);
		gpsd_ok(&r);
		expect_reference(&r, true, cases[k].reason);
		assert_false(instance_source_locked(r.inst, &why));
		assert_string_equal(why, cases[k].reason);
		/* edges (if any came) are not read */
		fake_nic_queue(&nic, 0, UTC0, 0);
		instance_pin_read(r.inst, time_mono_usec(), NULL);
		assert_int_equal(nic.head, 0);
		instance_free(r.inst);
	}
}

/* ---- the whole path: edges -> pairing -> the PHC's follower -> the clock mode ---- */

static int sim_measure(void *userdata, int phc_index, struct sysoff_pair *ret)
{
	(void) userdata;
	(void) phc_index;
	(void) ret;
	fail_msg("a pin's follower reads nothing at a tick");
	return -EIO;
}

static int sim_open(void *userdata, int phc_index, struct clock **ret)
{
	if (phc_index != 0) {
		return -ENODEV;
	}
	*ret = userdata;
	return 0;
}

static void sim_close(void *userdata, struct clock *c)
{
	(void) userdata;
	(void) c;
}

static const struct phc_follow_ops sim_follow_ops = {
	.measure = sim_measure,
	.open = sim_open,
	.close = sim_close,
};

static void derive_step(struct mode_rig *r)
{
	uint64_t wake;

	instance_pin_update(r->inst);
	(void) instance_follow_update(r->inst);
	if (instance_clock_mode_step(r->inst, &wake)) {
		instance_push_own_quality(r->inst);
	}
}

/*
 * A simulated PHC 300 us ahead of TAI and 20 ppm fast, its pin taking a true 1PPS (each edge's
 * time stamp the PHC's time at a true second), ts2phc.extts_correction -5000 ns, gpsd's TPV
 * 120 ms after each edge: the follower steps once and locks the PHC within 200 ns of TAI + 5 us,
 * the instance locks (class 6); edges stop: holdover (class 7), the
 * PHC's last frequency kept.
 */
static void test_steers_and_holds(void **state)
{
	struct clock_sim_config cc = {
		.start = (UTC0 + TAI_UTC) * NS_PER_SEC,
		.freq_error_ppb = 20000,
		.seed = 5,
		.max_freq_ppb = 500000,
	};
	struct fake_phc nic = fake_nic();
	struct instance_follower_info fl;
	struct clock *phc;
	struct mode_rig r;
	sd_event *e;
	int efd;

	(void) state;
	/* the loop wants a real fd to watch: an eventfd where the fake NIC expects its PHC */
	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	assert_int_equal(dup2(efd, FAKE_NIC_FD), FAKE_NIC_FD);
	close(efd);
	assert_int_equal(clock_sim_new(&cc, &phc), 0);
	assert_int_equal(clock_step(phc, 300000), 0);
	assert_int_equal(sd_event_new(&e), 0);
	rig_init(&r, &nic);
	r.m.event = e;
	r.m.follow_ops = &sim_follow_ops;
	r.m.follow_userdata = phc;
	/* a cable and input 5 us late: the PHC kept 5 us ahead of the edges' seconds */
	r.inst->options.pin.extts_correction = -5000;
	gpsd_ok(&r);
	derive_step(&r);
	assert_int_equal(instance_pin_phc(r.inst), 0);
	for (int k = 1; k <= 40; k++) {
		ns_t t;
		uint64_t at = time_mono_usec();
		struct extts_tpv tpv = { .valid = true,
					 .utc_ns = (UTC0 + k - 1) * NS_PER_SEC,
					 .at_usec = at - 880000 };

		assert_int_equal(clock_sim_advance(phc, NS_PER_SEC), 0);
		t = clock_sim_true_time(phc) + clock_sim_error(phc);
		assert_int_equal(clock_sim_true_time(phc), (UTC0 + k + TAI_UTC) * NS_PER_SEC);
		fake_nic_queue(&nic, 0, t / NS_PER_SEC, (uint32_t) (t % NS_PER_SEC));
		instance_pin_read(r.inst, at, &tpv);
		gpsd_ok(&r);
		derive_step(&r);
	}
	assert_int_equal(instance_followers(r.inst, &fl, 1), 1);
	assert_int_equal(fl.phc_index, 0);
	assert_int_equal(fl.source_phc_index, -3);
	assert_string_equal(fl.state, "locked");
	assert_int_equal(fl.steps, 1);
	if (llabs(clock_sim_error(phc) - 5000) >= 200) {
		fail_msg("expected the PHC within 200 ns of TAI + 5000 ns (the edge's time stamp "
			 "- 5000 ns on TAI), got %lld ns",
			 (long long) clock_sim_error(phc));
	}
	if (r.inst->clock_mode.mode != CLOCK_MODE_LOCKED) {
		fail_msg("expected locked, got %s (%s)",
			 clock_mode_to_string(r.inst->clock_mode.mode), r.inst->reference.reason);
	}
	assert_int_equal(r.inst->push_gm_settings.clockQuality.clockClass, 6);

	/* edges stop: 2 s after the last pair the reference is lost, holdover */
	((struct extts_pair *) instance_pin_pair(r.inst))->paired_usec = time_mono_usec() -
									 EXTTS_PAIR_LOST_USEC - 1;
	instance_source_pin_changed(r.inst);
	gpsd_ok(&r);
	derive_step(&r);
	if (r.inst->clock_mode.mode != CLOCK_MODE_HOLDOVER_IN_SPEC) {
		fail_msg("expected holdover, got %s (%s)",
			 clock_mode_to_string(r.inst->clock_mode.mode), r.inst->reference.reason);
	}
	assert_int_equal(r.inst->push_gm_settings.clockQuality.clockClass, 7);
	assert_string_equal(r.inst->reference.reason, "PHC pin: no paired 1PPS edge for 2 s");
	instance_free(r.inst);
	sd_event_unref(e);
	clock_free(phc);
	close(FAKE_NIC_FD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_and_loses),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_steers_and_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
