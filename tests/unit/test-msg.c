// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of message parse/build: round trips, real ptp4l captures, and every rejection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"
#include "ptp/util.h"
#include "tests/unit/hex.h"

static const struct PortIdentity src = {
	.clockIdentity = { { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 } },
	.portNumber = 3,
};
static const struct PortIdentity peer = {
	.clockIdentity = { { 0x66, 0x77, 0x88, 0xff, 0xfe, 0x99, 0xaa, 0xbb } },
	.portNumber = 0xfffe,
};
static const struct Timestamp ts = { .secondsField = 0xfedcba987654,
				     .nanosecondsField = 999999999 };

/* One message of each type with every body field set to something other than zero. */
static void make(enum msg_type type, struct msg *m)
{
	memset(m, 0, sizeof(*m));
	msg_header_init(&m->hdr, type, 24, &src, 0xbeef);
	m->hdr.majorSdoId = 0x1;
	m->hdr.minorVersionPTP = 1;
	m->hdr.minorSdoId = 0x5a;
	m->hdr.flagField = MSG_FLAG_TWO_STEP | MSG_FLAG_UNICAST | MSG_FLAG_PTP_TIMESCALE;
	m->hdr.correctionField = -123456789;
	m->hdr.messageTypeSpecific = 0xa5a5a5a5;
	switch (type) {
	case MSG_SYNC:
		m->body.sync.originTimestamp = ts;
		break;
	case MSG_DELAY_REQ:
		m->body.delay_req.originTimestamp = ts;
		break;
	case MSG_PDELAY_REQ:
		m->body.pdelay_req.originTimestamp = ts;
		break;
	case MSG_FOLLOW_UP:
		m->body.follow_up.preciseOriginTimestamp = ts;
		break;
	case MSG_DELAY_RESP:
		m->body.delay_resp.receiveTimestamp = ts;
		m->body.delay_resp.requestingPortIdentity = peer;
		break;
	case MSG_PDELAY_RESP:
		m->body.pdelay_resp.requestReceiptTimestamp = ts;
		m->body.pdelay_resp.requestingPortIdentity = peer;
		break;
	case MSG_PDELAY_RESP_FOLLOW_UP:
		m->body.pdelay_resp_follow_up.responseOriginTimestamp = ts;
		m->body.pdelay_resp_follow_up.requestingPortIdentity = peer;
		break;
	case MSG_ANNOUNCE:
		m->body.announce = (struct msg_announce){
			.originTimestamp = ts,
			.currentUtcOffset = -37,
			.grandmasterPriority1 = 100,
			.grandmasterClockQuality = { 6, 0x21, 0x4e5d },
			.grandmasterPriority2 = 200,
			.grandmasterIdentity = peer.clockIdentity,
			.stepsRemoved = 0x1234,
			.timeSource = 0x20,
		};
		break;
	case MSG_SIGNALING:
		m->body.signaling.targetPortIdentity = peer;
		break;
	case MSG_MANAGEMENT:
		m->body.management = (struct msg_management){
			.targetPortIdentity = peer,
			.startingBoundaryHops = 3,
			.boundaryHops = 2,
			.actionField = MSG_MANAGEMENT_COMMAND,
		};
		break;
	}
}

static const enum msg_type all_types[] = {
	MSG_SYNC,
	MSG_DELAY_REQ,
	MSG_PDELAY_REQ,
	MSG_PDELAY_RESP,
	MSG_FOLLOW_UP,
	MSG_DELAY_RESP,
	MSG_PDELAY_RESP_FOLLOW_UP,
	MSG_ANNOUNCE,
	MSG_SIGNALING,
	MSG_MANAGEMENT,
};

