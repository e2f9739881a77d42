// SPDX-License-Identifier: GPL-2.0-or-later
/* The org.phcd1 D-Bus service: connection, object registration, manager hooks, change signals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/config-file.h"
#include "common/log.h"
#include "dbus/bus-internal.h"
#include "dbus/bus-server.h"

/* Fast values (offset, delay, frequency) are signalled at most this often. */
#define BUS_SLOW_INTERVAL_USEC USEC_PER_SEC
/* After losing the bus, try again this often. */
#define BUS_RECONNECT_USEC USEC_PER_SEC

static unsigned int slow_bits(enum bus_kind kind)
{
	switch (kind) {
	case BUS_KIND_INSTANCE:
		return INSTANCE_CHANGED_SAMPLE | INSTANCE_CHANGED_STATS;
	default:
		return 0;
	}
}

static int emit(struct bus_server *s, const struct bus_dirty *d, unsigned int mask)
{
	switch (d->kind) {
	case BUS_KIND_INSTANCE:
		return bus_instance_emit(s, d->object, mask);
	case BUS_KIND_PORT:
		return bus_port_emit(s, d->object, mask);
	default:
		return bus_manager_emit(s, mask);
	}
}

/* The path of an object of any kind (free() it). */
static int object_path(enum bus_kind kind, const void *object, char **ret)
{
	switch (kind) {
	case BUS_KIND_INSTANCE:
		return bus_instance_path(object, ret);
	case BUS_KIND_PORT:
		return bus_port_path(object, ret);
	default:
		*ret = strdup(PHCD_BUS_PATH_MANAGER);
		return *ret ? 0 : -ENOMEM;
	}
}

/* "D-Bus WHAT of PATH failed: ERROR, ignoring", with the object's path and interface. */
static void object_warn(struct bus_server *s, enum bus_kind kind, const void *object,
			const char *what, int r)
{
	const char *ifname = kind == BUS_KIND_PORT ? ((const struct mport *) object)->ifname : NULL;
	_cleanup_free_ char *path = NULL;

	(void) object_path(kind, object, &path);
	(void) log_internal(LOG_WARNING, r, ifname, path, "D-Bus %s of %s failed: %m, ignoring",
			    what, path ? path : "an object");
}

/* Signal every record's urgent or slow bits, then drop the records with nothing left. */
static void flush(struct bus_server *s, bool slow)
{
	size_t k = 0;

	for (size_t j = 0; j < s->n_dirty; j++) {
		struct bus_dirty *d = &s->dirty[j];
		unsigned int *bits = slow ? &d->slow : &d->urgent;
		int r;

		if (*bits) {
			r = emit(s, d, *bits);
			if (r < 0) {
				/* A failed signal is lost, not retried: the next change sends it.
				 */
				object_warn(s, d->kind, d->object, "PropertiesChanged", r);
			}
			*bits = 0;
		}
		if (d->urgent || d->slow) {
			s->dirty[k++] = *d;
		}
	}
	s->n_dirty = k;
}

static int on_defer(sd_event_source *src, void *userdata)
{
	flush(userdata, false);
	return 0;
}

static int on_tick(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct bus_server *s = userdata;

	s->last_tick_usec = usec;
	flush(s, true);
	return 0;
}

static struct bus_dirty *dirty_get(struct bus_server *s, enum bus_kind kind, void *object)
{
	for (size_t j = 0; j < s->n_dirty; j++) {
		if (s->dirty[j].kind == kind && s->dirty[j].object == object) {
			return &s->dirty[j];
		}
	}
	if (s->n_dirty == s->cap_dirty) {
		size_t cap = s->cap_dirty ? s->cap_dirty * 2 : 16;
		struct bus_dirty *n = reallocarray(s->dirty, cap, sizeof(*n));

		if (!n) {
			return NULL;
		}
		s->dirty = n;
		s->cap_dirty = cap;
	}
	s->dirty[s->n_dirty] = (struct bus_dirty){ .kind = kind, .object = object };
	return &s->dirty[s->n_dirty++];
}

static void dirty_drop(struct bus_server *s, enum bus_kind kind, void *object)
{
	for (size_t j = 0; j < s->n_dirty; j++) {
		if (s->dirty[j].kind == kind && s->dirty[j].object == object) {
			s->dirty[j] = s->dirty[--s->n_dirty];
			return;
		}
	}
}

