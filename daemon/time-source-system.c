// SPDX-License-Identifier: GPL-2.0-or-later
/* time_source = system: the kernel's sync state of CLOCK_REALTIME, read once a second. */
#include "daemon/time-source-system.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"

struct time_source_system {
	const struct sysclock_ops *ops;
	void *ops_userdata;
	void (*cb)(const struct time_source_report *r, void *userdata);
	void *userdata;
	sd_event_source *timer;
};

void time_source_system_judge(const struct timex *tx, int state, uint64_t at_usec,
			      int64_t realtime_ns, struct time_source_report *ret)
{
	*ret = (struct time_source_report){
		.at_usec = at_usec,
		/* The reference is CLOCK_REALTIME itself: no offset from it. */
		.has_offset = true,
		.realtime_ns = realtime_ns,
		.max_error_ns = -1,
		.est_error_ns = -1,
	};
	if (state < 0) {
		ret->has_offset = false;
		ret->reason = "cannot read the kernel's clock state";
		return;
	}
	if (tx->maxerror >= 0 && tx->maxerror < TIME_SOURCE_SYSTEM_MAXERROR_LIMIT_US) {
		ret->max_error_ns = (int64_t) tx->maxerror * 1000;
	}
	/* The NTP daemon's estimate of CLOCK_REALTIME's error (chronyd, ntpd set it at each
	 * update). */
	if (tx->esterror >= 0 && tx->esterror < TIME_SOURCE_SYSTEM_MAXERROR_LIMIT_US) {
		ret->est_error_ns = (int64_t) tx->esterror * 1000;
	}
	/* The kernel's TAI offset, where chronyd (leapsectz) or ntpd set it; 0: nobody did. */
	if (tx->tai >= 10 && tx->tai <= 1000) {
		ret->utc_offset_valid = true;
		ret->utc_offset = (int16_t) tx->tai;
	}
	ret->leap61 = tx->status & STA_INS;
	ret->leap59 = tx->status & STA_DEL;
	if (tx->status & STA_UNSYNC) {
		ret->reason = "the kernel's clock is not synchronized (STA_UNSYNC)";
	} else if (state == TIME_ERROR) {
		ret->reason = "the kernel's clock state is TIME_ERROR";
	} else if (ret->max_error_ns < 0) {
		ret->reason = "the kernel's maxerror is beyond 16 s";
	} else {
		ret->ok = true;
		ret->reason = "the kernel's clock is synchronized";
	}
}

static void read_once(struct time_source_system *s)
{
	struct time_source_report r;
	struct timex tx = { .modes = 0 };
	int state = s->ops->adjtime(s->ops_userdata, &tx);
	ns_t now = 0;

	if (s->ops->gettime(s->ops_userdata, CLOCK_REALTIME, &now) < 0) {
		now = 0;
	}
	time_source_system_judge(&tx, state, time_mono_usec(), now, &r);
	s->cb(&r, s->userdata);
}

static int on_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct time_source_system *s = userdata;

	sd_event_source_set_time(es, usec + TIME_SOURCE_SYSTEM_PERIOD_USEC);
	read_once(s);
	return 0;
}

int time_source_system_new(sd_event *e, const struct sysclock_ops *ops, void *ops_userdata,
			   void (*cb)(const struct time_source_report *r, void *userdata),
			   void *userdata, struct time_source_system **ret)
{
	struct time_source_system *s;
	int r;

	if (!e || !ops || !ops->adjtime || !ops->gettime || !cb) {
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	*s = (struct time_source_system){
		.ops = ops, .ops_userdata = ops_userdata, .cb = cb, .userdata = userdata
	};
	/* The first read on the next loop turn (not inside the caller), then once a period. */
	r = sd_event_add_time_relative(e, &s->timer, CLOCK_MONOTONIC, 1, 0, on_timer, s);
	if (r >= 0) {
		r = sd_event_source_set_enabled(s->timer, SD_EVENT_ON);
	}
	if (r < 0) {
		time_source_system_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

struct time_source_system *time_source_system_free(struct time_source_system *s)
{
	if (s) {
		sd_event_source_disable_unref(s->timer);
		free(s);
	}
	return NULL;
}
