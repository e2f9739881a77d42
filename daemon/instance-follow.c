// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A boundary clock across NICs in the supervisor: each instance whose ports (clock_backend phc,
 * hardware timestamps) sit on several PHCs keeps the PHCs of its other NICs in step with the PHC
 * of its SLAVE port (daemon/phc-follow.c), at that port's Sync rate. phc_follow = off: never.
 * A grandmaster with time_source = system keeps all its PHCs on CLOCK_REALTIME the same way
 * (phc2sys -s CLOCK_REALTIME) while no port follows a master; one with time_source = gnss and a
 * PHC pin (instance-pin.c) keeps that PHC on the pin's 1PPS, each paired edge a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/time-util.h"
#include "daemon/instance-follow.h"
#include "daemon/instance-pin.h"
#include "daemon/manager-object.h"
#include "daemon/manager-state.h"
#include "daemon/phc-follow.h"
#include "daemon/sysclock.h"
#include "daemon/worker-trust.h"
#include "ptp/num.h"

#define FOLLOW_MAX_PHCS 16
/* The Sync rate, clamped: faster costs the supervisor CPU for nothing, slower drifts. */
#define FOLLOW_MIN_LOG_INTERVAL (-4)
#define FOLLOW_MAX_LOG_INTERVAL 0

/* A read-only fd per PHC for the PTP_SYS_OFFSET* ioctls. */
struct follow_reader {
	int phc_index;
	int fd;
	enum sysoff_method method;
};

struct instance_follow {
	struct instance *i;
	struct phc_follow *pf;
	struct servo_options policy; /* the instance's servo options pf was made with */
	sd_event_source *timer;
	int log_interval;
	struct follow_reader rd[FOLLOW_MAX_PHCS];
	size_t n_rd;
	/* PHCs found faulty, for the derive pass to take their ports FAULTY
	 * (instance_follow_take_fault) */
	int fault_phc[FOLLOW_MAX_PHCS];
	int fault_error[FOLLOW_MAX_PHCS];
	size_t n_faults;
	/* what was logged last per follower, so each change is logged once */
	int logged_phc[FOLLOW_MAX_PHCS];
	enum phc_follower_state logged_state[FOLLOW_MAX_PHCS];
	size_t n_logged;
};

static struct follow_reader *reader(struct instance_follow *f, int phc_index)
{
	char path[32];
	struct follow_reader *rd;
	int r;

	for (size_t k = 0; k < f->n_rd; k++) {
		if (f->rd[k].phc_index == phc_index) {
			return &f->rd[k];
		}
	}
	if (f->n_rd >= ARRAY_SIZE(f->rd)) {
		return NULL;
	}
	rd = &f->rd[f->n_rd];
	snprintf(path, sizeof(path), "/dev/ptp%d", phc_index);
	rd->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rd->fd < 0) {
		return NULL;
	}
	r = sysoff_probe(rd->fd, &rd->method);
	if (r < 0) {
		close(rd->fd);
		return NULL;
	}
	rd->phc_index = phc_index;
	f->n_rd++;
	return rd;
}

static void readers_close(struct instance_follow *f)
{
	for (size_t k = 0; k < f->n_rd; k++) {
		close(f->rd[k].fd);
	}
	f->n_rd = 0;
}

/*
 * CLOCK_REALTIME on the PHCs' timescale (TAI: UTC plus the offset the instance announces). Not in
 * the two seconds around a UTC midnight with a leap pending, where UTC is ambiguous.
 */
static int realtime_measure(const struct instance *i, struct sysoff_pair *ret)
{
	const struct instance_reference *ref = &i->reference;
	int16_t off = ref->utc_offset_valid ? ref->utc_offset : i->options.utc_offset;
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0) {
		return -errno;
	}
	if ((ref->leap61 || ref->leap59) && sysclock_utc_ambiguous(ts.tv_sec)) {
		return -EAGAIN;
	}
	*ret = (struct sysoff_pair){
		.sys = (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec,
		.phc = ((ns_t) ts.tv_sec + off) * NS_PER_SEC + ts.tv_nsec,
	};
	return 0;
}

