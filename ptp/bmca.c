// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 9.3: data set comparison, state decision and foreign master qualification. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "ptp/bmca.h"
#include "ptp/util.h"

void bmca_dataset_from_announce(const struct bmca_announce *a, const struct PortIdentity *receiver,
				struct bmca_dataset *ret)
{
	*ret = (struct bmca_dataset){
		.priority1 = a->grandmasterPriority1,
		.identity = a->grandmasterIdentity,
		.quality = a->grandmasterClockQuality,
		.priority2 = a->grandmasterPriority2,
		.stepsRemoved = a->stepsRemoved,
		.sender = a->sourcePortIdentity,
		.receiver = *receiver,
	};
}

/* IEEE 1588-2019 9.3.4: D0 is the local clock seen as a grandmaster zero steps away. */
void bmca_dataset_from_default(const struct defaultDS *d, struct bmca_dataset *ret)
{
	*ret = (struct bmca_dataset){
		.localPriority = d->localPriority,
		.priority1 = d->priority1,
		.identity = d->clockIdentity,
		.quality = d->clockQuality,
		.priority2 = d->priority2,
		.stepsRemoved = 0,
		.sender = { .clockIdentity = d->clockIdentity, .portNumber = 0 },
		.receiver = { .clockIdentity = d->clockIdentity, .portNumber = 0 },
	};
}

/* Smaller is better throughout 9.3.4; turn a "<" into the A side winning. */
static int lower_wins(unsigned int a, unsigned int b)
{
	return a < b ? BMCA_A_BETTER : a > b ? BMCA_B_BETTER : BMCA_SAME;
}

/*
 * IEEE 1588-2019 9.3.4 figure 35: same grandmaster, decide by topology. A data set that came one
 * step further loses; whether "by topology" depends on how its receiver and sender compare.
 * Equal receiver and sender is "error-1", equal senders and receiver port numbers "error-2":
 * both give BMCA_SAME, as in linuxptp, since nothing better can be done with them.
 */
static enum bmca_cmp compare_topology(const struct bmca_dataset *a, const struct bmca_dataset *b)
{
	unsigned int sa = a->stepsRemoved, sb = b->stepsRemoved;
	int diff;

	if (sa > sb + 1) {
		return BMCA_B_BETTER;
	}
	if (sb > sa + 1) {
		return BMCA_A_BETTER;
	}
	if (sa > sb) {
		diff = port_identity_cmp(&a->receiver, &a->sender);
		return diff < 0 ? BMCA_B_BETTER : diff > 0 ? BMCA_B_BETTER_BY_TOPOLOGY : BMCA_SAME;
	}
	if (sb > sa) {
		diff = port_identity_cmp(&b->receiver, &b->sender);
		return diff < 0 ? BMCA_A_BETTER : diff > 0 ? BMCA_A_BETTER_BY_TOPOLOGY : BMCA_SAME;
	}
	diff = port_identity_cmp(&a->sender, &b->sender);
	if (diff == 0) {
		diff = (int) a->receiver.portNumber - (int) b->receiver.portNumber;
	}
	return diff < 0	  ? BMCA_A_BETTER_BY_TOPOLOGY
	       : diff > 0 ? BMCA_B_BETTER_BY_TOPOLOGY
			  : BMCA_SAME;
}

/* IEEE 1588-2019 9.3.4 figure 34 */
enum bmca_cmp bmca_compare(const struct bmca_dataset *a, const struct bmca_dataset *b)
{
	int r, id;

	if (a == b) {
		return BMCA_SAME;
	}
	if (!b) {
		return BMCA_A_BETTER;
	}
	if (!a) {
		return BMCA_B_BETTER;
	}

	id = clock_identity_cmp(&a->identity, &b->identity);
	if (id == 0) {
		return compare_topology(a, b);
	}
	if ((r = lower_wins(a->priority1, b->priority1)) ||
	    (r = lower_wins(a->quality.clockClass, b->quality.clockClass)) ||
	    (r = lower_wins(a->quality.clockAccuracy, b->quality.clockAccuracy)) ||
	    (r = lower_wins(a->quality.offsetScaledLogVariance,
			    b->quality.offsetScaledLogVariance)) ||
	    (r = lower_wins(a->priority2, b->priority2))) {
		return r;
	}
	return id < 0 ? BMCA_A_BETTER : BMCA_B_BETTER;
}

/* ITU-T G.8275.1 6.3.8 figure 4 */
enum bmca_cmp bmca_compare_g8275(const struct bmca_dataset *a, const struct bmca_dataset *b)
{
	int r, id;

