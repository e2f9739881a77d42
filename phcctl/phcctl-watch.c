// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl monitor and wait-sync: both follow phcd's signals instead of polling. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/time-util.h"
#include "dbus/bus-json.h"
#include "phcctl/phcctl.h"
#include "ptp/types.h"
#include "ptp/util.h"

/* "port/veth0" from "/org/phcd1/port/veth0": enough to tell objects apart on a terminal. */
static const char *short_path(const char *path)
{
	size_t n = strlen(PHCD_BUS_PATH_MANAGER);

	if (strncmp(path, PHCD_BUS_PATH_MANAGER, n) == 0 && path[n] == '/') {
		return path + n + 1;
	}
	return strcmp(path, PHCD_BUS_PATH_MANAGER) == 0 ? "manager" : path;
}

static void stamp(void)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	printf("%02d:%02d:%02d.%03ld ", tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* Every signal of org.phcd1: one line of text or one JSON object per signal. */
static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct phcctl *c = userdata;
	const char *member = sd_bus_message_get_member(m);
	const char *path = sd_bus_message_get_path(m);
	const char *obj = path;
	int r = 0;

	if (c->json) {
		printf("{\"signal\":");
		bus_json_string(stdout, member);
		printf(",\"path\":");
		bus_json_string(stdout, path);
		printf(",\"args\":[");
		for (bool first = true; sd_bus_message_peek_type(m, NULL, NULL) > 0;
		     first = false) {
			if (!first) {
				putchar(',');
			}
			r = bus_json_write_value(m, stdout);
			if (r < 0) {
				break;
			}
		}
		printf("]}\n");
		fflush(stdout);
		return 0;
	}
	stamp();
	if (strcmp(member, "PropertiesChanged") == 0) {
		const char *iface;

		r = sd_bus_message_read(m, "s", &iface);
		printf("%s:", short_path(path));
		if (r >= 0) {
			r = sd_bus_message_enter_container(m, 'a', "{sv}");
		}
		while (r >= 0 && sd_bus_message_enter_container(m, 'e', "sv") > 0) {
			const char *name;

			r = sd_bus_message_read(m, "s", &name);
			if (r < 0) {
				break;
			}
			printf(" %s=", name);
			r = bus_json_write_value(m, stdout);
			if (r >= 0) {
				r = sd_bus_message_exit_container(m);
			}
		}
		/* Invalidated properties (none of phcd's today): only the names. */
		if (r >= 0) {
			r = sd_bus_message_exit_container(m);
		}
		if (r >= 0) {
			r = sd_bus_message_enter_container(m, 'a', "s");
		}
		while (r >= 0) {
			const char *name;

			r = sd_bus_message_read_basic(m, 's', &name);
			if (r <= 0) {
				break;
			}
			printf(" %s changed", name);
		}
	} else {
		/* InterfacesAdded/Removed: the object is the first argument. */
		if (sd_bus_message_read(m, "o", &obj) < 0) {
			obj = path;
		}
		printf("%s: %s", short_path(obj),
		       strcmp(member, "InterfacesAdded") == 0 ? "added" : "removed");
	}
	putchar('\n');
	fflush(stdout);
	return 0;
}

static int add_matches(struct phcctl *c, sd_bus_message_handler_t handler, void *userdata,
		       bool objects)
{
	int r;

	r = sd_bus_match_signal(c->bus, NULL, PHCD_BUS_NAME, NULL,
				"org.freedesktop.DBus.Properties", "PropertiesChanged", handler,
				userdata);
	if (r >= 0 && objects) {
		r = sd_bus_match_signal(c->bus, NULL, PHCD_BUS_NAME, PHCD_BUS_PATH_MANAGER,
					"org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
					handler, userdata);
	}
	if (r >= 0 && objects) {
		r = sd_bus_match_signal(c->bus, NULL, PHCD_BUS_NAME, PHCD_BUS_PATH_MANAGER,
					"org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
					handler, userdata);
	}
	if (r >= 0 && !objects) {
		r = sd_bus_match_signal(c->bus, NULL, "org.freedesktop.DBus",
					"/org/freedesktop/DBus", "org.freedesktop.DBus",
					"NameOwnerChanged", handler, userdata);
	}
	return r;
}

