/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd's run loop: signals, the manager on sd-event, and `--check-config`. */
#pragma once

#include "daemon/manager.h"

/* Load and check the configuration, print every file:line error (or a summary), 0 or -errno. */
int supervisor_check_config(const struct manager_settings *s);
/* Run until SIGTERM/SIGINT; SIGHUP reloads. 0 on a clean stop, -errno otherwise (logged). */
int supervisor_run(const struct manager_settings *s);
