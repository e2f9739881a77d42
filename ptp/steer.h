/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a port steers, decided once from the configuration (clock_backend, time_stamping) and what
 * the interface gave (hardware timestamps or not, a PHC and whether it could be opened): the
 * port's PHC, a virtual clock, the system clock (through the supervisor), nothing, or nothing at
 * all because the port cannot run as configured (FAULTY, with the reason).
 */
#pragma once

#include <stdbool.h>

#include "ptp/options.h"

/* The reasons fit a port's LastError as it travels to the supervisor (IPC_ERROR_TEXT_MAX). */
#define STEER_REASON_MAX 64

enum steer_target {
	STEER_PHC,     /* the port's PHC through its fd; the port's servo steers it */
	STEER_VIRTUAL, /* a virtual clock over the stamping clock; no real clock moves */
	STEER_SYSTEM, /* CLOCK_REALTIME, by the supervisor from the port's offsets; no servo here */
	STEER_NOTHING, /* measure only (free_running, or a PHC back end without a PHC) */
	STEER_FAULTY,  /* cannot run as configured: the port stays FAULTY with the reason */
	_STEER_TARGET_MAX,
};

struct steer_input {
	enum options_clock_backend backend;
	enum options_timestamping time_stamping; /* what was asked for */
	bool hw_timestamps;			 /* what the socket does: hardware timestamps */
	int hw_error;  /* -errno: hardware timestamping was wanted but refused; 0 otherwise */
	int phc_index; /* -1: the interface reports none */
	bool phc_open; /* the PHC is held (an fd, opened read-write) */
	int phc_error; /* -errno: opening (or adjusting) the PHC failed; 0 otherwise */
};

struct steer_decision {
	enum steer_target target;
	bool servo;   /* the port's servo runs (port_config.adjust_clock) */
	bool raw_phc; /* timestamps are in the PHC's time: the port reads time through the PHC */
	int error;    /* 0, or -errno for NOTHING-by-necessity and FAULTY */
	/* why, with error: a constant string shorter than STEER_REASON_MAX; NULL when error is 0 */
	const char *reason;
};

/* Which timestamps to ask the interface for: time_stamping, but never hardware for "system". */
enum options_timestamping steer_ts_request(enum options_clock_backend backend,
					   enum options_timestamping time_stamping);

/*
 * Whether the PHC must be held: always when timestamps are hardware (every back end reads its
 * time through it; the phc back end steers it).
 */
bool steer_wants_phc(enum options_clock_backend backend, bool hw_timestamps);

void steer_decide(const struct steer_input *in, struct steer_decision *ret);

const char *steer_target_to_string(enum steer_target t);
