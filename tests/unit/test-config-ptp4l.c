/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linuxptp files through ptp4l_config: the line syntax, the verdict of each kind of key, the
 * layers (phcd.conf over its linuxptp file), and every error naming file:line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/config-diff.h"
#include "common/config-file.h"
#include "common/config-ptp4l.h"

#include "tests/unit/config-fixture.h"

static void write_bytes(const char *path, const char *text, size_t n)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* Load phcd.conf (NULL: the bare linuxptp file) with ptp4l.cfg; the result, errors, report. */
struct result {
	int r;
	struct config *c;
	char *errors;
	char *report;
};

static struct result load(struct fixture *f, const char *conf, const char *ptp4l)
{
	struct result res = { 0 };

	if (ptp4l) {
		write_bytes(f->ptp4l, ptp4l, strlen(ptp4l));
	}
	if (conf) {
		write_bytes(f->path, conf, strlen(conf));
		res.r = config_load(
			&(struct config_source){ .path = f->path, .dropin_dir = "/nonexistent" },
			&res.c, &res.errors, &res.report);
	} else {
		res.r = config_load(&(struct config_source){ .ptp4l_path = f->ptp4l }, &res.c,
				    &res.errors, &res.report);
	}
	return res;
}

static void result_free(struct result *res)
{
	config_free(res->c);
	free(res->errors);
	free(res->report);
}

/* text holds "PATH:LINE: rest..." (rest a prefix of what follows). */
static void assert_line(const char *text, const char *path, unsigned line, const char *rest)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s:%u: %s", path, line, rest);
	if (!text || !strstr(text, want)) {
		fail_msg("expected \"%s\" in:\n%s", want, text ? text : "(nothing)");
	}
}

