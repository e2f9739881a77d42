// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The port engine's 802.1AS behaviours over the in-memory link of port-link.h: asCapable
 * (802.1AS-2020 clause 11: delay threshold, lost responses, several responders), nothing sent
 * while not asCapable, the path trace TLV and loops dropped, the Follow_Up information TLV, and
 * the automotive profile's static roles (BMCA noop) with the operational interval request.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ptp/msg.h"
#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "ptp/tlv.h"
#include "tests/unit/port-link.h"

static int32_t thresh = 20 * 1000; /* neighborPropDelayThresh; LINK_DELAY is 3 us */

static void gptp_tweak(int idx, struct port_config *pc)
{
	pc->port.follow_up_info = true;
	pc->port.path_trace_enabled = true;
	pc->port.transportSpecific = 1;
	pc->port.delay_mechanism = DELAY_MECHANISM_P2P;
	pc->port.neighborPropDelayThresh = thresh;
}

static void gptp_link_ext(struct link *l, int32_t neighbor_thresh, bool external0)
{
	memset(l, 0, sizeof(*l));
	l->now = START;
	l->external[0] = external0;
	thresh = neighbor_thresh;
	l->tweak = gptp_tweak;
	side_init(l, 0, 100, 0.0, 0, DELAY_MECHANISM_P2P);
	side_init(l, 1, 200, 0.0, 0, DELAY_MECHANISM_P2P);
	assert_int_equal(port_start(l->s[0].port, l->now), 0);
	assert_int_equal(port_start(l->s[1].port, l->now), 0);
}

static void gptp_link(struct link *l, int32_t neighbor_thresh)
{
	gptp_link_ext(l, neighbor_thresh, false);
}

static uint64_t cnt(const struct link *l, int i, enum port_counter c)
{
	return port_get_counter(l->s[i].port, c);
}

/* A peer delay above neighborPropDelayThresh: neither side is asCapable, no time flows. */
static void test_delay_above_thresh(void **state)
{
	struct link l;

	gptp_link(&l, 800);
	link_run(&l, START + 20 * NS_PER_SEC);
	for (int i = 0; i < 2; i++) {
		assert_false(port_as_capable(l.s[i].port));
		assert_true(cnt(&l, i, PORT_CNT_TX_PDELAY_REQ) > 10);
		assert_true(cnt(&l, i, PORT_CNT_TX_PDELAY_RESP) > 10);
		assert_int_equal(cnt(&l, i, PORT_CNT_TX_SYNC), 0);
		assert_int_equal(cnt(&l, i, PORT_CNT_TX_ANNOUNCE), 0);
	}
	assert_true(port_get_state(l.s[0].port) == PORT_STATE_MASTER);
	assert_true(port_get_state(l.s[1].port) != PORT_STATE_SLAVE);
	link_free(&l);
}

/* Within the threshold: asCapable both ways, the slave synchronizes, Follow_Ups carry the TLV. */
static void test_as_capable_and_sync(void **state)
{
	struct link l;
	struct msg m;
	struct tlv_iter it;
	struct tlv t;
	struct tlv_follow_up_info fu;
	bool found = false;
	int r;

	gptp_link(&l, 20 * 1000);
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[0].port));
	assert_true(port_as_capable(l.s[1].port));
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_true(l.s[1].samples > 10);
	assert_int_equal(cnt(&l, 1, PORT_CNT_NOT_AS_CAPABLE), 0);

	/* The grandmaster's Follow_Up: the 802.1AS TLV, cumulativeScaledRateOffset 0. */
	assert_int_equal(msg_parse(l.s[0].sent[MSG_FOLLOW_UP], l.s[0].sent_len[MSG_FOLLOW_UP], &m),
			 0);
	tlv_iter_init(&it, m.tlv, m.tlv_len);
	TLV_FOREACH (r, &it, &t) {
		if (tlv_follow_up_info_parse(&t, &fu) == 0) {
			found = true;
			assert_int_equal(fu.cumulativeScaledRateOffset, 0);
		}
	}
	assert_int_equal(r, 0);
	assert_true(found);
	assert_int_equal(m.hdr.majorSdoId, 1);

	/* Pdelay_Req carries the requester's interval (802.1AS), not 0x7F. */
	assert_int_equal(
		msg_parse(l.s[1].sent[MSG_PDELAY_REQ], l.s[1].sent_len[MSG_PDELAY_REQ], &m), 0);
	assert_int_equal(m.hdr.logMessageInterval, 0);
	/* The slave knows the grandmaster's rate over its clock (upstream 1.0 times its nrr). */
	assert_true(port_gm_rate_ratio(l.s[1].port) > 0.999 &&
		    port_gm_rate_ratio(l.s[1].port) < 1.001);
	link_free(&l);
}

