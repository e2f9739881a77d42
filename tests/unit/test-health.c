/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Health (daemon/health.c): pure functions of an instance and its ports, and of the daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/health.h"

#define N_PORTS 20

struct rig {
	struct instance i;
	struct mport port[N_PORTS];
	struct mport *ports[N_PORTS];
};

static void rig_init(struct rig *r, size_t n, enum port_state st)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->i.name, sizeof(r->i.name), "a");
	r->i.clock_identity.id[0] = 1;
	r->i.grandmaster_identity = r->i.clock_identity;
	for (size_t k = 0; k < n; k++) {
		snprintf(r->port[k].ifname, sizeof(r->port[k].ifname), "eth%zu", k);
		r->port[k].instance = &r->i;
		r->port[k].state = st;
		r->ports[k] = &r->port[k];
	}
}

static bool has_code(const struct health_report *h, const char *code)
{
	for (size_t k = 0; k < health_reasons_shown(h); k++) {
		if (!strcmp(h->reasons[k].code, code)) {
			return true;
		}
	}
	return false;
}

/* Its own grandmaster with a port MASTER: ok and IsGrandmaster; LISTENING or SLAVE: not. */
static void test_grandmaster(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, 2, PORT_STATE_MASTER);
	health_instance(&r.i, r.ports, 2, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_OK);
	assert_true(gm);
	r.port[1].state = PORT_STATE_LISTENING; /* may be about to hear a better clock */
	health_instance(&r.i, r.ports, 2, NULL, NULL, &h, &gm);
	assert_false(gm);
	r.port[1].state = PORT_STATE_MASTER;
	r.i.grandmaster_identity.id[0] = 2; /* another clock is the grandmaster */
	health_instance(&r.i, r.ports, 2, NULL, NULL, &h, &gm);
	assert_false(gm);
}

/* FAULTY ports: one degrades (with the port's reason), all fail. */
static void test_faulty(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, 2, PORT_STATE_MASTER);
	r.port[0].state = PORT_STATE_FAULTY;
	snprintf(r.port[0].last_error_text, sizeof(r.port[0].last_error_text), "link down");
	health_instance(&r.i, r.ports, 2, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_DEGRADED);
	assert_true(has_code(&h, "port-faulty"));
	assert_string_equal(h.reasons[0].text, "port eth0 is FAULTY: link down");
	r.port[1].state = PORT_STATE_FAULTY;
	health_instance(&r.i, r.ports, 2, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_FAILED);
	assert_true(has_code(&h, "no-working-port"));
	assert_false(gm);
}

/* A named interface that is not among the ports; no ports with interfaces auto. */
static void test_missing_and_no_ports(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, 1, PORT_STATE_MASTER);
	r.i.options.interfaces.n_names = 2;
	snprintf(r.i.options.interfaces.names[0], IFNAMSIZ, "eth0");
	snprintf(r.i.options.interfaces.names[1], IFNAMSIZ, "eth9");
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_DEGRADED);
	assert_int_equal(h.n_reasons, 1);
	assert_string_equal(h.reasons[0].code, "interface-missing");
	assert_non_null(strstr(h.reasons[0].text, "eth9"));
	r.i.options.interfaces.n_names = 0;
	r.i.options.interfaces.auto_select = true;
	health_instance(&r.i, r.ports, 0, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "no-ports"));
}

/* Following a master: not synchronized yet, then synchronized (ok), then lost. */
static void test_sync(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, 1, PORT_STATE_SLAVE);
	r.i.grandmaster_identity.id[0] = 2;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "not-synchronized"));
	r.i.synchronized = true;
	r.i.was_synchronized = true;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_OK);
	r.i.synchronized = false;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "sync-lost"));
	r.port[0].state = PORT_STATE_LISTENING;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "sync-lost"));
	assert_true(has_code(&h, "no-grandmaster"));
}

/*
 * clock_servo refclock_sock with software timestamps on CLOCK_REALTIME: phcd runs no servo, the
 * instance is never Synchronized, and "not synchronized yet (servo UNLOCKED)" would stand for
 * ever beside a chronyd that selects its samples: the feed's state says it instead
 * (refclock_feed_health). With hardware timestamps the PHC's servo is phcd's, as before.
 */
static void test_chronyd_servo(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, 1, PORT_STATE_SLAVE);
	r.i.grandmaster_identity.id[0] = 2;
	r.i.clock_servo = SERVO_TYPE_REFCLOCK_SOCK;
	r.i.clock_backend = OPTIONS_CLOCK_SYSTEM;
	r.port[0].timestamping = TRANSPORT_TS_MODE_SOFTWARE;
	assert_true(health_chronyd_servo(&r.i, r.ports, 1));
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_OK);
	r.i.clock_backend = OPTIONS_CLOCK_FREE_RUNNING;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_int_equal(h.level, HEALTH_OK);
	/* no port following a master: said as ever */
	r.port[0].state = PORT_STATE_LISTENING;
	assert_false(health_chronyd_servo(&r.i, r.ports, 1));
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "no-grandmaster"));
	/* the PHC's servo (hardware timestamps), or pi: phcd's own, not synchronized yet */
	r.port[0].state = PORT_STATE_SLAVE;
	r.i.clock_backend = OPTIONS_CLOCK_PHC;
	r.port[0].timestamping = TRANSPORT_TS_MODE_HARDWARE;
	assert_false(health_chronyd_servo(&r.i, r.ports, 1));
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "not-synchronized"));
	r.i.clock_backend = OPTIONS_CLOCK_SYSTEM;
	r.port[0].timestamping = TRANSPORT_TS_MODE_SOFTWARE;
	r.i.clock_servo = SERVO_TYPE_PI;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &h, &gm);
	assert_true(has_code(&h, "not-synchronized"));
}

