// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the unicast negotiation machines (IEEE 1588-2019 16.1): every transition of the
 * grantee (request, grant, denial, timeout, backoff, renewal, expiry, cancel both ways,
 * acknowledgement, shutdown) and of the grantor (grant, each denial, table full, renewal, expiry,
 * cancel, forged cancel, cancel_all and its resends, a flood from many addresses), and the
 * binding of each grant to its sender's portIdentity: TLVs from another port at its address are
 * forged.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/unicast-neg.h"

#define S NS_PER_SEC
#define T0 (1000 * S) /* an arbitrary monotonic start */

static struct unicast_actions acts;

static void reset(void)
{
	memset(&acts, 0, sizeof(acts));
}

/* The i-th action is kind for peer and type. */
static const struct unicast_action *act(size_t i, enum unicast_action_kind kind, size_t peer,
					enum msg_type type)
{
	assert_true(i < acts.n);
	assert_string_equal(unicast_action_kind_to_string(acts.a[i].kind),
			    unicast_action_kind_to_string(kind));
	assert_int_equal(acts.a[i].peer, peer);
	assert_int_equal(acts.a[i].messageType, type);
	return &acts.a[i];
}

static struct unicast_tlv tlv(uint16_t type, enum msg_type mt, int8_t period, uint32_t duration)
{
	return (struct unicast_tlv){
		.tlvType = type,
		.messageType = mt,
		.logInterMessagePeriod = period,
		.durationField = duration,
		.renewalInvited = type == TLV_GRANT_UNICAST_TRANSMISSION && duration > 0,
	};
}

static struct unicast_tlv grant(enum msg_type mt, int8_t period, uint32_t duration)
{
	return tlv(TLV_GRANT_UNICAST_TRANSMISSION, mt, period, duration);
}

/* ---- grantee ---- */

/* Two masters, 60 s grants asked, query every 2^1 s. */
static void grantee(struct unicast_grantee *g)
{
	assert_int_equal(unicast_grantee_init(g, 2, 60, 1), 0);
	reset();
}

/* The port of every peer, unless a test says another: the sender of the TLVs. */
static const struct PortIdentity PEER = { .clockIdentity = { { 0x02, 0, 0, 0xff, 0xfe, 0, 0, 1 } },
					  .portNumber = 1 };
/* A stranger at (or spoofing) a peer's address. */
static const struct PortIdentity STRANGER = {
	.clockIdentity = { { 0x0a, 0xf1, 0, 0xff, 0xfe, 0, 0, 9 } },
	.portNumber = 1,
};

static void ge_recv_from(struct unicast_grantee *g, size_t peer, const struct PortIdentity *from,
			 struct unicast_tlv t, ns_t now)
{
	reset();
	assert_int_equal(unicast_grantee_receive(g, peer, from, &t, now, &acts), 0);
}

static void ge_recv(struct unicast_grantee *g, size_t peer, struct unicast_tlv t, ns_t now)
{
	ge_recv_from(g, peer, &PEER, t, now);
}

static void ge_tick(struct unicast_grantee *g, ns_t now)
{
	reset();
	assert_int_equal(unicast_grantee_tick(g, now, &acts), 0);
}

static enum unicast_grantee_state ge_state(struct unicast_grantee *g, size_t peer,
					   enum unicast_mt mt)
{
	return g->slot[peer][mt].state;
}

static void test_grantee_init_bounds(void **state)
{
	struct unicast_grantee g;

	assert_int_equal(unicast_grantee_init(&g, UNICAST_TABLE_ADDRS_MAX + 1, 60, 0), -EINVAL);
	assert_int_equal(unicast_grantee_init(&g, 1, 0, 0), -EINVAL);
	assert_int_equal(unicast_grantee_init(&g, 1, (uint32_t) INT32_MAX + 1, 0), -EINVAL);
	assert_int_equal(unicast_grantee_init(&g, UNICAST_TABLE_ADDRS_MAX, INT32_MAX, 0), 0);
	reset();
	assert_int_equal(
		unicast_grantee_want(&g, UNICAST_TABLE_ADDRS_MAX, MSG_SYNC, true, 0, T0, &acts),
		-EINVAL);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_FOLLOW_UP, true, 0, T0, &acts), -EINVAL);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 8, T0, &acts), -EINVAL);
	assert_int_equal(acts.n, 0);
}

/* IDLE -> WAITING: a REQUEST with the period wanted and unicast_req_duration. */
static void test_grantee_request(void **state)
{
	struct unicast_grantee g;
	const struct unicast_action *a;

	grantee(&g);
	assert_int_equal(unicast_grantee_next(&g), INT64_MAX);
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_ANNOUNCE, true, 1, T0, &acts), 0);
	assert_int_equal(acts.n, 1);
	a = act(0, UNICAST_ACT_REQUEST, 1, MSG_ANNOUNCE);
	assert_int_equal(a->log_period, 1);
	assert_int_equal(a->duration, 60);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_ANNOUNCE), UNICAST_GRANTEE_WAITING);
	assert_int_equal(unicast_grantee_next(&g), T0 + 2 * S);
	/* Wanting the same again asks nothing more. */
	reset();
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_ANNOUNCE, true, 1, T0 + S, &acts), 0);
	assert_int_equal(acts.n, 0);
	/* Another period asks again. */
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_ANNOUNCE, true, 0, T0 + S, &acts), 0);
	assert_int_equal(act(0, UNICAST_ACT_REQUEST, 1, MSG_ANNOUNCE)->log_period, 0);
	assert_int_equal(g.stats.requests, 2);
}

