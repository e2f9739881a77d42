/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One phcd-port child of the supervisor: acquire its fds, fork+exec, watch it by pidfd, talk IPC.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "common/ipc.h"
#include "daemon/worker-sandbox.h"
#include "ptp/options.h"
#include "ptp/transport.h"
#include "ptp/types.h"
#include "ptp/util.h"

/* The one fd a worker finds at exec (phcd-port --ipc-fd 3); the others come with CONFIG. */
#define WORKER_FD_IPC 3
/* The child's exit status when it could not enter its sandbox (it then never runs phcd-port). */
#define WORKER_EXIT_SANDBOX 126

struct worker;

/* What the supervisor learns from a worker. */
struct worker_ops {
	/* A valid message from the worker (never a supervisor->worker type). */
	void (*message)(struct worker *w, const struct ipc_msg *m, void *userdata);
	/*
	 * The worker is gone and reaped. reason: a short text ("exited with status 1", "killed by
	 * signal 9", "sent a malformed message"). error: -errno that says why, for LastError.
	 */
	void (*exited)(struct worker *w, int error, const char *reason, void *userdata);
};

struct worker_config {
	const char *binary; /* phcd-port */
	char ifname[IFNAMSIZ];
	int ifindex;
	enum options_timestamping time_stamping;
	bool peer_delay;
	uint8_t ptp_dst_mac[OPTIONS_MAC_LEN]; /* the multicast groups the socket joins */
	uint8_t p2p_dst_mac[OPTIONS_MAC_LEN];
	int socket_priority;			  /* SO_PRIORITY of the socket */
	enum options_transport network_transport; /* which sockets (transport_open_fds()) */
	uint8_t udp_ttl;			  /* UDP: hops, IPv6 scope, DSCP (transport.h) */
	uint8_t udp6_scope;
	uint8_t dscp_event;
	uint8_t dscp_general;
	/* with the timestamps got, says whether /dev/ptpN is opened (steer_wants_phc()) */
	enum options_clock_backend clock_backend;
	bool log_samples; /* -m: one line per servo sample on stderr (logging_level 7) */
	struct worker_identity identity; /* whom it runs as (worker_identity_resolve()) */
};

/* What acquiring the port's resources found, for the port's public fields. */
struct worker_info {
	pid_t pid;
	enum transport_ts_mode ts_mode;
	int phc_index;
	int hw_error;	  /* hardware timestamping refused, fell back to software: -errno */
	int hw_rx_filter; /* HWTSTAMP_FILTER_* the driver kept (read back); NONE in software */
};

/*
 * Open the port's sockets (transport_open_fds(): L2's ETH_P_1588 event socket with timestamping
 * configured and its general socket, or UDP's six) and, if wanted, its PHC, make the IPC socketpair
 * and fork+exec the binary with only its end of it (fd 3). The sockets and PHC stay here until
 * worker_send_config(). Returns -errno when a resource cannot be acquired; the worker
 * then does not exist.
 */
int worker_spawn(sd_event *event, const struct worker_config *cfg, const struct worker_ops *ops,
		 void *userdata, struct worker **ret, struct worker_info *info);
int worker_send(struct worker *w, const struct ipc_msg *m);
/* With n fds over SCM_RIGHTS (PEER_SOCKETS); they stay the caller's to close. */
int worker_send_fds(struct worker *w, const struct ipc_msg *m, const int *fds, size_t n);
/*
 * Send CONFIG with the port's sockets (in transport_open_fds()'s order), its status page
 * (status-page.h) and its PHC if any over SCM_RIGHTS, in that order, then close them here; once.
 */
int worker_send_config(struct worker *w, const struct ipc_msg *m);
/*
 * The worker's status page, copied and decoded: 1 and *ret when it changed since the last call,
 * 0 when not (or the worker is going), -EAGAIN when it was being written at every try (left for
 * the next call), -EBADMSG when the worker wrote nonsense: it is then killed, as for a malformed
 * datagram.
 */
int worker_read_status(struct worker *w, struct ipc_msg *ret);
/*
 * Ask the worker to stop: SHUTDOWN now, SIGTERM after half of timeout_usec, SIGKILL at
 * timeout_usec. ops->exited runs when it is reaped.
 */
void worker_stop(struct worker *w, uint64_t timeout_usec);
/* SIGKILL at once (a worker that misbehaved); ops->exited follows. */
void worker_kill(struct worker *w, int error, const char *reason);
bool worker_stopping(const struct worker *w);
/* Without waiting: SIGKILL and reap if still running, close everything. Accepts NULL. */
struct worker *worker_free(struct worker *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct worker *, worker_free);
