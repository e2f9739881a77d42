// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of worker/sandbox.c: how the worker's seccomp filter treats the ways to send. Each
 * case loads the filter into a child of its own (no_new_privs, no privilege needed) and reports
 * with its exit status; the parent asserts. A worker may send only without a destination address
 * (sendto with dest_addr NULL, write), so a packet socket sends out of the interface it is bound
 * to and nowhere else: sendmsg and sendmmsg (whose msg_name seccomp cannot read) and sendto with
 * an address fail with EPERM. The IPC path (ipc_send without fds) still works under the filter.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ipc.h"
#include "worker/sandbox.h"

enum outcome {
	SENT = 10,
	REFUSED_EPERM,
	FAILED_OTHERWISE,
	NO_FILTER
};

static int sv[2];

/* No address at all: refused too (seccomp cannot tell the two apart). */
static int try_sendmsg(void)
{
	struct iovec iov = { "x", 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return (int) sendmsg(sv[0], &msg, 0);
}

static int try_sendmsg_addr(void)
{
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	struct iovec iov = { "x", 1 };
	struct msghdr msg = { .msg_name = &to,
			      .msg_namelen = sizeof(sa_family_t),
			      .msg_iov = &iov,
			      .msg_iovlen = 1 };

	return (int) sendmsg(sv[0], &msg, 0);
}

static int try_sendmmsg(void)
{
	struct iovec iov = { "x", 1 };
	struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };

	return sendmmsg(sv[0], &mm, 1, 0);
}

static int try_sendto_addr(void)
{
	struct sockaddr_un to = { .sun_family = AF_UNIX };

	return (int) sendto(sv[0], "x", 1, 0, (struct sockaddr *) &to, sizeof(sa_family_t));
}

static int try_sendto_null(void)
{
	return (int) sendto(sv[0], "x", 1, 0, NULL, 0);
}

static int try_send(void)
{
	return (int) send(sv[0], "x", 1, 0);
}

static int try_write(void)
{
	return (int) write(sv[0], "x", 1);
}

/* What a worker sends the supervisor: a message without fds. */
static int try_ipc_send(void)
{
	struct ipc_msg m = { .type = IPC_HELLO };

	m.hello.protocol_version = IPC_VERSION;
	return ipc_send(sv[0], &m, NULL, 0) < 0 ? -1 : 0;
}

static enum outcome run(int (*fn)(void))
{
	int status;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    sandbox_build_and_install("test") < 0) {
			_exit(NO_FILTER);
		}
		errno = 0;
		r = fn();
		_exit(r >= 0 ? SENT : errno == EPERM ? REFUSED_EPERM : FAILED_OTHERWISE);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(sv[0]);
	close(sv[1]);
	assert_true(WIFEXITED(status));
	return (enum outcome) WEXITSTATUS(status);
}

static void test_addressed_sends_refused(void **state)
{
	(void) state;
	assert_int_equal(run(try_sendmsg), REFUSED_EPERM);
	assert_int_equal(run(try_sendmsg_addr), REFUSED_EPERM);
	assert_int_equal(run(try_sendmmsg), REFUSED_EPERM);
	assert_int_equal(run(try_sendto_addr), REFUSED_EPERM);
}

static void test_unaddressed_sends_allowed(void **state)
{
	(void) state;
	assert_int_equal(run(try_sendto_null), SENT);
	assert_int_equal(run(try_send), SENT);
	assert_int_equal(run(try_write), SENT);
	assert_int_equal(run(try_ipc_send), SENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addressed_sends_refused),
		cmocka_unit_test(test_unaddressed_sends_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
