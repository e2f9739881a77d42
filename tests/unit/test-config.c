/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Config loading: every kind of error names file:line, drop-ins, bounds, names. */
#include <stdarg.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/config-diff.h"
#include "common/config-file.h"
#include "common/config-keys.h"
#include "common/utf8.h"

#include "tests/unit/config-fixture.h"

struct error_case {
	const char *what;
	const char *text;
	const char *expect; /* after "DIR/phcd.conf" */
};

/* One row per kind of error: the message must start with file:line and say what was expected. */
static const struct error_case error_cases[] = {
	{ "unknown section", "[bogus]\n", ":1: unknown section [bogus], expected [global]" },
	{ "unknown key", "[global]\nfoo = 1\n", ":2: unknown key \"foo\", expected a key" },
	{ "wrong case", "[global]\nPriority1 = 3\n",
	  ":2: unknown key \"Priority1\", expected \"priority1\"" },
	{ "out of range", "[global]\npriority1 = 300\n",
	  ":2: priority1 = 300 is out of range, expected an integer from 0 to 255" },
	{ "not a number", "[global]\n\npriority1 = abc\n",
	  ":3: priority1 = abc is not a valid value, expected an integer from 0 to 255" },
	{ "negative log interval too small", "[global]\nlogSyncInterval = -8\n",
	  ":2: logSyncInterval = -8 is out of range, expected an integer from -7 to 7" },
	{ "bad enum", "[global]\ndelay_mechanism = Auto\n",
	  ":2: delay_mechanism = Auto is not a valid value, expected E2E or P2P" },
	{ "bad servo", "[global]\nclock_servo = kalman\n",
	  ":2: clock_servo = kalman is not a valid value, expected pi, linreg or "
	  "refclock_sock" },
	{ "relative refclock socket", "[global]\nrefclock_sock_address = chrony.sock\n",
	  ":2: refclock_sock_address = chrony.sock is not a valid value, expected an absolute "
	  "path of at most 107 bytes" },
	{ "refclock instance steers the system clock",
	  "[global]\nsystem_clock_instance = a\n[instance a]\nclock_servo = refclock_sock\n",
	  ":4: instance a: clock_servo refclock_sock hands CLOCK_REALTIME to chronyd, yet "
	  "system_clock_instance names it" },
	{ "refclock from a virtual clock",
	  "[instance a]\nclock_backend = virtual\nclock_servo = refclock_sock\n",
	  ":3: instance a: clock_servo refclock_sock with clock_backend virtual, whose time is "
	  "only in its workers" },
	{ "two instances feed one chronyd socket",
	  "[global]\nclock_servo = refclock_sock\n[instance a]\ninterfaces = e0\n"
	  "[instance b]\ninterfaces = e1\ndomainNumber = 1\n",
	  ":5: instance b: refclock_sock_address /var/run/refclock.ptp.sock is instance a's too, "
	  "expected an address of its own" },
	{ "bad management_network", "[global]\nmanagement_network = yes\n",
	  ":2: management_network = yes is not a valid value, expected off, read-only or "
	  "read-write" },
	{ "unknown transport", "[global]\nnetwork_transport = UDPv5\n",
	  ":2: network_transport = UDPv5 is not a valid value, expected L2, UDPv4 or UDPv6" },
	{ "IPv6 scope beyond 4 bits", "[global]\nudp6_scope = 0x10\n",
	  ":2: udp6_scope = 0x10 is out of range, expected an integer from 1 to 15 (0x01..0x0F" },
	{ "IPv6 scope 0 (reserved)", "[global]\nudp6_scope = 0\n",
	  ":2: udp6_scope = 0 is out of range, expected an integer from 1 to 15 (0x01..0x0F" },
	{ "DSCP beyond 6 bits", "[global]\ndscp_event = 64\n",
	  ":2: dscp_event = 64 is out of range, expected an integer from 0 to 63" },
	{ "TTL 0", "[global]\nudp_ttl = 0\n",
	  ":2: udp_ttl = 0 is out of range, expected an integer from 1 to 255" },
	{ "unknown profile", "[global]\nprofile = G.8275.2\n",
	  ":2: profile = G.8275.2 is not a valid value, expected default, default-p2p, gPTP" },
	{ "bad BMCA", "[global]\nBMCA = none\n",
	  ":2: BMCA = none is not a valid value, expected ptp or noop" },
	{ "bad asCapable", "[global]\nasCapable = false\n",
	  ":2: asCapable = false is not a valid value, expected auto or true" },
	{ "BMCA noop without a role", "[global]\nBMCA = noop\n",
	  ":2: instance default: BMCA noop with neither masterOnly nor slaveOnly, expected a "
	  "static "
	  "role" },
	{ "inhibit_delay_req without asCapable true", "[global]\ninhibit_delay_req = 1\n",
	  ":2: instance default: inhibit_delay_req 1 with asCapable auto, expected asCapable "
	  "true" },
	{ "positive min_neighbor_prop_delay", "[global]\nmin_neighbor_prop_delay = 5\n",
	  ":2: min_neighbor_prop_delay = 5 is out of range" },
	{ "unicast ptp_dst_mac", "[global]\nptp_dst_mac = 02:00:00:00:00:01\n",
	  ":2: ptp_dst_mac = 02:00:00:00:00:01 is out of range, expected a multicast MAC address" },
	{ "short p2p_dst_mac", "[global]\np2p_dst_mac = 01:80:C2:00:00\n",
	  ":2: p2p_dst_mac = 01:80:C2:00:00 is not a valid value, expected a multicast MAC" },
	{ "mixed separators", "[global]\np2p_dst_mac = 01:80-C2:00:00:0E\n",
	  ":2: p2p_dst_mac = 01:80-C2:00:00:0E is not a valid value" },
	{ "unicast_listen with P2P over L2",
	  "[interface eth0]\ndelay_mechanism = P2P\nunicast_listen = 1\n",
	  ":3: unicast_listen: unicast negotiation: not supported with delay_mechanism P2P "
	  "(port eth0)" },
	{ "inhibit_multicast_service with P2P",
	  "[interface eth0]\nnetwork_transport = UDPv4\ndelay_mechanism = P2P\n"
	  "inhibit_multicast_service = 1\n",
	  ":4: inhibit_multicast_service: unicast negotiation: not supported with delay_mechanism "
	  "P2P (port eth0)" },
	{ "a missing unicast master table", "[interface eth0]\nunicast_master_table = 3\n",
	  ":2: unicast_master_table 3: no [unicast_master_table] has that table_id" },
	{ "unicast_req_duration below 10", "[global]\nunicast_req_duration = 9\n",
	  ":2: unicast_req_duration = 9 is out of range, expected an integer from 10 to " },
	{ "a multicast master in phcd.conf's table",
	  "[unicast_master_table]\ntable_id = 4\nUDPv6 = ff02::1\n",
	  ":3: UDPv6 = ff02::1: not a unicast address, expected a unicast IPv6 address" },
	{ "phcd.conf's table without a table_id", "[global]\n[unicast_master_table]\n[global]\n",
	  ":2: [unicast_master_table] without a table_id" },
	{ "a port key in phcd.conf's table",
	  "[unicast_master_table]\ntable_id = 4\npriority1 = 3\n",
	  ":3: priority1 = 3: unknown line in [unicast_master_table]" },
	{ "one-step", "[global]\ntwoStepFlag = 0\n",
	  ":2: twoStepFlag = 0 is out of range, expected 1 (one-step" },
	{ "bad bool", "[global]\nslaveOnly = maybe\n",
	  ":2: slaveOnly = maybe is not a valid value" },
	{ "bad double", "[global]\nstep_threshold = -1\n",
	  ":2: step_threshold = -1 is out of range, expected a number of at least 0" },
	{ "string too long",
	  "[global]\nsystem_clock_instance = 0123456789012345678901234567890123\n",
	  ":2: system_clock_instance = 0123456789012345678901234567890123 is out of range" },
	{ "interface listed twice", "[instance a]\ninterfaces = eth0, eth0\n",
	  ":2: interfaces = eth0, eth0 is not a valid value, expected auto, or up to 64" },
	{ "interface listed twice on two lines",
	  "[instance a]\ninterfaces = eth0\ninterfaces = eth0\n",
	  ":3: interfaces = eth0 is not a valid value, expected auto, or up to 64" },
	{ "auto and names on two lines", "[instance a]\ninterfaces = auto\ninterfaces = eth0\n",
	  ":3: interfaces = eth0 is not a valid value" },
	{ "key outside section", "priority1 = 1\n",
	  ":1: key \"priority1\" outside of any section" },
	{ "instance key in interface", "[interface eth0]\ndomainNumber = 1\n",
	  ":2: key \"domainNumber\" is not valid in this section, expected it in [global] or "
	  "[instance NAME]" },
	{ "daemon key in instance", "[instance a]\nlogging_level = 3\n",
	  ":2: key \"logging_level\" is not valid in this section, expected it in [global]" },
	{ "duplicate instance", "[instance a]\n[instance a]\n",
	  ":2: duplicate [instance a] in one file, expected each instance once per file (first "
	  "at " },
	{ "duplicate interface", "[interface eth0]\n[interface eth0]\n",
	  ":2: duplicate [interface eth0] in one file, expected each interface once per file" },
	/* The whole sentence: it was cut at 128 characters before. */
	{ "interface twice, whole message", "[instance a]\ninterfaces = eth0 eth0\n",
	  ":2: interfaces = eth0 eth0 is not a valid value, expected auto, or up to 64 distinct "
	  "interface names separated by spaces or commas (on several interfaces lines of one "
	  "section if they do not fit on one)\n" },
	{ "a PHC pin without gpsd", "[instance a]\ninterfaces = e0\nts2phc.pin_index = 1\n",
	  ":3: instance a: ts2phc.pin_index 1 with time_source none and clock_backend phc, "
	  "expected time_source gnss and clock_backend phc" },
	{ "a PHC pin on a virtual clock",
	  "[instance a]\ninterfaces = e0\ntime_source = gnss\nclock_backend = virtual\n"
	  "ts2phc.pin_index = 0\n",
	  ":5: instance a: ts2phc.pin_index 0 with time_source gnss and clock_backend virtual" },
	{ "a PHC pin out of range", "[instance a]\nts2phc.pin_index = 1024\n",
	  ":2: ts2phc.pin_index = 1024 is out of range, expected -1 (no pin) or a pin" },
	{ "a PHC pin's correction out of range", "[instance a]\nts2phc.extts_correction = 2e9\n",
	  ":2: ts2phc.extts_correction = 2e9 is" },
	{ "system clock backend with hardware timestamps",
	  "[instance a]\ninterfaces = e0\nclock_backend = system\n",
	  ":3: instance a has clock_backend = system, which takes software timestamps, but "
	  "time_stamping is hardware (the default); expected time_stamping = software or auto" },
	{ "system clock backend, hardware on one interface",
	  "[instance a]\ninterfaces = e0 e1\nclock_backend = system\ntime_stamping = auto\n"
	  "[interface e1]\ntime_stamping = hardware\n",
	  ":6: instance a has clock_backend = system, which takes software timestamps, but "
	  "time_stamping is hardware (interface e1)" },
	{ "slaveOnly and masterOnly", "[instance a]\nslaveOnly = 1\nmasterOnly = 1\n",
	  ":3: instance a has slaveOnly = 1 and masterOnly = 1: the port could be neither" },
	{ "interface section no instance uses",
	  "[instance a]\ninterfaces = eth1\n[interface eth01]\nlogSyncInterval = -3\n",
	  ":3: [interface eth01] is in no instance: no instance names it in interfaces and none "
	  "has interfaces = auto" },
	{ "bad instance name", "[global]\n[instance bad name]\n",
	  ":2: invalid instance name \"bad name\", expected 1 to 31 letters" },
	{ "bad interface name", "[interface a/b]\n", ":1: invalid interface name \"a/b\"" },
	{ "interface in two instances",
	  "[instance a]\ninterfaces = eth0 eth1\n[instance b]\ninterfaces = eth2,eth1\n",
	  ":4: interface eth1 is in instance b and already in instance a (" },
	{ "two auto instances", "[instance a]\n[instance b]\n",
	  ":2: instance b selects interfaces auto, but instance a already does (" },
	{ "unknown system clock instance", "[global]\nsystem_clock_instance = nope\n",
	  ":2: system_clock_instance = nope names no instance" },
	{ "indented line", "[global]\npriority1 = 3\n  priority2 = 4\n", ":3: indented line" },
	{ "no equals sign", "[global]\nnovalue\n", ":2: syntax error" },
	{ "unclosed header", "[global\n", ":1: section header without ']'" },
	{ "overlong line",
	  "[global]\nuserDescription = "
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
	  ":2: line is too long" },
};

