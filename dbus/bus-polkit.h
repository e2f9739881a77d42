/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Authorization of mutating D-Bus methods: root at once, anyone else through an async polkit check.
 */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

#include "ptp/util.h"

struct bus_polkit;

int bus_polkit_new(struct bus_polkit **ret);
/* Cancels the checks still in flight; their callers get no reply (the bus is going away). */
struct bus_polkit *bus_polkit_free(struct bus_polkit *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct bus_polkit *, bus_polkit_free);

/*
 * May the sender of the method call m perform action? Call it from the method handler after the
 * arguments are read and validated, before anything changes:
 *   1  authorized: go on and apply;
 *   0  a polkit check is in flight: return 1 from the handler without replying; when polkit
 *      answers, m is dispatched again and this call returns the answer (the handler runs twice,
 *      so everything before this call must be free of side effects);
 *  <0  refused or failed, with error set (org.freedesktop.DBus.Error.AccessDenied, or
 *      InteractiveAuthorizationRequired): return it from the handler.
 * Root (uid 0, as the bus driver reports it) is always authorized and never asks polkit. Without
 * polkit on the bus, everyone else is refused.
 */
int bus_polkit_verify(struct bus_polkit *p, sd_bus_message *m, const char *action,
		      sd_bus_error *error);

/*
 * At most total checks in flight, and per_caller for one caller's uid, whatever number of
 * connections it uses (polkit_max_pending and polkit_max_pending_per_caller): a call beyond either
 * is answered at once with org.freedesktop.DBus.Error.LimitsExceeded, without asking polkit, so
 * that no caller can fill phcd's pending replies at the bus daemon (128 per connection by default)
 * and starve the others. Defaults 32 and 4 until set.
 */
void bus_polkit_set_limits(struct bus_polkit *p, size_t total, size_t per_caller);

/*
 * The object at path went away: its calls waiting for polkit get UnknownObject now (polkit's
 * late answer is dropped), and answers not yet taken are freed.
 */
void bus_polkit_forget_path(struct bus_polkit *p, const char *path);

/* Queries in flight or answered and not yet taken (tests watch it return to 0). */
size_t bus_polkit_pending(const struct bus_polkit *p);
