/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Announce: sending our data sets as a master, and feeding received ones to the BMCA. */
#include "ptp/port-internal.h"
#include "ptp/tlv.h"

/* ptp4l's power_profile.*: the IEEE C37.238 TLV of its version, none for version none. */
static int port_announce_c37_238(const struct port *p, struct tlv_builder *b)
{
	const struct power_profile_options *pp = &p->cfg.port.power_profile;
	struct tlv_c37_238 c = {
		.grandmasterID = pp->grandmasterID,
		/* -1 (unknown) is 0xFFFFFFFF on the wire. */
		.grandmasterTimeInaccuracy = (uint32_t) pp->grandmasterTimeInaccuracy,
		.networkTimeInaccuracy = (uint32_t) pp->networkTimeInaccuracy,
		.totalTimeInaccuracy = (uint32_t) pp->totalTimeInaccuracy,
	};

	switch (pp->version) {
	case OPTIONS_POWER_PROFILE_2011:
		c.subtype = TLV_C37_238_2011;
		break;
	case OPTIONS_POWER_PROFILE_2017:
		c.subtype = TLV_C37_238_2017;
		break;
	default:
		return 0;
	}
	return tlv_builder_add_c37_238(b, &c);
}

/* IEEE 1588-2019 13.5 and 9.5.8: an Announce is the parent data set as this clock sees it. */
int port_announce_send(struct port *p, ns_t now)
{
	/* inhibit_multicast_service: the granted peers get theirs unicast (port-unicast.c). */
	if (port_unicast_inhibits_multicast(p)) {
		return 0;
	}
	return port_announce_send_to(p, NULL, p->portds.logAnnounceInterval, now);
}

int port_announce_send_to(struct port *p, const struct port_address *to, int8_t log_period,
			  ns_t now)
{
	/* The IEEE C37.238 TLV (at most 64 octets) and the path trace TLV. */
	uint8_t tlv[64 + TLV_HEADER_LEN + 8 * (PORT_PATH_TRACE_MAX + 1)];
	struct tlv_builder b;
	struct msg m;
	struct msg_announce *a = &m.body.announce;
	ssize_t n;
	int r;

	/*
	 * Never an Announce naming a parent data set the clock has not decided (9.3.5), none with
	 * inhibit_announce (static roles), none over a link that is not asCapable (802.1AS-2020
	 * clause 10: the state machines that send run only while asCapable).
	 */
	if (!p->parent_valid || p->cfg.port.inhibit_announce || !p->asc.value) {
		return 0;
	}
	port_msg_init(p, &m, MSG_ANNOUNCE, p->seq_announce++);
	m.hdr.logMessageInterval = log_period;
	/* 13.3.2.8: the time properties travel in flagField (MSG_FLAG_* of octet 1). */
	m.hdr.flagField = ds_time_properties_flags(&p->tpds);
	/* 13.5.2.1: originTimestamp may be 0; the engine reads no clock to fill it. */
	a->currentUtcOffset = p->tpds.currentUtcOffset;
	a->grandmasterPriority1 = p->pds.grandmasterPriority1;
	a->grandmasterClockQuality = p->pds.grandmasterClockQuality;
	a->grandmasterPriority2 = p->pds.grandmasterPriority2;
	a->grandmasterIdentity = p->pds.grandmasterIdentity;
	a->stepsRemoved = p->cds.stepsRemoved;
	a->timeSource = p->tpds.timeSource;
	tlv_builder_init(&b, tlv, sizeof(tlv));
	r = port_announce_c37_238(p, &b);
	if (r < 0) {
		return r;
	}
	m.tlv = tlv;
	m.tlv_len = tlv_builder_len(&b);
	n = port_path_trace_tlv(p, tlv + m.tlv_len, sizeof(tlv) - m.tlv_len);
	if (n > 0) {
		m.tlv_len += (size_t) n;
	}
	if (to) {
		r = port_send_unicast_only(p, &m, to, NULL, PORT_CNT_TX_ANNOUNCE, now);
		return r == -ENOTCONN ? 0 : r;
	}
	return port_send(p, &m, false, NULL, PORT_CNT_TX_ANNOUNCE, now);
}

static void port_announce_from_msg(const struct msg *m, struct bmca_announce *ret)
{
	const struct msg_announce *a = &m->body.announce;

	ret->sourcePortIdentity = m->hdr.sourcePortIdentity;
	ret->flagField = m->hdr.flagField;
	ret->logMessageInterval = m->hdr.logMessageInterval;
	ret->currentUtcOffset = a->currentUtcOffset;
	ret->grandmasterPriority1 = a->grandmasterPriority1;
	ret->grandmasterClockQuality = a->grandmasterClockQuality;
	ret->grandmasterPriority2 = a->grandmasterPriority2;
	ret->grandmasterIdentity = a->grandmasterIdentity;
	ret->stepsRemoved = a->stepsRemoved;
	ret->timeSource = a->timeSource;
}

int port_announce_receive(struct port *p, const struct msg *m, ns_t now)
{
	const struct port_options *o = &p->cfg.port;
	struct bmca_announce a;
	int r;

	/* The sender's announce interval is kept with its record: it must be one (7.7.2.2). */
	if (m->hdr.logMessageInterval != MSG_LOG_INTERVAL_NONE &&
	    !ds_log_interval_wire_valid(m->hdr.logMessageInterval)) {
		port_count(p, PORT_CNT_OUT_OF_RANGE);
		return 0;
	}
	r = port_path_trace_receive(p, m);
	if (r) {
		port_count(p, r);
		return 0;
	}
	port_announce_from_msg(m, &a);
	/* 17.6: with an acceptable master table, only the clocks it lists may be masters. */
	if (!options_acceptable_master(&o->acceptable_masters,
				       &a.sourcePortIdentity.clockIdentity)) {
		port_count(p, PORT_CNT_NOT_ACCEPTABLE_MASTER);
		return 0;
	}
	/* 9.3.2.5: qualification, and the exclusions (stepsRemoved >= 255, a full table). */
	r = bmca_foreign_add(&p->foreign, &a, now);
	if (r < 0) {
		port_count(p, PORT_CNT_ANNOUNCE_REJECTED);
		return 0;
	}
	if (port_is_slave(p) &&
	    port_identity_equal(&a.sourcePortIdentity, &p->pds.parentPortIdentity)) {
		/* 9.2.6.12: the parent is alive. 9.3.5 Table 30: keep its time properties. */
		bmca_announce_timer_restart(&p->announce_timer, now, o->logAnnounceInterval,
					    o->announceReceiptTimeout);
		struct bmca_dataset parent;
		struct timePropertiesDS tp;

		bmca_dataset_from_announce(&a, &p->foreign.self, &parent);
		bmca_time_properties_from_announce(&a, &tp);
		bmca_update_slave(&parent, &tp, &p->cds, &p->pds, &p->tpds);
	} else if (p->portds.portState == PORT_STATE_PASSIVE) {
		bmca_announce_timer_restart(&p->announce_timer, now, o->logAnnounceInterval,
					    o->announceReceiptTimeout);
	}
	if (r > 0) {
		/* A master newly qualified or changed its data set: decide again at once. */
		return port_state_decision(p, now);
	}
	return 0;
}
