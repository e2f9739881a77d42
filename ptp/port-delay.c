/* SPDX-License-Identifier: GPL-2.0-or-later */
/* End-to-end delay request-response (IEEE 1588-2019 11.3): Delay_Req out, Delay_Resp back. */

#include "ptp/num.h"
#include "ptp/port-internal.h"

/* Slave: send a Delay_Req and remember its egress time t3. */
int port_delay_req_send(struct port *p, ns_t now)
{
	struct msg m;
	uint16_t seq;
	ns_t tx;
	int r;

	if (!port_is_slave(p)) {
		return 0;
	}
	seq = p->seq_delay_req++;
	port_msg_init(p, &m, MSG_DELAY_REQ, seq);
	/* 11.6.3: the Delay_Req carries -delayAsymmetry, so the mean path delay stays symmetric. */
	m.hdr.correctionField = ns_to_correction(-p->portds.delayAsymmetry);
	if (p->uc && p->uc->grantee_on) {
		/* Negotiated unicast (16.1): to the parent's address or not at all. */
		r = port_send_unicast_only(p, &m, &p->parent_address, &tx, PORT_CNT_TX_DELAY_REQ,
					   now);
		if (r == -ENOTCONN) {
			return 0;
		}
	} else {
		/* hybrid_e2e (ITU-T G.8275.2, as ptp4l's key): to the parent's address. */
		r = port_send_unicast(p, &m, p->cfg.port.hybrid_e2e ? &p->parent_address : NULL,
				      &tx, PORT_CNT_TX_DELAY_REQ, now);
	}
	if (r < 0) {
		return r;
	}
	p->dreq.pending = port_local_time(p, tx, &p->dreq.t3);
	p->dreq.stale = false;
	p->dreq.seq = seq;
	return 0;
}

/* Master: answer with the ingress time t4 (11.3.2 c, 9.5.12). */
int port_delay_req_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now)
{
	struct msg r;

	if (p->portds.portState != PORT_STATE_MASTER) {
		port_count(p, PORT_CNT_WRONG_STATE);
		return 0;
	}
	if (p->cfg.port.delay_mechanism != DELAY_MECHANISM_E2E) {
		port_count(p, PORT_CNT_WRONG_STATE);
		return 0;
	}
	port_msg_init(p, &r, MSG_DELAY_RESP, m->hdr.sequenceId);
	/* 9.5.11.2: the slave takes its Delay_Req rate from this field. */
	r.hdr.logMessageInterval = p->portds.logMinDelayReqInterval;
	/* 11.3.2 c: the Delay_Req's correctionField comes back in the Delay_Resp. */
	r.hdr.correctionField = m->hdr.correctionField;
	r.body.delay_resp.requestingPortIdentity = m->hdr.sourcePortIdentity;
	if (ns_to_timestamp(rx, &r.body.delay_resp.receiveTimestamp) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return 0;
	}
	/*
	 * hybrid_e2e: a unicast Delay_Req is answered to its sender, as ptp4l does, with
	 * logMessageInterval 0x7F (13.3.2.14 Table 42: a unicast Delay_Resp carries none).
	 */
	if (p->uc && p->uc->gr && msg_flag(&m->hdr, MSG_FLAG_UNICAST) && p->rx_from) {
		/* unicast_listen: to the requester or not at all (16.1). */
		int q;

		r.hdr.logMessageInterval = MSG_LOG_INTERVAL_NONE;
		q = port_send_unicast_only(p, &r, p->rx_from, NULL, PORT_CNT_TX_DELAY_RESP, now);
		return q == -ENOTCONN ? 0 : q;
	}
	if (p->cfg.port.hybrid_e2e && msg_flag(&m->hdr, MSG_FLAG_UNICAST) && p->rx_from) {
		r.hdr.logMessageInterval = MSG_LOG_INTERVAL_NONE;
		return port_send_unicast(p, &r, p->rx_from, NULL, PORT_CNT_TX_DELAY_RESP, now);
	}
	return port_send(p, &r, false, NULL, PORT_CNT_TX_DELAY_RESP, now);
}

/* Which counter drops this Delay_Resp, or 0 when it answers our pending Delay_Req. */
static int port_delay_resp_check(const struct port *p, const struct msg *m)
{
	const struct msg_delay_resp *d = &m->body.delay_resp;

	if (!port_is_slave(p)) {
		return PORT_CNT_WRONG_STATE;
	}
	/* 9.5.12: a multicast Delay_Resp is for every slave; only ours concerns us. */
	if (!port_identity_equal(&d->requestingPortIdentity, &p->portds.portIdentity)) {
		return PORT_CNT_DELAY_RESP_OTHER_PORT;
	}
	if (!port_identity_equal(&m->hdr.sourcePortIdentity, &p->pds.parentPortIdentity)) {
		return PORT_CNT_NOT_FROM_PARENT;
	}
	if (!p->dreq.pending || m->hdr.sequenceId != p->dreq.seq) {
		return m->hdr.sequenceId == p->dreq.seq ? PORT_CNT_DUPLICATE_SEQUENCE
							: PORT_CNT_STALE_SEQUENCE;
	}
	/*
	 * 9.5.11.2: the slave's Delay_Req interval comes from here. A forged -30 once divided by
	 * zero (SIGFPE), -25 made 25,000 Delay_Req/s: an answer beyond the range is not one, and
	 * the request stays pending for the real answer.
	 */
	if (m->hdr.logMessageInterval != MSG_LOG_INTERVAL_NONE &&
	    !ds_log_interval_wire_valid(m->hdr.logMessageInterval)) {
		return PORT_CNT_OUT_OF_RANGE;
	}
	return 0;
}

