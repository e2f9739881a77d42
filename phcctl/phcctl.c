// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl: the command-line client of phcd's D-Bus API (org.phcd1). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h" /* the generated one, for PHCD_VERSION */
#include "common/log.h"
#include "dbus/bus-json.h"
#include "phcctl/phcctl.h"
#include "ptp/util.h"

static void help(FILE *f)
{
	fputs("usage: phcctl [OPTIONS] COMMAND [ARGS]\n"
	      "Query and control phcd, the PTP daemon, over D-Bus (org.phcd1).\n"
	      "\n"
	      "Commands:\n"
	      "  status                   instances, grandmaster, offset, servo and ports\n"
	      "  ports                    every port with its state\n"
	      "  port IFNAME              one port: state, timestamping, worker, counters\n"
	      "  instance NAME            one instance as in status, with its other data sets\n"
	      "  monitor                  print changes as phcd signals them, until interrupted\n"
	      "  set-priority1 NAME N     set an instance's priority1 (0..255),\n"
	      "                           until a reload that changes this instance\n"
	      "  set-priority2 NAME N     the same for priority2\n"
	      "  set-grandmaster-settings NAME clockClass N clockAccuracy N\n"
	      "                           offsetScaledLogVariance N currentUtcOffset N leap61 0|1\n"
	      "                           leap59 0|1 currentUtcOffsetValid 0|1 timeTraceable 0|1\n"
	      "                           frequencyTraceable 0|1 timeSource N\n"
	      "                           what the instance announces as grandmaster,\n"
	      "                           until a reload that changes this instance\n"
	      "  enable IFNAME            start a disabled port again\n"
	      "  disable IFNAME           stop a port's worker and keep it DISABLED\n"
	      "  restart IFNAME           replace a port's worker\n"
	      "  reload                   reload phcd.conf (an invalid file is refused)\n"
	      "  check-config FILE        phcd's verdict on FILE (- for stdin) as a phcd.conf,\n"
	      "                           nothing applied (exit 0 valid, 1 invalid)\n"
	      "  wait-sync                wait until ready: synchronized, grandmaster, or no "
	      "ports\n"
	      "                           (exit 0), or the timeout (exit 5)\n"
	      "\n"
	      "Options:\n"
	      "  -h --help                show this help\n"
	      "     --version            show the version\n"
	      "  -j --json                JSON output (status, ports, port, instance, monitor,\n"
	      "                           wait-sync)\n"
	      "  -H --host [USER@]HOST[:PORT]\n"
	      "                           talk to phcd on HOST, over ssh (systemd-stdio-bridge)\n"
	      "  -M --machine CONTAINER   talk to phcd in a local container (systemd-machined)\n"
	      "     --no-ask-password    never let polkit ask for a password\n"
	      "     --no-pager           do not pipe the output into a pager\n"
	      "     --timeout S          wait-sync: give up after S seconds (default: forever)\n"
	      "     --max-offset NS      wait-sync: also require |offset| <= NS\n"
	      "     --instance NAME      wait-sync: wait for this instance (default: the one\n"
	      "                          steering the system clock, else every instance)\n"
	      "\n"
	      "Exit codes: 0 ok, 1 failed, 2 usage, 3 not found, 4 not authorized, 5 timeout,\n"
	      "6 phcd not running.\n",
	      f);
}

/* Call a Manager method; on error print it and return -exit_code. */
/* The clock mode, its reason and, in holdover, the estimated time error. */
static void print_clock_mode(sd_bus_message *i)
{
	int64_t te = props_int(i, "EstimatedTimeError");

	printf("  %-20s: %s (%s)", "Clock mode", props_str(i, "ClockMode"),
	       props_str(i, "ClockModeReason"));
	if (te > 0) {
		printf(", estimated time error %" PRIi64 " ns", te);
	}
	printf("\n");
}

/* A grandmaster's own time source: which, whether it is good, why, and its error bound. */
static void print_reference(sd_bus_message *i)
{
	const char *src = props_str(i, "ReferenceSource");
	int64_t max = props_int(i, "ReferenceMaxError");

	if (!strcmp(src, "none") || !strcmp(src, "")) {
		return;
	}
	printf("  %-20s: %s, %s (%s)", "Time source", src,
	       props_int(i, "ReferenceOk") ? "ok" : "not ok", props_str(i, "ReferenceReason"));
	if (max >= 0) {
		printf(", max error %" PRIi64 " ns", max);
	}
	printf("\n");
}

