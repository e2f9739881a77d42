/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clock servo interface (ops table) and its configuration; ptp/servo-pi.c implements PI. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ptp/options.h"
#include "ptp/types.h"

enum servo_state {
	SERVO_UNLOCKED = 0, /* collecting samples; apply *freq_ppb if it changed */
	SERVO_JUMP,	    /* step the clock by -offset, then apply *freq_ppb */
	SERVO_LOCKED,	    /* apply *freq_ppb */
	SERVO_HOLDOVER,	    /* no sample for holdover_timeout: keep the last frequency */
};

struct servo_config {
	enum servo_type type;
	/* PI constants; 0 for both means "scale with the sync interval", linuxptp's default. */
	double kp;
	double ki;
	double kp_scale, kp_exponent, kp_norm_max;
	double ki_scale, ki_exponent, ki_norm_max;
	ns_t first_step_threshold; /* step on the first lock if |offset| exceeds it; 0 = never */
	ns_t step_threshold;	   /* step (and restart) whenever |offset| exceeds it; 0 = never */
	/*
	 * The sanity bound: after the first lock, an offset beyond it is refused (the servo is not
	 * run, the clock keeps its stable frequency: SERVO_HOLDOVER); 0 = none.
	 */
	ns_t max_offset_jump;
	/*
	 * This clock was locked before, by an earlier servo (a rebuilt system-clock servo, a
	 * restarted worker): no first step, and the sanity bound applies from the first sample.
	 */
	bool first_step_taken;
	double max_freq_ppb; /* clamp of the returned adjustment, > 0 */
	/*
	 * PI: the first frequency estimate, a least-squares slope of the offsets, once they span
	 * this long; from the timestamping mode's noise (software 1 s, hardware the next sample).
	 */
	ns_t freq_est_min;
	/*
	 * PI: lower the gains while the caller's noise_ns is large (software timestamps, whose
	 * noise is broad); hardware timestamps keep the configured gains.
	 */
	bool noise_scaled_gain;
	ns_t holdover_timeout; /* LOCKED without samples this long reports HOLDOVER; 0 = never */
	/*
	 * Lock detection (ptp4l's servo_offset_threshold, servo_num_offset_values): the servo is
	 * stable once this many offsets in a row were within the threshold; threshold 0 = stable
	 * whenever LOCKED.
	 */
	ns_t offset_threshold;
	unsigned int num_offset_values;
};

struct servo;

/*
 * Clipping a servo's residuals (an offset, or its distance from a fitted line) to a bound that
 * follows the noise: servo_clip(). Zero-initialised is a fresh one.
 */
struct servo_clip {
	double scale;	/* robust mean |residual|, ns */
	unsigned int n; /* residuals learnt from, up to a few: then an exponential average */
	int run;	/* clipped in a row, signed by the side */
	double run_min; /* the smallest |residual| of that run */
};
/*
 * A residual further out than 2.5 times the robust noise level (a message one host delayed by
 * hundreds of microseconds, one-sided) counts only up to that bound, as a Huber fit counts it: a
 * fifth of such samples counted whole bias a servo by their mean. The level learns from every
 * residual, each counting at most 1.5 times the level (spikes cannot lift it for long, broad noise
 * does). A long run clipped on one side is a change, not noise: it goes in as large as the
 * smallest residual of the run, and the level starts over from that. Returns the residual to use.
 */
double servo_clip(struct servo_clip *c, double r);

/*
 * One static const table per implementation. Sign convention: *freq_ppb is the adjustment to
 * apply to the clock as it is (a clock ahead of its master, offset > 0, gets a negative one), and
 * on SERVO_JUMP the caller steps the clock by -offset_ns. local_ts is the local receipt time of
 * the sample on the steered clock's timescale.
 */
struct servo_ops {
	const char *name;
	enum servo_state (*sample)(struct servo *s, ns_t offset_ns, ns_t local_ts,
				   double *freq_ppb);
	/* Forget the samples (after a step done by someone else, a new master...). */
	void (*reset)(struct servo *s);
	/*
	 * Optional: the interval between samples changed, seconds (2^logSyncInterval; > 0, already
	 * in struct servo's interval_ns).
	 */
	void (*set_interval)(struct servo *s, double interval_s);
	/* The adjustment that holds the clock's frequency, without any phase correction. */
	double (*stable_freq)(const struct servo *s);
	/*
	 * Optional: a sample was kept from the servo (the caller's outlier gate). Return the
	 * adjustment to hold until the next sample: the last one's phase correction was meant for
	 * one interval. NULL: keep the last adjustment.
	 */
	double (*skip)(struct servo *s);
	/*
	 * Optional: the last sample was a spike after all (servo_retract()): forget what it
	 * taught the estimates.
	 */
	void (*retract)(struct servo *s);
	void (*free)(struct servo *s);
};

