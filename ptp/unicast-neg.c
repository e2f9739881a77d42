// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 16.1 unicast negotiation: the grantee's and the grantor's machines, pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/ds.h"
#include "ptp/unicast-neg.h"

static const enum msg_type mt_types[UNICAST_MT_N] = {
	[UNICAST_MT_ANNOUNCE] = MSG_ANNOUNCE,
	[UNICAST_MT_SYNC] = MSG_SYNC,
	[UNICAST_MT_DELAY_RESP] = MSG_DELAY_RESP,
	[UNICAST_MT_PDELAY_RESP] = MSG_PDELAY_RESP,
};

int unicast_mt_from_msg_type(enum msg_type t)
{
	for (int i = 0; i < UNICAST_MT_N; i++) {
		if (mt_types[i] == t) {
			return i;
		}
	}
	return -EINVAL;
}

enum msg_type unicast_mt_to_msg_type(enum unicast_mt mt)
{
	return mt_types[mt];
}

const char *unicast_action_kind_to_string(enum unicast_action_kind k)
{
	static const char *const names[] = {
		[UNICAST_ACT_REQUEST] = "REQUEST", [UNICAST_ACT_GRANT] = "GRANT",
		[UNICAST_ACT_CANCEL] = "CANCEL",   [UNICAST_ACT_ACK] = "ACKNOWLEDGE_CANCEL",
		[UNICAST_ACT_START] = "START",	   [UNICAST_ACT_STOP] = "STOP",
	};

	return (unsigned) k < ARRAY_SIZE(names) ? names[k] : NULL;
}

const char *unicast_grantee_state_to_string(enum unicast_grantee_state s)
{
	static const char *const names[] = {
		[UNICAST_GRANTEE_IDLE] = "IDLE",
		[UNICAST_GRANTEE_WAITING] = "WAITING",
		[UNICAST_GRANTEE_BACKOFF] = "BACKOFF",
		[UNICAST_GRANTEE_GRANTED] = "GRANTED",
		[UNICAST_GRANTEE_CANCELLING] = "CANCELLING",
	};

	return (unsigned) s < ARRAY_SIZE(names) ? names[s] : NULL;
}

const char *unicast_grantor_denial_to_string(enum unicast_grantor_denial d)
{
	static const char *const names[] = {
		[UNICAST_DENIED_TYPE] = "type",
		[UNICAST_DENIED_NOT_ALLOWED] = "not_allowed",
		[UNICAST_DENIED_PERIOD] = "period",
		[UNICAST_DENIED_DURATION] = "duration",
		[UNICAST_DENIED_TABLE_FULL] = "table_full",
	};

	return (unsigned) d < ARRAY_SIZE(names) ? names[d] : NULL;
}

/* now + d without overflow (a deadline past INT64_MAX is never). */
static ns_t add_ns(ns_t now, ns_t d)
{
	return d > INT64_MAX - now ? INT64_MAX : now + d;
}

static ns_t seconds(uint32_t s)
{
	return (ns_t) s * NS_PER_SEC;
}

static bool room(const struct unicast_actions *out, size_t k)
{
	return out->n + k <= UNICAST_ACTIONS_MAX;
}

/* Callers check room() first: an event makes at most two actions, a timer step as many. */
static void push(struct unicast_actions *out, enum unicast_action_kind kind, size_t peer,
		 enum unicast_mt mt, int8_t log_period, uint32_t duration)
{
	if (!room(out, 1)) {
		return;
	}
	out->a[out->n++] = (struct unicast_action){
		.kind = kind,
		.peer = (uint16_t) peer,
		.messageType = mt_types[mt],
		.log_period = log_period,
		.duration = duration,
		.renewal_invited = kind == UNICAST_ACT_GRANT && duration > 0,
	};
}

static ns_t query_ns(int8_t logQueryInterval)
{
	return ds_log_interval_to_ns(logQueryInterval);
}

