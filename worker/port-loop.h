/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one event loop around a port engine, shared by phcd-port by hand and under phcd. */
#pragma once

#include <inttypes.h>
#include <stdbool.h>
#include <time.h>

#include "worker/evloop.h"
#include "worker/port-mgmt.h"
#include "ptp/clock.h"
#include "ptp/options.h"
#include "ptp/port.h"
#include "ptp/transport.h"

/*
 * The pieces every phcd-port holds. The mode embeds this in its own struct, fills transport and
 * clock (and raw for a virtual clock), then calls port_loop_new_port() and port_loop_run();
 * port_loop_done() frees them all.
 */
struct port_loop {
	struct evloop ev;
	int timer; /* at port_next_deadline() */
	struct transport *transport;
	struct clock *raw; /* what a virtual clock views; NULL otherwise */
	struct clock *clock;
	struct port *port;
	struct port_mgmt mgmt;	/* answers pmc -2 on this wire */
	int lazy_fd;		/* transport_lazy_fd(), or -1 */
	bool lazy_watched;	/* lazy_fd wakes the loop (port-loop.c, lazy_watch()) */
	ns_t rx_busy_until;	/* lazy_fd watched until then: a second had too many frames */
	ns_t rx_window;		/* when the current second of rx_frames began */
	unsigned int rx_frames; /* frames read since rx_window */
	/*
	 * What differs between the two modes, printing like ptp4l -m (port-cli.c) or reporting
	 * to the supervisor (port-ipc.c): the mode's engine callbacks, called with this loop as
	 * userdata (container_of finds the mode); its send and management are not used (the
	 * loop's own are).
	 */
	const struct port_ops *mode;
	/* port_receive or port_tick returned -errno (what: "receive" or "timer"); may be NULL. */
	void (*engine_error)(struct port_loop *l, const char *what, int error);
	/*
	 * After each batch of frames (tick false) and each tick of the engine's timer (true),
	 * before that timer is set again; may be NULL.
	 */
	void (*engine_ran)(struct port_loop *l, bool tick);
	/*
	 * A unicast message to a peer the transport has no sockets to (UDP): get some, 0 when it
	 * did at once (the send is tried again), -ENOTCONN when they may come later or never
	 * (the message goes to the group). NULL: always to the group.
	 */
	int (*peer_missing)(struct port_loop *l, const struct port_address *to);
};

/* CLOCK_MONOTONIC in ns: the engine's `now`, as of this turn of the loop (evloop_time()). */
ns_t port_loop_now(const struct port_loop *l);

/*
 * A servo sample as ptp4l -m prints it (offset, servo state s0..s3, frequency, path delay), for
 * tools that already read ptp4l's output: args offset, (int) servo_state, freq_ppb, path delay.
 */
#define PORT_SAMPLE_FMT "master offset %10" PRId64 " s%d freq %+7.0f path delay %9" PRId64

/*
 * An event loop with SIGTERM and SIGINT ending it (blocked first, so they arrive as events), the
 * engine's timer and the mode's engine callbacks (send and management of ops are ignored). The
 * mode may add its own sources to l->ev (one more timer, more fds: worker/evloop.h).
 */
int port_loop_init(struct port_loop *l, const struct port_ops *ops);
/* A virtual clock over raw_id (CLOCK_REALTIME or a PHC's), started off as the options say. */
int port_loop_virtual_clock(struct port_loop *l, clockid_t raw_id,
			    const struct instance_options *io);
/* The engine on l->clock, sending through l->transport; mgmt answers from it. */
int port_loop_new_port(struct port_loop *l, const struct port_config *pc);
/* port_start(), then the loop until it exits. Returns evloop_run()'s value or -errno. */
int port_loop_run(struct port_loop *l);
/* Arm the timer at the engine's next deadline (after anything that may have changed it). */
void port_loop_rearm(struct port_loop *l);
void port_loop_done(struct port_loop *l);
