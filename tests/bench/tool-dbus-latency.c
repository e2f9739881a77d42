// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bench tool: latency of synchronous D-Bus calls to phcd from a C client (sd-bus), one
 * connection to the system bus ($DBUS_SYSTEM_BUS_ADDRESS). Each round makes one call of every
 * kind, in turn, so that load on the machine falls on all kinds alike:
 *
 *   GetId              org.freedesktop.DBus.GetId: the bus daemon's own round trip
 *   Ping               org.freedesktop.DBus.Peer.Ping to org.phcd1: client -> dbus-daemon ->
 *                      phcd -> dbus-daemon -> client, answered by sd-bus inside phcd, no work
 *   Get(State)         Properties.Get of a port's State
 *   GetAll(Port)       Properties.GetAll of org.phcd1.Port
 *   GetManagedObjects  ObjectManager.GetManagedObjects at /org/phcd1
 *
 * A call's latency runs from before sd_bus_call() to after the whole reply body has been walked
 * (sd_bus_message_skip over its signature), as a client that reads the reply would. Prints, per
 * kind, count, mean, p50, p90, p99 and max in microseconds.
 *
 * With -o KIND (one of the names above) only that kind is called, and the tool's own CPU time
 * per call (getrusage) is printed too, so that a caller watching phcd's and dbus-daemon's CPU
 * time over the run can split a call's cost between the three processes.
 *
 * With -s READS (a storm, for tests/bench/dbus-storm.sh) it makes exactly READS calls back to back,
 * Get(State), GetAll(Port) and GetManagedObjects in turn, the port-scoped ones on the given port
 * objects in turn, with no warm-up, and prints the storm's CLOCK_MONOTONIC start and end (ns,
 * the clock of phcd-port's sample lines) and its call latencies:
 *
 *   storm READS START_NS END_NS mean P50_US P99_US MAX_US
 *
 * usage: tool-dbus-latency [-n ROUNDS] [-w WARMUP] [-o KIND] PORT_OBJECT_PATH
 *        tool-dbus-latency -s READS PORT_OBJECT_PATH...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

enum {
	K_GETID,
	K_PING,
	K_GET,
	K_GETALL,
	K_GMO,
	K_COUNT
};