/* Every line of errors starts with one of the files, a line number and ": ". */
static void assert_every_line_positioned(const struct fixture *f, const char *errors)
{
	for (const char *p = errors; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = strlen(f->dir);
		char *end;

		if (strncmp(p, f->dir, n) != 0 || !strchr(p + n, ':') ||
		    strtoul(strchr(p + n, ':') + 1, &end, 10) == 0 || strncmp(end, ": ", 2) != 0) {
			fail_msg("an error without file:line: %.*s", (int) (nl ? nl - p : 80), p);
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
}

struct line_case {
	const char *line;
	enum ptp4l_line_kind kind;
	const char *a, *b; /* SECTION: the name; KEY: key and value; ERROR: part of the message */
};

static const struct line_case line_cases[] = {
	{ "  \t # a comment", PTP4L_LINE_BLANK },
	{ "", PTP4L_LINE_BLANK },
	{ "[global]\r", PTP4L_LINE_SECTION, "global" },
	{ "  [eth0]  # port", PTP4L_LINE_SECTION, "eth0" },
	{ "logSyncInterval\t\t-3   # fast", PTP4L_LINE_KEY, "logSyncInterval", "-3" },
	{ "productDescription ;; two words \r", PTP4L_LINE_KEY, "productDescription",
	  ";; two words" },
	{ "userDescription caf\xc3\xa9", PTP4L_LINE_KEY, "userDescription", "caf\xc3\xa9" },
	{ "priority1", PTP4L_LINE_ERROR, "without a value" },
	{ "priority1   # no value", PTP4L_LINE_ERROR, "without a value" },
	{ "[eth0", PTP4L_LINE_ERROR, "malformed section header" },
	{ "[]", PTP4L_LINE_ERROR, "malformed section header" },
	{ "[eth 0]", PTP4L_LINE_ERROR, "blanks or brackets" },
	{ "userDescription caf\xe9", PTP4L_LINE_ERROR, "UTF-8" },
	{ "fr\r\robnicate 1", PTP4L_LINE_ERROR, "control characters" },
	{ "userDescription \x1b[31m", PTP4L_LINE_ERROR, "control characters" },
};

static void test_parse_line(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
		const struct line_case *c = &line_cases[i];
		struct ptp4l_line l;
		char buf[128];
		bool ok;

		snprintf(buf, sizeof(buf), "%s", c->line);
		ok = ptp4l_parse_line(buf, &l) == c->kind && l.kind == c->kind;
		if (ok && c->kind == PTP4L_LINE_SECTION) {
			ok = strcmp(l.section, c->a) == 0;
		} else if (ok && c->kind == PTP4L_LINE_KEY) {
			ok = strcmp(l.key, c->a) == 0 && strcmp(l.value, c->b) == 0;
		} else if (ok && c->kind == PTP4L_LINE_ERROR) {
			ok = strstr(l.error, c->a) != NULL;
		}
		if (!ok) {
			fail_msg("\"%s\": expected kind %d (%s %s), got %d (%s %s)", c->line,
				 c->kind, c->a ? c->a : "", c->b ? c->b : "", l.kind,
				 l.section ? l.section
				 : l.key   ? l.key
				 : l.error ? l.error
					   : "",
				 l.value ? l.value : "");
		}
	}
}

struct map_case {
	const char *name, *value;
	enum ptp4l_verdict verdict;
	const char *key;       /* the phcd key set, NULL: none */
	const char *value_set; /* NULL: value */
};

static const struct map_case map_cases[] = {
	{ "transportSpecific", "0x1", PTP4L_HONOURED, "transportSpecific" },
	{ "clientOnly", "1", PTP4L_HONOURED, "slaveOnly" },
	{ "serverOnly", "1", PTP4L_HONOURED, "masterOnly" },
	{ "free_running", "1", PTP4L_HONOURED, "clock_backend", "free_running" },
	{ "free_running", "0", PTP4L_HONOURED },
	{ "free_running", "2", PTP4L_REFUSED },
	/* Values compare as numbers when both are, else as names ignoring case. */
	{ "pi_proportional_scale", "0.0", PTP4L_HONOURED },
	{ "pi_proportional_scale", "0.5", PTP4L_REFUSED },
	{ "clock_type", "bc", PTP4L_HONOURED },
	{ "clock_type", "E2E_TC", PTP4L_REFUSED },
	{ "freq_est_interval", "1", PTP4L_IGNORED },
	{ "freq_est_interval", "3", PTP4L_REFUSED },
	{ "use_syslog", "0", PTP4L_IGNORED },
	{ "boundary_clock_jbod", "1", PTP4L_HONOURED },
	{ "boundary_clock_jbod", "0", PTP4L_IGNORED },
};

static void test_map(void **state)
{
	struct ptp4l_map m;

	(void) state;
	for (size_t i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		const struct map_case *c = &map_cases[i];

		assert_int_equal(ptp4l_map_key(c->name, c->value, &m), 0);
		if (m.verdict != c->verdict || (m.key == NULL) != (c->key == NULL) ||
		    (c->key && (strcmp(m.key->name, c->key) != 0 ||
				strcmp(m.value, c->value_set ? c->value_set : c->value) != 0))) {
			fail_msg("%s %s: expected %s%s%s, got %s%s%s", c->name, c->value,
				 ptp4l_verdict_to_string(c->verdict), c->key ? " as " : "",
				 c->key ? c->key : "", ptp4l_verdict_to_string(m.verdict),
				 m.key ? " as " : "", m.key ? m.key->name : "");
		}
		/* Every verdict but a phcd key's says why. */
		assert_true(m.key || m.reason);
	}
	assert_int_equal(ptp4l_map_key("no_such_key", "1", &m), -ENOENT);
}

/* Every phcd key the table names exists, and every ptp4l key is in phcd.conf(5). */
static void test_table_and_docs(void **state)
{
	const char *data = getenv("PHCD_TEST_DATA");
	char *dump = NULL, *docs = NULL, path[4096];
	size_t dump_size = 0, n = 0;
	FILE *out = open_memstream(&dump, &dump_size), *fp;

	(void) state;
	assert_non_null(out);
	ptp4l_dump_keys(out);
	assert_int_equal(fclose(out), 0);
	assert_non_null(data);
	snprintf(path, sizeof(path), "%s/../../docs/phcd.conf.5.md", data);
	fp = fopen(path, "re");
	assert_non_null(fp);
	assert_int_equal(getdelim(&docs, &n, '\0', fp) > 0, 1);
	fclose(fp);
	for (char *line = strtok(dump, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128], kind[16], phcd[128], want[160];

		assert_int_equal(sscanf(line, "%127[^\t]\t%15[^\t]\t%127[^\t]", name, kind, phcd),
				 3);
		if (strcmp(kind, "map") == 0 && !config_keys_find(phcd, false)) {
			fail_msg("ptp4l key %s maps to %s, which is no phcd key", name, phcd);
		}
		snprintf(want, sizeof(want), "`%s`", name);
		if (!strstr(strstr(docs, "## linuxptp files"), want)) {
			fail_msg("ptp4l key %s is not in phcd.conf(5)'s linuxptp files", name);
		}
		/* A key without a phcd key: its row, with the table's reason word for word. */
		if (strcmp(kind, "same") == 0) {
			const char *reason = strrchr(line, '\t') + 1;
			char row[1024];

			snprintf(row, sizeof(row), "| `%s` | ", name);
			if (!strstr(docs, row) || !strstr(strstr(docs, row), reason) ||
			    strchr(strstr(docs, row), '\n') < strstr(strstr(docs, row), reason)) {
				fail_msg("phcd.conf(5) has no row %s... with the reason \"%s\"",
					 row, reason);
			}
		}
	}
	free(dump);
	free(docs);
}

/*
 * ptp4l's default transport is UDPv4, phcd's L2: a linuxptp file that names none runs over UDPv4
 * (as ptp4l runs it), one that names one runs over it, and phcd.conf's own key still wins.
 */
static void test_transport_default(void **state)
{
	static const struct {
		const char *conf, *ptp4l;
		enum options_transport want;
		bool defaulted; /* the file's [global] names none: the report says UDPv4 came */
	} cases[] = {
		{ "", "[global]\npriority1 3\n", OPTIONS_TRANSPORT_UDPV4, true },
		{ "", "[global]\nnetwork_transport L2\n", OPTIONS_TRANSPORT_L2, false },
		{ "", "[global]\nnetwork_transport UDPv6\nudp6_scope 0x05\n",
		  OPTIONS_TRANSPORT_UDPV6, false },
		{ "", "[global]\n[eth0]\nnetwork_transport L2\n", OPTIONS_TRANSPORT_L2, true },
		{ "network_transport = L2\n", "[global]\npriority1 3\n", OPTIONS_TRANSPORT_L2,
		  true },
		{ "network_transport = UDPv6\n", "[global]\nnetwork_transport UDPv4\n",
		  OPTIONS_TRANSPORT_UDPV6, false },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char conf[256];
		struct port_options p;
		struct result res;

		snprintf(conf, sizeof(conf),
			 "[global]\nptp4l_config = ptp4l.cfg\ninterfaces = eth0\n%s",
			 cases[i].conf);
		res = load(f, conf, cases[i].ptp4l);
		if (res.r != 0) {
			fail_msg("case %zu: expected it to load: %s", i, res.errors);
		}
		assert_int_equal(config_port_options(res.c, "default", "eth0", &p), 0);
		if (p.network_transport != cases[i].want) {
			fail_msg("case %zu: expected %s, got %s", i,
				 options_transport_to_string(cases[i].want),
				 options_transport_to_string(p.network_transport));
		}
		/* The report says where the transport came from when the file names none. */
		if (cases[i].defaulted !=
		    (res.report && strstr(res.report, ": no network_transport: "
						      "UDPv4, ptp4l's default"))) {
			fail_msg("case %zu: the report %s the default: %s", i,
				 cases[i].defaulted ? "lacks" : "names",
				 res.report ? res.report : "(none)");
		}
		if (i == 2 && p.udp6_scope != 5) {
			fail_msg("udp6_scope 0x05: expected 5, got %u", p.udp6_scope);
		}
		result_free(&res);
	}
	/* Without ptp4l_config, phcd's default: L2. */
	{
		struct result res = load(f, "[global]\ninterfaces = eth0\n", NULL);
		struct port_options p;

		assert_int_equal(res.r, 0);
		assert_int_equal(config_port_options(res.c, "default", "eth0", &p), 0);
		assert_int_equal(p.network_transport, OPTIONS_TRANSPORT_L2);
		assert_int_equal(p.udp_ttl, 1);
		assert_int_equal(p.udp6_scope, 0x0e);
		result_free(&res);
	}
}

static void test_shipped_like(void **state)
{
	struct fixture *f = *state;
	struct result res;
	struct port_options p;

	/* A file in ptp4l's style, with its sections, comments and blank lines. */
	res = load(f, "[global]\nptp4l_config = ptp4l.cfg\n",
		   "#\n# gPTP\n#\n[global]\ngmCapable\t\t1\npriority1\t\t248\n\n"
		   "transportSpecific\t0x1   # 802.1AS\nlogSyncInterval -3\nuse_syslog 0\n"
		   "[eth1]\nlogSyncInterval -5\n[eth2]\n");
	if (res.r != 0) {
		fail_msg("expected it to load: %s", res.errors);
	}
	assert_line(res.report, f->ptp4l, 5, "gmCapable 1: honoured (as phcd key gmCapable = 1)");
	assert_line(res.report, f->ptp4l, 8,
		    "transportSpecific 0x1: honoured (as phcd key transportSpecific = 0x1)");
	assert_line(res.report, f->ptp4l, 10, "use_syslog 0: not honoured (warning, the key is ");
	assert_line(res.report, f->ptp4l, 11, "eth1: honoured (a port");
	assert_line(res.c->warnings, f->ptp4l, 10, "use_syslog 0: not honoured");
	assert_int_equal(res.c->instances[0].options.priority1, 248);
	assert_int_equal(res.c->instances[0].options.interfaces.n_names, 2);
	assert_string_equal(res.c->instances[0].options.interfaces.names[0], "eth1");
	assert_int_equal(config_port_options(res.c, "default", "eth1", &p), 0);
	assert_int_equal(p.logSyncInterval, -5);
	assert_int_equal(p.transportSpecific, 1);
	assert_int_equal(config_port_options(res.c, "default", "eth2", &p), 0);
	assert_int_equal(p.logSyncInterval, -3);
	result_free(&res);
}

/* phcd.conf over its linuxptp file; a port's section over the global ones, in either file. */
static void test_precedence(void **state)
{
	struct fixture *f = *state;
	struct result res;
	struct port_options p;
	char other[160];

	snprintf(other, sizeof(other), "%s/inst.cfg", f->dir);
	write_bytes(other,
		    "[global]\npriority2 7\nlogSyncInterval -2\ndomainNumber 9\n"
		    "logging_level 7\n[eth0]\nlogAnnounceInterval -1\n",
		    strlen("[global]\npriority2 7\nlogSyncInterval -2\ndomainNumber 9\n"
			   "logging_level 7\n[eth0]\nlogAnnounceInterval -1\n"));
	res = load(f,
		   "[global]\nptp4l_config = ptp4l.cfg\npriority1 = 100\n"
		   "[instance a]\nptp4l_config = inst.cfg\ninterfaces = eth0, eth1\n"
		   "domainNumber = 3\n[interface eth0]\nlogAnnounceInterval = 2\n",
		   "[global]\npriority1 200\npriority2 200\nlogSyncInterval -4\nlogging_level 5\n"
		   "[eth1]\nlogSyncInterval 1\n");
	if (res.r != 0) {
		fail_msg("expected it to load: %s", res.errors);
	}
	assert_int_equal(res.c->daemon.logging_level, 5);
	assert_int_equal(res.c->instances[0].options.priority1, 100);
	assert_int_equal(res.c->instances[0].options.priority2, 7);
	assert_int_equal(res.c->instances[0].options.domainNumber, 3);
	assert_int_equal(res.c->instances[0].port.logSyncInterval, -2);
	assert_line(res.report, f->ptp4l, 2, "phcd key priority1: overridden by ");
	assert_line(res.c->warnings, other, 5, "logging_level 7: not honoured (warning");
	assert_int_equal(config_port_options(res.c, "a", "eth0", &p), 0);
	assert_int_equal(p.logAnnounceInterval, 2);
	assert_int_equal(p.logSyncInterval, -2);
	assert_int_equal(config_port_options(res.c, "a", "eth1", &p), 0);
	assert_int_equal(p.logSyncInterval, 1);
	result_free(&res);
}

struct error_case {
	const char *what;
	const char *ptp4l;
	unsigned line;
	const char *expect;
};

static const struct error_case error_cases[] = {
	{ "missing value", "[global]\npriority1\n", 2, "a key without a value" },
	{ "unknown key", "[global]\n\nfrobnicate 1\n", 3,
	  "frobnicate 1: not honoured: unknown key \"frobnicate\"" },
	{ "out of range", "[global]\npriority1 300\n", 2,
	  "priority1 300: not honoured: out of range for phcd key priority1" },
	{ "no such transport", "[global]\nnetwork_transport UDPv5\n", 2,
	  "network_transport UDPv5: not honoured: not a valid value for phcd key "
	  "network_transport" },
	{ "DSCP beyond 6 bits", "[global]\ndscp_general 64\n", 2,
	  "dscp_general 64: not honoured: out of range for phcd key dscp_general" },
	{ "nullf", "[global]\nclock_servo nullf\n", 2,
	  "clock_servo nullf: not honoured: phcd implements the pi, linreg and refclock_sock "
	  "servos "
	  "only" },
	{ "transparent clock", "[global]\nclock_type E2E_TC\n", 2,
	  "clock_type E2E_TC: not honoured: phcd is an ordinary clock" },
	{ "outside a section", "priority1 3\n", 1, "key \"priority1\" outside of any section" },
	{ "duplicate table_id",
	  "[global]\n[unicast_master_table]\ntable_id 1\n"
	  "[unicast_master_table]\ntable_id 1\n",
	  5, "table_id 1: duplicate table_id 1 (first at " },
	{ "table without table_id", "[global]\n[unicast_master_table]\nlogQueryInterval 1\n", 2,
	  "[unicast_master_table] without a table_id" },
	{ "line before table_id", "[global]\n[unicast_master_table]\nUDPv4 192.0.2.1\ntable_id 1\n",
	  3, "UDPv4 192.0.2.1: before the table_id, expected table_id first" },
	{ "table_id 0", "[global]\n[unicast_master_table]\ntable_id 0\n", 3,
	  "table_id 0: expected a table_id from 1 to 2147483647" },
	{ "table_id not a number", "[global]\n[unicast_master_table]\ntable_id 1x\n", 3,
	  "table_id 1x: expected a table_id" },
	{ "second table_id", "[global]\n[unicast_master_table]\ntable_id 1\ntable_id 2\n", 4,
	  "table_id 2: a second table_id in one [unicast_master_table]" },
	{ "logQueryInterval 8",
	  "[global]\n[unicast_master_table]\ntable_id 1\nlogQueryInterval 8\n", 4,
	  "logQueryInterval 8: expected a logQueryInterval from -7 to 7" },
	{ "IPv4 octet 256", "[global]\n[unicast_master_table]\ntable_id 1\nUDPv4 192.168.1.256\n",
	  4, "UDPv4 192.168.1.256: not an address, expected a unicast IPv4 address" },
	{ "IPv4 multicast", "[global]\n[unicast_master_table]\ntable_id 1\nUDPv4 224.0.1.129\n", 4,
	  "UDPv4 224.0.1.129: not a unicast address" },
	{ "IPv6 with a zone", "[global]\n[unicast_master_table]\ntable_id 1\nUDPv6 fe80::1%eth0\n",
	  4, "UDPv6 fe80::1%eth0: not an address, expected a unicast IPv6 address" },
	{ "short MAC", "[global]\n[unicast_master_table]\ntable_id 1\nL2 00:11:22:33:44\n", 4,
	  "L2 00:11:22:33:44: not an address" },
	{ "group MAC", "[global]\n[unicast_master_table]\ntable_id 1\nL2 01:1b:19:00:00:00\n", 4,
	  "L2 01:1b:19:00:00:00: not a unicast address" },
	{ "address twice",
	  "[global]\n[unicast_master_table]\ntable_id 1\nUDPv4 192.0.2.1\nudpv4 192.0.2.1\n", 5,
	  "udpv4 192.0.2.1: the address is in the table already" },
	{ "second peer_address",
	  "[global]\n[unicast_master_table]\ntable_id 1\npeer_address 192.0.2.1\npeer_address "
	  "192.0.2.2\n",
	  5, "peer_address 192.0.2.2: a second peer_address" },
	{ "unknown table line", "[global]\n[unicast_master_table]\ntable_id 1\nUDS /tmp/x\n", 4,
	  "UDS /tmp/x: unknown line in [unicast_master_table]" },
	{ "a port naming a missing table", "[global]\n[eth0]\nunicast_master_table 7\n", 3,
	  "unicast_master_table 7: no [unicast_master_table] has that table_id" },
	{ "a table of another transport than the port's",
	  "[global]\n[unicast_master_table]\ntable_id 1\nL2 00:11:22:33:44:55\n[eth0]\n"
	  "unicast_master_table 1\n",
	  2,
	  "[unicast_master_table] table_id 1 lists L2 00:11:22:33:44:55, but port eth0 (instance "
	  "default) runs over UDPv4" },
	{ "unicast_listen with P2P refused",
	  "[global]\nunicast_listen 1\ndelay_mechanism P2P\n[eth0]\n", 2,
	  "unicast_listen: unicast negotiation: not supported with delay_mechanism P2P (port "
	  "eth0)" },
	{ "unicast_req_duration below ptp4l's 10", "[global]\nunicast_req_duration 9\n", 2,
	  "unicast_req_duration 9: not honoured: out of range for phcd key unicast_req_duration" },
	{ "global key in a port section", "[global]\n[eth0]\npriority1 3\n", 3,
	  "priority1 3: not honoured: priority1 is not a port key" },
	{ "duplicate port section", "[global]\n[eth0]\n[eth0]\n", 3, "duplicate [eth0]" },
	{ "bad interface name", "[global]\n[a/b]\n", 2, "invalid section [a/b]" },
	{ "not UTF-8", "[global]\nuserDescription \xff\xfe\n", 2, "bytes that are not UTF-8" },
	{ "a combination, at the linuxptp line", "[global]\n#\nBMCA noop\n", 3,
	  "instance default: BMCA noop with neither masterOnly nor slaveOnly" },
	{ "NUL byte", "[global]\nuserDescription a\0b\n", 2,
	  "line is too long or contains a NUL byte" },
};

static void test_errors(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		const struct error_case *e = &error_cases[i];
		struct result res;
		size_t n = strlen(e->ptp4l);

		/* The NUL case: its text goes on past the NUL. */
		if (strstr(e->what, "NUL")) {
			n += strlen(e->ptp4l + n + 1) + 1;
		}
		write_bytes(f->ptp4l, e->ptp4l, n);
		res = load(f, "[global]\nptp4l_config = ptp4l.cfg\n", NULL);
		if (res.r != -EINVAL) {
			fail_msg("%s: expected -EINVAL, got %d", e->what, res.r);
		}
		assert_null(res.c);
		assert_line(res.errors, f->ptp4l, e->line, e->expect);
		assert_every_line_positioned(f, res.errors);
		result_free(&res);
	}
}

