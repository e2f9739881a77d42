// SPDX-License-Identifier: GPL-2.0-or-later
/* common/caps.c: after caps_drop_all() a process holds no capability in any set, for good. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/caps.h"

/* In the child: what is left, as a bit per finding (0: nothing left). */
static int leftover(bool switched, uid_t id, bool setpcap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uid_t r, e, s;
	gid_t gr, ge, gs;
	int bad = 0;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		bad |= 1;
	}
	if (syscall(SYS_capget, &hdr, data) < 0) {
		return 2;
	}
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		if (data[i].effective || data[i].permitted || data[i].inheritable) {
			bad |= 4;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_TIME, 0, 0) == 1) {
		bad |= 8;
	}
	/* Started with CAP_SETPCAP: the bounding set is empty too. */
	if (setpcap && prctl(PR_CAPBSET_READ, CAP_SYS_TIME, 0, 0, 0) == 1) {
		bad |= 16;
	}
	if (switched) {
		if (getresuid(&r, &e, &s) < 0 || r != id || e != id || s != id ||
		    getresgid(&gr, &ge, &gs) < 0 || gr != id || ge != id || gs != id ||
		    getgroups(0, NULL) != 0) {
			bad |= 32;
		}
	}
	return bad;
}

/* Does this process hold CAP_SETPCAP (root, unless the test runner dropped it)? */
static bool have_setpcap(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	return syscall(SYS_capget, &hdr, data) == 0 &&
	       (data[CAP_TO_INDEX(CAP_SETPCAP)].effective & CAP_TO_MASK(CAP_SETPCAP));
}

static int run_child(bool switch_ids, uid_t id)
{
	bool setpcap = have_setpcap();
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int r = caps_drop_all(switch_ids, id, id);

		_exit(r < 0 ? 64 : leftover(switch_ids, id, setpcap));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_drop_keeping_ids(void **state)
{
	assert_int_equal(run_child(false, 0), 0);
}

static void test_drop_switching_ids(void **state)
{
	if (geteuid() != 0) {
		skip(); /* only root may take another uid */
	}
	assert_int_equal(run_child(true, 65534), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_keeping_ids),
		cmocka_unit_test(test_drop_switching_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
