// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a worker's system calls and wakeups cost on this machine, with and without its seccomp
 * filter (common/sandbox-filter.c, installed as phcd-port installs it), for
 * tests/bench/syscost.sh.
 *
 *   tool-syscost [-f] [-n N]
 *     -f   install the worker's filter first
 *     -n   iterations of each loop (default 200000; the round trip runs N / 20, the timer
 *          wakeups N / 1000, at least 50: 4 s at the default)
 *
 * Prints one line per loop: its name and the mean ns per iteration (CLOCK_MONOTONIC over the
 * loop). The calls are those of a SLAVE worker's wakeup (strace -c of one): epoll_wait on a
 * ready fd, recvmmsg on an empty non-blocking socket (EAGAIN), timerfd_settime, clock_gettime,
 * sendto (an argument the filter checks). "wakeup-roundtrip" is a round trip between two
 * processes over a pair of sockets, each blocked in epoll_wait: two wakeups and their system
 * calls per iteration. "timer-wakeup" is what a process that does nothing else spends on a CPU
 * per wakeup by a timerfd every 20 ms (epoll_wait and the read of the timerfd; schedstat's time
 * on a CPU over its count of times put on one): the floor of any wakeup, which a worker pays
 * about 13 times a second.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "common/sandbox-filter.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void install_filter(bool say)
{
	struct sock_fprog prog;
	struct stat st;
	int fd, r;
	void *p;

	r = sandbox_filter_memfd(&fd);
	if (r < 0 || sandbox_filter_write(fd, getpid()) < 0) {
		die("sandbox_filter_write");
	}
	if (fstat(fd, &st) < 0) {
		die("fstat");
	}
	p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		die("mmap");
	}
	prog.len = (unsigned short) (st.st_size / sizeof(struct sock_filter));
	prog.filter = p;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		die("seccomp");
	}
	if (say) {
		printf("filter: %u instructions\n", prog.len);
	}
}

/* schedstat: ns on a CPU and times put on one, of this process. */
static void sched(unsigned long long *ns, unsigned long long *runs)
{
	unsigned long long wait;
	FILE *f = fopen("/proc/self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu %llu", ns, &wait, runs) != 3) {
		die("schedstat");
	}
	fclose(f);
}

/* n wakeups by the periodic timerfd t in ep: the mean ns on a CPU per wakeup. */
static void timer_wakeups(int ep, int t, long n)
{
	struct epoll_event ev;
	unsigned long long ns0, ns1, r0, r1;
	uint64_t x;

	sched(&ns0, &r0);
	for (long i = 0; i < n; i++) {
		if (epoll_wait(ep, &ev, 1, -1) != 1 || read(t, &x, sizeof(x)) != sizeof(x)) {
			die("timer wakeup");
		}
	}
	sched(&ns1, &r1);
	printf("%-16s %8.1f ns (%llu wakeups)\n", "timer-wakeup",
	       r1 > r0 ? (double) (ns1 - ns0) / (double) (r1 - r0) : 0.0, r1 - r0);
}

static void report(const char *name, long long t0, long n)
{
	printf("%-16s %8.1f ns\n", name, (double) (now_ns() - t0) / (double) n);
}

/* One side of the round trip: wait, read the byte, write it back. */
static void echo(int ep, int fd, long n)
{
	struct epoll_event ev;
	char c;

	for (long i = 0; i < n; i++) {
		if (epoll_wait(ep, &ev, 1, -1) != 1 || read(fd, &c, 1) != 1 ||
		    write(fd, &c, 1) != 1) {
			die("echo");
		}
	}
}

/* An epoll fd watching fd for input. */
static int watching(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		die("epoll");
	}
	return ep;
}

int main(int argc, char **argv)
{
	struct itimerspec its = { { 0, 0 }, { 1000, 0 } };
	struct itimerspec tick = { { 0, 20000000 }, { 0, 20000000 } };
	struct epoll_event ev;
	struct mmsghdr mm[4];
	struct iovec iov[4];
	char buf[4][128], c = 'x';
	int sv[2], rp[2], ep, pep, tep, tfd, wfd, opt;
	long n = 200000, m;
	bool filter = false;
	long long t0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "fn:")) != -1) {
		if (opt == 'f') {
			filter = true;
		} else if (opt == 'n') {
			n = atol(optarg);
		} else {
			fprintf(stderr, "usage: %s [-f] [-n N]\n", argv[0]);
			return 2;
		}
	}
	m = n / 20;
	/* Everything made before the filter, which refuses making most of it (and fork). */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, rp) < 0) {
		die("socketpair");
	}
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	wfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (tfd < 0 || wfd < 0) {
		die("timerfd_create");
	}
	ep = watching(sv[0]);
	pep = watching(rp[0]);
	tep = watching(wfd);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		die("fork");
	}
	if (pid == 0) {
		int cep = watching(rp[1]);

		if (filter) {
			install_filter(false);
		}
		echo(cep, rp[1], m);
		_exit(0);
	}
	if (filter) {
		install_filter(true);
	}
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		syscall(SYS_getppid);
	}
	report("getppid", t0, n);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (recvmmsg(sv[0], mm, 4, MSG_DONTWAIT, NULL) >= 0 || errno != EAGAIN) {
			die("recvmmsg");
		}
	}
	report("recvmmsg-eagain", t0, n);
	if (send(sv[1], &c, 1, 0) != 1) {
		die("send");
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (epoll_wait(ep, &ev, 1, 0) != 1) {
			die("epoll_wait");
		}
	}
	report("epoll_wait-ready", t0, n);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		its.it_value.tv_nsec = i % 1000;
		if (timerfd_settime(tfd, 0, &its, NULL) < 0) {
			die("timerfd_settime");
		}
	}
	report("timerfd_settime", t0, n);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		struct timespec ts;

		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	}
	report("clock_gettime-sys", t0, n);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (sendto(sv[1], &c, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN) {
			die("sendto");
		}
		if (i % 64 == 63) {
			while (recv(sv[0], buf[0], sizeof(buf[0]), MSG_DONTWAIT) >= 0) {
			}
		}
	}
	report("sendto", t0, n);
	while (recv(sv[0], buf[0], sizeof(buf[0]), MSG_DONTWAIT) >= 0) {
	}

	/* Round trip: the child echoes over a blocking pair; both wait in epoll_wait. */
	t0 = now_ns();
	for (long i = 0; i < m; i++) {
		if (write(rp[0], &c, 1) != 1 || epoll_wait(pep, &ev, 1, -1) != 1 ||
		    read(rp[0], &c, 1) != 1) {
			die("round trip");
		}
	}
	report("wakeup-roundtrip", t0, m);
	/* No waitpid(): the filter refuses wait4; the child has exited, reaped at our exit. */
	if (timerfd_settime(wfd, 0, &tick, NULL) < 0) {
		die("timerfd_settime");
	}
	timer_wakeups(tep, wfd, n / 1000 > 50 ? n / 1000 : 50);
	return 0;
}
