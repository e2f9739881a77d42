// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * phcd-port under the supervisor: fds from CONFIG, no privileges, the engine driven over IPC.
 * Here the run, the engine's callbacks and the supervisor's messages; what goes to the
 * supervisor in worker-report.c, the shared timescale in worker-share.c, the set-up from CONFIG
 * in worker-setup.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/ipc.h"
#include "common/log.h"
#include "common/status-page.h"
#include "ptp/port.h"
#include "worker/sandbox.h"
#include "worker/worker-port.h"

/* An offset refused by the servo's sanity bound is logged at most this often. */
#define REFUSED_LOG_NS (60 * NS_PER_SEC)

static void port_state_changed(void *userdata, enum port_state from, enum port_state to,
			       enum fsm_event why)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	if (why == FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES) {
		worker_report_error(w, -ETIMEDOUT,
				    "no Sync from the parent within syncReceiptTimeout");
	}
	/* On the socket after this turn of the loop, coalesced with what else changes
	 * (worker_report()).
	 */
	news_hold(&w->news, NEWS_STATUS);
	/* Leaving for INITIALIZING, FAULTY or DISABLED clears the foreign records: look again. */
	w->erbest_expiry = 0;
}

/*
 * -m under phcd (logging_level 7): every sample, not one a second as by hand, so that offset
 * statistics can be taken from the log as from ptp4l's at summary_interval 0; through the logger
 * (its priority prefix, one write per line: the workers share the supervisor's stderr), the
 * monotonic time leading as ptp4l's does.
 */
static void log_sample(const char *ifname, const struct port_sample *s)
{
	log_port_data(LOG_DEBUG, ifname, PORT_SAMPLE_FMT, s->offset, (int) s->servo_state,
		      s->freq_ppb, s->mean_path_delay);
}

static void port_sample(void *userdata, const struct port_sample *s)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	w->sample = *s;
	w->has_sample = true;
	w->sample_mono = port_loop_now(&w->loop);
	if (s->refused && (!w->refused_logged_mono ||
			   w->sample_mono - w->refused_logged_mono >= REFUSED_LOG_NS)) {
		log_port_full(w->args->ifname, LOG_WARNING,
			      "refused an offset of %+.9f s, beyond max_offset_jump: holdover, "
			      "the clock is neither stepped nor slewed (%" PRIu64 " refused)",
			      (double) s->offset / NS_PER_SEC, s->refused_total);
		w->refused_logged = s->refused_total;
		w->refused_logged_mono = w->sample_mono;
	}
	worker_report_summarize(w, s->offset, w->sample_mono);
	worker_share_report(w);
	if (w->args->print) {
		log_sample(w->args->ifname, s);
	}
}

static void port_clock_error(void *userdata, const char *op, int error)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	worker_report_error(w, error, "clock %s failed: %s", op, strerror(-error));
}

/* A management SET from the network, accepted: the supervisor owns the instance's priorities. */
static int port_priority_request(void *userdata, const struct mgmt_change *change)
{
	struct worker_port *w = userdata;
	const struct defaultDS *d = port_default_ds(w->loop.port);
	struct ipc_set_priority *q = &w->priority_req;

	/* Held for worker_report(): a burst of SETs within a tick is one request, the last values
	 * win. */
	if (change->mask & (MGMT_CHANGE_PRIORITY1 | MGMT_CHANGE_PRIORITY2)) {
		if (!w->priority_pending) {
			q->priority1 = d->priority1;
			q->priority2 = d->priority2;
		}
		if (change->mask & MGMT_CHANGE_PRIORITY1) {
			q->priority1 = change->priority1;
		}
		if (change->mask & MGMT_CHANGE_PRIORITY2) {
			q->priority2 = change->priority2;
		}
		w->priority_pending = true;
	}
	if (change->mask & MGMT_CHANGE_GM_SETTINGS) {
		w->gm_req = change->gm;
		w->gm_pending = true;
	}
	if (w->priority_pending || w->gm_pending) {
		news_hold(&w->news, NEWS_REQUESTS);
	}
	return 0;
}

/*
 * The engine's failed actions: a send whose TX timestamp never came (-ETIME, after
 * tx_timestamp_timeout) is counted and logged once with the interface, as ptp4l does; every
 * failure goes into LastError (the port went FAULTY, 9.2.6.2).
 */