/* WAITING -> GRANTED: START with the granted period, renewal at 3/4, extension, new period. */
static void test_grantee_grant_and_renewal(void **state)
{
	struct unicast_grantee g;

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, -3, T0, &acts), 0);
	ge_recv(&g, 0, grant(MSG_SYNC, -3, 40), T0 + S);
	assert_int_equal(acts.n, 1);
	assert_int_equal(act(0, UNICAST_ACT_START, 0, MSG_SYNC)->log_period, -3);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_GRANTED);
	assert_int_equal(g.slot[0][UNICAST_MT_SYNC].expires, T0 + 41 * S);
	/* Nothing before three quarters of the grant (30 s). */
	ge_tick(&g, T0 + 31 * S - 1);
	assert_int_equal(acts.n, 0);
	assert_int_equal(unicast_grantee_next(&g), T0 + 31 * S);
	ge_tick(&g, T0 + 31 * S);
	assert_int_equal(acts.n, 1);
	assert_int_equal(act(0, UNICAST_ACT_REQUEST, 0, MSG_SYNC)->duration, 60);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_GRANTED);
	/* Unanswered: asked again each query interval (2 s). */
	ge_tick(&g, T0 + 33 * S);
	assert_int_equal(acts.n, 1);
	act(0, UNICAST_ACT_REQUEST, 0, MSG_SYNC);
	/* The renewal's grant extends, same period: no second START. */
	ge_recv(&g, 0, grant(MSG_SYNC, -3, 60), T0 + 34 * S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(g.slot[0][UNICAST_MT_SYNC].expires, T0 + 94 * S);
	/* A grant of another period: START again with it. */
	ge_recv(&g, 0, grant(MSG_SYNC, -2, 60), T0 + 35 * S);
	assert_int_equal(act(0, UNICAST_ACT_START, 0, MSG_SYNC)->log_period, -2);
	assert_int_equal(g.stats.grants, 3);
}

/* WAITING -> BACKOFF on a denial, doubling per denial in a row, capped at 64 s. */
static void test_grantee_denial_backoff(void **state)
{
	struct unicast_grantee g;
	ns_t now = T0;
	ns_t waits[] = { 4 * S, 8 * S, 16 * S, 32 * S, 64 * S, 64 * S, 64 * S };

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_ANNOUNCE, true, 1, now, &acts), 0);
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		ge_recv(&g, 0, grant(MSG_ANNOUNCE, 1, 0), now);
		assert_int_equal(acts.n, 0);
		assert_int_equal(ge_state(&g, 0, UNICAST_MT_ANNOUNCE), UNICAST_GRANTEE_BACKOFF);
		assert_int_equal(unicast_grantee_next(&g), now + waits[i]);
		ge_tick(&g, now + waits[i] - 1);
		assert_int_equal(acts.n, 0);
		now += waits[i];
		ge_tick(&g, now);
		assert_int_equal(acts.n, 1);
		act(0, UNICAST_ACT_REQUEST, 0, MSG_ANNOUNCE);
		assert_int_equal(ge_state(&g, 0, UNICAST_MT_ANNOUNCE), UNICAST_GRANTEE_WAITING);
	}
	assert_int_equal(g.stats.denials, 7);
	/* A grant ends the backoff: the next denial waits the first step again. */
	ge_recv(&g, 0, grant(MSG_ANNOUNCE, 1, 60), now);
	assert_int_equal(g.slot[0][UNICAST_MT_ANNOUNCE].failures, 0);
}

/* WAITING -> BACKOFF on a timeout (no answer in a query interval), then asked again. */
static void test_grantee_timeout(void **state)
{
	struct unicast_grantee g;

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_DELAY_RESP, true, -4, T0, &acts), 0);
	ge_tick(&g, T0 + 2 * S - 1);
	assert_int_equal(acts.n, 0);
	ge_tick(&g, T0 + 2 * S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(g.stats.timeouts, 1);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_DELAY_RESP), UNICAST_GRANTEE_BACKOFF);
	ge_tick(&g, T0 + 6 * S);
	act(0, UNICAST_ACT_REQUEST, 1, MSG_DELAY_RESP);
	/* A second timeout waits twice as long. */
	ge_tick(&g, T0 + 8 * S);
	assert_int_equal(g.stats.timeouts, 2);
	assert_int_equal(unicast_grantee_next(&g), T0 + 16 * S);
	/* A late grant in BACKOFF is taken. */
	ge_recv(&g, 1, grant(MSG_DELAY_RESP, -4, 60), T0 + 9 * S);
	act(0, UNICAST_ACT_START, 1, MSG_DELAY_RESP);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_DELAY_RESP), UNICAST_GRANTEE_GRANTED);
}

/* GRANTED -> expiry when no renewal was granted: STOP, and asked again at once. */
static void test_grantee_expiry(void **state)
{
	struct unicast_grantee g;

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0, &acts), 0);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 10), T0);
	ge_tick(&g, T0 + 10 * S);
	assert_int_equal(acts.n, 2);
	act(0, UNICAST_ACT_STOP, 0, MSG_SYNC);
	act(1, UNICAST_ACT_REQUEST, 0, MSG_SYNC);
	assert_int_equal(g.stats.expiries, 1);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_WAITING);
}

/* A denied renewal: the grant runs to its end, no more renewals, then STOP and back off. */
static void test_grantee_renewal_denied(void **state)
{
	struct unicast_grantee g;

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0, &acts), 0);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 40), T0);
	ge_tick(&g, T0 + 30 * S);
	act(0, UNICAST_ACT_REQUEST, 0, MSG_SYNC);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 0), T0 + 31 * S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_GRANTED);
	ge_tick(&g, T0 + 39 * S);
	assert_int_equal(acts.n, 0);
	ge_tick(&g, T0 + 40 * S);
	assert_int_equal(acts.n, 1);
	act(0, UNICAST_ACT_STOP, 0, MSG_SYNC);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_BACKOFF);
	assert_int_equal(unicast_grantee_next(&g), T0 + 44 * S);
}

