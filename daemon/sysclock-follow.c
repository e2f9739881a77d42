// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's system clock: CLOCK_REALTIME follows the PTP clock of one instance. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"
#include "daemon/clock-rivals.h"
#include "daemon/manager-object.h"
#include "daemon/manager-state.h"
#include "daemon/refclock-feed.h"
#include "daemon/sysclock-follow.h"
#include "ptp/num.h"
#include "ptp/outlier.h"
#include "ptp/sysoff.h"

#define FOLLOW_TICK_USEC USEC_PER_SEC

struct sysclock_follow {
	struct manager *m;
	const struct sysclock_ops *ops;
	void *userdata;
	sd_event_source *timer;
	struct sysclock *sc;
	enum sysclock_source kind;   /* what sc's servo was configured for */
	struct servo_options policy; /* the instance's servo options sc was made with */
	/*
	 * CLOCK_REALTIME locked (or was stepped) once under phcd: whatever sysclock comes next (a
	 * new parent, a port lost and found, another instance) gets no first step.
	 */
	bool locked_once;
	/* samples refused by max_offset_jump: logged at the first and then once a minute */
	uint64_t refused_logged;
	uint64_t refused_logged_at; /* CLOCK_MONOTONIC usec */
	struct sysclock_phc_reader phc;
	/* the clock_servo refclock_sock instances' feeds to chronyd (daemon/refclock-feed.c) */
	struct refclock_feeds *feeds;
	ns_t holdoff_until; /* CLOCK_MONOTONIC */
	ns_t last_sample;   /* receive time of the last software sample fed */
	ns_t step_real;	    /* CLOCK_REALTIME just after the last step */
	/*
	 * The follower's own spike gate on the worker's offsets: a worker's gate guards only its
	 * own servo, and with clock_backend system or free_running the worker runs none, so every
	 * offset it measures (a forged Sync/Follow_Up pair's too) would reach the servo here.
	 */
	struct outlier_gate gate;
	uint64_t gated; /* offsets kept from the system clock's servo as spikes */
	uint64_t steps;
	/*
	 * Another program steers CLOCK_REALTIME (chronyd, timesyncd, ntpd, phc2sys, ptp4l -S):
	 * phcd refuses to steer it. Looked for at start, at each change of system_clock_instance,
	 * and every RIVAL_RESCAN_USEC while refused.
	 */
	char conflict[SYSCLOCK_CONFLICT_TEXT_MAX];
	char scanned_for[OPTIONS_NAME_MAX];
	bool scanned;
	uint64_t scanned_at; /* CLOCK_MONOTONIC usec */
	/* what was logged last, so each change is logged once */
	bool logged_state_valid;
	enum sysclock_state logged_state;
	unsigned int logged_conflict;
	int logged_error;
};

#define RIVAL_RESCAN_USEC (10 * USEC_PER_SEC)
/* A refused sample is logged at most this often. */
#define REFUSED_LOG_USEC (60 * USEC_PER_SEC)

/* Look in /proc for programs that steer CLOCK_REALTIME; sets f->conflict ("" for none). */
static void scan_rivals(struct sysclock_follow *f, const char *name)
{
	struct clock_rival r[8];
	char old[SYSCLOCK_CONFLICT_TEXT_MAX], who[64];
	size_t n = 0, shown = 0;
	uint64_t now = 0;
	int k;

	snprintf(old, sizeof(old), "%s", f->conflict);
	f->conflict[0] = '\0';
	(void) sd_event_now(manager_get_event(f->m), CLOCK_MONOTONIC, &now);
	f->scanned = true;
	f->scanned_at = now;
	snprintf(f->scanned_for, sizeof(f->scanned_for), "%s", name);
	if (name[0] && f->ops->proc_root &&
	    clock_rivals_scan(f->ops->proc_root, r, ARRAY_SIZE(r), &n) == 0) {
		for (size_t j = 0; j < n && j < ARRAY_SIZE(r); j++) {
			size_t len = strlen(f->conflict);

			if (r[j].target != CLOCK_RIVAL_REALTIME) {
				continue;
			}
			k = snprintf(f->conflict + len, sizeof(f->conflict) - len, "%s%s",
				     shown ? ", " : "",
				     clock_rival_describe(&r[j], who, sizeof(who)));
			shown += k > 0;
		}
	}
	if (shown) {
		size_t len = strlen(f->conflict);

		snprintf(f->conflict + len, sizeof(f->conflict) - len,
			 " already steer%s CLOCK_REALTIME", shown > 1 ? "" : "s");
	}
	if (strcmp(old, f->conflict)) {
		if (f->conflict[0]) {
			log_full(LOG_ERR,
				 "refusing to steer the system clock (system_clock_instance %s): "
				 "%s; "
				 "stop it, or unset system_clock_instance",
				 name, f->conflict);
		} else if (old[0]) {
			log_full(LOG_NOTICE,
				 "nothing else steers CLOCK_REALTIME any more: phcd "
				 "takes it over (system_clock_instance %s)",
				 name);
		}
		manager_changed(f->m, MANAGER_CHANGED_SYSTEM_CLOCK);
	}
}

