// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the bounds-checked wire reader and writer: byte order, overrun, and no side effect.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/util.h"
#include "ptp/wire.h"

static const uint8_t bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a };

/* Read one integer of width n through the matching getter, widened to u64. */
static int get_n(struct wire_reader *r, size_t n, uint64_t *ret)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	int e;

	switch (n) {
	case 1:
		e = wire_get_u8(r, &v8);
		*ret = v8;
		return e;
	case 2:
		e = wire_get_u16(r, &v16);
		*ret = v16;
		return e;
	case 4:
		e = wire_get_u32(r, &v32);
		*ret = v32;
		return e;
	case 6:
		return wire_get_u48(r, ret);
	default:
		return wire_get_u64(r, ret);
	}
}

static int put_n(struct wire_writer *w, size_t n, uint64_t v)
{
	switch (n) {
	case 1:
		return wire_put_u8(w, (uint8_t) v);
	case 2:
		return wire_put_u16(w, (uint16_t) v);
	case 4:
		return wire_put_u32(w, (uint32_t) v);
	case 6:
		return wire_put_u48(w, v);
	default:
		return wire_put_u64(w, v);
	}
}

static const struct {
	size_t width;
	uint64_t value; /* of bytes[] read big-endian */
} ints[] = {
	{ 1, 0x01 },
	{ 2, 0x0102 },
	{ 4, 0x01020304 },
	{ 6, 0x010203040506 },
	{ 8, 0x0102030405060708 },
};

static void test_get_big_endian(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		struct wire_reader r;
		uint64_t v = 0;

		wire_reader_init(&r, bytes, sizeof(bytes));
		assert_int_equal(get_n(&r, ints[i].width, &v), 0);
		assert_int_equal(v, ints[i].value);
		assert_int_equal(r.pos, ints[i].width);
	}
}

/* Every read shorter than its width fails with -EBADMSG and moves nothing. */
static void test_get_overrun(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		for (size_t len = 0; len < ints[i].width; len++) {
			struct wire_reader r;
			uint64_t v = 0xdead;

			wire_reader_init(&r, bytes, len);
			assert_int_equal(get_n(&r, ints[i].width, &v), -EBADMSG);
			assert_int_equal(r.pos, 0);
		}
	}
}

static void test_put_round_trip(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		uint8_t buf[8];
		struct wire_writer w;

		wire_writer_init(&w, buf, sizeof(buf));
		assert_int_equal(put_n(&w, ints[i].width, ints[i].value), 0);
		assert_memory_equal(buf, bytes, ints[i].width);
		/* Too small: -EMSGSIZE and not a byte written. */
		for (size_t size = 0; size < ints[i].width; size++) {
			memset(buf, 0xaa, sizeof(buf));
			wire_writer_init(&w, buf, size);
			assert_int_equal(put_n(&w, ints[i].width, ints[i].value), -EMSGSIZE);
			assert_int_equal(w.pos, 0);
			assert_int_equal(buf[0], 0xaa);
		}
	}
}

static void test_u48_range(void **state)
{
	uint8_t buf[6];
	struct wire_writer w;

	wire_writer_init(&w, buf, sizeof(buf));
	assert_int_equal(wire_put_u48(&w, UINT64_C(1) << 48), -EINVAL);
	assert_int_equal(wire_put_u48(&w, (UINT64_C(1) << 48) - 1), 0);
	assert_memory_equal(buf, "\xff\xff\xff\xff\xff\xff", 6);
}

