// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the TLV iterator, typed views and builder: round trips, padding, and overruns. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/tlv.h"
#include "ptp/util.h"
#include "tests/unit/hex.h"

static const struct ClockIdentity ids[] = {
	{ { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 } },
	{ { 0x66, 0x77, 0x88, 0xff, 0xfe, 0x99, 0xaa, 0xbb } },
	{ { 0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 } },
};

static void next_ok(struct tlv_iter *it, struct tlv *t, uint16_t type)
{
	assert_int_equal(tlv_next(it, t), 1);
	assert_int_equal(t->tlvType, type);
	/* 14.1.1: every TLV the builder makes has an even length. */
	assert_int_equal(t->lengthField % 2, 0);
}

/* Build one TLV of every typed kind plus an unknown one, then read them all back. */
static void test_round_trip_every_tlv(void **state)
{
	static const char text[] = "no such id"; /* 10 octets: PTPText 11, padded to 12 */
	const struct tlv_management_error_status es_in = {
		.managementErrorId = TLV_MGMT_ERR_NO_SUCH_ID,
		.managementId = 0x2004,
		.displayData = { .lengthField = sizeof(text) - 1,
				 .textField = (const uint8_t *) text },
	};
	const struct tlv_follow_up_info fu_in = {
		.cumulativeScaledRateOffset = -123456,
		.gmTimeBaseIndicator = 0xabcd,
		.lastGmPhaseChange = { 0x8001, 0x0123456789abcdef, 0xfedc },
		.scaledLastGmFreqChange = INT32_MIN,
	};
	static const uint8_t odd[] = { 1, 2, 3 };
	const struct tlv_org_ext org_in = {
		.tlvType = TLV_ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE,
		.organizationId = 0x001b19,
		.organizationSubType = 0xabcdef,
		.data = odd,
		.data_len = sizeof(odd),
	};
	struct tlv_management_error_status es;
	struct tlv_follow_up_info fu;
	struct tlv_management mg;
	struct tlv_path_trace pt;
	struct tlv_org_ext org;
	struct tlv_builder b;
	struct ClockIdentity c;
	struct tlv_iter it;
	uint8_t buf[256];
	struct tlv t;

	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_add_management(&b, 0x2001, odd, sizeof(odd)), 0);
	assert_int_equal(tlv_builder_add_management(&b, 0x0000, NULL, 0), 0);
	assert_int_equal(tlv_builder_add_management_error_status(&b, &es_in), 0);
	assert_int_equal(tlv_builder_add_org_ext(&b, &org_in), 0);
	assert_int_equal(tlv_builder_add_follow_up_info(&b, &fu_in), 0);
	assert_int_equal(tlv_builder_add_path_trace(&b, ids, ARRAY_SIZE(ids)), 0);
	assert_int_equal(tlv_builder_add(&b, 0x7abc, odd, sizeof(odd)), 0);
	assert_int_equal(tlv_builder_len(&b),
			 4 + 6 + 4 + 2 + 4 + 20 + 4 + 10 + 4 + 28 + 4 + 24 + 4 + 4);
	assert_int_equal(tlv_validate(buf, tlv_builder_len(&b)), 0);

	tlv_iter_init(&it, buf, tlv_builder_len(&b));
	next_ok(&it, &t, TLV_MANAGEMENT);
	assert_int_equal(tlv_management_parse(&t, &mg), 0);
	assert_int_equal(mg.managementId, 0x2001);
	/* 15.5.2: the pad octet becomes part of dataField, as on the wire. */
	assert_int_equal(mg.data_len, 4);
	assert_memory_equal(mg.data, "\x01\x02\x03\x00", 4);

	next_ok(&it, &t, TLV_MANAGEMENT);
	assert_int_equal(tlv_management_parse(&t, &mg), 0);
	assert_int_equal(mg.data_len, 0);

	next_ok(&it, &t, TLV_MANAGEMENT_ERROR_STATUS);
	assert_int_equal(tlv_management_error_status_parse(&t, &es), 0);
	assert_int_equal(es.managementErrorId, TLV_MGMT_ERR_NO_SUCH_ID);
	assert_int_equal(es.managementId, 0x2004);
	assert_int_equal(es.displayData.lengthField, 10);
	assert_memory_equal(es.displayData.textField, text, 10);

	next_ok(&it, &t, TLV_ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE);
	assert_int_equal(tlv_org_ext_parse(&t, &org), 0);
	assert_int_equal(org.organizationId, 0x001b19);
	assert_int_equal(org.organizationSubType, 0xabcdef);
	assert_int_equal(org.data_len, 4);
	assert_memory_equal(org.data, "\x01\x02\x03\x00", 4);
	assert_int_equal(tlv_follow_up_info_parse(&t, &fu), -ENOMSG);

	next_ok(&it, &t, TLV_ORGANIZATION_EXTENSION);
	assert_int_equal(t.lengthField, TLV_FOLLOW_UP_INFO_LEN);
	assert_int_equal(tlv_follow_up_info_parse(&t, &fu), 0);
	assert_int_equal(fu.cumulativeScaledRateOffset, -123456);
	assert_int_equal(fu.gmTimeBaseIndicator, 0xabcd);
	assert_int_equal(fu.lastGmPhaseChange.nanoseconds_msb, 0x8001);
	assert_int_equal(fu.lastGmPhaseChange.nanoseconds_lsb, 0x0123456789abcdef);
	assert_int_equal(fu.lastGmPhaseChange.fractional_nanoseconds, 0xfedc);
	assert_int_equal(fu.scaledLastGmFreqChange, INT32_MIN);

	next_ok(&it, &t, TLV_PATH_TRACE);
	assert_int_equal(tlv_path_trace_parse(&t, &pt), 0);
	assert_int_equal(pt.count, ARRAY_SIZE(ids));
	for (size_t i = 0; i < pt.count; i++) {
		tlv_path_trace_get(&pt, i, &c);
		assert_true(clock_identity_equal(&c, &ids[i]));
	}

	/* Unknown types come back with their type so that the caller can skip them. */
	next_ok(&it, &t, 0x7abc);
	assert_null(tlv_type_to_string(t.tlvType));
	assert_int_equal(tlv_management_parse(&t, &mg), -ENOMSG);
	assert_int_equal(tlv_next(&it, &t), 0);
	assert_int_equal(tlv_next(&it, &t), 0);
}

