// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The instance's one timescale (virtual clocks over CLOCK_REALTIME, software timestamps): the
 * SLAVE port's worker reports its clock's correction (CLOCK_STATE), the others take it from the
 * supervisor (SET_CLOCK_STATE).
 */
#include <stdlib.h>
#include <string.h>

#include "common/ipc.h"
#include "worker/worker-port.h"

/*
 * The SLAVE port's virtual clock correction goes to the supervisor when the view it last reported
 * is this far from the current one (a step, a large frequency change), else at most once a period.
 */
#define CLOCK_STATE_MOVED_NS 1000
#define CLOCK_STATE_PERIOD_NS (1000 * NS_PER_MSEC)

static bool steers_itself(const struct worker_port *w)
{
	enum port_state s = port_get_state(w->loop.port);

	return s == PORT_STATE_SLAVE || s == PORT_STATE_UNCALIBRATED;
}

/*
 * CLOCK_STATE: a frame of its own for the 2.5 kB struct ipc_msg, below the engine's deepest
 * (worker_share_report() runs inside a servo sample), taken only when it goes out: a worker's
 * stack pages once touched stay its private memory.
 */
__attribute__((noinline)) static void send_clock_state(struct worker_port *w,
						       const struct clock_virtual_state *st)
{
	struct ipc_msg m = { .type = IPC_CLOCK_STATE };

	m.clock_state.raw_ns = st->raw;
	m.clock_state.local_ns = st->local;
	/* Never a value the supervisor's decoder refuses (one table for both ends). */
	m.clock_state.rate_ppb = ipc_limit_clamp(IPC_LIMIT_RATE_PPB, st->rate_ppb);
	m.clock_state.gm_rate_ratio = ipc_limit_clamp(IPC_LIMIT_GM_RATE_RATIO,
						      port_gm_rate_ratio(w->loop.port));
	if (ipc_send(w->ipc, &m, NULL, 0) < 0) {
		evloop_exit(&w->loop.ev, 1);
	}
}

/* After a servo sample of a SLAVE port: its clock's correction for the instance's other ports. */
void worker_share_report(struct worker_port *w)
{
	struct clock_virtual_state st;
	ns_t now = port_loop_now(&w->loop), raw;

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
	w->clock_sent = st;
	w->clock_sent_valid = true;
	w->clock_sent_at = now;
	send_clock_state(w, &st);
}

/* The SLAVE port's correction, from the supervisor: a port that steers itself keeps its own. */
void worker_share_take(struct worker_port *w, const struct ipc_clock_state *cs)
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
		worker_report_error(w, r, "cannot take the instance's clock state: %s",
				    strerror(-r));
	}
}
