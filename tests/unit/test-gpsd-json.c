/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gpsd's JSON reports: real receivers' output from gpsd's regression logs, and what must be
 * refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/gpsd-json.h"

#define NS INT64_C(1000000000)

static int parse(const char *line, struct gpsd_msg *m)
{
	return gpsd_json_parse(line, strlen(line), m);
}

/* The nth (from 1) line of tests/unit/data/gpsd/name that starts with prefix, into buf. */
static void data_line(const char *name, const char *prefix, int nth, char *buf, size_t size)
{
	const char *dir = getenv("PHCD_UNIT_DATA");
	char path[512];
	FILE *f;

	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/gpsd/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, (int) size, f)) {
		if (!strncmp(buf, prefix, strlen(prefix)) && --nth == 0) {
			buf[strcspn(buf, "\r\n")] = '\0';
			fclose(f);
			return;
		}
	}
	fclose(f);
	fail_msg("no line %d starting with %s in %s", nth, prefix, path);
}

struct log_file {
	const char *name;
	int json, tpv, toff; /* lines of each, counted with grep */
};

/*
 * Every JSON line gpsd 3.22 wrote in its regression tests for these receivers (and in a run here
 * from a pty): accepted, the classes counted, and each TPV's optional fields present exactly when
 * the text has them.
 */
static void test_regression_logs(void **state)
{
	static const struct log_file files[] = {
		{ "bu303-nofix.log.chk", 14, 7, 0 },
		{ "garmin17n.log.chk", 7, 6, 0 },
		{ "hp58534a.log.chk", 2, 2, 0 },
		{ "magellan-ec10.log.chk", 38, 38, 0 },
		{ "nmea-fuzzy-cases.log.chk", 15, 15, 0 },
		{ "oncore-binary.log.chk", 24, 12, 0 },
		{ "rgm3800.log.chk", 9, 7, 0 },
		{ "ublox-aek-4t.log.chk", 7, 4, 0 },
		{ "ublox-lea-4t.log.chk", 4, 2, 0 },
		{ "gpsd-3.22-nmea-pty.jsonl", 11, 4, 4 },
	};
	const char *dir = getenv("PHCD_UNIT_DATA");
	static char line[GPSD_JSON_LINE_MAX + 16];

	(void) state;
	assert_non_null(dir);
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		int json = 0, tpv = 0, toff = 0;
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/gpsd/%s", dir, files[k].name);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			struct gpsd_msg m;
			int r;

			if (line[0] != '{') {
				continue; /* the receiver's own output, interleaved in .chk files */
			}
			line[strcspn(line, "\n")] = '\0';
			json++;
			r = parse(line, &m);
			if (r < 0) {
				fail_msg("%s: %s: %s", files[k].name, strerror(-r), line);
			}
			if (m.cls == GPSD_CLASS_TPV) {
				tpv++;
				assert_in_range(m.tpv.mode, 0, 3);
				assert_int_equal(m.tpv.has_time, strstr(line, "\"time\":") != NULL);
				assert_int_equal(m.tpv.has_leapseconds,
						 strstr(line, "\"leapseconds\":") != NULL);
				assert_int_equal(m.tpv.ept_ns >= 0,
						 strstr(line, "\"ept\":") != NULL);
			} else if (m.cls == GPSD_CLASS_TOFF) {
				toff++;
			}
		}
		fclose(f);
		if (json != files[k].json || tpv != files[k].tpv || toff != files[k].toff) {
			fail_msg("%s: expected %d JSON lines, %d TPV, %d TOFF; read %d, %d, %d",
				 files[k].name, files[k].json, files[k].tpv, files[k].toff, json,
				 tpv, toff);
		}
	}
}

