/* The port engine end to end, hostile input: forged, replayed and extreme frames counted, not acted
 * on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/clock.h"
#include "tests/doubles/clock-sim.h"
#include "ptp/msg.h"
#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "tests/unit/port-link.h"

/* Inject a frame into the slave at the current time, and check it is counted, not acted on. */
static void inject(struct link *l, const void *buf, size_t len, enum port_counter want)
{
	struct side *s = &l->s[1];
	uint64_t before = port_get_counter(s->port, want);
	unsigned samples = s->samples;
	ns_t err = link_error(l), rx;
	double freq;

	assert_int_equal(clock_get_freq(s->clk, &freq), 0);
	assert_int_equal(clock_get_time(s->clk, &rx), 0);
	assert_int_equal(port_receive(s->port, buf, len, rx, l->now), 0);
	if (port_get_counter(s->port, want) != before + 1) {
		fail_msg("counter %s: %llu, expected %llu", port_counter_to_string(want),
			 (unsigned long long) port_get_counter(s->port, want),
			 (unsigned long long) before + 1);
	}
	assert_int_equal(s->samples, samples);
	assert_int_equal(port_get_state(s->port), PORT_STATE_SLAVE);
	assert_int_equal(link_error(l), err);
	double after;
	assert_int_equal(clock_get_freq(s->clk, &after), 0);
	assert_true(after == freq);
}

/* Take the master's last frame of a type, let edit() change it, and re-encode it. */
static size_t forge(struct link *l, enum msg_type type, uint8_t *buf,
		    void (*edit)(struct msg *m, const struct link *l))
{
	struct side *m0 = &l->s[0];
	struct msg m;
	ssize_t n;

	assert_true(m0->sent_len[type] > 0);
	assert_int_equal(msg_parse(m0->sent[type], m0->sent_len[type], &m), 0);
	edit(&m, l);
	n = msg_build(&m, buf, FRAME_MAX);
	assert_true(n > 0);
	return (size_t) n;
}

/*
 * An E2E link whose slave (returned) is SLAVE, stopped between a Follow_Up and the next Sync:
 * nothing is pending, so what the test injects next is judged alone.
 */
static struct port *link_slave_settled(struct link *l)
{
	link_init(l, 5000.0, 10 * NS_PER_USEC, DELAY_MECHANISM_E2E);
	link_run(l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(l->s[1].port), PORT_STATE_SLAVE);
	link_run(l, l->now + NS_PER_SEC / 2);
	return l->s[1].port;
}

static void edit_seq_ahead(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId += 100;
}

static void edit_seq_back(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId -= 3;
}

static void edit_domain(struct msg *m, const struct link *l)
{
	m->hdr.domainNumber = 7;
}

static void edit_own(struct msg *m, const struct link *l)
{
	m->hdr.sourcePortIdentity = port_port_ds(l->s[1].port)->portIdentity;
}

static void edit_other_port(struct msg *m, const struct link *l)
{
	m->body.delay_resp.requestingPortIdentity.portNumber = 9;
}

static void edit_stranger(struct msg *m, const struct link *l)
{
	m->hdr.sourcePortIdentity.clockIdentity.id[3] = 0x77;
	m->hdr.sequenceId += 1;
}

static void edit_none(struct msg *m, const struct link *l)
{
}

static void edit_seq_next(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId += 1;
}

/*
 * A Follow_Up that overtook its Sync is held, and the port says it awaits that Sync (the loop
 * then reads the lazy socket at once) until the Sync comes; one too far ahead is no such thing.
 */
static void test_sync_awaited(void **state)
{
	uint8_t fup[FRAME_MAX], sync[FRAME_MAX];
	struct link l;
	size_t nf, ns;
	ns_t rx;

	link_slave_settled(&l);
	assert_false(port_sync_awaited(l.s[1].port));
	nf = forge(&l, MSG_FOLLOW_UP, fup, edit_seq_ahead);
	inject(&l, fup, nf, PORT_CNT_FOLLOW_UP_WITHOUT_SYNC);
	assert_false(port_sync_awaited(l.s[1].port));

	nf = forge(&l, MSG_FOLLOW_UP, fup, edit_seq_next);
	ns = forge(&l, MSG_SYNC, sync, edit_seq_next);
	assert_int_equal(clock_get_time(l.s[1].clk, &rx), 0);
	assert_int_equal(port_receive(l.s[1].port, fup, nf, rx, l.now), 0);
	assert_true(port_sync_awaited(l.s[1].port));
	assert_int_equal(port_receive(l.s[1].port, sync, ns, rx, l.now), 0);
	assert_false(port_sync_awaited(l.s[1].port));
	link_free(&l);
}