static const char *configured(const struct sysclock_follow *f)
{
	const struct config *c = manager_get_config(f->m);

	return c ? c->daemon.system_clock_instance : "";
}

struct mport *sysclock_follow_slave_port(struct manager *m, const struct instance *i)
{
	for (size_t k = 0; k < manager_port_count(m); k++) {
		struct mport *p = manager_port_at(m, k);

		/* the SLAVE the supervisor's BMCA made SLAVE: a worker's word is not enough */
		if (p->state == PORT_STATE_SLAVE &&
		    (i ? p->instance == i : !instance_feeds_refclock(p->instance)) &&
		    worker_trust_slave(&p->trust, time_mono_usec())) {
			return p;
		}
	}
	return NULL;
}

const char *sysclock_follow_target(const struct sysclock_follow *f)
{
	const char *name = configured(f);
	struct instance *i;

	if (!name[0] || strcmp(name, "auto")) {
		i = name[0] ? manager_find_instance(f->m, name) : NULL;
		return i && instance_feeds_refclock(i) ? "" : name;
	}
	MANAGER_FOREACH_INSTANCE(i, f->m, k)
	{
		if (!instance_feeds_refclock(i)) {
			return name;
		}
	}
	return manager_instance_count(f->m) ? "" : name;
}

/* The instance to follow ("auto": the one with a SLAVE port), or NULL. */
static struct instance *followed(const struct sysclock_follow *f)
{
	const char *name = configured(f);
	struct instance *i;
	struct mport *p;

	if (!name[0]) {
		return NULL;
	}
	if (strcmp(name, "auto") == 0) {
		p = sysclock_follow_slave_port(f->m, NULL);
		return p ? p->instance : NULL;
	}
	i = manager_find_instance(f->m, name);
	/* refused by the configuration; a guard all the same */
	return i && !instance_feeds_refclock(i) ? i : NULL;
}

enum sysclock_source sysclock_follow_source(const struct mport *p)
{
	enum options_clock_backend b = p->instance->clock_backend;

	if (p->timestamping == TRANSPORT_TS_MODE_HARDWARE && p->phc_index >= 0 &&
	    b == OPTIONS_CLOCK_PHC) {
		return SYSCLOCK_SOURCE_PHC;
	}
	if (p->timestamping == TRANSPORT_TS_MODE_SOFTWARE &&
	    (b == OPTIONS_CLOCK_SYSTEM || b == OPTIONS_CLOCK_FREE_RUNNING)) {
		return SYSCLOCK_SOURCE_SOFTWARE;
	}
	/* A virtual clock's time is nowhere but in its worker: nothing to follow. */
	return SYSCLOCK_SOURCE_NONE;
}

static void drop_sysclock(struct sysclock_follow *f)
{
	if (f->sc) {
		f->locked_once |= f->sc->locked_once;
	}
	f->sc = sysclock_free(f->sc);
	outlier_gate_reset(&f->gate);
}

/*
 * The sysclock for this kind of source (software offsets are noisier: a gentler PI) under the
 * instance's step policy: first_step_threshold, step_threshold and max_offset_jump as for its
 * ports' clocks, max_frequency within the kernel's 500 ppm. A clock that locked once under any
 * earlier sysclock gets no new first step.
 */
static int ensure_sysclock(struct sysclock_follow *f, const struct instance *i,
			   enum sysclock_source kind)
{
	const struct servo_options *o = &i->options.servo;
	struct sysclock_config cfg;

