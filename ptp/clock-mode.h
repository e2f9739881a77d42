/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An instance's clock mode (locked, holdover within or beyond specification, free-run) and the
 * clockClass and traceability each mode lets it announce. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * The modes of ITU-T G.8275.1 6.7 / G.781 (and IEEE 1588-2019 7.6.2.5's classes 6, 7, 52, 187):
 * what the instance's time is worth at this moment. It starts FREE_RUN.
 */
enum clock_mode {
	CLOCK_MODE_FREE_RUN = 0,	 /* never locked, or holdover over */
	CLOCK_MODE_LOCKED,		 /* locked to its reference */
	CLOCK_MODE_HOLDOVER_IN_SPEC,	 /* reference gone, estimated time error within bounds */
	CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, /* reference gone, beyond the bound or the time */
};
#define CLOCK_MODE_MAX CLOCK_MODE_HOLDOVER_OUT_OF_SPEC

const char *clock_mode_to_string(enum clock_mode m);
int clock_mode_from_string(const char *s, enum clock_mode *ret);

/* What the instance announces of itself in one mode (defaultDS.clockQuality.clockClass, 8.2.1). */
struct clock_mode_quality {
	uint8_t clockClass;
	bool timeTraceable;
	bool frequencyTraceable;
};

/* The class tables: the instance's own reference (a grandmaster) or a PTP master (a T-BC). */
enum clock_mode_role {
	CLOCK_MODE_ROLE_GRANDMASTER = 0, /* its reference is a time source of its own (T-GM) */
	CLOCK_MODE_ROLE_BOUNDARY,	 /* its reference is its parent through a SLAVE port */
};

enum clock_mode_classes {
	CLOCK_MODE_CLASSES_IEEE1588 = 0, /* IEEE 1588-2019 Table 4 */
	CLOCK_MODE_CLASSES_G8275,	 /* ITU-T G.8275.1 Table 2 (T-GM, T-BC) */
};

struct clock_mode_config {
	enum clock_mode_role role;
	enum clock_mode_classes classes;
	uint8_t configured_class;     /* the instance's clockClass key: free-run (248 by default) */
	uint8_t gm_out_of_spec_class; /* G.8275.1 T-GM out of holdover specification: 140/150/160 */
	ns_t holdover_time;	 /* in specification at most this long after the reference went */
	ns_t holdover_max_error; /* ... and while the estimated time error stays below this */
	ns_t out_of_spec_time;	 /* out of spec this long (from then) before free-run; 0: never */
	ns_t lock_time;		 /* the reference steady this long before LOCKED (hysteresis) */
	double drift_ppb_per_s;	 /* the oscillator's assumed frequency drift in holdover */
};

/* Defaults: 1588 classes, grandmaster, holdover 300 s within 1.1 us, 3600 s beyond, 10 s lock. */
void clock_mode_config_default(struct clock_mode_config *c);

/* The quality of mode m under c: the table of ITU-T G.8275.1 Table 2 or IEEE 1588-2019 Table 4. */
struct clock_mode_quality clock_mode_quality(const struct clock_mode_config *c, enum clock_mode m);

/*
 * One instance's machine. The caller feeds it every second or so (and on each change of its
 * reference); it moves at once to a worse mode and to LOCKED only after lock_time of a steady
 * reference, so one good sample never announces a better class.
 */
struct clock_mode_fsm {
	enum clock_mode mode;
	ns_t since;	       /* monotonic time the current mode began */
	ns_t ref_steady_since; /* reference good without a break since then; -1: not good */
	ns_t ref_lost;	       /* when the reference went (holdover's start); -1: none */
	double te0_ns;	       /* time error when it went: the last locked RMS */
	double freq_sigma_ppb; /* the frequency estimate's spread when it went */
	double te_ns;	       /* the estimated time error now (0 when LOCKED, -1 in FREE_RUN) */
	const char *reason;    /* why this mode, for D-Bus and the journal (static text) */
};

/* What the caller knows at time now: is the reference locked, and how good was it? */
struct clock_mode_input {
	bool reference_ok;     /* locked on the reference now (servo LOCKED, reference valid) */
	double offset_rms_ns;  /* while reference_ok: the measured time error's RMS */
	double freq_sigma_ppb; /* while reference_ok: the frequency estimate's standard deviation */
};

void clock_mode_init(struct clock_mode_fsm *f, ns_t now);

/*
 * Advance to now with input in; returns true when the mode changed (the caller announces the new
 * quality within one Announce interval and logs the transition once).
 */
bool clock_mode_step(struct clock_mode_fsm *f, const struct clock_mode_config *c,
		     const struct clock_mode_input *in, ns_t now);

/* The time error estimate t after the reference went: te0 + sigma * t + drift * t^2 / 2, in ns. */
double clock_mode_time_error(double te0_ns, double freq_sigma_ppb, double drift_ppb_per_s, ns_t t);
