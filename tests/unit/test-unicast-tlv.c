// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the unicast negotiation TLVs (IEEE 1588-2019 16.1.4): byte vectors of each, every
 * field at its edges both ways, truncated and overlong TLVs, and the walk of a Signaling message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/unicast-tlv.h"
#include "ptp/util.h"
#include "tests/unit/hex.h"

/* Field by field: the structs have padding. */
static void assert_tlv_equal(const struct unicast_tlv *a, const struct unicast_tlv *b)
{
	assert_int_equal(a->tlvType, b->tlvType);
	assert_int_equal(a->messageType, b->messageType);
	assert_int_equal(a->logInterMessagePeriod, b->logInterMessagePeriod);
	assert_int_equal(a->durationField, b->durationField);
	assert_int_equal(a->renewalInvited, b->renewalInvited);
	assert_int_equal(a->maintainRequest, b->maintainRequest);
	assert_int_equal(a->maintainGrant, b->maintainGrant);
}

static struct tlv tlv_of(const uint8_t *buf, size_t len)
{
	struct tlv_iter it;
	struct tlv t;

	tlv_iter_init(&it, buf, len);
	assert_int_equal(tlv_next(&it, &t), 1);
	return t;
}

/* Parse one TLV given in hex; returns unicast_tlv_parse()'s result. */
static int parse_hex(const char *hex, struct unicast_tlv *u)
{
	uint8_t buf[64];
	int n = hex_decode(hex, buf, sizeof(buf));
	struct tlv t;

	assert_true(n >= TLV_HEADER_LEN);
	t = tlv_of(buf, (size_t) n);
	return unicast_tlv_parse(&t, u);
}

/* Build u and compare with hex. */
static void build_is(const struct unicast_tlv *u, const char *hex)
{
	uint8_t want[64], got[64];
	int n = hex_decode(hex, want, sizeof(want));
	struct tlv_builder b;

	tlv_builder_init(&b, got, sizeof(got));
	assert_int_equal(unicast_tlv_build(&b, u), 0);
	assert_int_equal(tlv_builder_len(&b), n);
	assert_memory_equal(got, want, (size_t) n);
}

/* The four TLVs as ptp4l sends them (unicast_client.c, unicast_service.c): 16.1.4.1-16.1.4.4. */
static void test_byte_vectors(void **state)
{
	const struct unicast_tlv req = {
		.tlvType = TLV_REQUEST_UNICAST_TRANSMISSION,
		.messageType = MSG_SYNC,
		.logInterMessagePeriod = -4,
		.durationField = 60,
	};
	const struct unicast_tlv grant = {
		.tlvType = TLV_GRANT_UNICAST_TRANSMISSION,
		.messageType = MSG_ANNOUNCE,
		.logInterMessagePeriod = 1,
		.durationField = 3600,
		.renewalInvited = true,
	};
	const struct unicast_tlv cancel = {
		.tlvType = TLV_CANCEL_UNICAST_TRANSMISSION,
		.messageType = MSG_DELAY_RESP,
	};
	const struct unicast_tlv ack = {
		.tlvType = TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION,
		.messageType = MSG_PDELAY_RESP,
		.maintainGrant = true,
	};
	struct unicast_tlv u;

	build_is(&req, "0004 0006 00 fc 0000003c");
	build_is(&grant, "0005 0008 b0 01 00000e10 00 01");
	build_is(&cancel, "0006 0002 90 00");
	build_is(&ack, "0007 0002 32 00");
	assert_int_equal(parse_hex("0004 0006 00 fc 0000003c", &u), 0);
	assert_tlv_equal(&u, &req);
	assert_int_equal(parse_hex("0005 0008 b0 01 00000e10 00 01", &u), 0);
	assert_tlv_equal(&u, &grant);
	assert_int_equal(parse_hex("0006 0002 90 00", &u), 0);
	assert_tlv_equal(&u, &cancel);
	assert_int_equal(parse_hex("0007 0002 32 00", &u), 0);
	assert_tlv_equal(&u, &ack);
}

