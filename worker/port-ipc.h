/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-port under the supervisor: fds from CONFIG, no privileges, the engine driven over IPC. */
#pragma once

#include <net/if.h>
#include <stdbool.h>

struct port_ipc_args {
	int ipc_fd;	       /* SOCK_SEQPACKET to the supervisor, the only fd inherited */
	char ifname[IFNAMSIZ]; /* for messages only: the socket knows its interface */
	bool print;	       /* -m: every servo sample on stderr, as a debug line */
};

/*
 * Drop every privilege (no_new_privs, empty bounding set and capability sets), say HELLO, take
 * the CONFIG with the port's identity and, over SCM_RIGHTS, its AF_PACKET socket (ETH_P_1588,
 * bound, timestamping configured) and PHC when the clock back end wants it; refuse to run
 * without them. Then run the port with the supervisor deciding its state (external BMCA) until
 * SHUTDOWN or the supervisor goes away. Returns 0 or -errno (the exit status follows).
 */
int port_ipc_run(const struct port_ipc_args *a);