/* The wait before asking again after failures in a row (UNICAST_BACKOFF_*). */
static ns_t backoff_ns(int8_t logQueryInterval, uint8_t failures)
{
	ns_t q = query_ns(logQueryInterval);
	unsigned shift = failures < UNICAST_BACKOFF_MAX_SHIFT ? failures
							      : UNICAST_BACKOFF_MAX_SHIFT;
	ns_t cap = q > UNICAST_BACKOFF_MAX_NS ? q : UNICAST_BACKOFF_MAX_NS;

	return q > (cap >> shift) ? cap : q << shift;
}

/* ---- grantee ---- */

static bool grantee_peer_granted(const struct unicast_grantee *g, size_t peer)
{
	for (int mt = 0; mt < UNICAST_MT_N; mt++) {
		if (g->slot[peer][mt].state == UNICAST_GRANTEE_GRANTED) {
			return true;
		}
	}
	return false;
}

int unicast_grantee_init(struct unicast_grantee *g, size_t n_peers, uint32_t duration,
			 int8_t logQueryInterval)
{
	if (n_peers > UNICAST_TABLE_ADDRS_MAX || duration < 1 ||
	    duration > UNICAST_TLV_DURATION_MAX) {
		return -EINVAL;
	}
	memset(g, 0, sizeof(*g));
	g->n_peers = n_peers;
	g->duration = duration;
	g->logQueryInterval = logQueryInterval;
	return 0;
}

static void grantee_request(struct unicast_grantee *g, size_t peer, enum unicast_mt mt, ns_t now,
			    struct unicast_actions *out)
{
	struct unicast_grantee_slot *s = &g->slot[peer][mt];

	push(out, UNICAST_ACT_REQUEST, peer, mt, s->want_period, g->duration);
	g->stats.requests++;
	if (s->state != UNICAST_GRANTEE_GRANTED) {
		s->state = UNICAST_GRANTEE_WAITING;
	}
	/* The answer is awaited a query interval (16.1.4.1: the grantee repeats its request). */
	s->next = add_ns(now, query_ns(g->logQueryInterval));
}

static void grantee_backoff(struct unicast_grantee *g, struct unicast_grantee_slot *s, ns_t now)
{
	if (s->failures < UINT8_MAX) {
		s->failures++;
	}
	s->state = UNICAST_GRANTEE_BACKOFF;
	s->next = add_ns(now, backoff_ns(g->logQueryInterval, s->failures));
}

static void grantee_cancel(struct unicast_grantee *g, size_t peer, enum unicast_mt mt, ns_t now,
			   struct unicast_actions *out)
{
	struct unicast_grantee_slot *s = &g->slot[peer][mt];

	if (s->state == UNICAST_GRANTEE_GRANTED) {
		push(out, UNICAST_ACT_STOP, peer, mt, s->log_period, 0);
	}
	push(out, UNICAST_ACT_CANCEL, peer, mt, 0, 0);
	s->state = UNICAST_GRANTEE_CANCELLING;
	s->cancel_tries = 1;
	s->next = add_ns(now, query_ns(g->logQueryInterval));
}

int unicast_grantee_want(struct unicast_grantee *g, size_t peer, enum msg_type messageType,
			 bool wanted, int8_t log_period, ns_t now, struct unicast_actions *out)
{
	int mt = unicast_mt_from_msg_type(messageType);
	struct unicast_grantee_slot *s;

	if (peer >= g->n_peers || mt < 0 || log_period < UNICAST_TLV_LOG_PERIOD_MIN ||
	    log_period > UNICAST_TLV_LOG_PERIOD_MAX || !room(out, 2)) {
		return -EINVAL;
	}
	s = &g->slot[peer][mt];
	if (!wanted) {
		s->wanted = false;
		if (s->state == UNICAST_GRANTEE_WAITING || s->state == UNICAST_GRANTEE_GRANTED) {
			grantee_cancel(g, peer, (enum unicast_mt) mt, now, out);
		} else if (s->state == UNICAST_GRANTEE_BACKOFF) {
			s->state = UNICAST_GRANTEE_IDLE;
		}
		g->bound[peer] = g->bound[peer] && grantee_peer_granted(g, peer);
		return 0;
	}
	if (s->wanted && s->want_period == log_period && s->state != UNICAST_GRANTEE_IDLE &&
	    s->state != UNICAST_GRANTEE_CANCELLING) {
		return 0; /* asked already: the timers carry on */
	}
	s->wanted = true;
	s->want_period = log_period;
	s->failures = 0;
	s->renewal_denied = false;
	grantee_request(g, peer, (enum unicast_mt) mt, now, out);
	return 0;
}

