// SPDX-License-Identifier: GPL-2.0-or-later
/* What a reload changes, decided once from the two configurations and the running ports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/reload-plan.h"

static const char *const action_names[] = {
	[RELOAD_KEEP] = "kept",		[RELOAD_ADD] = "added",	     [RELOAD_REMOVE] = "removed",
	[RELOAD_RESTART] = "restarted", [RELOAD_RETUNE] = "retuned",
};

const char *reload_action_to_string(enum reload_action a)
{
	return (size_t) a < ARRAY_SIZE(action_names) ? action_names[a] : NULL;
}

static enum reload_action plan_instance(const struct config *old, const struct config *new,
					const char *name)
{
	switch (config_diff_instance(old, new, name)) {
	case CONFIG_UNCHANGED:
		return RELOAD_KEEP;
	case CONFIG_REMOVED:
		return RELOAD_REMOVE;
	case CONFIG_CHANGED:
		return config_instance_priorities_only(old, new, name) ? RELOAD_RETUNE
								       : RELOAD_RESTART;
	case CONFIG_ADDED:
	default:
		/* Running but not in the old configuration: nothing of it can be trusted. */
		return RELOAD_RESTART;
	}
}

/* A port of the running instance `instance`, whose own plan is ia. */
static enum reload_action plan_port(const struct config *old, const struct config *new,
				    const struct reload_iface *f, enum reload_action ia,
				    const struct config_instance *wanted)
{
	if (ia == RELOAD_REMOVE || !wanted || strcmp(wanted->options.name, f->instance)) {
		return RELOAD_REMOVE;
	}
	if (ia == RELOAD_RESTART ||
	    config_diff_port(old, new, f->instance, f->ifname) != CONFIG_UNCHANGED) {
		return RELOAD_RESTART;
	}
	return ia == RELOAD_RETUNE ? RELOAD_RETUNE : RELOAD_KEEP;
}

static bool name_in(const char *name, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (!strcmp(names[k], name)) {
			return true;
		}
	}
	return false;
}

int reload_plan_new(const struct config *old, const struct config *new,
		    const char *const *instances, size_t n_instances,
		    const struct reload_iface *ifaces, size_t n_ifaces, struct reload_plan **ret)
{
	_cleanup_(reload_plan_freep) struct reload_plan *p = calloc(1, sizeof(*p));
	const struct daemon_options *a = &old->daemon, *b = &new->daemon;

	if (!p) {
		return -ENOMEM;
	}
	p->instance = calloc(n_instances ? n_instances : 1, sizeof(*p->instance));
	p->add_instance = calloc(new->n_instances ? new->n_instances : 1, sizeof(*p->add_instance));
	p->port = calloc(n_ifaces ? n_ifaces : 1, sizeof(*p->port));
	p->add_to = calloc(n_ifaces ? n_ifaces : 1, sizeof(*p->add_to));
	if (!p->instance || !p->add_instance || !p->port || !p->add_to) {
		return -ENOMEM;
	}
	p->n_instances = n_instances;
	p->n_ifaces = n_ifaces;

	for (size_t k = 0; k < n_instances; k++) {
		p->instance[k] = plan_instance(old, new, instances[k]);
		p->changes += p->instance[k] != RELOAD_KEEP;
	}
	for (size_t k = 0; k < new->n_instances; k++) {
		if (!name_in(new->instances[k].options.name, instances, n_instances)) {
			p->add_instance[p->n_add_instances++] = k;
			p->changes++;
		}
	}
	for (size_t k = 0; k < n_ifaces; k++) {
		const struct reload_iface *f = &ifaces[k];
		const struct config_instance *wanted = config_instance_for_interface(new, f->ifname,
										     f->has_phc);
		enum reload_action ia = RELOAD_REMOVE;

		if (f->instance) {
			for (size_t n = 0; n < n_instances; n++) {
				if (!strcmp(instances[n], f->instance)) {
					ia = p->instance[n];
				}
			}
			p->port[k] = plan_port(old, new, f, ia, wanted);
		}
		/* A port that stays keeps its interface; otherwise whoever wants it now takes it.
		 */
		if (!f->instance || p->port[k] == RELOAD_REMOVE) {
			p->add_to[k] = wanted;
		}
		p->changes += (p->port[k] != RELOAD_KEEP) + (p->add_to[k] != NULL);
	}

	p->daemon_changed = config_daemon_changed(old, new);
	p->log_level_changed = a->logging_level != b->logging_level;
	p->system_clock_changed = strcmp(a->system_clock_instance, b->system_clock_instance) != 0;
	p->restart_limits_changed = a->restart_limit_burst != b->restart_limit_burst ||
				    a->restart_limit_interval_sec !=
					    b->restart_limit_interval_sec ||
				    a->restart_backoff_initial_ms !=
					    b->restart_backoff_initial_ms ||
				    a->restart_backoff_max_ms != b->restart_backoff_max_ms;
	p->changes += p->daemon_changed;
	*ret = TAKE_PTR(p);
	return 0;
}

struct reload_plan *reload_plan_free(struct reload_plan *p)
{
	if (p) {
		free(p->instance);
		free(p->add_instance);
		free(p->port);
		free(p->add_to);
		free(p);
	}
	return NULL;
}
