/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Offset and path delay arithmetic of IEEE 1588-2019 11.3 (E2E) and 11.4 (P2P), and its filter. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ptp/types.h"

/*
 * Every value is ns_t; correction fields are already converted with correction_to_ns(). Nothing
 * here checks plausibility: a negative path delay is returned as it is and the caller decides.
 * The values come from the wire, so nothing here may overflow either: each result is computed
 * with checked arithmetic and must lie within +-DELAY_NS_MAX, else the function returns -ERANGE
 * (and writes nothing). That bound (2^62 ns, 146 years: a PHC at 0 against a master's TAI is 56
 * years) keeps the difference of any two results, which the servo and the spike gate take, within
 * ns_t.
 */
#define DELAY_NS_MAX (INT64_C(1) << 62)

/*
 * IEEE 1588-2019 11.3.2 delay request-response. For a one-step master t1 is the Sync's
 * originTimestamp and sync_correction its correctionField; for two-step t1 is the Follow_Up's
 * preciseOriginTimestamp and sync_correction the sum of both correctionFields.
 */
struct delay_e2e {
	ns_t t1;		    /* master: Sync egress */
	ns_t t2;		    /* slave: Sync ingress */
	ns_t sync_correction;	    /* Sync (+ Follow_Up) correctionField */
	ns_t t3;		    /* slave: Delay_Req egress */
	ns_t t4;		    /* master: Delay_Req ingress, Delay_Resp receiveTimestamp */
	ns_t delay_resp_correction; /* Delay_Resp correctionField */
};

/* meanPathDelay = [(t2 - t1) + (t4 - t3) - sync_correction - delay_resp_correction] / 2 */
int delay_e2e_mean_path_delay(const struct delay_e2e *d, ns_t *ret);
/* 11.2: offsetFromMaster = t2 - t1 - meanPathDelay - sync_correction */
int delay_offset_from_master(ns_t t1, ns_t t2, ns_t sync_correction, ns_t mean_path_delay,
			     ns_t *ret);

/*
 * IEEE 1588-2019 11.4.2 peer delay. A two-step responder sends t2 (requestReceiptTimestamp) in
 * Pdelay_Resp and t3 (responseOriginTimestamp) in Pdelay_Resp_Follow_Up; a one-step responder
 * puts the turnaround t3 - t2 into the Pdelay_Resp correctionField instead, and t2 = t3 = 0 here.
 */
struct delay_p2p {
	ns_t t1;		  /* requester: Pdelay_Req egress */
	ns_t t2;		  /* responder: Pdelay_Req ingress (two-step) */
	ns_t t3;		  /* responder: Pdelay_Resp egress (two-step) */
	ns_t t4;		  /* requester: Pdelay_Resp ingress */
	ns_t resp_correction;	  /* Pdelay_Resp correctionField */
	ns_t resp_fup_correction; /* Pdelay_Resp_Follow_Up correctionField (two-step) */
};

/*
 * meanLinkDelay = [r * (t4 - t1) - (t3 - t2) - resp_correction - resp_fup_correction] / 2, with
 * r the neighborRateRatio (1.0 when not measured).
 */
int delay_p2p_mean_link_delay(const struct delay_p2p *d, double neighbor_rate_ratio, ns_t *ret);

/*
 * neighborRateRatio (11.4.2, 16.1 style): the peer's rate over ours from two responses,
 * (t3' - t3) / (t4' - t4) with t3 including the responder turnaround. -EINVAL if t4' <= t4.
 */
int delay_neighbor_rate_ratio(ns_t t3_old, ns_t t4_old, ns_t t3_new, ns_t t4_new, double *ret);

/* The turnaround a one-step responder writes into Pdelay_Resp's correctionField (11.4.2 c). */
ns_t delay_p2p_turnaround(ns_t t2, ns_t t3);

/* a + b and a - b within +-DELAY_NS_MAX, or false (nothing written). */
bool delay_ns_add(ns_t a, ns_t b, ns_t *ret);
bool delay_ns_sub(ns_t a, ns_t b, ns_t *ret);

/* A small filter of path delay samples, as linuxptp's filter.c: moving average or median. */
enum delay_filter_kind {
	DELAY_FILTER_AVERAGE = 0,
	DELAY_FILTER_MEDIAN,
};
#define DELAY_FILTER_MAX 64
#define DELAY_FILTER_DEFAULT_LENGTH 10

struct delay_filter {
	enum delay_filter_kind kind;
	size_t length; /* window, 1..DELAY_FILTER_MAX */
	size_t count;  /* samples held, <= length */
	size_t next;   /* ring position of the next sample */
	ns_t sample[DELAY_FILTER_MAX];
};

/* -EINVAL for a length of 0 or above DELAY_FILTER_MAX or an unknown kind. */
int delay_filter_init(struct delay_filter *f, enum delay_filter_kind kind, size_t length);
/* Add a sample; return the filtered value over the samples held so far. */
ns_t delay_filter_sample(struct delay_filter *f, ns_t value);
void delay_filter_reset(struct delay_filter *f);
const char *delay_filter_kind_to_string(enum delay_filter_kind k);
int delay_filter_kind_from_string(const char *s, enum delay_filter_kind *ret);
