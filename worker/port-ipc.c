// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd-port under the supervisor: fds from CONFIG, no privileges, the engine driven over IPC. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <linux/capability.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/ipc.h"
#include "worker/port-ipc.h"
#include "worker/port-loop.h"
#include "worker/sandbox.h"
#include "common/status-page.h"
#include "ptp/clock.h"
#include "ptp/port.h"
#include "ptp/steer.h"
#include "ptp/transport.h"

#define CONFIG_TIMEOUT_MS 5000
/*
 * The status page is rewritten at the first wakeup (a frame, usually) at least PAGE_PERIOD_NS
 * after the last write, or PAGE_SLACK_NS later by a timer when no wakeup came and something ran
 * since: encoding the STATUS at every wakeup (about 20 a second) would cost more than it is
 * worth to a supervisor that reads the page once a second.
 */
#define PAGE_PERIOD_NS (500 * NS_PER_MSEC)
#define PAGE_SLACK_NS (200 * NS_PER_MSEC)
/*
 * The SLAVE port's virtual clock correction goes to the supervisor when the view it last reported
 * is this far from the current one (a step, a large frequency change), else at most once a period.
 */
#define CLOCK_STATE_MOVED_NS 1000
#define CLOCK_STATE_PERIOD_NS (1000 * NS_PER_MSEC)
/* An offset refused by the servo's sanity bound is logged at most this often. */
#define REFUSED_LOG_NS (60 * NS_PER_SEC)

struct worker_port {
	const struct port_ipc_args *args;
	int ipc;
	int phc_fd; /* from CONFIG, or -1; ours until a PHC clock takes it */
	struct port_loop loop;
	int report_timer; /* Erbest expiring, or the status page due */
	/* The latest STATUS, for the supervisor to read once a second. */
	struct status_page *page;
	ns_t page_written;
	bool page_stale; /* something ran since it was written */
	struct port_sample sample;
	bool has_sample;
	ns_t sample_mono; /* CLOCK_MONOTONIC of the sample */
	/* Offset statistics: the window being summed, and the last one closed (summary_interval).
	 */
	ns_t summary_ns;
	ns_t window_start;
	uint32_t window_count;
	double window_sum, window_sumsq;
	ns_t window_max;
	struct ipc_offset_stats stats;
	uint64_t announces_seen; /* PORT_CNT_RX_ANNOUNCE when Erbest was last looked at */
	ns_t erbest_expiry;	 /* port_erbest_next_expiry() then */
	bool erbest_sent;
	size_t erbest_len; /* the last ERBEST sent, as encoded */
	uint8_t erbest_wire[IPC_MAX_SIZE];
	int last_error;
	char last_error_text[IPC_ERROR_TEXT_MAX];
	uint64_t tx_ts_timeouts; /* sends whose TX timestamp did not come in tx_timestamp_timeout */
	int32_t tx_timeout_ms;
	bool error_changed; /* not yet on the socket */
	int exit_code;
	/*
	 * A virtual clock over CLOCK_REALTIME with software timestamps: the one timescale of the
	 * instance's ports (a SLAVE reports its state, the others take it).
	 */
	bool share_clock;
	/* offsets the servo refused (max_offset_jump): logged at the first, then once a minute */
	uint64_t refused_logged;
	ns_t refused_logged_mono;
	bool clock_sent_valid;
	struct clock_virtual_state clock_sent;
	ns_t clock_sent_at;
};

/*
 * DESIGN.md 2: once its fds are in hand a worker needs no privilege at all. Bounding set first
 * (dropping needs CAP_SETPCAP, which capset then removes), then every set to zero, and
 * no_new_privs so nothing exec'd later regains any.
 */
static int drop_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		return -errno;
	}
	for (int cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) {
			/*
			 * No CAP_SETPCAP (phcd.service runs as user phcd with three ambient
			 * capabilities): with no_new_privs and every set emptied below, what
			 * stays in the bounding set can never be gained again.
			 */
			if (errno == EPERM) {
				break;
			}
			return -errno;
		}
	}
	(void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, data) < 0) {
		return -errno;
	}
	return 0;
}