	if (f->sc && f->kind == kind && !memcmp(&f->policy, o, sizeof(*o))) {
		return 0;
	}
	drop_sysclock(f);
	sysclock_config_default(&cfg);
	servo_config_default(&cfg.servo, kind == SYSCLOCK_SOURCE_SOFTWARE);
	cfg.servo.max_freq_ppb = 500000;
	cfg.servo.first_step_threshold = (ns_t) num_llround(o->first_step_threshold * NS_PER_SEC);
	cfg.servo.step_threshold = (ns_t) num_llround(o->step_threshold * NS_PER_SEC);
	cfg.servo.max_offset_jump = (ns_t) num_llround(o->max_offset_jump * NS_PER_SEC);
	if (o->max_frequency > 0 && o->max_frequency < cfg.servo.max_freq_ppb) {
		cfg.servo.max_freq_ppb = o->max_frequency;
	}
	cfg.servo.first_step_taken = f->locked_once;
	f->kind = kind;
	f->policy = *o;
	return sysclock_new(f->ops, f->userdata, &cfg, &f->sc);
}

void sysclock_phc_reader_close(struct sysclock_phc_reader *rd)
{
	if (rd->fd >= 0) {
		close(rd->fd);
	}
	rd->fd = -1;
	rd->index = -1;
}

/* Read-only is enough: the PTP_SYS_OFFSET* ioctls do not steer the PHC. */
static int phc_reader_open(struct sysclock_phc_reader *rd, int index)
{
	char path[32];
	int r;

	if (rd->fd >= 0 && rd->index == index) {
		return 0;
	}
	sysclock_phc_reader_close(rd);
	snprintf(path, sizeof(path), "/dev/ptp%d", index);
	rd->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rd->fd < 0) {
		return -errno;
	}
	rd->index = index;
	r = sysoff_probe(rd->fd, &rd->method);
	if (r < 0) {
		sysclock_phc_reader_close(rd);
	}
	return r;
}

int sysclock_phc_reader_measure(struct sysclock_phc_reader *rd, int index, struct sysoff_pair *ret)
{
	int r;

	if (rd->ops && rd->ops->phc_measure) {
		return rd->ops->phc_measure(rd->userdata, index, ret);
	}
	r = phc_reader_open(rd, index);

	if (r >= 0) {
		r = sysoff_measure(rd->fd, rd->method, SYSOFF_DEFAULT_SAMPLES, ret);
	}
	if (r < 0) {
		sysclock_phc_reader_close(rd);
	}
	return r;
}

static int sample_phc(struct sysclock_follow *f, struct mport *p)
{
	struct sysoff_pair pair;
	int r = sysclock_phc_reader_measure(&f->phc, p->phc_index, &pair);

	if (r < 0) {
		return r;
	}
	return sysclock_sample(
		f->sc,
		&(struct sysclock_sample){ .sys = pair.sys, .ref = pair.phc, .error = pair.error },
		&p->instance->time_properties);
}

static void report(struct sysclock_follow *f, const struct instance *i, const struct mport *p,
		   int r)
{
	const char *ifname = p ? p->ifname : NULL;
	unsigned int conflict = f->sc ? f->sc->conflict : 0;

	/* A tick without a sample must not make a persisting write error look cleared. */
	if (r >= 0 || r == -EAGAIN) {
		r = f->sc ? f->sc->last_error : 0;
	}
	if (r < 0 && r != f->logged_error) {
		log_port_full_errno(ifname, LOG_ERR, r,
				    "cannot steer the system clock from instance %s: %m%s",
				    i ? i->name : "(none)",
				    r == -EPERM ? " (no CAP_SYS_TIME?), retrying" : ", retrying");
	}
	f->logged_error = r;
	if (f->sc && (!f->logged_state_valid || f->sc->state != f->logged_state)) {
		log_port_full(ifname, LOG_INFO, "system clock %s (instance %s, %s)",
			      sysclock_state_to_string(f->sc->state), i ? i->name : "(none)",
			      f->kind == SYSCLOCK_SOURCE_PHC
				      ? sysoff_method_to_string(f->phc.method)
				      : "worker offsets");
		f->logged_state = f->sc->state;
		f->logged_state_valid = true;
		manager_changed(f->m, MANAGER_CHANGED_SYSTEM_CLOCK);
	}
	if (conflict && conflict != f->logged_conflict) {
		log_full(LOG_WARNING,
			 "something else steers CLOCK_REALTIME (%s%s%s%s): timesyncd, chronyd, "
			 "ntpd or phc2sys running?",
			 conflict & SYSCLOCK_CONFLICT_FREQ ? " frequency" : "",
			 conflict & SYSCLOCK_CONFLICT_STATUS ? " status" : "",
			 conflict & SYSCLOCK_CONFLICT_OFFSET ? " offset" : "",
			 conflict & SYSCLOCK_CONFLICT_STEP ? " step" : "");
	}
	f->logged_conflict = conflict;
	if (f->sc && f->sc->servo->refused != f->refused_logged) {
		uint64_t now = 0;

		(void) sd_event_now(manager_get_event(f->m), CLOCK_MONOTONIC, &now);
		if (!f->refused_logged_at || now - f->refused_logged_at >= REFUSED_LOG_USEC) {
			log_port_full(
				ifname, LOG_WARNING,
				"system clock: refused an offset of %+.9f s from instance %s, "
				"beyond max_offset_jump %g s: holdover, not stepped or slewed "
				"(%" PRIu64 " refused)",
				(double) f->sc->servo->refused_offset / NS_PER_SEC,
				i ? i->name : "(none)", f->policy.max_offset_jump,
				f->sc->servo->refused);
			f->refused_logged = f->sc->servo->refused;
			f->refused_logged_at = now ? now : 1;
		}
	}
}

