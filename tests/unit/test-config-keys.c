/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The key table: resolution of layers, key values, defaults, diffs, and the docs that list it. */
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

static void test_resolution(void **state)
{
	struct fixture *f = *state;
	struct port_options p;
	struct config *c;

	/* [global] after the instance still applies: layers, not file order, decide. */
	c = load_ok(f, "[instance a]\n"
		       "interfaces = eth0 eth1\n"
		       "priority1 = 50\n"
		       "logSyncInterval = -2\n"
		       "[instance b]\n"
		       "interfaces = auto\n"
		       "include_software_interfaces = yes\n"
		       "[interface eth1]\n"
		       "logSyncInterval = -3\n"
		       "delay_mechanism = P2P\n"
		       "[global]\n"
		       "priority1 = 100\n"
		       "logSyncInterval = -1\n"
		       "time_stamping = software\n"
		       "clock_backend = virtual\n"
		       "virtual_clock_offset_ns = -500000000\n"
		       "virtual_clock_freq_ppb = 100000\n"
		       "first_step_threshold = 0.5\n"
		       "clock_servo = linreg\n"
		       "servo_offset_threshold = 200\n"
		       "servo_num_offset_values = 5\n");
	assert_int_equal(config_find_instance(c, "a")->options.priority1, 50);
	assert_int_equal(config_find_instance(c, "b")->options.servo.clock_servo,
			 SERVO_TYPE_LINREG);
	assert_int_equal(config_find_instance(c, "a")->options.servo.servo_offset_threshold, 200);
	assert_int_equal(config_find_instance(c, "a")->options.servo.servo_num_offset_values, 5);
	assert_int_equal(config_find_instance(c, "b")->options.priority1, 100);
	assert_int_equal(config_find_instance(c, "b")->options.clock_backend,
			 OPTIONS_CLOCK_VIRTUAL);
	assert_int_equal(config_find_instance(c, "b")->options.virtual_clock.initial_offset_ns,
			 -500000000);
	assert_int_equal(config_find_instance(c, "a")->options.virtual_clock.initial_freq_ppb,
			 100000);
	assert_true(config_find_instance(c, "a")->options.servo.first_step_threshold == 0.5);

	assert_int_equal(config_port_options(c, "a", "eth0", &p), 0);
	assert_int_equal(p.logSyncInterval, -2);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_E2E);
	assert_int_equal(p.time_stamping, OPTIONS_TS_SOFTWARE);
	assert_int_equal(config_port_options(c, "a", "eth1", &p), 0);
	assert_int_equal(p.logSyncInterval, -3);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_P2P);
	assert_int_equal(config_port_options(c, "b", "eth9", &p), 0);
	assert_int_equal(p.logSyncInterval, -1);
	assert_int_equal(p.announceReceiptTimeout, 3);
	assert_int_equal(config_port_options(c, "nope", "eth0", &p), -ENOENT);

	/* Membership: explicit lists first, then the auto instance. */
	assert_string_equal(config_instance_for_interface(c, "eth1", false)->options.name, "a");
	assert_string_equal(config_instance_for_interface(c, "eth7", false)->options.name, "b");
	config_free(c);

	/*
	 * A profile sets defaults below every key: default-p2p's P2P holds where no key says
	 * otherwise, in whichever section the key is, and before or after the profile line.
	 */
	c = load_ok(f, "[instance a]\n"
		       "interfaces = eth0 eth1\n"
		       "profile = default-p2p\n"
		       "[instance b]\n"
		       "interfaces = eth2 eth3\n"
		       "delay_mechanism = E2E\n"
		       "[interface eth1]\n"
		       "delay_mechanism = E2E\n"
		       "[global]\n"
		       "profile = default-p2p\n"
		       "[instance c]\n"
		       "interfaces = auto\n"
		       "profile = default\n");
	assert_int_equal(config_find_instance(c, "a")->options.profile,
			 OPTIONS_PROFILE_DEFAULT_P2P);
	assert_int_equal(config_port_options(c, "a", "eth0", &p), 0);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_P2P);
	assert_int_equal(config_port_options(c, "a", "eth1", &p), 0);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_E2E);
	assert_int_equal(config_find_instance(c, "b")->options.profile,
			 OPTIONS_PROFILE_DEFAULT_P2P);
	assert_int_equal(config_port_options(c, "b", "eth2", &p), 0);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_E2E);
	assert_int_equal(config_find_instance(c, "c")->options.profile, OPTIONS_PROFILE_DEFAULT);
	assert_int_equal(config_port_options(c, "c", "eth9", &p), 0);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_E2E);
	config_free(c);

	/* gPTP and the automotive profiles: linuxptp's shipped files, keys still winning. */
	c = load_ok(f, "[instance g]\n"
		       "interfaces = eth0\n"
		       "profile = gPTP\n"
		       "neighborPropDelayThresh = 100000\n"
		       "[instance m]\n"
		       "interfaces = eth1\n"
		       "profile = automotive-master\n"
		       "[instance s]\n"
		       "interfaces = eth2\n"
		       "profile = automotive-slave\n");
	assert_int_equal(config_find_instance(c, "g")->options.priority1, 248);
	assert_true(config_find_instance(c, "g")->options.gmCapable);
	assert_int_equal(config_port_options(c, "g", "eth0", &p), 0);
	assert_int_equal(p.transportSpecific, 1);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_P2P);
	assert_true(p.follow_up_info && p.path_trace_enabled);
	assert_int_equal(p.logSyncInterval, -3);
	assert_int_equal(p.logAnnounceInterval, 0);
	assert_int_equal(p.syncReceiptTimeout, 3);
	assert_int_equal(p.neighborPropDelayThresh, 100000);
	assert_int_equal(p.min_neighbor_prop_delay, -20000000);
	assert_true(p.assume_two_step);
	assert_int_equal(p.BMCA, OPTIONS_BMCA_PTP);
	assert_int_equal(config_port_options(c, "m", "eth1", &p), 0);
	assert_int_equal(p.BMCA, OPTIONS_BMCA_NOOP);
	assert_true(p.masterOnly && p.inhibit_announce && p.inhibit_delay_req);
	assert_int_equal(p.asCapable, OPTIONS_AS_CAPABLE_TRUE);
	assert_int_equal(p.neighborPropDelayThresh, 800);
	assert_true(config_find_instance(c, "s")->options.slaveOnly);
	assert_true(config_find_instance(c, "s")->options.servo.step_threshold == 1.0);
	assert_int_equal(config_port_options(c, "s", "eth2", &p), 0);
	assert_true(p.ignore_source_id && p.msg_interval_request && p.inhibit_announce);
	assert_false(p.masterOnly || p.inhibit_delay_req);
	assert_int_equal(p.operLogPdelayReqInterval, 2);
	assert_int_equal(p.operLogSyncInterval, 0);
	config_free(c);

	c = load_ok(f, "[instance a]\ninterfaces = eth0\n[instance b]\n");
	assert_null(config_instance_for_interface(c, "veth0", false));
	assert_string_equal(config_instance_for_interface(c, "veth0", true)->options.name, "b");
	config_free(c);
}