static void port_engine_error(struct port_loop *l, const char *what, int error)
{
	struct worker_port *w = container_of(l, struct worker_port, loop);

	if (error == TRANSPORT_TX_STALE) {
		log_port_full(w->args->ifname, LOG_ERR,
			      "%s failed: the interface's address changed since its sockets were "
			      "opened; ending, to be restarted with new ones",
			      what);
		worker_report_error(
			w, error,
			"%s failed: the interface's address changed since its sockets were opened "
			"(the worker ends, to be restarted with new ones)",
			what);
		return;
	}
	if (error != -ETIME) {
		worker_report_error(w, error, "%s failed: %s", what, strerror(-error));
		return;
	}
	if (w->tx_ts_timeouts++ == 0) {
		log_port_full(w->args->ifname, LOG_ERR,
			      "timed out waiting for a transmit timestamp (tx_timestamp_timeout "
			      "%" PRId32
			      " ms); the port goes FAULTY, a larger tx_timestamp_timeout "
			      "may help",
			      w->tx_timeout_ms);
	}
	worker_report_error(w, error,
			    "no TX timestamp in tx_timestamp_timeout %" PRId32 " ms (%" PRIu64
			    " times)",
			    w->tx_timeout_ms, w->tx_ts_timeouts);
}

static void port_as_capable_changed(void *userdata, bool value, enum port_as_capable_reason why,
				    ns_t mean_link_delay)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	if (value) {
		log_port_full(w->args->ifname, LOG_INFO,
			      "asCapable true (peer delay %" PRId64 " ns)", mean_link_delay);
	} else {
		log_port_full(w->args->ifname, LOG_NOTICE,
			      "asCapable false: %s (peer delay %" PRId64 " ns)",
			      port_as_capable_reason_to_string(why), mean_link_delay);
	}
	/* On the socket with this turn's news: D-Bus shows AsCapable. */
	news_hold(&w->news, NEWS_STATUS);
}

static void port_interval_changed(void *userdata, int8_t log_sync_interval, bool stopped)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	if (stopped) {
		log_port_full(w->args->ifname, LOG_INFO, "Sync stopped at the master's request");
	} else {
		log_port_full(w->args->ifname, LOG_INFO, "Sync interval now 2^%d s",
			      (int) log_sync_interval);
	}
}

static const struct port_ops worker_port_ops = {
	.state_changed = port_state_changed,
	.sample = port_sample,
	.clock_error = port_clock_error,
	.as_capable_changed = port_as_capable_changed,
	.interval_changed = port_interval_changed,
};

/* The supervisor's decision (9.3.3), carried out with the clock's shared data sets (9.3.5). */
static void apply_recommendation(struct worker_port *w, const struct ipc_recommended_state *rs)
{
	ns_t now = port_loop_now(&w->loop);
	int r;

	r = port_apply_decision(w->loop.port, rs->decision, rs->stepsRemoved, &rs->parent, &rs->tp,
				&rs->path, now);
	if (r == -ENOENT) {
		/*
		 * Our Erbest vanished meanwhile: say so (on_ipc()'s worker_report(), the message
		 * gone), the supervisor decides again.
		 */
		w->erbest_last.sent = false;
	}
	port_loop_rearm(&w->loop);
}

/* One message from the supervisor, carried out: false when the loop is to end. */
__attribute__((noinline)) static bool take_ipc(struct worker_port *w, int fd)
{
	int fds[IPC_PEER_FDS];
	size_t n_fds = 0;
	struct ipc_msg m;
	int r;

	/* Only PEER_SOCKETS comes with fds; they are closed below for any other message. */
	r = ipc_recv(fd, &m, fds, ARRAY_SIZE(fds), &n_fds);
	if (r == -EAGAIN || r == -EINTR) {
		return false;
	}
	if (r < 0) {
		/* The supervisor went away or spoke nonsense: a worker never runs unsupervised. */
		w->exit_code = r == -ECONNRESET ? 0 : 1;
		evloop_exit(&w->loop.ev, w->exit_code);
		return false;
	}
	switch (m.type) {
	case IPC_RECOMMENDED_STATE:
		apply_recommendation(w, &m.recommended_state);
		break;
	case IPC_SET_PRIORITY:
		/* In place: the supervisor decides again with the new D0 and says so (9.3.3). */
		(void) port_set_priorities(w->loop.port, m.set_priority.priority1,
					   m.set_priority.priority2, port_loop_now(&w->loop));
		news_hold(&w->news, NEWS_STATUS);
		port_loop_rearm(&w->loop);
		break;
	case IPC_SET_GM_SETTINGS:
		(void) port_set_gm_settings(w->loop.port, &m.gm_settings, port_loop_now(&w->loop));
		news_hold(&w->news, NEWS_STATUS);
		port_loop_rearm(&w->loop);
		break;
	case IPC_SHUTDOWN:
		evloop_exit(&w->loop.ev, 0);
		break;
	case IPC_SET_CLOCK_STATE:
		worker_share_take(w, &m.clock_state);
		break;
	case IPC_PEER_SOCKETS:
		worker_peers_answer(w, &m.peer_sockets, fds, n_fds);
		n_fds = 0;
		break;
	default:
		/* A second CONFIG: ignored. */
		break;
	}
	for (size_t k = 0; k < n_fds; k++) {
		close(fds[k]);
	}
	return true;
}

