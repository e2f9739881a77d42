// SPDX-License-Identifier: GPL-2.0-or-later
/* The exporter's D-Bus side: GetManagedObjects once per owner of org.phcd1, then its signals;
 * NameOwnerChanged says when phcd goes and comes back; a port's Counters (not signalled by
 * phcd) are read with Get on a timer, never during a scrape. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "dbus/bus-names.h"
#include "exporter/exporter.h"
#include "ptp/util.h"

#define RECONNECT_USEC (2 * 1000000ULL)

struct exporter {
	sd_event *event;
	sd_bus *bus;
	struct model *model;
	char *owner;		/* unique name of org.phcd1's owner whose objects the model holds */
	sd_bus_slot *load_slot; /* the pending GetManagedObjects */
	sd_event_source *reconnect;
	sd_event_source *counters;
	uint64_t counter_usec;
	uint64_t generation; /* bumped whenever the model is dropped: late replies are ignored */
	void (*read)(void *userdata); /* once, when phcd was first read (or found absent) */
	void *read_userdata;
};

/* The first reading is over, whatever it found: the exporter may answer scrapes from now on. */
static void first_read_done(struct exporter *x)
{
	void (*read)(void *) = x->read;

	x->read = NULL;
	if (read) {
		read(x->read_userdata);
	}
}

struct request {
	struct exporter *x;
	uint64_t generation;
	char *path;
};

/* A failed bus step: phcd's D-Bus error when there is one, else the errno. */
static void log_bus(const char *what, const sd_bus_error *e, int r)
{
	if (e && sd_bus_error_is_set(e)) {
		log_warning("%s: %s", what, e->message ? e->message : e->name);
	} else {
		log_warning_errno(r, "%s: %m", what);
	}
}

static void model_drop(struct exporter *x)
{
	model_clear(x->model);
	x->model->up = false;
	free(x->owner);
	x->owner = NULL;
	x->generation++;
}

static enum object_kind kind_of(const char *iface, bool *ok)
{
	*ok = true;
	if (strcmp(iface, PHCD_BUS_IFACE_INSTANCE) == 0) {
		return OBJECT_INSTANCE;
	}
	if (strcmp(iface, PHCD_BUS_IFACE_PORT) == 0) {
		return OBJECT_PORT;
	}
	if (strcmp(iface, PHCD_BUS_IFACE_MANAGER) == 0) {
		return OBJECT_MANAGER;
	}
	*ok = false;
	return OBJECT_MANAGER;
}

static void request_free(void *userdata)
{
	struct request *q = userdata;

	free(q->path);
	free(q);
}

/*
 * The reply to a Get of a port's explicit property of D-Bus type sig into its object with read;
 * an error (a phcd too old to have it), a port gone or a reply of a bus before this one: nothing.
 */
static void explicit_reply(sd_bus_message *reply, struct request *q, const char *sig,
			   int (*read)(struct object *o, sd_bus_message *m), const char *what)
{
	struct object *o;
	int r;

	if (q->generation != q->x->generation || sd_bus_message_is_method_error(reply, NULL)) {
		return;
	}
	o = model_find(q->x->model, q->path);
	if (!o) {
		return;
	}
	r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_VARIANT, sig);
	if (r >= 0) {
		r = read(o, reply);
	}
	if (r < 0) {
		log_bus(what, NULL, r);
	}
}

static int counters_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	explicit_reply(reply, userdata, "a{st}", object_read_counters,
		       "reading a port's Counters, ignoring");
	return 0;
}

static int uc_table_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	explicit_reply(reply, userdata, "a(ssssnu)", object_read_unicast_table,
		       "reading a port's UnicastTable, ignoring");
	return 0;
}

