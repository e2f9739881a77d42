/* SPDX-License-Identifier: GPL-2.0-or-later */
/* instance-source.c: a grandmaster's own time source (time_source) followed by its instance. */
#pragma once

#include "daemon/extts-pair.h"
#include "daemon/model.h"

/*
 * Open, reopen or close the instance's time source as its options say (at start and after a
 * reload; without an event loop, as in unit tests, nothing is opened). Its reports land in
 * i->reference and mark INSTANCE_CHANGED_REFERENCE.
 */
void instance_source_update(struct instance *i);
void instance_source_free(struct instance *i);

/*
 * A report from the instance's source (the sources' callback; tests call it): i->reference, the
 * UTC offset and leap flags checked against the leapfile, the virtual clock kept.
 */
void instance_source_report(struct instance *i, const struct time_source_report *r);

/*
 * gpsd's newest TPV with a fix and a time (time_source gnss, connected), for a PHC pin's edges.
 * False: none.
 */
bool instance_source_tpv(const struct instance *i, struct extts_tpv *ret);
/* The PHC pin's state changed (an edge, its loss, enabled or refused): gpsd's last report judged
 * again (instance_pin_judge). */
void instance_source_pin_changed(struct instance *i);

/*
 * The instance's clock is on its reference now: no port follows a master, and the clock is
 * CLOCK_REALTIME itself (software timestamps, clock_backend system or free_running), a virtual
 * view kept on it within the last TIME_SOURCE_KEPT_USEC, or PHCs locked to it (phc-follow.c).
 * *ret_why: why not (static text).
 */
bool instance_source_locked(const struct instance *i, const char **ret_why);

/* A report older than this is no reference (gpsd and the kernel's state come once a second). */
#define TIME_SOURCE_STALE_USEC (3 * 1000000ULL)
#define TIME_SOURCE_KEPT_USEC (3 * 1000000ULL)
