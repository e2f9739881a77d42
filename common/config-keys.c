/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The phcd.conf key table: every key's scope, parser, place, range and default, and its helpers. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/config-keys.h"

static int parse_int(const struct config_key *k, const char *value, void *dst)
{
	char *end;
	long long v;

	errno = 0;
	/* Base 0 as ptp4l's get_ranged_int: 0xA0 is a valid timeSource. */
	v = strtoll(value, &end, 0);
	if (end == value || *end != '\0') {
		return -EINVAL;
	}
	if (errno == ERANGE || (double) v < k->min || (double) v > k->max) {
		return -ERANGE;
	}
	switch (k->size) {
	case 1: {
		int8_t x = (int8_t) v;
		memcpy(dst, &x, 1);
		break;
	}
	case 2: {
		int16_t x = (int16_t) v;
		memcpy(dst, &x, 2);
		break;
	}
	case 4: {
		int32_t x = (int32_t) v;
		memcpy(dst, &x, 4);
		break;
	}
	case 8: {
		int64_t x = v;
		memcpy(dst, &x, 8);
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int parse_bool(const struct config_key *k, const char *value, void *dst)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	int v = -1;

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(value, yes[i]) == 0) {
			v = 1;
		} else if (strcasecmp(value, no[i]) == 0) {
			v = 0;
		}
	}
	if (v < 0) {
		return -EINVAL;
	}
	if (v < k->min || v > k->max) {
		return -ERANGE;
	}
	*(bool *) dst = v;
	return 0;
}

static int parse_double(const struct config_key *k, const char *value, void *dst)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end != '\0' || !isfinite(v)) {
		return -EINVAL;
	}
	if (errno == ERANGE || v < k->min || v > k->max) {
		return -ERANGE;
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static int parse_string(const struct config_key *k, const char *value, void *dst)
{
	size_t n = strlen(value);

	if (n >= k->size) {
		return -ERANGE;
	}
	/* Zero the whole field so two equal strings compare equal bytewise in diffs. */
	memset(dst, 0, k->size);
	memcpy(dst, value, n);
	return 0;
}

/* The kernel's dev_valid_name(): what an interface name may be. */
bool config_keys_ifname_valid(const char *s, size_t n)
{
	if (n == 0 || n >= IFNAMSIZ || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.')) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char) s[i])) {
			return false;
		}
	}
	return true;
}

/* Instance names become D-Bus object path elements and log fields: keep them plain. */
bool config_keys_instance_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= OPTIONS_NAME_MAX) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char) s[i]) && s[i] != '_' && s[i] != '-') {
			return false;
		}
	}
	return true;
}

/* Add the names of value (separated by blanks or commas) to sel: each valid, new, within the max.
 */
static int add_interface_names(struct interface_selection *sel, const char *value)
{
	const char *p = value;

	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		if (*p == '\0') {
			return 0;
		}
		n = strcspn(p, " \t,");
		if (!config_keys_ifname_valid(p, n) || sel->n_names >= OPTIONS_INTERFACES_MAX) {
			return -EINVAL;
		}
		for (unsigned int i = 0; i < sel->n_names; i++) {
			if (strncmp(sel->names[i], p, n) == 0 && sel->names[i][n] == '\0') {
				return -EINVAL;
			}
		}
		memcpy(sel->names[sel->n_names++], p, n);
		p += n;
	}
}

static int parse_interfaces(const struct config_key *k, const char *value, void *dst)
{
	struct interface_selection sel;

	memset(&sel, 0, sizeof(sel));
	if (strcmp(value, "auto") == 0) {
		sel.auto_select = true;
	} else if (add_interface_names(&sel, value) < 0 || sel.n_names == 0) {
		return -EINVAL;
	}
	memcpy(dst, &sel, sizeof(sel));
	return 0;
}

/* More names for an explicit list: neither may be auto, and no name twice across the lines. */
static int append_interfaces(const struct config_key *k, const char *value, void *dst)
{
	struct interface_selection sel = *(struct interface_selection *) dst;
	unsigned int before = sel.n_names;

	if (sel.auto_select || strcmp(value, "auto") == 0 || add_interface_names(&sel, value) < 0 ||
	    sel.n_names == before) {
		return -EINVAL;
	}
	memcpy(dst, &sel, sizeof(sel));
	return 0;
}