static void set_error(struct worker_port *w, int error, const char *fmt, ...) _printf_(3, 4);
static void set_error(struct worker_port *w, int error, const char *fmt, ...)
{
	char text[IPC_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A new error goes out at once (report()); the same one again, on every sample, does not.
	 */
	if (error != w->last_error || strcmp(text, w->last_error_text)) {
		w->error_changed = true;
	}
	w->last_error = error;
	memcpy(w->last_error_text, text, sizeof(text));
}

/* IEEE 1588-2019 Table 36 messageType of each engine counter, for the per-type IPC counters. */
static void fill_counters(struct worker_port *w, struct ipc_status *s)
{
	_Static_assert(IPC_MSG_KINDS == 16, "one slot per messageType");
	port_message_counts(w->loop.port, s->rx, s->tx);
	/* Management: requests in, answers out, malformed ones dropped uncounted above. */
	s->rx[MSG_MANAGEMENT] = w->loop.mgmt.rx;
	s->tx[MSG_MANAGEMENT] = w->loop.mgmt.tx;
	s->mgmt_malformed = w->loop.mgmt.cnt.c[MGMT_CNT_MALFORMED];
	for (size_t i = 0; i < IPC_IGNORED_KINDS; i++) {
		s->ignored[i] = port_get_counter(w->loop.port, PORT_CNT_IGNORED_FIRST + (int) i);
	}
}

/* The STATUS as it is now, on the status page; on the socket too when it is news (urgent). */
static void publish_status(struct worker_port *w, bool urgent)
{
	struct ipc_msg m = { .type = IPC_STATUS };
	struct ipc_status *s = &m.status;

	s->port_state = port_get_state(w->loop.port);
	s->servo_state = port_servo_state(w->loop.port);
	s->servo_stable = port_servo_stable(w->loop.port);
	s->as_capable = port_as_capable(w->loop.port);
	if (w->has_sample) {
		s->offset_ns = w->sample.offset;
		s->mean_path_delay_ns = w->sample.mean_path_delay;
		s->freq_ppb = w->sample.freq_ppb;
		s->sample_ts = w->sample.local_ts;
		s->sample_mono = w->sample_mono;
	}
	s->stats = w->stats;
	fill_counters(w, s);
	s->last_error = w->last_error;
	snprintf(s->last_error_text, sizeof(s->last_error_text), "%s", w->last_error_text);
	/* Written before the datagram goes: the page is never older than what the socket said. */
	(void) status_page_write(w->page, &m);
	w->page_written = port_loop_now();
	w->page_stale = false;
	if (!urgent) {
		return;
	}
	w->error_changed = false;
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		/* The supervisor is gone: nothing left to do here. */
		evloop_exit(&w->loop.ev, 1);
	}
}

/* 9.3.2.3: report Erbest when it changed (or appeared, or vanished). */
static void check_erbest(struct worker_port *w, ns_t now)
{
	struct ipc_msg m = { .type = IPC_ERBEST };
	struct ipc_erbest *e = &m.erbest;
	uint8_t wire[IPC_MAX_SIZE];
	size_t len;

	/* The time properties travel with Erbest, so the instance adopts them with S1 (9.3.5). */
	e->present = port_get_erbest(w->loop.port, now, &e->ds, &e->tp, &e->path) == 0;
	/*
	 * Compared as encoded, not as structs: their padding is whatever the stack held, which
	 * differs between callers (frames, ticks, IPC) and made an unchanged Erbest look new.
	 */
	if (ipc_encode(&m, wire, sizeof(wire), &len) < 0 ||
	    (w->erbest_sent && len == w->erbest_len && !memcmp(w->erbest_wire, wire, len))) {
		return;
	}
	memcpy(w->erbest_wire, wire, len);
	w->erbest_len = len;
	w->erbest_sent = true;
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		evloop_exit(&w->loop.ev, 1);
	}
}

