/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The port engine's core: lifecycle, receive filtering and dispatch, timers, accessors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/port-internal.h"
#include "ptp/transport.h"

/* Room for any message the engine sends: an Announce (64 octets) with a path trace of 9. */
#define PORT_FRAME_MAX 256
/*
 * A sequenceId this far behind the last accepted one is a replay or a reordered frame; further
 * back it is a sender that restarted its counter, accepted so a restart cannot lock us out for
 * 32768 messages.
 */
#define PORT_SEQ_STALE_WINDOW 16

/* Names within, not pointers: a table of pointers is relocated data, copied by each worker. */
static const char counter_names[_PORT_CNT_MAX][32] = {
	[PORT_CNT_RX_ANNOUNCE] = "rx_announce",
	[PORT_CNT_RX_SYNC] = "rx_sync",
	[PORT_CNT_RX_FOLLOW_UP] = "rx_follow_up",
	[PORT_CNT_RX_DELAY_REQ] = "rx_delay_req",
	[PORT_CNT_RX_DELAY_RESP] = "rx_delay_resp",
	[PORT_CNT_RX_PDELAY_REQ] = "rx_pdelay_req",
	[PORT_CNT_RX_PDELAY_RESP] = "rx_pdelay_resp",
	[PORT_CNT_RX_PDELAY_RESP_FOLLOW_UP] = "rx_pdelay_resp_follow_up",
	[PORT_CNT_TX_ANNOUNCE] = "tx_announce",
	[PORT_CNT_TX_SYNC] = "tx_sync",
	[PORT_CNT_TX_FOLLOW_UP] = "tx_follow_up",
	[PORT_CNT_TX_DELAY_REQ] = "tx_delay_req",
	[PORT_CNT_TX_DELAY_RESP] = "tx_delay_resp",
	[PORT_CNT_TX_PDELAY_REQ] = "tx_pdelay_req",
	[PORT_CNT_TX_PDELAY_RESP] = "tx_pdelay_resp",
	[PORT_CNT_TX_PDELAY_RESP_FOLLOW_UP] = "tx_pdelay_resp_follow_up",
	[PORT_CNT_RX_SIGNALING] = "rx_signaling",
	[PORT_CNT_TX_SIGNALING] = "tx_signaling",
	[PORT_CNT_TX_ERROR] = "tx_error",
	[PORT_CNT_PDELAY_NO_RESPONSE] = "pdelay_no_response",
	[PORT_CNT_OFFSET_OUTLIER] = "offset_outlier",
	[PORT_CNT_MALFORMED] = "malformed",
	[PORT_CNT_OTHER_DOMAIN] = "other_domain",
	[PORT_CNT_OWN_FRAME] = "own_frame",
	[PORT_CNT_UNSUPPORTED] = "unsupported",
	[PORT_CNT_NO_TIMESTAMP] = "no_timestamp",
	[PORT_CNT_WRONG_STATE] = "wrong_state",
	[PORT_CNT_NOT_FROM_PARENT] = "not_from_parent",
	[PORT_CNT_FOLLOW_UP_WITHOUT_SYNC] = "follow_up_without_sync",
	[PORT_CNT_DUPLICATE_SEQUENCE] = "duplicate_sequence",
	[PORT_CNT_STALE_SEQUENCE] = "stale_sequence",
	[PORT_CNT_DELAY_RESP_OTHER_PORT] = "delay_resp_other_port",
	[PORT_CNT_PDELAY_OTHER_PORT] = "pdelay_other_port",
	[PORT_CNT_ANNOUNCE_REJECTED] = "announce_rejected",
	[PORT_CNT_BAD_TIMESTAMP] = "bad_timestamp",
	[PORT_CNT_VLAN_TAGGED] = "vlan_tagged",
	[PORT_CNT_NOT_ACCEPTABLE_MASTER] = "not_acceptable_master",
	[PORT_CNT_OUT_OF_RANGE] = "out_of_range",
	[PORT_CNT_OVERFLOW] = "overflow",
	[PORT_CNT_MGMT_RATE_LIMITED] = "management_rate_limited",
	[PORT_CNT_NOT_AS_CAPABLE] = "not_as_capable",
	[PORT_CNT_PATH_TRACE_LOOP] = "path_trace_loop",
};