/* The grantor's CANCEL: acknowledged, STOP, asked again after the backoff; maintainGrant kept. */
static void test_grantee_cancel_received(void **state)
{
	struct unicast_grantee g;
	struct unicast_tlv c = tlv(TLV_CANCEL_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 0, 0);

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_ANNOUNCE, true, 1, T0, &acts), 0);
	ge_recv(&g, 1, grant(MSG_ANNOUNCE, 1, 60), T0);
	c.maintainGrant = true;
	ge_recv(&g, 1, c, T0 + S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(g.stats.unexpected, 1);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_ANNOUNCE), UNICAST_GRANTEE_GRANTED);
	c.maintainGrant = false;
	ge_recv(&g, 1, c, T0 + S);
	assert_int_equal(acts.n, 2);
	act(0, UNICAST_ACT_ACK, 1, MSG_ANNOUNCE);
	act(1, UNICAST_ACT_STOP, 1, MSG_ANNOUNCE);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_ANNOUNCE), UNICAST_GRANTEE_BACKOFF);
	ge_tick(&g, T0 + 3 * S);
	act(0, UNICAST_ACT_REQUEST, 1, MSG_ANNOUNCE);
	/* A CANCEL of nothing granted is still acknowledged (our earlier ACK may be lost). */
	ge_recv(&g, 0, tlv(TLV_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0), T0 + 4 * S);
	assert_int_equal(acts.n, 1);
	act(0, UNICAST_ACT_ACK, 0, MSG_SYNC);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_IDLE);
	assert_int_equal(g.stats.cancels, 2);
}

/*
 * A grant is bound to its GRANT's sender: a CANCEL, a GRANT or an ACK from another portIdentity
 * at the master's address is forged, counted and dropped, and the grant runs; the sender's own
 * CANCEL still ends it, and with no grant left the binding goes (a restarted master may bind).
 */
static void test_grantee_forged(void **state)
{
	struct unicast_grantee g;
	struct unicast_tlv c = tlv(TLV_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0);

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0, &acts), 0);
	/* Not granted yet: Sync is taken from no one, Announce from any port at the address. */
	assert_false(unicast_grantee_granted(&g, 0, MSG_SYNC, &PEER));
	assert_true(unicast_grantee_bound_to(&g, 0, &STRANGER));
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 60), T0);
	assert_true(unicast_grantee_granted(&g, 0, MSG_SYNC, &PEER));
	assert_false(unicast_grantee_granted(&g, 0, MSG_SYNC, &STRANGER));
	assert_false(unicast_grantee_granted(&g, 0, MSG_DELAY_RESP, &PEER)); /* not granted */
	assert_false(unicast_grantee_granted(&g, 1, MSG_SYNC, &PEER));	     /* another master */
	assert_false(unicast_grantee_bound_to(&g, 0, &STRANGER));
	ge_recv_from(&g, 0, &STRANGER, c, T0 + S);
	ge_recv_from(&g, 0, &STRANGER, grant(MSG_SYNC, -7, 1000), T0 + S);
	ge_recv_from(&g, 0, &STRANGER, grant(MSG_SYNC, 0, 0), T0 + S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(g.stats.forged, 3);
	assert_int_equal(g.stats.cancels, 0);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_GRANTED);
	assert_int_equal(g.slot[0][UNICAST_MT_SYNC].log_period, 0);
	/* Another portNumber of the same clock is another port. */
	struct PortIdentity other = PEER;
	other.portNumber = 2;
	ge_recv_from(&g, 0, &other, c, T0 + S);
	assert_int_equal(g.stats.forged, 4);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_GRANTED);
	/* The master's own CANCEL: acknowledged, the grant ends, the binding with it. */
	ge_recv(&g, 0, c, T0 + 2 * S);
	assert_int_equal(acts.n, 2);
	act(0, UNICAST_ACT_ACK, 0, MSG_SYNC);
	assert_int_equal(g.stats.cancels, 1);
	assert_false(unicast_grantee_granted(&g, 0, MSG_SYNC, &PEER));
	assert_true(unicast_grantee_bound_to(&g, 0, &STRANGER));
	/* Asked again; a master with a new identity (restarted) is granted and bound. */
	ge_tick(&g, T0 + 4 * S);
	act(0, UNICAST_ACT_REQUEST, 0, MSG_SYNC);
	ge_recv_from(&g, 0, &other, grant(MSG_SYNC, 0, 60), T0 + 4 * S);
	assert_true(unicast_grantee_granted(&g, 0, MSG_SYNC, &other));
	assert_false(unicast_grantee_granted(&g, 0, MSG_SYNC, &PEER));
	/* It expires unrenewed: unbound at the tick that ends it. */
	ge_tick(&g, T0 + 64 * S);
	assert_true(unicast_grantee_bound_to(&g, 0, &PEER));
}

