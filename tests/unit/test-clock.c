// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/clock*.c: the simulated, virtual and free-running back ends. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ptp/clock.h"
#include "tests/doubles/clock-sim.h"
#include "ptp/servo.h"
#include "ptp/util.h"

static struct clock *new_sim(double freq_error_ppb, double noise_ns, uint64_t seed)
{
	struct clock_sim_config cfg = { .start = 100 * NS_PER_SEC,
					.freq_error_ppb = freq_error_ppb,
					.noise_ns = noise_ns,
					.seed = seed };
	struct clock *c = NULL;

	assert_int_equal(clock_sim_new(&cfg, &c), 0);
	return c;
}

static ns_t now_of(struct clock *c)
{
	ns_t t;

	assert_int_equal(clock_get_time(c, &t), 0);
	return t;
}

static void test_sim_drift_adjust_step(void **state)
{
	struct clock *c = new_sim(100000, 0, 1); /* +100 ppm */
	double f;

	assert_string_equal(clock_name(c), "simulated");
	assert_int_equal(clock_sim_advance(c, NS_PER_SEC), 0);
	assert_int_equal(clock_sim_error(c), 100000);
	assert_int_equal(now_of(c), 101 * NS_PER_SEC + 100000);
	assert_int_equal(clock_sim_true_time(c), 101 * NS_PER_SEC);
	/* cancel the error: no more drift */
	assert_int_equal(clock_adj_freq(c, -100000), 0);
	assert_int_equal(clock_get_freq(c, &f), 0);
	assert_true(f == -100000);
	assert_int_equal(clock_sim_advance(c, 10 * NS_PER_SEC), 0);
	assert_int_equal(clock_sim_error(c), 100000);
	assert_int_equal(clock_step(c, -100000), 0);
	assert_int_equal(clock_sim_error(c), 0);
	/* a slow rate adds up exactly over many small steps (sub-ns carried) */
	assert_int_equal(clock_adj_freq(c, -99999), 0); /* net +1 ppb */
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(clock_sim_advance(c, NS_PER_MSEC), 0);
	}
	assert_int_equal(clock_sim_error(c), 1);
	assert_int_equal(clock_adj_freq(c, 2e6), -ERANGE);
	assert_int_equal(clock_sim_advance(c, -1), -EINVAL);
	clock_free(c);
}

/* Noise: mean near 0 and standard deviation near the configured one; same seed, same noise. */
static void test_sim_noise(void **state)
{
	struct clock *a = new_sim(0, 50, 7), *b = new_sim(0, 50, 7);
	double sum = 0, sum2 = 0;
	const int n = 20000;

	for (int i = 0; i < n; i++) {
		ns_t ta = now_of(a), tb = now_of(b);
		double d = (double) (ta - 100 * NS_PER_SEC);

		assert_int_equal(ta, tb);
		sum += d;
		sum2 += d * d;
	}
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	print_message("sim noise: mean %.2f ns, sd %.2f ns (want 0, 50)\n", mean, sd);
	assert_true(fabs(mean) < 2.0);
	assert_true(sd > 48.0 && sd < 52.0);
	clock_free(a);
	clock_free(b);
}

static struct clock *new_virtual(struct clock *raw, ns_t offset, double err)
{
	struct clock_virtual_config cfg = { .initial_offset = offset, .freq_error_ppb = err };
	struct clock *v = NULL;

	assert_int_equal(clock_virtual_new(raw, &cfg, &v), 0);
	return v;
}

static void test_virtual_initial_offset_and_error(void **state)
{
	struct clock *raw = new_sim(0, 0, 1);
	struct clock *v = new_virtual(raw, NS_PER_SEC / 2, 100000);
	ns_t t;

	assert_string_equal(clock_name(v), "virtual");
	assert_int_equal(now_of(v), now_of(raw) + NS_PER_SEC / 2);
	assert_int_equal(clock_sim_advance(raw, 10 * NS_PER_SEC), 0);
	assert_int_equal(now_of(v) - now_of(raw), NS_PER_SEC / 2 + 10 * 100000);
	/* from_raw maps a raw timestamp the way gettime maps the raw time */
	assert_int_equal(clock_from_raw(v, now_of(raw), &t), 0);
	assert_int_equal(t, now_of(v));
	clock_free(v);
	clock_free(raw);
}

/*
 * The view is continuous across adjfreq (no jump at the re-anchoring, whatever the rates) and
 * exact across step; between changes it runs at the rate asked for. 2000 random changes.
 */