	if (a == b) {
		return BMCA_SAME;
	}
	if (!b) {
		return BMCA_A_BETTER;
	}
	if (!a) {
		return BMCA_B_BETTER;
	}
	/* priority1 is not compared: G.8275.1 fixes it, and a received one is ignored. */
	if ((r = lower_wins(a->quality.clockClass, b->quality.clockClass)) ||
	    (r = lower_wins(a->quality.clockAccuracy, b->quality.clockAccuracy)) ||
	    (r = lower_wins(a->quality.offsetScaledLogVariance,
			    b->quality.offsetScaledLogVariance)) ||
	    (r = lower_wins(a->priority2, b->priority2)) ||
	    (r = lower_wins(a->localPriority, b->localPriority))) {
		return r;
	}
	/* Equal clockClass: either both are 1..127 or neither is. */
	if (a->quality.clockClass <= CLOCK_CLASS_MASTER_ONLY_MAX) {
		return compare_topology(a, b);
	}
	id = clock_identity_cmp(&a->identity, &b->identity);
	if (id == 0) {
		return compare_topology(a, b);
	}
	return id < 0 ? BMCA_A_BETTER : BMCA_B_BETTER;
}

bmca_compare_fn bmca_comparison_function(enum bmca_comparison c)
{
	return c == BMCA_COMPARISON_G8275 ? bmca_compare_g8275 : bmca_compare;
}

const char *bmca_comparison_to_string(enum bmca_comparison c)
{
	switch (c) {
	case BMCA_COMPARISON_IEEE1588:
		return "ieee1588";
	case BMCA_COMPARISON_G8275:
		return "G.8275.x";
	}
	return NULL;
}

int bmca_comparison_from_string(const char *s, enum bmca_comparison *ret)
{
	if (strcasecmp(s, "ieee1588") == 0) {
		*ret = BMCA_COMPARISON_IEEE1588;
	} else if (strcasecmp(s, "G.8275.x") == 0) {
		*ret = BMCA_COMPARISON_G8275;
	} else {
		return -EINVAL;
	}
	return 0;
}

const char *bmca_cmp_to_string(enum bmca_cmp c)
{
	switch (c) {
	case BMCA_B_BETTER:
		return "B_BETTER";
	case BMCA_B_BETTER_BY_TOPOLOGY:
		return "B_BETTER_BY_TOPOLOGY";
	case BMCA_SAME:
		return "SAME";
	case BMCA_A_BETTER_BY_TOPOLOGY:
		return "A_BETTER_BY_TOPOLOGY";
	case BMCA_A_BETTER:
		return "A_BETTER";
	}
	return NULL;
}

enum bmca_decision bmca_state_decision(const struct bmca_dataset *d0,
				       const struct bmca_dataset *ebest,
				       const struct bmca_dataset *erbest, bool erbest_is_ebest,
				       bool slave_only, enum port_state state)
{
	return bmca_state_decision_with(bmca_compare, d0, ebest, erbest, erbest_is_ebest,
					slave_only, state);
}

/* IEEE 1588-2019 9.3.3 figure 33 (G.8275.1 6.3.6 keeps it, with its own comparison) */
enum bmca_decision bmca_state_decision_with(bmca_compare_fn compare, const struct bmca_dataset *d0,
					    const struct bmca_dataset *ebest,
					    const struct bmca_dataset *erbest, bool erbest_is_ebest,
					    bool slave_only, enum port_state state)
{
	/* Ebest can only come from this port if the port has an Erbest at all. */
	erbest_is_ebest = erbest_is_ebest && erbest && ebest;

	if (!erbest && state == PORT_STATE_LISTENING) {
		return BMCA_DECISION_NONE;
	}
	/* 9.2.2.2: a slave-only instance follows Ebest where it was heard, and listens elsewhere.
	 */
	if (slave_only) {
		return erbest_is_ebest ? BMCA_DECISION_S1 : BMCA_DECISION_LISTENING;
	}
	if (d0->quality.clockClass <= CLOCK_CLASS_MASTER_ONLY_MAX) {
		return compare(d0, erbest) > 0 ? BMCA_DECISION_M1 : BMCA_DECISION_P1;
	}
	if (compare(d0, ebest) > 0) {
		return BMCA_DECISION_M2;
	}
	if (erbest_is_ebest) {
		return BMCA_DECISION_S1;
	}
	if (compare(ebest, erbest) == BMCA_A_BETTER_BY_TOPOLOGY) {
		return BMCA_DECISION_P2;
	}
	return BMCA_DECISION_M3;
}

