/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor distrusts its workers (issue 17, finding 3): a worker parses the network and
 * may be compromised, so what it reports is checked against what the supervisor decided and
 * what an honest worker can say. Only the port the supervisor's BMCA recommended SLAVE may steer
 * or feed the system clock, or hand its clock state to its siblings; a worker that claims SLAVE
 * unasked, reports impossible values or floods the supervisor is lying, and is restarted. Pure.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/ipc.h"
#include "ptp/bmca.h"
#include "ptp/options.h"

/* After S1 is taken back, reports already on their way may still say SLAVE for this long. */
#define WORKER_TRUST_GRACE_USEC (3 * UINT64_C(1000000))
/* STATUS datagrams (state changes, errors) one worker may send in a second. */
#define WORKER_TRUST_STATUS_PER_SEC 50

struct worker_trust {
	/*
	 * A designated slave by configuration (BMCA noop without masterOnly, the automotive
	 * profile's static roles): SLAVE is the port's own, the supervisor's decision does not
	 * apply.
	 */
	bool static_slave;
	bool slave_granted;	   /* the last RECOMMENDED_STATE sent was S1 */
	uint64_t grace_until_usec; /* S1 taken back: SLAVE believed until then */
	uint64_t window_start_usec;
	unsigned int window_count; /* STATUS datagrams since window_start */
};

/* What the worker can honestly do, from the supervisor's configuration. */
struct worker_trust_limits {
	/* the worker runs a servo (clock_backend phc or virtual, no rival): else never LOCKED */
	bool may_run_servo;
	double max_frequency_ppb; /* the servo's clamp (max_frequency); 0: none */
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
/* The same for a CLOCK_STATE (the virtual clock a SLAVE hands to its siblings). */
const char *worker_trust_check_clock_state(const struct worker_trust *t,
					   const struct worker_trust_limits *l,
					   const struct ipc_clock_state *cs, uint64_t now);