static void port_state_changed(void *userdata, enum port_state from, enum port_state to,
			       enum fsm_event why)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	if (why == FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES) {
		set_error(w, -ETIMEDOUT, "no Sync from the parent within syncReceiptTimeout");
	}
	/* State changes go out at once (DESIGN.md 4). */
	publish_status(w, true);
	/* Leaving for INITIALIZING, FAULTY or DISABLED clears the foreign records: look again. */
	w->erbest_expiry = 0;
}

static bool steers_itself(const struct worker_port *w)
{
	enum port_state s = port_get_state(w->loop.port);

	return s == PORT_STATE_SLAVE || s == PORT_STATE_UNCALIBRATED;
}

/* After a servo sample of a SLAVE port: its clock's correction for the instance's other ports. */
static void report_clock_state(struct worker_port *w)
{
	struct ipc_msg m = { .type = IPC_CLOCK_STATE };
	struct clock_virtual_state st;
	ns_t now = port_loop_now(), raw;

	if (!w->share_clock || !steers_itself(w) ||
	    clock_virtual_get_state(w->loop.clock, &st) < 0 ||
	    clock_get_time(w->loop.raw, &raw) < 0) {
		return;
	}
	if (w->clock_sent_valid && now - w->clock_sent_at < CLOCK_STATE_PERIOD_NS &&
	    llabs(clock_virtual_state_at(&st, raw) - clock_virtual_state_at(&w->clock_sent, raw)) <
		    CLOCK_STATE_MOVED_NS) {
		return;
	}
	m.clock_state.raw_ns = st.raw;
	m.clock_state.local_ns = st.local;
	m.clock_state.rate_ppb = st.rate_ppb;
	m.clock_state.gm_rate_ratio = port_gm_rate_ratio(w->loop.port);
	w->clock_sent = st;
	w->clock_sent_valid = true;
	w->clock_sent_at = now;
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		evloop_exit(&w->loop.ev, 1);
	}
}

/* The SLAVE port's correction, from the supervisor: a port that steers itself keeps its own. */
static void take_clock_state(struct worker_port *w, const struct ipc_clock_state *cs)
{
	struct clock_virtual_state st = {
		.raw = cs->raw_ns,
		.local = cs->local_ns,
		.rate_ppb = cs->rate_ppb,
	};
	int r;

	if (!w->share_clock || steers_itself(w)) {
		return;
	}
	/* A MASTER of a boundary clock relays the grandmaster's rate over the shared clock. */
	port_set_gm_rate_ratio(w->loop.port, cs->gm_rate_ratio);
	r = clock_virtual_set_state(w->loop.clock, &st);
	if (r < 0) {
		set_error(w, r, "cannot take the instance's clock state: %s", strerror(-r));
	}
}

/*
 * -m under phcd (logging_level 7): every sample, not one a second as by hand, so that offset
 * statistics can be taken from the log as from ptp4l's at summary_interval 0. One fprintf per
 * line: the workers share the supervisor's stderr. The monotonic time of the sample leads, as
 * ptp4l's does; the "<7>" prefix (common/log) gives the journal the priority.
 */
static void log_sample(const char *ifname, const struct port_sample *s)
{
	ns_t now = port_loop_now();

	fprintf(stderr, "%sphcd-port[%" PRId64 ".%03" PRId64 "]: %s: " PORT_SAMPLE_FMT "\n",
		log_get_level_prefix() ? "<7>" : "", now / NS_PER_SEC,
		(now % NS_PER_SEC) / NS_PER_MSEC, ifname, s->offset, (int) s->servo_state,
		s->freq_ppb, s->mean_path_delay);
}

