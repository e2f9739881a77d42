// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Build one message of every type (with TLVs) through the codec, write them as an Ethernet pcap,
 * and print the field values tshark must decode: "FRAME FIELD VALUE" lines. The tshark oracle
 * (test-codec-tshark.sh) compares the two.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"
#include "ptp/util.h"

static const uint8_t eth_dst[6] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 };
static const uint8_t eth_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static const struct PortIdentity src = {
	.clockIdentity = { { 0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 } },
	.portNumber = 1,
};
static const struct PortIdentity peer = {
	.clockIdentity = { { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 } },
	.portNumber = 7,
};
#define SRC_ID "0x020000fffe000001"
#define PEER_ID "0x001122fffe334455"
static const struct Timestamp ts = { .secondsField = 1700000000, .nanosecondsField = 123456789 };

static void put_le32(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16),
			 (uint8_t) (v >> 24) };

	fwrite(b, 1, 4, f);
}

/* Build m, append it to the pcap as frame n, print the header fields every message has. */
static int emit(FILE *pcap, int n, const struct msg *m)
{
	uint8_t frame[14 + 512];
	ssize_t len;

	memcpy(frame, eth_dst, 6);
	memcpy(frame + 6, eth_src, 6);
	frame[12] = 0x88;
	frame[13] = 0xf7;
	len = msg_build(m, frame + 14, sizeof(frame) - 14);
	if (len < 0) {
		fprintf(stderr, "frame %d: msg_build: %s\n", n, strerror((int) -len));
		return (int) len;
	}
	put_le32(pcap, (uint32_t) n); /* ts_sec */
	put_le32(pcap, 0);
	put_le32(pcap, (uint32_t) (14 + len));
	put_le32(pcap, (uint32_t) (14 + len));
	fwrite(frame, 1, (size_t) (14 + len), pcap);

	printf("%d ptp.v2.messagetype %u\n", n, m->hdr.messageType);
	printf("%d ptp.v2.majorsdoid %u\n", n, m->hdr.majorSdoId);
	printf("%d ptp.v2.versionptp %u\n", n, m->hdr.versionPTP);
	printf("%d ptp.v2.minorversionptp %u\n", n, m->hdr.minorVersionPTP);
	printf("%d ptp.v2.messagelength %zd\n", n, len);
	printf("%d ptp.v2.domainnumber %u\n", n, m->hdr.domainNumber);
	printf("%d ptp.v2.minorsdoid %u\n", n, m->hdr.minorSdoId);
	printf("%d ptp.v2.flags %u\n", n, m->hdr.flagField);
	printf("%d ptp.v2.correction.ns %" PRId64 "\n", n,
	       correction_to_ns(m->hdr.correctionField));
	printf("%d ptp.v2.messagetypespecific %u\n", n, m->hdr.messageTypeSpecific);
	printf("%d ptp.v2.clockidentity %s\n", n, SRC_ID);
	printf("%d ptp.v2.sourceportid %u\n", n, m->hdr.sourcePortIdentity.portNumber);
	printf("%d ptp.v2.sequenceid %u\n", n, m->hdr.sequenceId);
	printf("%d ptp.v2.controlfield %u\n", n, m->hdr.controlField);
	printf("%d ptp.v2.logmessageperiod %d\n", n, m->hdr.logMessageInterval);
	return 0;
}

static void expect_ts(int n, const char *prefix)
{
	printf("%d %s.seconds %" PRIu64 "\n", n, prefix, ts.secondsField);
	printf("%d %s.nanoseconds %u\n", n, prefix, ts.nanosecondsField);
}

/* A PortIdentity field pair (clock identity, port number) that must decode to peer. */
static void expect_peer(int n, const char *identity_field, const char *port_field)
{
	printf("%d %s %s\n", n, identity_field, PEER_ID);
	printf("%d %s %u\n", n, port_field, peer.portNumber);
}

static void init(struct msg *m, enum msg_type type, uint16_t seq)
{
	memset(m, 0, sizeof(*m));
	msg_header_init(&m->hdr, type, 24, &src, seq);
	m->hdr.minorVersionPTP = 1;
}

