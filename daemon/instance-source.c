// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A grandmaster's own time source (issue 28): the system clock (time-source-system.c) or gpsd
 * (gpsd-client.c) behind one callback, its reports kept on the instance, the UTC offset and leap
 * flags checked against the leapfile, and a virtual clock kept on CLOCK_REALTIME. A PHC is kept
 * on it by the PHC followers (instance-follow.c, phc_follow with CLOCK_REALTIME as the source).
 */
#include "daemon/instance-source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/leapfile.h"
#include "common/log.h"
#include "common/time-util.h"
#include "daemon/gpsd-client.h"
#include "daemon/gpsd-view.h"
#include "daemon/instance-follow.h"
#include "daemon/instance-pin.h"
#include "daemon/manager-state.h"
#include "daemon/time-source-system.h"
#include "daemon/worker.h"

struct instance_source {
	struct instance *i;
	/* what it was opened with: a reload that changes any of them reopens it */
	enum options_time_source kind;
	char gpsd_address[OPTIONS_GPSD_ADDRESS_MAX];
	char leapfile[OPTIONS_LEAPFILE_MAX];
	struct time_source_system *system;
	struct gpsd_client *gpsd;
	bool have_leaps;
	struct leap_table leaps;
	/* each disagreement and the file's expiry logged once */
	bool logged_offset, logged_leap, logged_expired;
	/* gnss: gpsd's last report as it came, judged again when the PHC pin's state changes */
	bool have_gpsd_report;
	struct time_source_report gpsd_report;
};

/* One kind of source: opened on the instance's loop, reporting through on_report. */
struct source_kind {
	int (*open)(struct instance_source *s, sd_event *e);
	void (*close)(struct instance_source *s);
};

static void on_report(const struct time_source_report *r, void *userdata)
{
	struct instance_source *s = userdata;

	instance_source_report(s->i, r);
}

static int open_system(struct instance_source *s, sd_event *e)
{
	return time_source_system_new(e, &sysclock_linux_ops, NULL, on_report, s, &s->system);
}

static void close_system(struct instance_source *s)
{
	s->system = time_source_system_free(s->system);
}

static int open_gnss(struct instance_source *s, sd_event *e)
{
	return gpsd_client_new(e, s->gpsd_address, on_report, s, &s->gpsd);
}

static void close_gnss(struct instance_source *s)
{
	s->gpsd = gpsd_client_free(s->gpsd);
}

static const struct source_kind kinds[] = {
	[OPTIONS_TIME_SOURCE_SYSTEM] = { open_system, close_system },
	[OPTIONS_TIME_SOURCE_GNSS] = { open_gnss, close_gnss },
};

static void reference_reset(struct instance *i, const char *reason)
{
	i->reference = (struct instance_reference){ .reason = reason };
}

void instance_source_free(struct instance *i)
{
	struct instance_source *s = i->source;

	if (s) {
		kinds[s->kind].close(s);
		free(s);
	}
	i->source = NULL;
}

static bool same(const struct instance_source *s, const struct instance_options *o)
{
	return s->kind == o->time_source && !strcmp(s->gpsd_address, o->gpsd_address) &&
	       !strcmp(s->leapfile, o->leapfile);
}

