/* The port engine end to end, its states: time properties, a master lost, supervised decisions,
 * priorities. */
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

/* The master's time properties (UTC offset, leap flags) end up in the slave's timePropertiesDS. */
static void test_time_properties(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct link l;
	struct msg m;
	ssize_t n;

	link_init(&l, 0.0, 0, DELAY_MECHANISM_E2E);
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_false(port_time_properties_ds(l.s[1].port)->leap61);

	assert_int_equal(msg_parse(l.s[0].sent[MSG_ANNOUNCE], l.s[0].sent_len[MSG_ANNOUNCE], &m),
			 0);
	m.hdr.sequenceId++;
	m.hdr.flagField |= MSG_FLAG_LEAP_61 | MSG_FLAG_CURRENT_UTC_OFFSET_VALID;
	m.body.announce.currentUtcOffset = 38;
	n = msg_build(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(port_receive(l.s[1].port, buf, (size_t) n, PORT_TS_NONE, l.now), 0);
	assert_true(port_time_properties_ds(l.s[1].port)->leap61);
	assert_true(port_time_properties_ds(l.s[1].port)->currentUtcOffsetValid);
	assert_int_equal(port_time_properties_ds(l.s[1].port)->currentUtcOffset, 38);

	/* Under a supervisor the same properties travel with Erbest, before any state decision. */
	{
		struct bmca_dataset ds;
		struct timePropertiesDS tp = { 0 };

		assert_int_equal(port_get_erbest(l.s[1].port, l.now, &ds, &tp, NULL), 0);
		assert_true(tp.leap61);
		assert_true(tp.currentUtcOffsetValid);
		assert_int_equal(tp.currentUtcOffset, 38);
	}
	link_free(&l);
}

/* The master goes away: the slave takes over after the announce receipt timeout. */
static void test_master_disappears(void **state)
{
	const struct port_options *o;
	struct link l;
	ns_t lost, timeout;

	link_init(&l, 0.0, 0, DELAY_MECHANISM_E2E);
	link_run(&l, START + 40 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	o = &l.s[1].port->cfg.port;
	timeout = o->announceReceiptTimeout * ds_log_interval_to_ns(o->logAnnounceInterval);

	l.s[0].mute = true;
	lost = l.now;
	while (port_get_state(l.s[1].port) != PORT_STATE_MASTER) {
		link_run(&l, l.now + NS_PER_MSEC * 10);
		if (l.now - lost > 2 * timeout) {
			fail_msg("still %s %lld ms after the master went silent, expected MASTER",
				 port_state_to_string(port_get_state(l.s[1].port)),
				 (long long) ((l.now - lost) / NS_PER_MSEC));
		}
	}
	/* Within the timeout plus one announce interval (the last Announce came before `lost`). */
	assert_true(l.now - lost <= timeout + ds_log_interval_to_ns(o->logAnnounceInterval));
	/* It now announces itself as grandmaster. */
	assert_true(clock_identity_equal(&port_parent_ds(l.s[1].port)->grandmasterIdentity,
					 &port_default_ds(l.s[1].port)->clockIdentity));

	/* The old master comes back: being better, it wins again. */
	l.s[0].mute = false;
	link_run(&l, l.now + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[0].port), PORT_STATE_MASTER);
	assert_true(port_is_slave(l.s[1].port));
	link_free(&l);
}

/*
 * What phcd does for a supervised port (daemon/instance.c), over this one port: Erbest in, the
 * clock-level decision, the decision and the clock's data sets back.
 */
static void supervise(struct side *s, ns_t now)
{
	struct bmca_clock_port cp = { .state = port_get_state(s->port) };
	const struct timePropertiesDS own_tp = { .currentUtcOffset = 37, .timeSource = 0xA0 };
	struct bmca_clock_decision dec;
	struct bmca_clock_result res;

	struct port_path_trace path;

	cp.has_erbest = port_get_erbest(s->port, now, &cp.erbest, &cp.erbest_tp, &path) == 0;
	bmca_clock_decide(port_default_ds(s->port), &own_tp, &cp, 1, &dec, &res);
	(void) port_apply_decision(s->port, dec.decision, res.cds.stepsRemoved, &res.pds, &res.tp,
				   &path, now);
}

/* Side 1 supervised, the supervisor deciding every 10 ms (it hears of changes at once). */
static void run_supervised(struct link *l, ns_t until)
{
	while (l->now < until) {
		ns_t next = l->now + 10 * NS_PER_MSEC;

		link_run(l, next < until ? next : until);
		supervise(&l->s[1], l->now);
	}
}

static void link_init_supervised(struct link *l)
{
	memset(l, 0, sizeof(*l));
	l->now = START;
	l->external[1] = true;
	side_init(l, 0, 100, 0.0, 0, DELAY_MECHANISM_E2E);
	side_init(l, 1, 200, 0.0, 0, DELAY_MECHANISM_E2E);
	l->s[1].check_gm = true;
	l->s[1].expect_gm = port_default_ds(l->s[1].port)->clockIdentity;
	assert_int_equal(port_start(l->s[0].port, l->now), 0);
	assert_int_equal(port_start(l->s[1].port, l->now), 0);
}

/*
 * A supervised port sends no Announce before the supervisor's decision brought the clock's
 * parent data set, even once its receipt timeout made it MASTER; the decision's first Announce
 * goes out at once and names the grandmaster decided.
 */
static void test_supervised_no_announce_before_decision(void **state)
{
	struct side *s;
	struct link l;
	struct msg m;

	link_init_supervised(&l);
	s = &l.s[1];
	l.s[0].mute = true;
	link_run(&l, START + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_MASTER);
	assert_false(port_has_parent_data_sets(s->port));
	/* expected: no Announce at all (it would name a parent nobody chose) */
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_ANNOUNCE), 0);
	assert_int_equal(s->announces, 0);
	/* Before any decision the data sets name the clock itself (8.2.3), never zeros. */
	assert_true(
		clock_identity_equal(&port_parent_ds(s->port)->grandmasterIdentity, &s->expect_gm));

	supervise(s, l.now);
	assert_true(port_has_parent_data_sets(s->port));
	assert_int_equal(port_tick(s->port, l.now), 0);
	assert_int_equal(port_get_counter(s->port, PORT_CNT_TX_ANNOUNCE), 1);
	assert_int_equal(msg_parse(s->sent[MSG_ANNOUNCE], s->sent_len[MSG_ANNOUNCE], &m), 0);
	assert_true(clock_identity_equal(&m.body.announce.grandmasterIdentity, &s->expect_gm));
	assert_int_equal(m.body.announce.grandmasterPriority1, 200);
	assert_int_equal(m.body.announce.stepsRemoved, 0);
	assert_int_equal(s->announces_other_gm, 0);
	link_free(&l);
}

