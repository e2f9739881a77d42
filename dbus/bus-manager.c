// SPDX-License-Identifier: GPL-2.0-or-later
/* org.phcd1.Manager at /org/phcd1: the daemon as a whole, lookups, Reload() and Describe(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h" /* the generated one, for PHCD_VERSION */
#include "common/config-file.h"
#include "common/log.h"
#include "dbus/bus-internal.h"
#include "dbus/bus-json.h"

static int get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return bus_append_valid_string(reply, PHCD_VERSION);
}

static int get_instances(sd_bus *bus, const char *path, const char *interface, const char *property,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_append_instance_paths(reply, s->manager);
}

static int get_ports(sd_bus *bus, const char *path, const char *interface, const char *property,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_append_port_paths(reply, s->manager, NULL);
}

/* system_clock_instance as configured: an instance name, "auto", or "" (never steered). */
static int get_system_clock_instance(sd_bus *bus, const char *path, const char *interface,
				     const char *property, sd_bus_message *reply, void *userdata,
				     sd_bus_error *error)
{
	struct bus_server *s = userdata;
	const struct config *c = manager_get_config(s->manager);

	return sd_bus_message_append_basic(reply, 's', c ? c->daemon.system_clock_instance : "");
}

static int get_system_clock_synchronized(sd_bus *bus, const char *path, const char *interface,
					 const char *property, sd_bus_message *reply,
					 void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;

	/* CLOCK_REALTIME itself, not the instance: what time-sync.target waits for. */
	return sd_bus_message_append(reply, "b",
				     (int) manager_system_clock_synchronized(s->manager));
}

static int get_start_timestamp(sd_bus *bus, const char *path, const char *interface,
			       const char *property, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error)
{
	struct bus_server *s = userdata;
	uint64_t t = strcmp(property, "StartTimestamp") == 0
			     ? manager_start_realtime_usec(s->manager)
			     : manager_start_monotonic_usec(s->manager);

	return sd_bus_message_append_basic(reply, 't', &t);
}

static int get_health(sd_bus *bus, const char *path, const char *interface, const char *property,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_append_health(reply, manager_health(s->manager));
}

static int get_ready(sd_bus *bus, const char *path, const char *interface, const char *property,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;
	const struct readiness *r = manager_readiness(s->manager);

	if (!strcmp(property, "Ready")) {
		return sd_bus_message_append(reply, "b", r->ready);
	}
	return sd_bus_message_append(reply, "s", r->reason);
}

static int get_health_reasons(sd_bus *bus, const char *path, const char *interface,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_append_health_reasons(reply, manager_health(s->manager));
}

static int get_system_clock_conflict(sd_bus *bus, const char *path, const char *interface,
				     const char *property, sd_bus_message *reply, void *userdata,
				     sd_bus_error *error)
{
	struct bus_server *s = userdata;

	/* Process names from /proc: checked append. */
	return sd_bus_message_append_basic(reply, 's', manager_system_clock_conflict(s->manager));
}

static int get_config_files(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	struct bus_server *s = userdata;
	const struct config *c = manager_get_config(s->manager);
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	for (size_t k = 0; r >= 0 && c && k < c->n_files; k++) {
		r = sd_bus_message_append_basic(reply, 's', c->files[k]);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Names arrive from people and scripts: say what is wrong with one, before looking it up. */
static int check_name(const char *what, const char *name, size_t max, sd_bus_error *error)
{
	if (!name[0]) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Empty %s name", what);
	}
	if (strlen(name) >= max) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "%s name '%.64s...' is longer than %zu characters", what,
					 name, max - 1);
	}
	for (const char *c = name; *c; c++) {
		if (*c == '/' || *c <= ' ' || *c == 0x7f) {
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "Invalid %s name '%s': no '/', blanks or control "
						 "characters allowed",
						 what, name);
		}
	}
	return 0;
}

static int port_path_by_name(struct manager *m, const char *name, char **ret)
{
	struct mport *p = manager_find_port(m, name);

	return p ? bus_port_path(p, ret) : -ENOENT;
}

static int instance_path_by_name(struct manager *m, const char *name, char **ret)
{
	struct instance *i = manager_find_instance(m, name);

	return i ? bus_instance_path(i, ret) : -ENOENT;
}

