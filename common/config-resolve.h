/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to the config module: layers resolved into options, and interface selections. */
#pragma once

#include <stdbool.h>

#include "common/config-file.h"

/* The daemon's and every instance's options from the layers read: defaults <- ptp4l_config's
 * [global] <- [global] <- ... as config_layer says. */
void config_resolve(struct config *c);
/* Does the selection name ifname (auto aside)? */
bool config_selection_has(const struct interface_selection *s, const char *ifname);
