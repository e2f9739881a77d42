// SPDX-License-Identifier: GPL-2.0-or-later
/* Reload: a new configuration is loaded and checked, then applied, touching only what changed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/manager-internal.h"
#include "daemon/sysclock-follow.h"

/* ---- reload ---- */

int manager_reload(struct manager *m, char **errors)
{
	struct config *old = m->config, *new = NULL;
	size_t touched = 0;
	int r;

	r = manager_load_config(m, &new, errors);
	if (r < 0) {
		log_full(LOG_ERR, "reload refused, keeping the running configuration");
		return r;
	}
	/* Instances that went away or changed as a whole take their ports with them. */
	for (size_t k = m->n_instances; k-- > 0;) {
		struct instance *i = m->instances[k];
		enum config_change c = config_diff_instance(old, new, i->name);
		struct mport *p;

		if (c == CONFIG_UNCHANGED) {
			continue;
		}
		log_full(LOG_INFO, "instance %s: %s", i->name, config_change_to_string(c));
		touched++;
		if (c == CONFIG_REMOVED) {
			for (size_t n = m->n_ports; n-- > 0;) {
				p = m->ports[n];
				if (p->instance == i) {
					/* Not through mport_remove: the instance goes now. */
					mport_free(p);
				}
			}
			manager_remove_instance(m, i);
			continue;
		}
		instance_apply_options(i, &config_find_instance(new, i->name)->options);
		manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
		if (config_instance_priorities_only(old, new, i->name)) {
			/* The workers take it in place (same PID), the BMCA decides again. */
			instance_push_priorities(i);
		}
	}
	for (size_t k = 0; k < new->n_instances; k++) {
		if (!manager_find_instance(m, new->instances[k].options.name)) {
			log_full(LOG_INFO, "instance %s: added", new->instances[k].options.name);
			r = manager_add_instance(m, &new->instances[k]);
			if (r < 0) {
				log_full_errno(LOG_ERR, r, "cannot add instance %s: %m, ignoring",
					       new->instances[k].options.name);
			}
			touched++;
		}
	}
	m->config = new;
	/* Ports: gone from their instance, changed, or untouched (same worker, same PID). */
	for (size_t n = m->n_ports; n-- > 0;) {
		struct mport *p = m->ports[n];
		const struct config_instance *ci;
		enum config_change c;

		if (p->removed) {
			continue;
		}
		ci = config_instance_for_interface(new, p->ifname, p->phc_index >= 0);
		if (!ci || strcmp(ci->options.name, p->instance->name)) {
			mport_remove(p);
			touched++;
			continue;
		}
		c = config_diff_instance(old, new, p->instance->name);
		if (c == CONFIG_CHANGED &&
		    config_instance_priorities_only(old, new, p->instance->name)) {
			c = CONFIG_UNCHANGED; /* pushed above with IPC_SET_PRIORITY */
		}
		if (c == CONFIG_UNCHANGED) {
			c = config_diff_port(old, new, p->instance->name, p->ifname);
		}
		if (c == CONFIG_UNCHANGED) {
			continue;
		}
		config_port_options(new, p->instance->name, p->ifname, &p->options);
		p->delay_mechanism = p->options.delay_mechanism;
		manager_port_changed(p, MPORT_CHANGED_CONFIG);
		p->given_up = false;
		p->restarts_in_window = 0;
		log_port_full(p->ifname, LOG_INFO, "configuration changed, restarting the worker");
		if (p->worker) {
			mport_stop_worker(p);
		} else {
			mport_start_worker(p);
		}
		touched++;
	}
	config_free(old);
	log_set_max_level(new->daemon.logging_level);
	/* Interfaces a new or changed instance now wants. */
	for (size_t k = 0; m->links && k < link_monitor_count(m->links); k++) {
		manager_consider_link(m, link_monitor_get(m->links, k));
	}
	log_full(LOG_INFO, "reloaded: %zu change(s)", touched);
	manager_changed(m, MANAGER_CHANGED_CONFIG);
	return 0;
}