/* GetPortByInterface(s) and GetInstance(s): name -> object path, the member picks the kind. */
static const struct lookup {
	const char *member;
	const char *what;
	size_t max;
	int (*path_by_name)(struct manager *m, const char *name, char **ret);
	const char *error;
	const char *before; /* the error message: before + 'name' + after */
	const char *after;
} lookups[] = {
	{ "GetPortByInterface", "interface", IFNAMSIZ, port_path_by_name,
	  PHCD_BUS_ERROR_NO_SUCH_INTERFACE, "phcd runs no PTP port on interface ",
	  ": add it to an instance's interfaces in phcd.conf (see 'phcctl ports')" },
	{ "GetInstance", "instance", OPTIONS_NAME_MAX, instance_path_by_name,
	  PHCD_BUS_ERROR_NO_SUCH_INSTANCE, "No instance ",
	  " in the running configuration (see 'phcctl status' for the instances)" },
};

static int method_lookup(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const struct lookup *l = &lookups[strcmp(sd_bus_message_get_member(m), "GetInstance") == 0];
	struct bus_server *s = userdata;
	_cleanup_free_ char *path = NULL;
	const char *name;
	int r;

	r = sd_bus_message_read(m, "s", &name);
	if (r < 0) {
		return r;
	}
	r = check_name(l->what, name, l->max, error);
	if (r < 0) {
		return r;
	}
	r = l->path_by_name(s->manager, name, &path);
	if (r == -ENOENT) {
		return sd_bus_error_setf(error, l->error, "%s'%s'%s", l->before, name, l->after);
	}
	return r < 0 ? r : sd_bus_reply_method_return(m, "o", path);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;
	_cleanup_free_ char *errors = NULL;
	int r;

	r = bus_authorize(s, m, error);
	if (r <= 0) {
		return r < 0 ? r : 1;
	}
	r = manager_reload(s->manager, &errors);
	if (r < 0) {
		/* The caller gets the reason; so does the journal (a GUI may not show it). */
		if (r == -EINVAL) {
			log_full(LOG_ERR,
				 "D-Bus Reload() refused: the new configuration is invalid, "
				 "the old one keeps running");
		} else {
			log_full_errno(LOG_ERR, r, "D-Bus Reload() failed: %m");
		}
		log_lines(LOG_ERR, errors);
	}
	if (r == -EINVAL) {
		return sd_bus_error_setf(error, PHCD_BUS_ERROR_INVALID_CONFIG,
					 "The new configuration is invalid, the old one keeps "
					 "running:\n%s",
					 errors ? errors : "(no details)");
	}
	if (r < 0) {
		return sd_bus_error_setf(error, PHCD_BUS_ERROR_OPERATION_FAILED,
					 "Reload failed: %s", strerror(-r));
	}
	return sd_bus_reply_method_return(m, NULL);
}

/* CheckConfig's text: a phcd.conf is a few kB; this bounds what one call makes phcd parse. */
#define BUS_CHECK_CONFIG_MAX (256 * 1024)

