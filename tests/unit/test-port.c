/* The port engine end to end, its measurements: convergence, servo samples, delay, holdover. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/clock.h"
#include "tests/doubles/clock-sim.h"
#include "ptp/msg.h"
#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "tests/unit/port-link.h"

static void converge(enum delay_mechanism dm, double master_ppb, ns_t offset, ns_t residence,
		     ns_t spike, ns_t bound)
{
	struct link l;
	double sum2 = 0;
	int n = 0;

	link_init(&l, master_ppb, offset, dm);
	l.residence = residence;
	if (spike) {
		l.spike_every = 7;
		l.spike = spike;
	}
	link_run(&l, START + 90 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[0].port), PORT_STATE_MASTER);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	for (int i = 0; i < 30; i++) {
		ns_t e;

		link_run(&l, l.now + NS_PER_SEC);
		e = link_error(&l);
		sum2 += (double) e * (double) e;
		n++;
	}
	if (sum2 / n > (double) bound * (double) bound) {
		fail_msg("error RMS %.0f ns over the last 30 s, expected below %lld ns",
			 sqrt(sum2 / n), (long long) bound);
	}
	/* The reported offset agrees with the true one, and the delay with the link. */
	assert_true(llabs(l.s[1].last.mean_path_delay - LINK_DELAY) < 200);
	assert_true(l.s[1].samples > 60);
	assert_no_hostile(&l.s[0]);
	assert_no_hostile(&l.s[1]);
	if (spike) {
		assert_true(port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER) > 0);
	}
	link_free(&l);
}

/* A master 0.5 s and +100 ppm away: the slave steps, then locks (11.3 E2E). */
static void test_converge_e2e(void **state)
{
	converge(DELAY_MECHANISM_E2E, 100000.0, 500 * NS_PER_MSEC, 0, 0, 200);
}

static void test_converge_p2p(void **state)
{
	converge(DELAY_MECHANISM_P2P, -100000.0, -500 * NS_PER_MSEC, 0, 0, 200);
}

/* A transparent clock adds 50 us each way and says so: correctionField must cancel it. */
static void test_converge_correction(void **state)
{
	converge(DELAY_MECHANISM_E2E, 20000.0, NS_PER_MSEC, 50 * NS_PER_USEC, 0, 200);
}

/* Software timestamp spikes (every 7th Sync 40 us late): held back from the servo, counted. */
static void test_converge_spikes(void **state)
{
	converge(DELAY_MECHANISM_E2E, 100000.0, 500 * NS_PER_MSEC, 0, 40 * NS_PER_USEC, 300);
}

/*
 * A slave that only measures (no servo) reports every offset, spikes included, as ptp4l
 * --free_running does: the outlier gate exists to keep spikes from a servo, and without one it
 * would only hide them from the figures.
 */
static void test_free_running_reports_spikes(void **state)
{
	struct link l;

	link_init_free(&l, 0.0, 0, DELAY_MECHANISM_E2E, true, 0);
	l.spike_every = 7;
	l.spike = 100 * NS_PER_USEC;
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_false(l.s[1].last.adjusted);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER), 0);
	/* A late Sync reads as the slave being late by the whole spike. */
	assert_true(l.s[1].max_abs_offset > l.spike / 2);
	link_free(&l);
}

/*
 * With a servo, the outlier gate decides only what the servo gets: every Sync/Follow_Up pair
 * measured is still reported, spikes included (kept from the servo: not adjusted, counted), as
 * linuxptp logs every offset. Hidden, they were the 1-2% of Syncs without a sample in the D-Bus
 * storm bench, and the figures lacked exactly the excursions ptp4l's show.
 */
static void test_servo_reports_every_offset(void **state)
{
	struct link l;
	uint64_t pairs, outliers;
	unsigned samples, kept = 0;

	link_init_free(&l, 100000.0, 500 * NS_PER_MSEC, DELAY_MECHANISM_E2E, false, -3);
	l.spike_every = 7;
	l.spike = 40 * NS_PER_USEC;
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	pairs = port_get_counter(l.s[1].port, PORT_CNT_RX_FOLLOW_UP);
	outliers = port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER);
	samples = l.s[1].samples;
	l.s[1].max_abs_offset = 0;
	for (int i = 0; i < 20 * 8; i++) {
		unsigned before = l.s[1].samples;

		link_run(&l, l.now + NS_PER_SEC / 8);
		if (l.s[1].samples != before && !l.s[1].last.adjusted) {
			kept++;
		}
	}
	pairs = port_get_counter(l.s[1].port, PORT_CNT_RX_FOLLOW_UP) - pairs;
	outliers = port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER) - outliers;
	assert_true(pairs >= 150);
	assert_int_equal(l.s[1].samples - samples, pairs);
	/* The spikes were kept from the servo, and reported. */
	assert_true(outliers >= pairs / 7 - 1);
	assert_true(kept > 0);
	assert_true(l.s[1].max_abs_offset > l.spike / 2);
	link_free(&l);
}