/*
 * linuxptp's UNICAST-SLAVE.cfg as it is: every line of its tables honoured in the report, its L2
 * port (eth1) too, and no error; the same with P2P on eth1 is refused once, at the line of its
 * table (unicast Pdelay_Resp is not negotiated).
 */
static void test_unicast_slave(void **state)
{
	static const char text[] = "[global]\n"
				   "unicast_req_duration	60\n"
				   "[unicast_master_table]\n"
				   "table_id		1\n"
				   "logQueryInterval	2\n"
				   "UDPv4			192.168.1.11\n"
				   "UDPv4			192.168.2.22\n"
				   "[unicast_master_table]\n"
				   "table_id		2\n"
				   "L2			00:11:22:33:44:55\n"
				   "[unicast_master_table]\n"
				   "table_id		3\n"
				   "peer_address		192.168.4.44\n"
				   "UDPv6			2001:db8::44\n"
				   "[eth0]\n"
				   "unicast_master_table	1\n"
				   "[eth1]\n"
				   "network_transport	L2\n"
				   "unicast_master_table	2\n";
	static const char p2p[] = "delay_mechanism		P2P\n";
	char both[sizeof(text) + sizeof(p2p)];
	struct fixture *f = *state;
	struct result res;
	size_t n = 0;

	write_bytes(f->ptp4l, text, sizeof(text) - 1);
	res = load(f, NULL, NULL);
	if (res.r != 0) {
		fail_msg("UNICAST-SLAVE.cfg: expected it loaded, got %d: %s", res.r,
			 res.errors ? res.errors : "");
	}
	assert_line(res.report, f->ptp4l, 4, "table_id 1: honoured (unicast master table 1)");
	assert_line(res.report, f->ptp4l, 5,
		    "logQueryInterval 2: honoured (table 1 is asked every");
	assert_line(res.report, f->ptp4l, 7,
		    "UDPv4 192.168.2.22: honoured (a master of unicast master table 1, entry 2)");
	assert_line(res.report, f->ptp4l, 10, "L2 00:11:22:33:44:55: honoured (a master of");
	assert_line(res.report, f->ptp4l, 13, "peer_address 192.168.4.44: honoured (the P2P peer");
	assert_line(res.report, f->ptp4l, 14, "UDPv6 2001:db8::44: honoured (a master of");
	assert_line(res.report, f->ptp4l, 16, "unicast_master_table 1: honoured (as phcd key");
	assert_line(res.report, f->ptp4l, 18, "network_transport L2: honoured (as phcd key");
	assert_line(res.report, f->ptp4l, 19, "unicast_master_table 2: honoured (as phcd key");
	result_free(&res);

	snprintf(both, sizeof(both), "%s%s", text, p2p);
	write_bytes(f->ptp4l, both, strlen(both));
	res = load(f, NULL, NULL);
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->ptp4l, 19,
		    "unicast_master_table: unicast negotiation: not supported with delay_mechanism "
		    "P2P (port eth1)");
	for (const char *p = res.errors; p && *p; p = strchr(p, '\n') + 1) {
		n++;
	}
	assert_int_equal(n, 1);
	result_free(&res);
}

