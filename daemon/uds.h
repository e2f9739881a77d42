/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The local management socket: pmc's raw PTP Management messages on an AF_UNIX datagram socket. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "ptp/mgmt.h"
#include "ptp/util.h"

/*
 * As ptp4l's uds transport: a client (pmc -u -s PATH) binds its own socket and sends one
 * Management message per datagram; every answer goes back to the sender's address. Who may
 * connect is the file's mode, made at bind() under a umask: the read-write socket is 0660 (root
 * and the group), its read-only twin 0666. SET is taken only on the read-write socket and only
 * from root or phcd's own uid (SCM_CREDENTIALS), never from a worker's. Each sending uid gets a
 * burst of requests, then UDS_RATE_PER_SEC; the excess is dropped and logged. The host (phcd, or
 * phcd-port) lends the clocks through struct uds_ops.
 */
#define UDS_DEFAULT_PATH "/run/phcd/ptp"
#define UDS_DEFAULT_RO_PATH "/run/phcd/ptp-ro"
/* Ports one clock can show in an answer (every port of an instance, like the supervisor). */
#define UDS_PORTS_MAX 64

struct uds;

struct uds_ops {
	/*
	 * Snapshot clock number i into *ret, with its ports in ports[0..UDS_PORTS_MAX) (ret->ports
	 * pointing there). -ENOENT past the last clock; any other error skips the clock.
	 */
	int (*clock_at)(void *userdata, size_t i, struct mgmt_clock *ret, struct mgmt_port *ports);
	/* Apply an accepted SET to clock number i. */
	int (*apply)(void *userdata, size_t i, const struct mgmt_change *change);
	/* A request was dropped as malformed (or too large); total so far. May be NULL. */
	void (*dropped)(void *userdata, const char *path, uint64_t total);
};

/*
 * Bind path (its directory is created 0755 if missing) and serve it on event. A stale socket
 * file is replaced; one another live server answers on is left alone (-EADDRINUSE).
 */
int uds_new(sd_event *event, const char *path, bool read_only, const struct uds_ops *ops,
	    void *userdata, struct uds **ret);
/* Stop serving and unlink the socket file. Accepts NULL. */
struct uds *uds_free(struct uds *u);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct uds *, uds_free);
