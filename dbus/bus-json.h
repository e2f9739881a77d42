/* SPDX-License-Identifier: GPL-2.0-or-later */
/* D-Bus values as JSON: for Describe() in the daemon and for phcctl --json. */
#pragma once

#include <stdio.h>
#include <systemd/sd-bus.h>

/* A JSON string literal with the escapes RFC 8259 requires (non-ASCII bytes pass through). */
void bus_json_string(FILE *f, const char *s);

/*
 * Read the next value, of basic integer type (y b n q i u x t h), as an int64 (a t above
 * INT64_MAX wraps). -EINVAL for any other type, -ENXIO at the end of the container.
 */
int bus_read_integer(sd_bus_message *m, char type, int64_t *ret);

/*
 * Read the next complete value of m and write it as compact JSON: a dictionary with a basic key
 * type (a{sv}, a{st}, a{oa{sa{sv}}}) becomes an object, other arrays and structs become arrays, a
 * variant its content, strings, object paths and signatures strings, numbers numbers (a double
 * that is not finite becomes null), booleans booleans. -ENXIO at the end of the container,
 * other -errno from sd-bus on a malformed message.
 */
int bus_json_write_value(sd_bus_message *m, FILE *f);