static void grantee_grant(struct unicast_grantee *g, size_t peer, enum unicast_mt mt,
			  const struct unicast_tlv *t, ns_t now, struct unicast_actions *out)
{
	struct unicast_grantee_slot *s = &g->slot[peer][mt];
	bool granted = s->state == UNICAST_GRANTEE_GRANTED;

	if (!s->wanted || (s->state != UNICAST_GRANTEE_WAITING &&
			   s->state != UNICAST_GRANTEE_BACKOFF && !granted)) {
		g->stats.unexpected++;
		return;
	}
	if (t->durationField == 0) {
		/* 16.1.4.2.5: denied. A running grant runs to its end; else ask again later. */
		g->stats.denials++;
		if (granted) {
			s->renewal_denied = true;
			s->next = s->expires;
		} else {
			grantee_backoff(g, s, now);
		}
		return;
	}
	g->stats.grants++;
	if (!granted || s->log_period != t->logInterMessagePeriod) {
		push(out, UNICAST_ACT_START, peer, mt, t->logInterMessagePeriod, t->durationField);
	}
	s->state = UNICAST_GRANTEE_GRANTED;
	s->renewal_denied = false;
	s->failures = 0;
	s->log_period = t->logInterMessagePeriod;
	s->duration = t->durationField;
	s->expires = add_ns(now, seconds(t->durationField));
	/* Renewed at three quarters of the grant, as ptp4l (unicast_client.c). */
	s->next = add_ns(now, seconds(t->durationField) / 4 * 3);
}

static void grantee_cancelled(struct unicast_grantee *g, size_t peer, enum unicast_mt mt,
			      const struct unicast_tlv *t, ns_t now, struct unicast_actions *out)
{
	struct unicast_grantee_slot *s = &g->slot[peer][mt];

	/* 16.1.4.3: maintainGrant, the grant the sender gave us stands: nothing to cancel here. */
	if (t->maintainGrant) {
		g->stats.unexpected++;
		return;
	}
	g->stats.cancels++;
	/* 16.1.3: every CANCEL is acknowledged, even of a grant already gone (a lost ACK). */
	push(out, UNICAST_ACT_ACK, peer, mt, 0, 0);
	if (s->state == UNICAST_GRANTEE_GRANTED) {
		push(out, UNICAST_ACT_STOP, peer, mt, s->log_period, 0);
	}
	if (s->wanted && s->state != UNICAST_GRANTEE_CANCELLING) {
		/* The grantor withdrew: asked again after a query interval, as ptp4l does. */
		s->failures = 0;
		s->state = UNICAST_GRANTEE_BACKOFF;
		s->next = add_ns(now, query_ns(g->logQueryInterval));
	} else {
		s->state = UNICAST_GRANTEE_IDLE;
	}
}

/* The first grant binds the peer to its GRANT's sender; the last one to end unbinds it. */
static void grantee_bind(struct unicast_grantee *g, size_t peer, const struct PortIdentity *from)
{
	bool granted = grantee_peer_granted(g, peer);

	if (granted && !g->bound[peer]) {
		g->granted_by[peer] = *from;
	}
	g->bound[peer] = granted;
}

bool unicast_grantee_bound_to(const struct unicast_grantee *g, size_t peer,
			      const struct PortIdentity *from)
{
	return peer < g->n_peers &&
	       (!g->bound[peer] || port_identity_equal(&g->granted_by[peer], from));
}

bool unicast_grantee_granted(const struct unicast_grantee *g, size_t peer,
			     enum msg_type messageType, const struct PortIdentity *from)
{
	int mt = unicast_mt_from_msg_type(messageType);

	return mt >= 0 && peer < g->n_peers && g->bound[peer] &&
	       g->slot[peer][mt].state == UNICAST_GRANTEE_GRANTED &&
	       port_identity_equal(&g->granted_by[peer], from);
}