/* The parent's Follow_Up information TLV, cumulativeScaledRateOffset csro, into the slave. */
static void follow_up_info_in(struct port *p, int32_t csro)
{
	struct tlv_follow_up_info f = { .cumulativeScaledRateOffset = csro };
	struct tlv_builder b;
	uint8_t buf[64];
	struct msg m = { 0 };

	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_add_follow_up_info(&b, &f), 0);
	m.tlv = buf;
	m.tlv_len = tlv_builder_len(&b);
	port_follow_up_info_receive(p, &m);
}

/*
 * Issue 31, finding 1: a rate offset beyond any two clocks' (802.1AS-2020 B.1.1, +-200 ppm) is
 * not taken and counted as out_of_range; the one at the edge is taken; the grandmaster's rate
 * ratio the slave reports stays within what the IPC carries, whatever its link's rate.
 */
static void test_follow_up_info_bounded(void **state)
{
	struct link l;
	const double edge = PORT_FOLLOW_UP_RATE_MAX_DEVIATION * 2199023255552.0;
	struct port *s;
	uint64_t before;

	gptp_link(&l, 20 * 1000);
	link_run(&l, START + 30 * NS_PER_SEC);
	s = l.s[1].port;
	assert_int_equal(port_get_state(s), PORT_STATE_SLAVE);
	before = cnt(&l, 1, PORT_CNT_OUT_OF_RANGE);

	follow_up_info_in(s, INT32_MIN);
	assert_int_equal(cnt(&l, 1, PORT_CNT_OUT_OF_RANGE), before + 1);
	follow_up_info_in(s, INT32_MAX);
	assert_int_equal(cnt(&l, 1, PORT_CNT_OUT_OF_RANGE), before + 2);
	follow_up_info_in(s, (int32_t) edge + 1);
	assert_int_equal(cnt(&l, 1, PORT_CNT_OUT_OF_RANGE), before + 3);
	/* What was refused left the last sane rate: 1.0 times the link's. */
	assert_true(fabs(port_gm_rate_ratio(s) - s->pdreq.nrr) < 1e-12);

	follow_up_info_in(s, -(int32_t) edge);
	assert_int_equal(cnt(&l, 1, PORT_CNT_OUT_OF_RANGE), before + 3);
	assert_true(port_gm_rate_ratio(s) < 1.0 - PORT_FOLLOW_UP_RATE_MAX_DEVIATION / 2);

	/* A link rate at its bound times an upstream rate at its own: clamped to the IPC's. */
	for (int sign = -1; sign <= 1; sign += 2) {
		double r;

		s->pdreq.nrr = 1.0 + sign * (PORT_RATE_RATIO_MAX_DEVIATION - 1e-9);
		follow_up_info_in(s, sign * (int32_t) edge);
		r = port_gm_rate_ratio(s);
		/* exactly the IPC's bounds (common/ipc.c), as doubles */
		assert_true(r >= 1.0 - PORT_RATE_RATIO_MAX_DEVIATION &&
			    r <= 1.0 + PORT_RATE_RATIO_MAX_DEVIATION);
		assert_true(fabs(r - 1.0) > PORT_RATE_RATIO_MAX_DEVIATION - 1e-9);
	}
	link_free(&l);
}