static bool port_delay_compute(const struct port *p, ns_t m3, ns_t *mpd, enum port_counter *bad);

int port_delay_resp_receive(struct port *p, const struct msg *m, ns_t now)
{
	enum port_counter c;
	ns_t t4, mpd;
	int r;

	r = port_delay_resp_check(p, m);
	if (r) {
		port_count(p, r);
		return 0;
	}
	p->dreq.pending = false;
	if (p->dreq.stale) {
		return 0;
	}
	if (m->hdr.logMessageInterval != MSG_LOG_INTERVAL_NONE) {
		p->portds.logMinDelayReqInterval = m->hdr.logMessageInterval;
	}
	if (!port_timestamp_ns(p, &m->body.delay_resp.receiveTimestamp, &t4)) {
		return 0;
	}
	/* t4 is on the master's timescale, like t1: the same UTC correction applies. */
	if (p->cfg.utc_timescale && p->tpds.ptpTimescale) {
		t4 -= (ns_t) p->tpds.currentUtcOffset * NS_PER_SEC;
	}
	p->dreq.waiting = true;
	p->dreq.w_t3 = p->dreq.t3;
	p->dreq.w_t4 = t4;
	p->dreq.w_correction = correction_to_ns(m->hdr.correctionField);
	if (!p->sync.have_pair) {
		return 0;
	}
	/*
	 * The answer waits for the Sync after t3, but one that does not fit even with the latest
	 * Sync (the interpolation moves m by a rate difference over a Sync interval, far less than
	 * a second) is counted and dropped now.
	 */
	if (!port_delay_compute(p, p->sync.pair_m, &mpd, &c)) {
		p->dreq.waiting = false;
		port_count(p, c);
		return 0;
	}
	return port_delay_sync_kept(p, p->sync.pair_t2, p->sync.pair_m, now);
}

/*
 * The mean path delay from t2 - t1 - correction at t3 (m3) and the waiting Delay_Resp's t4 and
 * correction. Times from the wire can be extreme: checked arithmetic, and a delay that does not
 * fit is no sample (PORT_CNT_OVERFLOW); nor is one beyond any path (PORT_CNT_OUT_OF_RANGE).
 */
static bool port_delay_compute(const struct port *p, ns_t m3, ns_t *mpd, enum port_counter *bad)
{
	struct delay_e2e d = {
		.t2 = p->dreq.w_t3,
		.t3 = p->dreq.w_t3,
		.t4 = p->dreq.w_t4,
		.delay_resp_correction = p->dreq.w_correction,
	};

	if (__builtin_sub_overflow(d.t2, m3, &d.t1) || delay_e2e_mean_path_delay(&d, mpd) < 0) {
		*bad = PORT_CNT_OVERFLOW;
		return false;
	}
	if (*mpd > PORT_PATH_DELAY_MAX || *mpd < -PORT_PATH_DELAY_MAX) {
		*bad = PORT_CNT_OUT_OF_RANGE;
		return false;
	}
	return true;
}

/* One E2E delay sample from t2 - t1 - correction at t3 (m3) and the waiting Delay_Resp. */
static int port_delay_sample(struct port *p, ns_t m3, ns_t now)
{
	enum port_counter c;
	ns_t mpd;

	p->dreq.waiting = false;
	if (!port_delay_compute(p, m3, &mpd, &c)) {
		port_count(p, c);
		return 0;
	}
	p->delay.value = delay_filter_sample(&p->delay.filter, mpd);
	p->delay.valid = true;
	p->cds.meanDelay = p->delay.value;
	return port_sync_delay_known(p, now);
}

/*
 * IEEE 1588-2019 11.3.2 pairs the Delay_Req with a Sync measurement, taking t2 - t1 for the
 * master-to-slave time at t3 too. While the rates differ (before the servo's first estimate, or
 * for good free-running) t2 - t1 grows by the difference: so take it at t3 itself, interpolated
 * between the Syncs kept just before and just after t3 (no rate ratio needed, and a frequency
 * change of the servo, made at a Sync, is in the line). The first Delay_Req (sent at the first
 * Sync) pairs with that Sync alone when within PORT_DELAY_NEAR_SPAN of it.
 */
int port_delay_sync_kept(struct port *p, ns_t t2, ns_t m, ns_t now)
{
	struct port_sync_rx *s = &p->sync;
	ns_t t3 = p->dreq.w_t3;

	if (!p->dreq.waiting) {
		return 0;
	}
	if (!p->delay.valid && llabs(t3 - t2) <= PORT_DELAY_NEAR_SPAN) {
		return port_delay_sample(p, m, now);
	}
	if (t2 < t3) {
		return 0; /* the Sync after t3 is still to come */
	}
	/*
	 * Only between Syncs the outlier gate judged: a spike in one of the first ones (which it
	 * cannot judge) would be a path delay error too.
	 */
	if (s->have_prev && s->prev_t2 <= t3 && s->prev_t2 < t2 && s->prev_judged &&
	    s->pair_judged) {
		double k = (double) (t3 - s->prev_t2) / (double) (t2 - s->prev_t2);
		ns_t dm;

		/* m3 lies between prev_m and m: only their difference can overflow. */
		if (__builtin_sub_overflow(m, s->prev_m, &dm)) {
			p->dreq.waiting = false;
			port_count(p, PORT_CNT_OVERFLOW);
			return 0;
		}
		return port_delay_sample(p, s->prev_m + (ns_t) num_llround(k * (double) dm), now);
	}
	/* No Sync kept before t3 (a reset between), or not judged: nothing to pair with. */
	p->dreq.waiting = false;
	return 0;
}
