// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's ports: one worker each, its lifecycle and restarts, its status, and links. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/time-util.h"
#include "daemon/backoff.h"
#include "daemon/clock-rivals.h"
#include "daemon/manager-internal.h"
#include "daemon/manager-peers.h"
#include "daemon/sysclock-follow.h"
#include "daemon/worker.h"
#include "ptp/hwtstamp.h"

void mport_set_state(struct mport *p, enum port_state st)
{
	if (p->state == st) {
		return;
	}
	/* A port that stops working is an error an operator looks for (journalctl -p err). */
	log_port_full(p->ifname, st == PORT_STATE_FAULTY ? LOG_ERR : LOG_INFO, "%s -> %s",
		      port_state_to_string(p->state), port_state_to_string(st));
	if (p->manager->status_stdout) {
		printf("port %s instance %s state %s\n", p->ifname, p->instance->name,
		       port_state_to_string(st));
		fflush(stdout);
	}
	p->state = st;
	manager_port_changed(p, MPORT_CHANGED_STATE);
}

void mport_set_error(struct mport *p, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->last_error_text, sizeof(p->last_error_text), fmt, ap);
	va_end(ap);
	p->last_error = error;
	manager_port_changed(p, MPORT_CHANGED_ERROR);
}

/* ---- workers ---- */

/* What this port's worker can honestly report (worker-trust.h). */
static void mport_trust_limits(const struct mport *p, struct worker_trust_limits *l)
{
	const struct instance_options *o = &p->instance->options;
	enum options_clock_backend b = o->clock_backend;

	l->may_run_servo = (b == OPTIONS_CLOCK_PHC || b == OPTIONS_CLOCK_VIRTUAL) && !p->phc_rival;
	servo_config_from_options(&o->servo, p->timestamping != TRANSPORT_TS_MODE_HARDWARE,
				  &l->policy);
	l->max_frequency_ppb = o->servo.max_frequency > 0
				       ? (double) o->servo.max_frequency +
						 fabs((double) o->virtual_clock.initial_freq_ppb)
				       : 0;
}

/*
 * A report the worker could not honestly make (it claims SLAVE unasked, a servo it does not
 * run, a frequency beyond the clamp, a flood): the worker is lying, it is ended and restarted
 * (the exit is logged with the reason, restarts are rate-limited). true: it was.
 */
static bool mport_worker_lies(struct mport *p, const char *lie)
{
	if (!lie) {
		return false;
	}
	worker_kill(p->worker, -EPERM, lie);
	return true;
}

/* A state in which a port takes part in the protocol (a worker runs it, nothing is wrong). */
static bool port_state_works(enum port_state st)
{
	switch (st) {
	case PORT_STATE_LISTENING:
	case PORT_STATE_PRE_MASTER:
	case PORT_STATE_MASTER:
	case PORT_STATE_PASSIVE:
	case PORT_STATE_UNCALIBRATED:
	case PORT_STATE_SLAVE:
		return true;
	default:
		return false;
	}
}

