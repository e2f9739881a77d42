/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Giving up every privilege for good: the one capability drop of phcd's programs. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * no_new_privs set; with switch_ids, supplementary groups cleared and gid then uid taken; the
 * bounding set emptied (as far as CAP_SETPCAP allows); the ambient, inheritable, permitted and
 * effective sets emptied. Async-signal-safe (the supervisor's child calls it between fork and
 * exec). 0 or -errno; on failure the caller must not go on (exit, or not exec).
 */
int caps_drop_all(bool switch_ids, uid_t uid, gid_t gid);
