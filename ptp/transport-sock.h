/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every transport does to its sockets alike: timestamping set-up, its read-back, TX waits. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ptp/transport.h"

/*
 * A timestamping socket's flags, all socket-wide: reception, reporting and TX recording (a send
 * without an address carries no cmsg to ask for it per message). Only event messages go out
 * through such a socket, so OPT_ID counts event messages and general ones leave nothing on its
 * error queue.
 */
int transport_sock_ts_flags(enum transport_ts_mode mode);

/*
 * Those of them that stamp what a socket receives, and nothing it sends: a socket that receives
 * event messages but sends only general ones (the lazy general socket of L2, transport-l2.c).
 */
int transport_sock_rx_ts_flags(enum transport_ts_mode mode);

/* SO_TIMESTAMPING flags on fd (0: none). */
int transport_sock_set_ts_flags(int fd, int flags);

/*
 * Decide and set up the interface's timestamping through fd: hardware when asked for, or when
 * AUTO finds a PHC (the receive filter chosen from what the driver offers for L2 or, udp, for
 * UDP), software with the reason in st->hw_error otherwise. Sets no socket flags.
 */
void transport_sock_timestamping(int fd, const char *ifname, enum options_timestamping req,
				 bool udp, struct transport_ts_status *st);

/*
 * What an adopted socket does, read back from it: mode from its SO_TIMESTAMPING flags, the
 * interface's PHC, and in hardware mode the driver's settings. hw_error stays 0 (only the opener
 * knows why hardware was refused).
 */
int transport_sock_read_status(int fd, const char *ifname, struct transport_ts_status *ret);

/*
 * Make an adopted socket's OPT_ID keys start at 0 again: drop whatever an earlier owner left on
 * its error queue and turn its flags off and on (the kernel restarts the counter only then).
 */
int transport_sock_restart_keys(int fd, int flags);

/*
 * Wait until deadline_mono (CLOCK_MONOTONIC ns) for the error queue entry of fd whose OPT_ID is
 * key, skipping older ones (late or lost): 0 and *ret, -ETIME when none came, -EPROTO when a
 * later key came first (ours went missing: never mismatch).
 */
int transport_sock_wait_tx_ts(int fd, bool hardware, uint32_t key, ns_t timeout, ns_t *ret);

/* The receive-side timestamp of a message in msg (has_ts false when none came with it). */
void transport_sock_rx_ts(const struct msghdr *msg, bool hardware, struct transport_rx_info *ret);

/* The interface's MAC (SIOCGIFHWADDR through fd), for the clockIdentity (7.5.2.2.2). */
int transport_sock_get_mac(int fd, const char *ifname, uint8_t mac[TRANSPORT_MAC_LEN]);
