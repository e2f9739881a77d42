// SPDX-License-Identifier: GPL-2.0-or-later
/* A small epoll loop for phcd-port: a few fds, a few one-shot CLOCK_MONOTONIC timers, signals. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "daemon/evloop.h"
#include "ptp/util.h"

/* epoll data of the signalfd; an io source's is its index. */
#define EVLOOP_SIGNAL_TAG UINT32_MAX

ns_t evloop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static int watch(struct evloop *e, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int evloop_init(struct evloop *e, const sigset_t *exit_signals)
{
	memset(e, 0, sizeof(*e));
	e->sigfd = -1;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0) {
		return -errno;
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

/* Wait for input until `until` (EVLOOP_OFF: forever). Returns the number of events or -errno. */
static int wait_events(struct evloop *e, struct epoll_event *ev, int max, ns_t until)
{
	ns_t rel = 0;
	int n;

	if (until != EVLOOP_OFF) {
		rel = until - evloop_now();
		rel = rel > 0 ? rel : 0;
	}
	if (!e->no_pwait2) {
		/* ns resolution: a Sync interval of 125 ms is not rounded to whole ms. */
		struct timespec ts = { .tv_sec = rel / NS_PER_SEC, .tv_nsec = rel % NS_PER_SEC };

		n = epoll_pwait2(e->epfd, ev, max, until == EVLOOP_OFF ? NULL : &ts, NULL);
		if (n >= 0 || errno != ENOSYS) {
			return n < 0 ? -errno : n;
		}
		e->no_pwait2 = true;
	}
	/* Rounded up: a timer never fires before its time. */
	n = epoll_wait(e->epfd, ev, max,
		       until == EVLOOP_OFF ? -1 : (int) ((rel + NS_PER_MSEC - 1) / NS_PER_MSEC));
	return n < 0 ? -errno : n;
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
	struct epoll_event ev[EVLOOP_MAX_IO + 1];

	while (!e->exiting) {
		ns_t next = EVLOOP_OFF, now;
		int n;

		for (size_t k = 0; k < e->n_timers; k++) {
			next = e->timer[k].when < next ? e->timer[k].when : next;
		}
		n = wait_events(e, ev, (int) ARRAY_SIZE(ev), next);
		if (n == -EINTR) {
			continue;
		}
		if (n < 0) {
			return n;
		}
		/* Each ready fd once per turn, then the timers due: neither starves the other. */
		for (int i = 0; i < n && !e->exiting; i++) {
			uint32_t tag = ev[i].data.u32;

			if (tag == EVLOOP_SIGNAL_TAG) {
				dispatch_signal(e);
			} else if (tag < e->n_io) {
				e->io[tag].fn(e, e->io[tag].fd, ev[i].events, e->io[tag].userdata);
			}
		}
		now = evloop_now();
		for (size_t k = 0; k < e->n_timers && !e->exiting; k++) {
			if (e->timer[k].when <= now) {
				e->timer[k].when = EVLOOP_OFF;
				e->timer[k].fn(e, e->timer[k].userdata);
			}
		}
	}
	return e->exit_code;
}

void evloop_done(struct evloop *e)
{
	if (e->sigfd >= 0) {
		close(e->sigfd);
	}
	if (e->epfd >= 0) {
		close(e->epfd);
	}
	e->sigfd = e->epfd = -1;
}