void instance_source_update(struct instance *i)
{
	const struct instance_options *o = &i->options;
	sd_event *e = i->manager ? manager_get_event(i->manager) : NULL;
	struct instance_source *s = i->source;
	char err[LEAPFILE_LINE_MAX];
	int r;

	if (s && same(s, o)) {
		return;
	}
	if (!s && o->time_source == OPTIONS_TIME_SOURCE_NONE) {
		if (!i->reference.reason) {
			reference_reset(i, "no time source");
		}
		return;
	}
	instance_source_free(i);
	reference_reset(i, o->time_source == OPTIONS_TIME_SOURCE_NONE ? "no time source"
								      : "no report yet");
	manager_instance_changed(i, INSTANCE_CHANGED_REFERENCE);
	if (o->time_source == OPTIONS_TIME_SOURCE_NONE) {
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		log_full(LOG_ERR, "instance %s: out of memory, no time source", i->name);
		return;
	}
	s->i = i;
	s->kind = o->time_source;
	memcpy(s->gpsd_address, o->gpsd_address, sizeof(s->gpsd_address));
	memcpy(s->leapfile, o->leapfile, sizeof(s->leapfile));
	/* The configuration was checked with the file: a failure now is a file changed since. */
	if (s->leapfile[0] && leapfile_load(s->leapfile, &s->leaps, err, sizeof(err)) < 0) {
		log_full(LOG_ERR, "instance %s: leapfile %s, announcing without it", i->name, err);
	} else {
		s->have_leaps = s->leapfile[0];
	}
	i->source = s;
	if (!e) {
		return;
	}
	r = kinds[s->kind].open(s, e);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "instance %s: cannot open time source %s%s%s: %m",
			       i->name, options_time_source_to_string(s->kind),
			       s->kind == OPTIONS_TIME_SOURCE_GNSS ? " at " : "",
			       s->kind == OPTIONS_TIME_SOURCE_GNSS ? s->gpsd_address : "");
		i->reference.reason = "the time source cannot be opened (see the log)";
		return;
	}
	log_full(LOG_INFO, "instance %s: time source %s%s%s", i->name,
		 options_time_source_to_string(s->kind),
		 s->kind == OPTIONS_TIME_SOURCE_GNSS ? " at " : "",
		 s->kind == OPTIONS_TIME_SOURCE_GNSS ? s->gpsd_address : "");
}

static bool has_slave_port(const struct instance *i)
{
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i &&
		    (p->state == PORT_STATE_SLAVE || p->state == PORT_STATE_UNCALIBRATED)) {
			return true;
		}
	}
	return false;
}

/*
 * A virtual clock over CLOCK_REALTIME (software timestamps) is kept on it exactly: its correction
 * set to none, as the SLAVE port's correction is shared (worker-share.c). Not while a port of
 * the instance follows a master: its servo steers then.
 */
static void keep_virtual(struct instance *i)
{
	struct ipc_msg m = { .type = IPC_SET_CLOCK_STATE };
	struct timespec ts;
	struct mport *p;
	bool sent = false;

	if (i->clock_backend != OPTIONS_CLOCK_VIRTUAL || has_slave_port(i) ||
	    clock_gettime(CLOCK_REALTIME, &ts) < 0) {
		return;
	}
	m.clock_state.raw_ns = m.clock_state.local_ns = (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && p->worker && p->configured &&
		    p->timestamping == TRANSPORT_TS_MODE_SOFTWARE) {
			/* A failure: its exit follows on the pidfd and restarts it. */
			sent |= worker_send(p->worker, &m) >= 0;
		}
	}
	if (sent) {
		/* What a SLAVE port later reports is judged against what the ports serve. */
		i->served_clock.valid = true;
		i->served_clock.state = m.clock_state;
		i->reference.clock_kept_usec = time_mono_usec();
	}
}

/*
 * IEEE 1588-2019 8.2.4.2-4: currentUtcOffset and the leap flags. The leapfile's when there is
 * one (a source that disagrees is logged once), else the source's, else the configuration's.
 */
static void utc_of(struct instance_source *s, const struct time_source_report *r)
{
	struct instance_reference *ref = &s->i->reference;
	int64_t utc_s = r->realtime_ns / NS_PER_SEC;
	int16_t off;
	int leap;

	ref->utc_offset_valid = r->utc_offset_valid;
	ref->utc_offset = r->utc_offset_valid ? r->utc_offset : 0;
	ref->leap61 = r->leap61;
	ref->leap59 = r->leap59;
	if (!s->have_leaps || leapfile_lookup(&s->leaps, utc_s, &off, &leap) < 0) {
		return;
	}
	/*
	 * An expired file (its "#@" line in the past) may miss a leap second announced since: it
	 * counts as no file: the source's UTC offset and leap flags are announced (its own word on
	 * a leap second to come), never a stale table's.
	 */
	if (leapfile_expired(&s->leaps, utc_s)) {
		if (!s->logged_expired) {
			s->logged_expired = true;
			log_full(LOG_WARNING,
				 "instance %s: leapfile %s has expired: announcing the time "
				 "source's UTC offset and leap flags, as without a file",
				 s->i->name, s->leapfile);
		}
		return;
	}
	if (r->utc_offset_valid && r->utc_offset != off && !s->logged_offset) {
		s->logged_offset = true;
		log_full(LOG_WARNING,
			 "instance %s: the time source says TAI-UTC %d s, leapfile %s %d s: "
			 "announcing the leapfile's",
			 s->i->name, r->utc_offset, s->leapfile, off);
	}
	if ((r->leap61 != (leap > 0) || r->leap59 != (leap < 0)) && !s->logged_leap) {
		s->logged_leap = true;
		log_full(LOG_WARNING,
			 "instance %s: the time source's leap flags (leap61 %d, leap59 %d) are not "
			 "leapfile %s's (%+d s at the end of this UTC day): announcing the "
			 "leapfile's",
			 s->i->name, r->leap61, r->leap59, s->leapfile, leap);
	}
	ref->utc_offset_valid = true;
	ref->utc_offset = off;
	ref->leap61 = leap > 0;
	ref->leap59 = leap < 0;
}

