/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offset spike gate in front of a servo: a port's (ptp/port-sync.c) and the supervisor's
 * system clock follower (daemon/sysclock-follow.c) each hold one. Pure.
 */
#pragma once

#include <stdbool.h>

#include "ptp/servo.h"
#include "ptp/types.h"

/* The line's samples: the last ones passed (ptp/outlier.c says why four). */
#define OUTLIER_LINE 4

/* The last samples it passed, what it learnt of the noise, the run of rejections. */
struct outlier_gate {
	unsigned n; /* samples held: 0 .. OUTLIER_LINE, oldest first */
	ns_t t[OUTLIER_LINE], o[OUTLIER_LINE];
	double jitter;	   /* moving average of |offset - prediction| */
	unsigned rejected; /* in a row */
	ns_t rt[2], ro[2]; /* the last two of them */
	double run_jitter; /* jitter before the run of rejections began */
	unsigned judged;   /* samples judged since it started, up to OUTLIER_WARMUP */
	/*
	 * The bend (outlier_gate_follow() or _bend()) since the last judgement, ppb, pivoted on
	 * the line's last sample: outlier_gate_unbend() takes it back.
	 */
	double bent;
	/*
	 * The last judgement found the sample passed before it a spike (ptp/outlier.c
	 * outlier_drop_passed_spike()): the caller has its servo forget it (servo_retract()).
	 */
	bool dropped;
};

/*
 * Forget the line (after a new master, a reset of the timescale); keeps nothing learnt but the
 * noise level.
 */
void outlier_gate_reset(struct outlier_gate *g);
enum outlier_verdict {
	OUTLIER_PASS = 0, /* to the servo */
	OUTLIER_PRIME,	/* the gate has no line yet (its first sample): unjudged, the caller decides
			 */
	OUTLIER_REJECT, /* a spike off the recent trend (at most a few in a row): keep it, count it
			 */
};

/* The verdict on the offset measured at time t. */
enum outlier_verdict outlier_gate_judge(struct outlier_gate *g, ns_t t, ns_t offset);
/*
 * The servo's answer to a passed sample bends the line from it on (by dppb), a step (SERVO_JUMP)
 * leaves nothing of it.
 */
void outlier_gate_follow(struct outlier_gate *g, enum servo_state st, double dppb);
/*
 * The clock's frequency changed by dppb at time t, later than the last sample passed, without a
 * sample passing (servo_skip() after a rejection): the line goes on from its own prediction for
 * t, bent by dppb from there. Nothing without a line, or for t not after its last sample.
 */
void outlier_gate_bend(struct outlier_gate *g, ns_t t, double dppb);
/*
 * The servo's answer was a step by -offset of the clock whose times t are (a port's PHC): bend
 * the line by dppb and move it onto the new timescale, so that the gate judges the first sample
 * after the step as any other instead of starting over.
 */
void outlier_gate_step(struct outlier_gate *g, ns_t offset, double dppb);
/*
 * The answer that bent the line since its last judgement (outlier_gate_follow(), _bend()) never
 * acted: the caller replaced it in the same turn, before it could (servo_sample_in_turn()). The
 * line goes on as it was before that bend; call before judging the turn's next sample, and bend
 * it with the next answer against the adjustment in effect (servo's acting_ppb).
 */
void outlier_gate_unbend(struct outlier_gate *g);
