// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unicast broker: a UDP port's worker cannot open or connect a socket (its seccomp filter,
 * docs/security.md), so the sockets to each unicast peer it talks to (hybrid_e2e) are opened here,
 * after the policy of common/peer-policy.h, and handed over as its first sockets are.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/time-util.h"
#include "common/log.h"
#include "daemon/manager-peers.h"
#include "daemon/worker.h"

static void peer_to_string(const struct peer_addr *a, char *buf, size_t size)
{
	if (!inet_ntop(a->len == 4 ? AF_INET : AF_INET6, a->bytes, buf, (socklen_t) size)) {
		snprintf(buf, size, "?");
	}
	if (a->scope_id) {
		size_t n = strlen(buf);

		snprintf(buf + n, size - n, "%%%" PRIu32, a->scope_id);
	}
}

/* The sockets of a granted request: 0, or the verdict's correction (broadcast, open failed). */
static enum peer_policy_verdict open_peer(const struct mport *p, const struct peer_addr *a,
					  int fds[TRANSPORT_UDP_PEER_FDS], int *ret_error)
{
	struct transport_config tc = {
		.ifindex = p->ifindex,
		.socket_priority = p->options.socket_priority,
		.dscp_event = p->options.dscp_event,
		.dscp_general = p->options.dscp_general,
	};
	int r;

	r = transport_udp_open_peer_fds(p->options.network_transport == OPTIONS_TRANSPORT_UDPV6,
					&tc, p->timestamping, a->bytes, a->len, a->scope_id, fds);
	*ret_error = r < 0 ? r : 0;
	if (r >= 0) {
		return PEER_POLICY_GRANTED;
	}
	/* connect() to a broadcast address without SO_BROADCAST (a subnet's, say) */
	return r == -EACCES ? PEER_POLICY_BROADCAST : PEER_POLICY_OPEN_FAILED;
}

struct mport_uc *mport_uc(struct mport *p)
{
	if (!p->uc) {
		p->uc = calloc(1, sizeof(*p->uc));
	}
	return p->uc;
}

/* The worker's answer to its PEER_REQUEST: the verdict, and the two sockets when granted. */
static int send_answer(struct mport *p, const struct peer_addr *a, enum peer_policy_verdict v,
		       int error, int fds[TRANSPORT_UDP_PEER_FDS])
{
	struct ipc_msg m = { .type = IPC_PEER_SOCKETS };

	m.peer_sockets.peer = *a;
	m.peer_sockets.verdict = v;
	m.peer_sockets.error = error;
	return worker_send_fds(p->worker, &m, fds,
			       v == PEER_POLICY_GRANTED ? TRANSPORT_UDP_PEER_FDS : 0);
}

void mport_peer_request(struct mport *p, const struct peer_addr *a)
{
	struct peer_policy_port pp = {
		.transport = p->options.network_transport,
		.ifindex = p->ifindex,
		.peers_max = p->options.unicast_peers_max,
	};
	int fds[TRANSPORT_UDP_PEER_FDS] = { -1, -1 }, error = 0, r;
	ns_t now = (ns_t) time_mono_usec() * NS_PER_USEC;
	struct mport_uc *uc = mport_uc(p);
	enum peer_policy_verdict v;
	uint64_t suppressed;

	if (!uc) {
		/* Answered all the same: the worker waits for one. */
		(void) send_answer(p, a, PEER_POLICY_OPEN_FAILED, ENOMEM, fds);
		log_port_error(p->ifname, "out of memory for unicast sockets, refused");
		return;
	}
	v = peer_policy_decide(&uc->peers, &pp, a, now);
	if (v == PEER_POLICY_GRANTED) {
		v = open_peer(p, a, fds, &error);
		peer_policy_opened(&uc->peers, a, v);
	}
	r = send_answer(p, a, v, error, fds);
	for (size_t k = 0; k < TRANSPORT_UDP_PEER_FDS; k++) {
		if (fds[k] >= 0) {
			close(fds[k]);
		}
	}
	if (r < 0 && v == PEER_POLICY_GRANTED) {
		/* It never got them: the slot is not its. */
		(void) peer_policy_release(&uc->peers, a);
	}
	manager_port_changed(p, MPORT_CHANGED_COUNTERS);
	if (v == PEER_POLICY_GRANTED) {
		char peer[INET6_ADDRSTRLEN + 16];

		peer_to_string(a, peer, sizeof(peer));
		log_port_debug(p->ifname, "unicast sockets to %s handed over (%zu held)", peer,
			       uc->peers.n);
		return;
	}
	if (peer_policy_log_refusal(&uc->peers, now, &suppressed)) {
		char peer[INET6_ADDRSTRLEN + 16];

		peer_to_string(a, peer, sizeof(peer));
		if (error) {
			log_port_full_errno(p->ifname, LOG_WARNING, error,
					    "refused the worker unicast sockets to %s: %s (%m); "
					    "%" PRIu64 " refused unlogged before",
					    peer, peer_policy_verdict_to_string(v), suppressed);
		} else {
			log_port_full(p->ifname, LOG_WARNING,
				      "refused the worker unicast sockets to %s: %s; %" PRIu64
				      " refused unlogged before",
				      peer, peer_policy_verdict_to_string(v), suppressed);
		}
	}
}

void mport_peer_release(struct mport *p, const struct peer_addr *a)
{
	if (p->uc && peer_policy_release(&p->uc->peers, a)) {
		manager_port_changed(p, MPORT_CHANGED_COUNTERS);
	}
}
