/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcctl's shared pieces: exit codes, options, bus helpers used by every command. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "dbus/bus-names.h"

/* Exit codes, documented in docs/phcctl.1.md. */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* phcd refused or failed the request */
	EXIT_USAGE = 2,	      /* bad command line */
	EXIT_NOT_FOUND = 3,   /* no such interface, instance or object */
	EXIT_DENIED = 4,      /* not authorized */
	EXIT_TIMEOUT = 5,     /* wait-sync: not synchronized in time */
	EXIT_NOT_RUNNING = 6, /* phcd is not on the bus, or went away during the command */
};

struct phcctl {
	sd_bus *bus;
	bool json;
	double timeout_sec;   /* wait-sync; < 0: forever */
	int64_t max_offset;   /* wait-sync; < 0: any offset */
	const char *instance; /* wait-sync: only this instance */
	bool no_pager;	      /* --no-pager */
	bool auto_start;      /* may a call start phcd by D-Bus activation (not on reads) */
};

/* A method call on org.phcd1, with D-Bus activation only when c->auto_start. */
int phcctl_call(struct phcctl *c, const char *path, const char *iface, const char *member,
		sd_bus_error *e, sd_bus_message **reply, const char *types, ...);

/* Name HOST or CONTAINER (-H, -M) in the errors of a connection that failed. */
void phcctl_set_target(const char *host_or_machine);
/* Say what went wrong (one line on stderr) and map the D-Bus error to an exit code. */
int phcctl_error(const char *what, const sd_bus_error *e, int r);

/*
 * An "ao" property as a NULL-terminated list, never NULL itself (an empty array is an empty
 * list); free with phcctl_strv_free(). On error: printed, -exit_code.
 */
int phcctl_get_paths(struct phcctl *c, const char *path, const char *iface, const char *property,
		     char ***ret);
void phcctl_strv_free(char **l);

/* A GetAll reply, with lookups by property name (the reply is rewound for each). */
int phcctl_get_all(struct phcctl *c, const char *path, const char *iface, sd_bus_message **ret);
/*
 * The same with one property that GetAll leaves out (an "explicit" one, such as a port's
 * Counters) fetched with Get and appended, so props_*() and the JSON see it like the others.
 */
int phcctl_get_all_with(struct phcctl *c, const char *path, const char *iface,
			const char *explicit_name, sd_bus_message **ret);
/* Position props inside the variant of property name, its type in *type (< 0: no such one). */
int props_enter(sd_bus_message *props, const char *name, char *type);
const char *props_str(sd_bus_message *props, const char *name);
int64_t props_int(sd_bus_message *props, const char *name);
double props_double(sd_bus_message *props, const char *name);
/* The "as" property name joined with ", " into buf ("" when absent or empty). */
void props_join(sd_bus_message *props, const char *name, char *buf, size_t size);
/* Write the next value (a GetAll reply's a{sv}) as JSON on stdout, with a newline. */
int phcctl_print_json(sd_bus_message *m);

/*
 * The pager (phcctl-pager.c): when standard output is a terminal and --no-pager is not given,
 * standard output becomes a pipe to $PHCCTL_PAGER, $PAGER, less or more; returns its pid, or 0
 * when there is none. phcctl_pager_close() flushes and waits for the reader to quit.
 */
pid_t phcctl_pager_open(const struct phcctl *c);
void phcctl_pager_close(pid_t pid);

/* GetPortByInterface / GetInstance: the object path of a name (free() it); -exit_code. */
int phcctl_lookup(struct phcctl *c, const char *method, const char *name, char **ret);

/* set-grandmaster-settings NAME KEY VALUE... and check-config FILE (phcctl-set.c) */
int phcctl_set_grandmaster_settings(struct phcctl *c, char **args, int n);
int phcctl_check_config(struct phcctl *c, const char *file);

/* monitor and wait-sync (phcctl-watch.c) */
int phcctl_monitor(struct phcctl *c);
int phcctl_wait_sync(struct phcctl *c);
