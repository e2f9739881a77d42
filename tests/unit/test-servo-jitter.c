// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/servo*.c under packet delay variation: the PI and linreg servos behind the
 * outlier gate, against the bound no servo beats (split from test-servo.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "ptp/clock.h"
#include "tests/doubles/clock-sim.h"
#include "ptp/outlier.h"
#include "ptp/servo.h"
#include "ptp/util.h"

/*
 * Packet delay variation through the chain a port runs (ptp/port-sync.c): the outlier gate, then
 * the servo, with the gate's noise estimate handed over. Each measured offset is the clock's true
 * error plus Gaussian noise of noise_ns and, with probability spike_p, a one-sided spike of
 * spike_ns on average (exponential), as a loaded host adds them. Sync 8/s as the benchmarks run.
 */
struct jitter_run {
	enum servo_type type;
	/* > 0: PI constants set by hand, used as ptp4l uses them (no noise scaling) */
	double kp, ki;
	double noise_ns, spike_p, spike_ns;
	double freq_error_ppb;
	/*
	 * Every other sample reaches the servo with the next one, a Sync interval after it was
	 * measured, as a SLAVE worker over L2 hears them at 4 Syncs a second or more
	 * (ptp/transport-l2.c): the frequency it answers is replaced in the same turn and never
	 * acts. Handed over as port-sync.c does (feed_one()), or with naive as if each sample had
	 * a turn of its own (as c16e147 did: the servo and the gate took that answer as acting).
	 */
	bool lag;
	bool naive;
	int samples, tail;
	uint64_t seed;
	double tail_rms; /* true error */
	double tail_mean;
	/*
	 * The bound: the RMS error, over the same tail, of the least-squares line through every
	 * measured offset since the start, evaluated at the newest one (open loop, fed the same
	 * noise). With Gaussian noise on a clock of constant frequency this is the minimum-variance
	 * unbiased estimate of the clock's offset from those samples (it reaches the Cramer-Rao
	 * bound, 2 sd / sqrt(n) at the end of n evenly spaced samples): no servo, which must set
	 * the clock from the samples before, does better on average.
	 */
	double bound_rms;
	double hold_freq_err_ppb; /* servo's stable frequency minus the one that holds the clock */
};

static double lcg_uniform(uint64_t *rng)
{
	*rng = *rng * UINT64_C(6364136223846793005) + 1442695040888963407;
	return ((double) (*rng >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * One measured offset through the gate to the servo, its answer applied to the clock. shares_turn:
 * the servo's last answer came in this same turn, replaced now before it acted (as port-sync.c
 * hands over a turn's samples). Returns whether the servo got it.
 */
static bool feed_one(struct outlier_gate *g, struct servo *s, struct clock *c, ns_t local,
		     ns_t meas, bool shares_turn, double *freq)
{
	enum servo_state st;

	if (shares_turn) {
		outlier_gate_unbend(g);
	}
	if (outlier_gate_judge(g, local, meas) == OUTLIER_REJECT) {
		return false;
	}
	if (g->dropped) {
		servo_retract(s);
	}
	s->noise_ns = g->jitter;
	st = servo_sample_in_turn(s, meas, local, shares_turn, freq);
	if (st == SERVO_JUMP) {
		outlier_gate_step(g, meas, *freq - s->acting_ppb);
		assert_int_equal(clock_step(c, -meas), 0);
	} else {
		outlier_gate_follow(g, st, *freq - s->acting_ppb);
	}
	assert_int_equal(clock_adj_freq(c, *freq), 0);
	return true;
}

static void run_jitter(struct jitter_run *j)
{
	struct clock_sim_config sc = {
		.start = 1000 * NS_PER_SEC,
		.freq_error_ppb = j->freq_error_ppb,
		.seed = j->seed,
		.max_freq_ppb = 1e9,
	};
	struct outlier_gate g = { 0 };
	struct servo_config cfg;
	struct clock *c = NULL;
	struct servo *s = NULL;
	uint64_t rng = j->seed * 7919 + 1;
	double sum = 0, sum2 = 0, freq = 0, b2 = 0;
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, x;
	ns_t held_local = 0, held_meas = 0;
	bool held = false;

	servo_config_default(&cfg, true);
	cfg.type = j->type;
	cfg.kp = j->kp;
	cfg.ki = j->ki;
	if (j->kp > 0) {
		cfg.noise_scaled_gain = false;
	}
	assert_int_equal(clock_sim_new(&sc, &c), 0);
	assert_int_equal(servo_new(&cfg, 0, &s), 0);
	servo_set_interval(s, 0.125);
	assert_int_equal(clock_step(c, 50 * NS_PER_USEC), 0);
	for (int i = 0; i < j->samples; i++) {
		ns_t local, meas, e;
		double noise = clock_sim_gauss(c, j->noise_ns);

		assert_int_equal(clock_sim_advance(c, NS_PER_SEC / 8), 0);
		assert_int_equal(clock_get_time(c, &local), 0);
		if (lcg_uniform(&rng) < j->spike_p) {
			noise += -j->spike_ns * log(lcg_uniform(&rng));
		}
		meas = clock_sim_error(c) + llround(noise);
		/* the bound's line: its error is its fit of the noise alone (x in seconds) */
		x = i / 8.0;
		n += 1;
		sx += x;
		sy += noise;
		sxx += x * x;
		sxy += x * noise;
		if (j->lag && i % 2 == 1) {
			held = true;
			held_local = local;
			held_meas = meas;
		} else {
			bool shares = held &&
				      feed_one(&g, s, c, held_local, held_meas, false, &freq);

			held = false;
			feed_one(&g, s, c, local, meas, shares && !j->naive, &freq);
		}
		if (i >= j->samples - j->tail) {
			double d = sxx - sx * sx / n, slope = (sxy - sx * sy / n) / d;
			double fit = sy / n + slope * (x - sx / n);

			e = clock_sim_error(c);
			sum += (double) e;
			sum2 += (double) e * (double) e;
			b2 += fit * fit;
		}
	}
	j->tail_rms = sqrt(sum2 / j->tail);
	j->bound_rms = sqrt(b2 / j->tail);
	j->tail_mean = sum / j->tail;
	j->hold_freq_err_ppb = s->ops->stable_freq(s) + j->freq_error_ppb;
	servo_free(s);
	clock_free(c);
}

/*
 * 200 s at Sync 8/s from 50 us and 20 ppm off, the last 60 s measured: servo t 0 PI with its
 * defaults, 1 linreg, 2 PI with Kp 0.7 and Ki 0.3 set by hand.
 */
static struct jitter_run jitter_profile(int t, double noise_ns, double spike_p, double spike_ns,
					uint64_t seed)
{
	return (struct jitter_run){
		.type = t == 1 ? SERVO_TYPE_LINREG : SERVO_TYPE_PI,
		.kp = t == 2 ? 0.7 : 0,
		.ki = t == 2 ? 0.3 : 0,
		.noise_ns = noise_ns,
		.spike_p = spike_p,
		.spike_ns = spike_ns,
		.freq_error_ppb = 20000,
		.samples = 8 * 200,
		.tail = 8 * 60,
		.seed = seed,
	};
}

/*
 * linreg under packet delay variation, through the gate as a port runs it, 200 s at Sync 8/s from
 * 50 us and 20 ppm off, the last 60 s measured, five seeds: true error RMS and the holdover
 * frequency's error (its stable frequency against the one that holds the clock). Before its
 * windows grew to 1024 samples and it clipped far samples (64 at most, none clipped; bdbf860) it
 * let through 4.8 us of 20 us normal noise (PI 1.6 us) and held 740 ppb off; with a fifth of the
 * samples late by 300 us on average (exponential, one-sided, as a loaded host delays them) 60 us
 * (PI 108 us), and with those spikes alone 42 us (PI 17 us). The PI servo clips too now (its
 * offsets against its robust noise level): 30 us and 0.45 us there.
 *
 * Forty seeds since the linreg excursions below: five had hidden them. A run of five one-sided
 * spikes made the clip take the largest of them as the new noise level, a window of 4 then took a
 * slope of 281 ppm from the spikes it let in, and a first estimate from two samples 125 ms apart,
 * one of them 400 us late, set 3180 ppm: 10-30 us RMS in 8 of 40 seeds with spikes alone (7.7 us
 * over all, PI 0.73 us), 5.8 us in one seed of Gaussian noise. Now the clip takes the smallest of
 * such a run, the window halves at most once a sample, and the first estimate waits for
 * freq_est_min as the PI's does (servo.c, servo-linreg.c).
 *
 * Issue 19's target, linreg at most half of PI's true error: met against the PI with the
 * constants the issue names (Kp 0.7, Ki 0.3 set by hand, as ptp4l runs them: without phcd's
 * scaling of the gains by the noise) under every profile. Against phcd's default PI (software
 * constants, gains scaled down by the noise it measures) not: under Gaussian noise alone that PI
 * is within 1.5 times the bound no servo can beat (jitter_run.bound_rms), so half of it lies
 * below that bound; with spikes the two are within 1.5 times of each other (PI's integral gain
 * scaled by the noise, not its square, brought it from 19.3 to 7.1 us with noise and spikes,
 * below linreg's 8.1). Each servo's error is held against the bound (one below it would mean a
 * wrong bound).
 */
/* seeds per servo and profile */
#define SEEDS 40
static void test_linreg_jitter(void **state)
{
	static const struct {
		const char *name;
		double noise, p, spike;
		double max_rms, max_hold_ppb, pi_max_rms;
	} prof[] = {
		{ "normal 20 us", 20000, 0, 0, 2500, 100, 2500 },
		{ "normal 20 us + spikes", 20000, 0.2, 300000, 20000, 100, 12000 },
		{ "spikes", 1000, 0.2, 300000, 2000, 20, 1000 },
	};
	/* PI with its defaults, linreg, PI with Kp 0.7 and Ki 0.3 set by hand */
	static const char *const names[] = { "PI", "linreg", "PI 0.7/0.3" };

	for (size_t k = 0; k < ARRAY_SIZE(prof); k++) {
		double rms[3], hold[3], bound = 0;

		for (int t = 0; t < 3; t++) {
			double r = 0, hf = 0, b = 0;

			for (uint64_t seed = 1; seed <= SEEDS; seed++) {
				struct jitter_run j = jitter_profile(t, prof[k].noise, prof[k].p,
								     prof[k].spike, seed);

				run_jitter(&j);
				r += j.tail_rms * j.tail_rms;
				hf += j.hold_freq_err_ppb * j.hold_freq_err_ppb;
				b += j.bound_rms * j.bound_rms;
			}
			rms[t] = sqrt(r / SEEDS);
			hold[t] = sqrt(hf / SEEDS);
			bound = sqrt(b / SEEDS); /* the same noise for every servo */
		}
		print_message(
			"%s: true error RMS %s %.0f ns, %s %.0f ns (at most %.0f), %s %.0f ns; "
			"holdover frequency error RMS PI %.1f ppb, linreg %.1f ppb (at most "
			"%.0f)",
			prof[k].name, names[0], rms[0], names[1], rms[1], prof[k].max_rms, names[2],
			rms[2], hold[0], hold[1], prof[k].max_hold_ppb);
		if (prof[k].p == 0) {
			/* Gaussian noise alone: the bound holds */
			print_message("; the bound %.0f ns", bound);
		}
		print_message("\n");
		assert_true(rms[1] < prof[k].max_rms);
		assert_true(hold[1] < prof[k].max_hold_ppb);
		assert_true(rms[0] < prof[k].pi_max_rms);
		/* issue 19: linreg at most half of the PI with the constants */
		assert_true(rms[1] <= rms[2] / 2);
		/* ... and within 1.5 times the default PI's */
		assert_true(rms[1] <= rms[0] * 1.5);
		if (prof[k].p > 0) {
			continue;
		}
		/* below it, no servo below the bound, linreg near it, half the default PI's below
		 * it */
		assert_true(rms[1] < rms[0]);
		for (int t = 0; t < 3; t++) {
			assert_true(rms[t] >= bound * 0.95);
		}
		assert_true(rms[1] <= bound * 1.3);
		assert_true(rms[0] / 2 < bound);
	}
}

/*
 * Every other sample a Sync interval late (jitter_run.lag), as a SLAVE worker over L2 hears them at
 * 4 Syncs a second or more: each servo's true error under the profiles above, 20 s at Sync 8/s
 * over 10 seeds, against the same runs with every sample on time: at most 1.1 times. Handed over
 * as if each sample had its own turn (naive, c16e147), the servos and the gate took the late
 * sample's answer as acting for a Sync interval where it acted for none: x1.68 (PI, normal 20
 * us), x1.30 (PI 0.7/0.3), x1.91 (PI, normal + spikes), x3.02 (linreg, spikes). With the turn
 * said (servo_sample_in_turn(), outlier_gate_unbend()) all are within x1.04; without the gate's
 * unbend linreg under spikes alone was x1.15.
 */
static void test_every_other_late(void **state)
{
	static const struct {
		const char *name;
		double noise, p, spike;
	} prof[] = {
		{ "normal 20 us", 20000, 0, 0 },
		{ "normal 20 us + spikes", 20000, 0.2, 300000 },
		{ "spikes", 1000, 0.2, 300000 },
	};
	static const char *const names[] = { "PI", "linreg", "PI 0.7/0.3" };

	for (size_t k = 0; k < ARRAY_SIZE(prof); k++) {
		for (int t = 0; t < 3; t++) {
			/* on time, late and told, late as if on time */
			double rms[3];

			for (int lag = 0; lag < 3; lag++) {
				double r = 0;

				for (uint64_t seed = 1; seed <= 10; seed++) {
					struct jitter_run j = jitter_profile(
						t, prof[k].noise, prof[k].p, prof[k].spike, seed);

					j.lag = lag > 0;
					j.naive = lag == 2;
					run_jitter(&j);
					r += j.tail_rms * j.tail_rms;
				}
				rms[lag] = sqrt(r / 10);
			}
			print_message(
				"%s, %s: true error RMS %.0f ns, every other sample late %.0f "
				"ns (%.2f; as if on time %.0f ns, %.2f)\n",
				prof[k].name, names[t], rms[0], rms[1], rms[1] / rms[0], rms[2],
				rms[2] / rms[0]);
			if (rms[1] > rms[0] * 1.1) {
				fail_msg("%s, %s: true error RMS %.0f ns with every other sample "
					 "late, "
					 "expected at most 1.1 times %.0f ns",
					 prof[k].name, names[t], rms[1], rms[0]);
			}
		}
	}
}

/*
 * The gate's bend by an answer replaced in its turn is taken back: on a line of offsets growing
 * 10 ppm (hardware timestamps, no noise), an answer 200 ppm away bends it from the late sample,
 * but never acts; the turn's next sample, on the old line 125 ms later, passes (25 us off the
 * bent line: rejected when the gate kept the bend, as c16e147 did), and the line goes on as if
 * the bend had never been.
 */
static void test_gate_unbend(void **state)
{
	struct outlier_gate g = { 0 }, before;
	ns_t t = 1000 * NS_PER_SEC, step = NS_PER_SEC / 8;
	double pred;
	int i;

	for (i = 0; i < 8; i++) {
		assert_int_not_equal(outlier_gate_judge(&g, t + i * step, i * step / 100000),
				     OUTLIER_REJECT);
		outlier_gate_follow(&g, SERVO_LOCKED, 0);
	}
	before = g;
	outlier_gate_follow(&g, SERVO_LOCKED, 200000);
	outlier_gate_unbend(&g);
	for (unsigned k = 0; k < g.n; k++) {
		assert_int_equal(g.t[k], before.t[k]);
		assert_int_equal(g.o[k], before.o[k]);
	}
	pred = (double) (i * step / 100000);
	assert_int_equal(outlier_gate_judge(&g, t + i * step, (ns_t) pred), OUTLIER_PASS);
	/* a bend that a judgement followed is that sample's line: nothing to take back */
	before = g;
	outlier_gate_unbend(&g);
	assert_memory_equal(&g, &before, sizeof(g));
}

/*
 * A servo that never answered shares no turn: a port that builds a new one in the turn of the old
 * one's last answer says shares_turn, and the new servo's course must not start from a phase
 * grown since the epoch at the frequency it was built with.
 */
static void test_turn_new_servo(void **state)
{
	struct servo_config cfg;
	struct servo *a = NULL, *b = NULL;
	double fa, fb;

	servo_config_default(&cfg, false);
	assert_int_equal(servo_new(&cfg, 20000, &a), 0);
	assert_int_equal(servo_new(&cfg, 20000, &b), 0);
	for (int i = 0; i < 4; i++) {
		ns_t t = 1000 * NS_PER_SEC + i * NS_PER_SEC / 8;

		assert_int_equal(servo_sample_in_turn(a, 100, t, i == 0, &fa),
				 servo_sample(b, 100, t, &fb));
		assert_true(fa == fb);
		assert_true(a->phase_ns == 0);
	}
	servo_free(a);
	servo_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linreg_jitter),
		cmocka_unit_test(test_every_other_late),
		cmocka_unit_test(test_gate_unbend),
		cmocka_unit_test(test_turn_new_servo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