static void test_foreach_and_names(void **state)
{
	static const uint8_t two[] = { 0x00, 0x08, 0x00, 0x00, 0x80, 0x08, 0x00, 0x02, 0, 0 };
	struct tlv_iter it;
	struct tlv t;
	int r, count = 0;

	tlv_iter_init(&it, two, sizeof(two));
	TLV_FOREACH (r, &it, &t) {
		count++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(count, 2);
	assert_string_equal(tlv_type_to_string(TLV_PAD), "PAD");
	assert_string_equal(tlv_type_to_string(TLV_MANAGEMENT_ERROR_STATUS),
			    "MANAGEMENT_ERROR_STATUS");
	tlv_iter_init(&it, NULL, 0);
	assert_int_equal(tlv_next(&it, &t), 0);
}

/* Malformed suffixes: the iterator stops with -EBADMSG, after the TLVs that were whole. */
static const struct {
	const char *what;
	const char *hex;
	int whole; /* TLVs returned before the error */
} bad_suffixes[] = {
	{ "1 trailing octet", "00", 0 },
	{ "3 trailing octets", "000100", 0 },
	{ "length past the end", "0001000a00000000", 0 },
	{ "length 0xffff", "0001ffff", 0 },
	{ "good TLV then 2 octets", "0008000000", 1 },
	{ "good TLV then a short one", "000800000001000400", 1 },
};

static void test_iterator_overruns(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_suffixes); i++) {
		uint8_t buf[64];
		int n = hex_decode(bad_suffixes[i].hex, buf, sizeof(buf));
		struct tlv_iter it;
		struct tlv t;
		int r, whole = 0;

		assert_true(n > 0);
		tlv_iter_init(&it, buf, (size_t) n);
		TLV_FOREACH (r, &it, &t) {
			whole++;
		}
		if (r != -EBADMSG || whole != bad_suffixes[i].whole) {
			fail_msg("%s: expected -EBADMSG after %d TLVs, got %d after %d",
				 bad_suffixes[i].what, bad_suffixes[i].whole, r, whole);
		}
		assert_int_equal(tlv_validate(buf, (size_t) n), -EBADMSG);
		/* The failing call is repeatable and does not move the iterator. */
		assert_int_equal(tlv_next(&it, &t), -EBADMSG);
	}
}

