// SPDX-License-Identifier: GPL-2.0-or-later
/* The one event loop around a port engine, shared by phcd-port by hand and under phcd. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "daemon/port-loop.h"

ns_t port_loop_now(void)
{
	return evloop_now();
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

static void loop_management(void *userdata, const void *buf, size_t len)
{
	struct port_loop *l = userdata;

	port_mgmt_receive(&l->mgmt, buf, len);
}

static void engine_result(struct port_loop *l, const char *what, int r)
{
	if (r < 0 && l->engine_error) {
		l->engine_error(l, what, r);
	}
}

static void ran(struct port_loop *l, bool tick)
{
	if (l->engine_ran) {
		l->engine_ran(l, tick);
	}
}

void port_loop_rearm(struct port_loop *l)
{
	/* INT64_MAX (none) is EVLOOP_OFF; a deadline already past fires at once. */
	evloop_timer_set(&l->ev, l->timer, port_next_deadline(l->port));
}

static void on_timer(struct evloop *e, void *userdata)
{
	struct port_loop *l = userdata;

	engine_result(l, "timer", port_tick(l->port, port_loop_now()));
	ran(l, true);
	port_loop_rearm(l);
}

/*
 * One frame per readiness: epoll is level-triggered and comes back at once while more wait. A
 * batch read until EAGAIN cost a recvmsg that found the socket empty after nearly every wakeup
 * (13 a second of a worker's 56 syscalls at 8 Sync/s); ptp4l too reads one message per poll().
 * One frame per turn also keeps the loop fair to IPC and timers under a flood.
 */
static void on_frame(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct port_loop *l = userdata;
	struct transport_rx_info info;
	uint8_t buf[1536];
	int n;

	n = transport_recv(l->transport, buf, sizeof(buf), &info);
	if (n == -EAGAIN) {
		return;
	}
	if (n >= 0) {
		engine_result(l, "receive",
			      port_receive(l->port, buf, (size_t) n,
					   info.has_ts ? info.ts : PORT_TS_NONE, port_loop_now()));
	}
	ran(l, false);
	port_loop_rearm(l);
}

int port_loop_init(struct port_loop *l, const struct port_ops *ops)
{
	sigset_t mask;
	int r;

	memset(l, 0, sizeof(*l));
	l->port_ops = *ops;
	l->port_ops.send = loop_send;
	l->port_ops.management = loop_management;
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

	r = port_new(pc, l->clock, &l->port_ops, l, &l->port);
	if (r < 0) {
		return r;
	}
	l->mgmt.port = l->port;
	l->mgmt.transport = l->transport;
	return 0;
}

int port_loop_run(struct port_loop *l)
{
	int r;

	r = evloop_add_io(&l->ev, transport_fd(l->transport), on_frame, l);
	if (r < 0) {
		return r;
	}
	r = port_start(l->port, port_loop_now());
	if (r < 0) {
		return r;
	}
	port_loop_rearm(l);
	return evloop_run(&l->ev);
}

void port_loop_done(struct port_loop *l)
{
	l->port = port_free(l->port);
	l->clock = clock_free(l->clock);
	l->raw = clock_free(l->raw);
	l->transport = transport_free(l->transport);
	evloop_done(&l->ev);
}
