// SPDX-License-Identifier: GPL-2.0-or-later
/* The link of tests/unit/port-link.h: frames queued in memory, delivered in time order. */
#include <errno.h>
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

#include "tests/unit/l2-filter-run.h"
#include "tests/unit/port-link.h"

/* Re-encode a frame with its correctionField increased by ns. */
static size_t add_correction(uint8_t *buf, size_t len, ns_t ns)
{
	struct msg m;
	ssize_t n;

	assert_int_equal(msg_parse(buf, len, &m), 0);
	m.hdr.correctionField += ns_to_correction(ns);
	n = msg_build(&m, buf, FRAME_MAX);
	assert_true(n > 0);
	return (size_t) n;
}

static void enqueue(struct link *l, int to, ns_t at, const void *buf, size_t len)
{
	struct frame *f;

	assert_true(l->nq < QUEUE_MAX);
	assert_true(len <= FRAME_MAX);
	f = &l->q[l->nq++];
	f->to = to;
	f->at = at;
	f->len = len;
	memcpy(f->buf, buf, len);
}

static int fake_send(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
		     ns_t *ret_tx_ts)
{
	struct side *s = userdata;
	struct link *l = s->link;
	uint8_t copy[FRAME_MAX];
	unsigned type = ((const uint8_t *) buf)[0] & 0x0f;
	ns_t delay = LINK_DELAY;

	if (event) {
		assert_int_equal(clock_get_time(s->clk, ret_tx_ts), 0);
	}
	assert_true(len <= FRAME_MAX);
	memcpy(s->sent[type], buf, len);
	s->sent_len[type] = len;
	if (type == MSG_ANNOUNCE && s->check_gm) {
		struct msg m;

		assert_int_equal(msg_parse(buf, len, &m), 0);
		s->announces++;
		if (!clock_identity_equal(&m.body.announce.grandmasterIdentity, &s->expect_gm)) {
			s->announces_other_gm++;
		}
	}
	if (s->mute) {
		return (int) len;
	}
	if (l->drop_sync && type == MSG_SYNC) {
		return (int) len;
	}
	if (l->drop_pdelay_resp && s->idx == 0 &&
	    (type == MSG_PDELAY_RESP || type == MSG_PDELAY_RESP_FOLLOW_UP)) {
		return (int) len;
	}
	if (l->dup_pdelay_resp && s->idx == 0 && type == MSG_PDELAY_RESP) {
		struct msg m;
		uint8_t other[FRAME_MAX];
		ssize_t n;

		/* The same answer from another responder (another clockIdentity). */
		assert_int_equal(msg_parse(buf, len, &m), 0);
		m.hdr.sourcePortIdentity.clockIdentity.id[6] ^= 0x5a;
		n = msg_build(&m, other, sizeof(other));
		assert_true(n > 0);
		enqueue(l, !s->idx, l->now + delay + 100, other, (size_t) n);
	}
	memcpy(copy, buf, len);
	if (type == MSG_SYNC) {
		delay += l->sync_late;
	}
	if (type == MSG_SYNC) {
		l->tx_sync++;
	} else if (type == MSG_DELAY_REQ) {
		l->tx_dreq++;
	}
	if ((l->once_sync && l->tx_sync == l->once_sync &&
	     (type == MSG_SYNC || type == MSG_FOLLOW_UP)) ||
	    (l->once_dreq && l->tx_dreq == l->once_dreq && type == MSG_DELAY_REQ)) {
		delay += l->once_late;
	}
	if (l->spike_every && (type == MSG_SYNC || type == MSG_FOLLOW_UP) &&
	    (l->tx_sync + l->spike_phase) % l->spike_every == 0) {
		delay += l->spike;
	}
	if (l->sync_jitter && type == MSG_SYNC) {
		l->rng = l->rng * 6364136223846793005ULL + 1442695040888963407ULL;
		l->late = (ns_t) ((l->rng >> 33) % (uint64_t) l->sync_jitter);
	}
	if (l->sync_jitter && (type == MSG_SYNC || type == MSG_FOLLOW_UP)) {
		delay += l->late;
	}
	if (l->asymmetry && (type == MSG_SYNC || type == MSG_FOLLOW_UP)) {
		delay += l->asymmetry;
	} else if (l->asymmetry && type == MSG_DELAY_REQ) {
		delay -= l->asymmetry;
	}
	if (l->residence) {
		if (type == MSG_SYNC) {
			delay += l->residence;
		} else if (type == MSG_FOLLOW_UP || type == MSG_DELAY_REQ) {
			delay += l->residence;
			len = add_correction(copy, len, l->residence);
		}
	}
	enqueue(l, !s->idx, l->now + delay, copy, len);
	return (int) len;
}

void side_address(bool mac, int idx, struct port_address *ret)
{
	if (mac) {
		*ret = (struct port_address){ 6, { 0x02, 0, 0, 0, 0, (uint8_t) (idx + 1) } };
	} else {
		*ret = (struct port_address){ 4, { 192, 0, 2, (uint8_t) (idx + 1) } };
	}
}

