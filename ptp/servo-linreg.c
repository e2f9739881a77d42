// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A linear-regression clock servo behind servo_ops, after the approach linuxptp's linreg servo
 * describes: undo the servo's own adjustments from the measured offsets, so that what is left is
 * the offset the clock would have free-running, a straight line in time; fit that line by least
 * squares over the last 2, 4, ..., 1024 samples; use the window that has predicted the next sample
 * best, with a sample far off the line clipped to a bound that follows the noise (servo_clip); set
 * the frequency to the line's slope, plus a term that takes the fitted offset away.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ptp/servo.h"
#include "ptp/util.h"

/* the smallest window, 2 samples: a first estimate as soon as freq_est_min allows */
#define LR_MIN_ORDER 1
/*
 * The largest, 1024 samples. The offset a fit predicts is off by about twice the noise over the
 * root of the points it holds: with 64 (8 s at Sync 8/s) 20 us of packet delay variation left 5
 * us in the clock and its slope 1 ppm off (what holdover keeps), more than the PI servo lets
 * through. Longer windows only win while they predict as well as the shorter ones (lr_best).
 */
#define LR_MAX_ORDER 10
#define LR_SIZES (LR_MAX_ORDER - LR_MIN_ORDER + 1)
#define LR_POINTS (1u << LR_MAX_ORDER)
/* The prediction error: a plain mean of the first updates, then an exponential average. */
#define LR_ERR_PLAIN_UPDATES 8
#define LR_ERR_SMOOTH (1.0 / 32.0)
/* A larger window wins unless a smaller one predicts clearly (by this factor) better. */
#define LR_ERR_MARGIN 1.25
/* The first estimate's span may fall this much short of freq_est_min (the samples' jitter). */
#define LR_SPAN_MARGIN 0.001
/* Re-base x once it is this far from its origin, to keep the doubles' precision. */
#define LR_REBASE_NS 1e12

/* A sample on the free-running timescale: x local time, z the offset without our adjustments. */
struct lr_point {
	double x, z;
};

struct lr_fit {
	bool valid;
	double slope;	  /* dz/dx, ns per ns */
	double intercept; /* z at the newest point's x */
	double x;	  /* which x the intercept is at */
	double err;	  /* average absolute error of its one-step predictions, ns */
	unsigned int err_updates;
};

struct servo_linreg {
	struct servo base;
	struct lr_point pts[LR_POINTS];
	unsigned int n, newest;
	double x;	    /* free-running local time of the last sample, ns from the origin */
	double adjusted;    /* what our frequency adjustments and steps added to the offset, ns */
	ns_t last_local;    /* the last sample's local_ts (on the stepped timescale) */
	bool have_last;	    /* last_local is set */
	double first_x;	    /* the first sample's x: the first estimate waits for freq_est_min */
	unsigned int order; /* the window used last: the next is at least half as large */
	struct lr_fit fit[LR_SIZES];
	struct servo_clip clip; /* of the new points against the best fit's prediction */
	/* the newest point's prediction by the fit used, for lr_retract(); valid: there was one */
	bool pred_valid;
	double pred;
};

static struct servo_linreg *to_lr(struct servo *s)
{
	return container_of(s, struct servo_linreg, base);
}

static double clamp(double v, double max)
{
	return v > max ? max : v < -max ? -max : v;
}

static void lr_forget(struct servo_linreg *lr)
{
	lr->n = 0;
	lr->newest = 0;
	lr->x = 0;
	lr->adjusted = 0;
	lr->have_last = false;
	lr->first_x = 0;
	lr->order = 0;
	lr->clip = (struct servo_clip){ 0 };
	lr->pred_valid = false;
	for (unsigned int i = 0; i < LR_SIZES; i++) {
		lr->fit[i] = (struct lr_fit){ 0 };
	}
}