/* Typed views check their own lengths (a whole TLV can still be too short for its type). */
static const struct {
	const char *what;
	const char *hex;
} bad_values[] = {
	{ "MANAGEMENT without managementId", "00010001ff" },
	{ "MANAGEMENT_ERROR_STATUS of 6", "00020006000100020000" },
	{ "MANAGEMENT_ERROR_STATUS text past end", "0002000a000100020000000005414243" },
	{ "ORGANIZATION_EXTENSION of 5", "00030005"
					 "0080c20000" },
	{ "Follow_Up info of 26", "0003001a0080c2000001"
				  "0000000000000000000000000000000000000000" },
	{ "PATH_TRACE of 6", "00080006000000000000" },
};

/* Found by fuzz-tlv: 00-80-C2/1 data in an ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE is not it. */
static void test_follow_up_info_type(void **state)
{
	uint8_t buf[64];
	int n = hex_decode("8000001c0080c2000001"
			   "00000000000000000000000000000000000000000000",
			   buf, sizeof(buf));
	struct tlv_follow_up_info fu;
	struct tlv_iter it;
	struct tlv t;

	assert_int_equal(n, 32);
	tlv_iter_init(&it, buf, (size_t) n);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_follow_up_info_parse(&t, &fu), -ENOMSG);
	t.tlvType = TLV_ORGANIZATION_EXTENSION;
	assert_int_equal(tlv_follow_up_info_parse(&t, &fu), 0);
}

/* IEEE C37.238: the bytes linuxptp sends (2017: gmID, reserved, total, 2 pad octets), both ways. */
static void test_c37_238(void **state)
{
	uint8_t want[32], buf[64];
	int n = hex_decode("000300121c129d000002"
			   "1234"
			   "00000000"
			   "000003e8"
			   "0000",
			   want, sizeof(want));
	struct tlv_c37_238 c = { .subtype = TLV_C37_238_2017,
				 .grandmasterID = 0x1234,
				 .totalTimeInaccuracy = 1000 },
			   back;
	struct tlv_builder b;
	struct tlv_iter it;
	struct tlv t;

	assert_int_equal(n, 22);
	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_add_c37_238(&b, &c), 0);
	assert_int_equal(tlv_builder_len(&b), 22);
	assert_memory_equal(buf, want, 22);
	tlv_iter_init(&it, buf, 22);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_c37_238_parse(&t, &back), 0);
	assert_int_equal(back.subtype, TLV_C37_238_2017);
	assert_int_equal(back.grandmasterID, 0x1234);
	assert_int_equal(back.totalTimeInaccuracy, 1000);
	/* 2011: the two inaccuracies where 2017 has reserved and total */
	c = (struct tlv_c37_238){ .subtype = TLV_C37_238_2011,
				  .grandmasterTimeInaccuracy = 0xffffffff,
				  .networkTimeInaccuracy = 50 };
	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_add_c37_238(&b, &c), 0);
	tlv_iter_init(&it, buf, tlv_builder_len(&b));
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_c37_238_parse(&t, &back), 0);
	assert_int_equal(back.grandmasterTimeInaccuracy, 0xffffffff);
	assert_int_equal(back.networkTimeInaccuracy, 50);
	/* another length, another subtype, another organization */
	t.lengthField = 20;
	assert_int_equal(tlv_c37_238_parse(&t, &back), -EBADMSG);
	c.subtype = 3;
	assert_int_equal(tlv_builder_add_c37_238(&b, &c), -EINVAL);
}

static int parse_any(const struct tlv *t)
{
	struct tlv_management_error_status es;
	struct tlv_follow_up_info fu;
	struct tlv_management mg;
	struct tlv_path_trace pt;
	struct tlv_org_ext org;

	switch (t->tlvType) {
	case TLV_MANAGEMENT:
		return tlv_management_parse(t, &mg);
	case TLV_MANAGEMENT_ERROR_STATUS:
		return tlv_management_error_status_parse(t, &es);
	case TLV_ORGANIZATION_EXTENSION:
		if (t->lengthField >= 6 && t->value[5] == 1) {
			return tlv_follow_up_info_parse(t, &fu);
		}
		return tlv_org_ext_parse(t, &org);
	default:
		return tlv_path_trace_parse(t, &pt);
	}
}

