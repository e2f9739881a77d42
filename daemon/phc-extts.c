// SPDX-License-Identifier: GPL-2.0-or-later
/* A PHC's external timestamp input (a 1PPS on a pin), as ts2phc sets it up, behind an ioctl seam.
 */
#include <errno.h>
#include <linux/ptp_clock.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "daemon/phc-extts.h"
#include "ptp/types.h"
/* Events read per call to the kernel: a PPS brings one a second; more wait for the next call. */
#define EXTTS_READ_BATCH 8

static int kernel_ioctl(void *userdata, int fd, unsigned long request, void *arg)
{
	(void) userdata;
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static ssize_t kernel_read(void *userdata, int fd, void *buf, size_t size)
{
	ssize_t n = read(fd, buf, size);

	(void) userdata;
	return n < 0 ? -errno : n;
}

const struct phc_extts_ops phc_extts_kernel_ops = {
	.ioctl = kernel_ioctl,
	.read = kernel_read,
};

static int pin_set(struct phc_extts *x, unsigned int func, unsigned int channel)
{
	struct ptp_pin_desc desc;

	memset(&desc, 0, sizeof(desc));
	desc.index = x->pin;
	desc.func = func;
	desc.chan = channel;
	return x->ops->ioctl(x->userdata, x->fd, PTP_PIN_SETFUNC2, &desc);
}

static int extts_request(struct phc_extts *x, unsigned int flags)
{
	struct ptp_extts_request req;

	memset(&req, 0, sizeof(req));
	req.index = x->channel;
	req.flags = flags;
	return x->ops->ioctl(x->userdata, x->fd, PTP_EXTTS_REQUEST2, &req);
}

int phc_extts_enable(struct phc_extts *x, const struct phc_extts_ops *ops, void *userdata, int fd,
		     unsigned int pin, unsigned int channel)
{
	struct ptp_clock_caps caps;
	struct ptp_extts_event stale[EXTTS_READ_BATCH];
	int r;

	*x = (struct phc_extts){
		.ops = ops, .userdata = userdata, .fd = fd, .pin = pin, .channel = channel
	};
	memset(&caps, 0, sizeof(caps));
	r = ops->ioctl(userdata, fd, PTP_CLOCK_GETCAPS, &caps);
	if (r < 0) {
		return r;
	}
	if (caps.n_pins <= 0 || caps.n_ext_ts <= 0) {
		return -ENODEV;
	}
	if (pin >= (unsigned int) caps.n_pins || channel >= (unsigned int) caps.n_ext_ts) {
		return -ERANGE;
	}
	r = pin_set(x, PTP_PF_EXTTS, channel);
	if (r < 0) {
		return r;
	}
	r = extts_request(x, PTP_ENABLE_FEATURE | PTP_RISING_EDGE);
	if (r < 0) {
		(void) pin_set(x, PTP_PF_NONE, 0);
		return r;
	}
	x->enabled = true;
	/*
	 * Edges queued before (another program's, an earlier run's) are no measurement of ours:
	 * read until the queue is empty, a bounded number of times (the kernel keeps 128 events).
	 */
	for (int k = 0; k < 64; k++) {
		ssize_t got = ops->read(userdata, fd, stale, sizeof(stale));

		if (got < (ssize_t) sizeof(stale)) {
			break;
		}
	}
	return 0;
}

void phc_extts_disable(struct phc_extts *x)
{
	if (!x->enabled) {
		return;
	}
	(void) extts_request(x, 0);
	(void) pin_set(x, PTP_PF_NONE, 0);
	x->enabled = false;
}

int phc_extts_read(struct phc_extts *x, struct phc_extts_edge *edges, size_t max)
{
	struct ptp_extts_event ev[EXTTS_READ_BATCH];
	size_t want = max < EXTTS_READ_BATCH ? max : EXTTS_READ_BATCH, n = 0;
	ssize_t got;

	if (!x->enabled) {
		return -ENODEV;
	}
	if (want == 0) {
		return 0;
	}
	got = x->ops->read(x->userdata, x->fd, ev, want * sizeof(ev[0]));
	if (got == -EAGAIN) {
		return 0;
	}
	if (got < 0) {
		return (int) got;
	}
	if ((size_t) got % sizeof(ev[0]) || (size_t) got > want * sizeof(ev[0])) {
		return -EIO;
	}
	for (size_t k = 0; k < (size_t) got / sizeof(ev[0]); k++) {
		if (ev[k].index != x->channel) {
			x->foreign++;
			continue;
		}
		/* a PHC counts from 1970 in TAI or UTC; its seconds fit nanoseconds in an int64 */
		if (ev[k].t.nsec >= NS_PER_SEC || ev[k].t.sec < 0 ||
		    ev[k].t.sec > INT64_MAX / NS_PER_SEC - 1) {
			x->rejected++;
			continue;
		}
		edges[n++].t_ns = ev[k].t.sec * NS_PER_SEC + ev[k].t.nsec;
		x->events++;
	}
	return (int) n;
}
