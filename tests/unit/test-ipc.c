/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IPC codec: every message round-trips; malformed datagrams are -EBADMSG; fds cross a socketpair.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/ipc.h"
#include "ptp/port.h"
#include "ptp/util.h"

/* The largest table: IPC_UNICAST_TABLE_MAX IPv6 peers of 20, every flow granted. */
static void sample_unicast_table(struct ipc_unicast_table *t)
{
	t->total = 20;
	t->n = IPC_UNICAST_TABLE_MAX;
	for (int i = 0; i < IPC_UNICAST_TABLE_MAX; i++) {
		struct port_uc_entry *e = &t->e[i];

		e->addr = (struct unicast_addr){ .family = UNICAST_FAMILY_IPV6,
						 .len = 16,
						 .bytes = { 0x20, 0x01, 0x0d,
							    0xb8, [15] = (uint8_t) i } };
		e->role = i % 2 ? PORT_UC_GRANTOR : PORT_UC_GRANTEE;
		for (int k = 0; k < UNICAST_MT_N; k++) {
			e->mt[k] = (struct port_uc_grant){ PORT_UC_GRANTED, (int8_t) (k - 3),
							   (uint32_t) (300 + i) };
		}
	}
}

/* A message of each type with every field away from zero, so a dropped field shows. */
static void sample(enum ipc_type t, struct ipc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = t;
	switch (t) {
	case IPC_HELLO:
		m->hello = (struct ipc_hello){ IPC_VERSION, 7, 4242 };
		break;
	case IPC_STATUS:
		m->status.port_state = PORT_STATE_SLAVE;
		m->status.servo_state = SERVO_LOCKED;
		m->status.offset_ns = -123456789012;
		m->status.sample_ts = 1764547200123456789;
		m->status.sample_mono = 987654321012;
		m->status.stats = (struct ipc_offset_stats){ 16,  -42,	      310,
							     977, 1000000123, 987654000000 };
		m->status.mean_path_delay_ns = 280;
		m->status.freq_ppb = -12345.625;
		for (int i = 0; i < IPC_MSG_KINDS; i++) {
			m->status.rx[i] = UINT64_C(1) << (i + 40);
			m->status.tx[i] = (uint64_t) i + 1;
		}
		for (int i = 0; i < IPC_IGNORED_KINDS; i++) {
			m->status.ignored[i] = (uint64_t) i * 3 + 7;
		}
		m->status.mgmt_malformed = UINT64_C(0x0102030405060708);
		m->status.last_error = -ENETDOWN;
		snprintf(m->status.last_error_text, sizeof(m->status.last_error_text), "link down");
		break;
	case IPC_ERBEST:
		m->erbest.present = true;
		m->erbest.ds.priority1 = 1;
		memcpy(m->erbest.ds.identity.id, "\x00\x11\x22\xff\xfe\x33\x44\x55", 8);
		m->erbest.ds.quality = (struct ClockQuality){ 6, 0x21, 0x4e5d };
		m->erbest.ds.priority2 = 2;
		m->erbest.ds.stepsRemoved = 3;
		memcpy(m->erbest.ds.sender.clockIdentity.id, "ABCDEFGH", 8);
		m->erbest.ds.sender.portNumber = 4;
		memcpy(m->erbest.ds.receiver.clockIdentity.id, "abcdefgh", 8);
		m->erbest.ds.receiver.portNumber = 5;
		m->erbest.tp = (struct timePropertiesDS){ 37,	true,  false, true,
							  true, false, true,  0x20 };
		break;
	case IPC_CONFIG:
		snprintf(m->config.ifname, sizeof(m->config.ifname), "veth0");
		memcpy(m->config.clock_identity.id, "\x02\x00\x00\xff\xfe\x00\x00\x01", 8);
		m->config.port_number = 3;
		options_instance_defaults(&m->config.instance);
		options_port_defaults(&m->config.port);
		snprintf(m->config.instance.name, sizeof(m->config.instance.name), "lab");
		m->config.instance.domainNumber = 24;
		m->config.instance.clock_backend = OPTIONS_CLOCK_VIRTUAL;
		m->config.instance.servo.pi_proportional_const = 0.7;
		m->config.instance.servo.clock_servo = SERVO_TYPE_LINREG;
		m->config.instance.servo.servo_offset_threshold = 100;
		m->config.instance.servo.servo_num_offset_values = 12;
		m->config.instance.virtual_clock.initial_offset_ns = -500000000;
		m->config.instance.virtual_clock.initial_freq_ppb = 100000;
		snprintf(m->config.instance.userDescription,
			 sizeof(m->config.instance.userDescription), "lab follower");
		m->config.port.logSyncInterval = -3;
		m->config.port.delay_mechanism = DELAY_MECHANISM_P2P;
		m->config.port.time_stamping = OPTIONS_TS_SOFTWARE;
		m->config.port.delayAsymmetry = -42;
		m->config.port.summary_interval = 3;
		m->config.port.hybrid_e2e = true;
		m->config.port.unicast_peers_max = 5;
		m->config.port.unicast_table.table_id = 3;
		m->config.port.unicast_table.logQueryInterval = 2;
		m->config.port.unicast_table.n = 1;
		m->config.port.unicast_table.addr[0] = (struct unicast_addr){
			.family = UNICAST_FAMILY_IPV4, .len = 4, .bytes = { 192, 0, 2, 7 }
		};
		break;
	case IPC_RECOMMENDED_STATE:
		m->recommended_state.decision = BMCA_DECISION_M3;
		m->recommended_state.stepsRemoved = 1;
		memcpy(m->recommended_state.parent.parentPortIdentity.clockIdentity.id, "PPPPPPPP",
		       8);
		m->recommended_state.parent.parentPortIdentity.portNumber = 9;
		m->recommended_state.parent.observedParentClockPhaseChangeRate = -7;
		m->recommended_state.parent.observedParentOffsetScaledLogVariance = 0xffff;
		memcpy(m->recommended_state.parent.grandmasterIdentity.id, "GGGGGGGG", 8);
		m->recommended_state.parent.grandmasterClockQuality = (struct ClockQuality){
			248, 0xfe, 0xffff
		};
		m->recommended_state.parent.grandmasterPriority1 = 128;
		m->recommended_state.parent.grandmasterPriority2 = 127;
		m->recommended_state.tp.currentUtcOffset = 37;
		m->recommended_state.tp.timeSource = 0xa0;
		break;
	case IPC_SET_PRIORITY:
	case IPC_PRIORITY_REQUEST:
		m->set_priority = (struct ipc_set_priority){ 10, 20 };
		break;
	case IPC_SHUTDOWN:
		break;
	case IPC_GM_SETTINGS_REQUEST:
	case IPC_SET_GM_SETTINGS:
		m->gm_settings.clockQuality = (struct ClockQuality){ 6, 0x21, 0x4e5d };
		m->gm_settings.tp = (struct timePropertiesDS){ 37,   true, false, true,
							       true, true, false, 0x20 };
		break;
	case IPC_CLOCK_STATE:
	case IPC_SET_CLOCK_STATE:
		m->clock_state = (struct ipc_clock_state){ INT64_C(1764500000123456789),
							   INT64_C(1764500000623456000),
							   -98765.25 };
		break;
	case IPC_PEER_REQUEST:
	case IPC_PEER_RELEASE:
		/* fe80::1:2 on interface 7 */
		m->peer = (struct peer_addr){ 16, { 0xfe, 0x80, [13] = 1, [15] = 2 }, 7 };
		break;
	case IPC_PEER_SOCKETS:
		m->peer_sockets.peer = (struct peer_addr){ 4, { 192, 0, 2, 1 }, 0 };
		m->peer_sockets.verdict = PEER_POLICY_OPEN_FAILED;
		m->peer_sockets.error = -ENETUNREACH;
		break;
	case IPC_UNICAST_TABLE:
		sample_unicast_table(&m->unicast_table);
		break;
	}
}

