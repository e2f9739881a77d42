/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linuxptp configuration files: their line syntax, and phcd's verdict on each of ptp4l's keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/config-ptp4l.h"
#include "common/utf8.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

enum ptp4l_line_kind ptp4l_parse_line(char *line, struct ptp4l_line *ret)
{
	char *p, *end;
	size_t n;

	memset(ret, 0, sizeof(*ret));
	/* A CRLF file's CR; one anywhere else is a control character. */
	n = strlen(line);
	if (n > 0 && line[n - 1] == '\r') {
		line[n - 1] = '\0';
	}
	for (const unsigned char *u = (const unsigned char *) line; *u; u += n) {
		n = utf8_len(u);
		if (n == 0 || (n == 1 && *u < 0x20 && *u != '\t') || *u == 0x7F) {
			ret->error =
				"bytes that are not UTF-8 text (or control characters), expected "
				"a text line";
			return ret->kind = PTP4L_LINE_ERROR;
		}
	}
	p = strchr(line, '#');
	if (p) {
		*p = '\0';
	}
	p = line;
	while (is_blank(*p)) {
		p++;
	}
	end = p + strlen(p);
	while (end > p && is_blank(end[-1])) {
		*--end = '\0';
	}
	if (*p == '\0') {
		return ret->kind = PTP4L_LINE_BLANK;
	}
	if (*p == '[') {
		if (end[-1] != ']' || end - p < 3) {
			ret->error = "a malformed section header, expected [global], [IFNAME] or "
				     "[unicast_master_table]";
			return ret->kind = PTP4L_LINE_ERROR;
		}
		end[-1] = '\0';
		p++;
		if (strpbrk(p, " \t[]")) {
			ret->error = "blanks or brackets in a section name, expected [global] or "
				     "[IFNAME]";
			return ret->kind = PTP4L_LINE_ERROR;
		}
		ret->section = p;
		return ret->kind = PTP4L_LINE_SECTION;
	}
	ret->key = p;
	p += strcspn(p, " \t");
	if (*p == '\0') {
		ret->error = "a key without a value, expected \"key value\" (a blank between them)";
		return ret->kind = PTP4L_LINE_ERROR;
	}
	*p++ = '\0';
	while (is_blank(*p)) {
		p++;
	}
	ret->value = p;
	return ret->kind = PTP4L_LINE_KEY;
}

const char *ptp4l_verdict_to_string(enum ptp4l_verdict v)
{
	switch (v) {
	case PTP4L_HONOURED:
		return "honoured";
	case PTP4L_IGNORED:
		return "ignored";
	case PTP4L_REFUSED:
		return "refused";
	}
	return NULL;
}

enum ptp4l_kind {
	MAP,	  /* phcd's key of the same name (or phcd), with the same value */
	COSMETIC, /* MAP, and a value phcd's key refuses is only ignored */
	SAME,	  /* no phcd key: honoured for the values in same, ignored for those in ignore,
		     refused for any other */
	FREE_RUNNING,
};

/*
 * One row per key of linuxptp 3.1 and 4.2 that phcd knows. same and ignore are lists of values
 * separated by '|' ("*": any value); a value matches as a number when both parse as one
 * (0x0E = 14, 0.0 = 0), else by name, ignoring case.
 */
struct ptp4l_key {
	const char *name;
	enum ptp4l_kind kind;
	const char *phcd; /* MAP: phcd's key when its name differs */
	const char *same;
	const char *ignore;
	const char *reason;
};

#define NO_CLOCK_DESCRIPTION                                                              \
	"management CLOCK_DESCRIPTION, where ptp4l shows it, is not implemented in phcd " \
	"(docs/management.md); D-Bus Manager.Describe describes the daemon"

