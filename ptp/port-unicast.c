// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unicast negotiation (IEEE 1588-2019 16.1) in the port engine: the grantee asks the masters of
 * its unicast master table for Announce and, of the one the BMCA made its parent, Sync and
 * Delay_Resp (ptp4l's unicast_client.c does the same); the grantor answers REQUESTs from its
 * bounded table and sends Announce and Sync to each granted peer at its granted period. Every
 * message of the negotiation goes unicast or not at all (port_send_unicast_only()): the machines
 * ask again what could not go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/port-internal.h"

/* Signaling from addresses the grantor holds no place for: per second, and the burst. */
#define PORT_UC_NEW_PEER_RATE 20.0
#define PORT_UC_NEW_PEER_BURST 40.0
/* The durations the grantor grants (s): G.8265.1 asks 60 to 1000, ptp4l's slaves 60 (default). */
#define PORT_UC_MIN_DURATION 10
#define PORT_UC_MAX_DURATION 1000
/* A GRANT that could not go is sent again this much later, until its grant ends. */
#define PORT_UC_GRANT_RETRY (20 * NS_PER_MSEC)

/*
 * A frame's source as a peer of the table: none when it is not one a unicast message could go
 * back to (a group or zero MAC, a multicast or unspecified address: an 802.3 source is never a
 * group, and what would answer it would be sent to the group).
 */
static bool addr_from_port(const struct port_address *a, struct unicast_addr *ret)
{
	return unicast_addr_from_bytes(a->bytes, a->len, ret) == 0;
}

static void addr_to_port(const struct unicast_addr *a, struct port_address *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->len = a->len <= PORT_ADDRESS_MAX ? a->len : 0;
	memcpy(ret->bytes, a->bytes, ret->len);
}

int port_unicast_new(struct port *p)
{
	const struct port_options *o = &p->cfg.port;
	const struct unicast_master_table *t = &o->unicast_table;
	struct port_unicast *uc;
	int r;

	if (!o->unicast_listen && (o->unicast_master_table <= 0 || t->n == 0)) {
		return 0;
	}
	uc = calloc(1, sizeof(*uc));
	if (!uc) {
		return -ENOMEM;
	}
	p->uc = uc;
	uc->parent = -1;
	if (o->unicast_master_table > 0 && t->n > 0) {
		r = unicast_grantee_init(&uc->ge, t->n, (uint32_t) o->unicast_req_duration,
					 t->logQueryInterval);
		if (r < 0) {
			return r;
		}
		uc->grantee_on = true;
	}
	if (o->unicast_listen) {
		struct unicast_grantor_config gc = {
			.family = options_transport_family(p->cfg.port.network_transport),
			.min_duration = PORT_UC_MIN_DURATION,
			.max_duration = PORT_UC_MAX_DURATION,
			.logQueryInterval = t->n > 0 ? t->logQueryInterval : 0,
		};

		for (int mt = 0; mt < UNICAST_MT_N; mt++) {
			gc.min_log_period[mt] = UNICAST_TLV_LOG_PERIOD_MIN;
			gc.max_log_period[mt] = UNICAST_TLV_LOG_PERIOD_MAX;
		}
		gc.serve[UNICAST_MT_ANNOUNCE] = true;
		gc.serve[UNICAST_MT_SYNC] = true;
		gc.serve[UNICAST_MT_DELAY_RESP] = o->delay_mechanism == DELAY_MECHANISM_E2E;
		gc.serve[UNICAST_MT_PDELAY_RESP] = o->delay_mechanism == DELAY_MECHANISM_P2P;
		r = unicast_grantor_new(&gc, o->unicast_peers_max, &uc->gr);
		if (r < 0) {
			return r;
		}
		uc->client = calloc(o->unicast_peers_max, sizeof(*uc->client));
		if (!uc->client) {
			return -ENOMEM;
		}
	}
	return 0;
}

void port_unicast_free(struct port *p)
{
	if (p->uc) {
		unicast_grantor_free(p->uc->gr);
		free(p->uc->client);
		free(p->uc);
		p->uc = NULL;
	}
}

bool port_unicast_inhibits_multicast(const struct port *p)
{
	return p->uc && p->uc->gr && p->cfg.port.inhibit_multicast_service;
}

/* One negotiation TLV in a Signaling message to one peer; what cannot go now is not sent. */
static int send_tlv(struct port *p, const struct port_address *to, const struct unicast_tlv *u,
		    ns_t now)
{
	uint8_t tlv[TLV_HEADER_LEN + UNICAST_TLV_GRANT_LEN];
	struct tlv_builder b;
	struct msg m;

	tlv_builder_init(&b, tlv, sizeof(tlv));
	if (unicast_tlv_build(&b, u) < 0) {
		return 0; /* a machine's action the codec refuses: a bug, nothing to send */
	}
	/* 16.1.4: addressed by the unicast address; the target is every port there. */
	port_signaling_init(p, &m, tlv, tlv_builder_len(&b));
	return port_send_unicast_only(p, &m, to, NULL, PORT_CNT_TX_SIGNALING, now);
}

static const uint16_t act_tlv[] = {
	[UNICAST_ACT_REQUEST] = TLV_REQUEST_UNICAST_TRANSMISSION,
	[UNICAST_ACT_GRANT] = TLV_GRANT_UNICAST_TRANSMISSION,
	[UNICAST_ACT_CANCEL] = TLV_CANCEL_UNICAST_TRANSMISSION,
	[UNICAST_ACT_ACK] = TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION,
};

/* A grantor START or STOP of a flow the port sends itself (Announce, Sync). */
static void grantor_flow(struct port *p, const struct unicast_action *a, ns_t now)
{
	struct port_uc_flow *f;
	int k = a->messageType == MSG_ANNOUNCE ? 0 : a->messageType == MSG_SYNC ? 1 : -1;

	if (k < 0 || a->peer >= p->uc->gr->cap) {
		return; /* Delay_Resp, Pdelay_Resp: answered per request */
	}
	f = &p->uc->client[a->peer].flow[k];
	f->on = a->kind == UNICAST_ACT_START;
	f->log_period = a->log_period;
	f->next = now;
}

/* Carry out what a machine asked: grantor true for the grantor's actions. */
static int perform(struct port *p, struct unicast_actions *out, bool grantor, ns_t now)
{
	int r = 0;

	for (size_t k = 0; k < out->n; k++) {
		const struct unicast_action *a = &out->a[k];
		struct port_address to;
		struct unicast_tlv u = {
			.messageType = a->messageType,
			.logInterMessagePeriod = a->log_period,
			.durationField = a->duration,
			.renewalInvited = a->renewal_invited,
		};
		int q;

		if (a->kind == UNICAST_ACT_START || a->kind == UNICAST_ACT_STOP) {
			if (grantor) {
				grantor_flow(p, a, now);
			}
			continue;
		}
		if (!grantor) {
			addr_to_port(&p->cfg.port.unicast_table.addr[a->peer], &to);
		} else if (a->peer == UNICAST_PEER_SENDER) {
			if (!p->rx_from) {
				continue;
			}
			to = *p->rx_from;
		} else {
			const struct unicast_addr *ua = unicast_grantor_addr(p->uc->gr, a->peer);

			if (!ua) {
				continue;
			}
			addr_to_port(ua, &to);
		}
		if (a->kind != UNICAST_ACT_REQUEST && a->kind != UNICAST_ACT_GRANT) {
			u.logInterMessagePeriod = 0;
			u.durationField = 0;
		}
		u.tlvType = act_tlv[a->kind];
		q = send_tlv(p, &to, &u, now);
		if (q == -ENOTCONN && grantor && a->kind == UNICAST_ACT_GRANT && a->duration > 0 &&
		    a->peer < p->uc->gr->cap) {
			struct port_uc_client *c = &p->uc->client[a->peer];
			int mt = unicast_mt_from_msg_type(a->messageType);

			if (mt >= 0) {
				c->pending |= (uint8_t) (1u << mt);
				c->grant[mt] = u;
				c->retry_at = now + PORT_UC_GRANT_RETRY;
			}
		}
		if (q < 0 && q != -ENOTCONN && r == 0) {
			r = q;
		}
	}
	out->n = 0;
	return r;
}

/* The grantee's entry of addr, -1 when the table does not hold it. */
static int grantee_peer(const struct port *p, const struct port_address *from)
{
	struct unicast_addr a;

	if (!from || !addr_from_port(from, &a)) {
		return -1;
	}
	return unicast_table_find(&p->cfg.port.unicast_table, &a);
}

void port_unicast_announce_heard(struct port *p, const struct msg *m)
{
	int i;

	if (!p->uc || !p->uc->grantee_on) {
		return;
	}
	i = grantee_peer(p, p->rx_from);
	if (i >= 0) {
		p->uc->heard[i] = true;
		p->uc->heard_from[i] = m->hdr.sourcePortIdentity;
	}
}

/* The grantee: may m, from p->rx_from, be taken (16.1: what the port negotiated, from whom)? */
static bool grantee_admits(const struct port *p, const struct msg *m)
{
	const struct PortIdentity *from = &m->hdr.sourcePortIdentity;
	int i = grantee_peer(p, p->rx_from);
	enum msg_type t = m->hdr.messageType;

	if (i < 0) {
		return false; /* from no master of the table (or from no address at all) */
	}
	/* Announce: any master of the table, from the port its grants are bound to if any. */
	if (t == MSG_ANNOUNCE) {
		return unicast_grantee_bound_to(&p->uc->ge, (size_t) i, from);
	}
	/* Sync and Follow_Up, Delay_Resp: under a running grant of their type, from its grantor. */
	return unicast_grantee_granted(&p->uc->ge, (size_t) i, t == MSG_FOLLOW_UP ? MSG_SYNC : t,
				       from);
}

/*
 * The grantor: a Delay_Req from the address of a client is answered only under that client's
 * Delay_Resp grant, from its portIdentity; one from an address without a client is not the
 * negotiation's (hybrid_e2e, a multicast slave) and is answered as before.
 */
static bool grantor_admits(const struct port *p, const struct msg *m)
{
	struct unicast_addr a;
	bool holds, granted;

	if (!p->rx_from || !addr_from_port(p->rx_from, &a)) {
		return true;
	}
	granted = unicast_grantor_granted(p->uc->gr, &a, &m->hdr.sourcePortIdentity, MSG_DELAY_RESP,
					  &holds);
	return granted || !holds;
}

bool port_unicast_admits(struct port *p, const struct msg *m)
{
	enum msg_type t = m->hdr.messageType;
	bool ok = true;

	if (!p->uc) {
		return true;
	}
	if (p->uc->grantee_on &&
	    (t == MSG_ANNOUNCE || t == MSG_SYNC || t == MSG_FOLLOW_UP || t == MSG_DELAY_RESP)) {
		ok = grantee_admits(p, m);
	} else if (p->uc->gr && t == MSG_DELAY_REQ) {
		ok = grantor_admits(p, m);
	}
	if (!ok) {
		p->uc->not_granted++;
	}
	return ok;
}

static bool rate_ok(struct port_unicast *uc, ns_t now)
{
	if (!uc->bucket_started) {
		uc->bucket_started = true;
		token_bucket_fill(&uc->new_peers, PORT_UC_NEW_PEER_BURST, now);
	}
	return token_bucket_take(&uc->new_peers, PORT_UC_NEW_PEER_RATE, PORT_UC_NEW_PEER_BURST,
				 now);
}

static bool grantor_holds(const struct unicast_grantor *gr, const struct unicast_addr *a)
{
	for (size_t i = 0; i < gr->cap; i++) {
		const struct unicast_addr *h = unicast_grantor_addr(gr, i);

		if (h && unicast_addr_equal(h, a)) {
			return true;
		}
	}
	return false;
}

/* One TLV: a REQUEST (or a CANCEL, ACK of its client) to the grantor, the rest to the grantee. */
static int take_tlv(struct port *p, const struct PortIdentity *from, const struct unicast_tlv *t,
		    ns_t now)
{
	struct port_unicast *uc = p->uc;
	struct unicast_actions out = { .n = 0 };
	struct unicast_addr a;
	int peer = grantee_peer(p, p->rx_from);
	bool from_master = uc->grantee_on && peer >= 0;

	if (t->tlvType == TLV_REQUEST_UNICAST_TRANSMISSION ||
	    (!from_master && t->tlvType != TLV_GRANT_UNICAST_TRANSMISSION)) {
		if (!uc->gr || !p->rx_from || !addr_from_port(p->rx_from, &a)) {
			/* A grantee's CANCEL from no master of its table: counted and dropped. */
			if (t->tlvType == TLV_CANCEL_UNICAST_TRANSMISSION) {
				uc->cancel_unknown++;
			}
			return PORT_CNT_UNSUPPORTED;
		}
		if (!grantor_holds(uc->gr, &a) && !rate_ok(uc, now)) {
			uc->rate_limited++;
			return 0;
		}
		(void) unicast_grantor_receive(uc->gr, &a, from, t, now, &out);
		return perform(p, &out, true, now);
	}
	if (!from_master) {
		return PORT_CNT_UNSUPPORTED; /* a GRANT from no master of the table */
	}
	(void) unicast_grantee_receive(&uc->ge, (size_t) peer, from, t, now, &out);
	return perform(p, &out, false, now);
}

int port_unicast_signaling(struct port *p, const struct msg *m, ns_t now)
{
	const struct PortIdentity *target = &m->body.signaling.targetPortIdentity;
	struct unicast_tlv_set set;
	struct PortIdentity all;
	int r = 0;

	if (!p->uc) {
		return -ENOMSG;
	}
	if (unicast_tlv_set_parse(m, &set) < 0) {
		return -ENOMSG; /* a broken suffix: the other Signaling handler counts it */
	}
	p->uc->malformed_tlv += set.malformed;
	if (set.n == 0) {
		return set.malformed ? PORT_CNT_MALFORMED : -ENOMSG;
	}
	memset(&all, 0xff, sizeof(all));
	if (!port_identity_equal(target, &all) &&
	    !port_identity_equal(target, &p->portds.portIdentity)) {
		return PORT_CNT_UNSUPPORTED;
	}
	/* 16.1.1: negotiation is between unicast addresses; a message without one is none's. */
	if (!p->rx_from) {
		return PORT_CNT_UNSUPPORTED;
	}
	for (size_t k = 0; k < set.n; k++) {
		int q = take_tlv(p, &m->hdr.sourcePortIdentity, &set.tlv[k], now);

		if (q && !r) {
			r = q;
		}
	}
	return r > 0 ? r : 0;
}

/* The grantee's Sync and Delay_Resp follow the parent the BMCA chose among its masters. */
static int grantee_follow_parent(struct port *p, ns_t now)
{
	struct port_unicast *uc = p->uc;
	struct unicast_actions out = { .n = 0 };
	const struct port_options *o = &p->cfg.port;
	enum msg_type resp = o->delay_mechanism == DELAY_MECHANISM_E2E ? MSG_DELAY_RESP
								       : MSG_PDELAY_RESP;
	int8_t resp_period = o->delay_mechanism == DELAY_MECHANISM_E2E
				     ? p->portds.logMinDelayReqInterval
				     : p->portds.logMinPdelayReqInterval;
	int want = -1, r;

	if (port_is_slave(p)) {
		for (size_t i = 0; i < uc->ge.n_peers; i++) {
			if (uc->heard[i] &&
			    port_identity_equal(&uc->heard_from[i], &p->pds.parentPortIdentity)) {
				want = (int) i;
				break;
			}
		}
	}
	if (want == uc->parent) {
		return 0;
	}
	if (uc->parent >= 0) {
		(void) unicast_grantee_want(&uc->ge, (size_t) uc->parent, MSG_SYNC, false, 0, now,
					    &out);
		(void) unicast_grantee_want(&uc->ge, (size_t) uc->parent, resp, false, 0, now,
					    &out);
	}
	uc->parent = want;
	if (want >= 0) {
		addr_to_port(&o->unicast_table.addr[want], &p->parent_address);
		(void) unicast_grantee_want(&uc->ge, (size_t) want, MSG_SYNC, true,
					    p->portds.logSyncInterval, now, &out);
		(void) unicast_grantee_want(&uc->ge, (size_t) want, resp, true, resp_period, now,
					    &out);
	}
	r = perform(p, &out, false, now);
	return r;
}

static int grantee_tick(struct port *p, ns_t now)
{
	struct port_unicast *uc = p->uc;
	struct unicast_actions out = { .n = 0 };
	int r = 0, q;

	if (!uc->started) {
		uc->started = true;
		for (size_t i = 0; i < uc->ge.n_peers; i++) {
			(void) unicast_grantee_want(&uc->ge, i, MSG_ANNOUNCE, true,
						    p->portds.logAnnounceInterval, now, &out);
			q = perform(p, &out, false, now);
			r = r ? r : q;
		}
	}
	q = grantee_follow_parent(p, now);
	r = r ? r : q;
	do {
		q = unicast_grantee_tick(&uc->ge, now, &out);
		int s = perform(p, &out, false, now);

		r = r ? r : s;
	} while (q == 1);
	return r;
}

/* The GRANTs of client c that could not go yet: 0 when none is left, else -ENOTCONN or < 0. */
static int grants_again(struct port *p, struct port_uc_client *c, const struct port_address *to,
			ns_t now)
{
	int r;

	if (!c->pending) {
		return 0;
	}
	if (now < c->retry_at) {
		return -ENOTCONN;
	}
	for (int mt = 0; mt < UNICAST_MT_N; mt++) {
		if (!(c->pending & (1u << mt))) {
			continue;
		}
		r = send_tlv(p, to, &c->grant[mt], now);
		if (r < 0) {
			c->retry_at = now + PORT_UC_GRANT_RETRY;
			return r;
		}
		c->pending &= (uint8_t) ~(1u << mt);
	}
	return 0;
}

/* Announce and Sync to each granted peer, at its period, while the port is MASTER. */
static int grantor_send_flows(struct port *p, ns_t now)
{
	struct port_unicast *uc = p->uc;
	int r = 0, q;

	for (size_t i = 0; i < uc->gr->cap; i++) {
		const struct unicast_addr *ua = unicast_grantor_addr(uc->gr, i);
		struct port_uc_client *c = &uc->client[i];
		struct port_address to;

		if (!ua) {
			c->pending = 0;
			continue;
		}
		addr_to_port(ua, &to);
		q = grants_again(p, c, &to, now);
		if (q < 0) {
			if (q != -ENOTCONN && r == 0) {
				r = q;
			}
			continue;
		}
		for (int k = 0; k < 2; k++) {
			struct port_uc_flow *f = &c->flow[k];
			ns_t period = port_log_interval(f->log_period);
			if (!f->on || now < f->next) {
				continue;
			}
			f->next = f->next + period > now ? f->next + period : now + period;
			if (p->portds.portState != PORT_STATE_MASTER) {
				continue;
			}
			q = k == 0 ? port_announce_send_to(p, &to, f->log_period, now)
				   : port_sync_send_to(p, &to, f->log_period, now);
			if (q < 0 && r == 0) {
				r = q;
			}
		}
	}
	return r;
}

static int grantor_tick(struct port *p, ns_t now)
{
	struct unicast_actions out = { .n = 0 };
	int r = 0, q, s;

	do {
		q = unicast_grantor_tick(p->uc->gr, now, &out);
		s = perform(p, &out, true, now);
		r = r ? r : s;
	} while (q == 1);
	s = grantor_send_flows(p, now);
	return r ? r : s;
}

int port_unicast_tick(struct port *p, ns_t now)
{
	int r = 0, q;

	if (!p->uc || !port_is_active(p)) {
		return 0;
	}
	if (p->uc->grantee_on) {
		r = grantee_tick(p, now);
	}
	if (p->uc->gr) {
		q = grantor_tick(p, now);
		r = r ? r : q;
	}
	return r;
}

ns_t port_unicast_next(const struct port *p)
{
	const struct port_unicast *uc = p->uc;
	ns_t next = INT64_MAX, t;

	if (!uc || !port_is_active(p)) {
		return INT64_MAX;
	}
	if (uc->grantee_on) {
		if (!uc->started) {
			return 1; /* at once */
		}
		next = unicast_grantee_next(&uc->ge);
		/* The parent may change with any decision: looked at each announce interval. */
		t = p->timer[PORT_TIMER_BMCA];
		if (t && t < next) {
			next = t;
		}
	}
	if (uc->gr) {
		t = unicast_grantor_next(uc->gr);
		next = t < next ? t : next;
		for (size_t i = 0; i < uc->gr->cap; i++) {
			const struct port_uc_client *c = &uc->client[i];

			if (c->pending && c->retry_at < next) {
				next = c->retry_at;
			}
			for (int k = 0; k < 2; k++) {
				const struct port_uc_flow *f = &c->flow[k];

				if (f->on && f->next < next) {
					next = f->next;
				}
			}
		}
	}
	return next;
}

int port_shutdown(struct port *p, ns_t now)
{
	struct unicast_actions out = { .n = 0 };
	int r = 0, q, s;

	if (!p->uc) {
		return 0;
	}
	if (p->uc->grantee_on) {
		do {
			q = unicast_grantee_shutdown(&p->uc->ge, now, &out);
			s = perform(p, &out, false, now);
			r = r ? r : s;
		} while (q == 1);
	}
	if (p->uc->gr) {
		do {
			q = unicast_grantor_cancel_all(p->uc->gr, now, &out);
			s = perform(p, &out, true, now);
			r = r ? r : s;
		} while (q == 1);
	}
	return r;
}

const char *port_unicast_counter_to_string(enum port_unicast_counter c)
{
	static const char *const names[_PORT_UC_MAX] = {
		[PORT_UC_REQUESTS_SENT] = "requests_sent",
		[PORT_UC_GRANTS_RECEIVED] = "grants_received",
		[PORT_UC_DENIALS_RECEIVED] = "denials_received",
		[PORT_UC_GRANTS_GIVEN] = "grants_given",
		[PORT_UC_DENIED_TYPE] = "denied_type",
		[PORT_UC_DENIED_NOT_ALLOWED] = "denied_not_allowed",
		[PORT_UC_DENIED_PERIOD] = "denied_period",
		[PORT_UC_DENIED_DURATION] = "denied_duration",
		[PORT_UC_DENIED_TABLE_FULL] = "denied_table_full",
		[PORT_UC_CANCELS_RECEIVED] = "cancels_received",
		[PORT_UC_CANCELS_UNKNOWN] = "cancels_unknown",
		[PORT_UC_EXPIRIES] = "expiries",
		[PORT_UC_MALFORMED_TLV] = "malformed_tlv",
		[PORT_UC_RATE_LIMITED] = "rate_limited",
		[PORT_UC_FORGED] = "forged",
		[PORT_UC_NOT_GRANTED] = "not_granted",
	};

	return (unsigned) c < _PORT_UC_MAX ? names[c] : NULL;
}

void port_unicast_counters(const struct port *p, uint64_t ret[_PORT_UC_MAX])
{
	const struct port_unicast *uc = p->uc;

	memset(ret, 0, _PORT_UC_MAX * sizeof(ret[0]));
	if (!uc) {
		return;
	}
	ret[PORT_UC_MALFORMED_TLV] = uc->malformed_tlv;
	ret[PORT_UC_RATE_LIMITED] = uc->rate_limited;
	ret[PORT_UC_NOT_GRANTED] = uc->not_granted;
	ret[PORT_UC_CANCELS_UNKNOWN] = uc->cancel_unknown;
	if (uc->grantee_on) {
		const struct unicast_grantee_stats *g = &uc->ge.stats;

		ret[PORT_UC_REQUESTS_SENT] = g->requests;
		ret[PORT_UC_GRANTS_RECEIVED] = g->grants;
		ret[PORT_UC_DENIALS_RECEIVED] = g->denials;
		ret[PORT_UC_CANCELS_RECEIVED] += g->cancels;
		ret[PORT_UC_EXPIRIES] += g->expiries;
		ret[PORT_UC_FORGED] += g->forged;
	}
	if (uc->gr) {
		const struct unicast_grantor_stats *s = &uc->gr->stats;

		ret[PORT_UC_GRANTS_GIVEN] = s->grants + s->renewals;
		ret[PORT_UC_DENIED_TYPE] = s->denied[UNICAST_DENIED_TYPE];
		ret[PORT_UC_DENIED_NOT_ALLOWED] = s->denied[UNICAST_DENIED_NOT_ALLOWED];
		ret[PORT_UC_DENIED_PERIOD] = s->denied[UNICAST_DENIED_PERIOD];
		ret[PORT_UC_DENIED_DURATION] = s->denied[UNICAST_DENIED_DURATION];
		ret[PORT_UC_DENIED_TABLE_FULL] = s->denied[UNICAST_DENIED_TABLE_FULL];
		ret[PORT_UC_CANCELS_RECEIVED] += s->cancels;
		ret[PORT_UC_CANCELS_UNKNOWN] += s->cancel_unknown;
		ret[PORT_UC_EXPIRIES] += s->expiries;
		ret[PORT_UC_FORGED] += s->forged;
	}
}

const char *port_uc_role_to_string(enum port_uc_role r)
{
	static const char *const names[] = {
		[PORT_UC_GRANTEE] = "grantee",
		[PORT_UC_GRANTOR] = "grantor",
	};

	return (unsigned) r < _PORT_UC_ROLE_MAX ? names[r] : NULL;
}

const char *port_uc_state_to_string(enum port_uc_state s)
{
	static const char *const names[] = {
		[PORT_UC_NONE] = "none",
		[PORT_UC_REQUESTED] = "requested",
		[PORT_UC_DENIED] = "denied",
		[PORT_UC_GRANTED] = "granted",
		[PORT_UC_CANCELLING] = "cancelling",
	};

	return (unsigned) s < _PORT_UC_STATE_MAX ? names[s] : NULL;
}

/* Whole seconds from now to until, 0 when past, at most INT32_MAX. */
static uint32_t seconds_left(ns_t until, ns_t now)
{
	ns_t left = until > now ? (until - now) / NS_PER_SEC : 0;

	return left > INT32_MAX ? INT32_MAX : (uint32_t) left;
}

static void grantee_entry(const struct unicast_grantee_slot *s, ns_t now, struct port_uc_grant *g)
{
	static const enum port_uc_state states[] = {
		[UNICAST_GRANTEE_IDLE] = PORT_UC_NONE,
		[UNICAST_GRANTEE_WAITING] = PORT_UC_REQUESTED,
		[UNICAST_GRANTEE_BACKOFF] = PORT_UC_DENIED,
		[UNICAST_GRANTEE_GRANTED] = PORT_UC_GRANTED,
		[UNICAST_GRANTEE_CANCELLING] = PORT_UC_CANCELLING,
	};

	g->state = states[s->state];
	g->log_period = s->state == UNICAST_GRANTEE_GRANTED ? s->log_period : s->want_period;
	g->seconds_left = s->state == UNICAST_GRANTEE_GRANTED ? seconds_left(s->expires, now) : 0;
}

static void grantor_entry(const struct unicast_grantor_flow *f, ns_t now, struct port_uc_grant *g)
{
	g->state = f->cancelling ? PORT_UC_CANCELLING : f->granted ? PORT_UC_GRANTED : PORT_UC_NONE;
	g->log_period = g->state == PORT_UC_NONE ? 0 : f->log_period;
	g->seconds_left = g->state == PORT_UC_GRANTED ? seconds_left(f->expires, now) : 0;
}

size_t port_unicast_table(const struct port *p, ns_t now, struct port_uc_entry *ret, size_t max)
{
	const struct port_unicast *uc = p->uc;
	size_t n = 0;

	if (!uc) {
		return 0;
	}
	for (size_t i = 0; uc->grantee_on && i < uc->ge.n_peers; i++, n++) {
		if (n >= max) {
			continue;
		}
		ret[n] = (struct port_uc_entry){ .addr = p->cfg.port.unicast_table.addr[i],
						 .role = PORT_UC_GRANTEE };
		for (int k = 0; k < UNICAST_MT_N; k++) {
			grantee_entry(&uc->ge.slot[i][k], now, &ret[n].mt[k]);
		}
	}
	for (size_t i = 0; uc->gr && i < uc->gr->cap; i++) {
		const struct unicast_grantor_client *c = &uc->gr->client[i];

		if (!c->used) {
			continue;
		}
		if (n < max) {
			ret[n] = (struct port_uc_entry){ .addr = c->addr, .role = PORT_UC_GRANTOR };
			for (int k = 0; k < UNICAST_MT_N; k++) {
				grantor_entry(&c->flow[k], now, &ret[n].mt[k]);
			}
		}
		n++;
	}
	return n;
}