/* A STATUS, from the socket (a change, at once) or from the status page (once a second). */
static void mport_take_status(struct mport *p, const struct ipc_status *s, bool datagram)
{
	struct worker_trust_limits limits;
	unsigned int mask = 0;

	mport_trust_limits(p, &limits);
	if (mport_worker_lies(p, worker_trust_check_status(&p->trust, &limits, s, datagram,
							   time_mono_usec()))) {
		return;
	}

	if (memcmp(p->rx, s->rx, sizeof(p->rx)) || memcmp(p->tx, s->tx, sizeof(p->tx)) ||
	    memcmp(p->ignored, s->ignored, sizeof(p->ignored)) ||
	    memcmp(p->unicast, s->unicast, sizeof(p->unicast)) ||
	    p->dropped_management != s->mgmt_malformed) {
		memcpy(p->rx, s->rx, sizeof(p->rx));
		memcpy(p->tx, s->tx, sizeof(p->tx));
		memcpy(p->ignored, s->ignored, sizeof(p->ignored));
		memcpy(p->unicast, s->unicast, sizeof(p->unicast));
		p->dropped_management = s->mgmt_malformed;
		mask |= MPORT_CHANGED_COUNTERS;
	}
	/* The worker's words, untrusted: printable ASCII only before the log, D-Bus or a file. */
	char text[sizeof(s->last_error_text)];

	for (size_t k = 0; k < sizeof(text); k++) {
		unsigned char ch = (unsigned char) s->last_error_text[k];

		text[k] = ch == '\0' ? '\0' : ch < 0x20 || ch >= 0x7f ? '?' : (char) ch;
		if (!ch) {
			break;
		}
	}
	text[sizeof(text) - 1] = '\0';
	if (s->last_error &&
	    (s->last_error != p->last_error || strncmp(text, p->last_error_text, sizeof(text)))) {
		mport_set_error(p, s->last_error, "%s", text);
		log_port_full(p->ifname, LOG_WARNING, "%s", p->last_error_text);
	} else if (!s->last_error && p->last_error && port_state_works(s->port_state) &&
		   p->link_up && !p->phc_fault && p->worker && !worker_stopping(p->worker)) {
		/* The fault is over (a worker that runs clean after a fix, a restart, the link
		 * back; not the last words of one being stopped): LastError is the present, the
		 * journal keeps the history. */
		log_port_full(p->ifname, LOG_INFO, "working again, error cleared (was: %s)",
			      p->last_error_text);
		p->last_error = 0;
		p->last_error_text[0] = '\0';
		mask |= MPORT_CHANGED_ERROR;
	}
	if (s->as_capable != p->as_capable) {
		/* Before, neither end took the other's Announce: the boot gate counts from now
		 * (readiness.h, READINESS_AS_CAPABLE_EXCHANGES). */
		if (s->as_capable && p->listening_since_usec &&
		    options_port_runs_as_capable(&p->options)) {
			p->listening_since_usec = time_mono_usec();
		}
		p->as_capable = s->as_capable;
		mask |= MPORT_CHANGED_STATE;
	}
	if (mask) {
		manager_port_changed(p, mask);
	}
	if (s->port_state != p->state) {
		mport_set_state(p, s->port_state);
		/* A port leaving or joining the protocol changes Ebest's candidates. */
		p->sent_valid = false;
		instance_run_bmca(p->instance);
	}
	instance_port_status(p->instance, p, s);
}

/*
 * Every worker's status page on one timer (status-page.h): one wakeup a second for all ports,
 * not one per port. A page being written at every try waits
 * for the next second; one with nonsense in it ends its worker (worker_read_status()).
 */
int manager_on_status_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	struct mport *p;

	sd_event_source_set_time(src, usec + MANAGER_STATUS_PERIOD_USEC);
	MANAGER_FOREACH_PORT(p, m, k)
	{
		struct ipc_msg msg;

		if (p->worker && p->configured && worker_read_status(p->worker, &msg) > 0) {
			mport_take_status(p, &msg.status, false);
		}
	}
	return 0;
}

