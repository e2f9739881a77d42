// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon/evloop: fds and timers are dispatched, timers in time order and never early, signals end
 * it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cmocka.h>

#include "worker/evloop.h"
#include "ptp/util.h"

#define MS NS_PER_MSEC

struct rec {
	int fired[8]; /* which timer (or fd source) fired, in order */
	ns_t at[8];
	int n;
	int exit_after; /* evloop_exit(e, 100 + n) once this many have fired */
	int fd_read;
	uint32_t revents;
	int again_id; /* a timer that sets itself again, or -1 */
};

static void note(struct evloop *e, struct rec *r, int what)
{
	if (r->n < (int) ARRAY_SIZE(r->fired)) {
		r->fired[r->n] = what;
		r->at[r->n] = evloop_now();
	}
	r->n++;
	if (r->n == r->exit_after) {
		evloop_exit(e, 100 + r->n);
	}
}

static void on_timer0(struct evloop *e, void *userdata)
{
	struct rec *r = userdata;

	note(e, r, 0);
	if (r->again_id == 0) {
		evloop_timer_set(e, 0, evloop_now() + 1 * MS);
	}
}

static void on_timer1(struct evloop *e, void *userdata)
{
	note(e, userdata, 1);
}

static void on_io(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct rec *r = userdata;
	char c;

	r->revents = revents;
	if (read(fd, &c, 1) == 1) {
		r->fd_read++;
	}
	note(e, r, 10);
}

/* Two timers set out of order fire in time order, each at or after its time. */
static void test_timers_in_order(void **state)
{
	struct rec r = { .exit_after = 2, .again_id = -1 };
	struct evloop e;
	ns_t t0;

	assert_int_equal(evloop_init(&e, NULL), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer0, &r), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer1, &r), 1);
	t0 = evloop_now();
	evloop_timer_set(&e, 0, t0 + 20 * MS);
	evloop_timer_set(&e, 1, t0 + 5 * MS);
	assert_int_equal(evloop_run(&e), 102);
	assert_int_equal(r.fired[0], 1);
	assert_int_equal(r.fired[1], 0);
	assert_true(r.at[0] >= t0 + 5 * MS);
	assert_true(r.at[1] >= t0 + 20 * MS);
	evloop_done(&e);
}

/* A timer in the past fires at once; one set off never fires; a timer may set itself again. */
static void test_timer_past_off_again(void **state)
{
	struct rec r = { .exit_after = 3, .again_id = 0 };
	struct evloop e;

	assert_int_equal(evloop_init(&e, NULL), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer0, &r), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer1, &r), 1);
	evloop_timer_set(&e, 0, evloop_now() - 1000 * MS);
	evloop_timer_set(&e, 1, evloop_now() + 2 * MS);
	evloop_timer_set(&e, 1, EVLOOP_OFF);
	assert_int_equal(evloop_run(&e), 103);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r.fired[i], 0);
	}
	assert_true(r.at[2] - r.at[1] >= 1 * MS);
	evloop_done(&e);
}