/*
 * Syncs 8/s that jitter by 2 us, no spike: the servo answers each sample with a frequency change
 * of up to a few ppm, and the outlier gate bends its trend line by each change rather than
 * starting over, so no offset is kept from the servo (starting over held back the one after
 * each change of over 1 ppm, 1% of them in the D-Bus storm bench).
 */
static void test_gate_follows_servo(void **state)
{
	struct link l;
	uint64_t outliers;
	unsigned kept = 0, big = 0;
	double freq;

	link_init_free(&l, 100000.0, 500 * NS_PER_MSEC, DELAY_MECHANISM_E2E, false, -3);
	l.sync_jitter = 2 * NS_PER_USEC;
	/* dbus-storm.sh PI="0.7 0.002" (per sample): kp x the jitter is ppm. */
	l.s[1].port->servo->cfg.kp = 0.7;
	l.s[1].port->servo->cfg.ki = 0.002;
	servo_set_interval(l.s[1].port->servo, 0.125);
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	outliers = port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER);
	freq = l.s[1].last.freq_ppb;
	for (int i = 0; i < 30 * 8; i++) {
		unsigned before = l.s[1].samples;

		link_run(&l, l.now + NS_PER_SEC / 8);
		if (l.s[1].samples == before) {
			continue;
		}
		kept += !l.s[1].last.adjusted;
		big += fabs(l.s[1].last.freq_ppb - freq) > 1000.0;
		freq = l.s[1].last.freq_ppb;
	}
	/* The case is the one meant: changes of over 1 ppm, and no offset off the trend. */
	assert_true(big > 0);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER), outliers);
	assert_int_equal(kept, 0);
	link_free(&l);
}

/*
 * Hardware timestamps in a QEMU (TCG) guest: Syncs 8/s late by 0..8 us, and every 13th by 45 us
 * more, about what the closed-loop tier's serial log shows. Such spikes pass the gate now and
 * then (its limit follows the noise), the servo answers one with kp x 45 us, some 60 ppm, and the
 * gate then keeps the next samples, which lie far off the line drawn through the spike, from the
 * servo. While samples are kept the slave's clock must run on the servo's frequency estimate,
 * not on the last answer with its phase correction: held over the three samples kept that one
 * left the PHC some 60 ppm off for half a second (VMTEST-A-SERIES: 52 us passed, freq +48 ppm
 * -> -17.7 ppm, three samples kept, the offset -38 us). Here: true error RMS 11.7 us held, 8.4 us
 * with the estimate.
 */
static void test_kept_samples_hold_frequency(void **state)
{
	struct link l;
	unsigned kept = 0, n = 0;
	double sum2 = 0, rms;

	link_init_free(&l, 50000.0, NS_PER_MSEC, DELAY_MECHANISM_E2E, false, -3);
	l.sync_jitter = 8 * NS_PER_USEC;
	l.spike_every = 13;
	l.spike = 45 * NS_PER_USEC;
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	for (int i = 0; i < 60 * 8; i++) {
		unsigned before = l.s[1].samples;
		ns_t e;

		link_run(&l, l.now + NS_PER_SEC / 8);
		e = link_error(&l);
		sum2 += (double) e * (double) e;
		n++;
		kept += l.s[1].samples != before && !l.s[1].last.adjusted;
	}
	rms = sqrt(sum2 / n);
	/* The case is the one meant: samples kept from the servo. */
	assert_true(kept > 0);
	if (rms > 10000.0) {
		fail_msg("true error RMS %.0f ns over 60 s (%u samples kept), expected below 10 us",
			 rms, kept);
	}
	link_free(&l);
}

/* Hardware timestamps: the port's servo takes linuxptp's hardware constants (sw_ts false). */
static void hw_ts_tweak(int idx, struct port_config *pc)
{
	(void) idx;
	pc->utc_timescale = false;
}

