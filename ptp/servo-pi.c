// SPDX-License-Identifier: GPL-2.0-or-later
/* A proportional-integral clock servo in the manner of linuxptp's pi.c, behind servo_ops. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ptp/num.h"
#include "ptp/servo.h"
#include "ptp/util.h"

/* With the constants configured by hand, only keep them from making the loop unstable. */
#define PI_FIXED_KP_NORM_MAX 1.0
#define PI_FIXED_KI_NORM_MAX 2.0
/*
 * The first frequency estimate: a least-squares slope of the offsets over at least
 * cfg.freq_est_min (the timestamping mode's noise decides it), no longer 0.016 / ki seconds as
 * linuxptp waits (16 s with the software constants at Sync 1/s).
 */
#define FREQ_EST_MARGIN 0.001
#define FREQ_EST_INTERVAL_MAX_S 1000.0
/*
 * The proportional gain per sample while the line replaces the integrator, at least, on the
 * offsets pi_confirmed() passes.
 */
#define PI_REFINE_KP 0.7
/*
 * Offsets noisier than this (the caller's noise_ns) scale the proportional gain down by as
 * much: a proportional term passes each sample's noise into the clock (Kp 0.7 under 0..100 us
 * of path delay variation made the servoed offsets 1.5 times the raw ones). Software timestamps
 * on a quiet path stay below it, and keep the configured gain. Only with cfg.noise_scaled_gain
 * (software timestamps): with hardware timestamps and one-sided noise (QEMU's igb) the lowered
 * gains only slowed recovery from a disturbance and raised the error (test-port's
 * test_hw_recovery_one_sided_noise). The integral gain scales by as much, not by its square
 * (which keeps the damping): under 20 us of noise with a fifth of the samples late by 300 us, the
 * square left the integrator too slow to undo a drift 0.4 ppm off, which the proportional term
 * then held as 10-40 us of steady offset (true error RMS 19.3 us against 7.1 us; 1.46 against
 * 1.43 us under the noise alone; test-servo test_linreg_jitter, 40 seeds). The software
 * constants stay damped (zeta about 1.6 * sqrt(scale), 0.5 at a tenth).
 */
#define PI_NOISE_REF_NS 10000.0

struct servo_pi {
	struct servo base;
	double kp, ki; /* per sample, for the current interval */
	double drift;  /* integrator: the adjustment that holds the frequency, ppb */
	/*
	 * The frequency estimate: a least-squares line through the offsets since local0, with our
	 * own adjustments since then taken off (adjusted), so the slope is the drift at f0.
	 */
	unsigned int count; /* samples in it; 0 = none yet */
	bool estimated;	    /* the first estimate is made: the loop runs */
	bool refining;	    /* ... and the line still replaces the integrator */
	bool restart_line;  /* the next sample starts the refining line afresh */
	ns_t local0, last_local;
	ns_t start; /* the first sample's local time: the refining period counts from it */
	ns_t offset0;
	double f0, adjusted;
	double sx, sy, sxx, sxy;
	/*
	 * What the last sample taught, for pi_retract(): a point of the line, its origin, or the
	 * integrator's term.
	 */
	enum {
		PI_TAUGHT_NONE,
		PI_TAUGHT_POINT,
		PI_TAUGHT_ORIGIN,
		PI_TAUGHT_KI
	} taught;
	double taught_x, taught_y, taught_ki;
	/* the last offset the refining proportional term saw (pi_confirmed()); valid: one was */
	bool prev_valid;
	ns_t prev;
	/* once the loop runs, the offset's expectation is zero: clip it (servo_clip) */
	struct servo_clip clip;
};

static struct servo_pi *to_pi(struct servo *s)
{
	return container_of(s, struct servo_pi, base);
}

static double clamp(double v, double max)
{
	return v > max ? max : v < -max ? -max : v;
}

static bool beyond(ns_t offset, ns_t threshold)
{
	return threshold > 0 && llabs(offset) > threshold;
}

static void pi_est_start(struct servo_pi *pi, ns_t offset, ns_t local_ts)
{
	pi->count = 1;
	pi->estimated = pi->refining = false;
	pi->local0 = pi->last_local = pi->start = local_ts;
	pi->offset0 = offset;
	pi->f0 = pi->base.freq_ppb;
	pi->adjusted = 0;
	pi->sx = pi->sy = pi->sxx = pi->sxy = 0;
	pi->clip = (struct servo_clip){ 0 };
	pi->taught = PI_TAUGHT_NONE;
	pi->prev_valid = false;
}