/* Clock identities (001122.fffe.334455) separated by spaces or commas, none twice. */
static int add_acceptable_masters(struct acceptable_masters *t, const char *value)
{
	const char *p = value;

	for (;;) {
		struct ClockIdentity c;
		char id[32];
		size_t n;

		p += strspn(p, " \t,");
		if (*p == '\0') {
			return 0;
		}
		n = strcspn(p, " \t,");
		if (n >= sizeof(id) || t->n >= OPTIONS_ACCEPTABLE_MASTERS_MAX) {
			return -EINVAL;
		}
		memcpy(id, p, n);
		id[n] = '\0';
		if (clock_identity_from_string(id, &c) < 0) {
			return -EINVAL;
		}
		for (unsigned int k = 0; k < t->n; k++) {
			if (!memcmp(&t->id[k], &c, sizeof(c))) {
				return -EINVAL;
			}
		}
		t->id[t->n++] = c;
		p += n;
	}
}

static int parse_acceptable_masters(const struct config_key *k, const char *value, void *dst)
{
	struct acceptable_masters t;

	memset(&t, 0, sizeof(t));
	if (add_acceptable_masters(&t, value) < 0) {
		return -EINVAL;
	}
	memcpy(dst, &t, sizeof(t));
	return 0;
}

static int append_acceptable_masters(const struct config_key *k, const char *value, void *dst)
{
	struct acceptable_masters t = *(struct acceptable_masters *) dst;
	uint8_t before = t.n;

	if (add_acceptable_masters(&t, value) < 0 || t.n == before) {
		return -EINVAL;
	}
	memcpy(dst, &t, sizeof(t));
	return 0;
}

#define DEFINE_ENUM_PARSER(fn, type, from_string)                               \
	static int fn(const struct config_key *k, const char *value, void *dst) \
	{                                                                       \
		type v;                                                         \
		int r = from_string(value, &v);                                 \
		if (r < 0) {                                                    \
			return r;                                               \
		}                                                               \
		memcpy(dst, &v, sizeof(v));                                     \
		return 0;                                                       \
	}

DEFINE_ENUM_PARSER(parse_delay, enum delay_mechanism, options_delay_mechanism_from_string)
DEFINE_ENUM_PARSER(parse_transport, enum options_transport, options_transport_from_string)
DEFINE_ENUM_PARSER(parse_timestamping, enum options_timestamping, options_timestamping_from_string)
DEFINE_ENUM_PARSER(parse_backend, enum options_clock_backend, options_clock_backend_from_string)
DEFINE_ENUM_PARSER(parse_servo, enum servo_type, options_clock_servo_from_string)
DEFINE_ENUM_PARSER(parse_bmca, enum options_bmca, options_bmca_from_string)
DEFINE_ENUM_PARSER(parse_as_capable, enum options_as_capable, options_as_capable_from_string)
DEFINE_ENUM_PARSER(parse_power_profile, enum options_power_profile,
		   options_power_profile_from_string)
DEFINE_ENUM_PARSER(parse_comparison, enum bmca_comparison, bmca_comparison_from_string)

static int parse_mac(const struct config_key *k, const char *value, void *dst)
{
	return options_mac_from_string(value, dst);
}

/* An absolute path that fits sockaddr_un's sun_path (chronyd's SOCK refclock binds it). */
static int parse_sock_path(const struct config_key *k, const char *value, void *dst)
{
	if (value[0] != '/') {
		return -EINVAL;
	}
	return parse_string(k, value, dst);
}

DEFINE_ENUM_PARSER(parse_phc_follow, enum options_phc_follow, options_phc_follow_from_string)
DEFINE_ENUM_PARSER(parse_time_source, enum options_time_source, options_time_source_from_string)

/* An absolute path (the leapfile: read by the supervisor, whatever its directory), or "": none. */
static int parse_abs_path(const struct config_key *k, const char *value, void *dst)
{
	if (value[0] != '/' && value[0] != '\0') {
		return -EINVAL;
	}
	return parse_string(k, value, dst);
}

