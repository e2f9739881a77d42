/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Management over the network in phcd-port: a port engine answers pmc -2 on its own wire. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ptp/mgmt.h"
#include "ptp/options.h"
#include "ptp/port.h"
#include "ptp/transport.h"
#include "worker/mgmt-rate.h"

/*
 * What a worker needs to answer the Management messages its port engine hands over
 * (port_ops.management). The worker sees one port: clock-level answers come from its engine's
 * data sets (which the supervisor keeps in step with the instance), port-level ones for itself,
 * and a port number it does not hold is left to the port that does. The instance's
 * management_network says how much: off (nothing answered, counted as unsupported), read-only
 * (SET refused, NOT_SUPPORTED) or read-write (SET handed to apply: the supervisor applies it to
 * the instance). Every message first passes the rate limit of its source address (mgmt-rate.h): the
 * excess is dropped, counted as management_rate_limited.
 */
struct port_mgmt {
	struct port *port;
	struct transport *transport;
	const char *ifname;
	const char *user_description; /* the instance's, from the configuration */
	enum options_mgmt_network mode;
	/* read-write: SET accepted and handed to apply (NULL: refused). */
	int (*apply)(void *userdata, const struct mgmt_change *change);
	void *userdata;
	struct mgmt_counters cnt;
	uint64_t rx, tx; /* Management messages handed over, answers sent */
	struct mgmt_rate rate;
	/* the source address of the message being handled (set by the loop) */
	uint8_t src[MGMT_RATE_ADDR_LEN];
};

/*
 * Answer one Management message received at now (monotonic) from pm->src; errors are counted
 * (MGMT_CNT_SEND_FAILED), never fatal.
 */
void port_mgmt_receive(struct port_mgmt *pm, const void *buf, size_t len, ns_t now);
