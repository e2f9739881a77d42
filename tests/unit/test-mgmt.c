// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of management answers: linuxptp's layouts (ptp4l 3.1.1 captures), errors, targets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptp/mgmt.h"
#include "ptp/tlv.h"
#include "ptp/util.h"
#include "tests/unit/hex.h"

/* The clock ptp4l 3.1.1 ran when the expected bytes below were captured (ptp4l -S -s on "va"). */
static const struct ClockIdentity own = { { 0xd6, 0xb4, 0x22, 0xff, 0xfe, 0x03, 0x3e, 0x4f } };
static const struct PortIdentity requester = {
	{ { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 } }, 7
};

struct sent {
	int n;
	uint8_t buf[8][MGMT_MSG_MAX];
	size_t len[8];
};

static int record(void *userdata, const void *buf, size_t len)
{
	struct sent *s = userdata;

	assert_true(s->n < 8);
	memcpy(s->buf[s->n], buf, len);
	s->len[s->n++] = len;
	return 0;
}

struct fixture {
	struct instance_options o;
	struct mgmt_port ports[2];
	struct mgmt_clock c;
	struct mgmt_counters cnt;
	struct sent sent;
	struct mgmt_change change;
};

static void fixture_init(struct fixture *f, size_t n_ports)
{
	memset(f, 0, sizeof(*f));
	options_instance_defaults(&f->o);
	f->o.domainNumber = 0;
	f->o.priority1 = 128;
	f->o.priority2 = 128;
	f->o.clockAccuracy = 0xfe;
	f->o.offsetScaledLogVariance = 0xffff;
	f->o.slaveOnly = true;
	options_default_ds(&f->o, &own, (uint16_t) n_ports, 0, &f->c.dds);
	f->c.options = &f->o;
	f->c.pds.grandmasterIdentity = own;
	f->c.pds.parentPortIdentity.clockIdentity = own;
	f->c.tpds.currentUtcOffset = 37;
	f->c.tpds.timeSource = 0xa0;
	for (size_t i = 0; i < n_ports; i++) {
		struct portDS *d = &f->ports[i].ds;

		d->portIdentity.clockIdentity = own;
		d->portIdentity.portNumber = (uint16_t) (i + 1);
		d->portState = PORT_STATE_LISTENING;
		d->logAnnounceInterval = 1;
		d->announceReceiptTimeout = 3;
		d->delayMechanism = DELAY_MECHANISM_E2E;
		d->versionNumber = 2;
		d->minorVersionNumber = 1;
		f->ports[i].ifname = i == 0 ? "va" : "vb";
		f->ports[i].timestamping = MGMT_TS_SOFTWARE;
	}
	f->c.ports = f->ports;
	f->c.n_ports = n_ports;
	f->c.all_ports = true;
}

/* A request as pmc builds it: data is the (zeroed) dataField pmc appends, or NULL. */
static size_t request(uint8_t *buf, uint8_t action, uint16_t id, const void *data, size_t data_len,
		      const struct PortIdentity *target)
{
	uint8_t tlv[256];
	struct tlv_builder b;
	struct msg m = { 0 };
	ssize_t n;

	tlv_builder_init(&b, tlv, sizeof(tlv));
	assert_int_equal(tlv_builder_add_management(&b, id, data, data_len), 0);
	msg_header_init(&m.hdr, MSG_MANAGEMENT, 0, &requester, 5);
	m.body.management.targetPortIdentity = *target;
	m.body.management.actionField = action;
	m.tlv = tlv;
	m.tlv_len = tlv_builder_len(&b);
	n = msg_build(&m, buf, MGMT_MSG_MAX);
	assert_true(n > 0);
	return (size_t) n;
}

static const struct PortIdentity wildcard = {
	{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } }, 0xffff
};

static int run(struct fixture *f, uint8_t action, uint16_t id, const void *data, size_t data_len,
	       const struct PortIdentity *target, bool set_allowed)
{
	struct mgmt_request req = { .ingress = MGMT_INGRESS_LOCAL, .set_allowed = set_allowed };
	uint8_t buf[MGMT_MSG_MAX];
	size_t len = request(buf, action, id, data, data_len, target ? target : &wildcard);

	f->sent.n = 0;
	return mgmt_handle_frame(&f->c, buf, len, &req, record, &f->sent, &f->change, &f->cnt);
}

