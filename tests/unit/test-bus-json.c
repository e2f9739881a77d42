// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of dbus/bus-json.c: D-Bus values to JSON, as Describe() and phcctl --json use it. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbus/bus-json.h"

/*
 * sd_bus_message_new() wants a started bus: one end of a socketpair is enough (nothing is sent;
 * the peer end stays open, leaked until the test process exits, so the start does not fail).
 */
static sd_bus *scratch_bus(void)
{
	sd_bus *bus = NULL;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_true(sd_bus_new(&bus) >= 0);
	assert_true(sd_bus_set_fd(bus, sv[0], sv[0]) >= 0);
	assert_true(sd_bus_start(bus) >= 0);
	return bus;
}

/* Seal m, read it back from the start and return its first value as JSON (free() it). */
static char *to_json(sd_bus_message *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_true(sd_bus_message_seal(m, 1, 0) >= 0);
	assert_true(sd_bus_message_rewind(m, true) >= 0);
	assert_int_equal(bus_json_write_value(m, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static sd_bus_message *new_message(sd_bus *bus)
{
	sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new(bus, &m, SD_BUS_MESSAGE_SIGNAL) >= 0);
	return m;
}

struct basic_case {
	const char *signature;
	const char *expected;
};

static void test_basic_types(void **state)
{
	sd_bus *bus = scratch_bus();
	static const struct basic_case cases[] = {
		{ "y", "255" },
		{ "b", "true" },
		{ "n", "-32768" },
		{ "q", "65535" },
		{ "i", "-2147483648" },
		{ "u", "4294967295" },
		{ "x", "-9223372036854775808" },
		{ "t", "18446744073709551615" },
		{ "d", "-12.5" },
		{ "s", "\"SLAVE\"" },
		{ "o", "\"/org/phcd1/port/eth_2da\"" },
		{ "g", "\"a{sv}\"" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct basic_case *c = &cases[k];
		sd_bus_message *m = new_message(bus);
		char *json;
		int r;

		switch (c->signature[0]) {
		case 'y':
			r = sd_bus_message_append(m, "y", (uint8_t) 255);
			break;
		case 'b':
			r = sd_bus_message_append(m, "b", 1);
			break;
		case 'n':
			r = sd_bus_message_append(m, "n", (int16_t) INT16_MIN);
			break;
		case 'q':
			r = sd_bus_message_append(m, "q", (uint16_t) UINT16_MAX);
			break;
		case 'i':
			r = sd_bus_message_append(m, "i", (int32_t) INT32_MIN);
			break;
		case 'u':
			r = sd_bus_message_append(m, "u", (uint32_t) UINT32_MAX);
			break;
		case 'x':
			r = sd_bus_message_append(m, "x", (int64_t) INT64_MIN);
			break;
		case 't':
			r = sd_bus_message_append(m, "t", (uint64_t) UINT64_MAX);
			break;
		case 'd':
			r = sd_bus_message_append(m, "d", -12.5);
			break;
		case 's':
			r = sd_bus_message_append(m, "s", "SLAVE");
			break;
		case 'o':
			r = sd_bus_message_append(m, "o", "/org/phcd1/port/eth_2da");
			break;
		default:
			r = sd_bus_message_append(m, "g", "a{sv}");
			break;
		}
		assert_true(r >= 0);
		json = to_json(m);
		if (strcmp(json, c->expected) != 0) {
			fail_msg("type %s: expected %s, got %s", c->signature, c->expected, json);
		}
		free(json);
		sd_bus_message_unref(m);
	}
	sd_bus_close_unref(bus);
}

static void test_not_finite_double_is_null(void **state)
{
	sd_bus *bus = scratch_bus();
	sd_bus_message *m = new_message(bus);
	char *json;

	assert_true(sd_bus_message_append(m, "ad", 3, NAN, INFINITY, 1.25) >= 0);
	json = to_json(m);
	assert_string_equal(json, "[null,null,1.25]");
	free(json);
	sd_bus_message_unref(m);
	sd_bus_close_unref(bus);
}

static void test_string_escapes(void **state)
{
	sd_bus *bus = scratch_bus();
	sd_bus_message *m = new_message(bus);
	char *json;

	assert_true(sd_bus_message_append(m, "s", "a\"b\\c\nd\te\x01 é") >= 0);
	json = to_json(m);
	assert_string_equal(json, "\"a\\\"b\\\\c\\u000ad\\u0009e\\u0001 é\"");
	free(json);
	sd_bus_message_unref(m);
	sd_bus_close_unref(bus);
}

/* What GetAll of a port looks like: a{sv} with a nested a{st} and an ao. */
static void test_properties_dictionary(void **state)
{
	sd_bus *bus = scratch_bus();
	sd_bus_message *m = new_message(bus);
	char *json;

	assert_true(sd_bus_message_append(m, "a{sv}", 5, "State", "s", "SLAVE", "LinkUp", "b", 0,
					  "Counters", "a{st}", 2, "rx_sync", (uint64_t) 8,
					  "tx_delay_req", (uint64_t) 1, "Ports", "ao", 0, "Pair",
					  "(sx)", "x", (int64_t) -5) >= 0);
	json = to_json(m);
	assert_string_equal(json,
			    "{\"State\":\"SLAVE\",\"LinkUp\":false,\"Counters\":{\"rx_sync\":8,"
			    "\"tx_delay_req\":1},\"Ports\":[],\"Pair\":[\"x\",-5]}");
	free(json);
	sd_bus_message_unref(m);
	sd_bus_close_unref(bus);
}

/* JSON keys must be strings: a number key is quoted. GetManagedObjects: a{oa{sa{sv}}}. */
static void test_non_string_keys_and_nesting(void **state)
{
	sd_bus *bus = scratch_bus();
	sd_bus_message *m = new_message(bus);
	char *json;

	assert_true(sd_bus_message_append(m, "a{us}", 2, 1, "one", 2, "two") >= 0);
	assert_true(sd_bus_message_append(m, "a{oa{sa{sv}}}", 1, "/org/phcd1/port/a", 1,
					  "org.phcd1.Port", 1, "State", "s", "MASTER") >= 0);
	assert_true(sd_bus_message_seal(m, 1, 0) >= 0);
	assert_true(sd_bus_message_rewind(m, true) >= 0);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_int_equal(bus_json_write_value(m, f), 0);
		fputc('|', f);
		assert_int_equal(bus_json_write_value(m, f), 0);
		/* At the end there is nothing left to write. */
		assert_int_equal(bus_json_write_value(m, f), -ENXIO);
		assert_int_equal(fclose(f), 0);
		json = buf;
	}
	assert_string_equal(json, "{\"1\":\"one\",\"2\":\"two\"}|{\"/org/phcd1/port/a\":{"
				  "\"org.phcd1.Port\":{\"State\":\"MASTER\"}}}");
	free(json);
	sd_bus_message_unref(m);
	sd_bus_close_unref(bus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_types),
		cmocka_unit_test(test_not_finite_double_is_null),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_properties_dictionary),
		cmocka_unit_test(test_non_string_keys_and_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
