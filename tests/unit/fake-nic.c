// SPDX-License-Identifier: GPL-2.0-or-later
/* A fake NIC with pins behind daemon/phc-extts.c's ioctl seam (no NIC here has one). */
#include <errno.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/fake-nic.h"

static int fake_ioctl(void *userdata, int fd, unsigned long request, void *arg)
{
	struct fake_phc *p = userdata;
	struct fake_nic_call c = { .request = request };

	assert_int_equal(fd, FAKE_NIC_FD);
	if (request == PTP_CLOCK_GETCAPS) {
		memcpy(arg, &p->caps, sizeof(p->caps));
	} else if (request == PTP_PIN_SETFUNC2) {
		const struct ptp_pin_desc *d = arg;

		c.index = d->index;
		c.func = d->func;
		c.chan = d->chan;
	} else if (request == PTP_EXTTS_REQUEST2) {
		const struct ptp_extts_request *q = arg;

		c.index = q->index;
		c.flags = q->flags;
	} else {
		fail_msg("unexpected ioctl %#lx", request);
	}
	assert_true(p->n_calls < FAKE_NIC_CALLS_MAX);
	p->calls[p->n_calls++] = c;
	return request == p->fail_request ? -p->fail_errno : 0;
}

static ssize_t fake_read(void *userdata, int fd, void *buf, size_t size)
{
	struct fake_phc *p = userdata;
	size_t n = 0;

	assert_int_equal(fd, FAKE_NIC_FD);
	if (p->read_result) {
		ssize_t r = p->read_result;

		p->read_result = 0;
		return r;
	}
	/* as the kernel: whole events only, -EAGAIN on an empty queue of an O_NONBLOCK fd */
	while (p->head < p->tail && (n + 1) * sizeof(struct ptp_extts_event) <= size) {
		memcpy((char *) buf + n * sizeof(struct ptp_extts_event), &p->queue[p->head++],
		       sizeof(struct ptp_extts_event));
		n++;
	}
	return n ? (ssize_t) (n * sizeof(struct ptp_extts_event)) : -EAGAIN;
}

const struct phc_extts_ops fake_nic_ops = {
	.ioctl = fake_ioctl,
	.read = fake_read,
};

void fake_nic_queue(struct fake_phc *p, unsigned int channel, int64_t sec, uint32_t nsec)
{
	assert_true(p->tail < FAKE_NIC_QUEUE_MAX);
	p->queue[p->tail++] = (struct ptp_extts_event){
		.t = { .sec = sec, .nsec = nsec },
		.index = channel,
	};
}

struct fake_phc fake_nic(void)
{
	return (struct fake_phc){ .caps = { .n_pins = 4, .n_ext_ts = 2 } };
}