void sysclock_follow_tick(struct sysclock_follow *f, uint64_t usec)
{
	struct instance *i = followed(f);
	struct mport *p = i ? sysclock_follow_slave_port(f->m, i) : NULL;
	enum sysclock_source kind = p ? sysclock_follow_source(p) : SYSCLOCK_SOURCE_NONE;
	int r = 0;

	refclock_feeds_tick(f->feeds);
	if (!f->scanned || strcmp(f->scanned_for, sysclock_follow_target(f)) ||
	    (f->conflict[0] && usec - f->scanned_at >= RIVAL_RESCAN_USEC)) {
		scan_rivals(f, sysclock_follow_target(f));
	}
	if (f->conflict[0]) {
		/* Someone else steers it: never write the clock, not even a frequency. */
		if (f->sc) {
			drop_sysclock(f);
			manager_changed(f->m, MANAGER_CHANGED_SYSTEM_CLOCK);
		}
		sysclock_phc_reader_close(&f->phc);
		return;
	}
	if (!i) {
		/* Not configured (or reloaded away): leave the clock alone. */
		drop_sysclock(f);
		sysclock_phc_reader_close(&f->phc);
		return;
	}
	if (kind != SYSCLOCK_SOURCE_NONE) {
		r = ensure_sysclock(f, i, kind);
	}
	if (!f->sc) {
		report(f, i, p, r);
		return;
	}
	if (r >= 0 && kind == SYSCLOCK_SOURCE_PHC) {
		r = sample_phc(f, p);
	} else if (kind == SYSCLOCK_SOURCE_NONE) {
		sysclock_lost_reference(f->sc);
	}
	if (r >= 0 || r == -EAGAIN) {
		int c = sysclock_check(f->sc);

		r = c < 0 ? c : r;
	}
	report(f, i, p, r);
}

static int on_tick(sd_event_source *es, uint64_t usec, void *userdata)
{
	sd_event_source_set_time(es, usec + FOLLOW_TICK_USEC);
	sysclock_follow_tick(userdata, usec);
	return 0;
}

enum sysclock_follow_verdict sysclock_follow_admit(ns_t sample_ts, ns_t last_sample,
						   ns_t holdoff_until, ns_t step_real, ns_t mono,
						   ns_t now)
{
	/* The page is read once a second and may still hold the sample fed last time. */
	if (!sample_ts || sample_ts == last_sample) {
		return SYSCLOCK_FOLLOW_REPEAT;
	}
	if (mono < holdoff_until) {
		return SYSCLOCK_FOLLOW_HOLDOFF;
	}
	/*
	 * The offset is CLOCK_REALTIME minus the master at its Sync's receive time, a
	 * CLOCK_REALTIME software timestamp: the pair is exact however late the page was read.
	 */
	if (sample_ts < step_real) {
		return SYSCLOCK_FOLLOW_BEFORE_STEP;
	}
	if (sample_ts > now) {
		return SYSCLOCK_FOLLOW_FUTURE;
	}
	return now - sample_ts > SYSCLOCK_FOLLOW_MAX_AGE_NS ? SYSCLOCK_FOLLOW_STALE
							    : SYSCLOCK_FOLLOW_FEED;
}

bool sysclock_follow_software_ref(const struct ipc_status *s, const struct timePropertiesDS *tp,
				  ns_t *ref)
{
	ns_t utc = tp->ptpTimescale ? (ns_t) tp->currentUtcOffset * NS_PER_SEC : 0;

	return !__builtin_sub_overflow(s->sample_ts, s->offset_ns, ref) &&
	       !__builtin_add_overflow(*ref, utc, ref);
}