static void test_errors_name_file_and_line(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		const struct error_case *e = &error_cases[i];
		struct config *c = NULL;
		char *errors = NULL;
		char want[512];
		int r;

		write_file(f->path, e->text);
		r = config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL);
		snprintf(want, sizeof(want), "%s%s", f->path, e->expect);
		if (r != -EINVAL || c || !errors || strncmp(errors, want, strlen(want)) != 0) {
			fail_msg("%s: expected -EINVAL and an error starting with\n  %s\ngot %d "
				 "and\n  %s",
				 e->what, want, r, errors ? errors : "(no error text)");
		}
		free(errors);
	}
}

static void test_every_error_is_reported(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL;
	size_t lines = 0;

	write_file(f->path,
		   "[global]\nfoo = 1\npriority1 = 999\n[nope]\nbar = 2\n[global]\nbaz = 3\n");
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	assert_non_null(errors);
	for (const char *p = errors; *p; p++) {
		lines += *p == '\n';
	}
	/* foo, priority1, [nope], baz; bar is inside the bad section and not reported again. */
	if (lines != 4) {
		fail_msg("expected 4 error lines, got %zu:\n%s", lines, errors);
	}
	free(errors);
}

/* management_network: off, read-only (default), read-write; management_network_set its alias. */
static void test_management_network(void **state)
{
	static const struct {
		const char *text;
		enum options_mgmt_network want;
	} cases[] = {
		{ "", OPTIONS_MGMT_NETWORK_READ_ONLY },
		{ "management_network = off\n", OPTIONS_MGMT_NETWORK_OFF },
		{ "management_network = read-only\n", OPTIONS_MGMT_NETWORK_READ_ONLY },
		{ "management_network = read-write\n", OPTIONS_MGMT_NETWORK_READ_WRITE },
		{ "management_network_set = 1\n", OPTIONS_MGMT_NETWORK_READ_WRITE },
		{ "management_network_set = 0\n", OPTIONS_MGMT_NETWORK_READ_ONLY },
		/* Both: the later line wins. */
		{ "management_network_set = 1\nmanagement_network = off\n",
		  OPTIONS_MGMT_NETWORK_OFF },
		{ "management_network = off\nmanagement_network_set = 1\n",
		  OPTIONS_MGMT_NETWORK_READ_WRITE },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char text[256];
		struct config *c;

		snprintf(text, sizeof(text), "[instance a]\ninterfaces = eth0\n%s", cases[i].text);
		c = load_ok(f, text);
		if (config_find_instance(c, "a")->options.management_network != cases[i].want) {
			fail_msg("%s: expected management_network %s, got %s", cases[i].text,
				 options_mgmt_network_to_string(cases[i].want),
				 options_mgmt_network_to_string(
					 config_find_instance(c, "a")->options.management_network));
		}
		config_free(c);
	}
}

