// SPDX-License-Identifier: GPL-2.0-or-later
/* A small epoll loop for phcd-port: a few fds, a few one-shot CLOCK_MONOTONIC timers, signals. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "common/time-util.h"
#include "worker/evloop.h"
#include "ptp/util.h"

/* epoll data of the signalfd and the timerfd; an io source's is its index. */
#define EVLOOP_SIGNAL_TAG UINT32_MAX
#define EVLOOP_TIMER_TAG (UINT32_MAX - 1)

ns_t evloop_now(void)
{
	return time_mono_ns();
}

ns_t evloop_time(const struct evloop *e)
{
	return e->in_turn ? e->now : evloop_now();
}

static int watch(struct evloop *e, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int evloop_init(struct evloop *e, const sigset_t *exit_signals)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->sigfd = e->timerfd = -1;
	e->armed = EVLOOP_OFF;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0) {
		return -errno;
	}
	e->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->timerfd < 0) {
		return -errno;
	}
	r = watch(e, e->timerfd, EVLOOP_TIMER_TAG);
	if (r < 0) {
		return r;
	}
	if (!exit_signals) {
		return 0;
	}
	/* Blocked, so they wait in the signalfd instead of killing us between two reads. */
	if (sigprocmask(SIG_BLOCK, exit_signals, NULL) < 0) {
		return -errno;
	}
	e->sigfd = signalfd(-1, exit_signals, SFD_NONBLOCK | SFD_CLOEXEC);
	if (e->sigfd < 0) {
		return -errno;
	}
	return watch(e, e->sigfd, EVLOOP_SIGNAL_TAG);
}

int evloop_add_io(struct evloop *e, int fd, evloop_io_fn fn, void *userdata)
{
	int r;

	if (e->n_io >= EVLOOP_MAX_IO) {
		return -ENOSPC;
	}
	r = watch(e, fd, (uint32_t) e->n_io);
	if (r < 0) {
		return r;
	}
	e->io[e->n_io].fd = fd;
	e->io[e->n_io].fn = fn;
	e->io[e->n_io].userdata = userdata;
	e->n_io++;
	return 0;
}

int evloop_io_watch(struct evloop *e, int fd, bool input)
{
	for (size_t k = 0; k < e->n_io; k++) {
		struct epoll_event ev = { .events = input ? EPOLLIN : 0, .data.u32 = (uint32_t) k };

		if (e->io[k].fd == fd) {
			return epoll_ctl(e->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
		}
	}
	return -ENOENT;
}

int evloop_add_timer(struct evloop *e, evloop_timer_fn fn, void *userdata)
{
	if (e->n_timers >= EVLOOP_MAX_TIMERS) {
		return -ENOSPC;
	}
	e->timer[e->n_timers].when = EVLOOP_OFF;
	e->timer[e->n_timers].fn = fn;
	e->timer[e->n_timers].userdata = userdata;
	return (int) e->n_timers++;
}

void evloop_timer_set(struct evloop *e, int id, ns_t when)
{
	if (id >= 0 && (size_t) id < e->n_timers) {
		e->timer[id].when = when;
	}
}

void evloop_exit(struct evloop *e, int code)
{
	if (!e->exiting) {
		e->exiting = true;
		e->exit_code = code;
	}
}

/*
 * Arm the timerfd for the earliest timer, only when that changed, and wait without a timeout: a
 * timeout on every wait would arm and cancel a kernel hrtimer at each wakeup (a timer
 * reprogramming, a VM exit under a hypervisor), while the earliest deadline changes only a few
 * times a second (Delay_Req, STATUS, Announce receipt).
 */
static int arm(struct evloop *e, ns_t until)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (until == e->armed) {
		return 0;
	}
	if (until != EVLOOP_OFF) {
		/* Absolute time 0 would disarm: a due timer fires at 1 ns. */
		until = until > 0 ? until : 1;
		its.it_value.tv_sec = until / NS_PER_SEC;
		its.it_value.tv_nsec = until % NS_PER_SEC;
	}
	if (timerfd_settime(e->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		return -errno;
	}
	e->armed = until;
	return 0;
}

static void dispatch_signal(struct evloop *e)
{
	struct signalfd_siginfo si;

	while (read(e->sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
		evloop_exit(e, 0);
	}
}

int evloop_run(struct evloop *e)
{
	struct epoll_event ev[EVLOOP_MAX_IO + 2]; /* and the signalfd, the timerfd */

	while (!e->exiting) {
		ns_t next = EVLOOP_OFF;
		int n;

		for (size_t k = 0; k < e->n_timers; k++) {
			next = e->timer[k].when < next ? e->timer[k].when : next;
		}
		n = arm(e, next);
		if (n < 0) {
			return n;
		}
		n = epoll_wait(e->epfd, ev, (int) ARRAY_SIZE(ev), -1);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		e->now = evloop_now();
		e->in_turn = true;
		/* Each ready fd once per turn, then the timers due: neither starves the other. */
		for (int i = 0; i < n && !e->exiting; i++) {
			uint32_t tag = ev[i].data.u32;

			if (tag == EVLOOP_SIGNAL_TAG) {
				dispatch_signal(e);
			} else if (tag == EVLOOP_TIMER_TAG) {
				uint64_t expirations;

				/* One-shot: it fired, so it is disarmed; the timers below are due.
				 */
				if (read(e->timerfd, &expirations, sizeof(expirations)) >= 0) {
					e->armed = EVLOOP_OFF;
				}
			} else if (tag < e->n_io) {
				e->io[tag].fn(e, e->io[tag].fd, ev[i].events, e->io[tag].userdata);
			}
		}
		for (size_t k = 0; k < e->n_timers && !e->exiting; k++) {
			if (e->timer[k].when <= e->now) {
				e->timer[k].when = EVLOOP_OFF;
				e->timer[k].fn(e, e->timer[k].userdata);
			}
		}
		e->in_turn = false;
	}
	return e->exit_code;
}

void evloop_done(struct evloop *e)
{
	if (e->sigfd >= 0) {
		close(e->sigfd);
	}
	if (e->timerfd >= 0) {
		close(e->timerfd);
	}
	if (e->epfd >= 0) {
		close(e->epfd);
	}
	e->sigfd = e->timerfd = e->epfd = -1;
}
