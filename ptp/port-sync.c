/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sync and Follow_Up: two-step sending as a master; offset measurement and the servo as a slave. */
#include <math.h>
#include <string.h>

#include "ptp/port-internal.h"

/* IEEE 1588-2019 9.5.9, 11.3: a two-step Sync, then its Follow_Up with the egress time. */
int port_sync_send(struct port *p, ns_t now)
{
	/* inhibit_multicast_service: the granted peers get theirs unicast (port-unicast.c). */
	if (port_unicast_inhibits_multicast(p)) {
		return 0;
	}
	return port_sync_send_to(p, NULL, p->portds.logSyncInterval, now);
}

/* To the group (to NULL) or to one granted peer, which then also gets the Follow_Up. */
static int port_sync_send_msg(struct port *p, struct msg *m, const struct port_address *to,
			      ns_t *ret_tx_ts, enum port_counter cnt, ns_t now)
{
	int r;

	if (!to) {
		return port_send(p, m, false, ret_tx_ts, cnt, now);
	}
	r = port_send_unicast_only(p, m, to, ret_tx_ts, cnt, now);
	return r == -ENOTCONN ? 1 : r;
}

int port_sync_send_to(struct port *p, const struct port_address *to, int8_t log_period, ns_t now)
{
	uint16_t seq;
	struct msg m;
	uint8_t tlv[64];
	ssize_t n;
	ns_t tx, t1;
	int r;

	/* 802.1AS-2020 clause 10: no time over a link that is not asCapable; none after a stop. */
	if (!p->asc.value || p->sync_stopped) {
		return 0;
	}
	seq = p->seq_sync++;
	port_msg_init(p, &m, MSG_SYNC, seq);
	m.hdr.logMessageInterval = log_period;
	m.hdr.flagField |= MSG_FLAG_TWO_STEP;
	r = port_sync_send_msg(p, &m, to, &tx, PORT_CNT_TX_SYNC, now);
	if (r != 0) {
		return r < 0 ? r : 0; /* 1: no way to that peer yet */
	}
	if (!port_local_time(p, tx, &t1)) {
		return 0;
	}
	port_msg_init(p, &m, MSG_FOLLOW_UP, seq);
	m.hdr.logMessageInterval = log_period;
	/* 802.1AS-2020 11.4.4.3: the Follow_Up information TLV on every Follow_Up. */
	if (p->cfg.port.follow_up_info) {
		n = port_follow_up_info_tlv(p, tlv, sizeof(tlv));
		if (n < 0) {
			return (int) n;
		}
		m.tlv = tlv;
		m.tlv_len = (size_t) n;
	}
	if (ns_to_timestamp(t1, &m.body.follow_up.preciseOriginTimestamp) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return 0;
	}
	r = port_sync_send_msg(p, &m, to, NULL, PORT_CNT_TX_FOLLOW_UP, now);
	return r < 0 ? r : 0;
}

void port_sync_reset(struct port *p)
{
	/* Keep last_seq: a replay must stay a replay across a reset. */
	p->sync.pending = false;
	p->parent_address.len = 0;
	p->sync.have_pair = false;
	p->sync.have_prev = false;
	p->dreq.waiting = false;
	p->sync.held_n = 0;
	outlier_gate_reset(&p->outlier);
	/* Answers to requests in flight are legitimate: take them, but do not use them. */
	p->dreq.stale = true;
	p->pdreq.stale = true;
	p->pdreq.have_prev = false;
	memset(p->sync.early, 0, sizeof(p->sync.early));
	p->sync.early_next = 0;
}

/*
 * A Follow_Up of sequenceId seq may be one whose Sync is still on its way when it is at most a
 * few ahead of the last Sync: reordering swaps neighbours, it does not skip dozens.
 */
static bool port_early_plausible(bool have_last, uint16_t last, uint16_t seq)
{
	int16_t d = (int16_t) (uint16_t) (seq - last);

	return !have_last || (d > 0 && d <= PORT_EARLY_FOLLOW_UP_MAX);
}

/*
 * The Follow_Up held for Sync seq, taken out (true) or none (false). Held ones that are not
 * just ahead of seq lost their Sync (or never had one): they go, counted as
 * follow_up_without_sync.
 */
