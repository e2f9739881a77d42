/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A token bucket (a rate with bursts), for the limits that count what a peer sends. Pure. */
#pragma once

#include "ptp/types.h"

struct token_bucket {
	double tokens;
	ns_t last; /* when tokens was last brought up to date */
};

/* Full: burst tokens at now. */
static inline void token_bucket_fill(struct token_bucket *b, double burst, ns_t now)
{
	*b = (struct token_bucket){ .tokens = burst, .last = now };
}

/* Brought up to now at rate tokens a second, at most burst; a time going back adds none. */
static inline void token_bucket_refill(struct token_bucket *b, double rate, double burst, ns_t now)
{
	if (now > b->last) {
		b->tokens += rate * (double) (now - b->last) / (double) NS_PER_SEC;
		if (b->tokens > burst) {
			b->tokens = burst;
		}
	}
	b->last = now;
}

/* Refilled, then one token taken if there is one: false when the bucket is dry. */
static inline bool token_bucket_take(struct token_bucket *b, double rate, double burst, ns_t now)
{
	token_bucket_refill(b, rate, burst, now);
	if (b->tokens < 1.0) {
		return false;
	}
	b->tokens -= 1.0;
	return true;
}