static const char as_capable_reason_names[][48] = {
	[PORT_AS_CAPABLE_OK] = "ok",
	[PORT_AS_CAPABLE_NOT_MEASURED] = "no peer delay and neighborRateRatio measured",
	[PORT_AS_CAPABLE_DELAY_ABOVE] = "peer delay above neighborPropDelayThresh",
	[PORT_AS_CAPABLE_DELAY_BELOW] = "peer delay below min_neighbor_prop_delay",
	[PORT_AS_CAPABLE_LOST_RESPONSES] = "more than 3 Pdelay_Req in a row unanswered",
	[PORT_AS_CAPABLE_MULTIPLE_RESPONDERS] = "several Pdelay responders, 3 times in a row",
};

const char *port_as_capable_reason_to_string(enum port_as_capable_reason r)
{
	if ((unsigned) r >= ARRAY_SIZE(as_capable_reason_names)) {
		return NULL;
	}
	return as_capable_reason_names[r][0] ? as_capable_reason_names[r] : NULL;
}

const char *port_counter_to_string(enum port_counter c)
{
	if ((unsigned) c >= _PORT_CNT_MAX) {
		return NULL;
	}
	return counter_names[c][0] ? counter_names[c] : NULL;
}

void port_config_default(struct port_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	options_instance_defaults(&cfg->instance);
	options_port_defaults(&cfg->port);
	cfg->portNumber = 1;
	cfg->utc_timescale = true;
	cfg->adjust_clock = true;
}

void port_count(struct port *p, enum port_counter c)
{
	p->counters[c]++;
}

ns_t port_log_interval(int8_t log_interval)
{
	return ds_log_interval_to_ns(log_interval);
}

/* xorshift64*: a PRNG per port, so tests are reproducible and ports independent. */
static uint64_t port_random(struct port *p)
{
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return p->rng * UINT64_C(2685821657736338717);
}

ns_t port_random_interval(struct port *p, int8_t log_interval)
{
	ns_t span = 2 * port_log_interval(log_interval);

	/*
	 * Never a modulus of 0 (a Delay_Resp's logMessageInterval of -30 once made it one: SIGFPE),
	 * whatever interval reaches here.
	 */
	if (span < 2) {
		span = 2;
	}
	return (ns_t) (port_random(p) % (uint64_t) span);
}

void port_timer_set(struct port *p, enum port_timer t, ns_t when)
{
	/* 0 means stopped, so a deadline at time 0 is moved to the first instant after it. */
	p->timer[t] = when == 0 ? 1 : when;
}

void port_timer_stop(struct port *p, enum port_timer t)
{
	p->timer[t] = 0;
}

bool port_local_time(struct port *p, ns_t raw, ns_t *ret)
{
	if (clock_from_raw(p->clock, raw, ret) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return false;
	}
	return true;
}

bool port_timestamp_ns(struct port *p, const struct Timestamp *ts, ns_t *ret)
{
	if (timestamp_to_ns(ts, ret) < 0) {
		port_count(p, PORT_CNT_BAD_TIMESTAMP);
		return false;
	}
	return true;
}

int port_seq_check(bool have_last, uint16_t last, uint16_t seq)
{
	int16_t d;

	if (!have_last) {
		return 0;
	}
	/* 7.3.7: sequenceIds wrap at 2^16, so compare as a signed distance. */
	d = (int16_t) (uint16_t) (seq - last);
	if (d == 0) {
		return PORT_CNT_DUPLICATE_SEQUENCE;
	}
	if (d < 0 && d > -PORT_SEQ_STALE_WINDOW) {
		return PORT_CNT_STALE_SEQUENCE;
	}
	return 0;
}

bool port_is_slave(const struct port *p)
{
	return p->portds.portState == PORT_STATE_SLAVE ||
	       p->portds.portState == PORT_STATE_UNCALIBRATED;
}

bool port_is_active(const struct port *p)
{
	switch (p->portds.portState) {
	case PORT_STATE_INITIALIZING:
	case PORT_STATE_FAULTY:
	case PORT_STATE_DISABLED:
		return false;
	default:
		return true;
	}
}