static const enum ipc_type all_types[] = {
	IPC_HELLO,
	IPC_STATUS,
	IPC_ERBEST,
	IPC_CONFIG,
	IPC_RECOMMENDED_STATE,
	IPC_SET_PRIORITY,
	IPC_SHUTDOWN,
	IPC_PRIORITY_REQUEST,
	IPC_CLOCK_STATE,
	IPC_SET_CLOCK_STATE,
	IPC_GM_SETTINGS_REQUEST,
	IPC_SET_GM_SETTINGS,
	IPC_PEER_REQUEST,
	IPC_PEER_RELEASE,
	IPC_PEER_SOCKETS,
	IPC_UNICAST_TABLE,
};

/* The payload sizes are the protocol: a change here is a protocol change (bump IPC_VERSION). */
static const struct {
	enum ipc_type type;
	size_t payload;
} sizes[] = {
	{ IPC_HELLO, 10 },
	{ IPC_STATUS, 716 },
	{ IPC_ERBEST, 113 },
	{ IPC_CONFIG, 507 },
	{ IPC_RECOMMENDED_STATE, 109 },
	{ IPC_SET_PRIORITY, 2 },
	{ IPC_SHUTDOWN, 0 },
	{ IPC_PRIORITY_REQUEST, 2 },
	{ IPC_CLOCK_STATE, 32 },
	{ IPC_SET_CLOCK_STATE, 32 },
	{ IPC_GM_SETTINGS_REQUEST, 8 },
	{ IPC_SET_GM_SETTINGS, 8 },
	{ IPC_PEER_REQUEST, 21 },
	{ IPC_PEER_RELEASE, 21 },
	{ IPC_PEER_SOCKETS, 26 },
	{ IPC_UNICAST_TABLE, 675 }, /* 3 + 16 entries of 42: the largest, well below IPC_MAX_SIZE */
};

