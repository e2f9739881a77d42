// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The start of a slave at Sync 1/s with software timestamps, as the integration tests run it
 * against ptp4l, with one message late among the first: what is left of it when those tests look.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "tests/unit/port-link.h"

/* Where the integration tests judge a slave: its offsets 8 to 13 s after SLAVE. */
#define WINDOW_FROM (8 * NS_PER_SEC)
#define WINDOW_TO (13 * NS_PER_SEC)
/* The late message is one of the first eight after UNCALIBRATED: the start. */
#define LATE_MAX 8

static int ns_cmp(const void *a, const void *b)
{
	ns_t x = *(const ns_t *) a, y = *(const ns_t *) b;

	return (x > y) - (x < y);
}

/*
 * A slave from UNCALIBRATED with the k-th Sync (dreq: Delay_Req) after it late by late: the true
 * error in the window, read four times a Sync interval: its median (as the integration tests judge
 * the offsets) and its worst.
 */
static void late_once(enum servo_type type, bool dreq, unsigned k, ns_t late, ns_t *median,
		      ns_t *worst)
{
	ns_t uncal = 0, slave = 0, e[4 * (WINDOW_TO - WINDOW_FROM) / NS_PER_SEC + 1];
	size_t n = 0;
	struct link l;

	link_init_servo(&l, 20000.0, 300 * NS_PER_USEC, DELAY_MECHANISM_E2E, false, 0, type);
	while (port_get_state(l.s[1].port) != PORT_STATE_UNCALIBRATED) {
		assert_true(l.now < START + 60 * NS_PER_SEC);
		link_run(&l, l.now + NS_PER_SEC / 20);
	}
	if (dreq) {
		l.once_dreq = l.tx_dreq + k;
	} else {
		l.once_sync = l.tx_sync + k;
	}
	l.once_late = late;
	link_run_to_slave(&l, &uncal, &slave);
	*worst = 0;
	while (l.now < slave + WINDOW_TO) {
		link_run(&l, l.now + NS_PER_SEC / 4);
		if (l.now >= slave + WINDOW_FROM && n < ARRAY_SIZE(e)) {
			e[n++] = link_error(&l);
			*worst = llabs(e[n - 1]) > *worst ? llabs(e[n - 1]) : *worst;
		}
	}
	link_free(&l);
	assert_true(n > 0);
	qsort(e, n, sizeof(e[0]), ns_cmp);
	*median = e[n / 2];
}

/*
 * One Sync (and its Follow_Up) or one Delay_Req among the first eight after UNCALIBRATED, late by
 * 10, 20, 50 or 300 us, as a loaded host delays a software-timestamped message; each servo with
 * its default (software) constants from a clock 300 us and 20 ppm off. 8-13 s after SLAVE, where
 * test-transport-specific judged phcd-port's offsets when CI saw a median of -25 us, the true
 * error's median must be within 2 us and its worst within 5 us. Before: PI medians of -46.5 us (a
 * Sync 300 us late, the first), -13.4 us (one 20 us late, the fourth) and +180 us (the second
 * Delay_Req 300 us late: the path delay filter took it alone), linreg -326 us; 9 of the 16 kinds
 * failed. The path delay filter's median of two (ptp/delay.c), the outlier gate's second look at
 * the sample it passed last (ptp/outlier.c), servo_retract() and the PI's refining proportional
 * term (ptp/servo-pi.c) each mended some of them.
 */
static void test_late_once(void **state)
{
	static const ns_t late_us[] = { 10, 20, 50, 300 };
	int bad = 0;

	for (int t = 0; t < 2; t++) {
		enum servo_type type = t ? SERVO_TYPE_LINREG : SERVO_TYPE_PI;

		for (int dreq = 0; dreq < 2; dreq++) {
			for (size_t j = 0; j < ARRAY_SIZE(late_us); j++) {
				ns_t worst = 0, median = 0;
				unsigned at = 0, at_m = 0;

				for (unsigned k = 1; k <= LATE_MAX; k++) {
					ns_t m, w;

					late_once(type, dreq, k, late_us[j] * NS_PER_USEC, &m, &w);
					if (w > worst) {
						worst = w;
						at = k;
					}
					if (llabs(m) > llabs(median)) {
						median = m;
						at_m = k;
					}
				}
				print_message("%s, %s %lld us late: true error 8-13 s after SLAVE: "
					      "median %lld ns (message %u), worst %lld ns (message "
					      "%u)\n",
					      options_clock_servo_to_string(type),
					      dreq ? "one Delay_Req" : "one Sync",
					      (long long) late_us[j], (long long) median, at_m,
					      (long long) worst, at);
				bad += llabs(median) > 2 * NS_PER_USEC || worst > 5 * NS_PER_USEC;
			}
		}
	}
	if (bad) {
		fail_msg("%d of 16 kinds of late message left over 2 us 8-13 s after SLAVE", bad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
