/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reload planning: which instances and ports a new configuration adds, removes, restarts, retunes.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/reload-plan.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/phcd-test-reload-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/phcd.conf", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static struct config *load(const char *text)
{
	struct config *c = NULL;
	char path[128], *errors = NULL;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/phcd.conf", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	r = config_load(&(struct config_source){ .path = path, .dropin_dir = "/nonexistent" }, &c,
			&errors, NULL);
	if (r != 0) {
		fail_msg("expected the config to load, got %d:\n%s", r, errors ? errors : "");
	}
	return c;
}

/* Every instance of old runs; ports as given. */
static struct reload_plan *plan(const struct config *old, const struct config *new,
				const struct reload_iface *ifaces, size_t n)
{
	const char *names[8];
	struct reload_plan *p = NULL;

	assert_true(old->n_instances <= 8);
	for (size_t k = 0; k < old->n_instances; k++) {
		names[k] = old->instances[k].options.name;
	}
	assert_int_equal(reload_plan_new(old, new, names, old->n_instances, ifaces, n, &p), 0);
	return p;
}

static const char *const two = "[instance a]\ninterfaces = eth0 eth1\n"
			       "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n";
static const struct reload_iface two_ifaces[] = {
	{ "eth0", "a", false },
	{ "eth1", "a", false },
	{ "eth2", "b", false },
	{ "eth3", NULL, false }, /* a link no instance wants */
};

static void test_unchanged(void **state)
{
	struct config *old = load(two), *new = load(two);
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->changes, 0);
	assert_int_equal(p->n_add_instances, 0);
	for (size_t k = 0; k < ARRAY_SIZE(two_ifaces); k++) {
		assert_int_equal(p->port[k], RELOAD_KEEP);
		assert_null(p->add_to[k]);
	}
	assert_false(p->daemon_changed);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* priority1/2 only: taken in place, nothing restarts. */