/* Not wanted any more: STOP and CANCEL, its acknowledgement, and resends without one. */
static void test_grantee_unwant_cancel_ack(void **state)
{
	struct unicast_grantee g;
	struct unicast_tlv ack = tlv(TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0);

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0, &acts), 0);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 60), T0);
	reset();
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, false, 0, T0 + S, &acts), 0);
	assert_int_equal(acts.n, 2);
	act(0, UNICAST_ACT_STOP, 0, MSG_SYNC);
	act(1, UNICAST_ACT_CANCEL, 0, MSG_SYNC);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_CANCELLING);
	ge_recv(&g, 0, ack, T0 + 2 * S);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_IDLE);
	assert_int_equal(g.stats.acks, 1);
	/* An ACK of nothing cancelled, and a GRANT of nothing wanted: counted, no change. */
	ge_recv(&g, 0, ack, T0 + 3 * S);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 60), T0 + 3 * S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(g.stats.unexpected, 2);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_IDLE);
	/* Unacknowledged: resent a query interval apart, UNICAST_CANCEL_TRIES times in all. */
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0 + 4 * S, &acts), 0);
	reset();
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, false, 0, T0 + 4 * S, &acts), 0);
	act(0, UNICAST_ACT_CANCEL, 0, MSG_SYNC); /* WAITING: no STOP, nothing was granted */
	for (int i = 1; i < UNICAST_CANCEL_TRIES; i++) {
		ge_tick(&g, T0 + (4 + 2 * i) * S);
		assert_int_equal(acts.n, 1);
		act(0, UNICAST_ACT_CANCEL, 0, MSG_SYNC);
	}
	ge_tick(&g, T0 + (4 + 2 * UNICAST_CANCEL_TRIES) * S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(ge_state(&g, 0, UNICAST_MT_SYNC), UNICAST_GRANTEE_IDLE);
	/* Unwanted in BACKOFF: nothing was granted or is awaited, nothing sent. */
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_SYNC, true, 0, T0, &acts), 0);
	ge_recv(&g, 1, grant(MSG_SYNC, 0, 0), T0);
	reset();
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_SYNC, false, 0, T0, &acts), 0);
	assert_int_equal(acts.n, 0);
	assert_int_equal(ge_state(&g, 1, UNICAST_MT_SYNC), UNICAST_GRANTEE_IDLE);
}

/* Shutdown: CANCEL of everything asked or granted, STOP of the granted, nothing else. */
static void test_grantee_shutdown(void **state)
{
	struct unicast_grantee g;

	grantee(&g);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_ANNOUNCE, true, 1, T0, &acts), 0);
	assert_int_equal(unicast_grantee_want(&g, 0, MSG_SYNC, true, 0, T0, &acts), 0);
	assert_int_equal(unicast_grantee_want(&g, 1, MSG_ANNOUNCE, true, 1, T0, &acts), 0);
	ge_recv(&g, 0, grant(MSG_SYNC, 0, 60), T0);
	ge_recv(&g, 1, grant(MSG_ANNOUNCE, 1, 0), T0); /* BACKOFF: nothing to cancel */
	reset();
	assert_int_equal(unicast_grantee_shutdown(&g, T0 + S, &acts), 0);
	assert_int_equal(acts.n, 3);
	act(0, UNICAST_ACT_CANCEL, 0, MSG_ANNOUNCE);
	act(1, UNICAST_ACT_STOP, 0, MSG_SYNC);
	act(2, UNICAST_ACT_CANCEL, 0, MSG_SYNC);
	assert_int_equal(unicast_grantee_next(&g), INT64_MAX);
	ge_tick(&g, T0 + 1000 * S);
	assert_int_equal(acts.n, 0);
}

/* A tick with more to do than room returns 1 and finishes on the next call. */
static void test_grantee_tick_bounded(void **state)
{
	struct unicast_grantee g;
	size_t total = 0;
	int r;

	assert_int_equal(unicast_grantee_init(&g, UNICAST_TABLE_ADDRS_MAX, 10, 0), 0);
	for (size_t p = 0; p < UNICAST_TABLE_ADDRS_MAX; p++) {
		for (int mt = 0; mt < UNICAST_MT_N; mt++) {
			reset();
			assert_int_equal(unicast_grantee_want(&g, p, unicast_mt_to_msg_type(mt),
							      true, 0, T0, &acts),
					 0);
			ge_recv(&g, p, grant(unicast_mt_to_msg_type(mt), 0, 10), T0);
		}
	}
	/* Every grant expires at once: STOP and REQUEST each, 128 actions. */
	do {
		reset();
		r = unicast_grantee_tick(&g, T0 + 10 * S, &acts);
		assert_true(r >= 0);
		total += acts.n;
	} while (r == 1);
	assert_int_equal(total, 2 * UNICAST_TABLE_ADDRS_MAX * UNICAST_MT_N);
	assert_int_equal(g.stats.expiries, UNICAST_TABLE_ADDRS_MAX * UNICAST_MT_N);
}

/* ---- grantor ---- */

static struct unicast_addr ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (struct unicast_addr){ .family = UNICAST_FAMILY_IPV4,
				      .len = 4,
				      .bytes = { a, b, c, d } };
}

/* Announce -3..3, Sync -7..4, Delay_Resp -7..4; no Pdelay_Resp; 10..300 s; IPv4. */
static struct unicast_grantor_config grantor_config(void)
{
	return (struct unicast_grantor_config){
		.family = UNICAST_FAMILY_IPV4,
		.serve = { true, true, true, false },
		.min_log_period = { -3, -7, -7, 0 },
		.max_log_period = { 3, 4, 4, 0 },
		.min_duration = 10,
		.max_duration = 300,
		.logQueryInterval = 0,
	};
}

static void gr_recv_from(struct unicast_grantor *gr, struct unicast_addr a,
			 const struct PortIdentity *from, struct unicast_tlv t, ns_t now)
{
	reset();
	assert_int_equal(unicast_grantor_receive(gr, &a, from, &t, now, &acts), 0);
}

static void gr_recv(struct unicast_grantor *gr, struct unicast_addr a, struct unicast_tlv t,
		    ns_t now)
{
	gr_recv_from(gr, a, &PEER, t, now);
}

static struct unicast_tlv request(enum msg_type mt, int8_t period, uint32_t duration)
{
	return tlv(TLV_REQUEST_UNICAST_TRANSMISSION, mt, period, duration);
}