/* Encode and decode again; compare by re-encoding, since the structs have padding. */
static void test_round_trip(void **state)
{
	for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
		struct ipc_msg m, back;
		uint8_t a[IPC_MAX_SIZE], b[IPC_MAX_SIZE];
		size_t la, lb;

		sample(all_types[i], &m);
		assert_int_equal(ipc_encode(&m, a, sizeof(a), &la), 0);
		assert_int_equal(la, IPC_HEADER_SIZE + sizes[i].payload);
		assert_int_equal(sizes[i].type, all_types[i]);
		if (ipc_decode(a, la, &back) != 0) {
			fail_msg("%s: expected a clean decode", ipc_type_to_string(all_types[i]));
		}
		assert_int_equal(back.type, m.type);
		assert_int_equal(ipc_encode(&back, b, sizeof(b), &lb), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
	}
}

/*
 * ipc_msg_start() zeroes the type's body alone, and the encoding depends on that body alone: a
 * STATUS and an Erbest started over a union full of junk (what the worker leaves on its stack)
 * encode as the same message zeroed whole does.
 */
static void test_msg_start(void **state)
{
	static const struct {
		enum ipc_type type;
		size_t body;
	} types[] = {
		{ IPC_STATUS, sizeof(struct ipc_status) },
		{ IPC_ERBEST, sizeof(struct ipc_erbest) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct ipc_msg ref, m;
		uint8_t a[IPC_MAX_SIZE], b[IPC_MAX_SIZE];
		const uint8_t *body = (const uint8_t *) &m.hello;
		size_t la, lb;

		sample(types[i].type, &ref);
		memset(&m, 0xa5, sizeof(m));
		ipc_msg_start(&m, types[i].type, types[i].body);
		assert_int_equal(m.type, types[i].type);
		for (size_t k = 0; k < types[i].body; k++) {
			assert_int_equal(body[k], 0);
		}
		assert_int_equal(body[types[i].body], 0xa5);
		if (types[i].type == IPC_STATUS) {
			m.status = ref.status;
		} else {
			m.erbest = ref.erbest;
		}
		assert_int_equal(ipc_encode(&ref, a, sizeof(a), &la), 0);
		assert_int_equal(ipc_encode(&m, b, sizeof(b), &lb), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
	}
}

/* Field spot checks: the decode writes the values into the right members. */
static void test_fields(void **state)
{
	struct ipc_msg m, back;
	uint8_t buf[IPC_MAX_SIZE];
	size_t len;

	sample(IPC_STATUS, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_int_equal(back.status.offset_ns, -123456789012);
	assert_int_equal(back.status.sample_ts, 1764547200123456789);
	assert_int_equal(back.status.sample_mono, 987654321012);
	assert_int_equal(back.status.stats.count, 16);
	assert_int_equal(back.status.stats.mean_ns, -42);
	assert_int_equal(back.status.stats.rms_ns, 310);
	assert_int_equal(back.status.stats.max_abs_ns, 977);
	assert_int_equal(back.status.stats.window_ns, 1000000123);
	assert_int_equal(back.status.stats.end_mono, 987654000000);
	assert_true(back.status.freq_ppb == -12345.625);
	assert_int_equal(back.status.rx[15], UINT64_C(1) << 55);
	assert_int_equal(back.status.tx[15], 16);
	assert_int_equal(back.status.ignored[0], 7);
	assert_int_equal(back.status.ignored[IPC_IGNORED_KINDS - 1],
			 (IPC_IGNORED_KINDS - 1) * 3 + 7);
	assert_int_equal(back.status.mgmt_malformed, UINT64_C(0x0102030405060708));
	assert_int_equal(back.status.last_error, -ENETDOWN);
	assert_string_equal(back.status.last_error_text, "link down");

	sample(IPC_CONFIG, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_string_equal(back.config.ifname, "veth0");
	assert_string_equal(back.config.instance.userDescription, "lab follower");
	assert_int_equal(back.config.instance.virtual_clock.initial_offset_ns, -500000000);
	assert_int_equal(back.config.port.delay_mechanism, DELAY_MECHANISM_P2P);
	assert_int_equal(back.config.port.delayAsymmetry, -42);
	assert_int_equal(back.config.port.summary_interval, 3);
	assert_true(back.config.instance.twoStepFlag);
	assert_memory_equal(back.config.clock_identity.id, "\x02\x00\x00\xff\xfe\x00\x00\x01", 8);
	assert_int_equal(back.config.port_number, 3);
	assert_int_equal(back.config.instance.servo.clock_servo, SERVO_TYPE_LINREG);
	assert_int_equal(back.config.instance.servo.servo_offset_threshold, 100);
	assert_int_equal(back.config.instance.servo.servo_num_offset_values, 12);
	assert_true(back.config.port.hybrid_e2e);
	assert_int_equal(back.config.port.unicast_peers_max, 5);
	assert_int_equal(back.config.port.unicast_table.table_id, 3);
	assert_int_equal(back.config.port.unicast_table.logQueryInterval, 2);
	assert_int_equal(back.config.port.unicast_table.n, 1);
	assert_int_equal(back.config.port.unicast_table.addr[0].len, 4);
	assert_memory_equal(back.config.port.unicast_table.addr[0].bytes, "\xc0\x00\x02\x07", 4);

	sample(IPC_PEER_REQUEST, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_int_equal(back.peer.len, 16);
	assert_memory_equal(back.peer.bytes, m.peer.bytes, 16);
	assert_int_equal(back.peer.scope_id, 7);
	sample(IPC_PEER_SOCKETS, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_int_equal(back.peer_sockets.verdict, PEER_POLICY_OPEN_FAILED);
	assert_int_equal(back.peer_sockets.error, -ENETUNREACH);
	assert_memory_equal(back.peer_sockets.peer.bytes, "\xc0\x00\x02\x01", 4);

	sample(IPC_SET_CLOCK_STATE, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_int_equal(back.clock_state.raw_ns, INT64_C(1764500000123456789));
	assert_int_equal(back.clock_state.local_ns, INT64_C(1764500000623456000));
	assert_true(back.clock_state.rate_ppb == -98765.25);

	/* Header: type, version, length, big-endian. */
	sample(IPC_SET_PRIORITY, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_memory_equal(buf, "\x00\x42\x00\x1d\x00\x00\x00\x02\x0a\x14", 10);
}

static void expect_bad(const uint8_t *buf, size_t len, const char *what)
{
	struct ipc_msg m;
	int r = ipc_decode(buf, len, &m);

	if (r != -EBADMSG) {
		fail_msg("%s: expected -EBADMSG, got %d", what, r);
	}
}

/* A message no end may exchange: the encoder refuses it, or else the decoder. */
static void expect_refused(const struct ipc_msg *m, const char *what)
{
	uint8_t buf[IPC_MAX_SIZE];
	size_t len;
	int r = ipc_encode(m, buf, sizeof(buf), &len);

	if (r == 0) {
		expect_bad(buf, len, what);
	} else if (r != -EBADMSG) {
		fail_msg("%s: expected -EBADMSG from the encoder, got %d", what, r);
	}
}

static void test_malformed(void **state)
{
	for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
		struct ipc_msg m;
		uint8_t buf[IPC_MAX_SIZE + 8], bad[IPC_MAX_SIZE + 8];
		size_t len;

		sample(all_types[i], &m);
		assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);

		/* Every truncation, with the header's length left as it was and patched to match.
		 */
		for (size_t cut = 0; cut < len; cut++) {
			expect_bad(buf, cut, "truncated");
			memcpy(bad, buf, cut);
			if (cut >= IPC_HEADER_SIZE) {
				uint32_t l = (uint32_t) (cut - IPC_HEADER_SIZE);

				bad[4] = l >> 24;
				bad[5] = l >> 16;
				bad[6] = l >> 8;
				bad[7] = l;
				expect_bad(bad, cut, "truncated, consistent length");
			}
		}
		/* One byte too many, length left and length patched. */
		memcpy(bad, buf, len);
		bad[len] = 0;
		expect_bad(bad, len + 1, "oversized");
		bad[7]++;
		expect_bad(bad, len + 1, "oversized, consistent length");

		memcpy(bad, buf, len);
		bad[3] = IPC_VERSION + 1;
		expect_bad(bad, len, "wrong version");
		memcpy(bad, buf, len);
		bad[3] = 0;
		expect_bad(bad, len, "version 0");

		memcpy(bad, buf, len);
		bad[0] = 0x7f;
		expect_bad(bad, len, "unknown type");
		memcpy(bad, buf, len);
		bad[1] = 0;
		expect_bad(bad, len, "type 0");
	}
}

static void test_bad_values(void **state)
{
	struct ipc_msg m, back;
	uint8_t buf[IPC_MAX_SIZE];
	size_t len;

	/* port_state 0 and 10 are outside enum port_state. */
	sample(IPC_STATUS, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[IPC_HEADER_SIZE] = 0;
	expect_bad(buf, len, "port state 0");
	buf[IPC_HEADER_SIZE] = PORT_STATE_MAX + 1;
	expect_bad(buf, len, "port state 10");
	/* The error text must be NUL-terminated within its field (last byte of the payload). */
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	memset(buf + len - IPC_ERROR_TEXT_MAX, 'x', IPC_ERROR_TEXT_MAX);
	expect_bad(buf, len, "unterminated text");
	/* ... and NUL-padded, so a valid message has exactly one encoding. */
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[len - 1] = 'x';
	expect_bad(buf, len, "text with bytes after its NUL");

	/* Offset statistics: a closed window without samples, a negative RMS or max, no length;
	 * values without a closed window. Each is refused, and the sample itself is fine. */
	{
		static const struct ipc_offset_stats bad_stats[] = {
			{ 0, 0, 0, 0, 1000, 5 }, { 3, 0, -1, 0, 1000, 5 }, { 3, 0, 0, -1, 1000, 5 },
			{ 3, 0, 0, 0, 0, 5 },	 { 3, 0, 0, 0, 1000, 0 },  { 0, 7, 0, 0, 0, 0 },
		};

		for (size_t k = 0; k < sizeof(bad_stats) / sizeof(bad_stats[0]); k++) {
			sample(IPC_STATUS, &m);
			m.status.stats = bad_stats[k];
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			expect_bad(buf, len, "offset statistics out of range");
		}
		sample(IPC_STATUS, &m);
		m.status.stats = (struct ipc_offset_stats){ 0 };
		assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
		assert_int_equal(ipc_decode(buf, len, &m), 0);
	}

	/* summary_interval outside 0..10 (the last byte of CONFIG's payload). */
	sample(IPC_CONFIG, &m);
	m.config.port.summary_interval = 11;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	expect_bad(buf, len, "summary_interval 11");
	m.config.port.summary_interval = -1;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	expect_bad(buf, len, "summary_interval -1");

	/* A bool that is 2. */
	sample(IPC_ERBEST, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[IPC_HEADER_SIZE] = 2;
	expect_bad(buf, len, "bool 2");
	/* An Erbest 255 steps away: 9.3.2.5 d) never qualifies it, and Table 30 adds one. */
	m.erbest.ds.stepsRemoved = 255;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	expect_bad(buf, len, "Erbest stepsRemoved 255");

	/* A decision that is NONE (never sent) or past LISTENING. */
	sample(IPC_RECOMMENDED_STATE, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[IPC_HEADER_SIZE] = BMCA_DECISION_NONE;
	expect_bad(buf, len, "decision NONE");
	buf[IPC_HEADER_SIZE] = BMCA_DECISION_LISTENING + 1;
	expect_bad(buf, len, "decision past LISTENING");

	/* Type 4 was CLOCK_REQUEST, which no worker ever sent: unknown now. */
	sample(IPC_SET_PRIORITY, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[1] = 4;
	expect_bad(buf, len, "type 4");

	/* A clock rate that is NaN, infinite or 1e9 ppb (a clock that stands still) or more. */
	{
		static const double bad_rates[] = { NAN, INFINITY, -INFINITY, 1e9, -1e9, 1e300 };

		for (size_t k = 0; k < sizeof(bad_rates) / sizeof(bad_rates[0]); k++) {
			sample(IPC_CLOCK_STATE, &m);
			m.clock_state.rate_ppb = bad_rates[k];
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			expect_bad(buf, len, "clock state rate out of range");
			m.type = IPC_SET_CLOCK_STATE;
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			expect_bad(buf, len, "set clock state rate out of range");
		}
	}

	/*
	 * The limits table at its edges, both ends of the codec: the bounds and 0 (unknown, where
	 * allowed) pass, the next double beyond is refused, and what ipc_limit_clamp() makes of
	 * anything (NaN, infinities, the next double beyond) decodes (issue 31, finding 1).
	 */
	for (int l = 0; l < _IPC_LIMIT_MAX; l++) {
		const struct ipc_range *lim = &ipc_limits[l];
		const double good[] = { lim->min, lim->max, (lim->min + lim->max) / 2 };
		const double bad[] = { nextafter(lim->min, -INFINITY),
				       nextafter(lim->max, INFINITY), NAN, INFINITY, -INFINITY };
		double *field;

		sample(IPC_CLOCK_STATE, &m);
		field = l == IPC_LIMIT_RATE_PPB ? &m.clock_state.rate_ppb
						: &m.clock_state.gm_rate_ratio;
		for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
			*field = good[k];
			assert_true(ipc_limit_ok(l, good[k]));
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			assert_int_equal(ipc_decode(buf, len, &back), 0);
			assert_true(*field == good[k]);
		}
		*field = 0.0;
		assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
		assert_int_equal(ipc_decode(buf, len, &back) == 0, lim->zero_ok || lim->min <= 0.0);
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			*field = bad[k];
			assert_false(ipc_limit_ok(l, bad[k]));
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			expect_bad(buf, len, "a value beyond the limits table");
			*field = ipc_limit_clamp(l, bad[k]);
			assert_true(ipc_limit_ok(l, *field));
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			assert_int_equal(ipc_decode(buf, len, &back), 0);
		}
		assert_true(ipc_limit_clamp(l, nextafter(lim->max, INFINITY)) == lim->max);
		assert_true(ipc_limit_clamp(l, nextafter(lim->min, -INFINITY)) == lim->min);
	}
	/* The grandmaster's rate ratio: the engine's bound, so a clamped engine value passes. */
	assert_true(ipc_limits[IPC_LIMIT_GM_RATE_RATIO].max == 1.0 + PORT_RATE_RATIO_MAX_DEVIATION);

	/* portNumber 0 and 0xFFFF are not a port's (7.5.2.3): after ifname and clockIdentity. */
	sample(IPC_CONFIG, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[IPC_HEADER_SIZE + IFNAMSIZ + 8] = 0;
	buf[IPC_HEADER_SIZE + IFNAMSIZ + 9] = 0;
	expect_bad(buf, len, "port number 0");
	buf[IPC_HEADER_SIZE + IFNAMSIZ + 8] = 0xff;
	buf[IPC_HEADER_SIZE + IFNAMSIZ + 9] = 0xff;
	expect_bad(buf, len, "port number 0xFFFF");

	/*
	 * A peer address: only 4 or 16 bytes, zero past its length, a scope only for IPv6; an
	 * answer's verdict within the enum, an error only with a refusal, never positive.
	 */
	{
		static const struct {
			uint8_t len, pad;
			uint32_t scope;
			const char *what;
		} bad_peers[] = {
			{ 0, 0, 0, "length 0" },
			{ 6, 0, 0, "length 6 (a MAC)" },
			{ 17, 0, 0, "length 17" },
			{ 4, 1, 0, "IPv4 with bytes past its length" },
			{ 4, 0, 3, "IPv4 with a scope" },
		};

		/* Patched into a valid IPv4 request: len, bytes[16], scope (big-endian). */
		for (size_t k = 0; k < sizeof(bad_peers) / sizeof(bad_peers[0]); k++) {
			sample(IPC_PEER_REQUEST, &m);
			m.peer = (struct peer_addr){ 4, { 192, 0, 2, 1 }, 0 };
			assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
			assert_int_equal(ipc_decode(buf, len, &back), 0);
			buf[IPC_HEADER_SIZE] = bad_peers[k].len;
			buf[IPC_HEADER_SIZE + 16] = bad_peers[k].pad;
			buf[IPC_HEADER_SIZE + 20] = (uint8_t) bad_peers[k].scope;
			expect_bad(buf, len, bad_peers[k].what);
		}
		sample(IPC_PEER_SOCKETS, &m);
		m.peer_sockets.verdict = _PEER_POLICY_MAX;
		expect_refused(&m, "verdict past the enum");
		m.peer_sockets.verdict = PEER_POLICY_GRANTED;
		expect_refused(&m, "granted with an error");
		m.peer_sockets.verdict = PEER_POLICY_RATE;
		m.peer_sockets.error = 5;
		expect_refused(&m, "a positive error");
		sample(IPC_CONFIG, &m);
		m.config.port.unicast_peers_max = 0;
		expect_refused(&m, "unicast_peers_max 0");
		m.config.port.unicast_peers_max = OPTIONS_UNICAST_PEERS_MAX + 1;
		expect_refused(&m, "unicast_peers_max 65");
		sample(IPC_CONFIG, &m);
		m.config.port.unicast_table.n = UNICAST_TABLE_ADDRS_MAX + 1;
		expect_refused(&m, "a unicast table of 17 addresses");
		sample(IPC_CONFIG, &m);
		m.config.port.unicast_table.logQueryInterval = 8;
		expect_refused(&m, "logQueryInterval 8");
	}

	/* Encode refuses an unknown type and a buffer too small. */
	m.type = (enum ipc_type) 99;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), -EINVAL);
	sample(IPC_STATUS, &m);
	assert_int_equal(ipc_encode(&m, buf, 100, &len), -EMSGSIZE);

	assert_true(ipc_type_from_worker(IPC_ERBEST));
	assert_false(ipc_type_from_worker(IPC_CONFIG));
	assert_true(ipc_type_from_worker(IPC_CLOCK_STATE));
	assert_false(ipc_type_from_worker(IPC_SET_CLOCK_STATE));
	assert_false(ipc_type_from_worker((enum ipc_type) 99));
	assert_true(ipc_type_from_worker(IPC_PEER_REQUEST));
	assert_true(ipc_type_from_worker(IPC_PEER_RELEASE));
	assert_false(ipc_type_from_worker(IPC_PEER_SOCKETS));
	assert_string_equal(ipc_type_to_string(IPC_RECOMMENDED_STATE), "RECOMMENDED_STATE");
}

/* UNICAST_TABLE: every field the supervisor trusts is range-checked. */
static void test_unicast_table(void **state)
{
	struct ipc_msg m, back;
	uint8_t buf[IPC_MAX_SIZE];
	size_t len;

	assert_true(ipc_type_from_worker(IPC_UNICAST_TABLE));
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.n = 2;
	m.unicast_table.e[1].addr = (struct unicast_addr){ .family = UNICAST_FAMILY_IPV4,
							   .len = 4,
							   .bytes = { 192, 0, 2, 9 } };
	m.unicast_table.e[1].mt[UNICAST_MT_SYNC] = (struct port_uc_grant){ PORT_UC_DENIED, -4, 0 };
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, IPC_HEADER_SIZE + 3 + 42 + 30);
	assert_int_equal(ipc_decode(buf, len, &back), 0);
	assert_int_equal(back.unicast_table.total, 20);
	assert_int_equal(back.unicast_table.n, 2);
	assert_int_equal(back.unicast_table.e[1].role, PORT_UC_GRANTOR);
	assert_memory_equal(back.unicast_table.e[1].addr.bytes, "\xc0\x00\x02\x09", 4);
	assert_int_equal(back.unicast_table.e[1].mt[UNICAST_MT_SYNC].state, PORT_UC_DENIED);
	assert_int_equal(back.unicast_table.e[1].mt[UNICAST_MT_SYNC].log_period, -4);
	assert_int_equal(back.unicast_table.e[0].mt[UNICAST_MT_ANNOUNCE].seconds_left, 300);

	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.n = IPC_UNICAST_TABLE_MAX + 1;
	expect_refused(&m, "17 entries");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.total = 3;
	expect_refused(&m, "more entries than the total");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].role = _PORT_UC_ROLE_MAX;
	expect_refused(&m, "role 2");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].mt[0].state = _PORT_UC_STATE_MAX;
	expect_refused(&m, "state 5");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].mt[1].log_period = UNICAST_TLV_LOG_PERIOD_MAX + 1;
	expect_refused(&m, "logInterMessagePeriod 8");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].mt[1].log_period = UNICAST_TLV_LOG_PERIOD_MIN - 1;
	expect_refused(&m, "logInterMessagePeriod -8");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].mt[2].seconds_left = (uint32_t) INT32_MAX + 1;
	expect_refused(&m, "2^31 s left");
	sample(IPC_UNICAST_TABLE, &m);
	m.unicast_table.e[5].mt[2].state = PORT_UC_REQUESTED;
	expect_refused(&m, "time left of a flow not granted");
	/* An address family outside L2, UDPv4, UDPv6 (its byte follows total and n). */
	sample(IPC_UNICAST_TABLE, &m);
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	buf[IPC_HEADER_SIZE + 3] = 7;
	expect_bad(buf, len, "address family 7");
	/* Cut short by one entry's last byte. */
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	expect_bad(buf, len - 1, "a truncated table");
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void test_fd_passing(void **state)
{
	int sv[2], fds[2], p[2], got[IPC_MAX_FDS] = { -1, -1, -1, -1 };
	struct ipc_msg m, back;
	struct stat a, b;
	size_t n = 99;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fds[0] = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(fds[0] >= 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fds[1] = p[0];

	sample(IPC_CONFIG, &m);
	assert_int_equal(ipc_send(sv[0], &m, fds, 2), 0);
	assert_int_equal(ipc_recv(sv[1], &back, got, IPC_MAX_FDS, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(back.type, IPC_CONFIG);
	/* The received descriptors are new numbers for the same open files, close-on-exec. */
	assert_int_equal(fstat(fds[0], &a), 0);
	assert_int_equal(fstat(got[0], &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	assert_true(fcntl(got[0], F_GETFD) & FD_CLOEXEC);
	close(got[0]);
	close(got[1]);

	/* More fds than the receiver takes: message refused, the fds closed, not leaked. */
	assert_int_equal(ipc_send(sv[0], &m, fds, 2), 0);
	got[0] = got[1] = -1;
	assert_int_equal(ipc_recv(sv[1], &back, got, 1, &n), -EBADMSG);
	assert_int_equal(got[0], -1);

	/* A malformed datagram from the peer: -EBADMSG, and fds that came with it are closed. */
	{
		uint8_t junk[12] = { 0, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0 };
		int before = fcntl(0, F_DUPFD_CLOEXEC, 0), after;

		close(before);
		assert_int_equal(send(sv[0], junk, sizeof(junk), 0), (ssize_t) sizeof(junk));
		assert_int_equal(ipc_recv(sv[1], &back, got, IPC_MAX_FDS, &n), -EBADMSG);
		assert_int_equal(ipc_send(sv[0], &m, fds, 1), 0);
		/* A valid message with more fds than the receiver accepts. */
		assert_int_equal(ipc_recv(sv[1], &back, got, 0, NULL), -EBADMSG);
		after = fcntl(0, F_DUPFD_CLOEXEC, 0);
		assert_int_equal(after,
				 before); /* the lowest free fd is where it was: none leaked */
		close(after);
	}

	/* Oversized datagram: refused. */
	{
		uint8_t big[IPC_MAX_SIZE + 100] = { 0, 1, 0, 1 };

		assert_int_equal(send(sv[0], big, sizeof(big), 0), (ssize_t) sizeof(big));
		assert_int_equal(ipc_recv(sv[1], &back, NULL, 0, NULL), -EBADMSG);
	}

	/* No fds at all is fine with max_fds 0. */
	sample(IPC_SHUTDOWN, &m);
	assert_int_equal(ipc_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(ipc_recv(sv[1], &back, NULL, 0, NULL), 0);
	assert_int_equal(back.type, IPC_SHUTDOWN);

	/* The peer going away reads as -ECONNRESET. */
	close(sv[0]);
	assert_int_equal(ipc_recv(sv[1], &back, NULL, 0, NULL), -ECONNRESET);
	assert_true(fd_is_open(fds[0]));
	close(sv[1]);
	close(fds[0]);
	close(p[0]);
	close(p[1]);
}

/*
 * PHCD_IPC_SEED_DIR=DIR writes one sample of every type there: the seed corpus of
 * tests/fuzz/fuzz-ipc.c (tests/fuzz/corpus/ipc/) comes from this.
 */
static void write_seeds(const char *dir)
{
	for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
		char path[4096];
		uint8_t buf[IPC_MAX_SIZE];
		struct ipc_msg m;
		size_t len;
		FILE *f;

		sample(all_types[i], &m);
		assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, ipc_type_to_string(all_types[i]));
		f = fopen(path, "we");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		fclose(f);
	}
}

/* The servo state is the servo's enum on both sides; only the codec knows its wire bytes. */
static void test_servo_state_mapping(void **state)
{
	static const struct {
		enum servo_state in, out;
		uint8_t wire;
	} cases[] = {
		{ SERVO_UNLOCKED, SERVO_UNLOCKED, 0 },
		{ SERVO_JUMP, SERVO_UNLOCKED, 0 },
		{ SERVO_LOCKED, SERVO_LOCKED, 1 },
		{ SERVO_HOLDOVER, SERVO_HOLDOVER, 2 },
	};
	uint8_t buf[IPC_MAX_SIZE];
	struct ipc_msg m, back;
	size_t len;

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		sample(IPC_STATUS, &m);
		m.status.servo_state = cases[k].in;
		assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
		/* header, then port_state (1 octet), then the servo state */
		assert_int_equal(buf[IPC_HEADER_SIZE + 1], cases[k].wire);
		assert_int_equal(ipc_decode(buf, len, &back), 0);
		assert_int_equal(back.status.servo_state, cases[k].out);
	}
	buf[IPC_HEADER_SIZE + 1] = 3;
	assert_int_equal(ipc_decode(buf, len, &back), -EBADMSG);
}

/*
 * An ERBEST is always IPC_ERBEST_SIZE long, present or not, its path trace full or empty: a
 * worker keeps that many bytes of the last one sent (worker-port.h).
 */
static void test_erbest_size(void **state)
{
	uint8_t buf[IPC_MAX_SIZE];
	struct ipc_msg m;
	size_t len;

	sample(IPC_ERBEST, &m);
	m.erbest.path.n = PORT_PATH_TRACE_MAX;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, IPC_ERBEST_SIZE);
	memset(&m, 0, sizeof(m));
	m.type = IPC_ERBEST;
	assert_int_equal(ipc_encode(&m, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, IPC_ERBEST_SIZE);
}

int main(void)
{
	if (getenv("PHCD_IPC_SEED_DIR")) {
		write_seeds(getenv("PHCD_IPC_SEED_DIR"));
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_fields),
		cmocka_unit_test(test_malformed),     cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_fd_passing),    cmocka_unit_test(test_servo_state_mapping),
		cmocka_unit_test(test_unicast_table), cmocka_unit_test(test_msg_start),
		cmocka_unit_test(test_erbest_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