/*
 * Side 1 supervised but not yet decided for: run until it holds a qualified Erbest and has just
 * heard a whole two-step Sync from it (Sync and Follow_Up, counted wrong_state: not a slave).
 */
static void run_until_sync_heard(struct link *l)
{
	struct timePropertiesDS tp;
	struct bmca_dataset e;

	for (int i = 0; i < 20000; i++) {
		uint64_t before = port_get_counter(l->s[1].port, PORT_CNT_WRONG_STATE);

		link_run(l, l->now + NS_PER_MSEC);
		if (port_get_erbest(l->s[1].port, l->now, &e, &tp, NULL) == 0 &&
		    port_get_counter(l->s[1].port, PORT_CNT_WRONG_STATE) >= before + 2) {
			return;
		}
	}
	fail_msg("no Erbest and Sync heard within 20 s");
}

/*
 * The supervisor decides a few ms after the Announce that qualified the master; the Sync sent
 * with it came in between. That Sync is measured once the decision names its sender as parent
 * (before: the first sample waited for the next Sync, one interval later), with the offset it
 * had; a Sync more than half an interval old is not (the next one is as near).
 */
static void sync_heard(ns_t wait, bool expect_sample)
{
	struct link l;
	ns_t offset = 2 * NS_PER_MSEC;

	memset(&l, 0, sizeof(l));
	l.now = START;
	l.external[1] = true;
	side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_E2E);
	side_init(&l, 1, 200, 0.0, offset, DELAY_MECHANISM_E2E);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	run_until_sync_heard(&l);
	link_run(&l, l.now + wait);
	supervise(&l.s[1], l.now);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_UNCALIBRATED);
	/* The Delay_Req goes at once; its answer brings the path delay, and the sample. */
	link_run(&l, l.now + 20 * NS_PER_MSEC);
	if (!expect_sample) {
		if (l.s[1].samples) {
			fail_msg("a sample 20 ms after the decision from a Sync heard %lld ms "
				 "before "
				 "it, expected none (older than half the interval)",
				 (long long) (wait / NS_PER_MSEC));
		}
		link_free(&l);
		return;
	}
	if (l.s[1].samples != 1) {
		fail_msg("%u samples 20 ms after the decision, expected 1: the Sync heard %lld ms "
			 "before it",
			 l.s[1].samples, (long long) (wait / NS_PER_MSEC));
	}
	if (llabs(llabs(l.s[1].last.offset) - offset) > NS_PER_USEC) {
		fail_msg("offset %lld ns from the Sync heard, expected %lld ns within 1 us",
			 (long long) l.s[1].last.offset, (long long) offset);
	}
	assert_true(llabs(l.s[1].last.mean_path_delay - LINK_DELAY) < 200);
	/* The next Sync is taken as the next: no sequence complaint, on to SLAVE. */
	link_run(&l, l.now + 5 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_DUPLICATE_SEQUENCE), 0);
	link_free(&l);
}

