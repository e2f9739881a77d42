/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * time_source = system: CLOCK_REALTIME as a grandmaster's reference, its quality the kernel's sync
 * state (adjtimex modes 0: STA_UNSYNC, maxerror, the TAI offset and leap bits) as chronyd, ntpd or
 * timesyncd leave it. Read only: nothing here writes the clock.
 */
#pragma once

#include <sys/timex.h>
#include <systemd/sd-event.h>

#include "daemon/sysclock.h"
#include "daemon/time-source.h"

/* The kernel's own bound (NTP_PHASE_LIMIT): beyond 16 s of maxerror it marks the clock unsynced. */
#define TIME_SOURCE_SYSTEM_MAXERROR_LIMIT_US 16000000L
/* How often the kernel's state is read. */
#define TIME_SOURCE_SYSTEM_PERIOD_USEC 1000000ULL

struct time_source_system;

/*
 * Pure: the report for one adjtimex read (tx, and state its return: TIME_OK... or -errno) taken at
 * at_usec (CLOCK_MONOTONIC) and realtime_ns (CLOCK_REALTIME).
 */
void time_source_system_judge(const struct timex *tx, int state, uint64_t at_usec,
			      int64_t realtime_ns, struct time_source_report *ret);

/*
 * Read the kernel's state through ops (sysclock_linux_ops: clock_adjtime(CLOCK_REALTIME) with
 * modes 0) at once and every TIME_SOURCE_SYSTEM_PERIOD_USEC on e, reporting each read to cb.
 */
int time_source_system_new(sd_event *e, const struct sysclock_ops *ops, void *ops_userdata,
			   void (*cb)(const struct time_source_report *r, void *userdata),
			   void *userdata, struct time_source_system **ret);
struct time_source_system *time_source_system_free(struct time_source_system *s);