/* A double in ns, clamped to what ns_t holds. */
static ns_t clamp_ns(double v)
{
	if (!(v > (double) INT64_MIN)) {
		return v != v ? 0 : INT64_MIN;
	}
	return v >= (double) INT64_MAX ? INT64_MAX : (ns_t) v;
}

/*
 * Offset statistics over windows of 2^summary_interval s (ptp4l's summary lines count samples;
 * these go by time, so a window means the same at any Sync interval). The window closes at the
 * first sample after its end; the last closed one goes to the supervisor with every STATUS.
 */
static void summarize(struct worker_port *w, ns_t offset, ns_t now)
{
	ns_t a = offset >= 0 ? offset : offset == INT64_MIN ? INT64_MAX : -offset;

	if (!w->window_count) {
		w->window_start = now;
		w->window_sum = w->window_sumsq = 0;
		w->window_max = 0;
	}
	w->window_count++;
	w->window_sum += (double) offset;
	w->window_sumsq += (double) offset * (double) offset;
	if (a > w->window_max) {
		w->window_max = a;
	}
	if (now - w->window_start < w->summary_ns || w->window_count == UINT32_MAX) {
		return;
	}
	w->stats = (struct ipc_offset_stats){
		.count = w->window_count,
		.mean_ns = clamp_ns(w->window_sum / w->window_count),
		.rms_ns = clamp_ns(sqrt(w->window_sumsq / w->window_count)),
		.max_abs_ns = w->window_max,
		.window_ns = now - w->window_start > 0 ? now - w->window_start : 1,
		.end_mono = now > 0 ? now : 1,
	};
	w->window_count = 0;
}

static void port_sample(void *userdata, const struct port_sample *s)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	w->sample = *s;
	w->has_sample = true;
	w->sample_mono = port_loop_now();
	if (s->refused && (!w->refused_logged_mono ||
			   w->sample_mono - w->refused_logged_mono >= REFUSED_LOG_NS)) {
		log_port_full(w->args->ifname, LOG_WARNING,
			      "refused an offset of %+.9f s, beyond max_offset_jump: holdover, "
			      "the clock is neither stepped nor slewed (%" PRIu64 " refused)",
			      (double) s->offset / NS_PER_SEC, s->refused_total);
		w->refused_logged = s->refused_total;
		w->refused_logged_mono = w->sample_mono;
	}
	summarize(w, s->offset, w->sample_mono);
	report_clock_state(w);
	if (w->args->print) {
		log_sample(w->args->ifname, s);
	}
}

static void port_clock_error(void *userdata, const char *op, int error)
{
	struct worker_port *w = container_of(userdata, struct worker_port, loop);

	set_error(w, error, "clock %s failed: %s", op, strerror(-error));
}

