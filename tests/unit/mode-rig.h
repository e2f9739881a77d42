/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clock-mode tests' supervisor: one instance, with or without a port, and no loop or bus. */
#pragma once

#include "daemon/manager-internal.h"

/* A manager with no event loop, workers or bus, one instance and at most one port. */
struct mode_rig {
	struct manager m;
	struct instance *inst;
	struct instance *instances[1];
	struct mport port; /* with_port: MASTER, software timestamps, no worker */
	struct mport *ports[1];
};

/*
 * An instance NAME of default options (dataset_comparison G.8275.x with g8275, holdover_lock_time
 * 0: the clock is real and the tests do not sleep), then base and tune applied (either NULL).
 */
void mode_rig_init(struct mode_rig *r, const char *name, bool g8275,
		   void (*base)(struct instance_options *), void (*tune)(struct instance_options *),
		   bool with_port);
