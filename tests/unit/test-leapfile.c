// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/leapfile.c: tzdata's leap-seconds.list parsed with its ranges checked (the line of the
 * first fault named), and what a grandmaster announces from it around a leap second.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/config-file.h"
#include "common/leapfile.h"

#include "tests/unit/config-fixture.h"

/* The tail of tzdata's file as Debian ships it, its head's comments shortened. */
static const char tzdata[] = "#\tIn the following text, the symbol '#' introduces\n"
			     "#$\t 3929093563\n"
			     "#@\t3991593600\n"
			     "#\n"
			     "3550089600\t35\t# 1 Jul 2012\n"
			     "3644697600\t36\t# 1 Jul 2015\n"
			     "3692217600\t37\t# 1 Jan 2017\n"
			     "#h\t49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e\n";

#define UNIX_2017 1483228800LL /* 1 Jan 2017 00:00:00 UTC */

static void test_tzdata(void **state)
{
	struct leap_table t;
	const char *why = NULL;
	unsigned int line = 0;

	assert_int_equal(leapfile_parse(tzdata, strlen(tzdata), &t, &line, &why), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.e[0].utc_s, 1341100800); /* 1 Jul 2012 */
	assert_int_equal(t.e[0].tai_utc, 35);
	assert_int_equal(t.e[2].utc_s, UNIX_2017);
	assert_int_equal(t.e[2].tai_utc, 37);
	assert_int_equal(t.expires_s, 3991593600LL - LEAPFILE_NTP_UNIX_DELTA);
}

/* The leap at the end of 31 Dec 2016: leap61 all that UTC day, 37 from the midnight on. */
static void test_lookup_around_leap(void **state)
{
	struct leap_table t;
	const char *why;
	unsigned int line;
	int16_t off;
	int leap;

	assert_int_equal(leapfile_parse(tzdata, strlen(tzdata), &t, &line, &why), 0);
	assert_int_equal(leapfile_lookup(&t, UNIX_2017 - 86401, &off, &leap), 0);
	assert_int_equal(off, 36);
	assert_int_equal(leap, 0);
	assert_int_equal(leapfile_lookup(&t, UNIX_2017 - 86400, &off, &leap), 0);
	assert_int_equal(off, 36);
	assert_int_equal(leap, 1);
	assert_int_equal(leapfile_lookup(&t, UNIX_2017 - 1, &off, &leap), 0);
	assert_int_equal(off, 36);
	assert_int_equal(leap, 1);
	assert_int_equal(leapfile_lookup(&t, UNIX_2017, &off, &leap), 0);
	assert_int_equal(off, 37);
	assert_int_equal(leap, 0);
	assert_int_equal(leapfile_lookup(&t, 0, &off, &leap), -ERANGE);
	assert_false(leapfile_expired(&t, t.expires_s - 1));
	assert_true(leapfile_expired(&t, t.expires_s));
}

/* A negative leap second (never yet) is leap59. */
static void test_lookup_negative(void **state)
{
	static const char text[] = "3692217600 37\n3723753600 36\n";
	struct leap_table t;
	const char *why;
	unsigned int line;
	int16_t off;
	int leap;

	assert_int_equal(leapfile_parse(text, strlen(text), &t, &line, &why), 0);
	assert_int_equal(
		leapfile_lookup(&t, 3723753600LL - LEAPFILE_NTP_UNIX_DELTA - 10, &off, &leap), 0);
	assert_int_equal(off, 37);
	assert_int_equal(leap, -1);
}

