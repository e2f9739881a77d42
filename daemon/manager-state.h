/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's state read and marked without changing anything else: the lookups (the D-Bus
 * layer's too) and, inside the supervisor, the change marks. A leaf of the include graph: the
 * modules around the core (PHC and system clock followers, health) use it instead of the core's
 * headers.
 */
#pragma once

#include "daemon/model.h"

/*
 * A change only marks: the object's dirty bits, and the derive pass (derive.c) scheduled for the
 * end of this event-loop turn, which derives what follows and emits each object's bits once.
 */
void manager_instance_changed(struct instance *i, unsigned int mask);
void manager_port_changed(struct mport *p, unsigned int mask);
void manager_changed(struct manager *m, unsigned int mask);
/* Nothing of the state changed, but the lists did (a port freed): a pass all the same. */
void manager_dirty(struct manager *m);

sd_event *manager_get_event(struct manager *m);
/* When phcd started (manager_new), CLOCK_REALTIME and CLOCK_MONOTONIC usec. */
uint64_t manager_start_realtime_usec(const struct manager *m);
uint64_t manager_start_monotonic_usec(const struct manager *m);
/* The daemon's health: the worst of its instances' (each reason prefixed by the instance) and
 * its own (the system clock). */
const struct health_report *manager_health(const struct manager *m);
/* The daemon's readiness (readiness.h): what wait-sync waits for, the exporter and Cockpit show. */
const struct readiness *manager_readiness(const struct manager *m);
/* The running configuration's files, for a Describe(). */
const struct config *manager_get_config(struct manager *m);

/* Instances in configuration order, ports in the order they appeared. */
size_t manager_instance_count(const struct manager *m);
struct instance *manager_instance_at(const struct manager *m, size_t i);
size_t manager_port_count(const struct manager *m);
struct mport *manager_port_at(const struct manager *m, size_t i);

struct instance *manager_find_instance(const struct manager *m, const char *name);
struct mport *manager_find_port(const struct manager *m, const char *ifname);
struct mport *manager_find_port_by_ifindex(const struct manager *m, int ifindex);

#define MANAGER_FOREACH_INSTANCE(inst, m, idx)                                                \
	for (size_t idx = 0;                                                                  \
	     idx < manager_instance_count(m) && ((inst) = manager_instance_at(m, idx), true); \
	     idx++)
#define MANAGER_FOREACH_PORT(p, m, idx)                                                            \
	for (size_t idx = 0; idx < manager_port_count(m) && ((p) = manager_port_at(m, idx), true); \
	     idx++)

/* Is the port's worker waiting to be restarted (backoff running)? */
bool mport_restarting(const struct mport *p);
/* Number of ports of the instance, and the n-th of them. */
size_t instance_port_count(const struct instance *i);
struct mport *instance_port_at(const struct instance *i, size_t n);

/* "hardware" / "software", as the D-Bus API shows them. */
const char *mport_timestamping_to_string(enum transport_ts_mode m);
