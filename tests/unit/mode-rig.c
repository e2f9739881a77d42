// SPDX-License-Identifier: GPL-2.0-or-later
/* The clock-mode tests' supervisor: one instance, with or without a port, and no loop or bus. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tests/unit/mode-rig.h"

/*
 * The tests age an instance by moving its monotonic timestamps back (test-time-source's age(): an
 * hour and more), where a negative one means "never": on a machine up for less than that they
 * read as never, and test_g8275_every_transition failed with 18 minutes of uptime. The rig's
 * programs link with --wrap=clock_gettime (tests/unit/meson.build): their monotonic clocks read
 * as if the machine had been up for a week more.
 */
#define MODE_RIG_UPTIME_S (7 * 24 * 3600)

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	int r = __real_clock_gettime(id, ts);

	if (r == 0 && (id == CLOCK_MONOTONIC || id == CLOCK_BOOTTIME)) {
		ts->tv_sec += MODE_RIG_UPTIME_S;
	}
	return r;
}

void mode_rig_init(struct mode_rig *r, const char *name, bool g8275,
		   void (*base)(struct instance_options *), void (*tune)(struct instance_options *),
		   bool with_port)
{
	struct config_instance ci = { 0 };

	memset(r, 0, sizeof(*r));
	options_instance_defaults(&ci.options);
	options_port_defaults(&ci.port);
	snprintf(ci.options.name, sizeof(ci.options.name), "%s", name);
	if (g8275) {
		ci.options.dataset_comparison = BMCA_COMPARISON_G8275;
	}
	ci.options.holdover.lock_time = 0;
	if (base) {
		base(&ci.options);
	}
	if (tune) {
		tune(&ci.options);
	}
	assert_int_equal(instance_new(&r->m, &ci, &r->inst), 0);
	r->instances[0] = r->inst;
	r->m.instances = r->instances;
	r->m.n_instances = 1;
	if (with_port) {
		r->port.instance = r->inst;
		r->port.manager = &r->m;
		r->port.state = PORT_STATE_MASTER;
		r->port.timestamping = TRANSPORT_TS_MODE_SOFTWARE;
		r->ports[0] = &r->port;
		r->m.ports = r->ports;
		r->m.n_ports = 1;
	}
}
