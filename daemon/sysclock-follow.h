/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The supervisor's system clock: CLOCK_REALTIME follows the PTP clock of one instance. */
#pragma once

#include "common/ipc.h"
#include "daemon/sysclock.h"
#include "ptp/sysoff.h"

struct instance;
struct manager;
struct mport;
struct refclock_feeds;
struct sysclock_follow;

/* What can be read of a SLAVE port to compare CLOCK_REALTIME with its instance's time. */
enum sysclock_source {
	SYSCLOCK_SOURCE_NONE = 0,
	SYSCLOCK_SOURCE_PHC,	  /* the SLAVE port's PHC, read through sysoff */
	SYSCLOCK_SOURCE_SOFTWARE, /* the worker's offsets: its timestamps are CLOCK_REALTIME */
};

/* A virtual clock's time is nowhere but in its worker: SYSCLOCK_SOURCE_NONE. */
enum sysclock_source sysclock_follow_source(const struct mport *p);
/*
 * The SLAVE port the supervisor's BMCA made SLAVE and the worker trust allows, of instance i;
 * with i NULL ("auto"), of any instance that does not feed chronyd (clock_servo refclock_sock).
 */
struct mport *sysclock_follow_slave_port(struct manager *m, const struct instance *i);

/*
 * A read-only PHC fd for PTP_SYS_OFFSET*, opened at the first read of its index; or ops'
 * phc_measure where it has one (a test's simulated PHC).
 */
struct sysclock_phc_reader {
	const struct sysclock_ops *ops;
	void *userdata;
	int fd; /* -1: closed */
	int index;
	enum sysoff_method method;
};
/* CLOCK_REALTIME against /dev/ptp<index>; closes the reader on failure. */
int sysclock_phc_reader_measure(struct sysclock_phc_reader *rd, int index, struct sysoff_pair *ret);
void sysclock_phc_reader_close(struct sysclock_phc_reader *rd);

/*
 * What phcd would steer CLOCK_REALTIME for: system_clock_instance, or "" when nothing (unset, or
 * only instances that feed chronyd instead), so that a chronyd fed by phcd is no rival.
 */
const char *sysclock_follow_target(const struct sysclock_follow *f);

/* The follower's feeds to chronyd (daemon/refclock-feed.c). */
struct refclock_feeds *sysclock_follow_feeds(const struct sysclock_follow *f);

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

/*
 * Once a second (the follower's timer; tests call it themselves): find the followed instance's
 * SLAVE port, read its PHC or start holdover, drop the sysclock when nothing is followed.
 * usec: CLOCK_MONOTONIC now.
 */
void sysclock_follow_tick(struct sysclock_follow *f, uint64_t usec);

/* A STATUS from port p (already applied to its instance). */
void sysclock_follow_port_status(struct sysclock_follow *f, struct mport *p,
				 const struct ipc_status *s);

/*
 * The master's time at a worker's software-timestamped sample, on the master's own timescale: the
 * worker's offset is CLOCK_REALTIME minus the master's time with currentUtcOffset already taken
 * off a master on the PTP timescale (software stamps count UTC: port_sync_offset), and
 * sysclock_sample() and the refclock feed take it off themselves. False if it does not fit.
 */
bool sysclock_follow_software_ref(const struct ipc_status *s, const struct timePropertiesDS *tp,
				  ns_t *ref);

/* After a step, offsets the worker measured before it may still arrive: ignore them this long. */
#define SYSCLOCK_FOLLOW_HOLDOFF_NS (2 * NS_PER_SEC)
/*
 * A software offset reaches us on the worker's status page, read once a second, written at most
 * 0.7 s before: with Sync every 2 s (logSyncInterval 1) its Sync came up to 2.7 s before.
 */
#define SYSCLOCK_FOLLOW_MAX_AGE_NS (4 * NS_PER_SEC)

/* What becomes of a software sample (an offset the worker measured) offered to the follower. */
enum sysclock_follow_verdict {
	SYSCLOCK_FOLLOW_FEED = 0,
	SYSCLOCK_FOLLOW_REPEAT,	     /* none, or the one fed last (the page was not rewritten) */
	SYSCLOCK_FOLLOW_HOLDOFF,     /* within SYSCLOCK_FOLLOW_HOLDOFF_NS after a step */
	SYSCLOCK_FOLLOW_BEFORE_STEP, /* stamped before the last step: measured on the old time */
	SYSCLOCK_FOLLOW_FUTURE,	     /* stamped after now: the clock stepped back since */
	SYSCLOCK_FOLLOW_STALE, /* older than SYSCLOCK_FOLLOW_MAX_AGE_NS: the worker is stuck */
};

/*
 * The decision for one sample stamped sample_ts (CLOCK_REALTIME): last_sample is the stamp fed
 * last, holdoff_until (CLOCK_MONOTONIC) and step_real (CLOCK_REALTIME) follow the last step, mono
 * and now are the clocks at the decision. Pure.
 */
enum sysclock_follow_verdict sysclock_follow_admit(ns_t sample_ts, ns_t last_sample,
						   ns_t holdoff_until, ns_t step_real, ns_t mono,
						   ns_t now);

#define SYSCLOCK_CONFLICT_TEXT_MAX 256
/*
 * "" while phcd may steer CLOCK_REALTIME; else which other programs steer it ("chronyd (pid 42)
 * already steers CLOCK_REALTIME"), and phcd leaves the clock alone.
 */
const char *sysclock_follow_conflict(const struct sysclock_follow *f);