/* The message's 2.5 kB are off the stack before the reports go (worker-report.c). */
static void on_ipc(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct worker_port *w = userdata;

	if (take_ipc(w, fd)) {
		worker_report(w, false);
	}
}

/* A frame of its own (a whole struct ipc_msg), gone before the CONFIG comes. */
__attribute__((noinline)) static int send_hello(const struct port_ipc_args *a)
{
	struct ipc_msg hello = { .type = IPC_HELLO };

	hello.hello.protocol_version = IPC_VERSION;
	hello.hello.ifindex = (int32_t) if_nametoindex(a->ifname);
	hello.hello.pid = getpid();
	return ipc_send(a->ipc_fd, &hello, NULL, 0);
}

/*
 * Everything before the loop: HELLO, CONFIG, the transport, the clock, the port. *loop_up once the
 * loop needs port_loop_done(); *done when a port that stays FAULTY has run its own loop. A frame of
 * its own, never inlined: the CONFIG and the port's configuration (3.4 kB) are dead once the loop
 * runs, and stack a worker touches stays its private memory, so the loop must not run below them.
 */
__attribute__((noinline)) static int port_ipc_setup(const struct port_ipc_args *a,
						    struct worker_port *w,
						    int socks[TRANSPORT_FDS_MAX], int *filter,
						    bool *loop_up, bool *done)
{
	struct ipc_msg msg; /* the CONFIG, received in place */
	const struct ipc_config *cfg = &msg.config;
	struct port_config pc;
	struct transport_ts_status st;
	struct steer_decision steer;
	struct transport_config tc = { 0 };
	int page = -1, r;

	/* Once its fds are in hand a worker needs no privilege at all (docs/security.md). */
	r = caps_drop_all(false, 0, 0);
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot drop privileges: %m");
		return r;
	}
	/* Never outlive the supervisor (set after exec: exec of our own binary keeps it). */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() == 1) {
		return -ESRCH;
	}
	r = send_hello(a);
	if (r >= 0) {
		r = worker_setup_recv_config(a->ipc_fd, &msg, socks, &page, filter, &w->phc_fd);
	}
	if (r >= 0) {
		r = status_page_map(page, true, &w->page);
		close(page);
	}
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "no configuration from the supervisor: %m");
		return r;
	}

	r = port_loop_init(&w->loop, &worker_port_ops);
	*loop_up = true;
	w->loop.engine_error = port_engine_error;
	if (cfg->port.network_transport != OPTIONS_TRANSPORT_L2) {
		/* Its unicast sockets come from the supervisor (worker-peers.c). */
		w->peers_max = cfg->port.unicast_peers_max;
		w->loop.peer_missing = worker_peers_missing;
		w->peer_asks = calloc(WORKER_PEER_ASKS, sizeof(*w->peer_asks));
		r = r >= 0 && !w->peer_asks ? -ENOMEM : r;
	}
	/* ptp4l's key and default (1 ms): how long a send waits for its TX timestamp. */
	w->tx_timeout_ms = cfg->port.tx_timestamp_timeout;
	tc.tx_timeout = (ns_t) cfg->port.tx_timestamp_timeout * NS_PER_MSEC;
	memcpy(tc.ptp_dst_mac, cfg->port.ptp_dst_mac, sizeof(tc.ptp_dst_mac));
	memcpy(tc.p2p_dst_mac, cfg->port.p2p_dst_mac, sizeof(tc.p2p_dst_mac));
	if (r >= 0) {
		r = transport_new(cfg->port.network_transport, &w->loop.transport);
	}
	if (r >= 0) {
		r = transport_adopt_fds(w->loop.transport, socks,
					transport_n_fds(cfg->port.network_transport), &tc);
	}
	if (r >= 0) {
		/* The transport owns them now. */
		memset(socks, -1, TRANSPORT_FDS_MAX * sizeof(socks[0]));
	}
	if (r >= 0) {
		r = transport_get_ts_status(w->loop.transport, &st);
	}
	if (r >= 0) {
		/* Decided before worker_setup_clock() takes the PHC fd: what is held, not what is
		 * left. */
		worker_setup_decide(w, cfg, &st, &steer);
		if (steer.target == STEER_FAULTY) {
			r = sandbox_install(a->ifname, TAKE_FD(*filter));
			if (r < 0) {
				log_port_error_errno(a->ifname, r,
						     "cannot install the seccomp filter: %m");
				return r;
			}
			*done = true;
			return worker_setup_stay_faulty(w, &steer);
		}
		r = worker_setup_clock(w, cfg, &steer);
	}
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot set up the port: %m");
		return r;
	}
	port_config_default(&pc);
	pc.instance = cfg->instance;
	pc.port = cfg->port;
	pc.clockIdentity = cfg->clock_identity;
	pc.portNumber = cfg->port_number;
	pc.utc_timescale = st.mode == TRANSPORT_TS_MODE_SOFTWARE;
	pc.adjust_clock = steer.servo;
	/* Only a PHC outlives its worker; a virtual clock starts afresh with each. */
	pc.clock_locked_before = cfg->clock_locked_before && steer.target == STEER_PHC;
	pc.external_bmca = true;
	/* Software timestamps: the virtual clock's raw clock is CLOCK_REALTIME, one for all ports.
	 */
	w->share_clock = steer.target == STEER_VIRTUAL && w->loop.raw && !steer.raw_phc;
	w->summary_ns = NS_PER_SEC << cfg->port.summary_interval;
	pc.seed = (uint64_t) getpid() ^ (uint64_t) evloop_now();
	r = port_loop_new_port(&w->loop, &pc);
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot create the port: %m");
		return r;
	}
	w->loop.mgmt.ifname = a->ifname;
	/* The CONFIG goes with this frame: the port keeps a copy. */
	_Static_assert(sizeof(w->user_description) == sizeof(cfg->instance.userDescription), "");
	memcpy(w->user_description, cfg->instance.userDescription, sizeof(w->user_description));
	w->loop.mgmt.user_description = w->user_description;
	w->loop.mgmt.mode = cfg->instance.management_network;
	w->loop.mgmt.apply = port_priority_request;
	w->loop.mgmt.userdata = w;

	w->loop.engine_ran = worker_report_engine_ran;
	r = evloop_add_io(&w->loop.ev, a->ipc_fd, on_ipc, w);
	if (r >= 0) {
		r = w->report_timer = evloop_add_timer(&w->loop.ev, worker_report_on_timer, w);
	}
	return r < 0 ? r : 0;
}

