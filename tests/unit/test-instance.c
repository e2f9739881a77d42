// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's instance: what a port's STATUS changes in the state D-Bus serves. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/manager-internal.h"

/* A manager with no event loop, no workers and no bus: enough for instance.c's logic. */
struct rig {
	struct manager m;
	struct instance *inst;
	struct mport port;
	struct mport *ports[1];
	struct instance *instances[1];
	unsigned int changes; /* instance_changed calls */
	unsigned int servo_changes;
};

static void on_instance_changed(void *userdata, struct instance *i, unsigned int mask)
{
	struct rig *r = userdata;

	r->changes++;
	if (mask & INSTANCE_CHANGED_SERVO) {
		r->servo_changes++;
	}
}

static const struct manager_ops rig_ops = {
	.instance_changed = on_instance_changed,
};

static void rig_init(struct rig *r)
{
	struct config_instance ci = { 0 };

	memset(r, 0, sizeof(*r));
	options_instance_defaults(&ci.options);
	options_port_defaults(&ci.port);
	snprintf(ci.options.name, sizeof(ci.options.name), "test");
	r->m.ops = &rig_ops;
	r->m.userdata = r;
	assert_int_equal(instance_new(&r->m, &ci, &r->inst), 0);
	snprintf(r->port.ifname, sizeof(r->port.ifname), "veth0");
	r->port.instance = r->inst;
	r->port.manager = &r->m;
	r->port.state = PORT_STATE_SLAVE;
	/* the supervisor's BMCA made it SLAVE (worker-trust.h) */
	worker_trust_recommended(&r->port.trust, BMCA_DECISION_S1, 0);
	r->ports[0] = &r->port;
	r->m.ports = r->ports;
	r->m.n_ports = 1;
	r->instances[0] = r->inst;
	r->m.instances = r->instances;
	r->m.n_instances = 1;
}

static void rig_free(struct rig *r)
{
	instance_free(r->inst);
}

static void status_stable(struct rig *r, enum servo_state st, bool stable, ns_t offset)
{
	struct ipc_status s = {
		.port_state = r->port.state,
		.servo_state = st,
		.servo_stable = stable,
		.offset_ns = offset,
		.mean_path_delay_ns = 1000,
	};

	instance_port_status(r->inst, &r->port, &s);
	/* the end of the event-loop turn: what follows is derived, then emitted once */
	manager_derive(&r->m);
}

/* As a worker reports it without servo_offset_threshold: stable whenever LOCKED. */
static void status(struct rig *r, enum servo_state st, ns_t offset)
{
	status_stable(r, st, st == SERVO_LOCKED, offset);
}

/* With servo_offset_threshold the worker says when the offsets stayed within it: not before. */
static void test_synchronized_needs_stable(void **state)
{
	struct rig r;

	rig_init(&r);
	status_stable(&r, SERVO_LOCKED, false, 5000);
	assert_int_equal(r.inst->servo_state, SERVO_LOCKED);
	assert_false(r.inst->synchronized);
	status_stable(&r, SERVO_LOCKED, true, 50);
	assert_true(r.inst->synchronized);
	rig_free(&r);
}

/* The same LOCKED STATUS again: no change to signal (no PropertiesChanged for ServoState). */
static void test_repeated_locked_is_no_change(void **state)
{
	struct rig r;

	rig_init(&r);
	status(&r, SERVO_LOCKED, 10);
	assert_int_equal(r.servo_changes, 1);
	assert_int_equal(r.inst->servo_state, SERVO_LOCKED);
	assert_true(r.inst->synchronized);
	for (int k = 0; k < 10; k++) {
		status(&r, SERVO_LOCKED, 10);
	}
	/* expected: the servo changed once (UNLOCKED -> LOCKED), then never again */
	assert_int_equal(r.servo_changes, 1);
	assert_int_equal(r.changes, 1);
	/* a new offset is a sample change, not a servo change */
	status(&r, SERVO_LOCKED, 11);
	assert_int_equal(r.servo_changes, 1);
	assert_int_equal(r.changes, 2);
	rig_free(&r);
}

/* Each real transition is signalled once: UNLOCKED -> LOCKED -> HOLDOVER -> UNLOCKED. */
static void test_servo_transitions(void **state)
{
	static const enum servo_state seq[] = { SERVO_LOCKED,	SERVO_LOCKED,	SERVO_HOLDOVER,
						SERVO_HOLDOVER, SERVO_UNLOCKED, SERVO_UNLOCKED };
	struct rig r;

	rig_init(&r);
	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		status(&r, seq[k], 10);
		assert_int_equal(r.inst->servo_state, seq[k]);
	}
	assert_int_equal(r.servo_changes, 3);
	assert_false(r.inst->synchronized);
	rig_free(&r);
}

