// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Something changed" apart from "what follows": a change only marks (dirty bits on the object);
 * one derive pass per event-loop turn computes, in a fixed order, holdover, PHC followers,
 * health, readiness, then emits once (the manager_ops observer, the status file).
 */
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"
#include "daemon/clock-mode-step.h"
#include "daemon/health.h"
#include "daemon/instance-pin.h"
#include "daemon/manager-internal.h"
#include "daemon/refclock-feed.h"
#include "daemon/sysclock-follow.h"

/* The instance's ports, in the order they appeared, into *buf (grown as needed). */
static size_t instance_ports(struct manager *m, const struct instance *i, struct mport ***buf,
			     size_t *cap)
{
	size_t n = 0;

	for (size_t k = 0; k < m->n_ports; k++) {
		if (m->ports[k]->instance != i) {
			continue;
		}
		if (n == *cap) {
			size_t c = *cap ? *cap * 2 : 16;
			struct mport **b = reallocarray(*buf, c, sizeof(**buf));

			if (!b) {
				log_full(LOG_ERR, "instance %s: out of memory, its health is stale",
					 i->name);
				return n;
			}
			*buf = b;
			*cap = c;
		}
		(*buf)[n++] = m->ports[k];
	}
	return n;
}

static bool has_slave_port(struct mport *const *ports, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (ports[k]->state == PORT_STATE_SLAVE ||
		    ports[k]->state == PORT_STATE_UNCALIBRATED) {
			return true;
		}
	}
	return false;
}

/*
 * 1. Holdover: an instance without a SLAVE (or UNCALIBRATED) port follows nobody. A LOCKED one
 * goes to holdover on its last frequency (and stays there until a port locks again); any other
 * servo state becomes UNLOCKED.
 */
static void derive_holdover(struct instance *i, struct mport *const *ports, size_t n)
{
	if (has_slave_port(ports, n)) {
		return;
	}
	i->slave_locked = false;
	if (i->servo_state == SERVO_LOCKED) {
		i->servo_state = SERVO_HOLDOVER;
		i->holdover_since_usec = time_usec(CLOCK_REALTIME);
		log_full(LOG_NOTICE, "instance %s: no master left, holdover on the last frequency",
			 i->name);
		i->dirty |= INSTANCE_CHANGED_SERVO;
	} else if (i->servo_state != SERVO_HOLDOVER && i->servo_state != SERVO_UNLOCKED) {
		i->servo_state = SERVO_UNLOCKED;
		i->dirty |= INSTANCE_CHANGED_SERVO;
	}
}

/*
 * 2. PHC followers (instance-follow.c) follow the SLAVE port's PHC; a PHC that cannot be steered
 * takes its ports FAULTY. Synchronized: the SLAVE port locked and every follower with it.
 */
static void derive_followers(struct instance *i)
{
	int phc, error;
	bool synced;

	/* the 1PPS on a grandmaster's PHC pin first: its PHC's follower takes its edges */
	instance_pin_update(i);
	if (instance_follow_update(i)) {
		i->dirty |= INSTANCE_CHANGED_FOLLOWERS;
	}
	while (instance_follow_take_fault(i, &phc, &error)) {
		mport_fault_phc(i, phc, error);
	}
	synced = i->slave_locked && instance_follow_locked(i);
	if (synced != i->synchronized) {
		i->synchronized = synced;
		i->dirty |= INSTANCE_CHANGED_SERVO;
	}
	if (i->synchronized) {
		i->was_synchronized = true;
	}
}

/*
 * 2b. The clock mode (clock-mode-step.c), its reference Synchronized as just derived: what the
 * instance announces follows within a push tick, and time alone moves holdover on.
 */
static void derive_clock_mode(struct instance *i)
{
	struct manager *m = i->manager;
	uint64_t when;

	if (instance_clock_mode_step(i, &when)) {
		instance_push_own_quality(i);
	}
	if (when && (!m->gate_wakeup_usec || when < m->gate_wakeup_usec)) {
		m->gate_wakeup_usec = when;
	}
}