static void on_worker_message(struct worker *w, const struct ipc_msg *msg, void *userdata)
{
	struct mport *p = userdata;

	switch (msg->type) {
	case IPC_HELLO: {
		struct ipc_msg c = { .type = IPC_CONFIG };
		struct gm_settings gm;

		if (msg->hello.protocol_version != IPC_VERSION || p->configured) {
			worker_kill(w, -EPROTO, "sent an unexpected HELLO");
			return;
		}
		snprintf(c.config.ifname, sizeof(c.config.ifname), "%s", p->ifname);
		c.config.clock_identity = p->instance->clock_identity;
		c.config.port_number = p->port_identity.portNumber;
		c.config.instance = p->instance->options;
		/* What the instance announces now (its clock mode's class, clock-mode-step.c). */
		instance_announced_gm_settings(p->instance, &gm);
		options_set_gm_settings(&c.config.instance, &gm);
		c.config.port = p->options;
		c.config.clock_locked_before = p->clock_locked;
		if (p->phc_rival) {
			/* Someone else steers this PHC: this worker only measures. */
			c.config.instance.clock_backend = OPTIONS_CLOCK_FREE_RUNNING;
		}
		if (worker_send_config(w, &c) < 0) {
			worker_kill(w, -EPIPE, "cannot send its CONFIG");
			return;
		}
		p->configured = true;
		if (p->uc) {
			p->uc->table.n = p->uc->table.total = 0; /* a new worker tells its own */
		}
		/* From now on it listens on the link: the boot gate counts from here. */
		p->listening_since_usec = time_mono_usec();
		/* A new worker starts not asCapable where it computes it (port.c): its STATUS
		 * saying asCapable restarts the gate (mport_take_status()). */
		if (p->as_capable && options_port_runs_as_capable(&p->options)) {
			p->as_capable = false;
			manager_port_changed(p, MPORT_CHANGED_STATE);
		}
		/* A static role (BMCA noop) is SLAVE by configuration, not by our decision. */
		p->trust.static_slave = p->options.BMCA == OPTIONS_BMCA_NOOP &&
					!p->options.masterOnly;
		return;
	}
	case IPC_STATUS:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent STATUS before HELLO");
			return;
		}
		mport_take_status(p, &msg->status, true);
		return;
	case IPC_ERBEST:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent ERBEST before HELLO");
			return;
		}
		p->has_erbest = msg->erbest.present;
		p->erbest = msg->erbest;
		/*
		 * Decide for this port afresh, even if it comes out as last sent: a worker whose
		 * Erbest vanished before our S1 arrived could not carry it out (it says so with
		 * this ERBEST), and a repeat skipped here would leave it LISTENING for good.
		 */
		p->sent_valid = false;
		instance_run_bmca(p->instance);
		return;
	case IPC_CLOCK_STATE: {
		struct worker_trust_limits limits;
		struct timespec raw; /* the raw clock of virtual clocks that share a state */

		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent CLOCK_STATE before HELLO");
			return;
		}
		mport_trust_limits(p, &limits);
		clock_gettime(CLOCK_REALTIME, &raw);
		if (mport_worker_lies(p, worker_trust_check_clock_state(
						 &p->trust, &limits, &p->instance->served_clock,
						 &msg->clock_state,
						 (ns_t) raw.tv_sec * NS_PER_SEC + raw.tv_nsec,
						 time_mono_usec()))) {
			return;
		}
		instance_clock_state(p->instance, p, &msg->clock_state);
		return;
	}
	case IPC_PRIORITY_REQUEST:
		/* A management SET the worker accepted (management_network = read-write): as D-Bus
		 * does. */
		if (mport_worker_lies(p, worker_trust_check_news(&p->trust, WORKER_NEWS_PRIORITY,
								 time_mono_usec()))) {
			return;
		}
		if (p->manager->priority_request) {
			p->manager->priority_request(p, &msg->set_priority);
		} else {
			log_port_full(p->ifname, LOG_WARNING,
				      "PRIORITY_REQUEST with no management sockets, ignoring");
		}
		return;
	case IPC_GM_SETTINGS_REQUEST:
		if (mport_worker_lies(p, worker_trust_check_news(&p->trust, WORKER_NEWS_GM_SETTINGS,
								 time_mono_usec()))) {
			return;
		}
		if (p->manager->gm_settings_request) {
			p->manager->gm_settings_request(p, &msg->gm_settings);
		} else {
			log_port_full(p->ifname, LOG_WARNING,
				      "GM_SETTINGS_REQUEST with no management sockets, ignoring");
		}
		return;
	case IPC_UNICAST_TABLE:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent UNICAST_TABLE before HELLO");
			return;
		}
		if (mport_worker_lies(p,
				      worker_trust_check_news(&p->trust, WORKER_NEWS_UNICAST_TABLE,
							      time_mono_usec()))) {
			return;
		}
		if (!mport_uc(p)) {
			log_port_error(p->ifname, "out of memory for its UNICAST_TABLE, ignoring");
			return;
		}
		p->uc->table = msg->unicast_table;
		p->uc->table_usec = time_mono_usec();
		return;
	case IPC_PEER_REQUEST:
	case IPC_PEER_RELEASE:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "asked for unicast sockets before HELLO");
			return;
		}
		if (msg->type == IPC_PEER_REQUEST) {
			mport_peer_request(p, &msg->peer);
		} else {
			mport_peer_release(p, &msg->peer);
		}
		return;
	default:
		return;
	}
}