/* gpsd's socket: a Unix socket path, or host:port with a port of 1..65535 (IPv6: [addr]:port). */
static int parse_gpsd_address(const struct config_key *k, const char *value, void *dst)
{
	const char *colon = strrchr(value, ':');
	char *end;
	long port;

	if (value[0] == '/') {
		return parse_string(k, value, dst);
	}
	if (!colon || colon == value) {
		return -EINVAL;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end != '\0' || errno || port < 1 || port > 65535) {
		return -EINVAL;
	}
	return parse_string(k, value, dst);
}

/* G.8275.1 Table 2: a T-GM out of holdover specification announces 140, 150 or 160. */
static int parse_gm_out_of_spec_class(const struct config_key *k, const char *value, void *dst)
{
	uint8_t v;
	int r = parse_int(k, value, &v);

	if (r < 0) {
		return r;
	}
	if (v != 140 && v != 150 && v != 160) {
		return -ERANGE;
	}
	*(uint8_t *) dst = v;
	return 0;
}
DEFINE_ENUM_PARSER(parse_mgmt_network, enum options_mgmt_network, options_mgmt_network_from_string)

/*
 * management_network_set, the boolean phcd documented before management_network: 1 is
 * read-write, 0 read-only. Both keys set the one option; the later line wins.
 */
static int parse_mgmt_network_set(const struct config_key *k, const char *value, void *dst)
{
	enum options_mgmt_network m;
	bool b;
	int r = parse_bool(k, value, &b);

	if (r < 0) {
		return r;
	}
	m = b ? OPTIONS_MGMT_NETWORK_READ_WRITE : OPTIONS_MGMT_NETWORK_READ_ONLY;
	memcpy(dst, &m, sizeof(m));
	return 0;
}

/* A profile phcd knows by name but cannot run yet is refused: -EOPNOTSUPP, never ignored. */
static int parse_profile(const struct config_key *k, const char *value, void *dst)
{
	enum options_profile p;
	int r = options_profile_from_string(value, &p);

	if (r < 0) {
		return r;
	}
	if (options_profile_unsupported(p)) {
		return -EOPNOTSUPP;
	}
	memcpy(dst, &p, sizeof(p));
	return 0;
}

/*
 * ptp4l_config is read by the loader itself (config-ptp4l-read.c reads the file into layers of
 * its own), before the table is consulted; its row is here so that it is listed and documented
 * with the others. It stores nothing (size 0).
 */
static int parse_ptp4l_config(const struct config_key *k, const char *value, void *dst)
{
	return -EINVAL;
}

#define member_size(type, m) sizeof(((type *) 0)->m)
#define KEY(scope, type, name, field, parser, min, max, def, expect)                            \
	{                                                                                       \
		scope, name, parser, offsetof(type, field), member_size(type, field), min, max, \
			def, expect                                                             \
	}
#define D(f, ...) KEY(SCOPE_DAEMON, struct daemon_options, #f, f, __VA_ARGS__)
#define I(f, ...) KEY(SCOPE_INSTANCE, struct instance_options, #f, f, __VA_ARGS__)
#define P(f, ...) KEY(SCOPE_PORT, struct port_options, #f, f, __VA_ARGS__)
/* Keys whose name is not the field's name (nested structs). */
#define I_AS(name, f, ...) KEY(SCOPE_INSTANCE, struct instance_options, name, f, __VA_ARGS__)
#define P_AS(name, f, ...) KEY(SCOPE_PORT, struct port_options, name, f, __VA_ARGS__)

/*
 * Every key phcd reads. Names, defaults and ranges are ptp4l's (linuxptp 3.1 config.c) where the
 * key is ptp4l's; where phcd is narrower the expect text says why. docs/phcd.conf.5.md mirrors
 * this table (config_dump_keys prints it) and test-config checks the defaults against options.c.
 */
