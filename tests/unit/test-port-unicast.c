// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unicast negotiation (IEEE 1588-2019 16.1) driven by the port engine (ptp/port-unicast.c), two
 * ports back to back (port-link.c): side 0 a grantor (unicast_listen, inhibit_multicast_service),
 * side 1 a grantee whose unicast master table names side 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/msg.h"
#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "ptp/tlv.h"
#include "ptp/unicast-tlv.h"
#include "tests/unit/port-link.h"

/* Side 0 grantor, side 1 its grantee, over UDPv4 or (mac) L2, addressed as side_address() says. */
static void tweak(int idx, struct port_config *pc, bool mac)
{
	pc->port.network_transport = mac ? OPTIONS_TRANSPORT_L2 : OPTIONS_TRANSPORT_UDPV4;
	pc->port.unicast_req_duration = 60;
	pc->port.unicast_peers_max = 16;
	if (idx == 0) {
		pc->port.unicast_listen = true;
		pc->port.inhibit_multicast_service = true;
	} else {
		struct port_address a;

		side_address(mac, 0, &a);
		pc->port.unicast_master_table = 1;
		pc->port.unicast_table = (struct unicast_master_table){
			.table_id = 1,
			.logQueryInterval = 0,
			.n = 1,
		};
		assert_int_equal(
			unicast_addr_from_bytes(a.bytes, a.len, &pc->port.unicast_table.addr[0]),
			0);
	}
}

static void tweak_udp(int idx, struct port_config *pc)
{
	tweak(idx, pc, false);
}

static void tweak_l2(int idx, struct port_config *pc)
{
	tweak(idx, pc, true);
}

/* The grantor and its grantee over UDPv4, or (mac) over L2, their MACs as addresses. */
static void link_unicast(struct link *l, bool refuse, bool mac)
{
	memset(l, 0, sizeof(*l));
	l->mac = mac;
	l->tweak = mac ? tweak_l2 : tweak_udp;
	l->servo = SERVO_TYPE_PI;
	l->now = START;
	side_init(l, 0, 100, 1000.0, 0, DELAY_MECHANISM_E2E);
	side_init(l, 1, 200, 0.0, NS_PER_MSEC, DELAY_MECHANISM_E2E);
	l->s[0].refuse_unicast = l->s[1].refuse_unicast = refuse;
	assert_int_equal(port_start(l->s[0].port, l->now), 0);
	assert_int_equal(port_start(l->s[1].port, l->now), 0);
}

/*
 * Both ends negotiate: the slave asks for Announce, then Sync and Delay_Resp of the master it
 * selected, and synchronizes; every Announce and Sync of the master goes unicast (none to the
 * group: inhibit_multicast_service), its Delay_Resp too, the Delay_Req of the slave too.
 */
static void negotiated(bool mac)
{
	uint64_t gm[_PORT_UC_MAX], gs[_PORT_UC_MAX];
	struct side *m, *s;
	struct link l;

	link_unicast(&l, false, mac);
	m = &l.s[0];
	s = &l.s[1];
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	if (llabs(link_error(&l)) > 200) {
		fail_msg("error %lld ns, expected within 200", (long long) link_error(&l));
	}
	port_unicast_counters(m->port, gm);
	port_unicast_counters(s->port, gs);
	/* Announce, Sync, Delay_Resp: asked, granted. */
	assert_true(gs[PORT_UC_REQUESTS_SENT] >= 3);
	assert_true(gs[PORT_UC_GRANTS_RECEIVED] >= 3);
	assert_true(gm[PORT_UC_GRANTS_GIVEN] >= 3);
	assert_int_equal(gs[PORT_UC_DENIALS_RECEIVED], 0);
	assert_int_equal(gm[PORT_UC_DENIED_TABLE_FULL] + gm[PORT_UC_DENIED_TYPE], 0);
	/* Every Announce and Sync of the master unicast: none to the group. */
	assert_true(m->unicast_tx[MSG_SYNC] > 30); /* 1 a second, once granted */
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_SYNC), m->unicast_tx[MSG_SYNC]);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_ANNOUNCE),
			 m->unicast_tx[MSG_ANNOUNCE]);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_FOLLOW_UP),
			 m->unicast_tx[MSG_FOLLOW_UP]);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_DELAY_RESP),
			 m->unicast_tx[MSG_DELAY_RESP]);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_DELAY_REQ),
			 s->unicast_tx[MSG_DELAY_REQ]);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_SIGNALING),
			 s->unicast_tx[MSG_SIGNALING]);
	for (int t = 0; t < 16; t++) {
		assert_int_equal(m->group_flagged_tx[t] + s->group_flagged_tx[t], 0);
	}
	assert_int_equal(m->unicast_misaddressed + s->unicast_misaddressed, 0);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_ERROR), 0);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_ERROR), 0);
	/* Going away: each side cancels its three grants (16.1.3), unicast. */
	for (int k = 0; k < 2; k++) {
		unsigned before = l.s[k].unicast_tx[MSG_SIGNALING];

		assert_int_equal(port_shutdown(l.s[k].port, l.now), 0);
		if (l.s[k].unicast_tx[MSG_SIGNALING] != before + 3) {
			fail_msg("side %d: %u Signaling at shutdown, expected 3 CANCELs", k,
				 l.s[k].unicast_tx[MSG_SIGNALING] - before);
		}
	}
	link_free(&l);
}