static uint64_t now_usec(struct manager *m)
{
	uint64_t t;

	sd_event_now(m->event, CLOCK_MONOTONIC, &t);
	return t;
}

static int on_restart_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct mport *p = userdata;

	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	/* Given up for the window that has now passed: one more try (backoff.h). */
	p->backoff.given_up = false;
	mport_start_worker(p);
	return 0;
}

/*
 * Restart with exponential backoff; past restart_limit_burst in the interval, give up until the
 * interval has passed: a port that a flood made fail comes back on its own once it ends.
 */
static void mport_schedule_restart(struct mport *p)
{
	struct manager *m = p->manager;
	const struct daemon_options *d = &m->config->daemon;
	uint64_t now = now_usec(m), delay;

	if (!backoff_next(&p->backoff, d, now, &delay)) {
		char last[MANAGER_ERROR_TEXT_MAX];

		/* The reason is formatted into last_error_text: quote the old one from a copy. */
		snprintf(last, sizeof(last), "%s", p->last_error_text);
		mport_set_state(p, PORT_STATE_FAULTY);
		mport_set_error(p, p->last_error ? p->last_error : -ECHILD,
				"worker restarted %u times within %u s, giving up for %" PRIu64
				" s (last: %.60s)",
				p->backoff.in_window, d->restart_limit_interval_sec,
				(delay + USEC_PER_SEC - 1) / USEC_PER_SEC, last);
		log_port_full(p->ifname, LOG_ERR, "%s", p->last_error_text);
		sd_event_add_time(m->event, &p->restart_timer, CLOCK_MONOTONIC, now + delay, 0,
				  on_restart_timer, p);
		return;
	}
	p->restarts++;
	manager_port_changed(p, MPORT_CHANGED_WORKER);
	sd_event_add_time(m->event, &p->restart_timer, CLOCK_MONOTONIC, now + delay, 0,
			  on_restart_timer, p);
}

void manager_maybe_exit(struct manager *m)
{
	if (!m->stopping) {
		return;
	}
	for (size_t k = 0; k < m->n_ports; k++) {
		if (m->ports[k]->worker) {
			return;
		}
	}
	sd_event_exit(m->event, 0);
}

static void on_worker_exited(struct worker *w, int error, const char *reason, void *userdata)
{
	struct mport *p = userdata;
	bool expected = worker_stopping(w);
	struct manager *m = p->manager;
	struct instance *i = p->instance;

	p->worker = worker_free(p->worker);
	p->worker_pid = 0;
	p->configured = false;
	p->listening_since_usec = 0;
	p->has_erbest = false;
	p->sent_valid = false;
	worker_trust_reset(&p->trust);
	/* Its unicast sockets went with it. */
	if (p->uc) {
		peer_policy_reset(&p->uc->peers);
	}
	manager_port_changed(p, MPORT_CHANGED_WORKER);
	if (p->removed) {
		mport_free(p);
		instance_run_bmca(i);
		manager_maybe_exit(m);
		return;
	}
	if (m->stopping) {
		manager_maybe_exit(m);
		return;
	}
	if (!expected) {
		log_port_full(p->ifname, LOG_ERR, "worker %s", reason);
		mport_set_error(p, error ? error : -ECHILD, "worker %s", reason);
	}
	if (!p->enabled) {
		mport_set_state(p, PORT_STATE_DISABLED);
	} else if (!p->link_up || p->phc_fault) {
		mport_set_state(p, PORT_STATE_FAULTY);
	} else if (expected) {
		/* Stopped on purpose to be replaced (reload, restart). */
		mport_start_worker(p);
	} else {
		mport_set_state(p, PORT_STATE_FAULTY);
		mport_schedule_restart(p);
	}
	instance_run_bmca(i);
}

