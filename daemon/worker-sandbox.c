// SPDX-License-Identifier: GPL-2.0-or-later
/* The worker's sandbox as the supervisor builds it between fork and exec: see worker-sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/*
 * WORKER_USER through NSS (/etc/passwd, then what nsswitch.conf names: libnss_systemd and the
 * libraries it maps, 170-320 kB resident), looked up in a child that exits: the modules load there,
 * never in the supervisor, which runs for months. 1 found, 0 not; in this process when no child
 * can be made.
 */
static int lookup_worker_user(uid_t *ret_uid, gid_t *ret_gid)
{
	struct {
		int found;
		uid_t uid;
		gid_t gid;
	} a = { 0 };
	const struct passwd *pw;
	int fds[2], status;
	ssize_t n = -1;
	pid_t pid = -1;

	if (pipe2(fds, O_CLOEXEC) == 0) {
		pid = fork();
		if (pid < 0) {
			close(fds[0]);
			close(fds[1]);
		}
	}
	if (pid == 0) {
		close(fds[0]);
		pw = getpwnam(WORKER_USER);
		if (pw) {
			a.found = 1;
			a.uid = pw->pw_uid;
			a.gid = pw->pw_gid;
		}
		_exit(write(fds[1], &a, sizeof(a)) == (ssize_t) sizeof(a) ? 0 : 1);
	}
	if (pid > 0) {
		close(fds[1]);
		do {
			n = read(fds[0], &a, sizeof(a));
		} while (n < 0 && errno == EINTR);
		close(fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
		}
	}
	if (n != (ssize_t) sizeof(a)) {
		pw = getpwnam(WORKER_USER);
		a.found = pw != NULL;
		a.uid = pw ? pw->pw_uid : 0;
		a.gid = pw ? pw->pw_gid : 0;
	}
	*ret_uid = a.uid;
	*ret_gid = a.gid;
	return a.found;
}

void worker_identity_resolve(struct worker_identity *ret)
{
	uid_t uid = 0;
	gid_t gid = 0;
	bool found;

	*ret = (struct worker_identity){ 0 };
	if (!have_caps(CAP_SETUID, CAP_SETGID)) {
		log_notice(
			"workers run as uid %u, phcd's own: no CAP_SETUID and CAP_SETGID to give "
			"them user %s",
			(unsigned int) geteuid(), WORKER_USER);
		return;
	}
	ret->switch_ids = true;
	found = lookup_worker_user(&uid, &gid) > 0;
	if (found && uid != 0 && gid != 0) {
		ret->uid = uid;
		ret->gid = gid;
		log_debug("workers run as user %s (uid %u, gid %u)", WORKER_USER,
			  (unsigned int) ret->uid, (unsigned int) ret->gid);
		return;
	}
	ret->uid = WORKER_FALLBACK_ID;
	ret->gid = WORKER_FALLBACK_ID;
	log_warning("no user %s%s (units/sysusers-phcd.conf, systemd-sysusers): workers run as "
		    "uid and gid %u (nobody), shared with other programs that use it",
		    WORKER_USER, found ? " of its own (it is root's)" : "", WORKER_FALLBACK_ID);
}

int worker_sandbox_enter(const struct worker_identity *id)
{
	return caps_drop_all(id->switch_ids, id->uid, id->gid);
}