static bool port_early_take(struct port *p, uint16_t seq, struct port_early_follow_up *ret)
{
	bool found = false;

	for (unsigned i = 0; i < PORT_EARLY_FOLLOW_UP_MAX; i++) {
		struct port_early_follow_up *e = &p->sync.early[i];

		if (!e->used) {
			continue;
		}
		if (e->seq == seq) {
			*ret = *e;
			found = true;
		} else if (port_early_plausible(true, seq, e->seq)) {
			continue; /* a later Sync's: keep it */
		} else {
			port_count(p, PORT_CNT_FOLLOW_UP_WITHOUT_SYNC);
		}
		e->used = false;
	}
	return found;
}

/* Hold a Follow_Up whose Sync has not come (yet); the oldest held one gives way. */
static void port_early_hold(struct port *p, const struct msg *m)
{
	struct port_early_follow_up *e;
	ns_t t1;

	for (unsigned i = 0; i < PORT_EARLY_FOLLOW_UP_MAX; i++) {
		if (p->sync.early[i].used && p->sync.early[i].seq == m->hdr.sequenceId) {
			port_count(p, PORT_CNT_DUPLICATE_SEQUENCE);
			return;
		}
	}
	if (!port_timestamp_ns(p, &m->body.follow_up.preciseOriginTimestamp, &t1)) {
		return;
	}
	port_follow_up_info_receive(p, m);
	e = &p->sync.early[p->sync.early_next];
	if (e->used) {
		port_count(p, PORT_CNT_FOLLOW_UP_WITHOUT_SYNC);
	}
	p->sync.early_next = (p->sync.early_next + 1) % PORT_EARLY_FOLLOW_UP_MAX;
	e->used = true;
	e->seq = m->hdr.sequenceId;
	e->t1 = t1;
	e->correction = correction_to_ns(m->hdr.correctionField);
}

bool port_sync_awaited(const struct port *p)
{
	for (unsigned i = 0; i < PORT_EARLY_FOLLOW_UP_MAX; i++) {
		if (p->sync.early[i].used) {
			return true;
		}
	}
	return false;
}

int port_sync_timeout(struct port *p, ns_t now)
{
	if (!port_is_slave(p)) {
		return 0;
	}
	/* The parent's records would qualify it again at once (linuxptp: fc_clear). */
	bmca_foreign_clear(&p->foreign);
	/* The clock keeps the frequency it learnt: holdover until Sync comes back. */
	if (p->servo_state == SERVO_LOCKED) {
		p->servo_state = SERVO_HOLDOVER;
	}
	return port_dispatch(p, FSM_EV_SYNC_RECEIPT_TIMEOUT_EXPIRES, false, now);
}

/* Sync and Follow_Up are only taken from the parent, in a slave state (9.5.9.1). */
static int port_sync_accept(struct port *p, const struct msg *m)
{
	if (!port_is_slave(p)) {
		return PORT_CNT_WRONG_STATE;
	}
	/* ignore_source_id: a designated slave follows whoever sends Sync (automotive). */
	if (!p->cfg.port.ignore_source_id &&
	    !port_identity_equal(&m->hdr.sourcePortIdentity, &p->pds.parentPortIdentity)) {
		return PORT_CNT_NOT_FROM_PARENT;
	}
	return 0;
}

/* A Sync's logMessageInterval the servo may follow: in range, or none given. */
static bool port_sync_interval_ok(const struct msg *m)
{
	return m->hdr.logMessageInterval == MSG_LOG_INTERVAL_NONE ||
	       ds_log_interval_wire_valid(m->hdr.logMessageInterval);
}

/* The servo's constants follow the Sync interval the master really uses (9.5.9.2). */
static void port_sync_interval_follow(struct port *p, int8_t log_interval)
{
	if (p->servo && log_interval != p->sync.log_interval &&
	    log_interval != MSG_LOG_INTERVAL_NONE) {
		p->sync.log_interval = log_interval;
		servo_set_interval(p->servo, (double) port_log_interval(p->sync.log_interval) /
						     (double) NS_PER_SEC);
	}
}

/*
 * Not a slave (yet), in an active state (port_receive drops the rest): the latest Sync heard, for
 * port_sync_heard_replay (port_sync_heard).
 */
static void port_sync_hear(struct port *p, const struct msg *m, ns_t rx, ns_t corr, ns_t now)
{
	struct port_sync_heard *h = &p->heard;

	h->valid = false;
	h->pending = false;
	if (!port_sync_interval_ok(m)) {
		return;
	}
	h->source = m->hdr.sourcePortIdentity;
	h->seq = m->hdr.sequenceId;
	h->log_interval = m->hdr.logMessageInterval;
	h->t2 = rx;
	h->correction = corr;
	h->at = now;
	if (msg_flag(&m->hdr, MSG_FLAG_TWO_STEP) || p->cfg.port.assume_two_step) {
		h->pending = true;
		return;
	}
	h->valid = port_timestamp_ns(p, &m->body.sync.originTimestamp, &h->t1);
}

