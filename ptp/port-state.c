// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The port's states and the BMCA's outcome: entering and leaving a state (9.2.5), the state
 * decision (9.3.3) alone or the supervisor's, and the clock's own data sets (defaultDS,
 * priorities, grandmaster settings) they are decided with.
 */
#include <errno.h>
#include <string.h>

#include "ptp/port-internal.h"

/* The time properties of this clock as a grandmaster (linuxptp: clock_update_grandmaster). */
void port_own_time_properties(const struct port *p, struct timePropertiesDS *tp)
{
	struct gm_settings gm;

	/* What the configuration or the last SetGrandmasterSettings says of this clock. */
	options_gm_settings(&p->cfg.instance, &gm);
	*tp = gm.tp;
	/* Software stamps count UTC, so the timescale is ARB, as linuxptp announces it. */
	tp->ptpTimescale = !p->cfg.utc_timescale;
}

/* Stop the timers of the state left; the entry actions below arm those of the new one. */
static void port_leave_state(struct port *p, enum port_state from, enum port_state to)
{
	if (from == PORT_STATE_MASTER && to != PORT_STATE_MASTER) {
		port_timer_stop(p, PORT_TIMER_ANNOUNCE_TX);
		port_timer_stop(p, PORT_TIMER_SYNC_TX);
	}
	if (from == PORT_STATE_PRE_MASTER) {
		port_timer_stop(p, PORT_TIMER_QUALIFICATION);
	}
	if ((from == PORT_STATE_SLAVE || from == PORT_STATE_UNCALIBRATED) &&
	    to != PORT_STATE_SLAVE && to != PORT_STATE_UNCALIBRATED) {
		port_timer_stop(p, PORT_TIMER_DELAY_REQ_TX);
		port_timer_stop(p, PORT_TIMER_SYNC_RX);
		port_sync_reset(p);
		port_oper_intervals_reset(p);
	}
}

static void port_enter_state(struct port *p, enum port_state from, enum port_state to, ns_t now)
{
	const struct port_options *o = &p->cfg.port;
	int i;

	switch (to) {
	case PORT_STATE_INITIALIZING:
	case PORT_STATE_FAULTY:
	case PORT_STATE_DISABLED:
		for (i = 0; i < _PORT_TIMER_MAX; i++) {
			port_timer_stop(p, i);
		}
		bmca_announce_timer_stop(&p->announce_timer);
		bmca_foreign_clear(&p->foreign);
		port_sync_reset(p);
		memset(&p->heard, 0, sizeof(p->heard));
		p->asc.lost = 0;
		p->asc.multiple = 0;
		p->asc.nrr_valid = false;
		p->delay.valid = false;
		port_as_capable_update(p);
		if (to == PORT_STATE_FAULTY) {
			port_timer_set(p, PORT_TIMER_FAULT_RESET,
				       now + port_log_interval(o->fault_reset_interval));
		}
		return;
	case PORT_STATE_LISTENING:
	case PORT_STATE_PASSIVE:
		if (o->BMCA != OPTIONS_BMCA_NOOP) {
			bmca_announce_timer_restart(&p->announce_timer, now, o->logAnnounceInterval,
						    o->announceReceiptTimeout);
		}
		break;
	case PORT_STATE_UNCALIBRATED:
		/* A designated slave (BMCA noop) hears no Announce and times none out. */
		if (o->BMCA != OPTIONS_BMCA_NOOP) {
			bmca_announce_timer_restart(&p->announce_timer, now, o->logAnnounceInterval,
						    o->announceReceiptTimeout);
		}
		if (from != PORT_STATE_SLAVE && o->delay_mechanism == DELAY_MECHANISM_E2E &&
		    !o->inhibit_delay_req) {
			port_timer_set(
				p, PORT_TIMER_DELAY_REQ_TX,
				now + port_random_interval(p, p->portds.logMinDelayReqInterval));
		}
		break;
	case PORT_STATE_SLAVE:
		break;
	case PORT_STATE_PRE_MASTER:
		bmca_announce_timer_stop(&p->announce_timer);
		port_timer_set(p, PORT_TIMER_QUALIFICATION,
			       now + bmca_qualification_timeout(p->last_decision,
								p->cds.stepsRemoved,
								o->logAnnounceInterval));
		break;
	case PORT_STATE_MASTER:
		bmca_announce_timer_stop(&p->announce_timer);
		/* Announce at once: the sooner the segment hears us, the sooner it settles. */
		port_timer_set(p, PORT_TIMER_ANNOUNCE_TX, now);
		port_timer_set(p, PORT_TIMER_SYNC_TX, now);
		break;
	}
	/*
	 * Every active state runs the BMCA (but with BMCA noop) and, with P2P, measures the link
	 * (11.4.1) unless inhibit_delay_req.
	 */
	if (!p->timer[PORT_TIMER_BMCA] && o->BMCA != OPTIONS_BMCA_NOOP) {
		port_timer_set(p, PORT_TIMER_BMCA, now + port_log_interval(o->logAnnounceInterval));
	}
	if (o->delay_mechanism == DELAY_MECHANISM_P2P && !p->timer[PORT_TIMER_PDELAY_REQ_TX] &&
	    !o->inhibit_delay_req) {
		port_timer_set(p, PORT_TIMER_PDELAY_REQ_TX, now);
	}
}

