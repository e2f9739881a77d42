// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test tool: a compromised phcd-port (issue 17, finding 3). phcd runs it instead of the worker
 * (`phcd --port-binary tool-lying-worker`); it speaks the worker's side of the IPC (HELLO, takes
 * its CONFIG) and then lies: every 100 ms a STATUS that says SLAVE, servo LOCKED and stable, an
 * offset of OFFSET seconds (default +31,536,000, a year), and a CLOCK_STATE a year ahead. It
 * never asked to be SLAVE (no ERBEST). Each start is logged, so a test counts restarts.
 *
 * With --earn-slave S (issue 31, finding 3) it first earns S1 honestly: an ERBEST of a foreign
 * master better than any clock (priority1 1), then, once the supervisor recommended SLAVE, S
 * seconds of STATUS (SLAVE, LOCKED, offset 0) and CLOCK_STATE without a correction, and only then
 * the lie (both a year ahead). A wrapper picks the port (phcd passes its arguments only).
 *
 * With --priority-flood RATE:SECONDS (issue 31, finding 2) it tells the truth (LISTENING) and
 * instead sends PRIORITY_REQUEST, priority1 10 and 200 in turn, RATE a second for SECONDS (what
 * a compromised sibling can make of management_network = read-write), then nothing; it drains
 * what the supervisor pushes until the supervisor ends it.
 *
 *   tool-lying-worker --ipc-fd N -i IFNAME [--earn-slave S | --priority-flood R:S] [...]
 *   (as phcd execs a worker)
 *   environment: LYING_WORKER_OFFSET_S, LYING_WORKER_LOG (a file a line per start is added to)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/ipc.h"

static ns_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* Drains what the supervisor sent (closing fds): 0 while it is there, -ECONNRESET once gone. */
static int drain(int ipc)
{
	struct ipc_msg m;
	int fds[IPC_MAX_FDS], r;
	size_t n_fds = 0;

	while ((r = ipc_recv(ipc, &m, fds, sizeof(fds) / sizeof(fds[0]), &n_fds)) >= 0) {
		for (size_t k = 0; k < n_fds; k++) {
			close(fds[k]);
		}
	}
	return r == -ECONNRESET ? r : 0;
}

/* --priority-flood: LISTENING, then rate PRIORITY_REQUEST a second for secs; 0 when ended. */
static int priority_flood(int ipc, const char *ifname, double rate, double secs)
{
	struct ipc_msg l = { .type = IPC_STATUS };
	ns_t start = now_ns(CLOCK_MONOTONIC), gap = (ns_t) (NS_PER_SEC / rate);
	uint64_t sent = 0;

	l.status.port_state = PORT_STATE_LISTENING;
	l.status.servo_state = SERVO_UNLOCKED;
	if (ipc_send(ipc, &l, NULL, 0) == -EPIPE) {
		return 0;
	}
	for (;;) {
		ns_t now = now_ns(CLOCK_MONOTONIC);
		ns_t next = start + (ns_t) sent * gap;

		if (now - start < (ns_t) (secs * NS_PER_SEC) && now >= next) {
			struct ipc_msg p = { .type = IPC_PRIORITY_REQUEST };

			p.set_priority.priority1 = sent % 2 ? 200 : 10;
			p.set_priority.priority2 = 128;
			if (ipc_send(ipc, &p, NULL, 0) == -EPIPE) {
				return 0;
			}
			if (++sent == (uint64_t) (rate * secs)) {
				fprintf(stderr, "tool-lying-worker: %s: sent=%" PRIu64 "\n", ifname,
					sent);
			}
			continue;
		}
		if (drain(ipc) < 0) {
			return 0;
		}
		usleep(2000);
	}
}

/* LISTENING, an Erbest no clock beats, then the supervisor's S1 awaited: 0, or -errno. */
static int earn_slave(int ipc, const struct ipc_config *cfg)
{
	struct ipc_msg l = { .type = IPC_STATUS };
	struct ipc_msg e = { .type = IPC_ERBEST };
	struct ipc_msg m;
	int fds[4], r;
	size_t n_fds = 0;

	/* A port takes part in the supervisor's BMCA once it listens. */
	l.status.port_state = PORT_STATE_LISTENING;
	l.status.servo_state = SERVO_UNLOCKED;
	r = ipc_send(ipc, &l, NULL, 0);
	if (r < 0) {
		return r;
	}

	e.erbest.present = true;
	e.erbest.ds.priority1 = 1;
	memset(e.erbest.ds.identity.id, 0xbb, sizeof(e.erbest.ds.identity.id));
	e.erbest.ds.quality.clockClass = 6;
	e.erbest.ds.quality.clockAccuracy = 0x21;
	e.erbest.ds.quality.offsetScaledLogVariance = 0x4e5d;
	e.erbest.ds.priority2 = 1;
	e.erbest.ds.sender.clockIdentity = e.erbest.ds.identity;
	e.erbest.ds.sender.portNumber = 1;
	e.erbest.ds.receiver.clockIdentity = cfg->clock_identity;
	e.erbest.ds.receiver.portNumber = cfg->port_number;
	e.erbest.tp.currentUtcOffset = 37;
	e.erbest.tp.currentUtcOffsetValid = true;
	e.erbest.tp.ptpTimescale = true;
	e.erbest.tp.timeSource = 0x20;
	r = ipc_send(ipc, &e, NULL, 0);
	if (r < 0) {
		return r;
	}
	for (;;) {
		r = ipc_recv(ipc, &m, fds, sizeof(fds) / sizeof(fds[0]), &n_fds);
		if (r < 0) {
			return r;
		}
		for (size_t k = 0; k < n_fds; k++) {
			close(fds[k]);
		}
		if (m.type == IPC_RECOMMENDED_STATE &&
		    m.recommended_state.decision == BMCA_DECISION_S1) {
			return 0;
		}
	}
}