/* Its Follow_Up completes a two-step Sync heard (11.3.2 b: the correctionFields add up). */
static void port_follow_up_hear(struct port *p, const struct msg *m)
{
	struct port_sync_heard *h = &p->heard;

	if (!h->pending || h->seq != m->hdr.sequenceId ||
	    !port_identity_equal(&h->source, &m->hdr.sourcePortIdentity)) {
		return;
	}
	h->pending = false;
	h->valid = port_timestamp_ns(p, &m->body.follow_up.preciseOriginTimestamp, &h->t1) &&
		   delay_ns_add(h->correction, correction_to_ns(m->hdr.correctionField),
				&h->correction);
}

int port_sync_heard_replay(struct port *p, ns_t now)
{
	struct port_sync_heard h = p->heard;
	int8_t li;
	ns_t age;

	p->heard.valid = false;
	p->heard.pending = false;
	if (!h.valid || !port_is_slave(p) || p->sync.have_last ||
	    !port_identity_equal(&h.source, &p->pds.parentPortIdentity)) {
		return 0;
	}
	li = h.log_interval != MSG_LOG_INTERVAL_NONE ? h.log_interval : p->portds.logSyncInterval;
	age = now - h.at;
	if (age < 0 || age > port_log_interval(li) / 2) {
		return 0; /* the next Sync is as near: no older measurement for the servo */
	}
	p->sync.have_last = true;
	p->sync.last_seq = h.seq;
	port_sync_interval_follow(p, h.log_interval);
	return port_sync_offset(p, h.t1, h.t2, h.correction, now);
}

/* A Sync or Follow_Up handled in the turn that stepped the clock came before the step. */
static bool port_sync_stale(const struct port *p, ns_t now)
{
	return p->sync.stepped && now == p->sync.step_turn;
}

int port_sync_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now)
{
	uint16_t seq = m->hdr.sequenceId;
	ns_t corr = correction_to_ns(m->hdr.correctionField), t1;
	int r;

	if (port_sync_stale(p, now)) {
		return 0;
	}
	r = port_sync_accept(p, m);
	if (!r) {
		r = port_seq_check(p->sync.have_last, p->sync.last_seq, seq);
	}
	/* The servo's constants follow this interval (below): only one in range may set them. */
	if (!r && !port_sync_interval_ok(m)) {
		r = PORT_CNT_OUT_OF_RANGE;
	}
	if (r) {
		port_count(p, r);
		if (r == PORT_CNT_WRONG_STATE) {
			port_sync_hear(p, m, rx, corr, now);
		}
		return 0;
	}
	p->sync.have_last = true;
	p->sync.last_seq = seq;
	/* hybrid_e2e: the parent's address, where the Delay_Req goes (as ptp4l, its last one). */
	if (p->rx_from) {
		p->parent_address = *p->rx_from;
	}
	port_sync_interval_follow(p, m->hdr.logMessageInterval);
	/* assume_two_step: a Sync without the flag (802.1AS-2011) still has a Follow_Up. */
	if (msg_flag(&m->hdr, MSG_FLAG_TWO_STEP) || p->cfg.port.assume_two_step) {
		struct port_early_follow_up e;

		if (port_early_take(p, seq, &e)) {
			/* Its Follow_Up came first. 11.3.2 b: the two correctionFields add up. */
			p->sync.pending = false;
			if (!delay_ns_add(corr, e.correction, &corr)) {
				port_count(p, PORT_CNT_OVERFLOW);
				return 0;
			}
			return port_sync_offset(p, e.t1, rx, corr, now);
		}
		p->sync.pending = true;
		p->sync.seq = seq;
		p->sync.t2 = rx;
		p->sync.correction = corr;
		return 0;
	}
	/* One-step (11.3.2 a): originTimestamp is t1 itself. */
	p->sync.pending = false;
	if (!port_timestamp_ns(p, &m->body.sync.originTimestamp, &t1)) {
		return 0;
	}
	return port_sync_offset(p, t1, rx, corr, now);
}