/* The lines of what config_check() printed, each with the memfd's path said as "<text>". */
static int append_check_lines(sd_bus_message *reply, const char *out, const char *path)
{
	size_t plen = strlen(path);
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	for (const char *l = out; r >= 0 && l && *l;) {
		size_t n = strcspn(l, "\n");
		_cleanup_free_ char *line = NULL;

		if (n >= plen && !strncmp(l, path, plen)) {
			r = asprintf(&line, "<text>%.*s", (int) (n - plen), l + plen);
		} else {
			r = asprintf(&line, "%.*s", (int) n, l);
		}
		if (r < 0) {
			return -ENOMEM;
		}
		r = bus_append_valid_string(reply, line);
		l += n + (l[n] == '\n');
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/*
 * CheckConfig(s text) -> (b ok, as messages): the text checked as a phcd.conf, as
 * `phcd --check-config` would, without applying it (a fleet tool asks before it writes a
 * drop-in). Authorized like Reload: the text may name files (ptp4l_config) phcd then reads.
 */
static int method_check_config(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;
	_cleanup_free_ char *out = NULL;
	_cleanup_close_ int fd = -EBADF;
	sd_bus_message *reply = NULL;
	char path[64];
	const char *text;
	size_t len = 0, size;
	FILE *f;
	int checked, r;

	r = sd_bus_message_read(m, "s", &text);
	if (r < 0) {
		return r;
	}
	size = strlen(text);
	if (size > BUS_CHECK_CONFIG_MAX) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Configuration text of %zu bytes, expected at most %d",
					 size, BUS_CHECK_CONFIG_MAX);
	}
	r = bus_authorize(s, m, error);
	if (r <= 0) {
		return r < 0 ? r : 1;
	}
	fd = memfd_create("phcd-check-config", MFD_CLOEXEC);
	if (fd < 0 || write(fd, text, size) != (ssize_t) size) {
		return sd_bus_error_set_errnof(error, errno, "Cannot hold the text to check: %m");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = open_memstream(&out, &len);
	if (!f) {
		return -ENOMEM;
	}
	/* The text alone, as a whole phcd.conf: no drop-ins ("/proc/self/fd/N.d" never exists). */
	checked = config_check(&(const struct config_source){ .path = path }, f);
	if (fclose(f) != 0) {
		return -ENOMEM;
	}
	log_debug("D-Bus CheckConfig(): %zu bytes, %s", size, checked < 0 ? "invalid" : "valid");
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0) {
		r = sd_bus_message_append(reply, "b", (int) (checked >= 0));
	}
	if (r >= 0) {
		r = append_check_lines(reply, out, path);
	}
	if (r >= 0) {
		r = sd_bus_send(NULL, reply, NULL);
	}
	sd_bus_message_unref(reply);
	return r < 0 ? r : 1;
}

static const sd_bus_vtable manager_vtable[];

/* {"Manager": {...}, "Instances": [{...}], "Ports": [{...}]} with every property of each. */
static int describe(struct bus_server *s, FILE *f)
{
	struct instance *i;
	struct mport *p;
	int r;

	fputs("{\"Manager\":", f);
	r = bus_describe_object(s, f, manager_vtable, s, PHCD_BUS_PATH_MANAGER,
				PHCD_BUS_IFACE_MANAGER);
	fputs(",\"Instances\":[", f);
	MANAGER_FOREACH_INSTANCE(i, s->manager, k)
	{
		if (r >= 0 && k > 0) {
			fputc(',', f);
		}
		if (r >= 0) {
			r = bus_instance_describe(s, f, i);
		}
	}
	fputs("],\"Ports\":[", f);
	MANAGER_FOREACH_PORT(p, s->manager, k)
	{
		if (r >= 0 && k > 0) {
			fputc(',', f);
		}
		if (r >= 0) {
			r = bus_port_describe(s, f, p);
		}
	}
	fputs("]}", f);
	return r;
}

static int method_describe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;
	_cleanup_free_ char *json = NULL;
	size_t len = 0;
	uint64_t now = 0;
	FILE *f;
	int r;

	(void) sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	if (s->describe_json &&
	    (!s->describe_stale || now - s->describe_usec < BUS_DESCRIBE_MIN_AGE_USEC)) {
		return sd_bus_reply_method_return(m, "s", s->describe_json);
	}
	f = open_memstream(&json, &len);
	if (!f) {
		return -ENOMEM;
	}
	r = describe(userdata, f);
	if (fclose(f) != 0 && r >= 0) {
		r = -ENOMEM;
	}
	if (r < 0) {
		return sd_bus_error_set_errnof(error, -r, "Cannot build the description: %s",
					       strerror(-r));
	}
	log_debug("Describe(): document rebuilt (%zu bytes)", len);
	free(s->describe_json);
	s->describe_json = TAKE_PTR(json);
	s->describe_usec = now;
	s->describe_stale = false;
	return sd_bus_reply_method_return(m, "s", s->describe_json);
}

/*
 * ObjectManager.GetManagedObjects on /org/phcd1, answered here before sd-bus's own (an object
 * callback runs before the built-in handlers): the instances and ports straight from the
 * manager's lists, each property appended by its getter, where sd-bus would call the node
 * enumerators, look every path up again through the fallback's find(), append each property's
 * name through a format string and list the four org.freedesktop.DBus.* interfaces with empty
 * dicts for every object (GDBus's object manager leaves them out too). Any other call on the path
 * goes on to the vtables (return 0).
 */