/* Answer i: parse it, check the addressing, return its TLV suffix in hex. */
static void answer(struct fixture *f, int i, uint8_t action, uint16_t port, char *hex)
{
	struct msg m;

	assert_int_equal(msg_parse(f->sent.buf[i], f->sent.len[i], &m), 0);
	assert_int_equal(m.hdr.messageType, MSG_MANAGEMENT);
	assert_int_equal(m.hdr.sequenceId, 5);
	assert_int_equal(m.hdr.controlField, MSG_CONTROL_MANAGEMENT);
	assert_int_equal((uint8_t) m.hdr.logMessageInterval, 0x7f);
	assert_true(clock_identity_equal(&m.hdr.sourcePortIdentity.clockIdentity, &own));
	assert_int_equal(m.hdr.sourcePortIdentity.portNumber, port);
	assert_true(port_identity_equal(&m.body.management.targetPortIdentity, &requester));
	assert_int_equal(m.body.management.actionField, action);
	for (size_t k = 0; k < m.tlv_len; k++) {
		sprintf(hex + 2 * k, "%02x", m.tlv[k]);
	}
	hex[2 * m.tlv_len] = '\0';
}

/* Byte for byte what ptp4l 3.1.1 put after the management body for the same clock. */
static void test_ptp4l_layouts(void **state)
{
	static const struct {
		uint8_t action;
		uint16_t id;
		size_t data_len;
		uint8_t answer_action;
		uint16_t port;
		const char *tlv;
	} cases[] = {
		/* SLAVE_ONLY as 1588-2019 and linuxptp 4.2 send it (3.1.1: 02 for the same clock)
		 */
		{ 0, MGMT_SLAVE_ONLY, 0, 2, 0, "0001000420080100" },
		{ 0, MGMT_PORT_PROPERTIES_NP, 0, 2, 1,
		  "00010012c004d6b422fffe033e4f0001040002766100" },
		{ 0, MGMT_TIME_STATUS_NP, 0, 2, 0,
		  "00010034c000"
		  "0000000000000000"
		  "0000000000000000"
		  "00000000000000000000"
		  "000000000000000000000000"
		  "00000000d6b422fffe033e4f" },
		{ 0, MGMT_FAULT_LOG, 0, 2, 0, "000200080006000600000000" },
		{ 0, 0x1234, 0, 2, 0, "000200080002123400000000" },
		{ 1, MGMT_PRIORITY1, 0, 2, 0, "000200080003200500000000" },
		{ 3, MGMT_ENABLE_PORT, 0, 4, 1, "000200080006200d00000000" },
	};
	struct fixture f;
	char hex[2 * MGMT_MSG_MAX + 1];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fixture_init(&f, 1);
		assert_int_equal(
			run(&f, cases[i].action, cases[i].id, NULL, cases[i].data_len, NULL, true),
			1);
		answer(&f, 0, cases[i].answer_action, cases[i].port, hex);
		if (strcmp(hex, cases[i].tlv) != 0) {
			fail_msg("id 0x%04x: expected %s, got %s", cases[i].id, cases[i].tlv, hex);
		}
	}
}

