// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A PHC pin's events as the kernel hands them (struct ptp_extts_event records, phc_extts_read())
 * paired with any TPV, correction and UTC offset (extts_pair_edge()): nothing overflows, a pair
 * is only made of an in-range edge 1 s after the last, and its offset is what it says.
 */
#include <errno.h>
#include <linux/ptp_clock.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "daemon/extts-pair.h"
#include "daemon/phc-extts.h"
#include "ptp/types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *data;
	size_t size;
};

static int fuzz_ioctl(void *userdata, int fd, unsigned long request, void *arg)
{
	(void) userdata;
	(void) fd;
	if (request == PTP_CLOCK_GETCAPS) {
		struct ptp_clock_caps *caps = arg;

		memset(caps, 0, sizeof(*caps));
		caps->n_pins = 4;
		caps->n_ext_ts = 2;
	}
	return 0;
}

/* The input's bytes as the kernel's records, whole or not (a short read is the kernel's bug). */
static ssize_t fuzz_read(void *userdata, int fd, void *buf, size_t size)
{
	struct input *in = userdata;
	size_t n = in->size < size ? in->size : size;

	(void) fd;
	if (n == 0) {
		return -EAGAIN;
	}
	memcpy(buf, in->data, n);
	in->data += n;
	in->size -= n;
	return (ssize_t) n;
}

static const struct phc_extts_ops fuzz_ops = { .ioctl = fuzz_ioctl, .read = fuzz_read };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		int64_t utc_ns, correction_ns;
		uint32_t tpv_age_usec, step_usec;
		int16_t utc_offset;
		uint8_t flags;
	} h;
	struct input in;
	struct phc_extts x;
	struct extts_pair p;
	struct phc_extts_edge e[8];
	struct extts_sample s;
	uint64_t at = 1000000000;
	unsigned int paired = 0;
	int n;

	if (size < sizeof(h)) {
		return 0;
	}
	memcpy(&h, data, sizeof(h));
	in = (struct input){ data + sizeof(h), size - sizeof(h) };
	/* ts2phc.extts_correction's range (common/config-keys.c) */
	if (h.correction_ns < -NS_PER_SEC || h.correction_ns > NS_PER_SEC) {
		return 0;
	}
	/* enable drains what is queued: give it nothing yet */
	{
		struct input none = { 0 };

		if (phc_extts_enable(&x, &fuzz_ops, &none, 3, 0, 0) < 0) {
			__builtin_trap();
		}
	}
	x.userdata = &in;
	extts_pair_init(&p, h.correction_ns);
	while ((n = phc_extts_read(&x, e, 8)) > 0) {
		for (int k = 0; k < n; k++) {
			struct extts_tpv tpv = { .valid = h.flags & 1, .utc_ns = h.utc_ns };
			int64_t prev = p.prev_t_ns;
			bool had = p.have_prev;
			enum extts_pair_verdict v;

			at += h.step_usec;
			/* the same TPV, aged from each edge (a TPV after the edge when it wraps) */
			tpv.at_usec = at - h.tpv_age_usec;
			v = extts_pair_edge(&p, e[k].t_ns, at, &tpv, h.utc_offset, h.flags & 2, &s);
			if (v == EXTTS_PAIR_OK &&
			    (!had ||
			     e[k].t_ns - prev < NS_PER_SEC - EXTTS_PAIR_INTERVAL_TOLERANCE_NS ||
			     e[k].t_ns - prev > NS_PER_SEC + EXTTS_PAIR_INTERVAL_TOLERANCE_NS ||
			     s.phc_ns != e[k].t_ns + h.correction_ns ||
			     s.offset_ns != s.phc_ns - s.tai_s * NS_PER_SEC)) {
				__builtin_trap();
			}
			paired += v == EXTTS_PAIR_OK;
		}
	}
	/* the seed's edges pair (a harness that never pairs proves nothing of the sample) */
	if (getenv("FUZZ_EXTTS_EXPECT_PAIRED") && !paired) {
		__builtin_trap();
	}
	return 0;
}
