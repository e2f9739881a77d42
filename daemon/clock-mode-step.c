// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An instance's clock mode (issue 28, boundary-clock half): the pure machine of ptp/clock-mode.c
 * stepped once per derive pass, its reference the instance's parent, its quality announced.
 */
#include "daemon/clock-mode-step.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/time-util.h"

/* The servo's frequency spread: an exponential average over about this many samples. */
#define FREQ_EWMA_SAMPLES 16.0

/* The machine's configuration from the instance's options (a reload takes new ones at once). */
static void config_of(const struct instance *i, struct clock_mode_config *c)
{
	const struct holdover_options *h = &i->options.holdover;

	clock_mode_config_default(c);
	/* No time source of its own yet: its reference is the parent, a T-BC's tables. */
	c->role = CLOCK_MODE_ROLE_BOUNDARY;
	c->classes = i->options.dataset_comparison == BMCA_COMPARISON_G8275
			     ? CLOCK_MODE_CLASSES_G8275
			     : CLOCK_MODE_CLASSES_IEEE1588;
	c->configured_class = i->options.clockClass;
	c->holdover_time = (ns_t) h->time * NS_PER_SEC;
	c->holdover_max_error = h->time_error;
	c->out_of_spec_time = (ns_t) h->out_of_spec_time * NS_PER_SEC;
	c->lock_time = (ns_t) h->lock_time * NS_PER_SEC;
}

void instance_clock_mode_init(struct instance *i)
{
	clock_mode_init(&i->clock_mode, time_mono_ns());
	i->clock_mode_since_usec = time_usec(CLOCK_REALTIME);
	i->time_error_ns = -1;
}

/*
 * The standard deviation of the servo's frequency over its recent samples while synchronized:
 * the spread of the estimate holdover keeps (conservative: sample noise counts in full).
 */
static double freq_sigma(struct instance *i)
{
	if (!i->synchronized) {
		i->freq_sample_seen = 0;
		return sqrt(i->freq_var_ppb2);
	}
	if (i->sample_monotonic_usec != i->freq_sample_seen) {
		double d = i->freq_ppb - i->freq_mean_ppb;

		if (!i->freq_sample_seen) {
			/* The first sample of a lock: the mean starts there, no spread yet. */
			i->freq_mean_ppb = i->freq_ppb;
			i->freq_var_ppb2 = 0;
		} else {
			i->freq_mean_ppb += d / FREQ_EWMA_SAMPLES;
			i->freq_var_ppb2 = (1 - 1 / FREQ_EWMA_SAMPLES) *
					   (i->freq_var_ppb2 + d * d / FREQ_EWMA_SAMPLES);
		}
		i->freq_sample_seen = i->sample_monotonic_usec;
	}
	return sqrt(i->freq_var_ppb2);
}

/* The quality the instance announces changed: the workers get it within a push tick. */
static bool quality_changed(const struct clock_mode_config *c, enum clock_mode a, enum clock_mode b)
{
	struct clock_mode_quality qa = clock_mode_quality(c, a), qb = clock_mode_quality(c, b);

	return qa.clockClass != qb.clockClass || qa.timeTraceable != qb.timeTraceable ||
	       qa.frequencyTraceable != qb.frequencyTraceable;
}

bool instance_clock_mode_step(struct instance *i, uint64_t *ret_wakeup_usec)
{
	struct clock_mode_config c;
	struct clock_mode_fsm *f = &i->clock_mode;
	enum clock_mode old = f->mode;
	bool was_engaged = f->mode != CLOCK_MODE_FREE_RUN || f->ref_lost >= 0;
	const char *old_reason = f->reason;
	ns_t now = time_mono_ns();
	struct clock_mode_input in = {
		.reference_ok = i->synchronized,
		/* The last summary window's RMS; before the first, the last offset. */
		.offset_rms_ns = i->stats.count ? (double) i->stats.rms_ns
						: fabs((double) i->offset_ns),
		.freq_sigma_ppb = freq_sigma(i),
	};
	bool push = false;
	int64_t te;

	config_of(i, &c);
	if (clock_mode_step(f, &c, &in, now)) {
		log_full(LOG_NOTICE, "instance %s: clock mode %s -> %s: %s", i->name,
			 clock_mode_to_string(old), clock_mode_to_string(f->mode), f->reason);
		i->clock_mode_since_usec = time_usec(CLOCK_REALTIME);
		i->dirty |= INSTANCE_CHANGED_CLOCK_MODE;
		push = !was_engaged || quality_changed(&c, old, f->mode);
	}
	te = f->te_ns < 0 ? -1 : (int64_t) llround(f->te_ns);
	if (te != i->time_error_ns || strcmp(old_reason, f->reason)) {
		i->time_error_ns = te;
		i->dirty |= INSTANCE_CHANGED_CLOCK_MODE;
	}
	/* Time alone moves holdover on, and a pending relock: a pass a second then. */
	*ret_wakeup_usec = 0;
	if (f->mode == CLOCK_MODE_HOLDOVER_IN_SPEC || f->mode == CLOCK_MODE_HOLDOVER_OUT_OF_SPEC ||
	    (f->ref_steady_since >= 0 && f->mode != CLOCK_MODE_LOCKED)) {
		*ret_wakeup_usec = time_mono_usec() + USEC_PER_SEC;
	}
	return push;
}

/*
 * G.8275.1 Table 2: the class and both flags are the mode's. IEEE 1588 (the default profile): a
 * boundary clock keeps its configured class, and its configured flags only while the mode
 * allows them. Before the first lock (FREE_RUN, never locked) the configuration as it was.
 */
void instance_clock_mode_apply(const struct instance *i, struct gm_settings *gm)
{
	const struct clock_mode_fsm *f = &i->clock_mode;
	struct clock_mode_config c;
	struct clock_mode_quality q;

	if (i->gm_override || (f->mode == CLOCK_MODE_FREE_RUN && f->ref_lost < 0)) {
		return;
	}
	config_of(i, &c);
	q = clock_mode_quality(&c, f->mode);
	gm->clockQuality.clockClass = q.clockClass;
	if (c.classes == CLOCK_MODE_CLASSES_G8275) {
		gm->tp.timeTraceable = q.timeTraceable;
		gm->tp.frequencyTraceable = q.frequencyTraceable;
	} else {
		gm->tp.timeTraceable &= q.timeTraceable;
		gm->tp.frequencyTraceable &= q.frequencyTraceable;
	}
}
