/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-reload.c: a new configuration carried out on the running supervisor. */
#pragma once

#include "daemon/model.h"

/*
 * Reload the configuration files (SIGHUP, D-Bus Reload). An invalid configuration is refused
 * with -EINVAL (the file:line lines in *errors, which may be NULL) and the old one keeps
 * running. Otherwise only the instances and ports whose configuration changed are touched.
 */
int manager_reload(struct manager *m, char **errors);
