/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The best master clock algorithm of IEEE 1588-2019 9.3 as pure functions of data and time. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/ds.h"
#include "ptp/fsm.h"
#include "ptp/types.h"

/*
 * The Announce fields the BMCA uses (13.5 plus the header's sourcePortIdentity, flagField and
 * logMessageInterval), host order. The port code fills it from the parsed message; the codec's
 * types stay out of this module.
 */
struct bmca_announce {
	struct PortIdentity sourcePortIdentity;
	uint16_t flagField; /* MSG_FLAG_* bits of the header */
	int8_t logMessageInterval;
	int16_t currentUtcOffset;
	uint8_t grandmasterPriority1;
	struct ClockQuality grandmasterClockQuality;
	uint8_t grandmasterPriority2;
	struct ClockIdentity grandmasterIdentity;
	uint16_t stepsRemoved;
	uint8_t timeSource;
};

/*
 * IEEE 1588-2019 9.3.4: the data compared. For a foreign master, sender is the Announce's
 * sourcePortIdentity and receiver the portIdentity of the port that received it. For the local
 * clock (D0, 9.3.4 "defaultDS"), stepsRemoved is 0 and both identities are
 * {defaultDS.clockIdentity, 0}.
 */
struct bmca_dataset {
	uint8_t priority1;
	struct ClockIdentity identity; /* grandmasterIdentity */
	struct ClockQuality quality;   /* grandmasterClockQuality */
	uint8_t priority2;
	uint16_t stepsRemoved;
	struct PortIdentity sender;
	struct PortIdentity receiver;
	/*
	 * G.8275.1 6.3.8: the receiving port's portDS.localPriority for a foreign master, the
	 * clock's defaultDS.localPriority for D0. The 1588 comparison ignores it.
	 */
	uint8_t localPriority;
};

/* Results of bmca_compare(), with linuxptp dscmp()'s values and signs. */
enum bmca_cmp {
	BMCA_B_BETTER = -2,
	BMCA_B_BETTER_BY_TOPOLOGY = -1,
	BMCA_SAME = 0, /* the "error-1"/"error-2" cases of figure 35, or a == b */
	BMCA_A_BETTER_BY_TOPOLOGY = 1,
	BMCA_A_BETTER = 2,
};

void bmca_dataset_from_announce(const struct bmca_announce *a, const struct PortIdentity *receiver,
				struct bmca_dataset *ret);
void bmca_dataset_from_default(const struct defaultDS *d, struct bmca_dataset *ret);

/*
 * IEEE 1588-2019 9.3.4 figures 34 and 35. NULL stands for "no data set" and loses against any
 * data set. Antisymmetric: bmca_compare(a, b) == -bmca_compare(b, a).
 */
enum bmca_cmp bmca_compare(const struct bmca_dataset *a, const struct bmca_dataset *b);
/*
 * ITU-T G.8275.1 6.3.8 figure 4 (linuxptp's dataset_comparison G.8275.x): priority1 plays no
 * part; clockClass, clockAccuracy, offsetScaledLogVariance, priority2, then localPriority; then,
 * for a clockClass of 1..127 (grandmasters equally good by construction), the topology (the
 * nearer one wins) before the identity, else the identity before the topology. Antisymmetric,
 * NULL as in bmca_compare().
 */
enum bmca_cmp bmca_compare_g8275(const struct bmca_dataset *a, const struct bmca_dataset *b);
typedef enum bmca_cmp (*bmca_compare_fn)(const struct bmca_dataset *a,
					 const struct bmca_dataset *b);
/* The comparison function of c (bmca_compare or bmca_compare_g8275). */
bmca_compare_fn bmca_comparison_function(enum bmca_comparison c);
/* "ieee1588" and "G.8275.x", ptp4l's dataset_comparison values (from_string ignores case). */
const char *bmca_comparison_to_string(enum bmca_comparison c);
int bmca_comparison_from_string(const char *s, enum bmca_comparison *ret);
const char *bmca_cmp_to_string(enum bmca_cmp c);

/* IEEE 1588-2019 9.3.3 figure 33: the decision points. */
enum bmca_decision {
	BMCA_DECISION_NONE = 0,	 /* no Erbest while LISTENING: keep the current state */
	BMCA_DECISION_M1,	 /* clockClass 1..127, D0 better than Erbest: MASTER */
	BMCA_DECISION_M2,	 /* D0 better than Ebest: MASTER */
	BMCA_DECISION_M3,	 /* Ebest better than Erbest, not by topology: MASTER */
	BMCA_DECISION_P1,	 /* clockClass 1..127, Erbest better: PASSIVE */
	BMCA_DECISION_P2,	 /* Ebest better than Erbest by topology: PASSIVE */
	BMCA_DECISION_S1,	 /* Erbest is Ebest: SLAVE */
	BMCA_DECISION_LISTENING, /* slaveOnly and this port does not hold Ebest (9.2.2.2) */
};

