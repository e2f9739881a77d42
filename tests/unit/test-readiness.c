/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The readiness verdict (daemon/readiness.c): the boot gate keeps a clock that may be slave from
 * calling itself ready as grandmaster until its ports listened long enough for a better master.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/readiness.h"

#define SEC 1000000u

static struct readiness_port port(const char *ifname, enum port_state st, uint64_t listened)
{
	return (struct readiness_port){
		.ifname = ifname,
		.state = st,
		.running = true,
		.listened_usec = listened,
		/* the default profile: logAnnounceInterval 1, announceReceiptTimeout 3 */
		.gate_usec = readiness_gate_usec(1, 3),
	};
}

static struct readiness_instance_input gm_input(struct readiness_port *ports, size_t n)
{
	return (struct readiness_instance_input){
		.domain = 0,
		.is_grandmaster = true,
		.grandmaster = "001122.fffe.334455",
		.servo = SERVO_UNLOCKED,
		.ports = ports,
		.n_ports = n,
	};
}

/* (announceReceiptTimeout + 4 qualification intervals) x 2^logAnnounceInterval. */
static void test_gate_length(void **state)
{
	assert_int_equal(readiness_gate_usec(1, 3), 14 * SEC);
	assert_int_equal(readiness_gate_usec(0, 3), 7 * SEC);
	assert_int_equal(readiness_gate_usec(-2, 3), 1750000);
	assert_int_equal(readiness_gate_usec(-3, 2), 750000);
}

/* The boot race: MASTER after its receipt timeout, but the gate is still closed. */
static void test_grandmaster_waits_for_gate(void **state)
{
	struct readiness_port p[1] = { port("eth0", PORT_STATE_MASTER, 7 * SEC) };
	struct readiness_instance_input in = gm_input(p, 1);
	struct readiness r;

	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "eth0 listens 7.0 s more"));
	p[0].listened_usec = 14 * SEC - 1;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	p[0].listened_usec = 14 * SEC;
	readiness_instance(&in, &r);
	assert_true(r.ready);
	assert_non_null(strstr(r.reason, "grandmaster of domain 0"));
}

/* Every running port must have had its chance; a port without a worker cannot hear anyone. */
static void test_gate_every_running_port(void **state)
{
	struct readiness_port p[3] = {
		port("eth0", PORT_STATE_MASTER, 60 * SEC),
		port("eth1", PORT_STATE_MASTER, 2 * SEC),
		port("eth2", PORT_STATE_FAULTY, 0),
	};
	struct readiness_instance_input in = gm_input(p, 3);
	struct readiness r;

	p[2].running = false;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "port eth1"));
	p[1].listened_usec = 14 * SEC;
	readiness_instance(&in, &r);
	assert_true(r.ready);
}

/* The link came back: a fresh worker listens from zero, the gate closes again. */
static void test_gate_after_link_back(void **state)
{
	struct readiness_port p[1] = { port("eth0", PORT_STATE_MASTER, 100 * SEC) };
	struct readiness_instance_input in = gm_input(p, 1);
	struct readiness r;

	readiness_instance(&in, &r);
	assert_true(r.ready);
	p[0].listened_usec = 1 * SEC; /* the worker restarted after link down/up */
	readiness_instance(&in, &r);
	assert_false(r.ready);
}

/* Configured to be the grandmaster (clockClass < 128, masterOnly everywhere): no gate. */
static void test_configured_grandmaster(void **state)
{
	struct readiness_port p[1] = { port("eth0", PORT_STATE_MASTER, 1 * SEC) };
	struct readiness_instance_input in = gm_input(p, 1);
	struct readiness r;

	in.configured_grandmaster = true;
	readiness_instance(&in, &r);
	assert_true(r.ready);
	assert_non_null(strstr(r.reason, "by configuration"));
	/* but not before the BMCA made it grandmaster (a port MASTER) */
	in.is_grandmaster = false;
	readiness_instance(&in, &r);
	assert_false(r.ready);
}

/* Synchronized, no ports, a missing interface. */
static void test_other_verdicts(void **state)
{
	struct readiness_port p[1] = { port("eth0", PORT_STATE_SLAVE, 1 * SEC) };
	struct readiness_instance_input in = gm_input(p, 1);
	struct readiness r;

	in.is_grandmaster = false;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_string_equal(r.reason, "not synchronized (servo unlocked)");
	in.health_reason = "following grandmaster x, not synchronized yet";
	readiness_instance(&in, &r);
	assert_string_equal(r.reason, "not synchronized (servo unlocked): following grandmaster x, "
				      "not synchronized yet");
	in.synchronized = true;
	readiness_instance(&in, &r);
	assert_true(r.ready);
	assert_string_equal(r.reason, "synchronized to grandmaster 001122.fffe.334455");
	in.missing = "eth9";
	readiness_instance(&in, &r);
	assert_true(r.ready); /* synchronized already: a late NIC does not hold it back */
	in.synchronized = false;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_string_equal(r.reason, "waiting for eth9: named in its interfaces, not present yet");
	in.missing = NULL;
	in.n_ports = 0;
	readiness_instance(&in, &r);
	assert_true(r.ready);
}

/* The daemon: every instance, or the system clock when phcd steers it. */
static void test_daemon(void **state)
{
	struct readiness inst[2] = { { .ready = true }, { .ready = false } };
	const char *names[2] = { "a", "b" };
	bool synced[2] = { false, false };
	struct readiness_daemon_input in = {
		.instances = inst,
		.names = names,
		.synchronized = synced,
		.n_instances = 2,
		.system_clock_instance = "",
		.system_clock_conflict = "",
	};
	struct readiness r;

	snprintf(inst[1].reason, sizeof(inst[1].reason), "not synchronized (servo unlocked)");
	readiness_daemon(&in, &r);
	assert_false(r.ready);
	assert_string_equal(r.reason, "instance b: not synchronized (servo unlocked)");
	inst[1].ready = true;
	readiness_daemon(&in, &r);
	assert_true(r.ready);
	in.n_instances = 0;
	readiness_daemon(&in, &r);
	assert_false(r.ready);
	/* system_clock_instance a: a grandmaster's clock is the reference */
	in.n_instances = 2;
	in.system_clock_instance = "a";
	inst[1].ready = false;
	readiness_daemon(&in, &r);
	assert_true(r.ready);
	/* a follows a master and is not locked yet */
	inst[0].ready = false;
	readiness_daemon(&in, &r);
	assert_false(r.ready);
	in.system_clock_synchronized = true;
	readiness_daemon(&in, &r);
	assert_true(r.ready);
	in.system_clock_synchronized = false;
	in.system_clock_conflict = "chronyd (pid 1) already steers CLOCK_REALTIME";
	readiness_daemon(&in, &r);
	assert_true(r.ready);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_length),
		cmocka_unit_test(test_grandmaster_waits_for_gate),
		cmocka_unit_test(test_gate_every_running_port),
		cmocka_unit_test(test_gate_after_link_back),
		cmocka_unit_test(test_configured_grandmaster),
		cmocka_unit_test(test_other_verdicts),
		cmocka_unit_test(test_daemon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
