// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for benchmarks: a program that steers CLOCK_REALTIME (ptp4l -S) steers a
 * virtual clock of its own instead, so it can run as a real slave (servo states s0..s2) next to
 * phcd without touching this machine's clock. What it intercepts:
 *   clock_gettime(CLOCK_REALTIME)   returns the virtual clock
 *   clock_adjtime(CLOCK_REALTIME)   frequency (ADJ_FREQUENCY, ADJ_TICK) and steps (ADJ_SETOFFSET)
 *                                   act on the virtual clock; reads report its frequency; the
 *                                   rest (status, leap, errors) is dropped
 *   recvmsg                         software timestamps (SCM_TIMESTAMPING ts[0]) are moved onto
 *                                   the virtual clock, receive and transmit alike
 * virtual = real + offset + (real - ref) * (freq + VCLOCK_FREQ_ERROR_PPB) / 1e9, starting with
 * offset VCLOCK_OFFSET_NS (a clock off at boot, like phcd-port's --virtual-offset and
 * --virtual-freq). With VCLOCK_LOG=FILE, each frequency change appends "REALTIME_S
 * TRUE_ERROR_NS" (virtual minus real, the true error when the master runs on CLOCK_REALTIME).
 * Single-threaded programs only (ptp4l is). Not used by any test; the benches in tests/bench load
 * it.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#ifndef SCM_TIMESTAMPING
#define SCM_TIMESTAMPING 37
#endif

static int (*real_gettime)(clockid_t, struct timespec *);
static int (*real_adjtime)(clockid_t, struct timex *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);

static int64_t v_offset, v_ref;
static double v_freq, v_freq_error;
static FILE *v_log;
static long nominal_tick, hz;

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	if (ts.tv_nsec < 0) {
		ts.tv_nsec += 1000000000;
		ts.tv_sec--;
	}
	return ts;
}

static int64_t real_now(void)
{
	struct timespec ts;

	real_gettime(CLOCK_REALTIME, &ts);
	return ts_ns(&ts);
}

static int64_t to_virtual(int64_t real)
{
	return real + v_offset + llround((double) (real - v_ref) * (v_freq + v_freq_error) / 1e9);
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *s;

	real_gettime = (int (*)(clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
	real_adjtime = (int (*)(clockid_t, struct timex *)) dlsym(RTLD_NEXT, "clock_adjtime");
	real_recvmsg = (ssize_t(*)(int, struct msghdr *, int)) dlsym(RTLD_NEXT, "recvmsg");
	if (!real_gettime || !real_adjtime || !real_recvmsg) {
		fprintf(stderr, "vclock-shim: dlsym failed\n");
		abort();
	}
	v_ref = real_now();
	s = getenv("VCLOCK_OFFSET_NS");
	v_offset = s ? strtoll(s, NULL, 10) : 0;
	s = getenv("VCLOCK_FREQ_ERROR_PPB");
	v_freq_error = s ? strtod(s, NULL) : 0;
	s = getenv("VCLOCK_LOG");
	if (s) {
		v_log = fopen(s, "a");
		if (v_log) {
			setvbuf(v_log, NULL, _IOLBF, 0);
		}
	}
	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0) {
		hz = 100;
	}
	nominal_tick = (1000000 + hz / 2) / hz;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int r = real_gettime(id, ts);

	if (r == 0 && id == CLOCK_REALTIME) {
		*ts = ns_ts(to_virtual(ts_ns(ts)));
	}
	return r;
}

static void set_freq(double ppb)
{
	int64_t real = real_now();

	v_offset = to_virtual(real) - real;
	v_ref = real;
	v_freq = ppb;
	if (v_log) {
		fprintf(v_log, "%.6f %" PRId64 "\n", (double) real / 1e9, to_virtual(real) - real);
	}
}

int clock_adjtime(clockid_t id, struct timex *tx)
{
	unsigned int modes = tx->modes;
	double ppb = v_freq;
	int r;

	if (id != CLOCK_REALTIME) {
		return real_adjtime(id, tx);
	}
	if (modes & ADJ_SETOFFSET) {
		int64_t step = (int64_t) tx->time.tv_sec * 1000000000 +
			       (modes & ADJ_NANO ? tx->time.tv_usec : tx->time.tv_usec * 1000);

		v_offset += step;
	}
	if (modes & (ADJ_FREQUENCY | ADJ_TICK)) {
		ppb = 0;
		if (modes & ADJ_FREQUENCY) {
			ppb += (double) tx->freq / 65.536;
		}
		if (modes & ADJ_TICK) {
			ppb += 1e3 * (double) hz * (double) (tx->tick - nominal_tick);
		}
		set_freq(ppb);
	}
	/* what a read answers (tolerance, status...), with the virtual clock's frequency */
	memset(tx, 0, sizeof(*tx));
	r = real_adjtime(id, tx);
	tx->tick = nominal_tick;
	tx->freq = (long) llround(v_freq * 65.536);
	return r < 0 ? r : TIME_OK;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t n = real_recvmsg(fd, msg, flags);
	struct cmsghdr *cm;

	if (n < 0 || !msg->msg_control) {
		return n;
	}
	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			if (ts.tv_sec || ts.tv_nsec) {
				ts = ns_ts(to_virtual(ts_ns(&ts)));
				memcpy(CMSG_DATA(cm), &ts, sizeof(ts));
			}
		}
	}
	return n;
}
