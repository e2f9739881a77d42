/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-port by hand: one port on one interface, on an sd-event loop, printing like ptp4l -m. */
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

#include <systemd/sd-event.h>

#include "daemon/config.h"
#include "daemon/port-cli.h"
#include "daemon/port-mgmt.h"
#include "ptp/clock.h"
#include "ptp/port.h"
#include "ptp/transport.h"

/* ptp4l prints one summary line per second while it follows a master. */
#define SUMMARY_PERIOD NS_PER_SEC

struct cli_port {
	const struct port_cli_args *args;
	struct transport *transport;
	struct clock *raw, *clock;
	struct port *port;
	struct port_mgmt mgmt; /* answers pmc -2 on this wire (issue 9) */
	sd_event *event;
	sd_event_source *timer;
	ns_t last_summary;
};

static ns_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

void port_cli_args_init(struct port_cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->socket_fd = -1;
	a->domain = a->priority1 = a->priority2 = -1;
	a->delay_mechanism = a->clock_backend = -1;
}

/* "phcd-port[12345.678]: ...", the prefix ptp4l uses, on stdout with -m. */
static void say(const struct cli_port *c, const char *fmt, ...) _printf_(2, 3);
static void say(const struct cli_port *c, const char *fmt, ...)
{
	ns_t now = mono_now();
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

static int cli_send(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
		    ns_t *ret_tx_ts)
{
	struct cli_port *c = userdata;
	struct transport_dest d = {
		.kind = pdelay ? TRANSPORT_DEST_PDELAY : TRANSPORT_DEST_DEFAULT,
	};

	return transport_send(c->transport, buf, len, &d, event, ret_tx_ts);
}

static void cli_state_changed(void *userdata, enum port_state from, enum port_state to,
			      enum fsm_event why)
{
	struct cli_port *c = userdata;

	say(c, "port %u (%s): %s to %s on %s", port_port_ds(c->port)->portIdentity.portNumber,
	    c->args->ifname, port_state_to_string(from), port_state_to_string(to),
	    fsm_event_to_string(why));
}

static void cli_master_changed(void *userdata, const struct ClockIdentity *gm, bool local)
{
	struct cli_port *c = userdata;
	char id[CLOCK_IDENTITY_STRLEN];

	if (local) {
		say(c, "selected local clock %s as best master", clock_identity_to_string(gm, id));
	} else {
		say(c, "selected best master clock %s", clock_identity_to_string(gm, id));
	}
}

static void cli_sample(void *userdata, const struct port_sample *s)
{
	struct cli_port *c = userdata;
	ns_t now = mono_now();

	/* A step is always shown; otherwise one line a period (with slack for jitter). */
	if (s->servo_state != SERVO_JUMP && now - c->last_summary < SUMMARY_PERIOD * 9 / 10) {
		return;
	}
	c->last_summary = now;
	/* The servo state as ptp4l numbers it: s0 unlocked, s1 jump, s2 locked. */
	say(c, "master offset %10" PRId64 " s%d freq %+7.0f path delay %9" PRId64, s->offset,
	    (int) s->servo_state, s->freq_ppb, s->mean_path_delay);
}

static void cli_clock_error(void *userdata, const char *op, int error)
{
	struct cli_port *c = userdata;

	fprintf(stderr, "phcd-port: %s: clock %s (%s) failed: %s\n", c->args->ifname, op,
		clock_name(c->clock), strerror(-error));
}

static void cli_management(void *userdata, const void *buf, size_t len)
{
	struct cli_port *c = userdata;

	port_mgmt_receive(&c->mgmt, buf, len);
}

static const struct port_ops cli_port_ops = {
	.management = cli_management,
	.send = cli_send,
	.state_changed = cli_state_changed,
	.master_changed = cli_master_changed,
	.sample = cli_sample,
	.clock_error = cli_clock_error,
};

static void rearm(struct cli_port *c)
{
	ns_t next = port_next_deadline(c->port);

	if (next == INT64_MAX) {
		sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(c->timer, next > 0 ? (uint64_t) next / 1000 : 0);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

static void report(const struct cli_port *c, const char *what, int r)
{
	if (r < 0) {
		fprintf(stderr, "phcd-port: %s: %s: %s\n", c->args->ifname, what, strerror(-r));
	}
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct cli_port *c = userdata;

	report(c, "timer", port_tick(c->port, mono_now()));
	rearm(c);
	return 0;
}

static int on_frame(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct cli_port *c = userdata;
	uint8_t buf[1536];

	/* A bounded batch, so timers still run under a flood. */
	for (int k = 0; k < 64; k++) {
		struct transport_rx_info info;
		int n = transport_recv(c->transport, buf, sizeof(buf), &info);

		if (n == -EAGAIN) {
			break;
		}
		if (n < 0) {
			continue;
		}
		report(c, "receive",
		       port_receive(c->port, buf, (size_t) n, info.has_ts ? info.ts : PORT_TS_NONE,
				    mono_now()));
	}
	rearm(c);
	return 0;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	sd_event_exit(sd_event_source_get_event(s), 0);
	return 0;
}

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
		r = config_load(a->config_path, NULL, false, &cfg, &errors);
		if (r < 0) {
			fprintf(stderr, "phcd-port: %s: %s\n%s", a->config_path, strerror(-r),
				errors ? errors : "");
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
	if (a->delay_mechanism >= 0) {
		po->delay_mechanism = (enum options_delay_mechanism) a->delay_mechanism;
	}
	if (a->clock_backend >= 0) {
		io->clock_backend = (enum options_clock_backend) a->clock_backend;
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
	struct clock_virtual_config vc = {
		.initial_offset = io->virtual_clock.initial_offset_ns,
		.freq_error_ppb = io->virtual_clock.initial_freq_ppb,
	};
	char path[32];
	int fd, r;

	*adjust = true;
	if (io->clock_backend == OPTIONS_CLOCK_PHC &&
	    (st->mode != TRANSPORT_TS_MODE_HARDWARE || st->phc_index < 0)) {
		/* The configuration's default; by hand on a port without a PHC, go virtual. */
		say(c, "%s: no PHC with hardware timestamps: using the virtual clock",
		    c->args->ifname);
		io->clock_backend = OPTIONS_CLOCK_VIRTUAL;
	}
	switch (io->clock_backend) {
	case OPTIONS_CLOCK_VIRTUAL:
		r = clock_freerun_new(CLOCK_REALTIME, &c->raw);
		if (r < 0) {
			return r;
		}
		return clock_virtual_new(c->raw, &vc, &c->clock);
	case OPTIONS_CLOCK_PHC:
		snprintf(path, sizeof(path), "/dev/ptp%d", st->phc_index);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			return -errno;
		}
		r = clock_phc_new(fd, &c->clock);
		if (r < 0) {
			close(fd);
		}
		return r;
	case OPTIONS_CLOCK_SYSTEM:
		/* Only the supervisor steers CLOCK_REALTIME (DESIGN.md 2). */
		fprintf(stderr, "phcd-port: %s: the system clock is steered by phcd only\n",
			c->args->ifname);
		return -EOPNOTSUPP;
	case OPTIONS_CLOCK_FREE_RUNNING:
	default:
		*adjust = false;
		return clock_freerun_new(CLOCK_REALTIME, &c->clock);
	}
}

static void cli_done(struct cli_port *c)
{
	c->timer = sd_event_source_disable_unref(c->timer);
	port_free(c->port);
	clock_free(c->clock);
	clock_free(c->raw);
	transport_free(c->transport);
	sd_event_unref(c->event);
}

/* The counters at exit, so a test (or a person) sees what was ignored and why. */
static void print_counters(const struct cli_port *c)
{
	if (!c->args->print || !c->port) {
		return;
	}
	printf("phcd-port: counters:");
	for (int i = 0; i < _PORT_CNT_MAX; i++) {
		uint64_t v = port_get_counter(c->port, i);

		if (v) {
			printf(" %s=%" PRIu64, port_counter_to_string(i), v);
		}
	}
	printf("\n");
	fflush(stdout);
}

int port_cli_run(const struct port_cli_args *a)
{
	struct cli_port c = { .args = a };
	struct transport_config tc = { .ts_request = TRANSPORT_TS_AUTO };
	struct transport_ts_status st;
	uint8_t mac[TRANSPORT_MAC_LEN];
	struct port_config pc;
	char id[PORT_IDENTITY_STRLEN];
	sigset_t mask;
	int r;

	port_config_default(&pc);
	r = cli_options(a, &pc.instance, &pc.port);
	if (r < 0) {
		return r;
	}
	tc.ifindex = (int) if_nametoindex(a->ifname);
	tc.peer_delay = pc.port.delay_mechanism == OPTIONS_DELAY_P2P;
	if (!tc.ifindex && a->socket_fd < 0) {
		fprintf(stderr, "phcd-port: %s: no such interface\n", a->ifname);
		return -ENODEV;
	}
	r = transport_l2_new(&c.transport);
	if (r >= 0) {
		r = a->socket_fd >= 0 ? transport_adopt(c.transport, a->socket_fd, &tc)
				      : transport_open(c.transport, &tc);
	}
	report(&c, "cannot open the PTP socket", r);
	if (r >= 0) {
		r = transport_get_ts_status(c.transport, &st);
	}
	if (r >= 0) {
		r = transport_get_mac(c.transport, mac);
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
	pc.seed = (uint64_t) getpid() ^ (uint64_t) mono_now();
	r = port_new(&pc, c.clock, &cli_port_ops, &c, &c.port);
	report(&c, "cannot create the port", r);
	if (r < 0) {
		goto out;
	}
	c.mgmt = (struct port_mgmt){ .port = c.port,
				     .transport = c.transport,
				     .ifname = a->ifname,
				     .user_description = pc.instance.userDescription };
	say(&c, "port %s on %s: %s timestamping, clock %s, %s, domain %u, priority1 %u",
	    port_identity_to_string(&port_port_ds(c.port)->portIdentity, id), a->ifname,
	    transport_ts_mode_to_string(st.mode), clock_name(c.clock),
	    options_delay_mechanism_to_string(pc.port.delay_mechanism), pc.instance.domainNumber,
	    pc.instance.priority1);

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if ((r = sd_event_new(&c.event)) < 0 ||
	    (r = sd_event_add_signal(c.event, NULL, SIGTERM, on_term, &c)) < 0 ||
	    (r = sd_event_add_signal(c.event, NULL, SIGINT, on_term, &c)) < 0 ||
	    (r = sd_event_add_io(c.event, NULL, transport_fd(c.transport), EPOLLIN, on_frame, &c)) <
		    0 ||
	    (r = sd_event_add_time(c.event, &c.timer, CLOCK_MONOTONIC, 0, 0, on_timer, &c)) < 0) {
		report(&c, "event loop", r);
		goto out;
	}
	r = port_start(c.port, mono_now());
	if (r >= 0) {
		rearm(&c);
		r = sd_event_loop(c.event);
	}
	print_counters(&c);
out:
	cli_done(&c);
	return r;
}