/*
 * IEEE 1588-2019 9.3.3 figure 33 for one port. d0 is the local clock (D0), ebest the best of
 * every port's Erbest, erbest this port's best qualified foreign master; either may be NULL.
 * erbest_is_ebest says Ebest was received on this port (S1). bmca_clock_decide()
 * (ptp/bmca-clock.h) computes Ebest over a clock's ports and calls this for each. state is the
 * port's current state.
 */
enum bmca_decision bmca_state_decision(const struct bmca_dataset *d0,
				       const struct bmca_dataset *ebest,
				       const struct bmca_dataset *erbest, bool erbest_is_ebest,
				       bool slave_only, enum port_state state);
/* The same with the comparison of an alternate BMCA (bmca_state_decision(): 9.3.4's). */
enum bmca_decision bmca_state_decision_with(bmca_compare_fn compare, const struct bmca_dataset *d0,
					    const struct bmca_dataset *ebest,
					    const struct bmca_dataset *erbest, bool erbest_is_ebest,
					    bool slave_only, enum port_state state);
/* The FSM event a decision raises (9.2.5): M1/M2 RS_GRAND_MASTER, M3 RS_MASTER, P1/P2
 * RS_PASSIVE, S1 RS_SLAVE, LISTENING RS_PASSIVE (the slave-only FSM maps it to LISTENING),
 * NONE FSM_EV_NONE. */
enum fsm_event bmca_decision_to_event(enum bmca_decision d);
/* Recommended state: MASTER, PASSIVE, SLAVE, LISTENING; NONE gives `state` unchanged. */
enum port_state bmca_decision_to_state(enum bmca_decision d, enum port_state state);
const char *bmca_decision_to_string(enum bmca_decision d);

/*
 * IEEE 1588-2019 9.2.6.11: PRE_MASTER lasts N announce intervals: 0 for M1/M2, stepsRemoved + 1
 * for M3 (currentDS.stepsRemoved after the 9.3.5 update).
 */
ns_t bmca_qualification_timeout(enum bmca_decision d, uint16_t stepsRemoved,
				int8_t logAnnounceInterval);

/*
 * IEEE 1588-2019 9.3.5 Table 30 (S1): the data sets take the values of the parent's data set
 * (its Erbest, 9.3.4) and of the time properties its Announce carries. parentStats is FALSE and
 * the observedParent* members say "not computed" (8.2.3.4 to 8.2.3.6: 0xFFFF, 0x7FFFFFFF), as
 * linuxptp answers PARENT_DATA_SET. offsetFromMaster and meanDelay are left alone.
 */
void bmca_update_slave(const struct bmca_dataset *parent, const struct timePropertiesDS *parent_tp,
		       struct currentDS *cds, struct parentDS *pds, struct timePropertiesDS *tp);
/* The time properties an Announce carries (flags, currentUtcOffset, timeSource). */
void bmca_time_properties_from_announce(const struct bmca_announce *a, struct timePropertiesDS *tp);
/*
 * IEEE 1588-2019 9.3.5 Table 27 (M1, M2): the local clock is the grandmaster, the observedParent*
 * members as bmca_update_slave() sets them. tp is left for the caller (its own time source
 * configuration).
 */
void bmca_update_master(const struct defaultDS *dds, struct currentDS *cds, struct parentDS *pds);

/* IEEE 1588-2019 9.3.2.5 / 9.3.2.4.4 */
#define FOREIGN_MASTER_THRESHOLD 2
#define FOREIGN_MASTER_TIME_WINDOW 4
/*
 * Records per port. A full table (after dropping stale records) takes a new sender only in place
 * of its worst record (bmca_compare()), and only when the newcomer is better; never in place of
 * the record kept with bmca_foreign_keep() (the parent). Otherwise it is refused (counted by the
 * caller). So a crowd of worse senders cannot keep a better master out (issue 17, finding 6).
 */
#define BMCA_FOREIGN_MAX 16

