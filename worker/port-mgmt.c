// SPDX-License-Identifier: GPL-2.0-or-later
/* Management over the network in phcd-port: a port engine answers pmc -2 on its own wire. */
#include <string.h>

#include "worker/port-mgmt.h"

/* Snapshot of the engine's clock and of the port itself, for mgmt_handle_frame(). */
static void port_mgmt_clock(struct port *p, struct transport *t, const char *ifname,
			    struct mgmt_clock *ret, struct mgmt_port *port)
{
	struct transport_ts_status ts = { .mode = TRANSPORT_TS_MODE_SOFTWARE };

	memset(ret, 0, sizeof(*ret));
	ret->dds = *port_default_ds(p);
	ret->options = port_get_instance_options(p);
	ret->cds = *port_current_ds(p);
	ret->pds = *port_parent_ds(p);
	ret->tpds = *port_time_properties_ds(p);
	port_gm_settings(p, &ret->gm);
	memset(port, 0, sizeof(*port));
	port->ds = *port_port_ds(p);
	port->ifname = ifname;
	port->masterOnly = port_get_options(p)->masterOnly;
	port->power_profile = port_get_options(p)->power_profile;
	port_message_counts(p, port->rx, port->tx);
	if (t) {
		(void) transport_get_ts_status(t, &ts);
	}
	port->timestamping = ts.mode == TRANSPORT_TS_MODE_HARDWARE ? MGMT_TS_HARDWARE
								   : MGMT_TS_SOFTWARE;
	ret->ports = port;
	ret->n_ports = 1;
	ret->all_ports = false;
}

static int port_mgmt_send(void *userdata, const void *buf, size_t len)
{
	struct port_mgmt *pm = userdata;
	/* 15.3.3: answers are general messages to the address the requests use (Annex E). */
	struct transport_dest d = { .kind = TRANSPORT_DEST_DEFAULT };

	return transport_send(pm->transport, buf, len, &d, false, NULL);
}

void port_mgmt_receive(struct port_mgmt *pm, const void *buf, size_t len, ns_t now)
{
	struct mgmt_request req = {
		.ingress = 0,
		.set_allowed = pm->mode == OPTIONS_MGMT_NETWORK_READ_WRITE && pm->apply,
	};
	struct mgmt_change change;
	struct mgmt_port port;
	struct mgmt_clock c;
	int r;

	/* management_network = off: as a port without a management handler. */
	if (pm->mode == OPTIONS_MGMT_NETWORK_OFF) {
		(void) port_count_ignored(pm->port, PORT_CNT_UNSUPPORTED);
		return;
	}
	pm->rx++;
	/* Every answer is a multicast to the whole segment: at most so many per source. */
	if (!mgmt_rate_allow(&pm->rate, pm->src, now)) {
		(void) port_count_ignored(pm->port, PORT_CNT_MGMT_RATE_LIMITED);
		return;
	}
	port_mgmt_clock(pm->port, pm->transport, pm->ifname, &c, &port);
	c.user_description = pm->user_description;
	r = mgmt_handle_frame(&c, buf, len, &req, port_mgmt_send, pm, &change, &pm->cnt);
	if (r > 0) {
		pm->tx += (uint64_t) r;
	}
	if (r >= 0 && change.mask && req.set_allowed) {
		(void) pm->apply(pm->userdata, &change);
	}
}