static void test_hostile(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct link l;
	size_t n;

	link_slave_settled(&l);

	n = forge(&l, MSG_FOLLOW_UP, buf, edit_seq_ahead);
	inject(&l, buf, n, PORT_CNT_FOLLOW_UP_WITHOUT_SYNC);
	n = forge(&l, MSG_FOLLOW_UP, buf, edit_none);
	inject(&l, buf, n, PORT_CNT_DUPLICATE_SEQUENCE);
	n = forge(&l, MSG_SYNC, buf, edit_none);
	inject(&l, buf, n, PORT_CNT_DUPLICATE_SEQUENCE);
	n = forge(&l, MSG_SYNC, buf, edit_seq_back);
	inject(&l, buf, n, PORT_CNT_STALE_SEQUENCE);
	n = forge(&l, MSG_SYNC, buf, edit_domain);
	inject(&l, buf, n, PORT_CNT_OTHER_DOMAIN);
	n = forge(&l, MSG_ANNOUNCE, buf, edit_domain);
	inject(&l, buf, n, PORT_CNT_OTHER_DOMAIN);
	n = forge(&l, MSG_SYNC, buf, edit_own);
	inject(&l, buf, n, PORT_CNT_OWN_FRAME);
	n = forge(&l, MSG_SYNC, buf, edit_stranger);
	inject(&l, buf, n, PORT_CNT_NOT_FROM_PARENT);
	n = forge(&l, MSG_DELAY_RESP, buf, edit_other_port);
	inject(&l, buf, n, PORT_CNT_DELAY_RESP_OTHER_PORT);
	n = forge(&l, MSG_DELAY_RESP, buf, edit_none);
	inject(&l, buf, n, PORT_CNT_DUPLICATE_SEQUENCE);
	/* A Delay_Req to a slave: not a master's business here. */
	n = forge(&l, MSG_SYNC, buf, edit_none);
	buf[0] = (buf[0] & 0xf0) | MSG_DELAY_REQ;
	inject(&l, buf, n, PORT_CNT_WRONG_STATE);
	/* Truncated, and a bad version. */
	n = forge(&l, MSG_ANNOUNCE, buf, edit_none);
	inject(&l, buf, 20, PORT_CNT_MALFORMED);
	buf[1] = 0x01;
	inject(&l, buf, n, PORT_CNT_MALFORMED);
	/* An event message without a timestamp. */
	n = forge(&l, MSG_SYNC, buf, edit_seq_ahead);
	assert_int_equal(port_receive(l.s[1].port, buf, n, PORT_TS_NONE, l.now), 0);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_NO_TIMESTAMP), 1);

	/* And the pair keeps working afterwards. */
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_true(llabs(link_error(&l)) < 500);
	link_free(&l);
}

static void edit_interval_fast(struct msg *m, const struct link *l)
{
	m->hdr.logMessageInterval = -30;
	m->hdr.sequenceId += 1;
}

static void edit_interval_slow(struct msg *m, const struct link *l)
{
	m->hdr.logMessageInterval = 23;
	m->hdr.sequenceId += 1;
}

/* A Delay_Resp for the Delay_Req in flight, with a logMessageInterval of -30 or 23. */
static void edit_delay_resp_pending(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId = l->s[1].port->dreq.seq;
	m->hdr.logMessageInterval = m->hdr.logMessageInterval == 0 ? -30 : 23;
}

/*
 * Issue 17 finding 1: a logMessageInterval beyond [-10, 22] (0x7F aside) sets nothing. A
 * Delay_Resp of -30 once divided by zero in port_random_interval() (SIGFPE); now it is counted
 * as out_of_range, and the Delay_Req stays pending for the real answer.
 */
