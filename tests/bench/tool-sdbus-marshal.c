// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bench tool: what sd-bus's public API costs per property for a GetManagedObjects-shaped body,
 * a{oa{sa{sv}}} of 128 objects with 20 properties each (half "u", half a 23-character "s"),
 * built or read COUNT times in one of these ways:
 *
 *   open     open_container/append_basic/close_container per entry (phcd's way before c454684)
 *   format   one sd_bus_message_append(m, "{sv}", ...) per entry
 *   space    as open, the strings through sd_bus_message_append_string_space (no UTF-8 check)
 *   copy     sd_bus_message_copy() of a cached, sealed message (a reply built once, reused)
 *   skip     sd_bus_message_skip() over the cached body (tool-dbus-latency's client)
 *   read     peek_type/enter_container/read_basic over every value (a generic reader)
 *
 * No bus traffic (the messages are never sent). Count instructions with callgrind, the cost of
 * one message being the difference between COUNT = 11 and COUNT = 1, divided by 10:
 *
 *   for n in 1 11; do valgrind --tool=callgrind --callgrind-out-file=cg.$n \
 *           tool-sdbus-marshal open $n; done
 *
 * usage: tool-sdbus-marshal open|format|space|copy|skip|read COUNT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <systemd/sd-bus.h>

#define N_OBJECTS 128
#define N_PROPS 20
#define STRING_VALUE "ab:cd:ef:01:23:45:67:89"

static const char *const names[N_PROPS] = {
	"Name",
	"Domain",
	"Profile",
	"ClockIdentity",
	"Priority1",
	"Priority2",
	"ClockClass",
	"ClockAccuracy",
	"OffsetScaledLogVariance",
	"ClockBackend",
	"GrandmasterIdentity",
	"ParentPortIdentity",
	"StepsRemoved",
	"OffsetFromMaster",
	"MeanPathDelay",
	"FrequencyAdjustment",
	"ServoState",
	"Synchronized",
	"CurrentUtcOffset",
	"Leap59",
};

enum mode {
	M_OPEN,
	M_FORMAT,
	M_SPACE,
	M_COPY,
	M_SKIP,
	M_READ,
	M_COUNT
};

static const char *const mode_name[M_COUNT] = { "open", "format", "space", "copy", "skip", "read" };

static int append_string(sd_bus_message *m, const char *s, int space)
{
	size_t n = strlen(s);
	char *p;
	int r;

	if (!space) {
		return sd_bus_message_append_basic(m, 's', s);
	}
	r = sd_bus_message_append_string_space(m, n, &p);
	if (r >= 0) {
		memcpy(p, s, n);
	}
	return r;
}

static int append_property(sd_bus_message *m, int k, enum mode mode)
{
	uint32_t u = (uint32_t) k;
	int space = mode == M_SPACE, r;

	if (mode == M_FORMAT) {
		return (k & 1) ? sd_bus_message_append(m, "{sv}", names[k], "u", u)
			       : sd_bus_message_append(m, "{sv}", names[k], "s", STRING_VALUE);
	}
	r = sd_bus_message_open_container(m, 'e', "sv");
	if (r >= 0) {
		r = append_string(m, names[k], space);
	}
	if (r >= 0) {
		r = sd_bus_message_open_container(m, 'v', (k & 1) ? "u" : "s");
	}
	if (r >= 0) {
		r = (k & 1) ? sd_bus_message_append_basic(m, 'u', &u)
			    : append_string(m, STRING_VALUE, space);
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(m);
	}
	return r < 0 ? r : sd_bus_message_close_container(m);
}

static int build(sd_bus *bus, enum mode mode, sd_bus_message **ret)
{
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new(bus, &m, SD_BUS_MESSAGE_SIGNAL);
	if (r >= 0) {
		r = sd_bus_message_open_container(m, 'a', "{oa{sa{sv}}}");
	}
	for (int o = 0; r >= 0 && o < N_OBJECTS; o++) {
		char path[64];

		snprintf(path, sizeof(path), "/org/phcd1/port/eth%d", o);
		r = sd_bus_message_open_container(m, 'e', "oa{sa{sv}}");
		if (r >= 0) {
			r = sd_bus_message_append_basic(m, 'o', path);
		}
		if (r >= 0) {
			r = sd_bus_message_open_container(m, 'a', "{sa{sv}}");
		}
		if (r >= 0) {
			r = sd_bus_message_open_container(m, 'e', "sa{sv}");
		}
		if (r >= 0) {
			r = sd_bus_message_append_basic(m, 's', "org.phcd1.Port");
		}
		if (r >= 0) {
			r = sd_bus_message_open_container(m, 'a', "{sv}");
		}
		for (int k = 0; r >= 0 && k < N_PROPS; k++) {
			r = append_property(m, k, mode);
		}
		for (int c = 0; r >= 0 && c < 4; c++) {
			r = sd_bus_message_close_container(m);
		}
	}
	if (r >= 0) {
		r = sd_bus_message_close_container(m);
	}
	if (r < 0) {
		sd_bus_message_unref(m);
		return r;
	}
	*ret = m;
	return 0;
}

/* Every value read, as a client printing the reply would. */
static int read_all(sd_bus_message *m)
{
	const char *contents;
	char type;
	int r;

	while ((r = sd_bus_message_peek_type(m, &type, &contents)) > 0) {
		union {
			uint64_t u;
			double d;
			const char *s;
		} v;

		if (type == 'a' || type == 'e' || type == 'v' || type == 'r') {
			r = sd_bus_message_enter_container(m, type, contents);
			if (r >= 0) {
				r = read_all(m);
			}
			if (r >= 0) {
				r = sd_bus_message_exit_container(m);
			}
		} else {
			r = sd_bus_message_read_basic(m, type, &v);
		}
		if (r < 0) {
			return r;
		}
	}
	return r;
}

static int one(sd_bus *bus, enum mode mode, sd_bus_message *cached)
{
	sd_bus_message *m = NULL;
	int r;

	switch (mode) {
	case M_COPY:
		r = sd_bus_message_new(bus, &m, SD_BUS_MESSAGE_SIGNAL);
		if (r >= 0) {
			r = sd_bus_message_rewind(cached, 1);
		}
		if (r >= 0) {
			r = sd_bus_message_copy(m, cached, 1);
		}
		break;
	case M_SKIP:
		r = sd_bus_message_rewind(cached, 1);
		return r < 0 ? r : sd_bus_message_skip(cached, "a{oa{sa{sv}}}");
	case M_READ:
		r = sd_bus_message_rewind(cached, 1);
		return r < 0 ? r : read_all(cached);
	default:
		r = build(bus, mode, &m);
		break;
	}
	sd_bus_message_unref(m);
	return r;
}

int main(int argc, char **argv)
{
	sd_bus_message *cached = NULL;
	enum mode mode = M_COUNT;
	sd_bus *bus = NULL;
	long count;
	int sv[2], r;

	for (int k = 0; argc == 3 && k < M_COUNT; k++) {
		if (strcmp(argv[1], mode_name[k]) == 0) {
			mode = (enum mode) k;
		}
	}
	if (mode == M_COUNT) {
		fprintf(stderr,
			"usage: tool-sdbus-marshal open|format|space|copy|skip|read COUNT\n");
		return 2;
	}
	count = strtol(argv[2], NULL, 10);
	/* sd_bus_message_new() wants a started bus: one end of a socketpair (nothing is sent). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		return 1;
	}
	r = sd_bus_new(&bus);
	if (r >= 0) {
		r = sd_bus_set_fd(bus, sv[0], sv[0]);
	}
	if (r >= 0) {
		r = sd_bus_start(bus);
	}
	/* The cached message is built in every mode, so that COUNT = 1 subtracts it too. */
	if (r >= 0) {
		r = build(bus, M_OPEN, &cached);
	}
	if (r >= 0) {
		r = sd_bus_message_seal(cached, 1, 0);
	}
	for (long i = 0; r >= 0 && i < count; i++) {
		r = one(bus, mode, cached);
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", mode_name[mode], strerror(-r));
		return 1;
	}
	sd_bus_message_unref(cached);
	sd_bus_unref(bus);
	return 0;
}