/* More reasons than fit: the last slot counts the rest. */
static void test_overflow(void **state)
{
	struct health_report h;
	struct rig r;
	bool gm;

	rig_init(&r, N_PORTS, PORT_STATE_FAULTY);
	r.port[0].state = PORT_STATE_MASTER;
	health_instance(&r.i, r.ports, N_PORTS, NULL, NULL, &h, &gm);
	assert_int_equal(h.n_reasons, N_PORTS - 1);
	assert_int_equal(health_reasons_shown(&h), HEALTH_REASONS_MAX);
	assert_string_equal(h.reasons[HEALTH_REASONS_MAX - 1].code, "more");
	assert_string_equal(h.reasons[HEALTH_REASONS_MAX - 1].text, "4 more reasons");
	assert_true(health_equal(&h, &h));
}

/* The daemon: the worst of its instances (reasons prefixed) and the system clock. */
static void test_daemon(void **state)
{
	struct health_report h, ih;
	struct rig r;
	struct instance *list[1];
	bool gm;

	rig_init(&r, 1, PORT_STATE_FAULTY);
	health_instance(&r.i, r.ports, 1, NULL, NULL, &ih, &gm);
	assert_int_equal(health_keep(&r.i.health, &ih), 0);
	list[0] = &r.i;
	health_daemon(list, 1, "", "", false, &h);
	assert_int_equal(h.level, HEALTH_FAILED);
	assert_string_equal(h.reasons[0].text, "instance a: port eth0 is FAULTY: no reason given");
	r.port[0].state = PORT_STATE_MASTER;
	health_instance(&r.i, r.ports, 1, NULL, NULL, &ih, &gm);
	assert_int_equal(health_keep(&r.i.health, &ih), 0);
	health_daemon(list, 1, "", "a", false, &h);
	assert_int_equal(h.level, HEALTH_DEGRADED);
	assert_string_equal(h.reasons[0].code, "system-clock-unsynchronized");
	health_daemon(list, 1, "", "a", true, &h);
	assert_int_equal(h.level, HEALTH_OK);
	health_daemon(list, 1, "chronyd (pid 1)", "a", true, &h);
	assert_string_equal(h.reasons[0].code, "clock-conflict");
	free(r.i.health);
}

/*
 * What an instance keeps (health_keep()): nothing while ok without a reason, else its reasons only,
 * read back (instance_health()) as the report it was, overflow count included.
 */
static void test_keep(void **state)
{
	struct health_report h = { 0 }, back;
	struct instance i = { 0 };

	assert_int_equal(health_keep(&i.health, &h), 0);
	assert_null(i.health);
	assert_int_equal(instance_health(&i, &back)->level, HEALTH_OK);
	assert_int_equal(back.n_reasons, 0);

	health_add(&h, HEALTH_DEGRADED, "not-synchronized", "following %s", "gm");
	assert_int_equal(health_keep(&i.health, &h), 0);
	assert_non_null(i.health);
	assert_true(health_equal(instance_health(&i, &back), &h));
	assert_string_equal(back.reasons[0].text, "following gm");

	for (int k = 0; k < HEALTH_REASONS_MAX + 3; k++) {
		health_add(&h, HEALTH_FAILED, "port-faulty", "port eth%d is FAULTY", k);
	}
	assert_int_equal(health_keep(&i.health, &h), 0);
	assert_true(health_equal(instance_health(&i, &back), &h));
	assert_int_equal(back.n_reasons, h.n_reasons);
	assert_string_equal(back.reasons[HEALTH_REASONS_MAX - 1].text,
			    h.reasons[HEALTH_REASONS_MAX - 1].text);

	memset(&h, 0, sizeof(h));
	assert_int_equal(health_keep(&i.health, &h), 0);
	assert_null(i.health);
}

/*
 * What derive.c keeps of the reasons it logged: equal reasons hash alike, a changed sentence or
 * code does not, and the boundary between code and sentence counts ("ab" + "c" is not "a" + "bc").
 */
static void test_reason_hash(void **state)
{
	struct health_reason a = { "port-faulty", "port eth0 is FAULTY: no link" };
	struct health_reason b = a;
	struct health_reason c = { "port-faulty", "port eth1 is FAULTY: no link" };
	struct health_reason d = { "ab", "c" };
	struct health_reason e = { "a", "bc" };
	struct health_reason f = { "port-faultz", "port eth0 is FAULTY: no link" };

	assert_true(health_reason_hash(&a) == health_reason_hash(&b));
	assert_true(health_reason_hash(&a) != health_reason_hash(&c));
	assert_true(health_reason_hash(&a) != health_reason_hash(&f));
	assert_true(health_reason_hash(&d) != health_reason_hash(&e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grandmaster),
		cmocka_unit_test(test_faulty),
		cmocka_unit_test(test_missing_and_no_ports),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_chronyd_servo),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_daemon),
		cmocka_unit_test(test_reason_hash),
		cmocka_unit_test(test_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