/* An async call whose reply handler gets a struct request; the request dies with the slot. */
static int call_for(struct exporter *x, const char *path, const char *iface, const char *member,
		    sd_bus_message_handler_t handler, const char *types, ...)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	/* Our reference is dropped at return: the floating slot is the bus's then, freed after the
	 * reply (or with the bus), and the request with it. */
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
	struct request *q;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(x->bus, &m, PHCD_BUS_NAME, path, iface, member);
	if (r < 0) {
		return r;
	}
	/* Never start phcd by bus activation: the exporter only watches. */
	r = sd_bus_message_set_auto_start(m, 0);
	if (r < 0) {
		return r;
	}
	va_start(ap, types);
	r = sd_bus_message_appendv(m, types, ap);
	va_end(ap);
	if (r < 0) {
		return r;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		return -ENOMEM;
	}
	q->x = x;
	q->generation = x->generation;
	q->path = strdup(path);
	if (!q->path) {
		request_free(q);
		return -ENOMEM;
	}
	r = sd_bus_call_async(x->bus, &slot, m, handler, q, 0);
	if (r < 0) {
		request_free(q);
		return r;
	}
	sd_bus_slot_set_destroy_callback(slot, request_free);
	sd_bus_slot_set_floating(slot, 1);
	return 0;
}

static void counters_fetch(struct exporter *x, const char *path)
{
	int r = call_for(x, path, "org.freedesktop.DBus.Properties", "Get", counters_reply, "ss",
			 PHCD_BUS_IFACE_PORT, "Counters");

	if (r < 0) {
		log_bus("asking for a port's Counters, ignoring", NULL, r);
	}
	r = call_for(x, path, "org.freedesktop.DBus.Properties", "Get", uc_table_reply, "ss",
		     PHCD_BUS_IFACE_PORT, "UnicastTable");
	if (r < 0) {
		log_bus("asking for a port's UnicastTable, ignoring", NULL, r);
	}
}

static int counters_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct exporter *x = userdata;

	if (x->bus && x->model->up) {
		for (size_t i = 0; i < x->model->n_objects; i++) {
			if (x->model->objects[i]->kind == OBJECT_PORT) {
				counters_fetch(x, x->model->objects[i]->path);
			}
		}
	}
	sd_event_source_set_time(s, usec + x->counter_usec);
	return 0;
}

/* One entry of GetManagedObjects or InterfacesAdded: o's a{sa{sv}}, the object path read. */
static int read_interfaces(struct exporter *x, const char *path, sd_bus_message *m)
{
	const char *iface;
	struct object *o;
	bool ok;
	int r;

	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sa{sv}}");
	if (r < 0) {
		return r;
	}
	while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sa{sv}")) > 0) {
		r = sd_bus_message_read(m, "s", &iface);
		if (r < 0) {
			return r;
		}
		enum object_kind kind = kind_of(iface, &ok);
		if (!ok) {
			r = sd_bus_message_skip(m, "a{sv}");
		} else {
			o = model_get(x->model, path, kind);
			r = o ? object_read_props(o, m) : -ENOMEM;
			if (r >= 0 && kind == OBJECT_PORT) {
				counters_fetch(x, path);
			}
		}
		if (r < 0) {
			return r;
		}
		r = sd_bus_message_exit_container(m);
		if (r < 0) {
			return r;
		}
	}
	if (r < 0) {
		return r;
	}
	return sd_bus_message_exit_container(m);
}

static int manager_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct request *q = userdata;
	struct object *o;
	int r;

	if (q->generation != q->x->generation || sd_bus_message_is_method_error(reply, NULL)) {
		return 0;
	}
	o = model_get(q->x->model, PHCD_BUS_PATH_MANAGER, OBJECT_MANAGER);
	r = o ? object_read_props(o, reply) : -ENOMEM;
	if (r < 0) {
		log_bus("reading org.phcd1.Manager's properties, ignoring", NULL, r);
	}
	first_read_done(q->x);
	return 0;
}