int unicast_grantee_receive(struct unicast_grantee *g, size_t peer, const struct PortIdentity *from,
			    const struct unicast_tlv *t, ns_t now, struct unicast_actions *out)
{
	int mt = unicast_mt_from_msg_type(t->messageType);

	if (peer >= g->n_peers || mt < 0 || !room(out, 2)) {
		return -EINVAL;
	}
	/* 16.1: the grant is the sender's; a stranger at (or spoofing) its address is not it. */
	if (!unicast_grantee_bound_to(g, peer, from)) {
		g->stats.forged++;
		return 0;
	}
	switch (t->tlvType) {
	case TLV_GRANT_UNICAST_TRANSMISSION:
		grantee_grant(g, peer, (enum unicast_mt) mt, t, now, out);
		break;
	case TLV_CANCEL_UNICAST_TRANSMISSION:
		grantee_cancelled(g, peer, (enum unicast_mt) mt, t, now, out);
		break;
	case TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION:
		if (g->slot[peer][mt].state != UNICAST_GRANTEE_CANCELLING) {
			g->stats.unexpected++;
			break;
		}
		g->stats.acks++;
		g->slot[peer][mt].state = UNICAST_GRANTEE_IDLE;
		break;
	default:
		g->stats.unexpected++; /* a REQUEST is for the grantor */
		break;
	}
	grantee_bind(g, peer, from);
	return 0;
}

/* One slot's due timer; the caller checked room for two actions. */
static void grantee_slot_tick(struct unicast_grantee *g, size_t peer, enum unicast_mt mt, ns_t now,
			      struct unicast_actions *out)
{
	struct unicast_grantee_slot *s = &g->slot[peer][mt];

	switch (s->state) {
	case UNICAST_GRANTEE_IDLE:
		break;
	case UNICAST_GRANTEE_WAITING:
		if (now >= s->next) {
			g->stats.timeouts++;
			grantee_backoff(g, s, now);
		}
		break;
	case UNICAST_GRANTEE_BACKOFF:
		if (now >= s->next) {
			grantee_request(g, peer, mt, now, out);
		}
		break;
	case UNICAST_GRANTEE_GRANTED:
		if (now >= s->expires) {
			g->stats.expiries++;
			push(out, UNICAST_ACT_STOP, peer, mt, s->log_period, 0);
			if (s->renewal_denied) {
				grantee_backoff(g, s, now);
			} else {
				s->state = UNICAST_GRANTEE_WAITING;
				grantee_request(g, peer, mt, now, out);
			}
		} else if (now >= s->next && !s->renewal_denied) {
			/* Renewal, repeated each query interval until granted or expired. */
			grantee_request(g, peer, mt, now, out);
			if (s->next > s->expires) {
				s->next = s->expires;
			}
		}
		break;
	case UNICAST_GRANTEE_CANCELLING:
		if (now < s->next) {
			break;
		}
		if (s->cancel_tries >= UNICAST_CANCEL_TRIES) {
			s->state = UNICAST_GRANTEE_IDLE; /* the grant ends on its own anyway */
			break;
		}
		s->cancel_tries++;
		push(out, UNICAST_ACT_CANCEL, peer, mt, 0, 0);
		s->next = add_ns(now, query_ns(g->logQueryInterval));
		break;
	}
}

int unicast_grantee_tick(struct unicast_grantee *g, ns_t now, struct unicast_actions *out)
{
	for (size_t p = 0; p < g->n_peers; p++) {
		for (int mt = 0; mt < UNICAST_MT_N; mt++) {
			if (!room(out, 2)) {
				return 1;
			}
			grantee_slot_tick(g, p, (enum unicast_mt) mt, now, out);
		}
		g->bound[p] = g->bound[p] && grantee_peer_granted(g, p);
	}
	return 0;
}

ns_t unicast_grantee_next(const struct unicast_grantee *g)
{
	ns_t next = INT64_MAX;

	for (size_t p = 0; p < g->n_peers; p++) {
		for (int mt = 0; mt < UNICAST_MT_N; mt++) {
			const struct unicast_grantee_slot *s = &g->slot[p][mt];
			ns_t t = s->next;

			if (s->state == UNICAST_GRANTEE_IDLE) {
				continue;
			}
			if (s->state == UNICAST_GRANTEE_GRANTED && s->expires < t) {
				t = s->expires;
			}
			next = t < next ? t : next;
		}
	}
	return next;
}