/*
 * Whole Signaling messages of Debian's ptp4l 3.1.1 negotiating over UDPv4 (captured here: a
 * UNICAST-SLAVE-like ptp4l asking a UNICAST-MASTER-like one, 60 s grants): parsed by msg_parse
 * and the walk, and each TLV rebuilt to the same octets.
 */
static const struct {
	const char *what;
	const char *hex;
	size_t n;
	struct unicast_tlv tlv[2];
} captures[] = {
	{ "REQUEST Announce",
	  "0c02003600000400000000000000000000000000b20b2cfffe5a812200010000057fffffffffffffffffffff"
	  "00040006b0010000003c",
	  1,
	  { { TLV_REQUEST_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 1, 60, false, false, false } } },
	{ "GRANT Announce",
	  "0c02003800000400000000000000000000000000460131fffecc02e100010000057fb20b2cfffe5a81220001"
	  "00050008b0010000003c0001",
	  1,
	  { { TLV_GRANT_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 1, 60, true, false, false } } },
	{ "REQUEST Sync and Delay_Resp",
	  "0c02004000000400000000000000000000000000b20b2cfffe5a812200010001057f460131fffecc02e10001"
	  "0004000600000000003c0004000690000000003c",
	  2,
	  { { TLV_REQUEST_UNICAST_TRANSMISSION, MSG_SYNC, 0, 60, false, false, false },
	    { TLV_REQUEST_UNICAST_TRANSMISSION, MSG_DELAY_RESP, 0, 60, false, false, false } } },
	{ "GRANT Delay_Resp",
	  "0c02003800000400000000000000000000000000460131fffecc02e100010002057fb20b2cfffe5a81220001"
	  "0005000890000000003c0001",
	  1,
	  { { TLV_GRANT_UNICAST_TRANSMISSION, MSG_DELAY_RESP, 0, 60, true, false, false } } },
};

static void test_ptp4l_captures(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(captures); i++) {
		uint8_t frame[128], rebuilt[64];
		int n = hex_decode(captures[i].hex, frame, sizeof(frame));
		struct unicast_tlv_set set;
		struct tlv_builder b;
		struct msg m;

		assert_true(n > 0);
		if (msg_parse(frame, (size_t) n, &m) != 0) {
			fail_msg("%s: expected msg_parse to take it", captures[i].what);
		}
		assert_true(msg_flag(&m.hdr, MSG_FLAG_UNICAST));
		assert_int_equal(unicast_tlv_set_parse(&m, &set), 0);
		assert_int_equal(set.malformed, 0);
		assert_int_equal(set.n, captures[i].n);
		tlv_builder_init(&b, rebuilt, sizeof(rebuilt));
		for (size_t k = 0; k < set.n; k++) {
			assert_tlv_equal(&set.tlv[k], &captures[i].tlv[k]);
			assert_int_equal(unicast_tlv_build(&b, &set.tlv[k]), 0);
		}
		assert_int_equal(tlv_builder_len(&b), m.tlv_len);
		assert_memory_equal(rebuilt, m.tlv, m.tlv_len);
	}
}

/* Reserved bits are ignored on receipt (14.1.2) and sent as zero. */
static void test_reserved_bits_ignored(void **state)
{
	struct unicast_tlv u;

	/* REQUEST with the low nibble set: messageType Announce, nothing else. */
	assert_int_equal(parse_hex("0004 0006 bf 00 00000001", &u), 0);
	assert_int_equal(u.messageType, MSG_ANNOUNCE);
	/* GRANT: reserved octet and flag bits 1-7 set, R clear. */
	assert_int_equal(parse_hex("0005 0008 0f 00 00000000 ff fe", &u), 0);
	assert_false(u.renewalInvited);
	assert_int_equal(u.durationField, 0);
	/* CANCEL: bits 2-3 of the low nibble and the reserved octet set. */
	assert_int_equal(parse_hex("0006 0002 0d ff", &u), 0);
	assert_true(u.maintainRequest);
	assert_false(u.maintainGrant);
}