/* Mark changes of an object; they are signalled urgent or coalesced. */
static void bus_server_mark(struct bus_server *s, enum bus_kind kind, void *object,
			    unsigned int mask)
{
	unsigned int slow = mask & slow_bits(kind), urgent = mask & ~slow;
	struct bus_dirty *d = dirty_get(s, kind, object);
	uint64_t now = 0, next;

	s->describe_stale = true;
	if (!d) {
		object_warn(s, kind, object, "change tracking", -ENOMEM);
		return;
	}
	d->urgent |= urgent;
	d->slow |= slow;
	if (urgent) {
		sd_event_source_set_enabled(s->defer, SD_EVENT_ONESHOT);
	}
	if (slow && sd_event_source_get_enabled(s->tick, NULL) == 0) {
		/* The first change after a quiet second goes out at once, the rest wait. */
		if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0) {
			now = 0; /* cannot happen for CLOCK_MONOTONIC; send at once */
		}
		next = s->last_tick_usec + BUS_SLOW_INTERVAL_USEC;
		sd_event_source_set_time(s->tick, next > now ? next : now);
		sd_event_source_set_enabled(s->tick, SD_EVENT_ONESHOT);
	}
}

static void object_signal(struct bus_server *s, enum bus_kind kind, const void *obj, bool added)
{
	_cleanup_free_ char *p = NULL;
	int r;

	r = object_path(kind, obj, &p);
	if (r >= 0 && !added) {
		/* Its calls waiting for polkit cannot be applied any more: answer them now. */
		bus_polkit_forget_path(s->polkit, p);
	}
	if (r >= 0) {
		r = added ? sd_bus_emit_object_added(s->bus, p)
			  : sd_bus_emit_object_removed(s->bus, p);
	}
	if (r < 0) {
		object_warn(s, kind, obj, added ? "InterfacesAdded" : "InterfacesRemoved", r);
	}
}

static void on_instance_added(void *userdata, struct instance *i)
{
	struct bus_server *s = userdata;

	object_signal(s, BUS_KIND_INSTANCE, i, true);
	bus_server_mark(s, BUS_KIND_MANAGER, NULL, BUS_MANAGER_CHANGED_INSTANCES);
}

static void on_instance_removed(void *userdata, struct instance *i)
{
	struct bus_server *s = userdata;

	/* While the object can still be found: InterfacesRemoved lists its interfaces. */
	object_signal(s, BUS_KIND_INSTANCE, i, false);
	dirty_drop(s, BUS_KIND_INSTANCE, i);
	bus_server_mark(s, BUS_KIND_MANAGER, NULL, BUS_MANAGER_CHANGED_INSTANCES);
}

static void on_instance_changed(void *userdata, struct instance *i, unsigned int mask)
{
	bus_server_mark(userdata, BUS_KIND_INSTANCE, i, mask);
}

static void on_port_added(void *userdata, struct mport *p)
{
	struct bus_server *s = userdata;

	object_signal(s, BUS_KIND_PORT, p, true);
	bus_server_mark(s, BUS_KIND_MANAGER, NULL, BUS_MANAGER_CHANGED_PORTS);
	bus_server_mark(s, BUS_KIND_INSTANCE, p->instance, INSTANCE_CHANGED_PORTS);
}

static void on_port_removed(void *userdata, struct mport *p)
{
	struct bus_server *s = userdata;

	object_signal(s, BUS_KIND_PORT, p, false);
	dirty_drop(s, BUS_KIND_PORT, p);
	bus_server_mark(s, BUS_KIND_MANAGER, NULL, BUS_MANAGER_CHANGED_PORTS);
	bus_server_mark(s, BUS_KIND_INSTANCE, p->instance, INSTANCE_CHANGED_PORTS);
}

static void on_port_changed(void *userdata, struct mport *p, unsigned int mask)
{
	/*
	 * Counters are read with Get, never signalled (as systemd's IPIngressBytes and the like):
	 * they change every second on every port, and signalling them would be most of what phcd
	 * sends on the bus.
	 */
	((struct bus_server *) userdata)->describe_stale = true;
	mask &= ~MPORT_CHANGED_COUNTERS;
	if (mask) {
		bus_server_mark(userdata, BUS_KIND_PORT, p, mask);
	}
}

