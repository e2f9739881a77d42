/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small epoll loop for phcd-port: a few fds, a few one-shot CLOCK_MONOTONIC timers, signals. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * The worker needs only this much of an event loop, and without libsystemd it maps libc, libm and
 * libinih alone (docs/architecture.md, "Supervisor"). Everything is fixed-size: no allocation.
 */
#define EVLOOP_MAX_IO 4
#define EVLOOP_MAX_TIMERS 2
/* A timer's `when` that means off. */
#define EVLOOP_OFF INT64_MAX

struct evloop;
/* An fd is readable (or hung up, or in error: revents says which, as epoll does). */
typedef void (*evloop_io_fn)(struct evloop *e, int fd, uint32_t revents, void *userdata);
/* A timer's time came; it is off again until the callback (or anyone) sets it. */
typedef void (*evloop_timer_fn)(struct evloop *e, void *userdata);

struct evloop {
	int epfd;
	int sigfd;   /* the exit signals, or -1 */
	int timerfd; /* CLOCK_MONOTONIC, armed for the earliest timer */
	ns_t armed;  /* what timerfd is armed for, EVLOOP_OFF when disarmed */
	bool exiting;
	bool in_turn; /* dispatching: `now` is this turn's time */
	ns_t now;     /* CLOCK_MONOTONIC when this turn's epoll_wait returned */
	int exit_code;
	size_t n_io, n_timers;
	struct {
		int fd;
		evloop_io_fn fn;
		void *userdata;
	} io[EVLOOP_MAX_IO];
	struct {
		ns_t when;
		evloop_timer_fn fn;
		void *userdata;
	} timer[EVLOOP_MAX_TIMERS];
};

/* CLOCK_MONOTONIC in ns: what timers are set in. */
ns_t evloop_now(void);
/*
 * CLOCK_MONOTONIC in ns as of this turn of the loop: read once when epoll_wait returned and
 * shared by every callback of the turn (the fds ready, then the timers due), where a read per
 * frame and per callback were 8-9 a wakeup. Outside evloop_run()'s callbacks, the clock
 * (evloop_now()). For deadlines and ages, never for a timestamp.
 */
ns_t evloop_time(const struct evloop *e);
/*
 * An empty loop. exit_signals (may be NULL) are blocked and read through a signalfd: any of them
 * ends the loop with exit code 0.
 */
int evloop_init(struct evloop *e, const sigset_t *exit_signals);
/* Watch fd for input (EPOLLIN; hang-up and errors come too). The fd stays the caller's. */
int evloop_add_io(struct evloop *e, int fd, evloop_io_fn fn, void *userdata);
/*
 * Watch an added fd for input or not (hang-up and errors come either way): 0 or -errno. An fd
 * not watched is read when something else wakes the loop.
 */
int evloop_io_watch(struct evloop *e, int fd, bool input);
/* A timer, off until evloop_timer_set(). Returns its id (>= 0) or -ENOSPC. */
int evloop_add_timer(struct evloop *e, evloop_timer_fn fn, void *userdata);
/* Fire timer id once at `when` (CLOCK_MONOTONIC ns; a past time fires at once), or EVLOOP_OFF. */
void evloop_timer_set(struct evloop *e, int id, ns_t when);
/* End evloop_run() with code once the current callback returns. */
void evloop_exit(struct evloop *e, int code);
/* Dispatch until evloop_exit() or an exit signal. Returns the exit code, or -errno. */
int evloop_run(struct evloop *e);
/* Close the loop's own fds (never the watched ones). Safe after any evloop_init(), failed or not.
 */
void evloop_done(struct evloop *e);