/* messageType: only Announce, Sync, Delay_Resp and Pdelay_Resp are negotiated (16.1.1). */
static void test_message_type(void **state)
{
	/* Each TLV's header, and its octets after the messageType octet. */
	static const char *const heads[] = { "0004 0006", "0005 0008", "0006 0002", "0007 0002" };
	static const char *const tails[] = { "00 00000001", "00 00000001 00 01", "00", "00" };
	struct unicast_tlv u;
	char hex[64];

	for (size_t k = 0; k < ARRAY_SIZE(heads); k++) {
		for (unsigned t = 0; t < 16; t++) {
			bool ok = t == MSG_ANNOUNCE || t == MSG_SYNC || t == MSG_DELAY_RESP ||
				  t == MSG_PDELAY_RESP;

			snprintf(hex, sizeof(hex), "%s %x0 %s", heads[k], t, tails[k]);
			assert_int_equal(parse_hex(hex, &u), ok ? 0 : -EBADMSG);
			assert_int_equal(unicast_tlv_message_type_valid(t), ok);
		}
	}
}

/* logInterMessagePeriod: -7..7 both ways, in REQUEST and GRANT. */
static void test_log_period_edges(void **state)
{
	static const struct {
		int8_t v;
		bool ok;
	} cases[] = { { -128, false }, { -8, false }, { -7, true },  { 0, true },
		      { 7, true },     { 8, false },  { 127, false } };
	struct unicast_tlv u;
	uint8_t buf[32];
	struct tlv_builder b;
	char hex[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct unicast_tlv in = {
			.tlvType = TLV_REQUEST_UNICAST_TRANSMISSION,
			.messageType = MSG_SYNC,
			.logInterMessagePeriod = cases[i].v,
			.durationField = 10,
		};

		snprintf(hex, sizeof(hex), "0004 0006 00 %02x 0000000a", (uint8_t) cases[i].v);
		assert_int_equal(parse_hex(hex, &u), cases[i].ok ? 0 : -EBADMSG);
		snprintf(hex, sizeof(hex), "0005 0008 00 %02x 0000000a 00 00",
			 (uint8_t) cases[i].v);
		assert_int_equal(parse_hex(hex, &u), cases[i].ok ? 0 : -EBADMSG);
		tlv_builder_init(&b, buf, sizeof(buf));
		assert_int_equal(unicast_tlv_build(&b, &in), cases[i].ok ? 0 : -EINVAL);
		in.tlvType = TLV_GRANT_UNICAST_TRANSMISSION;
		assert_int_equal(unicast_tlv_build(&b, &in), cases[i].ok ? 0 : -EINVAL);
	}
}

/* durationField: a REQUEST asks for 1 to 2^31-1 s; a GRANT's 0 is a denial. */
static void test_duration_edges(void **state)
{
	struct unicast_tlv u;

	assert_int_equal(parse_hex("0004 0006 00 00 00000000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0004 0006 00 00 00000001", &u), 0);
	assert_int_equal(u.durationField, 1);
	assert_int_equal(parse_hex("0004 0006 00 00 7fffffff", &u), 0);
	assert_int_equal(u.durationField, INT32_MAX);
	assert_int_equal(parse_hex("0004 0006 00 00 80000000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0004 0006 00 00 ffffffff", &u), -EBADMSG);
	assert_int_equal(parse_hex("0005 0008 00 00 00000000 00 00", &u), 0);
	assert_int_equal(u.durationField, 0);
	assert_int_equal(parse_hex("0005 0008 00 00 7fffffff 00 01", &u), 0);
	assert_int_equal(parse_hex("0005 0008 00 00 80000000 00 01", &u), -EBADMSG);
}

/* The R flag, bit 0 of the GRANT's last octet, both ways. */
static void test_renewal_flag(void **state)
{
	struct unicast_tlv g = {
		.tlvType = TLV_GRANT_UNICAST_TRANSMISSION,
		.messageType = MSG_SYNC,
		.durationField = 300,
	};
	struct unicast_tlv u;

	build_is(&g, "0005 0008 00 00 0000012c 00 00");
	g.renewalInvited = true;
	build_is(&g, "0005 0008 00 00 0000012c 00 01");
	assert_int_equal(parse_hex("0005 0008 00 00 0000012c 00 01", &u), 0);
	assert_true(u.renewalInvited);
	assert_int_equal(parse_hex("0005 0008 00 00 0000012c 00 00", &u), 0);
	assert_false(u.renewalInvited);
}

