// SPDX-License-Identifier: GPL-2.0-or-later
/* Other programs that steer CLOCK_REALTIME or a PHC, found in /proc: phcd must not fight them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/clock-rivals.h"

/* The value of option opt in args (as "-c X", "--opt X" or "--opt=X"), or NULL. */
static const char *option_value(const char *const *args, size_t n, const char *opt)
{
	size_t len = strlen(opt);

	for (size_t k = 1; k < n; k++) {
		if (strcmp(args[k], opt) == 0) {
			return k + 1 < n ? args[k + 1] : NULL;
		}
		if (opt[0] == '-' && opt[1] == '-' && strncmp(args[k], opt, len) == 0 &&
		    args[k][len] == '=') {
			return args[k] + len + 1;
		}
	}
	return NULL;
}

static bool has_flag(const char *const *args, size_t n, const char *flag)
{
	for (size_t k = 1; k < n; k++) {
		if (strcmp(args[k], flag) == 0) {
			return true;
		}
	}
	return false;
}

static int rival(struct clock_rival *ret, const char *comm, enum clock_rival_target t,
		 const char *clock)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->comm, sizeof(ret->comm), "%s", comm);
	ret->target = t;
	snprintf(ret->clock, sizeof(ret->clock), "%s", clock ? clock : "");
	return 1;
}

int clock_rival_classify(const char *comm, const char *const *args, size_t n,
			 struct clock_rival *ret)
{
	const char *v;

	if (!comm) {
		return 0;
	}
	if (strcmp(comm, "chronyd") == 0) {
		/* -x: never touch the clock; -Q: print the offset and exit. */
		return has_flag(args, n, "-x") || has_flag(args, n, "-Q")
			       ? 0
			       : rival(ret, comm, CLOCK_RIVAL_REALTIME, NULL);
	}
	/* The comm of a process is cut at 15 characters. */
	if (strcmp(comm, "systemd-timesyn") == 0 || strcmp(comm, "systemd-timesyncd") == 0 ||
	    strcmp(comm, "ntpd") == 0 || strcmp(comm, "timemaster") == 0) {
		return rival(ret, comm, CLOCK_RIVAL_REALTIME, NULL);
	}
	if (strcmp(comm, "phc2sys") == 0) {
		v = option_value(args, n, "-E");
		if (v && strcmp(v, "ntpshm") == 0) {
			return 0;
		}
		v = option_value(args, n, "-c");
		if (!v || strcmp(v, "CLOCK_REALTIME") == 0) {
			return rival(ret, comm, CLOCK_RIVAL_REALTIME, NULL);
		}
		return rival(ret, comm, CLOCK_RIVAL_PHC, v);
	}
	if (strcmp(comm, "ptp4l") == 0) {
		v = option_value(args, n, "--free_running");
		if (v && strcmp(v, "0") != 0) {
			return 0;
		}
		if (has_flag(args, n, "-S")) {
			return rival(ret, comm, CLOCK_RIVAL_REALTIME, NULL);
		}
		return rival(ret, comm, CLOCK_RIVAL_PHC, option_value(args, n, "-i"));
	}
	return 0;
}

const char *clock_rival_describe(const struct clock_rival *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s (pid %d)", r->comm, (int) r->pid);
	return buf;
}

#define CMDLINE_MAX 4096
#define ARGS_MAX 64

/* Read a small /proc file whole: its length, or -errno. NUL-terminated within size. */
static ssize_t read_small(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n, total = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return -errno;
	}
	while ((size_t) total < size - 1 &&
	       (n = read(fd, buf + total, size - 1 - (size_t) total)) > 0) {
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static bool same_netns(int dirfd, const struct stat *ours)
{
	struct stat st;

	return ours && fstatat(dirfd, "ns/net", &st, 0) == 0 && st.st_dev == ours->st_dev &&
	       st.st_ino == ours->st_ino;
}

/*
 * Can the process ever set CLOCK_REALTIME: CAP_SYS_TIME in its permitted set (status CapPrm).
 * One without it (ptp4l under capsh --drop=cap_sys_time, as every test runs it) only fails with
 * EPERM. Unreadable: assume it can.
 */
static bool may_set_time(int pfd)
{
	char status[4096];
	const char *c;
	unsigned long long prm;

	if (read_small(pfd, "status", status, sizeof(status)) <= 0 ||
	    !(c = strstr(status, "\nCapPrm:")) || sscanf(c + 8, "%llx", &prm) != 1) {
		return true;
	}
	return prm & (1ULL << 25); /* CAP_SYS_TIME */
}

int clock_rivals_scan(const char *proc_root, struct clock_rival *ret, size_t max, size_t *ret_n)
{
	char self_ns[PATH_MAX];
	struct stat ours;
	bool have_ours;
	struct dirent *de;
	size_t found = 0;
	DIR *d;

	snprintf(self_ns, sizeof(self_ns), "%s/self/ns/net", proc_root);
	have_ours = stat(self_ns, &ours) == 0;
	d = opendir(proc_root);
	if (!d) {
		return -errno;
	}
	while ((de = readdir(d))) {
		char comm[CLOCK_RIVAL_COMM_MAX + 2], cmdline[CMDLINE_MAX];
		const char *args[ARGS_MAX];
		struct clock_rival r;
		size_t n = 0;
		ssize_t len;
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int pfd;

		if (*end || pid <= 0 || de->d_name[0] == '0') {
			continue;
		}
		pfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0) {
			continue; /* gone */
		}
		if (pid == getpid() || read_small(pfd, "comm", comm, sizeof(comm)) <= 0 ||
		    (len = read_small(pfd, "cmdline", cmdline, sizeof(cmdline))) < 0) {
			close(pfd);
			continue;
		}
		comm[strcspn(comm, "\n")] = '\0';
		/* NUL-separated arguments; a kernel thread has none. */
		for (ssize_t k = 0; k < len && n < ARGS_MAX;
		     k += (ssize_t) strlen(cmdline + k) + 1) {
			args[n++] = cmdline + k;
		}
		if (clock_rival_classify(comm, args, n, &r) > 0 &&
		    (r.target != CLOCK_RIVAL_REALTIME || may_set_time(pfd))) {
			r.pid = (pid_t) pid;
			r.same_netns = have_ours && same_netns(pfd, &ours);
			if (found < max) {
				ret[found] = r;
			}
			found++;
		}
		close(pfd);
	}
	closedir(d);
	*ret_n = found;
	return 0;
}