static void test_round_trip_every_type(void **state)
{
	static const uint8_t tlvs[] = { 0x00, 0x08, 0x00, 0x08, 1,    2,    3,	  4,	5,
					6,    7,    8,	  0x7f, 0xf0, 0x00, 0x02, 0xca, 0xfe };

	for (size_t i = 0; i < ARRAY_SIZE(all_types); i++) {
		for (int with_tlv = 0; with_tlv < 2; with_tlv++) {
			struct msg m, back;
			uint8_t buf[128];
			ssize_t n;

			make(all_types[i], &m);
			if (with_tlv) {
				m.tlv = tlvs;
				m.tlv_len = sizeof(tlvs);
			}
			n = msg_build(&m, buf, sizeof(buf));
			assert_int_equal(n, msg_base_len(all_types[i]) + m.tlv_len);
			assert_int_equal(buf[2] << 8 | buf[3], n);
			assert_int_equal(msg_parse(buf, (size_t) n, &back), 0);
			m.hdr.messageLength = (uint16_t) n;
			if (!msg_equal(&m, &back)) {
				fail_msg("%s (tlv %d) did not survive build -> parse",
					 msg_type_to_string(all_types[i]), with_tlv);
			}
			assert_ptr_equal(back.tlv,
					 with_tlv ? buf + msg_base_len(all_types[i]) : buf + n);
		}
	}
}

static void test_type_names(void **state)
{
	enum msg_type t;

	for (size_t i = 0; i < ARRAY_SIZE(all_types); i++) {
		const char *s = msg_type_to_string(all_types[i]);

		assert_non_null(s);
		assert_int_equal(msg_type_from_string(s, &t), 0);
		assert_int_equal(t, all_types[i]);
		assert_true(msg_type_is_valid(all_types[i]));
	}
	assert_string_equal(msg_type_to_string(MSG_PDELAY_RESP_FOLLOW_UP), "PDELAY_RESP_FOLLOW_UP");
	assert_int_equal(msg_type_from_string("SYNCH", &t), -EINVAL);
	for (unsigned r = 4; r < 8; r++) {
		assert_false(msg_type_is_valid(r));
		assert_null(msg_type_to_string((enum msg_type) r));
	}
	assert_false(msg_type_is_valid(0xE));
	assert_false(msg_type_is_valid(0xF));
	assert_false(msg_type_is_valid(16));
	assert_true(msg_type_is_event(MSG_SYNC));
	assert_true(msg_type_is_event(MSG_PDELAY_RESP));
	assert_false(msg_type_is_event(MSG_FOLLOW_UP));
	assert_false(msg_type_is_event(MSG_ANNOUNCE));
}

static void test_header_init_defaults(void **state)
{
	static const struct {
		enum msg_type type;
		uint8_t control;
		int8_t interval;
	} cases[] = {
		{ MSG_SYNC, 0, 0 },	     { MSG_DELAY_REQ, 1, 0x7f },  { MSG_FOLLOW_UP, 2, 0 },
		{ MSG_DELAY_RESP, 3, 0 },    { MSG_MANAGEMENT, 4, 0x7f }, { MSG_ANNOUNCE, 5, 0 },
		{ MSG_PDELAY_REQ, 5, 0x7f }, { MSG_SIGNALING, 5, 0x7f },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct msg_header h;

		msg_header_init(&h, cases[i].type, 7, &src, 9);
		assert_int_equal(h.controlField, cases[i].control);
		assert_int_equal(h.logMessageInterval, cases[i].interval);
		assert_int_equal(h.versionPTP, 2);
		assert_int_equal(h.minorVersionPTP, 1);
		assert_int_equal(h.domainNumber, 7);
		assert_int_equal(h.sequenceId, 9);
		assert_int_equal(h.messageLength, msg_base_len(cases[i].type));
		assert_true(port_identity_equal(&h.sourcePortIdentity, &src));
	}
}

/* What a ptp4l capture must parse to. Fields not listed are checked by the rebuild. */
struct capture {
	const char *file;
	enum msg_type type;
	uint16_t flags;
	uint8_t control;
	int8_t interval;
	const char *source; /* sourcePortIdentity, linuxptp style */
	uint16_t first_tlv; /* 0: no TLV */
};