static void test_supervised_sync_heard_measured(void **state)
{
	sync_heard(5 * NS_PER_MSEC, true);
}

static void test_supervised_sync_heard_stale(void **state)
{
	sync_heard(600 * NS_PER_MSEC, false);
}

/*
 * syncReceiptTimeout 3: with Sync lost and Announce still coming, the slave leaves SLAVE for
 * LISTENING within 3 Sync intervals (plus the one in flight), its servo in holdover; it does not
 * get back to SLAVE without Sync, and does once Sync comes back.
 */
static void test_sync_receipt_timeout(void **state)
{
	struct link l;
	ns_t lost, interval = NS_PER_SEC;
	bool slave_again = false;

	memset(&l, 0, sizeof(l));
	l.now = START;
	l.sync_rx_timeout = 3;
	side_init(&l, 0, 100, 0.0, 0, DELAY_MECHANISM_E2E);
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_E2E);
	assert_int_equal(port_start(l.s[0].port, l.now), 0);
	assert_int_equal(port_start(l.s[1].port, l.now), 0);
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	assert_int_equal(port_servo_state(l.s[1].port), SERVO_LOCKED);

	l.drop_sync = true;
	lost = l.now;
	while (port_get_state(l.s[1].port) == PORT_STATE_SLAVE) {
		link_run(&l, l.now + NS_PER_MSEC * 10);
		if (l.now - lost > 4 * interval) {
			fail_msg(
				"still SLAVE %lld ms after Sync stopped, expected LISTENING within "
				"syncReceiptTimeout 3 intervals plus one",
				(long long) ((l.now - lost) / NS_PER_MSEC));
		}
	}
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_LISTENING);
	assert_int_equal(port_servo_state(l.s[1].port), SERVO_HOLDOVER);
	for (int i = 0; i < 100; i++) {
		link_run(&l, l.now + 100 * NS_PER_MSEC);
		if (port_get_state(l.s[1].port) == PORT_STATE_SLAVE) {
			fail_msg("SLAVE again %d ms after the timeout without a Sync", i * 100);
		}
	}
	l.drop_sync = false;
	for (int i = 0; i < 300 && !slave_again; i++) {
		link_run(&l, l.now + 100 * NS_PER_MSEC);
		slave_again = port_get_state(l.s[1].port) == PORT_STATE_SLAVE;
	}
	assert_true(slave_again);
	link_free(&l);
}