static const struct worker_ops worker_ops = {
	.message = on_worker_message,
	.exited = on_worker_exited,
};

/*
 * Does another program steer this port's PHC (ptp4l -i IF, phc2sys -c IF or -c /dev/ptpN, in our
 * network namespace)? Then phcd must not: p->phc_rival, and the worker measures only.
 */
static void mport_check_phc_rivals(struct mport *p)
{
	struct clock_rival r[16];
	char dev[32], who[64];
	bool was = p->phc_rival;
	size_t n = 0;

	p->phc_rival = false;
	snprintf(dev, sizeof(dev), "/dev/ptp%d", p->phc_index);
	if (clock_rivals_scan("/proc", r, ARRAY_SIZE(r), &n) < 0) {
		return;
	}
	for (size_t k = 0; k < n && k < ARRAY_SIZE(r) && !p->phc_rival; k++) {
		if (r[k].target == CLOCK_RIVAL_PHC && r[k].same_netns &&
		    (!strcmp(r[k].clock, p->ifname) ||
		     (p->phc_index >= 0 && !strcmp(r[k].clock, dev)))) {
			p->phc_rival = true;
			snprintf(p->phc_rival_text, sizeof(p->phc_rival_text),
				 "%s steers the PHC of %s: phcd only measures on this port",
				 clock_rival_describe(&r[k], who, sizeof(who)), p->ifname);
		}
	}
	if (p->phc_rival && !was) {
		log_port_full(p->ifname, LOG_ERR, "refusing to steer its PHC: %s",
			      p->phc_rival_text);
	}
	if (p->phc_rival != was) {
		manager_port_changed(p, MPORT_CHANGED_ERROR);
	}
}

/*
 * An interface that cannot stamp what it sends (a bridge) never gets a worker: refused here with
 * the reason, not blamed on a transmit timeout later. Unknown without ethtool netlink: tried.
 */
static bool mport_refuse_tx(struct mport *p)
{
	struct tsinfo ti;
	const char *why;

	if (!p->manager->ethtool ||
	    ethtool_nl_tsinfo_get(p->manager->ethtool, p->ifname, &ti) < 0) {
		return false;
	}
	why = tsinfo_tx_missing(&ti, p->options.time_stamping == OPTIONS_TS_SOFTWARE);
	if (!why) {
		return false;
	}
	mport_set_error(p, -EOPNOTSUPP, "not a PTP port: %s", why);
	log_port_full(p->ifname, LOG_ERR, "%s", p->last_error_text);
	mport_set_state(p, PORT_STATE_FAULTY);
	return true;
}

