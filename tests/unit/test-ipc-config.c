// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every option reaches the worker: each instance and port key of the config table, set to a value
 * other than its default, goes through the CONFIG codec (common/ipc.c) and comes back equal. A key
 * added to the table and forgotten in the codec fails here, by name.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/config-keys.h"
#include "common/ipc.h"

/*
 * Keys the supervisor keeps to itself, each with the reason; every other instance or port key
 * must reach the worker.
 */
static const struct {
	const char *name, *why;
} supervisor_only[] = {
	{ "interfaces", "which ports the instance has: one worker per port" },
	{ "include_software_interfaces", "the same choice, with interfaces = auto" },
	{ "phc_follow", "the supervisor's PHC followers (daemon/phc-follow.c)" },
	{ "profile", "only its defaults matter, and they are in the other keys already" },
	{ "ptp4l_config", "read by the loader, stores nothing" },
	{ "twoStepFlag", "1 is its only valid value: nothing other than the default to send" },
	{ "refclock_sock_address", "the supervisor feeds chronyd (daemon/refclock-feed.c)" },
	{ "holdover_time", "the clock-mode machine runs in the supervisor (clock-mode-step.c)" },
	{ "holdover_time_error", "the same machine" },
	{ "holdover_out_of_spec_time", "the same machine" },
	{ "holdover_lock_time", "the same machine" },
	{ "gm_out_of_spec_class", "the same machine" },
	{ "time_source",
	  "the grandmaster's reference is read by the supervisor (instance-source.c)" },
	{ "gpsd_address", "the same reference" },
	{ "leapfile", "the same reference" },
	{ "ts2phc.pin_index", "the supervisor takes the PHC pin's edges (instance-pin.c)" },
	{ "ts2phc.channel", "the same pin" },
	{ "ts2phc.extts_correction", "the same pin" },
};

/* Values for the keys whose text is a name, not a number: each other than the default. */
static const struct {
	const char *name, *value;
} named[] = {
	{ "clock_backend", "virtual" },
	{ "clock_servo", "linreg" },
	{ "userDescription", "lab;rack 4" },
	{ "management_network", "off" },
	{ "management_network_set", "1" },
	{ "dataset_comparison", "G.8275.x" },
	{ "delay_mechanism", "P2P" },
	{ "network_transport", "UDPv6" },
	{ "time_stamping", "software" },
	{ "acceptable_masters", "001122.fffe.334455 001122.fffe.334466" },
	{ "asCapable", "true" },
	{ "BMCA", "noop" },
	{ "ptp_dst_mac", "01:80:C2:00:00:0E" },
	{ "p2p_dst_mac", "01:1B:19:00:00:00" },
	{ "power_profile.version", "2017" },
};

static const char *why_supervisor_only(const char *name)
{
	for (size_t i = 0; i < sizeof(supervisor_only) / sizeof(supervisor_only[0]); i++) {
		if (strcmp(supervisor_only[i].name, name) == 0) {
			return supervisor_only[i].why;
		}
	}
	return NULL;
}

/* A CONFIG as the supervisor sends it: defaults, a port identity, and nothing else. */
static void config_defaults(struct ipc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = IPC_CONFIG;
	snprintf(m->config.ifname, sizeof(m->config.ifname), "eth0");
	m->config.port_number = 1;
	options_instance_defaults(&m->config.instance);
	options_port_defaults(&m->config.port);
}

static void *field_of(struct ipc_msg *m, const struct config_key *k)
{
	char *base = k->scope == SCOPE_INSTANCE ? (char *) &m->config.instance
						: (char *) &m->config.port;

	return base + k->offset;
}

/*
 * A text for k that its parser takes and that changes the field: a name from the table above,
 * else a number from the key's range (its minimum, its maximum, or one off either).
 */
static bool non_default(const struct config_key *k, char *buf, size_t size)
{
	double tries[] = { k->min, k->max, k->min + 1, k->max - 1, 1 };
	struct ipc_msg def, m;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (strcmp(named[i].name, k->name) == 0) {
			snprintf(buf, size, "%s", named[i].value);
			return true;
		}
	}
	config_defaults(&def);
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (!isfinite(tries[i])) {
			continue;
		}
		snprintf(buf, size, "%.0f", tries[i]);
		config_defaults(&m);
		if (k->parse(k, buf, field_of(&m, k)) == 0 &&
		    memcmp(field_of(&m, k), field_of(&def, k), k->size) != 0) {
			return true;
		}
	}
	return false;
}

static void test_every_option_reaches_the_worker(void **state)
{
	uint8_t buf[IPC_MAX_SIZE];
	unsigned int checked = 0;
	char text[128];

	for (size_t i = 0; config_keys_at(i); i++) {
		const struct config_key *k = config_keys_at(i);
		struct ipc_msg def, sent, back;
		size_t len;
		int r;

		if (k->scope == SCOPE_DAEMON || why_supervisor_only(k->name)) {
			continue;
		}
		if (!non_default(k, text, sizeof(text))) {
			fail_msg("key %s: no value other than its default known to this test; add "
				 "one "
				 "to named[] (or, if the worker never needs it, to "
				 "supervisor_only[])",
				 k->name);
		}
		config_defaults(&def);
		config_defaults(&sent);
		r = k->parse(k, text, field_of(&sent, k));
		if (r < 0) {
			fail_msg("key %s: its parser refused '%s' (%d)", k->name, text, r);
		}
		if (memcmp(field_of(&sent, k), field_of(&def, k), k->size) == 0) {
			fail_msg("key %s: '%s' is its default; the test needs another value",
				 k->name, text);
		}
		r = ipc_encode(&sent, buf, sizeof(buf), &len);
		if (r < 0) {
			fail_msg("key %s = %s: CONFIG not encoded (%d)", k->name, text, r);
		}
		r = ipc_decode(buf, len, &back);
		if (r < 0) {
			fail_msg("key %s = %s: CONFIG not decoded (%d)", k->name, text, r);
		}
		if (memcmp(field_of(&back, k), field_of(&sent, k), k->size) != 0) {
			fail_msg("key %s = %s: the worker's CONFIG has another value (the IPC "
				 "codec, "
				 "common/ipc.c f_config, does not carry it)",
				 k->name, text);
		}
		checked++;
	}
	/* The table has over 70 such keys: a loop that checked none would prove nothing. */
	assert_true(checked > 60);
}

/* The exemptions name keys that exist: a renamed key must not leave a stale excuse. */
static void test_exemptions_are_keys(void **state)
{
	for (size_t i = 0; i < sizeof(supervisor_only) / sizeof(supervisor_only[0]); i++) {
		if (!config_keys_find(supervisor_only[i].name, false)) {
			fail_msg("supervisor_only[] names %s, which is no key",
				 supervisor_only[i].name);
		}
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!config_keys_find(named[i].name, false)) {
			fail_msg("named[] names %s, which is no key", named[i].name);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_reaches_the_worker),
		cmocka_unit_test(test_exemptions_are_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
