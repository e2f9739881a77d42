// SPDX-License-Identifier: GPL-2.0-or-later
/* How many Management messages from the network a worker takes: token buckets per source MAC. */
#include <string.h>

#include "worker/mgmt-rate.h"

/* The source's entry: found, a free one, or the one heard from least recently, taken over. */
static struct mgmt_rate_source *source(struct mgmt_rate *r, const uint8_t addr[MGMT_RATE_ADDR_LEN],
				       ns_t now)
{
	struct mgmt_rate_source *free_slot = NULL, *lru = NULL;

	for (size_t i = 0; i < MGMT_RATE_SOURCES; i++) {
		struct mgmt_rate_source *s = &r->src[i];

		if (!s->used) {
			if (!free_slot) {
				free_slot = s;
			}
		} else if (memcmp(s->addr, addr, MGMT_RATE_ADDR_LEN) == 0) {
			return s;
		} else if (!lru || s->bucket.last < lru->bucket.last) {
			lru = s;
		}
	}
	struct mgmt_rate_source *s = free_slot ? free_slot : lru;

	*s = (struct mgmt_rate_source){
		.used = true,
		.bucket = { .tokens = MGMT_RATE_PER_SOURCE_BURST, .last = now },
	};
	memcpy(s->addr, addr, MGMT_RATE_ADDR_LEN);
	return s;
}

bool mgmt_rate_allow(struct mgmt_rate *r, const uint8_t addr[MGMT_RATE_ADDR_LEN], ns_t now)
{
	struct mgmt_rate_source *s;

	if (!r->started) {
		r->started = true;
		r->total = (struct token_bucket){ .tokens = MGMT_RATE_TOTAL_BURST, .last = now };
	}
	s = source(r, addr, now);
	token_bucket_refill(&s->bucket, MGMT_RATE_PER_SOURCE, MGMT_RATE_PER_SOURCE_BURST, now);
	token_bucket_refill(&r->total, MGMT_RATE_TOTAL, MGMT_RATE_TOTAL_BURST, now);
	if (s->bucket.tokens < 1.0 || r->total.tokens < 1.0) {
		return false;
	}
	s->bucket.tokens -= 1.0;
	r->total.tokens -= 1.0;
	return true;
}
