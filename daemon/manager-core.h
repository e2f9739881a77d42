/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager.c: the supervisor's lifecycle, from the configuration to the workers and back. */
#pragma once

#include "common/config-file.h"
#include "daemon/model.h"

/*
 * Load the configuration (refusing an invalid one: -EINVAL, *errors holds the file:line lines,
 * for the caller to print and free) and set up the manager on event. Nothing runs before
 * manager_start().
 */
int manager_new(sd_event *event, const struct manager_settings *settings, struct manager **ret,
		char **errors);
/* Discover interfaces, spawn the workers, send READY=1. */
int manager_start(struct manager *m);
/* Stop every worker (SHUTDOWN, then SIGTERM, then SIGKILL) and exit the event loop when done. */
void manager_stop(struct manager *m);
struct manager *manager_free(struct manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct manager *, manager_free);

/* Register the change hooks (one set; NULL ops to unregister). */
void manager_set_ops(struct manager *m, const struct manager_ops *ops, void *userdata);
/*
 * Is CLOCK_REALTIME locked to the instance system_clock_instance names (or, for "auto", the one
 * it follows now)? false when phcd does not steer the system clock.
 */
bool manager_system_clock_synchronized(struct manager *m);
/*
 * "" unless phcd refuses to steer CLOCK_REALTIME because another program does (chronyd,
 * systemd-timesyncd, ntpd, phc2sys, ptp4l -S): then which ones.
 */
const char *manager_system_clock_conflict(struct manager *m);

/* Inside the supervisor. */
int manager_add_instance(struct manager *m, const struct config_instance *ci);
void manager_remove_instance(struct manager *m, struct instance *i);
int manager_load_config(struct manager *m, struct config **ret, char **errors);

/* The status file (--status-file) and the service manager's STATUS=. */
void manager_write_status(struct manager *m);
