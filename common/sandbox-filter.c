/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The worker's seccomp allow-list, built by the supervisor (libseccomp): see sandbox-filter.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "common/sandbox-filter.h"
#include "ptp/util.h"

#ifdef PHCD_SANITIZER_BUILD
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* What the loop calls (strace -f of SLAVE, MASTER, P2P and management runs), and libc with it. */
static const int allowed[] = {
	SCMP_SYS(read),
	SCMP_SYS(write),
	SCMP_SYS(readv),
	SCMP_SYS(writev),
	SCMP_SYS(close),
	SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait),
	SCMP_SYS(epoll_ctl),
	SCMP_SYS(poll),
	SCMP_SYS(ppoll),
	SCMP_SYS(timerfd_settime),
	SCMP_SYS(timerfd_gettime),
	SCMP_SYS(recvmsg),
	SCMP_SYS(recvmmsg),
	SCMP_SYS(recvfrom),
	SCMP_SYS(getsockopt),
	SCMP_SYS(getsockname),
	SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_getres),
	SCMP_SYS(clock_adjtime), /* the PHC, through the fd the supervisor opened */
	SCMP_SYS(clock_nanosleep),
	SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday),
	SCMP_SYS(time),
	SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	SCMP_SYS(getppid),
	SCMP_SYS(getuid),
	SCMP_SYS(geteuid),
	SCMP_SYS(getgid),
	SCMP_SYS(getegid),
	SCMP_SYS(getrandom),
	SCMP_SYS(brk),
	SCMP_SYS(munmap),
	SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	SCMP_SYS(futex),
	SCMP_SYS(fcntl),
	SCMP_SYS(fstat),
	SCMP_SYS(newfstatat),
	SCMP_SYS(lseek),
	SCMP_SYS(rt_sigreturn),
	SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigaction),
	SCMP_SYS(sigaltstack),
	SCMP_SYS(restart_syscall),
	SCMP_SYS(sched_yield),
	SCMP_SYS(exit),
	SCMP_SYS(exit_group),
};

/*
 * Refused with EPERM whatever their arguments: the network and other processes. sendmsg and
 * sendmmsg carry a destination (msg_name) behind a pointer that seccomp cannot read: a
 * sockaddr_ll there names any interface of the namespace. The worker sends with sendto()
 * and no address instead (below), out of the interface its sockets are bound to.
 */
static const int refused[] = {
	SCMP_SYS(socket),     SCMP_SYS(socketpair),  SCMP_SYS(bind),
	SCMP_SYS(connect),    SCMP_SYS(listen),	     SCMP_SYS(accept),
	SCMP_SYS(accept4),    SCMP_SYS(setsockopt),  SCMP_SYS(pidfd_send_signal),
	SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(sendmsg),
	SCMP_SYS(sendmmsg),
};

/* Refused with EPERM, except in a sanitizer build (LeakSanitizer and its report files). */
static const int refused_unless_sanitized[] = {
	SCMP_SYS(ptrace),
	SCMP_SYS(process_vm_readv),
	SCMP_SYS(process_vm_writev),
	SCMP_SYS(creat),
};

/* The ioctl requests a port makes: interface and PHC queries, none that sets anything. */
static const unsigned long ioctls[] = {
	SIOCGIFHWADDR,
	SIOCGIFNAME,
	SIOCGIFINDEX,
	SIOCETHTOOL,
	FIONREAD,
	SIOCGHWTSTAMP,
	TCGETS,
	PTP_CLOCK_GETCAPS,
	PTP_SYS_OFFSET,
	PTP_SYS_OFFSET_PRECISE,
	PTP_SYS_OFFSET_EXTENDED,
};

/* What a call not on the list gets: SIGSYS, or in a sanitizer build everything allowed. */
#define DEFAULT_ACTION (SANITIZED ? SCMP_ACT_ALLOW : SCMP_ACT_TRAP)

static int add_all(scmp_filter_ctx ctx, uint32_t action, const int *nrs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/*
		 * A call this architecture lacks (libseccomp says so with a negative number), or a
		 * rule that says what the default says (libseccomp refuses it with EACCES).
		 */
		if (nrs[i] < 0 || action == DEFAULT_ACTION) {
			continue;
		}
		int r = seccomp_rule_add(ctx, action, nrs[i], 0);

		if (r < 0) {
			return r;
		}
	}
	return 0;
}

