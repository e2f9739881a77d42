// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An instance's clock mode wired in (daemon/clock-mode-step.c): what its defaultDS, its own time
 * properties and the settings its workers get say in each mode, and the override.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/clock-mode-step.h"
#include "daemon/manager-internal.h"
#include "ptp/msg.h"
#include "tests/unit/mode-rig.h"

/* One instance of no port: a T-BC whose reference is its parent. */
static void rig_init(struct mode_rig *r, bool g8275, void (*tune)(struct instance_options *))
{
	mode_rig_init(r, "tbc", g8275, NULL, tune, false);
}

/* One derive step with the parent there (synchronized) or not; the quality pushed if it moved. */
static uint64_t step(struct mode_rig *r, bool synchronized)
{
	uint64_t wake;

	r->inst->synchronized = synchronized;
	if (instance_clock_mode_step(r->inst, &wake)) {
		instance_push_own_quality(r->inst);
	}
	return wake;
}

/* What the instance announces as grandmaster: its defaultDS class and its own flags. */
static void expect_announced(struct mode_rig *r, enum clock_mode mode, uint8_t cls, bool traceable)
{
	struct defaultDS dds;
	struct gm_settings gm;

	assert_int_equal(r->inst->clock_mode.mode, mode);
	instance_default_ds(r->inst, &dds);
	assert_int_equal(dds.clockQuality.clockClass, cls);
	assert_int_equal(r->inst->clock_quality.clockClass, cls);
	instance_gm_settings(r->inst, &gm);
	assert_int_equal(gm.clockQuality.clockClass, cls);
	assert_int_equal(gm.tp.timeTraceable, traceable);
	assert_int_equal(gm.tp.frequencyTraceable, traceable);
	/* what a worker gets with its CONFIG */
	instance_announced_gm_settings(r->inst, &gm);
	assert_int_equal(gm.clockQuality.clockClass, cls);
	assert_int_equal(gm.tp.timeTraceable, traceable);
}

/* What the workers were sent last (IPC_SET_GM_SETTINGS). */
static void expect_pushed(struct mode_rig *r, uint8_t cls, bool traceable)
{
	assert_int_equal(r->inst->push_gm_settings.clockQuality.clockClass, cls);
	assert_int_equal(r->inst->push_gm_settings.tp.timeTraceable, traceable);
	assert_int_equal(r->inst->push_gm_settings.tp.frequencyTraceable, traceable);
}

/* G.8275.1 T-BC: 248 (configured) before the first lock and while locked, 135 once the parent
 * went, with both flags; a time pass a second is asked for while in holdover. */
static void test_g8275_holdover_in_spec(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, NULL);
	assert_int_equal(step(&r, false), 0);
	expect_announced(&r, CLOCK_MODE_FREE_RUN, 248, false);
	assert_int_equal(r.inst->time_error_ns, -1);
	assert_int_equal(step(&r, true), 0);
	expect_announced(&r, CLOCK_MODE_LOCKED, 248, true);
	expect_pushed(&r, 248, true);
	assert_int_equal(r.inst->time_error_ns, 0);
	assert_int_not_equal(step(&r, false), 0);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 135, true);
	expect_pushed(&r, 135, true);
	assert_true(r.inst->dirty & INSTANCE_CHANGED_CLOCK_MODE);
	instance_free(r.inst);
}

static void tight_bound(struct instance_options *o)
{
	o->holdover.time_error = 1;
}

/* Beyond the time-error bound at once (the last offset 5 ns against 1 ns): 165, no flags. */
static void test_g8275_out_of_spec(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, tight_bound);
	r.inst->offset_ns = 5;
	step(&r, true);
	expect_announced(&r, CLOCK_MODE_LOCKED, 248, true);
	step(&r, false);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, 165, false);
	assert_int_equal(r.inst->time_error_ns, 5);
	assert_string_equal(r.inst->clock_mode.reason,
			    "reference lost, time error beyond the bound");
	instance_free(r.inst);
}

static void class_200(struct instance_options *o)
{
	o->clockClass = 200;
	o->gm_time_flags = MSG_FLAG_TIME_TRACEABLE | MSG_FLAG_FREQUENCY_TRACEABLE;
}

/* Never locked: the configuration as it was (a grandmaster by configuration is unchanged). */
static void test_never_locked_is_configured(void **state)
{
	struct mode_rig r;

	rig_init(&r, true, class_200);
	step(&r, false);
	expect_announced(&r, CLOCK_MODE_FREE_RUN, 200, true);
	instance_free(r.inst);
}

/* ieee1588: the configured class in every mode; its flags only while the mode allows them. */
static void test_ieee1588_keeps_class(void **state)
{
	struct mode_rig r;

	rig_init(&r, false, class_200);
	step(&r, true);
	expect_announced(&r, CLOCK_MODE_LOCKED, 200, true);
	step(&r, false);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 200, true);
	instance_free(r.inst);

	rig_init(&r, false, tight_bound);
	r.inst->options.gm_time_flags = MSG_FLAG_TIME_TRACEABLE | MSG_FLAG_FREQUENCY_TRACEABLE;
	r.inst->offset_ns = 5;
	step(&r, true);
	step(&r, false);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, 248, false);
	instance_free(r.inst);
}

/* SetGrandmasterSettings overrides the mode until a reload; the mode still runs. */
static void test_override(void **state)
{
	struct mode_rig r;
	struct gm_settings gm;
	struct instance_options file;

	rig_init(&r, true, NULL);
	file = r.inst->options;
	step(&r, true);
	step(&r, false);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 135, true);
	options_gm_settings(&r.inst->options, &gm);
	gm.clockQuality.clockClass = 6;
	gm.tp.timeTraceable = gm.tp.frequencyTraceable = true;
	assert_int_equal(instance_set_gm_settings(r.inst, &gm), 0);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 6, true);
	expect_pushed(&r, 6, true);
	/* A reload that restarts the instance (its workers get a CONFIG): the mode's class. */
	instance_apply_options(r.inst, &file);
	expect_announced(&r, CLOCK_MODE_HOLDOVER_IN_SPEC, 135, true);
	instance_free(r.inst);
}

/* A slave-only clock stays 255 whatever its mode. */
static void slave_only(struct instance_options *o)
{
	o->slaveOnly = true;
}

static void test_slave_only(void **state)
{
	struct mode_rig r;
	struct defaultDS dds;

	rig_init(&r, true, slave_only);
	step(&r, true);
	step(&r, false);
	instance_default_ds(r.inst, &dds);
	assert_int_equal(dds.clockQuality.clockClass, CLOCK_CLASS_SLAVE_ONLY);
	instance_free(r.inst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g8275_holdover_in_spec),
		cmocka_unit_test(test_g8275_out_of_spec),
		cmocka_unit_test(test_never_locked_is_configured),
		cmocka_unit_test(test_ieee1588_keeps_class),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_slave_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
