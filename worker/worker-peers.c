// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A supervised worker's unicast peers (hybrid_e2e over UDP): the sockets to a peer come from the
 * supervisor, asked for when the engine first sends to it (PEER_REQUEST), taken when they come
 * (PEER_SOCKETS); the least recently used pair is closed and given back (PEER_RELEASE) to stay
 * within unicast_peers_max. Until a peer's sockets come, and for a while after a refusal, its
 * messages go to the group (port.h, send_unicast).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/ipc.h"
#include "common/log.h"
#include "worker/worker-port.h"

static bool same(const struct peer_addr *a, const uint8_t *bytes, size_t len)
{
	return a->len == len && !memcmp(a->bytes, bytes, len);
}

/* The questions' slots: WORKER_PEER_ASKS over UDP, none over L2 (worker-port.h). */
static size_t n_asks(const struct worker_port *w)
{
	return w->peer_asks ? WORKER_PEER_ASKS : 0;
}

static struct worker_peer_ask *find_ask(struct worker_port *w, const uint8_t *bytes, size_t len)
{
	for (size_t k = 0; k < n_asks(w); k++) {
		if (w->peer_asks[k].used && same(&w->peer_asks[k].peer, bytes, len)) {
			return &w->peer_asks[k];
		}
	}
	return NULL;
}

/* A slot for a new question: a free one, else the oldest answered (refused) one. */
static struct worker_peer_ask *new_ask(struct worker_port *w)
{
	struct worker_peer_ask *old = NULL;

	for (size_t k = 0; k < n_asks(w); k++) {
		struct worker_peer_ask *q = &w->peer_asks[k];

		if (!q->used) {
			return q;
		}
		if (!q->pending && (!old || q->retry_at < old->retry_at)) {
			old = q;
		}
	}
	return old;
}

static size_t pending_asks(const struct worker_port *w)
{
	size_t n = 0;

	for (size_t k = 0; k < n_asks(w); k++) {
		n += w->peer_asks[k].used && w->peer_asks[k].pending;
	}
	return n;
}

static void send_peer(struct worker_port *w, enum ipc_type type, const uint8_t *bytes, size_t len)
{
	struct ipc_msg m = { .type = type };
	int r;

	m.peer.len = (uint8_t) len;
	memcpy(m.peer.bytes, bytes, len);
	r = ipc_send(w->ipc, &m, NULL, 0);
	if (r < 0) {
		log_port_full_errno(w->args->ifname, LOG_WARNING, r, "cannot send %s: %m, ignoring",
				    ipc_type_to_string(type));
	}
}

int worker_peers_missing(struct port_loop *l, const struct port_address *to)
{
	struct worker_port *w = container_of(l, struct worker_port, loop);
	struct worker_peer_ask *q;
	ns_t now = port_loop_now(&w->loop);

	if (!w->peers_max || (to->len != 4 && to->len != 16)) {
		return -ENOTCONN;
	}
	q = find_ask(w, to->bytes, to->len);
	if (q && (q->pending || now < q->retry_at)) {
		return -ENOTCONN;
	}
	/* Within unicast_peers_max, counting the questions on their way: the oldest pair goes. */
	while (transport_n_peers(l->transport) + pending_asks(w) >= w->peers_max) {
		uint8_t addr[TRANSPORT_ADDR_LEN];
		size_t len;

		if (transport_drop_peer(l->transport, addr, &len) < 0) {
			return -ENOTCONN; /* every slot is a question not answered yet */
		}
		send_peer(w, IPC_PEER_RELEASE, addr, len);
	}
	if (!q) {
		q = new_ask(w);
		if (!q) {
			return -ENOTCONN;
		}
	}
	memset(q, 0, sizeof(*q));
	q->used = true;
	q->pending = true;
	q->peer.len = to->len;
	memcpy(q->peer.bytes, to->bytes, to->len);
	send_peer(w, IPC_PEER_REQUEST, to->bytes, to->len);
	return -ENOTCONN;
}

void worker_peers_answer(struct worker_port *w, const struct ipc_peer_sockets *a, int *fds,
			 size_t n_fds)
{
	struct worker_peer_ask *q = find_ask(w, a->peer.bytes, a->peer.len);
	int r;

	if (!q || !q->pending) {
		/* Not asked: a supervisor never does this; close what came. */
		log_port_full(w->args->ifname, LOG_WARNING, "PEER_SOCKETS not asked for, ignoring");
	} else if (a->verdict != PEER_POLICY_GRANTED) {
		/* Its reason is in the supervisor's log and counters; asked again only later. */
		log_port_debug(w->args->ifname, "unicast sockets refused: %s",
			       peer_policy_verdict_to_string(a->verdict));
	} else if (n_fds != TRANSPORT_UDP_PEER_FDS) {
		log_port_full(w->args->ifname, LOG_WARNING,
			      "PEER_SOCKETS granted with %zu fds, ignoring", n_fds);
		send_peer(w, IPC_PEER_RELEASE, a->peer.bytes, a->peer.len);
	} else {
		r = transport_add_peer(w->loop.transport, a->peer.bytes, a->peer.len, fds, n_fds);
		if (r >= 0) {
			memset(q, 0, sizeof(*q)); /* the transport holds the peer now */
			return;
		}
		log_port_full_errno(w->args->ifname, LOG_WARNING, r,
				    "cannot take the unicast sockets: %m, giving them back");
		send_peer(w, IPC_PEER_RELEASE, a->peer.bytes, a->peer.len);
	}
	if (q && q->pending) {
		q->pending = false;
		q->retry_at = port_loop_now(&w->loop) + WORKER_PEER_RETRY_NS;
	}
	for (size_t k = 0; k < n_fds; k++) {
		close(fds[k]);
	}
}