static void on_manager_changed(void *userdata, unsigned int mask)
{
	bus_server_mark(userdata, BUS_KIND_MANAGER, NULL, mask);
}

static const struct manager_ops bus_manager_ops = {
	.instance_added = on_instance_added,
	.instance_removed = on_instance_removed,
	.instance_changed = on_instance_changed,
	.port_added = on_port_added,
	.port_removed = on_port_removed,
	.port_changed = on_port_changed,
	.manager_changed = on_manager_changed,
};

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

/* Open the system bus, register every object, then take the name. */
static int bus_connect(struct bus_server *s)
{
	int r;

	r = sd_bus_open_system(&s->bus);
	if (r < 0) {
		return r;
	}
	r = bus_manager_register(s);
	if (r >= 0) {
		r = bus_instance_register(s);
	}
	if (r >= 0) {
		r = bus_port_register(s);
	}
	/* The bus daemon restarted or went away: connect again, as often as it takes. */
	if (r >= 0) {
		r = sd_bus_match_signal(s->bus, NULL, "org.freedesktop.DBus.Local", NULL,
					"org.freedesktop.DBus.Local", "Disconnected",
					on_disconnected, s);
	}
	if (r >= 0) {
		r = sd_bus_attach_event(s->bus, s->event, SD_EVENT_PRIORITY_NORMAL);
	}
	if (r < 0) {
		return r;
	}
	/* Objects first, name last: a client that sees the name finds everything in place. */
	return sd_bus_request_name(s->bus, PHCD_BUS_NAME, 0);
}

static int on_reconnect(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct bus_server *s = userdata;
	int r;

	s->bus = sd_bus_flush_close_unref(s->bus);
	r = bus_connect(s);
	if (r < 0) {
		s->bus = sd_bus_flush_close_unref(s->bus);
		sd_event_source_set_time(src, usec + BUS_RECONNECT_USEC);
		sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
		return 0;
	}
	log_notice("D-Bus: connected to the system bus again");
	return 0;
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct bus_server *s = userdata;

	/* Not from inside the bus's own callback: the timer closes it and connects anew. */
	log_warning("D-Bus: disconnected from the system bus, reconnecting");
	sd_event_source_set_time(s->reconnect, 0);
	sd_event_source_set_enabled(s->reconnect, SD_EVENT_ONESHOT);
	return 0;
}

int bus_server_new(struct manager *m, struct bus_server **ret)
{
	_cleanup_(bus_server_freep) struct bus_server *s = NULL;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	s->manager = m;
	s->event = sd_event_ref(manager_get_event(m));
	r = bus_polkit_new(&s->polkit);
	if (r < 0) {
		return r;
	}
	r = sd_event_add_defer(s->event, &s->defer, on_defer, s);
	if (r >= 0) {
		r = sd_event_source_set_enabled(s->defer, SD_EVENT_OFF);
	}
	if (r >= 0) {
		r = sd_event_add_time(s->event, &s->tick, CLOCK_MONOTONIC, 0, 0, on_tick, s);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(s->tick, SD_EVENT_OFF);
	}
	if (r < 0) {
		return r;
	}
	r = sd_event_add_time(s->event, &s->reconnect, CLOCK_MONOTONIC, 0, 0, on_reconnect, s);
	if (r >= 0) {
		r = sd_event_source_set_enabled(s->reconnect, SD_EVENT_OFF);
	}
	if (r < 0) {
		return r;
	}
	r = bus_connect(s);
	if (r < 0) {
		return r;
	}
	manager_set_ops(m, &bus_manager_ops, s);
	*ret = TAKE_PTR(s);
	return 0;
}

struct bus_server *bus_server_free(struct bus_server *s)
{
	if (!s) {
		return NULL;
	}
	if (s->manager) {
		manager_set_ops(s->manager, NULL, NULL);
	}
	s->polkit = bus_polkit_free(s->polkit);
	sd_event_source_disable_unref(s->defer);
	sd_event_source_disable_unref(s->tick);
	sd_event_source_disable_unref(s->reconnect);
	if (s->bus) {
		sd_bus_flush_close_unref(s->bus);
	}
	sd_event_unref(s->event);
	free(s->dirty);
	free(s->describe_json);
	free(s);
	return NULL;
}
