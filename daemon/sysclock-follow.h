/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The supervisor's system clock: CLOCK_REALTIME follows the PTP clock of one instance. */
#pragma once

#include "common/ipc.h"
#include "daemon/sysclock.h"

struct manager;
struct mport;
struct sysclock_follow;

/*
 * Follows the instance named by system_clock_instance in the running configuration ("auto": the
 * first instance with a SLAVE port; "": none, and then nothing is ever written to the clock).
 * From that instance's SLAVE port: its PHC once a second through sysoff (hardware timestamps,
 * clock_backend phc), or the worker's offsets as they arrive (software timestamps, clock_backend
 * system or free_running, where the port's clock is CLOCK_REALTIME itself). ops is
 * sysclock_linux_ops in phcd.
 */
int sysclock_follow_new(struct manager *m, const struct sysclock_ops *ops, void *userdata,
			struct sysclock_follow **ret);
struct sysclock_follow *sysclock_follow_free(struct sysclock_follow *f);

/* CLOCK_REALTIME is LOCKED to the followed instance (false for NULL). */
bool sysclock_follow_synchronized(const struct sysclock_follow *f);

/* A STATUS from port p (already applied to its instance). */
void sysclock_follow_port_status(struct sysclock_follow *f, struct mport *p,
				 const struct ipc_status *s);
