// SPDX-License-Identifier: GPL-2.0-or-later
/* The port state machine of IEEE 1588-2019 9.2.5 (figure 30) and its slave-only variant. */
#include "ptp/fsm.h"
#include "ptp/util.h"

/*
 * The transitions every state shares (figure 30's "any state" arrows): POWERUP/INITIALIZE restart,
 * DESIGNATED_DISABLED disables, FAULT_DETECTED faults unless already faulty or disabled. Returns
 * true with *next set when the event is one of these.
 */
static bool common_transition(enum port_state state, enum fsm_event event, enum port_state *next)
{
	switch (event) {
	case FSM_EV_POWERUP:
	case FSM_EV_INITIALIZE:
		*next = PORT_STATE_INITIALIZING;
		return true;
	case FSM_EV_DESIGNATED_DISABLED:
		*next = PORT_STATE_DISABLED;
		return true;
	case FSM_EV_FAULT_DETECTED:
		*next = state == PORT_STATE_DISABLED ? state : PORT_STATE_FAULTY;
		return true;
	default:
		break;
	}

	switch (state) {
	case PORT_STATE_INITIALIZING:
		/* 9.2.5: initialization done; the caller raises FSM_EV_NONE for it. */
		*next = PORT_STATE_LISTENING;
		return true;
	case PORT_STATE_FAULTY:
		*next = event == FSM_EV_FAULT_CLEARED ? PORT_STATE_INITIALIZING : state;
		return true;
	case PORT_STATE_DISABLED:
		*next = event == FSM_EV_DESIGNATED_ENABLED ? PORT_STATE_INITIALIZING : state;
		return true;
	default:
		return false;
	}
}

/* The states a port in which the BMCA runs reaches from a slave-side state (9.2.5, 9.2.6.11). */
static enum port_state slave_side(enum port_state state, enum fsm_event event, bool master_changed)
{
	switch (event) {
	case FSM_EV_MASTER_CLOCK_SELECTED:
		return state == PORT_STATE_UNCALIBRATED ? PORT_STATE_SLAVE : state;
	case FSM_EV_SYNCHRONIZATION_FAULT:
		return state == PORT_STATE_SLAVE ? PORT_STATE_UNCALIBRATED : state;
	case FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES:
		/* The parent's Sync stopped: listen again rather than master (linuxptp does too).
		 */
		return state == PORT_STATE_SLAVE || state == PORT_STATE_UNCALIBRATED
			       ? PORT_STATE_LISTENING
			       : state;
	case FSM_EV_RS_SLAVE:
		/* A new parent makes SLAVE recalibrate; the same parent keeps it. */
		if (state == PORT_STATE_SLAVE && !master_changed) {
			return state;
		}
		return PORT_STATE_UNCALIBRATED;
	default:
		return state;
	}
}

enum port_state fsm_next(enum port_state state, enum fsm_event event, bool master_changed)
{
	enum port_state next;

	if (common_transition(state, event, &next)) {
		return next;
	}

	switch (event) {
	case FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES:
		/* 9.2.6.12: no master heard; MASTER and PRE_MASTER do not run the timer. */
		if (state == PORT_STATE_MASTER || state == PORT_STATE_PRE_MASTER) {
			return state;
		}
		return PORT_STATE_MASTER;
	case FSM_EV_QUALIFICATION_TIMEOUT_EXPIRES:
		return state == PORT_STATE_PRE_MASTER ? PORT_STATE_MASTER : state;
	case FSM_EV_RS_MASTER:
		/* M3: through PRE_MASTER (9.2.6.11); a master or pre-master stays. */
		if (state == PORT_STATE_MASTER || state == PORT_STATE_PRE_MASTER) {
			return state;
		}
		return PORT_STATE_PRE_MASTER;
	case FSM_EV_RS_GRAND_MASTER:
		/* M1, M2: qualification timeout 0 (9.2.6.11), so straight to MASTER. */
		return PORT_STATE_MASTER;
	case FSM_EV_RS_PASSIVE:
		return PORT_STATE_PASSIVE;
	default:
		return slave_side(state, event, master_changed);
	}
}

