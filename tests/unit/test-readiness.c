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

#include "daemon/model.h"
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
	/* 802.1AS's Pdelay exchanges before asCapable */
	assert_int_equal(readiness_as_capable_usec(0), 3 * SEC);
	assert_int_equal(readiness_as_capable_usec(-1), 1500000);
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
	struct instance a = { .name = "a", .readiness = { .ready = true } };
	struct instance b = { .name = "b" };
	struct instance *inst[2] = { &a, &b };
	struct readiness r;

	snprintf(b.readiness.reason, sizeof(b.readiness.reason),
		 "not synchronized (servo unlocked)");
	readiness_daemon(inst, 2, "", false, "", &r);
	assert_false(r.ready);
	assert_string_equal(r.reason, "instance b: not synchronized (servo unlocked)");
	b.readiness.ready = true;
	readiness_daemon(inst, 2, "", false, "", &r);
	assert_true(r.ready);
	readiness_daemon(inst, 0, "", false, "", &r);
	assert_false(r.ready);
	/* system_clock_instance a: a grandmaster's clock is the reference, b does not matter */
	b.readiness.ready = false;
	readiness_daemon(inst, 2, "a", false, "", &r);
	assert_true(r.ready);
	/* a follows a master and is not locked yet */
	a.readiness.ready = false;
	readiness_daemon(inst, 2, "a", false, "", &r);
	assert_false(r.ready);
	assert_string_equal(r.reason,
			    "the system clock is not locked yet (system_clock_instance a)");
	/* a synchronized instance is ready, but the system clock is not locked to it yet */
	a.readiness.ready = true;
	a.synchronized = true;
	readiness_daemon(inst, 2, "auto", false, "", &r);
	assert_false(r.ready);
	readiness_daemon(inst, 2, "auto", true, "", &r);
	assert_true(r.ready);
	readiness_daemon(inst, 2, "a", false, "chronyd (pid 1) already steers CLOCK_REALTIME", &r);
	assert_true(r.ready);
}

/*
 * clock_servo refclock_sock: an instance that feeds chronyd is ready once the socket accepts its
 * samples, whatever else it is; with only such instances, phcd steers no system clock to wait for.
 */
static void test_refclock(void **state)
{
	struct readiness_refclock rc = { .address = "/run/chrony.sock", .refused = true };
	struct readiness_port p[1] = { port("eth0", PORT_STATE_SLAVE, 30 * SEC) };
	struct readiness_instance_input in = gm_input(p, 1);
	struct instance a = { .name = "a", .readiness = { .ready = true } };
	struct instance *inst[1] = { &a };
	struct readiness r;

	in.is_grandmaster = false;
	in.synchronized = true;
	in.refclock = &rc;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "does not feed yet chronyd at /run/chrony.sock"));
	assert_non_null(strstr(r.reason, "the socket is missing or refuses"));
	rc.refused = false;
	rc.sending = true;
	readiness_instance(&in, &r);
	assert_true(r.ready);
	assert_non_null(strstr(r.reason, "feeds chronyd at /run/chrony.sock"));
	/* "auto" over an instance that feeds chronyd: nothing of phcd's to wait for */
	a.options.servo.clock_servo = SERVO_TYPE_REFCLOCK_SOCK;
	readiness_daemon(inst, 1, "auto", false, "", &r);
	assert_true(r.ready);
	assert_non_null(strstr(r.reason, "not steered by phcd: its instances feed chronyd"));
	/* another instance phcd follows: its system clock again */
	a.options.servo.clock_servo = SERVO_TYPE_PI;
	readiness_daemon(inst, 1, "auto", false, "", &r);
	assert_true(r.ready); /* a is ready, not synchronized: the reference */
	a.synchronized = true;
	readiness_daemon(inst, 1, "auto", false, "", &r);
	assert_false(r.ready);
}

/*
 * From the supervisor's state: the gate counts from the worker's HELLO (listening_since_usec), a
 * port without a worker has none, clockClass < 128 or masterOnly everywhere open it, and the
 * moment it opens is returned for a look then.
 */
