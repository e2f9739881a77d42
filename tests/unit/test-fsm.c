// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/fsm.c: every (state, event) pair of both port state machines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "ptp/fsm.h"
#include "ptp/util.h"

#define INIT PORT_STATE_INITIALIZING
#define FLT PORT_STATE_FAULTY
#define DIS PORT_STATE_DISABLED
#define LST PORT_STATE_LISTENING
#define PRE PORT_STATE_PRE_MASTER
#define MST PORT_STATE_MASTER
#define PAS PORT_STATE_PASSIVE
#define UNC PORT_STATE_UNCALIBRATED
#define SLV PORT_STATE_SLAVE

/*
 * Expected next state, indexed [state - 1][event], written out from IEEE 1588-2019 figure 30
 * (ordinary/boundary) and 9.2.2.2 (slave-only) rather than derived from the code under test.
 * Columns: NONE POWERUP INITIALIZE FAULT_DETECTED FAULT_CLEARED DESIGNATED_ENABLED
 * DESIGNATED_DISABLED ANNOUNCE_RECEIPT_TIMEOUT QUALIFICATION_TIMEOUT MASTER_CLOCK_SELECTED
 * SYNCHRONIZATION_FAULT RS_MASTER RS_GRAND_MASTER RS_SLAVE RS_PASSIVE SYNC_RECEIPT_TIMEOUT.
 * RS_SLAVE is for the same
 * parent (master_changed false); the changed-parent case is tested apart.
 */
static const enum port_state ordinary[PORT_STATE_MAX][FSM_EV_MAX + 1] = {
	/* INITIALIZING */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, LST, LST, LST },
	/* FAULTY */
	{ FLT, INIT, INIT, FLT, INIT, FLT, DIS, FLT, FLT, FLT, FLT, FLT, FLT, FLT, FLT, FLT },
	/* DISABLED */
	{ DIS, INIT, INIT, DIS, DIS, INIT, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS },
	/* LISTENING */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, MST, LST, LST, LST, PRE, MST, UNC, PAS, LST },
	/* PRE_MASTER */
	{ PRE, INIT, INIT, FLT, PRE, PRE, DIS, PRE, MST, PRE, PRE, PRE, MST, UNC, PAS, PRE },
	/* MASTER */
	{ MST, INIT, INIT, FLT, MST, MST, DIS, MST, MST, MST, MST, MST, MST, UNC, PAS, MST },
	/* PASSIVE */
	{ PAS, INIT, INIT, FLT, PAS, PAS, DIS, MST, PAS, PAS, PAS, PRE, MST, UNC, PAS, PAS },
	/* UNCALIBRATED */
	{ UNC, INIT, INIT, FLT, UNC, UNC, DIS, MST, UNC, SLV, UNC, PRE, MST, UNC, PAS, LST },
	/* SLAVE */
	{ SLV, INIT, INIT, FLT, SLV, SLV, DIS, MST, SLV, SLV, UNC, PRE, MST, SLV, PAS, LST },
};

static const enum port_state slave_only[PORT_STATE_MAX][FSM_EV_MAX + 1] = {
	/* INITIALIZING */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, LST, LST, LST },
	/* FAULTY */
	{ FLT, INIT, INIT, FLT, INIT, FLT, DIS, FLT, FLT, FLT, FLT, FLT, FLT, FLT, FLT, FLT },
	/* DISABLED */
	{ DIS, INIT, INIT, DIS, DIS, INIT, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS, DIS },
	/* LISTENING */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, UNC, LST, LST },
	/* PRE_MASTER: unreachable, falls back to LISTENING */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, LST, LST, LST },
	/* MASTER: unreachable */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, LST, LST, LST },
	/* PASSIVE: unreachable */
	{ LST, INIT, INIT, FLT, LST, LST, DIS, LST, LST, LST, LST, LST, LST, LST, LST, LST },
	/* UNCALIBRATED */
	{ UNC, INIT, INIT, FLT, UNC, UNC, DIS, LST, UNC, SLV, UNC, LST, LST, UNC, LST, LST },
	/* SLAVE */
	{ SLV, INIT, INIT, FLT, SLV, SLV, DIS, LST, SLV, SLV, UNC, LST, LST, SLV, LST, LST },
};

