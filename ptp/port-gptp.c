/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IEEE 802.1AS (gPTP) and its automotive profile on top of the 1588 engine: the path trace TLV
 * (1588-2019 16.2, 802.1AS-2020 10.3.8.23), the Follow_Up information TLV (11.4.4.3), the
 * message interval request TLV in Signaling (802.1AS-2011 10.5.4.3, as linuxptp's
 * msg_interval_request) and the switch to the operational intervals once the servo is stable.
 */
#include <math.h>
#include <string.h>

#include "ptp/num.h"
#include "ptp/port-internal.h"
#include "ptp/tlv.h"

/* 802.1AS-2011 10.5.4.3: organizationSubType of the message interval request TLV. */
#define TLV_ORG_802_1AS_INTERVAL_REQUEST 2
#define INTERVAL_REQUEST_DATA_LEN 6 /* three intervals, flags, two reserved octets */
/* 802.1AS 10.5.4.3.x: the special interval values. */
#define INTERVAL_NO_CHANGE (-128)
#define INTERVAL_SET_INITIAL 126
#define INTERVAL_STOP 127
/* 802.1AS-2020 11.4.4.3.6: cumulativeScaledRateOffset = (rateRatio - 1) * 2^41. */
#define RATE_OFFSET_SCALE 2199023255552.0

/* ---- path trace ---- */

static struct port_foreign_path *foreign_path_find(struct port *p, const struct PortIdentity *id)
{
	for (unsigned i = 0; i < BMCA_FOREIGN_MAX; i++) {
		if (p->fpath[i].used && port_identity_equal(&p->fpath[i].sender, id)) {
			return &p->fpath[i];
		}
	}
	return NULL;
}

int port_path_trace_receive(struct port *p, const struct msg *m)
{
	struct port_path_trace path = { 0 };
	struct port_foreign_path *fp;
	struct tlv_iter it;
	struct tlv t;
	int r;

	if (!p->cfg.port.path_trace_enabled) {
		return 0;
	}
	tlv_iter_init(&it, m->tlv, m->tlv_len);
	TLV_FOREACH (r, &it, &t) {
		struct tlv_path_trace pt;

		if (t.tlvType != TLV_PATH_TRACE || tlv_path_trace_parse(&t, &pt) < 0) {
			continue;
		}
		for (size_t i = 0; i < pt.count; i++) {
			struct ClockIdentity id;

			tlv_path_trace_get(&pt, i, &id);
			/* 16.2.3 / 802.1AS-2020 10.3.11.2.1: our own identity: a loop, dropped. */
			if (clock_identity_equal(&id, &p->dds.clockIdentity)) {
				return PORT_CNT_PATH_TRACE_LOOP;
			}
			if (path.n < PORT_PATH_TRACE_MAX) {
				path.ids[path.n++] = id;
			} else {
				path.overflow = true;
			}
		}
		break;
	}
	fp = foreign_path_find(p, &m->hdr.sourcePortIdentity);
	if (!fp) {
		fp = &p->fpath[p->fpath_next];
		p->fpath_next = (p->fpath_next + 1) % BMCA_FOREIGN_MAX;
		fp->used = true;
		fp->sender = m->hdr.sourcePortIdentity;
	}
	fp->path = path;
	/* The parent's path is the clock's (a lone port relays nothing, but stays consistent). */
	if (port_is_slave(p) &&
	    port_identity_equal(&m->hdr.sourcePortIdentity, &p->pds.parentPortIdentity)) {
		p->parent_path = path;
	}
	return 0;
}

void port_path_trace_of(struct port *p, const struct PortIdentity *sender,
			struct port_path_trace *ret)
{
	const struct port_foreign_path *fp = foreign_path_find(p, sender);

	if (fp) {
		*ret = fp->path;
	} else {
		memset(ret, 0, sizeof(*ret));
	}
}

ssize_t port_path_trace_tlv(const struct port *p, uint8_t *buf, size_t size)
{
	struct ClockIdentity ids[PORT_PATH_TRACE_MAX + 1];
	const struct port_path_trace *pp = &p->parent_path;
	struct tlv_builder b;
	size_t n = 0;
	bool gm = clock_identity_equal(&p->pds.grandmasterIdentity, &p->dds.clockIdentity);

	if (!p->cfg.port.path_trace_enabled) {
		return 0;
	}
	/* 802.1AS-2020 10.3.8.23: a path that does not fit is not sent at all. */
	if (!gm && pp->overflow) {
		return 0;
	}
	if (!gm) {
		memcpy(ids, pp->ids, pp->n * sizeof(ids[0]));
		n = pp->n;
	}
	ids[n++] = p->dds.clockIdentity;
	tlv_builder_init(&b, buf, size);
	if (tlv_builder_add_path_trace(&b, ids, n) < 0) {
		return 0;
	}
	return (ssize_t) tlv_builder_len(&b);
}

/* ---- Follow_Up information TLV ---- */

