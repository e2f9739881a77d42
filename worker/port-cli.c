/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-port by hand: one port on one interface, on the shared port loop, printing like ptp4l -m. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/config-file.h"
#include "worker/port-cli.h"
#include "worker/port-loop.h"
#include "ptp/clock.h"
#include "ptp/port.h"
#include "ptp/transport.h"

/* ptp4l prints one summary line per second while it follows a master. */
#define SUMMARY_PERIOD NS_PER_SEC

struct cli_port {
	const struct port_cli_args *args;
	struct port_loop loop;
	ns_t last_summary;
	/* UDP: the sockets to a unicast peer are opened here (no supervisor by hand) */
	struct transport_config tc;
	bool ipv6;
	enum transport_ts_mode ts_mode;
	unsigned int peers_max;
};

/*
 * By hand, hybrid_e2e over UDP: the sockets to a peer opened as the supervisor would (no policy:
 * the one who runs phcd-port by hand may open any socket), the least recently used pair closed
 * beyond unicast_peers_max.
 */
static int cli_peer_missing(struct port_loop *l, const struct port_address *to)
{
	struct cli_port *c = container_of(l, struct cli_port, loop);
	int fds[TRANSPORT_UDP_PEER_FDS], r;

	while (transport_n_peers(l->transport) >= c->peers_max) {
		uint8_t addr[TRANSPORT_ADDR_LEN];
		size_t len;

		if (transport_drop_peer(l->transport, addr, &len) < 0) {
			break;
		}
	}
	r = transport_udp_open_peer_fds(c->ipv6, &c->tc, c->ts_mode, to->bytes, to->len, 0, fds);
	if (r < 0) {
		return -ENOTCONN;
	}
	r = transport_add_peer(l->transport, to->bytes, to->len, fds, TRANSPORT_UDP_PEER_FDS);
	if (r < 0) {
		close(fds[0]);
		close(fds[1]);
		return -ENOTCONN;
	}
	return 0;
}

void port_cli_args_init(struct port_cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->socket_fd = -1;
	a->domain = a->priority1 = a->priority2 = -1;
}

/* "phcd-port[12345.678]: ...", the prefix ptp4l uses, on stdout with -m. */
static void say(const struct cli_port *c, const char *fmt, ...) _printf_(2, 3);
static void say(const struct cli_port *c, const char *fmt, ...)
{
	ns_t now = evloop_now();
	va_list ap;

	if (!c->args->print) {
		return;
	}
	printf("phcd-port[%" PRId64 ".%03" PRId64 "]: ", now / NS_PER_SEC,
	       (now % NS_PER_SEC) / NS_PER_MSEC);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void cli_state_changed(void *userdata, enum port_state from, enum port_state to,
			      enum fsm_event why)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);

	say(c, "port %u (%s): %s to %s on %s", port_port_ds(c->loop.port)->portIdentity.portNumber,
	    c->args->ifname, port_state_to_string(from), port_state_to_string(to),
	    fsm_event_to_string(why));
}

static void cli_master_changed(void *userdata, const struct ClockIdentity *gm, bool local)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);
	char id[CLOCK_IDENTITY_STRLEN];

	if (local) {
		say(c, "selected local clock %s as best master", clock_identity_to_string(gm, id));
	} else {
		say(c, "selected best master clock %s", clock_identity_to_string(gm, id));
	}
}