/* More than allowedLostResponses (3) Pdelay_Req unanswered: not asCapable; answers restore it. */
static void test_lost_responses(void **state)
{
	struct link l;
	uint64_t before;

	gptp_link(&l, 20 * 1000);
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[1].port));
	l.drop_pdelay_resp = true;
	/* One request a second: three lost are still tolerated. */
	link_run(&l, l.now + 3 * NS_PER_SEC + NS_PER_SEC / 2);
	assert_true(port_as_capable(l.s[1].port));
	link_run(&l, l.now + 3 * NS_PER_SEC);
	assert_false(port_as_capable(l.s[1].port));
	/* Time stops flowing to it: what comes is ignored, counted. */
	before = cnt(&l, 1, PORT_CNT_NOT_AS_CAPABLE);
	link_run(&l, l.now + 2 * NS_PER_SEC);
	assert_true(cnt(&l, 1, PORT_CNT_NOT_AS_CAPABLE) > before);
	l.drop_pdelay_resp = false;
	link_run(&l, l.now + 5 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[1].port));
	link_free(&l);
}

/* Several responders to each Pdelay_Req (802.1AS: one), three times in a row: not asCapable. */
static void test_multiple_responders(void **state)
{
	struct link l;

	gptp_link(&l, 20 * 1000);
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[1].port));
	l.dup_pdelay_resp = true;
	link_run(&l, l.now + 2 * NS_PER_SEC + NS_PER_SEC / 2);
	assert_true(port_as_capable(l.s[1].port));
	link_run(&l, l.now + 3 * NS_PER_SEC);
	assert_false(port_as_capable(l.s[1].port));
	l.dup_pdelay_resp = false;
	link_run(&l, l.now + 5 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[1].port));
	link_free(&l);
}

/* asCapable true (the automotive profile) holds whatever the link measures. */
static void as_capable_true_tweak(int idx, struct port_config *pc)
{
	gptp_tweak(idx, pc);
	pc->port.asCapable = OPTIONS_AS_CAPABLE_TRUE;
}

static void test_as_capable_true(void **state)
{
	struct link l;

	memset(&l, 0, sizeof(l));
	l.now = START;
	thresh = 800;
	l.tweak = as_capable_true_tweak;
	side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_P2P);
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_P2P);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_true(port_as_capable(l.s[1].port));
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	link_free(&l);
}

/* The path trace TLV of an Announce: the identities in it, or -1 without one. */
static int path_of(const uint8_t *buf, size_t len, struct ClockIdentity *ids, size_t max)
{
	struct msg m;
	struct tlv_iter it;
	struct tlv t;
	int r;

	assert_int_equal(msg_parse(buf, len, &m), 0);
	tlv_iter_init(&it, m.tlv, m.tlv_len);
	TLV_FOREACH (r, &it, &t) {
		struct tlv_path_trace pt;

		if (tlv_path_trace_parse(&t, &pt) == 0) {
			for (size_t i = 0; i < pt.count && i < max; i++) {
				tlv_path_trace_get(&pt, i, &ids[i]);
			}
			return (int) pt.count;
		}
	}
	return -1;
}

/* A grandmaster's Announce carries the path [itself]; one holding our identity is a loop. */
static void test_path_trace(void **state)
{
	struct link l;
	struct ClockIdentity ids[4];
	struct PortIdentity gm = { 0 };
	struct msg m;
	uint8_t tlv[64], frame[FRAME_MAX];
	struct tlv_builder b;
	ssize_t n;
	uint64_t rx;

	gptp_link(&l, 20 * 1000);
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_int_equal(path_of(l.s[0].sent[MSG_ANNOUNCE], l.s[0].sent_len[MSG_ANNOUNCE], ids, 4),
			 1);
	assert_true(clock_identity_equal(&ids[0], &port_default_ds(l.s[0].port)->clockIdentity));

	/* A loop: the master's Announce, with a path that went through the slave already. */
	ids[1] = port_default_ds(l.s[1].port)->clockIdentity;
	assert_int_equal(msg_parse(l.s[0].sent[MSG_ANNOUNCE], l.s[0].sent_len[MSG_ANNOUNCE], &m),
			 0);
	tlv_builder_init(&b, tlv, sizeof(tlv));
	assert_int_equal(tlv_builder_add_path_trace(&b, ids, 2), 0);
	m.tlv = tlv;
	m.tlv_len = tlv_builder_len(&b);
	m.hdr.sequenceId += 100;
	n = msg_build(&m, frame, sizeof(frame));
	assert_true(n > 0);
	rx = cnt(&l, 1, PORT_CNT_RX_ANNOUNCE);
	assert_int_equal(port_receive(l.s[1].port, frame, (size_t) n, PORT_TS_NONE, l.now), 0);
	assert_int_equal(cnt(&l, 1, PORT_CNT_PATH_TRACE_LOOP), 1);
	assert_int_equal(cnt(&l, 1, PORT_CNT_RX_ANNOUNCE), rx + 1);

	/* The slave's Erbest has the master's path, which a boundary clock would relay. */
	{
		struct bmca_dataset ds;
		struct timePropertiesDS tp;
		struct port_path_trace path;

		assert_int_equal(port_get_erbest(l.s[1].port, l.now, &ds, &tp, &path), 0);
		assert_int_equal(path.n, 1);
		assert_false(path.overflow);
		assert_true(clock_identity_equal(&path.ids[0],
						 &port_default_ds(l.s[0].port)->clockIdentity));
	}
	(void) gm;
	link_free(&l);
}

