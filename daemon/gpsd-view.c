// SPDX-License-Identifier: GPL-2.0-or-later
/* What phcd knows of gpsd at a moment, folded from its reports: the time source report it makes. */
#include <string.h>

#include "daemon/gpsd-view.h"

/* TAI - GPS time: 19 s, fixed since GPS time began (1980-01-06, when TAI - UTC was 19 s). */
#define GPS_TAI_OFFSET 19

void gpsd_view_down(struct gpsd_view *v, const char *reason)
{
	*v = (struct gpsd_view){ .down = reason };
}

void gpsd_view_up(struct gpsd_view *v)
{
	*v = (struct gpsd_view){ 0 };
}

bool gpsd_view_take(struct gpsd_view *v, const struct gpsd_msg *m, uint64_t now)
{
	switch (m->cls) {
	case GPSD_CLASS_TPV:
		v->has_tpv = true;
		v->tpv = m->tpv;
		v->tpv_at = now;
		return false;
	case GPSD_CLASS_PPS:
		v->has_pps = true;
		v->pps = m->delta;
		v->pps_at = now;
		return true;
	case GPSD_CLASS_TOFF:
		v->has_toff = true;
		v->toff = m->delta;
		v->toff_at = now;
		return true;
	default:
		return false;
	}
}

static bool fresh(bool has, uint64_t at, uint64_t now)
{
	return has && now - at <= GPSD_VIEW_STALE_USEC;
}

void gpsd_view_report(const struct gpsd_view *v, uint64_t now, struct time_source_report *r)
{
	bool tpv = fresh(v->has_tpv, v->tpv_at, now);
	bool pps = fresh(v->has_pps, v->pps_at, now);
	bool toff = fresh(v->has_toff, v->toff_at, now);
	const struct gpsd_timedelta *d = pps ? &v->pps : toff ? &v->toff : NULL;

	*r = (struct time_source_report){ .at_usec = now, .max_error_ns = -1, .est_error_ns = -1 };
	if (v->down) {
		r->reason = v->down;
		return;
	}
	if (d) {
		r->has_offset = true;
		r->offset_ns = d->real_ns - d->clock_ns;
		r->realtime_ns = d->clock_ns;
	}
	if (tpv && v->tpv.has_leapseconds) {
		r->utc_offset_valid = true;
		r->utc_offset = (int16_t) (v->tpv.leapseconds + GPS_TAI_OFFSET);
	}
	if (tpv && v->tpv.ept_ns >= 0) {
		r->max_error_ns = v->tpv.ept_ns;
	}
	if (!v->has_tpv) {
		r->reason = "gpsd: connected, no TPV report yet";
	} else if (!tpv) {
		r->reason = "gpsd: no TPV report for 3 s";
	} else if (v->tpv.mode < GPSD_MODE_2D) {
		r->reason = "gpsd: no fix";
	} else if (!v->tpv.has_time) {
		r->reason = "gpsd: a fix without time";
	} else if (!d) {
		r->reason = "gpsd: a fix, no PPS or TOFF report for 3 s";
	} else {
		r->ok = true;
		r->reason = pps ? "gpsd: a fix, time from PPS" : "gpsd: a fix, time of day (TOFF)";
	}
}

static uint64_t earliest(uint64_t deadline, bool has, uint64_t at, uint64_t now)
{
	uint64_t end = at + GPSD_VIEW_STALE_USEC + 1;

	if (!has || end <= now) {
		return deadline;
	}
	return deadline && deadline < end ? deadline : end;
}

uint64_t gpsd_view_deadline(const struct gpsd_view *v, uint64_t now)
{
	uint64_t d = 0;

	if (v->down) {
		return 0;
	}
	d = earliest(d, v->has_tpv, v->tpv_at, now);
	d = earliest(d, v->has_pps, v->pps_at, now);
	return earliest(d, v->has_toff, v->toff_at, now);
}

bool gpsd_view_report_differs(const struct time_source_report *a,
			      const struct time_source_report *b)
{
	return a->ok != b->ok || a->has_offset != b->has_offset ||
	       a->utc_offset_valid != b->utc_offset_valid || a->utc_offset != b->utc_offset ||
	       a->max_error_ns != b->max_error_ns || a->leap61 != b->leap61 ||
	       a->leap59 != b->leap59 || !a->reason != !b->reason ||
	       (a->reason && strcmp(a->reason, b->reason));
}
