// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * worker/worker-peers: a supervised worker asks for a unicast peer's sockets once, takes them when
 * granted, stays within unicast_peers_max by giving back its least recently used pair first, does
 * not ask again soon after a refusal, and closes fds it did not ask for.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/ipc.h"
#include "worker/worker-port.h"

/* A transport that only keeps the peers added, in the order used (the first is dropped first). */
struct fake_transport {
	struct transport base;
	size_t n;
	struct {
		uint8_t addr[TRANSPORT_ADDR_LEN];
		size_t len;
		int fd[2];
	} peers[8];
};

static struct fake_transport *to_fake(struct transport *t)
{
	return container_of(t, struct fake_transport, base);
}

static int fake_add(struct transport *t, const uint8_t *addr, size_t len, const int *fds, size_t n)
{
	struct fake_transport *f = to_fake(t);

	assert_int_equal(n, 2);
	assert_true(f->n < 8);
	memcpy(f->peers[f->n].addr, addr, len);
	f->peers[f->n].len = len;
	memcpy(f->peers[f->n].fd, fds, sizeof(f->peers[f->n].fd));
	f->n++;
	return 0;
}

static int fake_drop(struct transport *t, uint8_t ret_addr[TRANSPORT_ADDR_LEN], size_t *ret_len)
{
	struct fake_transport *f = to_fake(t);

	if (!f->n) {
		return -ENOENT;
	}
	memcpy(ret_addr, f->peers[0].addr, TRANSPORT_ADDR_LEN);
	*ret_len = f->peers[0].len;
	close(f->peers[0].fd[0]);
	close(f->peers[0].fd[1]);
	memmove(&f->peers[0], &f->peers[1], (f->n - 1) * sizeof(f->peers[0]));
	f->n--;
	return 0;
}

static size_t fake_n(struct transport *t)
{
	return to_fake(t)->n;
}

static const struct transport_ops fake_ops = {
	.name = "fake",
	.add_peer = fake_add,
	.drop_peer = fake_drop,
	.n_peers = fake_n,
};

struct fixture {
	struct port_ipc_args args;
	struct worker_port w;
	struct fake_transport t;
	int supervisor; /* the other end of w.ipc */
};

static int setup(void **state)
{
	static struct fixture fx;
	/* The worker's set-up allocates them over UDP (port-ipc.c). */
	static struct worker_peer_ask asks[WORKER_PEER_ASKS];
	int sv[2];

	memset(&fx, 0, sizeof(fx));
	memset(asks, 0, sizeof(asks));
	fx.w.peer_asks = asks;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fx.w.ipc = sv[0];
	fx.supervisor = sv[1];
	(void) fcntl(fx.supervisor, F_SETFL, O_NONBLOCK);
	strcpy(fx.args.ifname, "test0");
	fx.w.args = &fx.args;
	fx.w.peers_max = 2;
	fx.t.base.ops = &fake_ops;
	fx.w.loop.transport = &fx.t.base;
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	while (fx->t.n) {
		uint8_t a[TRANSPORT_ADDR_LEN];
		size_t len;

		fake_drop(&fx->t.base, a, &len);
	}
	close(fx->w.ipc);
	close(fx->supervisor);
	return 0;
}

static struct port_address addr4(uint8_t last)
{
	return (struct port_address){ 4, { 192, 0, 2, last } };
}

/* The next message the supervisor got: its type and address' last byte; 0 when none. */
static int next_msg(struct fixture *fx, uint8_t *ret_last)
{
	struct ipc_msg m;
	int r = ipc_recv(fx->supervisor, &m, NULL, 0, NULL);

	if (r == -EAGAIN) {
		return 0;
	}
	assert_int_equal(r, 0);
	assert_int_equal(m.peer.len, 4);
	*ret_last = m.peer.bytes[3];
	return (int) m.type;
}

static void answer(struct fixture *fx, uint8_t last, enum peer_policy_verdict v)
{
	struct ipc_peer_sockets a = { .peer = { 4, { 192, 0, 2, last }, 0 }, .verdict = v };
	int fds[2];

	if (v == PEER_POLICY_GRANTED) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds), 0);
	}
	worker_peers_answer(&fx->w, &a, fds, v == PEER_POLICY_GRANTED ? 2 : 0);
}

static void test_ask_once_take_and_stay_within_bound(void **state)
{
	struct fixture *fx = *state;
	struct port_address a = addr4(1), b = addr4(2), c = addr4(3);
	uint8_t last = 0;

	/* First send to A: asked, to the group meanwhile; a second send does not ask again. */
	assert_int_equal(worker_peers_missing(&fx->w.loop, &a), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), IPC_PEER_REQUEST);
	assert_int_equal(last, 1);
	assert_int_equal(worker_peers_missing(&fx->w.loop, &a), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), 0);
	answer(fx, 1, PEER_POLICY_GRANTED);
	assert_int_equal(fx->t.n, 1);
	/* B: one held, one asked: the bound (2) reached, nothing dropped yet. */
	assert_int_equal(worker_peers_missing(&fx->w.loop, &b), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), IPC_PEER_REQUEST);
	assert_int_equal(last, 2);
	/* C while B's answer is on its way: A, the least recently used, is given back first. */
	assert_int_equal(worker_peers_missing(&fx->w.loop, &c), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), IPC_PEER_RELEASE);
	assert_int_equal(last, 1);
	assert_int_equal(next_msg(fx, &last), IPC_PEER_REQUEST);
	assert_int_equal(last, 3);
	assert_int_equal(fx->t.n, 0);
	/* With both slots asked for, a fourth peer is not asked for at all. */
	{
		struct port_address d = addr4(4);

		assert_int_equal(worker_peers_missing(&fx->w.loop, &d), -ENOTCONN);
		assert_int_equal(next_msg(fx, &last), 0);
	}
	/* B refused: not asked again at its next send (for WORKER_PEER_RETRY_NS). */
	answer(fx, 2, PEER_POLICY_RATE);
	assert_int_equal(worker_peers_missing(&fx->w.loop, &b), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), 0);
	answer(fx, 3, PEER_POLICY_GRANTED);
	assert_int_equal(fx->t.n, 1);
	assert_memory_equal(fx->t.peers[0].addr, c.bytes, 4);
}

/* An answer nobody asked for: its fds closed, nothing added. */
static void test_unasked_answer_closed(void **state)
{
	struct fixture *fx = *state;
	struct ipc_peer_sockets a = { .peer = { 4, { 198, 51, 100, 7 }, 0 } };
	int fds[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds), 0);
	worker_peers_answer(&fx->w, &a, fds, 2);
	assert_int_equal(fx->t.n, 0);
	assert_int_equal(fcntl(fds[0], F_GETFD), -1);
	assert_int_equal(fcntl(fds[1], F_GETFD), -1);
}

/* Not a UDP address (a MAC), or no bound (L2): never asked. */
static void test_not_udp_never_asked(void **state)
{
	struct fixture *fx = *state;
	struct port_address mac = { 6, { 2, 0, 0, 0, 0, 1 } }, a = addr4(9);
	uint8_t last;

	assert_int_equal(worker_peers_missing(&fx->w.loop, &mac), -ENOTCONN);
	fx->w.peers_max = 0;
	assert_int_equal(worker_peers_missing(&fx->w.loop, &a), -ENOTCONN);
	assert_int_equal(next_msg(fx, &last), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ask_once_take_and_stay_within_bound, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unasked_answer_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_udp_never_asked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
