// SPDX-License-Identifier: GPL-2.0-or-later
/* Health of each instance and of the daemon: ok / degraded / failed with the reasons. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/manager-internal.h"
#include "daemon/sysclock-follow.h"

static void health_vadd(struct health_report *h, enum health level, const char *code,
			const char *fmt, va_list ap) _printf_(4, 0);
static void health_vadd(struct health_report *h, enum health level, const char *code,
			const char *fmt, va_list ap)
{
	struct health_reason *r;

	if (level > h->level) {
		h->level = level;
	}
	if (h->n_reasons >= HEALTH_REASONS_MAX) {
		/* The last slot counts what did not fit. */
		r = &h->reasons[HEALTH_REASONS_MAX - 1];
		snprintf(r->code, sizeof(r->code), "more");
		snprintf(r->text, sizeof(r->text), "%zu more reasons",
			 h->n_reasons - HEALTH_REASONS_MAX + 2);
		h->n_reasons++;
		return;
	}
	r = &h->reasons[h->n_reasons++];
	snprintf(r->code, sizeof(r->code), "%s", code);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
}

void health_add(struct health_report *h, enum health level, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	health_vadd(h, level, code, fmt, ap);
	va_end(ap);
}

/* Reasons past the array were counted in n_reasons: the count users see is at most the array. */
static size_t reasons_shown(const struct health_report *h)
{
	return h->n_reasons < HEALTH_REASONS_MAX ? h->n_reasons : HEALTH_REASONS_MAX;
}

static bool health_equal(const struct health_report *a, const struct health_report *b)
{
	if (a->level != b->level || reasons_shown(a) != reasons_shown(b)) {
		return false;
	}
	for (size_t k = 0; k < reasons_shown(a); k++) {
		if (strcmp(a->reasons[k].code, b->reasons[k].code) ||
		    strcmp(a->reasons[k].text, b->reasons[k].text)) {
			return false;
		}
	}
	return true;
}

bool mport_restarting(const struct mport *p)
{
	/* a port given up waits for its retry with a timer too, FAULTY meanwhile */
	return p->restart_timer != NULL && !p->backoff.given_up;
}

void instance_compute_health(const struct instance *i, struct health_report *h, bool *ret_gm)
{
	char gm[CLOCK_IDENTITY_STRLEN];
	size_t n = 0, faulty = 0, slave = 0, master = 0, passive = 0, listening = 0;
	struct mport *p;

	memset(h, 0, sizeof(*h));
	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance != i) {
			continue;
		}
		n++;
		switch (p->state) {
		case PORT_STATE_FAULTY:
			faulty++;
			health_add(h, HEALTH_DEGRADED, "port-faulty", "port %s is FAULTY: %s",
				   p->ifname,
				   p->last_error_text[0] ? p->last_error_text : "no reason given");
			break;
		case PORT_STATE_SLAVE:
		case PORT_STATE_UNCALIBRATED:
			slave++;
			break;
		case PORT_STATE_MASTER:
		case PORT_STATE_PRE_MASTER:
			master++;
			break;
		case PORT_STATE_PASSIVE:
			passive++;
			break;
		case PORT_STATE_LISTENING:
		case PORT_STATE_INITIALIZING:
			listening++;
			break;
		default:
			break;
		}
		if (p->phc_rival) {
			health_add(h, HEALTH_DEGRADED, "phc-conflict", "port %s: %s", p->ifname,
				   p->phc_rival_text);
		}
		if (mport_restarting(p)) {
			health_add(h, HEALTH_DEGRADED, "worker-restarting",
				   "the worker of port %s is being restarted (%u restarts so far)",
				   p->ifname, p->restarts);
		}
	}
	/*
	 * Grandmaster of its domain: a port MASTER, and every port past its announce receipt
	 * timeout (none still LISTENING, which may be about to hear a better clock), none SLAVE.
	 */
	*ret_gm = master > 0 && slave == 0 && listening == 0 &&
		  !memcmp(&i->grandmaster_identity, &i->clock_identity, sizeof(i->clock_identity));
	clock_identity_to_string(&i->grandmaster_identity, gm);
	/* Named in interfaces and not (yet) one of its ports: wait-sync waits for it. */
	for (unsigned int k = 0;
	     !i->options.interfaces.auto_select && k < i->options.interfaces.n_names; k++) {
		const char *name = i->options.interfaces.names[k];

		p = manager_find_port(i->manager, name);
		if (!p || p->instance != i) {
			health_add(h, HEALTH_DEGRADED, "interface-missing",
				   "interface %s is named in the instance's interfaces but not "
				   "present",
				   name);
		}
	}
	if (n == 0) {
		if (i->options.interfaces.auto_select) {
			health_add(h, HEALTH_DEGRADED, "no-ports",
				   "no interface has a PTP hardware clock (interfaces auto)");
		}
		return;
	}
	if (faulty == n) {
		health_add(h, HEALTH_FAILED, "no-working-port",
			   "every port of the instance is FAULTY");
		return;
	}
	if (slave == 0 && master == 0 && passive == 0) {
		health_add(h, HEALTH_DEGRADED, "no-grandmaster",
			   "no port follows a master or serves as one%s",
			   i->options.slaveOnly ? " (the instance is slave-only)" : "");
	}
	if (i->was_synchronized && !i->synchronized && slave) {
		health_add(h, HEALTH_DEGRADED, "sync-lost",
			   "lost synchronization to grandmaster %s (servo %s)", gm,
			   servo_state_to_string(i->servo_state));
	} else if (i->was_synchronized && !i->synchronized) {
		health_add(h, HEALTH_DEGRADED, "sync-lost",
			   "lost synchronization: no port follows a master any more");
	} else if (slave && !i->synchronized) {
		health_add(h, HEALTH_DEGRADED, "not-synchronized",
			   "following grandmaster %s, not synchronized yet (servo %s)", gm,
			   servo_state_to_string(i->servo_state));
	}
}