int port_follow_up_receive(struct port *p, const struct msg *m, ns_t now)
{
	uint16_t seq = m->hdr.sequenceId;
	ns_t t1, corr;
	int r;

	if (port_sync_stale(p, now)) {
		return 0;
	}
	r = port_sync_accept(p, m);
	if (r) {
		port_count(p, r);
		if (r == PORT_CNT_WRONG_STATE) {
			port_follow_up_hear(p, m);
		}
		return 0;
	}
	if (!p->sync.pending || seq != p->sync.seq) {
		/* Just ahead of the last Sync accepted: its Sync may still come (reordered). */
		if (port_early_plausible(p->sync.have_last, p->sync.last_seq, seq)) {
			port_early_hold(p, m);
			return 0;
		}
		/* The Follow_Up of a Sync already served, or of none we hold. */
		port_count(p, p->sync.have_last && seq == p->sync.last_seq
				      ? PORT_CNT_DUPLICATE_SEQUENCE
				      : PORT_CNT_FOLLOW_UP_WITHOUT_SYNC);
		return 0;
	}
	p->sync.pending = false;
	if (!port_timestamp_ns(p, &m->body.follow_up.preciseOriginTimestamp, &t1)) {
		return 0;
	}
	port_follow_up_info_receive(p, m);
	/* 11.3.2 b: the two correctionFields add up (each up to 2^47 ns, or INT64_MAX). */
	if (!delay_ns_add(p->sync.correction, correction_to_ns(m->hdr.correctionField), &corr)) {
		port_count(p, PORT_CNT_OVERFLOW);
		return 0;
	}
	return port_sync_offset(p, t1, p->sync.t2, corr, now);
}

/*
 * Step the clock (SERVO_JUMP) or set its frequency, reporting what the back end refuses. now: the
 * turn it happens in (port_sync_stale()).
 */
static void port_clock_adjust(struct port *p, enum servo_state st, ns_t offset, double freq,
			      ns_t now)
{
	int r;

	if (st == SERVO_JUMP) {
		struct outlier_gate gate = p->outlier;

		r = clock_step(p->clock, -offset);
		if (r < 0 && p->ops->clock_error) {
			p->ops->clock_error(p->userdata, "step", r);
		}
		/*
		 * Every timestamp taken before the step is on the old timescale now; the gate's
		 * line was moved onto the new one (outlier_gate_step).
		 */
		port_sync_reset(p);
		p->outlier = gate;
		p->sync.stepped = true;
		p->sync.step_turn = now;
	}
	r = clock_adj_freq(p->clock, freq);
	if (r < 0 && p->ops->clock_error) {
		p->ops->clock_error(p->userdata, "adjfreq", r);
	}
}

/* The FSM events the servo's verdict raises (9.2.6.13, 9.2.6.14). */
static enum fsm_event port_servo_event(const struct port *p, enum servo_state st)
{
	if (!p->servo) {
		return p->portds.portState == PORT_STATE_UNCALIBRATED ? FSM_EV_MASTER_CLOCK_SELECTED
								      : FSM_EV_NONE;
	}
	switch (st) {
	case SERVO_LOCKED:
		return p->portds.portState == PORT_STATE_UNCALIBRATED ? FSM_EV_MASTER_CLOCK_SELECTED
								      : FSM_EV_NONE;
	case SERVO_JUMP:
	case SERVO_UNLOCKED:
		return p->portds.portState == PORT_STATE_SLAVE ? FSM_EV_SYNCHRONIZATION_FAULT
							       : FSM_EV_NONE;
	default:
		return FSM_EV_NONE;
	}
}

static void port_sync_hold(struct port *p, ns_t t1, ns_t t2, ns_t correction);

/*
 * The Sync measurement the next E2E delay computation pairs with (11.3.2): the latest one the
 * gate passed, so that a Sync late by a spike does not make a path delay spike too (the median
 * filter of a few samples at the start cannot outvote it).
 */
static void port_sync_pair_keep(struct port *p, ns_t t1, ns_t t2, ns_t correction, ns_t m,
				bool judged)
{
	if (p->sync.have_pair && t2 < p->sync.pair_t2) {
		return; /* an older one, given to the servo late */
	}
	if (p->sync.have_pair) {
		p->sync.have_prev = true;
		p->sync.prev_judged = p->sync.pair_judged;
		p->sync.prev_t2 = p->sync.pair_t2;
		p->sync.prev_m = p->sync.pair_m;
	}
	p->sync.have_pair = true;
	p->sync.pair_judged = judged;
	p->sync.t1 = t1;
	p->sync.pair_t2 = t2;
	p->sync.pair_correction = correction;
	p->sync.pair_m = m;
}
static int port_sync_use(struct port *p, ns_t t1, ns_t t2, ns_t correction, ns_t now);

