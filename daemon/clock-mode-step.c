// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An instance's clock mode (issue 28): the pure machine of ptp/clock-mode.c stepped once per
 * derive pass, its reference the instance's parent (a T-BC), or its own time source (time_source:
 * a T-GM, daemon/instance-source.c), its quality announced.
 */
#include "daemon/clock-mode-step.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/time-util.h"
#include "daemon/instance-source.h"
#include "ptp/num.h"

/* The servo's frequency spread: an exponential average over about this many samples. */
#define FREQ_EWMA_SAMPLES 16.0

static bool has_source(const struct instance *i)
{
	return i->options.time_source != OPTIONS_TIME_SOURCE_NONE;
}

static bool gm_settings_equal(const struct gm_settings *a, const struct gm_settings *b);
static void apply_source(const struct instance *i, struct gm_settings *gm);

/* The machine's configuration from the instance's options (a reload takes new ones at once). */
static void config_of(const struct instance *i, struct clock_mode_config *c)
{
	const struct holdover_options *h = &i->options.holdover;

	clock_mode_config_default(c);
	/* A time source of its own: a T-GM's tables; else its reference is the parent, a T-BC's. */
	c->role = has_source(i) ? CLOCK_MODE_ROLE_GRANDMASTER : CLOCK_MODE_ROLE_BOUNDARY;
	c->classes = i->options.dataset_comparison == BMCA_COMPARISON_G8275
			     ? CLOCK_MODE_CLASSES_G8275
			     : CLOCK_MODE_CLASSES_IEEE1588;
	c->configured_class = i->options.clockClass;
	/* A grandmaster free-running is 248 at best, whatever clockClass says (never better). */
	if (has_source(i) && c->configured_class < CLOCK_CLASS_DEFAULT) {
		c->configured_class = CLOCK_CLASS_DEFAULT;
	}
	c->gm_out_of_spec_class = h->gm_out_of_spec_class;
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

/*
 * A grandmaster's reference: its time source's last report ok and recent, and the instance's
 * clock on it. i->reference.reason says why (not); true when that changed.
 */
static bool source_input(struct instance *i, struct clock_mode_input *in)
{
	struct instance_reference *ref = &i->reference;
	const char *why = NULL, *old = ref->reason;
	bool ok = false;

	if (!i->source) {
		why = ref->reason ? ref->reason : "no time source";
	} else if (!ref->updated_usec) {
		why = ref->reason ? ref->reason : "no report yet";
	} else if (ref->last.at_usec + TIME_SOURCE_STALE_USEC < time_mono_usec()) {
		why = "no report from the time source for 3 s";
	} else if (!ref->last.ok) {
		why = ref->last.reason;
	} else if (instance_source_locked(i, &why)) {
		ok = true;
		why = ref->last.reason;
	}
	*in = (struct clock_mode_input){ .reference_ok = ok };
	if (ref->ok != ok || !old || strcmp(old, why)) {
		ref->ok = ok;
		ref->reason = why;
		return true;
	}
	return false;
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
		/* a T-BC's reference; a T-GM's is its time source (source_input) */
		.reference_ok = i->synchronized,
		/* The last summary window's RMS; before the first, the last offset. */
		.offset_rms_ns = i->stats.count ? (double) i->stats.rms_ns
						: fabs((double) i->offset_ns),
		.freq_sigma_ppb = freq_sigma(i),
	};
	bool push = false;
	int64_t te;

	config_of(i, &c);
	if (has_source(i) && source_input(i, &in)) {
		i->dirty |= INSTANCE_CHANGED_REFERENCE;
	}
	if (clock_mode_step(f, &c, &in, now)) {
		log_full(LOG_NOTICE, "instance %s: clock mode %s -> %s: %s", i->name,
			 clock_mode_to_string(old), clock_mode_to_string(f->mode), f->reason);
		i->clock_mode_since_usec = time_usec(CLOCK_REALTIME);
		i->dirty |= INSTANCE_CHANGED_CLOCK_MODE;
		push = !was_engaged || quality_changed(&c, old, f->mode);
	}
	te = f->te_ns < 0 ? -1 : (int64_t) num_llround(f->te_ns);
	/*
	 * A T-GM's error against true time adds its reference's own (time_source system: the
	 * kernel's esterror, as the NTP daemon leaves it). The machine's bound judges the clock's
	 * error against the reference only: a T-GM's holdover ends by holdover_time.
	 */
	if (te >= 0 && has_source(i) && i->source && i->reference.last.est_error_ns > 0) {
		te += i->reference.last.est_error_ns;
	}
	if (te != i->time_error_ns || strcmp(old_reason, f->reason)) {
		i->time_error_ns = te;
		i->dirty |= INSTANCE_CHANGED_CLOCK_MODE;
	}
	/* What it announces of UTC moved with its source (or a grandmaster's first pass). */
	if (has_source(i) && !i->gm_override) {
		struct gm_settings g;

		options_gm_settings(&i->options, &g);
		apply_source(i, &g);
		push |= !gm_settings_equal(&g, &i->push_gm_settings);
	}
	/*
	 * Time alone moves holdover on, a pending relock, and a time source's report going stale:
	 * a pass a second then.
	 */
	*ret_wakeup_usec = 0;
	if (f->mode == CLOCK_MODE_HOLDOVER_IN_SPEC || f->mode == CLOCK_MODE_HOLDOVER_OUT_OF_SPEC ||
	    (f->ref_steady_since >= 0 && f->mode != CLOCK_MODE_LOCKED) || has_source(i)) {
		*ret_wakeup_usec = time_mono_usec() + USEC_PER_SEC;
	}
	return push;
}

