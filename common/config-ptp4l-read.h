/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to config_load(): a linuxptp file (ptp4l_config = PATH) read as a layer of phcd.conf. */
#pragma once

#include <stddef.h>

#include "common/config-loader.h"

/*
 * Read the linuxptp file path into global (its [global]) and into c->ptp4l_sections ([IFNAME],
 * owned by instance index owner, SIZE_MAX: [global]'s file). at: the ptp4l_config line that names
 * it (line 0: the file is the whole configuration). <0: no memory.
 */
int config_ptp4l_read(struct loader *l, const char *path, struct config_pos at,
		      struct config_layer *global, size_t owner);