/*
 * The master is gone: a locked servo keeps the clock on its frequency estimate (holdover), so
 * that the clock drifts as little as it can until a master is back.
 */
static void port_holdover(struct port *p, ns_t now)
{
	double freq;
	ns_t local = now;
	int r;

	if (!p->servo) {
		return;
	}
	(void) clock_get_time(p->clock, &local);
	if (!servo_enter_holdover(p->servo, local, &freq)) {
		return;
	}
	p->servo_state = SERVO_HOLDOVER;
	r = clock_adj_freq(p->clock, freq);
	if (r < 0 && p->ops->clock_error) {
		p->ops->clock_error(p->userdata, "adjfreq", r);
	}
}

int port_dispatch(struct port *p, enum fsm_event ev, bool master_changed, ns_t now)
{
	enum port_state from = p->portds.portState, to;

	if (ev == FSM_EV_NONE && from != PORT_STATE_INITIALIZING) {
		return 0;
	}
	to = p->fsm(from, ev, master_changed);
	if ((from == PORT_STATE_SLAVE || from == PORT_STATE_UNCALIBRATED) &&
	    to != PORT_STATE_SLAVE && to != PORT_STATE_UNCALIBRATED) {
		port_holdover(p, now);
	}
	if (master_changed) {
		/* A new parent: nothing measured against the old one may be mixed in, and its
		 * sequenceIds are its own (7.3.7). */
		port_sync_reset(p);
		p->sync.have_last = false;
		if (p->servo) {
			servo_reset(p->servo);
		}
		p->sample_seen = false;
	}
	if (to == from) {
		return 0;
	}
	p->portds.portState = to;
	port_leave_state(p, from, to);
	port_enter_state(p, from, to, now);
	if (p->ops->state_changed) {
		p->ops->state_changed(p->userdata, from, to, ev);
	}
	/* INITIALIZING is left as soon as it is done (9.2.5): nothing here to wait for. */
	if (to == PORT_STATE_INITIALIZING) {
		return port_dispatch(p, FSM_EV_NONE, false, now);
	}
	return 0;
}

/*
 * Carry out one 9.3.3 decision: take the clock's data sets after it (9.3.5, as
 * bmca_clock_decide() gives them) and raise its FSM event. As grandmaster (M1, M2) the port
 * announces its own time properties: it knows its timescale (utc_timescale).
 */
static int port_decide(struct port *p, enum bmca_decision d, uint16_t stepsRemoved,
		       const struct parentDS *pds, const struct timePropertiesDS *tp,
		       const struct port_path_trace *path, ns_t now)
{
	bool grandmaster = d == BMCA_DECISION_M1 || d == BMCA_DECISION_M2;
	bool gm_changed = !clock_identity_equal(&p->pds.grandmasterIdentity,
						&pds->grandmasterIdentity) ||
			  !p->parent_valid;
	bool parent_changed = !port_identity_equal(&p->pds.parentPortIdentity,
						   &pds->parentPortIdentity);
	bool was_valid = p->parent_valid;
	int r;

	p->last_decision = d;
	p->cds.stepsRemoved = stepsRemoved;
	p->pds = *pds;
	p->tpds = *tp;
	/* 16.2.3: the path trace the clock's Announces extend: its parent's, none as GM. */
	if (grandmaster || !path) {
		memset(&p->parent_path, 0, sizeof(p->parent_path));
	} else {
		p->parent_path = *path;
	}
	/* A full foreign master table never gives up the parent's record for a newcomer. */
	bmca_foreign_keep(&p->foreign, d == BMCA_DECISION_S1 ? &p->pds.parentPortIdentity : NULL);
	if (grandmaster) {
		/* 9.3.5 Table 27: nothing measured against a parent any more. */
		p->cds.offsetFromMaster = 0;
		p->cds.meanDelay = 0;
		port_own_time_properties(p, &p->tpds);
	}
	p->parent_valid = true;
	if (gm_changed && p->ops->master_changed) {
		p->ops->master_changed(
			p->userdata, &p->pds.grandmasterIdentity,
			clock_identity_equal(&p->pds.grandmasterIdentity, &p->dds.clockIdentity));
	}
	r = port_dispatch(p, bmca_decision_to_event(d), d == BMCA_DECISION_S1 && parent_changed,
			  now);
	if (r >= 0 && d == BMCA_DECISION_S1) {
		r = port_sync_heard_replay(p, now);
	}
	/* A MASTER that held its Announces for want of a parent data set sends one at once. */
	if (!was_valid && p->portds.portState == PORT_STATE_MASTER) {
		port_timer_set(p, PORT_TIMER_ANNOUNCE_TX, now);
	}
	return r;
}

