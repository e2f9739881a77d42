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

const char *worker_trust_check_news(struct worker_trust *t, enum worker_news news, uint64_t now)
{
	static const char *const flood[_WORKER_NEWS_MAX] = {
		[WORKER_NEWS_STATUS] = "flooded the supervisor with STATUS messages",
		[WORKER_NEWS_PRIORITY] = "flooded the supervisor with PRIORITY_REQUEST messages",
		[WORKER_NEWS_GM_SETTINGS] =
			"flooded the supervisor with GM_SETTINGS_REQUEST messages",
		[WORKER_NEWS_UNICAST_TABLE] = "flooded the supervisor with UNICAST_TABLE messages",
	};

	ns_t at = (ns_t) now * 1000;

	if (!t->news_started[news]) {
		t->news_started[news] = true;
		token_bucket_fill(&t->news[news], WORKER_TRUST_NEWS_BURST, at);
	}
	return token_bucket_take(&t->news[news], WORKER_TRUST_NEWS_PER_SEC, WORKER_TRUST_NEWS_BURST,
				 at)
		       ? NULL
		       : flood[news];
}

const char *worker_trust_check_status(struct worker_trust *t, const struct worker_trust_limits *l,
				      const struct ipc_status *s, bool datagram, uint64_t now)
{
	const char *lie = datagram ? worker_trust_check_news(t, WORKER_NEWS_STATUS, now) : NULL;

	if (lie) {
		return lie;
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
	if (s->servo_state != SERVO_UNLOCKED) {
		t->servo_locked = true;
	}
	return NULL;
}

/*
 * The time a state shows at raw time raw, as clock_virtual_state_at() but in double: the values
 * are the worker's, and any int64 arithmetic on them could overflow (ns resolution is lost only
 * beyond 2^53 ns, some 104 days, far above any max_offset_jump).
 */
static double state_at(const struct ipc_clock_state *cs, ns_t raw)
{
	return (double) cs->local_ns +
	       ((double) raw - (double) cs->raw_ns) * (1.0 + cs->rate_ppb / NS_PER_SEC);
}

const char *worker_trust_check_clock_state(const struct worker_trust *t,
					   const struct worker_trust_limits *l,
					   const struct worker_trust_served *served,
					   const struct ipc_clock_state *cs, ns_t raw_now,
					   uint64_t now)
{
	double step;

	if (!worker_trust_slave(t, now)) {
		return "sent a clock state, but is not the recommended SLAVE";
	}
	if (!l->may_run_servo) {
		return "sent a clock state, but runs no servo";
	}
	if (freq_impossible(l, cs->rate_ppb)) {
		return "sent a clock state beyond max_frequency";
	}
	if (!t->servo_locked || !served->valid) {
		/* Not served yet; or the instance's first, a first step the policy does not bound.
		 */
		return NULL;
	}
	step = state_at(cs, raw_now) - state_at(&served->state, raw_now);
	/* NaN or beyond what ns_t holds: as far as it goes. */
	step = !(step > -9.2e18) ? -9.2e18 : step > 9.2e18 ? 9.2e18 : step;
	if (servo_policy_refuses(&l->policy, true, (ns_t) step)) {
		return "sent a clock state that steps beyond max_offset_jump";
	}
	return NULL;
}
