// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's state read and marked: lookups and change marks, nothing that derives. */
#include <string.h>

#include "daemon/manager-object.h"
#include "daemon/manager-state.h"

static void derive_schedule(struct manager *m)
{
	if (m->derive_defer) {
		sd_event_source_set_enabled(m->derive_defer, SD_EVENT_ONESHOT);
	}
}

void manager_instance_changed(struct instance *i, unsigned int mask)
{
	i->dirty |= mask;
	derive_schedule(i->manager);
}

void manager_port_changed(struct mport *p, unsigned int mask)
{
	p->dirty |= mask;
	derive_schedule(p->manager);
}

void manager_changed(struct manager *m, unsigned int mask)
{
	m->dirty |= mask;
	derive_schedule(m);
}

void manager_dirty(struct manager *m)
{
	derive_schedule(m);
}

const char *mport_timestamping_to_string(enum transport_ts_mode m)
{
	return m == TRANSPORT_TS_MODE_HARDWARE ? "hardware" : "software";
}

const struct health_report *manager_health(const struct manager *m)
{
	return &m->health;
}

const struct readiness *manager_readiness(const struct manager *m)
{
	return &m->readiness;
}

uint64_t manager_start_realtime_usec(const struct manager *m)
{
	return m->start_realtime_usec;
}

uint64_t manager_start_monotonic_usec(const struct manager *m)
{
	return m->start_monotonic_usec;
}

sd_event *manager_get_event(struct manager *m)
{
	return m->event;
}

const struct config *manager_get_config(struct manager *m)
{
	return m->config;
}

size_t manager_instance_count(const struct manager *m)
{
	return m->n_instances;
}

struct instance *manager_instance_at(const struct manager *m, size_t i)
{
	return i < m->n_instances ? m->instances[i] : NULL;
}

size_t manager_port_count(const struct manager *m)
{
	return m->n_ports;
}

struct mport *manager_port_at(const struct manager *m, size_t i)
{
	return i < m->n_ports ? m->ports[i] : NULL;
}

struct instance *manager_find_instance(const struct manager *m, const char *name)
{
	for (size_t k = 0; k < m->n_instances; k++) {
		if (!strcmp(m->instances[k]->name, name)) {
			return m->instances[k];
		}
	}
	return NULL;
}

struct mport *manager_find_port(const struct manager *m, const char *ifname)
{
	for (size_t k = 0; k < m->n_ports; k++) {
		if (!m->ports[k]->removed && !strcmp(m->ports[k]->ifname, ifname)) {
			return m->ports[k];
		}
	}
	return NULL;
}

struct mport *manager_find_port_by_ifindex(const struct manager *m, int ifindex)
{
	for (size_t k = 0; k < m->n_ports; k++) {
		if (!m->ports[k]->removed && m->ports[k]->ifindex == ifindex) {
			return m->ports[k];
		}
	}
	return NULL;
}

bool mport_restarting(const struct mport *p)
{
	/* a port given up waits for its retry with a timer too, FAULTY meanwhile */
	return p->restart_timer != NULL && !p->backoff.given_up;
}

size_t instance_port_count(const struct instance *i)
{
	size_t n = 0;
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		n += p->instance == i;
	}
	return n;
}

struct mport *instance_port_at(const struct instance *i, size_t n)
{
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance == i && n-- == 0) {
			return p;
		}
	}
	return NULL;
}