/* Every supported GET: one answer of linuxptp's dataField length (pmc rejects any other). */
static void test_every_get(void **state)
{
	static const struct {
		uint16_t id;
		size_t data_len; /* what pmc appends to its GET */
		uint16_t tlv_len;
	} cases[] = {
		{ MGMT_USER_DESCRIPTION, 2, 2 + 12 },
		{ MGMT_DEFAULT_DATA_SET, 20, 2 + 20 },
		{ MGMT_CURRENT_DATA_SET, 18, 2 + 18 },
		{ MGMT_PARENT_DATA_SET, 32, 2 + 32 },
		{ MGMT_TIME_PROPERTIES_DATA_SET, 4, 2 + 4 },
		{ MGMT_PORT_DATA_SET, 26, 2 + 26 },
		{ MGMT_PRIORITY1, 2, 4 },
		{ MGMT_PRIORITY2, 2, 4 },
		{ MGMT_DOMAIN, 2, 4 },
		{ MGMT_SLAVE_ONLY, 2, 4 },
		{ MGMT_CLOCK_ACCURACY, 2, 4 },
		{ MGMT_LOG_ANNOUNCE_INTERVAL, 2, 4 },
		{ MGMT_ANNOUNCE_RECEIPT_TIMEOUT, 2, 4 },
		{ MGMT_LOG_SYNC_INTERVAL, 2, 4 },
		{ MGMT_VERSION_NUMBER, 2, 4 },
		{ MGMT_DELAY_MECHANISM, 2, 4 },
		{ MGMT_TIME_STATUS_NP, 50, 2 + 50 },
		{ MGMT_PORT_PROPERTIES_NP, 13, 2 + 16 },
		{ MGMT_NULL_MANAGEMENT, 0, 2 },
	};
	static const uint8_t zeros[64];
	struct fixture f;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tlv_iter it;
		struct tlv t;
		struct msg m;

		fixture_init(&f, 1);
		f.c.user_description = "phcd;test;"; /* 10 octets: PTPText 11, padded to 12 */
		assert_int_equal(run(&f, 0, cases[i].id, zeros, cases[i].data_len, NULL, false), 1);
		assert_int_equal(msg_parse(f.sent.buf[0], f.sent.len[0], &m), 0);
		tlv_iter_init(&it, m.tlv, m.tlv_len);
		assert_int_equal(tlv_next(&it, &t), 1);
		assert_int_equal(t.tlvType, TLV_MANAGEMENT);
		if (t.lengthField != cases[i].tlv_len) {
			fail_msg("%s: lengthField %u, expected %u", mgmt_id_to_string(cases[i].id),
				 t.lengthField, cases[i].tlv_len);
		}
		assert_int_equal(tlv_next(&it, &t), 0);
		assert_int_equal(f.cnt.c[MGMT_CNT_ANSWERED], 1);
	}
}

/* Values land where linuxptp's structs have them. */
static void test_values(void **state)
{
	char hex[2 * MGMT_MSG_MAX + 1];
	struct fixture f;

	fixture_init(&f, 1);
	f.c.cds.stepsRemoved = 1;
	f.c.cds.offsetFromMaster = -3;
	f.c.cds.meanDelay = 1000;
	run(&f, 0, MGMT_CURRENT_DATA_SET, NULL, 0, NULL, false);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000100142001"
				 "0001"
				 "fffffffffffd0000"
				 "0000000003e80000");

	f.c.dds.priority1 = 100;
	f.c.dds.domainNumber = 0;
	f.c.dds.clockQuality.clockClass = 248;
	run(&f, 0, MGMT_DEFAULT_DATA_SET, NULL, 0, NULL, false);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000100162000"
				 "0300000164f8feffff80d6b422fffe033e4f0000");

	f.ports[0].ds.meanLinkDelay = 2;
	f.ports[0].ds.portState = PORT_STATE_SLAVE;
	f.ports[0].ds.logSyncInterval = -3;
	run(&f, 0, MGMT_PORT_DATA_SET, NULL, 0, NULL, false);
	answer(&f, 0, 2, 1, hex);
	assert_string_equal(hex, "0001001c2004"
				 "d6b422fffe033e4f000109000000000000020000"
				 "0103fd010002");

	f.c.tpds.currentUtcOffsetValid = true;
	f.c.tpds.ptpTimescale = true;
	run(&f, 0, MGMT_TIME_PROPERTIES_DATA_SET, NULL, 0, NULL, false);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000100062003"
				 "00250ca0");
}

