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
};

/* One port of an instance as the boot gate sees it. */
struct readiness_port {
	const char *ifname;
	enum port_state state;
	bool running;		/* its worker runs the protocol (HELLO answered) */
	uint64_t listened_usec; /* how long that worker has been listening on the link */
	uint64_t gate_usec;	/* readiness_gate_usec() of its announce options */
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
	const struct readiness_port *ports;
	size_t n_ports;
};

/*
 * The boot gate of one port: how long it must have listened before its silence means there is
 * no better master: announceReceiptTimeout announce intervals (a master started with it
 * announces only after its own timeout) plus the foreign-master qualification window
 * (FOREIGN_MASTER_TIME_WINDOW intervals, IEEE 1588-2019 9.3.2.4.4), in microseconds.
 */
uint64_t readiness_gate_usec(int8_t logAnnounceInterval, uint8_t announceReceiptTimeout);

/*
 * Ready: synchronized; or without ports (nothing to wait for); or the grandmaster of its domain
 * once every running port listened its boot gate (or configured to be the grandmaster). Not
 * ready while an interface its `interfaces` names is missing, unless synchronized.
 */
void readiness_instance(const struct readiness_instance_input *in, struct readiness *ret);

/* The daemon's verdict over its instances and, when phcd steers it, the system clock. */
struct readiness_daemon_input {
	const struct readiness *instances; /* each instance's verdict, in order */
	const char *const *names;	   /* their names */
	const bool *synchronized;	   /* each instance's Synchronized */
	size_t n_instances;
	const char *system_clock_instance; /* "" when phcd does not steer CLOCK_REALTIME */
	bool system_clock_synchronized;
	const char *system_clock_conflict; /* "" unless another program steers it */
};

void readiness_daemon(const struct readiness_daemon_input *in, struct readiness *ret);
