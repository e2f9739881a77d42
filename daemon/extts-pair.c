// SPDX-License-Identifier: GPL-2.0-or-later
/* A PHC pin's 1PPS edges paired with gpsd's UTC seconds (ts2phc's rule), and the report they make.
 */
#include "daemon/extts-pair.h"

#include <stddef.h>

#include "daemon/sysclock.h"
#include "ptp/types.h"
#include "ptp/util.h"

static const char *const verdict_names[] = {
	[EXTTS_PAIR_OK] = "paired",
	[EXTTS_PAIR_FIRST] = "the first edge (no interval to check)",
	[EXTTS_PAIR_BAD_INTERVAL] = "an edge not 1 s after the previous one",
	[EXTTS_PAIR_NO_TPV] = "no TPV with a fix and a time",
	[EXTTS_PAIR_STALE_TPV] = "gpsd's TPV is 1.5 s old or more",
	[EXTTS_PAIR_SAME_SECOND] = "an edge labelled with a second already paired",
	[EXTTS_PAIR_AMBIGUOUS] = "an edge in the ambiguous seconds of a leap",
	[EXTTS_PAIR_OUT_OF_RANGE] = "an edge whose offset overflows",
};

const char *extts_pair_verdict_to_string(enum extts_pair_verdict v)
{
	return (size_t) v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "unknown";
}

void extts_pair_init(struct extts_pair *p, int64_t correction_ns)
{
	*p = (struct extts_pair){ .correction_ns = correction_ns, .last_reason = "no edge yet" };
}

/*
 * The edge's UTC second: the TPV's time plus the time since it came (below 1.5 s), to the nearest
 * second. False: beyond int64's nanoseconds.
 */
static bool label(const struct extts_tpv *tpv, uint64_t at_usec, int64_t *ret)
{
	int64_t t;

	if (__builtin_add_overflow(
		    tpv->utc_ns, (int64_t) (at_usec - tpv->at_usec) * 1000 + NS_PER_SEC / 2, &t)) {
		return false;
	}
	*ret = t >= 0 ? t / NS_PER_SEC : -1 - (-(t + 1) / NS_PER_SEC);
	return true;
}

static enum extts_pair_verdict judge(struct extts_pair *p, int64_t t_ns, uint64_t at_usec,
				     const struct extts_tpv *tpv, int16_t utc_offset,
				     bool leap_pending, struct extts_sample *ret)
{
	bool had_prev = p->have_prev;
	int64_t prev = p->prev_t_ns, interval, utc_s, phc_ns, tai_ns, offset_ns;

	p->have_prev = true;
	p->prev_t_ns = t_ns;
	if (!had_prev) {
		return EXTTS_PAIR_FIRST;
	}
	/* The kernel's time stamps are range-checked (phc-extts.c), the TPV's too (gpsd-json.c);
	 * the correction and the UTC offset could still carry one beyond int64's nanoseconds. */
	if (__builtin_sub_overflow(t_ns, prev, &interval)) {
		return EXTTS_PAIR_OUT_OF_RANGE;
	}
	if (interval < NS_PER_SEC - EXTTS_PAIR_INTERVAL_TOLERANCE_NS ||
	    interval > NS_PER_SEC + EXTTS_PAIR_INTERVAL_TOLERANCE_NS) {
		return EXTTS_PAIR_BAD_INTERVAL;
	}
	if (!tpv || !tpv->valid) {
		return EXTTS_PAIR_NO_TPV;
	}
	/* A TPV that came after the edge was read is the next second's: refused as stale too. */
	if (tpv->at_usec > at_usec || at_usec - tpv->at_usec >= EXTTS_PAIR_TPV_MAX_AGE_USEC) {
		return EXTTS_PAIR_STALE_TPV;
	}
	if (!label(tpv, at_usec, &utc_s)) {
		return EXTTS_PAIR_OUT_OF_RANGE;
	}
	if (p->have_label && utc_s <= p->last_utc_s) {
		return EXTTS_PAIR_SAME_SECOND;
	}
	if (leap_pending && sysclock_utc_ambiguous(utc_s)) {
		return EXTTS_PAIR_AMBIGUOUS;
	}
	if (__builtin_add_overflow(t_ns, p->correction_ns, &phc_ns) ||
	    __builtin_mul_overflow(utc_s + utc_offset, NS_PER_SEC, &tai_ns) ||
	    __builtin_sub_overflow(phc_ns, tai_ns, &offset_ns)) {
		return EXTTS_PAIR_OUT_OF_RANGE;
	}
	p->have_label = true;
	p->last_utc_s = utc_s;
	ret->phc_ns = phc_ns;
	ret->tai_s = utc_s + utc_offset;
	ret->offset_ns = offset_ns;
	return EXTTS_PAIR_OK;
}

enum extts_pair_verdict extts_pair_edge(struct extts_pair *p, int64_t t_ns, uint64_t at_usec,
					const struct extts_tpv *tpv, int16_t utc_offset,
					bool leap_pending, struct extts_sample *ret)
{
	enum extts_pair_verdict v = judge(p, t_ns, at_usec, tpv, utc_offset, leap_pending, ret);

	p->counters.edges++;
	p->last_reason = extts_pair_verdict_to_string(v);
	if (v == EXTTS_PAIR_OK) {
		p->counters.paired++;
		p->paired_usec = at_usec;
		p->last = *ret;
	} else {
		p->counters.refused[v]++;
	}
	return v;
}

bool extts_pair_lost(const struct extts_pair *p, uint64_t now)
{
	return !p->paired_usec || now > p->paired_usec + EXTTS_PAIR_LOST_USEC;
}

uint64_t extts_pair_deadline(const struct extts_pair *p)
{
	return p->paired_usec ? p->paired_usec + EXTTS_PAIR_LOST_USEC + 1 : 0;
}

void extts_pair_judge(const struct extts_pair *p, const struct time_source_report *gpsd,
		      uint64_t now, struct time_source_report *ret)
{
	*ret = *gpsd;
	if (!gpsd->ok) {
		return;
	}
	if (extts_pair_lost(p, now)) {
		ret->ok = false;
		ret->reason = p->paired_usec ? "PHC pin: no paired 1PPS edge for 2 s"
					     : "PHC pin: no paired 1PPS edge yet";
		return;
	}
	ret->reason = "gpsd: a fix, the 1PPS on the PHC's pin paired with its TPV";
}