static const struct config_key keys[] = {
	D(logging_level, parse_int, 0, 7, "6", NULL),
	D(system_clock_instance, parse_string, 0, 0, "", "the name of an [instance NAME]"),
	D(restart_limit_burst, parse_int, 1, 1000, "5", NULL),
	D(restart_limit_interval_sec, parse_int, 1, 86400, "60", NULL),
	D(restart_backoff_initial_ms, parse_int, 0, 60000, "100", NULL),
	D(restart_backoff_max_ms, parse_int, 0, 600000, "10000", NULL),
	D(polkit_max_pending, parse_int, 1, 1000, "32", NULL),
	D(polkit_max_pending_per_caller, parse_int, 1, 1000, "4", NULL),

	I(domainNumber, parse_int, 0, 255, "0", NULL),
	I(priority1, parse_int, 0, 255, "128", NULL),
	I(priority2, parse_int, 0, 255, "128", NULL),
	I(clockClass, parse_int, 0, 255, "248", NULL),
	I(clockAccuracy, parse_int, 0, 255, "0xfe", NULL),
	I(offsetScaledLogVariance, parse_int, 0, 65535, "0xffff", NULL),
	I(slaveOnly, parse_bool, 0, 1, "0", NULL),
	I(twoStepFlag, parse_bool, 1, 1, "1", "1 (one-step clocks are not supported)"),
	I(utc_offset, parse_int, 0, INT16_MAX, "37", NULL),
	I(timeSource, parse_int, 0x10, 0xfe, "0xa0", NULL),
	I(clock_backend, parse_backend, 0, 0, "phc", "phc, virtual, system or free_running"),
	I_AS("clock_servo", servo.clock_servo, parse_servo, 0, 0, "pi",
	     "pi, linreg or refclock_sock"),
	I_AS("pi_proportional_const", servo.pi_proportional_const, parse_double, 0, HUGE_VAL, "0.0",
	     NULL),
	I_AS("pi_integral_const", servo.pi_integral_const, parse_double, 0, HUGE_VAL, "0.0", NULL),
	I_AS("step_threshold", servo.step_threshold, parse_double, 0, HUGE_VAL, "0.0", NULL),
	I_AS("first_step_threshold", servo.first_step_threshold, parse_double, 0, HUGE_VAL,
	     "0.00002", NULL),
	I_AS("max_offset_jump", servo.max_offset_jump, parse_double, 0, HUGE_VAL, "1.0", NULL),
	I_AS("max_frequency", servo.max_frequency, parse_int, 0, INT32_MAX, "900000000", NULL),
	I_AS("servo_offset_threshold", servo.servo_offset_threshold, parse_int, 0, INT32_MAX, "0",
	     NULL),
	I_AS("servo_num_offset_values", servo.servo_num_offset_values, parse_int, 0, INT32_MAX,
	     "10", NULL),
	I_AS("virtual_clock_offset_ns", virtual_clock.initial_offset_ns, parse_int, -1e18, 1e18,
	     "0", NULL),
	I_AS("virtual_clock_freq_ppb", virtual_clock.initial_freq_ppb, parse_int, -10000000,
	     10000000, "0", NULL),
	I(userDescription, parse_string, 0, 0, "", "at most 128 characters"),
	{ SCOPE_INSTANCE, "interfaces", parse_interfaces,
	  offsetof(struct instance_options, interfaces),
	  member_size(struct instance_options, interfaces), 0, 0, "auto",
	  "auto, or up to 64 distinct interface names separated by spaces or commas (on several "
	  "interfaces lines of one section if they do not fit on one)",
	  append_interfaces },
	I(include_software_interfaces, parse_bool, 0, 1, "0", NULL),
	I(phc_follow, parse_phc_follow, 0, 0, "auto", "auto or off"),
	I(refclock_sock_address, parse_sock_path, 0, 0, "/var/run/refclock.ptp.sock",
	  "an absolute path of at most 107 bytes"),
	I(management_network, parse_mgmt_network, 0, 0, "read-only",
	  "off, read-only or read-write"),
	I_AS("management_network_set", management_network, parse_mgmt_network_set, 0, 1, "0",
	     "0 or 1 (an alias: 1 is management_network = read-write, 0 read-only)"),
	I(profile, parse_profile, 0, 0, "default",
	  "default, default-p2p, gPTP, automotive-master, automotive-slave, G.8275.1 or "
	  "power-2017"),
	{ SCOPE_INSTANCE, "ptp4l_config", parse_ptp4l_config, 0, 0, 0, 0, "",
	  "the path of a linuxptp file (phcd.conf(5), linuxptp files)" },
	I(gmCapable, parse_bool, 0, 1, "1", NULL),
	I(dataset_comparison, parse_comparison, 0, 0, "ieee1588", "ieee1588 or G.8275.x"),
	I_AS("G.8275.defaultDS.localPriority", localPriority, parse_int, 1, 255, "128", NULL),
	I(maxStepsRemoved, parse_int, 2, 255, "255", NULL),
	I(clock_class_threshold, parse_int, 6, 248, "248", NULL),
	/* The clock-mode machine (daemon/clock-mode-step.c): a week at most, as a sanity bound. */
	I_AS("holdover_time", holdover.time, parse_int, 1, 604800, "300", NULL),
	I_AS("holdover_time_error", holdover.time_error, parse_int, 1, 1000000000, "1100", NULL),
	I_AS("holdover_out_of_spec_time", holdover.out_of_spec_time, parse_int, 0, 604800, "3600",
	     NULL),
	I_AS("holdover_lock_time", holdover.lock_time, parse_int, 0, 3600, "10", NULL),
	I_AS("gm_out_of_spec_class", holdover.gm_out_of_spec_class, parse_gm_out_of_spec_class, 140,
	     160, "140", "140, 150 or 160"),
	/* The grandmaster's own reference (daemon/instance-source.c). */
	I(time_source, parse_time_source, 0, 0, "none", "none, system or gnss"),
	I(gpsd_address, parse_gpsd_address, 0, 0, "localhost:2947",
	  "host:port or an absolute Unix socket path of at most 107 bytes"),
	I(leapfile, parse_abs_path, 0, 0, "", "an absolute path of at most 255 bytes"),
	/* ts2phc's keys: the 1PPS on a pin of the instance's PHC (daemon/instance-pin.c). */
	I_AS("ts2phc.pin_index", pin.pin_index, parse_int, -1, 1023, "-1",
	     "-1 (no pin) or a pin of the PHC, 0..1023"),
	I_AS("ts2phc.channel", pin.channel, parse_int, 0, 1023, "0", NULL),
	I_AS("ts2phc.extts_correction", pin.extts_correction, parse_int, -1000000000, 1000000000,
	     "0", NULL),

	/* Log intervals: ptp4l takes any int8; beyond 2^-7..2^7 s a timer makes no sense. */
	P(logAnnounceInterval, parse_int, -7, 7, "1", NULL),
	P(logSyncInterval, parse_int, -7, 7, "0", NULL),
	P(logMinDelayReqInterval, parse_int, -7, 7, "0", NULL),
	P(logMinPdelayReqInterval, parse_int, -7, 7, "0", NULL),
	P(announceReceiptTimeout, parse_int, 2, 255, "3", NULL),
	P(syncReceiptTimeout, parse_int, 0, 255, "0", NULL),
	P(delay_mechanism, parse_delay, 0, 0, "E2E", "E2E or P2P"),
	P(network_transport, parse_transport, 0, 0, "L2", "L2, UDPv4 or UDPv6"),
	P(time_stamping, parse_timestamping, 0, 0, "hardware", "hardware, software or auto"),
	P(tx_timestamp_timeout, parse_int, 1, INT32_MAX, "1", NULL),
	P(masterOnly, parse_bool, 0, 1, "0", NULL),
	/* ITU-T G.8275's name for the same portDS member (IEEE 1588-2019 9.2.2.2 masterOnly) */
	KEY(SCOPE_PORT, struct port_options, "notSlave", masterOnly, parse_bool, 0, 1, "0", NULL),
	P(neighborPropDelayThresh, parse_int, 0, INT32_MAX, "20000000", NULL),
	P(delayAsymmetry, parse_int, INT32_MIN, INT32_MAX, "0", NULL),
	P(fault_reset_interval, parse_int, INT8_MIN, INT8_MAX, "4", NULL),
	P(summary_interval, parse_int, OPTIONS_SUMMARY_INTERVAL_MIN, OPTIONS_SUMMARY_INTERVAL_MAX,
	  "0", "0..10 (phcd reads a worker's status once a second, so no shorter window)"),
	P(transportSpecific, parse_int, 0, 0x0f, "0", NULL),
	P(follow_up_info, parse_bool, 0, 1, "0", NULL),
	{ SCOPE_PORT, "acceptable_masters", parse_acceptable_masters,
	  offsetof(struct port_options, acceptable_masters),
	  member_size(struct port_options, acceptable_masters), 0, 0, "",
	  "up to 16 clock identities (001122.fffe.334455) separated by spaces or commas, none "
	  "twice (on several acceptable_masters lines of one section if they do not fit on one)",
	  append_acceptable_masters },
	P(path_trace_enabled, parse_bool, 0, 1, "0", NULL),
	P(min_neighbor_prop_delay, parse_int, INT32_MIN, -1, "-20000000", NULL),
	P(asCapable, parse_as_capable, 0, 0, "auto", "auto or true"),
	P(BMCA, parse_bmca, 0, 0, "ptp", "ptp or noop"),
	P(inhibit_announce, parse_bool, 0, 1, "0", NULL),
	P(inhibit_delay_req, parse_bool, 0, 1, "0", NULL),
	P(ignore_source_id, parse_bool, 0, 1, "0", NULL),
	P(operLogSyncInterval, parse_int, -7, 7, "0", NULL),
	P(operLogPdelayReqInterval, parse_int, -7, 7, "0", NULL),
	P(msg_interval_request, parse_bool, 0, 1, "0", NULL),
	P(ptp_dst_mac, parse_mac, 0, 0, "01:1B:19:00:00:00",
	  "a multicast MAC address such as 01:1B:19:00:00:00 (the port joins it as a group)"),
	P(p2p_dst_mac, parse_mac, 0, 0, "01:80:C2:00:00:0E",
	  "a multicast MAC address such as 01:80:C2:00:00:0E (the port joins it as a group)"),
	P_AS("G.8275.portDS.localPriority", localPriority, parse_int, 1, 255, "128", NULL),
	P(assume_two_step, parse_bool, 0, 1, "0", NULL),
	P(ingressLatency, parse_int, INT32_MIN, INT32_MAX, "0", NULL),
	P(egressLatency, parse_int, INT32_MIN, INT32_MAX, "0", NULL),
	P_AS("power_profile.version", power_profile.version, parse_power_profile, 0, 0, "none",
	     "none, 2011 or 2017"),
	P_AS("power_profile.grandmasterID", power_profile.grandmasterID, parse_int, 0, 0xffff, "0",
	     NULL),
	P_AS("power_profile.2011.grandmasterTimeInaccuracy",
	     power_profile.grandmasterTimeInaccuracy, parse_int, -1, INT32_MAX, "-1", NULL),
	P_AS("power_profile.2011.networkTimeInaccuracy", power_profile.networkTimeInaccuracy,
	     parse_int, -1, INT32_MAX, "-1", NULL),
	P_AS("power_profile.2017.totalTimeInaccuracy", power_profile.totalTimeInaccuracy, parse_int,
	     -1, INT32_MAX, "-1", NULL),
	P(socket_priority, parse_int, 0, 15, "0", NULL),
	P(udp_ttl, parse_int, 1, 255, "1", NULL),
	P(udp6_scope, parse_int, 1, 0x0f, "0x0E",
	  "an integer from 1 to 15 (0x01..0x0F; scope 0 is reserved, RFC 4291 2.7)"),
	P(dscp_event, parse_int, 0, 63, "0", NULL),
	P(dscp_general, parse_int, 0, 63, "0", NULL),
	P(unicast_listen, parse_bool, 0, 1, "0", NULL),
	P(unicast_master_table, parse_int, 0, INT32_MAX, "0",
	  "0 (none) or the table_id of a [unicast_master_table], 1 to 2147483647"),
	P(unicast_req_duration, parse_int, 10, INT32_MAX, "3600", NULL),
	P(inhibit_multicast_service, parse_bool, 0, 1, "0", NULL),
	P(hybrid_e2e, parse_bool, 0, 1, "0", NULL),
	P(unicast_peers_max, parse_int, 1, OPTIONS_UNICAST_PEERS_MAX, "16", NULL),
};

