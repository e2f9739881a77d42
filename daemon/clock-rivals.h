/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Other programs that steer CLOCK_REALTIME or a PHC, found in /proc: phcd must not fight them. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum clock_rival_target {
	CLOCK_RIVAL_REALTIME, /* steers CLOCK_REALTIME */
	CLOCK_RIVAL_PHC,      /* steers the PHC of an interface, or /dev/ptpN */
};

#define CLOCK_RIVAL_COMM_MAX 16	 /* TASK_COMM_LEN */
#define CLOCK_RIVAL_CLOCK_MAX 32 /* an interface name or "/dev/ptpN" */

struct clock_rival {
	pid_t pid;
	char comm[CLOCK_RIVAL_COMM_MAX];
	enum clock_rival_target target;
	/* CLOCK_RIVAL_PHC: the interface or /dev/ptpN it names (one; "" when it names none) */
	char clock[CLOCK_RIVAL_CLOCK_MAX];
	bool same_netns; /* in phcd's network namespace (where interface names mean ours) */
};

/*
 * Does a process with this comm and argv (args[0..n), argv[0] first) steer a clock? 1 and *ret
 * filled, or 0. chronyd (not with -x or -Q), systemd-timesyncd, ntpd (ntpd, ntpsec, openntpd),
 * timemaster: CLOCK_REALTIME. phc2sys: the clock of -c (CLOCK_REALTIME when absent), not with
 * -E ntpshm. ptp4l: nothing with --free_running 1; else CLOCK_REALTIME with -S (software time
 * stamps), else the PHC of its first -i interface. Interfaces named only in a -f file are not
 * seen. Pure: no I/O.
 */
int clock_rival_classify(const char *comm, const char *const *args, size_t n,
			 struct clock_rival *ret);

/*
 * Every rival among the processes of proc_root ("/proc"), but phcd itself:
 * up to max in ret, *ret_n the number found (may exceed max). Processes that vanish during the
 * scan are skipped. 0 or -errno (proc_root unreadable).
 */
int clock_rivals_scan(const char *proc_root, struct clock_rival *ret, size_t max, size_t *ret_n);

/* "chronyd (pid 42)" into buf. */
const char *clock_rival_describe(const struct clock_rival *r, char *buf, size_t size);
