// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/ds.c: enum names both ways, log intervals, time property flags. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "ptp/ds.h"
#include "ptp/options.h"

static void test_port_state_names(void **state)
{
	for (int s = PORT_STATE_MIN; s <= PORT_STATE_MAX; s++) {
		const char *name = port_state_to_string(s);
		enum port_state back;

		assert_non_null(name);
		assert_int_equal(port_state_from_string(name, &back), 0);
		assert_int_equal(back, s);
	}
	assert_string_equal(port_state_to_string(PORT_STATE_SLAVE), "SLAVE");
	assert_string_equal(port_state_to_string(PORT_STATE_PRE_MASTER), "PRE_MASTER");
	assert_null(port_state_to_string(0));
	assert_null(port_state_to_string(PORT_STATE_MAX + 1));

	enum port_state s = PORT_STATE_MASTER;
	assert_int_equal(port_state_from_string("slave", &s), -EINVAL);
	assert_int_equal(port_state_from_string("", &s), -EINVAL);
	assert_int_equal(port_state_from_string(NULL, &s), -EINVAL);
	assert_int_equal(s, PORT_STATE_MASTER); /* untouched on failure */
}

static void test_delay_mechanism_names(void **state)
{
	enum delay_mechanism d;

	assert_string_equal(delay_mechanism_to_string(DELAY_MECHANISM_E2E), "E2E");
	assert_string_equal(delay_mechanism_to_string(DELAY_MECHANISM_P2P), "P2P");
	assert_int_equal(delay_mechanism_from_string("P2P", &d), 0);
	assert_int_equal(d, DELAY_MECHANISM_P2P);
	assert_int_equal(delay_mechanism_from_string("NO_MECHANISM", &d), 0);
	assert_int_equal(d, 0xFE);
	assert_int_equal(delay_mechanism_from_string("Auto", &d), -EINVAL);
	assert_null(delay_mechanism_to_string(0));
}

static void test_time_source_names(void **state)
{
	enum time_source t;

	assert_string_equal(time_source_to_string(TIME_SOURCE_INTERNAL_OSCILLATOR),
			    "INTERNAL_OSCILLATOR");
	assert_int_equal(time_source_from_string("GNSS", &t), 0);
	assert_int_equal(t, 0x20);
	assert_null(time_source_to_string(0x11));
}

static void test_log_interval(void **state)
{
	assert_int_equal(ds_log_interval_to_ns(0), NS_PER_SEC);
	assert_int_equal(ds_log_interval_to_ns(1), 2 * NS_PER_SEC);
	assert_int_equal(ds_log_interval_to_ns(-3), NS_PER_SEC / 8);
	assert_int_equal(ds_log_interval_to_ns(127), NS_PER_SEC << 30);
	/* Never 0: a caller may divide by it (issue 17, finding 1). */
	assert_int_equal(ds_log_interval_to_ns(-128), NS_PER_SEC >> 29);
	for (int l = INT8_MIN; l <= INT8_MAX; l++) {
		assert_true(ds_log_interval_to_ns((int8_t) l) > 0);
	}
	assert_true(ds_log_interval_wire_valid(-10));
	assert_true(ds_log_interval_wire_valid(22));
	assert_false(ds_log_interval_wire_valid(-11));
	assert_false(ds_log_interval_wire_valid(23));
	assert_false(ds_log_interval_wire_valid(0x7F));
}

static void test_flags_roundtrip(void **state)
{
	for (unsigned int f = 0; f < 64; f++) {
		struct timePropertiesDS tp = { 0 };

		ds_time_properties_set_flags(&tp, f | 0xFF00);
		assert_int_equal(ds_time_properties_flags(&tp), f);
	}
	struct timePropertiesDS tp = { .leap61 = true, .ptpTimescale = true };
	assert_int_equal(ds_time_properties_flags(&tp), 0x0009);
}

/*
 * options_default_ds(), the one builder of defaultDS (8.2.1): every field from the options and
 * its arguments, with the two rules applied, and only those.
 */
static void test_default_ds(void **state)
{
	static const struct {
		bool slaveOnly, gmCapable;
		uint8_t clockClass, priority1; /* expected */
	} cases[] = {
		{ false, true, 6, 100 },
		{ true, true, CLOCK_CLASS_SLAVE_ONLY, 100 }, /* 9.2.2.2 */
		{ false, false, 6, 255 },		     /* 802.1AS-2020 8.6.2.1 */
		{ true, false, CLOCK_CLASS_SLAVE_ONLY, 255 },
	};
	const struct ClockIdentity id = { { 1, 2, 3, 0xff, 0xfe, 4, 5, 6 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct instance_options o;
		struct defaultDS d;

		options_instance_defaults(&o);
		o.slaveOnly = cases[i].slaveOnly;
		o.gmCapable = cases[i].gmCapable;
		o.clockClass = 6;
		o.priority1 = 100;
		o.priority2 = 99;
		o.clockAccuracy = 0x21;
		o.offsetScaledLogVariance = 0x4e5d;
		o.domainNumber = 24;
		o.localPriority = 7;
		o.maxStepsRemoved = 9;
		o.dataset_comparison = BMCA_COMPARISON_G8275;
		options_default_ds(&o, &id, 3, 1, &d);
		assert_memory_equal(&d.clockIdentity, &id, sizeof(id));
		assert_int_equal(d.numberPorts, 3);
		assert_int_equal(d.clockQuality.clockClass, cases[i].clockClass);
		assert_int_equal(d.clockQuality.clockAccuracy, 0x21);
		assert_int_equal(d.clockQuality.offsetScaledLogVariance, 0x4e5d);
		assert_int_equal(d.priority1, cases[i].priority1);
		assert_int_equal(d.priority2, 99);
		assert_int_equal(d.domainNumber, 24);
		assert_int_equal(d.slaveOnly, cases[i].slaveOnly);
		assert_true(d.twoStepFlag);
		assert_int_equal(d.sdoId, 0x100); /* majorSdoId from transportSpecific 1 */
		assert_int_equal(d.localPriority, 7);
		assert_int_equal(d.maxStepsRemoved, 9);
		assert_int_equal(d.comparison, BMCA_COMPARISON_G8275);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_state_names),
		cmocka_unit_test(test_delay_mechanism_names),
		cmocka_unit_test(test_time_source_names),
		cmocka_unit_test(test_log_interval),
		cmocka_unit_test(test_flags_roundtrip),
		cmocka_unit_test(test_default_ds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