/* Each fault names its line (0: the file as a whole). */
static void test_bad_files(void **state)
{
	static const struct {
		const char *text;
		unsigned int line;
	} cases[] = {
		{ "", 0 },
		{ "# only comments\n", 0 },
		{ "2272060800\n", 1 },				  /* no offset */
		{ "2272060800 10 junk\n", 1 },			  /* trailing text */
		{ "#\n2272060800\t-10\n", 2 },			  /* sign */
		{ "2272060800 9\n", 1 },			  /* below 10 */
		{ "2272060800 1001\n", 1 },			  /* above 1000 */
		{ "2272060801 10\n", 1 },			  /* not midnight */
		{ "1000 10\n", 1 },				  /* before 1972 */
		{ "99999999999999 10\n", 1 },			  /* too many digits */
		{ "9999999999 10\n", 1 },			  /* beyond 2^33 */
		{ "2272060800 10\n2272060800 11\n", 2 },	  /* not later */
		{ "2287785600 11\n2272060800 10\n", 2 },	  /* backwards */
		{ "2272060800 10\n2287785600 12\n", 2 },	  /* two seconds */
		{ "2272060800 10\n#@ x\n", 2 },			  /* expiry without number */
		{ "2272060800 10\n#@ 2272060800\n", 0 },	  /* expires before the last */
		{ "2272060800\t10 # ok\n2287785600 1\0 1\n", 2 }, /* NUL */
		{ "x2272060800 10\n", 1 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct leap_table t;
		const char *why = NULL;
		unsigned int line = 99;
		size_t len = strlen(cases[k].text);

		if (k == 16) {
			len = 36; /* the NUL inside */
		}
		assert_int_equal(leapfile_parse(cases[k].text, len, &t, &line, &why), -EBADMSG);
		assert_non_null(why);
		if (line != cases[k].line) {
			fail_msg("case %zu: expected the fault at line %u, got line %u (%s)", k,
				 cases[k].line, line, why);
		}
	}
}

/* A line longer than any in the format, and more entries than the table holds, are refused. */
static void test_limits(void **state)
{
	char text[LEAPFILE_MAX_ENTRIES * 32 + 1024];
	struct leap_table t;
	const char *why;
	unsigned int line;
	size_t n = 0;

	memset(text, '#', LEAPFILE_LINE_MAX + 1);
	text[LEAPFILE_LINE_MAX + 1] = '\n';
	assert_int_equal(leapfile_parse(text, LEAPFILE_LINE_MAX + 2, &t, &line, &why), -EBADMSG);
	assert_int_equal(line, 1);
	for (int k = 0; k <= LEAPFILE_MAX_ENTRIES; k++) {
		n += (size_t) snprintf(text + n, sizeof(text) - n, "%lld %d\n",
				       2272060800LL + 86400LL * k, 10 + (k % 2));
	}
	assert_int_equal(leapfile_parse(text, n, &t, &line, &why), -EBADMSG);
	assert_int_equal(line, LEAPFILE_MAX_ENTRIES + 1);
}

/* The loader says path:line, and reads the host's own file when it has one. */
static void test_load(void **state)
{
	char path[] = "/tmp/test-leapfile-XXXXXX", err[256];
	struct leap_table t;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2272060800 10\nbad\n", 18), 18);
	close(fd);
	assert_int_equal(leapfile_load(path, &t, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, ":2: "));
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	unlink(path);
	assert_int_equal(leapfile_load(path, &t, err, sizeof(err)), -ENOENT);
	/* A FIFO or a directory is no file (and a FIFO must not block the loader). */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(leapfile_load(path, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	assert_int_equal(leapfile_load("/tmp", &t, err, sizeof(err)), -EINVAL);
	if (access("/usr/share/zoneinfo/leap-seconds.list", R_OK) == 0) {
		assert_int_equal(leapfile_load("/usr/share/zoneinfo/leap-seconds.list", &t, err,
					       sizeof(err)),
				 0);
		assert_true(t.n >= 28);
		assert_int_equal(t.e[t.n - 1].tai_utc, 10 + (int) t.n - 1);
	}
}

/* phcd.conf names a bad leapfile: refused at the key's line, with the file's own line. */
static void test_config_refuses(void **state)
{
	struct fixture *f = *state;
	struct config *c = NULL;
	char *errors = NULL, leaps[256], text[512], want[768];

	snprintf(leaps, sizeof(leaps), "%s/leaps.list", f->dir);
	write_file(leaps, "2272060800 10\n2287785600 12\n");
	snprintf(text, sizeof(text),
		 "[instance gm]\ninterfaces = e0\ntime_source = system\nleapfile = %s\n"
		 "[instance so]\ninterfaces = e1\nslaveOnly = 1\ntime_source = gnss\n",
		 leaps);
	write_file(f->path, text);
	assert_int_not_equal(
		config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL), 0);
	snprintf(want, sizeof(want),
		 "%s:4: instance gm: leapfile %s:2: TAI-UTC moving by other than one second",
		 f->path, leaps);
	if (!errors || !strstr(errors, want)) {
		fail_msg("expected \"%s\" in:\n%s", want, errors ? errors : "(none)");
	}
	snprintf(want, sizeof(want), "%s:8: instance so: time_source gnss on a slaveOnly clock",
		 f->path);
	if (!strstr(errors, want)) {
		fail_msg("expected \"%s\" in:\n%s", want, errors);
	}
	free(errors);
	config_free(c);

	/* tzdata's own file loads. */
	if (access("/usr/share/zoneinfo/leap-seconds.list", R_OK) == 0) {
		config_free(load_ok(f, "[instance gm]\ninterfaces = e0\ntime_source = system\n"
				       "leapfile = /usr/share/zoneinfo/leap-seconds.list\n"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tzdata),
		cmocka_unit_test(test_lookup_around_leap),
		cmocka_unit_test(test_lookup_negative),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_load),
		cmocka_unit_test_setup_teardown(test_config_refuses, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
