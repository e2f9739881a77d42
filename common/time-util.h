/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's clocks read in the units the programs keep: one helper, not a copy in each file. */
#pragma once

#include <stdint.h>
#include <time.h>

#include "ptp/types.h"

/* The time of clock id in microseconds (CLOCK_MONOTONIC and CLOCK_REALTIME cannot fail). */
static inline uint64_t time_usec(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / (uint64_t) NS_PER_USEC;
}

/* CLOCK_MONOTONIC in microseconds: the supervisor's and phcctl's timestamps of events. */
static inline uint64_t time_mono_usec(void)
{
	return time_usec(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC in nanoseconds: rate limits and log suppression windows. */
static inline ns_t time_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}
