/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Health of an instance and of the daemon: pure functions of the state they are given. */
#pragma once

#include "daemon/model.h"

/* Raise the level to at least `level` and add a reason (the last slot says how many did not fit).
 */
void health_add(struct health_report *h, enum health level, const char *code, const char *fmt, ...)
	_printf_(4, 5);
/* The reasons users see: at most HEALTH_REASONS_MAX (the last counts what did not fit). */
size_t health_reasons_shown(const struct health_report *h);
bool health_equal(const struct health_report *a, const struct health_report *b);
/*
 * A reason's code and sentence as one 64-bit hash (FNV-1a): what derive.c keeps of the reasons it
 * logged, so that a changed sentence is logged again (two reasons sharing a hash, one chance in
 * 2^64, would leave one line out of the journal, never out of D-Bus).
 */
uint64_t health_reason_hash(const struct health_reason *r);
/*
 * Keep h as an instance's health: *kept replaced by a copy of its reasons only, or NULL when h is
 * ok without a reason. 0, or -ENOMEM with *kept unchanged.
 */
int health_keep(struct health_kept **kept, const struct health_report *h);
/* Why an interface the configuration names is not a port ("not present", "is a loopback ..."). */
typedef const char *(*health_why_not_port_fn)(void *ctx, const char *ifname);
/*
 * Is chronyd the servo of instance i? clock_servo refclock_sock with a SLAVE (or UNCALIBRATED)
 * port whose software timestamps are CLOCK_REALTIME's (clock_backend system or free_running):
 * phcd runs no servo for it (ptp/steer.c measures only), so the instance is never Synchronized;
 * its feed of chronyd says whether its time gets anywhere (refclock_feed_health), not "not
 * synchronized yet".
 */
bool health_chronyd_servo(const struct instance *i, struct mport *const *ports, size_t n);
/*
 * The health of instance i from its own fields and its ports (ports[0..n), all of them i's),
 * and whether it is the grandmaster of its domain (*ret_gm). why_not_port (NULL: "not present")
 * words each interface named in interfaces that is not a port.
 */
void health_instance(const struct instance *i, struct mport *const *ports, size_t n,
		     health_why_not_port_fn why_not_port, void *ctx, struct health_report *ret,
		     bool *ret_gm);
/*
 * The daemon's health: the worst of its instances' (their reasons prefixed with "instance
 * NAME: ") and the system clock's (conflict "" unless another program steers it;
 * system_clock_instance "" unless phcd steers it).
 */
void health_daemon(struct instance *const *instances, size_t n, const char *conflict,
		   const char *system_clock_instance, bool system_clock_synchronized,
		   struct health_report *ret);