static void test_grantor_new_bounds(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	struct unicast_grantor *gr = NULL;

	assert_int_equal(unicast_grantor_new(&cfg, 0, &gr), -EINVAL);
	assert_int_equal(unicast_grantor_new(&cfg, UNICAST_GRANTOR_MAX + 1, &gr), -EINVAL);
	cfg.min_duration = 400;
	assert_int_equal(unicast_grantor_new(&cfg, 1, &gr), -EINVAL);
	assert_null(gr);
	assert_null(unicast_grantor_free(NULL));
}

/* A grant: START and GRANT (R set), the duration clamped; a renewal: GRANT only. */
static void test_grantor_grant_renew(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;
	const struct unicast_action *a;
	char buf[UNICAST_ADDR_STRLEN];

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_SYNC, -4, 3600), T0);
	assert_int_equal(acts.n, 2);
	a = act(0, UNICAST_ACT_START, 0, MSG_SYNC);
	assert_int_equal(a->log_period, -4);
	a = act(1, UNICAST_ACT_GRANT, 0, MSG_SYNC);
	assert_int_equal(a->duration, 300);
	assert_true(a->renewal_invited);
	assert_string_equal(unicast_addr_to_string(unicast_grantor_addr(gr, 0), buf), "192.0.2.1");
	assert_int_equal(unicast_grantor_next(gr), T0 + 300 * S);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_SYNC, -4, 60), T0 + 200 * S);
	assert_int_equal(acts.n, 1);
	assert_int_equal(act(0, UNICAST_ACT_GRANT, 0, MSG_SYNC)->duration, 60);
	assert_int_equal(unicast_grantor_next(gr), T0 + 260 * S);
	/* Another period: START again. */
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_SYNC, -3, 60), T0 + 201 * S);
	assert_int_equal(act(0, UNICAST_ACT_START, 0, MSG_SYNC)->log_period, -3);
	act(1, UNICAST_ACT_GRANT, 0, MSG_SYNC);
	assert_int_equal(gr->stats.grants, 2);
	assert_int_equal(gr->stats.renewals, 1);
}

/* Each denial: a GRANT of duration 0 to the sender, counted by reason, no place taken. */
static void test_grantor_denials(void **state)
{
	static const struct {
		struct unicast_addr addr;
		enum msg_type mt;
		int8_t period;
		uint32_t duration;
		enum unicast_grantor_denial why;
	} cases[] = {
		{ { UNICAST_FAMILY_IPV4, 4, { 192, 0, 2, 1 } },
		  MSG_PDELAY_RESP,
		  0,
		  60,
		  UNICAST_DENIED_TYPE },
		{ { UNICAST_FAMILY_IPV6, 16, { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } },
		  MSG_SYNC,
		  0,
		  60,
		  UNICAST_DENIED_NOT_ALLOWED },
		{ { UNICAST_FAMILY_IPV4, 4, { 192, 0, 2, 1 } },
		  MSG_ANNOUNCE,
		  -4,
		  60,
		  UNICAST_DENIED_PERIOD },
		{ { UNICAST_FAMILY_IPV4, 4, { 192, 0, 2, 1 } },
		  MSG_SYNC,
		  5,
		  60,
		  UNICAST_DENIED_PERIOD },
		{ { UNICAST_FAMILY_IPV4, 4, { 192, 0, 2, 1 } },
		  MSG_SYNC,
		  0,
		  9,
		  UNICAST_DENIED_DURATION },
	};
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct unicast_action *a;

		gr_recv(gr, cases[i].addr, request(cases[i].mt, cases[i].period, cases[i].duration),
			T0);
		assert_int_equal(acts.n, 1);
		a = act(0, UNICAST_ACT_GRANT, UNICAST_PEER_SENDER, cases[i].mt);
		assert_int_equal(a->duration, 0);
		assert_false(a->renewal_invited);
		assert_int_equal(a->log_period, cases[i].period);
		assert_null(unicast_grantor_addr(gr, 0));
	}
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_TYPE], 1);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_NOT_ALLOWED], 1);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_PERIOD], 2);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_DURATION], 1);
	assert_int_equal(gr->stats.grants, 0);
	assert_string_equal(unicast_grantor_denial_to_string(UNICAST_DENIED_TABLE_FULL),
			    "table_full");
}

/* With an allow table, another address is denied; a client's denial names its place. */
static void test_grantor_allow(void **state)
{
	struct unicast_master_table allow = { .table_id = 1, .n = 1 };
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;

	allow.addr[0] = ip4(192, 0, 2, 7);
	cfg.allow = &allow;
	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 8), request(MSG_ANNOUNCE, 0, 60), T0);
	assert_int_equal(act(0, UNICAST_ACT_GRANT, UNICAST_PEER_SENDER, MSG_ANNOUNCE)->duration, 0);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_NOT_ALLOWED], 1);
	gr_recv(gr, ip4(192, 0, 2, 7), request(MSG_ANNOUNCE, 0, 60), T0);
	act(0, UNICAST_ACT_START, 0, MSG_ANNOUNCE);
	gr_recv(gr, ip4(192, 0, 2, 7), request(MSG_SYNC, 7, 60), T0);
	assert_int_equal(act(0, UNICAST_ACT_GRANT, 0, MSG_SYNC)->duration, 0);
}