/* Dispatch until deadline (UINT64_MAX: never) or until *done. */
static int loop(struct phcctl *c, uint64_t deadline, const bool *done)
{
	int r;

	while (!*done) {
		uint64_t now = time_mono_usec();

		r = sd_bus_process(c->bus, NULL);
		if (r < 0) {
			return r;
		}
		if (r > 0) {
			continue;
		}
		if (now >= deadline) {
			return 0;
		}
		r = sd_bus_wait(c->bus, deadline == UINT64_MAX ? UINT64_MAX : deadline - now);
		if (r < 0 && r != -EINTR) {
			return r;
		}
	}
	return 1;
}

/* org.phcd1 changed owner: say when phcd leaves the bus and when it is back. */
static int on_owner(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct phcctl *c = userdata;
	const char *name, *old_owner, *new_owner;

	if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 ||
	    strcmp(name, PHCD_BUS_NAME) != 0) {
		return 0;
	}
	if (c->json) {
		printf("{\"signal\":\"NameOwnerChanged\",\"path\":\"%s\",\"args\":[\"%s\",",
		       PHCD_BUS_PATH_MANAGER, PHCD_BUS_NAME);
		bus_json_string(stdout, old_owner);
		putchar(',');
		bus_json_string(stdout, new_owner);
		printf("],\"phcd\":\"%s\"}\n", new_owner[0] ? "started" : "exited");
	} else {
		stamp();
		printf("phcd %s\n", new_owner[0] ? "is on the bus again" : "exited (left the bus)");
	}
	fflush(stdout);
	return 0;
}

int phcctl_monitor(struct phcctl *c)
{
	bool never = false;
	int r;

	r = sd_bus_match_signal(c->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				"org.freedesktop.DBus", "NameOwnerChanged", on_owner, c);
	if (r >= 0) {
		r = add_matches(c, on_signal, c, true);
	}
	if (r < 0) {
		return phcctl_error("monitor", NULL, r);
	}
	/* Subscribed: from here on nothing is missed (tests wait for this line). */
	fprintf(stderr, "Monitoring %s, Ctrl-C to stop.\n", PHCD_BUS_NAME);
	r = loop(c, UINT64_MAX, &never);
	return r < 0 ? phcctl_error("monitor", NULL, r) : EXIT_OK;
}

/* One instance as wait-sync judges it. */
struct wait_instance {
	char *path;
	char name[64];
	bool ready;
	bool synchronized;
	bool grandmaster;
	size_t n_ports;
	char missing[256]; /* MissingInterfaces, comma-separated: configured, not present yet */
	int64_t offset;
	char reason[512];
};

struct wait_state {
	struct phcctl *c;
	bool changed; /* a signal came: check again */
	bool done;
	bool ready;
	int exit_code;
	char why[640]; /* why not yet, for the timeout message */
	bool running;  /* phcd answered */
	/* the system clock, when phcd steers it (SystemClockInstance set, no --instance) */
	bool sysclock;
	bool sysclock_ready;
	char sysclock_instance[64];
	char sysclock_reason[512];
	char sysclock_conflict[256];
	struct wait_instance *inst;
	size_t n_inst;
};

static int on_change(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct wait_state *w = userdata;

	w->changed = true;
	return 0;
}

static void wait_instances_free(struct wait_state *w)
{
	for (size_t k = 0; k < w->n_inst; k++) {
		free(w->inst[k].path);
	}
	free(w->inst);
	w->inst = NULL;
	w->n_inst = 0;
}