static void test_missing_file(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL;

	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	assert_non_null(strstr(errors, "phcd.conf:0: cannot open: No such file or directory"));
	free(errors);
	/* The daemon's default path may be missing: then built-in defaults apply. */
	assert_int_equal(
		config_load(&(struct config_source){ .path = f->path, .main_optional = true }, &c,
			    &errors, NULL),
		0);
	assert_null(errors);
	assert_int_equal(c->n_instances, 1);
	assert_string_equal(c->instances[0].options.name, CONFIG_DEFAULT_INSTANCE);
	config_free(c);
}

static void test_dropin_order(void **state)
{
	struct fixture *f = *state;
	struct config *c;

	write_dropin(f, "20-b.conf", "[global]\npriority1 = 30\n");
	write_dropin(f, "10-a.conf", "[global]\npriority1 = 20\npriority2 = 21\n");
	write_dropin(f, "30-c.txt", "[global]\npriority1 = 99\n");
	write_dropin(f, ".40-hidden.conf", "[global]\npriority1 = 98\n");
	c = load_ok(f, "[global]\npriority1 = 10\npriority2 = 11\ndomainNumber = 5\n");
	assert_int_equal(c->n_files, 3);
	assert_non_null(strstr(c->files[1], "10-a.conf"));
	assert_non_null(strstr(c->files[2], "20-b.conf"));
	assert_int_equal(c->instances[0].options.priority1, 30);
	assert_int_equal(c->instances[0].options.priority2, 21);
	assert_int_equal(c->instances[0].options.domainNumber, 5);
	config_free(c);

	/* --check-config reads the same files, here with the drop-in directory named explicitly. */
	FILE *out = tmpfile();
	char buf[1024] = { 0 };

	assert_non_null(out);
	assert_int_equal(
		config_check(&(struct config_source){ .path = f->path, .dropin_dir = f->dropins },
			     out),
		0);
	rewind(out);
	assert_true(fread(buf, 1, sizeof(buf) - 1, out) > 0);
	fclose(out);
	assert_non_null(strstr(buf, ": OK, 3 file(s), 1 instance(s)"));
	assert_non_null(strstr(buf, "instance default: domainNumber 5, priority1 30"));
}