enum fsm_event bmca_decision_to_event(enum bmca_decision d)
{
	switch (d) {
	case BMCA_DECISION_M1:
	case BMCA_DECISION_M2:
		return FSM_EV_RS_GRAND_MASTER;
	case BMCA_DECISION_M3:
		return FSM_EV_RS_MASTER;
	case BMCA_DECISION_P1:
	case BMCA_DECISION_P2:
	case BMCA_DECISION_LISTENING:
		return FSM_EV_RS_PASSIVE;
	case BMCA_DECISION_S1:
		return FSM_EV_RS_SLAVE;
	case BMCA_DECISION_NONE:
		break;
	}
	return FSM_EV_NONE;
}

enum port_state bmca_decision_to_state(enum bmca_decision d, enum port_state state)
{
	switch (d) {
	case BMCA_DECISION_M1:
	case BMCA_DECISION_M2:
	case BMCA_DECISION_M3:
		return PORT_STATE_MASTER;
	case BMCA_DECISION_P1:
	case BMCA_DECISION_P2:
		return PORT_STATE_PASSIVE;
	case BMCA_DECISION_S1:
		return PORT_STATE_SLAVE;
	case BMCA_DECISION_LISTENING:
		return PORT_STATE_LISTENING;
	case BMCA_DECISION_NONE:
		break;
	}
	return state;
}

const char *bmca_decision_to_string(enum bmca_decision d)
{
	static const char names[][10] = {
		[BMCA_DECISION_NONE] = "NONE", [BMCA_DECISION_M1] = "M1",
		[BMCA_DECISION_M2] = "M2",     [BMCA_DECISION_M3] = "M3",
		[BMCA_DECISION_P1] = "P1",     [BMCA_DECISION_P2] = "P2",
		[BMCA_DECISION_S1] = "S1",     [BMCA_DECISION_LISTENING] = "LISTENING",
	};

	if ((unsigned int) d >= ARRAY_SIZE(names) || !names[d][0]) {
		return NULL;
	}
	return names[d];
}

/* IEEE 1588-2019 9.2.6.11 */
ns_t bmca_qualification_timeout(enum bmca_decision d, uint16_t stepsRemoved,
				int8_t logAnnounceInterval)
{
	if (d != BMCA_DECISION_M3) {
		return 0;
	}
	return ((ns_t) stepsRemoved + 1) * ds_log_interval_to_ns(logAnnounceInterval);
}

/* IEEE 1588-2019 8.2.3.4 to 8.2.3.6: parent statistics are not computed here. */
static void parent_stats_none(struct parentDS *pds)
{
	pds->parentStats = false;
	pds->observedParentOffsetScaledLogVariance = 0xFFFF;
	pds->observedParentClockPhaseChangeRate = 0x7FFFFFFF;
}

/* IEEE 1588-2019 9.3.5 Table 30 */
void bmca_update_slave(const struct bmca_dataset *parent, const struct timePropertiesDS *parent_tp,
		       struct currentDS *cds, struct parentDS *pds, struct timePropertiesDS *tp)
{
	/* 9.3.2.5 d) keeps stepsRemoved below 255, so this cannot wrap. */
	cds->stepsRemoved = parent->stepsRemoved + 1;
	pds->parentPortIdentity = parent->sender;
	parent_stats_none(pds);
	pds->grandmasterIdentity = parent->identity;
	pds->grandmasterClockQuality = parent->quality;
	pds->grandmasterPriority1 = parent->priority1;
	pds->grandmasterPriority2 = parent->priority2;
	*tp = *parent_tp;
}

/* IEEE 1588-2019 9.3.5 Table 30: timePropertiesDS from the Announce of Ebest. */
void bmca_time_properties_from_announce(const struct bmca_announce *a, struct timePropertiesDS *tp)
{
	tp->currentUtcOffset = a->currentUtcOffset;
	tp->timeSource = a->timeSource;
	ds_time_properties_set_flags(tp, a->flagField);
}

/* IEEE 1588-2019 9.3.5 Table 27 */
void bmca_update_master(const struct defaultDS *dds, struct currentDS *cds, struct parentDS *pds)
{
	cds->stepsRemoved = 0;
	cds->offsetFromMaster = 0;
	cds->meanDelay = 0;
	pds->parentPortIdentity = (struct PortIdentity){ .clockIdentity = dds->clockIdentity };
	parent_stats_none(pds);
	pds->grandmasterIdentity = dds->clockIdentity;
	pds->grandmasterClockQuality = dds->clockQuality;
	pds->grandmasterPriority1 = dds->priority1;
	pds->grandmasterPriority2 = dds->priority2;
}