static const struct ptp4l_key ptp4l_keys[] = {
	/* Default data set. */
	{ "twoStepFlag", MAP, NULL, NULL, NULL, "phcd is a two-step clock only" },
	{ "slaveOnly", MAP },
	{ "clientOnly", MAP, "slaveOnly" },
	{ "socket_priority", MAP },
	{ "priority1", MAP },
	{ "priority2", MAP },
	{ "domainNumber", MAP },
	{ "utc_offset", MAP },
	{ "clockClass", MAP },
	{ "clockAccuracy", MAP },
	{ "offsetScaledLogVariance", MAP },
	{ "free_running", FREE_RUNNING },
	{ "freq_est_interval", SAME, NULL, NULL, "1",
	  "phcd measures neighborRateRatio from two consecutive Pdelay exchanges, with no "
	  "averaging interval to set" },
	{ "dscp_event", MAP },
	{ "dscp_general", MAP },
	{ "dataset_comparison", MAP },
	{ "G.8275.defaultDS.localPriority", MAP },
	{ "maxStepsRemoved", MAP },
	{ "gmCapable", MAP },
	{ "userDescription", COSMETIC },
	{ "timeSource", MAP },
	{ "clock_class_threshold", MAP },
	/* Port data set. */
	{ "logAnnounceInterval", MAP },
	{ "logSyncInterval", MAP },
	{ "operLogSyncInterval", MAP },
	{ "logMinDelayReqInterval", MAP },
	{ "logMinPdelayReqInterval", MAP },
	{ "operLogPdelayReqInterval", MAP },
	{ "announceReceiptTimeout", MAP },
	{ "syncReceiptTimeout", MAP },
	{ "delay_response_timeout", SAME, NULL, "0", NULL,
	  "phcd has no delay response timeout: a port whose Delay_Resp stay away is not made "
	  "FAULTY (0 turns ptp4l's off)" },
	{ "delayAsymmetry", MAP },
	{ "fault_reset_interval", MAP },
	{ "neighborPropDelayThresh", MAP },
	{ "min_neighbor_prop_delay", MAP },
	{ "masterOnly", MAP },
	{ "serverOnly", MAP, "masterOnly" },
	{ "G.8275.portDS.localPriority", MAP },
	{ "asCapable", MAP },
	{ "BMCA", MAP },
	{ "inhibit_announce", MAP },
	{ "inhibit_delay_req", MAP },
	{ "ignore_source_id", MAP },
	{ "power_profile.2011.grandmasterTimeInaccuracy", MAP },
	{ "power_profile.2011.networkTimeInaccuracy", MAP },
	{ "power_profile.2017.totalTimeInaccuracy", MAP },
	{ "power_profile.grandmasterID", MAP },
	{ "power_profile.version", MAP },
	{ "ptp_minor_version", SAME, NULL, "1", NULL,
	  "phcd sends minorVersionPTP 1 (IEEE 1588-2019) and has no key for another" },
	/* Run time options. */
	{ "assume_two_step", MAP },
	{ "logging_level", COSMETIC },
	{ "path_trace_enabled", MAP },
	{ "follow_up_info", MAP },
	{ "hybrid_e2e", MAP },
	{ "inhibit_multicast_service", MAP },
	{ "net_sync_monitor", SAME, NULL, "0", NULL,
	  "phcd does not take part in the network synchronization monitor (NSM) protocol" },
	{ "tc_spanning_tree", SAME, NULL, "0", NULL, "phcd is not a transparent clock" },
	{ "tx_timestamp_timeout", MAP },
	{ "unicast_listen", MAP },
	{ "unicast_master_table", MAP },
	{ "unicast_req_duration", MAP },
	{ "use_syslog", SAME, NULL, NULL, "*",
	  "phcd logs to the journal (or standard error); logging_level sets how much" },
	{ "verbose", SAME, NULL, NULL, "*",
	  "phcd logs to the journal (or standard error); logging_level sets how much" },
	{ "message_tag", SAME, NULL, NULL, "*",
	  "phcd's log lines name the program and the interface (phcd-port[...]: eth0: ...)" },
	{ "summary_interval", COSMETIC },
	{ "kernel_leap", SAME, NULL, "1", NULL,
	  "phcd lets the kernel apply a leap second to CLOCK_REALTIME (STA_INS/STA_DEL), with no "
	  "key to servo through it" },
	{ "check_fup_sync", SAME, NULL, "0", NULL,
	  "phcd pairs Sync and Follow_Up by sequenceId only, without ptp4l's order check" },
	/* Servo options. */
	{ "pi_proportional_const", MAP },
	{ "pi_integral_const", MAP },
	{ "pi_proportional_scale", SAME, NULL, "0", NULL,
	  "phcd picks the PI servo's scale by timestamping mode, as ptp4l's 0 does, with no key "
	  "to set it" },
	{ "pi_proportional_exponent", SAME, NULL, "-0.3", NULL,
	  "phcd's PI servo uses ptp4l's default exponent -0.3, with no key to set another" },
	{ "pi_proportional_norm_max", SAME, NULL, "0.7", NULL,
	  "phcd's PI servo uses ptp4l's default norm_max 0.7, with no key to set another" },
	{ "pi_integral_scale", SAME, NULL, "0", NULL,
	  "phcd picks the PI servo's scale by timestamping mode, as ptp4l's 0 does, with no key "
	  "to set it" },
	{ "pi_integral_exponent", SAME, NULL, "0.4", NULL,
	  "phcd's PI servo uses ptp4l's default exponent 0.4, with no key to set another" },
	{ "pi_integral_norm_max", SAME, NULL, "0.3", NULL,
	  "phcd's PI servo uses ptp4l's default norm_max 0.3, with no key to set another" },
	{ "step_threshold", MAP },
	{ "first_step_threshold", MAP },
	{ "max_frequency", MAP },
	{ "clock_servo", MAP, NULL, NULL, NULL,
	  "phcd implements the pi, linreg and refclock_sock servos only (not nullf or ntpshm)" },
	{ "sanity_freq_limit", SAME, NULL, NULL, "200000000",
	  "phcd has no such check: max_frequency bounds the adjustment, max_offset_jump refuses "
	  "offsets that jump" },
	{ "refclock_sock_address", MAP },
	{ "leapfile", MAP },
	{ "ntpshm_segment", SAME, NULL, NULL, "*",
	  "used by clock_servo ntpshm only, which phcd does not implement (refclock_sock feeds "
	  "chronyd; phcd.service's PrivateIPC=yes would hide an SHM segment from it)" },
	{ "msg_interval_request", MAP },
	{ "servo_num_offset_values", MAP },
	{ "servo_offset_threshold", MAP },
	{ "write_phase_mode", SAME, NULL, "0", NULL,
	  "phcd steers a clock's frequency (ADJ_FREQUENCY), never its phase (ADJ_OFFSET)" },
	/* Transport options. */
	{ "transportSpecific", MAP },
	{ "ptp_dst_mac", MAP },
	{ "p2p_dst_mac", MAP },
	{ "udp_ttl", MAP },
	{ "udp6_scope", MAP },
	{ "uds_address", SAME, NULL, NULL, "*",
	  "phcd's management socket is its option --uds (phcd(8))" },
	{ "uds_file_mode", SAME, NULL, NULL, "*",
	  "phcd's management sockets have fixed modes, 0660 and read-only 0666 (phcd(8))" },
	{ "uds_ro_address", SAME, NULL, NULL, "*",
	  "phcd's read-only management socket is its option --uds-ro (phcd(8))" },
	{ "uds_ro_file_mode", SAME, NULL, NULL, "*",
	  "phcd's management sockets have fixed modes, 0660 and read-only 0666 (phcd(8))" },
	/* Interface options. */
	{ "clock_type", SAME, NULL, "OC|BC", NULL,
	  "phcd is an ordinary clock with one port and a boundary clock with several; it is not a "
	  "transparent clock" },
	{ "network_transport", MAP },
	{ "delay_mechanism", MAP, NULL, NULL, NULL,
	  "phcd implements E2E and P2P only (no Auto, NONE or COMMON_P2P)" },
	{ "time_stamping", MAP, NULL, NULL, NULL,
	  "phcd timestamps two-step, in hardware or software (no legacy, onestep or p2p1step)" },
	{ "tsproc_mode", SAME, NULL, "filter", NULL,
	  "phcd filters the path delay and gives the servo each offset unfiltered (past its "
	  "outlier gate), as ptp4l's filter mode does" },
	{ "delay_filter", SAME, NULL, "moving_median", NULL,
	  "phcd filters the path delay with a moving median (of two samples, the smaller: a late "
	  "message only lengthens one), with no key for another filter" },
	{ "delay_filter_length", SAME, NULL, "10", NULL,
	  "phcd's path delay filter is 10 samples long, with no key to set another length" },
	{ "egressLatency", MAP },
	{ "ingressLatency", MAP },
	{ "boundary_clock_jbod", SAME, NULL, "1", "0",
	  "phcd does not refuse an instance whose ports have different PHCs (ptp4l does, unless "
	  "1), and with phc_follow auto (its default) it keeps those PHCs in step with the SLAVE "
	  "port's itself, what ptp4l's 1 leaves to phc2sys -a" },
	{ "phc_index", SAME, NULL, "-1", NULL,
	  "phcd uses the PHC the interface reports (ethtool), with no key for another" },
	/* Clock description. */
	{ "productDescription", SAME, NULL, NULL, "*", NO_CLOCK_DESCRIPTION },
	{ "revisionData", SAME, NULL, NULL, "*", NO_CLOCK_DESCRIPTION },
	{ "manufacturerIdentity", SAME, NULL, NULL, "*", NO_CLOCK_DESCRIPTION },
};