/* interfaces on several lines of one section add up: 64 names do not fit on one 198-character line.
 */
static void test_interfaces_lines(void **state)
{
	struct fixture *f = *state;
	char text[4096], *p = text;
	struct config *c;

	p += sprintf(p, "[instance bc]\n");
	for (int line = 0; line < 4; line++) {
		p += sprintf(p, "interfaces =");
		for (int i = 1; i <= 16; i++) {
			p += sprintf(p, " swp%d", line * 16 + i);
		}
		p += sprintf(p, "\n");
	}
	p += sprintf(p, "[instance other]\ninterfaces = eth0\n");
	c = load_ok(f, text);
	assert_int_equal(c->n_instances, 2);
	assert_int_equal(c->instances[0].options.interfaces.n_names, 64);
	assert_string_equal(c->instances[0].options.interfaces.names[0], "swp1");
	assert_string_equal(c->instances[0].options.interfaces.names[63], "swp64");
	assert_int_equal(c->instances[1].options.interfaces.n_names, 1);
	config_free(c);

	/* A 65th name is refused, at its line (the sixth). */
	{
		char *errors = NULL;

		c = NULL;
		p = text + strlen("[instance bc]\n");
		p += strcspn(p, "\n") + 1;
		p += strcspn(p, "\n") + 1;
		p += strcspn(p, "\n") + 1;
		p += strcspn(p, "\n") + 1;
		sprintf(p, "interfaces = swp65\n");
		write_file(f->path, text);
		assert_int_equal(
			config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			-EINVAL);
		assert_non_null(errors);
		if (!strstr(errors, ":6: interfaces = swp65 is not a valid value")) {
			fail_msg("expected the 65th name refused at line 6, got:\n%s", errors);
		}
		free(errors);
		config_free(c);
	}
}

