// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl's bus helpers: error to exit code, GetAll with lookups by name, JSON output. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "dbus/bus-json.h"
#include "phcctl/phcctl.h"

/* -H HOST or -M CONTAINER, to name them when their bus cannot be reached. */
static const char *target;

void phcctl_set_target(const char *host_or_machine)
{
	target = host_or_machine;
}

static bool connection_errno(int r)
{
	return r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE || r == -ESHUTDOWN ||
	       r == -ECONNREFUSED;
}

/*
 * The errors of a D-Bus activation that could not start phcd (a command that may start it):
 * systemd has no such unit (phcd not installed or its unit disabled), or it is masked, or the
 * activation failed.
 */
static bool activation_failed(const sd_bus_error *e)
{
	return sd_bus_error_has_names(e, "org.freedesktop.systemd1.NoSuchUnit",
				      "org.freedesktop.systemd1.UnitMasked") ||
	       (e->name && !strncmp(e->name, "org.freedesktop.DBus.Error.Spawn.",
				    strlen("org.freedesktop.DBus.Error.Spawn.")));
}

/* The bus errors (and errnos) that mean phcd is gone, or went away during the call. */
static bool phcd_gone(const sd_bus_error *e, int r)
{
	if (e && sd_bus_error_is_set(e)) {
		return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					      SD_BUS_ERROR_NAME_HAS_NO_OWNER, SD_BUS_ERROR_NO_REPLY,
					      SD_BUS_ERROR_DISCONNECTED) ||
		       activation_failed(e) || connection_errno(-sd_bus_error_get_errno(e));
	}
	return connection_errno(r);
}

int phcctl_error(const char *what, const sd_bus_error *e, int r)
{
	/* The bus connection itself failed: with -H, ssh could not log in or the bridge failed
	 * (ssh said why on stderr); with -M, the container's bus went away. */
	if (target && connection_errno(r)) {
		log_error_errno(r, "%s: cannot talk to the system bus of %s: %m", what, target);
		return EXIT_NOT_RUNNING;
	}
	if (phcd_gone(e, r)) {
		if (e && sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
						SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
			log_error("%s: phcd is not running (no %s on the system bus)", what,
				  PHCD_BUS_NAME);
		} else if (e && activation_failed(e)) {
			log_error("%s: phcd is not running and could not be started (%s)", what,
				  e->message ? e->message : e->name);
		} else {
			log_error("%s: phcd went away before it answered (%s)", what,
				  e && sd_bus_error_is_set(e) ? e->name : strerror(-r));
		}
		return EXIT_NOT_RUNNING;
	}
	if (e && sd_bus_error_is_set(e)) {
		const char *msg = e->message ? e->message : e->name;
		size_t first = strcspn(msg, "\n");

		/* A refused reload lists every file:line error: each line whole, not cut at the
		 * logger's line length. */
		log_error("%s: %.*s", what, (int) first, msg);
		if (msg[first]) {
			log_lines(LOG_ERR, msg + first + 1);
		}
		if (sd_bus_error_has_names(e, PHCD_BUS_ERROR_NO_SUCH_INTERFACE,
					   PHCD_BUS_ERROR_NO_SUCH_INSTANCE,
					   SD_BUS_ERROR_UNKNOWN_OBJECT)) {
			return EXIT_NOT_FOUND;
		}
		if (sd_bus_error_has_names(e, SD_BUS_ERROR_ACCESS_DENIED,
					   SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED)) {
			return EXIT_DENIED;
		}
		if (sd_bus_error_has_name(e, SD_BUS_ERROR_INVALID_ARGS)) {
			return EXIT_USAGE;
		}
		return EXIT_FAILED;
	}
	log_error_errno(r < 0 ? r : -r, "%s: %m", what);
	return EXIT_FAILED;
}

int phcctl_call(struct phcctl *c, const char *path, const char *iface, const char *member,
		sd_bus_error *e, sd_bus_message **reply, const char *types, ...)
{
	sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, PHCD_BUS_NAME, path, iface, member);
	if (r >= 0) {
		r = sd_bus_message_set_auto_start(m, c->auto_start);
	}
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0) {
		r = sd_bus_call(c->bus, m, 0, e, reply);
	}
	sd_bus_message_unref(m);
	return r;
}

int phcctl_get_paths(struct phcctl *c, const char *path, const char *iface, const char *property,
		     char ***ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char **l = NULL;
	int r;

	r = phcctl_call(c, path, "org.freedesktop.DBus.Properties", "Get", &e, &reply, "ss", iface,
			property);
	if (r >= 0) {
		r = sd_bus_message_enter_container(reply, 'v', NULL);
	}
	if (r >= 0) {
		r = sd_bus_message_read_strv(reply, &l);
	}
	sd_bus_message_unref(reply);
	if (r < 0) {
		r = -phcctl_error(path, &e, r);
		sd_bus_error_free(&e);
		return r;
	}
	/* sd-bus gives NULL, not an empty list, for an empty array. */
	if (!l) {
		l = calloc(1, sizeof(char *));
		if (!l) {
			return -phcctl_error(path, NULL, -ENOMEM);
		}
	}
	*ret = l;
	return 0;
}

void phcctl_strv_free(char **l)
{
	for (char **s = l; s && *s; s++) {
		free(*s);
	}
	free(l);
}

