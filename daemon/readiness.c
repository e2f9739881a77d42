// SPDX-License-Identifier: GPL-2.0-or-later
/* The readiness verdict: when wait-sync, the exporter and Cockpit may call phcd "ready". */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "daemon/model.h"
#include "daemon/readiness.h"
#include "ptp/bmca.h"
#include "ptp/num.h"
#include "ptp/util.h"

#define USEC_PER_SEC_F 1e6

/* INTERVALS message intervals of 2^LOG_INTERVAL s, in microseconds. */
static uint64_t intervals_usec(double intervals, int8_t log_interval)
{
	return (uint64_t) num_llround(ldexp(intervals, log_interval) * USEC_PER_SEC_F);
}

uint64_t readiness_gate_usec(int8_t logAnnounceInterval, uint8_t announceReceiptTimeout)
{
	return intervals_usec((double) announceReceiptTimeout + FOREIGN_MASTER_TIME_WINDOW,
			      logAnnounceInterval);
}

bool readiness_equal(const struct readiness *a, const struct readiness *b)
{
	return a->ready == b->ready && a->configured_grandmaster == b->configured_grandmaster &&
	       !strcmp(a->reason, b->reason);
}

uint64_t readiness_as_capable_usec(int8_t logMinPdelayReqInterval)
{
	return intervals_usec(READINESS_AS_CAPABLE_EXCHANGES, logMinPdelayReqInterval);
}

static void verdict(struct readiness *ret, bool ready, const char *fmt, ...) _printf_(3, 4);
static void verdict(struct readiness *ret, bool ready, const char *fmt, ...)
{
	va_list ap;

	ret->ready = ready;
	va_start(ap, fmt);
	vsnprintf(ret->reason, sizeof(ret->reason), fmt, ap);
	va_end(ap);
}

/* The running port that has listened for the shortest share of its gate, or NULL if all did. */
static const struct readiness_port *gate_open_port(const struct readiness_instance_input *in)
{
	const struct readiness_port *worst = NULL;

	for (size_t k = 0; k < in->n_ports; k++) {
		const struct readiness_port *p = &in->ports[k];

		if (!p->running || p->listened_usec >= p->gate_usec) {
			continue;
		}
		if (!worst ||
		    p->gate_usec - p->listened_usec > worst->gate_usec - worst->listened_usec) {
			worst = p;
		}
	}
	return worst;
}

/* A running port that is not asCapable when none is (the instance serves no link), or NULL. */
static const struct readiness_port *no_link_port(const struct readiness_instance_input *in)
{
	const struct readiness_port *first = NULL;

	for (size_t k = 0; k < in->n_ports; k++) {
		const struct readiness_port *p = &in->ports[k];

		if (p->running && !p->not_as_capable) {
			return NULL;
		}
		if (p->running && !first) {
			first = p;
		}
	}
	return first;
}

void readiness_instance(const struct readiness_instance_input *in, struct readiness *ret)
{
	const struct readiness_port *p;

	ret->configured_grandmaster = in->configured_grandmaster;
	if (in->refclock) {
		const struct readiness_refclock *rc = in->refclock;

		verdict(ret, rc->sending,
			"%s chronyd at %s (clock_servo refclock_sock)%s%s; whether the system "
			"clock "
			"is synchronized is chronyd's to say (chronyc waitsync)",
			rc->sending ? "feeds" : "does not feed yet", rc->address,
			rc->sending ? "" : ": ",
			rc->sending   ? ""
			: rc->refused ? "the socket is missing or refuses"
				      : rc->reason);
	} else if (in->missing && !in->synchronized) {
		verdict(ret, false, "waiting for %s: named in its interfaces, not present yet",
			in->missing);
	} else if (in->n_ports == 0) {
		verdict(ret, true, "no ports, nothing to synchronize (does not block)");
	} else if (in->synchronized) {
		verdict(ret, true, "synchronized to grandmaster %s", in->grandmaster);
	} else if (in->is_grandmaster && in->configured_grandmaster) {
		verdict(ret, true, "grandmaster of domain %u by configuration", in->domain);
	} else if (in->is_grandmaster && (p = gate_open_port(in))) {
		verdict(ret, false,
			"grandmaster of domain %u so far: port %s listens %.1f s more for a better "
			"master (boot gate)",
			in->domain, p->ifname, (double) (p->gate_usec - p->listened_usec) / 1e6);
	} else if (in->is_grandmaster && (p = no_link_port(in))) {
		verdict(ret, false,
			"grandmaster of domain %u on no link: port %s is not asCapable (802.1AS "
			"carries no time over its link: no neighbour answers its peer delay "
			"requests, or its delay is out of bounds)",
			in->domain, p->ifname);
	} else if (in->is_grandmaster) {
		verdict(ret, true,
			"grandmaster of domain %u: no better master heard within the announce "
			"receipt timeout and the qualification window",
			in->domain);
	} else {
		char servo[16] = "";
		const char *name = servo_state_to_string(in->servo);

		/* as D-Bus ServoState shows it: "unlocked" */
		for (size_t k = 0; name && name[k] && k + 1 < sizeof(servo); k++) {
			servo[k] = (char) tolower((unsigned char) name[k]);
		}
		verdict(ret, false, "not synchronized (servo %s)%s%s", servo[0] ? servo : "unknown",
			in->health_reason ? ": " : "", in->health_reason ? in->health_reason : "");
	}
}

bool mport_list_has(struct mport *const *ports, size_t n, const char *ifname)
{
	for (size_t k = 0; k < n; k++) {
		if (!ports[k]->removed && !strcmp(ports[k]->ifname, ifname)) {
			return true;
		}
	}
	return false;
}