int unicast_grantee_shutdown(struct unicast_grantee *g, ns_t now, struct unicast_actions *out)
{
	for (size_t p = 0; p < g->n_peers; p++) {
		for (int mt = 0; mt < UNICAST_MT_N; mt++) {
			struct unicast_grantee_slot *s = &g->slot[p][mt];

			s->wanted = false;
			if (s->state != UNICAST_GRANTEE_WAITING &&
			    s->state != UNICAST_GRANTEE_GRANTED) {
				s->state = UNICAST_GRANTEE_IDLE;
				continue;
			}
			if (!room(out, 2)) {
				return 1;
			}
			grantee_cancel(g, p, (enum unicast_mt) mt, now, out);
			s->state = UNICAST_GRANTEE_IDLE;
		}
		g->bound[p] = false;
	}
	return 0;
}

/* ---- grantor ---- */

int unicast_grantor_new(const struct unicast_grantor_config *cfg, size_t cap,
			struct unicast_grantor **ret)
{
	struct unicast_grantor *gr;

	if (cap < 1 || cap > UNICAST_GRANTOR_MAX || cfg->min_duration > cfg->max_duration ||
	    cfg->max_duration > UNICAST_TLV_DURATION_MAX) {
		return -EINVAL;
	}
	gr = calloc(1, sizeof(*gr));
	if (!gr) {
		return -ENOMEM;
	}
	gr->client = calloc(cap, sizeof(*gr->client));
	if (!gr->client) {
		free(gr);
		return -ENOMEM;
	}
	gr->cfg = *cfg;
	gr->cap = cap;
	*ret = gr;
	return 0;
}

struct unicast_grantor *unicast_grantor_free(struct unicast_grantor *gr)
{
	if (gr) {
		free(gr->client);
		free(gr);
	}
	return NULL;
}

const struct unicast_addr *unicast_grantor_addr(const struct unicast_grantor *gr, size_t i)
{
	return i < gr->cap && gr->client[i].used ? &gr->client[i].addr : NULL;
}

/* The client of addr and from (from NULL: any at addr), -ENOENT for none. */
static int client_find(const struct unicast_grantor *gr, const struct unicast_addr *addr,
		       const struct PortIdentity *from)
{
	for (size_t i = 0; i < gr->cap; i++) {
		const struct unicast_grantor_client *c = &gr->client[i];

		if (c->used && unicast_addr_equal(&c->addr, addr) &&
		    (!from || port_identity_equal(&c->pid, from))) {
			return (int) i;
		}
	}
	return -ENOENT;
}

bool unicast_grantor_granted(const struct unicast_grantor *gr, const struct unicast_addr *addr,
			     const struct PortIdentity *from, enum msg_type messageType,
			     bool *holds)
{
	int mt = unicast_mt_from_msg_type(messageType);
	int i = client_find(gr, addr, from);

	*holds = i >= 0 || client_find(gr, addr, NULL) >= 0;
	return i >= 0 && mt >= 0 && gr->client[i].flow[mt].granted;
}

/* A client with no flow granted or being cancelled frees its place. */
static void client_release(struct unicast_grantor_client *c)
{
	for (int mt = 0; mt < UNICAST_MT_N; mt++) {
		if (c->flow[mt].granted || c->flow[mt].cancelling) {
			return;
		}
	}
	memset(c, 0, sizeof(*c));
}

static bool allowed(const struct unicast_grantor *gr, const struct unicast_addr *addr)
{
	const struct unicast_master_table *allow = gr->cfg.allow;

	if (addr->family != gr->cfg.family) {
		return false;
	}
	return !allow || allow->n == 0 || unicast_table_find(allow, addr) >= 0;
}

