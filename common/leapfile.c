// SPDX-License-Identifier: GPL-2.0-or-later
/* tzdata's leap-seconds.list: a range-checked parser and the look-up a grandmaster announces. */
#include "common/leapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY_S 86400
#define NTP_1972 2272060800LL /* 1 Jan 1972, the table's first line */
#define NTP_MAX (1LL << 33)   /* beyond NTP era 1: no such file exists */
#define TAI_UTC_MIN 10
#define TAI_UTC_MAX 1000
#define FILE_MAX (64 * 1024) /* tzdata's is 10 kB */

/* Decimal digits only, at most 12 (no sign, no overflow); p moves past them. */
static int number(const char **p, const char *end, int64_t *ret)
{
	int64_t v = 0;
	int n = 0;

	while (*p < end && **p >= '0' && **p <= '9') {
		if (++n > 12) {
			return -EBADMSG;
		}
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	if (n == 0) {
		return -EBADMSG;
	}
	*ret = v;
	return 0;
}

static void blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r')) {
		(*p)++;
	}
}

/* "#@ NTP" */
static const char *parse_expiry(const char *p, const char *end, struct leap_table *t)
{
	int64_t ntp;

	blanks(&p, end);
	if (number(&p, end, &ntp) < 0) {
		return "an expiry line (#@) without NTP seconds";
	}
	blanks(&p, end);
	if (p != end) {
		return "text after the expiry's NTP seconds";
	}
	if (ntp < NTP_1972 || ntp >= NTP_MAX) {
		return "an expiry outside 1972..2^33 NTP seconds";
	}
	t->expires_s = ntp - LEAPFILE_NTP_UNIX_DELTA;
	return NULL;
}

/* "NTP TAI-UTC [# comment]" */
static const char *parse_entry(const char *p, const char *end, struct leap_table *t)
{
	int64_t ntp, off;
	struct leap_entry *last = t->n ? &t->e[t->n - 1] : NULL;

	if (number(&p, end, &ntp) < 0) {
		return "expected NTP seconds at the start of a line";
	}
	if (p == end || (*p != ' ' && *p != '\t')) {
		return "expected blanks after the NTP seconds";
	}
	blanks(&p, end);
	if (number(&p, end, &off) < 0) {
		return "expected TAI-UTC seconds after the NTP seconds";
	}
	blanks(&p, end);
	if (p != end && *p != '#') {
		return "text after TAI-UTC that is no comment";
	}
	if (ntp < NTP_1972 || ntp >= NTP_MAX) {
		return "NTP seconds outside 1972..2^33";
	}
	if (ntp % DAY_S) {
		return "a leap that is not at a UTC midnight";
	}
	if (off < TAI_UTC_MIN || off > TAI_UTC_MAX) {
		return "TAI-UTC outside 10..1000 s";
	}
	if (last && ntp - LEAPFILE_NTP_UNIX_DELTA <= last->utc_s) {
		return "a line not later than the one before";
	}
	if (last && off != last->tai_utc + 1 && off != last->tai_utc - 1) {
		return "TAI-UTC moving by other than one second";
	}
	if (t->n >= LEAPFILE_MAX_ENTRIES) {
		return "more lines than any leap-seconds.list has";
	}
	t->e[t->n++] = (struct leap_entry){ .utc_s = ntp - LEAPFILE_NTP_UNIX_DELTA,
					    .tai_utc = (int16_t) off };
	return NULL;
}

int leapfile_parse(const char *text, size_t len, struct leap_table *ret, unsigned int *ret_line,
		   const char **ret_why)
{
	struct leap_table t = { 0 };
	const char *p = text, *end = text + len, *why = NULL;
	unsigned int line = 0;

	while (p < end && !why) {
		const char *eol = memchr(p, '\n', (size_t) (end - p));
		const char *le = eol ? eol : end;

		line++;
		if (le - p > LEAPFILE_LINE_MAX) {
			why = "a line longer than 512 bytes";
		} else if (memchr(p, '\0', (size_t) (le - p))) {
			why = "a NUL byte";
		} else if (p[0] == '#') {
			why = le - p >= 2 && p[1] == '@' ? parse_expiry(p + 2, le, &t) : NULL;
		} else {
			const char *q = p;

			blanks(&q, le);
			why = q == le ? NULL : parse_entry(p, le, &t);
		}
		p = eol ? eol + 1 : end;
	}
	if (!why && t.n == 0) {
		line = 0;
		why = "no leap second line";
	}
	if (!why && t.expires_s && t.expires_s <= t.e[t.n - 1].utc_s) {
		line = 0;
		why = "it expires before its last leap second";
	}
	if (why) {
		*ret_line = line;
		*ret_why = why;
		return -EBADMSG;
	}
	*ret = t;
	return 0;
}

int leapfile_load(const char *path, struct leap_table *ret, char *err, size_t err_len)
{
	char *buf = malloc(FILE_MAX);
	const char *why;
	unsigned int line;
	struct stat st;
	ssize_t n = 0, k = 0;
	int fd, r;

	if (!buf) {
		snprintf(err, err_len, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* Non-blocking: a FIFO named here must not stall the supervisor; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		free(buf);
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s: not a regular file", path);
		close(fd);
		free(buf);
		return -EINVAL;
	}
	while (n < FILE_MAX && (k = read(fd, buf + n, (size_t) (FILE_MAX - n))) > 0) {
		n += k;
	}
	r = k < 0 ? -errno : 0;
	close(fd);
	if (r < 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(-r));
	} else if (n >= FILE_MAX) {
		r = -EFBIG;
		snprintf(err, err_len, "%s: larger than 64 kB, no leap-seconds.list", path);
	} else {
		r = leapfile_parse(buf, (size_t) n, ret, &line, &why);
		if (r < 0 && line) {
			snprintf(err, err_len, "%s:%u: %s", path, line, why);
		} else if (r < 0) {
			snprintf(err, err_len, "%s: %s", path, why);
		}
	}
	free(buf);
	return r;
}

int leapfile_lookup(const struct leap_table *t, int64_t utc_s, int16_t *ret_offset, int *ret_leap)
{
	size_t k = 0;

	if (t->n == 0 || utc_s < t->e[0].utc_s) {
		return -ERANGE;
	}
	while (k + 1 < t->n && t->e[k + 1].utc_s <= utc_s) {
		k++;
	}
	*ret_offset = t->e[k].tai_utc;
	*ret_leap = 0;
	/* IEEE 1588-2019 8.2.4.4: the last minute of the current UTC day has 61 (59) s. */
	if (k + 1 < t->n && t->e[k + 1].utc_s - utc_s <= DAY_S) {
		*ret_leap = t->e[k + 1].tai_utc - t->e[k].tai_utc;
	}
	return 0;
}

bool leapfile_expired(const struct leap_table *t, int64_t utc_s)
{
	return t->expires_s && utc_s >= t->expires_s;
}