static int linux_measure(void *userdata, int phc_index, struct sysoff_pair *ret)
{
	struct instance_follow *f = userdata;
	struct follow_reader *rd;

	if (phc_index == PHC_FOLLOW_REALTIME) {
		return realtime_measure(f->i, ret);
	}
	rd = reader(f, phc_index);

	if (!rd) {
		return -errno ? -errno : -ENODEV;
	}
	return sysoff_measure(rd->fd, rd->method, SYSOFF_DEFAULT_SAMPLES, ret);
}

/* Read-write, and adjusted once to what it has: a PHC we may not steer fails here, at once. */
static int linux_open(void *userdata, int phc_index, struct clock **ret)
{
	char path[32];
	double freq = 0;
	int fd, r;

	(void) userdata;
	snprintf(path, sizeof(path), "/dev/ptp%d", phc_index);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	r = clock_phc_new(fd, ret);
	if (r < 0) {
		close(fd);
		return r;
	}
	r = clock_get_freq(*ret, &freq);
	if (r >= 0) {
		r = clock_adj_freq(*ret, freq);
	}
	if (r < 0) {
		*ret = clock_free(*ret);
	}
	return r;
}

static void linux_close(void *userdata, struct clock *c)
{
	(void) userdata;
	clock_free(c);
}

static const struct phc_follow_ops linux_ops = {
	.measure = linux_measure,
	.open = linux_open,
	.close = linux_close,
};

/* A port whose PHC the instance's followers may read or steer. */
static bool port_on_phc(const struct mport *p)
{
	return p->instance->clock_backend == OPTIONS_CLOCK_PHC && p->phc_index >= 0 &&
	       p->timestamping == TRANSPORT_TS_MODE_HARDWARE && p->enabled && !p->removed &&
	       !p->phc_rival && !p->phc_fault;
}

/*
 * The source: the PHC of the port the supervisor made SLAVE (or UNCALIBRATED), once its servo
 * is locked; -1 before (the followers hold). The SLAVE port's own first step (a PHC 1 ms off
 * its master) is then behind: followers that had locked onto the PHC before it would see a jump
 * they may not step for (first_step_taken), and slew it for minutes.
 */
/*
 * A grandmaster's own reference while no port follows a master: PHC_FOLLOW_REALTIME (time_source
 * system), PHC_FOLLOW_PIN (gnss with its PHC pin enabled); -1: none.
 */
static int own_reference(const struct instance *i)
{
	struct mport *p;
	int ref = -1;

	if (i->options.time_source == OPTIONS_TIME_SOURCE_SYSTEM) {
		ref = PHC_FOLLOW_REALTIME;
	} else if (i->options.time_source == OPTIONS_TIME_SOURCE_GNSS && instance_pin_phc(i) >= 0) {
		ref = PHC_FOLLOW_PIN;
	}
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i &&
		    (p->state == PORT_STATE_SLAVE || p->state == PORT_STATE_UNCALIBRATED)) {
			return -1;
		}
	}
	return ref;
}

static bool own_source(int source)
{
	return source == PHC_FOLLOW_REALTIME || source == PHC_FOLLOW_PIN;
}

static int source_phc(const struct instance *i)
{
	struct mport *p;
	int ref = own_reference(i);

	if (ref >= 0) {
		return ref;
	}
	if (i->servo_state != SERVO_LOCKED) {
		return -1;
	}
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && port_on_phc(p) && p->worker &&
		    (p->state == PORT_STATE_SLAVE || p->state == PORT_STATE_UNCALIBRATED) &&
		    worker_trust_slave(&p->trust, time_mono_usec())) {
			return p->phc_index;
		}
	}
	return -1;
}