static int fake_send_group(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
			   ns_t *ret_tx_ts)
{
	struct side *s = userdata;
	struct msg m;

	assert_int_equal(msg_parse(buf, len, &m), 0);
	if (msg_flag(&m.hdr, MSG_FLAG_UNICAST)) {
		s->group_flagged_tx[m.hdr.messageType]++;
	}
	return fake_send(userdata, buf, len, pdelay, event, ret_tx_ts);
}

/* To the other side, the only peer there is; counted, with the address checked. */
static int fake_send_unicast(void *userdata, const void *buf, size_t len,
			     const struct port_address *to, bool event, ns_t *ret_tx_ts)
{
	struct side *s = userdata;
	struct port_address other;
	struct msg m;

	if (s->refuse_unicast) {
		return -ENOTCONN;
	}
	side_address(s->link->mac, !s->idx, &other);
	if (to->len != other.len || memcmp(to->bytes, other.bytes, other.len)) {
		s->unicast_misaddressed++;
	}
	assert_int_equal(msg_parse(buf, len, &m), 0);
	assert_true(msg_flag(&m.hdr, MSG_FLAG_UNICAST));
	s->unicast_tx[m.hdr.messageType]++;
	s->last_unicast_interval[m.hdr.messageType] = m.hdr.logMessageInterval;
	return fake_send(userdata, buf, len, false, event, ret_tx_ts);
}

static void fake_sample(void *userdata, const struct port_sample *smp)
{
	struct side *s = userdata;

	s->samples++;
	s->last = *smp;
	if (llabs(smp->offset) > s->max_abs_offset) {
		s->max_abs_offset = llabs(smp->offset);
	}
	if (getenv("TEST_PORT_VERBOSE")) {
		printf("%d: t=%.3f offset %lld s%d freq %+.0f delay %lld err %lld\n", s->idx,
		       (double) (s->link->now - START) / 1e9, (long long) smp->offset,
		       smp->servo_state, smp->freq_ppb, (long long) smp->mean_path_delay,
		       (long long) (clock_sim_error(s->link->s[1].clk) -
				    clock_sim_error(s->link->s[0].clk)));
	}
}

static void fake_state(void *userdata, enum port_state from, enum port_state to, enum fsm_event why)
{
	struct side *s = userdata;

	if (getenv("TEST_PORT_VERBOSE")) {
		printf("%d: t=%.3f %s -> %s on %s\n", s->idx, (double) (s->link->now - START) / 1e9,
		       port_state_to_string(from), port_state_to_string(to),
		       fsm_event_to_string(why));
	}
}

static const struct port_ops fake_ops = {
	.send = fake_send_group,
	.send_unicast = fake_send_unicast,
	.sample = fake_sample,
	.state_changed = fake_state,
};

void side_init(struct link *l, int idx, uint8_t priority1, double freq_error_ppb, ns_t offset,
	       enum delay_mechanism dm)
{
	struct side *s = &l->s[idx];
	struct clock_sim_config cc = {
		.start = START,
		.freq_error_ppb = freq_error_ppb,
		.noise_ns = 20,
		.seed = 42 + idx,
	};
	struct port_config pc;

	s->link = l;
	s->idx = idx;
	assert_int_equal(clock_sim_new(&cc, &s->clk), 0);
	if (offset) {
		assert_int_equal(clock_step(s->clk, offset), 0);
	}
	port_config_default(&pc);
	pc.instance.priority1 = priority1;
	pc.port.delay_mechanism = dm;
	pc.clockIdentity.id[0] = 0x02;
	pc.clockIdentity.id[7] = (uint8_t) (idx + 1);
	pc.seed = (uint64_t) idx + 7;
	/* Master side (idx 0) never adjusts its clock: it is the reference. */
	pc.adjust_clock = idx != 0 && !l->slave_free;
	pc.external_bmca = l->external[idx];
	if (l->log_sync) {
		pc.port.logSyncInterval = l->log_sync;
	}
	pc.instance.servo.clock_servo = l->servo;
	if (idx == 1) {
		pc.port.syncReceiptTimeout = l->sync_rx_timeout;
	}
	if (l->tweak) {
		l->tweak(idx, &pc);
	}
	assert_int_equal(port_new(&pc, s->clk, &fake_ops, s, &s->port), 0);
}

void link_init_servo(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm,
		     bool slave_free, int8_t log_sync, enum servo_type servo)
{
	memset(l, 0, sizeof(*l));
	l->servo = servo;
	l->now = START;
	l->slave_free = slave_free;
	l->log_sync = log_sync;
	side_init(l, 0, 100, master_ppb, 0, dm);
	side_init(l, 1, 200, 0.0, slave_offset, dm);
	assert_int_equal(port_start(l->s[0].port, l->now), 0);
	assert_int_equal(port_start(l->s[1].port, l->now), 0);
}

void link_init_free(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm,
		    bool slave_free, int8_t log_sync)
{
	link_init_servo(l, master_ppb, slave_offset, dm, slave_free, log_sync, SERVO_TYPE_PI);
}

void link_init(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm)
{
	link_init_free(l, master_ppb, slave_offset, dm, false, 0);
}