/*
 * Hardware timestamps with QEMU's one-sided noise (igb under TCG on the seat that waits behind
 * another NIC, docs/performance.md): each Sync late by 0..40 us, every 13th by 45 us more, Sync at
 * 8/s, the master 50 ppm fast. Locked, the slave's clock is knocked 300 us ahead (a step by someone
 * else, a stall). The outlier gate's noise estimate is tens of us here; the PI once lowered its
 * gains by it (the integrator's by its square), made for software timestamps, and with hardware
 * ones that slowed the recovery: it settled within 30 us only after 14 s, true error RMS 25 us
 * from 10 s to 30 s after; without the scaling 5.8 s and 13 us (the closed-loop tier had +300 us
 * take 15 s to halve).
 */
static void test_hw_recovery_one_sided_noise(void **state)
{
	struct link l;
	int settled = 0, n = 0;
	double sum2 = 0, rms;

	memset(&l, 0, sizeof(l));
	l.now = START;
	l.log_sync = -3;
	l.servo = SERVO_TYPE_PI;
	l.tweak = hw_ts_tweak;
	side_init(&l, 0, 100, 50000.0, 0, DELAY_MECHANISM_E2E);
	side_init(&l, 1, 200, 0.0, NS_PER_MSEC, DELAY_MECHANISM_E2E);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	l.sync_jitter = 40 * NS_PER_USEC;
	l.spike_every = 13;
	l.spike = 45 * NS_PER_USEC;
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	if (llabs(link_error(&l)) > 30 * NS_PER_USEC) {
		fail_msg("not locked before the disturbance: true error %lld ns",
			 (long long) link_error(&l));
	}
	assert_int_equal(clock_step(l.s[1].clk, 300 * NS_PER_USEC), 0);
	for (int i = 1; i <= 30 * 8; i++) {
		ns_t e;

		link_run(&l, l.now + NS_PER_SEC / 8);
		e = llabs(link_error(&l));
		if (e > 30 * NS_PER_USEC) {
			settled = i; /* the last sample out of 30 us */
		}
		if (i > 10 * 8) {
			sum2 += (double) e * (double) e;
			n++;
		}
	}
	rms = sqrt(sum2 / n);
	print_message("after 300 us: within 30 us for good after %.3f s, true error RMS %.0f ns "
		      "from 10 s to 30 s\n",
		      settled / 8.0, rms);
	if (settled > 8 * 8) {
		fail_msg("after a 300 us disturbance: within 30 us for good only after %.3f s, "
			 "expected 8 s",
			 settled / 8.0);
	}
	if (rms > 20000.0) {
		fail_msg("true error RMS %.0f ns from 10 s to 30 s after, expected below 20 us",
			 rms);
	}
	link_free(&l);
}

static int cmp_ns(const void *a, const void *b)
{
	ns_t x = *(const ns_t *) a, y = *(const ns_t *) b;

	return x < y ? -1 : x > y;
}

/* Run a link with Syncs late by a uniform 0..jitter; the median |offset| reported over 200 s. */
static ns_t median_offset(bool slave_free, enum servo_type servo, ns_t jitter, uint64_t seed,
			  uint64_t *outliers)
{
	enum {
		N = 200
	};
	struct link l;
	ns_t off[N];
	int n = 0;

	link_init_servo(&l, 0.0, 0, DELAY_MECHANISM_E2E, slave_free, 0, servo);
	l.sync_jitter = jitter;
	l.rng = seed;
	if (!slave_free && servo == SERVO_TYPE_PI) {
		/* linuxptp's hardware constants at Sync 1/s, as set by hand */
		l.s[1].port->servo->cfg.kp = 0.7;
		l.s[1].port->servo->cfg.ki = 0.3;
		servo_set_interval(l.s[1].port->servo, 1.0);
	}
	link_run(&l, START + 60 * NS_PER_SEC);
	*outliers = port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER);
	while (n < N) {
		unsigned before = l.s[1].samples;

		link_run(&l, l.now + NS_PER_SEC);
		if (l.s[1].samples != before) {
			off[n++] = llabs(l.s[1].last.offset);
		}
	}
	*outliers = port_get_counter(l.s[1].port, PORT_CNT_OFFSET_OUTLIER) - *outliers;
	link_free(&l);
	qsort(off, N, sizeof(off[0]), cmp_ns);
	return off[N / 2];
}

/*
 * Packet delay variation of 0..100 us, uniform, at Sync 1/s, PI with Kp 0.7, Ki 0.3 and linreg:
 * the servoed offsets' median stays within 1.5 times the raw (free-running) offsets' median. The
 * gate once learnt its noise only from samples it passed and started over after three rejections,
 * so it passed one sample in five, and the PI, whose gains are per sample, corrected each of those
 * five times over: 11-25 times the raw median.
 */