static void deny(struct unicast_grantor *gr, size_t peer, enum unicast_mt mt,
		 const struct unicast_tlv *t, enum unicast_grantor_denial why,
		 struct unicast_actions *out)
{
	gr->stats.denied[why]++;
	/* 16.1.4.2.5: a GRANT of duration 0, with the period asked for. */
	push(out, UNICAST_ACT_GRANT, peer, mt, t->logInterMessagePeriod, 0);
}

static void grantor_request(struct unicast_grantor *gr, const struct unicast_addr *addr,
			    const struct PortIdentity *from, enum unicast_mt mt,
			    const struct unicast_tlv *t, ns_t now, struct unicast_actions *out)
{
	const struct unicast_grantor_config *cfg = &gr->cfg;
	int i = client_find(gr, addr, from);
	size_t peer = i >= 0 ? (size_t) i : UNICAST_PEER_SENDER;
	struct unicast_grantor_flow *f;
	uint32_t d;

	if (!cfg->serve[mt]) {
		return deny(gr, peer, mt, t, UNICAST_DENIED_TYPE, out);
	}
	if (!allowed(gr, addr)) {
		return deny(gr, peer, mt, t, UNICAST_DENIED_NOT_ALLOWED, out);
	}
	if (t->logInterMessagePeriod < cfg->min_log_period[mt] ||
	    t->logInterMessagePeriod > cfg->max_log_period[mt]) {
		return deny(gr, peer, mt, t, UNICAST_DENIED_PERIOD, out);
	}
	if (t->durationField < cfg->min_duration) {
		return deny(gr, peer, mt, t, UNICAST_DENIED_DURATION, out);
	}
	if (i < 0) {
		for (size_t k = 0; k < gr->cap && i < 0; k++) {
			if (!gr->client[k].used) {
				i = (int) k;
			}
		}
		if (i < 0) {
			return deny(gr, peer, mt, t, UNICAST_DENIED_TABLE_FULL, out);
		}
		gr->client[i].used = true;
		gr->client[i].addr = *addr;
		gr->client[i].pid = *from;
		peer = (size_t) i;
	}
	f = &gr->client[i].flow[mt];
	d = t->durationField < cfg->max_duration ? t->durationField : cfg->max_duration;
	if (f->granted && f->log_period == t->logInterMessagePeriod) {
		gr->stats.renewals++;
	} else {
		gr->stats.grants++;
		push(out, UNICAST_ACT_START, peer, mt, t->logInterMessagePeriod, d);
	}
	*f = (struct unicast_grantor_flow){
		.granted = true,
		.log_period = t->logInterMessagePeriod,
		.duration = d,
		.expires = add_ns(now, seconds(d)),
	};
	push(out, UNICAST_ACT_GRANT, peer, mt, t->logInterMessagePeriod, d);
}

static void grantor_cancelled(struct unicast_grantor *gr, const struct unicast_addr *addr,
			      const struct PortIdentity *from, enum unicast_mt mt,
			      const struct unicast_tlv *t, struct unicast_actions *out)
{
	int i = client_find(gr, addr, from);
	struct unicast_grantor_flow *f;

	if (i < 0 && client_find(gr, addr, NULL) >= 0) {
		/* The address of a client, not its port: a stranger's CANCEL, not answered. */
		gr->stats.forged++;
		return;
	}
	if (i < 0) {
		/* Nothing granted to that address: a stale or forged CANCEL, not answered. */
		gr->stats.cancel_unknown++;
		return;
	}
	/* 16.1.4.3: maintainRequest, the sender keeps asking of us: our grant stands. */
	if (t->maintainRequest) {
		gr->stats.unexpected++;
		return;
	}
	gr->stats.cancels++;
	f = &gr->client[i].flow[mt];
	push(out, UNICAST_ACT_ACK, (size_t) i, mt, 0, 0);
	if (f->granted) {
		push(out, UNICAST_ACT_STOP, (size_t) i, mt, f->log_period, 0);
	}
	memset(f, 0, sizeof(*f));
	client_release(&gr->client[i]);
}

int unicast_grantor_receive(struct unicast_grantor *gr, const struct unicast_addr *addr,
			    const struct PortIdentity *from, const struct unicast_tlv *t, ns_t now,
			    struct unicast_actions *out)
{
	int mt = unicast_mt_from_msg_type(t->messageType);
	int i;

