/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a reload changes, decided once from the two configurations and the running ports. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/config-diff.h"

enum reload_action {
	RELOAD_KEEP = 0, /* untouched: same worker, same PID */
	RELOAD_ADD,
	RELOAD_REMOVE,
	RELOAD_RESTART, /* instance: new options, its ports restart; port: a fresh worker */
	RELOAD_RETUNE, /* only priority1/2 changed: taken in place (IPC_SET_PRIORITY), no restart */
};

const char *reload_action_to_string(enum reload_action a);

/* An interface the supervisor knows: a port of a running instance, or a link without a port. */
struct reload_iface {
	const char *ifname;
	const char *instance; /* the instance its port belongs to; NULL: no port */
	bool has_phc;	      /* as config_instance_for_interface() wants it */
};

struct reload_plan {
	/* per running instance, in the caller's order: KEEP, REMOVE, RESTART or RETUNE */
	enum reload_action *instance;
	size_t n_instances;
	/* instances of the new configuration that do not run yet: indices into new->instances */
	size_t *add_instance;
	size_t n_add_instances;
	/* per interface, in the caller's order: KEEP, REMOVE, RESTART or RETUNE its port (KEEP for
	 * a link without one) */
	enum reload_action *port;
	/*
	 * per interface: the instance of the new configuration that takes it as a new port (a
	 * link without a port, or one whose port is removed), or NULL. Points into new.
	 */
	const struct config_instance **add_to;
	size_t n_ifaces;
	/* [global] keys */
	bool daemon_changed; /* any of them; those below are the ones with an effect of their own */
	bool log_level_changed;
	bool system_clock_changed;
	bool restart_limits_changed;
	/* every non-KEEP entry above, each counted once, plus one for changed daemon keys */
	size_t changes;
};

/*
 * The plan of a reload from old to new, for the running instances (names, in any order) and the
 * known interfaces. Pure: reads its arguments only. Each decision depends on its own entry and
 * the two configurations, never on the order of the entries. 0 or -ENOMEM.
 */
int reload_plan_new(const struct config *old, const struct config *new,
		    const char *const *instances, size_t n_instances,
		    const struct reload_iface *ifaces, size_t n_ifaces, struct reload_plan **ret);
struct reload_plan *reload_plan_free(struct reload_plan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct reload_plan *, reload_plan_free);
