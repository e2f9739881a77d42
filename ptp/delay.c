// SPDX-License-Identifier: GPL-2.0-or-later
/* Offset and path delay arithmetic (IEEE 1588-2019 11.3, 11.4) and the path delay filter. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "ptp/delay.h"
#include "ptp/num.h"
#include "ptp/util.h"

/* Halve toward negative infinity, so a sum and its negation split the same way. */
static ns_t half(ns_t v)
{
	return v >> 1;
}

static bool in_range(ns_t v)
{
	return v >= -DELAY_NS_MAX && v <= DELAY_NS_MAX;
}

bool delay_ns_add(ns_t a, ns_t b, ns_t *ret)
{
	ns_t r;

	if (__builtin_add_overflow(a, b, &r) || !in_range(r)) {
		return false;
	}
	*ret = r;
	return true;
}

bool delay_ns_sub(ns_t a, ns_t b, ns_t *ret)
{
	ns_t r;

	if (__builtin_sub_overflow(a, b, &r) || !in_range(r)) {
		return false;
	}
	*ret = r;
	return true;
}

/*
 * a - b - c - d, every step checked. c and d are corrections (or a path delay): beyond
 * +-DELAY_NS_MAX they are no such thing (INT64_MAX is the correctionField's "too big").
 */
static bool sub3(ns_t a, ns_t b, ns_t c, ns_t d, ns_t *ret)
{
	ns_t r;

	if (!in_range(c) || !in_range(d) || __builtin_sub_overflow(a, b, &r) ||
	    __builtin_sub_overflow(r, c, &r) || __builtin_sub_overflow(r, d, &r)) {
		return false;
	}
	*ret = r;
	return true;
}

/* IEEE 1588-2019 11.3.2 */
int delay_e2e_mean_path_delay(const struct delay_e2e *d, ns_t *ret)
{
	ns_t ms, sm, sum;

	/* t2 - t1 and t4 - t3 each hold one clock offset (with opposite signs): take both. */
	if (__builtin_sub_overflow(d->t2, d->t1, &ms) ||
	    __builtin_sub_overflow(d->t4, d->t3, &sm) || __builtin_add_overflow(ms, sm, &sum) ||
	    !sub3(sum, 0, d->sync_correction, d->delay_resp_correction, &sum) ||
	    !in_range(half(sum))) {
		return -ERANGE;
	}
	*ret = half(sum);
	return 0;
}

/* IEEE 1588-2019 11.2 (with delayAsymmetry 0) */
int delay_offset_from_master(ns_t t1, ns_t t2, ns_t sync_correction, ns_t mean_path_delay,
			     ns_t *ret)
{
	ns_t r;

	if (!sub3(t2, t1, mean_path_delay, sync_correction, &r) || !in_range(r)) {
		return -ERANGE;
	}
	*ret = r;
	return 0;
}

/* IEEE 1588-2019 11.4.2 c) (one-step, t2 = t3 = 0) and d) (two-step) */
int delay_p2p_mean_link_delay(const struct delay_p2p *d, double neighbor_rate_ratio, ns_t *ret)
{
	ns_t round_trip, turnaround, r;

	if (__builtin_sub_overflow(d->t4, d->t1, &round_trip) ||
	    __builtin_sub_overflow(d->t3, d->t2, &turnaround)) {
		return -ERANGE;
	}
	if (neighbor_rate_ratio != 1.0) {
		double scaled = (double) round_trip * neighbor_rate_ratio;

		/* Beyond int64 it is no delay: refuse it before rounding. */
		if (!(fabs(scaled) < (double) DELAY_NS_MAX)) {
			return -ERANGE;
		}
		round_trip = (ns_t) num_llround(scaled);
	}
	if (!sub3(round_trip, turnaround, d->resp_correction, d->resp_fup_correction, &r) ||
	    !in_range(half(r))) {
		return -ERANGE;
	}
	*ret = half(r);
	return 0;
}

int delay_neighbor_rate_ratio(ns_t t3_old, ns_t t4_old, ns_t t3_new, ns_t t4_new, double *ret)
{
	if (t4_new <= t4_old || t3_new <= t3_old) {
		return -EINVAL;
	}
	*ret = (double) (t3_new - t3_old) / (double) (t4_new - t4_old);
	return 0;
}

ns_t delay_p2p_turnaround(ns_t t2, ns_t t3)
{
	return t3 - t2;
}

int delay_filter_init(struct delay_filter *f, enum delay_filter_kind kind, size_t length)
{
	if (length == 0 || length > DELAY_FILTER_MAX ||
	    (kind != DELAY_FILTER_AVERAGE && kind != DELAY_FILTER_MEDIAN)) {
		return -EINVAL;
	}
	*f = (struct delay_filter){ .kind = kind, .length = length };
	return 0;
}

void delay_filter_reset(struct delay_filter *f)
{
	f->count = 0;
	f->next = 0;
}

static ns_t filter_average(const struct delay_filter *f)
{
	/* Path delays are far below 2^63 / 64, so the sum cannot overflow in practice; a
	 * long double keeps it exact enough even for absurd inputs. */
	long double sum = 0;

	for (size_t i = 0; i < f->count; i++) {
		sum += f->sample[i];
	}
	return (ns_t) num_llroundl(sum / f->count);
}

static int ns_cmp(const void *a, const void *b)
{
	ns_t x = *(const ns_t *) a, y = *(const ns_t *) b;

	return (x > y) - (x < y);
}

static ns_t filter_median(const struct delay_filter *f)
{
	ns_t sorted[DELAY_FILTER_MAX];
	size_t n = f->count;

	memcpy(sorted, f->sample, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), ns_cmp);
	if (n % 2) {
		return sorted[n / 2];
	}
	/*
	 * Of two, the smaller: a late message only ever lengthens a path delay sample (a late Sync
	 * its t2 - t1, a late Delay_Req its t4 - t3), so the shorter is the nearer the truth, and
	 * the average kept half of a spike: at Sync 1/s with software timestamps one Delay_Req
	 * among the first two, late by 50 us, put the offsets 25 us off, the servo answered, and
	 * 8 s after SLAVE the clock was still 73 us off (test-port-start test_late_once).
	 */
	if (n == 2) {
		return sorted[0];
	}
	/* average of the middle two, without overflow */
	return sorted[n / 2 - 1] + half(sorted[n / 2] - sorted[n / 2 - 1]);
}

ns_t delay_filter_sample(struct delay_filter *f, ns_t value)
{
	f->sample[f->next] = value;
	f->next = (f->next + 1) % f->length;
	if (f->count < f->length) {
		f->count++;
	}
	return f->kind == DELAY_FILTER_MEDIAN ? filter_median(f) : filter_average(f);
}

const char *delay_filter_kind_to_string(enum delay_filter_kind k)
{
	switch (k) {
	case DELAY_FILTER_AVERAGE:
		return "moving_average";
	case DELAY_FILTER_MEDIAN:
		return "moving_median";
	}
	return NULL;
}

int delay_filter_kind_from_string(const char *s, enum delay_filter_kind *ret)
{
	if (!s) {
		return -EINVAL;
	}
	if (strcmp(s, "moving_average") == 0) {
		*ret = DELAY_FILTER_AVERAGE;
	} else if (strcmp(s, "moving_median") == 0) {
		*ret = DELAY_FILTER_MEDIAN;
	} else {
		return -EINVAL;
	}
	return 0;
}
