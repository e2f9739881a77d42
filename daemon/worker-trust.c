// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's distrust of its workers (daemon/worker-trust.h). Pure. */
#include <math.h>
#include <string.h>

#include "daemon/worker-trust.h"

#define USEC_PER_SEC_U64 UINT64_C(1000000)

void worker_trust_reset(struct worker_trust *t)
{
	memset(t, 0, sizeof(*t));
}

void worker_trust_recommended(struct worker_trust *t, enum bmca_decision d, uint64_t now)
{
	bool s1 = d == BMCA_DECISION_S1;

	if (t->slave_granted && !s1) {
		t->grace_until_usec = now + WORKER_TRUST_GRACE_USEC;
	}
	t->slave_granted = s1;
}

bool worker_trust_slave(const struct worker_trust *t, uint64_t now)
{
	return t->static_slave || t->slave_granted || now < t->grace_until_usec;
}

static bool slave_state(enum port_state s)
{
	return s == PORT_STATE_SLAVE || s == PORT_STATE_UNCALIBRATED;
}

static bool freq_impossible(const struct worker_trust_limits *l, double ppb)
{
	if (!isfinite(ppb)) {
		return true;
	}
	/* the servo clamps to max_frequency (or less); a little slack for rounding */
	return l->max_frequency_ppb > 0 && fabs(ppb) > l->max_frequency_ppb + 1.0;
}

const char *worker_trust_check_status(struct worker_trust *t, const struct worker_trust_limits *l,
				      const struct ipc_status *s, bool datagram, uint64_t now)
{
	if (datagram) {
		if (now - t->window_start_usec >= USEC_PER_SEC_U64 || now < t->window_start_usec) {
			t->window_start_usec = now;
			t->window_count = 0;
		}
		if (++t->window_count > WORKER_TRUST_STATUS_PER_SEC) {
			return "flooded the supervisor with STATUS messages";
		}
	}
	if (slave_state(s->port_state) && !worker_trust_slave(t, now)) {
		return "claimed SLAVE, which the supervisor's BMCA did not recommend";
	}
	if (!l->may_run_servo && (s->servo_state != SERVO_UNLOCKED || s->servo_stable)) {
		return "reported a servo state, but runs no servo";
	}
	if (freq_impossible(l, s->freq_ppb)) {
		return "reported a frequency beyond max_frequency";
	}
	return NULL;
}

const char *worker_trust_check_clock_state(const struct worker_trust *t,
					   const struct worker_trust_limits *l,
					   const struct ipc_clock_state *cs, uint64_t now)
{
	if (!worker_trust_slave(t, now)) {
		return "sent a clock state, but is not the recommended SLAVE";
	}
	if (!l->may_run_servo) {
		return "sent a clock state, but runs no servo";
	}
	if (freq_impossible(l, cs->rate_ppb)) {
		return "sent a clock state beyond max_frequency";
	}
	return NULL;
}
