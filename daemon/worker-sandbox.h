/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker's sandbox as the supervisor builds it between fork and exec (docs/security.md, "The
 * worker sandbox"): its own uid and gid, no capability in any set (bounding and ambient
 * included), no_new_privs, a fixed environment, and only the fds it is given.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* The user workers run as (units/sysusers-phcd.conf); nobody (65534) when it does not exist. */
#define WORKER_USER "phcd-worker"
#define WORKER_FALLBACK_ID 65534

struct worker_identity {
	bool switch_ids; /* false: the worker keeps the supervisor's uid and gid */
	uid_t uid;
	gid_t gid;
};

/*
 * Decide once, at start, whom workers run as: WORKER_USER when it exists and phcd may change
 * uids (root, or CAP_SETUID and CAP_SETGID); as root without that user, 65534 with a warning;
 * without the right to change uids, the supervisor's own (a notice says so).
 */
void worker_identity_resolve(struct worker_identity *ret);

/*
 * In the child after fork, before exec: only async-signal-safe calls. caps_drop_all()
 * (common/caps.h) with the identity (when switch_ids): no_new_privs, groups, gid, bounding set
 * (where CAP_SETPCAP allows), uid, then every other capability set emptied.
 * Returns 0 or -errno; the caller then does not exec.
 */
int worker_sandbox_enter(const struct worker_identity *id);