static const struct capture captures[] = {
	{ "ptp4l-sync", MSG_SYNC, MSG_FLAG_TWO_STEP, 0, 0, "020000.fffe.000001-1", 0 },
	{ "ptp4l-follow-up", MSG_FOLLOW_UP, 0, 2, 0, "020000.fffe.000001-1", 0 },
	{ "ptp4l-delay-req", MSG_DELAY_REQ, 0, 1, 0x7f, "020000.fffe.000002-1", 0 },
	{ "ptp4l-delay-resp", MSG_DELAY_RESP, 0, 3, 0, "020000.fffe.000001-1", 0 },
	{ "ptp4l-announce", MSG_ANNOUNCE, 0, 5, 1, "020000.fffe.000001-1", 0 },
	{ "ptp4l-announce-path-trace", MSG_ANNOUNCE, 0, 5, 1, "020000.fffe.000001-1",
	  TLV_PATH_TRACE },
	{ "ptp4l-follow-up-info", MSG_FOLLOW_UP, 0, 2, 0, "020000.fffe.000001-1",
	  TLV_ORGANIZATION_EXTENSION },
	{ "ptp4l-pdelay-req", MSG_PDELAY_REQ, 0, 5, 0, "020000.fffe.000001-1", 0 },
	{ "ptp4l-pdelay-resp", MSG_PDELAY_RESP, MSG_FLAG_TWO_STEP, 5, 0x7f, "020000.fffe.000002-1",
	  0 },
	{ "ptp4l-pdelay-resp-follow-up", MSG_PDELAY_RESP_FOLLOW_UP, 0, 5, 0x7f,
	  "020000.fffe.000002-1", 0 },
	{ "pmc-management-get", MSG_MANAGEMENT, 0, 4, 0x7f, "020000.fffe.000002-1",
	  TLV_MANAGEMENT },
	{ "ptp4l-management-response", MSG_MANAGEMENT, 0, 4, 0x7f, "020000.fffe.000001-1",
	  TLV_MANAGEMENT },
	{ "ptp4l-management-error", MSG_MANAGEMENT, 0, 4, 0x7f, "020000.fffe.000001-1",
	  TLV_MANAGEMENT_ERROR_STATUS },
};

static size_t load(const char *name, uint8_t *buf, size_t size)
{
	int n = hex_load(name, buf, size);

	if (n <= 0) {
		fail_msg("cannot load tests/data/%s.hex", name);
	}
	return (size_t) n;
}

static void test_captures_parse_and_rebuild(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(captures); i++) {
		const struct capture *c = &captures[i];
		char id[PORT_IDENTITY_STRLEN];
		uint8_t buf[512], out[512];
		struct msg m;
		struct tlv_iter it;
		struct tlv t;
		size_t n = load(c->file, buf, sizeof(buf));
		ssize_t built;

		assert_int_equal(msg_parse(buf, n, &m), 0);
		assert_int_equal(m.hdr.messageType, c->type);
		assert_int_equal(m.hdr.versionPTP, 2);
		assert_int_equal(m.hdr.minorVersionPTP, 0);
		assert_int_equal(m.hdr.messageLength, n);
		assert_int_equal(m.hdr.domainNumber, 0);
		assert_int_equal(m.hdr.majorSdoId, 0);
		assert_int_equal(m.hdr.flagField, c->flags);
		assert_int_equal(m.hdr.controlField, c->control);
		assert_int_equal(m.hdr.logMessageInterval, c->interval);
		assert_string_equal(port_identity_to_string(&m.hdr.sourcePortIdentity, id),
				    c->source);
		tlv_iter_init(&it, m.tlv, m.tlv_len);
		if (c->first_tlv) {
			assert_int_equal(tlv_next(&it, &t), 1);
			assert_int_equal(t.tlvType, c->first_tlv);
		}
		assert_int_equal(tlv_next(&it, &t), 0);

		built = msg_build(&m, out, sizeof(out));
		assert_int_equal(built, n);
		if (memcmp(buf, out, n) != 0) {
			fail_msg("%s: rebuilt message differs from the capture", c->file);
		}
	}
}

