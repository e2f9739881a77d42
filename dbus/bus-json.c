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

static int write_basic(sd_bus_message *m, char type, FILE *f, bool as_string)
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
		double d;
		const char *s;
		int h;
	} v;
	int r;

	r = sd_bus_message_read_basic(m, type, &v);
	if (r <= 0) {
		return r < 0 ? r : -ENXIO;
	}
	/* JSON object keys must be strings, so a number key is written quoted. */
	const char *q = as_string ? "\"" : "";
	switch (type) {
	case 'y':
		fprintf(f, "%s%u%s", q, v.y, q);
		break;
	case 'b':
		fprintf(f, "%s%s%s", q, v.b ? "true" : "false", q);
		break;
	case 'n':
		fprintf(f, "%s%d%s", q, v.n, q);
		break;
	case 'q':
		fprintf(f, "%s%u%s", q, v.q, q);
		break;
	case 'i':
	case 'h':
		fprintf(f, "%s%" PRIi32 "%s", q, v.i, q);
		break;
	case 'u':
		fprintf(f, "%s%" PRIu32 "%s", q, v.u, q);
		break;
	case 'x':
		fprintf(f, "%s%" PRIi64 "%s", q, v.x, q);
		break;
	case 't':
		fprintf(f, "%s%" PRIu64 "%s", q, v.t, q);
		break;
	case 'd':
		if (isfinite(v.d)) {
			fprintf(f, "%s%.15g%s", q, v.d, q);
		} else {
			fprintf(f, "%snull%s", q, q);
		}
		break;
	case 's':
	case 'o':
	case 'g':
		bus_json_string(f, v.s);
		break;
	default:
		return -EINVAL;
	}
	return 0;
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
