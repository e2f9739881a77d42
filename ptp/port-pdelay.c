/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Peer delay (IEEE 1588-2019 11.4): two-step responder, and requester measuring meanLinkDelay. */
#include "ptp/port-internal.h"

/* Requester: a Pdelay_Req every 2^logMinPdelayReqInterval, in every active state (11.4.1). */
int port_pdelay_req_send(struct port *p, ns_t now)
{
	uint16_t seq;
	struct msg m;
	ns_t tx;
	int r;

	/* A message interval request said stop (127), or a designated master that never asks. */
	if (p->pdelay_stopped || p->cfg.port.inhibit_delay_req) {
		return 0;
	}
	seq = p->seq_pdelay_req++;
	if (p->pdreq.pending && !p->pdreq.stale) {
		port_count(p, PORT_CNT_PDELAY_NO_RESPONSE);
		p->asc.lost++;
	}
	/* 802.1AS-2020 11.2.19.3.4 (linuxptp's multiple_seq_pdr_count): one responder only. */
	if (p->pdreq.seq == (uint16_t) (seq - 1) && p->pdreq.responders > 1) {
		p->asc.multiple++;
	} else if (p->pdreq.responders == 1) {
		p->asc.multiple = 0;
	}
	p->pdreq.responders = 0;
	port_as_capable_update(p);
	port_msg_init(p, &m, MSG_PDELAY_REQ, seq);
	/* 802.1AS-2020 11.4.2: an 802.1AS requester says its interval (1588-2019 Table 42 has
	 * 0x7F, which msg_header_init() set). */
	if (p->cfg.port.follow_up_info) {
		m.hdr.logMessageInterval = p->portds.logMinPdelayReqInterval;
	}
	r = port_send(p, &m, true, &tx, PORT_CNT_TX_PDELAY_REQ, now);
	if (r < 0) {
		return r;
	}
	p->pdreq.pending = port_local_time(p, tx, &p->pdreq.t1);
	p->pdreq.stale = false;
	p->pdreq.have_resp = false;
	p->pdreq.seq = seq;
	return 0;
}

/* Responder, two-step (11.4.2 c): Pdelay_Resp with t2, then its Follow_Up with t3. */
int port_pdelay_req_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now)
{
	struct msg r;
	ns_t tx, t3;
	int k;

	if (p->cfg.port.delay_mechanism != DELAY_MECHANISM_P2P) {
		port_count(p, PORT_CNT_WRONG_STATE);
		return 0;
	}
	port_msg_init(p, &r, MSG_PDELAY_RESP, m->hdr.sequenceId);
	r.hdr.flagField |= MSG_FLAG_TWO_STEP;
	r.body.pdelay_resp.requestingPortIdentity = m->hdr.sourcePortIdentity;
	if (ns_to_timestamp(rx, &r.body.pdelay_resp.requestReceiptTimestamp) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return 0;
	}
	k = port_send(p, &r, true, &tx, PORT_CNT_TX_PDELAY_RESP, now);
	if (k < 0) {
		return k;
	}
	if (!port_local_time(p, tx, &t3)) {
		return 0;
	}
	port_msg_init(p, &r, MSG_PDELAY_RESP_FOLLOW_UP, m->hdr.sequenceId);
	/* 11.4.2 c 7: the request's correctionField travels back in the Follow_Up. */
	r.hdr.correctionField = m->hdr.correctionField;
	r.body.pdelay_resp_follow_up.requestingPortIdentity = m->hdr.sourcePortIdentity;
	if (ns_to_timestamp(t3, &r.body.pdelay_resp_follow_up.responseOriginTimestamp) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return 0;
	}
	return port_send(p, &r, true, NULL, PORT_CNT_TX_PDELAY_RESP_FOLLOW_UP, now);
}

/* Both responder messages must name us as requester and answer the request in flight. */
static int port_pdelay_check(const struct port *p, const struct msg *m,
			     const struct PortIdentity *requesting)
{
	if (p->cfg.port.delay_mechanism != DELAY_MECHANISM_P2P) {
		return PORT_CNT_WRONG_STATE;
	}
	if (!port_identity_equal(requesting, &p->portds.portIdentity)) {
		return PORT_CNT_PDELAY_OTHER_PORT;
	}
	if (m->hdr.sequenceId != p->pdreq.seq) {
		return PORT_CNT_STALE_SEQUENCE;
	}
	if (!p->pdreq.pending) {
		return PORT_CNT_DUPLICATE_SEQUENCE;
	}
	return 0;
}