/* A boundary clock's MASTER relays the parent's path with itself added (16.2.3). */
static void test_path_trace_relayed(void **state)
{
	struct link l;
	struct ClockIdentity ids[4];
	struct port_path_trace path = { .n = 2 };
	struct parentDS pds;
	struct timePropertiesDS tp = { 0 };

	/* Side 0 under a (simulated) supervisor: grandmaster first (M1), with no path. */
	gptp_link_ext(&l, 20 * 1000, true);
	assert_int_equal(port_apply_decision(l.s[0].port, BMCA_DECISION_M1, 0,
					     port_parent_ds(l.s[0].port), &tp, NULL, l.now),
			 0);
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	/* Side 0 told (as a supervisor would) it is M3 under a grandmaster two hops up. */
	memset(&pds, 0, sizeof(pds));
	memset(&pds.grandmasterIdentity, 0x77, sizeof(pds.grandmasterIdentity));
	memset(&path.ids[0], 0x77, sizeof(path.ids[0]));
	memset(&path.ids[1], 0x66, sizeof(path.ids[1]));
	pds.grandmasterPriority1 = 1;
	pds.parentPortIdentity.clockIdentity = path.ids[1];
	pds.parentPortIdentity.portNumber = 1;
	assert_int_equal(
		port_apply_decision(l.s[0].port, BMCA_DECISION_M3, 2, &pds, &tp, &path, l.now), 0);
	port_set_gm_rate_ratio(l.s[0].port, 1.0 + 10e-6);
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(path_of(l.s[0].sent[MSG_ANNOUNCE], l.s[0].sent_len[MSG_ANNOUNCE], ids, 4),
			 3);
	assert_true(clock_identity_equal(&ids[0], &path.ids[0]));
	assert_true(clock_identity_equal(&ids[1], &path.ids[1]));
	assert_true(clock_identity_equal(&ids[2], &port_default_ds(l.s[0].port)->clockIdentity));
	/* And its Follow_Up the grandmaster's rate over its clock: 10 ppm * 2^41. */
	{
		struct msg m;
		struct tlv_iter it;
		struct tlv t;
		struct tlv_follow_up_info fu;
		int r;
		bool found = false;

		assert_int_equal(
			msg_parse(l.s[0].sent[MSG_FOLLOW_UP], l.s[0].sent_len[MSG_FOLLOW_UP], &m),
			0);
		tlv_iter_init(&it, m.tlv, m.tlv_len);
		TLV_FOREACH (r, &it, &t) {
			if (tlv_follow_up_info_parse(&t, &fu) == 0) {
				found = true;
			}
		}
		assert_true(found);
		assert_true(fu.cumulativeScaledRateOffset > 21990232 - 2 &&
			    fu.cumulativeScaledRateOffset < 21990232 + 2);
	}
	link_free(&l);
}

/* automotive: a designated master and a designated slave, no Announce either way. */
static void automotive_tweak(int idx, struct port_config *pc)
{
	gptp_tweak(idx, pc);
	pc->port.BMCA = OPTIONS_BMCA_NOOP;
	pc->port.inhibit_announce = true;
	pc->port.asCapable = OPTIONS_AS_CAPABLE_TRUE;
	pc->port.logSyncInterval = -3;
	if (idx == 0) {
		pc->port.masterOnly = true;
		pc->port.inhibit_delay_req = true;
	} else {
		pc->instance.slaveOnly = true;
		pc->port.ignore_source_id = true;
		pc->port.msg_interval_request = true;
		pc->port.operLogSyncInterval = 0;
		pc->port.operLogPdelayReqInterval = 2;
		pc->instance.servo.servo_offset_threshold = 1000;
		pc->instance.servo.servo_num_offset_values = 10;
	}
}

