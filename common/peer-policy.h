/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unicast broker's policy: may a UDP port's worker have sockets connected to this peer? A
 * worker parses the network and may lie (docs/security.md), so the supervisor, which opens every
 * socket, decides from the address alone and its own count of what it handed out: the port's
 * family, a unicast address (no multicast, broadcast, loopback or unspecified one), an IPv6
 * link-local one on the port's own link, at most unicast_peers_max pairs at once, at most
 * PEER_POLICY_RATE_PER_SEC new pairs a second after a burst. Pure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/token-bucket.h"
#include "ptp/options.h"
#include "ptp/types.h"

/* An IPv4 (4 bytes) or IPv6 (16) address, and an IPv6 link-local one's scope (an ifindex). */
#define PEER_ADDR_MAX 16
struct peer_addr {
	uint8_t len; /* 4 or 16 */
	uint8_t bytes[PEER_ADDR_MAX];
	/* IPv6 link-local only: the interface (0: the port's own); 0 for any other address */
	uint32_t scope_id;
};

/* What the supervisor answered; one counter each (Port.Counters "peer_refused_<name>"). */
enum peer_policy_verdict {
	PEER_POLICY_GRANTED,
	PEER_POLICY_FAMILY,	 /* not the port's (IPv6 on UDPv4, L2, IPv4-mapped ::ffff:0:0/96) */
	PEER_POLICY_UNSPECIFIED, /* 0.0.0.0/8, :: */
	PEER_POLICY_LOOPBACK,	 /* 127.0.0.0/8, ::1 */
	PEER_POLICY_MULTICAST,	 /* 224.0.0.0/4, ff00::/8 */
	PEER_POLICY_BROADCAST,	 /* 255.255.255.255, or the kernel's EACCES (a subnet's) */
	PEER_POLICY_SCOPE,	 /* a link-local address of another interface, or a stray scope */
	PEER_POLICY_DUPLICATE,	 /* already granted and not released */
	PEER_POLICY_LIMIT,	 /* unicast_peers_max pairs held */
	PEER_POLICY_RATE,	 /* more than the rate limit lets through */
	PEER_POLICY_OPEN_FAILED, /* allowed, but the sockets could not be opened */
	_PEER_POLICY_MAX,
};

/* "granted", "family", ... "open_failed": the stable names of logs and counters. */
const char *peer_policy_verdict_to_string(enum peer_policy_verdict v);

/*
 * The rate limit: an honest worker asks once per new peer (its master in hybrid_e2e, each slave
 * that sends a unicast Delay_Req), so a port of unicast_peers_max peers fills up at once and then
 * churns slowly.
 */
#define PEER_POLICY_RATE_PER_SEC 2.0
#define PEER_POLICY_BURST ((double) OPTIONS_UNICAST_PEERS_MAX)
/* Refusals are logged once per burst: at the first, then once this much quieter. */
#define PEER_POLICY_LOG_QUIET (10 * NS_PER_SEC)

/* The port a request is judged for. */
struct peer_policy_port {
	enum options_transport transport;
	int ifindex;
	unsigned int peers_max; /* unicast_peers_max */
};

/* What the supervisor handed one worker: cleared (peer_policy_reset()) when it starts. */
struct peer_policy {
	size_t n;
	struct peer_addr held[OPTIONS_UNICAST_PEERS_MAX];
	bool bucket_started;
	struct token_bucket bucket;
	uint64_t counters[_PEER_POLICY_MAX]; /* per verdict, for the port's life */
	uint64_t released;
	/* refusals since the last logged one, and when that was (0: none yet) */
	uint64_t unlogged;
	ns_t logged_at;
	ns_t last_refusal;
};

/* A new worker: nothing held, the rate's bucket full; counters kept. */
void peer_policy_reset(struct peer_policy *s);

/* The address alone: GRANTED, or why not (FAMILY ... SCOPE). */
enum peer_policy_verdict peer_policy_check_addr(const struct peer_policy_port *port,
						const struct peer_addr *a);

/*
 * Judge a request at now (CLOCK_MONOTONIC ns): the address, not held already, a slot free, a
 * token. Counts the verdict; GRANTED takes a slot (peer_policy_opened() gives it back when the
 * sockets could not be opened after all).
 */
enum peer_policy_verdict peer_policy_decide(struct peer_policy *s,
					    const struct peer_policy_port *port,
					    const struct peer_addr *a, ns_t now);

/* The sockets of a GRANTED request could not be opened: v (OPEN_FAILED, BROADCAST) instead. */
void peer_policy_opened(struct peer_policy *s, const struct peer_addr *a,
			enum peer_policy_verdict v);

/* The worker closed its sockets to a: the slot is free. false: it held none (ignored). */
bool peer_policy_release(struct peer_policy *s, const struct peer_addr *a);

/*
 * A refusal at now: log it? true at the first of a burst (then *ret_suppressed says how many went
 * unlogged since the last line), false within PEER_POLICY_LOG_QUIET of the previous refusal.
 */
bool peer_policy_log_refusal(struct peer_policy *s, ns_t now, uint64_t *ret_suppressed);
