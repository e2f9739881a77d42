// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon/clock-rivals: which command lines steer CLOCK_REALTIME or a PHC, and the /proc scan. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/clock-rivals.h"

#define ARGS(...)                               \
	((const char *const[]){ __VA_ARGS__ }), \
		(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static int classify(const char *comm, const char *const *args, size_t n, struct clock_rival *r)
{
	return clock_rival_classify(comm, args, n, r);
}

static void test_classify(void **state)
{
	struct clock_rival r;

	assert_int_equal(classify("chronyd", ARGS("/usr/sbin/chronyd", "-F", "1"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_REALTIME);
	assert_string_equal(r.comm, "chronyd");
	assert_int_equal(classify("chronyd", ARGS("chronyd", "-x"), &r), 0);
	assert_int_equal(classify("chronyd", ARGS("chronyd", "-Q", "pool x"), &r), 0);
	assert_int_equal(classify("systemd-timesyn", ARGS("/lib/systemd/systemd-timesyncd"), &r),
			 1);
	assert_int_equal(classify("ntpd", ARGS("/usr/sbin/ntpd", "-g"), &r), 1);
	assert_int_equal(classify("timemaster", ARGS("timemaster", "-f", "x"), &r), 1);

	/* phc2sys: -c names the clock it steers, CLOCK_REALTIME by default. */
	assert_int_equal(classify("phc2sys", ARGS("phc2sys", "-s", "eth0", "-w"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_REALTIME);
	assert_int_equal(
		classify("phc2sys", ARGS("phc2sys", "-s", "eth0", "-c", "CLOCK_REALTIME"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_REALTIME);
	assert_int_equal(classify("phc2sys", ARGS("phc2sys", "-s", "eth0", "-c", "eth1"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_PHC);
	assert_string_equal(r.clock, "eth1");
	assert_int_equal(classify("phc2sys", ARGS("phc2sys", "-c", "/dev/ptp3", "-s", "eth0"), &r),
			 1);
	assert_string_equal(r.clock, "/dev/ptp3");
	assert_int_equal(classify("phc2sys", ARGS("phc2sys", "-s", "eth0", "-E", "ntpshm"), &r), 0);

	/* ptp4l: nothing when free running, CLOCK_REALTIME with -S, else its interface's PHC. */
	assert_int_equal(
		classify("ptp4l", ARGS("ptp4l", "-i", "g1", "-S", "--free_running", "1"), &r), 0);
	assert_int_equal(classify("ptp4l", ARGS("ptp4l", "-i", "g1", "--free_running=1"), &r), 0);
	assert_int_equal(classify("ptp4l", ARGS("ptp4l", "-i", "eth0", "-S", "-m"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_REALTIME);
	assert_int_equal(
		classify("ptp4l", ARGS("ptp4l", "-i", "eth0", "-2", "--free_running", "0"), &r), 1);
	assert_int_equal(r.target, CLOCK_RIVAL_PHC);
	assert_string_equal(r.clock, "eth0");
	/* An option without its value at the end: no clock named, no read past the end. */
	assert_int_equal(classify("ptp4l", ARGS("ptp4l", "-f", "/etc/ptp4l.conf", "-i"), &r), 1);
	assert_string_equal(r.clock, "");
	/* A clock name longer than the field is cut, not overflowed. */
	assert_int_equal(
		classify("phc2sys",
			 ARGS("phc2sys", "-c", "an-interface-name-much-longer-than-thirty-two"),
			 &r),
		1);
	assert_int_equal(strlen(r.clock), CLOCK_RIVAL_CLOCK_MAX - 1);

	assert_int_equal(classify("sleep", ARGS("sleep", "1"), &r), 0);
	assert_int_equal(classify("phcd", ARGS("phcd"), &r), 0);
	assert_int_equal(classify(NULL, NULL, 0, &r), 0);
	assert_int_equal(classify("chronyd", NULL, 0, &r), 1); /* a kernel thread's empty cmdline */
}

/* A /proc of two processes written by hand: only the rival is found, with its pid. */
static void test_scan(void **state)
{
	char root[] = "/tmp/test-clock-rivals-XXXXXX", path[256];
	struct clock_rival r[4];
	size_t n = 99;
	FILE *f;

	assert_non_null(mkdtemp(root));
	for (int pid = 100; pid <= 101; pid++) {
		snprintf(path, sizeof(path), "%s/%d", root, pid);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
		f = fopen(path, "w");
		fputs(pid == 100 ? "chronyd\n" : "bash\n", f);
		fclose(f);
		snprintf(path, sizeof(path), "%s/%d/cmdline", root, pid);
		f = fopen(path, "w");
		fwrite(pid == 100 ? "chronyd\0-F\0001\0" : "bash\0", 1, pid == 100 ? 14 : 5, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/self", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(clock_rivals_scan(root, r, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].pid, 100);
	assert_string_equal(r[0].comm, "chronyd");
	assert_false(r[0].same_netns);
	assert_int_equal(clock_rivals_scan("/nonexistent-proc", r, 4, &n), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
