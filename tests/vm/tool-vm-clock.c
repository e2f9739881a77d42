// SPDX-License-Identifier: GPL-2.0-or-later
/* VM tier guest tool: steers an igb PHC (clock-phc) and makes CLOCK_REALTIME follow it (sysclock).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "daemon/sysclock.h"
#include "ptp/clock.h"
#include "ptp/sysoff.h"
#include "ptp/util.h"

/*
 * Runs only inside the QEMU guest, whose CLOCK_REALTIME is its own: it steps and slews the real
 * system clock. Every check prints "ok: ..." or "FAIL: ... expected ..., got ..." and the exit
 * status is the number of failures.
 */

#define UTC_OFFSET 37
#define FREQ_TEST_PPB 100000.0
#define STEP_TEST_NS (NS_PER_SEC / 2)

static int failures;

static void check(bool ok, const char *fmt, ...) _printf_(2, 3);
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	fputs(ok ? "ok: " : "FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failures += !ok;
}

static void sleep_ns(ns_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC, .tv_nsec = ns % NS_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
	}
}

/* PHC minus CLOCK_REALTIME, with the read window's half-width. */
static int phc_minus_sys(int fd, enum sysoff_method m, struct sysoff_pair *p, ns_t *ret)
{
	int r = sysoff_measure(fd, m, SYSOFF_DEFAULT_SAMPLES, p);

	if (r < 0) {
		return r;
	}
	*ret = p->phc - p->sys;
	return 0;
}

/* Frequency and step through the clock-phc back end, measured against CLOCK_REALTIME. */
static int cmd_phc(int fd, enum sysoff_method m)
{
	struct clock *c = NULL;
	struct sysoff_pair p0, p1;
	ns_t d0, d1;
	double ppm;
	int r, dupfd = dup(fd);

	r = clock_phc_new(dupfd, &c);
	if (r < 0) {
		close(dupfd);
		check(false, "clock_phc_new: expected 0, got %s", strerror(-r));
		return r;
	}
	if ((r = clock_adj_freq(c, FREQ_TEST_PPB)) < 0 ||
	    (r = phc_minus_sys(fd, m, &p0, &d0)) < 0) {
		goto out;
	}
	sleep_ns(2 * NS_PER_SEC);
	if ((r = phc_minus_sys(fd, m, &p1, &d1)) < 0) {
		goto out;
	}
	ppm = (double) (d1 - d0) / (double) (p1.sys - p0.sys) * 1e6;
	check(ppm > 75 && ppm < 125,
	      "PHC adjfreq +%.0f ppm: measured %+.1f ppm over 2 s (expected 75..125)",
	      FREQ_TEST_PPB / 1000, ppm);
	if ((r = clock_adj_freq(c, 0)) < 0 || (r = phc_minus_sys(fd, m, &p0, &d0)) < 0 ||
	    (r = clock_step(c, STEP_TEST_NS)) < 0 || (r = phc_minus_sys(fd, m, &p1, &d1)) < 0) {
		goto out;
	}
	check(llabs(d1 - d0 - STEP_TEST_NS) < 1000000,
	      "PHC step +%lld ms: measured %+.3f ms (expected within 1 ms)",
	      (long long) (STEP_TEST_NS / 1000000), (double) (d1 - d0) / 1e6);
out:
	if (r < 0) {
		check(false, "PHC steering: expected no error, got %s", strerror(-r));
	}
	clock_free(c);
	return r;
}

/*
 * The guest's CLOCK_REALTIME follows the PHC as the PTP clock of an instance on the PTP timescale
 * (PHC = TAI, currentUtcOffset 37): start 1.5 s and 150 ppm off, sample every interval, and check
 * the last samples against bound_ns; then stop sampling and see holdover turn into STA_UNSYNC.
 */