static int on_manager_object(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus_server *s = userdata;
	sd_bus_message *reply = NULL;
	struct instance *i;
	struct mport *p;
	int r;

	if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager",
					   "GetManagedObjects")) {
		return 0;
	}
	if (!sd_bus_message_has_signature(m, "")) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "GetManagedObjects takes no arguments");
	}
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0) {
		r = sd_bus_message_open_container(reply, 'a', "{oa{sa{sv}}}");
	}
	MANAGER_FOREACH_INSTANCE(i, s->manager, k)
	{
		if (r >= 0) {
			r = bus_instance_append_object(s, reply, i);
		}
	}
	MANAGER_FOREACH_PORT(p, s->manager, k)
	{
		if (r >= 0) {
			r = bus_port_append_object(s, reply, p);
		}
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(reply);
	}
	if (r >= 0) {
		r = sd_bus_send(NULL, reply, NULL);
	}
	sd_bus_message_unref(reply);
	return r < 0 ? r : 1;
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Instances", "ao", get_instances, 0, EMITS),
	SD_BUS_PROPERTY("Ports", "ao", get_ports, 0, EMITS),
	SD_BUS_PROPERTY("SystemClockInstance", "s", get_system_clock_instance, 0, EMITS),
	SD_BUS_PROPERTY("SystemClockSynchronized", "b", get_system_clock_synchronized, 0, EMITS),
	SD_BUS_PROPERTY("SystemClockConflict", "s", get_system_clock_conflict, 0, EMITS),
	SD_BUS_PROPERTY("ConfigFiles", "as", get_config_files, 0, EMITS),
	SD_BUS_PROPERTY("StartTimestamp", "t", get_start_timestamp, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("StartTimestampMonotonic", "t", get_start_timestamp, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Health", "s", get_health, 0, EMITS),
	SD_BUS_PROPERTY("HealthReasons", "a(ss)", get_health_reasons, 0, EMITS),
	SD_BUS_PROPERTY("Ready", "b", get_ready, 0, EMITS),
	SD_BUS_PROPERTY("ReadyReason", "s", get_ready, 0, EMITS),
	SD_BUS_METHOD_WITH_ARGS("GetPortByInterface", SD_BUS_ARGS("s", interface),
				SD_BUS_RESULT("o", port), method_lookup,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetInstance", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", instance),
				method_lookup, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Describe", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json),
				method_describe, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("CheckConfig", SD_BUS_ARGS("s", text),
				SD_BUS_RESULT("b", ok, "as", messages), method_check_config,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

static const struct bus_prop_group manager_groups[] = {
	{ BUS_MANAGER_CHANGED_INSTANCES, (const char *const[]){ "Instances", NULL } },
	{ BUS_MANAGER_CHANGED_PORTS, (const char *const[]){ "Ports", NULL } },
	{ MANAGER_CHANGED_SYSTEM_CLOCK | MANAGER_CHANGED_CONFIG,
	  (const char *const[]){ "SystemClockSynchronized", "SystemClockConflict", NULL } },
	{ MANAGER_CHANGED_CONFIG,
	  (const char *const[]){ "SystemClockInstance", "ConfigFiles", NULL } },
	{ MANAGER_CHANGED_HEALTH, (const char *const[]){ "Health", "HealthReasons", NULL } },
	{ MANAGER_CHANGED_READY, (const char *const[]){ "Ready", "ReadyReason", NULL } },
	{},
};

int bus_manager_register(struct bus_server *s)
{
	int r;

	r = sd_bus_add_object_vtable(s->bus, NULL, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER,
				     manager_vtable, s);
	if (r >= 0) {
		r = sd_bus_add_object(s->bus, NULL, PHCD_BUS_PATH_MANAGER, on_manager_object, s);
	}
	if (r < 0) {
		return r;
	}
	/* Still sd-bus's: InterfacesAdded/Removed and the interface in the introspection. */
	return sd_bus_add_object_manager(s->bus, NULL, PHCD_BUS_PATH_MANAGER);
}

int bus_manager_emit(struct bus_server *s, unsigned int mask)
{
	return bus_emit_groups(s, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, manager_groups,
			       mask);
}