void port_msg_init(const struct port *p, struct msg *m, enum msg_type type, uint16_t seq)
{
	memset(m, 0, sizeof(*m));
	msg_header_init(&m->hdr, type, p->dds.domainNumber, &p->portds.portIdentity, seq);
	m->hdr.majorSdoId = (p->dds.sdoId >> 8) & 0x0f;
	m->hdr.minorSdoId = p->dds.sdoId & 0xff;
}

void port_signaling_init(struct port *p, struct msg *m, const uint8_t *tlv, size_t tlv_len)
{
	port_msg_init(p, m, MSG_SIGNALING, p->seq_signaling++);
	memset(&m->body.signaling.targetPortIdentity, 0xff,
	       sizeof(m->body.signaling.targetPortIdentity));
	m->tlv = tlv;
	m->tlv_len = tlv_len;
}

/* Build m and send it to the group (pdelay: the peer delay one) or, to set, to that peer. */
static int port_send_to(struct port *p, const struct msg *m, bool pdelay,
			const struct port_address *to, ns_t *ret_tx_ts, enum port_counter tx_cnt,
			ns_t now)
{
	uint8_t buf[PORT_FRAME_MAX];
	ssize_t n;
	int r;

	n = msg_build(m, buf, sizeof(buf));
	if (n < 0) {
		/* Our own message does not encode: a bug, not the peer's fault. */
		return (int) n;
	}
	if (to) {
		r = p->ops->send_unicast(p->userdata, buf, (size_t) n, to, ret_tx_ts != NULL,
					 ret_tx_ts);
	} else {
		r = p->ops->send(p->userdata, buf, (size_t) n, pdelay, ret_tx_ts != NULL,
				 ret_tx_ts);
	}
	if (r == -ENOTCONN && to) {
		return r;
	}
	if (r < 0) {
		port_count(p, PORT_CNT_TX_ERROR);
		/* 9.2.6.2: a port that cannot transmit (or timestamp) is faulty. */
		port_dispatch(p, FSM_EV_FAULT_DETECTED, false, now);
		return r;
	}
	/* ptp4l's egressLatency: the frame leaves the reference plane that much after its stamp. */
	if (ret_tx_ts) {
		*ret_tx_ts += p->cfg.port.egressLatency;
	}
	port_count(p, tx_cnt);
	return 0;
}

int port_send(struct port *p, const struct msg *m, bool pdelay, ns_t *ret_tx_ts,
	      enum port_counter tx_cnt, ns_t now)
{
	return port_send_to(p, m, pdelay, NULL, ret_tx_ts, tx_cnt, now);
}

int port_send_unicast_only(struct port *p, struct msg *m, const struct port_address *to,
			   ns_t *ret_tx_ts, enum port_counter tx_cnt, ns_t now)
{
	if (!to || to->len == 0 || !p->ops->send_unicast) {
		return -ENOTCONN;
	}
	/* IEEE 1588-2019 13.3.2.8 Table 37: unicastFlag, the message goes to one port. */
	m->hdr.flagField |= MSG_FLAG_UNICAST;
	return port_send_to(p, m, false, to, ret_tx_ts, tx_cnt, now);
}

int port_send_unicast(struct port *p, struct msg *m, const struct port_address *to, ns_t *ret_tx_ts,
		      enum port_counter tx_cnt, ns_t now)
{
	int r = port_send_unicast_only(p, m, to, ret_tx_ts, tx_cnt, now);

	if (r != -ENOTCONN) {
		return r;
	}
	m->hdr.flagField &= (uint16_t) ~MSG_FLAG_UNICAST;
	return port_send_to(p, m, false, NULL, ret_tx_ts, tx_cnt, now);
}

