/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-port under the supervisor: inherited fds, no privileges, the port engine driven over IPC. */
#pragma once

#include <net/if.h>
#include <stdint.h>

#include "ptp/types.h"

struct port_ipc_args {
	int ipc_fd;    /* SOCK_SEQPACKET to the supervisor */
	int socket_fd; /* AF_PACKET, ETH_P_1588, bound and timestamping configured */
	int phc_fd;    /* /dev/ptpN read-write, or -1 */
	struct ClockIdentity clock_identity;
	uint16_t port_number;
	char ifname[IFNAMSIZ]; /* for messages only: the socket knows its interface */
};

/*
 * Drop every privilege (no_new_privs, empty bounding set and capability sets), say HELLO, take
 * the CONFIG, then run the port with the supervisor deciding its state (external BMCA) until
 * SHUTDOWN or the supervisor goes away. Returns 0 or -errno (the exit status follows).
 */
int port_ipc_run(const struct port_ipc_args *a);
/* Parse "--clock-identity"'s value; -EINVAL. */
int port_ipc_parse_clock_identity(const char *s, struct ClockIdentity *ret);