static int load_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	const char *path;
	int r;

	x->load_slot = sd_bus_slot_unref(x->load_slot);
	model_drop(x);
	if (e) {
		/* No owner (phcd absent): phcd_up 0 until NameOwnerChanged says it is back. */
		if (!sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					    SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
			log_bus("GetManagedObjects of org.phcd1", e, 0);
		}
		first_read_done(x);
		return 0;
	}
	x->owner = strdup(sd_bus_message_get_sender(reply));
	if (!x->owner) {
		return -ENOMEM;
	}
	r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "{oa{sa{sv}}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_DICT_ENTRY,
							     "oa{sa{sv}}")) > 0) {
		r = sd_bus_message_read(reply, "o", &path);
		if (r >= 0) {
			r = read_interfaces(x, path, reply);
		}
		if (r >= 0) {
			r = sd_bus_message_exit_container(reply);
		}
	}
	if (r < 0) {
		log_bus("parsing GetManagedObjects of org.phcd1", NULL, r);
		model_drop(x);
		first_read_done(x);
		return 0;
	}
	r = call_for(x, PHCD_BUS_PATH_MANAGER, "org.freedesktop.DBus.Properties", "GetAll",
		     manager_reply, "s", PHCD_BUS_IFACE_MANAGER);
	if (r < 0) {
		log_bus("asking for org.phcd1.Manager's properties, ignoring", NULL, r);
		first_read_done(x);
	}
	x->model->up = true;
	log_info("reading org.phcd1 from %s: %zu objects", x->owner, x->model->n_objects);
	return 0;
}

/* (Re)read everything: one GetManagedObjects; its reply replaces the model. */
static void load(struct exporter *x)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	x->load_slot = sd_bus_slot_unref(x->load_slot);
	r = sd_bus_message_new_method_call(x->bus, &m, PHCD_BUS_NAME, PHCD_BUS_PATH_MANAGER,
					   "org.freedesktop.DBus.ObjectManager",
					   "GetManagedObjects");
	if (r >= 0) {
		r = sd_bus_message_set_auto_start(m, 0);
	}
	if (r >= 0) {
		r = sd_bus_call_async(x->bus, &x->load_slot, m, load_reply, x, 0);
	}
	if (r < 0) {
		log_bus("GetManagedObjects of org.phcd1", NULL, r);
		first_read_done(x);
	}
}

static bool from_owner(struct exporter *x, sd_bus_message *m)
{
	const char *sender = sd_bus_message_get_sender(m);

	return x->owner && sender && strcmp(sender, x->owner) == 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;
	const char *name, *old_owner, *new_owner;
	int r;

	r = sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner);
	if (r < 0 || strcmp(name, PHCD_BUS_NAME) != 0) {
		return 0;
	}
	if (x->model->up) {
		log_info("org.phcd1 %s", *new_owner ? "has a new owner" : "went away");
	}
	model_drop(x);
	x->load_slot = sd_bus_slot_unref(x->load_slot);
	if (*new_owner) {
		load(x);
	}
	return 0;
}

static int on_interfaces_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;
	const char *path;
	int r;

	if (!from_owner(x, m) || !x->model->up) {
		return 0;
	}
	r = sd_bus_message_read(m, "o", &path);
	if (r >= 0) {
		r = read_interfaces(x, path, m);
	}
	if (r < 0) {
		log_bus("parsing InterfacesAdded, reading everything again", NULL, r);
		load(x);
	}
	return 0;
}

static int on_interfaces_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;
	const char *path, *iface;
	bool ok;
	int r;

	if (!from_owner(x, m)) {
		return 0;
	}
	r = sd_bus_message_read(m, "o", &path);
	if (r >= 0) {
		r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "s");
	}
	while (r >= 0 && (r = sd_bus_message_read(m, "s", &iface)) > 0) {
		kind_of(iface, &ok);
		if (ok) {
			model_remove(x->model, path);
		}
	}
	return 0;
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;
	const char *iface, *path = sd_bus_message_get_path(m);
	struct object *o;
	bool ok;
	int r;

	if (!from_owner(x, m) || !x->model->up || !path) {
		return 0;
	}
	r = sd_bus_message_read(m, "s", &iface);
	if (r < 0) {
		return 0;
	}
	enum object_kind kind = kind_of(iface, &ok);
	if (!ok) {
		return 0;
	}
	o = model_get(x->model, path, kind);
	r = o ? object_read_props(o, m) : -ENOMEM;
	if (r >= 0) {
		r = object_read_invalidated(o, m);
	}
	if (r < 0) {
		log_bus("parsing PropertiesChanged, reading everything again", NULL, r);
		load(x);
	}
	return 0;
}