static void test_priorities_retune(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth1\npriority1 = 10\n"
				  "priority2 = 20\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->instance[0], RELOAD_RETUNE);
	assert_int_equal(p->instance[1], RELOAD_KEEP);
	assert_int_equal(p->port[0], RELOAD_RETUNE);
	assert_int_equal(p->port[1], RELOAD_RETUNE);
	assert_int_equal(p->port[2], RELOAD_KEEP);
	assert_int_equal(p->changes, 3);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* Priorities and one port's own option: that port restarts, its sibling is retuned. */
static void test_priorities_and_port(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth1\npriority1 = 10\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n"
				  "[interface eth1]\nlogSyncInterval = -3\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->instance[0], RELOAD_RETUNE);
	assert_int_equal(p->port[0], RELOAD_RETUNE);
	assert_int_equal(p->port[1], RELOAD_RESTART);
	assert_int_equal(p->port[2], RELOAD_KEEP);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* Any other instance option restarts every port of that instance, and only those. */
static void test_instance_restart(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth1\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 2\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->instance[0], RELOAD_KEEP);
	assert_int_equal(p->instance[1], RELOAD_RESTART);
	assert_int_equal(p->port[0], RELOAD_KEEP);
	assert_int_equal(p->port[1], RELOAD_KEEP);
	assert_int_equal(p->port[2], RELOAD_RESTART);
	assert_int_equal(p->changes, 2);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* An instance goes with its ports; an interface it had goes to the instance that now lists it. */
static void test_instance_removed(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth1 eth2\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->instance[0], RELOAD_RESTART); /* membership is an instance option */
	assert_int_equal(p->instance[1], RELOAD_REMOVE);
	assert_int_equal(p->port[0], RELOAD_RESTART);
	assert_int_equal(p->port[1], RELOAD_RESTART);
	assert_int_equal(p->port[2], RELOAD_REMOVE);
	assert_non_null(p->add_to[2]);
	assert_string_equal(p->add_to[2]->options.name, "a");
	assert_null(p->add_to[0]);
	assert_null(p->add_to[3]);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* A new instance is added; a link without a port that it lists becomes its port. */
static void test_instance_added(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth1\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n"
				  "[instance c]\ninterfaces = eth3\ndomainNumber = 3\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->n_add_instances, 1);
	assert_string_equal(new->instances[p->add_instance[0]].options.name, "c");
	assert_int_equal(p->port[3], RELOAD_KEEP);
	assert_non_null(p->add_to[3]);
	assert_string_equal(p->add_to[3]->options.name, "c");
	assert_int_equal(p->changes, 2);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* An instance in both configurations that did not start (its add failed) is added now. */
static void test_not_running_added(void **state)
{
	struct config *old = load(two), *new = load(two);
	const char *names[] = { "a" };
	struct reload_plan *p = NULL;

	assert_int_equal(reload_plan_new(old, new, names, 1, two_ifaces, 2, &p), 0);
	assert_int_equal(p->n_add_instances, 1);
	assert_string_equal(new->instances[p->add_instance[0]].options.name, "b");
	assert_int_equal(p->instance[0], RELOAD_KEEP);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* "auto": whether an interface belongs depends on its PHC and include_software_interfaces. */
static void test_auto(void **state)
{
	struct config *old = load(
		"[instance x]\ninterfaces = auto\ninclude_software_interfaces = 1\n");
	struct config *new = load("[instance x]\ninterfaces = auto\n");
	const struct reload_iface ifaces[] = {
		{ "eth0", "x", true },
		{ "eth1", "x", false },
		{ "eth2", NULL, true },
		{ "eth3", NULL, false },
	};
	struct reload_plan *p = plan(old, new, ifaces, ARRAY_SIZE(ifaces));

	/* include_software_interfaces is an instance key: the PHC port restarts. */
	assert_int_equal(p->port[0], RELOAD_RESTART);
	assert_int_equal(p->port[1], RELOAD_REMOVE);
	assert_null(p->add_to[1]);
	assert_non_null(p->add_to[2]);
	assert_null(p->add_to[3]);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

/* An interface moved from one instance to another: removed here, added there. */
static void test_moved(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0\n"
				  "[instance b]\ninterfaces = eth1 eth2\ndomainNumber = 1\n");
	struct reload_plan *p = plan(old, new, two_ifaces, ARRAY_SIZE(two_ifaces));

	assert_int_equal(p->port[1], RELOAD_REMOVE);
	assert_non_null(p->add_to[1]);
	assert_string_equal(p->add_to[1]->options.name, "b");
	assert_int_equal(p->port[0], RELOAD_RESTART);
	assert_int_equal(p->port[2], RELOAD_RESTART);
	reload_plan_free(p);
	config_free(old);
	config_free(new);
}

static void test_daemon(void **state)
{
	struct config *old = load(two);
	struct config *log = load(
		"[global]\nlogging_level = 7\n[instance a]\ninterfaces = eth0 eth1\n"
		"[instance b]\ninterfaces = eth2\ndomainNumber = 1\n");
	struct config *sys = load("[global]\nsystem_clock_instance = a\n[instance a]\n"
				  "interfaces = eth0 eth1\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n");
	struct config *lim = load("[global]\nrestart_backoff_max_ms = 5\n[instance a]\n"
				  "interfaces = eth0 eth1\n"
				  "[instance b]\ninterfaces = eth2\ndomainNumber = 1\n");
	struct reload_plan *p;

	p = plan(old, log, two_ifaces, ARRAY_SIZE(two_ifaces));
	assert_true(p->daemon_changed && p->log_level_changed);
	assert_false(p->system_clock_changed || p->restart_limits_changed);
	assert_int_equal(p->changes, 1);
	reload_plan_free(p);
	p = plan(old, sys, two_ifaces, ARRAY_SIZE(two_ifaces));
	assert_true(p->daemon_changed && p->system_clock_changed);
	assert_false(p->log_level_changed || p->restart_limits_changed);
	reload_plan_free(p);
	p = plan(old, lim, two_ifaces, ARRAY_SIZE(two_ifaces));
	assert_true(p->daemon_changed && p->restart_limits_changed);
	assert_false(p->log_level_changed || p->system_clock_changed);
	/* No daemon key touches an instance or a port. */
	for (size_t k = 0; k < ARRAY_SIZE(two_ifaces); k++) {
		assert_int_equal(p->port[k], RELOAD_KEEP);
	}
	reload_plan_free(p);
	config_free(old);
	config_free(log);
	config_free(sys);
	config_free(lim);
}

/* Invariant: each entry's decision does not depend on the order of the entries. */
static void test_order_independent(void **state)
{
	struct config *old = load(two);
	struct config *new = load("[instance a]\ninterfaces = eth0 eth3\npriority1 = 1\n"
				  "[instance c]\ninterfaces = eth1 eth2\n");
	const struct reload_iface fwd[] = {
		{ "eth0", "a", false },
		{ "eth1", "a", false },
		{ "eth2", "b", false },
		{ "eth3", NULL, false },
	};
	struct reload_iface rev[ARRAY_SIZE(fwd)];
	const char *names[] = { "a", "b" }, *rnames[] = { "b", "a" };
	struct reload_plan *p = NULL, *q = NULL;
	size_t n = ARRAY_SIZE(fwd);

	for (size_t k = 0; k < n; k++) {
		rev[k] = fwd[n - 1 - k];
	}
	assert_int_equal(reload_plan_new(old, new, names, 2, fwd, n, &p), 0);
	assert_int_equal(reload_plan_new(old, new, rnames, 2, rev, n, &q), 0);
	assert_int_equal(p->instance[0], q->instance[1]);
	assert_int_equal(p->instance[1], q->instance[0]);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(p->port[k], q->port[n - 1 - k]);
		assert_ptr_equal(p->add_to[k], q->add_to[n - 1 - k]);
	}
	assert_int_equal(p->changes, q->changes);
	/* And the plan itself: membership changed, so a restarts; b goes, its eth2 goes to c. */
	assert_int_equal(p->instance[0], RELOAD_RESTART);
	assert_int_equal(p->instance[1], RELOAD_REMOVE);
	assert_int_equal(p->port[1], RELOAD_REMOVE);
	assert_string_equal(p->add_to[1]->options.name, "c");
	assert_string_equal(p->add_to[2]->options.name, "c");
	assert_string_equal(p->add_to[3]->options.name, "a");
	reload_plan_free(p);
	reload_plan_free(q);
	config_free(old);
	config_free(new);
}

static void test_names(void **state)
{
	assert_string_equal(reload_action_to_string(RELOAD_RETUNE), "retuned");
	assert_null(reload_action_to_string((enum reload_action) 99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged),
		cmocka_unit_test(test_priorities_retune),
		cmocka_unit_test(test_priorities_and_port),
		cmocka_unit_test(test_instance_restart),
		cmocka_unit_test(test_instance_removed),
		cmocka_unit_test(test_instance_added),
		cmocka_unit_test(test_not_running_added),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_daemon),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