static void test_jitter_gate_and_servo(void **state)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		enum servo_type type = seed <= 3 ? SERVO_TYPE_PI : SERVO_TYPE_LINREG;
		uint64_t out_raw, out_servo;
		ns_t raw = median_offset(true, type, 100 * NS_PER_USEC, seed, &out_raw);
		ns_t servo = median_offset(false, type, 100 * NS_PER_USEC, seed, &out_servo);

		print_message(
			"%s, seed %llu: median |offset| raw %lld ns, servoed %lld ns (%.2fx), "
			"%llu of 200 kept from the servo\n",
			options_clock_servo_to_string(type), (unsigned long long) seed,
			(long long) raw, (long long) servo, (double) servo / (double) raw,
			(unsigned long long) out_servo);
		if ((double) servo > 1.5 * (double) raw) {
			fail_msg("servoed median %lld ns, expected at most 1.5 x the raw %lld ns",
				 (long long) servo, (long long) raw);
		}
	}
}

/*
 * Syncs 8/s that jitter by 4 us: each raw path delay sample is off by half a Sync's jitter at
 * most. A master/local rate ratio taken from two consecutive Syncs would be off by up to
 * 4 us / 125 ms = 32 ppm, and scaled by t3 - t2 add up to another 2 us to the sample.
 */
static void test_rate_ratio_jitter(void **state)
{
	const ns_t jitter = 4 * NS_PER_USEC;
	struct link l;
	ns_t worst = 0;

	link_init_free(&l, 0.0, 0, DELAY_MECHANISM_E2E, true, -3);
	l.sync_jitter = jitter;
	/* Every raw sample, no median to hide one. */
	assert_int_equal(delay_filter_init(&l.s[1].port->delay.filter, DELAY_FILTER_MEDIAN, 1), 0);
	link_run(&l, START + 20 * NS_PER_SEC);
	/* (A filter of one keeps the port from offsets, and UNCALIBRATED: it still measures.) */
	assert_true(l.s[1].port->delay.valid);
	for (int i = 0; i < 120; i++) {
		ns_t e;

		link_run(&l, l.now + NS_PER_SEC / 2);
		e = llabs(l.s[1].port->delay.value - (LINK_DELAY + jitter / 4));
		worst = e > worst ? e : worst;
	}
	if (worst > jitter / 4 + 200) {
		fail_msg("path delay sample %lld ns off, expected at most %lld", (long long) worst,
			 (long long) (jitter / 4 + 200));
	}
	link_free(&l);
}

static void locked_before_tweak(int idx, struct port_config *pc)
{
	pc->clock_locked_before = idx == 1;
}

/*
 * Issue 17: a worker restarted on a clock an earlier worker had locked (clock_locked_before,
 * from the supervisor) takes no first step: a slave 10 ms off slews at most max_frequency
 * instead, while the same slave without the flag steps within a few Syncs.
 */
static void test_locked_before_no_first_step(void **state)
{
	for (int k = 0; k < 2; k++) {
		bool locked_before = k == 1;
		struct link l;
		ns_t err;

		memset(&l, 0, sizeof(l));
		l.now = START;
		l.tweak = locked_before ? locked_before_tweak : NULL;
		side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_E2E);
		side_init(&l, 1, 200, 0.0, 10 * NS_PER_MSEC, DELAY_MECHANISM_E2E);
		assert_int_equal(port_start(l.s[0].port, l.now), 0);
		assert_int_equal(port_start(l.s[1].port, l.now), 0);
		link_run(&l, l.now + 10 * NS_PER_SEC);
		err = llabs(link_error(&l));
		if (locked_before && err < 5 * NS_PER_MSEC) {
			fail_msg("clock_locked_before: error %lld ns 10 s after start, expected no "
				 "step "
				 "(at least 5 ms left of 10 ms at <= 900 ppm of slew)",
				 (long long) err);
		}
		if (!locked_before && err > 100 * NS_PER_USEC) {
			fail_msg("first start: error %lld ns 10 s after start, expected the first "
				 "step",
				 (long long) err);
		}
		link_free(&l);
	}
}

/*
 * Issue 19, time to synchronized: from UNCALIBRATED (master chosen) to SLAVE takes three Syncs
 * at 1/s with the default (software) servo constants, for both servos, from a clock 300 us and
 * 20 ppm off: the first Sync measured goes to the servo once the first path delay is known (the
 * first Delay_Req goes at that Sync), the second gives the frequency estimate and the step, the
 * first after the step (judged by the gate's line, moved by the step) locks. It took 6-8 s when
 * the servo waited for three path delays, random 0-2 s apart, and the gate kept the first offset
 * after the start and after the step. And the clock then holds the master's time.
 */
