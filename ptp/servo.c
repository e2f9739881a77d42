// SPDX-License-Identifier: GPL-2.0-or-later
/* What every servo shares: configuration defaults, the op wrappers, holdover, state names. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>

#include "ptp/num.h"
#include "ptp/servo.h"
#include "ptp/util.h"

/* linuxptp 3.1 config.c and pi.c defaults. */
#define PI_HWTS_KP_SCALE 0.7
#define PI_HWTS_KI_SCALE 0.3
#define PI_SWTS_KP_SCALE 0.1
#define PI_SWTS_KI_SCALE 0.001
#define PI_KP_EXPONENT -0.3
#define PI_KI_EXPONENT 0.4
#define PI_KP_NORM_MAX 0.7
#define PI_KI_NORM_MAX 0.3
#define FIRST_STEP_THRESHOLD_NS 20000
#define MAX_FREQ_PPB 900000000.0
/*
 * Software timestamps on veth scatter by some microseconds: over one second that is a few ppm
 * of error in the first estimate, which the PI then takes out. Hardware stamps, tens of ns: the
 * next sample is enough.
 */
#define FREQ_EST_MIN_SWTS_NS NS_PER_SEC

/*
 * The clock's distance from a servo's course (struct servo's phase_ns): below this it is none,
 * beyond it the course is lost (offsets from the wire can be extreme).
 */
#define SERVO_PHASE_MIN_NS 1e-3
#define SERVO_PHASE_MAX_NS 1e15

#define CLIP_BOUND 2.5
#define CLIP_PLAIN 8
#define CLIP_LEARN (1.0 / 32.0)
#define CLIP_CAP 1.5
/*
 * More than this many clipped in a row, all on one side, are no noise but a real offset (after a
 * disturbance): the clip takes its size as the new scale. It was 16: after a transient the clip
 * held each correction at 2.5 times the old noise for 16 samples, and linreg's true error under
 * 20 us of normal noise was 1.99 us RMS on the simulated clock against 1.19 us with 4
 * (test-servo test_linreg_jitter; one-sided spikes come far less often than four in a row).
 */
#define CLIP_RUN_MAX 4

double servo_clip(struct servo_clip *c, double r)
{
	double a = fabs(r), limit = CLIP_BOUND * c->scale;

	if (c->n < CLIP_PLAIN) {
		c->scale = (c->scale * c->n + a) / (c->n + 1);
		c->n++;
		return r;
	}
	c->scale += CLIP_LEARN * (num_min(a, CLIP_CAP * c->scale) - c->scale);
	if (!(a > limit)) {
		c->run = 0;
		return r;
	}
	if ((r > 0) != (c->run > 0)) {
		c->run = 0;
	}
	c->run_min = c->run == 0 ? a : num_min(c->run_min, a);
	c->run += r > 0 ? 1 : -1;
	if (abs(c->run) > CLIP_RUN_MAX) {
		/*
		 * The change is as large as the smallest of the run: a real offset makes them all
		 * alike, while one-sided delays that came five in a row (a fifth of the messages
		 * late: once in 3000) differ, and the least delayed is the nearest the truth.
		 */
		c->run = 0;
		c->scale = c->run_min;
		return r > 0 ? c->run_min : -c->run_min;
	}
	return r > 0 ? limit : -limit;
}

void servo_config_default(struct servo_config *cfg, bool sw_ts)
{
	*cfg = (struct servo_config){
		.kp_scale = sw_ts ? PI_SWTS_KP_SCALE : PI_HWTS_KP_SCALE,
		.kp_exponent = PI_KP_EXPONENT,
		.kp_norm_max = PI_KP_NORM_MAX,
		.ki_scale = sw_ts ? PI_SWTS_KI_SCALE : PI_HWTS_KI_SCALE,
		.ki_exponent = PI_KI_EXPONENT,
		.ki_norm_max = PI_KI_NORM_MAX,
		.first_step_threshold = FIRST_STEP_THRESHOLD_NS,
		.step_threshold = 0,
		.max_freq_ppb = MAX_FREQ_PPB,
		.freq_est_min = sw_ts ? FREQ_EST_MIN_SWTS_NS : 0,
		.noise_scaled_gain = sw_ts,
		.holdover_timeout = 0,
		.offset_threshold = 0,
		.num_offset_values = 10,
	};
}