static void test_negotiated(void **state)
{
	negotiated(false);
}

/* The same over L2: the peers' MACs as their addresses, the engine's one machine for both. */
static void test_negotiated_l2(void **state)
{
	negotiated(true);
}

/* The granted flows of one side's single peer: Announce, Sync, Delay_Resp, with time left. */
static void assert_granted(const struct port_uc_entry *e, enum port_uc_role role, int peer_side,
			   bool mac)
{
	struct port_address a;

	side_address(mac, peer_side, &a);
	assert_int_equal(e->role, role);
	assert_int_equal(e->addr.family, mac ? UNICAST_FAMILY_L2 : UNICAST_FAMILY_IPV4);
	assert_int_equal(e->addr.len, a.len);
	assert_memory_equal(e->addr.bytes, a.bytes, a.len);
	for (int k = UNICAST_MT_ANNOUNCE; k <= UNICAST_MT_DELAY_RESP; k++) {
		assert_int_equal(e->mt[k].state, PORT_UC_GRANTED);
		/* unicast_req_duration 60: renewed before it runs out, never more than asked */
		if (e->mt[k].seconds_left < 1 || e->mt[k].seconds_left > 60) {
			fail_msg("%s: type %d has %u s left, expected 1..60",
				 port_uc_role_to_string(role), k, e->mt[k].seconds_left);
		}
	}
	assert_int_equal(e->mt[UNICAST_MT_PDELAY_RESP].state, PORT_UC_NONE);
	assert_int_equal(e->mt[UNICAST_MT_PDELAY_RESP].seconds_left, 0);
}

/* The table D-Bus shows (port_unicast_table()): each side names the other, three flows granted. */
static void table(bool mac)
{
	struct port_uc_entry e[2];
	struct link l;

	link_unicast(&l, false, mac);
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_unicast_table(l.s[1].port, l.now, e, 2), 1);
	assert_granted(&e[0], PORT_UC_GRANTEE, 0, mac);
	assert_int_equal(port_unicast_table(l.s[0].port, l.now, e, 2), 1);
	assert_granted(&e[0], PORT_UC_GRANTOR, 1, mac);
	/* No room: the count, nothing written. */
	memset(e, 0xa5, sizeof(e));
	assert_int_equal(port_unicast_table(l.s[0].port, l.now, e, 0), 1);
	assert_int_equal(e[0].role, (enum port_uc_role) 0xa5a5a5a5);
	/* Past every grant's end (no tick ran, nothing renewed): no time left is claimed. */
	assert_int_equal(port_unicast_table(l.s[1].port, l.now + 61 * NS_PER_SEC, e, 2), 1);
	assert_int_equal(e[0].mt[UNICAST_MT_SYNC].seconds_left, 0);
	assert_string_equal(port_uc_state_to_string(e[0].mt[UNICAST_MT_SYNC].state), "granted");
	link_free(&l);
}

static void test_table(void **state)
{
	table(false);
}

static void test_table_l2(void **state)
{
	table(true);
}

/*
 * No way to the peer (its sockets never come: -ENOTCONN): nothing of the negotiation falls back
 * to the group, no fault; the grantee asks again with backoff and never synchronizes.
 */