/*
 * MASTER -> SLAVE -> MASTER under a supervisor: once its grandmaster fell silent the port never
 * announces that dead grandmaster; it waits for the decision and names itself.
 */
static void test_supervised_master_slave_master(void **state)
{
	const struct ClockIdentity *gm0;
	struct side *s;
	struct link l;
	unsigned before;

	link_init_supervised(&l);
	s = &l.s[1];
	gm0 = &port_default_ds(l.s[0].port)->clockIdentity;
	l.s[0].mute = true;
	run_supervised(&l, START + 10 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_MASTER);
	assert_true(s->announces > 0);
	assert_int_equal(s->announces_other_gm, 0);

	/* The better grandmaster (priority1 100) appears: SLAVE, following it. */
	l.s[0].mute = false;
	s->check_gm = false;
	run_supervised(&l, l.now + 10 * NS_PER_SEC);
	assert_true(port_is_slave(s->port));
	assert_true(clock_identity_equal(&port_parent_ds(s->port)->grandmasterIdentity, gm0));
	assert_int_equal(port_current_ds(s->port)->stepsRemoved, 1);
	assert_int_equal(port_parent_ds(s->port)->observedParentClockPhaseChangeRate, 0x7FFFFFFF);

	/* It goes silent: MASTER again, and every Announce from now names this clock. */
	l.s[0].mute = true;
	s->check_gm = true;
	before = s->announces;
	run_supervised(&l, l.now + 15 * NS_PER_SEC);
	assert_int_equal(port_get_state(s->port), PORT_STATE_MASTER);
	assert_true(s->announces > before);
	if (s->announces_other_gm) {
		fail_msg("%u of %u Announces after the grandmaster fell silent named another "
			 "grandmaster, expected none",
			 s->announces_other_gm, s->announces - before);
	}
	link_free(&l);
}

/*
 * Every Follow_Up overtakes its Sync by 20 us: each is held until its Sync comes and paired
 * then, so the slave locks and measures every Sync, as linuxptp does.
 */
static void test_follow_up_before_sync(void **state)
{
	struct link l;
	unsigned before;

	link_init(&l, 0.0, 0, DELAY_MECHANISM_E2E);
	l.sync_late = 20 * NS_PER_USEC;
	link_run(&l, START + 60 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_SLAVE);
	before = l.s[1].samples;
	link_run(&l, l.now + 30 * NS_PER_SEC);
	/* One Sync a second: every one measured (one may be in flight at either end). */
	assert_true(l.s[1].samples - before >= 29);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_FOLLOW_UP_WITHOUT_SYNC), 0);
	assert_int_equal(port_get_counter(l.s[1].port, PORT_CNT_DUPLICATE_SEQUENCE), 0);
	link_free(&l);
}

/*
 * port_set_priorities() in place: the grandmaster (priority1 100) drops to 250, announces it at
 * once, and the BMCA turns round without restarting either port: the other side (200) becomes
 * MASTER and the first one its SLAVE.
 */
