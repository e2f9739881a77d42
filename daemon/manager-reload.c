// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reload: a new configuration is loaded and checked, reload_plan_new() decides what changes, and
 * this file carries the plan out, touching only what changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/manager-internal.h"
#include "daemon/manager-reload.h"
#include "daemon/reload-plan.h"

/* What the plan was computed over: the running instances and every known interface. */
struct reload_world {
	struct instance **instances;
	const char **names;
	size_t n_instances;
	struct reload_iface *ifaces;
	struct mport **ports;		/* per interface: its port, or NULL */
	const struct link_info **links; /* per interface: its link, or NULL */
	size_t n_ifaces;
};

static void world_free(struct reload_world *w)
{
	free(w->instances);
	free(w->names);
	free(w->ifaces);
	free(w->ports);
	free(w->links);
}

static void world_add(struct reload_world *w, struct mport *p, const struct link_info *l,
		      bool has_phc)
{
	size_t k = w->n_ifaces++;

	w->ports[k] = p;
	w->links[k] = l;
	w->ifaces[k] = (struct reload_iface){
		.ifname = p ? p->ifname : l->name,
		.instance = p ? p->instance->name : NULL,
		.has_phc = has_phc,
	};
}

/*
 * In link order, so that new ports take their portNumbers as at start-up; ports with no link in
 * the monitor (tests without one) come last. A port's PHC is what its worker found.
 */
static int world_collect(struct manager *m, struct reload_world *w)
{
	size_t n_links = m->links ? link_monitor_count(m->links) : 0, cap = m->n_ports + n_links;

	w->instances = calloc(m->n_instances + 1, sizeof(*w->instances));
	w->names = calloc(m->n_instances + 1, sizeof(*w->names));
	w->ifaces = calloc(cap + 1, sizeof(*w->ifaces));
	w->ports = calloc(cap + 1, sizeof(*w->ports));
	w->links = calloc(cap + 1, sizeof(*w->links));
	if (!w->instances || !w->names || !w->ifaces || !w->ports || !w->links) {
		return -ENOMEM;
	}
	for (size_t k = 0; k < m->n_instances; k++) {
		w->instances[k] = m->instances[k];
		w->names[k] = m->instances[k]->name;
	}
	w->n_instances = m->n_instances;
	for (size_t k = 0; k < n_links; k++) {
		const struct link_info *l = link_monitor_get(m->links, k);
		struct mport *p = manager_find_port_by_ifindex(m, l->ifindex);

		if (p) {
			world_add(w, p, l, p->phc_index >= 0);
		} else if (!(l->flags & IFF_LOOPBACK) && !manager_find_port(m, l->name)) {
			world_add(w, NULL, l, manager_link_has_phc(m, l));
		}
	}
	for (size_t k = 0; k < m->n_ports; k++) {
		struct mport *p = m->ports[k];

		if (!p->removed &&
		    (!m->links || !link_monitor_get_by_index(m->links, p->ifindex))) {
			world_add(w, p, NULL, p->phc_index >= 0);
		}
	}
	return 0;
}

static enum reload_action instance_action(const struct reload_plan *plan,
					  const struct reload_world *w, const struct instance *i)
{
	for (size_t k = 0; k < w->n_instances; k++) {
		if (w->instances[k] == i) {
			return plan->instance[k];
		}
	}
	return RELOAD_KEEP;
}

static void restart_port(struct mport *p)
{
	config_port_options(p->manager->config, p->instance->name, p->ifname, &p->options);
	p->delay_mechanism = p->options.delay_mechanism;
	manager_port_changed(p, MPORT_CHANGED_CONFIG);
	log_port_full(p->ifname, LOG_INFO, "configuration changed, restarting the worker");
	/* As Restart by hand: a fresh worker and restart budget; a disabled port waits. */
	(void) mport_restart(p);
}

static void apply(struct manager *m, const struct reload_world *w, const struct reload_plan *plan,
		  struct config *new)
{
	struct config *old = m->config;

