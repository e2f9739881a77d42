// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LD_PRELOAD test double that keeps a program's hands off every clock: each request that
 * would write a clock (clock_adjtime and adjtimex/ntp_adjtime with modes, clock_settime,
 * settimeofday) is logged to the file $PHCD_CLOCK_SHIM_LOG, one line each, and answered as if
 * the kernel had taken it, without the real call. Reads (modes 0, ADJ_OFFSET_SS_READ) go to the
 * kernel. So phcd runs as if it steered, and the log shows exactly what it asked for:
 *
 *   clock_adjtime clock=0 modes=0x2001 freq_ppb=12.345 status=0x40
 *   clock_adjtime clock=0 modes=0x2100 step_ns=-1500000
 *   clock_settime clock=0 time_ns=1700000000000000000
 *
 * (clock 0 is CLOCK_REALTIME; a PHC's clock id is negative). Used with capsh
 * --drop=cap_sys_time as a second net: a call that slipped past the shim fails with EPERM.
 *
 * With $PHCD_CLOCK_SHIM_SYNC naming a file, a read of CLOCK_REALTIME's state (modes 0) says what
 * that file says instead of the host's sync state, so a test flips "the kernel's clock is
 * synchronized" without touching the host: the words "sync" or "unsync" (STA_UNSYNC clear or
 * set, TIME_OK or TIME_ERROR returned), and optionally "maxerror=US", "tai=S", "ins", "del".
 * No file, or no "sync"/"unsync" word in it: the host's state as it is.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define SHIM_LOG_ENV "PHCD_CLOCK_SHIM_LOG"
#define SHIM_SYNC_ENV "PHCD_CLOCK_SHIM_SYNC"

typedef int (*clock_adjtime_fn)(clockid_t, struct timex *);

/* One line, appended in one write(2) so the lines of several processes never interleave. */
__attribute__((format(printf, 1, 2))) static void shim_log(const char *fmt, ...)
{
	const char *path = getenv(SHIM_LOG_ENV);
	char line[512];
	va_list ap;
	int fd, n;

	if (!path || !path[0]) {
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	if ((size_t) n > sizeof(line) - 2) {
		n = (int) sizeof(line) - 2;
	}
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		return;
	}
	(void) !write(fd, line, (size_t) n);
	close(fd);
}

/* The kernel's clock_adjtime, for reads only. */
static int real_clock_adjtime(clockid_t id, struct timex *tx)
{
	static clock_adjtime_fn real;

	if (!real) {
		real = (clock_adjtime_fn) dlsym(RTLD_NEXT, "clock_adjtime");
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(id, tx);
}

/* A read of CLOCK_REALTIME's state: the host's, with $PHCD_CLOCK_SHIM_SYNC's words over it. */
static int shim_read(clockid_t id, struct timex *tx)
{
	const char *path = getenv(SHIM_SYNC_ENV);
	int r = real_clock_adjtime(id, tx), synced = -1;
	char buf[256], *save = NULL;
	ssize_t n;
	int fd;

	if (r < 0 || id != CLOCK_REALTIME || !path || !path[0] || tx->modes != 0) {
		return r;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return r;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return r;
	}
	buf[n] = '\0';
	tx->status &= ~(STA_UNSYNC | STA_INS | STA_DEL);
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(w, "sync")) {
			synced = 1;
		} else if (!strcmp(w, "unsync")) {
			synced = 0;
		} else if (!strncmp(w, "maxerror=", 9)) {
			tx->maxerror = strtol(w + 9, NULL, 10);
		} else if (!strncmp(w, "tai=", 4)) {
			tx->tai = (int) strtol(w + 4, NULL, 10);
		} else if (!strcmp(w, "ins")) {
			tx->status |= STA_INS;
		} else if (!strcmp(w, "del")) {
			tx->status |= STA_DEL;
		}
	}
	if (synced < 0) {
		return real_clock_adjtime(id, tx);
	}
	if (!synced) {
		tx->status |= STA_UNSYNC;
	}
	return synced ? TIME_OK : TIME_ERROR;
}

static int64_t timeval_ns(const struct timeval *tv, int nano)
{
	/* ADJ_SETOFFSET: tv_usec carries nanoseconds with ADJ_NANO */
	return (int64_t) tv->tv_sec * 1000000000 + (int64_t) tv->tv_usec * (nano ? 1 : 1000);
}

/* Log a write request; answer it with the clock's state as a read sees it. */
static int shim_adjtime(const char *fn, clockid_t id, struct timex *tx)
{
	struct timex cur = { .modes = 0 };
	char what[256] = "";
	size_t len = 0;
	unsigned int m = tx->modes;

	if (m == 0) {
		return shim_read(id, tx);
	}
	if (m == ADJ_OFFSET_SS_READ) {
		return real_clock_adjtime(id, tx);
	}
#define ADD(...)                                                                \
	do {                                                                    \
		int k_ = snprintf(what + len, sizeof(what) - len, __VA_ARGS__); \
		if (k_ > 0 && (size_t) k_ < sizeof(what) - len) {               \
			len += (size_t) k_;                                     \
		}                                                               \
	} while (0)
	if (m & ADJ_SETOFFSET) {
		ADD(" step_ns=%" PRId64, timeval_ns(&tx->time, m & ADJ_NANO));
	}
	if (m & ADJ_FREQUENCY) {
		ADD(" freq_ppb=%.3f", (double) tx->freq / 65.536);
	}
	if ((m & ADJ_OFFSET) && !(m & ADJ_SETOFFSET)) {
		ADD(" offset=%ld%s", tx->offset, (m & ADJ_NANO) ? "ns" : "us");
	}
	if (m & ADJ_STATUS) {
		ADD(" status=0x%x", (unsigned int) tx->status);
	}
	if (m & ADJ_MAXERROR) {
		ADD(" maxerror_us=%ld", tx->maxerror);
	}
	if (m & ADJ_TICK) {
		ADD(" tick=%ld", tx->tick);
	}
#undef ADD
	shim_log("%s clock=%d modes=0x%x%s", fn, (int) id, m, what);
	/* As if taken: the state the kernel has, which a real write returns as well. */
	return real_clock_adjtime(id, &cur);
}

int clock_adjtime(clockid_t id, struct timex *tx)
{
	return shim_adjtime("clock_adjtime", id, tx);
}

int adjtimex(struct timex *tx)
{
	return shim_adjtime("adjtimex", CLOCK_REALTIME, tx);
}

int ntp_adjtime(struct timex *tx)
{
	return shim_adjtime("ntp_adjtime", CLOCK_REALTIME, tx);
}

int clock_settime(clockid_t id, const struct timespec *ts)
{
	shim_log("clock_settime clock=%d time_ns=%" PRId64, (int) id,
		 (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec);
	return 0;
}

int settimeofday(const struct timeval *tv, const struct timezone *tz)
{
	shim_log("settimeofday time_ns=%" PRId64 "%s", tv ? timeval_ns(tv, 0) : (int64_t) 0,
		 tz ? " tz" : "");
	return 0;
}