void mport_start_worker(struct mport *p)
{
	struct manager *m = p->manager;
	struct instance *i = p->instance;
	struct worker_config wc = {
		.binary = m->port_binary,
		.ifindex = p->ifindex,
		.time_stamping = p->options.time_stamping,
		.peer_delay = p->options.delay_mechanism == DELAY_MECHANISM_P2P,
		.clock_backend = i->options.clock_backend,
		.log_samples = m->config->daemon.logging_level >= LOG_DEBUG,
		.identity = m->worker_identity,
	};
	struct worker_info info;
	int r;

	memcpy(wc.ptp_dst_mac, p->options.ptp_dst_mac, sizeof(wc.ptp_dst_mac));
	memcpy(wc.p2p_dst_mac, p->options.p2p_dst_mac, sizeof(wc.p2p_dst_mac));
	wc.socket_priority = p->options.socket_priority;
	wc.network_transport = p->options.network_transport;
	wc.udp_ttl = p->options.udp_ttl;
	wc.udp6_scope = p->options.udp6_scope;
	wc.dscp_event = p->options.dscp_event;
	wc.dscp_general = p->options.dscp_general;
	p->start_pending = false;
	if (p->worker || !p->enabled || !p->link_up || p->backoff.given_up || m->stopping ||
	    p->removed || p->restart_timer || p->phc_fault) {
		return;
	}
	if (wc.clock_backend == OPTIONS_CLOCK_PHC) {
		/* Another program steers this PHC: measure only (CONFIG says the same). */
		mport_check_phc_rivals(p);
		if (p->phc_rival) {
			wc.clock_backend = OPTIONS_CLOCK_FREE_RUNNING;
		}
	}
	if (mport_refuse_tx(p)) {
		return;
	}
	snprintf(wc.ifname, sizeof(wc.ifname), "%s", p->ifname);
	r = worker_spawn(m->event, &wc, &worker_ops, p, &p->worker, &info);
	if (r < 0) {
		log_port_full_errno(p->ifname, LOG_ERR, r, "cannot start a worker: %m");
		mport_set_error(p, r, "cannot start a worker: %s", strerror(-r));
		mport_set_state(p, PORT_STATE_FAULTY);
		mport_schedule_restart(p);
		return;
	}
	if (info.hw_error) {
		/* time_stamping hardware: the worker keeps the port FAULTY and says why. */
		log_port_full_errno(p->ifname, LOG_NOTICE, info.hw_error,
				    p->options.time_stamping == OPTIONS_TS_HARDWARE
					    ? "hardware timestamping refused (%m)"
					    : "hardware timestamping refused (%m), using software "
					      "timestamps");
	}
	p->worker_pid = info.pid;
	p->timestamping = info.ts_mode;
	p->phc_index = info.phc_index;
	p->rx_filter = info.hw_rx_filter;
	log_port_full(p->ifname, LOG_INFO,
		      "worker %d started (instance %s, port %u, %s timestamps, rx filter %s)",
		      (int) info.pid, i->name, p->port_identity.portNumber,
		      mport_timestamping_to_string(info.ts_mode),
		      hwtstamp_rx_filter_to_string(info.hw_rx_filter));
	manager_port_changed(p, MPORT_CHANGED_WORKER | MPORT_CHANGED_TIMESTAMPING);
	mport_set_state(p, PORT_STATE_INITIALIZING);
}

/*
 * New ports' workers start a few a loop turn: the ports of an instance found at once (200 with
 * interfaces = auto) are not as many spawns in one turn, during which no worker had its CONFIG
 * (each gives up after 5 s and is restarted) and D-Bus went unanswered. Issue 31: 200 ports
 * from an ASan build on a loaded 2-core machine, every worker timed out twice and D-Bus did not
 * answer for over 25 s.
 */
#define MANAGER_STARTS_PER_TURN 4

static int on_start_defer(sd_event_source *s, void *userdata)
{
	struct manager *m = userdata;
	unsigned int n = 0;

	for (size_t k = 0; k < m->n_ports; k++) {
		struct mport *p = m->ports[k];

		if (!p->start_pending) {
			continue;
		}
		if (n++ == MANAGER_STARTS_PER_TURN) {
			return 0; /* the rest at the next turn: the source stays on */
		}
		mport_start_worker(p);
	}
	return sd_event_source_set_enabled(s, SD_EVENT_OFF);
}

/*
 * A new port's worker, at its turn (a link up, a restart or an enable starts one at once). The
 * turns come when nothing else is pending: a defer source that stays on is always the oldest
 * pending source of its priority, and at the same priority would run before every worker's
 * HELLO and every D-Bus call.
 */
static void mport_start_later(struct mport *p)
{
	struct manager *m = p->manager;

	if ((!m->start_defer &&
	     (sd_event_add_defer(m->event, &m->start_defer, on_start_defer, m) < 0 ||
	      sd_event_source_set_priority(m->start_defer, SD_EVENT_PRIORITY_IDLE) < 0)) ||
	    sd_event_source_set_enabled(m->start_defer, SD_EVENT_ON) < 0) {
		mport_start_worker(p);
		return;
	}
	p->start_pending = true;
}