static const char *const kind_name[K_COUNT] = {
	"GetId", "Ping", "Get(State)", "GetAll(Port)", "GetManagedObjects",
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double cpu_us(const struct rusage *ru)
{
	return (double) (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e6 +
	       (double) (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *) a, y = *(const long long *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static long long pct(const long long *v, size_t n, unsigned p)
{
	size_t rank = (n * p + 99) / 100;

	return v[rank > 0 ? rank - 1 : 0];
}

/* One call of KIND, its reply's body walked to the end. */
static int call_one(sd_bus *bus, int kind, const char *port)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *sig;
	int r;

	switch (kind) {
	case K_GETID:
		r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				       "org.freedesktop.DBus", "GetId", &err, &reply, "");
		break;
	case K_PING:
		r = sd_bus_call_method(bus, "org.phcd1", "/org/phcd1", "org.freedesktop.DBus.Peer",
				       "Ping", &err, &reply, "");
		break;
	case K_GET:
		r = sd_bus_call_method(bus, "org.phcd1", port, "org.freedesktop.DBus.Properties",
				       "Get", &err, &reply, "ss", "org.phcd1.Port", "State");
		break;
	case K_GETALL:
		r = sd_bus_call_method(bus, "org.phcd1", port, "org.freedesktop.DBus.Properties",
				       "GetAll", &err, &reply, "s", "org.phcd1.Port");
		break;
	default:
		r = sd_bus_call_method(bus, "org.phcd1", "/org/phcd1",
				       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
				       &err, &reply, "");
		break;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", kind_name[kind],
			err.message ? err.message : strerror(-r));
		sd_bus_error_free(&err);
		return r;
	}
	sig = sd_bus_message_get_signature(reply, 1);
	if (sig && *sig) {
		r = sd_bus_message_skip(reply, sig);
		if (r < 0) {
			fprintf(stderr, "%s: reading the reply: %s\n", kind_name[kind],
				strerror(-r));
			sd_bus_message_unref(reply);
			return r;
		}
	}
	sd_bus_message_unref(reply);
	return 0;
}

/* -s: READS calls back to back, the storm's window and latencies on one line. */
static int storm(sd_bus *bus, long reads, char **ports, int nports)
{
	static const int kinds[] = { K_GET, K_GETALL, K_GMO };
	long long *lat = calloc((size_t) reads, sizeof(*lat)), start, end, sum = 0;

	if (!lat) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	start = now_ns();
	for (long i = 0; i < reads; i++) {
		long long t0 = now_ns();

		if (call_one(bus, kinds[i % 3], ports[(i / 3) % nports]) < 0) {
			free(lat);
			return 1;
		}
		lat[i] = now_ns() - t0;
		sum += lat[i];
	}
	end = now_ns();
	qsort(lat, (size_t) reads, sizeof(*lat), cmp_ll);
	printf("storm %ld %lld %lld mean %.0f p50 %.0f p99 %.0f max %.0f\n", reads, start, end,
	       (double) sum / (double) reads / 1e3, pct(lat, (size_t) reads, 50) / 1e3,
	       pct(lat, (size_t) reads, 99) / 1e3, lat[reads - 1] / 1e3);
	free(lat);
	return 0;
}

int main(int argc, char **argv)
{
	long long *lat[K_COUNT] = { NULL };
	long rounds = 1000, warmup = 20, storm_reads = 0;
	int first = 0, last = K_COUNT - 1;
	struct rusage ru0, ru1;
	sd_bus *bus = NULL;
	const char *port;
	int c, r, k;

	while ((c = getopt(argc, argv, "n:w:o:s:")) >= 0) {
		switch (c) {
		case 'n':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'w':
			warmup = strtol(optarg, NULL, 10);
			break;
		case 's':
			storm_reads = strtol(optarg, NULL, 10);
			if (storm_reads <= 0)
				goto usage;
			break;
		case 'o':
			for (first = 0; first < K_COUNT && strcmp(optarg, kind_name[first]) != 0;
			     first++)
				;
			if (first == K_COUNT)
				goto usage;
			last = first;
			break;
		default:
			goto usage;
		}
	}
	if ((storm_reads ? optind >= argc : optind != argc - 1) || rounds <= 0 || warmup < 0)
		goto usage;
	port = argv[optind];

	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "connecting to the system bus: %s\n", strerror(-r));
		return 1;
	}
	if (storm_reads) {
		r = storm(bus, storm_reads, argv + optind, argc - optind);
		sd_bus_flush_close_unref(bus);
		return r;
	}
	for (k = 0; k < K_COUNT; k++) {
		lat[k] = calloc((size_t) rounds, sizeof(*lat[k]));
		if (!lat[k]) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
	}
	/* Warm-up rounds (first connections, page faults, phcd's first replies), not counted. */
	for (long i = 0; i < warmup; i++)
		for (k = first; k <= last; k++)
			if (call_one(bus, k, port) < 0)
				return 1;
	getrusage(RUSAGE_SELF, &ru0);
	for (long i = 0; i < rounds; i++) {
		for (k = first; k <= last; k++) {
			long long t0 = now_ns();

			if (call_one(bus, k, port) < 0)
				return 1;
			lat[k][i] = now_ns() - t0;
		}
	}
	getrusage(RUSAGE_SELF, &ru1);
	printf("%-18s %6s %8s %8s %8s %8s %8s  (us, one sd-bus connection, calls in turn)\n",
	       "call", "count", "mean", "p50", "p90", "p99", "max");
	for (k = first; k <= last; k++) {
		long long sum = 0;
		size_t n = (size_t) rounds;

		qsort(lat[k], n, sizeof(*lat[k]), cmp_ll);
		for (size_t i = 0; i < n; i++)
			sum += lat[k][i];
		printf("%-18s %6zu %8.0f %8.0f %8.0f %8.0f %8.0f\n", kind_name[k], n,
		       (double) sum / (double) n / 1e3, pct(lat[k], n, 50) / 1e3,
		       pct(lat[k], n, 90) / 1e3, pct(lat[k], n, 99) / 1e3, lat[k][n - 1] / 1e3);
	}
	if (first == last)
		printf("client CPU per call: %.0f us (user + system)\n",
		       (cpu_us(&ru1) - cpu_us(&ru0)) / (double) rounds);
	for (k = 0; k < K_COUNT; k++)
		free(lat[k]);
	sd_bus_flush_close_unref(bus);
	return 0;
usage:
	fprintf(stderr,
		"usage: tool-dbus-latency [-n ROUNDS] [-w WARMUP] [-o KIND] PORT_OBJECT_PATH\n"
		"       tool-dbus-latency -s READS PORT_OBJECT_PATH...\n");
	return 2;
}