static void cli_sample(void *userdata, const struct port_sample *s)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);
	ns_t now = port_loop_now(&c->loop);

	/*
	 * A step is always shown; otherwise one line a period (with slack for jitter), or every
	 * one (ptp4l --summary_interval at the Sync interval) for a benchmark to see each sample.
	 */
	if (!c->args->every_sample && s->servo_state != SERVO_JUMP &&
	    now - c->last_summary < SUMMARY_PERIOD * 9 / 10) {
		return;
	}
	c->last_summary = now;
	/* The servo state as ptp4l numbers it: s0 unlocked, s1 jump, s2 locked. */
	if (c->args->true_error && c->loop.raw) {
		ns_t v = 0, r = 0;

		/*
		 * The virtual clock minus the clock it views (CLOCK_REALTIME with software
		 * timestamps), read now: its true error when the master runs on that clock too.
		 */
		(void) clock_get_time(c->loop.clock, &v);
		(void) clock_get_time(c->loop.raw, &r);
		say(c, PORT_SAMPLE_FMT " true error %" PRId64, s->offset, (int) s->servo_state,
		    s->freq_ppb, s->mean_path_delay, v - r);
		return;
	}
	say(c, PORT_SAMPLE_FMT, s->offset, (int) s->servo_state, s->freq_ppb, s->mean_path_delay);
}

static void cli_clock_error(void *userdata, const char *op, int error)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);

	log_port_error_errno(c->args->ifname, error, "clock %s (%s) failed: %m", op,
			     clock_name(c->loop.clock));
}

static void report(const struct cli_port *c, const char *what, int r)
{
	if (r < 0) {
		log_port_error_errno(c->args->ifname, r, "%s: %m", what);
	}
}

static void cli_engine_error(struct port_loop *l, const char *what, int error)
{
	report(container_of(l, struct cli_port, loop), what, error);
}

static void cli_as_capable_changed(void *userdata, bool value, enum port_as_capable_reason why,
				   ns_t mean_link_delay)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);

	if (value) {
		say(c, "port %u (%s): asCapable true (peer delay %" PRId64 " ns)",
		    port_port_ds(c->loop.port)->portIdentity.portNumber, c->args->ifname,
		    mean_link_delay);
	} else {
		say(c, "port %u (%s): asCapable false: %s (peer delay %" PRId64 " ns)",
		    port_port_ds(c->loop.port)->portIdentity.portNumber, c->args->ifname,
		    port_as_capable_reason_to_string(why), mean_link_delay);
	}
}

static void cli_interval_changed(void *userdata, int8_t log_sync_interval, bool stopped)
{
	struct cli_port *c = container_of(userdata, struct cli_port, loop);

	if (stopped) {
		say(c, "port %u (%s): Sync stopped at the master's request",
		    port_port_ds(c->loop.port)->portIdentity.portNumber, c->args->ifname);
	} else {
		say(c, "port %u (%s): Sync interval now 2^%d s",
		    port_port_ds(c->loop.port)->portIdentity.portNumber, c->args->ifname,
		    (int) log_sync_interval);
	}
}

static const struct port_ops cli_port_ops = {
	.state_changed = cli_state_changed,
	.master_changed = cli_master_changed,
	.sample = cli_sample,
	.clock_error = cli_clock_error,
	.as_capable_changed = cli_as_capable_changed,
	.interval_changed = cli_interval_changed,
};

/* Configuration file (if any) of the instance owning this interface, then the command line. */
static int cli_options(const struct port_cli_args *a, struct instance_options *io,
		       struct port_options *po)
{
	_cleanup_(config_freep) struct config *cfg = NULL;
	const struct config_instance *inst;
	char *errors = NULL;
	int r;

