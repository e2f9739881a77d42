/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A hash index over an array's positions: open addressing, linear probing, never more than half
 * full. */
#include <errno.h>
#include <stdlib.h>

#include "common/config-index.h"

uint32_t config_index_hash(const char *name, uint64_t salt)
{
	/* FNV-1a, 64 bits, folded: names are short and come from a file, not from the network. */
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ salt;

	for (const unsigned char *p = (const unsigned char *) name; *p; p++) {
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	}
	return (uint32_t) (h ^ (h >> 32));
}

static void put(uint64_t *slots, uint32_t mask, uint64_t v)
{
	uint32_t i = (uint32_t) (v >> 32) & mask;

	while (slots[i]) {
		i = (i + 1) & mask;
	}
	slots[i] = v;
}

int config_index_add(struct config_index *x, uint32_t hash, uint32_t pos)
{
	if (pos == UINT32_MAX) {
		return -ERANGE;
	}
	if ((uint64_t) (x->n + 1) * 2 > (uint64_t) x->mask + 1 || x->mask == 0) {
		uint32_t mask = x->mask ? x->mask * 2 + 1 : 15;
		uint64_t *slots;

		if (mask < x->mask) {
			return -ENOMEM;
		}
		slots = calloc((size_t) mask + 1, sizeof(*slots));
		if (!slots) {
			return -ENOMEM;
		}
		for (uint32_t i = 0; x->mask && i <= x->mask; i++) {
			if (x->slots[i]) {
				put(slots, mask, x->slots[i]);
			}
		}
		free(x->slots);
		x->slots = slots;
		x->mask = mask;
	}
	put(x->slots, x->mask, (uint64_t) hash << 32 | (pos + 1));
	x->n++;
	return 0;
}

bool config_index_next(const struct config_index *x, uint32_t hash, uint32_t *cursor, uint32_t *pos)
{
	if (x->mask == 0) {
		return false;
	}
	/* *cursor: probes done so far. An empty slot ends the probe sequence. */
	for (uint32_t i = (hash + *cursor) & x->mask; *cursor <= x->mask; i = (i + 1) & x->mask) {
		uint64_t v = x->slots[i];

		++*cursor;
		if (!v) {
			*cursor = x->mask + 1;
			return false;
		}
		if ((uint32_t) (v >> 32) == hash) {
			*pos = (uint32_t) v - 1;
			return true;
		}
	}
	return false;
}

void config_index_free(struct config_index *x)
{
	free(x->slots);
	*x = (struct config_index){ 0 };
}
