/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Peer delay (IEEE 1588-2019 11.4): two-step responder, and requester measuring meanLinkDelay. */
#include "ptp/port-internal.h"

/* Requester: a Pdelay_Req every 2^logMinPdelayReqInterval, in every active state (11.4.1). */
int port_pdelay_req_send(struct port *p, ns_t now)
{
	uint16_t seq = p->seq_pdelay_req++;
	struct msg m;
	ns_t tx;
	int r;

	if (p->pdreq.pending && !p->pdreq.stale) {
		port_count(p, PORT_CNT_PDELAY_NO_RESPONSE);
	}
	port_msg_init(p, &m, MSG_PDELAY_REQ, seq);
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
	}
	p->pdreq.have_prev = true;
	p->pdreq.prev_t3 = t3;
	p->pdreq.prev_t4 = d.t4;

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
}

int port_pdelay_resp_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now)
{
	const struct msg_pdelay_resp *r = &m->body.pdelay_resp;
	int k;

	k = port_pdelay_check(p, m, &r->requestingPortIdentity);
	if (!k && p->pdreq.have_resp) {
		/* A second answer to one request: several responders on the link (11.4.1 says one).
		 */
		k = PORT_CNT_DUPLICATE_SEQUENCE;
	}
	if (k) {
		port_count(p, k);
		return 0;
	}
	p->pdreq.have_resp = true;
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