/* Every servo embeds this first. */
struct servo {
	const struct servo_ops *ops;
	struct servo_config cfg;
	enum servo_state state;	   /* of the last sample */
	double freq_ppb;	   /* its own last answer (returned: plus correction_ppb) */
	ns_t last_local_ts;	   /* of the last sample */
	bool first_update;	   /* the first lock is still to come */
	unsigned int in_threshold; /* LOCKED samples in a row within cfg.offset_threshold */
	ns_t holdover_since; /* local time holdover began (its last sample's time + timeout) */
	/*
	 * The noise of the offsets as the caller measures it (the outlier gate's mean prediction
	 * error), ns; 0 = unknown. The PI servo lowers its proportional gain when it is large.
	 */
	double noise_ns;
	/*
	 * Samples handed over several in a turn (servo_sample_in_turn()). Each servo takes each of
	 * its answers as acting from its sample's time (PI's refining line and proportional term,
	 * linreg's free-running timescale): its course. Only a turn's last answer acts, from the
	 * turn on, so the clock leaves that course by phase_ns (the clock's phase minus the
	 * course's, ns, as of phase_ts): the servo is fed its offsets on its course, and each
	 * answer returned adds correction_ppb to its own (freq_ppb), which takes phase_ns away over
	 * the time the answer will act. All three stay 0 while each sample has a turn of its own.
	 */
	double phase_ns;
	ns_t phase_ts;
	double correction_ppb;
	/* the adjustment in effect on the clock since phase_ts: the one the turn began with */
	double acting_ppb;
	unsigned int turn_samples; /* samples (kept ones too) in this turn, this one included */
	double interval_ns;  /* the nominal sample interval (servo_set_interval()), 1 s at first */
	uint64_t refused;    /* samples refused by the sanity bound (cfg.max_offset_jump) */
	ns_t refused_offset; /* the last one refused */
};

/* The adjustment the servo last returned: the one its caller applied. */
static inline double servo_answer(const struct servo *s)
{
	return s->freq_ppb + s->correction_ppb;
}

/* linuxptp 3.1 defaults (config.c, pi.c): sw_ts picks the software timestamping PI scales. */
void servo_config_default(struct servo_config *cfg, bool sw_ts);
/* Take ptp4l-style options (seconds, ppb) onto a default config. */
void servo_config_from_options(const struct servo_options *o, bool sw_ts, struct servo_config *cfg);

/*
 * PI servo. freq_ppb is the clock's current adjustment (so a restart keeps its learnt frequency).
 * -EINVAL for a bad config, -ENOMEM.
 */
int servo_pi_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret);
/* Linear-regression servo, same contract. */
int servo_linreg_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret);
/* The one cfg->type names. */
int servo_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret);
/* LOCKED, and (with an offset threshold) its last num_offset_values offsets within it. */
bool servo_stable(const struct servo *s);

/*
 * Run the servo's sample op and record the state, the frequency and the sample time. The step
 * policy is kept here for every servo: after the first lock (or from the start with
 * cfg.first_step_taken) an offset beyond cfg.max_offset_jump is refused: the op is not run,
 * *freq_ppb is the stable frequency and the answer SERVO_HOLDOVER (s->refused counts it).
 */
enum servo_state servo_sample(struct servo *s, ns_t offset_ns, ns_t local_ts, double *freq_ppb);
/*
 * servo_sample() for a caller that may hand over several samples in one turn (one pass of its
 * event loop, one answer acting after it): a SLAVE worker over L2 at 4 Syncs a second or more
 * reads two Sync intervals' samples at once (ptp/transport-l2.c). shares_turn: the servo's last
 * answer (servo_sample_in_turn(), servo_skip_in_turn()) came in this same turn and was replaced
 * before it acted. The adjustment that has acted since the turn began is s->acting_ppb (an
 * outlier gate bends its line by *freq_ppb minus that), and the answer is meant to act for about
 * as many sample intervals as the turn has had samples. servo_sample() is this with shares_turn
 * false, which the servo answers as ever.
 */
enum servo_state servo_sample_in_turn(struct servo *s, ns_t offset_ns, ns_t local_ts,
				      bool shares_turn, double *freq_ppb);
/*
 * The step policy's sanity bound alone, for any clock under cfg: after its first lock
 * (locked_once, or cfg.first_step_taken) an offset or a step beyond cfg.max_offset_jump is
 * refused. servo_sample() applies it; the supervisor judges the clock states it hands on by it.
 */
bool servo_policy_refuses(const struct servo_config *cfg, bool locked_once, ns_t offset_ns);
void servo_reset(struct servo *s);
/*
 * A sample measured and kept from the servo (an outlier): the adjustment to apply until the next
 * one, recorded as the servo's last (s->freq_ppb). A locked PI servo drops its proportional
 * term: that term removes the last offset's share of one sample interval, and held over the
 * samples kept from it, it acted several times over (a 52 us spike that passed, then three
 * samples kept, left a PHC 66 ppm off for half a second). Otherwise the last adjustment stays.
 */
double servo_skip(struct servo *s);
/*
 * servo_skip() for the sample measured at local_ts in a turn, as servo_sample_in_turn();
 * servo_skip() is this at the last sample's time with shares_turn false.
 */
double servo_skip_in_turn(struct servo *s, ns_t local_ts, bool shares_turn);
/*
 * The last sample the servo took was a spike after all: its caller's outlier gate passed it, and
 * the next sample found it off the line through the samples before it (struct outlier_gate's
 * dropped). The servo forgets what it taught its frequency estimates (PI's line or integrator,
 * linreg's fits); its answer to it has acted, and the next sample measures that. Call before
 * handing that next sample over.
 */
void servo_retract(struct servo *s);
void servo_set_interval(struct servo *s, double interval_s);
/*
 * Holdover reporting: with samples stopped for cfg.holdover_timeout after a LOCKED state, the
 * servo reports SERVO_HOLDOVER (and *freq_ppb keeps the last value). Returns the current state.
 */
enum servo_state servo_check_holdover(struct servo *s, ns_t now);
/*
 * The master is gone: a LOCKED servo goes to SERVO_HOLDOVER from now on, and returns (in
 * *freq_ppb) the adjustment to keep: its frequency estimate, without the last phase correction.
 * false (and nothing changed) when it was not LOCKED.
 */
bool servo_enter_holdover(struct servo *s, ns_t now, double *freq_ppb);
/* Accept NULL, return NULL. */
struct servo *servo_free(struct servo *s);

const char *servo_state_to_string(enum servo_state st);
int servo_state_from_string(const char *str, enum servo_state *ret);
