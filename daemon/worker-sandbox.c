// SPDX-License-Identifier: GPL-2.0-or-later
/* The worker's sandbox as the supervisor builds it between fork and exec: see worker-sandbox.h. */
#include <errno.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/log.h"
#include "daemon/worker-sandbox.h"

static bool have_caps(unsigned int a, unsigned int b)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, data) < 0) {
		return false;
	}
	return (data[CAP_TO_INDEX(a)].effective & CAP_TO_MASK(a)) &&
	       (data[CAP_TO_INDEX(b)].effective & CAP_TO_MASK(b));
}

void worker_identity_resolve(struct worker_identity *ret)
{
	const struct passwd *pw = getpwnam(WORKER_USER);

	*ret = (struct worker_identity){ 0 };
	if (!have_caps(CAP_SETUID, CAP_SETGID)) {
		log_notice(
			"workers run as uid %u, phcd's own: no CAP_SETUID and CAP_SETGID to give "
			"them user %s",
			(unsigned int) geteuid(), WORKER_USER);
		return;
	}
	ret->switch_ids = true;
	if (pw && pw->pw_uid != 0 && pw->pw_gid != 0) {
		ret->uid = pw->pw_uid;
		ret->gid = pw->pw_gid;
		log_debug("workers run as user %s (uid %u, gid %u)", WORKER_USER,
			  (unsigned int) ret->uid, (unsigned int) ret->gid);
		return;
	}
	ret->uid = WORKER_FALLBACK_ID;
	ret->gid = WORKER_FALLBACK_ID;
	log_warning("no user %s%s (units/sysusers-phcd.conf, systemd-sysusers): workers run as "
		    "uid and gid %u (nobody), shared with other programs that use it",
		    WORKER_USER, pw ? " of its own (it is root's)" : "", WORKER_FALLBACK_ID);
}

int worker_sandbox_enter(const struct worker_identity *id)
{
	return caps_drop_all(id->switch_ids, id->uid, id->gid);
}