/* The table's bound: a new address past it is denied; a known one still gets more types. */
static void test_grantor_table_full(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;

	assert_int_equal(unicast_grantor_new(&cfg, 2, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_ANNOUNCE, 0, 60), T0);
	gr_recv(gr, ip4(192, 0, 2, 2), request(MSG_ANNOUNCE, 0, 60), T0);
	act(0, UNICAST_ACT_START, 1, MSG_ANNOUNCE);
	gr_recv(gr, ip4(192, 0, 2, 3), request(MSG_ANNOUNCE, 0, 60), T0);
	assert_int_equal(acts.n, 1);
	assert_int_equal(act(0, UNICAST_ACT_GRANT, UNICAST_PEER_SENDER, MSG_ANNOUNCE)->duration, 0);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_TABLE_FULL], 1);
	gr_recv(gr, ip4(192, 0, 2, 2), request(MSG_SYNC, 0, 60), T0);
	act(0, UNICAST_ACT_START, 1, MSG_SYNC);
	/* A place freed by expiry is taken by the next newcomer. */
	reset();
	assert_int_equal(unicast_grantor_tick(gr, T0 + 60 * S, &acts), 0);
	assert_int_equal(acts.n, 3);
	assert_null(unicast_grantor_addr(gr, 0));
	gr_recv(gr, ip4(192, 0, 2, 3), request(MSG_ANNOUNCE, 0, 60), T0 + 61 * S);
	act(0, UNICAST_ACT_START, 0, MSG_ANNOUNCE);
}

/* Expiry: STOP when a grant's duration is over and the place is freed. */
static void test_grantor_expiry(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_ANNOUNCE, 1, 10), T0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_SYNC, 0, 20), T0);
	reset();
	assert_int_equal(unicast_grantor_tick(gr, T0 + 10 * S - 1, &acts), 0);
	assert_int_equal(acts.n, 0);
	assert_int_equal(unicast_grantor_tick(gr, T0 + 10 * S, &acts), 0);
	assert_int_equal(acts.n, 1);
	assert_int_equal(act(0, UNICAST_ACT_STOP, 0, MSG_ANNOUNCE)->log_period, 1);
	assert_non_null(unicast_grantor_addr(gr, 0));
	reset();
	assert_int_equal(unicast_grantor_tick(gr, T0 + 20 * S, &acts), 0);
	act(0, UNICAST_ACT_STOP, 0, MSG_SYNC);
	assert_null(unicast_grantor_addr(gr, 0));
	assert_int_equal(gr->stats.expiries, 2);
	assert_int_equal(unicast_grantor_next(gr), INT64_MAX);
}

/* A client's CANCEL: ACK and STOP; a stranger's: dropped unanswered; maintainRequest: kept. */
static void test_grantor_cancel_received(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;
	struct unicast_tlv c = tlv(TLV_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0);

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_SYNC, 0, 60), T0);
	gr_recv(gr, ip4(192, 0, 2, 66), c, T0);
	assert_int_equal(acts.n, 0);
	assert_int_equal(gr->stats.cancel_unknown, 1);
	c.maintainRequest = true;
	gr_recv(gr, ip4(192, 0, 2, 1), c, T0);
	assert_int_equal(acts.n, 0);
	assert_non_null(unicast_grantor_addr(gr, 0));
	c.maintainRequest = false;
	gr_recv(gr, ip4(192, 0, 2, 1), c, T0);
	assert_int_equal(acts.n, 2);
	act(0, UNICAST_ACT_ACK, 0, MSG_SYNC);
	act(1, UNICAST_ACT_STOP, 0, MSG_SYNC);
	assert_null(unicast_grantor_addr(gr, 0));
	assert_int_equal(gr->stats.cancels, 1);
	/* The same CANCEL again: the address has no place left, so it is a stranger's now. */
	gr_recv(gr, ip4(192, 0, 2, 1), c, T0);
	assert_int_equal(acts.n, 0);
	assert_int_equal(gr->stats.cancel_unknown, 2);
}

/*
 * A grant is bound to the address and the portIdentity of its REQUEST: a CANCEL or ACK from
 * another port at the client's address is forged, counted and dropped; a REQUEST from one is
 * another client; a Delay_Resp grant is reported for its client's port only.
 */
static void test_grantor_forged(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;
	struct unicast_addr a = ip4(192, 0, 2, 1);
	struct unicast_tlv c = tlv(TLV_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0);
	bool holds;

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	assert_false(unicast_grantor_granted(gr, &a, &PEER, MSG_DELAY_RESP, &holds));
	assert_false(holds);
	gr_recv(gr, a, request(MSG_SYNC, 0, 60), T0);
	gr_recv(gr, a, request(MSG_DELAY_RESP, 0, 60), T0);
	assert_true(unicast_grantor_granted(gr, &a, &PEER, MSG_DELAY_RESP, &holds));
	assert_true(holds);
	assert_false(unicast_grantor_granted(gr, &a, &STRANGER, MSG_DELAY_RESP, &holds));
	assert_true(holds);
	gr_recv_from(gr, a, &STRANGER, c, T0 + S);
	assert_int_equal(acts.n, 0);
	gr_recv_from(gr, a, &STRANGER,
		     tlv(TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0), T0 + S);
	assert_int_equal(acts.n, 0);
	assert_int_equal(gr->stats.forged, 2);
	assert_int_equal(gr->stats.cancels, 0);
	assert_true(gr->client[0].flow[UNICAST_MT_SYNC].granted);
	/* A REQUEST from the stranger's port: another client, in its own place. */
	gr_recv_from(gr, a, &STRANGER, request(MSG_SYNC, 0, 60), T0 + S);
	assert_int_equal(acts.n, 2);
	act(1, UNICAST_ACT_GRANT, 1, MSG_SYNC);
	assert_false(unicast_grantor_granted(gr, &a, &STRANGER, MSG_DELAY_RESP, &holds));
	/* The client's own CANCEL ends its grant only. */
	gr_recv(gr, a, c, T0 + 2 * S);
	act(0, UNICAST_ACT_ACK, 0, MSG_SYNC);
	assert_false(gr->client[0].flow[UNICAST_MT_SYNC].granted);
	assert_true(gr->client[1].flow[UNICAST_MT_SYNC].granted);
	assert_int_equal(gr->stats.cancels, 1);
}

