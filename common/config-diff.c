/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a reload changes: two loaded configurations compared per instance, per port, per daemon. */
#include <stddef.h>

#include "common/config-diff.h"
#include "common/config-keys.h"

static const char *const change_names[] = {
	[CONFIG_UNCHANGED] = "unchanged",
	[CONFIG_ADDED] = "added",
	[CONFIG_REMOVED] = "removed",
	[CONFIG_CHANGED] = "changed",
};

const char *config_change_to_string(enum config_change c)
{
	return (size_t) c < ARRAY_SIZE(change_names) ? change_names[c] : NULL;
}

enum config_change config_diff_instance(const struct config *old, const struct config *new,
					const char *name)
{
	const struct config_instance *a = config_find_instance(old, name);
	const struct config_instance *b = config_find_instance(new, name);

	if (!a && !b) {
		return CONFIG_UNCHANGED;
	}
	if (!a) {
		return CONFIG_ADDED;
	}
	if (!b) {
		return CONFIG_REMOVED;
	}
	return config_keys_equal(&a->options, &b->options, SCOPE_INSTANCE) ? CONFIG_UNCHANGED
									   : CONFIG_CHANGED;
}

bool config_instance_priorities_only(const struct config *old, const struct config *new,
				     const char *name)
{
	const struct config_instance *a = config_find_instance(old, name);
	const struct config_instance *b = config_find_instance(new, name);
	struct instance_options o;

	if (!a || !b || config_keys_equal(&a->options, &b->options, SCOPE_INSTANCE)) {
		return false;
	}
	o = b->options;
	o.priority1 = a->options.priority1;
	o.priority2 = a->options.priority2;
	return config_keys_equal(&a->options, &o, SCOPE_INSTANCE);
}

enum config_change config_diff_port(const struct config *old, const struct config *new,
				    const char *instance, const char *ifname)
{
	struct port_options a, b;
	bool has_a = config_port_options(old, instance, ifname, &a) == 0;
	bool has_b = config_port_options(new, instance, ifname, &b) == 0;

	if (!has_a && !has_b) {
		return CONFIG_UNCHANGED;
	}
	if (!has_a) {
		return CONFIG_ADDED;
	}
	if (!has_b) {
		return CONFIG_REMOVED;
	}
	return config_keys_equal(&a, &b, SCOPE_PORT) ? CONFIG_UNCHANGED : CONFIG_CHANGED;
}

bool config_daemon_changed(const struct config *old, const struct config *new)
{
	return !config_keys_equal(&old->daemon, &new->daemon, SCOPE_DAEMON);
}
