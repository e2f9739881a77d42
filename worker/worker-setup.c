// SPDX-License-Identifier: GPL-2.0-or-later
/* From CONFIG to a port that runs: the fds, what the port steers, its clock; or FAULTY. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "common/ipc.h"
#include "common/log.h"
#include "common/status-page.h"
#include "worker/worker-port.h"

#define CONFIG_TIMEOUT_MS 5000

/*
 * CONFIG and the fds that come with it: the port's sockets (as many as its network_transport
 * has: transport_n_fds()), its status page, its seccomp filter, then its PHC when timestamps are
 * hardware (steer_wants_phc()). A CONFIG without the sockets, the page and the filter, or with a
 * PHC for the system back end (which never reads one), is refused.
 */
int worker_setup_recv_config(int ipc, struct ipc_msg *m, int ret_socks[TRANSPORT_FDS_MAX],
			     int *ret_page, int *ret_filter, int *ret_phc)
{
	struct pollfd pfd = { .fd = ipc, .events = POLLIN };
	int fds[IPC_MAX_FDS];
	size_t n = 0, ns;
	int r;

	r = poll(&pfd, 1, CONFIG_TIMEOUT_MS);
	if (r <= 0) {
		return r < 0 ? -errno : -ETIMEDOUT;
	}
	r = ipc_recv(ipc, m, fds, ARRAY_SIZE(fds), &n);
	if (r < 0) {
		return r;
	}
	ns = m->type == IPC_CONFIG ? transport_n_fds(m->config.port.network_transport) : 0;
	if (m->type != IPC_CONFIG || n < ns + 2 || n > ns + 3 ||
	    (n == ns + 3 && m->config.instance.clock_backend == OPTIONS_CLOCK_SYSTEM)) {
		for (size_t k = 0; k < n; k++) {
			close(fds[k]);
		}
		return m->type != IPC_CONFIG ? -EPROTO : -EBADF;
	}
	memcpy(ret_socks, fds, ns * sizeof(fds[0]));
	*ret_page = fds[ns];
	*ret_filter = fds[ns + 1];
	*ret_phc = n == ns + 3 ? fds[ns + 2] : -1;
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
void worker_setup_decide(const struct worker_port *w, const struct ipc_config *c,
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
int worker_setup_clock(struct worker_port *w, const struct ipc_config *c,
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
			worker_report_error(w, d->error, "%s", d->reason);
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
int worker_setup_stay_faulty(struct worker_port *w, const struct steer_decision *d)
{
	struct ipc_msg m = { .type = IPC_STATUS };
	struct pollfd pfd = { .fd = w->ipc, .events = POLLIN };

	m.status.port_state = PORT_STATE_FAULTY;
	m.status.servo_state = SERVO_UNLOCKED;
	m.status.last_error = d->error;
	/* The errno travels as LastErrorCode; the text is the reason alone (it fits the STATUS). */
	snprintf(m.status.last_error_text, sizeof(m.status.last_error_text), "%s", d->reason);
	log_port_full_errno(w->args->ifname, LOG_ERR, d->error, "%s: %m", d->reason);
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
