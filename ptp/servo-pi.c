// SPDX-License-Identifier: GPL-2.0-or-later
/* A proportional-integral clock servo in the manner of linuxptp's pi.c, behind servo_ops. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ptp/servo.h"
#include "ptp/util.h"

/* With the constants configured by hand, only keep them from making the loop unstable. */
#define PI_FIXED_KP_NORM_MAX 1.0
#define PI_FIXED_KI_NORM_MAX 2.0
/* The frequency is estimated over at least 0.016 / ki seconds, at most this long. */
#define FREQ_EST_INTERVAL_MAX_S 1000.0
#define FREQ_EST_MARGIN 0.001

struct servo_pi {
	struct servo base;
	double kp, ki; /* per sample, for the current interval */
	double drift;  /* integrator: the adjustment that holds the frequency, ppb */
	ns_t offset[2], local[2];
	unsigned int count; /* samples toward the frequency estimate: 0, 1, then 2 = running */
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

/*
 * The first two samples estimate the frequency error from how the offset moves between them;
 * after that, each sample adds kp * offset (proportional) and ki * offset (to the integrator).
 * Signs: offset > 0 means our clock is ahead, so the adjustment goes down.
 */
static enum servo_state pi_sample(struct servo *s, ns_t offset, ns_t local_ts, double *freq_ppb)
{
	struct servo_pi *pi = to_pi(s);
	double max = s->cfg.max_freq_ppb, est_interval, elapsed, ppb, ki_term;

	*freq_ppb = s->freq_ppb;
	switch (pi->count) {
	case 0:
		pi->offset[0] = offset;
		pi->local[0] = local_ts;
		pi->count = 1;
		return SERVO_UNLOCKED;
	case 1:
		pi->offset[1] = offset;
		pi->local[1] = local_ts;
		if (pi->local[1] <= pi->local[0]) {
			/* time went backwards (a step by someone else): start again */
			pi->count = 0;
			return SERVO_UNLOCKED;
		}
		elapsed = (double) (pi->local[1] - pi->local[0]) / NS_PER_SEC;
		elapsed += elapsed * FREQ_EST_MARGIN;
		est_interval = pi->ki > 0 ? 0.016 / pi->ki : FREQ_EST_INTERVAL_MAX_S;
		if (est_interval > FREQ_EST_INTERVAL_MAX_S) {
			est_interval = FREQ_EST_INTERVAL_MAX_S;
		}
		if (elapsed < est_interval) {
			return SERVO_UNLOCKED;
		}
		/* The offset grew by slope ns per ns at the current adjustment: take it away. */
		double slope = (double) (pi->offset[1] - pi->offset[0]) /
			       (double) (pi->local[1] - pi->local[0]);
		pi->drift = clamp(s->freq_ppb - slope * (NS_PER_SEC + s->freq_ppb), max);
		*freq_ppb = pi->drift;
		pi->count = 2;
		if ((s->first_update && beyond(offset, s->cfg.first_step_threshold)) ||
		    beyond(offset, s->cfg.step_threshold)) {
			return SERVO_JUMP;
		}
		return SERVO_LOCKED;
	default:
		/* Too far off: restart with a new frequency estimate and, past it, a step. */
		if (beyond(offset, s->cfg.step_threshold)) {
			pi->count = 0;
			return SERVO_UNLOCKED;
		}
		ki_term = pi->ki * (double) offset;
		ppb = pi->drift - pi->kp * (double) offset - ki_term;
		if (ppb > max || ppb < -max) {
			/* saturated: do not wind the integrator up */
			ppb = clamp(ppb, max);
		} else {
			pi->drift -= ki_term;
		}
		*freq_ppb = ppb;
		return SERVO_LOCKED;
	}
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

	if (!(interval > 0)) {
		return;
	}
	pi->kp = fixed ? c->kp : c->kp_scale * pow(interval, c->kp_exponent);
	pi->ki = fixed ? c->ki : c->ki_scale * pow(interval, c->ki_exponent);
	if (pi->kp > kp_norm_max / interval) {
		pi->kp = kp_norm_max / interval;
	}
	if (pi->ki > ki_norm_max / interval) {
		pi->ki = ki_norm_max / interval;
	}
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
	.free = pi_free,
};

int servo_pi_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret)
{
	struct servo_pi *pi;

	if (!(cfg->max_freq_ppb > 0) || cfg->kp < 0 || cfg->ki < 0 || cfg->kp_scale < 0 ||
	    cfg->ki_scale < 0 || cfg->first_step_threshold < 0 || cfg->step_threshold < 0) {
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
		.first_update = true,
	};
	pi->drift = pi->base.freq_ppb;
	/* Until the port knows its sync interval, assume one second. */
	pi_set_interval(&pi->base, 1.0);
	*ret = &pi->base;
	return 0;
}
