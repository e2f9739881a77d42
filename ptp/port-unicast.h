/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unicast negotiation (IEEE 1588-2019 16.1) driven by the port engine: the grantee and grantor
 * machines of ptp/unicast-neg.h, fed the port's Signaling messages and time, their actions turned
 * into Signaling messages and per-peer Announce and Sync. Engine-internal (port-internal.h).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/token-bucket.h"
#include "ptp/unicast-neg.h"

struct port;
struct msg;

/* A grantor client's two flows the port sends itself (Delay_Resp answers a request). */
struct port_uc_flow {
	bool on;
	int8_t log_period;
	ns_t next;
};

/*
 * A grantor client as the port serves it. A GRANT that could not go yet (its sockets were still
 * being asked for) is sent again PORT_UC_GRANT_RETRY later, and the client gets no Announce or
 * Sync before its GRANT went: ptp4l's grantee takes an Announce that came before the GRANT as its
 * master's and then never asks for Sync.
 */
struct port_uc_client {
	struct port_uc_flow flow[2]; /* Announce, Sync */
	uint8_t pending;	     /* UNICAST_MT_* bits: GRANTs to send again */
	struct unicast_tlv grant[UNICAST_MT_N];
	ns_t retry_at;
};

struct port_unicast {
	bool grantee_on; /* unicast_master_table: ask its masters */
	bool started;	 /* Announce asked of every master */
	int parent;	 /* the master asked for Sync and Delay_Resp, -1: none */
	/* The sourcePortIdentity of each master's last Announce, to find the parent's entry. */
	bool heard[UNICAST_TABLE_ADDRS_MAX];
	struct PortIdentity heard_from[UNICAST_TABLE_ADDRS_MAX];
	struct unicast_grantee ge;
	struct unicast_grantor *gr;    /* unicast_listen, else NULL */
	struct port_uc_client *client; /* per grantor place */
	/* Signaling from an address the grantor does not hold yet: bounded work under a flood. */
	struct token_bucket new_peers;
	bool bucket_started;
	uint64_t malformed_tlv, rate_limited; /* PORT_UC_MALFORMED_TLV, PORT_UC_RATE_LIMITED */
	uint64_t not_granted;		      /* PORT_UC_NOT_GRANTED */
	uint64_t cancel_unknown;	      /* the grantee's part of PORT_UC_CANCELS_UNKNOWN */
};

/* port_new(): the machines the options ask for (none: p->uc stays NULL). 0, -EINVAL, -ENOMEM. */
int port_unicast_new(struct port *p);
void port_unicast_free(struct port *p);
/* A Signaling message: 0 used, -ENOMSG when it carries no unicast TLV, else the counter. */
int port_unicast_signaling(struct port *p, const struct msg *m, ns_t now);
/* An Announce from p->rx_from: which master of the table it is (the parent's entry). */
void port_unicast_announce_heard(struct port *p, const struct msg *m);
/*
 * May m, from p->rx_from, be taken? The grantee takes Announce only from the masters of its
 * table, and Sync, Follow_Up and Delay_Resp only under a running grant of their type, each from
 * the address and portIdentity the grant is bound to; the grantor takes a Delay_Req from the
 * address of a client only from that client's portIdentity. What it may not is counted
 * (PORT_UC_NOT_GRANTED) and must be dropped.
 */
bool port_unicast_admits(struct port *p, const struct msg *m);
int port_unicast_tick(struct port *p, ns_t now);
ns_t port_unicast_next(const struct port *p);
/* Is multicast Announce and Sync inhibited (inhibit_multicast_service with unicast_listen)? */
bool port_unicast_inhibits_multicast(const struct port *p);
