/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.phcd1 D-Bus service of the supervisor: serves struct manager's state on the system bus.
 */
#pragma once

#include "daemon/manager.h"

struct bus_server;

/*
 * Connect to the system bus ($DBUS_SYSTEM_BUS_ADDRESS if set), attach to the manager's event
 * loop, export /org/phcd1 with its object manager, the instances and the ports, register the
 * manager's change hooks and take the name org.phcd1 (-EEXIST when another process has it).
 */
int bus_server_new(struct manager *m, struct bus_server **ret);
/* Unregisters the hooks, releases the name and closes the connection. */
struct bus_server *bus_server_free(struct bus_server *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct bus_server *, bus_server_free);