static void test_dropin_errors_name_dropin(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL;
	char want[256];

	/* A drop-in starts outside any section: the main file's last section does not continue. */
	write_dropin(f, "50-x.conf", "\npriority1 = 1\n");
	write_file(f->path, "[global]\n");
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s/50-x.conf:2: key \"priority1\" outside", f->dropins);
	if (!errors || strncmp(errors, want, strlen(want)) != 0) {
		fail_msg("expected %s..., got %s", want, errors);
	}
	free(errors);
}

/* A drop-in amends a section of the main file key by key; twice in one drop-in is an error. */
static void test_dropin_amends_section(void **state)
{
	struct fixture *f = *state;
	struct port_options p;
	struct config *c = NULL;
	char *errors = NULL;
	char want[512];

	write_dropin(f, "10-lab.conf",
		     "[instance lab]\npriority1 = 20\n"
		     "[interface eth1]\nlogSyncInterval = -4\n");
	write_dropin(f, "20-lab.conf", "[instance lab]\ninterfaces = eth1\ninterfaces = eth2\n");
	c = load_ok(f, "[instance lab]\ninterfaces = eth0\npriority1 = 10\npriority2 = 11\n"
		       "[interface eth1]\nlogSyncInterval = -2\ndelay_mechanism = P2P\n");
	assert_int_equal(c->n_instances, 1);
	assert_int_equal(c->n_interfaces, 1);
	assert_int_equal(c->instances[0].options.priority1, 20);
	assert_int_equal(c->instances[0].options.priority2, 11);
	/* interfaces in a later file replaces the list, its lines in that file add up */
	assert_int_equal(c->instances[0].options.interfaces.n_names, 2);
	assert_string_equal(c->instances[0].options.interfaces.names[0], "eth1");
	assert_string_equal(c->instances[0].options.interfaces.names[1], "eth2");
	assert_int_equal(config_port_options(c, "lab", "eth1", &p), 0);
	assert_int_equal(p.logSyncInterval, -4);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_P2P);
	config_free(c);

	write_dropin(f, "30-twice.conf", "[instance lab]\npriority1 = 30\n[instance lab]\n");
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/30-twice.conf:3: duplicate [instance lab] in one file, expected each instance "
		 "once per file (first at %s/30-twice.conf:1; a later file may amend it)",
		 f->dropins, f->dropins);
	if (!errors || strncmp(errors, want, strlen(want)) != 0) {
		fail_msg("expected %s, got %s", want, errors);
	}
	free(errors);
}

