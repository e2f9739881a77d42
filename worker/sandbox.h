/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker's seccomp allow-list (docs/security.md, "The worker sandbox"), loaded by phcd-port
 * once its port is set up and before its loop: what the loop needs (its fds, its clocks, its
 * memory), nothing else.
 *
 * - bind, connect, listen, accept, socket, socketpair, setsockopt (the packet sockets stay as
 *   the supervisor made them), sendmsg and sendmmsg (their destination address cannot be
 *   checked), sendto with a destination address (without one, a packet socket sends out of the
 *   interface it is bound to: the port's own), ptrace, process_vm_*, kill, tgkill, tkill and
 *   pidfd_send_signal of any process but itself, open/openat/creat for writing, and
 *   mmap/mprotect with PROT_EXEC: fail with EPERM.
 * - Any other system call not on the list, and ioctl requests other than the few read-only
 *   ones a port makes: SIGSYS; the handler writes the call's number on
 *   stderr (the log) and the worker dies of SIGSYS, which the supervisor reports and restarts.
 *
 * A sanitizer build (-Db_sanitize) lets through what the sanitizers' runtimes need at exit
 * (ptrace, opening their report files, anything else): the EPERM rules for the network and for
 * signals stay.
 */
#pragma once

/* Install the SIGSYS reporter and load the filter into this process (no_new_privs must be set,
 * or CAP_SYS_ADMIN held). ifname names the port in the SIGSYS line. Returns 0 or -errno. */
int sandbox_load_seccomp(const char *ifname);
