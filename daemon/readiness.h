/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The readiness verdict ("may time-sync.target be reached?"): pure functions of the state. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/ds.h"
#include "ptp/servo.h"

#define READINESS_REASON_MAX 256

struct readiness {
	bool ready;
	char reason[READINESS_REASON_MAX]; /* why (not) ready, a sentence for people */
	/* readiness_instance_input.configured_grandmaster: no boot gate (D-Bus
	 * ConfiguredGrandmaster, the alert rules' "not the configured grandmaster") */
	bool configured_grandmaster;
};

/* One port of an instance as the boot gate sees it. */
struct readiness_port {
	const char *ifname;
	enum port_state state;
	bool running;		/* in the protocol: not FAULTY, DISABLED or INITIALIZING */
	uint64_t listened_usec; /* how long its worker has listened on the link since it came up */
	uint64_t gate_usec;	/* readiness_gate_usec() of its announce options */
	bool not_as_capable;	/* 802.1AS asCapable false: its link carries no time */
};

/*
 * clock_servo refclock_sock: chronyd steers the system clock from what the instance sends, so
 * the instance is ready once its samples flow; time-sync.target is chrony-wait's to reach.
 */
struct readiness_refclock {
	const char *address; /* chronyd's socket */
	bool sending;	     /* the socket accepted the last sample */
	bool refused;	     /* the socket is missing or refuses */
	const char *reason;  /* why not sending (refclock_info.reason) */
};

struct readiness_instance_input {
	unsigned int domain;
	bool synchronized;
	bool is_grandmaster; /* health: own identity, a port MASTER, none SLAVE or LISTENING */
	/*
	 * It never follows another clock, so nothing to wait for: clockClass below 128
	 * (IEEE 1588-2019 9.3.3: such a clock's ports never become SLAVE) or masterOnly on every
	 * port.
	 */
	bool configured_grandmaster;
	const char *grandmaster; /* the grandmaster's clockIdentity, as a string */
	const char *missing;	 /* the first interface named but not present, NULL for none */
	enum servo_state servo;
	const char *health_reason; /* the first health reason's sentence, NULL for none */
	const struct readiness_refclock *refclock; /* NULL: the instance does not feed chronyd */
	const struct readiness_port *ports;
	size_t n_ports;
};

/* Do two verdicts say the same (what D-Bus would signal as a change)? */
bool readiness_equal(const struct readiness *a, const struct readiness *b);

/*
 * The boot gate of one port: how long it must have listened before its silence means there is
 * no better master: announceReceiptTimeout announce intervals (a master started with it
 * announces only after its own timeout) plus the foreign-master qualification window
 * (FOREIGN_MASTER_TIME_WINDOW intervals, IEEE 1588-2019 9.3.2.4.4), in microseconds.
 */
uint64_t readiness_gate_usec(int8_t logAnnounceInterval, uint8_t announceReceiptTimeout);

/*
 * A port that computes asCapable (802.1AS: options_port_runs_as_capable()) neither sends nor
 * takes Announce before its link is asCapable, nor does its neighbour's: its gate adds the
 * Pdelay exchanges that make both ends asCapable (two for the neighborRateRatio, one for the
 * phase between the two ends' requests), and the supervisor counts its listening anew from
 * the moment it became asCapable (mport.listening_since_usec).
 */
#define READINESS_AS_CAPABLE_EXCHANGES 3
uint64_t readiness_as_capable_usec(int8_t logMinPdelayReqInterval);

/*
 * Ready: synchronized; or without ports (nothing to wait for); or the grandmaster of its domain
 * once every running port listened its boot gate and one of them is asCapable (it serves a
 * link), or configured to be the grandmaster. Not ready while an interface its `interfaces`
 * names is missing, unless synchronized.
 */
void readiness_instance(const struct readiness_instance_input *in, struct readiness *ret);

struct instance;
struct mport;

/* Is the interface one of these ports (not being removed)? */
bool mport_list_has(struct mport *const *ports, size_t n, const char *ifname);

/*
 * readiness_instance() of what instance i and its ports (ports[0..n), all of them i's) hold
 * (and its feed of chronyd, refclock, NULL for none), at
 * now_usec (CLOCK_MONOTONIC). *ret_gate_opens: when the first boot gate still closed opens (0:
 * none), for a look then, since time alone changes nothing else. -ENOMEM: *ret untouched.
 */
int readiness_of_instance(const struct instance *i, struct mport *const *ports, size_t n,
			  const struct readiness_refclock *refclock, uint64_t now_usec,
			  struct readiness *ret, uint64_t *ret_gate_opens);

/*
 * The daemon's verdict over its instances (their readiness, name and Synchronized) and, when
 * phcd steers it (system_clock_instance not ""), the system clock: synchronized, or steered by
 * another program (conflict not ""), or the reference (the instance it follows ready without
 * being synchronized).
 */
void readiness_daemon(struct instance *const *instances, size_t n,
		      const char *system_clock_instance, bool system_clock_synchronized,
		      const char *conflict, struct readiness *ret);