static bool gm_settings_equal(const struct gm_settings *a, const struct gm_settings *b)
{
	return a->clockQuality.clockClass == b->clockQuality.clockClass &&
	       a->clockQuality.clockAccuracy == b->clockQuality.clockAccuracy &&
	       a->clockQuality.offsetScaledLogVariance == b->clockQuality.offsetScaledLogVariance &&
	       ds_time_properties_flags(&a->tp) == ds_time_properties_flags(&b->tp) &&
	       a->tp.currentUtcOffset == b->tp.currentUtcOffset &&
	       a->tp.timeSource == b->tp.timeSource;
}

/*
 * A grandmaster with a time source announces what its machine says from the start (free-run
 * 248 and no traceability before the first lock, never the configuration's better class): the
 * class and both flags are the mode's in both tables (G.8275.1 Table 2; IEEE 1588-2019 Table 4
 * and 7.6.2.8-9, a primary reference's traceability). UTC as the source and leapfile say; the
 * timeSource (Table 6) the source's while locked, the configured one (internal oscillator)
 * otherwise.
 */
static void apply_source(const struct instance *i, struct gm_settings *gm)
{
	const struct instance_reference *ref = &i->reference;
	struct clock_mode_config c;
	struct clock_mode_quality q;

	config_of(i, &c);
	q = clock_mode_quality(&c, i->clock_mode.mode);
	gm->clockQuality.clockClass = q.clockClass;
	gm->tp.timeTraceable = q.timeTraceable;
	gm->tp.frequencyTraceable = q.frequencyTraceable;
	if (ref->utc_offset_valid) {
		gm->tp.currentUtcOffset = ref->utc_offset;
		gm->tp.currentUtcOffsetValid = true;
		gm->tp.leap61 = ref->leap61;
		gm->tp.leap59 = ref->leap59;
	}
	if (i->clock_mode.mode == CLOCK_MODE_LOCKED) {
		gm->tp.timeSource = i->options.time_source == OPTIONS_TIME_SOURCE_GNSS
					    ? TIME_SOURCE_GNSS
					    : TIME_SOURCE_NTP;
	}
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

	if (i->gm_override) {
		return;
	}
	if (has_source(i)) {
		apply_source(i, gm);
		return;
	}
	if (f->mode == CLOCK_MODE_FREE_RUN && f->ref_lost < 0) {
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
