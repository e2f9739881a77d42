// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the org.phcd1 interfaces: paths, field getters, PropertiesChanged, Describe JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common/config-file.h"

#include "dbus/bus-internal.h"
#include "dbus/bus-json.h"

int bus_instance_path(const struct instance *i, char **ret)
{
	return sd_bus_path_encode(PHCD_BUS_PATH_INSTANCES, i->name, ret);
}

int bus_port_path(const struct mport *p, char **ret)
{
	return sd_bus_path_encode(PHCD_BUS_PATH_PORTS, p->ifname, ret);
}

int bus_enumerate_paths(struct manager *m, size_t n,
			int (*path_at)(struct manager *m, size_t k, char **ret), char ***nodes)
{
	char **l = calloc(n + 1, sizeof(*l));
	int r;

	if (!l) {
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		r = path_at(m, k, &l[k]);
		if (r < 0) {
			for (size_t j = 0; j < k; j++) {
				free(l[j]);
			}
			free(l);
			return r;
		}
	}
	*nodes = l;
	return 1;
}

static int append_path(sd_bus_message *reply, int (*path)(const void *, char **), const void *obj)
{
	_cleanup_free_ char *s = NULL;
	int r = path(obj, &s);

	return r < 0 ? r : sd_bus_message_append_basic(reply, 'o', s);
}

/* The same for callers that hold either kind as a const void *. */
static int bus_instance_path_any(const void *obj, char **ret)
{
	return bus_instance_path(obj, ret);
}

static int bus_port_path_any(const void *obj, char **ret)
{
	return bus_port_path(obj, ret);
}

int bus_append_instance_paths(sd_bus_message *reply, struct manager *m)
{
	struct instance *i;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "o");
	if (r < 0) {
		return r;
	}
	MANAGER_FOREACH_INSTANCE(i, m, n)
	{
		r = append_path(reply, bus_instance_path_any, i);
		if (r < 0) {
			return r;
		}
	}
	return sd_bus_message_close_container(reply);
}

int bus_append_port_paths(sd_bus_message *reply, struct manager *m, const struct instance *only)
{
	struct mport *p;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "o");
	if (r < 0) {
		return r;
	}
	MANAGER_FOREACH_PORT(p, m, n)
	{
		if (only && p->instance != only) {
			continue;
		}
		r = append_path(reply, bus_port_path_any, p);
		if (r < 0) {
			return r;
		}
	}
	return sd_bus_message_close_container(reply);
}

int bus_property_get_bool(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply, void *userdata,
			  sd_bus_error *error)
{
	/* sd-bus's own "b" reads an int; the model's flags are C bools. */
	int b = *(const bool *) userdata;

	return sd_bus_message_append_basic(reply, 'b', &b);
}

int bus_append_valid_string(sd_bus_message *msg, const char *s)
{
	size_t n = strlen(s);
	char *p;
	int r = sd_bus_message_append_string_space(msg, n, &p);

	if (r >= 0) {
		memcpy(p, s, n);
	}
	return r;
}

/* The code point of a valid UTF-8 sequence of n bytes at s. */
static uint32_t utf8_decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t c = s[0] & lead_mask[n];

	for (size_t k = 1; k < n; k++) {
		c = c << 6 | (s[k] & 0x3F);
	}
	return c;
}

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 if the byte there does not start one.
 * Valid as sd-bus reads strings (utf8_is_valid), which its clients check on every string: that
 * is what lets bus_append_valid_string() skip the check when phcd appends them.
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = *s < 0x80		 ? 1
		   : (*s & 0xE0) == 0xC0 ? 2
		   : (*s & 0xF0) == 0xE0 ? 3
		   : (*s & 0xF8) == 0xF0 ? 4
					 : 0;

	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid too. */
	if ((n == 2 && *s < 0xC2) || (n == 3 && *s == 0xE0 && s[1] < 0xA0) ||
	    (n == 3 && *s == 0xED && s[1] >= 0xA0) || (n == 4 && *s == 0xF0 && s[1] < 0x90) ||
	    (n == 4 && (*s > 0xF4 || (*s == 0xF4 && s[1] >= 0x90)))) {
		return 0;
	}
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xC0) != 0x80) {
			return 0;
		}
	}
	if (n == 3 || n == 4) {
		/* sd-bus also refuses the noncharacters U+FDD0..U+FDEF and U+xFFFE, U+xFFFF. */
		uint32_t c = utf8_decode(s, n);

		if ((c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE) {
			return 0;
		}
	}
	return n;
}

