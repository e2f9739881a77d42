// SPDX-License-Identifier: GPL-2.0-or-later
/* The one event loop around a port engine, shared by phcd-port by hand and under phcd. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "worker/port-loop.h"

ns_t port_loop_now(const struct port_loop *l)
{
	return evloop_time(&l->ev);
}

static int loop_send(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
		     ns_t *ret_tx_ts)
{
	struct port_loop *l = userdata;
	struct transport_dest d = {
		.kind = pdelay ? TRANSPORT_DEST_PDELAY : TRANSPORT_DEST_DEFAULT,
	};

	return transport_send(l->transport, buf, len, &d, event, ret_tx_ts);
}

static int loop_send_unicast(void *userdata, const void *buf, size_t len,
			     const struct port_address *to, bool event, ns_t *ret_tx_ts)
{
	struct port_loop *l = userdata;
	struct transport_dest d = { .kind = TRANSPORT_DEST_UNICAST };
	int r;

	_Static_assert(sizeof(d.addr) == sizeof(to->bytes), "one address");
	memcpy(d.addr, to->bytes, sizeof(d.addr));
	d.addr_len = to->len;
	r = transport_send(l->transport, buf, len, &d, event, ret_tx_ts);
	if (r == TRANSPORT_TX_NO_PEER && l->peer_missing && l->peer_missing(l, to) == 0) {
		r = transport_send(l->transport, buf, len, &d, event, ret_tx_ts);
	}
	return r;
}

static void loop_management(void *userdata, const void *buf, size_t len)
{
	struct port_loop *l = userdata;

	port_mgmt_receive(&l->mgmt, buf, len, port_loop_now(l));
}

/*
 * The engine's callbacks: send and management are the loop's own, the others forward to the
 * mode's table (l->mode) with the loop as userdata. One static table: nothing is written at run
 * time (a copy of the mode's table patched here once was).
 */
static void loop_state_changed(void *userdata, enum port_state from, enum port_state to,
			       enum fsm_event why)
{
	struct port_loop *l = userdata;

	if (l->mode->state_changed) {
		l->mode->state_changed(l, from, to, why);
	}
}

static void loop_master_changed(void *userdata, const struct ClockIdentity *grandmaster, bool local)
{
	struct port_loop *l = userdata;

	if (l->mode->master_changed) {
		l->mode->master_changed(l, grandmaster, local);
	}
}

static void loop_sample(void *userdata, const struct port_sample *s)
{
	struct port_loop *l = userdata;

	if (l->mode->sample) {
		l->mode->sample(l, s);
	}
}

static void loop_clock_error(void *userdata, const char *op, int error)
{
	struct port_loop *l = userdata;

	if (l->mode->clock_error) {
		l->mode->clock_error(l, op, error);
	}
}

static void loop_interval_changed(void *userdata, int8_t log_sync_interval, bool stopped)
{
	struct port_loop *l = userdata;

	if (l->mode->interval_changed) {
		l->mode->interval_changed(l, log_sync_interval, stopped);
	}
}

static void loop_as_capable_changed(void *userdata, bool value, enum port_as_capable_reason why,
				    ns_t mean_link_delay)
{
	struct port_loop *l = userdata;

	if (l->mode->as_capable_changed) {
		l->mode->as_capable_changed(l, value, why, mean_link_delay);
	}
}

static const struct port_ops loop_port_ops = {
	.send = loop_send,
	.send_unicast = loop_send_unicast,
	.state_changed = loop_state_changed,
	.master_changed = loop_master_changed,
	.sample = loop_sample,
	.clock_error = loop_clock_error,
	.interval_changed = loop_interval_changed,
	.as_capable_changed = loop_as_capable_changed,
	.management = loop_management,
};

static void engine_result(struct port_loop *l, const char *what, int r)
{
	if (r < 0 && l->engine_error) {
		l->engine_error(l, what, r);
	}
	/* Only new sockets can send again (transport.h): end, for whoever opens them. */
	if (r == TRANSPORT_TX_STALE) {
		evloop_exit(&l->ev, r);
	}
}

static void ran(struct port_loop *l, bool tick)
{
	if (l->engine_ran) {
		l->engine_ran(l, tick);
	}
}

