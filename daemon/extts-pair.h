/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A 1PPS taken on a PHC's pin (daemon/phc-extts.c) paired with the UTC second gpsd reported for
 * it, as ts2phc pairs its edges with an NMEA source's RMC time: pure, no kernel, no gpsd.
 *
 * The rule (ts2phc's): a receiver's time of day (gpsd's TPV time) is that of the second which
 * began at the pulse's rising edge before it was sent; the edge read at at_usec is labelled with
 * that second plus the time elapsed since the TPV arrived, rounded to a whole second. That holds
 * while the receiver sends its time less than 0.5 s after the edge it names (NMEA receivers: 50 to
 * 300 ms); a TPV older than EXTTS_PAIR_TPV_MAX_AGE_USEC at the edge labels nothing.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/time-source.h"

/* A TPV arrived this long before the edge is stale: one cycle and a half (ts2phc's bound). */
#define EXTTS_PAIR_TPV_MAX_AGE_USEC 1500000ULL
/* An edge is used only 1 s +- this after the previous one on the PHC (a PHC off by 10^-2 at most)
 */
#define EXTTS_PAIR_INTERVAL_TOLERANCE_NS 10000000LL
/* No paired edge for longer than this: the pin's reference is lost. */
#define EXTTS_PAIR_LOST_USEC 2000000ULL

/* gpsd's newest TPV, as the pairing needs it. */
struct extts_tpv {
	bool valid;	  /* a TPV with a fix (mode 2 or 3) and a time */
	int64_t utc_ns;	  /* its time, UTC since 1970 */
	uint64_t at_usec; /* CLOCK_MONOTONIC of its arrival */
};

/* What became of one edge. */
enum extts_pair_verdict {
	EXTTS_PAIR_OK = 0,	 /* paired: a sample */
	EXTTS_PAIR_FIRST,	 /* no edge before it to check its interval against */
	EXTTS_PAIR_BAD_INTERVAL, /* not 1 s after the previous edge on the PHC */
	EXTTS_PAIR_NO_TPV,	 /* no TPV with a fix and a time */
	EXTTS_PAIR_STALE_TPV,	 /* the TPV came EXTTS_PAIR_TPV_MAX_AGE_USEC or more before */
	EXTTS_PAIR_SAME_SECOND,	 /* labelled with a second not after the last paired edge's */
	EXTTS_PAIR_AMBIGUOUS,	 /* in the two seconds around a UTC midnight with a leap pending */
	EXTTS_PAIR_OUT_OF_RANGE, /* an offset beyond what nanoseconds in an int64 hold */
	EXTTS_PAIR_VERDICT_MAX,
};

struct extts_pair_counters {
	uint64_t edges;				  /* edges judged */
	uint64_t paired;			  /* made a sample */
	uint64_t refused[EXTTS_PAIR_VERDICT_MAX]; /* per verdict (OK unused) */
};

/* One paired edge: the PHC's time of the edge and what it should have read. */
struct extts_sample {
	int64_t phc_ns;	   /* the edge's PHC time, corrected */
	int64_t tai_s;	   /* the second it marks, TAI (UTC + utc_offset) */
	int64_t offset_ns; /* phc_ns - tai_s * 10^9: the PHC's error */
};

struct extts_pair {
	int64_t correction_ns;	  /* ts2phc.extts_correction: added to each edge's PHC time */
	struct extts_sample last; /* the last paired edge's sample */
	bool have_prev;
	int64_t prev_t_ns; /* the previous edge's PHC time */
	bool have_label;
	int64_t last_utc_s;	 /* the last paired edge's UTC second */
	uint64_t paired_usec;	 /* CLOCK_MONOTONIC of the last paired edge; 0: none */
	const char *last_reason; /* the last edge's verdict (static text) */
	struct extts_pair_counters counters;
};

void extts_pair_init(struct extts_pair *p, int64_t correction_ns);

/*
 * One rising edge: PHC time t_ns, read at at_usec (CLOCK_MONOTONIC), with gpsd's newest TPV and
 * the UTC offset (TAI - UTC) and leap state the instance announces. EXTTS_PAIR_OK fills *ret;
 * any other verdict is counted and the edge dropped. Every edge becomes the previous edge.
 */
enum extts_pair_verdict extts_pair_edge(struct extts_pair *p, int64_t t_ns, uint64_t at_usec,
					const struct extts_tpv *tpv, int16_t utc_offset,
					bool leap_pending, struct extts_sample *ret);

/* No edge paired within EXTTS_PAIR_LOST_USEC before now (or never). */
bool extts_pair_lost(const struct extts_pair *p, uint64_t now);
/* When a paired edge goes stale with no new one (0: none paired). */
uint64_t extts_pair_deadline(const struct extts_pair *p);

/*
 * The report of gpsd with its PPS on the pin: gpsd's (fix, time, UTC offset, error bound) when it
 * is not ok; else ok only while edges are paired (extts_pair_lost() false), the reason saying
 * which. Pure.
 */
void extts_pair_judge(const struct extts_pair *p, const struct time_source_report *gpsd,
		      uint64_t now, struct time_source_report *ret);

const char *extts_pair_verdict_to_string(enum extts_pair_verdict v);
