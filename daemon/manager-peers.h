/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-peers.c: the unicast broker, sockets to a UDP port's unicast peers for its worker. */
#pragma once

#include "common/peer-policy.h"
#include "daemon/manager-state.h"

/* p's unicast state, allocated on first use; NULL: out of memory. */
struct mport_uc *mport_uc(struct mport *p);

/*
 * PEER_REQUEST from p's worker: judged by the policy (common/peer-policy.h), opened when allowed
 * (transport_udp_open_peer_fds()), answered with PEER_SOCKETS; a refusal counted and logged once
 * per burst. The port keeps running whatever the worker asks.
 */
void mport_peer_request(struct mport *p, const struct peer_addr *a);
/* PEER_RELEASE: the worker closed its sockets to a; the slot is free (else ignored). */
void mport_peer_release(struct mport *p, const struct peer_addr *a);