static int manager_call(struct phcctl *c, const char *method, const char *what,
			sd_bus_message **reply)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = phcctl_call(c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, method, &e, reply, NULL);
	if (r < 0) {
		r = -phcctl_error(what, &e, r);
	}
	sd_bus_error_free(&e);
	return r;
}

/* GetPortByInterface / GetInstance: the object path of a name (free() it). */
int phcctl_lookup(struct phcctl *c, const char *method, const char *name, char **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path;
	int r;

	r = phcctl_call(c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, method, &e, &reply, "s",
			name);
	if (r < 0) {
		r = -phcctl_error(name, &e, r);
	}
	sd_bus_error_free(&e);
	if (r < 0) {
		return r;
	}
	r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0) {
		*ret = strdup(path);
		r = *ret ? 0 : -ENOMEM;
	}
	sd_bus_message_unref(reply);
	return r < 0 ? -phcctl_error(name, NULL, r) : 0;
}

static void print_offset(const char *label, int64_t ns)
{
	printf("  %-20s: %+" PRIi64 " ns\n", label, ns);
}

/*
 * Why a port does not carry time, in plain words ("" when nothing is in its way): the link, a
 * FAULTY or DISABLED state with the error, asCapable false, no master heard yet.
 */
static const char *port_why(sd_bus_message *p, char *buf, size_t size)
{
	const char *state = props_str(p, "State"), *err = props_str(p, "LastError");

	buf[0] = '\0';
	if (!props_int(p, "LinkUp")) {
		snprintf(buf, size, "link down");
	} else if (!strcmp(state, "FAULTY")) {
		snprintf(buf, size, "FAULTY: %s", *err ? err : "no reason given");
	} else if (!strcmp(state, "DISABLED")) {
		snprintf(buf, size, "disabled");
	} else if (!props_int(p, "AsCapable") && strcmp(state, "INITIALIZING")) {
		snprintf(buf, size,
			 "not asCapable: 802.1AS carries no time over this link (the neighbour "
			 "does not answer peer delay requests, or its delay is out of bounds)");
	} else if (!strcmp(state, "LISTENING") || !strcmp(state, "INITIALIZING")) {
		snprintf(buf, size, "listening: no master heard yet");
	}
	return buf;
}

static void print_port_line(sd_bus_message *p, bool why_line)
{
	char why[256];

	printf("  %-15s %-13s %-9s phc %-3" PRIi64 " %-5s pid %-7" PRIi64 " restarts %" PRIi64
	       "%s%s\n",
	       props_str(p, "Interface"), props_str(p, "State"), props_str(p, "TimestampingMode"),
	       props_int(p, "PhcIndex"), props_int(p, "LinkUp") ? "up" : "down",
	       props_int(p, "WorkerPID"), props_int(p, "Restarts"),
	       *props_str(p, "LastError") ? "  error: " : "", props_str(p, "LastError"));
	/* FAULTY says why in its error already. */
	if (why_line && *port_why(p, why, sizeof(why)) && strncmp(why, "FAULTY", 6)) {
		printf("  %-15s %s\n", "", why);
	}
}

/*
 * Health and its reasons: "Health: degraded", then one indented sentence per reason; for the
 * daemon (own_only) only its own, each instance shows its reasons under it.
 */
static void print_health(sd_bus_message *props, bool own_only)
{
	const char *code, *text;
	char type;

	printf("%s%-20s: %s\n", own_only ? "" : "  ", "Health", props_str(props, "Health"));
	if (props_enter(props, "HealthReasons", &type) < 0 || type != 'a' ||
	    sd_bus_message_enter_container(props, 'a', "(ss)") <= 0) {
		return;
	}
	while (sd_bus_message_read(props, "(ss)", &code, &text) > 0) {
		if (!own_only || strncmp(text, "instance ", strlen("instance "))) {
			printf("  %-20s  %s (%s)\n", "", text, code);
		}
	}
}

/* The object paths of the Manager's Instances or Ports property. */
static int manager_paths(struct phcctl *c, const char *property, char ***ret)
{
	return phcctl_get_paths(c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, property, ret);
}

static const char *yes_no(int64_t b)
{
	return b ? "yes" : "no";
}

/* An identity of zeros: none chosen yet (an instance's clockIdentity comes with its first port). */
static bool identity_unset(const char *id)
{
	return !strcmp(id, "000000.0000.000000") || !strcmp(id, "?");
}