/* Malformed requests are dropped and counted; nothing is sent. */
static void test_malformed(void **state)
{
	struct mgmt_request req = { .ingress = MGMT_INGRESS_LOCAL, .set_allowed = true };
	uint8_t buf[MGMT_MSG_MAX];
	struct fixture f;
	size_t len;

	fixture_init(&f, 1);
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);

	/* Garbage, and a message cut short. */
	assert_int_equal(
		mgmt_handle_frame(&f.c, "\x0d\x12", 2, &req, record, &f.sent, &f.change, &f.cnt),
		0);
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len - 2, &req, record, &f.sent, &f.change, &f.cnt), 0);
	/* A TLV whose lengthField claims more than the message holds. */
	buf[48 + 3] = 0x40;
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len, &req, record, &f.sent, &f.change, &f.cnt), 0);
	/* lengthField 0: no managementId at all (the message is then 52 octets). */
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);
	buf[48 + 3] = 0;
	buf[3] = 52;
	assert_int_equal(mgmt_handle_frame(&f.c, buf, 52, &req, record, &f.sent, &f.change, &f.cnt),
			 0);
	/* Another TLV type where the MANAGEMENT TLV should be. */
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);
	buf[48 + 1] = TLV_PATH_TRACE;
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len, &req, record, &f.sent, &f.change, &f.cnt), 0);
	/* No TLV, and two MANAGEMENT TLVs. */
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);
	buf[3] = 48;
	assert_int_equal(mgmt_handle_frame(&f.c, buf, 48, &req, record, &f.sent, &f.change, &f.cnt),
			 0);
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);
	memcpy(buf + len, buf + 48, 6);
	buf[3] = (uint8_t) (len + 6);
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len + 6, &req, record, &f.sent, &f.change, &f.cnt), 0);

	assert_int_equal(f.sent.n, 0);
	assert_int_equal(f.cnt.c[MGMT_CNT_MALFORMED], 7);
	assert_int_equal(f.cnt.c[MGMT_CNT_ANSWERED], 0);
}

