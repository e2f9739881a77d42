/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chronyd's SOCK refclock sample: bytes where chronyd reads them; a missing or dead socket is told.
 */
#include <errno.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/refclock-sock.h"

static int32_t get_i32(const uint8_t *b)
{
	int32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static int64_t get_i64(const uint8_t *b)
{
	int64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static double get_double(const uint8_t *b)
{
	double v;

	memcpy(&v, b, sizeof(v));
	return v;
}

/*
 * chrony's struct sock_sample on x86-64 (LP64): tv_sec 0..7, tv_usec 8..15, offset 16..23,
 * pulse 24, leap 28, padding 32, magic 36: 40 bytes, little-endian, as chronyd 4.3 reads it.
 */
static void test_layout_lp64(void **state)
{
	const struct refclock_sample s = {
		.sys = 1700000000 * NS_PER_SEC + 123456789,
		.offset = -1500,
		.leap = 1,
	};
	uint8_t b[REFCLOCK_SOCK_SAMPLE_MAX];

	(void) state;
	if (sizeof(long) != 8) {
		skip();
	}
	memset(b, 0xee, sizeof(b));
	assert_int_equal(refclock_sock_sample_size(), 40);
	assert_int_equal(refclock_sock_encode(&s, b, sizeof(b)), 40);
	assert_int_equal(get_i64(b), 1700000000);
	assert_int_equal(get_i64(b + 8), 123456); /* rounded down to the microsecond */
	assert_true(get_double(b + 16) == -1500 / 1e9);
	assert_int_equal(get_i32(b + 24), 0); /* not a pulse: whole seconds */
	assert_int_equal(get_i32(b + 28), 1); /* insert */
	assert_int_equal(get_i32(b + 32), 0);
	assert_memory_equal(b + 36, "KCOS", 4); /* 0x534f434b little-endian */
	assert_int_equal(get_i32(b + 36), REFCLOCK_SOCK_MAGIC);
	assert_int_equal(b[40], 0xee); /* nothing past the sample */
}

/* Leap: chronyd's 0 normal, 1 insert, 2 delete. */
static void test_leap(void **state)
{
	static const struct {
		int leap;
		int32_t wire;
	} cases[] = { { 0, 0 }, { 1, 1 }, { -1, 2 } };
	uint8_t b[REFCLOCK_SOCK_SAMPLE_MAX];
	size_t leap_at = refclock_sock_sample_size() - 3 * sizeof(int32_t);

	(void) state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct refclock_sample s = { .sys = NS_PER_SEC, .leap = cases[k].leap };

		assert_int_equal(refclock_sock_encode(&s, b, sizeof(b)),
				 (int) refclock_sock_sample_size());
		assert_int_equal(get_i32(b + leap_at), cases[k].wire);
	}
}

/* What cannot be said is refused, never truncated or wrapped. */
static void test_refused(void **state)
{
	uint8_t b[REFCLOCK_SOCK_SAMPLE_MAX];
	struct refclock_sample s = { .sys = NS_PER_SEC };

	(void) state;
	assert_int_equal(refclock_sock_encode(&s, b, refclock_sock_sample_size() - 1), -EMSGSIZE);
	s.sys = -1;
	assert_int_equal(refclock_sock_encode(&s, b, sizeof(b)), -ERANGE);
	s.sys = NS_PER_SEC;
	s.leap = 2;
	assert_int_equal(refclock_sock_encode(&s, b, sizeof(b)), -ERANGE);
	s.leap = -2;
	assert_int_equal(refclock_sock_encode(&s, b, sizeof(b)), -ERANGE);
}

/* A datagram reaches a bound socket; a missing one is -ENOENT, one nobody reads -ECONNREFUSED. */
static void test_send(void **state)
{
	char dir[] = "/tmp/test-refclock-XXXXXX", path[sizeof(dir) + 16];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const struct refclock_sample s = { .sys = 5 * NS_PER_SEC + 7000, .offset = 42 };
	uint8_t b[REFCLOCK_SOCK_SAMPLE_MAX];
	int rx, tx;

	(void) state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/chrony.sock", dir);
	assert_int_equal(refclock_sock_open(&tx), 0);
	assert_int_equal(refclock_sock_send(tx, path, &s), -ENOENT);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rx = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(rx >= 0);
	assert_int_equal(bind(rx, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(refclock_sock_send(tx, path, &s), 0);
	assert_int_equal(recv(rx, b, sizeof(b), 0), (ssize_t) refclock_sock_sample_size());
	assert_int_equal(get_i32(b + refclock_sock_sample_size() - 4), REFCLOCK_SOCK_MAGIC);
	close(rx);
	assert_int_equal(refclock_sock_send(tx, path, &s), -ECONNREFUSED);
	unlink(path);
	rmdir(dir);
	close(tx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_lp64),
		cmocka_unit_test(test_leap),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