static void test_set_priorities(void **state)
{
	struct link l;
	struct msg m;
	uint64_t announces;
	ns_t t0;

	link_init(&l, 0.0, 0, DELAY_MECHANISM_E2E);
	link_run(&l, START + 20 * NS_PER_SEC);
	assert_int_equal(port_get_state(l.s[0].port), PORT_STATE_MASTER);
	assert_true(port_is_slave(l.s[1].port));

	announces = port_get_counter(l.s[0].port, PORT_CNT_TX_ANNOUNCE);
	assert_int_equal(port_set_priorities(l.s[0].port, 250, 129, l.now), 0);
	assert_int_equal(port_default_ds(l.s[0].port)->priority1, 250);
	assert_int_equal(port_default_ds(l.s[0].port)->priority2, 129);
	/* 9.3.5 Table 27: the grandmaster's parentDS carries its own priorities. */
	assert_int_equal(port_parent_ds(l.s[0].port)->grandmasterPriority1, 250);
	/* The next Announce goes out at once and says so. */
	assert_int_equal(port_tick(l.s[0].port, l.now), 0);
	assert_int_equal(port_get_counter(l.s[0].port, PORT_CNT_TX_ANNOUNCE), announces + 1);
	assert_int_equal(msg_parse(l.s[0].sent[MSG_ANNOUNCE], l.s[0].sent_len[MSG_ANNOUNCE], &m),
			 0);
	assert_int_equal(m.body.announce.grandmasterPriority1, 250);
	assert_int_equal(m.body.announce.grandmasterPriority2, 129);

	t0 = l.now;
	while (port_get_state(l.s[0].port) != PORT_STATE_SLAVE &&
	       port_get_state(l.s[0].port) != PORT_STATE_UNCALIBRATED) {
		link_run(&l, l.now + 10 * NS_PER_MSEC);
		if (l.now - t0 > 20 * NS_PER_SEC) {
			fail_msg("20 s after priority1 250: expected side 0 SLAVE, side 1 MASTER; "
				 "got "
				 "%s, %s",
				 port_state_to_string(port_get_state(l.s[0].port)),
				 port_state_to_string(port_get_state(l.s[1].port)));
		}
	}
	assert_int_equal(port_get_state(l.s[1].port), PORT_STATE_MASTER);
	assert_true(clock_identity_equal(&port_parent_ds(l.s[0].port)->grandmasterIdentity,
					 &port_default_ds(l.s[1].port)->clockIdentity));
	link_free(&l);
}

/*
 * The periodic state decision allows half an Announce interval of slack: port_next_deadline (when
 * the loop must wake up) is that much after port_next_due (when port_tick has work), so that a
 * wakeup a frame brings runs it instead of a wakeup of its own. The receipt timeout has none.
 */
static void test_state_decision_slack(void **state)
{
	struct link l;
	struct port *p;
	ns_t interval, timeout, t0;

	memset(&l, 0, sizeof(l));
	l.now = START;
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_E2E);
	p = l.s[1].port;
	interval = ds_log_interval_to_ns(p->cfg.port.logAnnounceInterval);
	timeout = p->cfg.port.announceReceiptTimeout * interval;
	assert_int_equal(port_start(p, l.now), 0);
	assert_int_equal(port_get_state(p), PORT_STATE_LISTENING);
	t0 = l.now;
	assert_int_equal(port_next_due(p), t0 + interval);
	assert_int_equal(port_next_deadline(p), t0 + interval + interval / 2);
	/* Woken by a frame a little after it is due: it runs, the next one a period after. */
	assert_int_equal(port_tick(p, t0 + interval + interval / 4), 0);
	assert_int_equal(port_next_due(p), t0 + 2 * interval);
	assert_int_equal(port_next_deadline(p), t0 + 2 * interval + interval / 2);
	/* Nothing woke us: the loop's own wakeup at the deadline runs it. */
	assert_int_equal(port_tick(p, t0 + 2 * interval + interval / 2), 0);
	assert_int_equal(port_next_due(p), t0 + 3 * interval);
	/* The receipt timeout (no master heard, 3 intervals) keeps its time: no slack. */
	assert_true(timeout < 3 * interval + interval / 2);
	assert_int_equal(port_next_deadline(p), t0 + timeout);
	port_free(p);
	clock_free(l.s[1].clk);
}

/*
 * A slave's Delay_Req may wait up to two Sync intervals for a Follow_Up's wakeup (over L2 every
 * other Follow_Up wakes the worker at 4 Syncs a second or more), when two are at most a quarter of
 * the mean Delay_Req interval; otherwise it keeps its time. So may the state decision, up to two
 * and a half. Over UDP, where every Follow_Up wakes the worker, one Sync interval as before.
 */