static void test_long_and_huge(void **state)
{
	struct fixture *f = *state;
	struct result res;
	char *text = malloc(CONFIG_FILE_MAX + 100);
	size_t n;

	assert_non_null(text);
	/* A line of 1024 characters; one of 1023 is fine. */
	n = (size_t) sprintf(text, "[global]\nuserDescription ");
	memset(text + n, 'x', PTP4L_LINE_MAX - 16);
	n += PTP4L_LINE_MAX - 16;
	n += (size_t) sprintf(text + n, "\nuserDescription ");
	memset(text + n, 'y', PTP4L_LINE_MAX - 15);
	n += PTP4L_LINE_MAX - 15;
	text[n++] = '\n';
	write_bytes(f->ptp4l, text, n);
	res = load(f, NULL, NULL);
	assert_int_equal(res.r, -EINVAL);
	/* The first line is read (phcd's userDescription is shorter: ignored, cosmetic). */
	assert_line(res.report, f->ptp4l, 2, "userDescription xxx");
	assert_non_null(strstr(res.report, "x: not honoured (warning"));
	assert_line(res.errors, f->ptp4l, 3, "line is too long");
	result_free(&res);

	/* Beyond 1 MiB: refused before reading. */
	memset(text, '#', CONFIG_FILE_MAX + 1);
	write_bytes(f->ptp4l, text, CONFIG_FILE_MAX + 1);
	res = load(f, "[global]\nptp4l_config = ptp4l.cfg\n", NULL);
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->path, 2, "ptp4l_config ");
	assert_non_null(strstr(res.errors, "is larger than 1 MiB"));
	result_free(&res);
	free(text);

	/* Only a regular file. */
	assert_int_equal(unlink(f->ptp4l), 0);
	assert_int_equal(mkdir(f->ptp4l, 0755), 0);
	res = load(f, "[global]\nptp4l_config = ptp4l.cfg\n", NULL);
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->path, 2, "ptp4l_config ");
	assert_non_null(strstr(res.errors, "is a directory"));
	result_free(&res);
}