void sysclock_follow_port_status(struct sysclock_follow *f, struct mport *p,
				 const struct ipc_status *s)
{
	ns_t now = 0, mono = 0, ref = 0;
	double before = 0;
	int r;

	if (f) {
		refclock_feeds_port_status(f->feeds, p, s);
	}
	if (!f || f->conflict[0] || p->state != PORT_STATE_SLAVE ||
	    !worker_trust_slave(&p->trust, time_mono_usec()) || followed(f) != p->instance ||
	    sysclock_follow_source(p) != SYSCLOCK_SOURCE_SOFTWARE) {
		return;
	}
	r = ensure_sysclock(f, p->instance, SYSCLOCK_SOURCE_SOFTWARE);
	if (r >= 0) {
		r = f->ops->gettime(f->userdata, CLOCK_MONOTONIC, &mono);
	}
	if (r >= 0) {
		r = f->ops->gettime(f->userdata, CLOCK_REALTIME, &now);
	}
	if (r >= 0 && sysclock_follow_admit(s->sample_ts, f->last_sample, f->holdoff_until,
					    f->step_real, mono, now) != SYSCLOCK_FOLLOW_FEED) {
		return;
	}
	if (r >= 0 && !sysclock_follow_software_ref(s, &p->instance->time_properties, &ref)) {
		return;
	}
	if (r >= 0) {
		enum outlier_verdict v = outlier_gate_judge(&f->gate, s->sample_ts, s->offset_ns);

		f->last_sample = s->sample_ts;
		if (v != OUTLIER_PASS) {
			f->gated += v == OUTLIER_REJECT;
			return;
		}
		if (f->gate.dropped) {
			servo_retract(f->sc->servo);
		}
		before = f->sc->servo->freq_ppb;
		r = sysclock_sample(f->sc,
				    &(struct sysclock_sample){ .sys = s->sample_ts,
							       .ref = ref,
							       .error = s->mean_path_delay_ns },
				    &p->instance->time_properties);
	}
	if (f->sc && r >= 0) {
		outlier_gate_follow(&f->gate,
				    f->sc->steps != f->steps ? SERVO_JUMP : f->sc->servo->state,
				    f->sc->servo->freq_ppb - before);
	}
	if (f->sc && f->sc->steps != f->steps) {
		f->steps = f->sc->steps;
		f->holdoff_until = mono + SYSCLOCK_FOLLOW_HOLDOFF_NS;
		if (f->ops->gettime(f->userdata, CLOCK_REALTIME, &now) >= 0) {
			f->step_real = now;
		}
	}
	report(f, p->instance, p, r);
}

int sysclock_follow_new(struct manager *m, const struct sysclock_ops *ops, void *userdata,
			struct sysclock_follow **ret)
{
	struct sysclock_follow *f = calloc(1, sizeof(*f));
	int r;

	if (!f) {
		return -ENOMEM;
	}
	*f = (struct sysclock_follow){
		.m = m,
		.ops = ops,
		.userdata = userdata,
		.phc = { .ops = ops, .userdata = userdata, .fd = -1, .index = -1 },
	};
	r = refclock_feeds_new(m, ops, userdata, &f->feeds);
	if (r >= 0) {
		r = sd_event_add_time_relative(manager_get_event(m), &f->timer, CLOCK_MONOTONIC,
					       FOLLOW_TICK_USEC, 0, on_tick, f);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(f->timer, SD_EVENT_ON);
	}
	if (r < 0) {
		sysclock_follow_free(f);
		return r;
	}
	/* At start, before the first tick: refuse at once if something else steers the clock. */
	scan_rivals(f, sysclock_follow_target(f));
	*ret = f;
	return 0;
}

struct sysclock_follow *sysclock_follow_free(struct sysclock_follow *f)
{
	if (f) {
		sd_event_source_disable_unref(f->timer);
		sysclock_free(f->sc);
		refclock_feeds_free(f->feeds);
		sysclock_phc_reader_close(&f->phc);
		free(f);
	}
	return NULL;
}

bool sysclock_follow_synchronized(const struct sysclock_follow *f)
{
	return f && f->sc && f->sc->state == SYSCLOCK_LOCKED;
}

struct refclock_feeds *sysclock_follow_feeds(const struct sysclock_follow *f)
{
	return f ? f->feeds : NULL;
}

const char *sysclock_follow_conflict(const struct sysclock_follow *f)
{
	return f ? f->conflict : "";
}