static void test_interval_out_of_range(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct port *sl;
	struct link l;
	int8_t dreq_interval;
	size_t n;

	sl = link_slave_settled(&l);
	dreq_interval = port_port_ds(sl)->logMinDelayReqInterval;

	n = forge(&l, MSG_SYNC, buf, edit_interval_fast);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	n = forge(&l, MSG_SYNC, buf, edit_interval_slow);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	n = forge(&l, MSG_ANNOUNCE, buf, edit_interval_fast);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	n = forge(&l, MSG_ANNOUNCE, buf, edit_interval_slow);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	/* As if a Delay_Req were in flight: the forged answers must leave it so. */
	sl->dreq.pending = true;
	sl->dreq.stale = false;
	n = forge(&l, MSG_DELAY_RESP, buf, edit_delay_resp_pending);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	assert_true(sl->dreq.pending);
	buf[33] = 23; /* logMessageInterval is octet 33 of the header (13.3.1) */
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	assert_true(sl->dreq.pending);
	assert_int_equal(port_port_ds(sl)->logMinDelayReqInterval, dreq_interval);
	assert_int_equal(port_get_counter(sl, PORT_CNT_OUT_OF_RANGE), 6);

	/* Whatever interval reaches it, port_random_interval() stays within [0, 2 * 2^log]. */
	for (int li = INT8_MIN; li <= INT8_MAX; li++) {
		ns_t v = port_random_interval(sl, (int8_t) li);

		assert_true(v >= 0);
		assert_true(v <= 2 * port_log_interval((int8_t) li) + 1);
	}

	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(sl), PORT_STATE_SLAVE);
	assert_true(llabs(link_error(&l)) < 500);
	link_free(&l);
}

/* The largest Timestamp that converts to ns_t (timestamp_to_ns). */
#define TS_MAX_SECONDS ((uint64_t) (INT64_MAX / NS_PER_SEC) - 1)

static void edit_next(struct msg *m, const struct link *l, int ahead)
{
	m->hdr.sequenceId = (uint16_t) (l->s[1].port->sync.last_seq + ahead);
}

static void edit_sync_corr_max(struct msg *m, const struct link *l)
{
	edit_next(m, l, 1);
	m->hdr.correctionField = INT64_MAX; /* "too big to represent" */
}

static void edit_fup_next(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId = l->s[1].port->sync.seq;
}

static void edit_sync_plain_next(struct msg *m, const struct link *l)
{
	edit_next(m, l, 1);
	m->hdr.correctionField = 0;
}

static void edit_fup_t1_max(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId = l->s[1].port->sync.seq;
	m->body.follow_up.preciseOriginTimestamp.secondsField = TS_MAX_SECONDS;
	m->body.follow_up.preciseOriginTimestamp.nanosecondsField = 999999999;
	m->hdr.correctionField = -(INT64_C(1) << 62); /* -2^46 ns: still converts */
}

static void edit_one_step_extreme(struct msg *m, const struct link *l)
{
	edit_next(m, l, 1);
	m->hdr.flagField &= (uint16_t) ~MSG_FLAG_TWO_STEP;
	m->body.sync.originTimestamp.secondsField = TS_MAX_SECONDS;
	m->hdr.correctionField = INT64_MIN;
}

static void edit_delay_resp_t4_max(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId = l->s[1].port->dreq.seq;
	m->body.delay_resp.receiveTimestamp.secondsField = TS_MAX_SECONDS;
}

static void edit_delay_resp_corr_max(struct msg *m, const struct link *l)
{
	m->hdr.sequenceId = l->s[1].port->dreq.seq;
	m->hdr.correctionField = INT64_MAX;
}

/*
 * Issue 17 finding 8: extreme but valid timestamps and corrections from the parent never
 * overflow (this test runs under UBSan in the sanitizer build) and never become a sample: the
 * measurement is dropped, counted as overflow, or, for a path delay beyond a second, as
 * out_of_range. The offset reported stays what it was: never -7.4e18.
 */