ssize_t port_follow_up_info_tlv(const struct port *p, uint8_t *buf, size_t size)
{
	struct tlv_follow_up_info f = { 0 };
	struct tlv_builder b;
	bool gm = clock_identity_equal(&p->pds.grandmasterIdentity, &p->dds.clockIdentity);

	/*
	 * A grandmaster's rate is its own (0). A boundary clock relays the grandmaster's rate over
	 * its own clock, as its SLAVE port measured it (11.4.4.3.6; port_gm_rate_ratio()).
	 */
	if (!gm && p->gm_rate_ratio != 0.0) {
		double v = (p->gm_rate_ratio - 1.0) * RATE_OFFSET_SCALE;

		f.cumulativeScaledRateOffset = (int32_t) num_max(
			INT32_MIN, num_min(INT32_MAX, num_llround(v)));
	}
	tlv_builder_init(&b, buf, size);
	if (tlv_builder_add_follow_up_info(&b, &f) < 0) {
		return -1;
	}
	return (ssize_t) tlv_builder_len(&b);
}

void port_follow_up_info_receive(struct port *p, const struct msg *m)
{
	struct tlv_iter it;
	struct tlv t;
	int r;

	if (!p->cfg.port.follow_up_info) {
		return;
	}
	tlv_iter_init(&it, m->tlv, m->tlv_len);
	TLV_FOREACH (r, &it, &t) {
		struct tlv_follow_up_info f;

		if (tlv_follow_up_info_parse(&t, &f) == 0) {
			double ratio = 1.0 +
				       (double) f.cumulativeScaledRateOffset / RATE_OFFSET_SCALE;

			/* Beyond any two clocks' (B.1.1): the last sane rate stays. */
			if (fabs(ratio - 1.0) > PORT_FOLLOW_UP_RATE_MAX_DEVIATION) {
				port_count(p, PORT_CNT_OUT_OF_RANGE);
				return;
			}
			p->upstream_rate_ratio = ratio;
			return;
		}
	}
	/* A master without the TLV: its rate is taken as its own. */
	p->upstream_rate_ratio = 1.0;
}

double port_gm_rate_ratio(const struct port *p)
{
	if (!port_is_slave(p) || !p->asc.nrr_valid) {
		return 0.0;
	}
	/*
	 * 802.1AS-2020 11.4.4.3.6 / 10.2.8.1.4: the upstream rateRatio times our link's; each is
	 * bounded where it entered, their product here.
	 */
	return num_max(1.0 - PORT_RATE_RATIO_MAX_DEVIATION,
		       num_min(1.0 + PORT_RATE_RATIO_MAX_DEVIATION,
			       p->upstream_rate_ratio * p->pdreq.nrr));
}

void port_set_gm_rate_ratio(struct port *p, double ratio)
{
	p->gm_rate_ratio = fabs(ratio - 1.0) <= PORT_RATE_RATIO_MAX_DEVIATION ? ratio : 0.0;
}

/* ---- message interval request (Signaling) ---- */

int port_interval_request_send(struct port *p, int8_t sync_interval, ns_t now)
{
	uint8_t data[INTERVAL_REQUEST_DATA_LEN] = { 0 };
	struct tlv_org_ext o = {
		.tlvType = TLV_ORGANIZATION_EXTENSION,
		.organizationId = TLV_ORG_IEEE_802_1,
		.organizationSubType = TLV_ORG_802_1AS_INTERVAL_REQUEST,
		.data = data,
		.data_len = sizeof(data),
	};
	uint8_t tlv[32];
	struct tlv_builder b;
	struct msg m;

	data[0] = (uint8_t) INTERVAL_NO_CHANGE; /* linkDelayInterval */
	data[1] = (uint8_t) sync_interval;	/* timeSyncInterval */
	data[2] = (uint8_t) INTERVAL_NO_CHANGE; /* announceInterval */
	tlv_builder_init(&b, tlv, sizeof(tlv));
	if (tlv_builder_add_org_ext(&b, &o) < 0) {
		return 0;
	}
	/* 7.5.2.4: all ones, every port: the designated master's identity is not known. */
	port_signaling_init(p, &m, tlv, tlv_builder_len(&b));
	return port_send(p, &m, false, NULL, PORT_CNT_TX_SIGNALING, now);
}

/* An interval of a request applied to *cur: the special values, or -7..7; false otherwise. */
static bool interval_take(int8_t v, int8_t initial, int8_t *cur, bool *stop)
{
	if (v == INTERVAL_NO_CHANGE) {
		return true;
	}
	if (v == INTERVAL_SET_INITIAL) {
		*cur = initial;
		*stop = false;
		return true;
	}
	if (v == INTERVAL_STOP) {
		*stop = true;
		return true;
	}
	if (v < -7 || v > 7) {
		return false;
	}
	*cur = v;
	*stop = false;
	return true;
}