/* Field values ptp4l's configuration makes known (priority1 100, defaults otherwise). */
static void test_capture_announce_fields(void **state)
{
	char id[CLOCK_IDENTITY_STRLEN];
	uint8_t buf[512];
	size_t n = load("ptp4l-announce", buf, sizeof(buf));
	const struct msg_announce *a;
	struct msg m;

	assert_int_equal(msg_parse(buf, n, &m), 0);
	a = &m.body.announce;
	assert_int_equal(a->currentUtcOffset, 37);
	assert_int_equal(a->grandmasterPriority1, 100);
	assert_int_equal(a->grandmasterPriority2, 128);
	assert_int_equal(a->grandmasterClockQuality.clockClass, 248);
	assert_int_equal(a->grandmasterClockQuality.clockAccuracy, 0xfe);
	assert_int_equal(a->grandmasterClockQuality.offsetScaledLogVariance, 0xffff);
	assert_string_equal(clock_identity_to_string(&a->grandmasterIdentity, id),
			    "020000.fffe.000001");
	assert_int_equal(a->stepsRemoved, 0);
	assert_int_equal(a->timeSource, 0xa0); /* INTERNAL_OSCILLATOR */
	assert_int_equal(m.tlv_len, 0);
}

static void test_capture_event_bodies(void **state)
{
	char id[PORT_IDENTITY_STRLEN];
	uint8_t buf[512];
	struct msg m;
	size_t n;

	n = load("ptp4l-delay-resp", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_string_equal(port_identity_to_string(&m.body.delay_resp.requestingPortIdentity, id),
			    "020000.fffe.000002-1");
	assert_true(m.body.delay_resp.receiveTimestamp.secondsField > 0);

	n = load("ptp4l-pdelay-resp-follow-up", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_string_equal(
		port_identity_to_string(&m.body.pdelay_resp_follow_up.requestingPortIdentity, id),
		"020000.fffe.000001-1");

	/* A two-step Sync carries a zero originTimestamp (ptp4l). */
	n = load("ptp4l-sync", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_int_equal(m.body.sync.originTimestamp.secondsField, 0);
	assert_int_equal(m.body.sync.originTimestamp.nanosecondsField, 0);
}

static void test_capture_management(void **state)
{
	struct tlv_management_error_status es;
	struct tlv_management mg;
	char id[PORT_IDENTITY_STRLEN];
	uint8_t buf[512];
	struct tlv_iter it;
	struct tlv t;
	struct msg m;
	size_t n;

	n = load("pmc-management-get", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_int_equal(m.body.management.actionField, MSG_MANAGEMENT_GET);
	assert_int_equal(m.body.management.boundaryHops, 0);
	assert_string_equal(port_identity_to_string(&m.body.management.targetPortIdentity, id),
			    "ffffff.ffff.ffffff-65535");
	tlv_iter_init(&it, m.tlv, m.tlv_len);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_management_parse(&t, &mg), 0);
	assert_int_equal(mg.managementId, 0x2001); /* CURRENT_DATA_SET */

	n = load("ptp4l-management-response", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_int_equal(m.body.management.actionField, MSG_MANAGEMENT_RESPONSE);
	tlv_iter_init(&it, m.tlv, m.tlv_len);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_management_parse(&t, &mg), 0);
	assert_int_equal(mg.managementId, 0x2001);
	assert_int_equal(mg.data_len, 18); /* 15.5.3.3.1 CURRENT_DATA_SET */

	n = load("ptp4l-management-error", buf, sizeof(buf));
	assert_int_equal(msg_parse(buf, n, &m), 0);
	assert_int_equal(m.body.management.actionField, MSG_MANAGEMENT_RESPONSE);
	tlv_iter_init(&it, m.tlv, m.tlv_len);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_management_error_status_parse(&t, &es), 0);
	assert_int_equal(es.managementErrorId, TLV_MGMT_ERR_NOT_SUPPORTED);
	assert_int_equal(es.managementId, 0xc004); /* PORT_PROPERTIES_NP */
	assert_int_equal(es.displayData.lengthField, 0);
}

/* Any prefix shorter than messageLength is rejected; Ethernet padding after it is ignored. */
static void test_truncated_and_padded(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(captures); i++) {
		uint8_t buf[512];
		size_t n = load(captures[i].file, buf, sizeof(buf));
		struct msg m, padded;

		for (size_t len = 0; len < n; len++) {
			int r = msg_parse(buf, len, &m);

			if (r != -EBADMSG) {
				fail_msg("%s cut to %zu bytes: expected -EBADMSG, got %d",
					 captures[i].file, len, r);
			}
		}
		assert_int_equal(msg_parse(buf, n, &m), 0);
		memset(buf + n, 0, 60);
		assert_int_equal(msg_parse(buf, n + 60, &padded), 0);
		assert_int_equal(padded.tlv_len, m.tlv_len);
		assert_true(msg_equal(&m, &padded));
	}
}

/* A mutation of a valid Announce (with a PATH_TRACE TLV) and the error it must give. */
struct bad_case {
	const char *what;
	size_t off;
	uint8_t value;
	int error;
};

static const struct bad_case bad_cases[] = {
	{ "versionPTP 1", 1, 0x01, -EPROTONOSUPPORT },
	{ "versionPTP 3", 1, 0x03, -EPROTONOSUPPORT },
	{ "versionPTP 0 minor 2", 1, 0x20, -EPROTONOSUPPORT },
	{ "messageLength > buffer", 3, 0x4e, -EBADMSG },
	{ "messageLength 0xffff", 2, 0xff, -EBADMSG },
	{ "messageLength < header", 3, 0x20, -EBADMSG },
	{ "messageLength < Announce", 3, 0x3e, -EBADMSG },
	{ "reserved messageType 0x4", 0, 0x04, -EBADMSG },
	{ "reserved messageType 0x7", 0, 0x07, -EBADMSG },
	{ "reserved messageType 0xE", 0, 0x0e, -EBADMSG },
	{ "reserved messageType 0xF", 0, 0xff, -EBADMSG },
	{ "originTimestamp ns = 1e9+", 34 + 6, 0x3b, -EBADMSG },
	{ "TLV lengthField overruns", 64 + 3, 0x0a, -EBADMSG },
	{ "TLV lengthField 0xffxx", 64 + 2, 0xff, -EBADMSG },
	{ "messageLength cuts the TLV", 3, 0x4a, -EBADMSG },
	{ "minorVersionPTP 1 accepted", 1, 0x12, 0 },
	{ "shorter TLV leaves trailing bytes", 64 + 3, 0x06, -EBADMSG },
};

static void test_rejections(void **state)
{
	uint8_t good[512];
	size_t n = load("ptp4l-announce-path-trace", good, sizeof(good));

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		uint8_t buf[512];
		struct msg m;
		int r;

		memcpy(buf, good, n);
		buf[c->off] = c->value;
		if (c->off == 34 + 6) {
			/* nanosecondsField = 0x3b9aca00 = 1e9 */
			memcpy(buf + 40, "\x3b\x9a\xca\x00", 4);
		}
		r = msg_parse(buf, n, &m);
		if (r != c->error) {
			fail_msg("%s: expected %d, got %d", c->what, c->error, r);
		}
	}
}