/* Synchronized needs a SLAVE port whose servo is LOCKED; UNCALIBRATED is not synchronized. */
static void test_synchronized_needs_slave(void **state)
{
	struct rig r;

	rig_init(&r);
	r.port.state = PORT_STATE_UNCALIBRATED;
	status(&r, SERVO_LOCKED, 10);
	assert_int_equal(r.inst->servo_state, SERVO_LOCKED);
	assert_false(r.inst->synchronized);
	r.port.state = PORT_STATE_SLAVE;
	status(&r, SERVO_LOCKED, 10);
	assert_true(r.inst->synchronized);
	assert_int_equal(r.servo_changes, 2);
	/*
	 * A MASTER port's STATUS says nothing about the instance's servo (its sample is not taken);
	 * the derive pass, seeing no SLAVE port left, takes the LOCKED instance to holdover.
	 */
	r.port.state = PORT_STATE_MASTER;
	status(&r, SERVO_UNLOCKED, 0);
	assert_int_equal(r.inst->offset_ns, 10);
	assert_int_equal(r.inst->servo_state, SERVO_HOLDOVER);
	assert_false(r.inst->synchronized);
	assert_int_equal(r.servo_changes, 3);
	rig_free(&r);
}

/*
 * gmCapable 0: the supervisor's defaultDS (its BMCA's D0 and its management answers) has
 * priority1 255, also after SetPriority1, and the BMCA makes the clock its own parent with it.
 */
static void test_not_gm_capable_default_ds(void **state)
{
	struct defaultDS dds;
	struct rig r;

	rig_init(&r);
	r.inst->options.gmCapable = false;
	r.port.state = PORT_STATE_LISTENING;
	instance_default_ds(r.inst, &dds);
	assert_int_equal(dds.priority1, 255);
	assert_int_equal(dds.numberPorts, 1);
	assert_int_equal(instance_set_priority1(r.inst, 100), 0);
	assert_int_equal(r.inst->priority1, 100);
	instance_default_ds(r.inst, &dds);
	assert_int_equal(dds.priority1, 255);
	assert_true(clock_identity_equal(&r.inst->parent.grandmasterIdentity, &dds.clockIdentity));
	assert_int_equal(r.inst->parent.grandmasterPriority1, 255);
	rig_free(&r);
}

/*
 * An instance with more ports than the old fixed arrays held (64): the port facing the better
 * grandmaster is beyond the 64th and must still be decided SLAVE (issue 31 item 4: it stayed
 * MASTER, nothing logged).
 */
static void many_ports(size_t n)
{
	struct manager m = { 0 };
	struct config_instance ci = { 0 };
	struct mport *port = calloc(n, sizeof(*port));
	struct mport **ports = calloc(n, sizeof(*ports));
	struct instance_decision d;
	struct instance *inst;
	struct mport *last;

	assert_non_null(port);
	assert_non_null(ports);
	options_instance_defaults(&ci.options);
	options_port_defaults(&ci.port);
	snprintf(ci.options.name, sizeof(ci.options.name), "big");
	assert_int_equal(instance_new(&m, &ci, &inst), 0);
	inst->clock_identity.id[7] = 0x10;
	for (size_t k = 0; k < n; k++) {
		snprintf(port[k].ifname, sizeof(port[k].ifname), "p%zu", k);
		port[k].instance = inst;
		port[k].manager = &m;
		port[k].state = PORT_STATE_MASTER;
		port[k].configured = true;
		port[k].worker = (struct worker *) &port[k]; /* never used by the decision */
		port[k].options = ci.port;
		port[k].port_identity.portNumber = (uint16_t) (k + 1);
		ports[k] = &port[k];
	}
	last = &port[n - 1];
	last->has_erbest = true;
	last->erbest.present = true;
	last->erbest.ds.priority1 = 100; /* better than our default 128 */
	last->erbest.ds.identity.id[7] = 0x01;
	last->erbest.ds.quality = inst->clock_quality;
	last->erbest.ds.priority2 = 128;
	last->erbest.ds.sender.clockIdentity = last->erbest.ds.identity;
	last->erbest.ds.sender.portNumber = 1;
	last->erbest.ds.receiver = last->port_identity;
	last->erbest.ds.receiver.clockIdentity = inst->clock_identity;
	m.ports = ports;
	m.n_ports = n;
	assert_int_equal(instance_decide(inst, &d), 0);
	if (d.n != n || d.ports[n - 1] != last || d.dec[n - 1].decision != BMCA_DECISION_S1) {
		fail_msg("%zu ports: expected all %zu decided and port %zu SLAVE (S1), got %zu "
			 "decided, "
			 "last %s",
			 n, n, n, d.n,
			 d.n == n ? bmca_decision_to_string(d.dec[n - 1].decision) : "not decided");
	}
	assert_memory_equal(&d.res.pds.grandmasterIdentity, &last->erbest.ds.identity,
			    sizeof(last->erbest.ds.identity));
	instance_decision_free(&d);
	instance_free(inst);
	free(ports);
	free(port);
}

static void test_65_ports(void **state)
{
	many_ports(65);
}

static void test_200_ports(void **state)
{
	many_ports(200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeated_locked_is_no_change),
		cmocka_unit_test(test_servo_transitions),
		cmocka_unit_test(test_synchronized_needs_slave),
		cmocka_unit_test(test_65_ports),
		cmocka_unit_test(test_200_ports),
		cmocka_unit_test(test_synchronized_needs_stable),
		cmocka_unit_test(test_not_gm_capable_default_ds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
