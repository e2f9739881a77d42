/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the files of dbus/: the server object, paths, error names and property helpers. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "daemon/manager.h"
#include "dbus/bus-names.h"
#include "dbus/bus-polkit.h"

/* Errors of phcd's own; argument errors use org.freedesktop.DBus.Error.InvalidArgs. */

/* Change bits of the Manager object (past enum manager_change's). */
enum {
	BUS_MANAGER_CHANGED_INSTANCES = 1u << 8,
	BUS_MANAGER_CHANGED_PORTS = 1u << 9,
};

enum bus_kind {
	BUS_KIND_MANAGER,
	BUS_KIND_INSTANCE,
	BUS_KIND_PORT,
};

/* An object with properties waiting to be signalled. */
struct bus_dirty {
	enum bus_kind kind;
	void *object;	     /* struct instance / struct mport; NULL for the manager */
	unsigned int urgent; /* change bits to signal at the next loop iteration */
	unsigned int slow;   /* change bits to signal at the next tick (at most one a second) */
};

struct bus_server {
	struct manager *manager;
	sd_event *event;
	sd_bus *bus;
	struct bus_polkit *polkit;
	sd_event_source *defer;	    /* emits the urgent changes */
	sd_event_source *tick;	    /* emits the slow changes */
	sd_event_source *reconnect; /* after a disconnect, connects again */
	uint64_t last_tick_usec;
	struct bus_dirty *dirty;
	size_t n_dirty;
	size_t cap_dirty;
	/*
	 * Describe()'s last answer: served again while nothing changed, and while something did
	 * but it is younger than BUS_DESCRIBE_MIN_AGE_USEC (a caller in a loop costs one build per
	 * period, not one per call).
	 */
	char *describe_json;
	uint64_t describe_usec;
	bool describe_stale;
};

#define BUS_DESCRIBE_MIN_AGE_USEC (250 * USEC_PER_MSEC)

/* Which properties a change bit covers, for PropertiesChanged. */
struct bus_prop_group {
	unsigned int mask;
	const char *const *names; /* NULL-terminated */
};

/*
 * One file per interface: register its vtable (fallback + node enumerator for the per-object
 * ones), signal the properties behind a change mask, describe an object as JSON, append it to
 * GetManagedObjects' reply.
 */
int bus_manager_register(struct bus_server *s);
int bus_manager_emit(struct bus_server *s, unsigned int mask);
int bus_instance_register(struct bus_server *s);
int bus_instance_emit(struct bus_server *s, struct instance *i, unsigned int mask);
int bus_instance_describe(struct bus_server *s, FILE *f, struct instance *i);
int bus_instance_append_object(struct bus_server *s, sd_bus_message *reply, struct instance *i);
int bus_port_register(struct bus_server *s);
int bus_port_emit(struct bus_server *s, struct mport *p, unsigned int mask);
int bus_port_describe(struct bus_server *s, FILE *f, struct mport *p);
int bus_port_append_object(struct bus_server *s, sd_bus_message *reply, struct mport *p);

/* Health as the Manager and each Instance show it: "ok" / "degraded" / "failed", and a(ss). */
int bus_append_health(sd_bus_message *reply, const struct health_report *h);
int bus_append_health_reasons(sd_bus_message *reply, const struct health_report *h);

/* Object paths (free() the result). */
int bus_instance_path(const struct instance *i, char **ret);
int bus_port_path(const struct mport *p, char **ret);

/* A node enumerator's list: path_at(m, k) for k < n. */
int bus_enumerate_paths(struct manager *m, size_t n,
			int (*path_at)(struct manager *m, size_t k, char **ret), char ***nodes);

/* Append an "ao" of every instance / port (all of the manager, or of one instance). */
int bus_append_instance_paths(sd_bus_message *reply, struct manager *m);
int bus_append_port_paths(sd_bus_message *reply, struct manager *m, const struct instance *only);

/*
 * Append a string phcd knows to be valid UTF-8 as sd-bus reads it (ASCII names and identities,
 * text that bus_property_get_chars() has checked) straight into the body, without the check
 * sd_bus_message_append_basic() makes on every character, a large part of what building a
 * GetManagedObjects reply costs. A string from anywhere else goes through append_basic().
 */
int bus_append_valid_string(sd_bus_message *msg, const char *s);

/*
 * Property getters that read a field at the vtable entry's offset (sd-bus passes object +
 * offset as userdata): C bool, char array, ClockIdentity, PortIdentity.
 */
int bus_property_get_bool(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply, void *userdata,
			  sd_bus_error *error);
int bus_property_get_chars(sd_bus *bus, const char *path, const char *interface,
			   const char *property, sd_bus_message *reply, void *userdata,
			   sd_bus_error *error);
int bus_property_get_clock_identity(sd_bus *bus, const char *path, const char *interface,
				    const char *property, sd_bus_message *reply, void *userdata,
				    sd_bus_error *error);
int bus_property_get_port_identity(sd_bus *bus, const char *path, const char *interface,
				   const char *property, sd_bus_message *reply, void *userdata,
				   sd_bus_error *error);

/*
 * Every property of one object's vtable as JSON, with "Path" first: the same getters as
 * Get/GetAll, so Describe() cannot drift from the properties.
 */
int bus_describe_object(struct bus_server *s, FILE *f, const sd_bus_vtable *vtable, void *object,
			const char *path, const char *interface);

/*
 * One object of GetManagedObjects' reply, {path, {interface, {property, value}}}, through the
 * same getters: every property but the explicit ones, as sd-bus's GetAll gives them.
 */
int bus_append_object(struct bus_server *s, sd_bus_message *reply, const sd_bus_vtable *vtable,
		      void *object, const char *path, const char *interface);

/* PropertiesChanged for the groups whose mask bits are in mask (nothing when none is). */
int bus_emit_groups(struct bus_server *s, const char *path, const char *interface,
		    const struct bus_prop_group *groups, unsigned int mask);

/* The server behind the vtable being dispatched (handlers of per-object vtables get the object). */
struct bus_server *bus_current_server(sd_bus_message *m);

/* Step "authorize" of every mutating method: see bus_polkit_verify() for 1 / 0 / <0. */
int bus_authorize(struct bus_server *s, sd_bus_message *m, sd_bus_error *error);