int main(int argc, char **argv)
{
	static const char text[] = "phcd says no";
	const struct tlv_follow_up_info fui = {
		.cumulativeScaledRateOffset = 4242,
		.gmTimeBaseIndicator = 3,
		.lastGmPhaseChange = { 0, 1000, 0 },
		.scaledLastGmFreqChange = 0,
	};
	const struct tlv_management_error_status es = {
		.managementErrorId = TLV_MGMT_ERR_NOT_SUPPORTED,
		.managementId = 0x2004,
		.displayData = { sizeof(text) - 1, (const uint8_t *) text },
	};
	static const uint8_t sig_data[] = { 0xde, 0xad, 0xbe, 0xef };
	const struct tlv_org_ext sig_oe = {
		.tlvType = TLV_ORGANIZATION_EXTENSION,
		.organizationId = 0x0080c2,
		.organizationSubType = 0x000002,
		.data = sig_data,
		.data_len = sizeof(sig_data),
	};
	struct ClockIdentity path[2] = { src.clockIdentity, peer.clockIdentity };
	uint8_t tlvbuf[256];
	struct tlv_builder b;
	struct msg m;
	int n = 0, r = 0;
	FILE *pcap;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap > expected.txt\n", argv[0]);
		return 2;
	}
	pcap = fopen(argv[1], "we");
	if (!pcap) {
		perror(argv[1]);
		return 1;
	}
	/* pcap global header: LINKTYPE_ETHERNET */
	put_le32(pcap, 0xa1b2c3d4);
	fwrite("\x02\x00\x04\x00", 1, 4, pcap);
	put_le32(pcap, 0);
	put_le32(pcap, 0);
	put_le32(pcap, 65535);
	put_le32(pcap, 1);

	/* One-step Sync, with a correction of 1.5 us. */
	init(&m, MSG_SYNC, 100);
	m.hdr.correctionField = ns_to_correction(1500);
	m.body.sync.originTimestamp = ts;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.sdr.origintimestamp");

	/* Two-step Sync + Follow_Up with the 802.1AS information TLV (majorSdoId 1 = gPTP). */
	init(&m, MSG_SYNC, 101);
	m.hdr.majorSdoId = 1;
	m.hdr.flagField = MSG_FLAG_TWO_STEP;
	r = r ?: emit(pcap, ++n, &m);
	init(&m, MSG_FOLLOW_UP, 101);
	m.hdr.majorSdoId = 1;
	m.body.follow_up.preciseOriginTimestamp = ts;
	tlv_builder_init(&b, tlvbuf, sizeof(tlvbuf));
	r = r ?: tlv_builder_add_follow_up_info(&b, &fui);
	m.tlv = tlvbuf;
	m.tlv_len = tlv_builder_len(&b);
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.fu.preciseorigintimestamp");
	printf("%d ptp.as.fu.cumulativeScaledRateOffset %d\n", n, fui.cumulativeScaledRateOffset);
	printf("%d ptp.as.fu.gmTimeBaseIndicator %u\n", n, fui.gmTimeBaseIndicator);

	init(&m, MSG_DELAY_REQ, 102);
	m.body.delay_req.originTimestamp = ts;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.sdr.origintimestamp");

	init(&m, MSG_DELAY_RESP, 102);
	m.hdr.logMessageInterval = -3;
	m.body.delay_resp.receiveTimestamp = ts;
	m.body.delay_resp.requestingPortIdentity = peer;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.dr.receivetimestamp");
	expect_peer(n, "ptp.v2.dr.requestingsourceportidentity",
		    "ptp.v2.dr.requestingsourceportid");

	init(&m, MSG_PDELAY_REQ, 103);
	m.body.pdelay_req.originTimestamp = ts;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.pdrq.origintimestamp");

	init(&m, MSG_PDELAY_RESP, 103);
	m.hdr.flagField = MSG_FLAG_TWO_STEP;
	m.body.pdelay_resp.requestReceiptTimestamp = ts;
	m.body.pdelay_resp.requestingPortIdentity = peer;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.pdrs.requestreceipttimestamp");
	expect_peer(n, "ptp.v2.pdrs.requestingportidentity", "ptp.v2.pdrs.requestingsourceportid");

	init(&m, MSG_PDELAY_RESP_FOLLOW_UP, 103);
	m.body.pdelay_resp_follow_up.responseOriginTimestamp = ts;
	m.body.pdelay_resp_follow_up.requestingPortIdentity = peer;
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.pdfu.responseorigintimestamp");
	expect_peer(n, "ptp.v2.pdfu.requestingportidentity", "ptp.v2.pdfu.requestingsourceportid");

	/* Announce with every time property flag and a two-entry PATH_TRACE. */
	init(&m, MSG_ANNOUNCE, 104);
	m.hdr.logMessageInterval = 1;
	m.hdr.flagField = MSG_FLAG_LEAP_61 | MSG_FLAG_CURRENT_UTC_OFFSET_VALID |
			  MSG_FLAG_PTP_TIMESCALE | MSG_FLAG_TIME_TRACEABLE |
			  MSG_FLAG_FREQUENCY_TRACEABLE;
	m.body.announce = (struct msg_announce){
		.originTimestamp = ts,
		.currentUtcOffset = 37,
		.grandmasterPriority1 = 100,
		.grandmasterClockQuality = { 6, 0x21, 0x4e5d },
		.grandmasterPriority2 = 200,
		.grandmasterIdentity = peer.clockIdentity,
		.stepsRemoved = 2,
		.timeSource = 0x20,
	};
	tlv_builder_init(&b, tlvbuf, sizeof(tlvbuf));
	r = r ?: tlv_builder_add_path_trace(&b, path, ARRAY_SIZE(path));
	m.tlv = tlvbuf;
	m.tlv_len = tlv_builder_len(&b);
	r = r ?: emit(pcap, ++n, &m);
	expect_ts(n, "ptp.v2.an.origintimestamp");
	printf("%d ptp.v2.an.origincurrentutcoffset 37\n", n);
	printf("%d ptp.v2.an.priority1 100\n", n);
	printf("%d ptp.v2.an.grandmasterclockclass 6\n", n);
	printf("%d ptp.v2.an.grandmasterclockaccuracy 33\n", n);
	printf("%d ptp.v2.an.grandmasterclockvariance 20061\n", n);
	printf("%d ptp.v2.an.priority2 200\n", n);
	printf("%d ptp.v2.an.grandmasterclockidentity %s\n", n, PEER_ID);
	printf("%d ptp.v2.an.localstepsremoved 2\n", n);
	printf("%d ptp.v2.timesource 32\n", n);
	printf("%d ptp.v2.an.tlvType %u\n", n, TLV_PATH_TRACE);
	printf("%d ptp.v2.an.pathsequence %s\n", n, SRC_ID);
	printf("%d ptp.v2.an.pathsequence %s\n", n, PEER_ID);

	init(&m, MSG_SIGNALING, 105);
	m.body.signaling.targetPortIdentity = peer;
	tlv_builder_init(&b, tlvbuf, sizeof(tlvbuf));
	r = r ?: tlv_builder_add_org_ext(&b, &sig_oe);
	m.tlv = tlvbuf;
	m.tlv_len = tlv_builder_len(&b);
	r = r ?: emit(pcap, ++n, &m);
	expect_peer(n, "ptp.v2.sig.targetportidentity", "ptp.v2.sig.targetportid");
	printf("%d ptp.v2.sig.tlv.tlvType %u\n", n, TLV_ORGANIZATION_EXTENSION);

	/* Management GET CURRENT_DATA_SET, then a RESPONSE carrying MANAGEMENT_ERROR_STATUS. */
	init(&m, MSG_MANAGEMENT, 106);
	m.body.management = (struct msg_management){
		.targetPortIdentity = peer,
		.startingBoundaryHops = 3,
		.boundaryHops = 2,
		.actionField = MSG_MANAGEMENT_GET,
	};
	tlv_builder_init(&b, tlvbuf, sizeof(tlvbuf));
	r = r ?: tlv_builder_add_management(&b, 0x2001, NULL, 0);
	m.tlv = tlvbuf;
	m.tlv_len = tlv_builder_len(&b);
	r = r ?: emit(pcap, ++n, &m);
	expect_peer(n, "ptp.v2.mm.targetportidentity", "ptp.v2.mm.targetportid");
	printf("%d ptp.v2.mm.startingboundaryhops 3\n", n);
	printf("%d ptp.v2.mm.boundaryhops 2\n", n);
	printf("%d ptp.v2.mm.action %u\n", n, MSG_MANAGEMENT_GET);
	printf("%d ptp.v2.mm.tlvType %u\n", n, TLV_MANAGEMENT);
	printf("%d ptp.v2.mm.lengthField 2\n", n);
	printf("%d ptp.v2.mm.managementId %u\n", n, 0x2001);

	init(&m, MSG_MANAGEMENT, 106);
	m.body.management = (struct msg_management){
		.targetPortIdentity = peer,
		.startingBoundaryHops = 3,
		.boundaryHops = 3,
		.actionField = MSG_MANAGEMENT_RESPONSE,
	};
	tlv_builder_init(&b, tlvbuf, sizeof(tlvbuf));
	r = r ?: tlv_builder_add_management_error_status(&b, &es);
	m.tlv = tlvbuf;
	m.tlv_len = tlv_builder_len(&b);
	r = r ?: emit(pcap, ++n, &m);
	printf("%d ptp.v2.mm.action %u\n", n, MSG_MANAGEMENT_RESPONSE);
	printf("%d ptp.v2.mm.tlvType %u\n", n, TLV_MANAGEMENT_ERROR_STATUS);
	printf("%d ptp.v2.mm.managementErrorId %u\n", n, TLV_MGMT_ERR_NOT_SUPPORTED);
	printf("%d ptp.v2.mm.managementId %u\n", n, 0x2004);
	printf("%d ptp.v2.mm.displayData %s\n", n, text);

	if (fclose(pcap) != 0) {
		r = r ?: -errno;
	}
	if (r < 0) {
		fprintf(stderr, "codec-pcap: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