/*
 * The offset the refining proportional term takes away: the smaller of this one and the last when
 * both lie on one side, else none. A real phase error stays, and shrinks as the term takes it
 * away, so it goes at once; a spike is alone, and goes not at all. With the plain offset, Kp 0.7
 * moved the clock by 70 % of every spike under the gate's floor (test-port test_spike_after_start:
 * 5-8 us spikes every sixth Sync left 5.0-6.5 us of error in 10 of 24 start-ups).
 */
static ns_t pi_confirmed(struct servo_pi *pi, ns_t offset)
{
	ns_t r = offset;

	if (pi->prev_valid) {
		if ((offset > 0) != (pi->prev > 0) || offset == 0 || pi->prev == 0) {
			r = 0;
		} else if (llabs(pi->prev) < llabs(offset)) {
			r = pi->prev;
		}
	}
	pi->prev = offset;
	pi->prev_valid = true;
	return r;
}

/*
 * While the line holds the frequency (its origin too): the line's drift, less the proportional
 * term on the confirmed offset, with the gain scaled by the time since the last sample.
 */
static double pi_refine_answer(struct servo_pi *pi, ns_t offset, double scale)
{
	return clamp(pi->drift - scale * num_max(pi->kp, PI_REFINE_KP) *
					 (double) pi_confirmed(pi, offset),
		     pi->base.cfg.max_freq_ppb);
}

/* Add a sample to the line; its slope as the adjustment that cancels the drift, ppb. */
static double pi_est_add(struct servo_pi *pi, ns_t offset, ns_t local_ts)
{
	double x, y, n, d, slope;

	/*
	 * what the adjustment held since the last sample added to the offset beyond f0's share (the
	 * slope is the drift at f0): counted whole, a restart at 20 ppm (a step_threshold jump)
	 * took the 20 ppm twice and set 40
	 */
	pi->adjusted += (double) (local_ts - pi->last_local) * (pi->base.freq_ppb - pi->f0) /
			(NS_PER_SEC + pi->base.freq_ppb);
	pi->last_local = local_ts;
	pi->count++;
	x = (double) (local_ts - pi->local0);
	y = (double) (offset - pi->offset0) - pi->adjusted;
	pi->sx += x;
	pi->sy += y;
	pi->sxx += x * x;
	pi->sxy += x * y;
	pi->taught = PI_TAUGHT_POINT;
	pi->taught_x = x;
	pi->taught_y = y;
	/* the first point is (0, 0): the sums hold the others */
	n = pi->count;
	d = pi->sxx - pi->sx * pi->sx / n;
	slope = d > 0 ? (pi->sxy - pi->sx * pi->sy / n) / d : 0;
	/* The offset grew by slope ns per ns at f0: take it away. */
	return clamp(pi->f0 - slope * (NS_PER_SEC + pi->f0), pi->base.cfg.max_freq_ppb);
}

/*
 * The first frequency estimate comes once the samples span cfg.freq_est_min (a second with
 * software timestamps, the next sample with hardware ones), not after 0.016 / ki s as linuxptp
 * waits (16 s with the software constants at Sync 1/s). Until then 0.016 / ki s have passed,
 * the line goes on through every sample and replaces the integrator (its noise falls as the
 * span grows); after that each sample adds kp * offset (proportional) and ki * offset (to the
 * integrator). Signs: offset > 0 means our clock is ahead, so the adjustment goes down.
 */
static enum servo_state pi_sample(struct servo *s, ns_t offset, ns_t local_ts, double *freq_ppb)
{
	struct servo_pi *pi = to_pi(s);
	double max = s->cfg.max_freq_ppb, elapsed, ppb, ki_term, est, d, scale, full, kp_noise;
	enum servo_state st = SERVO_LOCKED;