/* ptp_dst_mac and p2p_dst_mac: ptp4l's spelling, IEEE 802's too, per interface. */
/* acceptable_masters (17.6) and notSlave: per port, lines add up, bad identities refused. */
static void test_acceptable_masters(void **state)
{
	struct fixture *f = *state;
	struct ClockIdentity a, b;
	struct port_options p;
	struct config *c, *bad = NULL;
	char *errors = NULL;

	assert_int_equal(clock_identity_from_string("001122.fffe.334455", &a), 0);
	assert_int_equal(clock_identity_from_string("aabbcc.fffe.ddeeff", &b), 0);
	c = load_ok(f, "[instance a]\ninterfaces = eth0 eth1\n"
		       "[interface eth1]\nacceptable_masters = 001122.fffe.334455,\n"
		       "acceptable_masters = aabbcc.fffe.ddeeff\nnotSlave = 1\n");
	assert_int_equal(config_port_options(c, "a", "eth0", &p), 0);
	assert_int_equal(p.acceptable_masters.n, 0);
	assert_false(p.masterOnly);
	assert_true(options_acceptable_master(&p.acceptable_masters, &b));
	assert_int_equal(config_port_options(c, "a", "eth1", &p), 0);
	assert_int_equal(p.acceptable_masters.n, 2);
	assert_true(p.masterOnly);
	assert_true(options_acceptable_master(&p.acceptable_masters, &a));
	assert_true(options_acceptable_master(&p.acceptable_masters, &b));
	b.id[7] ^= 1;
	assert_false(options_acceptable_master(&p.acceptable_masters, &b));
	config_free(c);

	/* not an identity, or one twice: refused at its line */
	write_file(f->path, "[instance a]\ninterfaces = eth0\n"
			    "acceptable_masters = 001122.fffe.334455 001122.fffe.334455\n");
	assert_int_equal(
		config_load(&(struct config_source){ .path = f->path }, &bad, &errors, NULL),
		-EINVAL);
	assert_non_null(errors);
	assert_non_null(strstr(errors, ":3: acceptable_masters"));
	free(errors);
	config_free(bad);
	errors = NULL;
	bad = NULL;
	write_file(f->path, "[instance a]\ninterfaces = eth0\nacceptable_masters = 0011\n");
	assert_int_equal(
		config_load(&(struct config_source){ .path = f->path }, &bad, &errors, NULL),
		-EINVAL);
	free(errors);
	config_free(bad);
}