static void test_automotive(void **state)
{
	struct link l;
	uint64_t syncs;

	memset(&l, 0, sizeof(l));
	l.now = START;
	thresh = 800;
	l.tweak = automotive_tweak;
	side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_P2P);
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_P2P);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_get_state(l.s[0].port), PORT_STATE_MASTER);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_UNCALIBRATED);
	link_run(&l, START + 30 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_true(port_servo_stable(l.s[1].port));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cnt(&l, i, PORT_CNT_TX_ANNOUNCE), 0);
	}
	/* The master never asks the link's delay; the slave does. */
	assert_int_equal(cnt(&l, 0, PORT_CNT_TX_PDELAY_REQ), 0);
	assert_true(cnt(&l, 1, PORT_CNT_TX_PDELAY_REQ) > 0);
	/* Stable: the slave asked for Sync once a second, and the master obliged. */
	assert_int_equal(cnt(&l, 1, PORT_CNT_TX_SIGNALING), 1);
	assert_int_equal(cnt(&l, 0, PORT_CNT_RX_SIGNALING), 1);
	assert_int_equal(port_port_ds(l.s[0].port)->logSyncInterval, 0);
	assert_int_equal(port_port_ds(l.s[1].port)->logMinPdelayReqInterval, 2);
	syncs = cnt(&l, 0, PORT_CNT_TX_SYNC);
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_true(cnt(&l, 0, PORT_CNT_TX_SYNC) - syncs <= 11);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	/* No supervisor decision moves a static role. */
	{
		struct parentDS pds = *port_parent_ds(l.s[1].port);
		struct timePropertiesDS tp = { 0 };

		assert_int_equal(port_apply_decision(l.s[1].port, BMCA_DECISION_M1, 0, &pds, &tp,
						     NULL, l.now),
				 0);
		assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	}
	link_free(&l);
}

/* gmCapable 0: priority1 counts as 255, and a port alone on its link never becomes master. */
static void not_gm_capable_tweak(int idx, struct port_config *pc)
{
	gptp_tweak(idx, pc);
	pc->instance.gmCapable = false;
}

static void test_not_gm_capable(void **state)
{
	struct link l;

	memset(&l, 0, sizeof(l));
	l.now = START;
	thresh = 20 * 1000;
	l.tweak = not_gm_capable_tweak;
	side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_P2P);
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_P2P);
	assert_int_equal(port_default_ds(l.s[0].port)->priority1, 255);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	link_run(&l, START + 30 * NS_PER_SEC);
	/* Nobody can be grandmaster: both listen, measure the link, send no time. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(port_get_state(l.s[i].port), PORT_STATE_LISTENING);
		assert_true(port_as_capable(l.s[i].port));
		assert_int_equal(cnt(&l, i, PORT_CNT_TX_SYNC), 0);
		assert_int_equal(cnt(&l, i, PORT_CNT_TX_ANNOUNCE), 0);
	}
	/* A SET PRIORITY1 (management, D-Bus) keeps the rule: still 255, and still no master. */
	assert_int_equal(port_set_priorities(l.s[0].port, 100, 99, l.now), 0);
	assert_int_equal(port_default_ds(l.s[0].port)->priority1, 255);
	assert_int_equal(port_default_ds(l.s[0].port)->priority2, 99);
	assert_int_equal(port_get_instance_options(l.s[0].port)->priority1, 100);
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[0].port), PORT_STATE_LISTENING);
	assert_int_equal(cnt(&l, 0, PORT_CNT_TX_ANNOUNCE), 0);
	link_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay_above_thresh),
		cmocka_unit_test(test_as_capable_and_sync),
		cmocka_unit_test(test_lost_responses),
		cmocka_unit_test(test_follow_up_info_bounded),
		cmocka_unit_test(test_multiple_responders),
		cmocka_unit_test(test_as_capable_true),
		cmocka_unit_test(test_path_trace),
		cmocka_unit_test(test_path_trace_relayed),
		cmocka_unit_test(test_automotive),
		cmocka_unit_test(test_not_gm_capable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