/* The number of elements of the "ao" property name (0 when absent). */
static size_t props_count(sd_bus_message *props, const char *name)
{
	const char *s;
	size_t n = 0;
	char type;

	if (props_enter(props, name, &type) < 0 || type != 'a' ||
	    sd_bus_message_enter_container(props, 'a', "o") <= 0) {
		return 0;
	}
	while (sd_bus_message_read_basic(props, 'o', &s) > 0) {
		n++;
	}
	return n;
}

/*
 * One instance as phcd judges it (its Ready and ReadyReason: the daemon's readiness verdict, the
 * one the exporter and Cockpit show), and --max-offset on top when synchronized.
 */
static int judge_instance(struct wait_state *w, struct wait_instance *wi)
{
	sd_bus_message *p = NULL;
	int r;

	r = phcctl_get_all(w->c, wi->path, PHCD_BUS_IFACE_INSTANCE, &p);
	if (r < 0) {
		return r;
	}
	snprintf(wi->name, sizeof(wi->name), "%s", props_str(p, "Name"));
	wi->synchronized = props_int(p, "Synchronized");
	wi->grandmaster = props_int(p, "IsGrandmaster");
	wi->n_ports = props_count(p, "Ports");
	props_join(p, "MissingInterfaces", wi->missing, sizeof(wi->missing));
	wi->offset = props_int(p, "OffsetFromMaster");
	wi->ready = props_int(p, "Ready");
	snprintf(wi->reason, sizeof(wi->reason), "%s", props_str(p, "ReadyReason"));
	if (wi->ready && wi->synchronized && w->c->max_offset >= 0 &&
	    (wi->offset == INT64_MIN || llabs(wi->offset) > w->c->max_offset)) {
		wi->ready = false;
		snprintf(wi->reason, sizeof(wi->reason), "offset %" PRIi64 " ns > %" PRIi64 " ns",
			 wi->offset, w->c->max_offset);
	}
	sd_bus_message_unref(p);
	return 0;
}

/* The instances to judge: --instance, else every one. */
static int wait_targets(struct wait_state *w, char **instances)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path;
	size_t n = 0;
	int r;

	wait_instances_free(w);
	if (w->c->instance) {
		r = phcctl_call(w->c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, "GetInstance",
				&e, &reply, "s", w->c->instance);
		if (r >= 0) {
			r = sd_bus_message_read(reply, "o", &path);
		}
		w->inst = calloc(1, sizeof(*w->inst));
		if (r >= 0 && w->inst) {
			w->inst[0].path = strdup(path);
			w->n_inst = w->inst[0].path ? 1 : 0;
		}
		sd_bus_message_unref(reply);
		if (r < 0) {
			r = -phcctl_error("wait-sync", &e, r);
		} else if (!w->n_inst) {
			r = -phcctl_error("wait-sync", NULL, -ENOMEM);
		}
		sd_bus_error_free(&e);
		return r;
	}
	for (char **i = instances; *i; i++) {
		n++;
	}
	w->inst = calloc(n ? n : 1, sizeof(*w->inst));
	if (!w->inst) {
		return -phcctl_error("wait-sync", NULL, -ENOMEM);
	}
	for (size_t k = 0; k < n; k++) {
		w->inst[k].path = strdup(instances[k]);
		if (!w->inst[k].path) {
			return -phcctl_error("wait-sync", NULL, -ENOMEM);
		}
		w->n_inst = k + 1;
	}
	return 0;
}

/*
 * Look at phcd once. When phcd steers CLOCK_REALTIME (SystemClockInstance set, no --instance),
 * the system clock decides: time-sync.target means the clock is right, not that PTP is; it is
 * ready once locked, or when the instance it follows is the grandmaster or has no ports (then
 * nothing steers the system clock; with "auto", when no instance follows a master).
 */
