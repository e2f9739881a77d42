// SPDX-License-Identifier: GPL-2.0-or-later
/* A PTP instance in the supervisor: its clock's data sets and the clock-level BMCA over its ports.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"
#include "daemon/clock-mode-step.h"
#include "daemon/instance-pin.h"
#include "daemon/instance-source.h"
#include "daemon/manager-internal.h"
#include "daemon/sysclock-follow.h"
#include "daemon/worker.h"
#include "ptp/bmca-clock.h"

int instance_new(struct manager *m, const struct config_instance *ci, struct instance **ret)
{
	struct instance *i = calloc(1, sizeof(*i));

	if (!i) {
		return -ENOMEM;
	}
	snprintf(i->name, sizeof(i->name), "%s", ci->options.name);
	i->manager = m;
	i->servo_state = SERVO_UNLOCKED;
	instance_clock_mode_init(i);
	instance_apply_options(i, &ci->options);
	*ret = i;
	return 0;
}

struct instance *instance_free(struct instance *i)
{
	if (i) {
		instance_pin_free(i);
		instance_follow_free(i);
		instance_source_free(i);
		i->push_timer = sd_event_source_disable_unref(i->push_timer);
		i->mgmt_log_timer = sd_event_source_disable_unref(i->mgmt_log_timer);
		free(i->health);
	}
	free(i);
	return NULL;
}

/* D-Bus's ClockClass, ... : defaultDS.clockQuality, with its rules (slave-only: class 255). */
static void instance_clock_quality_update(struct instance *i)
{
	struct defaultDS dds;

	instance_default_ds(i, &dds);
	i->clock_quality = dds.clockQuality;
}

void instance_apply_options(struct instance *i, const struct instance_options *o)
{
	i->options = *o;
	/* The configuration in force again: the clock mode's quality, not an override's. */
	i->gm_override = false;
	i->domain = o->domainNumber;
	i->priority1 = o->priority1;
	i->priority2 = o->priority2;
	instance_clock_quality_update(i);
	i->clock_backend = o->clock_backend;
	i->clock_servo = o->servo.clock_servo;
	snprintf(i->profile, sizeof(i->profile), "%s", options_profile_to_string(o->profile));
	/* time_source, gpsd_address, leapfile: reopened when one changed */
	instance_source_update(i);
}

void instance_announced_gm_settings(const struct instance *i, struct gm_settings *ret)
{
	options_gm_settings(&i->options, ret);
	instance_clock_mode_apply(i, ret);
}

void instance_default_ds(const struct instance *i, struct defaultDS *ret)
{
	struct gm_settings gm;

	/* The supervisor's own answers (port 0 of the clock) carry majorSdoId 0. */
	options_default_ds(&i->options, &i->clock_identity, (uint16_t) instance_port_count(i), 0,
			   ret);
	instance_announced_gm_settings(i, &gm);
	if (!i->options.slaveOnly) {
		ret->clockQuality.clockClass = gm.clockQuality.clockClass;
	}
}

uint16_t instance_free_port_number(const struct instance *i)
{
	for (uint16_t n = 1; n < UINT16_MAX; n++) {
		struct mport *p;
		bool used = false;

		MANAGER_FOREACH_PORT(p, i->manager, k)
		{
			used |= p->instance == i && p->port_identity.portNumber == n;
		}
		if (!used) {
			return n;
		}
	}
	return UINT16_MAX;
}

/* Only ports whose worker runs the protocol take part (9.2.5: FAULTY and DISABLED do not). */
static bool port_in_bmca(const struct mport *p)
{
	return p->worker && p->configured && p->state != PORT_STATE_FAULTY &&
	       p->state != PORT_STATE_DISABLED && p->state != PORT_STATE_INITIALIZING;
}

static void instance_set_parent(struct instance *i, const struct parentDS *pds,
				const struct timePropertiesDS *tp, uint16_t steps)
{
	unsigned int mask = 0;

	if (memcmp(&i->parent, pds, sizeof(*pds)) || steps != i->steps_removed) {
		i->parent = *pds;
		i->grandmaster_identity = pds->grandmasterIdentity;
		i->parent_port_identity = pds->parentPortIdentity;
		i->steps_removed = steps;
		mask |= INSTANCE_CHANGED_PARENT;
	}
	if (memcmp(&i->time_properties, tp, sizeof(*tp))) {
		i->time_properties = *tp;
		mask |= INSTANCE_CHANGED_TIME_PROPERTIES;
	}
	if (mask) {
		manager_instance_changed(i, mask);
	}
}

