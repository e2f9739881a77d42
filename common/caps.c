// SPDX-License-Identifier: GPL-2.0-or-later
/* Giving up every privilege for good: see caps.h. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/caps.h"

/*
 * The order is what each step needs, and what it leaves if the next one fails:
 * 1. no_new_privs first: it needs no privilege and cannot be undone, so whatever fails below
 *    (and whatever a caller does next by mistake) no exec regains anything from set-uid bits or
 *    file capabilities.
 * 2. groups and gid while CAP_SETGID is still effective (setresuid takes it away).
 * 3. the bounding set while CAP_SETPCAP is still effective: setresuid() to another uid and
 *    capset() both take it away, after which no bit can be dropped from it. Without CAP_SETPCAP
 *    (phcd.service as user phcd with ambient capabilities) what stays there can never be gained
 *    again: no_new_privs is set and every other set is emptied below.
 * 4. the uid, with CAP_SETUID (lost with it).
 * 5. ambient cleared, then the inheritable, permitted and effective sets emptied: what a
 *    process keeps when it stays root or switched no uid.
 */
int caps_drop_all(bool switch_ids, uid_t uid, gid_t gid)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		return -errno;
	}
	if (switch_ids && (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0)) {
		return -errno;
	}
	/* Up to 63: a newer kernel may know more than these headers (EINVAL ends nothing). */
	for (int cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EPERM) {
				break; /* no CAP_SETPCAP: see 3. above */
			}
			if (errno != EINVAL) {
				return -errno;
			}
		}
	}
	if (switch_ids && setresuid(uid, uid, uid) < 0) {
		return -errno;
	}
	/* EINVAL: a kernel before 4.3, which has no ambient set. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		return -errno;
	}
	if (syscall(SYS_capset, &hdr, data) < 0) {
		return -errno;
	}
	return 0;
}
