/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A boundary clock across NICs: the PHCs of an instance's other NICs follow the PHC of its SLAVE
 * port (linuxptp's boundary_clock_jbod plus phc2sys -a). Pure: the PHCs are reached through ops,
 * the real ones in daemon/instance.c, simulated ones in tests/unit/test-phc-follow.c.
 */
#pragma once

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>

#include "ptp/clock.h"
#include "ptp/outlier.h"
#include "ptp/servo.h"
#include "ptp/sysoff.h"

/*
 * The source index that stands for CLOCK_REALTIME itself (time_source = system: phc2sys -s
 * CLOCK_REALTIME): ops->measure of it reads CLOCK_REALTIME on the PHCs' timescale.
 */
#define PHC_FOLLOW_REALTIME INT_MAX
/*
 * The source index that stands for a 1PPS on the target's own pin (ts2phc.pin_index): nothing is
 * read at a tick, each sample comes through phc_follow_sample().
 */
#define PHC_FOLLOW_PIN (INT_MAX - 1)

struct phc_follow_ops {
	/*
	 * One reading of PHC phc_index against CLOCK_REALTIME (ptp/sysoff.c's best of N): the PHC
	 * at system time sys, error half the read window. -errno.
	 */
	int (*measure)(void *userdata, int phc_index, struct sysoff_pair *ret);
	/* The steering back end of PHC phc_index (clock-phc over a read-write fd). -errno. */
	int (*open)(void *userdata, int phc_index, struct clock **ret);
	/* Give back a clock open returned (the frequency it has stays). */
	void (*close)(void *userdata, struct clock *c);
};

enum phc_follower_state {
	PHC_FOLLOWER_UNLOCKED = 0, /* no sample yet (or rebuilt) */
	PHC_FOLLOWER_LOCKING,	   /* samples arrive, not yet within the lock bound */
	PHC_FOLLOWER_LOCKED,	   /* PHC_FOLLOW_LOCK_SAMPLES in a row within the bound, and
				      not as many beyond it since */
	PHC_FOLLOWER_HOLDOVER,	   /* no source (no SLAVE port): the last frequency is kept */
	PHC_FOLLOWER_FAULTY,	   /* the PHC cannot be opened or adjusted: error says why */
};

/*
 * Locked: this many samples in a row with |offset| <= PHC_FOLLOW_LOCK_NS + twice the sample error
 * (the read windows bound where each reading sits, not how the clocks under them move; twice
 * that held 99% of samples under QEMU's TCG, where a reading wanders by about its window).
 */
#define PHC_FOLLOW_LOCK_SAMPLES 4
#define PHC_FOLLOW_LOCK_NS 1000

/* One target PHC kept in step with the source. */
struct phc_follower {
	int phc_index;
	struct clock *clock; /* from ops->open, NULL while FAULTY */
	struct servo *servo; /* NULL until the first source */
	struct outlier_gate gate;
	enum phc_follower_state state;
	bool locked_once;	/* locked or stepped once: a rebuilt servo takes no first step */
	unsigned int out_bound; /* samples in a row beyond it */
	unsigned int in_bound;	/* samples in a row within the lock bound */
	ns_t offset;		/* last measured, target minus source */
	ns_t error;		/* its uncertainty: the read windows */
	double freq_ppb;	/* the adjustment applied last */
	ns_t last_ts;		/* the target's time at the last sample */
	uint64_t samples, steps, gated;
	int error_code; /* -errno of the last failure (FAULTY), 0 for none */
};

struct phc_follow_config {
	/* hardware PI constants under the instance's step policy (first_step_threshold, ...) */
	struct servo_config servo;
	double interval_s; /* between ticks: the source port's Sync interval */
};

struct phc_follow {
	const struct phc_follow_ops *ops;
	void *userdata;
	struct phc_follow_config cfg;
	int source;	  /* the SLAVE port's PHC, -1: none (holdover) */
	bool locked_once; /* a follower locked or stepped: the instance has its timescale */
	struct phc_follower *f;
	size_t n;
};

/* Default config: servo_config_default(hardware), interval 1 s. */
void phc_follow_config_default(struct phc_follow_config *cfg);

int phc_follow_new(const struct phc_follow_ops *ops, void *userdata,
		   const struct phc_follow_config *cfg, struct phc_follow **ret);
/* Accept NULL, return NULL. The targets keep the frequency they have. */
struct phc_follow *phc_follow_free(struct phc_follow *pf);

/*
 * The source PHC (-1: none, the followers hold their frequency) and the targets (the source
 * among them is ignored, as are duplicates and negatives). Followers for PHCs no longer listed
 * are closed; new ones are opened (a failure leaves that follower FAULTY, retried at the next
 * set). A change of source rebuilds every servo, with first_step_taken for a PHC that locked
 * once: after a role change a PHC is stepped only beyond step_threshold. Returns 0, or the first
 * open error.
 */
int phc_follow_set(struct phc_follow *pf, int source, const int *targets, size_t n);
/* The sample interval changed (the source's logSyncInterval). */
void phc_follow_set_interval(struct phc_follow *pf, double interval_s);
/*
 * One round: for each target, the source, the target and the source again read against
 * CLOCK_REALTIME, the source interpolated to the target's reading; then gate, servo, steer.
 * Without a source, nothing is read. Returns 0 or the first -errno (that follower is FAULTY
 * when its PHC could not be adjusted).
 */
int phc_follow_tick(struct phc_follow *pf);
/*
 * A sample measured elsewhere (source PHC_FOLLOW_PIN: a pin's edge against the second it marks):
 * the target's offset from the reference and its uncertainty, at the target's time ts; then gate,
 * servo, steer as a tick does. -ENOENT: no follower of phc_index; -EAGAIN: the source is not
 * PHC_FOLLOW_PIN.
 */
int phc_follow_sample(struct phc_follow *pf, int phc_index, ns_t offset, ns_t error, ns_t ts);
/* Every follower LOCKED (true with none). */
bool phc_follow_locked(const struct phc_follow *pf);
/* The follower of PHC phc_index, or NULL. */
const struct phc_follower *phc_follow_find(const struct phc_follow *pf, int phc_index);

const char *phc_follower_state_to_string(enum phc_follower_state st);