static void test_timestamp(void **state)
{
	static const uint8_t wire[] = {
		0x00, 0x00, 0x65, 0x00, 0x00, 0x01, 0x3b, 0x9a, 0xc9, 0xff
	}; /* 999999999 ns */
	static const uint8_t bad[] = { 0, 0, 0, 0, 0, 1, 0x3b, 0x9a, 0xca, 0x00 }; /* 1e9 */
	struct Timestamp ts = { 0 };
	struct wire_reader r;
	struct wire_writer w;
	uint8_t buf[10];

	wire_reader_init(&r, wire, sizeof(wire));
	assert_int_equal(wire_get_timestamp(&r, &ts), 0);
	assert_int_equal(ts.secondsField, 0x65000001);
	assert_int_equal(ts.nanosecondsField, 999999999);
	wire_writer_init(&w, buf, sizeof(buf));
	assert_int_equal(wire_put_timestamp(&w, &ts), 0);
	assert_memory_equal(buf, wire, sizeof(wire));

	/* 5.3.3: nanoseconds >= 1e9 is not a timestamp; the reader does not move. */
	wire_reader_init(&r, bad, sizeof(bad));
	assert_int_equal(wire_get_timestamp(&r, &ts), -EBADMSG);
	assert_int_equal(r.pos, 0);
	ts.nanosecondsField = 1000000000;
	wire_writer_init(&w, buf, sizeof(buf));
	assert_int_equal(wire_put_timestamp(&w, &ts), -EINVAL);
	ts.nanosecondsField = 0;
	ts.secondsField = UINT64_C(1) << 48;
	assert_int_equal(wire_put_timestamp(&w, &ts), -EINVAL);
	assert_int_equal(w.pos, 0);
	for (size_t len = 0; len < sizeof(wire); len++) {
		wire_reader_init(&r, wire, len);
		assert_int_equal(wire_get_timestamp(&r, &ts), -EBADMSG);
		assert_int_equal(r.pos, 0);
	}
}

static void test_identities(void **state)
{
	struct PortIdentity p = { 0 };
	struct ClockQuality q = { 0 };
	struct wire_reader r;
	struct wire_writer w;
	uint8_t buf[14];

	wire_reader_init(&r, "\x00\x11\x22\xff\xfe\x33\x44\x55\x00\x07\xf8\xfe\xff\xff", 14);
	assert_int_equal(wire_get_port_identity(&r, &p), 0);
	assert_int_equal(wire_get_clock_quality(&r, &q), 0);
	assert_int_equal(p.portNumber, 7);
	assert_int_equal(p.clockIdentity.id[7], 0x55);
	assert_int_equal(q.clockClass, 248);
	assert_int_equal(q.clockAccuracy, 0xfe);
	assert_int_equal(q.offsetScaledLogVariance, 0xffff);
	assert_int_equal(wire_get_clock_quality(&r, &q), -EBADMSG);

	wire_writer_init(&w, buf, sizeof(buf));
	assert_int_equal(wire_put_port_identity(&w, &p), 0);
	assert_int_equal(wire_put_clock_quality(&w, &q), 0);
	assert_memory_equal(buf, "\x00\x11\x22\xff\xfe\x33\x44\x55\x00\x07\xf8\xfe\xff\xff", 14);
	assert_int_equal(wire_put_port_identity(&w, &p), -EMSGSIZE);
	wire_reader_init(&r, buf, 9);
	assert_int_equal(wire_get_port_identity(&r, &p), -EBADMSG);
}

static void test_bytes_skip_patch(void **state)
{
	const uint8_t *p = NULL;
	struct wire_reader r;
	struct wire_writer w;
	uint8_t buf[4] = { 0 };

	wire_reader_init(&r, bytes, sizeof(bytes));
	assert_int_equal(wire_skip(&r, 9), 0);
	assert_int_equal(wire_reader_left(&r), 1);
	assert_int_equal(wire_skip(&r, 2), -EBADMSG);
	assert_int_equal(wire_get_ptr(&r, &p, 1), 0);
	assert_ptr_equal(p, bytes + 9);
	assert_int_equal(wire_get_bytes(&r, buf, 1), -EBADMSG);
	/* A huge n must not wrap the bounds check. */
	assert_int_equal(wire_get_ptr(&r, &p, SIZE_MAX), -EBADMSG);

	wire_writer_init(&w, buf, sizeof(buf));
	assert_int_equal(wire_put_zeros(&w, 2), 0);
	assert_int_equal(wire_put_bytes(&w, "\x01\x02", 2), 0);
	assert_int_equal(wire_put_bytes(&w, "\x01", 1), -EMSGSIZE);
	assert_int_equal(wire_put_zeros(&w, SIZE_MAX), -EMSGSIZE);
	assert_int_equal(wire_patch_u16(&w, 0, 0xabcd), 0);
	assert_memory_equal(buf, "\xab\xcd\x01\x02", 4);
	assert_int_equal(wire_patch_u16(&w, 3, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_big_endian),	 cmocka_unit_test(test_get_overrun),
		cmocka_unit_test(test_put_round_trip),	 cmocka_unit_test(test_u48_range),
		cmocka_unit_test(test_timestamp),	 cmocka_unit_test(test_identities),
		cmocka_unit_test(test_bytes_skip_patch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