int bus_property_get_chars(sd_bus *bus, const char *path, const char *interface,
			   const char *property, sd_bus_message *reply, void *userdata,
			   sd_bus_error *error)
{
	/*
	 * sd-bus refuses a string that is not UTF-8, which would fail GetAll and
	 * GetManagedObjects for everyone; interface names and a worker's error text (workers are
	 * not trusted) may be any bytes, so each invalid byte is shown as '?'.
	 */
	const unsigned char *in = userdata;
	char out[256];
	size_t o = 0;

	for (size_t n; *in && o + 4 < sizeof(out); in += n) {
		n = utf8_len(in);
		if (n == 0) {
			out[o++] = '?';
			n = 1;
			continue;
		}
		memcpy(out + o, in, n);
		o += n;
	}
	out[o] = '\0';
	return bus_append_valid_string(reply, out);
}

int bus_property_get_clock_identity(sd_bus *bus, const char *path, const char *interface,
				    const char *property, sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	char buf[CLOCK_IDENTITY_STRLEN];

	return bus_append_valid_string(reply, clock_identity_to_string(userdata, buf));
}

int bus_property_get_port_identity(sd_bus *bus, const char *path, const char *interface,
				   const char *property, sd_bus_message *reply, void *userdata,
				   sd_bus_error *error)
{
	char buf[PORT_IDENTITY_STRLEN];

	return bus_append_valid_string(reply, port_identity_to_string(userdata, buf));
}

int bus_emit_groups(struct bus_server *s, const char *path, const char *interface,
		    const struct bus_prop_group *groups, unsigned int mask)
{
	const char *names[32];
	size_t n = 0;

	for (const struct bus_prop_group *g = groups; g->names; g++) {
		if (!(g->mask & mask)) {
			continue;
		}
		for (const char *const *name = g->names; *name && n < ARRAY_SIZE(names) - 1;
		     name++) {
			names[n++] = *name;
		}
	}
	if (n == 0) {
		return 0;
	}
	if (!s->bus) {
		return -ENOTCONN; /* between a lost bus and the next connection */
	}
	names[n] = NULL;
	return sd_bus_emit_properties_changed_strv(s->bus, path, interface, (char **) names);
}

/* Open a dict entry of the given contents and append its key. */
static int open_entry(sd_bus_message *msg, const char *contents, char key_type, const char *key)
{
	int r = sd_bus_message_open_container(msg, 'e', contents);

	if (r < 0) {
		return r;
	}
	/* A string key is a property or interface name of ours: ASCII. */
	return key_type == 's' ? bus_append_valid_string(msg, key)
			       : sd_bus_message_append_basic(msg, key_type, key);
}

/* Append one property as a dict entry {name, variant} by calling its getter. */
static int append_property(struct bus_server *s, sd_bus_message *msg, const sd_bus_vtable *v,
			   void *object, const char *path, const char *interface)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	r = open_entry(msg, "sv", 's', v->x.property.member);
	if (r >= 0) {
		r = sd_bus_message_open_container(msg, 'v', v->x.property.signature);
	}
	if (r >= 0 && !v->x.property.get) {
		/* sd-bus's built-in getter for a fixed-size field: append the value at the offset.
		 */
		r = sd_bus_message_append_basic(msg, v->x.property.signature[0],
						(uint8_t *) object + v->x.property.offset);
	} else if (r >= 0) {
		r = v->x.property.get(s->bus, path, interface, v->x.property.member, msg,
				      (uint8_t *) object + v->x.property.offset, &error);
		sd_bus_error_free(&error);
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(msg);
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(msg);
	}
	return r;
}