	*freq_ppb = s->freq_ppb;
	pi->taught = PI_TAUGHT_NONE;
	if (pi->count == 0) {
		pi_est_start(pi, offset, local_ts);
		return SERVO_UNLOCKED;
	}
	if (local_ts <= pi->last_local) {
		/* time went backwards (a step by someone else): start again */
		pi->count = 0;
		return SERVO_UNLOCKED;
	}
	if (pi->estimated && beyond(offset, s->cfg.step_threshold)) {
		/* Too far off: restart with a new frequency estimate and, past it, a step. */
		pi->count = 0;
		return SERVO_UNLOCKED;
	}
	/*
	 * The gains are per sample interval: the last adjustment has acted for the time since the
	 * last sample, so after a gap (samples lost or kept from the servo) this offset holds that
	 * many intervals of it. Scale the gains down by as much, or the correction lands several
	 * times over (with Kp 0.7 one sample in five made the loop unstable). A port that keeps
	 * samples from the servo drops the proportional part meanwhile (servo_skip()), so only the
	 * integrator's share has acted that long: the scaling is then on the safe side.
	 */
	scale = 1.0;
	d = (double) (local_ts - pi->last_local);
	if (d > s->interval_ns * 1.5) {
		scale = s->interval_ns / d;
	}
	if (pi->estimated) {
		offset = (ns_t) num_llround(servo_clip(&pi->clip, (double) offset));
	}
	kp_noise = s->cfg.noise_scaled_gain && s->noise_ns > PI_NOISE_REF_NS
			   ? PI_NOISE_REF_NS / s->noise_ns
			   : 1.0;
	elapsed = (double) (local_ts - pi->start) / NS_PER_SEC;
	elapsed += elapsed * FREQ_EST_MARGIN;
	if (pi->restart_line) {
		/*
		 * The first estimate came from the first samples, which no outlier gate could
		 * judge (it needs two to draw a line): the line that refines it starts from here,
		 * so that a spike among them does not stay in it (one 40 us spike left 0.9 ppm in a
		 * 16 s line, which the software integrator then took minutes to unwind).
		 */
		pi->restart_line = false;
		pi->taught = PI_TAUGHT_ORIGIN;
		pi->count = 1;
		pi->local0 = pi->last_local = local_ts;
		pi->offset0 = offset;
		pi->adjusted = 0;
		pi->sx = pi->sy = pi->sxx = pi->sxy = 0;
		*freq_ppb = pi_refine_answer(pi, offset, scale);
		return st;
	}
	if (!pi->estimated || pi->refining) {
		est = pi_est_add(pi, offset, local_ts);
		if (!pi->estimated) {
			if (elapsed < (double) s->cfg.freq_est_min / NS_PER_SEC) {
				return SERVO_UNLOCKED;
			}
			/* made of the samples so far, the estimate is no point to take back */
			pi->taught = PI_TAUGHT_NONE;
			pi->estimated = pi->refining = true;
			pi->restart_line = true;
			/*
			 * The proportional term at the line's new origin is confirmed against this
			 * offset (none after the step): alone, a spike there moved the clock by 70
			 * % of it, and the line through it rang for seconds.
			 */
			pi->prev = offset;
			pi->prev_valid = true;
			pi->drift = est;
			*freq_ppb = est;
			if ((s->first_update && beyond(offset, s->cfg.first_step_threshold)) ||
			    beyond(offset, s->cfg.step_threshold)) {
				/* the caller steps by -offset: an adjustment of ours too */
				pi->adjusted -= (double) offset;
				pi->prev = 0;
				pi->last_local -= offset;
				pi->local0 -= offset;
				pi->start -= offset;
				return SERVO_JUMP;
			}
			return SERVO_LOCKED;
		}
		/*
		 * The refining line replaces the first estimate only once it spans as long as that
		 * one had to: with Kp 0.7 and Ki 0.3 set by hand refining ends 53 ms after the
		 * start, and a line through two software-timestamped samples 125 ms apart, one of
		 * them 4 us off, set 29 ppm (test_pi_refine_spike). Until then the first estimate
		 * holds.
		 */
		if ((double) (local_ts - pi->local0) * (1 + FREQ_EST_MARGIN) >=
		    (double) s->cfg.freq_est_min) {
			pi->drift = est;
		}
		full = pi->ki > 0 ? 0.016 / pi->ki : FREQ_EST_INTERVAL_MAX_S;
		if (elapsed >= num_min(full, FREQ_EST_INTERVAL_MAX_S)) {
			pi->refining = false;
		}
		/*
		 * Without the integrator, take the offset away faster than kp would: what is left
		 * when the integrator takes over winds it up, and the software constants then need
		 * minutes to unwind it; and a phase error left by a first estimate made of a late
		 * Sync should be gone within seconds (0.3 left 46 us 8 s after SLAVE from a Sync
		 * 300 us late at Sync 1/s: test-port-start test_late_once).
		 */
		*freq_ppb = pi_refine_answer(pi, offset, scale);
		return st;
	}
	pi->last_local = local_ts;
	ki_term = scale * kp_noise * pi->ki * (double) offset;
	ppb = pi->drift - scale * kp_noise * pi->kp * (double) offset - ki_term;
	if (ppb > max || ppb < -max) {
		/* saturated: do not wind the integrator up */
		ppb = clamp(ppb, max);
	} else {
		pi->drift -= ki_term;
		pi->taught = PI_TAUGHT_KI;
		pi->taught_ki = ki_term;
	}
	*freq_ppb = ppb;
	return st;
}