void port_message_counts(const struct port *p, uint64_t rx[16], uint64_t tx[16])
{
	static const struct {
		enum port_counter rx, tx;
		uint8_t type;
	} map[] = {
		{ PORT_CNT_RX_SYNC, PORT_CNT_TX_SYNC, MSG_SYNC },
		{ PORT_CNT_RX_DELAY_REQ, PORT_CNT_TX_DELAY_REQ, MSG_DELAY_REQ },
		{ PORT_CNT_RX_PDELAY_REQ, PORT_CNT_TX_PDELAY_REQ, MSG_PDELAY_REQ },
		{ PORT_CNT_RX_PDELAY_RESP, PORT_CNT_TX_PDELAY_RESP, MSG_PDELAY_RESP },
		{ PORT_CNT_RX_FOLLOW_UP, PORT_CNT_TX_FOLLOW_UP, MSG_FOLLOW_UP },
		{ PORT_CNT_RX_DELAY_RESP, PORT_CNT_TX_DELAY_RESP, MSG_DELAY_RESP },
		{ PORT_CNT_RX_PDELAY_RESP_FOLLOW_UP, PORT_CNT_TX_PDELAY_RESP_FOLLOW_UP,
		  MSG_PDELAY_RESP_FOLLOW_UP },
		{ PORT_CNT_RX_ANNOUNCE, PORT_CNT_TX_ANNOUNCE, MSG_ANNOUNCE },
		{ PORT_CNT_RX_SIGNALING, PORT_CNT_TX_SIGNALING, MSG_SIGNALING },
	};

	memset(rx, 0, 16 * sizeof(rx[0]));
	memset(tx, 0, 16 * sizeof(tx[0]));
	for (size_t k = 0; k < ARRAY_SIZE(map); k++) {
		rx[map[k].type] = port_get_counter(p, map[k].rx);
		tx[map[k].type] = port_get_counter(p, map[k].tx);
	}
}

const struct port_options *port_get_options(const struct port *p)
{
	return &p->cfg.port;
}

const struct instance_options *port_get_instance_options(const struct port *p)
{
	return &p->cfg.instance;
}

int port_new(const struct port_config *cfg, struct clock *clock, const struct port_ops *ops,
	     void *userdata, struct port **ret)
{
	_cleanup_free_ struct port *p = NULL;
	const struct instance_options *io = &cfg->instance;
	const struct port_options *po = &cfg->port;
	struct servo_config sc;
	double freq = 0.0;
	int r;

	if (!clock || !ops || !ops->send) {
		return -EINVAL;
	}
	if (po->delay_mechanism != DELAY_MECHANISM_E2E &&
	    po->delay_mechanism != DELAY_MECHANISM_P2P) {
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		return -ENOMEM;
	}
	p->cfg = *cfg;
	p->clock = clock;
	p->ops = ops;
	p->userdata = userdata;
	if (po->BMCA == OPTIONS_BMCA_NOOP) {
		/* Static roles (ptp4l's designated master and slave): masterOnly or slaveOnly. */
		if (po->masterOnly == io->slaveOnly) {
			return -EINVAL;
		}
		p->fsm = po->masterOnly ? fsm_next_designated_master : fsm_next_designated_slave;
	} else if (io->slaveOnly) {
		p->fsm = fsm_next_slave_only;
	} else if (!io->gmCapable) {
		p->fsm = fsm_next_not_gm_capable;
	} else {
		p->fsm = fsm_next;
	}
	p->rng = cfg->seed ^ UINT64_C(0x9e3779b97f4a7c15);
	for (size_t i = 0; i < sizeof(cfg->clockIdentity.id); i++) {
		p->rng = p->rng * 131 + cfg->clockIdentity.id[i];
	}
	if (p->rng == 0) {
		p->rng = 1;
	}

	/* IEEE 1588-2019 8.2.1: a worker's clock has this one port. */
	port_default_ds_update(p);

	/* IEEE 1588-2019 8.2.15 */
	p->portds.portIdentity.clockIdentity = cfg->clockIdentity;
	p->portds.portIdentity.portNumber = cfg->portNumber;
	p->portds.portState = PORT_STATE_INITIALIZING;
	p->portds.logMinDelayReqInterval = po->logMinDelayReqInterval;
	p->portds.logAnnounceInterval = po->logAnnounceInterval;
	p->portds.announceReceiptTimeout = po->announceReceiptTimeout;
	p->portds.logSyncInterval = po->logSyncInterval;
	p->portds.delayMechanism = po->delay_mechanism;
	p->portds.logMinPdelayReqInterval = po->logMinPdelayReqInterval;
	p->portds.versionNumber = MSG_VERSION_PTP;
	p->portds.delayAsymmetry = po->delayAsymmetry;

	/*
	 * 8.2.3: the clock starts as its own parent, so that management answers name it rather
	 * than zeros. A supervised port holds its Announces until the supervisor's decision brings
	 * the clock's data sets (parent_valid).
	 */
	bmca_update_master(&p->dds, &p->cds, &p->pds);
	port_own_time_properties(p, &p->tpds);
	/* A designated master is its own grandmaster from the start: no decision will come. */
	p->parent_valid = po->BMCA == OPTIONS_BMCA_NOOP && po->masterOnly;
	/* Without 802.1AS's rules (or with asCapable true) the link is taken as capable. */
	p->asc.value = !port_runs_as_capable(p);
	p->asc.why = p->asc.value ? PORT_AS_CAPABLE_OK : PORT_AS_CAPABLE_NOT_MEASURED;
	bmca_foreign_init(&p->foreign, &p->portds.portIdentity, po->logAnnounceInterval);
	p->foreign.rules = (struct bmca_foreign_rules){
		.comparison = io->dataset_comparison,
		.localPriority = po->localPriority,
		.maxStepsRemoved = io->maxStepsRemoved,
		.clockClassThreshold = io->clock_class_threshold,
	};
	r = delay_filter_init(&p->delay.filter, DELAY_FILTER_MEDIAN, DELAY_FILTER_DEFAULT_LENGTH);
	if (r < 0) {
		return r;
	}
	p->pdreq.nrr = 1.0;
	p->upstream_rate_ratio = 1.0;
	r = port_unicast_new(p);
	if (r < 0) {
		port_unicast_free(p);
		return r;
	}

	if (cfg->adjust_clock) {
		servo_config_from_options(&io->servo, cfg->utc_timescale, &sc);
		sc.first_step_taken = cfg->clock_locked_before;
		if (clock->max_freq_ppb > 0 && sc.max_freq_ppb > clock->max_freq_ppb) {
			sc.max_freq_ppb = clock->max_freq_ppb;
		}
		/* Start from the clock's present frequency, so a restart keeps what was learnt. */
		if (clock_get_freq(clock, &freq) < 0) {
			freq = 0.0;
		}
		r = servo_new(&sc, freq, &p->servo);
		if (r < 0) {
			port_unicast_free(p);
			return r;
		}
		p->sync.log_interval = po->logSyncInterval;
		servo_set_interval(p->servo, (double) port_log_interval(po->logSyncInterval) /
						     (double) NS_PER_SEC);
	}
	*ret = TAKE_PTR(p);
	return 0;
}

