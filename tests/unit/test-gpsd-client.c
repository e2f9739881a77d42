/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The gpsd client against a fake gpsd on a socket: the watch, reports, bad lines, loss,
 * reconnection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/gpsd-client.h"
#include "daemon/gpsd-json.h"
#include "daemon/gpsd-view.h"

#define REPORTS_MAX 64

struct seen {
	struct time_source_report r[REPORTS_MAX];
	size_t n;
};

static void on_report(const struct time_source_report *r, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < REPORTS_MAX) {
		s->r[s->n] = *r;
	}
	s->n++;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Run the loop until the nth report (from 0) has come, or fail after ms. */
static const struct time_source_report *wait_report(sd_event *e, struct seen *s, size_t nth,
						    unsigned int ms)
{
	uint64_t end = mono_ms() + ms;

	while (s->n <= nth) {
		if (mono_ms() > end) {
			fail_msg("expected report %zu within %u ms; %zu came, the last: %s", nth,
				 ms, s->n, s->n ? s->r[s->n - 1].reason : "none");
		}
		assert_true(sd_event_run(e, 10 * 1000) >= 0);
	}
	return &s->r[nth];
}

/* Run the loop until the client has read n reports from gpsd, or fail. */
static void wait_reports_read(sd_event *e, struct gpsd_client *c, uint64_t n)
{
	struct gpsd_client_counters k;
	uint64_t end = mono_ms() + 5000;

	for (gpsd_client_get_counters(c, &k); k.reports < n; gpsd_client_get_counters(c, &k)) {
		if (mono_ms() > end) {
			fail_msg("expected %llu reports read within 5 s, %llu were",
				 (unsigned long long) n, (unsigned long long) k.reports);
		}
		assert_true(sd_event_run(e, 10 * 1000) >= 0);
	}
}

/* Run the loop until the listening socket has a connection, and accept it. */
static int wait_accept(sd_event *e, int lfd, unsigned int ms)
{
	uint64_t end = mono_ms() + ms;

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd >= 0) {
			return fd;
		}
		assert_int_equal(errno, EAGAIN);
		if (mono_ms() > end) {
			fail_msg("expected the client to connect within %u ms", ms);
		}
		assert_true(sd_event_run(e, 10 * 1000) >= 0);
	}
}

/* The client's first words: exactly the watch gpsd_json(5) describes, with PPS and TOFF. */
static void expect_watch(sd_event *e, int fd)
{
	static const char want[] = "?WATCH={\"enable\":true,\"json\":true,\"pps\":true};\n";
	char buf[128];
	size_t got = 0;
	uint64_t end = mono_ms() + 5000;

	while (got < sizeof(want) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (mono_ms() > end) {
			fail_msg("expected the WATCH command, got %zu bytes", got);
		}
		assert_true(sd_event_run(e, 1000) >= 0);
		if (poll(&p, 1, 10) <= 0) {
			continue;
		}
		n = read(fd, buf + got, sizeof(buf) - got);
		assert_true(n > 0);
		got += (size_t) n;
	}
	assert_int_equal(got, sizeof(want) - 1);
	assert_memory_equal(buf, want, sizeof(want) - 1);
}

static void send_text(int fd, const char *text)
{
	size_t n = strlen(text);

	assert_int_equal(send(fd, text, n, MSG_NOSIGNAL), (ssize_t) n);
}

static const char tpv_fix[] = "{\"class\":\"TPV\",\"device\":\"/dev/pts/"
			      "1\",\"mode\":3,\"time\":\"2026-12-07T07:09:46.000Z\","
			      "\"leapseconds\":18,\"ept\":0.005,\"lat\":48.1173}\r\n";
static const char toff[] = "{\"class\":\"TOFF\",\"device\":\"/dev/pts/1\",\"real_sec\":1796627386, "
			   "\"real_nsec\":0,\"clock_sec\":1796627386,\"clock_nsec\":20406054}\r\n";
static const char tpv_nofix[] = "{\"class\":\"TPV\",\"device\":\"/dev/pts/1\",\"mode\":1,"
				"\"time\":\"2026-12-07T07:09:48.000Z\",\"ept\":0.005}\r\n";

