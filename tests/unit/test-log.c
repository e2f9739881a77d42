// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/log: lines about one interface are rate-limited (a burst, then one a second, then an
 * "N lines suppressed" line), each interface on its own, and lines without one are not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "common/log.h"

/* Every line the logger lets through, by its sink. */
static int lines, suppressed_lines;
static char last_msg[512];

static bool count_sink(int level, const char *ident, const char *ifname, const char *object,
		       const char *msg)
{
	lines++;
	if (strstr(msg, "lines suppressed")) {
		suppressed_lines++;
	}
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	return true;
}

static void reset(void)
{
	lines = 0;
	suppressed_lines = 0;
	last_msg[0] = '\0';
}

/* A flood about one interface: 200 pass, the rest are held back. */
static void test_flood_one_interface(void **state)
{
	log_set_sink(count_sink);
	reset();
	for (int k = 0; k < 10000; k++) {
		log_port_warning("flood0", "frame %d", k);
	}
	assert_in_range(lines, 200, 201);
	assert_int_equal(suppressed_lines, 0);
	log_set_sink(NULL);
}

/* Another interface, and lines without one, are not held back by that flood. */
static void test_others_unaffected(void **state)
{
	log_set_sink(count_sink);
	reset();
	for (int k = 0; k < 300; k++) {
		log_port_warning("flood1", "frame %d", k);
	}
	assert_in_range(lines, 200, 201);
	reset();
	log_port_warning("quiet0", "one line");
	assert_int_equal(lines, 1);
	for (int k = 0; k < 1000; k++) {
		log_warning("no interface %d", k);
	}
	assert_int_equal(lines, 1001);
	log_set_sink(NULL);
}

/* After a second, one more passes, preceded by the count of those held back. */
static void test_suppressed_line(void **state)
{
	struct timespec ts = { .tv_sec = 1, .tv_nsec = 100 * 1000 * 1000 };

	log_set_sink(count_sink);
	reset();
	for (int k = 0; k < 250; k++) {
		log_port_warning("flood2", "frame %d", k);
	}
	reset();
	nanosleep(&ts, NULL);
	log_port_warning("flood2", "after a second");
	assert_int_equal(lines, 2);
	assert_int_equal(suppressed_lines, 1);
	assert_string_equal(last_msg, "after a second");
	log_set_sink(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flood_one_interface),
		cmocka_unit_test(test_others_unaffected),
		cmocka_unit_test(test_suppressed_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
