/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fake NIC with pins behind daemon/phc-extts.c's ioctl seam: the calls recorded, events queued.
 */
#pragma once

#include <linux/ptp_clock.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/phc-extts.h"

/* The fd the fake expects every call on. */
#define FAKE_NIC_FD 42
#define FAKE_NIC_CALLS_MAX 16
#define FAKE_NIC_QUEUE_MAX 200

struct fake_nic_call {
	unsigned long request;
	unsigned int index, func, chan, flags;
};

struct fake_phc {
	struct ptp_clock_caps caps;
	unsigned long fail_request; /* this request fails with fail_errno */
	int fail_errno;
	struct fake_nic_call calls[FAKE_NIC_CALLS_MAX];
	size_t n_calls;
	struct ptp_extts_event queue[FAKE_NIC_QUEUE_MAX];
	size_t head, tail;
	ssize_t read_result; /* nonzero: what the next read returns instead */
};

/* PTP_CLOCK_GETCAPS, PTP_PIN_SETFUNC2, PTP_EXTTS_REQUEST2 and read(), userdata a struct fake_phc */
extern const struct phc_extts_ops fake_nic_ops;

/* One event on channel at sec.nsec, read after those queued before. */
void fake_nic_queue(struct fake_phc *p, unsigned int channel, int64_t sec, uint32_t nsec);
/* A NIC with 4 pins and 2 channels, like an i210's SDP0-3. */
struct fake_phc fake_nic(void);