/* cancel_all: STOP and CANCEL each flow; an ACK ends one; the others are resent, then given up. */
static void test_grantor_cancel_all(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	gr_recv(gr, ip4(192, 0, 2, 1), request(MSG_ANNOUNCE, 0, 60), T0);
	gr_recv(gr, ip4(192, 0, 2, 2), request(MSG_SYNC, 0, 60), T0);
	reset();
	assert_int_equal(unicast_grantor_cancel_all(gr, T0 + S, &acts), 0);
	assert_int_equal(acts.n, 4);
	act(0, UNICAST_ACT_STOP, 0, MSG_ANNOUNCE);
	act(1, UNICAST_ACT_CANCEL, 0, MSG_ANNOUNCE);
	act(2, UNICAST_ACT_STOP, 1, MSG_SYNC);
	act(3, UNICAST_ACT_CANCEL, 1, MSG_SYNC);
	/* An ACK from a stranger or of another type changes nothing. */
	gr_recv(gr, ip4(192, 0, 2, 9),
		tlv(TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 0, 0), T0 + S);
	gr_recv(gr, ip4(192, 0, 2, 1),
		tlv(TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0), T0 + S);
	assert_int_equal(gr->stats.unexpected, 2);
	gr_recv(gr, ip4(192, 0, 2, 1),
		tlv(TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 0, 0), T0 + S);
	assert_int_equal(gr->stats.acks, 1);
	assert_null(unicast_grantor_addr(gr, 0));
	/* Client 1 never answers: resent each query interval (1 s), then given up. */
	for (int i = 1; i < UNICAST_CANCEL_TRIES; i++) {
		reset();
		assert_int_equal(unicast_grantor_tick(gr, T0 + (1 + i) * S, &acts), 0);
		assert_int_equal(acts.n, 1);
		act(0, UNICAST_ACT_CANCEL, 1, MSG_SYNC);
	}
	reset();
	assert_int_equal(unicast_grantor_tick(gr, T0 + (1 + UNICAST_CANCEL_TRIES) * S, &acts), 0);
	assert_int_equal(acts.n, 0);
	assert_null(unicast_grantor_addr(gr, 1));
}

/* A GRANT is not for the grantor; a type that is not negotiated is refused. */
static void test_grantor_refuses(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;
	struct unicast_addr a = ip4(192, 0, 2, 1);
	struct unicast_tlv g = grant(MSG_SYNC, 0, 60);
	struct unicast_tlv f = request(MSG_FOLLOW_UP, 0, 60);

	assert_int_equal(unicast_grantor_new(&cfg, 4, &gr), 0);
	reset();
	assert_int_equal(unicast_grantor_receive(gr, &a, &PEER, &g, T0, &acts), -EINVAL);
	assert_int_equal(unicast_grantor_receive(gr, &a, &PEER, &f, T0, &acts), -EINVAL);
	assert_int_equal(acts.n, 0);
}

/* A request flood from 1000 addresses: the table holds its bound, the rest denied and counted. */
static void test_grantor_flood(void **state)
{
	struct unicast_grantor_config cfg = grantor_config();
	_cleanup_(unicast_grantor_freep) struct unicast_grantor *gr = NULL;
	size_t granted = 0;

	assert_int_equal(unicast_grantor_new(&cfg, 16, &gr), 0);
	for (unsigned i = 0; i < 1000; i++) {
		gr_recv(gr, ip4(10, 0, (uint8_t) (i >> 8), (uint8_t) (i + 1)),
			request(MSG_SYNC, -7, 300), T0);
		granted += acts.n == 2;
	}
	assert_int_equal(granted, 16);
	assert_int_equal(gr->stats.denied[UNICAST_DENIED_TABLE_FULL], 1000 - 16);
	/* All expire together: a bounded tick, called until done. */
	for (int r = 1; r == 1;) {
		reset();
		r = unicast_grantor_tick(gr, T0 + 300 * S, &acts);
	}
	assert_int_equal(gr->stats.expiries, 16);
}

/* Addresses: strict parsing, unicast only, printing back. */
static void test_addresses(void **state)
{
	struct unicast_addr a, b;
	char buf[UNICAST_ADDR_STRLEN];

	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "192.168.1.11", &a), 0);
	assert_string_equal(unicast_addr_to_string(&a, buf), "192.168.1.11");
	assert_int_equal(unicast_addr_from_any_string("192.168.1.11", &b), 0);
	assert_true(unicast_addr_equal(&a, &b));
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "192.168.1", &a), -EINVAL);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "192.168.1.256", &a),
			 -EINVAL);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, " 192.168.1.1", &a),
			 -EINVAL);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "0.0.0.0", &a), -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "224.0.1.129", &a), -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "255.255.255.255", &a),
			 -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV6, "2001:db8::1", &a), 0);
	assert_string_equal(unicast_addr_to_string(&a, buf), "2001:db8::1");
	assert_int_equal(unicast_addr_from_any_string("2001:db8::1", &b), 0);
	assert_true(unicast_addr_equal(&a, &b));
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV6, "fe80::1%eth0", &a),
			 -EINVAL);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV6, "ff0e::181", &a), -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV6, "::", &a), -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_L2, "00:11:22:33:44:55", &a), 0);
	assert_string_equal(unicast_addr_to_string(&a, buf), "00:11:22:33:44:55");
	assert_int_equal(unicast_addr_from_any_string("00-11-22-33-44-55", &b), 0);
	assert_true(unicast_addr_equal(&a, &b));
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_L2, "01:1b:19:00:00:00", &a),
			 -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_L2, "00:00:00:00:00:00", &a),
			 -ERANGE);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_L2, "00:11:22:33:44", &a),
			 -EINVAL);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_L2, "00:11:22:33:44:55:66", &a),
			 -EINVAL);
	/* A v4 and a v6 address never equal, even with the same leading octets. */
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV6, "c0a8:10b::", &b), 0);
	assert_int_equal(unicast_addr_from_string(UNICAST_FAMILY_IPV4, "192.168.1.11", &a), 0);
	assert_false(unicast_addr_equal(&a, &b));
}

