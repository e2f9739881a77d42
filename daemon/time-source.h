/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a grandmaster's own time source (the `time_source` key: the system clock or gpsd) says at
 * one moment: the contract between the sources (daemon/time-source-*.c, daemon/gpsd-client.c)
 * and the instance that follows them and announces their quality.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct time_source_report {
	uint64_t at_usec;    /* CLOCK_MONOTONIC when this was learnt */
	bool ok;	     /* traceable time now: the kernel synchronized, a GNSS fix with time */
	bool has_offset;     /* offset_ns below is a measurement */
	int64_t offset_ns;   /* the reference's time minus CLOCK_REALTIME at realtime_ns, UTC */
	int64_t realtime_ns; /* CLOCK_REALTIME of the measurement */
	int64_t max_error_ns;  /* the source's own bound on its error; -1: it gives none */
	int64_t est_error_ns;  /* the source's own estimate of its error (adjtimex esterror); -1 */
	bool utc_offset_valid; /* utc_offset below comes from the source */
	int16_t utc_offset;    /* TAI - UTC, s */
	bool leap61, leap59;   /* a leap second at the end of this UTC day */
	const char *reason;    /* why ok or not, for D-Bus and the journal (static text) */
};