void link_free(struct link *l)
{
	for (int i = 0; i < 2; i++) {
		port_free(l->s[i].port);
		clock_free(l->s[i].clk);
	}
	if (l->lazy_filter_open) {
		l2_filter_close(l->lazy_filter);
		l->lazy_filter_open = false;
	}
}

static void advance(struct link *l, ns_t to)
{
	ns_t dt = to - l->now;

	assert_true(dt >= 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(clock_sim_advance(l->s[i].clk, dt), 0);
	}
	l->now = to;
}

/* What the lazy socket's filter takes, as the kernel runs it (an Ethernet header put before). */
static bool lazy_frame(struct link *l, const struct frame *f)
{
	uint8_t eth[14 + FRAME_MAX] = { 0 };

	if (!l->lazy_filter_open) {
		l2_filter_open(true, l->lazy_filter);
		l->lazy_filter_open = true;
	}
	memcpy(eth + 14, f->buf, f->len);
	return l2_filter_keeps(l->lazy_filter, eth, 14 + f->len);
}

/* Side 1's lazy socket is read by the worker (not polled): SLAVE (worker/port-loop.c). */
static bool lazy_unpolled(const struct link *l)
{
	enum port_state st = port_get_state(l->s[1].port);

	return l->lazy && st == PORT_STATE_SLAVE && !port_sync_awaited(l->s[1].port);
}

/* What waits on side 1's lazy socket, in the order it came, at this turn. */
static void deliver_held(struct link *l)
{
	struct port_address from;

	side_address(l->mac, 0, &from);
	for (size_t i = 0; i < l->nheld; i++) {
		port_receive_from(l->s[1].port, l->held[i].buf, l->held[i].len, l->held_rx[i],
				  &from, l->now);
	}
	l->nheld = 0;
}

/* Deliver the frames due (in the order sent) and run the timers due, until `until`. */
void link_run(struct link *l, ns_t until)
{
	for (;;) {
		ns_t next = INT64_MAX;
		size_t i, k;

		for (i = 0; i < 2; i++) {
			ns_t d = port_next_deadline(l->s[i].port);
			next = d < next ? d : next;
		}
		for (i = 0; i < l->nq; i++) {
			next = l->q[i].at < next ? l->q[i].at : next;
		}
		if (next > until) {
			advance(l, until);
			return;
		}
		advance(l, next > l->now ? next : l->now);
		for (i = 0, k = 0; i < l->nq; i++) {
			struct frame f = l->q[i];
			struct side *s = &l->s[f.to];
			struct port_address from;
			ns_t rx;

			if (f.at > l->now) {
				l->q[k++] = f;
				continue;
			}
			assert_int_equal(clock_get_time(s->clk, &rx), 0);
			if (f.to == 1 && lazy_unpolled(l) && lazy_frame(l, &f)) {
				assert_true(l->nheld < QUEUE_MAX);
				l->held_total++;
				l->held_rx[l->nheld] = rx;
				l->held[l->nheld++] = f;
				continue;
			}
			if (f.to == 1) {
				deliver_held(l);
			}
			side_address(l->mac, !f.to, &from);
			port_receive_from(s->port, f.buf, f.len, rx, &from, l->now);
		}
		/* Frames sent while delivering were appended after i; keep them. */
		l->nq = k;
		if (l->nheld && (!lazy_unpolled(l) || port_next_due(l->s[1].port) <= l->now)) {
			/* polled again, or a timer's turn: it reads the lazy socket first */
			deliver_held(l);
		}
		for (i = 0; i < 2; i++) {
			port_tick(l->s[i].port, l->now);
		}
	}
}

/* The slave's clock minus the master's, exactly (no noise). */
ns_t link_error(const struct link *l)
{
	return clock_sim_error(l->s[1].clk) - clock_sim_error(l->s[0].clk);
}

void assert_no_hostile(const struct side *s)
{
	for (int c = PORT_CNT_IGNORED_FIRST; c < _PORT_CNT_MAX; c++) {
		/* Our own exchanges may be refused in the first seconds (no parent yet). */
		if (c == PORT_CNT_WRONG_STATE || c == PORT_CNT_NOT_FROM_PARENT ||
		    c == PORT_CNT_FOLLOW_UP_WITHOUT_SYNC) {
			continue;
		}
		if (port_get_counter(s->port, c)) {
			fail_msg("side %d: counter %s = %llu, expected 0", s->idx,
				 port_counter_to_string(c),
				 (unsigned long long) port_get_counter(s->port, c));
		}
	}
}

void link_run_to_slave(struct link *l, ns_t *uncal, ns_t *slave)
{
	*uncal = *slave = 0;
	while (!*slave && l->now < START + 60 * NS_PER_SEC) {
		enum port_state st;

		link_run(l, l->now + NS_PER_SEC / 20);
		st = port_get_state(l->s[1].port);
		if (!*uncal && st == PORT_STATE_UNCALIBRATED) {
			*uncal = l->now;
		}
		if (st == PORT_STATE_SLAVE) {
			*slave = l->now;
		}
	}
	assert_true(*uncal && *slave);
}