/* A management SET from the network, accepted: the supervisor owns the instance's priorities. */
static int port_priority_request(void *userdata, const struct mgmt_change *change)
{
	struct worker_port *w = userdata;
	const struct defaultDS *d = port_default_ds(w->loop.port);
	struct ipc_msg m = { .type = IPC_PRIORITY_REQUEST };

	m.set_priority.priority1 = change->mask & MGMT_CHANGE_PRIORITY1 ? change->priority1
									: d->priority1;
	m.set_priority.priority2 = change->mask & MGMT_CHANGE_PRIORITY2 ? change->priority2
									: d->priority2;
	if (change->mask & (MGMT_CHANGE_PRIORITY1 | MGMT_CHANGE_PRIORITY2)) {
		int r = ipc_send(w->ipc, &m, NULL, 0);

		if (r < 0) {
			return r;
		}
	}
	if (change->mask & MGMT_CHANGE_GM_SETTINGS) {
		struct ipc_msg g = { .type = IPC_GM_SETTINGS_REQUEST, .gm_settings = change->gm };

		return ipc_send(w->ipc, &g, NULL, 0);
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
		fprintf(stderr,
			"phcd-port: %s: %s failed: the interface's address changed since its "
			"sockets were opened; ending, to be restarted with new ones\n",
			w->args->ifname, what);
		set_error(
			w, error,
			"%s failed: the interface's address changed since its sockets were opened "
			"(the worker ends, to be restarted with new ones)",
			what);
		return;
	}
	if (error != -ETIME) {
		set_error(w, error, "%s failed: %s", what, strerror(-error));
		return;
	}
	if (w->tx_ts_timeouts++ == 0) {
		fprintf(stderr,
			"phcd-port: %s: timed out waiting for a transmit timestamp "
			"(tx_timestamp_timeout %" PRId32 " ms); the port goes FAULTY, a larger "
			"tx_timestamp_timeout may help\n",
			w->args->ifname, w->tx_timeout_ms);
	}
	set_error(w, error,
		  "no TX timestamp in tx_timestamp_timeout %" PRId32 " ms (%" PRIu64 " times)",
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
	/* On the socket at once: D-Bus shows AsCapable. */
	w->error_changed = true;
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

/*
 * After anything that may have changed the port (frames, its timer, the supervisor): Erbest at
 * once when it changed, the status page when due (a new error on the socket at once), and a
 * wakeup for whichever comes first without input: the page due, or a foreign master's
 * qualification running out (9.3.2.5). No polling.
 * Frames change the foreign records only when an Announce came (Sync and Follow_Up, most of
 * them, do not); ticks (a receipt timeout clears them), IPC and the expiry are always looked at.
 */
static void report(struct worker_port *w, bool frames)
{
	uint64_t announces = port_get_counter(w->loop.port, PORT_CNT_RX_ANNOUNCE);
	ns_t now = port_loop_now(), next;

	if (w->loop.ev.exiting) {
		return;
	}
	if (!frames || announces != w->announces_seen || now >= w->erbest_expiry) {
		check_erbest(w, now);
		w->announces_seen = announces;
		w->erbest_expiry = port_erbest_next_expiry(w->loop.port, now);
	}
	w->page_stale = true;
	if (w->error_changed || now - w->page_written >= PAGE_PERIOD_NS) {
		publish_status(w, w->error_changed);
	}
	next = w->page_stale ? w->page_written + PAGE_PERIOD_NS + PAGE_SLACK_NS : EVLOOP_OFF;
	evloop_timer_set(&w->loop.ev, w->report_timer,
			 w->erbest_expiry < next ? w->erbest_expiry : next);
}

static void on_report_timer(struct evloop *e, void *userdata)
{
	report(userdata, false);
}

static void engine_ran(struct port_loop *l, bool tick)
{
	report(container_of(l, struct worker_port, loop), !tick);
}

/* The supervisor's decision (9.3.3), carried out with the clock's shared data sets (9.3.5). */
static void apply_recommendation(struct worker_port *w, const struct ipc_recommended_state *rs)
{
	ns_t now = port_loop_now();
	int r;

	r = port_apply_decision(w->loop.port, rs->decision, rs->stepsRemoved, &rs->parent, &rs->tp,
				&rs->path, now);
	if (r == -ENOENT) {
		/* Our Erbest vanished meanwhile: say so, the supervisor decides again. */
		w->erbest_sent = false;
		check_erbest(w, now);
	}
	port_loop_rearm(&w->loop);
}

static void on_ipc(struct evloop *e, int fd, uint32_t revents, void *userdata)
{
	struct worker_port *w = userdata;
	struct ipc_msg m;
	int r;

	r = ipc_recv(fd, &m, NULL, 0, NULL);
	if (r == -EAGAIN || r == -EINTR) {
		return;
	}
	if (r < 0) {
		/* The supervisor went away or spoke nonsense: a worker never runs unsupervised. */
		w->exit_code = r == -ECONNRESET ? 0 : 1;
		evloop_exit(&w->loop.ev, w->exit_code);
		return;
	}
	switch (m.type) {
	case IPC_RECOMMENDED_STATE:
		apply_recommendation(w, &m.recommended_state);
		break;
	case IPC_SET_PRIORITY:
		/* In place: the supervisor decides again with the new D0 and says so (9.3.3). */
		(void) port_set_priorities(w->loop.port, m.set_priority.priority1,
					   m.set_priority.priority2, port_loop_now());
		publish_status(w, true);
		port_loop_rearm(&w->loop);
		break;
	case IPC_SET_GM_SETTINGS:
		(void) port_set_gm_settings(w->loop.port, &m.gm_settings, port_loop_now());
		publish_status(w, true);
		port_loop_rearm(&w->loop);
		break;
	case IPC_SHUTDOWN:
		evloop_exit(&w->loop.ev, 0);
		break;
	case IPC_SET_CLOCK_STATE:
		take_clock_state(w, &m.clock_state);
		break;
	default:
		/* A second CONFIG: ignored. */
		break;
	}
	report(w, false);
}

/*
 * CONFIG and the fds that come with it: the port's sockets (as many as its network_transport
 * has: transport_n_fds()), its status page, then its PHC when timestamps are hardware
 * (steer_wants_phc()). A CONFIG without the sockets and the page, or with a PHC for the system
 * back end (which never reads one), is refused.
 */
static int recv_config(int ipc, struct ipc_config *ret, int ret_socks[TRANSPORT_FDS_MAX],
		       int *ret_page, int *ret_phc)
{
	struct pollfd pfd = { .fd = ipc, .events = POLLIN };
	int fds[IPC_MAX_FDS];
	struct ipc_msg m;
	size_t n = 0, ns;
	int r;

	r = poll(&pfd, 1, CONFIG_TIMEOUT_MS);
	if (r <= 0) {
		return r < 0 ? -errno : -ETIMEDOUT;
	}
	r = ipc_recv(ipc, &m, fds, ARRAY_SIZE(fds), &n);
	if (r < 0) {
		return r;
	}
	ns = m.type == IPC_CONFIG ? transport_n_fds(m.config.port.network_transport) : 0;
	if (m.type != IPC_CONFIG || n < ns + 1 || n > ns + 2 ||
	    (n == ns + 2 && m.config.instance.clock_backend == OPTIONS_CLOCK_SYSTEM)) {
		for (size_t k = 0; k < n; k++) {
			close(fds[k]);
		}
		return m.type != IPC_CONFIG ? -EPROTO : -EBADF;
	}
	*ret = m.config;
	memcpy(ret_socks, fds, ns * sizeof(fds[0]));
	*ret_page = fds[ns];
	*ret_phc = n == ns + 2 ? fds[ns + 1] : -1;
	return 0;
}

/*
 * Can the PHC be steered through this fd? A frequency write of the frequency it already has
 * changes nothing, and fails as the servo would (EBADF/EACCES on a read-only fd, EOPNOTSUPP).
 */
static int probe_phc(int fd)
{
	struct timex tx = { .modes = 0 };

	if (clock_adjtime(clock_phc_clockid(fd), &tx) < 0) {
		return -errno;
	}
	tx.modes = ADJ_FREQUENCY;
	if (clock_adjtime(clock_phc_clockid(fd), &tx) < 0) {
		return -errno;
	}
	return 0;
}

/* What this port steers (ptp/steer.h), from the configuration and what the worker holds. */
static void decide_steering(const struct worker_port *w, const struct ipc_config *c,
			    const struct transport_ts_status *st, struct steer_decision *ret)
{
	struct steer_input in = {
		.backend = c->instance.clock_backend,
		.time_stamping = c->port.time_stamping,
		.hw_timestamps = st->mode == TRANSPORT_TS_MODE_HARDWARE,
		.hw_error = st->hw_error,
		.phc_index = st->phc_index,
		.phc_open = w->phc_fd >= 0,
	};

	if (in.phc_open && in.backend == OPTIONS_CLOCK_PHC) {
		in.phc_error = probe_phc(w->phc_fd);
	}
	steer_decide(&in, ret);
}

/* The clock back end the decision names, built on what this worker holds. */
static int make_clock(struct worker_port *w, const struct ipc_config *c,
		      const struct steer_decision *d)
{
	clockid_t raw_id = d->raw_phc ? clock_phc_clockid(w->phc_fd) : CLOCK_REALTIME;
	int r;

	switch (d->target) {
	case STEER_PHC:
		r = clock_phc_new(w->phc_fd, &w->loop.clock);
		if (r >= 0) {
			w->phc_fd = -1; /* the clock owns it now */
		}
		return r;
	case STEER_VIRTUAL:
		/* Over the PHC (hardware timestamps): w->phc_fd stays open while the port runs. */
		return port_loop_virtual_clock(&w->loop, raw_id, &c->instance);
	case STEER_SYSTEM:
		/*
		 * Only the supervisor steers CLOCK_REALTIME (system_clock_instance), from the
		 * offsets this worker measures against it.
		 */
		return clock_freerun_new(CLOCK_REALTIME, &w->loop.clock);
	case STEER_NOTHING:
		if (d->error) {
			set_error(w, d->error, "%s", d->reason);
		}
		return clock_freerun_new(raw_id, &w->loop.clock);
	case STEER_FAULTY:
	default:
		return d->error ? d->error : -EINVAL;
	}
}

/*
 * The port cannot run as configured (time_stamping hardware without it, a PHC that cannot be
 * opened or adjusted): no port, no fallback. It stays FAULTY with the reason until the
 * supervisor stops it (a reload, a shutdown), as ptp4l refuses to start.
 */
static int stay_faulty(struct worker_port *w, const struct steer_decision *d)
{
	struct ipc_msg m = { .type = IPC_STATUS };
	struct pollfd pfd = { .fd = w->ipc, .events = POLLIN };

	m.status.port_state = PORT_STATE_FAULTY;
	m.status.servo_state = SERVO_UNLOCKED;
	m.status.last_error = d->error;
	/* The errno travels as LastErrorCode; the text is the reason alone (it fits the STATUS). */
	snprintf(m.status.last_error_text, sizeof(m.status.last_error_text), "%s", d->reason);
	fprintf(stderr, "phcd-port: %s: %s: %s\n", w->args->ifname, d->reason, strerror(-d->error));
	(void) status_page_write(w->page, &m);
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		return -EPIPE;
	}
	for (;;) {
		struct ipc_msg in;
		int r;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -errno;
		}
		r = ipc_recv(w->ipc, &in, NULL, 0, NULL);
		if (r == -EAGAIN || r == -EINTR) {
			continue;
		}
		if (r < 0 || in.type == IPC_SHUTDOWN) {
			return r == -ECONNRESET || r >= 0 ? 0 : r;
		}
	}
}

