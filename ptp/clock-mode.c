/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An instance's clock mode (locked, holdover within or beyond specification, free-run) and the
 * clockClass and traceability each mode lets it announce. */
#include "ptp/clock-mode.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ptp/ds.h"

const char *clock_mode_to_string(enum clock_mode m)
{
	switch (m) {
	case CLOCK_MODE_FREE_RUN:
		return "free-run";
	case CLOCK_MODE_LOCKED:
		return "locked";
	case CLOCK_MODE_HOLDOVER_IN_SPEC:
		return "holdover";
	case CLOCK_MODE_HOLDOVER_OUT_OF_SPEC:
		return "holdover-out-of-spec";
	}
	return NULL;
}

int clock_mode_from_string(const char *s, enum clock_mode *ret)
{
	if (!s) {
		return -EINVAL;
	}
	for (int m = 0; m <= CLOCK_MODE_MAX; m++) {
		if (strcmp(s, clock_mode_to_string((enum clock_mode) m)) == 0) {
			*ret = (enum clock_mode) m;
			return 0;
		}
	}
	return -EINVAL;
}

void clock_mode_config_default(struct clock_mode_config *c)
{
	*c = (struct clock_mode_config){
		.role = CLOCK_MODE_ROLE_GRANDMASTER,
		.classes = CLOCK_MODE_CLASSES_IEEE1588,
		.configured_class = CLOCK_CLASS_DEFAULT,
		.gm_out_of_spec_class = 140,
		.holdover_time = 300 * NS_PER_SEC,
		/* ITU-T G.8271.1's 1.1 us end-application budget for a T-BC/T-GM chain in holdover
		 */
		.holdover_max_error = 1100,
		.out_of_spec_time = 3600 * NS_PER_SEC,
		.lock_time = 10 * NS_PER_SEC,
		.drift_ppb_per_s = 0.0,
	};
}

/*
 * ITU-T G.8275.1 Table 2 (and 6.7): T-GM 6 locked, 7 in holdover within specification, 140/150/
 * 160 beyond it (by the oscillator's category); T-BC 135 within, 165 beyond; 248 free-run (and a
 * T-BC that is locked announces 248 of itself: its quality is its parent's). The traceability
 * flags hold while the time is within specification (G.8275.1 Table 2's timeTraceable column).
 * IEEE 1588-2019 Table 4: 6 / 7 / 52 (degradation alternative A) for a clock with a primary
 * reference; a boundary clock has no class of its own for holdover (7 and 52 could never become
 * slaves again, 9.3.3), so it keeps its configured class and only its flags say what it has.
 */
struct clock_mode_quality clock_mode_quality(const struct clock_mode_config *c, enum clock_mode m)
{
	bool gm = c->role == CLOCK_MODE_ROLE_GRANDMASTER;
	bool itu = c->classes == CLOCK_MODE_CLASSES_G8275;
	struct clock_mode_quality q = { .clockClass = c->configured_class };

	switch (m) {
	case CLOCK_MODE_LOCKED:
		q.timeTraceable = q.frequencyTraceable = true;
		if (gm) {
			q.clockClass = CLOCK_CLASS_PRIMARY;
		}
		break;
	case CLOCK_MODE_HOLDOVER_IN_SPEC:
		q.timeTraceable = q.frequencyTraceable = true;
		if (gm) {
			q.clockClass = CLOCK_CLASS_PRIMARY_HOLDOVER;
		} else if (itu) {
			q.clockClass = 135;
		}
		break;
	case CLOCK_MODE_HOLDOVER_OUT_OF_SPEC:
		if (gm) {
			q.clockClass = itu ? c->gm_out_of_spec_class : 52;
		} else if (itu) {
			q.clockClass = 165;
		}
		break;
	case CLOCK_MODE_FREE_RUN:
		break;
	}
	return q;
}

double clock_mode_time_error(double te0_ns, double freq_sigma_ppb, double drift_ppb_per_s, ns_t t)
{
	double s = (double) t / (double) NS_PER_SEC;

	if (s < 0) {
		s = 0;
	}
	/* ppb is ns per s: a frequency error y gives y * t, a drift d gives d * t^2 / 2. */
	return fabs(te0_ns) + fabs(freq_sigma_ppb) * s + fabs(drift_ppb_per_s) * s * s / 2;
}

void clock_mode_init(struct clock_mode_fsm *f, ns_t now)
{
	*f = (struct clock_mode_fsm){
		.mode = CLOCK_MODE_FREE_RUN,
		.since = now,
		.ref_steady_since = -1,
		.ref_lost = -1,
		.te_ns = -1,
		.reason = "no reference yet",
	};
}

static bool enter(struct clock_mode_fsm *f, enum clock_mode m, ns_t now, const char *reason)
{
	f->reason = reason;
	if (f->mode == m) {
		return false;
	}
	f->mode = m;
	f->since = now;
	return true;
}

bool clock_mode_step(struct clock_mode_fsm *f, const struct clock_mode_config *c,
		     const struct clock_mode_input *in, ns_t now)
{
	if (in->reference_ok) {
		if (f->ref_steady_since < 0) {
			f->ref_steady_since = now;
		}
		if (f->mode == CLOCK_MODE_LOCKED) {
			/* Keep what holdover will start from: the latest locked figures. */
			f->te0_ns = in->offset_rms_ns;
			f->freq_sigma_ppb = in->freq_sigma_ppb;
			f->te_ns = 0;
			return enter(f, CLOCK_MODE_LOCKED, now, "locked to its reference");
		}
		if (now - f->ref_steady_since >= c->lock_time) {
			f->ref_lost = -1;
			f->te0_ns = in->offset_rms_ns;
			f->freq_sigma_ppb = in->freq_sigma_ppb;
			f->te_ns = 0;
			return enter(f, CLOCK_MODE_LOCKED, now, "locked to its reference");
		}
		/* Steady, but not for long enough yet: the mode it had (no better class early). */
	} else {
		f->ref_steady_since = -1;
		if (f->mode == CLOCK_MODE_LOCKED) {
			f->ref_lost = now;
		}
	}
	if (f->ref_lost < 0) {
		/* Never locked: free-running, whatever the reference does before lock_time. */
		f->te_ns = -1;
		return enter(f, CLOCK_MODE_FREE_RUN, now,
			     in->reference_ok ? "reference not yet steady for the lock time"
					      : "no reference");
	}

	ns_t gone = now - f->ref_lost;

	f->te_ns = clock_mode_time_error(f->te0_ns, f->freq_sigma_ppb, c->drift_ppb_per_s, gone);
	if (gone < c->holdover_time && f->te_ns < (double) c->holdover_max_error) {
		return enter(f, CLOCK_MODE_HOLDOVER_IN_SPEC, now,
			     "reference lost, holdover within specification");
	}
	/* Out of specification for out_of_spec_time from when it went out, then free-run. */
	if (f->mode == CLOCK_MODE_FREE_RUN ||
	    (f->mode == CLOCK_MODE_HOLDOVER_OUT_OF_SPEC && c->out_of_spec_time &&
	     now - f->since >= c->out_of_spec_time)) {
		return enter(f, CLOCK_MODE_FREE_RUN, now, "reference lost, holdover over");
	}
	return enter(f, CLOCK_MODE_HOLDOVER_OUT_OF_SPEC, now,
		     gone >= c->holdover_time ? "reference lost, holdover time exceeded"
					      : "reference lost, time error beyond the bound");
}