static void test_timer_slack_fast_sync(void **state)
{
	static const struct {
		int8_t log_sync, log_dreq;
		ns_t slack;
	} cases[] = {
		{ -3, 0, NS_PER_SEC / 4 },
		{ -4, 0, NS_PER_SEC / 8 },
		{ -7, -4, NS_PER_SEC / 64 },
		{ -2, 0, 0 },
		{ -3, -1, 0 },
		{ 0, 0, 0 },
	};
	static const struct {
		int8_t log_sync, log_announce;
		ns_t slack;
	} bmca[] = {
		{ -3, -2, NS_PER_SEC / 8 * 5 / 2 }, { -3, 0, NS_PER_SEC / 2 },
		{ -2, -2, NS_PER_SEC / 8 * 3 },	    { -1, -2, NS_PER_SEC / 8 },
		{ -7, -3, NS_PER_SEC / 16 },
	};
	struct link l;
	struct port *p;

	memset(&l, 0, sizeof(l));
	l.now = START;
	side_init(&l, 1, 200, 0.0, 0, DELAY_MECHANISM_E2E);
	p = l.s[1].port;
	assert_int_equal(port_start(p, l.now), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		p->portds.logSyncInterval = cases[i].log_sync;
		p->portds.logMinDelayReqInterval = cases[i].log_dreq;
		port_timer_set(p, PORT_TIMER_DELAY_REQ_TX, l.now + NS_PER_MSEC);
		assert_int_equal(port_next_due(p), l.now + NS_PER_MSEC);
		assert_int_equal(port_next_deadline(p), l.now + NS_PER_MSEC + cases[i].slack);
	}
	/*
	 * The state decision at 4 Syncs a second or more: up to two and a half Sync intervals if
	 * that is more than half an Announce interval, at most one and a half of those.
	 */
	port_timer_stop(p, PORT_TIMER_DELAY_REQ_TX);
	for (size_t i = 0; i < ARRAY_SIZE(bmca); i++) {
		ns_t due = p->timer[PORT_TIMER_BMCA];

		p->portds.logSyncInterval = bmca[i].log_sync;
		p->cfg.port.logAnnounceInterval = bmca[i].log_announce;
		assert_int_equal(port_next_due(p), due);
		assert_int_equal(port_next_deadline(p), due + bmca[i].slack);
	}
	/* Over UDP every Follow_Up wakes the worker: a Sync interval, and half an Announce one. */
	p->cfg.port.network_transport = OPTIONS_TRANSPORT_UDPV4;
	p->portds.logSyncInterval = -3;
	p->cfg.port.logAnnounceInterval = -2;
	assert_int_equal(port_next_deadline(p), p->timer[PORT_TIMER_BMCA] + NS_PER_SEC / 8);
	port_timer_set(p, PORT_TIMER_DELAY_REQ_TX, l.now + NS_PER_MSEC);
	p->portds.logMinDelayReqInterval = 0;
	assert_int_equal(port_next_deadline(p), l.now + NS_PER_MSEC + NS_PER_SEC / 8);
	port_free(p);
	clock_free(l.s[1].clk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_properties),
		cmocka_unit_test(test_master_disappears),
		cmocka_unit_test(test_sync_receipt_timeout),
		cmocka_unit_test(test_follow_up_before_sync),
		cmocka_unit_test(test_set_priorities),
		cmocka_unit_test(test_state_decision_slack),
		cmocka_unit_test(test_timer_slack_fast_sync),
		cmocka_unit_test(test_supervised_no_announce_before_decision),
		cmocka_unit_test(test_supervised_master_slave_master),
		cmocka_unit_test(test_supervised_sync_heard_measured),
		cmocka_unit_test(test_supervised_sync_heard_stale),
	};

	if (getenv("TEST_PORT_FILTER")) {
		cmocka_set_test_filter(getenv("TEST_PORT_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
