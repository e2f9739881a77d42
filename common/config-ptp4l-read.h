/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to config_load(): a linuxptp file (ptp4l_config = PATH) read as a layer of phcd.conf. */
#pragma once

#include <stddef.h>

#include "common/config-loader.h"
#include "common/config-ptp4l.h"

/* One line of the report of a ptp4l file; a warning also goes to warnings, a refusal to errors. */
_printf_(5, 6) void ptp4l_verdict(struct loader *l, struct config_pos pos, const char *line,
				  enum ptp4l_verdict v, const char *fmt, ...);

/*
 * Read the linuxptp file path into global (its [global]) and into c->ptp4l_sections ([IFNAME],
 * owned by instance index owner, SIZE_MAX: [global]'s file). at: the ptp4l_config line that names
 * it (line 0: the file is the whole configuration). <0: no memory.
 */
int config_ptp4l_read(struct loader *l, const char *path, struct config_pos at,
		      struct config_layer *global, size_t owner);
