/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PHC against CLOCK_REALTIME: PTP_SYS_OFFSET_PRECISE, _EXTENDED or the basic ioctl, best of N. */
#pragma once

#include <stdint.h>

#include "ptp/types.h"

enum sysoff_method {
	SYSOFF_PRECISE = 0, /* cross-timestamp by the device: no read window at all */
	SYSOFF_EXTENDED,    /* system time read just before and after each PHC read */
	SYSOFF_BASIC,	    /* system and PHC reads interleaved */
	SYSOFF_NONE,
};

/* The PHC read at system time sys; error is half the window that brackets the PHC read. */
struct sysoff_pair {
	ns_t sys;
	ns_t phc;
	ns_t error;
};

/* linux/ptp_clock.h PTP_MAX_SAMPLES; phc2sys reads 5 by default. */
#define SYSOFF_MAX_SAMPLES 25
#define SYSOFF_DEFAULT_SAMPLES 5

/* The first method fd's PHC accepts, in the order above; SYSOFF_NONE and -EOPNOTSUPP if none. */
int sysoff_probe(int fd, enum sysoff_method *ret);
/* One measurement of n samples (1..SYSOFF_MAX_SAMPLES) by method m: the narrowest window. */
int sysoff_measure(int fd, enum sysoff_method m, unsigned int n, struct sysoff_pair *ret);

/*
 * Pure: from n readings {sys before, phc, sys after}, the one with the narrowest window, with sys
 * at its middle. -EINVAL for n == 0 or only windows that run backwards.
 */
int sysoff_best(const ns_t (*ts)[3], unsigned int n, struct sysoff_pair *ret);

const char *sysoff_method_to_string(enum sysoff_method m);