/* A few of them checked by hand against the text. */
static void test_values_by_hand(void **state)
{
	static char line[GPSD_JSON_LINE_MAX + 16];
	struct gpsd_msg m;

	(void) state;
	/* a u-blox AEK-4T in 2007: GPS - UTC 14 (TAI - UTC was 33 then), ept 0.005 */
	data_line("ublox-aek-4t.log.chk", "{\"class\":\"TPV\"", 2, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_TPV);
	assert_int_equal(m.tpv.mode, GPSD_MODE_3D);
	assert_true(m.tpv.has_time);
	assert_int_equal(m.tpv.time_ns, INT64_C(1198451484) * NS + 999000000); /* 23:11:24.999 */
	assert_true(m.tpv.has_leapseconds);
	assert_int_equal(m.tpv.leapseconds, 14);
	assert_int_equal(m.tpv.ept_ns, 5000000);
	/* its first TPV: no leapseconds yet */
	data_line("ublox-aek-4t.log.chk", "{\"class\":\"TPV\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_false(m.tpv.has_leapseconds);
	/* a Garmin 17N in 2005: GPS - UTC 13 (TAI - UTC 32) */
	data_line("garmin17n.log.chk", "{\"class\":\"TPV\"", 6, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.tpv.time_ns, INT64_C(1110965883) * NS); /* 2005-03-16T09:38:03 */
	assert_int_equal(m.tpv.leapseconds, 13);
	/* an HP 58534A after a GPS week rollover: 2030, taken as it comes */
	data_line("hp58534a.log.chk", "{\"class\":\"TPV\"", 2, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.tpv.time_ns, INT64_C(1907360690) * NS);
	/* its first: a fix without time */
	data_line("hp58534a.log.chk", "{\"class\":\"TPV\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.tpv.mode, GPSD_MODE_3D);
	assert_false(m.tpv.has_time);
	assert_int_equal(m.tpv.ept_ns, -1);
	/* a receiver without a fix */
	data_line("bu303-nofix.log.chk", "{\"class\":\"TPV\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.tpv.mode, GPSD_MODE_NO_FIX);
	/* gpsd 3.22 here, from NMEA on a pty: the in-band time 20.406054 ms before the clock */
	data_line("gpsd-3.22-nmea-pty.jsonl", "{\"class\":\"TOFF\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_TOFF);
	assert_int_equal(m.delta.real_ns, INT64_C(1796627386) * NS);
	assert_int_equal(m.delta.clock_ns, INT64_C(1796627386) * NS + 20406054);
	data_line("gpsd-3.22-nmea-pty.jsonl", "{\"class\":\"VERSION\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_VERSION);
	assert_string_equal(m.version.release, "3.22");
	assert_int_equal(m.version.proto_major, 3);
	assert_int_equal(m.version.proto_minor, 14);
	data_line("gpsd-3.22-nmea-pty.jsonl", "{\"class\":\"WATCH\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_WATCH);
	assert_true(m.watch.enable);
	assert_true(m.watch.pps);
	data_line("gpsd-3.22-nmea-pty.jsonl", "{\"class\":\"DEVICES\"", 1, line, sizeof(line));
	assert_int_equal(parse(line, &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_DEVICES);
}

/* PPS as gpsd 3.22 writes it (gpsd.c ship_pps; no PPS source here to capture one from). */
static void test_pps(void **state)
{
	struct gpsd_msg m;

	(void) state;
	assert_int_equal(
		parse("{\"class\":\"PPS\",\"device\":\"/dev/ttyS0\",\"real_sec\":1796627386,"
		      "\"real_nsec\":0,\"clock_sec\":1796627385,\"clock_nsec\":999998765,"
		      "\"precision\":-20,\"qErr\":-1234}\r",
		      &m),
		0);
	assert_int_equal(m.cls, GPSD_CLASS_PPS);
	assert_int_equal(m.delta.real_ns - m.delta.clock_ns, 1235);
	/* the fields in another order are the same report */
	assert_int_equal(parse("{\"clock_nsec\":999998765,\"real_nsec\":0,\"clock_sec\":1796627385,"
			       "\"real_sec\":1796627386,\"class\":\"PPS\"}",
			       &m),
			 0);
	assert_int_equal(m.cls, GPSD_CLASS_PPS);
	assert_int_equal(m.delta.real_ns, INT64_C(1796627386) * NS);
}

static void test_time(void **state)
{
	static const struct {
		const char *time;
		int r;
		int64_t ns;
	} cases[] = {
		{ "2019-12-15T20:46:57.000Z", 0, INT64_C(1576442817) * NS },
		{ "2019-12-15T20:46:57Z", 0, INT64_C(1576442817) * NS },
		{ "2019-12-15T20:46:57.123456789Z", 0, INT64_C(1576442817) * NS + 123456789 },
		{ "2019-12-15T20:46:57.5Z", 0, INT64_C(1576442817) * NS + 500000000 },
		{ "1970-01-01T00:00:00.000Z", 0, 0 },
		{ "2199-12-31T23:59:59.000Z", 0, INT64_C(7258118399) * NS },
		/* a leap second's label: as POSIX, the next day's first second */
		{ "2020-02-29T23:59:60.000Z", 0, INT64_C(1583020800) * NS },
		{ "2019-02-29T00:00:00.000Z", -ERANGE, 0 },
		{ "2100-02-29T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-04-31T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-00-10T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-13-10T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-12-00T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-12-15T24:00:00.000Z", -ERANGE, 0 },
		{ "2019-12-15T23:60:00.000Z", -ERANGE, 0 },
		{ "2019-12-15T23:59:61.000Z", -ERANGE, 0 },
		{ "1969-12-31T23:59:59.000Z", -ERANGE, 0 },
		{ "2200-01-01T00:00:00.000Z", -ERANGE, 0 },
		{ "2019-12-15T20:46:57.1234567891Z", -EBADMSG, 0 },
		{ "2019-12-15T20:46:57.Z", -EBADMSG, 0 },
		{ "2019-12-15T20:46:57.000", -EBADMSG, 0 },
		{ "2019-12-15T20:46:57.000+00:00", -EBADMSG, 0 },
		{ "2019-12-15 20:46:57.000Z", -EBADMSG, 0 },
		{ "2019-12-15T20:46:5a.000Z", -EBADMSG, 0 },
		{ "2019-12-15T20:46:57.000ZZ", -EBADMSG, 0 },
		{ "+019-12-15T20:46:57.000Z", -EBADMSG, 0 },
		{ "2019-12-15T20:46:57\\u002e000Z", -EBADMSG, 0 },
		{ "", -EBADMSG, 0 },
	};
	char line[256];
	struct gpsd_msg m;

	(void) state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int r;

		snprintf(line, sizeof(line), "{\"class\":\"TPV\",\"mode\":3,\"time\":\"%s\"}",
			 cases[k].time);
		r = parse(line, &m);
		if (r != cases[k].r || (r == 0 && m.tpv.time_ns != cases[k].ns)) {
			fail_msg("%s: expected %d (%lld), got %d (%lld)", cases[k].time, cases[k].r,
				 (long long) cases[k].ns, r, (long long) (r ? 0 : m.tpv.time_ns));
		}
	}
}

static void test_ept(void **state)
{
	static const struct {
		const char *ept;
		int r;
		int64_t ns;
	} cases[] = {
		{ "0.005", 0, 5000000 },
		{ "0", 0, 0 },
		{ "-0.000", 0, 0 },
		{ "1e-3", 0, 1000000 },
		{ "5E+0", 0, 5 * NS },
		{ "0.0000000009", 0, 0 }, /* truncated to the nanosecond */
		{ "0.0050000000000000000000000001", 0, 5000000 },
		{ "86400", 0, 86400 * NS },
		{ "8.64e4", 0, 86400 * NS },
		{ "1e-999999999", 0, 0 },
		{ "86400.000000001", -ERANGE, 0 },
		{ "1e999999999", -ERANGE, 0 },
		{ "123456789012345678901234567890", -ERANGE, 0 },
		{ "-0.1", -ERANGE, 0 },
		{ "\"0.005\"", -EBADMSG, 0 },
		{ "true", -EBADMSG, 0 },
		{ ".5", -EBADMSG, 0 },
		{ "05", -EBADMSG, 0 },
		{ "5.", -EBADMSG, 0 },
		{ "5e", -EBADMSG, 0 },
		{ "NaN", -EBADMSG, 0 },
		{ "Infinity", -EBADMSG, 0 },
	};
	char line[256];
	struct gpsd_msg m;

	(void) state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int r;

		snprintf(line, sizeof(line), "{\"class\":\"TPV\",\"mode\":3,\"ept\":%s}",
			 cases[k].ept);
		r = parse(line, &m);
		if (r != cases[k].r || (r == 0 && m.tpv.ept_ns != cases[k].ns)) {
			fail_msg("ept %s: expected %d (%lld), got %d (%lld)", cases[k].ept,
				 cases[k].r, (long long) cases[k].ns, r,
				 (long long) (r ? 0 : m.tpv.ept_ns));
		}
	}
}

/* What a broken or hostile gpsd (or whatever listens on its port) may send: refused, and why. */
static void test_refused(void **state)
{
	static const struct {
		const char *line;
		int r;
	} cases[] = {
		{ "", -EBADMSG },
		{ "   ", -EBADMSG },
		{ "[]", -EBADMSG },
		{ "{}", -EBADMSG },
		{ "\"TPV\"", -EBADMSG },
		{ "{\"class\":\"TPV\"}", -EBADMSG }, /* TPV without mode */
		{ "{\"class\":\"TPV\",\"mode\":4}", -ERANGE },
		{ "{\"class\":\"TPV\",\"mode\":-1}", -ERANGE },
		{ "{\"class\":\"TPV\",\"mode\":3.0}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":03}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":\"3\"}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":3,\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"class\":\"PPS\",\"mode\":3}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":3,\"time\":null}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":3,\"leapseconds\":-1}", -ERANGE },
		{ "{\"class\":\"TPV\",\"mode\":3,\"leapseconds\":201}", -ERANGE },
		{ "{\"class\":\"TPV\",\"mode\":3,\"leapseconds\":18.5}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":99999999999999999999999}", -ERANGE },
		{ "{\"class\":\"TOFF\",\"real_sec\":1,\"real_nsec\":0,\"clock_sec\":1}", -EBADMSG },
		{ "{\"class\":\"TOFF\",\"real_sec\":1,\"real_nsec\":1000000000,\"clock_sec\":1,"
		  "\"clock_nsec\":0}",
		  -ERANGE },
		{ "{\"class\":\"PPS\",\"real_sec\":-1,\"real_nsec\":0,\"clock_sec\":1,"
		  "\"clock_nsec\":0}",
		  -ERANGE },
		{ "{\"class\":\"PPS\",\"real_sec\":7258118400,\"real_nsec\":0,\"clock_sec\":1,"
		  "\"clock_nsec\":0}",
		  -ERANGE },
		{ "{\"class\":\"PPS\",\"real_sec\":9223372036854775807,\"real_nsec\":0,"
		  "\"clock_sec\":1,\"clock_nsec\":0}",
		  -ERANGE },
		{ "{\"class\":\"WATCH\",\"enable\":1}", -EBADMSG },
		{ "{\"class\":3}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":1}x", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":1}{\"class\":\"TPV\",\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":1,}", -EBADMSG },
		{ "{\"class\":\"TPV\" \"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\"1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"mode\":1", -EBADMSG },
		{ "{\"class\":\"TPV,\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"device\":\"/dev/\tx\",\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"device\":\"\\x\",\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"device\":\"\\u12\",\"mode\":1}", -EBADMSG },
		{ "{\"class\":\"TPV\",\"device\":\"\\", -EBADMSG },
		{ "{\"class\":\"SKY\",\"satellites\":[{\"PRN\":1,}]}", -EBADMSG },
		{ "{\"class\":\"SKY\",\"satellites\":[1 2]}", -EBADMSG },
		{ "{\"class\":\"SKY\",\"x\":tru}", -EBADMSG },
		{ "{\"class\":\"SKY\",\"x\":-}", -EBADMSG },
		{ "{\"class\":\"SKY\",\"x\":[[[[[[[[1]]]]]]]]}", -EMSGSIZE },
	};
	struct gpsd_msg m;

	(void) state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int r = parse(cases[k].line, &m);

		if (r != cases[k].r) {
			fail_msg("%s: expected %s, got %s", cases[k].line, strerror(-cases[k].r),
				 r ? strerror(-r) : "accepted");
		}
	}
	/* a NUL inside the line is no end of it */
	assert_int_equal(gpsd_json_parse("{\"class\":\"TPV\",\"mode\":1}\0x", 26, &m), -EBADMSG);
}

static void test_accepted(void **state)
{
	static char big[GPSD_JSON_LINE_MAX + 2];
	struct gpsd_msg m;
	size_t n;

	(void) state;
	/* seven deep is within the bound; unknown classes and fields are fine */
	assert_int_equal(parse("{\"class\":\"SKY\",\"x\":[[[[[[[1]]]]]]]}", &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_OTHER);
	assert_int_equal(parse("{\"class\":\"XYZ\"}", &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_OTHER);
	assert_int_equal(parse(" {\"class\" : \"TPV\" , \"mode\" : 2 , \"x\":{},\"y\":[],"
			       "\"z\":null,\"t\":true,\"f\":false,\"s\":\"\\\"\\u00e9\\n\"} \r",
			       &m),
			 0);
	assert_int_equal(m.cls, GPSD_CLASS_TPV);
	assert_int_equal(m.tpv.mode, 2);
	/* a class with an escape is another class */
	assert_int_equal(parse("{\"class\":\"T\\u0050V\",\"mode\":9}", &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_OTHER);
	/* ERROR's message and VERSION's release, cut and made printable for the journal */
	assert_int_equal(
		parse("{\"class\":\"ERROR\",\"message\":\"Unrecognized \\u0007 request\"}", &m), 0);
	assert_int_equal(m.cls, GPSD_CLASS_ERROR);
	assert_string_equal(m.error_message, "Unrecognized ?u0007 request");
	memset(big, 'x', sizeof(big));
	memcpy(big, "{\"class\":\"VERSION\",\"release\":\"", 30);
	memcpy(big + 200, "\"}", 3);
	assert_int_equal(parse(big, &m), 0);
	assert_int_equal(strlen(m.version.release), GPSD_JSON_TEXT_MAX - 1);
	assert_int_equal(m.version.proto_major, -1);
	/* the longest line: accepted at GPSD_JSON_LINE_MAX, refused one past it */
	n = GPSD_JSON_LINE_MAX;
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"class\":\"TPV\",\"mode\":1}", 24);
	assert_int_equal(gpsd_json_parse(big, n, &m), 0);
	assert_int_equal(gpsd_json_parse(big, n + 1, &m), -EMSGSIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regression_logs),
		cmocka_unit_test(test_values_by_hand),
		cmocka_unit_test(test_pps),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_ept),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_accepted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