struct port *port_free(struct port *p)
{
	if (p) {
		servo_free(p->servo);
		port_unicast_free(p);
		free(p);
	}
	return NULL;
}

int port_start(struct port *p, ns_t now)
{
	if (p->portds.portState != PORT_STATE_INITIALIZING) {
		return -EALREADY;
	}
	return port_dispatch(p, FSM_EV_NONE, false, now);
}

int port_fault(struct port *p, ns_t now)
{
	return port_dispatch(p, FSM_EV_FAULT_DETECTED, false, now);
}

/* The filters every frame passes before a handler sees it; returns the counter that drops it. */
static int port_filter(struct port *p, const struct msg *m)
{
	uint16_t sdo = (uint16_t) ((m->hdr.majorSdoId << 8) | m->hdr.minorSdoId);

	/* 7.1: another domain (or sdoId) is another PTP network sharing the wire. */
	if (m->hdr.domainNumber != p->dds.domainNumber || sdo != p->dds.sdoId) {
		return PORT_CNT_OTHER_DOMAIN;
	}
	/* 9.5.2.2: our own messages looped back (or forged with our identity). */
	if (clock_identity_equal(&m->hdr.sourcePortIdentity.clockIdentity, &p->dds.clockIdentity)) {
		return PORT_CNT_OWN_FRAME;
	}
	return 0;
}

static int port_receive_msg(struct port *p, const void *buf, size_t len, ns_t rx_ts, ns_t now);

int port_receive(struct port *p, const void *buf, size_t len, ns_t rx_ts, ns_t now)
{
	return port_receive_from(p, buf, len, rx_ts, NULL, now);
}

