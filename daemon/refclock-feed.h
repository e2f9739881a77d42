/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd as chronyd's reference clock: each clock_servo refclock_sock instance's samples to chronyd.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/ipc.h"
#include "daemon/model.h"
#include "daemon/sysclock.h"

struct refclock_feeds;
struct health_report;

enum refclock_state {
	REFCLOCK_IDLE = 0, /* the instance is not synchronized: nothing is sent */
	REFCLOCK_SENDING,  /* the last sample was accepted by the socket */
	REFCLOCK_REFUSED,  /* the socket is missing or refuses: retried at each sample */
};

const char *refclock_state_to_string(enum refclock_state st);

/* What D-Bus shows of an instance's feed. */
struct refclock_info {
	const char *address; /* "" when the instance does not feed chronyd */
	enum refclock_state state;
	const char *state_name;	     /* refclock_state_to_string(state), "" without a feed */
	uint64_t last_accepted_usec; /* CLOCK_REALTIME of the last accepted sample; 0: never */
	uint64_t accepted;
	int error;	    /* -errno of the last refused send, 0 while accepted */
	const char *reason; /* why idle or refused, "" when sending */
};

/* ops and userdata: the system clock follower's, whose clocks the feeds read. */
int refclock_feeds_new(struct manager *m, const struct sysclock_ops *ops, void *userdata,
		       struct refclock_feeds **ret);
struct refclock_feeds *refclock_feeds_free(struct refclock_feeds *fs);

/*
 * Once a second: each clock_servo refclock_sock instance gets a feed (feeds of instances gone
 * or reconfigured go); one whose SLAVE port has hardware timestamps sends CLOCK_REALTIME
 * against that port's PHC (PTP_SYS_OFFSET_PRECISE/EXTENDED) while the instance is
 * synchronized. slave_port and source are the system clock follower's choices of the instance's
 * trusted SLAVE port and of what can be read of it.
 */
void refclock_feeds_tick(struct refclock_feeds *fs);

/* A STATUS from port p: with software timestamps its offset is CLOCK_REALTIME's, sent as is. */
void refclock_feeds_port_status(struct refclock_feeds *fs, struct mport *p,
				const struct ipc_status *s);

/* The feed of instance i (false when it has none). */
bool refclock_feed_info(const struct instance *i, struct refclock_info *ret);

/* The instance feeds chronyd (clock_servo refclock_sock): phcd steers nothing on CLOCK_REALTIME
 * for it. */
static inline bool instance_feeds_refclock(const struct instance *i)
{
	return i->options.servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK;
}

/*
 * A health reason for a feed whose socket is missing or refuses; and, where chronyd is the
 * instance's servo (health_chronyd_servo: ports[0..n) its ports), for a feed that sends nothing
 * while a port follows a master.
 */
void refclock_feed_health(const struct instance *i, struct mport *const *ports, size_t n,
			  struct health_report *h);