/* The instance's own time properties as a grandmaster: the timescale its ports' stamps count. */
static void instance_own_time_properties(const struct instance *i, struct timePropertiesDS *tp)
{
	bool hardware = false, software = false;
	struct gm_settings gm;
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && port_in_bmca(p)) {
			hardware |= p->timestamping == TRANSPORT_TS_MODE_HARDWARE;
			software |= p->timestamping != TRANSPORT_TS_MODE_HARDWARE;
		}
	}

	/* What the configuration, the clock mode or the last SetGrandmasterSettings says. */
	instance_announced_gm_settings(i, &gm);
	*tp = gm.tp;
	/* Software stamps count UTC: the ARB timescale, as each such worker announces it. */
	tp->ptpTimescale = hardware && !software;
}

void instance_gm_settings(const struct instance *i, struct gm_settings *ret)
{
	options_gm_settings(&i->options, ret);
	ret->clockQuality = i->clock_quality;
	instance_own_time_properties(i, &ret->tp);
}

static void instance_push_later(struct instance *i);

int instance_set_gm_settings(struct instance *i, const struct gm_settings *s)
{
	options_set_gm_settings(&i->options, s);
	/* The override for a reference phcd does not read: the clock mode no longer decides. */
	i->gm_override = true;
	instance_clock_quality_update(i);
	manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
	i->push_gm = true;
	i->push_gm_settings = *s;
	instance_push_later(i);
	return 0;
}

void instance_push_own_quality(struct instance *i)
{
	instance_clock_quality_update(i);
	manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
	i->push_gm = true;
	instance_announced_gm_settings(i, &i->push_gm_settings);
	instance_push_later(i);
}

void instance_decision_free(struct instance_decision *d)
{
	free(d->ports);
	free(d->cp);
	free(d->dec);
	memset(d, 0, sizeof(*d));
}

/*
 * Collect and decide (ptp/bmca-clock.c): the clock-level BMCA is not written here. The arrays are
 * as long as the instance has ports (interfaces = auto takes any number).
 */
int instance_decide(const struct instance *i, struct instance_decision *d)
{
	struct timePropertiesDS own_tp;
	struct defaultDS dds;
	size_t max = instance_port_count(i);
	struct mport *p;

	memset(d, 0, sizeof(*d));
	d->ports = calloc(max ? max : 1, sizeof(*d->ports));
	d->cp = calloc(max ? max : 1, sizeof(*d->cp));
	d->dec = calloc(max ? max : 1, sizeof(*d->dec));
	if (!d->ports || !d->cp || !d->dec) {
		instance_decision_free(d);
		return -ENOMEM;
	}
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && port_in_bmca(p) && d->n < max) {
			d->ports[d->n] = p;
			d->cp[d->n] = (struct bmca_clock_port){
				.state = p->state,
				/*
				 * 17.6: a master the port's acceptable_masters does not list is
				 * no candidate, whatever its worker reports (an honest one
				 * never qualifies it).
				 */
				.has_erbest = p->has_erbest &&
					      options_acceptable_master(
						      &p->options.acceptable_masters,
						      &p->erbest.ds.sender.clockIdentity),
				.erbest = p->erbest.ds,
				.erbest_tp = p->erbest.tp,
				.rules.masterOnly = p->options.masterOnly,
			};
			d->n++;
		}
	}
	instance_default_ds(i, &dds);
	instance_own_time_properties(i, &own_tp);
	bmca_clock_decide(&dds, &own_tp, d->cp, d->n, d->dec, &d->res);
	return 0;
}

