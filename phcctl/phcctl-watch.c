// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl monitor and wait-sync: both follow phcd's signals instead of polling. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "dbus/bus-json.h"
#include "phcctl/phcctl.h"
#include "ptp/types.h"
#include "ptp/util.h"

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / (uint64_t) NS_PER_USEC;
}

/* "port/veth0" from "/org/phcd1/port/veth0": enough to tell objects apart on a terminal. */
static const char *short_path(const char *path)
{
	size_t n = strlen(PHCCTL_PATH);

	if (strncmp(path, PHCCTL_PATH, n) == 0 && path[n] == '/') {
		return path + n + 1;
	}
	return strcmp(path, PHCCTL_PATH) == 0 ? "manager" : path;
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

	r = sd_bus_match_signal(c->bus, NULL, PHCCTL_BUS_NAME, NULL,
				"org.freedesktop.DBus.Properties", "PropertiesChanged", handler,
				userdata);
	if (r >= 0 && objects) {
		r = sd_bus_match_signal(c->bus, NULL, PHCCTL_BUS_NAME, PHCCTL_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
					handler, userdata);
	}
	if (r >= 0 && objects) {
		r = sd_bus_match_signal(c->bus, NULL, PHCCTL_BUS_NAME, PHCCTL_PATH,
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
		uint64_t now = now_usec();

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

int phcctl_monitor(struct phcctl *c)
{
	bool never = false;
	int r;

	r = add_matches(c, on_signal, c, true);
	if (r < 0) {
		return phcctl_error("monitor", NULL, r);
	}
	/* Subscribed: from here on nothing is missed (tests wait for this line). */
	fprintf(stderr, "Monitoring %s, Ctrl-C to stop.\n", PHCCTL_BUS_NAME);
	r = loop(c, UINT64_MAX, &never);
	return r < 0 ? phcctl_error("monitor", NULL, r) : EXIT_OK;
}

struct wait_state {
	struct phcctl *c;
	bool changed; /* a signal came: check again */
	bool done;
	int exit_code;
	char why[256]; /* why not yet, for the timeout message */
	int sysclock;  /* phcd steers CLOCK_REALTIME: 1 locked, 0 not yet; -1 it does not */
};

static int on_change(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct wait_state *w = userdata;

	w->changed = true;
	return 0;
}

/* Is the instance at path synchronized within max_offset? 1 yes, 0 no (w->why says), <0 error. */
static int instance_ready(struct wait_state *w, const char *path)
{
	sd_bus_message *p = NULL;
	int64_t offset;
	int r;

	r = phcctl_get_all(w->c, path, PHCCTL_IFACE_INSTANCE, &p);
	if (r < 0) {
		return r;
	}
	offset = props_int(p, "OffsetFromMaster");
	if (!props_int(p, "Synchronized")) {
		snprintf(w->why, sizeof(w->why), "instance %s is not synchronized (servo %s)",
			 props_str(p, "Name"), props_str(p, "ServoState"));
		r = 0;
	} else if (w->c->max_offset >= 0 && llabs(offset) > w->c->max_offset) {
		snprintf(w->why, sizeof(w->why),
			 "instance %s offset %" PRIi64 " ns > %" PRIi64 " ns", props_str(p, "Name"),
			 offset, w->c->max_offset);
		r = 0;
	} else {
		printf("%s: synchronized, offset %" PRIi64 " ns\n", props_str(p, "Name"), offset);
		r = 1;
	}
	sd_bus_message_unref(p);
	return r;
}

/*
 * When phcd steers CLOCK_REALTIME (SystemClockInstance set, no --instance), wait for the system
 * clock itself: time-sync.target means the clock is right, not that PTP is. 1 when it is locked,
 * 0 when not (w->why says), -ENOENT when phcd does not steer it, other <0 on errors.
 */
static int system_clock_ready(struct wait_state *w, sd_bus_error *e)
{
	char *sys = NULL;
	int r, locked;

	r = sd_bus_get_property_string(w->c->bus, PHCCTL_BUS_NAME, PHCCTL_PATH,
				       PHCCTL_IFACE_MANAGER, "SystemClockInstance", e, &sys);
	if (r < 0) {
		return r;
	}
	if (!sys[0]) {
		free(sys);
		return -ENOENT;
	}
	r = sd_bus_get_property_trivial(w->c->bus, PHCCTL_BUS_NAME, PHCCTL_PATH,
					PHCCTL_IFACE_MANAGER, "SystemClockSynchronized", e, 'b',
					&locked);
	if (r >= 0 && locked) {
		printf("system clock: synchronized (system_clock_instance %s)\n", sys);
		r = 1;
	} else if (r >= 0) {
		snprintf(w->why, sizeof(w->why),
			 "the system clock is not locked yet (system_clock_instance %s)", sys);
		r = 0;
	}
	free(sys);
	return r;
}

/* The instances to wait for: --instance, else the system clock (see above), else all. */
static int wait_targets(struct wait_state *w, char ***ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path;
	int r = 0;

	if (!w->c->instance) {
		r = system_clock_ready(w, &e);
		if (r >= 0) {
			/* Decided by the system clock: no instance to look at. */
			w->sysclock = r;
			*ret = calloc(1, sizeof(char *));
			r = *ret ? 0 : -ENOMEM;
			goto out;
		}
		if (r == -ENOENT) {
			w->sysclock = -1;
			r = sd_bus_get_property_strv(w->c->bus, PHCCTL_BUS_NAME, PHCCTL_PATH,
						     PHCCTL_IFACE_MANAGER, "Instances", &e, ret);
			goto out;
		}
	}
	if (!sd_bus_error_is_set(&e)) {
		r = sd_bus_call_method(w->c->bus, PHCCTL_BUS_NAME, PHCCTL_PATH,
				       PHCCTL_IFACE_MANAGER, "GetInstance", &e, &reply, "s",
				       w->c->instance);
	}
	if (r >= 0) {
		r = sd_bus_message_read(reply, "o", &path);
	}
	if (r >= 0) {
		*ret = calloc(2, sizeof(char *));
		r = *ret && ((*ret)[0] = strdup(path)) ? 0 : -ENOMEM;
	}
	sd_bus_message_unref(reply);
out:
	if (r < 0 && sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					    SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
		snprintf(w->why, sizeof(w->why), "phcd is not running");
		r = 0; /* not yet: it may start */
		*ret = NULL;
	} else if (r < 0) {
		w->exit_code = phcctl_error("wait-sync", &e, r);
		w->done = true;
	}
	sd_bus_error_free(&e);
	return r;
}

static void wait_check(struct wait_state *w)
{
	char **targets = NULL;
	int ready = 1, r;

	w->changed = false;
	r = wait_targets(w, &targets);
	if (r < 0 || !targets) {
		return;
	}
	if (w->sysclock >= 0) {
		ready = w->sysclock;
	} else if (!targets[0]) {
		snprintf(w->why, sizeof(w->why), "phcd runs no instance");
		ready = 0;
	}
	for (char **t = targets; *t && ready > 0; t++) {
		ready = instance_ready(w, *t);
	}
	for (char **t = targets; *t; t++) {
		free(*t);
	}
	free(targets);
	if (ready > 0) {
		w->exit_code = EXIT_OK;
		w->done = true;
	}
}

int phcctl_wait_sync(struct phcctl *c)
{
	struct wait_state w = { .c = c, .exit_code = EXIT_TIMEOUT, .sysclock = -1 };
	uint64_t deadline = c->timeout_sec < 0 ? UINT64_MAX
					       : now_usec() + (uint64_t) (c->timeout_sec * 1e6);
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
			return phcctl_error("wait-sync", NULL, r);
		}
		if (r == 0) {
			log_error("wait-sync: timed out after %g s: %s", c->timeout_sec,
				  w.why[0] ? w.why : "no answer");
			return EXIT_TIMEOUT;
		}
		wait_check(&w);
	}
	return w.exit_code;
}