/* The warnings the daemon logs are bounded as errors are; the report lists every line. */
static void test_warnings_bounded(void **state)
{
	struct fixture *f = *state;
	struct result res;
	char *text = malloc(64 * 20 + 16), *p = text;
	size_t lines = 0;

	assert_non_null(text);
	p += sprintf(p, "[global]\n");
	for (int i = 0; i < 60; i++) {
		p += sprintf(p, "verbose %d\n", i % 2);
	}
	res = load(f, NULL, text);
	assert_int_equal(res.r, 0);
	for (const char *q = res.c->warnings; (q = strchr(q, '\n')); q++) {
		lines++;
	}
	assert_int_equal(lines, CONFIG_ERRORS_MAX + 1);
	assert_non_null(strstr(res.c->warnings, "... and 10 more ignored keys"));
	assert_line(res.report, f->ptp4l, 61, "verbose 1: not honoured (warning");
	result_free(&res);
	free(text);
}

static void test_duplicate_key(void **state)
{
	struct fixture *f = *state;
	struct result res;

	res = load(f, NULL, "[global]\npriority1 10\npriority1 20\n");
	assert_int_equal(res.r, 0);
	assert_int_equal(res.c->instances[0].options.priority1, 20);
	assert_line(res.report, f->ptp4l, 3,
		    "priority1 20: honoured (as phcd key priority1 = 20; line 2's value is "
		    "overridden, as in ptp4l)");
	result_free(&res);
}

