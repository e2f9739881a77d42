/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to the config module: layers resolved into options, and interface selections. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config-file.h"

/* The daemon's and every instance's options from the layers read (defaults <- ptp4l_config's
 * [global] <- [global] <- ... as config_layer says), and the index of interfaces named. -ENOMEM. */
int config_resolve(struct config *c);
/* The first instance whose interfaces (not auto) names ifname, or NULL. After config_resolve(). */
const struct config_instance *config_member_of(const struct config *c, const char *ifname);
/* A ptp4l_config's [IFNAME] of owner (an instance index, SIZE_MAX: [global]'s file), or NULL. */
const struct config_ptp4l_section *config_find_ptp4l_section(const struct config *c, size_t owner,
							     const char *ifname);
/* The hash config_find_ptp4l_section() looks (owner, ifname) up with. */
uint32_t config_resolve_ptp4l_hash(size_t owner, const char *ifname);
