// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/types.c: time conversions and identity text forms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "ptp/types.h"

static void test_timestamp_roundtrip(void **state)
{
	static const ns_t cases[] = { 0, 1, 999999999, NS_PER_SEC, INT64_C(1700000000123456789) };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct Timestamp ts;
		ns_t back;

		assert_int_equal(ns_to_timestamp(cases[i], &ts), 0);
		assert_true(ts.nanosecondsField < NS_PER_SEC);
		assert_int_equal(timestamp_to_ns(&ts, &back), 0);
		assert_int_equal(back, cases[i]);
	}
}

static void test_timestamp_rejects(void **state)
{
	struct Timestamp ts = { .secondsField = 1, .nanosecondsField = 1000000000 };
	ns_t ns;

	assert_int_equal(timestamp_to_ns(&ts, &ns), -EBADMSG);
	ts = (struct Timestamp){ .secondsField = TIMESTAMP_MAX_SECONDS, .nanosecondsField = 0 };
	assert_int_equal(timestamp_to_ns(&ts, &ns), -ERANGE);
	assert_int_equal(ns_to_timestamp(-1, &ts), -ERANGE);
}

static void test_correction(void **state)
{
	assert_int_equal(correction_to_ns(0), 0);
	assert_int_equal(correction_to_ns(INT64_C(1) << 16), 1);
	assert_int_equal(correction_to_ns((INT64_C(1) << 16) + 0x8000), 1);
	assert_int_equal(correction_to_ns(-(INT64_C(1) << 16)), -1);
	/* floor, not truncation toward zero */
	assert_int_equal(correction_to_ns(-1), -1);
	assert_int_equal(correction_to_ns(INT64_MAX), INT64_MAX);
	assert_int_equal(ns_to_correction(5), INT64_C(5) << 16);
	assert_int_equal(ns_to_correction(-5), -(INT64_C(5) << 16));
	assert_int_equal(correction_to_ns(ns_to_correction(-123456789)), -123456789);
	assert_int_equal(ns_to_correction(INT64_MAX / 2), INT64_MAX);
}

static void test_identity_strings(void **state)
{
	static const uint8_t mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct PortIdentity p = { .portNumber = 1 }, q;
	char buf[PORT_IDENTITY_STRLEN];

	clock_identity_from_mac(mac, &p.clockIdentity);
	assert_string_equal(port_identity_to_string(&p, buf), "001122.fffe.334455-1");
	assert_int_equal(port_identity_from_string("001122.fffe.334455-1", &q), 0);
	assert_true(port_identity_equal(&p, &q));
	p.portNumber = 65535;
	assert_string_equal(port_identity_to_string(&p, buf), "001122.fffe.334455-65535");
	assert_int_equal(port_identity_from_string("001122.fffe.334455-65536", &q), -EINVAL);
	assert_int_equal(port_identity_from_string("001122.fffe.334455-", &q), -EINVAL);
	assert_int_equal(port_identity_from_string("001122.fffe.33445-1", &q), -EINVAL);
	assert_int_equal(port_identity_from_string("001122:fffe.334455-1", &q), -EINVAL);
	assert_int_equal(clock_identity_from_string("AABBCC.fffe.ddeeff", &q.clockIdentity), 0);
	assert_int_equal(q.clockIdentity.id[7], 0xff);
	assert_int_equal(clock_identity_from_string("aabbcc.fffe.ddeeff0", &q.clockIdentity),
			 -EINVAL);
}

static void test_identity_order(void **state)
{
	struct PortIdentity a = { .clockIdentity = { { 0, 0, 0, 0, 0, 0, 0, 1 } },
				  .portNumber = 2 };
	struct PortIdentity b = a;

	b.portNumber = 3;
	assert_true(port_identity_cmp(&a, &b) < 0);
	assert_true(port_identity_cmp(&b, &a) > 0);
	b.portNumber = 2;
	assert_int_equal(port_identity_cmp(&a, &b), 0);
	b.clockIdentity.id[0] = 1;
	b.portNumber = 0;
	assert_true(port_identity_cmp(&a, &b) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timestamp_roundtrip),
		cmocka_unit_test(test_timestamp_rejects),
		cmocka_unit_test(test_correction),
		cmocka_unit_test(test_identity_strings),
		cmocka_unit_test(test_identity_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