int port_ipc_run(const struct port_ipc_args *a)
{
	struct worker_port w = { .args = a, .ipc = a->ipc_fd, .phc_fd = -1 };
	struct ipc_msg hello = { .type = IPC_HELLO };
	struct ipc_config cfg;
	struct port_config pc;
	struct transport_ts_status st;
	struct steer_decision steer;
	struct transport_config tc = { 0 };
	int socks[TRANSPORT_FDS_MAX] = { -1, -1, -1, -1, -1, -1 }, page = -1, r;

	r = drop_privileges();
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot drop privileges: %m");
		return r;
	}
	/* Never outlive the supervisor (set after exec: exec of our own binary keeps it). */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() == 1) {
		return -ESRCH;
	}
	hello.hello.protocol_version = IPC_VERSION;
	hello.hello.ifindex = (int32_t) if_nametoindex(a->ifname);
	hello.hello.pid = getpid();
	r = ipc_send(a->ipc_fd, &hello, NULL, 0);
	if (r >= 0) {
		r = recv_config(a->ipc_fd, &cfg, socks, &page, &w.phc_fd);
	}
	if (r >= 0) {
		r = status_page_map(page, true, &w.page);
		close(page);
	}
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "no configuration from the supervisor: %m");
		return r;
	}

	r = port_loop_init(&w.loop, &worker_port_ops);
	w.loop.engine_error = port_engine_error;
	/* ptp4l's key and default (1 ms): how long a send waits for its TX timestamp. */
	w.tx_timeout_ms = cfg.port.tx_timestamp_timeout;
	tc.tx_timeout = (ns_t) cfg.port.tx_timestamp_timeout * NS_PER_MSEC;
	memcpy(tc.ptp_dst_mac, cfg.port.ptp_dst_mac, sizeof(tc.ptp_dst_mac));
	memcpy(tc.p2p_dst_mac, cfg.port.p2p_dst_mac, sizeof(tc.p2p_dst_mac));
	if (r >= 0) {
		r = transport_new(cfg.port.network_transport, &w.loop.transport);
	}
	if (r >= 0) {
		r = transport_adopt_fds(w.loop.transport, socks,
					transport_n_fds(cfg.port.network_transport), &tc);
	}
	if (r >= 0) {
		/* The transport owns them now. */
		memset(socks, -1, sizeof(socks));
	}
	if (r >= 0) {
		r = transport_get_ts_status(w.loop.transport, &st);
	}
	if (r >= 0) {
		/* Decided before make_clock() takes the PHC fd: what is held, not what is left. */
		decide_steering(&w, &cfg, &st, &steer);
		if (steer.target == STEER_FAULTY) {
			r = sandbox_load_seccomp(a->ifname);
			if (r < 0) {
				log_port_error_errno(a->ifname, r,
						     "cannot load the seccomp filter: %m");
				goto out;
			}
			r = stay_faulty(&w, &steer);
			goto out;
		}
		r = make_clock(&w, &cfg, &steer);
	}
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot set up the port: %m");
		goto out;
	}
	port_config_default(&pc);
	pc.instance = cfg.instance;
	pc.port = cfg.port;
	pc.clockIdentity = cfg.clock_identity;
	pc.portNumber = cfg.port_number;
	pc.utc_timescale = st.mode == TRANSPORT_TS_MODE_SOFTWARE;
	pc.adjust_clock = steer.servo;
	/* Only a PHC outlives its worker; a virtual clock starts afresh with each. */
	pc.clock_locked_before = cfg.clock_locked_before && steer.target == STEER_PHC;
	pc.external_bmca = true;
	/* Software timestamps: the virtual clock's raw clock is CLOCK_REALTIME, one for all ports.
	 */
	w.share_clock = steer.target == STEER_VIRTUAL && w.loop.raw && !steer.raw_phc;
	w.summary_ns = NS_PER_SEC << cfg.port.summary_interval;
	pc.seed = (uint64_t) getpid() ^ (uint64_t) port_loop_now();
	r = port_loop_new_port(&w.loop, &pc);
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot create the port: %m");
		goto out;
	}
	w.loop.mgmt.ifname = a->ifname;
	w.loop.mgmt.user_description = cfg.instance.userDescription;
	w.loop.mgmt.mode = cfg.instance.management_network;
	w.loop.mgmt.apply = port_priority_request;
	w.loop.mgmt.userdata = &w;

	w.loop.engine_ran = engine_ran;
	r = evloop_add_io(&w.loop.ev, a->ipc_fd, on_ipc, &w);
	if (r >= 0) {
		r = w.report_timer = evloop_add_timer(&w.loop.ev, on_report_timer, &w);
	}
	if (r < 0) {
		goto out;
	}
	/* Set up: from here on only what the loop needs (worker/sandbox.h). */
	r = sandbox_load_seccomp(a->ifname);
	if (r < 0) {
		log_port_error_errno(a->ifname, r, "cannot load the seccomp filter: %m");
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
	status_page_unmap(w.page);
	return r;
}