static int reconnect(struct exporter *x);

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct exporter *x = userdata;

	log_warning("lost the system bus, reconnecting");
	model_drop(x);
	x->load_slot = sd_bus_slot_unref(x->load_slot);
	sd_bus_detach_event(x->bus);
	x->bus = sd_bus_unref(x->bus);
	sd_event_source_set_time_relative(x->reconnect, RECONNECT_USEC);
	sd_event_source_set_enabled(x->reconnect, SD_EVENT_ONESHOT);
	return 0;
}

static int reconnect_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct exporter *x = userdata;

	if (reconnect(x) < 0) {
		sd_event_source_set_time_relative(s, RECONNECT_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	return 0;
}

static int reconnect(struct exporter *x)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0) {
		log_bus("connecting to the system bus", NULL, r);
		return r;
	}
	/* Matches before the first call, so no signal after GetManagedObjects is missed. */
	r = sd_bus_add_match(bus, NULL,
			     "type='signal',sender='org.freedesktop.DBus',"
			     "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
			     "arg0='" PHCD_BUS_NAME "'",
			     on_owner_changed, x);
	if (r >= 0) {
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',interface='org.freedesktop.DBus.ObjectManager',"
				     "member='InterfacesAdded',path='" PHCD_BUS_PATH_MANAGER "'",
				     on_interfaces_added, x);
	}
	if (r >= 0) {
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',interface='org.freedesktop.DBus.ObjectManager',"
				     "member='InterfacesRemoved',path='" PHCD_BUS_PATH_MANAGER "'",
				     on_interfaces_removed, x);
	}
	if (r >= 0) {
		r = sd_bus_add_match(
			bus, NULL,
			"type='signal',interface='org.freedesktop.DBus.Properties',"
			"member='PropertiesChanged',path_namespace='" PHCD_BUS_PATH_MANAGER "'",
			on_properties_changed, x);
	}
	if (r >= 0) {
		r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus.Local",
					"/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
					"Disconnected", on_disconnected, x);
	}
	if (r >= 0) {
		r = sd_bus_attach_event(bus, x->event, SD_EVENT_PRIORITY_NORMAL);
	}
	if (r < 0) {
		log_bus("watching org.phcd1", NULL, r);
		return r;
	}
	x->bus = TAKE_PTR(bus);
	load(x);
	return 0;
}

int exporter_bus_new(sd_event *e, struct model *m, unsigned counter_interval_s,
		     void (*read)(void *userdata), void *userdata, struct exporter **ret)
{
	struct exporter *x;
	uint64_t now;
	int r;

	x = calloc(1, sizeof(*x));
	if (!x) {
		return -ENOMEM;
	}
	x->event = sd_event_ref(e);
	x->model = m;
	x->counter_usec = counter_interval_s * 1000000ULL;
	x->read = read;
	x->read_userdata = userdata;
	r = sd_event_now(e, CLOCK_MONOTONIC, &now);
	if (r >= 0) {
		r = sd_event_add_time(e, &x->counters, CLOCK_MONOTONIC, now + x->counter_usec, 0,
				      counters_tick, x);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(x->counters, SD_EVENT_ON);
	}
	if (r >= 0) {
		r = sd_event_add_time(e, &x->reconnect, CLOCK_MONOTONIC, 0, 0, reconnect_tick, x);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(x->reconnect, SD_EVENT_OFF);
	}
	if (r < 0) {
		exporter_bus_free(x);
		return r;
	}
	*ret = x;
	if (reconnect(x) < 0) {
		/* No system bus yet: phcd_up 0 meanwhile, and try again. */
		sd_event_source_set_time_relative(x->reconnect, RECONNECT_USEC);
		sd_event_source_set_enabled(x->reconnect, SD_EVENT_ONESHOT);
		first_read_done(x);
	}
	return 0;
}

struct exporter *exporter_bus_free(struct exporter *x)
{
	if (!x) {
		return NULL;
	}
	model_drop(x);
	sd_bus_slot_unref(x->load_slot);
	sd_event_source_unref(x->counters);
	sd_event_source_unref(x->reconnect);
	if (x->bus) {
		sd_bus_detach_event(x->bus);
		sd_bus_flush_close_unref(x->bus);
	}
	sd_event_unref(x->event);
	free(x);
	return NULL;
}
