// SPDX-License-Identifier: GPL-2.0-or-later
/* The one logger: see log.h. Its settings are the process's, so they are its only globals. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#define LOG_LINE_MAX 512

static const char *log_ident = "phcd";
static int log_max_level = LOG_INFO;
static bool log_prefix;
static log_sink_fn log_sink;

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
	char msg[LOG_LINE_MAX], pr[8] = "";
	int saved = errno;
	va_list ap;

	if (level > log_max_level) {
		return error;
	}
	/* "%m" prints strerror(errno): let it print the error handed in. */
	errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errno = saved;
	if (log_sink && log_sink(level, log_ident, ifname, object, msg)) {
		return error;
	}
	if (log_prefix) {
		snprintf(pr, sizeof(pr), "<%d>", level);
	}
	/* One fprintf: processes that share a stderr (the workers) do not interleave lines. */
	fprintf(stderr, "%s%s: %s%s%s\n", pr, log_ident, ifname ? ifname : "", ifname ? ": " : "",
		msg);
	return error;
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