static void wait_check(struct wait_state *w)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *mgr = NULL;
	char **instances = NULL;
	const char *sys;
	bool all = true, daemon_ready;
	char daemon_reason[512];
	int r;

	w->changed = false;
	w->ready = false;
	r = phcctl_call(w->c, PHCD_BUS_PATH_MANAGER, "org.freedesktop.DBus.Properties", "GetAll",
			&e, &mgr, "s", PHCD_BUS_IFACE_MANAGER);
	if (r < 0 && sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					    SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
		snprintf(w->why, sizeof(w->why), "phcd is not running");
		w->running = false;
		sd_bus_error_free(&e);
		return; /* not yet: it may start */
	}
	if (r < 0) {
		w->exit_code = phcctl_error("wait-sync", &e, r);
		w->done = true;
		sd_bus_error_free(&e);
		return;
	}
	w->running = true;
	sys = props_str(mgr, "SystemClockInstance");
	w->sysclock = !w->c->instance && sys[0] && strcmp(sys, "?");
	snprintf(w->sysclock_instance, sizeof(w->sysclock_instance), "%s", sys);
	w->sysclock_ready = w->sysclock && props_int(mgr, "SystemClockSynchronized");
	snprintf(w->sysclock_conflict, sizeof(w->sysclock_conflict), "%s",
		 props_str(mgr, "SystemClockConflict"));
	if (!strcmp(w->sysclock_conflict, "?")) {
		w->sysclock_conflict[0] = '\0'; /* a phcd without the property */
	}
	daemon_ready = props_int(mgr, "Ready");
	snprintf(daemon_reason, sizeof(daemon_reason), "%s", props_str(mgr, "ReadyReason"));
	sd_bus_message_unref(mgr);
	r = w->c->instance ? 0
			   : phcctl_get_paths(w->c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER,
					      "Instances", &instances);
	if (r >= 0) {
		r = wait_targets(w, instances);
	}
	phcctl_strv_free(instances);
	for (size_t k = 0; r >= 0 && k < w->n_inst; k++) {
		struct wait_instance *wi = &w->inst[k];

		r = judge_instance(w, wi);
		all &= wi->ready;
	}
	if (r == -EXIT_NOT_FOUND && w->c->instance && !w->n_inst) {
		/* --instance names none that the running phcd has: no wait makes it appear. */
		w->exit_code = EXIT_NOT_FOUND;
		w->done = true;
		return;
	}
	if (r < 0) {
		/* phcd went away, or an instance did: look again at the next change. */
		w->exit_code = -r;
		if (r == -EXIT_NOT_RUNNING || r == -EXIT_NOT_FOUND) {
			snprintf(w->why, sizeof(w->why), "phcd changed while it was asked");
			return;
		}
		w->done = true;
		return;
	}
	if (w->sysclock) {
		/* phcd's verdict on the system clock (Manager Ready, readiness.c). */
		static const char prefix[] = "the system clock is ";

		w->sysclock_ready = daemon_ready;
		/* "system clock: not locked yet (...)": the subject is in the line already */
		snprintf(w->sysclock_reason, sizeof(w->sysclock_reason), "%s",
			 daemon_reason + (strncmp(daemon_reason, prefix, strlen(prefix))
						  ? 0
						  : strlen(prefix)));
		if (!daemon_ready) {
			snprintf(w->why, sizeof(w->why), "%s", daemon_reason);
		}
		w->ready = w->sysclock_ready;
	} else {
		/* --instance: that instance's verdict; else the daemon's, over all of them. */
		w->ready = all && (w->c->instance || daemon_ready);
		snprintf(w->why, sizeof(w->why), "%s", daemon_reason);
		for (size_t k = 0; k < w->n_inst; k++) {
			if (!w->inst[k].ready) {
				snprintf(w->why, sizeof(w->why), "instance %s: %s", w->inst[k].name,
					 w->inst[k].reason);
				break;
			}
		}
	}
	if (w->ready) {
		w->exit_code = EXIT_OK;
		w->done = true;
	}
}