int port_sync_offset(struct port *p, ns_t t1, ns_t t2, ns_t correction, ns_t now)
{
	unsigned n = p->cfg.port.syncReceiptTimeout;
	ns_t t1c, m, offset;
	int r;

	/*
	 * A master on the PTP timescale (TAI) against our UTC stamps: take the UTC offset off its
	 * times, as linuxptp's clock_utc_correct does for software timestamping. t1 is a Timestamp
	 * (>= 0) and the offset an int16 of seconds: this cannot overflow.
	 */
	if (p->cfg.utc_timescale && p->tpds.ptpTimescale) {
		t1 -= (ns_t) p->tpds.currentUtcOffset * NS_PER_SEC;
	}
	/*
	 * 11.6.2: correctedSyncCorrectionField = correctionField + delayAsymmetry. t1 and the
	 * corrections come from the wire, extreme values included (issue 17, finding 8): checked
	 * arithmetic, and a measurement that does not fit is dropped, counted as overflow. m, the
	 * master-to-slave time t2 - t1 - correction, is what the E2E delay pairs with.
	 */
	if (!delay_ns_add(correction, p->portds.delayAsymmetry, &correction) ||
	    !delay_ns_add(t1, correction, &t1c) || !delay_ns_sub(t2, t1c, &m) ||
	    (p->delay.valid &&
	     delay_offset_from_master(t1, t2, correction, p->delay.value, &offset) < 0)) {
		port_count(p, PORT_CNT_OVERFLOW);
		return 0;
	}

	/* A measurement from the parent: the next is due within n Sync intervals (0: no limit). */
	if (n) {
		ns_t span = port_log_interval(p->portds.logSyncInterval);

		span = span > (INT64_MAX - now) / (ns_t) n ? INT64_MAX - now : span * (ns_t) n;
		port_timer_set(p, PORT_TIMER_SYNC_RX, now + span);
	}

	/*
	 * 11.2 needs the path delay. Until it is measured, hold the measurement: the servo gets it
	 * once the delay is known (its frequency estimate needs two offsets, not the delay), so the
	 * wait for the first Delay_Resp costs no Sync interval. The first Delay_Req goes now: sent
	 * before a Sync was measured, its answer could not be used.
	 */
	if (!p->delay.valid) {
		port_sync_pair_keep(p, t1, t2, correction, m, false);
		port_sync_hold(p, t1, t2, correction);
		r = port_delay_sync_kept(p, t2, m, now);
		if (r < 0 || p->delay.valid) {
			return r; /* the held ones went to the servo */
		}
		if (p->cfg.port.delay_mechanism == DELAY_MECHANISM_E2E && !p->dreq.pending &&
		    p->timer[PORT_TIMER_DELAY_REQ_TX]) {
			port_timer_set(
				p, PORT_TIMER_DELAY_REQ_TX,
				now + port_random_interval(p, p->portds.logMinDelayReqInterval));
			return port_delay_req_send(p, now);
		}
		return 0;
	}
	return port_sync_use(p, t1, t2, correction, now);
}

/* Hold a measurement until the path delay is known; the oldest gives way. */
static void port_sync_hold(struct port *p, ns_t t1, ns_t t2, ns_t correction)
{
	struct port_sync_rx *s = &p->sync;

	if (s->held_n == PORT_SYNC_HELD_MAX) {
		memmove(&s->held[0], &s->held[1], sizeof(s->held[0]) * (PORT_SYNC_HELD_MAX - 1));
		s->held_n--;
	}
	s->held[s->held_n++] = (struct port_sync_pair){ t1, t2, correction };
}

int port_sync_delay_known(struct port *p, ns_t now)
{
	struct port_sync_pair held[PORT_SYNC_HELD_MAX];
	unsigned n = p->sync.held_n;
	int r = 0;

	if (!p->delay.valid || !n || !port_is_slave(p)) {
		return 0;
	}
	memcpy(held, p->sync.held, sizeof(held[0]) * n);
	p->sync.held_n = 0;
	for (unsigned i = 0; i < n && r >= 0; i++) {
		/* A step or a state change (both reset the sync state) ends what is old. */
		if (!p->sync.have_pair || !port_is_slave(p)) {
			break;
		}
		r = port_sync_use(p, held[i].t1, held[i].t2, held[i].correction, now);
	}
	return r;
}