static void test_no_fallback(void **state)
{
	uint64_t gs[_PORT_UC_MAX];
	struct side *m, *s;
	struct link l;

	link_unicast(&l, true, false);
	m = &l.s[0];
	s = &l.s[1];
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_not_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	assert_int_not_equal(port_get_state(s->port), PORT_STATE_UNCALIBRATED);
	port_unicast_counters(s->port, gs);
	/* Asked at 0, then after 1 + 2, 1 + 4, ... (logQueryInterval 0): a handful in 60 s. */
	assert_true(gs[PORT_UC_REQUESTS_SENT] >= 4);
	assert_true(gs[PORT_UC_REQUESTS_SENT] <= 8);
	assert_int_equal(gs[PORT_UC_GRANTS_RECEIVED], 0);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_SIGNALING), 0);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_SYNC), 0);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_ANNOUNCE), 0);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_TX_ERROR), 0);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_ERROR), 0);
	link_free(&l);
}

/* A Signaling message from src with one negotiation TLV (tlvType, for mt), into buf. */
static size_t signaling_from(const struct PortIdentity *src, uint16_t tlvType, enum msg_type mt,
			     uint16_t seq, uint8_t *buf, size_t size)
{
	struct unicast_tlv u = {
		.tlvType = tlvType,
		.messageType = mt,
		.durationField = tlvType == TLV_REQUEST_UNICAST_TRANSMISSION ? 60 : 0,
	};
	uint8_t tlv[32];
	struct tlv_builder b;
	struct msg m;
	ssize_t n;

	tlv_builder_init(&b, tlv, sizeof(tlv));
	assert_int_equal(unicast_tlv_build(&b, &u), 0);
	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_SIGNALING, 0, src, seq);
	memset(&m.body.signaling.targetPortIdentity, 0xff,
	       sizeof(m.body.signaling.targetPortIdentity));
	m.tlv = tlv;
	m.tlv_len = tlv_builder_len(&b);
	n = msg_build(&m, buf, size);
	assert_true(n > 0);
	return (size_t) n;
}

/* A REQUEST for Announce from addr with a sourcePortIdentity of its own, into buf. */
static size_t request_from(uint32_t k, uint8_t *buf, size_t size)
{
	struct PortIdentity src = { .portNumber = 1 };

	src.clockIdentity.id[0] = 0x0a;
	memcpy(&src.clockIdentity.id[4], &k, sizeof(k));
	return signaling_from(&src, TLV_REQUEST_UNICAST_TRANSMISSION, MSG_ANNOUNCE, (uint16_t) k,
			      buf, size);
}

/*
 * A grant-request flood from 5000 addresses against the grantor while it serves its slave: the
 * work per new address is rate limited, the table holds at most its 16 places (the slave's among
 * them), the rest is denied as table_full and counted, and the slave stays synchronized.
 */
static void test_request_flood(void **state)
{
	uint64_t gm[_PORT_UC_MAX];
	struct side *m, *s;
	struct link l;
	uint8_t buf[FRAME_MAX];

	link_unicast(&l, false, false);
	m = &l.s[0];
	s = &l.s[1];
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	for (uint32_t k = 0; k < 5000; k++) {
		struct port_address from = { 4, { 198, 51, (uint8_t) (k >> 8), (uint8_t) k } };
		size_t n = request_from(k, buf, sizeof(buf));

		assert_int_equal(port_receive_from(m->port, buf, n, PORT_TS_NONE, &from, l.now), 0);
		if (k % 50 == 49) {
			link_run(&l, l.now + 100 * NS_PER_MSEC);
		}
	}
	link_run(&l, l.now + 10 * NS_PER_SEC);
	port_unicast_counters(m->port, gm);
	/* 20 a second after a burst of 40 over 10 s: about 240 taken, the rest refused early. */
	assert_true(gm[PORT_UC_RATE_LIMITED] > 4000);
	assert_true(gm[PORT_UC_DENIED_TABLE_FULL] > 100);
	/* 15 places for strangers (the slave holds one); each holds an Announce grant. */
	assert_true(gm[PORT_UC_GRANTS_GIVEN] < 40);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	if (llabs(link_error(&l)) > 200) {
		fail_msg("error %lld ns after the flood, expected within 200",
			 (long long) link_error(&l));
	}
	link_free(&l);
}

/*
 * REQUESTs over L2 from what no single peer sends from (a group MAC: 802.3's multicast bit, the
 * broadcast, PTP's own group; the zero MAC) while the grantor serves its slave: none gets a
 * GRANT (it would go to the group) nor a place in the table, each is counted, the slave stays.
 */