static void test_where_allowed(void **state)
{
	struct fixture *f = *state;
	struct result res;

	res = load(f,
		   "[global]\nptp4l_config = ptp4l.cfg\nptp4l_config = ptp4l.cfg\n"
		   "[instance a]\n[interface eth0]\nptp4l_config = ptp4l.cfg\n"
		   "[instance b]\nptp4l_config =\n",
		   "[global]\n");
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->path, 3, "a second ptp4l_config for this section");
	assert_line(res.errors, f->path, 6, "key \"ptp4l_config\" is not valid in this section");
	assert_line(res.errors, f->path, 8, "ptp4l_config without a path");
	assert_every_line_positioned(f, res.errors);
	result_free(&res);

	/* Absent: named at phcd.conf's line. */
	res = load(f, "[global]\nptp4l_config = nothere.cfg\n", NULL);
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->path, 2, "ptp4l_config ");
	assert_non_null(strstr(res.errors, "nothere.cfg: cannot open: No such file"));
	result_free(&res);
}

/*
 * An instance's ptp4l_config layer exists only for an instance that names a file (3.3 kB each,
 * docs/performance.md), and the others read as if it were empty.
 */
static void test_instance_layer_when_named(void **state)
{
	struct fixture *f = *state;
	struct result res;

	res = load(f,
		   "[instance a]\nptp4l_config = ptp4l.cfg\ninterfaces = eth0\n"
		   "[instance b]\ninterfaces = eth1\n",
		   "[global]\npriority2 7\n");
	if (res.r != 0) {
		fail_msg("expected it to load: %s", res.errors);
	}
	assert_int_equal(res.c->n_instances, 2);
	assert_non_null(res.c->instances[0].ptp4l);
	assert_int_equal(res.c->instances[0].ptp4l->section.line, 2);
	assert_int_equal(res.c->instances[0].options.priority2, 7);
	assert_null(res.c->instances[1].ptp4l);
	assert_int_equal(config_instance_ptp4l(&res.c->instances[1])->section.line, 0);
	assert_int_equal(res.c->instances[1].options.priority2, 128);
	result_free(&res);
}