void servo_config_from_options(const struct servo_options *o, bool sw_ts, struct servo_config *cfg)
{
	servo_config_default(cfg, sw_ts);
	/*
	 * refclock_sock replaces the system clock's servo only (daemon/refclock-feed.c): the
	 * port's own clock, a PHC, is steered by PI as ever.
	 */
	cfg->type = o->clock_servo == SERVO_TYPE_REFCLOCK_SOCK ? SERVO_TYPE_PI : o->clock_servo;
	cfg->offset_threshold = o->servo_offset_threshold;
	cfg->num_offset_values = (unsigned int) o->servo_num_offset_values;
	cfg->kp = o->pi_proportional_const;
	cfg->ki = o->pi_integral_const;
	cfg->first_step_threshold = (ns_t) num_llround(o->first_step_threshold * NS_PER_SEC);
	cfg->step_threshold = (ns_t) num_llround(o->step_threshold * NS_PER_SEC);
	cfg->max_offset_jump = (ns_t) num_llround(o->max_offset_jump * NS_PER_SEC);
	if (o->max_frequency > 0) {
		cfg->max_freq_ppb = o->max_frequency;
	}
}

/* The adjustment that holds the clock, without any phase correction. */
static double servo_hold_freq(const struct servo *s)
{
	double f = s->ops->stable_freq ? s->ops->stable_freq(s) : s->freq_ppb;

	return isfinite(f) ? f : s->freq_ppb;
}

/* After the first lock, an offset beyond the sanity bound is nothing to act on. */
bool servo_policy_refuses(const struct servo_config *cfg, bool locked_once, ns_t offset_ns)
{
	return (locked_once || cfg->first_step_taken) && cfg->max_offset_jump > 0 &&
	       (offset_ns > cfg->max_offset_jump || offset_ns < -cfg->max_offset_jump);
}

static bool servo_refuses(const struct servo *s, ns_t offset_ns)
{
	return servo_policy_refuses(&s->cfg, !s->first_update, offset_ns);
}

/*
 * Samples several in a turn. An answer replaced in its turn never acted: the turn's last one acts,
 * from the turn on, while the servo's course has each act from its sample. The clock's distance
 * from that course grows by what acted minus the servo's own answer, over the time since the last
 * sample; in a new turn the last answer returned is what acted. (A servo fed one sample a turn
 * keeps the two equal: nothing grows.)
 */
static void servo_turn(struct servo *s, ns_t t, bool shares_turn)
{
	/* a servo that never answered (a new one, its caller's turn not over) shares no turn */
	if (!shares_turn || s->turn_samples == 0) {
		s->acting_ppb = servo_answer(s);
		s->turn_samples = 0;
	}
	if (s->turn_samples < UINT32_MAX) {
		s->turn_samples++;
	}
	if (t > s->phase_ts && s->acting_ppb != s->freq_ppb) {
		s->phase_ns += (double) (t - s->phase_ts) * (s->acting_ppb - s->freq_ppb) /
			       NS_PER_SEC;
		/* Offsets from the wire can be extreme: a course that far off is no course. */
		if (!(fabs(s->phase_ns) < SERVO_PHASE_MAX_NS)) {
			s->phase_ns = 0;
		}
	}
	s->phase_ts = t;
}

/*
 * The answer to return for the servo's own (s->freq_ppb): plus what takes the clock back onto its
 * course, over the time this answer will act (about as many intervals as the turn has samples:
 * a SLAVE worker's turns come that far apart). What is left is measured at the next sample.
 */
static double servo_course(struct servo *s)
{
	double span, f;

	s->correction_ppb = 0;
	if (fabs(s->phase_ns) < SERVO_PHASE_MIN_NS) {
		s->phase_ns = 0;
		return s->freq_ppb;
	}
	span = s->interval_ns * s->turn_samples;
	f = s->freq_ppb - s->phase_ns / span * NS_PER_SEC;
	f = num_max(-s->cfg.max_freq_ppb, num_min(f, s->cfg.max_freq_ppb));
	s->correction_ppb = f - s->freq_ppb;
	return f;
}

/* The offset the clock would have on the servo's course. */
static ns_t servo_course_offset(const struct servo *s, ns_t offset_ns)
{
	ns_t r;

	if (s->phase_ns == 0 || __builtin_sub_overflow(offset_ns, num_llround(s->phase_ns), &r)) {
		return offset_ns;
	}
	return r;
}

enum servo_state servo_sample(struct servo *s, ns_t offset_ns, ns_t local_ts, double *freq_ppb)
{
	return servo_sample_in_turn(s, offset_ns, local_ts, false, freq_ppb);
}

