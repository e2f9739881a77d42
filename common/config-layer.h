/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What one section of a configuration wrote: its keys' values, which keys, and where. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptp/options.h"
#include "ptp/util.h"

/* Upper bound of table keys: one bit per key in a layer's "set" mask. */
#define CONFIG_KEYS_MAX 192

/* Keys of the supervisor itself: valid in [global] only. */
struct daemon_options {
	int32_t logging_level; /* syslog priority, as ptp4l's logging_level */
	char system_clock_instance[OPTIONS_NAME_MAX]; /* instance steering CLOCK_REALTIME; "" = none
						       */
	uint32_t restart_limit_burst;		      /* worker restarts allowed per interval ... */
	uint32_t restart_limit_interval_sec;	      /* ... after which the port stays FAULTY */
	uint32_t restart_backoff_initial_ms;
	uint32_t restart_backoff_max_ms;
	uint32_t polkit_max_pending;		/* polkit checks in flight, all callers ... */
	uint32_t polkit_max_pending_per_caller; /* ... and one D-Bus sender */
};

/* Where a section or a key came from, for "file:line:" messages. */
struct config_pos {
	uint32_t file; /* index into config.files */
	uint32_t line;
};

/*
 * What one section wrote: the values of the keys it set and a bit per table key saying which.
 * Resolution applies layers in order, copying only the set keys: defaults <- [global] <-
 * [instance NAME] <- [interface IFNAME].
 */
struct config_layer {
	struct daemon_options daemon;
	struct instance_options instance;
	struct port_options port;
	uint64_t set[CONFIG_KEYS_MAX / 64];
	struct config_pos set_at[CONFIG_KEYS_MAX];
	struct config_pos section; /* first header of this section */
	struct config_pos last;	   /* its latest header: a later file may amend the section */
};

/* Did layer l set table key number i (config_keys_index())? */
static inline bool config_layer_is_set(const struct config_layer *l, size_t i)
{
	return (l->set[i / 64] >> (i % 64)) & 1;
}

static inline void config_layer_mark_set(struct config_layer *l, size_t i)
{
	l->set[i / 64] |= UINT64_C(1) << (i % 64);
}

/* An empty layer whose section header is at pos. */
static inline void config_layer_init(struct config_layer *l, struct config_pos pos)
{
	memset(l, 0, sizeof(*l));
	l->section = pos;
	l->last = pos;
}