	options_instance_defaults(io);
	options_port_defaults(po);
	/* By hand on a machine without a PHC the useful default is the virtual clock. */
	io->clock_backend = OPTIONS_CLOCK_VIRTUAL;
	if (a->config_path) {
		r = config_load(&(struct config_source){ .path = a->config_path }, &cfg, &errors,
				NULL);
		if (r < 0) {
			log_error_errno(r, "%s: %m", a->config_path);
			fputs(errors ? errors : "", stderr);
			free(errors);
			return r;
		}
		inst = config_instance_for_interface(cfg, a->ifname, false);
		if (!inst) {
			inst = config_find_instance(cfg, CONFIG_DEFAULT_INSTANCE);
		}
		if (inst) {
			*io = inst->options;
			r = config_port_options(cfg, inst->options.name, a->ifname, po);
			if (r < 0) {
				*po = inst->port;
			}
		}
	}
	if (a->domain >= 0) {
		io->domainNumber = (uint8_t) a->domain;
	}
	if (a->priority1 >= 0) {
		io->priority1 = (uint8_t) a->priority1;
	}
	if (a->priority2 >= 0) {
		io->priority2 = (uint8_t) a->priority2;
	}
	if (a->slave_only) {
		io->slaveOnly = true;
	}
	if (a->delay_mechanism_set) {
		po->delay_mechanism = a->delay_mechanism;
	}
	if (a->clock_backend_set) {
		io->clock_backend = a->clock_backend;
	}
	if (a->virtual_offset_set) {
		io->virtual_clock.initial_offset_ns = a->virtual_offset;
	}
	if (a->virtual_freq_set) {
		io->virtual_clock.initial_freq_ppb = a->virtual_freq;
	}
	return 0;
}

/* The clock the port steers: a virtual view, a PHC, or the stamping clock measured only. */
static int cli_clock(struct cli_port *c, struct instance_options *io,
		     const struct transport_ts_status *st, bool *adjust)
{
	char path[32];
	int fd, r;

	*adjust = true;
	if (io->servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK) {
		/* Its samples go to chronyd from the supervisor (daemon/refclock-feed.c) only. */
		log_port_error(c->args->ifname, "clock_servo refclock_sock: only phcd feeds "
						"chronyd, not phcd-port by hand");
		return -EOPNOTSUPP;
	}
	if (io->clock_backend == OPTIONS_CLOCK_PHC &&
	    (st->mode != TRANSPORT_TS_MODE_HARDWARE || st->phc_index < 0)) {
		/* The configuration's default; by hand on a port without a PHC, go virtual. */
		say(c, "%s: no PHC with hardware timestamps: using the virtual clock",
		    c->args->ifname);
		io->clock_backend = OPTIONS_CLOCK_VIRTUAL;
	}
	switch (io->clock_backend) {
	case OPTIONS_CLOCK_VIRTUAL:
		return port_loop_virtual_clock(&c->loop, CLOCK_REALTIME, io);
	case OPTIONS_CLOCK_PHC:
		snprintf(path, sizeof(path), "/dev/ptp%d", st->phc_index);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			return -errno;
		}
		r = clock_phc_new(fd, &c->loop.clock);
		if (r < 0) {
			close(fd);
		}
		return r;
	case OPTIONS_CLOCK_SYSTEM:
		/* Only the supervisor steers CLOCK_REALTIME (phcd.conf(5), clock_backend). */
		log_port_error(c->args->ifname, "the system clock is steered by phcd only");
		return -EOPNOTSUPP;
	case OPTIONS_CLOCK_FREE_RUNNING:
	default:
		*adjust = false;
		return clock_freerun_new(CLOCK_REALTIME, &c->loop.clock);
	}
}

/* The counters at exit, so a test (or a person) sees what was ignored and why. */
static void print_counters(const struct cli_port *c)
{
	if (!c->args->print || !c->loop.port) {
		return;
	}
	printf("phcd-port: counters:");
	for (int i = 0; i < _PORT_CNT_MAX; i++) {
		uint64_t v = port_get_counter(c->loop.port, i);

		if (v) {
			printf(" %s=%" PRIu64, port_counter_to_string(i), v);
		}
	}
	/* Management is answered beside the engine (port-mgmt.c): its own counts, D-Bus's names. */
	if (c->loop.mgmt.rx) {
		printf(" rx_management=%" PRIu64, c->loop.mgmt.rx);
	}
	if (c->loop.mgmt.tx) {
		printf(" tx_management=%" PRIu64, c->loop.mgmt.tx);
	}
	printf("\n");
	fflush(stdout);
}

