// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a supervised worker tells its supervisor: the STATUS on its status page and, when it is
 * news, on the socket; ERBEST when it changed; the management SETs from the network; the offset
 * statistics of the summary window. News goes out once a tick at most (IPC_NEWS_TICK_NS).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ipc.h"
#include "common/status-page.h"
#include "worker/worker-port.h"

/*
 * The status page is rewritten at the first wakeup (a frame, usually) at least PAGE_PERIOD_NS
 * after the last write, or PAGE_SLACK_NS later by a timer when no wakeup came and something ran
 * since: encoding the STATUS at every wakeup (about 20 a second) would cost more than it is
 * worth to a supervisor that reads the page once a second.
 */
#define PAGE_PERIOD_NS (500 * NS_PER_MSEC)
#define PAGE_SLACK_NS (200 * NS_PER_MSEC)

void worker_report_error(struct worker_port *w, int error, const char *fmt, ...)
{
	char text[IPC_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A new error is news (worker_report()); the same one again, on every sample, is not. */
	if (error != w->last_error || strcmp(text, w->last_error_text)) {
		news_hold(&w->news, NEWS_STATUS);
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
	port_unicast_counters(w->loop.port, s->unicast);
}

/*
 * The STATUS as it is now, on the status page; on the socket too when it is news (urgent:
 * worker_report() decides, once a tick at most). Each message of this file is built in a frame
 * of its own, never inlined into worker_report(): one struct ipc_msg (2.5 kB, zeroed) on the
 * stack at a time, not three, for stack a worker touches stays its private memory.
 */
__attribute__((noinline)) static void publish_status(struct worker_port *w, bool urgent)
{
	struct ipc_msg m;
	struct ipc_status *s = &m.status;

	ipc_msg_start(&m, IPC_STATUS, sizeof(*s));
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
	w->page_written = port_loop_now(&w->loop);
	w->page_stale = false;
	if (!urgent) {
		return;
	}
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		/* The supervisor is gone: nothing left to do here. */
		evloop_exit(&w->loop.ev, 1);
	}
}

/*
 * Send m unless it is what last holds, compared as encoded, not as structs: their padding is
 * whatever the stack held, which differs between callers (frames, ticks, IPC) and made an
 * unchanged Erbest look new. true when it went (or the supervisor is gone: the loop exits).
 */
static bool send_if_new(struct worker_port *w, const struct ipc_msg *m, struct worker_sent *last)
{
	uint8_t wire[IPC_MAX_SIZE];
	size_t len;

	if (ipc_encode(m, wire, sizeof(wire), &len) < 0 ||
	    (last->sent && len == last->len && !memcmp(last->wire, wire, len))) {
		return false;
	}
	if (!last->wire) {
		last->wire = malloc(IPC_MAX_SIZE);
		last->cap = last->wire ? IPC_MAX_SIZE : 0;
	}
	/* Longer than kept (no memory for it): sent, and sent again at the next report. */
	last->sent = len <= last->cap;
	if (last->sent) {
		memcpy(last->wire, wire, len);
		last->len = len;
	}
	if (ipc_send(w->ipc, m, NULL, 0) < 0) {
		evloop_exit(&w->loop.ev, 1);
	}
	return true;
}

/* 9.3.2.3: report Erbest when it changed (or appeared, or vanished). */
__attribute__((noinline)) static void report_erbest(struct worker_port *w, ns_t now)
{
	struct ipc_msg m;
	struct ipc_erbest *e = &m.erbest;

	ipc_msg_start(&m, IPC_ERBEST, sizeof(*e));
	/* The time properties travel with Erbest, so the instance adopts them with S1 (9.3.5). */
	e->present = port_get_erbest(w->loop.port, now, &e->ds, &e->tp, &e->path) == 0;
	(void) send_if_new(w, &m, &w->erbest_last);
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
void worker_report_summarize(struct worker_port *w, ns_t offset, ns_t now)
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

/* One held management SET to the supervisor: false when it is gone. */
static bool send_request(struct worker_port *w, enum ipc_type type)
{
	struct ipc_msg m = { .type = type };

	if (type == IPC_PRIORITY_REQUEST) {
		m.set_priority = w->priority_req;
	} else {
		m.gm_settings = w->gm_req;
	}
	return ipc_send(w->ipc, &m, NULL, 0) >= 0;
}

/*
 * The management SETs held since the last tick, if one has passed: one message per kind, built
 * only then (a struct ipc_msg is 2.5 kB of stack, zeroed, under every report otherwise).
 */
static void send_requests(struct worker_port *w, ns_t now)
{
	if (!news_take(&w->news, NEWS_REQUESTS, now)) {
		return;
	}
	if ((w->priority_pending && !send_request(w, IPC_PRIORITY_REQUEST)) ||
	    (w->gm_pending && !send_request(w, IPC_GM_SETTINGS_REQUEST))) {
		evloop_exit(&w->loop.ev, 1);
	}
	w->priority_pending = w->gm_pending = false;
}

/* UNICAST_TABLE, when it differs from the last one sent. */
__attribute__((noinline)) static void send_unicast_table(struct worker_port *w, ns_t now)
{
	struct ipc_msg m = { .type = IPC_UNICAST_TABLE };
	struct ipc_unicast_table *t = &m.unicast_table;
	size_t n = port_unicast_table(w->loop.port, now, t->e, IPC_UNICAST_TABLE_MAX);

	t->total = n > UINT16_MAX ? UINT16_MAX : (uint16_t) n;
	t->n = n > IPC_UNICAST_TABLE_MAX ? IPC_UNICAST_TABLE_MAX : (uint8_t) n;
	if (send_if_new(w, &m, &w->uc_table_last)) {
		w->uc_table_at = now;
	}
}

/*
 * The port's unicast table (port_unicast_table()) when its encoding changed, once a second at
 * most: a running grant's seconds left count down, so it goes once a second while one runs,
 * otherwise when a negotiation moves. A change within the second waits for the next wakeup
 * after it (frames, the engine's timer). A port without unicast sends none.
 */
static void report_unicast_table(struct worker_port *w, ns_t now)
{
	if (w->uc_table_last.sent && now - w->uc_table_at < NS_PER_SEC) {
		return;
	}
	/* None yet (every port without unicast): no message built, at every report. */
	if (!w->uc_table_last.sent && port_unicast_table(w->loop.port, now, NULL, 0) == 0) {
		return;
	}
	send_unicast_table(w, now);
}

/*
 * After anything that may have changed the port (frames, its timer, the supervisor): Erbest at
 * once when it changed, the status page when due, news (a state change, a new error, a push
 * taken, management SETs) on the socket once a tick at most (IPC_NEWS_TICK_NS), and a wakeup for
 * whichever comes first without input: the page or the held news due, or a foreign master's
 * qualification running out (9.3.2.5). No polling.
 * Frames change the foreign records only when an Announce came (Sync and Follow_Up, most of
 * them, do not); ticks (a receipt timeout clears them), IPC and the expiry are always looked at.
 */
void worker_report(struct worker_port *w, bool frames)
{
	uint64_t announces = port_get_counter(w->loop.port, PORT_CNT_RX_ANNOUNCE);
	ns_t now = port_loop_now(&w->loop), next = EVLOOP_OFF;
	bool send;

	if (w->loop.ev.exiting) {
		return;
	}
	if (!frames || announces != w->announces_seen || now >= w->erbest_expiry) {
		report_erbest(w, now);
		w->announces_seen = announces;
		w->erbest_expiry = port_erbest_next_expiry(w->loop.port, now);
	}
	w->page_stale = true;
	send = news_take(&w->news, NEWS_STATUS, now);
	if (send || now - w->page_written >= PAGE_PERIOD_NS) {
		publish_status(w, send);
	}
	send_requests(w, now);
	report_unicast_table(w, now);
	if (w->page_stale) {
		next = w->page_written + PAGE_PERIOD_NS + PAGE_SLACK_NS;
	}
	if (news_due(&w->news) < next) {
		next = news_due(&w->news);
	}
	evloop_timer_set(&w->loop.ev, w->report_timer,
			 w->erbest_expiry < next ? w->erbest_expiry : next);
}

void worker_report_on_timer(struct evloop *e, void *userdata)
{
	worker_report(userdata, false);
}

void worker_report_engine_ran(struct port_loop *l, bool tick)
{
	worker_report(container_of(l, struct worker_port, loop), !tick);
}