/* Only regular files are read: a directory or a FIFO is refused (and a FIFO never blocks). */
static void test_only_regular_files(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL;
	char path[256], want[512];

	assert_int_equal(
		config_load(&(struct config_source){ .path = f->dir, .dropin_dir = "/nonexistent" },
			    &c, &errors, NULL),
		-EINVAL);
	snprintf(want, sizeof(want),
		 "%s:0: cannot open: is a directory, expected a readable regular file", f->dir);
	if (!errors || strncmp(errors, want, strlen(want)) != 0) {
		fail_msg("expected %s, got %s", want, errors);
	}
	free(errors);
	/* The same under --check-config, and with main_optional: a directory is not "missing". */
	errors = NULL;
	assert_int_equal(config_load(&(struct config_source){ .path = f->dir,
							      .dropin_dir = "/nonexistent",
							      .main_optional = true },
				     &c, &errors, NULL),
			 -EINVAL);
	free(errors);

	write_file(f->path, "[global]\n");
	mkdir(f->dropins, 0755);
	snprintf(path, sizeof(path), "%s/50-fifo.conf", f->dropins);
	assert_int_equal(mkfifo(path, 0644), 0);
	errors = NULL;
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:0: cannot open: is a FIFO or socket, expected a readable regular file", path);
	if (!errors || strncmp(errors, want, strlen(want)) != 0) {
		fail_msg("expected %s, got %s", want, errors);
	}
	free(errors);
}

/* --check-config of the daemon's default path: a missing file is fine (built-in defaults). */
static void test_check_missing_default(void **state)
{
	struct fixture *f = *state;
	char buf[1024] = { 0 };
	FILE *out = tmpfile();

	assert_non_null(out);
	assert_int_equal(
		config_check(&(struct config_source){ .path = f->path, .main_optional = true },
			     out),
		0);
	rewind(out);
	assert_true(fread(buf, 1, sizeof(buf) - 1, out) > 0);
	fclose(out);
	assert_non_null(strstr(buf, "phcd.conf: not present, the built-in defaults apply\n"));
	assert_non_null(strstr(buf, "phcd.conf: OK, 1 file(s), 1 instance(s)"));
	/* A file named with -f must exist. */
	out = tmpfile();
	assert_int_equal(config_check(&(struct config_source){ .path = f->path }, out), -EINVAL);
	fclose(out);
}