/*
 * No SLAVE port any more: the instance follows nobody, so it is not synchronized; a locked one
 * goes to holdover (and stays there), any other servo state becomes unlocked.
 */
static void instance_check_slave(struct instance *i)
{
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i &&
		    (p->state == PORT_STATE_SLAVE || p->state == PORT_STATE_UNCALIBRATED)) {
			return;
		}
	}
	instance_check_holdover(i);
	if (i->servo_state == SERVO_HOLDOVER) {
		return;
	}
	if (i->synchronized || i->servo_state != SERVO_UNLOCKED) {
		i->synchronized = false;
		i->servo_state = SERVO_UNLOCKED;
		manager_instance_changed(i, INSTANCE_CHANGED_SERVO);
	}
}

void manager_refresh_health(struct manager *m)
{
	const struct config *c = m->config;
	struct health_report h = { 0 }, ih;
	struct instance *i;
	bool gm;

	if (m->refreshing) {
		return;
	}
	m->refreshing = true;
	MANAGER_FOREACH_INSTANCE(i, m, k)
	{
		instance_check_slave(i);
		if (i->synchronized) {
			i->was_synchronized = true;
		}
		instance_compute_health(i, &ih, &gm);
		if (!health_equal(&ih, &i->health) || gm != i->is_grandmaster) {
			i->health = ih;
			i->is_grandmaster = gm;
			manager_instance_changed(i, INSTANCE_CHANGED_HEALTH);
		}
		for (size_t r = 0; r < reasons_shown(&ih); r++) {
			health_add(&h, ih.level, ih.reasons[r].code, "instance %s: %s", i->name,
				   ih.reasons[r].text);
		}
		if (ih.level > h.level) {
			h.level = ih.level;
		}
	}
	if (sysclock_follow_conflict(m->sysclock)[0]) {
		health_add(&h, HEALTH_DEGRADED, "clock-conflict",
			   "phcd refuses to steer the system clock: %s",
			   sysclock_follow_conflict(m->sysclock));
	} else if (c && c->daemon.system_clock_instance[0] &&
		   !sysclock_follow_synchronized(m->sysclock)) {
		health_add(&h, HEALTH_DEGRADED, "system-clock-unsynchronized",
			   "the system clock is not synchronized to instance %s",
			   c->daemon.system_clock_instance);
	}
	if (!health_equal(&h, &m->health)) {
		m->health = h;
		manager_changed(m, MANAGER_CHANGED_HEALTH);
	}
	m->refreshing = false;
}

const struct health_report *manager_health(const struct manager *m)
{
	return &m->health;
}

uint64_t manager_start_realtime_usec(const struct manager *m)
{
	return m->start_realtime_usec;
}

uint64_t manager_start_monotonic_usec(const struct manager *m)
{
	return m->start_monotonic_usec;
}
