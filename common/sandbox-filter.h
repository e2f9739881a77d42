/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker's seccomp allow-list (docs/security.md, "The worker sandbox"), built by the
 * supervisor with libseccomp for each worker it spawns and handed to it as a BPF program
 * (worker/sandbox.h installs it), so that the worker neither links libseccomp nor keeps the
 * memory libseccomp uses to build a filter: what the loop needs (its fds, its clocks, its
 * memory), nothing else.
 *
 * - bind, connect, listen, accept, socket, socketpair, setsockopt (the packet sockets stay as
 *   the supervisor made them), sendmsg and sendmmsg (their destination address cannot be
 *   checked), sendto with a destination address (without one, a packet socket sends out of the
 *   interface it is bound to: the port's own), ptrace, process_vm_*, kill, tgkill, tkill and
 *   pidfd_send_signal of any process but itself, open/openat/creat for writing, and
 *   mmap/mprotect with PROT_EXEC: fail with EPERM.
 * - Any other system call not on the list, and ioctl requests other than the few read-only
 *   ones a port makes: SIGSYS (SECCOMP_RET_TRAP); the worker's handler writes the call's number
 *   on stderr (the log) and the worker dies of SIGSYS, which the supervisor reports and
 *   restarts.
 *
 * A sanitizer build (-Db_sanitize) lets through what the sanitizers' runtimes need at exit
 * (ptrace, opening their report files, anything else): the EPERM rules for the network and for
 * signals stay.
 */
#pragma once

#include <sys/types.h>

/* An empty memfd for the filter (close-on-exec, sealable): made before fork, so that the child
 * inherits it. */
int sandbox_filter_memfd(int *ret);
/*
 * Write the filter of the worker whose process id is pid (signals to itself only) to the memfd
 * fd as a BPF program (struct sock_filter, host order), then seal it against any change.
 * 0 or -errno.
 */
int sandbox_filter_write(int fd, pid_t pid);