static void test_typed_length_checks(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_values); i++) {
		uint8_t buf[64];
		int n = hex_decode(bad_values[i].hex, buf, sizeof(buf));
		struct tlv_iter it;
		struct tlv t;
		int r;

		assert_true(n > 0);
		tlv_iter_init(&it, buf, (size_t) n);
		assert_int_equal(tlv_next(&it, &t), 1);
		r = parse_any(&t);
		if (r != -EBADMSG) {
			fail_msg("%s: expected -EBADMSG, got %d", bad_values[i].what, r);
		}
	}
}

static void test_builder_limits(void **state)
{
	uint8_t buf[16], big[8];
	struct tlv_builder b;

	/* A TLV that does not fit leaves the buffer as it was: whole TLVs only. */
	for (size_t size = 0; size < 12; size++) {
		tlv_builder_init(&b, buf, size);
		assert_int_equal(tlv_builder_add_management(&b, 1, "abcde", 5), -EMSGSIZE);
		assert_int_equal(tlv_builder_len(&b), 0);
		assert_int_equal(tlv_builder_begin(&b, TLV_PAD) == 0, size >= 4);
	}
	tlv_builder_init(&b, buf, 12);
	assert_int_equal(tlv_builder_add_management(&b, 1, "abcde", 5), 0);
	assert_int_equal(tlv_builder_len(&b), 12);
	assert_memory_equal(buf,
			    "\x00\x01\x00\x08\x00\x01"
			    "abcde\x00",
			    12);

	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_end(&b), -EINVAL);
	assert_int_equal(tlv_builder_begin(&b, TLV_PAD), 0);
	assert_int_equal(tlv_builder_begin(&b, TLV_PAD), -EINVAL);
	assert_int_equal(tlv_builder_add(&b, TLV_PAD, NULL, 0), -EINVAL);
	assert_int_equal(wire_put_u8(&b.w, 7), 0);
	assert_int_equal(tlv_builder_end(&b), 0);
	assert_memory_equal(buf, "\x80\x08\x00\x02\x07\x00", 6);

	/* Values that cannot be encoded. */
	struct tlv_org_ext o = { .tlvType = TLV_ORGANIZATION_EXTENSION, .organizationId = 1 << 24 };
	tlv_builder_init(&b, buf, sizeof(buf));
	assert_int_equal(tlv_builder_add_org_ext(&b, &o), -EINVAL);
	o.tlvType = TLV_MANAGEMENT;
	assert_int_equal(tlv_builder_add_org_ext(&b, &o), -EINVAL);
	assert_int_equal(tlv_builder_len(&b), 0);
	assert_int_equal(tlv_builder_add_path_trace(&b, ids, 2), -EMSGSIZE);
	assert_int_equal(tlv_builder_len(&b), 0);
	(void) big;
}

/* The two TLVs ptp4l sent us parse to what its options say. */
static void test_captured_tlvs(void **state)
{
	struct tlv_follow_up_info fu;
	struct tlv_path_trace pt;
	struct ClockIdentity c;
	struct tlv_iter it;
	uint8_t buf[128];
	struct tlv t;
	int n;

	n = hex_load("ptp4l-follow-up-info", buf, sizeof(buf));
	assert_int_equal(n, 76);
	tlv_iter_init(&it, buf + 44, (size_t) n - 44);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_follow_up_info_parse(&t, &fu), 0);
	assert_int_equal(fu.cumulativeScaledRateOffset, 0);
	assert_int_equal(fu.gmTimeBaseIndicator, 0);

	n = hex_load("ptp4l-announce-path-trace", buf, sizeof(buf));
	assert_int_equal(n, 76);
	tlv_iter_init(&it, buf + 64, (size_t) n - 64);
	assert_int_equal(tlv_next(&it, &t), 1);
	assert_int_equal(tlv_path_trace_parse(&t, &pt), 0);
	assert_int_equal(pt.count, 1);
	tlv_path_trace_get(&pt, 0, &c);
	assert_true(clock_identity_equal(&c, &ids[2]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_tlv),
		cmocka_unit_test(test_c37_238),
		cmocka_unit_test(test_foreach_and_names),
		cmocka_unit_test(test_iterator_overruns),
		cmocka_unit_test(test_typed_length_checks),
		cmocka_unit_test(test_follow_up_info_type),
		cmocka_unit_test(test_builder_limits),
		cmocka_unit_test(test_captured_tlvs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