static int cmd_follow(int fd, enum sysoff_method m, int seconds, ns_t bound_ns)
{
	const struct timePropertiesDS tp = {
		.currentUtcOffset = UTC_OFFSET,
		.currentUtcOffsetValid = true,
		.ptpTimescale = true,
	};
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO | ADJ_FREQUENCY | ADJ_STATUS,
			    .freq = 150 * 65536,
			    .status = STA_UNSYNC };
	const ns_t interval = NS_PER_SEC / 2;
	struct sysclock_config cfg;
	struct sysclock *s = NULL;
	struct sysoff_pair p;
	ns_t d, worst = 0;
	int n = seconds * (int) (NS_PER_SEC / interval), st = 0, r;
	bool synced = false;

	/* The PHC on TAI: 37 s ahead of the system clock; then the system clock 1.5 s behind. */
	if ((r = phc_minus_sys(fd, m, &p, &d)) < 0) {
		return r;
	}
	tx.time.tv_sec = -2; /* -1.5 s as ADJ_NANO wants it: tv_usec in [0, 1e9) */
	tx.time.tv_usec = NS_PER_SEC / 2;
	r = sysclock_linux_ops.adjtime(NULL, &tx);
	if (r < 0) {
		check(false, "disturbing CLOCK_REALTIME: expected success, got %s", strerror(-r));
		return r;
	}
	{
		struct clock *c = NULL;
		int dupfd = dup(fd);

		if ((r = clock_phc_new(dupfd, &c)) < 0 ||
		    (r = clock_step(c, (ns_t) UTC_OFFSET * NS_PER_SEC - d)) < 0) {
			check(false, "putting the PHC on TAI: %s", strerror(-r));
			clock_free(c);
			return r;
		}
		clock_free(c);
	}
	sysclock_config_default(&cfg);
	cfg.sample_timeout = NS_PER_SEC;
	cfg.holdover_timeout = 3 * NS_PER_SEC;
	r = sysclock_new(&sysclock_linux_ops, NULL, &cfg, &s);
	if (r < 0) {
		check(false, "sysclock_new: %s", strerror(-r));
		return r;
	}
	servo_set_interval(s->servo, (double) interval / NS_PER_SEC);
	for (int i = 0; i < n; i++) {
		struct sysclock_sample sample;

		if ((r = sysoff_measure(fd, m, SYSOFF_DEFAULT_SAMPLES, &p)) < 0) {
			break;
		}
		sample = (struct sysclock_sample){ .sys = p.sys, .ref = p.phc, .error = p.error };
		st = sysclock_sample(s, &sample, &tp);
		if (st < 0 && st != -EAGAIN) {
			r = st;
			break;
		}
		/* The last ten samples, measured independently of sysclock's own figure. */
		if (i >= n - 10 && (r = phc_minus_sys(fd, m, &p, &d)) == 0) {
			ns_t off = -(d - (ns_t) UTC_OFFSET * NS_PER_SEC);

			worst = llabs(off) > worst ? llabs(off) : worst;
		}
		if (i % 4 == 0 || i == n - 1) {
			printf("follow: t=%4.1fs %s offset %+9lld ns freq %+9.3f ppm steps %llu\n",
			       (double) i * interval / NS_PER_SEC,
			       sysclock_state_to_string(s->state), (long long) s->offset,
			       s->servo->freq_ppb / 1000, (unsigned long long) s->steps);
		}
		sleep_ns(interval);
	}
	if (r < 0) {
		check(false, "following the PHC: expected no error, got %s", strerror(-r));
		goto out;
	}
	check(st == SYSCLOCK_LOCKED, "sysclock state after %d s: %s (expected LOCKED)", seconds,
	      sysclock_state_to_string(st));
	check(worst <= bound_ns,
	      "CLOCK_REALTIME - (PHC - %d s), worst of the last 10 samples: %lld ns (bound %lld)",
	      UTC_OFFSET, (long long) worst, (long long) bound_ns);
	tx = (struct timex){ .modes = 0 };
	r = sysclock_linux_ops.adjtime(NULL, &tx);
	sysclock_kernel_synchronized(s, &synced);
	check(synced && r != TIME_ERROR && !(tx.status & STA_UNSYNC),
	      "adjtimex: state %d, status %#x, STA_UNSYNC %s, maxerror %ld us, esterror %ld us,"
	      " tai %d (expected synchronized)",
	      r, tx.status, tx.status & STA_UNSYNC ? "set" : "clear", tx.maxerror, tx.esterror,
	      tx.tai);
	check(tx.tai == UTC_OFFSET, "kernel TAI offset %d (expected %d)", tx.tai, UTC_OFFSET);
	check(s->conflict == 0, "no other steering seen (conflict bits %#x)", s->conflict);

	/* Holdover: no more samples. Poll the state with a deadline. */
	for (int i = 0; i < 50 && (st = sysclock_check(s)) != SYSCLOCK_UNSYNC; i++) {
		sleep_ns(NS_PER_SEC / 5);
	}
	tx = (struct timex){ .modes = 0 };
	r = sysclock_linux_ops.adjtime(NULL, &tx);
	check(st == SYSCLOCK_UNSYNC && r == TIME_ERROR && (tx.status & STA_UNSYNC),
	      "after holdover (3 s without samples): %s, adjtimex state %d, STA_UNSYNC %s "
	      "(expected UNSYNC, TIME_ERROR, set)",
	      sysclock_state_to_string(st), r, tx.status & STA_UNSYNC ? "set" : "clear");
	r = 0;
out:
	sysclock_free(s);
	return r;
}

int main(int argc, char **argv)
{
	enum sysoff_method m;
	int fd, r;

	if (argc < 3 || (strcmp(argv[1], "phc") && strcmp(argv[1], "follow")) ||
	    (!strcmp(argv[1], "follow") && argc != 5)) {
		fprintf(stderr, "usage: tool-vm-clock phc /dev/ptpN\n"
				"       tool-vm-clock follow /dev/ptpN SECONDS BOUND_NS\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		check(false, "open %s: %s", argv[2], strerror(errno));
		return 1;
	}
	r = sysoff_probe(fd, &m);
	check(r == 0, "%s: PHC-system offset through %s", argv[2], sysoff_method_to_string(m));
	if (r == 0) {
		if (!strcmp(argv[1], "phc")) {
			cmd_phc(fd, m);
		} else {
			cmd_follow(fd, m, atoi(argv[3]), atoll(argv[4]));
		}
	}
	close(fd);
	return failures;
}
