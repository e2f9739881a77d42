/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What phcd knows of gpsd at a moment, folded from its reports: the time source report it makes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/gpsd-json.h"
#include "daemon/time-source.h"

/*
 * gpsd reports once a second (TPV, and TOFF or PPS): a report older than this is gone, and so is
 * the fix or the time it gave. Three cycles: one late or lost report is not a loss.
 */
#define GPSD_VIEW_STALE_USEC (UINT64_C(3) * 1000000)

struct gpsd_view {
	/* NULL while connected to gpsd; else why not (static text), and nothing below counts */
	const char *down;
	bool has_tpv;
	struct gpsd_tpv tpv;
	uint64_t tpv_at; /* CLOCK_MONOTONIC usec of each report's arrival */
	bool has_pps;
	struct gpsd_timedelta pps;
	uint64_t pps_at;
	bool has_toff;
	struct gpsd_timedelta toff;
	uint64_t toff_at;
};

/* Not connected, for reason (static text): everything learnt before is forgotten. */
void gpsd_view_down(struct gpsd_view *v, const char *reason);
/* Connected: nothing learnt yet. */
void gpsd_view_up(struct gpsd_view *v);
/*
 * One report from gpsd, arrived at now (CLOCK_MONOTONIC usec): TPV, PPS and TOFF are kept,
 * every other class is ignored. True when it brought a new measurement (PPS or TOFF).
 */
bool gpsd_view_take(struct gpsd_view *v, const struct gpsd_msg *m, uint64_t now);
/*
 * The report at now: ok when gpsd has a fix (mode 2 or 3) with a time and a PPS or TOFF, all
 * within GPSD_VIEW_STALE_USEC; the offset from the newest PPS, else from the newest TOFF; TAI -
 * UTC from TPV's leapseconds (GPS - UTC) + 19; max_error from TPV's ept. Pure.
 */
void gpsd_view_report(const struct gpsd_view *v, uint64_t now, struct time_source_report *r);
/*
 * The next moment after now when the report changes with no new input (a report going stale);
 * 0: none.
 */
uint64_t gpsd_view_deadline(const struct gpsd_view *v, uint64_t now);
/* Whether b says something other than a (state, reason, UTC offset, error bound, offset). */
bool gpsd_view_report_differs(const struct time_source_report *a,
			      const struct time_source_report *b);