/*
 * The lazy socket (transport_lazy_fd(): Announce, Delay_Resp, two-step Sync) wakes the loop
 * unless the port is SLAVE and hears at most LAZY_MAX_FRAMES frames a second:
 * then a Follow_Up comes at least once a Sync interval, and with it a wakeup that reads the lazy
 * socket first, so the port hears its Sync, and the Announces and Delay_Resps up to a Sync
 * interval later, before the Follow_Up that woke it (a Delay_Resp still counts for the next
 * Sync, as when it woke the port) without a wakeup of their own: at the fast rates 8 Syncs
 * (a two-step Sync is no measurement until its Follow_Up: the wakeup moves, the samples do not),
 * 4 Announces and a Delay_Resp a second, which were half of a SLAVE worker's wakeups when the
 * Follow_Up came late. Every timer wakeup reads it too. Past that rate (a flood, or fast rates)
 * the lazy socket wakes the loop again, as the event socket does, until LAZY_HOLD_NS after the
 * last second that passed it, so that no flood fills it between two Follow_Ups and pushes the
 * parent's Announces or Syncs out: a flood that stops and starts again can cost the port those
 * of at most one Sync interval every LAZY_HOLD_NS (where the receipt timeout needs 3 announce
 * intervals in a row by default). While a Follow_Up waits for its Sync (it came first:
 * port_sync_awaited()), the lazy socket wakes the loop too, so that the Sync is measured when it
 * comes, not a Sync interval later. So it does while UNCALIBRATED: at 4 Syncs a second or more
 * only every other Follow_Up wakes the loop (transport-l2.c), and each step to SLAVE (the first
 * Delay_Resp, the frequency estimate, the step, the lock) then waited for the next wakeup, two
 * Sync intervals: 1.25-1.35 s from UNCALIBRATED to SLAVE at Sync 8/s in test-port's
 * test_fast_start_lazy against 1.10 s with the socket watched, for a few wakeups more once.
 */
#define LAZY_MAX_FRAMES 64
#define LAZY_HOLD_NS (30 * NS_PER_SEC)

static void lazy_watch(struct port_loop *l)
{
	enum port_state s = port_get_state(l->port);
	ns_t now;
	bool watch;

	if (l->lazy_fd < 0) {
		return;
	}
	now = port_loop_now(l);
	if (l->rx_frames > LAZY_MAX_FRAMES) {
		l->rx_busy_until = now + LAZY_HOLD_NS;
	}
	if (now - l->rx_window >= NS_PER_SEC) {
		l->rx_window = now;
		l->rx_frames = 0;
	}
	watch = now < l->rx_busy_until || s != PORT_STATE_SLAVE || port_sync_awaited(l->port);
	if (watch != l->lazy_watched && evloop_io_watch(&l->ev, l->lazy_fd, watch) == 0) {
		l->lazy_watched = watch;
	}
}

void port_loop_rearm(struct port_loop *l)
{
	lazy_watch(l);
	/* INT64_MAX (none) is EVLOOP_OFF; a deadline already past fires at once. */
	evloop_timer_set(&l->ev, l->timer, port_next_deadline(l->port));
}

static void read_frames(struct port_loop *l);

static void on_timer(struct evloop *e, void *userdata)
{
	struct port_loop *l = userdata;

	/* What the lazy socket holds came before this timer's time. */
	if (l->lazy_fd >= 0 && !l->lazy_watched) {
		read_frames(l);
	}
	engine_result(l, "timer", port_tick(l->port, port_loop_now(l)));
	ran(l, true);
	port_loop_rearm(l);
}

/*
 * What waits on the socket, in batches of one system call each (recvmmsg), at most 64 frames a
 * wakeup so that the loop stays fair to IPC and timers under a flood. A batch shorter than asked
 * means the socket is empty, so no read is spent finding it so (EAGAIN). One frame per wakeup
 * would leave a stopped worker's backlog in the socket while its overdue timers ran: after
 * SIGSTOP and SIGCONT its port would go FAULTY on a failed send.
 */