static void test_virtual_continuous_and_exact(void **state)
{
	struct clock *raw = new_sim(12345, 0, 1);
	struct clock *v = new_virtual(raw, -7 * NS_PER_SEC, -30000);
	uint64_t rng = 11;

	for (int i = 0; i < 2000; i++) {
		rng = rng * UINT64_C(6364136223846793005) + 1442695040888963407;
		double ppb = ((double) (rng >> 11) / 9007199254740992.0 - 0.5) * 1.8e6;
		ns_t dt = (ns_t) (rng % (3 * NS_PER_SEC)), before, after, delta;
		ns_t raw0, raw1, v0, v1;

		before = now_of(v);
		assert_int_equal(clock_adj_freq(v, ppb), 0);
		after = now_of(v);
		if (before != after) {
			print_error("change %d to %.1f ppb: view jumped from %" PRId64
				    " to %" PRId64 "\n",
				    i, ppb, before, after);
			fail();
		}
		delta = (ns_t) (rng >> 40) - (INT64_C(1) << 23);
		assert_int_equal(clock_step(v, delta), 0);
		assert_int_equal(now_of(v), after + delta);

		raw0 = now_of(raw);
		v0 = now_of(v);
		assert_int_equal(clock_sim_advance(raw, dt), 0);
		raw1 = now_of(raw);
		v1 = now_of(v);
		double want = (double) (raw1 - raw0) * (1 + (ppb - 30000) / 1e9);
		assert_true(fabs((double) (v1 - v0) - want) <= 1.0);
	}
	assert_int_equal(clock_adj_freq(v, 1.1e6), -ERANGE);
	clock_free(v);
	clock_free(raw);
}

/* |a - b| of two virtual clocks at the raw time, and of their from_raw maps, at most 1 ns. */
static void expect_agree(struct clock *a, struct clock *b, struct clock *raw, const char *when)
{
	ns_t ta, tb, ra, rb, r = now_of(raw);

	ta = now_of(a);
	tb = now_of(b);
	assert_int_equal(clock_from_raw(a, r + 12345, &ra), 0);
	assert_int_equal(clock_from_raw(b, r + 12345, &rb), 0);
	if (llabs(ta - tb) > 1 || llabs(ra - rb) > 1) {
		print_error("%s: expected the two views within 1 ns, got %" PRId64 " and %" PRId64
			    " (from_raw %" PRId64 " and %" PRId64 ")\n",
			    when, ta, tb, ra, rb);
		fail();
	}
}

/*
 * The sibling ports of a boundary clock: a MASTER port's virtual clock takes the SLAVE port's
 * state and then shows the same time over the same raw clock, whatever its own start (another
 * offset and freq_error), also after the source is steered again and the state copied anew.
 */
static void test_virtual_state_copy(void **state)
{
	struct clock *raw = new_sim(-20000, 0, 1);
	struct clock *src = new_virtual(raw, NS_PER_SEC / 2, 100000);
	struct clock *dst = new_virtual(raw, -3 * NS_PER_SEC, -40000);
	struct clock *other = NULL;
	struct clock_virtual_state st;
	double f;

	assert_int_equal(clock_adj_freq(src, -99000), 0);
	assert_int_equal(clock_step(src, -NS_PER_SEC / 2), 0);
	assert_int_equal(clock_sim_advance(raw, 3 * NS_PER_SEC), 0);
	assert_int_equal(clock_virtual_get_state(src, &st), 0);
	assert_int_equal(clock_virtual_set_state(dst, &st), 0);
	expect_agree(src, dst, raw, "after the copy");
	/* The state alone predicts the view (what the worker compares to decide to report). */
	{
		ns_t r = now_of(raw), t;

		assert_int_equal(clock_from_raw(src, r, &t), 0);
		assert_true(llabs(clock_virtual_state_at(&st, r) - t) <= 1);
	}
	/* dst runs at the source's rate: its own frequency is that rate minus its freq_error */
	assert_int_equal(clock_get_freq(dst, &f), 0);
	assert_true(fabs(f - (-99000 + 100000 + 40000)) < 1e-6);
	assert_int_equal(clock_sim_advance(raw, 100 * NS_PER_SEC), 0);
	expect_agree(src, dst, raw, "100 s after the copy");

	/* The source changes frequency: the views part until the next copy, then agree again. */
	assert_int_equal(clock_adj_freq(src, -98000), 0);
	assert_int_equal(clock_sim_advance(raw, 10 * NS_PER_SEC), 0);
	assert_true(llabs(now_of(src) - now_of(dst)) >= 9000);
	assert_int_equal(clock_virtual_get_state(src, &st), 0);
	assert_int_equal(clock_virtual_set_state(dst, &st), 0);
	expect_agree(src, dst, raw, "after a frequency change and a new copy");
	assert_int_equal(clock_sim_advance(raw, 50 * NS_PER_SEC), 0);
	expect_agree(src, dst, raw, "50 s after the second copy");

	/* Only virtual clocks have this state; a rate beyond the clock's range is refused. */
	assert_int_equal(clock_virtual_get_state(raw, &st), -EINVAL);
	assert_int_equal(clock_virtual_set_state(raw, &st), -EINVAL);
	st.rate_ppb = 2e6;
	assert_int_equal(clock_virtual_set_state(dst, &st), -ERANGE);
	st.rate_ppb = NAN;
	assert_int_equal(clock_virtual_set_state(dst, &st), -ERANGE);
	expect_agree(src, dst, raw, "after refused sets");
	assert_int_equal(clock_freerun_new(CLOCK_REALTIME, &other), 0);
	assert_int_equal(clock_virtual_get_state(other, &st), -EINVAL);
	clock_free(other);
	clock_free(dst);
	clock_free(src);
	clock_free(raw);
}

