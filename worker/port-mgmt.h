/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Management over the network in phcd-port: a port engine answers pmc -2 on its own wire. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ptp/mgmt.h"
#include "ptp/port.h"
#include "ptp/transport.h"

/*
 * What a worker needs to answer the Management messages its port engine hands over
 * (port_ops.management). The worker sees one port: clock-level answers come from its engine's
 * data sets (which the supervisor keeps in step with the instance), port-level ones for itself,
 * and a port number it does not hold is left to the port that does. SET over the network is
 * refused (NOT_SUPPORTED) unless the instance sets management_network_set: then the worker
 * hands it to apply (the supervisor applies it to the instance).
 */
struct port_mgmt {
	struct port *port;
	struct transport *transport;
	const char *ifname;
	const char *user_description; /* the instance's, from the configuration */
	/* management_network_set: SET accepted and handed to apply (NULL: refused). */
	bool set_allowed;
	int (*apply)(void *userdata, const struct mgmt_change *change);
	void *userdata;
	struct mgmt_counters cnt;
	uint64_t rx, tx; /* Management messages handed over, answers sent */
};

/* Answer one Management message; errors are counted (MGMT_CNT_SEND_FAILED), never fatal. */
void port_mgmt_receive(struct port_mgmt *pm, const void *buf, size_t len);
