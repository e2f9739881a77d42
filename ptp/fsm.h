/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The port state machine of IEEE 1588-2019 9.2.5 as pure transition functions. */
#pragma once

#include <stdbool.h>

#include "ptp/ds.h"

/* IEEE 1588-2019 9.2.6: the events of figure 30. */
enum fsm_event {
	FSM_EV_NONE = 0,
	FSM_EV_POWERUP,
	FSM_EV_INITIALIZE,
	FSM_EV_FAULT_DETECTED,
	FSM_EV_FAULT_CLEARED,
	FSM_EV_DESIGNATED_ENABLED,
	FSM_EV_DESIGNATED_DISABLED,
	FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES,
	FSM_EV_QUALIFICATION_TIMEOUT_EXPIRES,
	FSM_EV_MASTER_CLOCK_SELECTED,
	FSM_EV_SYNCHRONIZATION_FAULT,
	FSM_EV_RS_MASTER,
	FSM_EV_RS_GRAND_MASTER,
	FSM_EV_RS_SLAVE,
	FSM_EV_RS_PASSIVE,
	/*
	 * No Sync from the parent for syncReceiptTimeout Sync intervals (IEEE 1588-2019 8.2.15.4.7
	 * portDS.syncReceiptTimeout; linuxptp's syncReceiptTimeout): a slave-side port goes back to
	 * LISTENING, as on an announce receipt timeout of a slave-only port (9.2.6.12).
	 */
	FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES,
};
#define FSM_EV_MAX FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES

/*
 * next = fsm_next(state, event, master_changed): no side effects; the caller performs the
 * actions of the new state. master_changed is true when an RS_SLAVE decision selects a different
 * parent than the current one (SLAVE then goes back to UNCALIBRATED). INITIALIZING leaves for
 * LISTENING on any event but FAULT_DETECTED / DESIGNATED_DISABLED (the caller calls it with
 * FSM_EV_NONE once initialization is done). There is no GRAND_MASTER state: RS_GRAND_MASTER
 * (M1/M2) goes straight to MASTER since their qualification timeout is zero (9.2.6.11).
 */
typedef enum port_state (*fsm_fn)(enum port_state state, enum fsm_event event, bool master_changed);

/* Ordinary and boundary clocks (figure 30). */
enum port_state fsm_next(enum port_state state, enum fsm_event event, bool master_changed);
/* Slave-only ordinary clock (9.2.2.2, figure 31): never MASTER, PRE_MASTER or PASSIVE. */
enum port_state fsm_next_slave_only(enum port_state state, enum fsm_event event,
				    bool master_changed);

/*
 * Not grandmaster-capable (802.1AS gmCapable 0): as fsm_next, but a port that would become
 * grandmaster (RS_GRAND_MASTER, or no master heard) stays or goes LISTENING.
 */
enum port_state fsm_next_not_gm_capable(enum port_state state, enum fsm_event event,
					bool master_changed);
/*
 * Static roles without a BMCA (ptp4l's BMCA noop): a designated master goes from INITIALIZING
 * to MASTER and stays; a designated slave goes to UNCALIBRATED, SLAVE once the servo locks, and
 * back to UNCALIBRATED on a synchronization fault or a Sync receipt timeout. Neither takes a
 * recommended state.
 */
enum port_state fsm_next_designated_master(enum port_state state, enum fsm_event event,
					   bool master_changed);
enum port_state fsm_next_designated_slave(enum port_state state, enum fsm_event event,
					  bool master_changed);

const char *fsm_event_to_string(enum fsm_event e);