int phcctl_get_all(struct phcctl *c, const char *path, const char *iface, sd_bus_message **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = phcctl_call(c, path, "org.freedesktop.DBus.Properties", "GetAll", &e, ret, "s", iface);
	if (r < 0) {
		r = phcctl_error(path, &e, r);
		sd_bus_error_free(&e);
		return -r;
	}
	return 0;
}

/* GetAll's a{sv} copied into a new message, with {name, the Get reply's variant} appended. */
static int props_merge(sd_bus *bus, sd_bus_message *all, const char *name, sd_bus_message *value,
		       sd_bus_message **ret)
{
	sd_bus_message *m = NULL;
	int r;

	/* A scratch message, never sent: only read back by props_*() and the JSON writer. */
	r = sd_bus_message_new(bus, &m, SD_BUS_MESSAGE_SIGNAL);
	if (r >= 0) {
		r = sd_bus_message_open_container(m, 'a', "{sv}");
	}
	if (r >= 0) {
		r = sd_bus_message_enter_container(all, 'a', "{sv}");
	}
	if (r >= 0) {
		r = sd_bus_message_copy(m, all, true);
	}
	if (r >= 0) {
		r = sd_bus_message_open_container(m, 'e', "sv");
	}
	if (r >= 0) {
		r = sd_bus_message_append_basic(m, 's', name);
	}
	if (r >= 0) {
		r = sd_bus_message_copy(m, value, false);
	}
	for (int k = 0; r >= 0 && k < 2; k++) {
		r = sd_bus_message_close_container(m);
	}
	if (r >= 0) {
		r = sd_bus_message_seal(m, 1, 0);
	}
	if (r >= 0) {
		r = sd_bus_message_rewind(m, true);
	}
	if (r < 0) {
		sd_bus_message_unref(m);
		return r;
	}
	*ret = m;
	return 0;
}

int phcctl_get_all_with(struct phcctl *c, const char *path, const char *iface,
			const char *explicit_name, sd_bus_message **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *all = NULL, *value = NULL;
	int r;

	r = phcctl_get_all(c, path, iface, &all);
	if (r < 0) {
		return r;
	}
	r = phcctl_call(c, path, "org.freedesktop.DBus.Properties", "Get", &e, &value, "ss", iface,
			explicit_name);
	if (r < 0) {
		r = -phcctl_error(path, &e, r);
		sd_bus_error_free(&e);
	} else {
		r = props_merge(c->bus, all, explicit_name, value, ret);
		if (r < 0) {
			r = -phcctl_error(path, NULL, r);
		}
	}
	sd_bus_message_unref(value);
	sd_bus_message_unref(all);
	return r;
}

/* Position props inside the variant of property name; its type in *type. */
static int props_seek(sd_bus_message *props, const char *name, char *type)
{
	const char *key, *contents;
	int r;

	r = sd_bus_message_rewind(props, true);
	if (r >= 0) {
		r = sd_bus_message_enter_container(props, 'a', "{sv}");
	}
	while (r >= 0) {
		r = sd_bus_message_enter_container(props, 'e', "sv");
		if (r <= 0) {
			return r < 0 ? r : -ENOENT;
		}
		r = sd_bus_message_read_basic(props, 's', &key);
		if (r < 0) {
			return r;
		}
		if (strcmp(key, name) != 0) {
			r = sd_bus_message_skip(props, "v");
			if (r >= 0) {
				r = sd_bus_message_exit_container(props);
			}
			continue;
		}
		r = sd_bus_message_peek_type(props, NULL, &contents);
		if (r >= 0) {
			r = sd_bus_message_enter_container(props, 'v', contents);
		}
		*type = contents[0];
		return r;
	}
	return r;
}

int props_enter(sd_bus_message *props, const char *name, char *type)
{
	return props_seek(props, name, type);
}

const char *props_str(sd_bus_message *props, const char *name)
{
	const char *s = NULL;
	char type;

	if (props_seek(props, name, &type) < 0 || !strchr("sog", type) ||
	    sd_bus_message_read_basic(props, type, &s) < 0) {
		return "?";
	}
	return s;
}

int64_t props_int(sd_bus_message *props, const char *name)
{
	int64_t v = 0;
	char type;

	if (props_seek(props, name, &type) < 0 || bus_read_integer(props, type, &v) < 0) {
		return 0;
	}
	return v;
}

void props_join(sd_bus_message *props, const char *name, char *buf, size_t size)
{
	const char *s;
	size_t len = 0;
	char type;

	buf[0] = '\0';
	if (props_enter(props, name, &type) < 0 || type != 'a' ||
	    sd_bus_message_enter_container(props, 'a', "s") <= 0) {
		return;
	}
	while (sd_bus_message_read_basic(props, 's', &s) > 0 && len < size) {
		int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", s);

		len += n > 0 ? (size_t) n : 0;
	}
}

double props_double(sd_bus_message *props, const char *name)
{
	double d = 0;
	char type;

	if (props_seek(props, name, &type) < 0 || type != 'd' ||
	    sd_bus_message_read_basic(props, 'd', &d) < 0) {
		return 0;
	}
	return d;
}

int phcctl_print_json(sd_bus_message *m)
{
	int r = bus_json_write_value(m, stdout);

	putchar('\n');
	return r;
}