int port_ipc_run(const struct port_ipc_args *a)
{
	/*
	 * Static, not on the stack: every frame of the loop would run below its 2.5 kB, stack pages
	 * that stay resident for good; here only what is written costs (it shares the one page of
	 * .data and .bss: test-worker-pages). Zero from the start, not zeroed again: a page never
	 * written stays none of the worker's memory.
	 */
	static struct worker_port w;
	int socks[TRANSPORT_FDS_MAX] = { -1, -1, -1, -1, -1, -1 }, filter = -1, r;
	bool loop_up = false, done = false;

	w.args = a;
	w.ipc = a->ipc_fd;
	w.phc_fd = -1;
	w.erbest_last.wire = w.erbest_wire;
	w.erbest_last.cap = sizeof(w.erbest_wire);

	r = port_ipc_setup(a, &w, socks, &filter, &loop_up, &done);
	if (!loop_up) {
		return r;
	}
	if (r < 0 || done) {
		goto out;
	}
	/* Set up: from here on only what the loop needs (worker/sandbox.h). */
	r = sandbox_install(a->ifname, TAKE_FD(filter));
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot install the seccomp filter: %m");
		goto out;
	}
	/* port_start's first state change sends the first STATUS. */
	r = port_loop_run(&w.loop);
	r = r > 0 ? -EPIPE : r;
out:
	port_loop_done(&w.loop);
	for (size_t k = 0; k < ARRAY_SIZE(socks); k++) {
		if (socks[k] >= 0) {
			close(socks[k]);
		}
	}
	if (w.phc_fd >= 0) {
		close(w.phc_fd);
	}
	free(w.uc_table_last.wire);
	free(w.peer_asks);
	if (filter >= 0) {
		close(filter);
	}
	status_page_unmap(w.page);
	return r;
}
