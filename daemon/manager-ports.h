/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-ports.c: the ports and their workers. */
#pragma once

#include "daemon/manager-state.h"
#include "netlink/link-monitor.h"

/* SIGTERM'd workers get this long in all (SHUTDOWN, SIGTERM at half, then SIGKILL). */
#define WORKER_STOP_TIMEOUT_USEC (2 * USEC_PER_SEC)
/* How often the workers' status pages are read: what D-Bus shows of a port is this old at most. */
#define MANAGER_STATUS_PERIOD_USEC USEC_PER_SEC

void mport_set_state(struct mport *p, enum port_state st);
void mport_set_error(struct mport *p, int error, const char *fmt, ...) _printf_(3, 4);
void mport_start_worker(struct mport *p);
void mport_stop_worker(struct mport *p);
int mport_add(struct manager *m, struct instance *i, const struct link_info *l);
/* Stop its worker and forget it (hot-unplug, reload). */
void mport_remove(struct mport *p);
void mport_free(struct mport *p);
/* Ports of the instance on a PHC that cannot be steered: FAULTY with the reason, no worker. */
void mport_fault_phc(struct instance *i, int phc_index, int error);
/* Does ethtool report a PHC for the link (false without ethtool netlink)? */
bool manager_link_has_phc(struct manager *m, const struct link_info *l);
/* A link appeared or changed: add a port for it where an instance wants it. */
void manager_consider_link(struct manager *m, const struct link_info *l);
void manager_on_link(struct link_monitor *lm, enum link_event ev, const struct link_info *l,
		     void *userdata);
int manager_on_status_timer(sd_event_source *src, uint64_t usec, void *userdata);
/* Once stopping, exit the event loop when the last worker is gone. */
void manager_maybe_exit(struct manager *m);

/* Administrative control of a port: disable stops its worker (state DISABLED), enable starts
 * it again, restart replaces the worker (and resets the restart rate limit). */
int mport_enable(struct mport *p);
int mport_disable(struct mport *p);
int mport_restart(struct mport *p);
