/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * phcd's public D-Bus names (docs/dbus-api.md, dbus/org.phcd1.xml): the bus name, the object
 * paths, the interfaces and the error names, for the daemon's side (dbus/) and its clients
 * (phcctl/, exporter/) alike.
 */
#pragma once

#define PHCD_BUS_NAME "org.phcd1"

#define PHCD_BUS_PATH_MANAGER "/org/phcd1"
#define PHCD_BUS_PATH_INSTANCES PHCD_BUS_PATH_MANAGER "/instance" /* + "/" escaped name */
#define PHCD_BUS_PATH_PORTS PHCD_BUS_PATH_MANAGER "/port"	  /* + "/" escaped ifname */

#define PHCD_BUS_IFACE_MANAGER PHCD_BUS_NAME ".Manager"
#define PHCD_BUS_IFACE_INSTANCE PHCD_BUS_NAME ".Instance"
#define PHCD_BUS_IFACE_PORT PHCD_BUS_NAME ".Port"

/* Errors of phcd's own; argument errors use org.freedesktop.DBus.Error.InvalidArgs. */
#define PHCD_BUS_ERROR_NO_SUCH_INTERFACE PHCD_BUS_NAME ".Error.NoSuchInterface"
#define PHCD_BUS_ERROR_NO_SUCH_INSTANCE PHCD_BUS_NAME ".Error.NoSuchInstance"
#define PHCD_BUS_ERROR_INVALID_CONFIG PHCD_BUS_NAME ".Error.InvalidConfig"
#define PHCD_BUS_ERROR_OPERATION_FAILED PHCD_BUS_NAME ".Error.OperationFailed"

/* The polkit action every changing method asks for (units/org.phcd1.policy). */
#define PHCD_BUS_ACTION_MANAGE PHCD_BUS_NAME ".manage"