void mport_fault_phc(struct instance *i, int phc_index, int error)
{
	struct mport *p;

	MANAGER_FOREACH_PORT(p, i->manager, k)
	{
		if (p->instance != i || p->phc_index != phc_index || p->phc_fault || p->removed) {
			continue;
		}
		p->phc_fault = true;
		mport_set_error(
			p, error,
			"cannot steer /dev/ptp%d to follow the SLAVE port's PHC (phc_follow): "
			"%s",
			phc_index, strerror(-error));
		log_port_full(p->ifname, LOG_ERR, "%s", p->last_error_text);
		mport_stop_worker(p);
		mport_set_state(p, PORT_STATE_FAULTY);
	}
}

/* Stop the worker so that on_worker_exited starts a fresh one (or none, per the flags). */
void mport_stop_worker(struct mport *p)
{
	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	if (p->worker) {
		worker_stop(p->worker, WORKER_STOP_TIMEOUT_USEC);
	}
}

/* ---- ports ---- */

void mport_free(struct mport *p)
{
	struct manager *m = p->manager;

	for (size_t k = 0; k < m->n_ports; k++) {
		if (m->ports[k] == p) {
			if (m->ops && m->ops->port_removed) {
				m->ops->port_removed(m->userdata, p);
			}
			memmove(&m->ports[k], &m->ports[k + 1],
				(m->n_ports - k - 1) * sizeof(*m->ports));
			m->n_ports--;
			break;
		}
	}
	log_port_full(p->ifname, LOG_INFO, "port removed from instance %s", p->instance->name);
	manager_instance_changed(p->instance, INSTANCE_CHANGED_PORTS);
	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	p->worker = worker_free(p->worker);
	free(p->uc);
	free(p);
}

/* Remove a port: stop its worker first; the port goes when the worker is reaped. */
void mport_remove(struct mport *p)
{
	p->removed = true;
	if (p->worker) {
		mport_stop_worker(p);
		return;
	}
	mport_free(p);
}

static bool link_is_up(const struct link_info *l)
{
	return l->admin_up && l->carrier;
}

int mport_add(struct manager *m, struct instance *i, const struct link_info *l)
{
	struct mport *p, **ports;
	int r;

	ports = reallocarray(m->ports, m->n_ports + 1, sizeof(*m->ports));
	if (!ports) {
		return -ENOMEM;
	}
	m->ports = ports;
	p = calloc(1, sizeof(*p));
	if (!p) {
		return -ENOMEM;
	}
	r = config_port_options(m->config, i->name, l->name, &p->options);
	if (r < 0) {
		free(p);
		return r;
	}
	snprintf(p->ifname, sizeof(p->ifname), "%s", l->name);
	p->instance = i;
	p->manager = m;
	p->ifindex = l->ifindex;
	p->link_up = link_is_up(l);
	p->enabled = true;
	p->phc_index = -1;
	p->state = PORT_STATE_INITIALIZING;
	p->delay_mechanism = p->options.delay_mechanism;
	/* The instance's clockIdentity comes from its first port's MAC (7.5.2.2.2). */
	if (!memcmp(&i->clock_identity, &(struct ClockIdentity){ 0 }, sizeof(i->clock_identity)) &&
	    l->has_mac) {
		clock_identity_from_mac(l->mac, &i->clock_identity);
		manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
		instance_run_bmca(i);
	}
	p->port_identity.clockIdentity = i->clock_identity;
	p->port_identity.portNumber = instance_free_port_number(i);
	m->ports[m->n_ports++] = p;
	log_port_full(p->ifname, LOG_INFO, "port %u of instance %s (domain %u), link %s",
		      p->port_identity.portNumber, i->name, i->domain, p->link_up ? "up" : "down");
	if (m->ops && m->ops->port_added) {
		m->ops->port_added(m->userdata, p);
	}
	manager_instance_changed(i, INSTANCE_CHANGED_PORTS);
	if (p->link_up) {
		mport_start_later(p);
	} else {
		mport_set_state(p, PORT_STATE_FAULTY);
		mport_set_error(p, -ENETDOWN, "link down");
	}
	return 0;
}

bool manager_link_has_phc(struct manager *m, const struct link_info *l)
{
	struct tsinfo ti;

	if (!m->ethtool || ethtool_nl_tsinfo_get(m->ethtool, l->name, &ti) < 0) {
		return false;
	}
	return ti.phc_index >= 0;
}