int port_signaling_receive(struct port *p, const struct msg *m, ns_t now)
{
	const struct PortIdentity *target = &m->body.signaling.targetPortIdentity;
	struct PortIdentity all;
	struct tlv_iter it;
	struct tlv t;
	bool used = false;
	int r;

	/*
	 * The message interval request is 802.1AS's (10.6.4.3), between the two ends of a link:
	 * only a port that runs 802.1AS (transportSpecific 1 and follow_up_info) takes one. A port
	 * of a 1588 profile takes none: else any host on a shared segment could stop its master's
	 * Sync (interval 127) with one Signaling message.
	 */
	if (p->cfg.port.transportSpecific != 1 || !p->cfg.port.follow_up_info) {
		return PORT_CNT_UNSUPPORTED;
	}
	memset(&all, 0xff, sizeof(all));
	if (!port_identity_equal(target, &all) &&
	    !port_identity_equal(target, &p->portds.portIdentity)) {
		return PORT_CNT_UNSUPPORTED;
	}
	tlv_iter_init(&it, m->tlv, m->tlv_len);
	TLV_FOREACH (r, &it, &t) {
		struct tlv_org_ext o;
		int8_t link, sync, ann;
		int8_t pdelay = p->portds.logMinPdelayReqInterval;
		int8_t sync_iv = p->portds.logSyncInterval;
		int8_t ann_iv = p->portds.logAnnounceInterval;
		bool pdelay_stop = p->pdelay_stopped, sync_stop = p->sync_stopped;
		bool ann_stop = false;

		if (tlv_org_ext_parse(&t, &o) < 0 || t.tlvType != TLV_ORGANIZATION_EXTENSION ||
		    o.organizationId != TLV_ORG_IEEE_802_1 ||
		    o.organizationSubType != TLV_ORG_802_1AS_INTERVAL_REQUEST) {
			continue;
		}
		if (o.data_len < INTERVAL_REQUEST_DATA_LEN) {
			return PORT_CNT_MALFORMED;
		}
		link = (int8_t) o.data[0];
		sync = (int8_t) o.data[1];
		ann = (int8_t) o.data[2];
		if (!interval_take(link, p->cfg.port.logMinPdelayReqInterval, &pdelay,
				   &pdelay_stop) ||
		    !interval_take(sync, p->cfg.port.logSyncInterval, &sync_iv, &sync_stop) ||
		    !interval_take(ann, p->cfg.port.logAnnounceInterval, &ann_iv, &ann_stop)) {
			return PORT_CNT_MALFORMED;
		}
		p->portds.logMinPdelayReqInterval = pdelay;
		p->pdelay_stopped = pdelay_stop;
		p->portds.logAnnounceInterval = ann_iv;
		if (sync_iv != p->portds.logSyncInterval || sync_stop != p->sync_stopped) {
			p->portds.logSyncInterval = sync_iv;
			p->sync_stopped = sync_stop;
			/* The new interval from the next Sync on. */
			if (p->portds.portState == PORT_STATE_MASTER && !sync_stop) {
				port_timer_set(p, PORT_TIMER_SYNC_TX,
					       now + port_log_interval(sync_iv));
			}
			if (p->ops->interval_changed) {
				p->ops->interval_changed(p->userdata, sync_iv, sync_stop);
			}
		}
		used = true;
	}
	if (r < 0) {
		return PORT_CNT_MALFORMED;
	}
	return used ? 0 : PORT_CNT_UNSUPPORTED;
}

void port_oper_intervals(struct port *p, int8_t sync_log_interval, ns_t now)
{
	const struct port_options *o = &p->cfg.port;

	if (!o->msg_interval_request || !p->servo) {
		return;
	}
	if (!p->oper_intervals) {
		if (p->portds.portState != PORT_STATE_SLAVE || !port_servo_stable(p)) {
			return;
		}
		/* Locked and stable: the operational intervals, Sync asked of the master. */
		p->oper_intervals = true;
		p->portds.logMinPdelayReqInterval = o->operLogPdelayReqInterval;
		p->portds.logSyncInterval = o->operLogSyncInterval;
		(void) port_interval_request_send(p, o->operLogSyncInterval, now);
		if (p->ops->interval_changed) {
			p->ops->interval_changed(p->userdata, o->operLogSyncInterval, false);
		}
		return;
	}
	if (sync_log_interval != MSG_LOG_INTERVAL_NONE &&
	    sync_log_interval != o->operLogSyncInterval) {
		/* The master forgot the request (it restarted): start over from the initial ones.
		 */
		port_oper_intervals_reset(p);
		if (p->servo) {
			servo_reset(p->servo);
		}
		(void) port_dispatch(p, FSM_EV_SYNCHRONIZATION_FAULT, false, now);
	}
}

void port_oper_intervals_reset(struct port *p)
{
	if (!p->oper_intervals) {
		return;
	}
	p->oper_intervals = false;
	p->portds.logMinPdelayReqInterval = p->cfg.port.logMinPdelayReqInterval;
	p->portds.logSyncInterval = p->cfg.port.logSyncInterval;
}
