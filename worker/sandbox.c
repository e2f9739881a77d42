// SPDX-License-Identifier: GPL-2.0-or-later
/* The worker's seccomp filter, built by the supervisor, installed: see sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ptp/util.h"
#include "worker/sandbox.h"

static const char *sigsys_ifname = "";

/* Async-signal-safe: the number of the refused call on stderr, then die of SIGSYS. */
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	char num[16], *p = num + sizeof(num);
	unsigned int n = (unsigned int) si->si_syscall;
	const char *parts[] = { "<3>phcd-port: ", sigsys_ifname, ": seccomp: system call ", NULL,
				" is not on the worker's allow-list, exiting\n" };

	do {
		*--p = (char) ('0' + n % 10);
		n /= 10;
	} while (n && p > num);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		const char *s = parts[i] ? parts[i] : p;
		size_t len = parts[i] ? strlen(s) : (size_t) (num + sizeof(num) - p);

		(void) !write(STDERR_FILENO, s, len);
	}
	/* SA_RESETHAND|SA_NODEFER: SIGSYS is back to its default action and not blocked. */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGSYS);
	_exit(128 + SIGSYS);
}

static int install(const char *ifname, int fd)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER };
	struct sock_fprog prog;
	struct stat st;
	void *p;
	int r = 0;

	/* Sealed: the supervisor finished writing it (common/sandbox-filter.h). */
	if (fcntl(fd, F_GET_SEALS) != (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		return -EBADMSG;
	}
	if (fstat(fd, &st) < 0) {
		return -errno;
	}
	/* A program of 1 to BPF_MAXINSNS instructions, or not what the supervisor wrote. */
	if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
	    st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		return -EBADMSG;
	}
	sigsys_ifname = ifname;
	if (sigaction(SIGSYS, &sa, NULL) < 0) {
		return -errno;
	}
	/* Mapped, not read into the heap: nothing of it stays once it is installed. */
	p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		return -errno;
	}
	prog = (struct sock_fprog){
		.len = (unsigned short) (st.st_size / sizeof(struct sock_filter)), .filter = p
	};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		r = -errno;
	}
	munmap(p, (size_t) st.st_size);
	return r;
}

int sandbox_install(const char *ifname, int fd)
{
	int r = install(ifname, fd);

	close(fd);
	return r;
}