static void test_fast_start(void **state)
{
	for (int k = 0; k < 2; k++) {
		enum servo_type type = k ? SERVO_TYPE_LINREG : SERVO_TYPE_PI;
		ns_t uncal = 0, slave = 0;
		struct link l;

		link_init_servo(&l, 20000.0, 300 * NS_PER_USEC, DELAY_MECHANISM_E2E, false, 0,
				type);
		link_run_to_slave(&l, &uncal, &slave);
		print_message("%s: UNCALIBRATED to SLAVE in %.2f s\n",
			      options_clock_servo_to_string(type),
			      (double) (slave - uncal) / (double) NS_PER_SEC);
		if (slave - uncal > 3 * NS_PER_SEC + NS_PER_SEC / 2) {
			fail_msg("%s: SLAVE %.2f s after UNCALIBRATED, expected within 3.5 s (3 "
				 "Syncs)",
				 options_clock_servo_to_string(type),
				 (double) (slave - uncal) / (double) NS_PER_SEC);
		}
		link_run(&l, l.now + 30 * NS_PER_SEC);
		assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
		if (llabs(link_error(&l)) > 2 * NS_PER_USEC) {
			fail_msg("%s: error %lld ns 30 s after SLAVE, expected within 2 us",
				 options_clock_servo_to_string(type), (long long) link_error(&l));
		}
		link_free(&l);
	}
}

/*
 * The same with software timestamps' noise (each Sync late by 0..15 us): the gate's first
 * judgements extrapolate the noise of the two samples before them, beyond its 10 us floor now and
 * then, and kept the three offsets after the step from the servo (6 s to SLAVE instead of 2-3).
 * And with a loaded host's 0..100 us: the first frequency estimate is then tens of ppm off, the
 * samples after the step leave the gate's line by as much, and 9 of 24 start-ups took 5 s
 * while the gate's warm-up allowed three rejections in a row (two now: at most 4 s).
 */
static void test_fast_start_noisy(void **state)
{
	/* the bound: 3 Syncs from UNCALIBRATED (2 with one more at 100 us) */
	static const int jitter_us[] = { 15, 100 };
	static const ns_t bound[] = { 3 * NS_PER_SEC + NS_PER_SEC / 2,
				      4 * NS_PER_SEC + NS_PER_SEC / 2 };
	int slow = 0;

	for (size_t j = 0; j < ARRAY_SIZE(jitter_us); j++) {
		for (uint64_t seed = 1; seed <= 12; seed++) {
			ns_t uncal = 0, slave = 0;
			struct link l;

			link_init_servo(&l, 20000.0, 300 * NS_PER_USEC, DELAY_MECHANISM_E2E, false,
					0, seed % 2 ? SERVO_TYPE_PI : SERVO_TYPE_LINREG);
			l.sync_jitter = jitter_us[j] * NS_PER_USEC;
			l.rng = seed;
			link_run_to_slave(&l, &uncal, &slave);
			if (slave - uncal > bound[j]) {
				print_message("jitter %d us, seed %llu: SLAVE %.2f s after "
					      "UNCALIBRATED\n",
					      jitter_us[j], (unsigned long long) seed,
					      (double) (slave - uncal) / (double) NS_PER_SEC);
				slow++;
			}
			link_free(&l);
		}
	}
	if (slow) {
		fail_msg("%d of 24 start-ups took over 3.5 s (3 Syncs; 4.5 s at 100 us) from "
			 "UNCALIBRATED to SLAVE",
			 slow);
	}
}

/*
 * A loaded host's software timestamps: a few us of jitter and, every sixth Sync, a spike of 5-8 us,
 * under the gate's floor, so it passes. Landing among the first samples after the start, it moved
 * the young frequency estimate by ppm; the gate, whose line ran through the last two samples, the
 * spike one of them, then kept the next three true offsets from the servo while the clock ran off,
 * and each later spike did it again: 11 of 24 PI start-ups (9 of 24 linreg) were still over 5 us
 * off 8 s after SLAVE, up to 22 us (ptp4l 4.2's master in CI showed the same: medians of 15 and
 * 20 us). The gate's line now runs through its last four samples (ptp/outlier.c).
 */