/* One rule with one argument condition; skipped as in add_all(). */
static int rule1(scmp_filter_ctx ctx, uint32_t action, int nr, struct scmp_arg_cmp cmp)
{
	return nr < 0 || action == DEFAULT_ACTION
		       ? 0
		       : seccomp_rule_add_array(ctx, action, nr, 1, &cmp);
}

static int add_rules(scmp_filter_ctx ctx, pid_t self)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	/* Any of these in the flags opens for writing (O_WRONLY, O_RDWR) or makes a file. */
	const uint64_t wmask = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE;
	const uint64_t wflags[] = { O_WRONLY, O_RDWR,	O_ACCMODE,  O_CREAT,
				    O_TRUNC,  O_APPEND, __O_TMPFILE };
	int r;

	r = add_all(ctx, SCMP_ACT_ALLOW, allowed, ARRAY_SIZE(allowed));
	if (r >= 0) {
		r = add_all(ctx, eperm, refused, ARRAY_SIZE(refused));
	}
	if (r >= 0) {
		r = add_all(ctx, SANITIZED ? SCMP_ACT_ALLOW : eperm, refused_unless_sanitized,
			    ARRAY_SIZE(refused_unless_sanitized));
	}
	/* Signals: to itself only (raise(), abort()). */
	for (int k = 0; r >= 0 && k < 3; k++) {
		static const int calls[] = { SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(tkill) };

		/* tkill names a thread: the one thread has the process's id. */
		r = rule1(ctx, SCMP_ACT_ALLOW, calls[k], SCMP_A0(SCMP_CMP_EQ, (uint64_t) self));
		if (r >= 0) {
			r = rule1(ctx, eperm, calls[k], SCMP_A0(SCMP_CMP_NE, (uint64_t) self));
		}
	}
	/* sendto() without a destination address only (dest_addr, the fifth argument, NULL). */
	if (r >= 0) {
		r = rule1(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), SCMP_A4(SCMP_CMP_EQ, 0));
	}
	if (r >= 0) {
		r = rule1(ctx, eperm, SCMP_SYS(sendto), SCMP_A4(SCMP_CMP_NE, 0));
	}
	/* Files: read-only opens pass; any write flag is refused. */
	if (r >= 0) {
		r = rule1(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat),
			  SCMP_A2(SCMP_CMP_MASKED_EQ, wmask, 0));
	}
	if (r >= 0) {
		r = rule1(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open),
			  SCMP_A1(SCMP_CMP_MASKED_EQ, wmask, 0));
	}
	for (size_t k = 0; r >= 0 && !SANITIZED && k < ARRAY_SIZE(wflags); k++) {
		uint64_t m = wflags[k] == O_WRONLY || wflags[k] == O_RDWR ? O_ACCMODE : wflags[k];

		r = rule1(ctx, eperm, SCMP_SYS(openat), SCMP_A2(SCMP_CMP_MASKED_EQ, m, wflags[k]));
		if (r >= 0) {
			r = rule1(ctx, eperm, SCMP_SYS(open),
				  SCMP_A1(SCMP_CMP_MASKED_EQ, m, wflags[k]));
		}
	}
	/* Memory: never executable (the binary and its libraries are mapped already). */
	for (int k = 0; r >= 0 && k < 2; k++) {
		static const int calls[] = { SCMP_SYS(mmap), SCMP_SYS(mprotect) };

		r = rule1(ctx, SCMP_ACT_ALLOW, calls[k], SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
		if (r >= 0) {
			r = rule1(ctx, eperm, calls[k],
				  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
		}
	}
	for (size_t k = 0; r >= 0 && k < ARRAY_SIZE(ioctls); k++) {
		r = rule1(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl),
			  SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[k] & 0xffffffffu));
	}
	return r;
}

int sandbox_filter_memfd(int *ret)
{
	int fd = memfd_create("phcd-port-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0) {
		return -errno;
	}
	*ret = fd;
	return 0;
}

int sandbox_filter_write(int fd, pid_t pid)
{
	scmp_filter_ctx ctx;
	int r;

	ctx = seccomp_init(DEFAULT_ACTION);
	if (!ctx) {
		return -ENOMEM;
	}
	r = add_rules(ctx, pid);
	if (r >= 0) {
		r = seccomp_export_bpf(ctx, fd);
	}
	seccomp_release(ctx);
	/* Read-only from here on: the worker takes the seals as the sign that it is complete. */
	if (r >= 0 &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		r = -errno;
	}
	return r < 0 ? r : 0;
}