static void test_group_source(void **state)
{
	static const struct port_address bad[] = {
		{ 6, { 0x01, 0x1b, 0x19, 0, 0, 0 } },
		{ 6, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ 6, { 0x03, 0, 0, 0, 0, 0x01 } },
		{ 6, { 0 } },
	};
	uint64_t before[_PORT_UC_MAX], after[_PORT_UC_MAX];
	struct port_uc_entry e[2];
	uint8_t buf[FRAME_MAX];
	unsigned signaling;
	uint64_t unsupported;
	struct side *m;
	struct link l;

	link_unicast(&l, false, true);
	m = &l.s[0];
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	port_unicast_counters(m->port, before);
	signaling = m->unicast_tx[MSG_SIGNALING];
	unsupported = port_get_counter(m->port, PORT_CNT_UNSUPPORTED);
	for (uint32_t k = 0; k < ARRAY_SIZE(bad); k++) {
		size_t n = request_from(k, buf, sizeof(buf));

		assert_int_equal(port_receive_from(m->port, buf, n, PORT_TS_NONE, &bad[k], l.now),
				 0);
	}
	/* Nothing answered them; only the slave's renewals, unicast to the slave, went out. */
	assert_int_equal(m->unicast_tx[MSG_SIGNALING], signaling);
	assert_int_equal(m->unicast_misaddressed, 0);
	assert_int_equal(port_get_counter(m->port, PORT_CNT_UNSUPPORTED),
			 unsupported + ARRAY_SIZE(bad));
	port_unicast_counters(m->port, after);
	assert_int_equal(after[PORT_UC_GRANTS_GIVEN], before[PORT_UC_GRANTS_GIVEN]);
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_unicast_table(m->port, l.now, e, 2), 1);
	assert_granted(&e[0], PORT_UC_GRANTOR, 1, true);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_int_equal(m->unicast_misaddressed, 0);
	link_free(&l);
}

/* Side sd's last frame of type t, sent by src instead, a better Announce, a time 1000 s off. */
static size_t forge(const struct side *sd, enum msg_type t, const struct PortIdentity *src,
		    uint8_t *buf)
{
	struct msg m;
	ssize_t n;

	assert_true(sd->sent_len[t] > 0);
	assert_int_equal(msg_parse(sd->sent[t], sd->sent_len[t], &m), 0);
	m.hdr.sourcePortIdentity = *src;
	if (t == MSG_ANNOUNCE) {
		m.body.announce.grandmasterPriority1 = 0;
		m.body.announce.grandmasterIdentity = src->clockIdentity;
	}
	m.body.sync.originTimestamp.secondsField += 1000; /* Sync */
	m.body.follow_up.preciseOriginTimestamp.secondsField += 1000;
	n = msg_build(&m, buf, FRAME_MAX);
	assert_true(n > 0);
	return (size_t) n;
}

/* Deliver a frame to side sd from the address from, stamped now. */
static void deliver(struct link *l, struct side *sd, const uint8_t *buf, size_t n,
		    const struct port_address *from)
{
	ns_t rx;

	assert_int_equal(clock_get_time(sd->clk, &rx), 0);
	assert_int_equal(port_receive_from(sd->port, buf, n, rx, from, l->now), 0);
}

/*
 * Strangers at the negotiation (16.1): a better Announce, Sync and Follow_Up 1000 s off and a
 * Delay_Resp to the grantee from an address outside its table, from the master's address under
 * another portIdentity, and from another address under the master's portIdentity; CANCELs of
 * the grantee's grants from the master's address under another portIdentity, and from another
 * address; to the grantor a CANCEL and a Delay_Req from the grantee's address under another
 * portIdentity. Each is counted (not_granted, forged, cancels_unknown) and dropped: the grantee
 * stays SLAVE of its master within 200 ns, every grant runs, no Delay_Resp goes to the stranger.
 */
