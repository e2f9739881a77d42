/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * phcd-port under the supervisor, inside: the worker's state, shared by port-ipc.c (the engine's
 * callbacks, the supervisor's messages, the run), worker-report.c, worker-share.c and
 * worker-setup.c (not an API).
 */
#pragma once

#include <stdbool.h>

#include "common/ipc.h"
#include "ptp/clock.h"
#include "ptp/steer.h"
#include "ptp/transport.h"
#include "worker/port-ipc.h"
#include "worker/news.h"
#include "worker/port-loop.h"

/* A question to the supervisor about a unicast peer's sockets (worker-peers.c). */
#define WORKER_PEER_ASKS 8
/* After a refusal, a peer's messages go to the group this long before it is asked again. */
#define WORKER_PEER_RETRY_NS (10 * NS_PER_SEC)
struct worker_peer_ask {
	bool used;
	bool pending; /* asked, no answer yet */
	struct peer_addr peer;
	ns_t retry_at; /* refused: not asked again before (port_loop_now()) */
};

/*
 * A message as last sent, encoded: the next goes only when it differs. wire holds cap bytes
 * (IPC_ERBEST_SIZE for ERBEST, within struct worker_port; IPC_MAX_SIZE for UNICAST_TABLE,
 * allocated with its first: a port without unicast never has one).
 */
struct worker_sent {
	bool sent;
	size_t len;
	size_t cap;
	uint8_t *wire;
};

struct worker_port {
	const struct port_ipc_args *args;
	int ipc;
	int phc_fd; /* from CONFIG, or -1; ours until a PHC clock takes it */
	char user_description[OPTIONS_USER_DESCRIPTION_MAX + 1]; /* from CONFIG, for management */
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
	uint64_t announces_seen;	/* PORT_CNT_RX_ANNOUNCE when Erbest was last looked at */
	ns_t erbest_expiry;		/* port_erbest_next_expiry() then */
	struct worker_sent erbest_last; /* the last ERBEST sent */
	uint8_t erbest_wire[IPC_ERBEST_SIZE];
	/* the last UNICAST_TABLE sent (one a second at most); wire NULL until the first */
	struct worker_sent uc_table_last;
	ns_t uc_table_at;
	int last_error;
	char last_error_text[IPC_ERROR_TEXT_MAX];
	uint64_t tx_ts_timeouts; /* sends whose TX timestamp did not come in tx_timestamp_timeout */
	int32_t tx_timeout_ms;
	/*
	 * News for the supervisor, held until IPC_NEWS_TICK_NS after the last of its kind went:
	 * a STATUS (a state change, a new error, a push taken), and the management SETs from the
	 * network (the last values win).
	 */
	struct news news;
	bool priority_pending, gm_pending; /* NEWS_REQUESTS: which of the two */
	struct ipc_set_priority priority_req;
	struct gm_settings gm_req;
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
	/* unicast_peers_max over UDP, 0 over L2 (no sockets to ask for) */
	unsigned int peers_max;
	/* WORKER_PEER_ASKS of them over UDP, allocated at set-up; NULL over L2 */
	struct worker_peer_ask *peer_asks;
};

/* ---- worker-report.c ---- */

/* LastError: a new one goes out with the next news, the same one again does not. */
void worker_report_error(struct worker_port *w, int error, const char *fmt, ...) _printf_(3, 4);
/* A servo sample's offset into the summary window (ipc_offset_stats). */
void worker_report_summarize(struct worker_port *w, ns_t offset, ns_t now);
/* After anything that may have changed the port: what is due goes out, the timer is set. */
void worker_report(struct worker_port *w, bool frames);
void worker_report_on_timer(struct evloop *e, void *userdata);
void worker_report_engine_ran(struct port_loop *l, bool tick);

/* ---- worker-share.c ---- */

/* After a servo sample of a SLAVE port: its clock's correction for the instance's other ports. */
void worker_share_report(struct worker_port *w);
/* The SLAVE port's correction, from the supervisor: a port that steers itself keeps its own. */
void worker_share_take(struct worker_port *w, const struct ipc_clock_state *cs);

/* ---- worker-peers.c ---- */

/* port_loop.peer_missing: ask the supervisor for sockets to the peer; -ENOTCONN meanwhile. */
int worker_peers_missing(struct port_loop *l, const struct port_address *to);
/* Its answer, with the n_fds fds that came (taken or closed here). */
void worker_peers_answer(struct worker_port *w, const struct ipc_peer_sockets *a, int *fds,
			 size_t n_fds);

/* ---- worker-setup.c ---- */

/*
 * CONFIG, into *m (m->config, no copy: the set-up's stack is the worker's private memory), and
 * its fds (event and general sockets, status page, seccomp filter, PHC or -1).
 */
int worker_setup_recv_config(int ipc, struct ipc_msg *m, int ret_socks[TRANSPORT_FDS_MAX],
			     int *ret_page, int *ret_filter, int *ret_phc);
/* What this port steers (ptp/steer.h), from the configuration and what the worker holds. */
void worker_setup_decide(const struct worker_port *w, const struct ipc_config *c,
			 const struct transport_ts_status *st, struct steer_decision *ret);
/* The clock back end the decision names, built on what this worker holds. */
int worker_setup_clock(struct worker_port *w, const struct ipc_config *c,
		       const struct steer_decision *d);
/* FAULTY with the reason until the supervisor stops it: 0, or -errno. */
int worker_setup_stay_faulty(struct worker_port *w, const struct steer_decision *d);