/* IEEE 1588-2019 11.4.2: meanLinkDelay from one complete exchange. */
static void port_pdelay_complete(struct port *p, ns_t t2, ns_t t3, ns_t fup_correction)
{
	struct delay_p2p d = {
		.t1 = p->pdreq.t1,
		.t2 = t2,
		.t3 = t3,
		.t4 = p->pdreq.t4,
		.resp_correction = p->pdreq.resp_correction,
		.resp_fup_correction = fup_correction,
	};
	double nrr;
	ns_t mld;

	p->pdreq.pending = false;
	if (p->pdreq.stale) {
		return;
	}
	/* The rate of the peer's clock over ours from successive responses (11.4.2 note). */
	if (p->pdreq.have_prev &&
	    delay_neighbor_rate_ratio(p->pdreq.prev_t3, p->pdreq.prev_t4, t3, d.t4, &nrr) == 0 &&
	    nrr > 1.0 - PORT_RATE_RATIO_MAX_DEVIATION &&
	    nrr < 1.0 + PORT_RATE_RATIO_MAX_DEVIATION) {
		p->pdreq.nrr = nrr;
		p->asc.nrr_valid = true;
	}
	p->pdreq.have_prev = true;
	p->pdreq.prev_t3 = t3;
	p->pdreq.prev_t4 = d.t4;
	p->asc.lost = 0;

	/* The responder's times and corrections come from the wire: a delay that does not fit is
	 * no sample. */
	if (delay_p2p_mean_link_delay(&d, p->pdreq.nrr, &mld) < 0) {
		port_count(p, PORT_CNT_OVERFLOW);
		return;
	}
	if (mld > PORT_PATH_DELAY_MAX || mld < -PORT_PATH_DELAY_MAX) {
		port_count(p, PORT_CNT_OUT_OF_RANGE);
		return;
	}
	p->delay.value = delay_filter_sample(&p->delay.filter, mld);
	p->delay.valid = true;
	p->portds.meanLinkDelay = p->delay.value;
	p->cds.meanDelay = p->delay.value;
	port_as_capable_update(p);
}

int port_pdelay_resp_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now)
{
	const struct msg_pdelay_resp *r = &m->body.pdelay_resp;
	int k;

	k = port_pdelay_check(p, m, &r->requestingPortIdentity);
	if ((!k || k == PORT_CNT_DUPLICATE_SEQUENCE) && p->pdreq.have_resp) {
		/*
		 * A second answer to one request, before or after its exchange completed: several
		 * responders on the link (11.4.1 says one; 802.1AS-2020 11.2.19.3.4).
		 */
		if (!port_identity_equal(&m->hdr.sourcePortIdentity, &p->pdreq.responder)) {
			p->pdreq.responders++;
		}
		k = PORT_CNT_DUPLICATE_SEQUENCE;
	}
	if (k) {
		port_count(p, k);
		return 0;
	}
	p->pdreq.have_resp = true;
	p->pdreq.responders = 1;
	p->pdreq.responder = m->hdr.sourcePortIdentity;
	p->pdreq.t4 = rx;
	p->pdreq.resp_correction = correction_to_ns(m->hdr.correctionField);
	if (!port_timestamp_ns(p, &r->requestReceiptTimestamp, &p->pdreq.t2)) {
		p->pdreq.pending = false;
		return 0;
	}
	if (!msg_flag(&m->hdr, MSG_FLAG_TWO_STEP)) {
		/* One-step responder: the turnaround is all in the correctionField (11.4.2 b). */
		port_pdelay_complete(p, 0, 0, 0);
	}
	return 0;
}

int port_pdelay_resp_follow_up_receive(struct port *p, const struct msg *m, ns_t now)
{
	const struct msg_pdelay_resp_follow_up *f = &m->body.pdelay_resp_follow_up;
	ns_t t3;
	int k;

	k = port_pdelay_check(p, m, &f->requestingPortIdentity);
	if (!k && (!p->pdreq.have_resp ||
		   !port_identity_equal(&m->hdr.sourcePortIdentity, &p->pdreq.responder))) {
		k = PORT_CNT_FOLLOW_UP_WITHOUT_SYNC;
	}
	if (k) {
		port_count(p, k);
		return 0;
	}
	if (!port_timestamp_ns(p, &f->responseOriginTimestamp, &t3)) {
		p->pdreq.pending = false;
		return 0;
	}
	port_pdelay_complete(p, p->pdreq.t2, t3, correction_to_ns(m->hdr.correctionField));
	return 0;
}

bool port_runs_as_capable(const struct port *p)
{
	return options_port_runs_as_capable(&p->cfg.port);
}

void port_as_capable_update(struct port *p)
{
	const struct port_options *o = &p->cfg.port;
	enum port_as_capable_reason why = PORT_AS_CAPABLE_OK;
	bool value;

	if (!port_runs_as_capable(p)) {
		return;
	}
	/* 802.1AS-2020 11.2.19.3: the neighbour must answer, alone, and be near enough. */
	if (p->asc.lost > PORT_ALLOWED_LOST_RESPONSES) {
		why = PORT_AS_CAPABLE_LOST_RESPONSES;
	} else if (p->asc.multiple >= PORT_MULTIPLE_RESPONSES_MAX) {
		why = PORT_AS_CAPABLE_MULTIPLE_RESPONDERS;
	} else if (!p->delay.valid || !p->asc.nrr_valid) {
		why = PORT_AS_CAPABLE_NOT_MEASURED;
	} else if (p->delay.value > o->neighborPropDelayThresh) {
		why = PORT_AS_CAPABLE_DELAY_ABOVE;
	} else if (p->delay.value < o->min_neighbor_prop_delay) {
		why = PORT_AS_CAPABLE_DELAY_BELOW;
	}
	value = why == PORT_AS_CAPABLE_OK;
	if (value == p->asc.value) {
		return;
	}
	p->asc.value = value;
	p->asc.why = why;
	if (p->ops->as_capable_changed) {
		p->ops->as_capable_changed(p->userdata, value, why, p->delay.value);
	}
}
