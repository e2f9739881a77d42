// SPDX-License-Identifier: GPL-2.0-or-later
/* The unicast broker's policy (common/peer-policy.h). Pure. */
#include <string.h>
#include <sys/types.h>

#include "common/peer-policy.h"
#include "ptp/util.h"

/* Names within, not pointers: a table of pointers is relocated data, copied by each worker. */
static const char verdict_names[_PEER_POLICY_MAX][16] = {
	[PEER_POLICY_GRANTED] = "granted",
	[PEER_POLICY_FAMILY] = "family",
	[PEER_POLICY_UNSPECIFIED] = "unspecified",
	[PEER_POLICY_LOOPBACK] = "loopback",
	[PEER_POLICY_MULTICAST] = "multicast",
	[PEER_POLICY_BROADCAST] = "broadcast",
	[PEER_POLICY_SCOPE] = "scope",
	[PEER_POLICY_DUPLICATE] = "duplicate",
	[PEER_POLICY_LIMIT] = "limit",
	[PEER_POLICY_RATE] = "rate",
	[PEER_POLICY_OPEN_FAILED] = "open_failed",
};

const char *peer_policy_verdict_to_string(enum peer_policy_verdict v)
{
	return (unsigned int) v < _PEER_POLICY_MAX && verdict_names[v][0] ? verdict_names[v] : NULL;
}

void peer_policy_reset(struct peer_policy *s)
{
	s->n = 0;
	memset(s->held, 0, sizeof(s->held));
	s->bucket_started = false;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (b[k]) {
			return false;
		}
	}
	return true;
}

/* RFC 1122 3.2.1.3, RFC 5771, RFC 919: what no single IPv4 host is. */
static enum peer_policy_verdict check_ipv4(const uint8_t *a)
{
	if (a[0] == 0) {
		return PEER_POLICY_UNSPECIFIED; /* 0.0.0.0/8: "this network" */
	}
	if (a[0] == 127) {
		return PEER_POLICY_LOOPBACK;
	}
	if ((a[0] & 0xf0) == 0xe0) {
		return PEER_POLICY_MULTICAST;
	}
	if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255) {
		return PEER_POLICY_BROADCAST;
	}
	return PEER_POLICY_GRANTED;
}

/* RFC 4291 2.5.2-2.5.6, 2.7: what no single IPv6 host on this link is. */
static enum peer_policy_verdict check_ipv6(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (a[0] == 0xff) {
		return PEER_POLICY_MULTICAST;
	}
	if (all_zero(a, 15)) {
		return a[15] == 0   ? PEER_POLICY_UNSPECIFIED
		       : a[15] == 1 ? PEER_POLICY_LOOPBACK
				    : PEER_POLICY_GRANTED;
	}
	if (!memcmp(a, mapped, sizeof(mapped))) {
		return PEER_POLICY_FAMILY; /* an IPv4 host, which an IPv6-only socket cannot reach
					    */
	}
	return PEER_POLICY_GRANTED;
}

static bool ipv6_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; /* fe80::/10 */
}

enum peer_policy_verdict peer_policy_check_addr(const struct peer_policy_port *port,
						const struct peer_addr *a)
{
	enum peer_policy_verdict v;

	switch (port->transport) {
	case OPTIONS_TRANSPORT_UDPV4:
		if (a->len != 4) {
			return PEER_POLICY_FAMILY;
		}
		v = check_ipv4(a->bytes);
		if (v == PEER_POLICY_GRANTED && a->scope_id != 0) {
			v = PEER_POLICY_SCOPE;
		}
		return v;
	case OPTIONS_TRANSPORT_UDPV6:
		if (a->len != 16) {
			return PEER_POLICY_FAMILY;
		}
		v = check_ipv6(a->bytes);
		if (v != PEER_POLICY_GRANTED) {
			return v;
		}
		/* A link-local address means one on the port's own link, the only one it reaches.
		 */
		if (ipv6_link_local(a->bytes)) {
			return a->scope_id == 0 || a->scope_id == (uint32_t) port->ifindex
				       ? PEER_POLICY_GRANTED
				       : PEER_POLICY_SCOPE;
		}
		return a->scope_id == 0 ? PEER_POLICY_GRANTED : PEER_POLICY_SCOPE;
	default:
		return PEER_POLICY_FAMILY; /* L2 sends to a MAC through its own socket */
	}
}

/* The same peer: the same address (the scope of a link-local one is always the port's). */
static bool same_addr(const struct peer_addr *a, const struct peer_addr *b)
{
	return a->len == b->len && !memcmp(a->bytes, b->bytes, a->len);
}

static ssize_t find_held(const struct peer_policy *s, const struct peer_addr *a)
{
	for (size_t k = 0; k < s->n; k++) {
		if (same_addr(&s->held[k], a)) {
			return (ssize_t) k;
		}
	}
	return -1;
}

static enum peer_policy_verdict judge(struct peer_policy *s, const struct peer_policy_port *port,
				      const struct peer_addr *a, ns_t now)
{
	enum peer_policy_verdict v = peer_policy_check_addr(port, a);
	unsigned int max = port->peers_max;

	if (v != PEER_POLICY_GRANTED) {
		return v;
	}
	if (find_held(s, a) >= 0) {
		return PEER_POLICY_DUPLICATE;
	}
	if (max > OPTIONS_UNICAST_PEERS_MAX) {
		max = OPTIONS_UNICAST_PEERS_MAX;
	}
	if (s->n >= max) {
		return PEER_POLICY_LIMIT;
	}
	/* Only a request that would open sockets takes a token: the rate bounds that work. */
	if (!s->bucket_started) {
		s->bucket_started = true;
		token_bucket_fill(&s->bucket, PEER_POLICY_BURST, now);
	}
	if (!token_bucket_take(&s->bucket, PEER_POLICY_RATE_PER_SEC, PEER_POLICY_BURST, now)) {
		return PEER_POLICY_RATE;
	}
	return PEER_POLICY_GRANTED;
}

enum peer_policy_verdict peer_policy_decide(struct peer_policy *s,
					    const struct peer_policy_port *port,
					    const struct peer_addr *a, ns_t now)
{
	enum peer_policy_verdict v = judge(s, port, a, now);

	s->counters[v]++;
	if (v == PEER_POLICY_GRANTED) {
		s->held[s->n] = *a;
		/* The scope of a link-local address is the port's, whatever was asked. */
		s->held[s->n].scope_id = 0;
		s->n++;
	}
	return v;
}

void peer_policy_opened(struct peer_policy *s, const struct peer_addr *a,
			enum peer_policy_verdict v)
{
	if (v == PEER_POLICY_GRANTED || (unsigned int) v >= _PEER_POLICY_MAX ||
	    !peer_policy_release(s, a)) {
		return;
	}
	s->released--; /* not a release of the worker's */
	s->counters[PEER_POLICY_GRANTED]--;
	s->counters[v]++;
}

bool peer_policy_release(struct peer_policy *s, const struct peer_addr *a)
{
	ssize_t k = find_held(s, a);

	if (k < 0) {
		return false;
	}
	s->held[k] = s->held[s->n - 1];
	s->n--;
	s->released++;
	return true;
}

bool peer_policy_log_refusal(struct peer_policy *s, ns_t now, uint64_t *ret_suppressed)
{
	bool log = s->last_refusal == 0 || now - s->last_refusal >= PEER_POLICY_LOG_QUIET;

	s->last_refusal = now;
	if (!log) {
		s->unlogged++;
		return false;
	}
	*ret_suppressed = s->unlogged;
	s->unlogged = 0;
	s->logged_at = now;
	return true;
}