static bool value_is(const char *list, const char *value)
{
	char *end;
	double v, w;
	bool numeric;

	if (!list) {
		return false;
	}
	if (strcmp(list, "*") == 0) {
		return true;
	}
	v = strtod(value, &end);
	numeric = *value && *end == '\0';
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, "|");
		char item[32];

		snprintf(item, sizeof(item), "%.*s", (int) n, p);
		w = strtod(item, &end);
		if (numeric && *end == '\0' ? v == w : strcasecmp(item, value) == 0) {
			return true;
		}
		p += n + (p[n] == '|');
	}
	return false;
}

static const struct ptp4l_key *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(ptp4l_keys); i++) {
		if (strcmp(ptp4l_keys[i].name, name) == 0) {
			return &ptp4l_keys[i];
		}
	}
	return NULL;
}

int ptp4l_map_key(const char *name, const char *value, struct ptp4l_map *ret)
{
	const struct ptp4l_key *k = find(name);

	memset(ret, 0, sizeof(*ret));
	if (!k) {
		return -ENOENT;
	}
	ret->reason = k->reason;
	ret->value = value;
	switch (k->kind) {
	case MAP:
	case COSMETIC:
		ret->key = config_keys_find(k->phcd ? k->phcd : k->name, false);
		ret->cosmetic = k->kind == COSMETIC;
		ret->verdict = ret->key ? PTP4L_HONOURED : PTP4L_REFUSED;
		if (!ret->key) { /* test-config-ptp4l holds every row to a phcd key */
			ret->reason = "phcd has no key of that name";
		}
		break;
	case FREE_RUNNING:
		/* ptp4l's boolean: 1 measures only, which phcd's clock_backend free_running is. */
		if (value_is("1|yes|true|on", value)) {
			ret->key = config_keys_find("clock_backend", false);
			ret->value = "free_running";
			ret->verdict = PTP4L_HONOURED;
		} else if (value_is("0|no|false|off", value)) {
			ret->verdict = PTP4L_HONOURED;
			ret->reason =
				"phcd steers the clock its clock_backend names (phc unless set)";
		} else {
			ret->verdict = PTP4L_REFUSED;
			ret->reason = "not a boolean, expected 0 or 1";
		}
		break;
	case SAME:
		ret->verdict = value_is(k->same, value)	    ? PTP4L_HONOURED
			       : value_is(k->ignore, value) ? PTP4L_IGNORED
							    : PTP4L_REFUSED;
		break;
	}
	return 0;
}

void ptp4l_dump_keys(FILE *out)
{
	static const char *const kinds[] = {
		[MAP] = "map",
		[COSMETIC] = "map",
		[SAME] = "same",
		[FREE_RUNNING] = "map",
	};

	for (size_t i = 0; i < ARRAY_SIZE(ptp4l_keys); i++) {
		const struct ptp4l_key *k = &ptp4l_keys[i];

		fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\n", k->name, kinds[k->kind],
			k->kind == FREE_RUNNING ? "clock_backend"
			: k->phcd		? k->phcd
			: k->kind == SAME	? "-"
						: k->name,
			k->same ? k->same : "-", k->ignore ? k->ignore : "-",
			k->reason ? k->reason : "-");
	}
}