/* instance NAME: what status shows, and the rest of the data sets. */
static void print_instance_detail(sd_bus_message *i)
{
	const char *parent = props_str(i, "ParentPortIdentity");
	char id[sizeof("000000.0000.000000")];

	/* its clockIdentity part: zeros before the first port, as the grandmaster's */
	snprintf(id, sizeof(id), "%s", parent);
	printf("  %-20s: %s\n", "Parent port", identity_unset(id) ? "none yet" : parent);
	printf("  %-20s: 0x%04" PRIx64 "\n", "Log variance",
	       (uint64_t) props_int(i, "OffsetScaledLogVariance"));
	printf("  %-20s: PTP timescale %s, time traceable %s, frequency traceable %s\n",
	       "Time properties", yes_no(props_int(i, "PtpTimescale")),
	       yes_no(props_int(i, "TimeTraceable")), yes_no(props_int(i, "FrequencyTraceable")));
	printf("  %-20s: %s\n", "Leap second",
	       props_int(i, "Leap61")	? "61 s in the last minute of today"
	       : props_int(i, "Leap59") ? "59 s in the last minute of today"
					: "none announced");
}

/*
 * The grandmaster the instance follows, with the quality it announces (parentDS and the
 * timePropertiesDS it sends), and the instance's own clock: the two are told apart.
 */
static void print_clocks(sd_bus_message *i)
{
	const char *gm = props_str(i, "GrandmasterIdentity");

	if (identity_unset(gm)) {
		printf("  %-20s: none yet\n", "Grandmaster");
	} else {
		printf("  %-20s: %s%s, steps removed %" PRIi64 "\n", "Grandmaster", gm,
		       !strcmp(gm, props_str(i, "ClockIdentity")) ? " (this clock)" : "",
		       props_int(i, "StepsRemoved"));
		printf("  %-20s: priority1 %" PRIi64 ", priority2 %" PRIi64 ", class %" PRIi64
		       ", accuracy %s, variance 0x%04" PRIx64 ", time source %s\n",
		       "Grandmaster quality", props_int(i, "GrandmasterPriority1"),
		       props_int(i, "GrandmasterPriority2"), props_int(i, "GrandmasterClockClass"),
		       props_str(i, "GrandmasterClockAccuracy"),
		       (uint64_t) props_int(i, "GrandmasterOffsetScaledLogVariance"),
		       props_str(i, "TimeSource"));
	}
	printf("  %-20s: %" PRIi64 " / %" PRIi64 ", class %" PRIi64 ", accuracy %s\n",
	       "Local priority1/2", props_int(i, "Priority1"), props_int(i, "Priority2"),
	       props_int(i, "ClockClass"), props_str(i, "ClockAccuracy"));
}

/* The last sample, or that there is none yet (OffsetTimestamp 0: the zeros are no measurement). */
static void print_sample(sd_bus_message *i)
{
	if (!props_int(i, "OffsetTimestamp")) {
		printf("  %-20s: no sample yet\n", "Offset from master");
		return;
	}
	print_offset("Offset from master", props_int(i, "OffsetFromMaster"));
	print_offset("Mean path delay", props_int(i, "MeanPathDelay"));
	printf("  %-20s: %+.3f ppb\n", "Frequency", props_double(i, "FrequencyAdjustment"));
}

/*
 * Why the instance is not synchronized, in plain words, from what phcd publishes: an interface
 * it waits for, no port, a servo that has not met its lock threshold, or what keeps each port
 * from following a master (ports_why, "IFNAME: why; ..."). "" when synchronized or grandmaster.
 */
static void instance_why(sd_bus_message *i, size_t n_ports, bool following, const char *ports_why,
			 char *buf, size_t size)
{
	char missing[256];

	buf[0] = '\0';
	if (props_int(i, "Synchronized") || props_int(i, "IsGrandmaster")) {
		return;
	}
	props_join(i, "MissingInterfaces", missing, sizeof(missing));
	if (missing[0]) {
		snprintf(buf, size, "%s named in its interfaces, not a port (see Health)", missing);
	} else if (n_ports == 0) {
		snprintf(buf, size, "no ports: nothing to synchronize");
	} else if (following && !strcmp(props_str(i, "Health"), "ok")) {
		/*
		 * Following, not synchronized, and the daemon sees nothing wrong in it: chronyd is
		 * the servo (daemon/health.c, health_chronyd_servo()). Its words, not a copy of
		 * its rule.
		 */
		snprintf(buf, size, "phcd runs no servo for it: %s", props_str(i, "ReadyReason"));
	} else if (following && !strcmp(props_str(i, "ServoState"), "locked")) {
		snprintf(buf, size,
			 "the servo is locked but the offsets are not within "
			 "servo_offset_threshold yet, or a PHC that follows is not locked");
	} else if (following) {
		snprintf(buf, size,
			 "following a master, servo %s: the offset has not met the lock threshold "
			 "yet",
			 props_str(i, "ServoState"));
	} else {
		snprintf(buf, size, "no port follows a master%s%s", ports_why[0] ? ": " : "",
			 ports_why);
	}
}