int main(int argc, char **argv)
{
	const char *off_env = getenv("LYING_WORKER_OFFSET_S");
	const char *log_path = getenv("LYING_WORKER_LOG");
	ns_t offset = (off_env ? strtoll(off_env, NULL, 10) : INT64_C(31536000)) * NS_PER_SEC;
	struct ipc_msg m = { .type = IPC_HELLO };
	const char *ifname = "?";
	int fds[IPC_MAX_FDS], ipc = -1, r;
	size_t n_fds = 0;
	double honest_s = -1, flood_rate = 0, flood_s = 0;
	ns_t lie_at = 0;

	for (int k = 1; k + 1 < argc; k++) {
		if (!strcmp(argv[k], "--ipc-fd")) {
			ipc = atoi(argv[k + 1]);
		} else if (!strcmp(argv[k], "-i")) {
			ifname = argv[k + 1];
		} else if (!strcmp(argv[k], "--earn-slave")) {
			honest_s = atof(argv[k + 1]);
		} else if (!strcmp(argv[k], "--priority-flood") &&
			   sscanf(argv[k + 1], "%lf:%lf", &flood_rate, &flood_s) != 2) {
			flood_rate = 0;
		}
	}
	if (ipc < 0) {
		fprintf(stderr, "usage: tool-lying-worker --ipc-fd N -i IFNAME\n");
		return 2;
	}
	if (log_path) {
		FILE *f = fopen(log_path, "a");

		if (f) {
			fprintf(f, "start pid=%d if=%s\n", (int) getpid(), ifname);
			fclose(f);
		}
	}
	m.hello.protocol_version = IPC_VERSION;
	m.hello.ifindex = 0;
	m.hello.pid = (int32_t) getpid();
	r = ipc_send(ipc, &m, NULL, 0);
	if (r < 0) {
		fprintf(stderr, "tool-lying-worker: HELLO: %s\n", strerror(-r));
		return 1;
	}
	r = ipc_recv(ipc, &m, fds, sizeof(fds) / sizeof(fds[0]), &n_fds);
	if (r < 0 || m.type != IPC_CONFIG) {
		fprintf(stderr, "tool-lying-worker: no CONFIG: %s\n",
			r < 0 ? strerror(-r) : "type");
		return 1;
	}
	if (flood_rate > 0) {
		(void) fcntl(ipc, F_SETFL, O_NONBLOCK);
		fprintf(stderr,
			"tool-lying-worker: %s: PRIORITY_REQUEST %.0f a second for %.0f s\n",
			ifname, flood_rate, flood_s);
		return priority_flood(ipc, ifname, flood_rate, flood_s);
	}
	if (honest_s >= 0) {
		r = earn_slave(ipc, &m.config);
		if (r < 0) {
			fprintf(stderr, "tool-lying-worker: %s: no S1: %s\n", ifname, strerror(-r));
			return 1;
		}
		lie_at = now_ns(CLOCK_MONOTONIC) + (ns_t) (honest_s * NS_PER_SEC);
		fprintf(stderr, "tool-lying-worker: %s: recommended SLAVE, honest for %.1f s\n",
			ifname, honest_s);
	}
	fprintf(stderr,
		"tool-lying-worker: %s: CONFIG taken, lying from %s (offset %+" PRId64 " s)\n",
		ifname, lie_at ? "then" : "now on", offset / NS_PER_SEC);
	(void) fcntl(ipc, F_SETFL, O_NONBLOCK);
	for (;;) {
		struct ipc_msg s = { .type = IPC_STATUS };
		struct ipc_msg cs = { .type = IPC_CLOCK_STATE };
		ns_t real = now_ns(CLOCK_REALTIME);
		ns_t lie = now_ns(CLOCK_MONOTONIC) >= lie_at ? offset : 0;

		s.status.port_state = PORT_STATE_SLAVE;
		s.status.servo_state = SERVO_LOCKED;
		s.status.servo_stable = true;
		s.status.offset_ns = lie;
		s.status.mean_path_delay_ns = 1000;
		s.status.freq_ppb = 0;
		s.status.sample_ts = real;
		s.status.sample_mono = now_ns(CLOCK_MONOTONIC);
		cs.clock_state.raw_ns = real;
		cs.clock_state.local_ns = real + lie;
		cs.clock_state.rate_ppb = 0;
		if (ipc_send(ipc, &s, NULL, 0) == -EPIPE || ipc_send(ipc, &cs, NULL, 0) == -EPIPE) {
			return 0;
		}
		if (drain(ipc) < 0) {
			return 0;
		}
		usleep(100000);
	}
}