static void read_frames(struct port_loop *l)
{
	struct transport_frame f[TRANSPORT_RX_BATCH];
	struct port_address from;

	for (int b = 0; b < 64 / TRANSPORT_RX_BATCH; b++) {
		int n = transport_recv_batch(l->transport, f, ARRAY_SIZE(f));

		l->rx_frames += n > 0 ? (unsigned int) n : 0;
		for (int k = 0; k < n; k++) {
			if (f[k].len == TRANSPORT_RX_VLAN_TAGGED) {
				(void) port_count_ignored(l->port, PORT_CNT_VLAN_TAGGED);
			}
			if (f[k].len < 0) {
				continue;
			}
			/* Management answers are rate-limited per source (port-mgmt.h). */
			_Static_assert(sizeof(l->mgmt.src) == sizeof(f[k].info.src), "one address");
			memcpy(l->mgmt.src, f[k].info.src, sizeof(l->mgmt.src));
			from.len = f[k].info.src_len <= sizeof(from.bytes) ? f[k].info.src_len : 0;
			memcpy(from.bytes, f[k].info.src, sizeof(from.bytes));
			engine_result(
				l, "receive",
				port_receive_from(l->port, f[k].buf, (size_t) f[k].len,
						  f[k].info.has_ts ? f[k].info.ts : PORT_TS_NONE,
						  &from, port_loop_now(l)));
		}
		if (n < (int) ARRAY_SIZE(f)) {
			break;
		}
	}
}

static void on_frame(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct port_loop *l = userdata;
	bool tick = false;
	ns_t now;

	read_frames(l);
	/* Awake anyway: run the timers that allow slack now, rather than wake up for them. */
	now = port_loop_now(l);
	if (port_next_due(l->port) <= now) {
		engine_result(l, "timer", port_tick(l->port, now));
		tick = true;
	}
	ran(l, tick);
	port_loop_rearm(l);
}

int port_loop_init(struct port_loop *l, const struct port_ops *ops)
{
	sigset_t mask;
	int r;

	memset(l, 0, sizeof(*l));
	l->mode = ops;
	l->lazy_fd = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	r = evloop_init(&l->ev, &mask);
	if (r < 0) {
		return r;
	}
	l->timer = evloop_add_timer(&l->ev, on_timer, l);
	return l->timer < 0 ? l->timer : 0;
}

int port_loop_virtual_clock(struct port_loop *l, clockid_t raw_id,
			    const struct instance_options *io)
{
	struct clock_virtual_config vc = {
		.initial_offset = io->virtual_clock.initial_offset_ns,
		.freq_error_ppb = io->virtual_clock.initial_freq_ppb,
	};
	int r;

	r = clock_freerun_new(raw_id, &l->raw);
	if (r < 0) {
		return r;
	}
	return clock_virtual_new(l->raw, &vc, &l->clock);
}

int port_loop_new_port(struct port_loop *l, const struct port_config *pc)
{
	int r;

	r = port_new(pc, l->clock, &loop_port_ops, l, &l->port);
	if (r < 0) {
		return r;
	}
	l->mgmt.port = l->port;
	l->mgmt.transport = l->transport;
	return 0;
}

int port_loop_run(struct port_loop *l)
{
	int fds[TRANSPORT_FDS_MAX], n, r;

	/* Every receiving socket (UDP has two, ports 319 and 320); on_frame reads them all. */
	n = transport_rx_fds(l->transport, fds);
	for (int k = 0; k < n; k++) {
		r = evloop_add_io(&l->ev, fds[k], on_frame, l);
		if (r < 0) {
			return r;
		}
	}
	/* Watched until the port is a SLAVE (lazy_watch()). */
	l->lazy_fd = transport_lazy_fd(l->transport);
	if (l->lazy_fd >= 0) {
		r = evloop_add_io(&l->ev, l->lazy_fd, on_frame, l);
		if (r < 0) {
			return r;
		}
		l->lazy_watched = true;
	}
	r = port_start(l->port, port_loop_now(l));
	if (r < 0) {
		return r;
	}
	port_loop_rearm(l);
	return evloop_run(&l->ev);
}

void port_loop_done(struct port_loop *l)
{
	/* Unicast grants cancelled while the sockets are still there (16.1.3). */
	if (l->port && l->transport) {
		(void) port_shutdown(l->port, port_loop_now(l));
	}
	l->port = port_free(l->port);
	l->clock = clock_free(l->clock);
	l->raw = clock_free(l->raw);
	l->transport = transport_free(l->transport);
	evloop_done(&l->ev);
}
