/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A PHC's EXTTS pin through the ioctl seam: the calls ts2phc makes, in order; events checked.
 * No NIC here has a pin: a fake plays one (what no test here proves: docs/testing.md). */
#include <errno.h>
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/phc-extts.h"
#include "tests/unit/fake-nic.h"

static void expect_call(const struct fake_phc *p, size_t k, unsigned long request,
			unsigned int index, unsigned int func, unsigned int chan,
			unsigned int flags)
{
	assert_true(k < p->n_calls);
	assert_int_equal(p->calls[k].request, request);
	assert_int_equal(p->calls[k].index, index);
	assert_int_equal(p->calls[k].func, func);
	assert_int_equal(p->calls[k].chan, chan);
	assert_int_equal(p->calls[k].flags, flags);
}

static void test_enable(void **state)
{
	struct fake_phc p = fake_nic();
	struct phc_extts x;
	struct phc_extts_edge e[4];

	(void) state;
	/* 130 stale events (more than one read's worth) are drained, none counted */
	for (int k = 0; k < 130; k++) {
		fake_nic_queue(&p, 1, 1000 + k, 0);
	}
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 2, 1), 0);
	assert_true(x.enabled);
	assert_int_equal(p.n_calls, 3);
	expect_call(&p, 0, PTP_CLOCK_GETCAPS, 0, 0, 0, 0);
	expect_call(&p, 1, PTP_PIN_SETFUNC2, 2, PTP_PF_EXTTS, 1, 0);
	expect_call(&p, 2, PTP_EXTTS_REQUEST2, 1, 0, 0, PTP_ENABLE_FEATURE | PTP_RISING_EDGE);
	assert_int_equal(phc_extts_read(&x, e, 4), 0);
	assert_int_equal(x.events, 0);
	phc_extts_disable(&x);
	assert_false(x.enabled);
	assert_int_equal(p.n_calls, 5);
	expect_call(&p, 3, PTP_EXTTS_REQUEST2, 1, 0, 0, 0);
	expect_call(&p, 4, PTP_PIN_SETFUNC2, 2, PTP_PF_NONE, 0, 0);
	/* twice is once; reading a disabled input is an error */
	phc_extts_disable(&x);
	assert_int_equal(p.n_calls, 5);
	assert_int_equal(phc_extts_read(&x, e, 4), -ENODEV);
}

static void test_refused(void **state)
{
	struct fake_phc p;
	struct phc_extts x;

	(void) state;
	/* no pins, no channels: nothing asked of the driver */
	p = (struct fake_phc){ .caps = { .n_pins = 0, .n_ext_ts = 2 } };
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 0, 0), -ENODEV);
	assert_int_equal(p.n_calls, 1);
	p = (struct fake_phc){ .caps = { .n_pins = 4, .n_ext_ts = 0 } };
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 0, 0), -ENODEV);
	p = fake_nic();
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 4, 0), -ERANGE);
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 0, 2), -ERANGE);
	assert_int_equal(p.n_calls, 2);
	assert_false(x.enabled);
	/* the caps refused (not a PHC) */
	p = fake_nic();
	p.fail_request = PTP_CLOCK_GETCAPS;
	p.fail_errno = ENOTTY;
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 0, 0), -ENOTTY);
	/* the pin is another function's: nothing more asked */
	p = fake_nic();
	p.fail_request = PTP_PIN_SETFUNC2;
	p.fail_errno = EBUSY;
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 1, 0), -EBUSY);
	assert_int_equal(p.n_calls, 2);
	assert_false(x.enabled);
	/* the driver cannot timestamp: the pin is given back */
	p = fake_nic();
	p.fail_request = PTP_EXTTS_REQUEST2;
	p.fail_errno = EOPNOTSUPP;
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 1, 0), -EOPNOTSUPP);
	assert_int_equal(p.n_calls, 4);
	expect_call(&p, 3, PTP_PIN_SETFUNC2, 1, PTP_PF_NONE, 0, 0);
	assert_false(x.enabled);
	phc_extts_disable(&x);
	assert_int_equal(p.n_calls, 4);
}

/* Edges of our channel taken; another channel's skipped; impossible times dropped; all counted. */
static void test_read(void **state)
{
	struct fake_phc p = fake_nic();
	struct phc_extts x;
	struct phc_extts_edge e[8];

	(void) state;
	assert_int_equal(phc_extts_enable(&x, &fake_nic_ops, &p, 42, 0, 0), 0);
	fake_nic_queue(&p, 0, 1796627386, 0);
	fake_nic_queue(&p, 1, 1796627386, 5);		  /* another channel */
	fake_nic_queue(&p, 0, 1796627387, 999999999);	  /* the last nanosecond of a second */
	fake_nic_queue(&p, 0, 1796627388, 1000000000);	  /* no such nanosecond */
	fake_nic_queue(&p, 0, -1, 0);			  /* before 1970 */
	fake_nic_queue(&p, 0, INT64_MAX / 1000000000, 0); /* beyond what nanoseconds hold */
	fake_nic_queue(&p, 0, 1796627389, 12);
	assert_int_equal(phc_extts_read(&x, e, 8), 3);
	assert_int_equal(e[0].t_ns, INT64_C(1796627386000000000));
	assert_int_equal(e[1].t_ns, INT64_C(1796627387999999999));
	assert_int_equal(e[2].t_ns, INT64_C(1796627389000000012));
	assert_int_equal(x.events, 3);
	assert_int_equal(x.foreign, 1);
	assert_int_equal(x.rejected, 3);
	assert_int_equal(phc_extts_read(&x, e, 8), 0);
	/* at most max at a time; the rest waits */
	fake_nic_queue(&p, 0, 10, 0);
	fake_nic_queue(&p, 0, 11, 0);
	fake_nic_queue(&p, 0, 12, 0);
	assert_int_equal(phc_extts_read(&x, e, 2), 2);
	assert_int_equal(e[1].t_ns, INT64_C(11000000000));
	assert_int_equal(phc_extts_read(&x, e, 2), 1);
	assert_int_equal(e[0].t_ns, INT64_C(12000000000));
	assert_int_equal(phc_extts_read(&x, e, 0), 0);
	/* the device gone; a short read */
	p.read_result = -ENODEV;
	assert_int_equal(phc_extts_read(&x, e, 8), -ENODEV);
	p.read_result = (ssize_t) sizeof(struct ptp_extts_event) - 1;
	assert_int_equal(phc_extts_read(&x, e, 8), -EIO);
	phc_extts_disable(&x);
}

/* The kernel table on something that is not a PHC: the driver's refusal comes back as it is. */
static void test_kernel_not_a_phc(void **state)
{
	struct phc_extts x;
	int fd = open("/dev/null", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	(void) state;
	assert_true(fd >= 0);
	assert_int_equal(phc_extts_enable(&x, &phc_extts_kernel_ops, NULL, fd, 0, 0), -ENOTTY);
	assert_false(x.enabled);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enable),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_kernel_not_a_phc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
