// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A grandmaster's 1PPS on a pin of its PHC (ts2phc.pin_index, issue 28): enabled as ts2phc does
 * (phc-extts.c), each rising edge read on the supervisor's loop, paired with gpsd's TPV second
 * (extts-pair.c, ts2phc's rule) and handed to the PHC's follower (instance-follow.c, source
 * PHC_FOLLOW_PIN: the same servo, gate and lock rule as time_source system's), the reference ok
 * only while edges are paired. A PHC that refuses the pin leaves gpsd's PPS report, as without
 * the key.
 */
#include "daemon/instance-pin.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"
#include "common/time-util.h"
#include "daemon/instance-follow.h"
#include "daemon/instance-source.h"
#include "daemon/manager-object.h"
#include "daemon/manager-state.h"

/* Reads per readable PHC: the kernel queues 128 events, phc_extts_read() takes 8 at a time. */
#define PIN_READS_MAX 16

struct instance_pin {
	struct instance *i;
	/* what it was opened with: a change of any closes it */
	int phc_index;
	struct pin_options options;
	const struct instance_pin_ops *ops;
	void *ops_userdata;
	int fd;
	struct phc_extts x;
	struct extts_pair pair;
	sd_event_source *io, *timer;
	int error;	     /* -errno the PHC refused the pin with (gpsd's PPS taken), 0: none */
	const char *refused; /* then why, for D-Bus (static text) */
	uint64_t read_errors;
	/* the first of each kind logged, the rest counted */
	bool logged[EXTTS_PAIR_VERDICT_MAX];
	bool logged_dropped, logged_read;
};

static int kernel_open(void *userdata, int phc_index)
{
	char path[32];
	int fd;

	(void) userdata;
	snprintf(path, sizeof(path), "/dev/ptp%d", phc_index);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void kernel_close(void *userdata, int fd)
{
	(void) userdata;
	close(fd);
}

const struct instance_pin_ops instance_pin_kernel_ops = {
	.open = kernel_open,
	.close = kernel_close,
	.extts = &phc_extts_kernel_ops,
};

/* The one PHC of the instance's ports (hardware timestamps); -1: none; -2: several. */
static int the_phc(const struct instance *i, const char **ret_ifname)
{
	struct mport *p;
	int phc = -1;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance != i || !p->enabled || p->removed || p->phc_index < 0 ||
		    p->timestamping != TRANSPORT_TS_MODE_HARDWARE) {
			continue;
		}
		if (phc >= 0 && phc != p->phc_index) {
			return -2;
		}
		phc = p->phc_index;
		*ret_ifname = p->ifname;
	}
	return phc;
}

static bool wanted(const struct instance *i)
{
	return i->options.pin.pin_index >= 0 &&
	       i->options.time_source == OPTIONS_TIME_SOURCE_GNSS &&
	       i->clock_backend == OPTIONS_CLOCK_PHC && !i->manager->stopping;
}

void instance_pin_free(struct instance *i)
{
	struct instance_pin *p = i->pin;

	if (!p) {
		return;
	}
	sd_event_source_disable_unref(p->io);
	sd_event_source_disable_unref(p->timer);
	phc_extts_disable(&p->x);
	if (p->fd >= 0) {
		p->ops->close(p->ops_userdata, p->fd);
	}
	free(p);
	i->pin = NULL;
}

/* Why the PHC refused, in words for ReferenceReason (static text). */
static const char *refusal(int error)
{
	switch (error) {
	case -ENODEV:
		return "gpsd's PPS: the PHC has no pin or no external timestamp channel (ENODEV)";
	case -ERANGE:
		return "gpsd's PPS: ts2phc.pin_index or ts2phc.channel beyond the PHC's (ERANGE)";
	case -EOPNOTSUPP:
		return "gpsd's PPS: the PHC's driver cannot timestamp the pin (EOPNOTSUPP)";
	case -EBUSY:
		return "gpsd's PPS: the PHC's pin is in use (EBUSY)";
	default:
		return "gpsd's PPS: the PHC refused its pin (see the log)";
	}
}

static int on_io(sd_event_source *es, int fd, uint32_t revents, void *userdata);
static int on_timer(sd_event_source *es, uint64_t usec, void *userdata);

/* The pin on the PHC: enabled, or refused (p->error) with the fallback logged once. */
static void pin_open(struct instance_pin *p, const char *ifname)
{
	struct instance *i = p->i;
	sd_event *e = manager_get_event(i->manager);
	int r;

	r = p->ops->open(p->ops_userdata, p->phc_index);
	if (r >= 0) {
		p->fd = r;
		r = phc_extts_enable(&p->x, p->ops->extts, p->ops_userdata, p->fd,
				     (unsigned int) p->options.pin_index,
				     (unsigned int) p->options.channel);
	}
	if (r >= 0 && e) {
		r = sd_event_add_io(e, &p->io, p->fd, EPOLLIN, on_io, i);
		if (r >= 0) {
			r = sd_event_add_time(e, &p->timer, CLOCK_MONOTONIC, 0, 0, on_timer, i);
		}
		if (r >= 0) {
			r = sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
		}
	}
	if (r < 0) {
		p->error = r;
		p->refused = refusal(r);
		p->io = sd_event_source_disable_unref(p->io);
		p->timer = sd_event_source_disable_unref(p->timer);
		phc_extts_disable(&p->x);
		log_port_full_errno(
			ifname, LOG_ERR, r,
			"instance %s: /dev/ptp%d pin %d channel %d refused for the 1PPS: "
			"%m; taking gpsd's PPS report instead (as without "
			"ts2phc.pin_index)",
			i->name, p->phc_index, p->options.pin_index, p->options.channel);
		return;
	}
	log_port_full(ifname, LOG_INFO,
		      "instance %s: the 1PPS on /dev/ptp%d pin %d channel %d (correction %+d ns), "
		      "paired with gpsd's seconds",
		      i->name, p->phc_index, p->options.pin_index, p->options.channel,
		      p->options.extts_correction);
}

void instance_pin_update(struct instance *i)
{
	const char *ifname = NULL;
	struct instance_pin *p = i->pin;
	int phc = wanted(i) ? the_phc(i, &ifname) : -1;
	const struct instance_pin_ops *ops = i->manager->pin_ops ? i->manager->pin_ops
								 : &instance_pin_kernel_ops;

	if (p && (p->phc_index != phc || p->ops != ops ||
		  memcmp(&p->options, &i->options.pin, sizeof(p->options)))) {
		instance_pin_free(i);
		instance_source_pin_changed(i);
		p = NULL;
	}
	if (p || !wanted(i) || phc == -1) {
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		log_full(LOG_ERR, "instance %s: out of memory, no 1PPS pin", i->name);
		return;
	}
	*p = (struct instance_pin){
		.i = i,
		.phc_index = phc,
		.options = i->options.pin,
		.ops = ops,
		.ops_userdata = i->manager->pin_userdata,
		.fd = -1,
	};
	extts_pair_init(&p->pair, p->options.extts_correction);
	i->pin = p;
	if (phc == -2) {
		p->error = -EXDEV;
		p->refused =
			"gpsd's PPS: the instance's ports sit on several PHCs, the pin is not used";
		log_full(LOG_ERR,
			 "instance %s: ts2phc.pin_index %d, but its ports sit on several PHCs: "
			 "taking "
			 "gpsd's PPS report instead",
			 i->name, p->options.pin_index);
	} else {
		pin_open(p, ifname);
	}
	instance_source_pin_changed(i);
}

/* One edge: paired and steered, or counted and dropped (the first of each kind logged). */
static void take(struct instance_pin *p, int64_t t_ns, uint64_t now, const struct extts_tpv *tpv)
{
	struct instance *i = p->i;
	const struct instance_reference *ref = &i->reference;
	int16_t off = ref->utc_offset_valid ? ref->utc_offset : i->options.utc_offset;
	struct extts_sample s;
	enum extts_pair_verdict v;

	v = extts_pair_edge(&p->pair, t_ns, now, tpv, off, ref->leap61 || ref->leap59, &s);
	if (v == EXTTS_PAIR_OK) {
		log_full(LOG_DEBUG,
			 "instance %s: /dev/ptp%d pin edge %+" PRId64 " ns from TAI %" PRId64,
			 i->name, p->phc_index, s.offset_ns, s.tai_s);
		instance_follow_pin_sample(i, p->phc_index, s.offset_ns, s.phc_ns);
		return;
	}
	if (v != EXTTS_PAIR_FIRST && !p->logged[v]) {
		p->logged[v] = true;
		log_full(LOG_WARNING,
			 "instance %s: /dev/ptp%d pin: an edge at %" PRId64
			 " ns dropped: %s; the next "
			 "are only counted",
			 i->name, p->phc_index, t_ns, extts_pair_verdict_to_string(v));
	}
}

void instance_pin_read(struct instance *i, uint64_t now, const struct extts_tpv *tpv)
{
	struct instance_pin *p = i->pin;
	struct phc_extts_edge e[8];
	uint64_t paired;
	int n = 0;

	if (!p || !p->x.enabled) {
		return;
	}
	paired = p->pair.counters.paired;
	for (int k = 0; k < PIN_READS_MAX; k++) {
		n = phc_extts_read(&p->x, e, ARRAY_SIZE(e));
		if (n <= 0) {
			break;
		}
		for (int j = 0; j < n; j++) {
			take(p, e[j].t_ns, now, tpv);
		}
	}
	if (n < 0 && p->read_errors++ == 0) {
		log_full_errno(LOG_WARNING, n, "instance %s: /dev/ptp%d pin: cannot read: %m",
			       i->name, p->phc_index);
	}
	if ((p->x.foreign || p->x.rejected) && !p->logged_dropped) {
		p->logged_dropped = true;
		log_full(LOG_WARNING,
			 "instance %s: /dev/ptp%d pin: events of another channel or with an "
			 "impossible time dropped; the next are only counted",
			 i->name, p->phc_index);
	}
	if (p->pair.counters.paired != paired && p->timer) {
		(void) sd_event_source_set_time(p->timer, extts_pair_deadline(&p->pair));
		(void) sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
	}
	instance_source_pin_changed(i);
}

static int on_io(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	struct instance *i = userdata;
	struct extts_tpv tpv;
	uint64_t now = time_mono_usec();

	(void) es;
	(void) fd;
	(void) revents;
	instance_pin_read(i, now, instance_source_tpv(i, &tpv) ? &tpv : NULL);
	return 0;
}

/* No edge paired for 2 s: the reference is lost (judged again now). */
static int on_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
	(void) es;
	(void) usec;
	instance_source_pin_changed(userdata);
	return 0;
}