static void test_build_errors(void **state)
{
	uint8_t buf[128], big[10];
	struct msg m;

	make(MSG_ANNOUNCE, &m);
	/* Every buffer shorter than the message: -EMSGSIZE. */
	for (size_t size = 0; size < 64; size++) {
		assert_int_equal(msg_build(&m, buf, size), -EMSGSIZE);
	}
	assert_int_equal(msg_build(&m, buf, 64), 64);

	m.hdr.messageType = 0x5;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
	make(MSG_ANNOUNCE, &m);
	m.hdr.versionPTP = 16;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
	make(MSG_SYNC, &m);
	m.body.sync.originTimestamp.nanosecondsField = 1000000000;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
	make(MSG_SYNC, &m);
	m.body.sync.originTimestamp.secondsField = UINT64_C(1) << 48;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
	make(MSG_MANAGEMENT, &m);
	m.body.management.actionField = 0x10;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
	/* messageLength is 16 bits: a suffix that would overflow it is refused. */
	make(MSG_SYNC, &m);
	m.tlv = big;
	m.tlv_len = MSG_MAX_LEN;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EMSGSIZE);
	m.tlv = NULL;
	m.tlv_len = 4;
	assert_int_equal(msg_build(&m, buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_type),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_header_init_defaults),
		cmocka_unit_test(test_captures_parse_and_rebuild),
		cmocka_unit_test(test_capture_announce_fields),
		cmocka_unit_test(test_capture_event_bodies),
		cmocka_unit_test(test_capture_management),
		cmocka_unit_test(test_truncated_and_padded),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_build_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