static void json_reason(const char *key, const char *s, bool comma)
{
	printf("\"%s\":", key);
	bus_json_string(stdout, s);
	if (comma) {
		putchar(',');
	}
}

/* "key":[...] from a ", "-joined list (interface names hold no space), and a comma. */
static void json_names(const char *key, const char *joined)
{
	char buf[256];
	char *save = NULL;
	bool first = true;

	snprintf(buf, sizeof(buf), "%s", joined);
	printf("\"%s\":[", key);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		printf("%s", first ? "" : ",");
		bus_json_string(stdout, t);
		first = false;
	}
	printf("],");
}

/* The verdict: one line per instance (and the system clock), or one JSON document. */
static void wait_report(struct wait_state *w)
{
	if (w->c->json) {
		printf("{\"Ready\":%s,\"Running\":%s,", w->ready ? "true" : "false",
		       w->running ? "true" : "false");
		if (w->sysclock) {
			printf("\"SystemClock\":{\"Instance\":");
			bus_json_string(stdout, w->sysclock_instance);
			printf(",\"Ready\":%s,", w->sysclock_ready ? "true" : "false");
			json_reason("Reason", w->sysclock_reason, false);
			printf("},");
		} else {
			printf("\"SystemClock\":null,");
		}
		printf("\"Instances\":[");
		for (size_t k = 0; k < w->n_inst; k++) {
			const struct wait_instance *wi = &w->inst[k];

			printf("%s{\"Name\":", k ? "," : "");
			bus_json_string(stdout, wi->name);
			printf(",\"Ready\":%s,\"Synchronized\":%s,\"IsGrandmaster\":%s,"
			       "\"Ports\":%zu,\"OffsetFromMaster\":%" PRIi64 ",",
			       wi->ready ? "true" : "false", wi->synchronized ? "true" : "false",
			       wi->grandmaster ? "true" : "false", wi->n_ports, wi->offset);
			json_names("MissingInterfaces", wi->missing);
			json_reason("Reason", wi->reason, false);
			putchar('}');
		}
		printf("],");
		json_reason("Reason", w->ready ? "ready" : w->why[0] ? w->why : "no answer", false);
		printf("}\n");
		return;
	}
	if (!w->ready) {
		return;
	}
	if (w->sysclock) {
		printf("system clock: %s\n", w->sysclock_reason);
		return;
	}
	for (size_t k = 0; k < w->n_inst; k++) {
		printf("%s: %s\n", w->inst[k].name, w->inst[k].reason);
	}
	if (!w->n_inst) {
		printf("phcd runs no instance: nothing to wait for\n");
	}
}

int phcctl_wait_sync(struct phcctl *c)
{
	struct wait_state w = { .c = c, .exit_code = EXIT_TIMEOUT };
	uint64_t deadline = c->timeout_sec < 0
				    ? UINT64_MAX
				    : time_mono_usec() + (uint64_t) (c->timeout_sec * 1e6);
	int r;

	/* Subscribe first, then look: a change between the two cannot be missed. */
	r = add_matches(c, on_change, &w, false);
	if (r < 0) {
		return phcctl_error("wait-sync", NULL, r);
	}
	wait_check(&w);
	while (!w.done) {
		r = loop(c, deadline, &w.changed);
		if (r < 0) {
			wait_instances_free(&w);
			return phcctl_error("wait-sync", NULL, r);
		}
		if (r == 0) {
			wait_report(&w);
			log_error("wait-sync: timed out after %g s: %s", c->timeout_sec,
				  w.why[0] ? w.why : "no answer");
			wait_instances_free(&w);
			return EXIT_TIMEOUT;
		}
		wait_check(&w);
	}
	if (w.exit_code == EXIT_OK) {
		wait_report(&w);
	}
	wait_instances_free(&w);
	return w.exit_code;
}