/* The {name, variant} entries of an object's properties; the explicit ones only if all is set. */
static int append_properties(struct bus_server *s, sd_bus_message *msg, const sd_bus_vtable *vtable,
			     void *object, const char *path, const char *interface, bool all)
{
	int r = 0;

	for (const sd_bus_vtable *v = vtable; r >= 0 && v->type != _SD_BUS_VTABLE_END; v++) {
		if ((v->type == _SD_BUS_VTABLE_PROPERTY ||
		     v->type == _SD_BUS_VTABLE_WRITABLE_PROPERTY) &&
		    (all || !(v->flags & SD_BUS_VTABLE_PROPERTY_EXPLICIT))) {
			r = append_property(s, msg, v, object, path, interface);
		}
	}
	return r;
}

int bus_append_object(struct bus_server *s, sd_bus_message *reply, const sd_bus_vtable *vtable,
		      void *object, const char *path, const char *interface)
{
	int r;

	r = open_entry(reply, "oa{sa{sv}}", 'o', path);
	if (r >= 0) {
		r = sd_bus_message_open_container(reply, 'a', "{sa{sv}}");
	}
	if (r >= 0) {
		r = open_entry(reply, "sa{sv}", 's', interface);
	}
	if (r >= 0) {
		r = sd_bus_message_open_container(reply, 'a', "{sv}");
	}
	if (r >= 0) {
		r = append_properties(s, reply, vtable, object, path, interface, false);
	}
	for (int k = 0; r >= 0 && k < 4; k++) {
		r = sd_bus_message_close_container(reply);
	}
	return r;
}

int bus_describe_object(struct bus_server *s, FILE *f, const sd_bus_vtable *vtable, void *object,
			const char *path, const char *interface)
{
	sd_bus_message *msg = NULL;
	int r;

	/* A scratch message to run the getters into, read back as JSON; never sent. */
	r = sd_bus_message_new(s->bus, &msg, SD_BUS_MESSAGE_SIGNAL);
	if (r >= 0) {
		r = sd_bus_message_open_container(msg, 'a', "{sv}");
	}
	if (r >= 0) {
		r = sd_bus_message_append(msg, "{sv}", "Path", "o", path);
	}
	if (r >= 0) {
		r = append_properties(s, msg, vtable, object, path, interface, true);
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(msg);
	}
	if (r >= 0) {
		r = sd_bus_message_seal(msg, 1, 0);
	}
	if (r >= 0) {
		r = sd_bus_message_rewind(msg, true);
	}
	if (r >= 0) {
		r = bus_json_write_value(msg, f);
	}
	sd_bus_message_unref(msg);
	return r;
}

struct bus_server *bus_current_server(sd_bus_message *m)
{
	return sd_bus_slot_get_userdata(sd_bus_get_current_slot(sd_bus_message_get_bus(m)));
}

int bus_authorize(struct bus_server *s, sd_bus_message *m, sd_bus_error *error)
{
	const struct config *c = manager_get_config(s->manager);

	if (c && c->daemon.polkit_max_pending && c->daemon.polkit_max_pending_per_caller) {
		bus_polkit_set_limits(s->polkit, c->daemon.polkit_max_pending,
				      c->daemon.polkit_max_pending_per_caller);
	}
	return bus_polkit_verify(s->polkit, m, PHCD_BUS_ACTION_MANAGE, error);
}

int bus_append_health(sd_bus_message *reply, const struct health_report *h)
{
	return bus_append_valid_string(reply, health_to_string(h->level));
}

int bus_append_health_reasons(sd_bus_message *reply, const struct health_report *h)
{
	size_t n = h->n_reasons < HEALTH_REASONS_MAX ? h->n_reasons : HEALTH_REASONS_MAX;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(ss)");
	for (size_t k = 0; r >= 0 && k < n; k++) {
		/* The text quotes a port's LastError, which came from a worker: checked append. */
		r = sd_bus_message_append(reply, "(ss)", h->reasons[k].code, h->reasons[k].text);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}
