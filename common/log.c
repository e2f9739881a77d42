// SPDX-License-Identifier: GPL-2.0-or-later
/* The one logger: see log.h. Its settings are the process's, so they are its only globals. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/time-util.h"

#define LOG_LINE_MAX 512
/*
 * Lines about one interface: a burst of LOG_RATE_BURST, then one a second (LOG_RATE_PER_SEC);
 * the rest are counted and said in one line when the next one passes. A worker, or what a
 * worker sends the supervisor, cannot fill the journal (issue 17: 209,483 lines in 20 s).
 */
#define LOG_RATE_BURST 200
#define LOG_RATE_PER_SEC 1
#define LOG_RATE_IFACES 32

struct log_bucket {
	char ifname[IF_NAMESIZE];
	double tokens;
	int64_t last; /* CLOCK_MONOTONIC, ns */
	uint64_t suppressed;
};

static const char *log_ident = "phcd";
static int log_max_level = LOG_INFO;
static bool log_prefix;
static log_sink_fn log_sink;
static struct log_bucket log_buckets[LOG_RATE_IFACES];

/* The interface's bucket: found, or a free or the longest idle one taken over. */
static struct log_bucket *log_bucket(const char *ifname, int64_t now)
{
	struct log_bucket *oldest = &log_buckets[0];

	for (size_t i = 0; i < LOG_RATE_IFACES; i++) {
		struct log_bucket *b = &log_buckets[i];

		if (b->ifname[0] && strncmp(b->ifname, ifname, sizeof(b->ifname)) == 0) {
			return b;
		}
		if (!b->ifname[0] || (oldest->ifname[0] && b->last < oldest->last)) {
			oldest = b;
		}
	}
	*oldest = (struct log_bucket){ .tokens = LOG_RATE_BURST, .last = now };
	snprintf(oldest->ifname, sizeof(oldest->ifname), "%s", ifname);
	return oldest;
}

/* May a line about ifname go out now? *suppressed: how many were held back before it. */
static bool log_rate_take(const char *ifname, uint64_t *suppressed)
{
	int64_t now = time_mono_ns();
	struct log_bucket *b = log_bucket(ifname, now);

	b->tokens += (double) (now - b->last) * LOG_RATE_PER_SEC / 1e9;
	if (b->tokens > LOG_RATE_BURST) {
		b->tokens = LOG_RATE_BURST;
	}
	b->last = now;
	if (b->tokens < 1) {
		b->suppressed++;
		return false;
	}
	b->tokens -= 1;
	*suppressed = b->suppressed;
	b->suppressed = 0;
	return true;
}

static void log_emit(int level, const char *ifname, const char *object, const char *msg)
{
	char pr[8] = "";

	if (log_sink && log_sink(level, log_ident, ifname, object, msg)) {
		return;
	}
	if (log_prefix) {
		snprintf(pr, sizeof(pr), "<%d>", level);
	}
	/* One fprintf: processes that share a stderr (the workers) do not interleave lines. */
	fprintf(stderr, "%s%s: %s%s%s\n", pr, log_ident, ifname ? ifname : "", ifname ? ": " : "",
		msg);
}

static void log_set_ident(const char *ident)
{
	log_ident = ident;
}

void log_set_max_level(int level)
{
	log_max_level = level;
}

void log_set_level_prefix(bool on)
{
	log_prefix = on;
}

bool log_get_level_prefix(void)
{
	return log_prefix;
}

void log_set_sink(log_sink_fn sink)
{
	log_sink = sink;
}

void log_setup(const char *ident)
{
	log_set_ident(ident);
	log_set_level_prefix(getenv("JOURNAL_STREAM") != NULL);
}

int log_internal(int level, int error, const char *ifname, const char *object, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX];
	uint64_t suppressed = 0;
	int saved = errno;
	va_list ap;

	if (level > log_max_level) {
		return error;
	}
	if (ifname && !log_rate_take(ifname, &suppressed)) {
		return error;
	}
	if (suppressed) {
		snprintf(msg, sizeof(msg),
			 "%" PRIu64 " lines suppressed (more than %d, then %d a second)",
			 suppressed, LOG_RATE_BURST, LOG_RATE_PER_SEC);
		log_emit(LOG_WARNING, ifname, object, msg);
	}
	/* "%m" prints strerror(errno): let it print the error handed in. */
	errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errno = saved;
	log_emit(level, ifname, object, msg);
	return error;
}

void log_port_data(int level, const char *ifname, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX], ident[64];
	const char *saved = log_ident;
	int64_t now = time_mono_ns();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ident, sizeof(ident), "%s[%" PRId64 ".%03" PRId64 "]", log_ident, now / 1000000000,
		 now % 1000000000 / 1000000);
	log_ident = ident;
	log_emit(level, ifname, NULL, msg);
	log_ident = saved;
}

void log_lines(int level, const char *text)
{
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");

		if (log_get_level_prefix()) {
			fprintf(stderr, "<%d>%.*s\n", level, (int) n, l);
		} else {
			fprintf(stderr, "%.*s\n", (int) n, l);
		}
		l += n + (l[n] == '\n');
	}
}