enum servo_state servo_sample_in_turn(struct servo *s, ns_t offset_ns, ns_t local_ts,
				      bool shares_turn, double *freq_ppb)
{
	enum servo_state st;

	servo_turn(s, local_ts, shares_turn);
	if (servo_refuses(s, offset_ns)) {
		/* Neither stepped nor slewed on: hold the frequency until sane samples return. */
		if (s->state != SERVO_HOLDOVER) {
			s->freq_ppb = servo_hold_freq(s);
			s->holdover_since = local_ts;
		}
		s->correction_ppb = 0;
		*freq_ppb = s->freq_ppb;
		s->state = SERVO_HOLDOVER;
		s->in_threshold = 0;
		s->refused++;
		s->refused_offset = offset_ns;
		return SERVO_HOLDOVER;
	}
	st = s->ops->sample(s, servo_course_offset(s, offset_ns), local_ts, freq_ppb);

	/* lock detection counts the offsets measured while locked, as ptp4l's servo does */
	if (st == SERVO_LOCKED && s->cfg.offset_threshold > 0 &&
	    llabs(offset_ns) <= s->cfg.offset_threshold) {
		if (s->in_threshold < UINT32_MAX) {
			s->in_threshold++;
		}
	} else {
		s->in_threshold = 0;
	}
	s->state = st;
	s->freq_ppb = *freq_ppb;
	s->last_local_ts = local_ts;
	if (st == SERVO_JUMP) {
		/* stepped by the course's offset less the clock's: onto the course */
		s->phase_ns = 0;
	}
	*freq_ppb = servo_course(s);
	/* The first-step threshold only applies until the servo has acted once. */
	if (st != SERVO_UNLOCKED) {
		s->first_update = false;
	}
	return st;
}

int servo_new(const struct servo_config *cfg, double freq_ppb, struct servo **ret)
{
	switch (cfg->type) {
	case SERVO_TYPE_PI:
		return servo_pi_new(cfg, freq_ppb, ret);
	case SERVO_TYPE_LINREG:
		return servo_linreg_new(cfg, freq_ppb, ret);
	case SERVO_TYPE_REFCLOCK_SOCK:
		/* no clock's servo: servo_config_from_options() gives PI */
		break;
	}
	return -EINVAL;
}

bool servo_stable(const struct servo *s)
{
	if (s->state != SERVO_LOCKED) {
		return false;
	}
	return s->cfg.offset_threshold <= 0 || s->in_threshold >= s->cfg.num_offset_values;
}

void servo_reset(struct servo *s)
{
	/* the clock as it runs is the course now */
	if (s->correction_ppb != 0) {
		s->freq_ppb += s->correction_ppb;
		s->correction_ppb = 0;
	}
	s->phase_ns = 0;
	s->state = SERVO_UNLOCKED;
	s->in_threshold = 0;
	s->ops->reset(s);
}

double servo_skip(struct servo *s)
{
	return servo_skip_in_turn(s, s->last_local_ts, false);
}

double servo_skip_in_turn(struct servo *s, ns_t local_ts, bool shares_turn)
{
	double f;

	servo_turn(s, local_ts, shares_turn);
	if (s->state == SERVO_LOCKED && s->ops->skip) {
		f = s->ops->skip(s);
		if (isfinite(f)) {
			s->freq_ppb = f;
		}
	}
	return servo_course(s);
}

void servo_retract(struct servo *s)
{
	if (s->ops->retract) {
		s->ops->retract(s);
	}
}

void servo_set_interval(struct servo *s, double interval_s)
{
	if (!(interval_s > 0)) {
		return;
	}
	s->interval_ns = interval_s * NS_PER_SEC;
	if (s->ops->set_interval) {
		s->ops->set_interval(s, interval_s);
	}
}

enum servo_state servo_check_holdover(struct servo *s, ns_t now)
{
	if (s->state == SERVO_LOCKED && s->cfg.holdover_timeout > 0 &&
	    now - s->last_local_ts > s->cfg.holdover_timeout) {
		s->state = SERVO_HOLDOVER;
		s->holdover_since = s->last_local_ts + s->cfg.holdover_timeout;
		s->in_threshold = 0;
	}
	return s->state;
}

bool servo_enter_holdover(struct servo *s, ns_t now, double *freq_ppb)
{
	if (s->state != SERVO_LOCKED) {
		return false;
	}
	*freq_ppb = servo_hold_freq(s);
	s->freq_ppb = *freq_ppb;
	s->correction_ppb = 0;
	s->state = SERVO_HOLDOVER;
	s->holdover_since = now;
	s->in_threshold = 0;
	return true;
}

struct servo *servo_free(struct servo *s)
{
	if (s) {
		s->ops->free(s);
	}
	return NULL;
}

static const char *const servo_state_names[] = {
	[SERVO_UNLOCKED] = "UNLOCKED",
	[SERVO_JUMP] = "JUMP",
	[SERVO_LOCKED] = "LOCKED",
	[SERVO_HOLDOVER] = "HOLDOVER",
};

const char *servo_state_to_string(enum servo_state st)
{
	if ((unsigned int) st >= ARRAY_SIZE(servo_state_names)) {
		return NULL;
	}
	return servo_state_names[st];
}

int servo_state_from_string(const char *str, enum servo_state *ret)
{
	for (size_t i = 0; str && i < ARRAY_SIZE(servo_state_names); i++) {
		if (strcmp(servo_state_names[i], str) == 0) {
			*ret = (enum servo_state) i;
			return 0;
		}
	}
	return -EINVAL;
}