/* The distinct PHCs of the instance's ports (up to max). */
static size_t instance_phcs(const struct instance *i, int *ret, size_t max)
{
	struct mport *p;
	size_t n = 0;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		bool seen = false;

		if (p->instance != i || !port_on_phc(p)) {
			continue;
		}
		for (size_t j = 0; j < n; j++) {
			seen |= ret[j] == p->phc_index;
		}
		if (!seen && n < max) {
			ret[n++] = p->phc_index;
		}
	}
	return n;
}

static struct mport *port_of_phc(const struct instance *i, int phc_index)
{
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && port_on_phc(p) && p->phc_index == phc_index &&
		    (p->state == PORT_STATE_SLAVE || p->state == PORT_STATE_UNCALIBRATED)) {
			return p;
		}
	}
	return NULL;
}

static int source_log_interval(const struct instance *i, int source)
{
	struct mport *p = source >= 0 ? port_of_phc(i, source) : NULL;
	int l = p ? p->options.logSyncInterval : FOLLOW_MAX_LOG_INTERVAL;

	if (l < FOLLOW_MIN_LOG_INTERVAL) {
		l = FOLLOW_MIN_LOG_INTERVAL;
	}
	return l > FOLLOW_MAX_LOG_INTERVAL ? FOLLOW_MAX_LOG_INTERVAL : l;
}

static uint64_t interval_usec(int log_interval)
{
	return (uint64_t) num_llround(ldexp(1.0, log_interval) * USEC_PER_SEC);
}

void instance_follow_free(struct instance *i)
{
	struct instance_follow *f = i->follow;

	if (!f) {
		return;
	}
	sd_event_source_disable_unref(f->timer);
	phc_follow_free(f->pf);
	readers_close(f);
	free(f);
	i->follow = NULL;
}

/* Remember a faulty PHC once, for instance_follow_take_fault(). */
static void note_fault(struct instance_follow *f, int phc_index, int error)
{
	for (size_t k = 0; k < f->n_faults; k++) {
		if (f->fault_phc[k] == phc_index) {
			return;
		}
	}
	if (f->n_faults < ARRAY_SIZE(f->fault_phc)) {
		f->fault_phc[f->n_faults] = phc_index;
		f->fault_error[f->n_faults] = error;
		f->n_faults++;
	}
}

bool instance_follow_take_fault(struct instance *i, int *ret_phc, int *ret_error)
{
	struct instance_follow *f = i->follow;

	if (!f || f->n_faults == 0) {
		return false;
	}
	f->n_faults--;
	*ret_phc = f->fault_phc[f->n_faults];
	*ret_error = f->fault_error[f->n_faults];
	return true;
}

/* Log what changed; true if the followers' list or states changed. Faults are noted. */
static bool report(struct instance_follow *f)
{
	struct instance *i = f->i;
	bool changed = false;

	for (size_t k = 0; k < f->pf->n; k++) {
		const struct phc_follower *fl = &f->pf->f[k];
		size_t j;

		for (j = 0; j < f->n_logged && f->logged_phc[j] != fl->phc_index; j++) {
		}
		if (j == f->n_logged && j < ARRAY_SIZE(f->logged_phc)) {
			f->logged_phc[j] = fl->phc_index;
			f->logged_state[j] = PHC_FOLLOWER_UNLOCKED;
			f->n_logged++;
			changed = true;
		}
		if (j < f->n_logged && f->logged_state[j] != fl->state) {
			if (f->pf->source < 0) {
				log_full(LOG_INFO,
					 "instance %s: /dev/ptp%d holds its frequency (no locked "
					 "SLAVE port to follow)",
					 i->name, fl->phc_index);
			} else if (own_source(f->pf->source)) {
				log_full(LOG_INFO, "instance %s: /dev/ptp%d follows %s (%s)",
					 i->name, fl->phc_index,
					 f->pf->source == PHC_FOLLOW_PIN ? "the 1PPS on its pin"
									 : "CLOCK_REALTIME",
					 phc_follower_state_to_string(fl->state));
			} else {
				log_full(LOG_INFO,
					 "instance %s: /dev/ptp%d follows /dev/ptp%d (%s)", i->name,
					 fl->phc_index, f->pf->source,
					 phc_follower_state_to_string(fl->state));
			}
			f->logged_state[j] = fl->state;
			changed = true;
		}
		if (fl->state == PHC_FOLLOWER_FAULTY) {
			note_fault(f, fl->phc_index, fl->error_code ? fl->error_code : -EIO);
		}
	}
	/* offsets and frequencies change at every sample: D-Bus reads them when asked */
	return changed || f->n_faults;
}