enum port_state fsm_next_slave_only(enum port_state state, enum fsm_event event,
				    bool master_changed)
{
	enum port_state next;

	if (common_transition(state, event, &next)) {
		return next;
	}

	/* 9.2.2.2: a slave-only port never masters; the master-side states cannot be entered, and a
	 * port found in one anyway goes back to LISTENING. */
	if (state == PORT_STATE_MASTER || state == PORT_STATE_PRE_MASTER ||
	    state == PORT_STATE_PASSIVE) {
		return PORT_STATE_LISTENING;
	}

	switch (event) {
	case FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES:
	case FSM_EV_RS_MASTER:
	case FSM_EV_RS_GRAND_MASTER:
	case FSM_EV_RS_PASSIVE:
		return PORT_STATE_LISTENING;
	default:
		return slave_side(state, event, master_changed);
	}
}

enum port_state fsm_next_not_gm_capable(enum port_state state, enum fsm_event event,
					bool master_changed)
{
	enum port_state next = fsm_next(state, event, master_changed);

	if (event == FSM_EV_RS_GRAND_MASTER || event == FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES) {
		return next == PORT_STATE_MASTER ? PORT_STATE_LISTENING : next;
	}
	return next;
}

enum port_state fsm_next_designated_master(enum port_state state, enum fsm_event event,
					   bool master_changed)
{
	enum port_state next;

	if (common_transition(state, event, &next)) {
		/* Initialization done: the static role at once. */
		return next == PORT_STATE_LISTENING && state == PORT_STATE_INITIALIZING
			       ? PORT_STATE_MASTER
			       : next;
	}
	return PORT_STATE_MASTER;
}

enum port_state fsm_next_designated_slave(enum port_state state, enum fsm_event event,
					  bool master_changed)
{
	enum port_state next;

	if (common_transition(state, event, &next)) {
		return next == PORT_STATE_LISTENING && state == PORT_STATE_INITIALIZING
			       ? PORT_STATE_UNCALIBRATED
			       : next;
	}
	switch (event) {
	case FSM_EV_MASTER_CLOCK_SELECTED:
		return state == PORT_STATE_UNCALIBRATED ? PORT_STATE_SLAVE : state;
	case FSM_EV_SYNCHRONIZATION_FAULT:
	case FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES:
		return PORT_STATE_UNCALIBRATED;
	default:
		/* No BMCA: recommended states and announce timeouts do not apply. */
		return state == PORT_STATE_SLAVE ? state : PORT_STATE_UNCALIBRATED;
	}
}

/* Names within, not pointers: a table of pointers is relocated data, copied by each worker. */
static const char fsm_event_names[][40] = {
	[FSM_EV_NONE] = "NONE",
	[FSM_EV_POWERUP] = "POWERUP",
	[FSM_EV_INITIALIZE] = "INITIALIZE",
	[FSM_EV_FAULT_DETECTED] = "FAULT_DETECTED",
	[FSM_EV_FAULT_CLEARED] = "FAULT_CLEARED",
	[FSM_EV_DESIGNATED_ENABLED] = "DESIGNATED_ENABLED",
	[FSM_EV_DESIGNATED_DISABLED] = "DESIGNATED_DISABLED",
	[FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES] = "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES",
	[FSM_EV_QUALIFICATION_TIMEOUT_EXPIRES] = "QUALIFICATION_TIMEOUT_EXPIRES",
	[FSM_EV_MASTER_CLOCK_SELECTED] = "MASTER_CLOCK_SELECTED",
	[FSM_EV_SYNCHRONIZATION_FAULT] = "SYNCHRONIZATION_FAULT",
	[FSM_EV_RS_MASTER] = "RS_MASTER",
	[FSM_EV_RS_GRAND_MASTER] = "RS_GRAND_MASTER",
	[FSM_EV_RS_SLAVE] = "RS_SLAVE",
	[FSM_EV_RS_PASSIVE] = "RS_PASSIVE",
	[FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES] = "SYNC_RECEIPT_TIMEOUT_EXPIRES",
};

const char *fsm_event_to_string(enum fsm_event e)
{
	if ((unsigned) e >= ARRAY_SIZE(fsm_event_names)) {
		return NULL;
	}
	return fsm_event_names[e][0] ? fsm_event_names[e] : NULL;
}