static void test_spike_after_start(void **state)
{
	int bad = 0;

	for (int k = 0; k < 2; k++) {
		for (uint64_t seed = 1; seed <= 24; seed++) {
			ns_t uncal = 0, slave = 0, worst = 0;
			struct link l;

			link_init_servo(&l, 20000.0, 300 * NS_PER_USEC, DELAY_MECHANISM_E2E, false,
					0, k ? SERVO_TYPE_LINREG : SERVO_TYPE_PI);
			l.sync_jitter = 2 * NS_PER_USEC;
			l.rng = seed;
			l.spike_every = 6;
			l.spike = (5 + (ns_t) (seed % 4)) * NS_PER_USEC;
			l.spike_phase = (unsigned) (seed % 6);
			link_run_to_slave(&l, &uncal, &slave);
			while (l.now < slave + 20 * NS_PER_SEC) {
				ns_t e;

				link_run(&l, l.now + NS_PER_SEC / 2);
				e = llabs(link_error(&l));
				if (l.now > slave + 8 * NS_PER_SEC && e > worst) {
					worst = e;
				}
			}
			if (worst > 5 * NS_PER_USEC) {
				print_message(
					"%s, seed %llu: |true error| %lld ns between 8 and 20 s "
					"after SLAVE\n",
					k ? "linreg" : "pi", (unsigned long long) seed,
					(long long) worst);
				bad++;
			}
			link_free(&l);
		}
	}
	if (bad) {
		fail_msg("%d of 48 start-ups over 5 us off 8-20 s after SLAVE, expected none", bad);
	}
}

/*
 * A free-running slave of a master 100 ppm off, Sync 1/s: t2 - t1 grows by 100 us a second, so a
 * Delay_Req half a second after its Sync would add 25 us to the path delay with the plain
 * formula. Interpolated between the Syncs around t3 every raw sample stays on the link's delay.
 */
static void test_delay_rate_difference(void **state)
{
	struct link l;
	ns_t worst = 0;

	link_init_free(&l, 100000.0, 0, DELAY_MECHANISM_E2E, true, 0);
	assert_int_equal(delay_filter_init(&l.s[1].port->delay.filter, DELAY_FILTER_MEDIAN, 1), 0);
	link_run(&l, START + 20 * NS_PER_SEC);
	assert_true(l.s[1].port->delay.valid);
	for (int i = 0; i < 120; i++) {
		ns_t e;

		link_run(&l, l.now + NS_PER_SEC / 2);
		e = llabs(l.s[1].port->delay.value - LINK_DELAY);
		worst = e > worst ? e : worst;
	}
	if (worst > 200) {
		fail_msg("path delay sample %lld ns off with the master 100 ppm off, expected <= "
			 "200",
			 (long long) worst);
	}
	link_free(&l);
}

static void test_seq_check(void **state)
{
	static const struct {
		bool have;
		uint16_t last, seq;
		int want;
	} cases[] = {
		{ false, 0, 0, 0 },
		{ true, 10, 11, 0 },
		{ true, 10, 10, PORT_CNT_DUPLICATE_SEQUENCE },
		{ true, 10, 9, PORT_CNT_STALE_SEQUENCE },
		{ true, 65535, 0, 0 }, /* wrap */
		{ true, 0, 65535, PORT_CNT_STALE_SEQUENCE },
		{ true, 0, 65530, PORT_CNT_STALE_SEQUENCE },
		{ true, 1000, 0, 0 }, /* a sender that restarted */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = port_seq_check(cases[i].have, cases[i].last, cases[i].seq);
		if (r != cases[i].want) {
			fail_msg("case %zu: last %u seq %u: got %d, expected %d", i, cases[i].last,
				 cases[i].seq, r, cases[i].want);
		}
	}
}

static void tweak_hybrid_both(int idx, struct port_config *pc)
{
	pc->port.hybrid_e2e = true;
}

static void tweak_hybrid_slave(int idx, struct port_config *pc)
{
	pc->port.hybrid_e2e = idx == 1;
}

/*
 * hybrid_e2e (ptp4l's key): the slave sends each Delay_Req to the address its parent's Syncs
 * come from, unicast flag set; a hybrid master answers a unicast one to its sender (0x7F for
 * logMessageInterval, 13.3.2.14), a master without the key to the group (as ptp4l); with no
 * socket to the peer yet (-ENOTCONN) the message goes to the group, flag clear, no fault. The
 * slave converges in every case.
 */