void instance_pin_judge(const struct instance *i, const struct time_source_report *gpsd,
			uint64_t now, struct time_source_report *ret)
{
	const struct instance_pin *p = i->pin;

	if (!p) {
		*ret = *gpsd;
		return;
	}
	if (p->error) {
		*ret = *gpsd;
		if (gpsd->ok) {
			ret->reason = p->refused;
		}
		return;
	}
	extts_pair_judge(&p->pair, gpsd, now, ret);
}

int instance_pin_phc(const struct instance *i)
{
	return i->pin && !i->pin->error ? i->pin->phc_index : -1;
}

const struct extts_pair *instance_pin_pair(const struct instance *i)
{
	return i->pin && !i->pin->error ? &i->pin->pair : NULL;
}

const struct phc_extts *instance_pin_extts(const struct instance *i)
{
	return i->pin && !i->pin->error ? &i->pin->x : NULL;
}

const char *instance_pin_why_not(const struct instance *i)
{
	if (i->options.pin.pin_index < 0) {
		return "a PHC is kept on gpsd's time only through its pin (ts2phc.pin_index)";
	}
	if (!i->pin) {
		return "the PHC's pin is not enabled yet";
	}
	if (i->pin->error) {
		return i->pin->refused;
	}
	if (!instance_follow_on_reference(i)) {
		return "the PHC is not yet locked to the 1PPS on its pin";
	}
	return NULL;
}