static bool wanted(const struct instance *i, size_t n_phcs)
{
	bool own = own_reference(i) >= 0 && n_phcs >= 1;

	return (own || (i->options.phc_follow == OPTIONS_PHC_FOLLOW_AUTO && n_phcs >= 2)) &&
	       i->clock_backend == OPTIONS_CLOCK_PHC && !i->manager->stopping;
}

static int on_tick(sd_event_source *es, uint64_t usec, void *userdata);

static int follow_new(struct instance *i)
{
	const struct servo_options *o = &i->options.servo;
	struct phc_follow_config cfg;
	struct instance_follow *f = calloc(1, sizeof(*f));
	int r;

	if (!f) {
		return -ENOMEM;
	}
	f->i = i;
	f->policy = *o;
	f->log_interval = FOLLOW_MAX_LOG_INTERVAL;
	phc_follow_config_default(&cfg);
	/* the instance's step policy, hardware PI constants (the PHCs' reads are hardware's) */
	cfg.servo.first_step_threshold = (ns_t) num_llround(o->first_step_threshold * NS_PER_SEC);
	cfg.servo.step_threshold = (ns_t) num_llround(o->step_threshold * NS_PER_SEC);
	cfg.servo.max_offset_jump = (ns_t) num_llround(o->max_offset_jump * NS_PER_SEC);
	if (o->max_frequency > 0 && o->max_frequency < cfg.servo.max_freq_ppb) {
		cfg.servo.max_freq_ppb = o->max_frequency;
	}
	cfg.interval_s = ldexp(1.0, f->log_interval);
	if (i->manager->follow_ops) {
		r = phc_follow_new(i->manager->follow_ops, i->manager->follow_userdata, &cfg,
				   &f->pf);
	} else {
		r = phc_follow_new(&linux_ops, f, &cfg, &f->pf);
	}
	if (r >= 0) {
		r = sd_event_add_time_relative(manager_get_event(i->manager), &f->timer,
					       CLOCK_MONOTONIC, interval_usec(f->log_interval), 0,
					       on_tick, f);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(f->timer, SD_EVENT_ON);
	}
	if (r < 0) {
		sd_event_source_disable_unref(f->timer);
		phc_follow_free(f->pf);
		free(f);
		return r;
	}
	i->follow = f;
	if (own_reference(i) == PHC_FOLLOW_PIN) {
		log_full(LOG_INFO,
			 "instance %s: its PHC follows the 1PPS on its pin (time_source gnss)",
			 i->name);
	} else if (own_reference(i) >= 0) {
		log_full(LOG_INFO,
			 "instance %s: its PHCs follow CLOCK_REALTIME (time_source system)",
			 i->name);
	} else {
		log_full(LOG_INFO,
			 "instance %s spans several PHCs: the other NICs' PHCs follow the SLAVE "
			 "port's (phc_follow)",
			 i->name);
	}
	return 0;
}

