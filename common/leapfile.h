/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tzdata's leap-seconds.list (ptp4l's leapfile key): TAI - UTC since 1972 and the leap seconds to
 * come until the file expires. Pure parser and look-up; the loader reads a file.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 28 leap seconds from 1972 to 2017; room for decades more. */
#define LEAPFILE_MAX_ENTRIES 64
/* NTP seconds (from 1900) of the Unix epoch. */
#define LEAPFILE_NTP_UNIX_DELTA 2208988800LL
/* A longer line is not leap-seconds.list. */
#define LEAPFILE_LINE_MAX 512

struct leap_entry {
	int64_t utc_s;	 /* Unix time from which tai_utc holds: a UTC midnight */
	int16_t tai_utc; /* TAI - UTC, s */
};

struct leap_table {
	size_t n;
	struct leap_entry e[LEAPFILE_MAX_ENTRIES]; /* ascending, each one second from the last */
	int64_t expires_s;			   /* Unix time the file expires ("#@"); 0: none */
};

/*
 * Parse the text of a leap-seconds.list (len bytes, NUL not needed). Data lines are "NTP-seconds
 * TAI-UTC [# comment]"; "#@ NTP-seconds" is the expiry; other '#' lines are comments. Range
 * checked: times from 1 Jan 1972 to 2^33 NTP seconds, each a UTC midnight after the last, TAI-UTC
 * 10..1000 moving by one second a line; at least one entry. -EBADMSG with *ret_line the bad line
 * (1-based; 0 for the file as a whole) and *ret_why a static sentence.
 */
int leapfile_parse(const char *text, size_t len, struct leap_table *ret, unsigned int *ret_line,
		   const char **ret_why);

/*
 * Read and parse path. On failure -errno (-EBADMSG for a bad file) and err holds
 * "path:line: why" (or "path: why").
 */
int leapfile_load(const char *path, struct leap_table *ret, char *err, size_t err_len);

/*
 * What the table says at Unix time utc_s: TAI - UTC now, and the leap second at the end of this
 * UTC day (+1: leap61, -1: leap59, 0: none). -ERANGE before the table's first entry.
 */
int leapfile_lookup(const struct leap_table *t, int64_t utc_s, int16_t *ret_offset, int *ret_leap);

/* The file has expired at utc_s: it can no longer rule out a leap second. */
bool leapfile_expired(const struct leap_table *t, int64_t utc_s);
