/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor distrusts its workers (issue 17, finding 3): a worker parses the network and
 * may be compromised, so what it reports is checked against what the supervisor decided and
 * what an honest worker can say. Only the port the supervisor's BMCA recommended SLAVE may steer
 * or feed the system clock, or hand its clock state to its siblings; a worker that claims SLAVE
 * unasked, reports impossible values, hands on a clock step its instance's step policy refuses
 * or floods the supervisor is lying, and is restarted. Pure.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/ipc.h"
#include "common/token-bucket.h"
#include "ptp/bmca.h"
#include "ptp/options.h"
#include "ptp/servo.h"
#include "ptp/types.h"

/* After S1 is taken back, reports already on their way may still say SLAVE for this long. */
#define WORKER_TRUST_GRACE_USEC (3 * UINT64_C(1000000))
/*
 * An honest worker sends each kind of news at most once a tick (IPC_NEWS_TICK_NS, 10 a second),
 * whatever the wire or the supervisor make it do. Each kind has a budget refilled at twice that
 * rate and holding WORKER_TRUST_NEWS_BURST: a backlog that a stall of the supervisor's own left
 * on the socket (a slow reload: 20 s of the honest rate) is no flood; only a worker that sends
 * more than it could have been made to runs its budget dry, and that is a lie.
 */
#define WORKER_TRUST_NEWS_PER_SEC (2 * NS_PER_SEC / IPC_NEWS_TICK_NS)
#define WORKER_TRUST_NEWS_BURST (20 * NS_PER_SEC / IPC_NEWS_TICK_NS)

enum worker_news {
	WORKER_NEWS_STATUS,	   /* STATUS on the socket (the status page is not news) */
	WORKER_NEWS_PRIORITY,	   /* PRIORITY_REQUEST */
	WORKER_NEWS_GM_SETTINGS,   /* GM_SETTINGS_REQUEST */
	WORKER_NEWS_UNICAST_TABLE, /* UNICAST_TABLE */
	_WORKER_NEWS_MAX,
};

struct worker_trust {
	/*
	 * A designated slave by configuration (BMCA noop without masterOnly, the automotive
	 * profile's static roles): SLAVE is the port's own, the supervisor's decision does not
	 * apply.
	 */
	bool static_slave;
	bool slave_granted;	   /* the last RECOMMENDED_STATE sent was S1 */
	uint64_t grace_until_usec; /* S1 taken back: SLAVE believed until then */
	bool news_started[_WORKER_NEWS_MAX];
	struct token_bucket news[_WORKER_NEWS_MAX]; /* ns: usec * 1000 */
	/* a believed STATUS of this worker said its servo LOCKED (or HOLDOVER after it) */
	bool servo_locked;
};

/* What the worker can honestly do, from the supervisor's configuration. */
struct worker_trust_limits {
	/* the worker runs a servo (clock_backend phc or virtual, no rival): else never LOCKED */
	bool may_run_servo;
	double max_frequency_ppb; /* the servo's clamp (max_frequency); 0: none */
	/* the instance's step policy (servo_config_from_options()): what its servos may step */
	struct servo_config policy;
};

/*
 * The clock state the instance's ports serve (the last CLOCK_STATE handed on), against which a
 * new one is judged: valid false before the first.
 */
struct worker_trust_served {
	bool valid;
	struct ipc_clock_state state;
};

/* A new worker: nothing granted. */
void worker_trust_reset(struct worker_trust *t);
/* A RECOMMENDED_STATE with decision d went to the worker at now. */
void worker_trust_recommended(struct worker_trust *t, enum bmca_decision d, uint64_t now);
/* May the port steer and feed the system clock or its siblings: recommended SLAVE (or grace). */
bool worker_trust_slave(const struct worker_trust *t, uint64_t now);
/*
 * NULL when the STATUS is believable, else what the lie was (a constant string). datagram: it
 * came over the socket (counted against the flood limit), not from the status page.
 */
const char *worker_trust_check_status(struct worker_trust *t, const struct worker_trust_limits *l,
				      const struct ipc_status *s, bool datagram, uint64_t now);
/*
 * A message of kind news (WORKER_NEWS_PRIORITY, WORKER_NEWS_GM_SETTINGS) came over the socket:
 * NULL, or the lie (more than an honest worker could have been made to send).
 */
const char *worker_trust_check_news(struct worker_trust *t, enum worker_news news, uint64_t now);
/*
 * The same for a CLOCK_STATE (the virtual clock a SLAVE hands to its siblings): from the
 * recommended SLAVE with a servo, a rate within the clamp; and once its servo said it locked
 * (servo_locked: then a state is handed on and becomes *served), a step from the
 * clock state served (at raw time raw_now) that the instance's step policy would have taken
 * (servo_policy_refuses(): once a state was served, none beyond max_offset_jump). Before its
 * lock a port's states are its servo's first steps, not served, and not judged by the bound.
 */
const char *worker_trust_check_clock_state(const struct worker_trust *t,
					   const struct worker_trust_limits *l,
					   const struct worker_trust_served *served,
					   const struct ipc_clock_state *cs, ns_t raw_now,
					   uint64_t now);