struct fixture {
	char dir[64];
	char path[128];
	int lfd;
	sd_event *e;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/phcd-gpsd-client.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/gpsd.sock", f->dir);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	memcpy(sa.sun_path, f->path, strlen(f->path));
	assert_int_equal(bind(f->lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(f->lfd, 4), 0);
	assert_int_equal(sd_event_new(&f->e), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->lfd);
	unlink(f->path);
	rmdir(f->dir);
	sd_event_unref(f->e);
	free(f);
	return 0;
}

/*
 * The whole life: the watch sent, a fix with TOFF -> ok with the offset and TAI - UTC; junk and an
 * overlong line counted and dropped, the connection kept; the fix lost -> not ok; gpsd gone -> not
 * ok, and the client back on its own once gpsd listens again.
 */
static void test_session(void **state)
{
	struct fixture *f = *state;
	struct gpsd_client *c = NULL;
	struct gpsd_client_counters k;
	const struct time_source_report *r;
	struct seen s = { 0 };
	static char longline[GPSD_JSON_LINE_MAX + 100];
	int fd;

	assert_int_equal(gpsd_client_new(f->e, f->path, on_report, &s, &c), 0);
	assert_int_equal(s.n, 0); /* no callback from the constructor */
	fd = wait_accept(f->e, f->lfd, 5000);
	expect_watch(f->e, fd);
	r = wait_report(f->e, &s, 0, 5000);
	assert_false(r->ok);
	assert_string_equal(r->reason, "gpsd: connected, no TPV report yet");
	send_text(fd,
		  "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,"
		  "\"proto_minor\":14}\r\n");
	send_text(fd, "{\"class\":\"WATCH\",\"enable\":true,\"json\":true,\"pps\":true}\r\n");
	send_text(fd, tpv_fix);
	r = wait_report(f->e, &s, 1, 5000);
	assert_false(r->ok);
	assert_string_equal(r->reason, "gpsd: a fix, no PPS or TOFF report for 3 s");
	send_text(fd, toff);
	r = wait_report(f->e, &s, 2, 5000);
	assert_true(r->ok);
	assert_string_equal(r->reason, "gpsd: a fix, time of day (TOFF)");
	assert_true(r->has_offset);
	assert_int_equal(r->offset_ns, -20406054);
	assert_int_equal(r->realtime_ns, INT64_C(1796627386020406054));
	assert_true(r->utc_offset_valid);
	assert_int_equal(r->utc_offset, 37);
	assert_int_equal(r->max_error_ns, 5000000);
	/* the same fix again: no report (nothing changed); a TOFF: a report (a new measurement) */
	send_text(fd, tpv_fix);
	send_text(fd, toff);
	r = wait_report(f->e, &s, 3, 5000);
	assert_true(r->ok);
	assert_int_equal(s.n, 4);
	/* junk, a line past the bound (in pieces), a line with a NUL: dropped, the connection kept
	 */
	send_text(fd, "{\"class\":\"TPV\",\"mode\":7}\r\nnot json\n");
	memset(longline, 'x', sizeof(longline));
	longline[0] = '{';
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	send_text(fd, longline);
	assert_int_equal(send(fd, "{\"class\":\"TPV\",\0\"mode\":1}\n", 26, MSG_NOSIGNAL), 26);
	/* then the fix lost */
	send_text(fd, tpv_nofix);
	r = wait_report(f->e, &s, 4, 5000);
	assert_false(r->ok);
	assert_string_equal(r->reason, "gpsd: no fix");
	assert_false(r->utc_offset_valid); /* that TPV had no leapseconds */
	gpsd_client_get_counters(c, &k);
	assert_int_equal(k.connects, 1);
	assert_int_equal(k.disconnects, 0);
	assert_int_equal(k.malformed, 3);
	assert_int_equal(k.overlong, 1);
	assert_int_equal(k.reports, 7); /* VERSION, WATCH, TPV, TOFF, TPV, TOFF, TPV */
	/* gpsd goes */
	close(fd);
	r = wait_report(f->e, &s, 5, 5000);
	assert_false(r->ok);
	assert_false(r->has_offset);
	assert_string_equal(r->reason, "gpsd: connection closed");
	/* and is back: the client reconnects (first backoff 0.5 s) and watches again */
	fd = wait_accept(f->e, f->lfd, 5000);
	expect_watch(f->e, fd);
	r = wait_report(f->e, &s, 6, 5000);
	assert_string_equal(r->reason, "gpsd: connected, no TPV report yet");
	send_text(fd, tpv_fix);
	send_text(fd, toff);
	r = wait_report(f->e, &s, 8, 5000);
	assert_true(r->ok);
	gpsd_client_get_counters(c, &k);
	assert_int_equal(k.connects, 2);
	assert_int_equal(k.disconnects, 1);
	/* silence: after GPSD_VIEW_STALE_USEC the timer says so, with the connection still open */
	r = wait_report(f->e, &s, 9, 5000);
	assert_false(r->ok);
	assert_string_equal(r->reason, "gpsd: no TPV report for 3 s");
	close(fd);
	c = gpsd_client_free(c);
	assert_null(c);
}

/*
 * The backoff: a gpsd that takes the connection and closes it without a word is retried later
 * and later (0.5, 1, 2 s); one that answered before closing is retried after 0.5 s each time.
 */
static void test_backoff(void **state)
{
	struct fixture *f = *state;
	struct gpsd_client *c = NULL;
	struct seen s = { 0 };
	uint64_t closed = 0, waited = 0;
	int fd;

	assert_int_equal(gpsd_client_new(f->e, f->path, on_report, &s, &c), 0);
	for (int k = 0; k < 3; k++) {
		fd = wait_accept(f->e, f->lfd, 5000);
		waited = mono_ms() - closed;
		expect_watch(f->e, fd);
		close(fd);
		closed = mono_ms();
	}
	fd = wait_accept(f->e, f->lfd, 5000);
	waited = mono_ms() - closed;
	if (waited < 1900) {
		fail_msg("expected the 3rd retry after a silent gpsd 2 s later, it came after %llu "
			 "ms",
			 (unsigned long long) waited);
	}
	for (int k = 0; k < 3; k++) {
		expect_watch(f->e, fd);
		send_text(fd, "{\"class\":\"VERSION\",\"release\":\"3.22\"}\n");
		wait_reports_read(f->e, c, (uint64_t) k + 1);
		close(fd);
		closed = mono_ms();
		fd = wait_accept(f->e, f->lfd, 5000);
		waited = mono_ms() - closed;
	}
	if (waited >= 1500) {
		fail_msg("expected the retry after a gpsd that answered 0.5 s later, it came after "
			 "%llu ms",
			 (unsigned long long) waited);
	}
	close(fd);
	gpsd_client_free(c);
}

/* No gpsd: not ok with the reason, retried with backoff, never an error to the caller. */
static void test_absent(void **state)
{
	struct fixture *f = *state;
	struct gpsd_client *c = NULL;
	struct seen s = { 0 };
	char path[160];
	const struct time_source_report *r;
	uint64_t t0 = mono_ms();

	snprintf(path, sizeof(path), "%s/absent.sock", f->dir);
	assert_int_equal(gpsd_client_new(f->e, path, on_report, &s, &c), 0);
	r = wait_report(f->e, &s, 0, 5000);
	assert_false(r->ok);
	assert_string_equal(r->reason, "gpsd: cannot connect");
	/* the same reason at each retry is no new report */
	while (mono_ms() - t0 < 1700) {
		assert_true(sd_event_run(f->e, 10 * 1000) >= 0);
	}
	assert_int_equal(s.n, 1);
	gpsd_client_free(c);
}

/* TCP, as gpsd listens: a numeric address, a non-blocking connect, a line in many reads. */
static void test_tcp(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct gpsd_client *c = NULL;
	struct seen s = { 0 };
	char address[64];
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), fd;

	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *) &sa, &len), 0);
	snprintf(address, sizeof(address), "127.0.0.1:%u", ntohs(sa.sin_port));
	assert_int_equal(gpsd_client_new(f->e, address, on_report, &s, &c), 0);
	fd = wait_accept(f->e, lfd, 5000);
	expect_watch(f->e, fd);
	/* a byte at a time, the client reading between them: lines put together across reads */
	for (const char *p = tpv_fix; *p; p++) {
		assert_int_equal(send(fd, p, 1, MSG_NOSIGNAL), 1);
		assert_true(sd_event_run(f->e, 0) >= 0);
	}
	send_text(fd, toff);
	assert_true(wait_report(f->e, &s, 2, 5000)->ok);
	close(fd);
	close(lfd);
	gpsd_client_free(c);
}