	if (mt < 0 || !room(out, 2)) {
		return -EINVAL;
	}
	switch (t->tlvType) {
	case TLV_REQUEST_UNICAST_TRANSMISSION:
		grantor_request(gr, addr, from, (enum unicast_mt) mt, t, now, out);
		return 0;
	case TLV_CANCEL_UNICAST_TRANSMISSION:
		grantor_cancelled(gr, addr, from, (enum unicast_mt) mt, t, out);
		return 0;
	case TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION:
		i = client_find(gr, addr, from);
		if (i < 0 && client_find(gr, addr, NULL) >= 0) {
			gr->stats.forged++;
			return 0;
		}
		if (i < 0 || !gr->client[i].flow[mt].cancelling) {
			gr->stats.unexpected++;
			return 0;
		}
		gr->stats.acks++;
		memset(&gr->client[i].flow[mt], 0, sizeof(gr->client[i].flow[mt]));
		client_release(&gr->client[i]);
		return 0;
	default:
		gr->stats.unexpected++;
		return -EINVAL;
	}
}

/* CANCEL and STOP one flow, then await the acknowledgement. */
static void flow_cancel(struct unicast_grantor *gr, size_t i, enum unicast_mt mt, ns_t now,
			struct unicast_actions *out)
{
	struct unicast_grantor_flow *f = &gr->client[i].flow[mt];

	push(out, UNICAST_ACT_STOP, i, mt, f->log_period, 0);
	push(out, UNICAST_ACT_CANCEL, i, mt, 0, 0);
	*f = (struct unicast_grantor_flow){
		.cancelling = true,
		.cancel_tries = 1,
		.expires = add_ns(now, query_ns(gr->cfg.logQueryInterval)),
	};
}

int unicast_grantor_tick(struct unicast_grantor *gr, ns_t now, struct unicast_actions *out)
{
	for (size_t i = 0; i < gr->cap; i++) {
		struct unicast_grantor_client *c = &gr->client[i];

		for (int mt = 0; c->used && mt < UNICAST_MT_N; mt++) {
			struct unicast_grantor_flow *f = &c->flow[mt];

			if ((!f->granted && !f->cancelling) || now < f->expires) {
				continue;
			}
			if (!room(out, 2)) {
				return 1;
			}
			if (f->granted) {
				/* 16.1.2: the grant's duration is over; the grantee did not renew.
				 */
				gr->stats.expiries++;
				push(out, UNICAST_ACT_STOP, i, (enum unicast_mt) mt, f->log_period,
				     0);
				memset(f, 0, sizeof(*f));
			} else if (f->cancel_tries < UNICAST_CANCEL_TRIES) {
				f->cancel_tries++;
				push(out, UNICAST_ACT_CANCEL, i, (enum unicast_mt) mt, 0, 0);
				f->expires = add_ns(now, query_ns(gr->cfg.logQueryInterval));
			} else {
				memset(f, 0, sizeof(*f)); /* never acknowledged: given up */
			}
		}
		if (c->used) {
			client_release(c);
		}
	}
	return 0;
}

ns_t unicast_grantor_next(const struct unicast_grantor *gr)
{
	ns_t next = INT64_MAX;

	for (size_t i = 0; i < gr->cap; i++) {
		for (int mt = 0; gr->client[i].used && mt < UNICAST_MT_N; mt++) {
			const struct unicast_grantor_flow *f = &gr->client[i].flow[mt];

			if ((f->granted || f->cancelling) && f->expires < next) {
				next = f->expires;
			}
		}
	}
	return next;
}

int unicast_grantor_cancel_all(struct unicast_grantor *gr, ns_t now, struct unicast_actions *out)
{
	for (size_t i = 0; i < gr->cap; i++) {
		for (int mt = 0; gr->client[i].used && mt < UNICAST_MT_N; mt++) {
			if (!gr->client[i].flow[mt].granted) {
				continue;
			}
			if (!room(out, 2)) {
				return 1;
			}
			flow_cancel(gr, i, (enum unicast_mt) mt, now, out);
		}
	}
	return 0;
}
