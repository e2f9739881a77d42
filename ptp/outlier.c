// SPDX-License-Identifier: GPL-2.0-or-later
/* The offset spike gate in front of a servo (ptp/outlier.h). Pure. */
#include <math.h>
#include <stdlib.h>

#include "ptp/num.h"
#include "ptp/outlier.h"

/*
 * Software timestamps on a busy host spike by tens of microseconds now and then. One such offset
 * fed to the servo costs a minute of settling. So predict the offset from the last few samples
 * and keep one that lands far off the line from the servo, a few in a row at most: a real change
 * gets through after that.
 *
 * The limit follows the measured noise of the path: 8 times the average residual, which learns
 * from every sample judged, each counting at most half the limit. So when more than about one
 * sample in four lands beyond half the limit (broad packet delay variation) the limit grows
 * within a few samples, while rarer spikes, passed or not, cannot lift it for long (counting a
 * rejected one as the whole limit, spikes in one Sync of seven would have lifted it for good). It
 * once learnt from passed samples only: under 0..100 us of jitter it stayed at its 10 us floor, and
 * with the start-over after three rejections it passed one sample in five. The servo, for its part,
 * scales its gains with the time since its last sample (servo-pi.c), so a sample after rejected
 * ones does not count several times.
 */
#define OUTLIER_FLOOR (10 * NS_PER_USEC)
#define OUTLIER_FACTOR 8.0
#define OUTLIER_LEARN 0.1
#define OUTLIER_MAX_RUN 3
/*
 * Its first judgements draw the line through the first two samples, which no gate judged, and
 * extrapolate their noise (the prediction error is about 2.5 times one sample's noise) before
 * the gate knows that noise: until it has judged this many it allows this much more. With the
 * floor alone, on a loaded host a port's gate kept the three offsets after the first step from
 * the servo in half the runs (4 s more to synchronized).
 */
#define OUTLIER_WARMUP 3
#define OUTLIER_WARMUP_WIDEN 3.0
/*
 * ... and a third sample in a row beyond it passes (the line restarts from the rejected ones):
 * with 0-100 us of path delay variation the two samples of the first frequency estimate put it
 * tens of ppm off, the samples after the first step run off the gate's line by as much, and
 * three rejections in a row made 9 of 24 simulated start-ups take 5 s to SLAVE instead of 2-3 s
 * (test-port test_fast_start_noisy).
 */
#define OUTLIER_WARMUP_MAX_RUN 2

/*
 * The prediction for t: the least-squares line through the samples held (two: the line through
 * them). It was the line through the last two alone, whose prediction a step ahead carries about
 * 2.2 times one sample's noise, and all of it when the last sample was a spike just under the
 * limit: the gate then kept the next true offsets from the servo (three in a row) while the
 * servo's answer to the spike ran the clock off. Through four, a step ahead: about 1.2 times, and
 * a spike among them moves it by a fraction (test-port test_spike_after_start).
 */
static bool outlier_predict_from(const struct outlier_gate *f, unsigned m, ns_t t, double *ret)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = m, d, slope;
	ns_t last;

	if (m < 2) {
		return false;
	}
	last = f->t[m - 1];
	if (!(t > last) || !(last > f->t[0])) {
		return false;
	}
	for (unsigned i = 0; i < m; i++) {
		double x = (double) (f->t[i] - last), y = (double) f->o[i];

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	d = n * sxx - sx * sx;
	if (!(d > 0)) {
		return false;
	}
	slope = (n * sxy - sx * sy) / d;
	*ret = (sy - slope * sx) / n + slope * (double) (t - last);
	return fabs(*ret) < 9e18;
}

static bool outlier_predict(const struct outlier_gate *f, ns_t t, double *ret)
{
	return outlier_predict_from(f, f->n, t, ret);
}

/*
 * A sample off the line, the first in a row: was the line's last sample the spike? One just under
 * the limit passes, the servo answers it, and the line, which ends on it and pivots on it, then
 * predicts the true offsets that follow as far off: up to three were kept from the servo while its
 * answer to the spike ran the clock off (at Sync 1/s a Sync 10 us late left 18.6 us of error 8 s
 * after SLAVE: test-port-start test_late_once). If the sample lies on the line through the earlier
 * ones (pivoted by the same answers), that one was: drop it from the line. The residual against
 * the shorter line, or a negative value.
 */
static double outlier_drop_passed_spike(struct outlier_gate *f, ns_t t, ns_t offset, double limit)
{
	double pred, res;

	if (f->rejected || f->n < 3 || !outlier_predict_from(f, f->n - 1, t, &pred)) {
		return -1;
	}
	res = fabs((double) offset - pred);
	if (res > limit) {
		return -1;
	}
	f->n--;
	f->dropped = true;
	return res;
}

/* Add a sample to the line; the oldest gives way. */
static void outlier_append(struct outlier_gate *f, ns_t t, ns_t offset)
{
	if (f->n == OUTLIER_LINE) {
		for (unsigned i = 1; i < OUTLIER_LINE; i++) {
			f->t[i - 1] = f->t[i];
			f->o[i - 1] = f->o[i];
		}
		f->n--;
	}
	f->t[f->n] = t;
	f->o[f->n] = offset;
	f->n++;
}

enum outlier_verdict outlier_gate_judge(struct outlier_gate *f, ns_t t, ns_t offset)
{
	double pred, res, limit;
	unsigned max_run;