/* One foreignMasterDS record (9.3.2.4.4). */
struct bmca_foreign {
	struct bmca_announce announce; /* the most recent one */
	/* receipt times of the last n_rx (<= FOREIGN_MASTER_THRESHOLD) Announces, newest first */
	ns_t rx[FOREIGN_MASTER_THRESHOLD];
	unsigned int n_rx;
};

/*
 * What a port admits and how it ranks what it admitted. bmca_foreign_init() sets 1588's (ptp4l's
 * defaults): 9.3.4's comparison, localPriority 128, maxStepsRemoved 255, clock_class_threshold
 * 248; the caller may change them after.
 */
struct bmca_foreign_rules {
	enum bmca_comparison comparison;
	uint8_t localPriority;	 /* G.8275.1 portDS.localPriority: every Erbest of this port's */
	uint8_t maxStepsRemoved; /* an Announce with stepsRemoved >= this is not admitted */
	/* an Announce whose grandmasterClockQuality.clockClass is above this is not admitted
	 * (ptp4l's clock_class_threshold; 248 admits every clock that may be a master) */
	uint8_t clockClassThreshold;
};

/* A port's foreignMasterDS. Plain data: copy, embed, zero as you like after bmca_foreign_init. */
struct bmca_foreign_table {
	struct PortIdentity self; /* the receiving port's portIdentity */
	ns_t window;		  /* FOREIGN_MASTER_TIME_WINDOW announce intervals */
	struct bmca_foreign_rules rules;
	size_t n;
	struct bmca_foreign rec[BMCA_FOREIGN_MAX];
	bool has_keep;
	struct PortIdentity keep; /* never evicted for a newcomer: the parent */
};

void bmca_foreign_init(struct bmca_foreign_table *t, const struct PortIdentity *self,
		       int8_t logAnnounceInterval);
/*
 * Record an Announce received at `now` (9.3.2.5). Returns 1 when the BMCA should run again (a
 * record became qualified, or a qualified sender's data set changed), 0 when not, -EINVAL for an
 * Announce that 9.3.2.5 excludes (sent by this PTP instance, or stepsRemoved >= 255) or the
 * rules do (stepsRemoved >= maxStepsRemoved, clockClass above clockClassThreshold), -ENOSPC
 * when the table is full and the newcomer is not better than its worst record (above). An
 * evicted qualified record may change Erbest: that returns 1 too.
 */
int bmca_foreign_add(struct bmca_foreign_table *t, const struct bmca_announce *a, ns_t now);
/* Drop Announce receipts older than the window and records left with none. Returns how many
 * records went (a reason to run the BMCA again). */
size_t bmca_foreign_prune(struct bmca_foreign_table *t, ns_t now);
/* A record is qualified with FOREIGN_MASTER_THRESHOLD receipts within the window of `now`. */
bool bmca_foreign_qualified(const struct bmca_foreign_table *t, const struct bmca_foreign *f,
			    ns_t now);
/*
 * The earliest time after `now` at which a record qualified at `now` stops qualifying if no
 * Announce comes (its oldest counted receipt leaves the window), or INT64_MAX: until then Erbest
 * changes only with a received Announce, so a caller can wait instead of polling.
 */
ns_t bmca_foreign_next_unqualified(const struct bmca_foreign_table *t, ns_t now);
/*
 * Erbest (9.3.2.3): the best qualified record by the rules' comparison, its data set (with the
 * rules' localPriority) in *erbest. NULL (and *erbest untouched) when no record qualifies. The
 * result does not depend on insertion order.
 */
const struct bmca_foreign *bmca_foreign_best(const struct bmca_foreign_table *t, ns_t now,
					     struct bmca_dataset *erbest);
void bmca_foreign_clear(struct bmca_foreign_table *t);
/* The record of this sender (the port's parent) is never evicted; NULL: none is kept. */
void bmca_foreign_keep(struct bmca_foreign_table *t, const struct PortIdentity *sender);

/*
 * IEEE 1588-2019 9.2.6.12 announce receipt timeout bookkeeping. The port restarts it on each
 * Announce from its parent (SLAVE, UNCALIBRATED) or from any qualified sender (LISTENING,
 * PASSIVE), and on entry to those states; it raises ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES once
 * expired (the port stops or restarts it then).
 */
struct bmca_announce_timer {
	ns_t deadline;
	bool running;
};
void bmca_announce_timer_restart(struct bmca_announce_timer *t, ns_t now,
				 int8_t logAnnounceInterval, uint8_t announceReceiptTimeout);
void bmca_announce_timer_stop(struct bmca_announce_timer *t);
bool bmca_announce_timer_expired(const struct bmca_announce_timer *t, ns_t now);
