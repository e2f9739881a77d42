/* SPDX-License-Identifier: GPL-2.0-or-later */
/* End-to-end delay request-response (IEEE 1588-2019 11.3): Delay_Req out, Delay_Resp back. */
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
	r = port_send(p, &m, false, &tx, PORT_CNT_TX_DELAY_REQ, now);
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

int port_delay_resp_receive(struct port *p, const struct msg *m, ns_t now)
{
	struct delay_e2e d;
	ns_t t4, mpd, dt;
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
	if (!p->sync.have_pair) {
		return 0;
	}
	/* IEEE 1588-2019 11.3.2: the latest Sync measurement with this exchange. */
	d.t1 = p->sync.t1;
	d.t2 = p->sync.pair_t2;
	d.sync_correction = p->sync.pair_correction;
	d.t3 = p->dreq.t3;
	d.t4 = t4;
	d.delay_resp_correction = correction_to_ns(m->hdr.correctionField);
	/*
	 * The offset moved by (1 - r) * (t3 - t2) between the Sync and the Delay_Req while the
	 * rates differ (r: master over local), which the formula would take for path delay: add it
	 * back, as linuxptp's tsproc scales t3 - t2 by the rate ratio. |1 - r| < 0.001, so the term
	 * is far smaller than t3 - t2. Times from the wire can be extreme: checked arithmetic, and
	 * a delay that does not fit is no sample.
	 */
	if (delay_e2e_mean_path_delay(&d, &mpd) < 0 || __builtin_sub_overflow(d.t3, d.t2, &dt) ||
	    !delay_ns_add(mpd, (ns_t) ((1.0 - p->sync.rate_ratio) * (double) dt / 2.0), &mpd)) {
		port_count(p, PORT_CNT_OVERFLOW);
		return 0;
	}
	if (mpd > PORT_PATH_DELAY_MAX || mpd < -PORT_PATH_DELAY_MAX) {
		port_count(p, PORT_CNT_OUT_OF_RANGE);
		return 0;
	}
	p->delay.value = delay_filter_sample(&p->delay.filter, mpd);
	p->delay.valid = true;
	p->cds.meanDelay = p->delay.value;
	return 0;
}