	f->dropped = false;
	if (outlier_predict(f, t, &pred)) {
		res = fabs((double) offset - pred);
		limit = num_max((double) OUTLIER_FLOOR, OUTLIER_FACTOR * f->jitter);
		/*
		 * The second look at the last sample passed is against the limit unwidened: in
		 * the warm-up a spike passes under the widened one, and so does the true offset
		 * after the servo's answer to it, which the line through the samples before it
		 * predicts within the noise (a 20 us spike at the first sample after the first
		 * step, at Sync 1/s: 2.9 us of error 8 s after SLAVE).
		 */
		if (res > limit) {
			double shorter = outlier_drop_passed_spike(f, t, offset, limit);

			if (shorter >= 0) {
				res = shorter;
			}
		}
		max_run = OUTLIER_MAX_RUN;
		if (f->judged < OUTLIER_WARMUP) {
			f->judged++;
			limit *= OUTLIER_WARMUP_WIDEN;
			max_run = OUTLIER_WARMUP_MAX_RUN;
		}
		if (res > limit && !f->rejected) {
			f->run_jitter = f->jitter;
		}
		f->jitter += OUTLIER_LEARN * (num_min(res, limit / 2) - f->jitter);
		if (res > limit) {
			if (f->rejected < max_run) {
				f->rt[0] = f->rt[1];
				f->ro[0] = f->ro[1];
				f->rt[1] = t;
				f->ro[1] = offset;
				f->rejected++;
				f->bent = 0;
				return OUTLIER_REJECT;
			}
			/*
			 * It persists. If the rejected samples lie on a line of their own (the
			 * trend changed, or the line was drawn through a spike), they were no
			 * noise: forget what they taught the limit, and go on from that line.
			 */
			if (f->rt[1] > f->rt[0] && t > f->rt[1]) {
				pred = (double) f->ro[1] + (double) (f->ro[1] - f->ro[0]) *
								   (double) (t - f->rt[1]) /
								   (double) (f->rt[1] - f->rt[0]);
				if (fabs((double) offset - pred) <=
				    num_max((double) OUTLIER_FLOOR,
					    OUTLIER_FACTOR * f->run_jitter)) {
					f->jitter = f->run_jitter;
				}
			}
			/* the line goes on from the rejected ones (the last two) */
			f->n = 0;
			if (f->rt[1] > f->rt[0]) {
				outlier_append(f, f->rt[0], f->ro[0]);
			}
			outlier_append(f, f->rt[1], f->ro[1]);
		}
	}
	f->rejected = 0;
	outlier_append(f, t, offset);
	f->bent = 0;
	/*
	 * Until it holds two samples the gate cannot judge: the very first one only primes it (a
	 * port passes it to the servo all the same: keeping it cost a second to synchronized; the
	 * second passes unjudged anyway). After a run of rejections it holds two again.
	 */
	return f->n < 2 ? OUTLIER_PRIME : OUTLIER_PASS;
}

/*
 * The line pivots on its last sample: each earlier one as if the new rate had held since. Offsets
 * from the wire can be extreme: a line that does not fit is forgotten.
 */
static void outlier_pivot(struct outlier_gate *f, double dppb)
{
	for (unsigned i = 0; i + 1 < f->n; i++) {
		double d = dppb * (double) (f->t[f->n - 1] - f->t[i]) / 1e9;

		if (!(fabs(d) < 1e18) ||
		    __builtin_sub_overflow(f->o[i], (ns_t) num_llround(d), &f->o[i])) {
			f->n = 0;
			return;
		}
	}
}

/*
 * The servo's answer bends the offset's trend from this sample on (the clock runs faster by
 * dppb, the offset grows by as much), so bend the gate's line with it: starting the gate over
 * instead would keep the next offset from the servo after every large frequency change. A step
 * leaves nothing of the line.
 */
void outlier_gate_follow(struct outlier_gate *f, enum servo_state st, double dppb)
{
	f->bent = 0;
	if (st == SERVO_JUMP) {
		f->n = 0;
	} else {
		outlier_pivot(f, dppb);
		f->bent = dppb;
	}
}

void outlier_gate_bend(struct outlier_gate *f, ns_t t, double dppb)
{
	double pred;

	if (dppb == 0 || !outlier_predict(f, t, &pred)) {
		return;
	}
	outlier_append(f, t, (ns_t) num_llround(pred));
	outlier_pivot(f, dppb);
	f->bent = dppb;
}

/*
 * A step by -offset moves the line (offsets and local times) by as much: the first sample after
 * it is judged as any other.
 */
void outlier_gate_step(struct outlier_gate *f, ns_t offset, double dppb)
{
	outlier_pivot(f, dppb);
	f->rejected = 0;
	f->bent = 0;
	for (unsigned i = 0; i < f->n; i++) {
		/* Offsets from the wire can be extreme: a line that does not fit is forgotten. */
		if (__builtin_sub_overflow(f->o[i], offset, &f->o[i]) ||
		    __builtin_sub_overflow(f->t[i], offset, &f->t[i])) {
			f->n = 0;
			return;
		}
	}
}

/*
 * The pivot on the same last sample, the other way: each earlier sample back where it was (the
 * rounding to whole ns is symmetric, llround()).
 */
void outlier_gate_unbend(struct outlier_gate *f)
{
	if (f->bent != 0) {
		outlier_pivot(f, -f->bent);
		f->bent = 0;
	}
}

void outlier_gate_reset(struct outlier_gate *g)
{
	g->n = 0;
	g->bent = 0;
	g->rejected = 0;
	g->judged = 0;
	g->dropped = false;
}