static void test_hybrid_e2e(void **state)
{
	static const struct {
		void (*tweak)(int idx, struct port_config *pc);
		bool refuse;
		bool want_req_unicast, want_resp_unicast;
	} cases[] = {
		{ tweak_hybrid_both, false, true, true },
		{ tweak_hybrid_slave, false, true, false },
		{ tweak_hybrid_both, true, false, false },
		{ NULL, false, false, false },
	};

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct link l;
		struct side *m, *s;
		uint64_t req, resp;

		memset(&l, 0, sizeof(l));
		l.tweak = cases[k].tweak;
		l.servo = SERVO_TYPE_PI;
		l.now = START;
		side_init(&l, 0, 100, 1000.0, 0, DELAY_MECHANISM_E2E);
		side_init(&l, 1, 200, 0.0, NS_PER_MSEC, DELAY_MECHANISM_E2E);
		m = &l.s[0];
		s = &l.s[1];
		m->refuse_unicast = s->refuse_unicast = cases[k].refuse;
		assert_int_equal(port_start(m->port, l.now), 0);
		assert_int_equal(port_start(s->port, l.now), 0);
		link_run(&l, START + 60 * NS_PER_SEC);
		assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
		if (llabs(link_error(&l)) > 200) {
			fail_msg("case %zu: error %lld ns, expected within 200", k,
				 (long long) link_error(&l));
		}
		req = port_get_counter(s->port, PORT_CNT_TX_DELAY_REQ);
		resp = port_get_counter(m->port, PORT_CNT_TX_DELAY_RESP);
		assert_true(req > 20);
		/* Only the first, sent before a Sync named the parent's address, may go to the
		 * group. */
		if (cases[k].want_req_unicast ? s->unicast_tx[MSG_DELAY_REQ] + 1 < req
					      : s->unicast_tx[MSG_DELAY_REQ] != 0) {
			fail_msg("case %zu: %u of %llu Delay_Req unicast", k,
				 s->unicast_tx[MSG_DELAY_REQ], (unsigned long long) req);
		}
		if (cases[k].want_resp_unicast ? m->unicast_tx[MSG_DELAY_RESP] + 1 < resp
					       : m->unicast_tx[MSG_DELAY_RESP] != 0) {
			fail_msg("case %zu: %u of %llu Delay_Resp unicast", k,
				 m->unicast_tx[MSG_DELAY_RESP], (unsigned long long) resp);
		}
		if (cases[k].want_resp_unicast) {
			assert_int_equal(m->last_unicast_interval[MSG_DELAY_RESP],
					 MSG_LOG_INTERVAL_NONE);
		}
		/* Nothing else unicast, never a flag on a group message, never elsewhere. */
		for (int t = 0; t < 16; t++) {
			assert_int_equal(m->group_flagged_tx[t] + s->group_flagged_tx[t], 0);
			if (t != MSG_DELAY_REQ && t != MSG_DELAY_RESP) {
				assert_int_equal(m->unicast_tx[t] + s->unicast_tx[t], 0);
			}
		}
		assert_int_equal(m->unicast_misaddressed + s->unicast_misaddressed, 0);
		assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_ERROR), 0);
		assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_ERROR), 0);
		assert_no_hostile(m);
		assert_no_hostile(s);
		link_free(&l);
	}
}

/* An asymmetric link (1 us longer towards the slave): off by it, until delayAsymmetry says so. */
static void test_delay_asymmetry(void **state)
{
	for (int configured = 0; configured < 2; configured++) {
		struct link l;
		ns_t e = 0;

		link_init(&l, 1000.0, 0, DELAY_MECHANISM_E2E);
		l.asymmetry = NS_PER_USEC;
		if (configured) {
			/* IEEE 1588-2019 7.4.2: tms = meanPathDelay + delayAsymmetry. */
			l.s[1].port->portds.delayAsymmetry = NS_PER_USEC;
		}
		link_run(&l, START + 90 * NS_PER_SEC);
		assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
		for (int i = 0; i < 10; i++) {
			link_run(&l, l.now + NS_PER_SEC);
			e += link_error(&l);
		}
		e /= 10;
		/* The slave's clock lags by the asymmetry when it does not know it. */
		if (configured ? llabs(e) > 150 : llabs(e + NS_PER_USEC) > 150) {
			fail_msg("delayAsymmetry %s: mean error %lld ns, expected %d ns",
				 configured ? "set" : "unset", (long long) e,
				 configured ? 0 : -1000);
		}
		link_free(&l);
	}
}

/*
 * ingressLatency and egressLatency (ptp4l's keys) on the slave of a perfect link: equal ones
 * shorten the path delay by their sum's half each way and leave the clock alone; an
 * ingressLatency alone leaves the clock ahead by half of it (its t2 is moved earlier, 7.3.4).
 */