static void test_address(void **state)
{
	static const char *const bad[] = {
		"",
		"localhost",
		"localhost:",
		"localhost:0",
		"localhost:65536",
		"localhost:2947x",
		"localhost:002947",
		"gpsd.example:2947", /* no name lookup */
		"1.2.3:2947",
		"[::1]",
		"[::1:2947",
		"[nothing]:2947",
		"::1:2947",
		"gpsd.sock",
		"/a/path/longer/than/a/unix/socket/path/can/be/a/path/longer/than/a/unix/socket/"
		"path/"
		"can/be/a/path/longer/than",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	struct gpsd_client *c = NULL;

	(void) state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		if (gpsd_address_parse(bad[k], &ss, &len) != -EINVAL) {
			fail_msg("%s: expected -EINVAL", bad[k]);
		}
	}
	assert_int_equal(gpsd_address_parse(GPSD_ADDRESS_DEFAULT, &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(((struct sockaddr_in *) &ss)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	assert_int_equal(ntohs(((struct sockaddr_in *) &ss)->sin_port), 2947);
	assert_int_equal(gpsd_address_parse("[::1]:2947", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(gpsd_address_parse("192.0.2.7:65535", &ss, &len), 0);
	assert_int_equal(ntohs(((struct sockaddr_in *) &ss)->sin_port), 65535);
	assert_int_equal(gpsd_address_parse("/run/gpsd.json", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_UNIX);
	/* the constructor refuses what the parser refuses, and takes NULL as the default */
	assert_int_equal(gpsd_client_new(NULL, "localhost", on_report, NULL, &c), -EINVAL);
	assert_null(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp, setup, teardown),
		cmocka_unit_test(test_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