bool instance_follow_update(struct instance *i)
{
	int phcs[FOLLOW_MAX_PHCS];
	size_t n = instance_phcs(i, phcs, ARRAY_SIZE(phcs));
	struct instance_follow *f = i->follow;
	bool changed = false;
	int source, l;

	if (f && (!wanted(i, n) || memcmp(&f->policy, &i->options.servo, sizeof(f->policy)))) {
		instance_follow_free(i);
		f = NULL;
		changed = true;
	}
	if (!wanted(i, n)) {
		return changed;
	}
	if (!f && follow_new(i) < 0) {
		return changed;
	}
	f = i->follow;
	source = source_phc(i);
	/* the pin steers its own PHC only: the one PHC of the instance (instance-pin.c) */
	if (source == PHC_FOLLOW_PIN) {
		phcs[0] = instance_pin_phc(i);
		n = 1;
	}
	(void) phc_follow_set(f->pf, source, phcs, n);
	l = source_log_interval(i, source);
	if (l != f->log_interval) {
		f->log_interval = l;
		phc_follow_set_interval(f->pf, ldexp(1.0, l));
	}
	return report(f) || changed;
}

static int on_tick(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct instance_follow *f = userdata;
	struct instance *i = f->i;

	bool changed;

	sd_event_source_set_time(es, usec + interval_usec(f->log_interval));
	changed = instance_follow_update(i);
	f = i->follow;
	if (!f) {
		manager_instance_changed(i, INSTANCE_CHANGED_FOLLOWERS);
		return 0;
	}
	(void) phc_follow_tick(f->pf);
	for (size_t k = 0; f->pf->source >= 0 && !own_source(f->pf->source) && k < f->pf->n; k++) {
		const struct phc_follower *fl = &f->pf->f[k];

		/* one line a sample, as a port logs its offsets */
		log_full(LOG_DEBUG,
			 "instance %s: /dev/ptp%d offset from /dev/ptp%d %+" PRId64
			 " ns error %" PRId64 " freq %+.0f %s",
			 i->name, fl->phc_index, f->pf->source, (int64_t) fl->offset,
			 (int64_t) fl->error, fl->freq_ppb,
			 phc_follower_state_to_string(fl->state));
	}
	/* A follower that locked, lost its lock or faulted: the derive pass takes it from here. */
	if (report(f) || changed) {
		manager_instance_changed(i, INSTANCE_CHANGED_FOLLOWERS);
	}
	return 0;
}

bool instance_follow_locked(const struct instance *i)
{
	/* Followers of CLOCK_REALTIME are the time source's (instance-source.c), not the servo's.
	 */
	return !i->follow || own_source(i->follow->pf->source) || phc_follow_locked(i->follow->pf);
}

bool instance_follow_on_reference(const struct instance *i)
{
	return i->follow && own_source(i->follow->pf->source) && i->follow->pf->n &&
	       phc_follow_locked(i->follow->pf);
}

void instance_follow_pin_sample(struct instance *i, int phc_index, ns_t offset, ns_t ts)
{
	struct instance_follow *f = i->follow;

	if (!f || f->pf->source != PHC_FOLLOW_PIN) {
		return;
	}
	/* a hardware time stamp of the edge: no read window (the correction key carries delays) */
	(void) phc_follow_sample(f->pf, phc_index, offset, 0, ts);
	if (report(f)) {
		manager_instance_changed(i, INSTANCE_CHANGED_FOLLOWERS);
	}
}

size_t instance_followers(const struct instance *i, struct instance_follower_info *ret, size_t max)
{
	const struct phc_follow *pf = i->follow ? i->follow->pf : NULL;
	size_t n = 0;

	for (size_t k = 0; pf && k < pf->n && n < max; k++) {
		const struct phc_follower *fl = &pf->f[k];

		ret[n++] = (struct instance_follower_info){
			.phc_index = fl->phc_index,
			/* -2: CLOCK_REALTIME (time_source system), -3: its pin's 1PPS */
			.source_phc_index = pf->source == PHC_FOLLOW_REALTIME ? -2
					    : pf->source == PHC_FOLLOW_PIN    ? -3
									      : pf->source,
			.state = phc_follower_state_to_string(fl->state),
			.offset_ns = fl->offset,
			.error_ns = fl->error,
			.freq_ppb = fl->freq_ppb,
			.steps = fl->steps,
			.error = fl->error_code,
		};
	}
	return n;
}