static void test_ingress_egress_latency(void **state)
{
	static const struct {
		int32_t ingress, egress;
		ns_t want_error, want_delay;
	} cases[] = {
		{ 0, 0, 0, LINK_DELAY },
		{ 600, 600, 0, LINK_DELAY - 600 },
		{ 1000, 0, 500, LINK_DELAY - 500 },
		{ 0, -400, 200, LINK_DELAY + 200 },
	};

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct link l;
		ns_t e = 0, d = 0;

		link_init(&l, 1000.0, 0, DELAY_MECHANISM_E2E);
		l.s[1].port->cfg.port.ingressLatency = cases[k].ingress;
		l.s[1].port->cfg.port.egressLatency = cases[k].egress;
		link_run(&l, START + 90 * NS_PER_SEC);
		assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
		for (int i = 0; i < 10; i++) {
			link_run(&l, l.now + NS_PER_SEC);
			e += link_error(&l);
			d += l.s[1].last.mean_path_delay;
		}
		e /= 10;
		d /= 10;
		if (llabs(e - cases[k].want_error) > 150 || llabs(d - cases[k].want_delay) > 150) {
			fail_msg("ingressLatency %d egressLatency %d: clock error %lld ns, path "
				 "delay "
				 "%lld ns; expected %lld and %lld",
				 cases[k].ingress, cases[k].egress, (long long) e, (long long) d,
				 (long long) cases[k].want_error, (long long) cases[k].want_delay);
		}
		link_free(&l);
	}
}

/*
 * Holdover: a slave locked on a master 50 ppm off (the slave's clock is the one steered) loses it;
 * the servo state says HOLDOVER, the clock keeps the servo's frequency estimate (not its last
 * answer with a phase correction in it), and 60 s later its true error has grown by less than
 * 5 us (50 ppm unheld would be 3 ms). For PI and linreg.
 */
static void test_holdover(void **state)
{
	for (int k = 0; k < 2; k++) {
		enum servo_type type = k ? SERVO_TYPE_LINREG : SERVO_TYPE_PI;
		struct link l;
		ns_t e0, e60;
		double freq;

		link_init_servo(&l, 50000.0, 0, DELAY_MECHANISM_E2E, false, 0, type);
		link_run(&l, START + 60 * NS_PER_SEC);
		assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
		assert_int_equal(port_servo_state(l.s[1].port), SERVO_LOCKED);
		l.s[0].mute = true;
		while (port_is_slave(l.s[1].port)) {
			link_run(&l, l.now + NS_PER_MSEC * 10);
		}
		assert_int_equal(port_servo_state(l.s[1].port), SERVO_HOLDOVER);
		assert_true(l.s[1].port->servo->holdover_since > 0);
		assert_int_equal(clock_get_freq(l.s[1].clk, &freq), 0);
		if (fabs(freq - 50000.0) > 100.0) {
			fail_msg("%s: holds %.1f ppb, expected the master's 50000 +- 100",
				 options_clock_servo_to_string(type), freq);
		}
		e0 = link_error(&l);
		link_run(&l, l.now + 60 * NS_PER_SEC);
		e60 = link_error(&l);
		print_message("%s: holdover at %.1f ppb, true error %lld ns, 60 s later %lld ns\n",
			      options_clock_servo_to_string(type), freq, (long long) e0,
			      (long long) e60);
		if (llabs(e60 - e0) > 5 * NS_PER_USEC) {
			fail_msg("%s: drifted %lld ns in 60 s of holdover, expected below 5 us",
				 options_clock_servo_to_string(type), (long long) (e60 - e0));
		}
		link_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_check),
		cmocka_unit_test(test_converge_e2e),
		cmocka_unit_test(test_converge_p2p),
		cmocka_unit_test(test_converge_correction),
		cmocka_unit_test(test_converge_spikes),
		cmocka_unit_test(test_delay_asymmetry),
		cmocka_unit_test(test_hybrid_e2e),
		cmocka_unit_test(test_ingress_egress_latency),
		cmocka_unit_test(test_free_running_reports_spikes),
		cmocka_unit_test(test_servo_reports_every_offset),
		cmocka_unit_test(test_gate_follows_servo),
		cmocka_unit_test(test_kept_samples_hold_frequency),
		cmocka_unit_test(test_hw_recovery_one_sided_noise),
		cmocka_unit_test(test_rate_ratio_jitter),
		cmocka_unit_test(test_fast_start),
		cmocka_unit_test(test_locked_before_no_first_step),
		cmocka_unit_test(test_fast_start_noisy),
		cmocka_unit_test(test_spike_after_start),
		cmocka_unit_test(test_delay_rate_difference),
		cmocka_unit_test(test_jitter_gate_and_servo),
		cmocka_unit_test(test_holdover),
	};

	if (getenv("TEST_PORT_FILTER")) {
		cmocka_set_test_filter(getenv("TEST_PORT_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
