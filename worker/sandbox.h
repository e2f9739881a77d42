/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker's seccomp filter (common/sandbox-filter.h says what it allows), installed by
 * phcd-port once its port is set up and before its loop. The supervisor built it for this
 * process and hands it over as a BPF program in a sealed memfd, with CONFIG.
 */
#pragma once

#include <unistd.h>

#include "common/sandbox-filter.h"

/*
 * Install the SIGSYS reporter and the BPF program in fd into this process (no_new_privs must be
 * set, or CAP_SYS_ADMIN held); fd is closed. ifname names the port in the SIGSYS line. Returns 0
 * or -errno (-EBADMSG: fd holds no sealed program).
 */
int sandbox_install(const char *ifname, int fd);

/*
 * Build the filter for this process and install it, as the supervisor and the worker do between
 * them: for a process that is both (the unit tests, tests/integration/tool-sandbox-probe). Links
 * libseccomp (libsandbox_filter_dep); the worker never calls it.
 */
static inline int sandbox_build_and_install(const char *ifname)
{
	int fd, r = sandbox_filter_memfd(&fd);

	if (r < 0) {
		return r;
	}
	r = sandbox_filter_write(fd, getpid());
	if (r < 0) {
		close(fd);
		return r;
	}
	return sandbox_install(ifname, fd);
}