/*
 * The loop phcd-port closes on this machine: a virtual clock started 0.5 s and +100 ppm off,
 * over a raw clock that itself drifts (-20 ppm), steered by the PI servo toward true time with
 * 300 ns of timestamp noise, one sample a second. It must step once and then hold the true
 * offset under 1 us over the last minute of 5.
 */
static void test_virtual_with_servo(void **state)
{
	struct clock *raw = new_sim(-20000, 0, 3);
	struct clock *v = new_virtual(raw, NS_PER_SEC / 2, 100000);
	struct servo_config cfg;
	struct servo *s = NULL;
	int jumps = 0;
	ns_t worst = 0;

	servo_config_default(&cfg, true);
	assert_int_equal(servo_pi_new(&cfg, 0, &s), 0);
	servo_set_interval(s, 1.0);
	for (int i = 0; i < 300; i++) {
		ns_t local, err;
		double f;

		assert_int_equal(clock_sim_advance(raw, NS_PER_SEC), 0);
		local = now_of(v);
		err = local - clock_sim_true_time(raw);
		ns_t meas = err + llround(clock_sim_gauss(raw, 300));
		enum servo_state st = servo_sample(s, meas, local, &f);
		if (st == SERVO_JUMP) {
			jumps++;
			assert_int_equal(clock_step(v, -meas), 0);
		}
		assert_int_equal(clock_adj_freq(v, f), 0);
		if (i >= 240) {
			err = now_of(v) - clock_sim_true_time(raw);
			worst = llabs(err) > worst ? llabs(err) : worst;
		}
	}
	print_message("virtual + PI: %d jump(s), worst |offset| over the last 60 s %" PRId64
		      " ns\n",
		      jumps, worst);
	assert_int_equal(jumps, 1);
	assert_true(worst < NS_PER_USEC);
	servo_free(s);
	clock_free(v);
	clock_free(raw);
}

/* Free-running reads and refuses to steer, saying so. */
static void test_freerun(void **state)
{
	struct clock *c = NULL;
	ns_t a, b, t;
	double f = 1;

	assert_int_equal(clock_freerun_new(CLOCK_MONOTONIC, &c), 0);
	assert_string_equal(clock_name(c), "free-running");
	a = now_of(c);
	b = now_of(c);
	assert_true(b >= a);
	assert_int_equal(clock_adj_freq(c, 100), -EPERM);
	assert_int_equal(clock_step(c, 100), -EPERM);
	assert_int_equal(clock_get_freq(c, &f), 0);
	assert_true(f == 0);
	assert_int_equal(clock_from_raw(c, 42, &t), 0);
	assert_int_equal(t, 42);
	assert_null(clock_free(c));
	assert_null(clock_free(NULL));
}

/* A PHC needs a PHC: anything else fails at creation, and the fd stays the caller's. */
static void test_phc_rejects(void **state)
{
	struct clock *c = NULL;
	int fd;

	assert_int_equal(clock_phc_new(-1, &c), -EBADF);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(clock_phc_new(fd, &c) < 0);
	assert_null(c);
	assert_int_equal(close(fd), 0);
}

/*
 * The PHC's clock id from its fd, as the kernel's FD_TO_CLOCKID: ~fd is negative, so a signed
 * shift would be undefined (the ASan+UBSan build of this test traps it). The id decodes back to
 * the fd, and has the CPUCLOCK_FD bits (3) set.
 */
static void test_phc_clockid(void **state)
{
	static const int fds[] = { 0, 1, 3, 6, 1023, 65535, 1 << 20 };

	for (size_t k = 0; k < ARRAY_SIZE(fds); k++) {
		clockid_t id = clock_phc_clockid(fds[k]);

		assert_int_equal(id & 7, 3);
		assert_true(id < 0);
		assert_int_equal(~((unsigned int) id >> 3) & 0x1fffffff, fds[k]);
	}
	/* The value the kernel expects for fd 3 (include/linux/posix-timers.h). */
	assert_int_equal(clock_phc_clockid(3), -29);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phc_clockid),
		cmocka_unit_test(test_sim_drift_adjust_step),
		cmocka_unit_test(test_sim_noise),
		cmocka_unit_test(test_virtual_initial_offset_and_error),
		cmocka_unit_test(test_virtual_continuous_and_exact),
		cmocka_unit_test(test_virtual_with_servo),
		cmocka_unit_test(test_virtual_state_copy),
		cmocka_unit_test(test_freerun),
		cmocka_unit_test(test_phc_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