/* Advance the free-running time to local_ts and account for the adjustment held since. */
static bool lr_advance(struct servo_linreg *lr, ns_t local_ts)
{
	double dt_local, dt_free;

	if (!lr->have_last) {
		lr->have_last = true;
		lr->last_local = local_ts;
		return true;
	}
	if (local_ts <= lr->last_local) {
		return false;
	}
	dt_local = (double) (local_ts - lr->last_local);
	/* the clock ran (1 + f) times its free rate: that much of dt_local is ours */
	dt_free = dt_local / (1.0 + lr->base.freq_ppb / 1e9);
	lr->adjusted += dt_local - dt_free;
	lr->x += dt_free;
	lr->last_local = local_ts;
	if (lr->x > LR_REBASE_NS) {
		for (unsigned int i = 0; i < lr->n; i++) {
			lr->pts[i].x -= lr->x;
		}
		for (unsigned int i = 0; i < LR_SIZES; i++) {
			lr->fit[i].x -= lr->x;
		}
		lr->first_x -= lr->x;
		lr->x = 0;
	}
	return true;
}

/*
 * Score each window's last prediction against the new point (with score), then refit every
 * window.
 */
static void lr_regress(struct servo_linreg *lr, bool score)
{
	const struct lr_point *p0 = &lr->pts[lr->newest];
	double sx = 0, sz = 0, sxx = 0, sxz = 0;
	unsigned int used = 0;

	for (unsigned int k = 0; k < LR_SIZES; k++) {
		struct lr_fit *f = &lr->fit[k];
		unsigned int size = 1u << (k + LR_MIN_ORDER);
		double e, d;

		if (f->valid && score) {
			e = fabs(f->intercept + f->slope * (p0->x - f->x) - p0->z);
			if (f->err_updates < LR_ERR_PLAIN_UPDATES) {
				f->err = (f->err * f->err_updates + e) / (f->err_updates + 1);
				f->err_updates++;
			} else {
				f->err += LR_ERR_SMOOTH * (e - f->err);
			}
		}
		if (size > lr->n) {
			continue;
		}
		/* sums over the newest `size` points, relative to the newest, grown window by
		 * window */
		for (; used < size; used++) {
			const struct lr_point *p =
				&lr->pts[(lr->newest + LR_POINTS - used) % LR_POINTS];
			double x = p->x - p0->x, z = p->z - p0->z;

			sx += x;
			sz += z;
			sxx += x * x;
			sxz += x * z;
		}
		d = sxx - sx * sx / size;
		if (!(d > 0)) {
			continue;
		}
		f->slope = (sxz - sx * sz / size) / d;
		f->intercept = p0->z + (sz - f->slope * sx) / size;
		f->x = p0->x;
		f->valid = true;
	}
}

/*
 * The largest window, unless a smaller one has been predicting clearly better; with `floor`, no
 * smaller than the window at that index. A run of delayed messages that the clip holds at its
 * bound is predicted best by the smallest windows, which follow it: a window of 4 once took a
 * slope of 281 ppm from such a run (test-servo test_linreg_jitter, spikes). So the window used
 * halves at most once a sample (lr_sample), which a real change of frequency outlasts.
 */
static const struct lr_fit *lr_best(const struct servo_linreg *lr, unsigned int floor,
				    unsigned int *order)
{
	const struct lr_fit *best = NULL;

	for (int k = LR_SIZES - 1; k >= (int) floor; k--) {
		const struct lr_fit *f = &lr->fit[k];

		if (!f->valid || (1u << (k + LR_MIN_ORDER)) > lr->n) {
			continue;
		}
		if (!best || (f->err_updates > 0 && best->err_updates > 0 &&
			      f->err * LR_ERR_MARGIN < best->err)) {
			best = f;
			if (order) {
				*order = (unsigned int) k;
			}
		}
	}
	return best;
}

static bool beyond(double offset, ns_t threshold)
{
	return threshold > 0 && fabs(offset) > (double) threshold;
}

static enum servo_state lr_sample(struct servo *s, ns_t offset, ns_t local_ts, double *freq_ppb)
{
	struct servo_linreg *lr = to_lr(s);
	const struct lr_fit *f;
	enum servo_state st = SERVO_LOCKED;
	double fitted, ppb, corr_time;
	unsigned int size;
	struct lr_point *p;