void bmca_foreign_init(struct bmca_foreign_table *t, const struct PortIdentity *self,
		       int8_t logAnnounceInterval)
{
	*t = (struct bmca_foreign_table){
		.self = *self,
		.window = FOREIGN_MASTER_TIME_WINDOW * ds_log_interval_to_ns(logAnnounceInterval),
		.rules = {
			.comparison = BMCA_COMPARISON_IEEE1588,
			.localPriority = LOCAL_PRIORITY_DEFAULT,
			.maxStepsRemoved = MAX_STEPS_REMOVED_DEFAULT,
			.clockClassThreshold = CLOCK_CLASS_DEFAULT,
		},
	};
}

static struct bmca_foreign *foreign_find(struct bmca_foreign_table *t,
					 const struct PortIdentity *sender)
{
	for (size_t i = 0; i < t->n; i++) {
		if (port_identity_equal(&t->rec[i].announce.sourcePortIdentity, sender)) {
			return &t->rec[i];
		}
	}
	return NULL;
}

/* Everything a slave copies into its data sets: a change there must rerun the BMCA. */
static bool announce_equal(const struct bmca_announce *a, const struct bmca_announce *b)
{
	return a->flagField == b->flagField && a->currentUtcOffset == b->currentUtcOffset &&
	       a->grandmasterPriority1 == b->grandmasterPriority1 &&
	       a->grandmasterClockQuality.clockClass == b->grandmasterClockQuality.clockClass &&
	       a->grandmasterClockQuality.clockAccuracy ==
		       b->grandmasterClockQuality.clockAccuracy &&
	       a->grandmasterClockQuality.offsetScaledLogVariance ==
		       b->grandmasterClockQuality.offsetScaledLogVariance &&
	       a->grandmasterPriority2 == b->grandmasterPriority2 &&
	       clock_identity_equal(&a->grandmasterIdentity, &b->grandmasterIdentity) &&
	       a->stepsRemoved == b->stepsRemoved && a->timeSource == b->timeSource;
}

/*
 * The record a newcomer may take the place of in a full table: the worst one (9.3.4), if the
 * newcomer is better than it and it is not the kept one; NULL otherwise. The comparison is
 * order-free, so which record goes does not depend on insertion order.
 */
static struct bmca_foreign *foreign_worst(struct bmca_foreign_table *t,
					  const struct bmca_announce *a)
{
	struct bmca_foreign *worst = NULL;
	struct bmca_dataset worst_ds, ds, new_ds;

	for (size_t i = 0; i < t->n; i++) {
		struct bmca_foreign *f = &t->rec[i];

		if (t->has_keep && port_identity_equal(&f->announce.sourcePortIdentity, &t->keep)) {
			continue;
		}
		bmca_dataset_from_announce(&f->announce, &t->self, &ds);
		if (!worst || bmca_compare(&ds, &worst_ds) < 0) {
			worst = f;
			worst_ds = ds;
		}
	}
	bmca_dataset_from_announce(a, &t->self, &new_ds);
	if (!worst || bmca_compare(&new_ds, &worst_ds) <= 0) {
		return NULL;
	}
	return worst;
}

static unsigned int receipts_in_window(const struct bmca_foreign_table *t,
				       const struct bmca_foreign *f, ns_t now)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < f->n_rx; i++) {
		if (now - f->rx[i] <= t->window) {
			n++;
		}
	}
	return n;
}

bool bmca_foreign_qualified(const struct bmca_foreign_table *t, const struct bmca_foreign *f,
			    ns_t now)
{
	return receipts_in_window(t, f, now) >= FOREIGN_MASTER_THRESHOLD;
}