/* The servo answered in this turn (port_sync_use()). */
static void port_sync_answered(struct port *p, ns_t now)
{
	p->sync.answered = true;
	p->sync.answer_turn = now;
}

/* One measurement with the path delay known: the offset, the gate, the servo, the FSM. */
static int port_sync_use(struct port *p, ns_t t1, ns_t t2, ns_t correction, ns_t now)
{
	struct port_sample s = { 0 };
	ns_t t1c, m;
	bool judged, shares;
	int r;

	/* Checked as it came (port_sync_offset), but held ones meet a path delay only now. */
	if (!delay_ns_add(t1, correction, &t1c) || !delay_ns_sub(t2, t1c, &m) ||
	    delay_offset_from_master(t1, t2, correction, p->delay.value, &s.offset) < 0) {
		port_count(p, PORT_CNT_OVERFLOW);
		return 0;
	}
	s.mean_path_delay = p->delay.value;
	s.local_ts = t2;
	p->cds.offsetFromMaster = s.offset;
	/*
	 * The gate decides only what the servo gets: every offset measured is reported (log, IPC,
	 * D-Bus), as linuxptp logs every one, or the figures would hide exactly the spikes the
	 * servo was spared. A sample kept from the servo reports the clock as it stands.
	 */
	/*
	 * Samples read together (a SLAVE worker over L2 at 4 Syncs a second or more reads two Sync
	 * intervals' in one turn): the answer to the one before never acted, so the gate's line
	 * goes on without its bend, and the servo and the gate take what really acted since (the
	 * servo's acting_ppb).
	 */
	shares = p->servo && p->sync.answered && p->sync.answer_turn == now;
	if (shares) {
		outlier_gate_unbend(&p->outlier);
	}
	/* the gate judges once it holds a line (else it passes the sample unjudged) */
	judged = !p->servo || p->outlier.n >= 2;
	/* Its first sample (OUTLIER_PRIME) passes: keeping it cost a second to synchronized. */
	if (p->servo && outlier_gate_judge(&p->outlier, t2, s.offset) == OUTLIER_REJECT) {
		double before = servo_answer(p->servo);

		port_count(p, PORT_CNT_OFFSET_OUTLIER);
		s.servo_state = p->servo_state;
		/* The last sample's phase correction has had its interval: hold the frequency. */
		s.freq_ppb = servo_skip_in_turn(p->servo, t2, shares);
		port_sync_answered(p, now);
		outlier_gate_bend(&p->outlier, t2, s.freq_ppb - p->servo->acting_ppb);
		if (s.freq_ppb != before) {
			port_clock_adjust(p, SERVO_LOCKED, 0, s.freq_ppb, now);
		}
		if (p->ops->sample) {
			p->ops->sample(p->userdata, &s);
		}
		return 0;
	}
	port_sync_pair_keep(p, t1, t2, correction, m, judged);
	r = port_delay_sync_kept(p, t2, m, now);
	if (r < 0) {
		return r;
	}
	if (p->servo) {
		uint64_t refused = p->servo->refused;
		double dppb;

		if (p->outlier.dropped) {
			servo_retract(p->servo);
		}
		p->servo->noise_ns = p->outlier.jitter;
		s.servo_state = servo_sample_in_turn(p->servo, s.offset, t2, shares, &s.freq_ppb);
		port_sync_answered(p, now);
		s.refused = p->servo->refused != refused;
		s.refused_total = p->servo->refused;
		dppb = s.freq_ppb - p->servo->acting_ppb;
		if (s.servo_state == SERVO_JUMP) {
			outlier_gate_step(&p->outlier, s.offset, dppb);
		} else {
			outlier_gate_follow(&p->outlier, s.servo_state, dppb);
		}
		s.adjusted = true;
		port_clock_adjust(p, s.servo_state, s.offset, s.freq_ppb, now);
	} else {
		s.servo_state = SERVO_UNLOCKED;
	}
	p->servo_state = s.servo_state;
	p->sample_seen = true;
	if (p->ops->sample) {
		p->ops->sample(p->userdata, &s);
	}
	r = port_dispatch(p, port_servo_event(p, s.servo_state), false, now);
	/* automotive: the operational intervals once stable (msg_interval_request). */
	port_oper_intervals(p, p->sync.log_interval, now);
	return r;
}