static void test_dst_mac(void **state)
{
	struct fixture *f = *state;
	static const uint8_t g8275[] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
	static const uint8_t ptp[] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 };
	static const uint8_t other[] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0xab };
	struct port_options p;
	struct config *c;

	c = load_ok(f, "[instance a]\ninterfaces = eth0 eth1\n"
		       "[interface eth1]\nptp_dst_mac = 01-80-c2-00-00-0e\n"
		       "p2p_dst_mac = 01:1b:19:00:00:AB\n");
	assert_int_equal(config_port_options(c, "a", "eth0", &p), 0);
	assert_memory_equal(p.ptp_dst_mac, ptp, 6);
	assert_memory_equal(p.p2p_dst_mac, g8275, 6);
	assert_int_equal(config_port_options(c, "a", "eth1", &p), 0);
	assert_memory_equal(p.ptp_dst_mac, g8275, 6);
	assert_memory_equal(p.p2p_dst_mac, other, 6);
	config_free(c);
}

/* profile G.8275.1: its defaults, each overridden by a key wherever it is set. */
static void test_profile_g8275_1(void **state)
{
	struct fixture *f = *state;
	static const uint8_t g8275[] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
	const struct config_instance *in;
	struct port_options p;
	struct config *c;

	c = load_ok(f, "[instance t]\ninterfaces = eth0 eth1\nprofile = G.8275.1\n"
		       "[interface eth1]\nlogSyncInterval = -3\n"
		       "[instance u]\ninterfaces = eth2\ndomainNumber = 25\nprofile = G.8275.1\n");
	in = config_find_instance(c, "t");
	assert_int_equal(in->options.profile, OPTIONS_PROFILE_G8275_1);
	assert_int_equal(in->options.domainNumber, 24);
	assert_int_equal(in->options.dataset_comparison, BMCA_COMPARISON_G8275);
	assert_int_equal(config_find_instance(c, "u")->options.domainNumber, 25);
	assert_int_equal(config_port_options(c, "t", "eth0", &p), 0);
	assert_memory_equal(p.ptp_dst_mac, g8275, 6);
	assert_int_equal(p.logAnnounceInterval, -3);
	assert_int_equal(p.logSyncInterval, -4);
	assert_int_equal(p.logMinDelayReqInterval, -4);
	assert_int_equal(p.delay_mechanism, DELAY_MECHANISM_E2E);
	assert_int_equal(config_port_options(c, "t", "eth1", &p), 0);
	assert_int_equal(p.logSyncInterval, -3);
	config_free(c);
}

