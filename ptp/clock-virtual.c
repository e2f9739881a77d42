// SPDX-License-Identifier: GPL-2.0-or-later
/* A software-corrected view of a raw clock: steered by the servo, never touching a real clock. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ptp/clock.h"
#include "ptp/num.h"
#include "ptp/util.h"

#define VIRTUAL_MAX_FREQ_PPB 1e6

/*
 * local = raw + offset + (raw - ref) * (freq + freq_error) / 1e9. Every frequency change folds
 * the elapsed part into offset and moves ref to now, so the rate term only ever covers the time
 * since the last change (small, hence exact enough in a double) and the view never jumps.
 */
struct clock_virtual {
	struct clock base;
	struct clock *raw; /* borrowed, only read */
	ns_t offset;
	ns_t ref;
	double freq_ppb;
	double freq_error_ppb;
};

static struct clock_virtual *to_virtual(struct clock *c)
{
	return container_of(c, struct clock_virtual, base);
}

static ns_t rate_term(const struct clock_virtual *v, ns_t raw)
{
	return (ns_t) num_llround((double) (raw - v->ref) * (v->freq_ppb + v->freq_error_ppb) /
				  NS_PER_SEC);
}

static int virtual_from_raw(struct clock *c, ns_t raw, ns_t *ret)
{
	struct clock_virtual *v = to_virtual(c);
	ns_t local;

	/* The offset follows steps a master asked for: a view beyond ns_t is no time. */
	if (__builtin_add_overflow(raw, v->offset, &local) ||
	    __builtin_add_overflow(local, rate_term(v, raw), &local)) {
		return -ERANGE;
	}
	*ret = local;
	return 0;
}

static int virtual_gettime(struct clock *c, ns_t *ret)
{
	ns_t raw;
	int r = clock_get_time(to_virtual(c)->raw, &raw);

	if (r < 0) {
		return r;
	}
	return virtual_from_raw(c, raw, ret);
}

static int virtual_adjfreq(struct clock *c, double ppb)
{
	struct clock_virtual *v = to_virtual(c);
	ns_t raw, offset;
	int r;

	if (!(fabs(ppb) <= c->max_freq_ppb)) {
		return -ERANGE;
	}
	r = clock_get_time(v->raw, &raw);
	if (r < 0) {
		return r;
	}
	if (__builtin_add_overflow(v->offset, rate_term(v, raw), &offset)) {
		return -ERANGE;
	}
	v->offset = offset;
	v->ref = raw;
	v->freq_ppb = ppb;
	return 0;
}

static int virtual_getfreq(struct clock *c, double *ppb)
{
	*ppb = to_virtual(c)->freq_ppb;
	return 0;
}

static int virtual_step(struct clock *c, ns_t delta)
{
	struct clock_virtual *v = to_virtual(c);
	ns_t offset;

	/* delta comes from a measured offset (the wire): refuse one that does not fit. */
	if (__builtin_add_overflow(v->offset, delta, &offset)) {
		return -ERANGE;
	}
	v->offset = offset;
	return 0;
}

static void virtual_free(struct clock *c)
{
	free(to_virtual(c));
}

static const struct clock_ops clock_virtual_ops = {
	.name = "virtual",
	.gettime = virtual_gettime,
	.adjfreq = virtual_adjfreq,
	.getfreq = virtual_getfreq,
	.step = virtual_step,
	.from_raw = virtual_from_raw,
	.free = virtual_free,
};

ns_t clock_virtual_state_at(const struct clock_virtual_state *s, ns_t raw)
{
	return s->local + (raw - s->raw) +
	       (ns_t) num_llround((double) (raw - s->raw) * s->rate_ppb / NS_PER_SEC);
}

int clock_virtual_get_state(struct clock *c, struct clock_virtual_state *ret)
{
	const struct clock_virtual *v;

	if (!c || c->ops != &clock_virtual_ops) {
		return -EINVAL;
	}
	v = to_virtual(c);
	ret->raw = v->ref;
	ret->local = v->ref + v->offset;
	ret->rate_ppb = v->freq_ppb + v->freq_error_ppb;
	return 0;
}

int clock_virtual_set_state(struct clock *c, const struct clock_virtual_state *s)
{
	struct clock_virtual *v;
	double freq;

	if (!c || c->ops != &clock_virtual_ops) {
		return -EINVAL;
	}
	v = to_virtual(c);
	freq = s->rate_ppb - v->freq_error_ppb;
	if (!(fabs(freq) <= c->max_freq_ppb)) {
		return -ERANGE;
	}
	v->ref = s->raw;
	v->offset = s->local - s->raw;
	v->freq_ppb = freq;
	return 0;
}

int clock_virtual_new(struct clock *raw, const struct clock_virtual_config *cfg, struct clock **ret)
{
	struct clock_virtual *v;
	ns_t now;
	int r;

	if (!raw || cfg->max_freq_ppb < 0) {
		return -EINVAL;
	}
	r = clock_get_time(raw, &now);
	if (r < 0) {
		return r;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		return -ENOMEM;
	}
	v->base.ops = &clock_virtual_ops;
	v->base.max_freq_ppb = cfg->max_freq_ppb > 0 ? cfg->max_freq_ppb : VIRTUAL_MAX_FREQ_PPB;
	v->raw = raw;
	v->offset = cfg->initial_offset;
	v->ref = now;
	v->freq_error_ppb = cfg->freq_error_ppb;
	*ret = &v->base;
	return 0;
}