int port_state_decision(struct port *p, ns_t now)
{
	struct bmca_clock_port cp = {
		.state = p->portds.portState,
		.rules.masterOnly = p->cfg.port.masterOnly,
	};
	struct bmca_clock_decision dec;
	struct bmca_clock_result res;
	struct timePropertiesDS own_tp;
	const struct bmca_foreign *best;
	struct port_path_trace path = { 0 };

	if (!port_is_active(p) || p->cfg.external_bmca || p->cfg.port.BMCA == OPTIONS_BMCA_NOOP) {
		return 0;
	}
	bmca_foreign_prune(&p->foreign, now);
	best = bmca_foreign_best(&p->foreign, now, &cp.erbest);
	if (best) {
		cp.has_erbest = true;
		bmca_time_properties_from_announce(&best->announce, &cp.erbest_tp);
		port_path_trace_of(p, &best->announce.sourcePortIdentity, &path);
	}
	port_own_time_properties(p, &own_tp);
	/* A lone port is an ordinary clock: the clock-level decision over this one port. */
	bmca_clock_decide(&p->dds, &own_tp, &cp, 1, &dec, &res);
	if (dec.decision == BMCA_DECISION_NONE) {
		return 0;
	}
	return port_decide(p, dec.decision, res.cds.stepsRemoved, &res.pds, &res.tp, &path, now);
}

int port_get_erbest(struct port *p, ns_t now, struct bmca_dataset *ret,
		    struct timePropertiesDS *ret_tp, struct port_path_trace *ret_path)
{
	const struct bmca_foreign *best;

	bmca_foreign_prune(&p->foreign, now);
	best = bmca_foreign_best(&p->foreign, now, ret);
	if (!best) {
		return -ENOENT;
	}
	bmca_time_properties_from_announce(&best->announce, ret_tp);
	if (ret_path) {
		port_path_trace_of(p, &best->announce.sourcePortIdentity, ret_path);
	}
	return 0;
}

ns_t port_erbest_next_expiry(const struct port *p, ns_t now)
{
	return bmca_foreign_next_unqualified(&p->foreign, now);
}

int port_apply_decision(struct port *p, enum bmca_decision d, uint16_t stepsRemoved,
			const struct parentDS *pds, const struct timePropertiesDS *tp,
			const struct port_path_trace *path, ns_t now)
{
	struct bmca_dataset erbest;

	/* A static role (BMCA noop) is the port's own: the supervisor's decision does not apply. */
	if (!port_is_active(p) || d == BMCA_DECISION_NONE ||
	    p->cfg.port.BMCA == OPTIONS_BMCA_NOOP) {
		return 0;
	}
	/* S1 follows this port's Erbest: gone meanwhile (a receipt timeout), it cannot. */
	if (d == BMCA_DECISION_S1 && !bmca_foreign_best(&p->foreign, now, &erbest)) {
		return -ENOENT;
	}
	return port_decide(p, d, stepsRemoved, pds, tp, path, now);
}

bool port_has_parent_data_sets(const struct port *p)
{
	return p->parent_valid;
}

/* defaultDS from the port's copy of the instance options, after each change to them. */
void port_default_ds_update(struct port *p)
{
	options_default_ds(&p->cfg.instance, &p->cfg.clockIdentity, 1,
			   p->cfg.port.transportSpecific, &p->dds);
}

int port_set_priorities(struct port *p, uint8_t priority1, uint8_t priority2, ns_t now)
{
	bool grandmaster = clock_identity_equal(&p->pds.grandmasterIdentity, &p->dds.clockIdentity);

	p->cfg.instance.priority1 = priority1;
	p->cfg.instance.priority2 = priority2;
	/* With its rules (gmCapable 0 keeps priority1 255): not the value as given. */
	port_default_ds_update(p);
	if (grandmaster) {
		p->pds.grandmasterPriority1 = p->dds.priority1;
		p->pds.grandmasterPriority2 = p->dds.priority2;
	}
	if (p->portds.portState == PORT_STATE_MASTER) {
		port_timer_set(p, PORT_TIMER_ANNOUNCE_TX, now);
	}
	return port_state_decision(p, now);
}

void port_gm_settings(const struct port *p, struct gm_settings *ret)
{
	options_gm_settings(&p->cfg.instance, ret);
	ret->clockQuality = p->dds.clockQuality;
	port_own_time_properties(p, &ret->tp);
}

int port_set_gm_settings(struct port *p, const struct gm_settings *s, ns_t now)
{
	bool grandmaster = clock_identity_equal(&p->pds.grandmasterIdentity, &p->dds.clockIdentity);

	options_set_gm_settings(&p->cfg.instance, s);
	port_default_ds_update(p);
	if (grandmaster) {
		p->pds.grandmasterClockQuality = p->dds.clockQuality;
		port_own_time_properties(p, &p->tpds);
	}
	if (p->portds.portState == PORT_STATE_MASTER) {
		port_timer_set(p, PORT_TIMER_ANNOUNCE_TX, now);
	}
	return port_state_decision(p, now);
}
