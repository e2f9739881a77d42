// SPDX-License-Identifier: GPL-2.0-or-later
/* D-Bus values as JSON: for Describe() in the daemon and for phcctl --json. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/bus-json.h"

void bus_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
	}
	fputc('"', f);
}

int bus_read_integer(sd_bus_message *m, char type, int64_t *ret)
{
	union {
		uint8_t y;
		int b;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
	} v = { 0 };
	int r;

	if (!strchr("ybnqiuxth", type)) {
		return -EINVAL;
	}
	r = sd_bus_message_read_basic(m, type, &v);
	if (r <= 0) {
		return r < 0 ? r : -ENXIO;
	}
	switch (type) {
	case 'y':
		*ret = v.y;
		break;
	case 'b':
	case 'i':
	case 'h':
		*ret = type == 'b' ? v.b : v.i;
		break;
	case 'n':
		*ret = v.n;
		break;
	case 'q':
		*ret = v.q;
		break;
	case 'u':
		*ret = v.u;
		break;
	default: /* 'x', 't' */
		*ret = v.x;
		break;
	}
	return 0;
}

static int write_basic(sd_bus_message *m, char type, FILE *f, bool as_string)
{
	/* JSON object keys must be strings, so a number key is written quoted. */
	const char *q = as_string ? "\"" : "";
	const char *str;
	int64_t i;
	double d;
	int r;

	if (strchr("sog", type)) {
		r = sd_bus_message_read_basic(m, type, &str);
		if (r > 0) {
			bus_json_string(f, str);
		}
	} else if (type == 'd') {
		r = sd_bus_message_read_basic(m, 'd', &d);
		if (r > 0 && isfinite(d)) {
			fprintf(f, "%s%.15g%s", q, d, q);
		} else if (r > 0) {
			fprintf(f, "%snull%s", q, q);
		}
	} else {
		r = bus_read_integer(m, type, &i);
		if (r == 0 && type == 'b') {
			fprintf(f, "%s%s%s", q, i ? "true" : "false", q);
		} else if (r == 0 && type == 't') {
			fprintf(f, "%s%" PRIu64 "%s", q, (uint64_t) i, q);
		} else if (r == 0) {
			fprintf(f, "%s%" PRIi64 "%s", q, i, q);
		}
		return r;
	}
	return r < 0 ? r : r == 0 ? -ENXIO : 0;
}

/* Write the elements of the container m is in, until its end. */
static int write_elements(sd_bus_message *m, FILE *f, bool dict)
{
	bool first = true;
	char type;
	const char *contents;
	int r;

	for (;;) {
		r = sd_bus_message_peek_type(m, &type, &contents);
		if (r < 0) {
			return r;
		}
		if (r == 0) {
			return 0;
		}
		if (!first) {
			fputc(',', f);
		}
		first = false;
		if (!dict) {
			r = bus_json_write_value(m, f);
			if (r < 0) {
				return r;
			}
			continue;
		}
		/* A dict entry: a basic key, then any value. */
		r = sd_bus_message_enter_container(m, 'e', contents);
		if (r < 0) {
			return r;
		}
		r = write_basic(m, contents[0], f, true);
		if (r < 0) {
			return r;
		}
		fputc(':', f);
		r = bus_json_write_value(m, f);
		if (r < 0) {
			return r;
		}
		r = sd_bus_message_exit_container(m);
		if (r < 0) {
			return r;
		}
	}
}

int bus_json_write_value(sd_bus_message *m, FILE *f)
{
	const char *contents;
	char type;
	bool dict;
	int r;

	r = sd_bus_message_peek_type(m, &type, &contents);
	if (r <= 0) {
		return r < 0 ? r : -ENXIO;
	}
	if (!strchr("avr", type)) {
		return write_basic(m, type, f, false);
	}
	r = sd_bus_message_enter_container(m, type, contents);
	if (r < 0) {
		return r;
	}
	switch (type) {
	case 'v':
		r = bus_json_write_value(m, f);
		break;
	case 'a':
		dict = contents[0] == '{';
		fputc(dict ? '{' : '[', f);
		r = write_elements(m, f, dict);
		fputc(dict ? '}' : ']', f);
		break;
	default: /* 'r' */
		fputc('[', f);
		r = write_elements(m, f, false);
		fputc(']', f);
		break;
	}
	if (r < 0) {
		return r;
	}
	r = sd_bus_message_exit_container(m);
	return r < 0 ? r : 0;
}