/* Why an interface the configuration names is not a port: absent, or present and unfit. */
static const char *why_not_port(void *ctx, const char *name)
{
	struct manager *m = ctx;

	for (size_t k = 0; m->links && k < link_monitor_count(m->links); k++) {
		const struct link_info *l = link_monitor_get(m->links, k);

		if (strcmp(l->name, name) == 0) {
			return l->flags & IFF_LOOPBACK
				       ? "is a loopback interface, which carries no PTP frames"
				       : "is not a port (see the log)";
		}
	}
	return "not present";
}

/*
 * Each reason an instance's health gains is logged once, when it comes (a mistyped interface,
 * a port gone FAULTY, sync lost), and again only when its sentence changes: the journal says why
 * as D-Bus does. Not while the links are being enumerated at start (every named interface is
 * missing then) nor while stopping.
 */
static void health_log_new(struct instance *i, const struct health_report *now)
{
	/*
	 * Reasons whose source logs each change itself, with more to say: the feed of chronyd
	 * (refclock-feed.c) and a port's FAULTY with its error (manager-ports.c, at err).
	 */
	static const char *const logged_by_source[] = { "refclock-refused", "port-faulty" };
	uint64_t logged[HEALTH_REASONS_MAX];
	size_t n = health_reasons_shown(now);

	if (!i->manager->started || i->manager->stopping) {
		return;
	}
	for (size_t k = 0; k < n; k++) {
		bool known = false;

		logged[k] = health_reason_hash(&now->reasons[k]);
		for (size_t j = 0; j < ARRAY_SIZE(logged_by_source) && !known; j++) {
			known = !strcmp(now->reasons[k].code, logged_by_source[j]);
		}
		for (size_t j = 0; j < i->n_health_logged && !known; j++) {
			known = i->health_logged[j] == logged[k];
		}
		if (!known) {
			log_full(now->level >= HEALTH_FAILED ? LOG_ERR : LOG_NOTICE,
				 "instance %s: %s", i->name, now->reasons[k].text);
		}
	}
	memcpy(i->health_logged, logged, n * sizeof(logged[0]));
	i->n_health_logged = n;
}

/* 3. Health (and its new reasons logged), and whether the instance is the grandmaster. */
static void derive_health(struct instance *i, struct mport *const *ports, size_t n)
{
	struct health_report h, kept;
	bool gm;

	health_instance(i, ports, n, why_not_port, i->manager, &h, &gm);
	refclock_feed_health(i, ports, n, &h);
	health_log_new(i, &h);
	if (!health_equal(&h, instance_health(i, &kept)) || gm != i->is_grandmaster) {
		if (health_keep(&i->health, &h) < 0) {
			log_full(LOG_ERR, "instance %s: out of memory, its health is stale",
				 i->name);
			return;
		}
		i->is_grandmaster = gm;
		i->dirty |= INSTANCE_CHANGED_HEALTH;
	}
}

/* 4. Readiness (readiness.c) from what the steps above derived. */
static void derive_readiness(struct instance *i, struct mport *const *ports, size_t n)
{
	uint64_t opens;
	struct readiness r;

	struct refclock_info info;
	struct readiness_refclock rc;
	bool feeds = refclock_feed_info(i, &info);

	if (feeds) {
		rc = (struct readiness_refclock){
			.address = info.address,
			.sending = info.state == REFCLOCK_SENDING,
			.refused = info.state == REFCLOCK_REFUSED,
			.reason = info.reason,
		};
	}
	if (readiness_of_instance(i, ports, n, feeds ? &rc : NULL, time_usec(CLOCK_MONOTONIC), &r,
				  &opens) < 0) {
		log_full(LOG_ERR, "instance %s: out of memory, its readiness is stale", i->name);
		return;
	}
	/* A gate still closed opens by time alone, which marks nothing: a pass then. */
	if (opens && (!i->manager->gate_wakeup_usec || opens < i->manager->gate_wakeup_usec)) {
		i->manager->gate_wakeup_usec = opens;
	}
	if (!readiness_equal(&r, &i->readiness)) {
		i->readiness = r;
		i->dirty |= INSTANCE_CHANGED_READY;
	}
}