	/* Ports that leave an instance which stays; a removed instance takes its own below. */
	for (size_t k = 0; k < w->n_ifaces; k++) {
		struct mport *p = w->ports[k];

		if (p && plan->port[k] == RELOAD_REMOVE &&
		    instance_action(plan, w, p->instance) != RELOAD_REMOVE) {
			mport_remove(p);
		}
	}
	for (size_t k = 0; k < w->n_instances; k++) {
		struct instance *i = w->instances[k];

		if (plan->instance[k] == RELOAD_KEEP) {
			continue;
		}
		log_full(LOG_INFO, "instance %s: %s", i->name,
			 reload_action_to_string(plan->instance[k]));
		if (plan->instance[k] == RELOAD_REMOVE) {
			for (size_t n = m->n_ports; n-- > 0;) {
				if (m->ports[n]->instance == i) {
					/* Not through mport_remove: the instance goes now. */
					mport_free(m->ports[n]);
				}
			}
			manager_remove_instance(m, i);
			continue;
		}
		instance_apply_options(i, &config_find_instance(new, i->name)->options);
		manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
		if (plan->instance[k] == RELOAD_RETUNE) {
			/* The workers take it in place (same PID), the BMCA decides again. */
			instance_push_priorities(i);
		}
	}
	for (size_t k = 0; k < plan->n_add_instances; k++) {
		const struct config_instance *ci = &new->instances[plan->add_instance[k]];
		int r;

		log_full(LOG_INFO, "instance %s: added", ci->options.name);
		r = manager_add_instance(m, ci);
		if (r < 0) {
			log_full_errno(LOG_ERR, r, "cannot add instance %s: %m, ignoring",
				       ci->options.name);
		}
	}
	m->config = new;
	for (size_t k = 0; k < w->n_ifaces; k++) {
		if (plan->port[k] == RELOAD_RESTART) {
			restart_port(w->ports[k]);
		}
	}
	config_free(old);
	if (plan->log_level_changed) {
		log_full(LOG_INFO, "logging_level %d (running workers keep theirs)",
			 new->daemon.logging_level);
	}
	if (plan->system_clock_changed) {
		/* sysclock-follow.c reads it from the running configuration on its next tick. */
		log_full(LOG_INFO, "system_clock_instance now \"%s\"",
			 new->daemon.system_clock_instance);
	}
	if (plan->restart_limits_changed) {
		/* Read at each worker exit: the next restart follows them. */
		log_full(LOG_INFO, "worker restart limits changed");
	}
	log_set_max_level(new->daemon.logging_level);
	/* Interfaces a new or changed instance now wants. */
	for (size_t k = 0; k < w->n_ifaces; k++) {
		const struct config_instance *ci = plan->add_to[k];
		struct instance *i = ci ? manager_find_instance(m, ci->options.name) : NULL;
		int r;

		if (!i || !w->links[k]) {
			continue;
		}
		r = mport_add(m, i, w->links[k]);
		if (r < 0) {
			log_port_full_errno(w->links[k]->name, LOG_ERR, r,
					    "cannot add the port: %m, ignoring");
		}
	}
}

int manager_reload(struct manager *m, char **errors)
{
	_cleanup_(reload_plan_freep) struct reload_plan *plan = NULL;
	struct reload_world w = { 0 };
	struct config *new = NULL;
	int r;

	r = manager_load_config(m, &new, errors);
	if (r < 0) {
		log_full(LOG_ERR, "reload refused, keeping the running configuration");
		return r;
	}
	r = world_collect(m, &w);
	if (r >= 0) {
		r = reload_plan_new(m->config, new, w.names, w.n_instances, w.ifaces, w.n_ifaces,
				    &plan);
	}
	if (r < 0) {
		world_free(&w);
		config_free(new);
		return log_full_errno(
			LOG_ERR, r,
			"cannot plan the reload, keeping the running configuration: %m");
	}
	apply(m, &w, plan, new);
	world_free(&w);
	log_full(LOG_INFO, "reloaded: %zu change(s)", plan->changes);
	manager_changed(m, MANAGER_CHANGED_CONFIG);
	return 0;
}