/* Decide, then send each port its recommended state. */
void instance_run_bmca(struct instance *i)
{
	struct instance_decision d;
	const struct bmca_clock_result *res = &d.res;
	int r;

	r = instance_decide(i, &d);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "instance %s: cannot run the BMCA over %zu ports: %m",
			       i->name, instance_port_count(i));
		return;
	}
	instance_set_parent(i, &res->pds, &res->tp, res->cds.stepsRemoved);

	for (size_t k = 0; k < d.n; k++) {
		struct ipc_msg m = { .type = IPC_RECOMMENDED_STATE };
		struct ipc_recommended_state *rs = &m.recommended_state;
		struct mport *p = d.ports[k];

		if (d.dec[k].decision == BMCA_DECISION_NONE) {
			continue;
		}
		rs->decision = d.dec[k].decision;
		rs->stepsRemoved = res->cds.stepsRemoved;
		rs->parent = res->pds;
		rs->tp = res->tp;
		/* 16.2.3: the parent's path trace, which every port's Announce extends. */
		if (res->ebest >= 0 && d.dec[res->ebest].decision == BMCA_DECISION_S1) {
			rs->path = d.ports[res->ebest]->erbest.path;
		}
		if (p->sent_valid && !memcmp(&p->sent, rs, sizeof(*rs))) {
			continue;
		}
		if (worker_send(p->worker, &m) < 0) {
			/* Its exit follows on the pidfd and restarts it. */
			continue;
		}
		if (!p->sent_valid || p->sent.decision != rs->decision) {
			log_port_full(p->ifname, LOG_INFO, "recommended state %s (%s)",
				      port_state_to_string(d.dec[k].state),
				      bmca_decision_to_string(rs->decision));
		}
		p->sent = *rs;
		p->sent_valid = true;
		worker_trust_recommended(&p->trust, rs->decision, time_mono_usec());
	}
	instance_decision_free(&d);
}

/*
 * A worker's CLOCK_MONOTONIC time (ns) as CLOCK_REALTIME and CLOCK_MONOTONIC usec. The worker
 * runs on this machine, so its monotonic clock is ours; a time in the future (a worker that
 * lies) is taken as now.
 */
static void worker_time(ns_t mono, uint64_t *ret_real, uint64_t *ret_mono)
{
	struct timespec rt, mt;
	ns_t now_mono, now_real;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	now_real = (ns_t) rt.tv_sec * NS_PER_SEC + rt.tv_nsec;
	now_mono = (ns_t) mt.tv_sec * NS_PER_SEC + mt.tv_nsec;
	if (mono <= 0 || mono > now_mono) {
		mono = now_mono;
	}
	*ret_mono = (uint64_t) mono / 1000;
	*ret_real = now_real > now_mono - mono ? (uint64_t) (now_real - (now_mono - mono)) / 1000
					       : 1;
}

void instance_port_status(struct instance *i, struct mport *p, const struct ipc_status *s)
{
	unsigned int mask = 0;
	bool locked;

	if (p->state != PORT_STATE_SLAVE && p->state != PORT_STATE_UNCALIBRATED) {
		return;
	}
	if (i->offset_ns != s->offset_ns || i->mean_path_delay_ns != s->mean_path_delay_ns ||
	    i->freq_ppb != s->freq_ppb) {
		i->offset_ns = s->offset_ns;
		i->mean_path_delay_ns = s->mean_path_delay_ns;
		i->freq_ppb = s->freq_ppb;
		mask |= INSTANCE_CHANGED_SAMPLE;
	}
	/* A new sample, even with the same values: its time moves. */
	if (s->sample_mono && s->sample_mono != i->sample_mono_seen) {
		i->sample_mono_seen = s->sample_mono;
		worker_time(s->sample_mono, &i->sample_realtime_usec, &i->sample_monotonic_usec);
		mask |= INSTANCE_CHANGED_SAMPLE;
	}
	if (s->stats.end_mono && s->stats.end_mono != i->stats_end_seen) {
		struct instance_offset_stats *st = &i->stats;

		i->stats_end_seen = s->stats.end_mono;
		st->count = s->stats.count;
		st->mean_ns = s->stats.mean_ns;
		st->rms_ns = (uint64_t) s->stats.rms_ns;
		st->max_abs_ns = (uint64_t) s->stats.max_abs_ns;
		st->window_usec = (uint64_t) s->stats.window_ns / 1000;
		worker_time(s->stats.end_mono, &st->realtime_usec, &st->monotonic_usec);
		mask |= INSTANCE_CHANGED_STATS;
	}
	/*
	 * Synchronized means it: with servo_offset_threshold, only once the offsets stay within;
	 * never from a port the supervisor did not make SLAVE, nor with an offset beyond the
	 * sanity bound (max_offset_jump), whatever the worker says of its servo.
	 */
	locked = p->state == PORT_STATE_SLAVE && s->servo_state == SERVO_LOCKED &&
		 s->servo_stable && worker_trust_slave(&p->trust, time_mono_usec()) &&
		 !(i->options.servo.max_offset_jump > 0 &&
		   fabs((double) s->offset_ns) > i->options.servo.max_offset_jump * NS_PER_SEC);
	if (locked) {
		p->clock_locked = true;
	}
	/* Synchronized follows in the derive pass (derive.c): once the PHC followers lock too. */
	if (i->servo_state != s->servo_state || locked != i->slave_locked) {
		i->servo_state = s->servo_state;
		i->slave_locked = locked;
		if (i->servo_state != SERVO_HOLDOVER) {
			i->holdover_since_usec = 0;
		}
		mask |= INSTANCE_CHANGED_SERVO;
	}
	if (mask) {
		manager_instance_changed(i, mask);
	}
	sysclock_follow_port_status(i->manager->sysclock, p, s);
}