int port_receive_from(struct port *p, const void *buf, size_t len, ns_t rx_ts,
		      const struct port_address *from, ns_t now)
{
	int r;

	/* Only for the handlers of this frame: the pointer is the caller's. */
	p->rx_from = from && from->len > 0 && from->len <= PORT_ADDRESS_MAX ? from : NULL;
	r = port_receive_msg(p, buf, len, rx_ts, now);
	p->rx_from = NULL;
	return r;
}

static int port_receive_msg(struct port *p, const void *buf, size_t len, ns_t rx_ts, ns_t now)
{
	struct msg m;
	ns_t rx = 0;
	int r;

	if (!port_is_active(p)) {
		port_count(p, PORT_CNT_WRONG_STATE);
		return 0;
	}
	if (msg_parse(buf, len, &m) < 0) {
		port_count(p, PORT_CNT_MALFORMED);
		return 0;
	}
	r = port_filter(p, &m);
	if (r) {
		port_count(p, r);
		return 0;
	}
	if (msg_type_is_event(m.hdr.messageType)) {
		if (rx_ts == PORT_TS_NONE) {
			port_count(p, PORT_CNT_NO_TIMESTAMP);
			return 0;
		}
		/* ptp4l's ingressLatency: the stamp came that much after the reference plane. */
		if (!port_local_time(p, rx_ts - p->cfg.port.ingressLatency, &rx)) {
			return 0;
		}
	}

	/* 802.1AS-2020 clause 10: time and Announce are taken only over an asCapable link. */
	if (!p->asc.value && (m.hdr.messageType == MSG_ANNOUNCE || m.hdr.messageType == MSG_SYNC ||
			      m.hdr.messageType == MSG_FOLLOW_UP)) {
		port_count(p, PORT_CNT_NOT_AS_CAPABLE);
		return 0;
	}

	switch (m.hdr.messageType) {
	case MSG_ANNOUNCE:
		port_count(p, PORT_CNT_RX_ANNOUNCE);
		if (!port_unicast_admits(p, &m)) {
			return 0;
		}
		port_unicast_announce_heard(p, &m);
		return port_announce_receive(p, &m, now);
	case MSG_SYNC:
		port_count(p, PORT_CNT_RX_SYNC);
		return port_unicast_admits(p, &m) ? port_sync_receive(p, &m, rx, now) : 0;
	case MSG_FOLLOW_UP:
		port_count(p, PORT_CNT_RX_FOLLOW_UP);
		return port_unicast_admits(p, &m) ? port_follow_up_receive(p, &m, now) : 0;
	case MSG_DELAY_REQ:
		port_count(p, PORT_CNT_RX_DELAY_REQ);
		return port_unicast_admits(p, &m) ? port_delay_req_receive(p, &m, rx, now) : 0;
	case MSG_DELAY_RESP:
		port_count(p, PORT_CNT_RX_DELAY_RESP);
		return port_unicast_admits(p, &m) ? port_delay_resp_receive(p, &m, now) : 0;
	case MSG_PDELAY_REQ:
		port_count(p, PORT_CNT_RX_PDELAY_REQ);
		return port_pdelay_req_receive(p, &m, rx, now);
	case MSG_PDELAY_RESP:
		port_count(p, PORT_CNT_RX_PDELAY_RESP);
		return port_pdelay_resp_receive(p, &m, rx, now);
	case MSG_PDELAY_RESP_FOLLOW_UP:
		port_count(p, PORT_CNT_RX_PDELAY_RESP_FOLLOW_UP);
		return port_pdelay_resp_follow_up_receive(p, &m, now);
	case MSG_SIGNALING:
		/* One counter per frame: rx_signaling when used, else the reason it was not. */
		r = port_unicast_signaling(p, &m, now);
		if (r == -ENOMSG) {
			r = port_signaling_receive(p, &m, now);
		}
		port_count(p, r ? r : PORT_CNT_RX_SIGNALING);
		return 0;
	case MSG_MANAGEMENT:
		if (p->ops->management) {
			p->ops->management(p->userdata, buf, len);
			return 0;
		}
		port_count(p, PORT_CNT_UNSUPPORTED);
		return 0;
	default:
		port_count(p, PORT_CNT_UNSUPPORTED);
		return 0;
	}
}

int port_count_ignored(struct port *p, enum port_counter c)
{
	if (c != PORT_CNT_VLAN_TAGGED && c != PORT_CNT_MGMT_RATE_LIMITED &&
	    c != PORT_CNT_UNSUPPORTED) {
		return -EINVAL;
	}
	port_count(p, c);
	return 0;
}