_Static_assert(ARRAY_SIZE(keys) <= CONFIG_KEYS_MAX, "one bit per key in config_layer.set");

const char *config_keys_unsupported_reason(const struct config_key *k, const char *value)
{
	enum options_profile p;

	if (k->parse == parse_profile && options_profile_from_string(value, &p) == 0 &&
	    options_profile_unsupported(p)) {
		return options_profile_unsupported(p);
	}
	return "phcd does not implement it";
}

void config_keys_daemon_defaults(struct daemon_options *o)
{
	memset(o, 0, sizeof(*o));
	o->logging_level = 6; /* LOG_INFO, as ptp4l */
	o->restart_limit_burst = 5;
	o->restart_limit_interval_sec = 60;
	o->restart_backoff_initial_ms = 100;
	o->restart_backoff_max_ms = 10000;
	o->polkit_max_pending = 32;
	o->polkit_max_pending_per_caller = 4;
}

static void *scope_base(struct config_layer *l, enum key_scope s)
{
	switch (s) {
	case SCOPE_DAEMON:
		return &l->daemon;
	case SCOPE_INSTANCE:
		return &l->instance;
	case SCOPE_PORT:
		return &l->port;
	}
	return NULL;
}

/* Copy the keys of one scope that layer l set onto dst (a struct of that scope). */
void config_keys_apply(const struct config_layer *l, enum key_scope s, void *dst)
{
	const uint8_t *src = scope_base((struct config_layer *) l, s);

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].scope == s && config_layer_is_set(l, i)) {
			memcpy((uint8_t *) dst + keys[i].offset, src + keys[i].offset,
			       keys[i].size);
		}
	}
}

