// SPDX-License-Identifier: GPL-2.0-or-later
/* Health of each instance and of the daemon: ok / degraded / failed with the reasons (pure). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/health.h"
#include "daemon/manager-state.h"
#include "daemon/readiness.h"

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
size_t health_reasons_shown(const struct health_report *h)
{
	return h->n_reasons < HEALTH_REASONS_MAX ? h->n_reasons : HEALTH_REASONS_MAX;
}

bool health_equal(const struct health_report *a, const struct health_report *b)
{
	if (a->level != b->level || health_reasons_shown(a) != health_reasons_shown(b)) {
		return false;
	}
	for (size_t k = 0; k < health_reasons_shown(a); k++) {
		if (strcmp(a->reasons[k].code, b->reasons[k].code) ||
		    strcmp(a->reasons[k].text, b->reasons[k].text)) {
			return false;
		}
	}
	return true;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	/* The terminating NUL too: "ab" + "c" and "a" + "bc" differ. */
	do {
		h = (h ^ (uint8_t) *s) * UINT64_C(0x100000001b3);
	} while (*s++);
	return h;
}

uint64_t health_reason_hash(const struct health_reason *r)
{
	return fnv1a(fnv1a(UINT64_C(0xcbf29ce484222325), r->code), r->text);
}

int health_keep(struct health_kept **kept, const struct health_report *h)
{
	size_t shown = health_reasons_shown(h);
	struct health_kept *k = NULL;

	if (h->level != HEALTH_OK || shown) {
		k = malloc(sizeof(*k) + shown * sizeof(k->reasons[0]));
		if (!k) {
			return -ENOMEM;
		}
		k->level = h->level;
		k->n_reasons = h->n_reasons;
		memcpy(k->reasons, h->reasons, shown * sizeof(k->reasons[0]));
	}
	free(*kept);
	*kept = k;
	return 0;
}

bool health_chronyd_servo(const struct instance *i, struct mport *const *ports, size_t n)
{
	if (i->clock_servo != SERVO_TYPE_REFCLOCK_SOCK ||
	    (i->clock_backend != OPTIONS_CLOCK_SYSTEM &&
	     i->clock_backend != OPTIONS_CLOCK_FREE_RUNNING)) {
		return false;
	}
	for (size_t k = 0; k < n; k++) {
		if ((ports[k]->state == PORT_STATE_SLAVE ||
		     ports[k]->state == PORT_STATE_UNCALIBRATED) &&
		    ports[k]->timestamping == TRANSPORT_TS_MODE_SOFTWARE) {
			return true;
		}
	}
	return false;
}

void health_instance(const struct instance *i, struct mport *const *ports, size_t n,
		     health_why_not_port_fn why_not_port, void *ctx, struct health_report *h,
		     bool *ret_gm)
{
	char gm[CLOCK_IDENTITY_STRLEN];
	size_t faulty = 0, slave = 0, master = 0, passive = 0, listening = 0;

	memset(h, 0, sizeof(*h));
	for (size_t k = 0; k < n; k++) {
		const struct mport *p = ports[k];

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
		/* 802.1AS: a link that is up but carries no time (the worker logged why). */
		if (p->link_up && !p->as_capable && p->state != PORT_STATE_INITIALIZING &&
		    p->state != PORT_STATE_FAULTY && p->state != PORT_STATE_DISABLED) {
			health_add(
				h, HEALTH_DEGRADED, "not-as-capable",
				"port %s is not asCapable: 802.1AS carries no time over its link "
				"(the neighbour does not answer peer delay requests, or its delay "
				"is out of bounds)",
				p->ifname);
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

		if (!mport_list_has(ports, n, name)) {
			health_add(h, HEALTH_DEGRADED, "interface-missing",
				   "interface %s is named in the instance's interfaces but %s",
				   name, why_not_port ? why_not_port(ctx, name) : "not present");
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
	} else if (slave && !i->synchronized && !health_chronyd_servo(i, ports, n)) {
		health_add(h, HEALTH_DEGRADED, "not-synchronized",
			   "following grandmaster %s, not synchronized yet (servo %s)", gm,
			   servo_state_to_string(i->servo_state));
	}
}

void health_daemon(struct instance *const *instances, size_t n, const char *conflict,
		   const char *system_clock_instance, bool system_clock_synchronized,
		   struct health_report *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t k = 0; k < n; k++) {
		struct health_report buf;
		const struct health_report *ih = instance_health(instances[k], &buf);

		for (size_t r = 0; r < health_reasons_shown(ih); r++) {
			health_add(h, ih->level, ih->reasons[r].code, "instance %s: %s",
				   instances[k]->name, ih->reasons[r].text);
		}
		if (ih->level > h->level) {
			h->level = ih->level;
		}
	}
	if (conflict[0]) {
		health_add(h, HEALTH_DEGRADED, "clock-conflict",
			   "phcd refuses to steer the system clock: %s", conflict);
	} else if (system_clock_instance[0] && !system_clock_synchronized) {
		health_add(h, HEALTH_DEGRADED, "system-clock-unsynchronized",
			   "the system clock is not synchronized to instance %s",
			   system_clock_instance);
	}
}