void instance_clock_state(struct instance *i, struct mport *p, const struct ipc_clock_state *cs)
{
	struct ipc_msg m = { .type = IPC_SET_CLOCK_STATE, .clock_state = *cs };
	struct mport *q;

	/*
	 * Only virtual clocks over CLOCK_REALTIME (software timestamps) share a raw clock. PHCs of
	 * one NIC share the hardware clock already; PHC to PHC across NICs is not done yet.
	 */
	if (i->clock_backend != OPTIONS_CLOCK_VIRTUAL ||
	    p->timestamping != TRANSPORT_TS_MODE_SOFTWARE ||
	    (p->state != PORT_STATE_SLAVE && p->state != PORT_STATE_UNCALIBRATED) ||
	    !worker_trust_slave(&p->trust, time_mono_usec())) {
		return;
	}
	/*
	 * Served once the servo locked: before, the states are its first steps (and a restarted
	 * worker's virtual clock starting afresh), which the siblings do not serve.
	 */
	if (!p->trust.servo_locked) {
		return;
	}
	/* What the siblings serve from now on: the next one is judged against it. */
	i->served_clock.valid = true;
	i->served_clock.state = *cs;
	MANAGER_FOREACH_PORT(q, i->manager, k)
	{
		if (q != p && q->instance == i && q->worker && q->configured &&
		    q->timestamping == TRANSPORT_TS_MODE_SOFTWARE) {
			/* A failure: its exit follows on the pidfd and restarts it. */
			(void) worker_send(q->worker, &m);
		}
	}
}

/* What is held for the workers, to each (a worker before its CONFIG gets it with it). */
static void instance_push(struct instance *i)
{
	struct ipc_msg m = { .type = IPC_SET_PRIORITY };
	struct ipc_msg g = { .type = IPC_SET_GM_SETTINGS, .gm_settings = i->push_gm_settings };
	struct mport *p;

	m.set_priority.priority1 = i->priority1;
	m.set_priority.priority2 = i->priority2;
	i->pushed_at_usec = time_mono_usec();
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && p->worker && p->configured) {
			/* A failure: its exit follows on the pidfd and restarts it. */
			if (i->push_priorities) {
				(void) worker_send(p->worker, &m);
			}
			if (i->push_gm) {
				(void) worker_send(p->worker, &g);
			}
		}
	}
	i->push_priorities = i->push_gm = false;
	/* D0 (and the own time properties) changed: decide again; the pushes go first. */
	instance_run_bmca(i);
}

static int on_push_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct instance *i = userdata;

	i->push_timer = sd_event_source_disable_unref(i->push_timer);
	instance_push(i);
	return 0;
}

/*
 * Issue 31: SetPriority1 100 times a second, or a flood of management SETs, is one push a tick
 * to each worker (the last values), not one per call; the first of a burst goes at once.
 */
static void instance_push_later(struct instance *i)
{
	uint64_t tick = IPC_NEWS_TICK_NS / 1000, now = time_mono_usec();

	if (i->push_timer) {
		return;
	}
	if (now - i->pushed_at_usec >= tick ||
	    sd_event_add_time(i->manager->event, &i->push_timer, CLOCK_MONOTONIC,
			      i->pushed_at_usec + tick, 0, on_push_timer, i) < 0) {
		instance_push(i);
	}
}

void instance_push_priorities(struct instance *i)
{
	i->push_priorities = true;
	i->push_timer = sd_event_source_disable_unref(i->push_timer);
	instance_push(i);
}

static int instance_set_priority(struct instance *i, uint8_t *field, uint8_t value)
{
	if (*field == value) {
		return 0;
	}
	*field = value;
	i->options.priority1 = i->priority1;
	i->options.priority2 = i->priority2;
	manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
	i->push_priorities = true;
	instance_push_later(i);
	return 0;
}

int instance_set_priority1(struct instance *i, uint8_t priority1)
{
	return instance_set_priority(i, &i->priority1, priority1);
}

int instance_set_priority2(struct instance *i, uint8_t priority2)
{
	return instance_set_priority(i, &i->priority2, priority2);
}