/* Equal in every key of scope s? Bytewise per key: parsers zero whole fields, so this is exact. */
bool config_keys_equal(const void *a, const void *b, enum key_scope s)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].scope == s &&
		    memcmp((const uint8_t *) a + keys[i].offset,
			   (const uint8_t *) b + keys[i].offset, keys[i].size) != 0) {
			return false;
		}
	}
	return true;
}

void config_keys_expect(const struct config_key *k, char *buf, size_t size)
{
	if (k->expect) {
		snprintf(buf, size, "%s", k->expect);
	} else if (k->parse == parse_bool) {
		snprintf(buf, size, "0 or 1 (also no/yes, false/true, off/on)");
	} else if (k->parse == parse_double) {
		snprintf(buf, size, "a number of at least %g", k->min);
	} else {
		snprintf(buf, size, "an integer from %.0f to %.0f", k->min, k->max);
	}
}

const struct config_key *config_keys_find(const char *name, bool ignore_case)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if ((ignore_case ? strcasecmp : strcmp)(keys[i].name, name) == 0) {
			return &keys[i];
		}
	}
	return NULL;
}

void *config_keys_field(struct config_layer *l, const struct config_key *k)
{
	return (uint8_t *) scope_base(l, k->scope) + k->offset;
}

const struct config_key *config_keys_at(size_t i)
{
	return i < ARRAY_SIZE(keys) ? &keys[i] : NULL;
}

size_t config_keys_index(const struct config_key *k)
{
	return (size_t) (k - keys);
}

void config_dump_keys(FILE *out)
{
	static const char *const scope_names[] = {
		[SCOPE_DAEMON] = "global",
		[SCOPE_INSTANCE] = "global instance",
		[SCOPE_PORT] = "global instance interface",
	};
	char expect[256];

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		config_keys_expect(&keys[i], expect, sizeof(expect));
		fprintf(out, "%s\t%s\t%s\t%s\n", keys[i].name, scope_names[keys[i].scope],
			keys[i].def[0] ? keys[i].def : "(empty)", expect);
	}
}