static void test_of_instance(void **state)
{
	struct instance i = { .name = "a", .is_grandmaster = true };
	struct mport p[2] = { 0 };
	struct mport *ports[2] = { &p[0], &p[1] };
	const uint64_t t0 = 1000 * SEC, gate = readiness_gate_usec(1, 3);
	uint64_t opens;
	struct readiness r;

	i.clock_quality.clockClass = 248;
	for (size_t k = 0; k < 2; k++) {
		snprintf(p[k].ifname, sizeof(p[k].ifname), "eth%zu", k);
		p[k].state = k ? PORT_STATE_FAULTY : PORT_STATE_MASTER;
		p[k].options.logAnnounceInterval = 1;
		p[k].options.announceReceiptTimeout = 3;
	}
	p[0].configured = true;
	p[0].listening_since_usec = t0;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + SEC, &r, &opens), 0);
	assert_false(r.ready);
	assert_int_equal(opens, t0 + gate);
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + gate, &r, &opens), 0);
	assert_true(r.ready);
	assert_int_equal(opens, 0);
	/* eth1's worker starts later: its own gate */
	p[1].state = PORT_STATE_MASTER;
	p[1].configured = true;
	p[1].listening_since_usec = t0 + 5 * SEC;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + gate, &r, &opens), 0);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "port eth1"));
	assert_int_equal(opens, t0 + 5 * SEC + gate);
	/* a MASTER port that has not listened since its link came up (a stopping worker) */
	p[1].listening_since_usec = 0;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + 100 * SEC, &r, &opens), 0);
	assert_false(r.ready);
	p[1].listening_since_usec = t0 + 5 * SEC;
	/* the grandmaster by configuration: no gate */
	i.clock_quality.clockClass = 6;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + SEC, &r, &opens), 0);
	assert_true(r.ready);
	i.clock_quality.clockClass = 248;
	p[0].options.masterOnly = p[1].options.masterOnly = true;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + SEC, &r, &opens), 0);
	assert_true(r.ready);
	/* masterOnly on one port only: the other may hear a better master */
	p[1].options.masterOnly = false;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + SEC, &r, &opens), 0);
	assert_false(r.ready);
	/* an interface named in `interfaces` and not a port */
	i.synchronized = true;
	i.options.interfaces.n_names = 1;
	snprintf(i.options.interfaces.names[0], IFNAMSIZ, "eth7");
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + SEC, &r, &opens), 0);
	assert_true(r.ready); /* synchronized already */
	i.synchronized = false;
	assert_int_equal(readiness_of_instance(&i, ports, 2, NULL, t0 + gate * 2, &r, &opens), 0);
	assert_false(r.ready);
	assert_string_equal(r.reason, "waiting for eth7: named in its interfaces, not present yet");
}

/*
 * A port that computes asCapable (gPTP: P2P, follow_up_info, asCapable auto) hears no Announce
 * before both ends are asCapable: its gate is longer by three Pdelay intervals (on c73b1b8 and
 * 49019c6 it was the announce gate alone, which at announce 0.25 s opened before the first
 * Announce of a better master booting beside it). A port that always is asCapable keeps the
 * announce gate.
 */
static void test_of_instance_as_capable(void **state)
{
	struct instance i = { .name = "a", .is_grandmaster = true };
	struct mport p = { .state = PORT_STATE_MASTER, .configured = true };
	struct mport *ports[1] = { &p };
	const uint64_t t0 = 1000 * SEC, gate = readiness_gate_usec(-2, 3);
	uint64_t opens;
	struct readiness r;

	i.clock_quality.clockClass = 248;
	snprintf(p.ifname, sizeof(p.ifname), "eth0");
	options_port_defaults(&p.options);
	p.options.logAnnounceInterval = -2;
	p.options.announceReceiptTimeout = 3;
	p.options.logMinPdelayReqInterval = 0;
	p.listening_since_usec = t0;
	assert_int_equal(readiness_of_instance(&i, ports, 1, NULL, t0 + gate, &r, &opens), 0);
	assert_true(r.ready); /* E2E: the announce gate */
	p.options.delay_mechanism = DELAY_MECHANISM_P2P;
	p.options.follow_up_info = true;
	assert_int_equal(readiness_of_instance(&i, ports, 1, NULL, t0 + gate, &r, &opens), 0);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "port eth0 listens 3.0 s more"));
	assert_int_equal(opens, t0 + gate + 3 * SEC);
	/* the gate passed and the port still not asCapable: it serves no link */
	assert_int_equal(readiness_of_instance(&i, ports, 1, NULL, t0 + gate + 3 * SEC, &r, &opens),
			 0);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "on no link: port eth0 is not asCapable"));
	p.as_capable = true;
	assert_int_equal(readiness_of_instance(&i, ports, 1, NULL, t0 + gate + 3 * SEC, &r, &opens),
			 0);
	assert_true(r.ready);
	/* asCapable true: always asCapable (the automotive profile), the announce gate alone */
	p.options.asCapable = OPTIONS_AS_CAPABLE_TRUE;
	assert_int_equal(readiness_of_instance(&i, ports, 1, NULL, t0 + gate, &r, &opens), 0);
	assert_true(r.ready);
}

/*
 * A grandmaster none of whose running ports is asCapable serves no link (issue 30 item 6: a gPTP
 * port with no 802.1AS neighbour, Ready on 49019c6): not ready, the port named. One asCapable
 * port is enough; a port that is not running does not count; by configuration it is ready.
 */
static void test_grandmaster_of_no_link(void **state)
{
	struct readiness_port p[2] = { port("eth0", PORT_STATE_MASTER, 14 * SEC),
				       port("eth1", PORT_STATE_MASTER, 14 * SEC) };
	struct readiness_instance_input in = gm_input(p, 2);
	struct readiness r;

	p[0].not_as_capable = p[1].not_as_capable = true;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	assert_non_null(strstr(r.reason, "on no link: port eth0 is not asCapable"));
	p[1].not_as_capable = false;
	readiness_instance(&in, &r);
	assert_true(r.ready);
	assert_non_null(strstr(r.reason, "no better master heard"));
	p[1].running = false;
	readiness_instance(&in, &r);
	assert_false(r.ready);
	in.configured_grandmaster = true;
	readiness_instance(&in, &r);
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
		cmocka_unit_test(test_refclock),
		cmocka_unit_test(test_of_instance),
		cmocka_unit_test(test_of_instance_as_capable),
		cmocka_unit_test(test_grandmaster_of_no_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
