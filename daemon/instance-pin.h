/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * instance-pin.c: a grandmaster's 1PPS on a pin of its PHC (ts2phc.pin_index, time_source gnss,
 * clock_backend phc): the pin enabled (phc-extts.c), its edges read on the loop, paired with gpsd's
 * seconds (extts-pair.c) and steering the PHC through its follower (instance-follow.c).
 */
#pragma once

#include "daemon/extts-pair.h"
#include "daemon/model.h"
#include "daemon/phc-extts.h"

/* The kernel, or a fake NIC in tests (struct manager's pin_ops). */
struct instance_pin_ops {
	/* /dev/ptpN opened read-write and non-blocking: an fd (owned by the caller), or -errno */
	int (*open)(void *userdata, int phc_index);
	void (*close)(void *userdata, int fd);
	const struct phc_extts_ops *extts;
};

extern const struct instance_pin_ops instance_pin_kernel_ops;

/*
 * From the derive pass: the pin enabled while the options ask for it and the instance's ports sit
 * on one PHC, given back otherwise (and when the options or the PHC change). A PHC that refuses it
 * is logged once and not asked again until then: the instance falls back to gpsd's PPS report.
 */
void instance_pin_update(struct instance *i);
void instance_pin_free(struct instance *i);

/*
 * The edges queued on the PHC now (the io callback; tests call it): each paired with tpv (gpsd's
 * newest TPV, NULL: none) and, when paired, a sample for the PHC's follower; the reference judged
 * again. Events of other channels, impossible times and unpaired edges are counted and dropped,
 * the first of each kind logged.
 */
void instance_pin_read(struct instance *i, uint64_t now, const struct extts_tpv *tpv);

/*
 * gpsd's report as the pin makes it (instance-source.c): unchanged without a pin; while the pin is
 * enabled, ok only while edges are paired (extts_pair_judge); after the PHC refused it, gpsd's,
 * with a reason that says so.
 */
void instance_pin_judge(const struct instance *i, const struct time_source_report *gpsd,
			uint64_t now, struct time_source_report *ret);

/* The PHC whose pin is enabled, or -1. */
int instance_pin_phc(const struct instance *i);
/* The pin's pairing state and counters (NULL without an enabled pin). */
const struct extts_pair *instance_pin_pair(const struct instance *i);
/* The pin's kernel side and its counters of dropped events (NULL without an enabled pin). */
const struct phc_extts *instance_pin_extts(const struct instance *i);
/* Why the instance's PHC is not kept on gpsd's time through the pin (static text), NULL: it is. */
const char *instance_pin_why_not(const struct instance *i);