static void test_strangers(void **state)
{
	static const enum msg_type types[] = { MSG_ANNOUNCE, MSG_SYNC, MSG_FOLLOW_UP,
					       MSG_DELAY_RESP };
	static const enum msg_type granted[] = { MSG_ANNOUNCE, MSG_SYNC, MSG_DELAY_RESP };
	struct PortIdentity stranger = {
		.clockIdentity = { { 0x0a, 0xf1, 0, 0xff, 0xfe, 0, 0, 9 } }, .portNumber = 1
	};
	struct port_address m_addr, s_addr, x_addr = { 4, { 192, 0, 2, 66 } };
	uint64_t gm[_PORT_UC_MAX], gs[_PORT_UC_MAX];
	struct PortIdentity m_pid, parent;
	struct port_uc_entry e[2];
	uint8_t buf[FRAME_MAX];
	unsigned resp_before;
	struct side *m, *s;
	struct link l;
	size_t n;

	link_unicast(&l, false, false);
	m = &l.s[0];
	s = &l.s[1];
	side_address(false, 0, &m_addr);
	side_address(false, 1, &s_addr);
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	m_pid = port_port_ds(m->port)->portIdentity;
	parent = port_parent_ds(s->port)->parentPortIdentity;
	assert_true(port_identity_equal(&parent, &m_pid));
	resp_before = m->unicast_tx[MSG_DELAY_RESP];
	for (int round = 0; round < 10; round++) {
		struct PortIdentity other_port = m_pid;

		other_port.portNumber++;
		for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
			n = forge(m, types[k], &stranger, buf);
			deliver(&l, s, buf, n, &x_addr);
			deliver(&l, s, buf, n, &m_addr);
			n = forge(m, types[k], &m_pid, buf);
			deliver(&l, s, buf, n, &x_addr);
			n = forge(m, types[k], &other_port, buf);
			deliver(&l, s, buf, n, &m_addr);
		}
		for (size_t k = 0; k < ARRAY_SIZE(granted); k++) {
			n = signaling_from(&stranger, TLV_CANCEL_UNICAST_TRANSMISSION, granted[k],
					   (uint16_t) round, buf, sizeof(buf));
			deliver(&l, s, buf, n, &m_addr);
			n = signaling_from(&m_pid, TLV_CANCEL_UNICAST_TRANSMISSION, granted[k],
					   (uint16_t) round, buf, sizeof(buf));
			deliver(&l, s, buf, n, &x_addr);
			n = signaling_from(&stranger, TLV_CANCEL_UNICAST_TRANSMISSION, granted[k],
					   (uint16_t) round, buf, sizeof(buf));
			deliver(&l, m, buf, n, &s_addr);
		}
		n = forge(s, MSG_DELAY_REQ, &stranger, buf);
		deliver(&l, m, buf, n, &s_addr);
		link_run(&l, l.now + NS_PER_SEC);
	}
	port_unicast_counters(m->port, gm);
	port_unicast_counters(s->port, gs);
	/* Grantee: 4 types from 4 senders a round; 3 CANCELs from each of 2; grantor: 3 and 1. */
	assert_int_equal(gs[PORT_UC_NOT_GRANTED], 10 * 4 * 4);
	assert_int_equal(gs[PORT_UC_FORGED], 10 * 3);
	assert_int_equal(gs[PORT_UC_CANCELS_UNKNOWN], 10 * 3);
	assert_int_equal(gs[PORT_UC_CANCELS_RECEIVED], 0);
	assert_int_equal(gm[PORT_UC_FORGED], 10 * 3);
	assert_int_equal(gm[PORT_UC_NOT_GRANTED], 10);
	assert_int_equal(gm[PORT_UC_CANCELS_RECEIVED], 0);
	assert_int_equal(m->unicast_misaddressed, 0);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	parent = port_parent_ds(s->port)->parentPortIdentity;
	assert_true(port_identity_equal(&parent, &m_pid));
	if (llabs(link_error(&l)) > 200) {
		fail_msg("error %lld ns after the strangers, expected within 200",
			 (long long) link_error(&l));
	}
	/* The slave's own Delay_Req are still answered; the stranger's were not. */
	if (m->unicast_tx[MSG_DELAY_RESP] - resp_before > 12) {
		fail_msg("%u Delay_Resp in 10 s, expected the slave's only (1 a second)",
			 m->unicast_tx[MSG_DELAY_RESP] - resp_before);
	}
	assert_int_equal(port_unicast_table(s->port, l.now, e, 2), 1);
	assert_granted(&e[0], PORT_UC_GRANTEE, 0, false);
	assert_int_equal(port_unicast_table(m->port, l.now, e, 2), 1);
	assert_granted(&e[0], PORT_UC_GRANTOR, 1, false);
	link_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiated),   cmocka_unit_test(test_negotiated_l2),
		cmocka_unit_test(test_no_fallback),  cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_l2),     cmocka_unit_test(test_request_flood),
		cmocka_unit_test(test_group_source), cmocka_unit_test(test_strangers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