/* IEEE 1588-2019 9.3.2.5 */
int bmca_foreign_add(struct bmca_foreign_table *t, const struct bmca_announce *a, ns_t now)
{
	struct bmca_foreign *f;
	bool was_qualified, changed;

	/*
	 * a), b): Announces from this PTP Instance, any of its ports; d): too many steps (255, or
	 * G.8275.1's maxStepsRemoved); and, as ptp4l's clock_class_threshold, a grandmaster of a
	 * class above the threshold (255, slave-only, by default).
	 */
	if (clock_identity_equal(&a->sourcePortIdentity.clockIdentity, &t->self.clockIdentity) ||
	    a->stepsRemoved >= 255 || a->stepsRemoved >= t->rules.maxStepsRemoved ||
	    a->grandmasterClockQuality.clockClass > t->rules.clockClassThreshold) {
		return -EINVAL;
	}

	f = foreign_find(t, &a->sourcePortIdentity);
	if (!f) {
		bool evicted_qualified = false;

		if (t->n == BMCA_FOREIGN_MAX) {
			bmca_foreign_prune(t, now);
		}
		if (t->n == BMCA_FOREIGN_MAX) {
			f = foreign_worst(t, a);
			if (!f) {
				return -ENOSPC;
			}
			evicted_qualified = bmca_foreign_qualified(t, f, now);
		} else {
			f = &t->rec[t->n++];
		}
		*f = (struct bmca_foreign){ .announce = *a, .rx = { now }, .n_rx = 1 };
		return evicted_qualified || bmca_foreign_qualified(t, f, now);
	}

	was_qualified = bmca_foreign_qualified(t, f, now);
	changed = !announce_equal(&f->announce, a);
	memmove(&f->rx[1], &f->rx[0], (FOREIGN_MASTER_THRESHOLD - 1) * sizeof(f->rx[0]));
	f->rx[0] = now;
	if (f->n_rx < FOREIGN_MASTER_THRESHOLD) {
		f->n_rx++;
	}
	f->announce = *a;
	if (!bmca_foreign_qualified(t, f, now)) {
		return 0;
	}
	return !was_qualified || changed;
}

size_t bmca_foreign_prune(struct bmca_foreign_table *t, ns_t now)
{
	size_t removed = 0;

	for (size_t i = 0; i < t->n;) {
		struct bmca_foreign *f = &t->rec[i];

		/* rx is newest first, so the receipts in the window are a prefix. */
		f->n_rx = receipts_in_window(t, f, now);
		if (f->n_rx > 0) {
			i++;
			continue;
		}
		/* The order of records does not matter: bmca_foreign_best() is order-free. */
		t->rec[i] = t->rec[--t->n];
		removed++;
	}
	return removed;
}

ns_t bmca_foreign_next_unqualified(const struct bmca_foreign_table *t, ns_t now)
{
	ns_t next = INT64_MAX;

	for (size_t i = 0; i < t->n; i++) {
		const struct bmca_foreign *f = &t->rec[i];
		/* receipts_in_window() counts rx while now - rx <= window */
		ns_t end = f->rx[FOREIGN_MASTER_THRESHOLD - 1] + t->window + 1;

		if (bmca_foreign_qualified(t, f, now) && end < next) {
			next = end;
		}
	}
	return next;
}

/* IEEE 1588-2019 9.3.2.3: Erbest, the best of the qualified records. */
const struct bmca_foreign *bmca_foreign_best(const struct bmca_foreign_table *t, ns_t now,
					     struct bmca_dataset *erbest)
{
	bmca_compare_fn compare = bmca_comparison_function(t->rules.comparison);
	const struct bmca_foreign *best = NULL;
	struct bmca_dataset best_ds, ds;

	for (size_t i = 0; i < t->n; i++) {
		const struct bmca_foreign *f = &t->rec[i];

		if (!bmca_foreign_qualified(t, f, now)) {
			continue;
		}
		bmca_dataset_from_announce(&f->announce, &t->self, &ds);
		ds.localPriority = t->rules.localPriority;
		if (!best || compare(&ds, &best_ds) > 0) {
			best = f;
			best_ds = ds;
		}
	}
	if (best) {
		*erbest = best_ds;
	}
	return best;
}

void bmca_foreign_clear(struct bmca_foreign_table *t)
{
	t->n = 0;
}

void bmca_foreign_keep(struct bmca_foreign_table *t, const struct PortIdentity *sender)
{
	t->has_keep = sender != NULL;
	if (sender) {
		t->keep = *sender;
	}
}

/* IEEE 1588-2019 9.2.6.12: announceReceiptTimeout announce intervals. */
void bmca_announce_timer_restart(struct bmca_announce_timer *t, ns_t now,
				 int8_t logAnnounceInterval, uint8_t announceReceiptTimeout)
{
	t->deadline = now + announceReceiptTimeout * ds_log_interval_to_ns(logAnnounceInterval);
	t->running = true;
}

void bmca_announce_timer_stop(struct bmca_announce_timer *t)
{
	t->running = false;
}

bool bmca_announce_timer_expired(const struct bmca_announce_timer *t, ns_t now)
{
	return t->running && now >= t->deadline;
}