/* Oversized or short data: WRONG_LENGTH, counted, and no change. */
static void test_wrong_length(void **state)
{
	static const uint8_t big[200];
	char hex[2 * MGMT_MSG_MAX + 1];
	struct fixture f;

	fixture_init(&f, 1);
	assert_int_equal(run(&f, 0, MGMT_PRIORITY1, big, sizeof(big), NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080003200500000000");
	assert_int_equal(run(&f, 1, MGMT_PRIORITY1, big, 4, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080003200500000000");
	assert_int_equal(f.change.mask, 0);
	assert_int_equal(run(&f, 0, MGMT_DEFAULT_DATA_SET, big, 21, NULL, true), 1);
	assert_int_equal(f.cnt.c[MGMT_CNT_WRONG_LENGTH], 3);
	assert_int_equal(f.cnt.c[MGMT_CNT_ERROR_STATUS], 3);
}

/*
 * gmCapable 0 (802.1AS-2020 8.6.2.1): a SET PRIORITY1 is passed on to the caller, but the RESPONSE
 * carries the value in effect, 255, as defaultDS (options_default_ds) has it; PRIORITY2 is not
 * bound by the rule.
 */
static void test_set_not_gm_capable(void **state)
{
	const uint8_t p1[2] = { 5, 0 };
	char hex[2 * MGMT_MSG_MAX + 1];
	struct fixture f;

	fixture_init(&f, 1);
	f.o.gmCapable = false;
	options_default_ds(&f.o, &own, 1, 0, &f.c.dds);
	assert_int_equal(f.c.dds.priority1, 255);
	assert_int_equal(run(&f, 1, MGMT_PRIORITY1, p1, 2, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000100042005ff00");
	assert_int_equal(f.change.mask, MGMT_CHANGE_PRIORITY1);
	assert_int_equal(f.change.priority1, 5);
	assert_int_equal(run(&f, 1, MGMT_PRIORITY2, p1, 2, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "0001000420060500");
	/* No options to build the effect from (a caller that gave none): SET is refused. */
	f.c.options = NULL;
	assert_int_equal(run(&f, 1, MGMT_PRIORITY1, p1, 2, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080006200500000000");
}

/* SET: refused unless authorized; otherwise returned to the caller and echoed. */
static void test_set(void **state)
{
	const uint8_t p1[2] = { 5, 0 };
	char hex[2 * MGMT_MSG_MAX + 1];
	struct fixture f;

	fixture_init(&f, 1);
	assert_int_equal(run(&f, 1, MGMT_PRIORITY1, p1, 2, NULL, false), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080006200500000000");
	assert_int_equal(f.change.mask, 0);
	assert_int_equal(f.cnt.c[MGMT_CNT_SET_REFUSED], 1);

	assert_int_equal(run(&f, 1, MGMT_PRIORITY1, p1, 2, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "0001000420050500");
	assert_int_equal(f.change.mask, MGMT_CHANGE_PRIORITY1);
	assert_int_equal(f.change.priority1, 5);
	/* The snapshot is the caller's: this module changed nothing in it. */
	assert_int_equal(f.c.dds.priority1, 128);

	assert_int_equal(run(&f, 1, MGMT_PRIORITY2, p1, 2, NULL, true), 1);
	assert_int_equal(f.change.mask, MGMT_CHANGE_PRIORITY2);
	assert_int_equal(f.change.priority2, 5);
	assert_int_equal(f.cnt.c[MGMT_CNT_SET_APPLIED], 2);

	/* GET-only ids are NOT_SETABLE; settable ones we do not serve NOT_SUPPORTED. */
	run(&f, 1, MGMT_DEFAULT_DATA_SET, p1, 2, NULL, true);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080005200000000000");
	run(&f, 1, MGMT_DOMAIN, p1, 2, NULL, true);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080006200700000000");
	assert_int_equal(f.change.mask, 0);
}

/* GRANDMASTER_SETTINGS_NP (SET, linuxptp's 8 octets), and linuxptp 4.2's ids phcd does not serve:
 * NOT_SUPPORTED, never NO_SUCH_ID. */
static void test_gm_settings_and_np_ids(void **state)
{
	/* class 6, accuracy 0x21, variance 0x4e5d, UTC offset 37, utcOffsetValid ptpTimescale
	 * timeTraceable frequencyTraceable, timeSource GPS */
	const uint8_t gm[8] = { 6, 0x21, 0x4e, 0x5d, 0x00, 0x25, 0x3c, 0x20 };
	static const uint16_t refused[] = { MGMT_PORT_SERVICE_STATS_NP,
					    MGMT_UNICAST_MASTER_TABLE_NP, MGMT_PORT_HWCLOCK_NP,
					    MGMT_SLAVE_EVENT_MONITORING };
	char hex[2 * MGMT_MSG_MAX + 1], want[64];
	struct fixture f;

	fixture_init(&f, 1);
	assert_int_equal(run(&f, 1, MGMT_GRANDMASTER_SETTINGS_NP, gm, 8, NULL, true), 1);
	answer(&f, 0, 2, 0, hex);
	/* ptpTimescale is the clock's (the fixture's: false), not the request's */
	assert_string_equal(hex, "0001000ac00106214e5d00253420");
	assert_int_equal(f.change.mask, MGMT_CHANGE_GM_SETTINGS);
	assert_int_equal(f.change.gm.clockQuality.clockClass, 6);
	assert_int_equal(f.change.gm.clockQuality.offsetScaledLogVariance, 0x4e5d);
	assert_int_equal(f.change.gm.tp.currentUtcOffset, 37);
	assert_true(f.change.gm.tp.timeTraceable && f.change.gm.tp.frequencyTraceable);
	assert_true(f.change.gm.tp.currentUtcOffsetValid && !f.change.gm.tp.ptpTimescale);
	assert_int_equal(f.change.gm.tp.timeSource, 0x20);
	/* two octets short (TLVs are padded to even lengths): WRONG_LENGTH, nothing applied */
	run(&f, 1, MGMT_GRANDMASTER_SETTINGS_NP, gm, 6, NULL, true);
	assert_int_equal(f.change.mask, 0);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		run(&f, 0, refused[i], NULL, 0, NULL, false);
		answer(&f, 0, 2, 1, hex);
		snprintf(want, sizeof(want), "000200080006%04x00000000", refused[i]);
		assert_string_equal(hex, want);
	}
}

/* Targets: clock identity, wildcards, port numbers, boundary hops, and the answering identity. */
static void test_targets(void **state)
{
	struct PortIdentity t = { own, 2 };
	struct mgmt_request req = { .ingress = 1, .set_allowed = false };
	struct PortIdentity other = { { { 1, 2, 3, 4, 5, 6, 7, 8 } }, 0xffff };
	uint8_t buf[MGMT_MSG_MAX];
	char hex[2 * MGMT_MSG_MAX + 1];
	struct fixture f;
	size_t len;

	fixture_init(&f, 2);
	/* A port-level id to every port: one answer each. */
	assert_int_equal(run(&f, 0, MGMT_PORT_DATA_SET, NULL, 0, NULL, false), 2);
	answer(&f, 0, 2, 1, hex);
	answer(&f, 1, 2, 2, hex);
	/* To port 2 only. */
	assert_int_equal(run(&f, 0, MGMT_PORT_DATA_SET, NULL, 0, &t, false), 1);
	answer(&f, 0, 2, 2, hex);
	/* A clock-level id once, whatever the port number. */
	assert_int_equal(run(&f, 0, MGMT_PRIORITY1, NULL, 0, &t, false), 1);
	answer(&f, 0, 2, 0, hex);
	/* A port that does not exist: WRONG_VALUE; unless the caller holds only some ports. */
	t.portNumber = 9;
	assert_int_equal(run(&f, 0, MGMT_PORT_DATA_SET, NULL, 0, &t, false), 1);
	answer(&f, 0, 2, 0, hex);
	assert_string_equal(hex, "000200080004200400000000");
	f.c.all_ports = false;
	assert_int_equal(run(&f, 0, MGMT_PORT_DATA_SET, NULL, 0, &t, false), 0);
	/* Another clock: not for us. */
	assert_int_equal(run(&f, 0, MGMT_PRIORITY1, NULL, 0, &other, false), 0);
	assert_int_equal(f.cnt.c[MGMT_CNT_NOT_FOR_US], 2);

	/* Over the network a clock-level answer comes from the ingress port; hops are used up. */
	len = request(buf, 0, MGMT_PRIORITY1, NULL, 0, &wildcard);
	buf[44] = 3; /* startingBoundaryHops */
	buf[45] = 1; /* boundaryHops */
	f.sent.n = 0;
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len, &req, record, &f.sent, &f.change, &f.cnt), 1);
	answer(&f, 0, 2, 2, hex);
	assert_int_equal(f.sent.buf[0][44], 2);
	assert_int_equal(f.sent.buf[0][45], 2);

	/* Another domain, and answers from other clocks, are not requests to us. */
	buf[4] = 1;
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len, &req, record, &f.sent, &f.change, &f.cnt), 0);
	buf[4] = 0;
	buf[46] = MSG_MANAGEMENT_RESPONSE;
	assert_int_equal(
		mgmt_handle_frame(&f.c, buf, len, &req, record, &f.sent, &f.change, &f.cnt), 0);
	assert_int_equal(f.cnt.c[MGMT_CNT_NOT_A_REQUEST], 1);
	assert_int_equal(f.cnt.c[MGMT_CNT_NOT_FOR_US], 3);
}

static void test_names(void **state)
{
	uint16_t id;

	assert_string_equal(mgmt_id_to_string(MGMT_PORT_PROPERTIES_NP), "PORT_PROPERTIES_NP");
	assert_int_equal(mgmt_id_from_string("TIME_STATUS_NP", &id), 0);
	assert_int_equal(id, MGMT_TIME_STATUS_NP);
	assert_int_equal(mgmt_id_from_string("NOPE", &id), -EINVAL);
	assert_null(mgmt_id_to_string(0x1234));
	for (int c = 0; c < _MGMT_CNT_MAX; c++) {
		assert_non_null(mgmt_counter_to_string(c));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptp4l_layouts),
		cmocka_unit_test(test_every_get),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_wrong_length),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_gm_settings_and_np_ids),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_set_not_gm_capable),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
