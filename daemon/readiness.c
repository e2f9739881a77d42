// SPDX-License-Identifier: GPL-2.0-or-later
/* The readiness verdict: when wait-sync, the exporter and Cockpit may call phcd "ready". */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "daemon/readiness.h"
#include "ptp/bmca.h"
#include "ptp/util.h"

#define USEC_PER_SEC_F 1e6

uint64_t readiness_gate_usec(int8_t logAnnounceInterval, uint8_t announceReceiptTimeout)
{
	double intervals = (double) announceReceiptTimeout + FOREIGN_MASTER_TIME_WINDOW;

	return (uint64_t) llround(ldexp(intervals, logAnnounceInterval) * USEC_PER_SEC_F);
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

void readiness_instance(const struct readiness_instance_input *in, struct readiness *ret)
{
	const struct readiness_port *p;

	if (in->missing && !in->synchronized) {
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

static bool is_followed(const struct readiness_daemon_input *in, size_t k)
{
	return !strcmp(in->system_clock_instance, "auto") ||
	       !strcmp(in->system_clock_instance, in->names[k]);
}

void readiness_daemon(const struct readiness_daemon_input *in, struct readiness *ret)
{
	bool free_running = true;

	if (in->system_clock_instance[0]) {
		/* time-sync.target means the system clock is right, not that PTP is. */
		for (size_t k = 0; k < in->n_instances; k++) {
			if (is_followed(in, k)) {
				free_running &= in->instances[k].ready && !in->synchronized[k];
			}
		}
		if (in->system_clock_synchronized) {
			verdict(ret, true,
				"the system clock is synchronized (system_clock_instance %s)",
				in->system_clock_instance);
		} else if (in->system_clock_conflict[0]) {
			/* Not phcd's to wait for: the other program decides (chrony-wait...). */
			verdict(ret, true, "the system clock is not steered by phcd: %s",
				in->system_clock_conflict);
		} else if (free_running) {
			verdict(ret, true,
				"the system clock is not steered: system_clock_instance %s is the "
				"grandmaster or has no ports, so the system clock is the reference",
				in->system_clock_instance);
		} else {
			verdict(ret, false,
				"the system clock is not locked yet (system_clock_instance %s)",
				in->system_clock_instance);
		}
		return;
	}
	if (in->n_instances == 0) {
		verdict(ret, false, "phcd runs no instance");
		return;
	}
	for (size_t k = 0; k < in->n_instances; k++) {
		if (!in->instances[k].ready) {
			verdict(ret, false, "instance %s: %s", in->names[k],
				in->instances[k].reason);
			return;
		}
	}
	verdict(ret, true, "every instance is ready");
}