	*freq_ppb = s->freq_ppb;
	if (!lr_advance(lr, local_ts)) {
		/* time went backwards (a step by someone else): start again from this sample */
		lr_forget(lr);
		lr_advance(lr, local_ts);
	}
	f = lr_best(lr, lr->order, NULL);
	lr->newest = (lr->newest + 1) % LR_POINTS;
	p = &lr->pts[lr->newest];
	p->x = lr->x;
	p->z = (double) offset - lr->adjusted;
	lr->pred_valid = f != NULL;
	if (f) {
		/* a point far off the line counts only so far (servo_clip) */
		lr->pred = f->intercept + f->slope * (p->x - f->x);
		p->z = lr->pred + servo_clip(&lr->clip, p->z - lr->pred);
	}
	if (lr->n < LR_POINTS) {
		lr->n++;
	}
	lr_regress(lr, true);
	/*
	 * The first estimate once the samples span freq_est_min (a second with software
	 * timestamps, as the PI servo waits): two software-timestamped samples 125 ms apart, one
	 * of them a message delayed by 400 us, made a slope of 3180 ppm.
	 */
	if ((lr->x - lr->first_x) * (1 + LR_SPAN_MARGIN) < (double) s->cfg.freq_est_min) {
		return SERVO_UNLOCKED;
	}
	/*
	 * The window used last stays valid and held (lr->n only grows until lr_forget, which
	 * starts the order over): no fallback below the floor is needed.
	 */
	f = lr_best(lr, lr->order > 0 ? lr->order - 1 : 0, &lr->order);
	if (!f) {
		return SERVO_UNLOCKED;
	}
	/* what the line says the offset is now, with our adjustments in */
	fitted = f->intercept + lr->adjusted;
	if ((s->first_update && beyond(fitted, s->cfg.first_step_threshold)) ||
	    beyond(fitted, s->cfg.step_threshold)) {
		/* the caller steps by -offset: that is an adjustment of ours too */
		lr->adjusted -= (double) offset;
		lr->last_local -= offset;
		fitted -= (double) offset;
		/* the step took it: no taking it back */
		lr->pred_valid = false;
		st = SERVO_JUMP;
	}
	/*
	 * Cancel the free-running drift (the slope) and take the fitted offset away over the next
	 * interval, or over a few with the long windows, whose slope is good enough to go gently.
	 */
	size = 1u << (lr->order + LR_MIN_ORDER);
	corr_time = s->interval_ns * (size > 16 ? size / 16 : 1);
	ppb = -f->slope * 1e9 - fitted / corr_time * 1e9;
	*freq_ppb = clamp(ppb, s->cfg.max_freq_ppb);
	return st;
}

static void lr_reset(struct servo *s)
{
	lr_forget(to_lr(s));
}

static double lr_stable_freq(const struct servo *s)
{
	const struct servo_linreg *lr = container_of(s, struct servo_linreg, base);
	const struct lr_fit *f = lr_best(lr, lr->order, NULL);

	return f ? clamp(-f->slope * 1e9, s->cfg.max_freq_ppb) : s->freq_ppb;
}

/*
 * The last sample was a spike: its point says nothing more than the fit did, and the fits follow.
 */
static void lr_retract(struct servo *s)
{
	struct servo_linreg *lr = to_lr(s);

	if (lr->pred_valid && lr->n > 0) {
		lr->pts[lr->newest].z = lr->pred;
		lr_regress(lr, false);
	}
	lr->pred_valid = false;
}

static void lr_free(struct servo *s)
{
	free(to_lr(s));
}

static const struct servo_ops servo_linreg_ops = {
	.name = "linreg",
	.sample = lr_sample,
	.reset = lr_reset,
	.stable_freq = lr_stable_freq,
	.retract = lr_retract,
	.free = lr_free,
};

int servo_linreg_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret)
{
	struct servo_linreg *lr;

	if (!(cfg->max_freq_ppb > 0) || cfg->first_step_threshold < 0 || cfg->step_threshold < 0 ||
	    cfg->max_offset_jump < 0) {
		return -EINVAL;
	}
	lr = calloc(1, sizeof(*lr));
	if (!lr) {
		return -ENOMEM;
	}
	lr->base = (struct servo){
		.ops = &servo_linreg_ops,
		.cfg = *cfg,
		.state = SERVO_UNLOCKED,
		.freq_ppb = clamp(freq_ppb, cfg->max_freq_ppb),
		.first_update = !cfg->first_step_taken,
		.interval_ns = NS_PER_SEC,
	};
	*ret = &lr->base;
	return 0;
}