static void test_extreme_times(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct port *sl;
	struct link l;
	ns_t offset, delay;
	size_t n;

	sl = link_slave_settled(&l);
	offset = port_current_ds(sl)->offsetFromMaster;
	delay = port_current_ds(sl)->meanDelay;

	/* A Sync with correctionField INT64_MAX, then its Follow_Up: the sum does not fit. */
	n = forge(&l, MSG_SYNC, buf, edit_sync_corr_max);
	inject(&l, buf, n, PORT_CNT_RX_SYNC);
	n = forge(&l, MSG_FOLLOW_UP, buf, edit_fup_next);
	inject(&l, buf, n, PORT_CNT_OVERFLOW);
	/* A Follow_Up with the largest preciseOriginTimestamp: t2 - t1 is about -7.4e18. */
	n = forge(&l, MSG_SYNC, buf, edit_sync_plain_next);
	inject(&l, buf, n, PORT_CNT_RX_SYNC);
	n = forge(&l, MSG_FOLLOW_UP, buf, edit_fup_t1_max);
	inject(&l, buf, n, PORT_CNT_OVERFLOW);
	/* One-step, the largest originTimestamp and the most negative correctionField. */
	n = forge(&l, MSG_SYNC, buf, edit_one_step_extreme);
	inject(&l, buf, n, PORT_CNT_OVERFLOW);
	assert_int_equal(port_current_ds(sl)->offsetFromMaster, offset);

	/* Delay_Resp for the Delay_Req in flight: t4 at the end of time, then correction max. */
	sl->dreq.pending = true;
	sl->dreq.stale = false;
	n = forge(&l, MSG_DELAY_RESP, buf, edit_delay_resp_t4_max);
	inject(&l, buf, n, PORT_CNT_OUT_OF_RANGE);
	sl->dreq.pending = true;
	n = forge(&l, MSG_DELAY_RESP, buf, edit_delay_resp_corr_max);
	inject(&l, buf, n, PORT_CNT_OVERFLOW);
	assert_int_equal(port_current_ds(sl)->meanDelay, delay);
	sl->dreq.pending = false;

	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(sl), PORT_STATE_SLAVE);
	assert_true(llabs(link_error(&l)) < 500);
	assert_true(l.s[1].max_abs_offset < NS_PER_MSEC);
	link_free(&l);
}

static void edit_pdelay_other(struct msg *m, const struct link *l)
{
	/* Pdelay_Resp and its Follow_Up keep requestingPortIdentity at the same place. */
	if ((m->hdr.messageType & 0x0f) == MSG_PDELAY_RESP) {
		m->body.pdelay_resp.requestingPortIdentity.portNumber = 9;
	} else {
		m->body.pdelay_resp_follow_up.requestingPortIdentity.portNumber = 9;
	}
}

/* P2P: answers for another requester, or for no request in flight, change nothing. */
static void test_hostile_p2p(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct link l;
	ns_t delay;
	size_t n;

	link_init(&l, 5000.0, 10 * NS_PER_USEC, DELAY_MECHANISM_P2P);
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	link_run(&l, l.now + NS_PER_SEC / 2);
	delay = port_port_ds(l.s[1].port)->meanLinkDelay;

	n = forge(&l, MSG_PDELAY_RESP, buf, edit_pdelay_other);
	inject(&l, buf, n, PORT_CNT_PDELAY_OTHER_PORT);
	n = forge(&l, MSG_PDELAY_RESP_FOLLOW_UP, buf, edit_pdelay_other);
	inject(&l, buf, n, PORT_CNT_PDELAY_OTHER_PORT);
	/* The last exchange replayed: its request is answered already. */
	n = forge(&l, MSG_PDELAY_RESP, buf, edit_none);
	inject(&l, buf, n, PORT_CNT_DUPLICATE_SEQUENCE);
	n = forge(&l, MSG_PDELAY_RESP, buf, edit_seq_back);
	inject(&l, buf, n, PORT_CNT_STALE_SEQUENCE);
	assert_int_equal(port_port_ds(l.s[1].port)->meanLinkDelay, delay);
	/* E2E messages on a P2P port. */
	n = forge(&l, MSG_SYNC, buf, edit_none);
	buf[0] = (buf[0] & 0xf0) | MSG_DELAY_REQ;
	inject(&l, buf, n, PORT_CNT_WRONG_STATE);

	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_true(llabs(link_error(&l)) < 500);
	link_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_hostile_p2p),
		cmocka_unit_test(test_interval_out_of_range),
		cmocka_unit_test(test_extreme_times),
		cmocka_unit_test(test_sync_awaited),
	};

	if (getenv("TEST_PORT_FILTER")) {
		cmocka_set_test_filter(getenv("TEST_PORT_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