/* clock_servo refclock_sock: where the samples go, and how that goes. Nothing for other servos. */
static void print_refclock(sd_bus_message *i)
{
	const char *addr = props_str(i, "RefclockAddress"), *st = props_str(i, "RefclockState");
	uint64_t last = (uint64_t) props_int(i, "RefclockLastAccepted");
	struct timespec now;

	if (!*addr || !strcmp(addr, "?")) {
		return;
	}
	printf("  %-20s: %s, samples to chronyd at %s", "Refclock", st, addr);
	if (!strcmp(st, "refused")) {
		printf(" (%s)", strerror((int) -props_int(i, "RefclockError")));
	} else if (!strcmp(st, "idle")) {
		printf(" (%s)", props_str(i, "RefclockReason"));
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (last) {
		printf(", last accepted %.1f s ago",
		       ((double) now.tv_sec * 1e6 + now.tv_nsec / 1e3 - (double) last) / 1e6);
	} else {
		printf(", none accepted yet");
	}
	printf("\n");
}

static int show_instance(struct phcctl *c, const char *path, bool detail)
{
	sd_bus_message *i = NULL;
	char **ports = NULL;
	char ports_why[512] = "", why[768];
	size_t n_ports = 0, len = 0;
	bool following = false;
	const char *id;
	int r;

	r = phcctl_get_all(c, path, PHCD_BUS_IFACE_INSTANCE, &i);
	if (r < 0) {
		return r;
	}
	id = props_str(i, "ClockIdentity");
	printf("Instance %s: domain %" PRIi64 ", profile %s, clock %s (%s)\n", props_str(i, "Name"),
	       props_int(i, "Domain"), props_str(i, "Profile"),
	       identity_unset(id) ? "not chosen yet (no port)" : id, props_str(i, "ClockBackend"));
	print_health(i, false);
	print_clocks(i);
	print_sample(i);
	printf("  %-20s: %s\n", "Servo", props_str(i, "ServoState"));
	printf("  %-20s: %s\n", "Synchronized", props_int(i, "Synchronized") ? "yes" : "no");
	print_clock_mode(i);
	print_reference(i);
	print_refclock(i);
	printf("  %-20s: %" PRIi64 " s%s\n", "UTC offset", props_int(i, "CurrentUtcOffset"),
	       props_int(i, "CurrentUtcOffsetValid") ? "" : " (not valid)");
	if (detail) {
		print_instance_detail(i);
	}

	r = phcctl_get_paths(c, path, PHCD_BUS_IFACE_INSTANCE, "Ports", &ports);
	if (r < 0) {
		sd_bus_message_unref(i);
		return r;
	}
	printf("  Ports:%s\n", ports[0] ? "" : " none");
	for (char **p = ports; *p; p++) {
		sd_bus_message *pp = NULL;
		const char *st;
		char pw[256];

		r = phcctl_get_all(c, *p, PHCD_BUS_IFACE_PORT, &pp);
		if (r == -EXIT_NOT_FOUND) {
			r = 0;
			continue; /* went away since the list was read (and said so) */
		}
		if (r < 0) {
			break;
		}
		n_ports++;
		st = props_str(pp, "State");
		following |= !strcmp(st, "SLAVE") || !strcmp(st, "UNCALIBRATED");
		if (*port_why(pp, pw, sizeof(pw)) && len < sizeof(ports_why)) {
			int n = snprintf(ports_why + len, sizeof(ports_why) - len, "%s%s: %s",
					 len ? "; " : "", props_str(pp, "Interface"), pw);

			len += n > 0 ? (size_t) n : 0;
		}
		print_port_line(pp, true);
		sd_bus_message_unref(pp);
	}
	phcctl_strv_free(ports);
	if (r >= 0) {
		instance_why(i, n_ports, following, ports_why, why, sizeof(why));
		if (why[0]) {
			printf("  %-20s: %s\n", "Not synchronized", why);
		}
	}
	sd_bus_message_unref(i);
	return r < 0 ? r : 0;
}

static int cmd_status(struct phcctl *c)
{
	sd_bus_message *reply = NULL, *mgr = NULL;
	char **instances = NULL;
	const char *json;
	int r;

	if (c->json) {
		r = manager_call(c, "Describe", "phcd", &reply);
		if (r < 0) {
			return -r;
		}
		r = sd_bus_message_read(reply, "s", &json);
		if (r >= 0) {
			puts(json);
		}
		sd_bus_message_unref(reply);
		return r < 0 ? phcctl_error("Describe", NULL, r) : EXIT_OK;
	}
	r = phcctl_get_all(c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, &mgr);
	if (r < 0) {
		return -r;
	}
	printf("phcd %s; system clock: %s%s%s\n", props_str(mgr, "Version"),
	       *props_str(mgr, "SystemClockInstance") ? props_str(mgr, "SystemClockInstance")
						      : "not steered",
	       *props_str(mgr, "SystemClockInstance") ? ", synchronized: " : "",
	       *props_str(mgr, "SystemClockInstance")
		       ? (props_int(mgr, "SystemClockSynchronized") ? "yes" : "no")
		       : "");
	print_health(mgr, true);
	sd_bus_message_unref(mgr);
	r = manager_paths(c, "Instances", &instances);
	if (r < 0) {
		return -r;
	}
	for (char **p = instances; *p; p++) {
		r = show_instance(c, *p, false);
		if (r < 0) {
			break;
		}
	}
	if (r >= 0 && !instances[0]) {
		printf("No instances.\n");
	}
	phcctl_strv_free(instances);
	return r < 0 ? -r : EXIT_OK;
}

static int cmd_ports(struct phcctl *c)
{
	char **ports = NULL;
	int r;

	r = manager_paths(c, "Ports", &ports);
	if (r < 0) {
		return -r;
	}
	if (c->json) {
		putchar('[');
	} else {
		printf("  %-15s %-13s %-9s %-7s %-5s %-11s %s\n", "INTERFACE", "STATE", "TS", "PHC",
		       "LINK", "WORKER", "RESTARTS");
	}
	for (char **p = ports; *p; p++) {
		sd_bus_message *pp = NULL;

		/* Counters (left out of GetAll) only for the JSON: the table does not show them. */
		r = c->json ? phcctl_get_all_with(c, *p, PHCD_BUS_IFACE_PORT, "Counters", &pp)
			    : phcctl_get_all(c, *p, PHCD_BUS_IFACE_PORT, &pp);
		if (r < 0) {
			break;
		}
		if (c->json) {
			if (p != ports) {
				putchar(',');
			}
			r = bus_json_write_value(pp, stdout);
		} else {
			print_port_line(pp, false);
		}
		sd_bus_message_unref(pp);
	}
	if (c->json) {
		puts("]");
	}
	phcctl_strv_free(ports);
	return r < 0 ? -r : EXIT_OK;
}

/* The non-zero counters of one kind ("rx", "tx", "dropped", "ignored") on one line. */
static void print_counters(sd_bus_message *p, const char *dir, const char *label)
{
	size_t len = strlen(dir);
	const char *key;
	bool any = false;
	uint64_t v;
	char type;

	printf("  %-20s:", label);
	if (props_enter(p, "Counters", &type) >= 0 &&
	    sd_bus_message_enter_container(p, 'a', "{st}") > 0) {
		while (sd_bus_message_read(p, "{st}", &key, &v) > 0) {
			if (v && strncmp(key, dir, len) == 0 && key[len] == '_') {
				printf("%s %s %" PRIu64, any ? "," : "", key + len + 1, v);
				any = true;
			}
		}
	}
	printf("%s\n", any ? "" : " none");
}

/* The port's UnicastTable (Get only): a row per peer and message type, or "none". */
static void print_unicast_table(struct phcctl *c, const char *path)
{
	const char *addr, *role, *type, *state;
	sd_bus_message *reply = NULL;
	bool any = false;
	int16_t period;
	uint32_t left;

	printf("  %-20s:", "Unicast table");
	if (phcctl_call(c, path, "org.freedesktop.DBus.Properties", "Get", NULL, &reply, "ss",
			PHCD_BUS_IFACE_PORT, "UnicastTable") >= 0 &&
	    sd_bus_message_enter_container(reply, 'v', "a(ssssnu)") > 0 &&
	    sd_bus_message_enter_container(reply, 'a', "(ssssnu)") > 0) {
		while (sd_bus_message_read(reply, "(ssssnu)", &addr, &role, &type, &state, &period,
					   &left) > 0) {
			if (!any) {
				printf("\n    %-39s %-7s %-11s %-10s %6s %8s\n", "PEER", "ROLE",
				       "MESSAGE", "STATE", "PERIOD", "LEFT");
			}
			printf("    %-39s %-7s %-11s %-10s %6d %7" PRIu32 "s\n", addr, role, type,
			       state, period, left);
			any = true;
		}
	}
	if (!any) {
		printf(" none\n");
	}
	sd_bus_message_unref(reply);
}

/* port IFNAME: one block like status's instances. */
static void print_port(struct phcctl *c, sd_bus_message *p, const char *path)
{
	sd_bus_message *reply = NULL;
	const char *inst = NULL;
	int64_t phc = props_int(p, "PhcIndex");

	/* The instance's name, not its escaped path. */
	if (phcctl_call(c, props_str(p, "Instance"), "org.freedesktop.DBus.Properties", "Get", NULL,
			&reply, "ss", PHCD_BUS_IFACE_INSTANCE, "Name") < 0 ||
	    sd_bus_message_read(reply, "v", "s", &inst) < 0) {
		inst = NULL;
	}
	printf("Port %s: instance %s, %s\n", props_str(p, "Interface"), inst ? inst : "?",
	       props_int(p, "Enabled") ? "enabled" : "disabled");
	sd_bus_message_unref(reply);
	printf("  %-20s: %s\n", "State", props_str(p, "State"));
	printf("  %-20s: %s\n", "Port identity", props_str(p, "PortIdentity"));
	printf("  %-20s: %s\n", "Delay mechanism", props_str(p, "DelayMechanism"));
	printf("  %-20s: %s\n", "Transport", props_str(p, "NetworkTransport"));
	printf("  %-20s: %s", "Timestamping", props_str(p, "TimestampingMode"));
	if (phc >= 0) {
		printf(", PHC /dev/ptp%" PRIi64 "\n", phc);
	} else {
		printf(", no PHC\n");
	}
	printf("  %-20s: %s, ifindex %" PRIi64 "\n", "Link", props_int(p, "LinkUp") ? "up" : "down",
	       props_int(p, "IfIndex"));
	printf("  %-20s: pid %" PRIi64 ", %" PRIi64 " restart(s)\n", "Worker",
	       props_int(p, "WorkerPID"), props_int(p, "Restarts"));
	if (*props_str(p, "LastError")) {
		printf("  %-20s: %s (errno %" PRIi64 ")\n", "Last error", props_str(p, "LastError"),
		       props_int(p, "LastErrorCode"));
	} else {
		printf("  %-20s: none\n", "Last error");
	}
	print_counters(p, "rx", "Received");
	print_counters(p, "tx", "Sent");
	print_counters(p, "dropped", "Dropped");
	print_counters(p, "ignored", "Ignored");
	print_unicast_table(c, path);
}

/* port IFNAME / instance NAME: a readable block, or every property as one JSON object. */
static int cmd_show(struct phcctl *c, const char *method, const char *iface, const char *name)
{
	_cleanup_free_ char *path = NULL;
	sd_bus_message *props = NULL;
	int r;

	r = phcctl_lookup(c, method, name, &path);
	if (r < 0) {
		return -r;
	}
	if (!c->json && strcmp(iface, PHCD_BUS_IFACE_INSTANCE) == 0) {
		r = show_instance(c, path, true);
		return r < 0 ? -r : EXIT_OK;
	}
	r = strcmp(iface, PHCD_BUS_IFACE_PORT) == 0
		    ? phcctl_get_all_with(c, path, iface, "Counters", &props)
		    : phcctl_get_all(c, path, iface, &props);
	if (r < 0) {
		return -r;
	}
	if (c->json) {
		r = phcctl_print_json(props);
	} else {
		print_port(c, props, path);
	}
	sd_bus_message_unref(props);
	return r < 0 ? phcctl_error(name, NULL, r) : EXIT_OK;
}

/* set-priority1/2, enable, disable, restart: method on an object found by name. */
static int cmd_object_call(struct phcctl *c, const char *lookup_method, const char *name,
			   const char *iface, const char *method, const char *value)
{
	_cleanup_free_ char *path = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *end;
	long v = 0;
	int r;

	if (value) {
		errno = 0;
		v = strtol(value, &end, 0);
		if (errno || *end || end == value || v < 0 || v > 255) {
			log_error("'%s' is not a priority (0..255)", value);
			return EXIT_USAGE;
		}
	}
	r = phcctl_lookup(c, lookup_method, name, &path);
	if (r < 0) {
		return -r;
	}
	r = value ? sd_bus_call_method(c->bus, PHCD_BUS_NAME, path, iface, method, &e, NULL, "y",
				       (uint8_t) v)
		  : sd_bus_call_method(c->bus, PHCD_BUS_NAME, path, iface, method, &e, NULL, NULL);
	r = r < 0 ? phcctl_error(method, &e, r) : EXIT_OK;
	sd_bus_error_free(&e);
	return r;
}

struct command {
	const char *name;
	int args;	    /* positional arguments after the command; -1: one or more */
	const char *lookup; /* Manager lookup of the first argument, for object calls */
	const char *iface;  /* its interface */
	const char *method; /* method to call on it */
};

static const struct command commands[] = {
	{ "status", 0 },
	{ "ports", 0 },
	{ "port", 1, "GetPortByInterface", PHCD_BUS_IFACE_PORT },
	{ "instance", 1, "GetInstance", PHCD_BUS_IFACE_INSTANCE },
	{ "monitor", 0 },
	{ "wait-sync", 0 },
	{ "reload", 0 },
	{ "set-priority1", 2, "GetInstance", PHCD_BUS_IFACE_INSTANCE, "SetPriority1" },
	{ "set-priority2", 2, "GetInstance", PHCD_BUS_IFACE_INSTANCE, "SetPriority2" },
	{ "enable", 1, "GetPortByInterface", PHCD_BUS_IFACE_PORT, "Enable" },
	{ "disable", 1, "GetPortByInterface", PHCD_BUS_IFACE_PORT, "Disable" },
	{ "restart", 1, "GetPortByInterface", PHCD_BUS_IFACE_PORT, "Restart" },
	{ "set-grandmaster-settings", -1 },
	{ "check-config", 1 },
};

/* The commands that only read: they never start phcd by D-Bus activation (see main()). */
static bool reads_only(const struct command *cmd)
{
	static const char *const readers[] = { "status",  "ports",     "port",	      "instance",
					       "monitor", "wait-sync", "check-config" };

	for (size_t k = 0; k < ARRAY_SIZE(readers); k++) {
		if (!strcmp(cmd->name, readers[k])) {
			return true;
		}
	}
	return false;
}

static int run(struct phcctl *c, const struct command *cmd, char **args, int n_args)
{
	sd_bus_message *reply = NULL;
	int r;

	if (cmd->method) {
		return cmd_object_call(c, cmd->lookup, args[0], cmd->iface, cmd->method,
				       cmd->args == 2 ? args[1] : NULL);
	}
	if (cmd->lookup) {
		return cmd_show(c, cmd->lookup, cmd->iface, args[0]);
	}
	if (strcmp(cmd->name, "status") == 0) {
		return cmd_status(c);
	}
	if (strcmp(cmd->name, "ports") == 0) {
		return cmd_ports(c);
	}
	if (strcmp(cmd->name, "monitor") == 0) {
		return phcctl_monitor(c);
	}
	if (strcmp(cmd->name, "wait-sync") == 0) {
		return phcctl_wait_sync(c);
	}
	if (strcmp(cmd->name, "set-grandmaster-settings") == 0) {
		return phcctl_set_grandmaster_settings(c, args, n_args);
	}
	if (strcmp(cmd->name, "check-config") == 0) {
		return phcctl_check_config(c, args[0]);
	}
	/* reload */
	r = manager_call(c, "Reload", "reload", &reply);
	sd_bus_message_unref(reply);
	return r < 0 ? -r : EXIT_OK;
}

/* A bad command line: one line on stderr, pointing at --help, and exit 2. */
_printf_(1, 2) static int usage_error(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s; see phcctl --help", msg);
	return EXIT_USAGE;
}

/* The bus phcd is on: the local system bus, a host's over ssh, or a container's. */
static int open_bus(struct phcctl *c, const char *host, const char *machine, bool ask_password)
{
	int r;

	if (host) {
		r = sd_bus_open_system_remote(&c->bus, host);
	} else if (machine) {
		r = sd_bus_open_system_machine(&c->bus, machine);
	} else {
		r = sd_bus_open_system(&c->bus);
	}
	if (r < 0) {
		if (host || machine) {
			log_error_errno(r, "cannot connect to the system bus of %s: %m",
					host ? host : machine);
		} else {
			log_error_errno(r, "cannot connect to the system bus: %m");
		}
		return EXIT_NOT_RUNNING;
	}
	/* Let polkit ask for a password when a person runs a mutating command, as systemctl. */
	sd_bus_set_allow_interactive_authorization(c->bus, ask_password);
	return EXIT_OK;
}

/* The commands whose output may be long: through the pager on a terminal, as systemctl. */
static bool pages(const struct command *cmd)
{
	return strcmp(cmd->name, "status") == 0 || strcmp(cmd->name, "ports") == 0 ||
	       (cmd->lookup && !cmd->method);
}

int main(int argc, char **argv)
{
	enum {
		ARG_VERSION = 0x100,
		ARG_TIMEOUT,
		ARG_MAX_OFFSET,
		ARG_INSTANCE,
		ARG_NO_ASK_PASSWORD,
		ARG_NO_PAGER,
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "json", no_argument, NULL, 'j' },
		{ "host", required_argument, NULL, 'H' },
		{ "machine", required_argument, NULL, 'M' },
		{ "no-ask-password", no_argument, NULL, ARG_NO_ASK_PASSWORD },
		{ "no-pager", no_argument, NULL, ARG_NO_PAGER },
		{ "timeout", required_argument, NULL, ARG_TIMEOUT },
		{ "max-offset", required_argument, NULL, ARG_MAX_OFFSET },
		{ "instance", required_argument, NULL, ARG_INSTANCE },
		{},
	};
	struct phcctl c = { .timeout_sec = -1, .max_offset = -1 };
	const struct command *cmd = NULL;
	const char *host = NULL, *machine = NULL;
	/* As systemctl: polkit may ask only someone at a terminal. */
	bool ask_password = isatty(STDIN_FILENO);
	pid_t pager;
	char *end;
	int opt, r;

	log_setup("phcctl");
	opterr = 0; /* getopt's own messages are two lines: usage_error() says it in one */
	while ((opt = getopt_long(argc, argv, ":hjH:M:", opts, NULL)) >= 0) {
		switch (opt) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case ARG_VERSION:
			printf("phcctl %s\n", PHCD_VERSION);
			return EXIT_OK;
		case 'j':
			c.json = true;
			break;
		case 'H':
			host = optarg;
			break;
		case 'M':
			machine = optarg;
			break;
		case ARG_NO_ASK_PASSWORD:
			ask_password = false;
			break;
		case ARG_NO_PAGER:
			c.no_pager = true;
			break;
		case ARG_TIMEOUT:
			c.timeout_sec = strtod(optarg, &end);
			if (*end || end == optarg || !(c.timeout_sec >= 0)) {
				return usage_error("--timeout wants seconds >= 0, not '%s'",
						   optarg);
			}
			break;
		case ARG_MAX_OFFSET:
			errno = 0;
			c.max_offset = strtoll(optarg, &end, 10);
			if (errno || *end || end == optarg || c.max_offset < 0) {
				return usage_error("--max-offset wants nanoseconds >= 0, not '%s'",
						   optarg);
			}
			break;
		case ARG_INSTANCE:
			c.instance = optarg;
			break;
		case ':':
			return usage_error("option %s needs an argument", argv[optind - 1]);
		default:
			/* A known option's value in optopt: a long one given an argument it takes
			 * not (--json=x); another character: an unknown short option. */
			if (optopt >= 0x100 || (optopt && strchr("hjHM", optopt))) {
				return usage_error("option %s takes no argument", argv[optind - 1]);
			}
			if (optopt) {
				return usage_error("unknown option -%c", optopt);
			}
			return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (host && machine) {
		return usage_error("--host and --machine exclude each other");
	}
	if (optind >= argc) {
		return usage_error("no command given");
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		if (strcmp(commands[k].name, argv[optind]) == 0) {
			cmd = &commands[k];
		}
	}
	if (!cmd) {
		return usage_error("unknown command '%s'", argv[optind]);
	}
	if (cmd->args < 0 ? argc - optind - 1 < 1 : argc - optind - 1 != cmd->args) {
		return usage_error("%s takes %d argument%s, not %d", cmd->name,
				   cmd->args < 0 ? 1 : cmd->args, cmd->args == 1 ? "" : "s",
				   argc - optind - 1);
	}
	phcctl_set_target(host ? host : machine);
	r = open_bus(&c, host, machine, ask_password);
	if (r != EXIT_OK) {
		return r;
	}
	/*
	 * A stopped phcd stays stopped when someone only looks: no D-Bus activation on reads
	 * (they say "phcd is not running", exit 6); a command that changes something may start it.
	 */
	c.auto_start = !reads_only(cmd);
	pager = pages(cmd) ? phcctl_pager_open(&c) : 0;
	r = run(&c, cmd, argv + optind + 1, argc - optind - 1);
	phcctl_pager_close(pager);
	sd_bus_flush_close_unref(c.bus);
	return r;
}