static void pi_reset(struct servo *s)
{
	to_pi(s)->count = 0;
}

/* linuxptp pi.c: scale the constants with the sample interval, bounded for stability. */
static void pi_set_interval(struct servo *s, double interval)
{
	struct servo_pi *pi = to_pi(s);
	const struct servo_config *c = &s->cfg;
	bool fixed = c->kp > 0 && c->ki > 0;
	double kp_norm_max = fixed ? PI_FIXED_KP_NORM_MAX : c->kp_norm_max;
	double ki_norm_max = fixed ? PI_FIXED_KI_NORM_MAX : c->ki_norm_max;

	pi->kp = fixed ? c->kp : c->kp_scale * num_pow(interval, c->kp_exponent);
	pi->ki = fixed ? c->ki : c->ki_scale * num_pow(interval, c->ki_exponent);
	if (pi->kp > kp_norm_max / interval) {
		pi->kp = kp_norm_max / interval;
	}
	if (pi->ki > ki_norm_max / interval) {
		pi->ki = ki_norm_max / interval;
	}
}

static double pi_stable_freq(const struct servo *s)
{
	return container_of(s, struct servo_pi, base)->drift;
}

/*
 * Past the first estimate and its refinement, hold the integrator: the proportional term was for
 * one interval. While the line is refined its bookkeeping takes the last adjustment as held
 * since the last sample: keep that.
 */
static double pi_skip(struct servo *s)
{
	struct servo_pi *pi = to_pi(s);

	if (pi->count == 0 || !pi->estimated || pi->refining || pi->restart_line) {
		return s->freq_ppb;
	}
	return clamp(pi->drift, s->cfg.max_freq_ppb);
}

/*
 * The last sample was a spike: out of the line (its next sample computes the estimate again), or
 * the line starts at the next sample if it was the origin, or its term out of the integrator.
 */
static void pi_retract(struct servo *s)
{
	struct servo_pi *pi = to_pi(s);

	switch (pi->taught) {
	case PI_TAUGHT_POINT:
		if (pi->count > 1) {
			pi->count--;
			pi->sx -= pi->taught_x;
			pi->sy -= pi->taught_y;
			pi->sxx -= pi->taught_x * pi->taught_x;
			pi->sxy -= pi->taught_x * pi->taught_y;
		}
		break;
	case PI_TAUGHT_ORIGIN:
		pi->restart_line = true;
		break;
	case PI_TAUGHT_KI:
		pi->drift += pi->taught_ki;
		break;
	case PI_TAUGHT_NONE:
		break;
	}
	pi->taught = PI_TAUGHT_NONE;
	pi->prev_valid = false;
}

static void pi_free(struct servo *s)
{
	free(to_pi(s));
}

static const struct servo_ops servo_pi_ops = {
	.name = "pi",
	.sample = pi_sample,
	.reset = pi_reset,
	.set_interval = pi_set_interval,
	.stable_freq = pi_stable_freq,
	.skip = pi_skip,
	.retract = pi_retract,
	.free = pi_free,
};

int servo_pi_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret)
{
	struct servo_pi *pi;

	if (!(cfg->max_freq_ppb > 0) || cfg->kp < 0 || cfg->ki < 0 || cfg->kp_scale < 0 ||
	    cfg->ki_scale < 0 || cfg->first_step_threshold < 0 || cfg->step_threshold < 0 ||
	    cfg->max_offset_jump < 0) {
		return -EINVAL;
	}
	pi = calloc(1, sizeof(*pi));
	if (!pi) {
		return -ENOMEM;
	}
	pi->base = (struct servo){
		.ops = &servo_pi_ops,
		.cfg = *cfg,
		.state = SERVO_UNLOCKED,
		.freq_ppb = clamp(freq_ppb, cfg->max_freq_ppb),
		.first_update = !cfg->first_step_taken,
		/* Until the port knows its sync interval, assume one second. */
		.interval_ns = NS_PER_SEC,
	};
	pi->drift = pi->base.freq_ppb;
	pi_set_interval(&pi->base, 1.0);
	*ret = &pi->base;
	return 0;
}