/* A combination that cannot work, in a linuxptp [IFNAME] section: named at its line. */
static void test_port_combination(void **state)
{
	struct fixture *f = *state;
	struct result res;

	res = load(f,
		   "[global]\nclock_backend = system\ntime_stamping = software\n"
		   "ptp4l_config = ptp4l.cfg\n",
		   "[global]\n[eth0]\ntime_stamping hardware\n");
	assert_int_equal(res.r, -EINVAL);
	assert_line(res.errors, f->ptp4l, 3,
		    "instance default has clock_backend = system, which takes software "
		    "timestamps, but time_stamping is hardware (interface eth0)");
	result_free(&res);
}

/* A reload reads the linuxptp file again: a changed key is a changed instance or port. */
static void test_reload_diff(void **state)
{
	struct fixture *f = *state;
	struct result a, b, c;

	a = load(f, "[instance x]\nptp4l_config = ptp4l.cfg\ninterfaces = eth0\n",
		 "[global]\npriority1 10\nlogSyncInterval -3\n");
	b = load(f, "[instance x]\nptp4l_config = ptp4l.cfg\ninterfaces = eth0\n",
		 "[global]\npriority1 20\nlogSyncInterval -3\n");
	c = load(f, "[instance x]\nptp4l_config = ptp4l.cfg\ninterfaces = eth0\n",
		 "[global]\npriority1 20\nlogSyncInterval -4\n");
	assert_int_equal(a.r, 0);
	assert_int_equal(b.r, 0);
	assert_int_equal(c.r, 0);
	assert_int_equal(config_diff_instance(a.c, b.c, "x"), CONFIG_CHANGED);
	assert_true(config_instance_priorities_only(a.c, b.c, "x"));
	assert_int_equal(config_diff_port(a.c, b.c, "x", "eth0"), CONFIG_UNCHANGED);
	assert_int_equal(config_diff_port(b.c, c.c, "x", "eth0"), CONFIG_CHANGED);
	result_free(&a);
	result_free(&b);
	result_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_table_and_docs),
		cmocka_unit_test_setup_teardown(test_shipped_like, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transport_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unicast_slave, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_and_huge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warnings_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_where_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_combination, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instance_layer_when_named, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