/* Bounds (issue 17 finding 11): errors shown, file size, drop-ins; a line costs a line. */
static void test_bounds(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL, *text, *p;
	size_t lines = 0;
	FILE *fp;

	/* 1000 bad keys: 50 lines, then one saying how many more */
	text = malloc(1000 * 16 + 16);
	assert_non_null(text);
	p = text + sprintf(text, "[global]\n");
	for (int i = 0; i < 1000; i++) {
		p += sprintf(p, "bad%d = 1\n", i);
	}
	write_file(f->path, text);
	free(text);
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	assert_non_null(errors);
	for (const char *q = errors; *q; q++) {
		lines += *q == '\n';
	}
	assert_int_equal(lines, CONFIG_ERRORS_MAX + 1);
	if (!strstr(errors, "\n... and 950 more errors (only the first 50 are shown)\n")) {
		fail_msg("expected '... and 950 more errors', got:\n%s", errors);
	}
	free(errors);

	/* larger than 1 MiB: refused before reading */
	fp = fopen(f->path, "we");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), CONFIG_FILE_MAX + 1), 0);
	fclose(fp);
	errors = NULL;
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	if (!errors || !strstr(errors, ":0: cannot open: is larger than 1 MiB (1048576 bytes)")) {
		fail_msg("expected 'is larger than 1 MiB', got %s", errors);
	}
	free(errors);

	/* one 1 MiB line without a newline: one error, nothing held but a line */
	fp = fopen(f->path, "we");
	assert_non_null(fp);
	for (int i = 0; i < CONFIG_FILE_MAX; i++) {
		fputc('x', fp);
	}
	fclose(fp);
	errors = NULL;
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	if (!errors || !strstr(errors, ":1: line is too long")) {
		fail_msg("expected 'line is too long', got %s", errors);
	}
	free(errors);
}

/* More drop-ins than CONFIG_DROPINS_MAX: refused with one line, the rest not read. */
static void test_dropin_count(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL, name[32];

	for (int i = 0; i <= CONFIG_DROPINS_MAX; i++) {
		snprintf(name, sizeof(name), "%05d.conf", i);
		write_dropin(f, name, "");
	}
	write_file(f->path, "[global]\n");
	assert_int_equal(config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL),
			 -EINVAL);
	if (!errors ||
	    !strstr(errors, "phcd.conf.d: more than 1024 drop-ins, expected at most 1024")) {
		fail_msg("expected 'more than 1024 drop-ins', got %s", errors);
	}
	free(errors);
}

/* File names are shown as valid UTF-8: other bytes, controls and '\\' as \xNN. */
static void test_escape_names(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/etc/phcd/phcd.conf", "/etc/phcd/phcd.conf" },
		{ "/etc/phcd/caf\xc3\xa9.conf", "/etc/phcd/caf\xc3\xa9.conf" }, /* é stays */
		{ "/etc/phcd/\xff\xfe.conf", "/etc/phcd/\\xff\\xfe.conf" },
		{ "a\nb\\c", "a\\x0ab\\x5cc" },
		{ "\xc3", "\\xc3" },		       /* truncated sequence */
		{ "\xc0\xaf", "\\xc0\\xaf" },	       /* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" }, /* UTF-16 surrogate */
		{ "\xef\xbf\xbe", "\\xef\\xbf\\xbe" }, /* U+FFFE, refused by sd-bus */
	};
	struct fixture *f = *state;
	struct config *c;
	char path[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = utf8_escape(cases[i].in);

		assert_non_null(e);
		assert_string_equal(e, cases[i].out);
		free(e);
	}
	/* A drop-in whose name is not UTF-8 loads, and is listed escaped. */
	write_dropin(f, "10-\xff.conf", "[global]\npriority1 = 7\n");
	c = load_ok(f, "[global]\n");
	assert_int_equal(c->n_files, 2);
	snprintf(path, sizeof(path), "%s/10-\\xff.conf", f->dropins);
	assert_string_equal(c->files[1], path);
	assert_int_equal(c->instances[0].options.priority1, 7);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors_name_file_and_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_error_is_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_management_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interfaces_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_errors_name_dropin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_amends_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_regular_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_missing_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