/* 9.2.6.12: the parent (or every foreign master) fell silent. */
static int port_announce_timeout(struct port *p, ns_t now)
{
	int r;

	bmca_announce_timer_stop(&p->announce_timer);
	/* Its records would qualify it again for the rest of the window (linuxptp: fc_clear). */
	bmca_foreign_clear(&p->foreign);
	/*
	 * Supervised, the data sets may name the parent that fell silent: no Announce goes out
	 * until the supervisor decided again (it hears of the new state and the lost Erbest).
	 */
	if (p->cfg.external_bmca) {
		p->parent_valid = false;
	}
	r = port_dispatch(p, FSM_EV_ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES, false, now);
	if (r < 0) {
		return r;
	}
	/* Now alone: the decision makes us grandmaster (M1/M2) and updates the data sets. */
	return port_state_decision(p, now);
}

/* Re-arm a periodic timer a period after its last deadline, or after now if we fell behind. */
static void port_timer_rearm(struct port *p, enum port_timer t, ns_t last, ns_t period, ns_t now)
{
	ns_t next = last + period;

	port_timer_set(p, t, next > now ? next : now + period);
}

static int port_run_timer(struct port *p, enum port_timer t, ns_t deadline, ns_t now)
{
	const struct port_options *o = &p->cfg.port;

	switch (t) {
	case PORT_TIMER_ANNOUNCE_TX:
		port_timer_rearm(p, t, deadline, port_log_interval(p->portds.logAnnounceInterval),
				 now);
		return port_announce_send(p, now);
	case PORT_TIMER_SYNC_TX:
		port_timer_rearm(p, t, deadline, port_log_interval(p->portds.logSyncInterval), now);
		return port_sync_send(p, now);
	case PORT_TIMER_DELAY_REQ_TX:
		/*
		 * 9.5.11.2: uniformly random, mean 2^logMinDelayReqInterval, counted from the
		 * deadline: sent up to its slack late, the next is not, and the rate stays.
		 */
		port_timer_rearm(p, t, deadline,
				 port_random_interval(p, p->portds.logMinDelayReqInterval), now);
		return port_delay_req_send(p, now);
	case PORT_TIMER_PDELAY_REQ_TX:
		port_timer_rearm(p, t, deadline,
				 port_log_interval(p->portds.logMinPdelayReqInterval), now);
		return port_pdelay_req_send(p, now);
	case PORT_TIMER_QUALIFICATION:
		return port_dispatch(p, FSM_EV_QUALIFICATION_TIMEOUT_EXPIRES, false, now);
	case PORT_TIMER_BMCA:
		port_timer_rearm(p, t, deadline, port_log_interval(o->logAnnounceInterval), now);
		return port_state_decision(p, now);
	case PORT_TIMER_FAULT_RESET:
		/* 9.2.6.3: FAULTY -> INITIALIZING, which moves on to LISTENING by itself. */
		return port_dispatch(p, FSM_EV_FAULT_CLEARED, false, now);
	case PORT_TIMER_SYNC_RX:
		return port_sync_timeout(p, now);
	default:
		return 0;
	}
}

int port_tick(struct port *p, ns_t now)
{
	int r = 0, k;

	for (int t = 0; t < _PORT_TIMER_MAX; t++) {
		ns_t deadline = p->timer[t];

		/* A handler may stop or move timers: look at each one fresh. */
		if (!deadline || deadline > now) {
			continue;
		}
		port_timer_stop(p, t);
		k = port_run_timer(p, t, deadline, now);
		if (k < 0 && r == 0) {
			r = k;
		}
	}
	if (bmca_announce_timer_expired(&p->announce_timer, now)) {
		k = port_announce_timeout(p, now);
		if (k < 0 && r == 0) {
			r = k;
		}
	}
	k = port_unicast_tick(p, now);
	return r ? r : k;
}