/* The daemon's own health and readiness, from its instances' and the system clock's. */
static void derive_daemon(struct manager *m)
{
	const char *sys = m->config ? m->config->daemon.system_clock_instance : "";
	/* "" when only instances that feed chronyd could be followed: phcd steers nothing. */
	const char *steered = !m->sysclock || sysclock_follow_target(m->sysclock)[0] ? sys : "";
	const char *conflict = sysclock_follow_conflict(m->sysclock);
	bool sys_synced = sysclock_follow_synchronized(m->sysclock);
	struct health_report h;
	struct readiness r;

	health_daemon(m->instances, m->n_instances, conflict, steered, sys_synced, &h);
	if (!health_equal(&h, &m->health)) {
		m->health = h;
		m->dirty |= MANAGER_CHANGED_HEALTH;
	}
	readiness_daemon(m->instances, m->n_instances, sys, sys_synced, conflict, &r);
	if (!readiness_equal(&r, &m->readiness)) {
		m->readiness = r;
		m->dirty |= MANAGER_CHANGED_READY;
	}
}

/* 5. Emission: each object's changes once, to the observer (D-Bus), then the status file. */
static void derive_emit(struct manager *m)
{
	for (size_t k = 0; k < m->n_instances; k++) {
		struct instance *i = m->instances[k];
		unsigned int mask = i->dirty;

		i->dirty = 0;
		if (mask && m->ops && m->ops->instance_changed) {
			m->ops->instance_changed(m->userdata, i, mask);
		}
	}
	for (size_t k = 0; k < m->n_ports; k++) {
		struct mport *p = m->ports[k];
		unsigned int mask = p->dirty;

		p->dirty = 0;
		if (mask && m->ops && m->ops->port_changed) {
			m->ops->port_changed(m->userdata, p, mask);
		}
	}
	if (m->dirty && m->ops && m->ops->manager_changed) {
		m->ops->manager_changed(m->userdata, m->dirty);
	}
	m->dirty = 0;
	manager_write_status(m);
}

static int on_gate_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	manager_dirty(userdata);
	return 0;
}

/*
 * A boot gate still closed, or a clock mode in holdover: a pass when it opens (nothing else
 * would mark it).
 */
static void derive_arm_gate(struct manager *m)
{
	uint64_t when = m->gate_wakeup_usec;

	m->gate_wakeup_usec = 0;
	if (!when || !m->event) {
		if (m->gate_timer) {
			sd_event_source_set_enabled(m->gate_timer, SD_EVENT_OFF);
		}
		return;
	}
	if (!m->gate_timer) {
		if (sd_event_add_time(m->event, &m->gate_timer, CLOCK_MONOTONIC, when, 0,
				      on_gate_timer, m) < 0) {
			log_full(LOG_ERR, "cannot arm the boot gate's timer, readiness may lag");
			return;
		}
	}
	sd_event_source_set_time(m->gate_timer, when);
	sd_event_source_set_enabled(m->gate_timer, SD_EVENT_ONESHOT);
}

void manager_derive(struct manager *m)
{
	struct mport **ports = NULL;
	size_t cap = 0;

	m->derive_passes++;
	for (size_t k = 0; k < m->n_instances; k++) {
		struct instance *i = m->instances[k];
		size_t n = instance_ports(m, i, &ports, &cap);

		derive_holdover(i, ports, n);
		derive_followers(i);
		derive_clock_mode(i);
		/* the followers may have taken ports FAULTY: the same list, their new states */
		derive_health(i, ports, n);
		derive_readiness(i, ports, n);
	}
	free(ports);
	derive_daemon(m);
	derive_arm_gate(m);
	derive_emit(m);
}

static int on_derive(sd_event_source *s, void *userdata)
{
	manager_derive(userdata);
	return 0;
}

int manager_derive_setup(struct manager *m)
{
	int r = sd_event_add_defer(m->event, &m->derive_defer, on_derive, m);

	if (r < 0) {
		return r;
	}
	return sd_event_source_set_enabled(m->derive_defer, SD_EVENT_OFF);
}
