/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a reload changes: two loaded configurations compared per instance, per port, per daemon. */
#pragma once

#include <stdbool.h>

#include "common/config-file.h"

enum config_change {
	CONFIG_UNCHANGED = 0,
	CONFIG_ADDED,
	CONFIG_REMOVED,
	CONFIG_CHANGED,
};

const char *config_change_to_string(enum config_change c);

/* Did the instance's own options (data sets, clock, servo, membership) change? */
enum config_change config_diff_instance(const struct config *old, const struct config *new,
					const char *name);
/* CHANGED only in priority1/priority2 (which the engine takes in place, without a restart)? */
bool config_instance_priorities_only(const struct config *old, const struct config *new,
				     const char *name);
/* Did the effective options of this port change? ADDED/REMOVED follow the instance. */
enum config_change config_diff_port(const struct config *old, const struct config *new,
				    const char *instance, const char *ifname);
/* Did any daemon key ([global] only) change? */
bool config_daemon_changed(const struct config *old, const struct config *new);