/*
 * A frame's source as a peer (unicast_addr_from_bytes()): the family by the length, the same
 * unicast rule as the text parser, the address equal to the text's.
 */
static void test_addresses_from_bytes(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t b[16];
		int r;
		const char *text;
	} cases[] = {
		{ 6, { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }, 0, "00:11:22:33:44:55" },
		{ 6, { 0x02, 0, 0, 0, 0, 0x01 }, 0, "02:00:00:00:00:01" },
		{ 6, { 0x01, 0x1b, 0x19, 0, 0, 0 }, -ERANGE, NULL },	/* PTP's group */
		{ 6, { 0x01, 0x80, 0xc2, 0, 0, 0x0e }, -ERANGE, NULL }, /* the peer delay group */
		{ 6, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, -ERANGE, NULL },
		{ 6,
		  { 0x03, 0, 0, 0, 0, 0x01 },
		  -ERANGE,
		  NULL }, /* the group bit, locally administered */
		{ 6, { 0 }, -ERANGE, NULL },
		{ 4, { 192, 0, 2, 1 }, 0, "192.0.2.1" },
		{ 4, { 224, 0, 1, 129 }, -ERANGE, NULL },
		{ 4, { 255, 255, 255, 255 }, -ERANGE, NULL },
		{ 16, { 0xfe, 0x80, [15] = 0x01 }, 0, "fe80::1" },
		{ 16, { 0xff, 0x02, [15] = 0x6b }, -ERANGE, NULL },
		{ 16, { 0 }, -ERANGE, NULL },
		{ 0, { 0 }, -EINVAL, NULL },
		{ 5, { 0x00, 0x11, 0x22, 0x33, 0x44 }, -EINVAL, NULL },
		{ 8, { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }, -EINVAL, NULL },
		{ 17, { 0 }, -EINVAL, NULL },
	};
	char buf[UNICAST_ADDR_STRLEN];
	uint8_t bytes[32] = { 0 };

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct unicast_addr a, t, untouched;
		int r;

		memset(&a, 0xa5, sizeof(a));
		memcpy(&untouched, &a, sizeof(a));
		memcpy(bytes, cases[k].b, sizeof(cases[k].b));
		r = unicast_addr_from_bytes(bytes, cases[k].len, &a);
		if (r != cases[k].r) {
			fail_msg("case %zu (%u bytes): expected %d, got %d", k, cases[k].len,
				 cases[k].r, r);
		}
		if (r < 0) {
			assert_memory_equal(&a, &untouched,
					    sizeof(a)); /* written only on success */
			continue;
		}
		assert_string_equal(unicast_addr_to_string(&a, buf), cases[k].text);
		assert_int_equal(unicast_addr_from_any_string(cases[k].text, &t), 0);
		assert_true(unicast_addr_equal(&a, &t));
	}
}

static void test_table(void **state)
{
	struct unicast_master_table t = { .table_id = 1 };
	struct unicast_addr a = ip4(192, 0, 2, 1);

	assert_int_equal(unicast_table_find(&t, &a), -ENOENT);
	assert_int_equal(unicast_table_add(&t, &a), 0);
	assert_int_equal(unicast_table_add(&t, &a), -EEXIST);
	assert_int_equal(unicast_table_find(&t, &a), 0);
	for (uint8_t i = 2; i <= UNICAST_TABLE_ADDRS_MAX; i++) {
		a = ip4(192, 0, 2, i);
		assert_int_equal(unicast_table_add(&t, &a), 0);
	}
	a = ip4(192, 0, 2, 200);
	assert_int_equal(unicast_table_add(&t, &a), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addresses_from_bytes),
		cmocka_unit_test(test_grantee_init_bounds),
		cmocka_unit_test(test_grantee_request),
		cmocka_unit_test(test_grantee_grant_and_renewal),
		cmocka_unit_test(test_grantee_denial_backoff),
		cmocka_unit_test(test_grantee_timeout),
		cmocka_unit_test(test_grantee_expiry),
		cmocka_unit_test(test_grantee_renewal_denied),
		cmocka_unit_test(test_grantee_cancel_received),
		cmocka_unit_test(test_grantee_forged),
		cmocka_unit_test(test_grantee_unwant_cancel_ack),
		cmocka_unit_test(test_grantee_shutdown),
		cmocka_unit_test(test_grantee_tick_bounded),
		cmocka_unit_test(test_grantor_new_bounds),
		cmocka_unit_test(test_grantor_grant_renew),
		cmocka_unit_test(test_grantor_denials),
		cmocka_unit_test(test_grantor_allow),
		cmocka_unit_test(test_grantor_table_full),
		cmocka_unit_test(test_grantor_expiry),
		cmocka_unit_test(test_grantor_cancel_received),
		cmocka_unit_test(test_grantor_forged),
		cmocka_unit_test(test_grantor_cancel_all),
		cmocka_unit_test(test_grantor_refuses),
		cmocka_unit_test(test_grantor_flood),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