void instance_source_report(struct instance *i, const struct time_source_report *r)
{
	struct instance_reference *ref = &i->reference;
	struct instance_source *s = i->source;
	struct time_source_report judged;

	if (!s) {
		return;
	}
	/* gpsd's word, and what the PHC pin makes of it (its edges paired, or its refusal) */
	if (s->kind == OPTIONS_TIME_SOURCE_GNSS) {
		if (r != &s->gpsd_report) {
			s->gpsd_report = *r;
		}
		s->have_gpsd_report = true;
		instance_pin_judge(i, r, time_mono_usec(), &judged);
		r = &judged;
	}
	ref->last = *r;
	if (!ref->last.reason) {
		ref->last.reason = r->ok ? "ok" : "not ok";
	}
	ref->updated_usec = time_usec(CLOCK_REALTIME);
	utc_of(i->source, r);
	keep_virtual(i);
	manager_instance_changed(i, INSTANCE_CHANGED_REFERENCE);
}

void instance_source_pin_changed(struct instance *i)
{
	struct instance_source *s = i->source;

	if (s && s->kind == OPTIONS_TIME_SOURCE_GNSS && s->have_gpsd_report) {
		instance_source_report(i, &s->gpsd_report);
	}
}

bool instance_source_tpv(const struct instance *i, struct extts_tpv *ret)
{
	const struct instance_source *s = i->source;
	const struct gpsd_view *v = s && s->gpsd ? gpsd_client_view(s->gpsd) : NULL;

	if (!v || v->down || !v->has_tpv || v->tpv.mode < GPSD_MODE_2D || !v->tpv.has_time) {
		return false;
	}
	*ret = (struct extts_tpv){ .valid = true, .utc_ns = v->tpv.time_ns, .at_usec = v->tpv_at };
	return true;
}

static bool ports_software(const struct instance *i)
{
	struct mport *p;
	bool any = false;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i) {
			if (p->timestamping != TRANSPORT_TS_MODE_SOFTWARE) {
				return false;
			}
			any = true;
		}
	}
	return any;
}

bool instance_source_locked(const struct instance *i, const char **ret_why)
{
	*ret_why = NULL;
	if (!i->source) {
		*ret_why = "no time source";
	} else if (instance_port_count(i) == 0) {
		*ret_why = "no port";
	} else if (has_slave_port(i)) {
		*ret_why = "a port follows a master: the time source steers nothing";
	} else {
		switch (i->clock_backend) {
		case OPTIONS_CLOCK_SYSTEM:
		case OPTIONS_CLOCK_FREE_RUNNING:
			/* Software timestamps: the clock is CLOCK_REALTIME itself. */
			if (!ports_software(i)) {
				*ret_why = "a PHC measured only is not kept on CLOCK_REALTIME";
			}
			break;
		case OPTIONS_CLOCK_VIRTUAL:
			if (!ports_software(i)) {
				*ret_why =
					"a virtual clock over a PHC is not kept on CLOCK_REALTIME";
			} else if (!i->reference.clock_kept_usec ||
				   time_mono_usec() - i->reference.clock_kept_usec >
					   TIME_SOURCE_KEPT_USEC) {
				*ret_why = "the virtual clock is not yet kept on CLOCK_REALTIME";
			}
			break;
		case OPTIONS_CLOCK_PHC:
			/* gpsd: only through the 1PPS on its pin (instance-pin.c) */
			if (i->options.time_source == OPTIONS_TIME_SOURCE_GNSS) {
				*ret_why = instance_pin_why_not(i);
			} else if (!instance_follow_on_reference(i)) {
				*ret_why = "the PHC is not yet locked to CLOCK_REALTIME";
			}
			break;
		}
	}
	return !*ret_why;
}