int port_cli_run(const struct port_cli_args *a)
{
	struct cli_port c = { .args = a };
	struct transport_config tc = { .ts_request = OPTIONS_TS_AUTO };
	struct transport_ts_status st;
	uint8_t mac[TRANSPORT_MAC_LEN];
	struct port_config pc;
	char id[PORT_IDENTITY_STRLEN];
	int r;

	port_config_default(&pc);
	r = cli_options(a, &pc.instance, &pc.port);
	if (r < 0) {
		return r;
	}
	tc.ifindex = (int) if_nametoindex(a->ifname);
	tc.peer_delay = pc.port.delay_mechanism == DELAY_MECHANISM_P2P;
	memcpy(tc.ptp_dst_mac, pc.port.ptp_dst_mac, sizeof(tc.ptp_dst_mac));
	memcpy(tc.p2p_dst_mac, pc.port.p2p_dst_mac, sizeof(tc.p2p_dst_mac));
	tc.socket_priority = pc.port.socket_priority;
	tc.udp_ttl = pc.port.udp_ttl;
	tc.udp6_scope = pc.port.udp6_scope;
	tc.dscp_event = pc.port.dscp_event;
	tc.dscp_general = pc.port.dscp_general;
	if (!tc.ifindex && a->socket_fd < 0) {
		log_port_error(a->ifname, "no such interface");
		return -ENODEV;
	}
	r = port_loop_init(&c.loop, &cli_port_ops);
	c.loop.engine_error = cli_engine_error;
	report(&c, "event loop", r);
	if (r < 0) {
		goto out;
	}
	if (a->socket_fd >= 0 && pc.port.network_transport != OPTIONS_TRANSPORT_L2) {
		r = -EINVAL; /* --socket-fd hands over an L2 event socket only */
	} else {
		r = transport_new(pc.port.network_transport, &c.loop.transport);
	}
	if (r >= 0) {
		r = a->socket_fd >= 0 ? transport_adopt(c.loop.transport, a->socket_fd, -1, &tc)
				      : transport_open(c.loop.transport, &tc);
	}
	report(&c, "cannot open the PTP socket", r);
	if (r >= 0) {
		r = transport_get_ts_status(c.loop.transport, &st);
	}
	if (r >= 0) {
		r = transport_get_mac(c.loop.transport, mac);
	}
	if (r >= 0) {
		r = cli_clock(&c, &pc.instance, &st, &pc.adjust_clock);
		report(&c, "cannot create the clock", r);
	}
	if (r < 0) {
		goto out;
	}
	clock_identity_from_mac(mac, &pc.clockIdentity);
	pc.utc_timescale = st.mode == TRANSPORT_TS_MODE_SOFTWARE;
	pc.seed = (uint64_t) getpid() ^ (uint64_t) evloop_now();
	r = port_loop_new_port(&c.loop, &pc);
	report(&c, "cannot create the port", r);
	if (r < 0) {
		goto out;
	}
	if (pc.port.network_transport != OPTIONS_TRANSPORT_L2) {
		c.tc = tc;
		c.ipv6 = pc.port.network_transport == OPTIONS_TRANSPORT_UDPV6;
		c.ts_mode = st.mode;
		c.peers_max = pc.port.unicast_peers_max;
		c.loop.peer_missing = cli_peer_missing;
	}
	c.loop.mgmt.ifname = a->ifname;
	c.loop.mgmt.user_description = pc.instance.userDescription;
	/* By hand there is no instance to apply a SET to: read-write answers as read-only. */
	c.loop.mgmt.mode = pc.instance.management_network;
	say(&c, "port %s on %s: %s timestamping, clock %s, %s, domain %u, priority1 %u",
	    port_identity_to_string(&port_port_ds(c.loop.port)->portIdentity, id), a->ifname,
	    transport_ts_mode_to_string(st.mode), clock_name(c.loop.clock),
	    delay_mechanism_to_string(pc.port.delay_mechanism), pc.instance.domainNumber,
	    pc.instance.priority1);

	r = port_loop_run(&c.loop);
	report(&c, "event loop", r);
	print_counters(&c);
out:
	port_loop_done(&c.loop);
	return r;
}