/* Both flags of CANCEL and ACKNOWLEDGE_CANCEL, every combination, round trip. */
static void test_cancel_flags(void **state)
{
	uint16_t types[] = { TLV_CANCEL_UNICAST_TRANSMISSION,
			     TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION };

	for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
		for (unsigned f = 0; f < 4; f++) {
			struct unicast_tlv in = {
				.tlvType = types[k],
				.messageType = MSG_ANNOUNCE,
				.maintainRequest = f & 1,
				.maintainGrant = f & 2,
			}, out;
			uint8_t buf[16];
			struct tlv_builder b;
			struct tlv t;

			tlv_builder_init(&b, buf, sizeof(buf));
			assert_int_equal(unicast_tlv_build(&b, &in), 0);
			assert_int_equal(buf[4], 0xb0 | f);
			t = tlv_of(buf, tlv_builder_len(&b));
			assert_int_equal(unicast_tlv_parse(&t, &out), 0);
			assert_tlv_equal(&in, &out);
		}
	}
}

/* lengthField must be the type's: one octet short or long is malformed, also when truncated. */
static void test_lengths(void **state)
{
	struct unicast_tlv u;

	assert_int_equal(parse_hex("0004 0005 00 00 000000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0004 0008 00 00 00000001 0000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0005 0006 00 00 00000001", &u), -EBADMSG);
	assert_int_equal(parse_hex("0005 000a 00 00 00000001 00 00 0000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0006 0000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0006 0004 00 00 0000", &u), -EBADMSG);
	assert_int_equal(parse_hex("0007 0001 00", &u), -EBADMSG);
	/* Another TLV type is not ours. */
	assert_int_equal(parse_hex("0008 0008 0011223344556677", &u), -ENOMSG);
	assert_false(unicast_tlv_type_is(TLV_PATH_TRACE));
}

/* Every prefix of a valid TLV is refused by the iterator: the view never sees a short value. */
static void test_truncated(void **state)
{
	uint8_t full[12];
	int n = hex_decode("0005 0008 b0 01 00000e10 00 01", full, sizeof(full));

	for (int len = 0; len < n; len++) {
		struct tlv_iter it;
		struct tlv t;

		tlv_iter_init(&it, full, (size_t) len);
		assert_int_equal(tlv_next(&it, &t), len == 0 ? 0 : -EBADMSG);
	}
}

static size_t signaling(struct msg *m, uint8_t *tlvbuf, size_t size, const struct unicast_tlv *list,
			size_t n, bool with_other)
{
	static const struct ClockIdentity id = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct tlv_builder b;

	tlv_builder_init(&b, tlvbuf, size);
	if (with_other) {
		assert_int_equal(tlv_builder_add_path_trace(&b, &id, 1), 0);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(unicast_tlv_build(&b, &list[i]), 0);
	}
	memset(m, 0, sizeof(*m));
	m->hdr.messageType = MSG_SIGNALING;
	m->tlv = tlvbuf;
	m->tlv_len = tlv_builder_len(&b);
	return m->tlv_len;
}

/* A Signaling message with three requests and a TLV of another type: the three, in order. */
static void test_set_parse(void **state)
{
	const struct unicast_tlv reqs[] = {
		{ TLV_REQUEST_UNICAST_TRANSMISSION, MSG_ANNOUNCE, 1, 60, false, false, false },
		{ TLV_REQUEST_UNICAST_TRANSMISSION, MSG_SYNC, -4, 60, false, false, false },
		{ TLV_REQUEST_UNICAST_TRANSMISSION, MSG_DELAY_RESP, -4, 60, false, false, false },
	};
	struct unicast_tlv_set set;
	uint8_t buf[128];
	struct msg m;

	signaling(&m, buf, sizeof(buf), reqs, ARRAY_SIZE(reqs), true);
	assert_int_equal(unicast_tlv_set_parse(&m, &set), 0);
	assert_int_equal(set.n, 3);
	assert_int_equal(set.malformed, 0);
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		assert_tlv_equal(&set.tlv[i], &reqs[i]);
	}
	/* Not a Signaling message. */
	m.hdr.messageType = MSG_ANNOUNCE;
	assert_int_equal(unicast_tlv_set_parse(&m, &set), -EBADMSG);
	assert_int_equal(set.n, 0);
}