/*
 * How late a timer may run. The periodic state decision (9.2.6.8) only looks again at what the
 * Announces already told us: it may wait up to half its period for a wakeup that a frame brings
 * anyway (a Sync comes at least once an Announce interval), instead of waking the worker 4 times
 * a second on its own at the fast rates; linuxptp decides only when an Announce changed
 * something. At 4 Syncs a second or more, where every other Follow_Up wakes a worker over L2,
 * up to two and a half Sync intervals if that is more, and at most one and a half periods (at
 * Announce 4/s and Sync 8/s 312 ms of a 250 ms period: half of it left the worker a timer wakeup
 * of its own between two Follow_Ups' every period). A slave's Delay_Req may wait up to two Sync
 * intervals for the wakeup a Follow_Up brings (over L2 every other one at 4 Syncs a second or more:
 * transport-l2.c), when that is at most a quarter of the mean Delay_Req interval: late by at most
 * that quarter, still at a random time, and at the same rate (port_run_timer() counts the next one
 * from the deadline); a separate wakeup for it was one in nine of a SLAVE worker's at Sync 8/s. The
 * receipt timeouts, the other messages we send and the fault reset keep their time.
 */
/* Does only every other Follow_Up wake a SLAVE worker (over L2: transport_l2_filter())? */
static bool port_follow_ups_halved(const struct port *p)
{
	return p->cfg.port.network_transport == OPTIONS_TRANSPORT_L2 &&
	       p->portds.logSyncInterval >= TRANSPORT_L2_HALVED_LOG_SYNC_MIN &&
	       p->portds.logSyncInterval <= TRANSPORT_L2_HALVED_LOG_SYNC_MAX;
}

static ns_t port_timer_slack(const struct port *p, enum port_timer t)
{
	ns_t sync = port_log_interval(p->portds.logSyncInterval), half, late;
	/* how far apart the Follow_Ups that wake a SLAVE worker come */
	ns_t wakeups = port_follow_ups_halved(p) ? 2 * sync : sync;

	switch (t) {
	case PORT_TIMER_BMCA:
		half = port_log_interval(p->cfg.port.logAnnounceInterval) / 2;
		late = port_follow_ups_halved(p) ? wakeups + sync / 2 : 0;
		late = late < 3 * half ? late : 3 * half;
		return late > half ? late : half;
	case PORT_TIMER_DELAY_REQ_TX:
		return wakeups <= port_log_interval(p->portds.logMinDelayReqInterval) / 4 ? wakeups
											  : 0;
	default:
		return 0;
	}
}

static ns_t port_next(const struct port *p, bool slack)
{
	ns_t next = INT64_MAX;

	for (int t = 0; t < _PORT_TIMER_MAX; t++) {
		ns_t d = p->timer[t] && slack ? p->timer[t] + port_timer_slack(p, t) : p->timer[t];

		if (d && d < next) {
			next = d;
		}
	}
	if (p->announce_timer.running && p->announce_timer.deadline < next) {
		next = p->announce_timer.deadline;
	}
	if (port_unicast_next(p) < next) {
		next = port_unicast_next(p);
	}
	return next;
}

ns_t port_next_deadline(const struct port *p)
{
	return port_next(p, true);
}

ns_t port_next_due(const struct port *p)
{
	return port_next(p, false);
}

enum port_state port_get_state(const struct port *p)
{
	return p->portds.portState;
}

uint64_t port_get_counter(const struct port *p, enum port_counter c)
{
	if ((unsigned) c >= _PORT_CNT_MAX) {
		return 0;
	}
	return p->counters[c];
}

const struct defaultDS *port_default_ds(const struct port *p)
{
	return &p->dds;
}

const struct currentDS *port_current_ds(const struct port *p)
{
	return &p->cds;
}

const struct parentDS *port_parent_ds(const struct port *p)
{
	return &p->pds;
}

const struct timePropertiesDS *port_time_properties_ds(const struct port *p)
{
	return &p->tpds;
}

const struct portDS *port_port_ds(const struct port *p)
{
	return &p->portds;
}

enum servo_state port_servo_state(const struct port *p)
{
	return p->servo_state;
}

bool port_as_capable(const struct port *p)
{
	return p->asc.value;
}

bool port_servo_stable(const struct port *p)
{
	/* without a servo (free running) LOCKED only says the offsets are measured */
	return p->servo ? p->servo_state == SERVO_LOCKED && servo_stable(p->servo)
			: p->servo_state == SERVO_LOCKED;
}