/* Setting every key to its documented default changes nothing: table and options.c agree. */
static void test_table_defaults_match_options(void **state)
{
	struct fixture *f = *state;
	struct config *empty, *explicit;
	char *dump = NULL, *text = NULL;
	size_t dump_size = 0, text_size = 0;
	FILE *d = open_memstream(&dump, &dump_size);
	FILE *t = open_memstream(&text, &text_size);
	char *line, *save = NULL;

	config_dump_keys(d);
	fclose(d);
	fputs("[global]\n", t);
	for (line = strtok_r(dump, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *name = line, *def;

		def = strchr(strchr(name, '\t') + 1, '\t') + 1;
		*strchr(name, '\t') = '\0';
		*strchr(def, '\t') = '\0';
		if (strcmp(def, "(empty)") != 0) {
			fprintf(t, "%s = %s\n", name, def);
		}
	}
	fclose(t);
	empty = load_ok(f, "");
	explicit = load_ok(f, text);
	assert_int_equal(config_diff_instance(empty, explicit, CONFIG_DEFAULT_INSTANCE),
			 CONFIG_UNCHANGED);
	assert_int_equal(config_diff_port(empty, explicit, CONFIG_DEFAULT_INSTANCE, "eth0"),
			 CONFIG_UNCHANGED);
	assert_false(config_daemon_changed(empty, explicit));
	config_free(empty);
	config_free(explicit);
	free(dump);
	free(text);
}

static void test_diff(void **state)
{
	struct fixture *f = *state;
	struct config *old, *new;

	old = load_ok(f, "[instance a]\ninterfaces = eth0 eth1\n"
			 "[instance b]\ninterfaces = eth2\npriority1 = 10\n"
			 "[instance gone]\ninterfaces = eth3\n"
			 "[interface eth1]\nlogSyncInterval = -3\n");
	new = load_ok(f, "[instance a]\ninterfaces = eth0 eth1\n"
			 "[instance b]\ninterfaces = eth2\npriority1 = 11\n"
			 "[instance new]\ninterfaces = eth4\n"
			 "[interface eth1]\nlogSyncInterval = -4\n"
			 "[global]\nrestart_limit_burst = 9\n");
	assert_int_equal(config_diff_instance(old, new, "a"), CONFIG_UNCHANGED);
	assert_int_equal(config_diff_instance(old, new, "b"), CONFIG_CHANGED);
	assert_int_equal(config_diff_instance(old, new, "gone"), CONFIG_REMOVED);
	assert_int_equal(config_diff_instance(old, new, "new"), CONFIG_ADDED);
	assert_int_equal(config_diff_port(old, new, "a", "eth0"), CONFIG_UNCHANGED);
	assert_int_equal(config_diff_port(old, new, "a", "eth1"), CONFIG_CHANGED);
	/* A port-level change does not count as an instance change, and vice versa. */
	assert_int_equal(config_diff_port(old, new, "b", "eth2"), CONFIG_UNCHANGED);
	assert_int_equal(config_diff_port(old, new, "gone", "eth3"), CONFIG_REMOVED);
	assert_true(config_daemon_changed(old, new));
	assert_false(config_daemon_changed(old, old));
	assert_string_equal(config_change_to_string(CONFIG_CHANGED), "changed");
	config_free(old);
	config_free(new);
}

/* The path of a file of the source tree: $SRC, or found from this executable's place. */
static void source_path(const char *rel, char *path, size_t size)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *src = getenv("SRC");

	assert_true(n > 0);
	exe[n] = '\0';
	if (src) {
		snprintf(path, size, "%s/%s", src, rel);
	} else {
		/* __FILE__ is relative to the build root, two levels above this executable. */
		*strrchr(exe, '/') = '\0';
		snprintf(path, size, "%s/../../%.*s/../../%s", exe,
			 (int) (strrchr(__FILE__, '/') - __FILE__), __FILE__, rel);
	}
}