/* A malformed unicast TLV is counted and dropped, the rest kept; a broken suffix drops all. */
static void test_set_malformed(void **state)
{
	const struct unicast_tlv ok = {
		TLV_CANCEL_UNICAST_TRANSMISSION, MSG_SYNC, 0, 0, false, false, false
	};
	struct unicast_tlv_set set;
	uint8_t buf[128];
	struct msg m;
	size_t len = signaling(&m, buf, sizeof(buf), &ok, 1, false);

	/* Append a REQUEST for duration 0 and a CANCEL of Follow_Up (0x8): both malformed. */
	len += (size_t) hex_decode("0004 0006 00 00 00000000 0006 0002 80 00", buf + len,
				   sizeof(buf) - len);
	m.tlv_len = len;
	assert_int_equal(unicast_tlv_set_parse(&m, &set), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.malformed, 2);
	assert_int_equal(set.tlv[0].messageType, MSG_SYNC);
	/* One octet fewer: the last TLV overruns the suffix. */
	m.tlv_len = len - 1;
	assert_int_equal(unicast_tlv_set_parse(&m, &set), -EBADMSG);
	assert_int_equal(set.n, 0);
}

/* More than UNICAST_TLV_PER_MSG_MAX unicast TLVs: the rest counted as malformed. */
static void test_set_bound(void **state)
{
	struct unicast_tlv many[UNICAST_TLV_PER_MSG_MAX + 3];
	struct unicast_tlv_set set;
	uint8_t buf[256];
	struct msg m;

	for (size_t i = 0; i < ARRAY_SIZE(many); i++) {
		many[i] = (struct unicast_tlv){
			.tlvType = TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION,
			.messageType = MSG_ANNOUNCE
		};
	}
	signaling(&m, buf, sizeof(buf), many, ARRAY_SIZE(many), false);
	assert_int_equal(unicast_tlv_set_parse(&m, &set), 0);
	assert_int_equal(set.n, UNICAST_TLV_PER_MSG_MAX);
	assert_int_equal(set.malformed, 3);
}

/* The builder refuses what the parser would, and a buffer too small. */
static void test_build_refuses(void **state)
{
	struct unicast_tlv u = { .tlvType = TLV_PATH_TRACE, .messageType = MSG_SYNC };
	uint8_t buf[8];
	struct tlv_builder b;

	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(unicast_tlv_build(&b, &u), -EINVAL);
	u = (struct unicast_tlv){ .tlvType = TLV_CANCEL_UNICAST_TRANSMISSION,
				  .messageType = MSG_FOLLOW_UP };
	assert_int_equal(unicast_tlv_build(&b, &u), -EINVAL);
	u = (struct unicast_tlv){ .tlvType = TLV_REQUEST_UNICAST_TRANSMISSION,
				  .messageType = MSG_SYNC,
				  .durationField = 0 };
	assert_int_equal(unicast_tlv_build(&b, &u), -EINVAL);
	/* 4 + 8 octets do not fit in 8. */
	u = (struct unicast_tlv){ .tlvType = TLV_GRANT_UNICAST_TRANSMISSION,
				  .messageType = MSG_SYNC };
	assert_int_equal(unicast_tlv_build(&b, &u), -EMSGSIZE);
	assert_int_equal(tlv_builder_len(&b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_byte_vectors),
		cmocka_unit_test(test_ptp4l_captures),
		cmocka_unit_test(test_reserved_bits_ignored),
		cmocka_unit_test(test_message_type),
		cmocka_unit_test(test_log_period_edges),
		cmocka_unit_test(test_duration_edges),
		cmocka_unit_test(test_renewal_flag),
		cmocka_unit_test(test_cancel_flags),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_set_parse),
		cmocka_unit_test(test_set_malformed),
		cmocka_unit_test(test_set_bound),
		cmocka_unit_test(test_build_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