static void check_table(fsm_fn fn, const enum port_state table[][FSM_EV_MAX + 1], const char *name)
{
	unsigned int checked = 0, failed = 0;

	for (int s = PORT_STATE_MIN; s <= PORT_STATE_MAX; s++) {
		for (int e = 0; e <= FSM_EV_MAX; e++) {
			enum port_state want = table[s - 1][e];
			enum port_state got = fn(s, e, false);

			checked++;
			if (got != want) {
				failed++;
				print_error("%s: %s + %s: expected %s, got %s\n", name,
					    port_state_to_string(s), fsm_event_to_string(e),
					    port_state_to_string(want), port_state_to_string(got));
			}
		}
	}
	assert_int_equal(checked, 9 * 16);
	assert_int_equal(failed, 0);
}

static void test_ordinary_every_transition(void **state)
{
	check_table(fsm_next, ordinary, "ordinary");
}

static void test_slave_only_every_transition(void **state)
{
	check_table(fsm_next_slave_only, slave_only, "slave-only");
}

/* A new parent in SLAVE recalibrates (9.2.5 figure 30, linuxptp's mdiff); elsewhere it changes
 * nothing. */
static void test_master_changed(void **state)
{
	fsm_fn fns[] = { fsm_next, fsm_next_slave_only };

	for (size_t f = 0; f < ARRAY_SIZE(fns); f++) {
		assert_int_equal(fns[f](SLV, FSM_EV_RS_SLAVE, true), UNC);
		assert_int_equal(fns[f](SLV, FSM_EV_RS_SLAVE, false), SLV);
		assert_int_equal(fns[f](UNC, FSM_EV_RS_SLAVE, true), UNC);
		assert_int_equal(fns[f](LST, FSM_EV_RS_SLAVE, true), UNC);
		for (int e = 0; e <= FSM_EV_MAX; e++) {
			if (e == FSM_EV_RS_SLAVE) {
				continue;
			}
			for (int s = PORT_STATE_MIN; s <= PORT_STATE_MAX; s++) {
				assert_int_equal(fns[f](s, e, true), fns[f](s, e, false));
			}
		}
	}
}

/* The usual life of a slave port, event by event. */
static void test_slave_walk(void **state)
{
	static const struct {
		enum fsm_event ev;
		enum port_state want;
	} walk[] = {
		{ FSM_EV_POWERUP, INIT },
		{ FSM_EV_NONE, LST },
		{ FSM_EV_RS_SLAVE, UNC },
		{ FSM_EV_MASTER_CLOCK_SELECTED, SLV },
		{ FSM_EV_SYNCHRONIZATION_FAULT, UNC },
		{ FSM_EV_MASTER_CLOCK_SELECTED, SLV },
		{ FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES, MST },
		{ FSM_EV_RS_SLAVE, UNC },
		{ FSM_EV_FAULT_DETECTED, FLT },
		{ FSM_EV_FAULT_CLEARED, INIT },
		{ FSM_EV_NONE, LST },
		{ FSM_EV_RS_MASTER, PRE },
		{ FSM_EV_QUALIFICATION_TIMEOUT_EXPIRES, MST },
		{ FSM_EV_DESIGNATED_DISABLED, DIS },
		{ FSM_EV_DESIGNATED_ENABLED, INIT },
	};
	enum port_state s = PORT_STATE_INITIALIZING;

	for (size_t i = 0; i < ARRAY_SIZE(walk); i++) {
		s = fsm_next(s, walk[i].ev, false);
		assert_int_equal(s, walk[i].want);
	}
}

static void test_event_names(void **state)
{
	for (int e = 0; e <= FSM_EV_MAX; e++) {
		assert_non_null(fsm_event_to_string(e));
	}
	assert_string_equal(fsm_event_to_string(FSM_EV_RS_GRAND_MASTER), "RS_GRAND_MASTER");
	assert_null(fsm_event_to_string(FSM_EV_MAX + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinary_every_transition),
		cmocka_unit_test(test_slave_only_every_transition),
		cmocka_unit_test(test_master_changed),
		cmocka_unit_test(test_slave_walk),
		cmocka_unit_test(test_event_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