/*
 * docs/phcd.conf.5.md and the key table agree: every key phcd reads has a row "| `key` | default |"
 * with the table's default ("(empty)" or "(none)" for an empty one), and every row of a "keys"
 * section names a key phcd reads (nothing documented that the parser would refuse, nothing read
 * undocumented).
 */
static void test_keys_documented(void **state)
{
	char path[8192], *dump = NULL, *line = NULL, *save = NULL;
	size_t dump_size = 0, line_size = 0;
	FILE *d = open_memstream(&dump, &dump_size), *doc;
	bool in_keys = false;
	int rows = 0;

	(void) state;
	source_path("docs/phcd.conf.5.md", path, sizeof(path));
	doc = fopen(path, "r");
	assert_non_null(doc);
	config_dump_keys(d);
	fclose(d);
	for (char *k = strtok_r(dump, "\n", &save); k; k = strtok_r(NULL, "\n", &save)) {
		char *def = strchr(strchr(k, '\t') + 1, '\t') + 1, want[512];
		bool found = false;

		*strchr(k, '\t') = '\0';
		*strchr(def, '\t') = '\0';
		bool empty = strcmp(def, "(empty)") == 0;
		char none[512];

		snprintf(want, sizeof(want), "| `%s` | %s |", k, def);
		snprintf(none, sizeof(none), "| `%s` | (none) |", k);
		rewind(doc);
		while (getline(&line, &line_size, doc) > 0) {
			found = found || strncmp(line, want, strlen(want)) == 0 ||
				(empty && strncmp(line, none, strlen(none)) == 0);
		}
		if (!found) {
			print_error("docs/phcd.conf.5.md has no row starting %s\n", want);
		}
		assert_true(found);
	}
	rewind(doc);
	while (getline(&line, &line_size, doc) > 0) {
		char name[256];

		if (strncmp(line, "## ", 3) == 0) {
			in_keys = strstr(line, " keys") != NULL;
		} else if (in_keys && sscanf(line, "| `%255[^`]` |", name) == 1) {
			if (!config_keys_find(name, false)) {
				print_error("docs/phcd.conf.5.md documents '%s', which phcd does "
					    "not read\n",
					    name);
			}
			assert_non_null(config_keys_find(name, false));
			rows++;
		}
	}
	assert_true(rows > 50);
	free(line);
	free(dump);
	fclose(doc);
}

/* docs/phcd.conf.example is the sample users copy: it must load. */
static void test_example_config(void **state)
{
	char path[8192];

	(void) state;
	source_path("docs/phcd.conf.example", path, sizeof(path));
	FILE *out = tmpfile();
	char buf[4096] = { 0 };
	int r;

	assert_non_null(out);
	r = config_check(&(struct config_source){ .path = path }, out);
	rewind(out);
	assert_true(fread(buf, 1, sizeof(buf) - 1, out) > 0);
	fclose(out);
	if (r != 0) {
		fail_msg("expected %s to check OK, got %d:\n%s", path, r, buf);
	}
	assert_non_null(strstr(buf, ": OK, 1 file(s), 2 instance(s)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resolution, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acceptable_masters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dst_mac, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_g8275_1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_defaults_match_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff, setup, teardown),
		cmocka_unit_test(test_keys_documented),
		cmocka_unit_test(test_example_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
