/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hash index over an array's positions, so that finding a section by name costs the same with
 * one section or with CONFIG_SECTIONS_MAX (the loader looked every header up in a list: 40,000
 * sections took 7.7 s). The array holds the names; the index only their hashes and positions.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct config_index {
	uint64_t *slots; /* hash << 32 | (position + 1); 0: empty */
	uint32_t mask;	 /* number of slots - 1, a power of two; 0: none yet */
	uint32_t n;
};

/* The hash of name, salted (0: none) to tell apart equal names of different owners. */
uint32_t config_index_hash(const char *name, uint64_t salt);
/* Add position pos under hash. -ENOMEM. */
int config_index_add(struct config_index *x, uint32_t hash, uint32_t pos);
/*
 * The positions added under hash, one per call: *cursor 0 to start. False when there is no more.
 * The caller compares the names (different names may share a hash).
 */
bool config_index_next(const struct config_index *x, uint32_t hash, uint32_t *cursor,
		       uint32_t *pos);
void config_index_free(struct config_index *x);