/* A link appeared (or the configuration changed): does an instance want it? */
void manager_consider_link(struct manager *m, const struct link_info *l)
{
	const struct config_instance *ci;
	struct instance *i;
	int r;

	if (manager_find_port_by_ifindex(m, l->ifindex) || manager_find_port(m, l->name)) {
		return;
	}
	if (l->flags & IFF_LOOPBACK) {
		/* Never a port; said once when an instance names it (Health says it too). */
		ci = config_instance_for_interface(m->config, l->name, false);
		if (ci && !ci->options.interfaces.auto_select) {
			log_port_full(l->name, LOG_ERR,
				      "named in the interfaces of instance %s, but a loopback "
				      "interface carries no PTP frames: not a port, ignoring",
				      ci->options.name);
		}
		return;
	}
	ci = config_instance_for_interface(m->config, l->name, manager_link_has_phc(m, l));
	if (!ci) {
		return;
	}
	i = manager_find_instance(m, ci->options.name);
	if (!i) {
		return;
	}
	r = mport_add(m, i, l);
	if (r < 0) {
		log_port_full_errno(l->name, LOG_ERR, r, "cannot add the port: %m, ignoring");
	}
}

void manager_on_link(struct link_monitor *lm, enum link_event ev, const struct link_info *l,
		     void *userdata)
{
	struct manager *m = userdata;
	struct mport *p = manager_find_port_by_ifindex(m, l->ifindex);

	if (m->stopping) {
		return;
	}
	switch (ev) {
	case LINK_EVENT_ADDED:
		manager_consider_link(m, l);
		return;
	case LINK_EVENT_REMOVED:
		if (p && !p->removed) {
			log_port_full(p->ifname, LOG_INFO, "interface removed");
			mport_remove(p);
		}
		return;
	case LINK_EVENT_RENAMED:
		if (p && !p->removed) {
			mport_remove(p);
		}
		manager_consider_link(m, l);
		return;
	default:
		break;
	}
	if (!p || p->removed || p->link_up == link_is_up(l)) {
		return;
	}
	p->link_up = link_is_up(l);
	log_port_full(p->ifname, LOG_INFO, "link %s", p->link_up ? "up" : "down");
	manager_port_changed(p, MPORT_CHANGED_LINK);
	/* The boot gate counts from the link's coming up (a worker that outlived the flap too). */
	p->listening_since_usec = p->link_up && p->configured ? time_mono_usec() : 0;
	if (p->link_up) {
		/* A link that comes back deserves a fresh start, rate limit included. */
		backoff_reset(&p->backoff);
		p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
		p->phc_fault = false;
		mport_start_worker(p);
	} else {
		mport_set_error(p, -ENETDOWN, "link down");
		if (p->worker) {
			mport_stop_worker(p);
		}
		mport_set_state(p, PORT_STATE_FAULTY);
		instance_run_bmca(p->instance);
	}
}

/* ---- control ---- */

int mport_enable(struct mport *p)
{
	if (p->enabled) {
		return 0;
	}
	p->enabled = true;
	backoff_reset(&p->backoff);
	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	p->phc_fault = false;
	manager_port_changed(p, MPORT_CHANGED_STATE);
	if (!p->link_up) {
		mport_set_state(p, PORT_STATE_FAULTY);
		return 0;
	}
	mport_start_worker(p);
	return 0;
}

int mport_disable(struct mport *p)
{
	if (!p->enabled) {
		return 0;
	}
	p->enabled = false;
	if (p->worker) {
		mport_stop_worker(p);
	} else {
		p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
		mport_set_state(p, PORT_STATE_DISABLED);
	}
	manager_port_changed(p, MPORT_CHANGED_STATE);
	return 0;
}

int mport_restart(struct mport *p)
{
	if (!p->enabled) {
		return -ENETDOWN;
	}
	backoff_reset(&p->backoff);
	p->phc_fault = false;
	if (p->worker) {
		mport_stop_worker(p);
	} else {
		p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
		mport_start_worker(p);
	}
	return 0;
}