/* Does the instance never follow another clock (readiness_instance_input.configured_grandmaster)?
 */
static bool configured_grandmaster(const struct instance *i, struct mport *const *ports, size_t n)
{
	bool all_master_only = n > 0;

	for (size_t k = 0; k < n; k++) {
		all_master_only &= ports[k]->options.masterOnly;
	}
	return all_master_only || i->clock_quality.clockClass < 128;
}

int readiness_of_instance(const struct instance *i, struct mport *const *ports, size_t n,
			  const struct readiness_refclock *refclock, uint64_t now,
			  struct readiness *ret, uint64_t *ret_gate_opens)
{
	char gm[CLOCK_IDENTITY_STRLEN];
	struct health_report buf;
	const struct health_report *health = instance_health(i, &buf);
	struct readiness_port *rp = calloc(n ? n : 1, sizeof(*rp));
	struct readiness_instance_input in = {
		.domain = i->domain,
		.synchronized = i->synchronized,
		.is_grandmaster = i->is_grandmaster,
		.configured_grandmaster = configured_grandmaster(i, ports, n),
		.grandmaster = clock_identity_to_string(&i->grandmaster_identity, gm),
		.servo = i->servo_state,
		.health_reason = health->n_reasons ? health->reasons[0].text : NULL,
		.refclock = refclock,
		.ports = rp,
		.n_ports = n,
	};
	uint64_t opens = 0;

	if (!rp) {
		return -ENOMEM;
	}
	for (unsigned int k = 0;
	     !in.missing && !i->options.interfaces.auto_select && k < i->options.interfaces.n_names;
	     k++) {
		if (!mport_list_has(ports, n, i->options.interfaces.names[k])) {
			in.missing = i->options.interfaces.names[k];
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct mport *p = ports[k];
		/* A port in the protocol that did not start listening on a link that is up (a
		 * stopping worker after a link flap) has not listened at all. */
		bool running = p->state != PORT_STATE_FAULTY && p->state != PORT_STATE_DISABLED &&
			       p->state != PORT_STATE_INITIALIZING;
		bool listening = p->listening_since_usec && p->listening_since_usec <= now;

		rp[k] = (struct readiness_port){
			.ifname = p->ifname,
			.state = p->state,
			.running = running,
			.listened_usec = listening ? now - p->listening_since_usec : 0,
			.gate_usec = readiness_gate_usec(p->options.logAnnounceInterval,
							 p->options.announceReceiptTimeout),
		};
		if (options_port_runs_as_capable(&p->options)) {
			rp[k].gate_usec += readiness_as_capable_usec(
				p->options.logMinPdelayReqInterval);
			rp[k].not_as_capable = !p->as_capable;
		}
		if (running && listening && rp[k].listened_usec < rp[k].gate_usec &&
		    (!opens || p->listening_since_usec + rp[k].gate_usec < opens)) {
			opens = p->listening_since_usec + rp[k].gate_usec;
		}
	}
	readiness_instance(&in, ret);
	free(rp);
	*ret_gate_opens = opens;
	return 0;
}

/* An instance that feeds chronyd (clock_servo refclock_sock) is never phcd's to follow. */
static bool is_followed(const char *system_clock_instance, const struct instance *i)
{
	return i->options.servo.clock_servo != SERVO_TYPE_REFCLOCK_SOCK &&
	       (!strcmp(system_clock_instance, "auto") || !strcmp(system_clock_instance, i->name));
}

void readiness_daemon(struct instance *const *instances, size_t n,
		      const char *system_clock_instance, bool system_clock_synchronized,
		      const char *conflict, struct readiness *ret)
{
	bool free_running = true, followed = false;

	ret->configured_grandmaster = false; /* an instance's */

	if (system_clock_instance[0]) {
		/* time-sync.target means the system clock is right, not that PTP is. */
		for (size_t k = 0; k < n; k++) {
			if (is_followed(system_clock_instance, instances[k])) {
				followed = true;
				free_running &= instances[k]->readiness.ready &&
						!instances[k]->synchronized;
			}
		}
		if (system_clock_synchronized) {
			verdict(ret, true,
				"the system clock is synchronized (system_clock_instance %s)",
				system_clock_instance);
		} else if (conflict[0]) {
			/* Not phcd's to wait for: the other program decides (chrony-wait...). */
			verdict(ret, true, "the system clock is not steered by phcd: %s", conflict);
		} else if (!followed && n) {
			/* "auto" over instances that all feed chronyd: phcd steers nothing. */
			verdict(ret, true,
				"the system clock is not steered by phcd: its instances feed "
				"chronyd "
				"(clock_servo refclock_sock), whose system clock chronyc waitsync "
				"reports");
		} else if (free_running) {
			verdict(ret, true,
				"the system clock is not steered: system_clock_instance %s is the "
				"grandmaster or has no ports, so the system clock is the reference",
				system_clock_instance);
		} else {
			verdict(ret, false,
				"the system clock is not locked yet (system_clock_instance %s)",
				system_clock_instance);
		}
		return;
	}
	if (n == 0) {
		verdict(ret, false, "phcd runs no instance");
		return;
	}
	for (size_t k = 0; k < n; k++) {
		if (!instances[k]->readiness.ready) {
			verdict(ret, false, "instance %s: %s", instances[k]->name,
				instances[k]->readiness.reason);
			return;
		}
	}
	verdict(ret, true, "every instance is ready");
}
