// SPDX-License-Identifier: GPL-2.0-or-later
/* A worker's restarts: exponential backoff and the rate limit past which its port gives up. */
#include "daemon/backoff.h"
#include "ptp/types.h"

bool backoff_next(struct backoff *b, const struct daemon_options *d, uint64_t now,
		  uint64_t *delay_usec)
{
	uint64_t delay_ms = d->restart_backoff_initial_ms;
	uint64_t window = (uint64_t) d->restart_limit_interval_sec * USEC_PER_SEC;

	if (now - b->window_start > window) {
		b->window_start = now;
		b->in_window = 0;
	}
	if (b->in_window >= d->restart_limit_burst) {
		b->given_up = true;
		/* until one past the window's end, when the next call starts a fresh one */
		*delay_usec = b->window_start + window + 1 - now;
		return false;
	}
	for (unsigned int k = 0; k < b->in_window && delay_ms < d->restart_backoff_max_ms; k++) {
		delay_ms *= 2;
	}
	if (delay_ms > d->restart_backoff_max_ms) {
		delay_ms = d->restart_backoff_max_ms;
	}
	b->in_window++;
	*delay_usec = delay_ms * USEC_PER_MSEC;
	return true;
}

void backoff_reset(struct backoff *b)
{
	b->in_window = 0;
	b->given_up = false;
}