/* A readable fd reaches its callback with EPOLLIN; a closed writer brings EPOLLHUP. */
static void test_io(void **state)
{
	struct rec r = { .exit_after = 1, .again_id = -1 };
	struct evloop e;
	int p[2];

	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(evloop_init(&e, NULL), 0);
	assert_int_equal(evloop_add_io(&e, p[0], on_io, &r), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(evloop_run(&e), 101);
	assert_int_equal(r.fd_read, 1);
	assert_true(r.revents & EPOLLIN);

	/* The exit code is kept; a second run dispatches again once it is cleared. */
	close(p[1]);
	e.exiting = false;
	r.exit_after = 2;
	assert_int_equal(evloop_run(&e), 102);
	assert_true(r.revents & EPOLLHUP);
	evloop_done(&e);
	close(p[0]);
}

struct move {
	struct rec rec;
	ns_t to; /* where the io callback moves timer 0 */
};

static void on_io_move(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct move *m = userdata;
	char c;

	if (read(fd, &c, 1) == 1) {
		m->to += evloop_now();
		evloop_timer_set(e, 0, m->to);
	}
}

/*
 * A timer moved by a callback fires at its new time: moved earlier, not at the old one (the
 * timerfd is armed again); moved later, not early (the old arming does not fire it).
 */
static void test_timer_moved(void **state)
{
	static const ns_t first[] = { 400 * MS, 2 * MS }, moved[] = { 5 * MS, 40 * MS };

	for (size_t k = 0; k < ARRAY_SIZE(first); k++) {
		struct move m = { .rec = { .exit_after = 1, .again_id = -1 }, .to = moved[k] };
		struct evloop e;
		ns_t t0;
		int p[2];

		assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
		assert_int_equal(evloop_init(&e, NULL), 0);
		assert_int_equal(evloop_add_timer(&e, on_timer0, &m.rec), 0);
		assert_int_equal(evloop_add_io(&e, p[0], on_io_move, &m), 0);
		t0 = evloop_now();
		evloop_timer_set(&e, 0, t0 + first[k]);
		assert_int_equal(write(p[1], "x", 1), 1);
		assert_int_equal(evloop_run(&e), 101);
		assert_int_equal(m.rec.fired[0], 0);
		assert_true(m.rec.at[0] >= m.to);
		if (moved[k] < first[k]) {
			assert_true(m.rec.at[0] < t0 + first[k]);
		}
		evloop_done(&e);
		close(p[0]);
		close(p[1]);
	}
}

struct turn {
	ns_t seen[4]; /* evloop_time() in each callback, in order */
	ns_t when;    /* timer 0's time */
	int n;
};

static void turn_note(struct evloop *e, struct turn *t)
{
	if (t->n < (int) ARRAY_SIZE(t->seen)) {
		t->seen[t->n] = evloop_time(e);
	}
	t->n++;
}

/* Reads its byte, notes the turn's time, and takes 2 ms doing so. */
static void on_io_slow(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	char c;

	assert_int_equal(read(fd, &c, 1), 1);
	turn_note(e, userdata);
	assert_int_equal(usleep(2000), 0);
}

static void on_timer_turn(struct evloop *e, void *userdata)
{
	struct turn *t = userdata;

	turn_note(e, t);
	/* Due by the turn's time, never early by it; once again, in a later turn. */
	assert_true(t->seen[t->n - 1] >= t->when);
	if (t->n == 3) {
		t->when = evloop_time(e) + 1 * MS;
		evloop_timer_set(e, 0, t->when);
	} else {
		evloop_exit(e, 7);
	}
}

/*
 * evloop_time(): one reading of the clock per turn, shared by the callbacks of that turn (two fds
 * ready and a timer due, though each fd callback takes 2 ms), a later one in the next turn, and
 * outside the loop the clock itself.
 */
static void test_turn_time(void **state)
{
	struct turn t = { .n = 0 };
	struct evloop e;
	ns_t t0, t1;
	int a[2], b[2];

	assert_int_equal(pipe2(a, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(pipe2(b, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(evloop_init(&e, NULL), 0);
	assert_int_equal(evloop_add_io(&e, a[0], on_io_slow, &t), 0);
	assert_int_equal(evloop_add_io(&e, b[0], on_io_slow, &t), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer_turn, &t), 0);
	t0 = evloop_time(&e);
	t.when = t0;
	evloop_timer_set(&e, 0, t.when);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "x", 1), 1);
	assert_int_equal(evloop_run(&e), 7);
	t1 = evloop_time(&e);
	assert_int_equal(t.n, 4);
	assert_true(t.seen[0] >= t0);
	assert_true(t.seen[1] == t.seen[0]);
	assert_true(t.seen[2] == t.seen[0]);
	/* The second turn came 1 ms after the first's time at least: its own reading. */
	assert_true(t.seen[3] >= t.seen[0] + 1 * MS);
	/* Outside a turn, the clock: past the first turn's 4 ms of callbacks. */
	assert_true(t1 >= t.seen[0] + 4 * MS);
	assert_true(evloop_time(&e) >= t1);
	evloop_done(&e);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/* A fixed number of sources: the next one is refused, not written past the end. */
static void test_capacity(void **state)
{
	struct rec r = { .again_id = -1 };
	struct evloop e;
	int p[2], fds[EVLOOP_MAX_IO];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(evloop_init(&e, NULL), 0);
	/* An fd epoll refuses is reported, not added. */
	assert_int_equal(evloop_add_io(&e, -1, on_io, &r), -EBADF);
	for (int i = 0; i < EVLOOP_MAX_TIMERS; i++) {
		assert_int_equal(evloop_add_timer(&e, on_timer1, &r), i);
	}
	assert_int_equal(evloop_add_timer(&e, on_timer1, &r), -ENOSPC);
	for (int i = 0; i < EVLOOP_MAX_IO; i++) {
		fds[i] = dup(p[0]);
		assert_true(fds[i] >= 0);
		assert_int_equal(evloop_add_io(&e, fds[i], on_io, &r), 0);
	}
	assert_int_equal(evloop_add_io(&e, p[0], on_io, &r), -ENOSPC);
	evloop_timer_set(&e, 99, 0); /* no such timer: ignored */
	evloop_done(&e);
	for (int i = 0; i < EVLOOP_MAX_IO; i++) {
		close(fds[i]);
	}
	close(p[0]);
	close(p[1]);
}

/* An exit signal, pending before the loop runs, ends it with 0 instead of killing the process. */
static void test_signal(void **state)
{
	struct rec r = { .again_id = -1 };
	struct evloop e;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	assert_int_equal(evloop_init(&e, &mask), 0);
	assert_int_equal(evloop_add_timer(&e, on_timer1, &r), 0);
	evloop_timer_set(&e, 0, evloop_now() + 10000 * MS);
	assert_int_equal(raise(SIGTERM), 0);
	assert_int_equal(evloop_run(&e), 0);
	assert_int_equal(r.n, 0);
	evloop_done(&e);
	assert_int_equal(e.epfd, -1);
	evloop_done(&e); /* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_in_order),
		cmocka_unit_test(test_timer_past_off_again),
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_timer_moved),
		cmocka_unit_test(test_turn_time),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_signal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
