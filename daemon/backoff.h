/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A worker's restarts: exponential backoff and the rate limit past which its port gives up. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/config-file.h"

struct backoff {
	uint64_t window_start;	/* CLOCK_MONOTONIC usec where the current window began */
	unsigned int in_window; /* restarts scheduled within it */
	/* past restart_limit_burst: no restart until the window has passed or backoff_reset() */
	bool given_up;
};

/*
 * A worker died at now (CLOCK_MONOTONIC usec): true with the delay before its restart, which is
 * restart_backoff_initial_ms doubled per earlier restart in the window, at most
 * restart_backoff_max_ms; false (and given_up set) when restart_limit_burst restarts already
 * happened within restart_limit_interval_sec, with the delay until that window has passed: then
 * one more try, in a fresh window (a flood that made the worker fail ended meanwhile, or the
 * port gives up again). A window older than the interval starts afresh.
 * Pure: reads d and now, writes only b.
 */
bool backoff_next(struct backoff *b, const struct daemon_options *d, uint64_t now,
		  uint64_t *delay_usec);
/* A fresh start (link up, enable, restart by hand, a reload that changed the port). */
void backoff_reset(struct backoff *b);
