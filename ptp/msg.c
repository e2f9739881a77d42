// SPDX-License-Identifier: GPL-2.0-or-later
/* Parse and build IEEE 1588-2019 clause 13 messages through the bounds-checked wire reader/writer.
 */
#include <errno.h>
#include <string.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"
#include "ptp/util.h"
#include "ptp/wire.h"

/*
 * Per-type facts, one entry per messageType (13.3.2.3 Table 36); their body codecs apart, in
 * codecs[]: a table of pointers is relocated data, copied by each worker, and this one need not be.
 */
struct msg_type_info {
	char name[24];
	size_t len;	     /* header + body (13.5-13.12) */
	uint8_t control;     /* 13.3.2.12 Table 42 */
	int8_t log_interval; /* default logMessageInterval (13.3.2.14) */
};

struct msg_codec {
	int (*parse)(struct wire_reader *r, struct msg *m);
	int (*build)(struct wire_writer *w, const struct msg *m);
};

/* Timestamp + PortIdentity: the shape of Delay_Resp, Pdelay_Resp and Pdelay_Resp_Follow_Up. */
static int get_ts_pid(struct wire_reader *r, struct Timestamp *ts, struct PortIdentity *pid)
{
	int e = wire_get_timestamp(r, ts);

	return e < 0 ? e : wire_get_port_identity(r, pid);
}

static int put_ts_pid(struct wire_writer *w, const struct Timestamp *ts,
		      const struct PortIdentity *pid)
{
	int e = wire_put_timestamp(w, ts);

	return e < 0 ? e : wire_put_port_identity(w, pid);
}

/* 13.6 Sync, Delay_Req */
static int parse_sync(struct wire_reader *r, struct msg *m)
{
	return wire_get_timestamp(r, &m->body.sync.originTimestamp);
}

static int build_sync(struct wire_writer *w, const struct msg *m)
{
	return wire_put_timestamp(w, &m->body.sync.originTimestamp);
}

/* 13.7 Follow_Up */
static int parse_follow_up(struct wire_reader *r, struct msg *m)
{
	return wire_get_timestamp(r, &m->body.follow_up.preciseOriginTimestamp);
}

static int build_follow_up(struct wire_writer *w, const struct msg *m)
{
	return wire_put_timestamp(w, &m->body.follow_up.preciseOriginTimestamp);
}

/* 13.8 Delay_Resp */
static int parse_delay_resp(struct wire_reader *r, struct msg *m)
{
	struct msg_delay_resp *b = &m->body.delay_resp;

	return get_ts_pid(r, &b->receiveTimestamp, &b->requestingPortIdentity);
}

static int build_delay_resp(struct wire_writer *w, const struct msg *m)
{
	const struct msg_delay_resp *b = &m->body.delay_resp;

	return put_ts_pid(w, &b->receiveTimestamp, &b->requestingPortIdentity);
}

/* 13.9 Pdelay_Req: originTimestamp then 10 reserved octets (the size of a Pdelay_Resp body). */
static int parse_pdelay_req(struct wire_reader *r, struct msg *m)
{
	int e = wire_get_timestamp(r, &m->body.pdelay_req.originTimestamp);

	return e < 0 ? e : wire_skip(r, 10);
}

static int build_pdelay_req(struct wire_writer *w, const struct msg *m)
{
	int e = wire_put_timestamp(w, &m->body.pdelay_req.originTimestamp);

	return e < 0 ? e : wire_put_zeros(w, 10);
}

/* 13.10 Pdelay_Resp */
static int parse_pdelay_resp(struct wire_reader *r, struct msg *m)
{
	struct msg_pdelay_resp *b = &m->body.pdelay_resp;

	return get_ts_pid(r, &b->requestReceiptTimestamp, &b->requestingPortIdentity);
}

static int build_pdelay_resp(struct wire_writer *w, const struct msg *m)
{
	const struct msg_pdelay_resp *b = &m->body.pdelay_resp;

	return put_ts_pid(w, &b->requestReceiptTimestamp, &b->requestingPortIdentity);
}

/* 13.11 Pdelay_Resp_Follow_Up */
static int parse_pdelay_resp_follow_up(struct wire_reader *r, struct msg *m)
{
	struct msg_pdelay_resp_follow_up *b = &m->body.pdelay_resp_follow_up;

	return get_ts_pid(r, &b->responseOriginTimestamp, &b->requestingPortIdentity);
}

static int build_pdelay_resp_follow_up(struct wire_writer *w, const struct msg *m)
{
	const struct msg_pdelay_resp_follow_up *b = &m->body.pdelay_resp_follow_up;

	return put_ts_pid(w, &b->responseOriginTimestamp, &b->requestingPortIdentity);
}

/* 13.5 Announce, Table 43 */
static int parse_announce(struct wire_reader *r, struct msg *m)
{
	struct msg_announce *a = &m->body.announce;
	uint16_t utc;

	if (wire_get_timestamp(r, &a->originTimestamp) < 0 || wire_get_u16(r, &utc) < 0 ||
	    wire_skip(r, 1) < 0 || wire_get_u8(r, &a->grandmasterPriority1) < 0 ||
	    wire_get_clock_quality(r, &a->grandmasterClockQuality) < 0 ||
	    wire_get_u8(r, &a->grandmasterPriority2) < 0 ||
	    wire_get_clock_identity(r, &a->grandmasterIdentity) < 0 ||
	    wire_get_u16(r, &a->stepsRemoved) < 0 || wire_get_u8(r, &a->timeSource) < 0) {
		return -EBADMSG;
	}
	a->currentUtcOffset = (int16_t) utc;
	return 0;
}

static int build_announce(struct wire_writer *w, const struct msg *m)
{
	const struct msg_announce *a = &m->body.announce;
	int e;

	e = wire_put_timestamp(w, &a->originTimestamp);
	if (e < 0) {
		return e;
	}
	if (wire_put_u16(w, (uint16_t) a->currentUtcOffset) < 0 || wire_put_u8(w, 0) < 0 ||
	    wire_put_u8(w, a->grandmasterPriority1) < 0 ||
	    wire_put_clock_quality(w, &a->grandmasterClockQuality) < 0 ||
	    wire_put_u8(w, a->grandmasterPriority2) < 0 ||
	    wire_put_clock_identity(w, &a->grandmasterIdentity) < 0 ||
	    wire_put_u16(w, a->stepsRemoved) < 0 || wire_put_u8(w, a->timeSource) < 0) {
		return -EMSGSIZE;
	}
	return 0;
}

/* 13.12 Signaling */
static int parse_signaling(struct wire_reader *r, struct msg *m)
{
	return wire_get_port_identity(r, &m->body.signaling.targetPortIdentity);
}

static int build_signaling(struct wire_writer *w, const struct msg *m)
{
	return wire_put_port_identity(w, &m->body.signaling.targetPortIdentity);
}

/* 15.4.1 Table 149: actionField's high nibble and the last octet are reserved. */
static int parse_management(struct wire_reader *r, struct msg *m)
{
	struct msg_management *g = &m->body.management;
	uint8_t action;

	if (wire_get_port_identity(r, &g->targetPortIdentity) < 0 ||
	    wire_get_u8(r, &g->startingBoundaryHops) < 0 || wire_get_u8(r, &g->boundaryHops) < 0 ||
	    wire_get_u8(r, &action) < 0 || wire_skip(r, 1) < 0) {
		return -EBADMSG;
	}
	g->actionField = action & 0x0F;
	return 0;
}

static int build_management(struct wire_writer *w, const struct msg *m)
{
	const struct msg_management *g = &m->body.management;

	if (g->actionField > 0x0F) {
		return -EINVAL;
	}
	if (wire_put_port_identity(w, &g->targetPortIdentity) < 0 ||
	    wire_put_u8(w, g->startingBoundaryHops) < 0 || wire_put_u8(w, g->boundaryHops) < 0 ||
	    wire_put_u8(w, g->actionField) < 0 || wire_put_u8(w, 0) < 0) {
		return -EMSGSIZE;
	}
	return 0;
}

#define NONE MSG_LOG_INTERVAL_NONE

static const struct msg_type_info msg_types[16] = {
	[MSG_SYNC] = { "SYNC", 44, MSG_CONTROL_SYNC, 0 },
	[MSG_DELAY_REQ] = { "DELAY_REQ", 44, MSG_CONTROL_DELAY_REQ, NONE },
	[MSG_PDELAY_REQ] = { "PDELAY_REQ", 54, MSG_CONTROL_OTHER, NONE },
	[MSG_PDELAY_RESP] = { "PDELAY_RESP", 54, MSG_CONTROL_OTHER, NONE },
	[MSG_FOLLOW_UP] = { "FOLLOW_UP", 44, MSG_CONTROL_FOLLOW_UP, 0 },
	[MSG_DELAY_RESP] = { "DELAY_RESP", 54, MSG_CONTROL_DELAY_RESP, 0 },
	[MSG_PDELAY_RESP_FOLLOW_UP] = { "PDELAY_RESP_FOLLOW_UP", 54, MSG_CONTROL_OTHER, NONE },
	[MSG_ANNOUNCE] = { "ANNOUNCE", 64, MSG_CONTROL_OTHER, 0 },
	[MSG_SIGNALING] = { "SIGNALING", 44, MSG_CONTROL_OTHER, NONE },
	[MSG_MANAGEMENT] = { "MANAGEMENT", 48, MSG_CONTROL_MANAGEMENT, NONE },
};
static const struct msg_codec codecs[16] = {
	[MSG_SYNC] = { parse_sync, build_sync },
	[MSG_DELAY_REQ] = { parse_sync, build_sync },
	[MSG_PDELAY_REQ] = { parse_pdelay_req, build_pdelay_req },
	[MSG_PDELAY_RESP] = { parse_pdelay_resp, build_pdelay_resp },
	[MSG_FOLLOW_UP] = { parse_follow_up, build_follow_up },
	[MSG_DELAY_RESP] = { parse_delay_resp, build_delay_resp },
	[MSG_PDELAY_RESP_FOLLOW_UP] = { parse_pdelay_resp_follow_up, build_pdelay_resp_follow_up },
	[MSG_ANNOUNCE] = { parse_announce, build_announce },
	[MSG_SIGNALING] = { parse_signaling, build_signaling },
	[MSG_MANAGEMENT] = { parse_management, build_management },
};

static const struct msg_type_info *type_info(unsigned t)
{
	if (t >= ARRAY_SIZE(msg_types) || !msg_types[t].name[0]) {
		return NULL;
	}
	return &msg_types[t];
}

const char *msg_type_to_string(enum msg_type t)
{
	const struct msg_type_info *i = type_info(t);

	return i ? i->name : NULL;
}

int msg_type_from_string(const char *s, enum msg_type *ret)
{
	for (unsigned t = 0; t < ARRAY_SIZE(msg_types); t++) {
		if (msg_types[t].name[0] && strcmp(msg_types[t].name, s) == 0) {
			*ret = (enum msg_type) t;
			return 0;
		}
	}
	return -EINVAL;
}

bool msg_type_is_valid(unsigned t)
{
	return type_info(t) != NULL;
}

bool msg_type_is_event(enum msg_type t)
{
	/* 13.3.2.3: event messages are the types 0x0-0x3. */
	return t <= MSG_PDELAY_RESP;
}

size_t msg_base_len(enum msg_type t)
{
	const struct msg_type_info *i = type_info(t);

	return i ? i->len : 0;
}

/* 13.3.1 Table 35: the 34-octet common header, reader positioned at its start. */
static int get_header(struct wire_reader *r, struct msg_header *h)
{
	uint8_t b0, b1;

	if (wire_get_u8(r, &b0) < 0 || wire_get_u8(r, &b1) < 0 ||
	    wire_get_u16(r, &h->messageLength) < 0 || wire_get_u8(r, &h->domainNumber) < 0 ||
	    wire_get_u8(r, &h->minorSdoId) < 0 || wire_get_u16(r, &h->flagField) < 0 ||
	    wire_get_u64(r, (uint64_t *) &h->correctionField) < 0 ||
	    wire_get_u32(r, &h->messageTypeSpecific) < 0 ||
	    wire_get_port_identity(r, &h->sourcePortIdentity) < 0 ||
	    wire_get_u16(r, &h->sequenceId) < 0 || wire_get_u8(r, &h->controlField) < 0 ||
	    wire_get_u8(r, (uint8_t *) &h->logMessageInterval) < 0) {
		return -EBADMSG;
	}
	h->majorSdoId = b0 >> 4;
	h->messageType = b0 & 0x0F;
	h->minorVersionPTP = b1 >> 4;
	h->versionPTP = b1 & 0x0F;
	return 0;
}

/* Parse the 34-octet header only (same version and length checks as msg_parse). */
static int msg_header_parse(const void *buf, size_t len, struct msg_header *ret)
{
	struct wire_reader r;
	struct msg_header h;

	wire_reader_init(&r, buf, len);
	if (get_header(&r, &h) < 0) {
		return -EBADMSG;
	}
	/* 13.3.2.4: versionPTP 2; any minorVersionPTP is accepted (19.4.1 compatibility). */
	if (h.versionPTP != MSG_VERSION_PTP) {
		return -EPROTONOSUPPORT;
	}
	/* 13.3.2.5: a frame may carry padding after messageLength, never less than it. */
	if (h.messageLength < MSG_HEADER_LEN || h.messageLength > len) {
		return -EBADMSG;
	}
	*ret = h;
	return 0;
}

int msg_parse(const void *buf, size_t len, struct msg *ret)
{
	const struct msg_type_info *info;
	struct wire_reader r;
	struct msg m;
	int e;

	memset(&m, 0, sizeof(m));
	e = msg_header_parse(buf, len, &m.hdr);
	if (e < 0) {
		return e;
	}
	info = type_info(m.hdr.messageType);
	if (!info || m.hdr.messageLength < info->len) {
		return -EBADMSG;
	}
	wire_reader_init(&r, buf, m.hdr.messageLength);
	(void) wire_skip(&r, MSG_HEADER_LEN);
	e = codecs[m.hdr.messageType].parse(&r, &m);
	if (e < 0) {
		return -EBADMSG;
	}
	m.tlv_len = wire_reader_left(&r);
	(void) wire_get_ptr(&r, &m.tlv, m.tlv_len);
	e = tlv_validate(m.tlv, m.tlv_len);
	if (e < 0) {
		return e;
	}
	*ret = m;
	return 0;
}

static int put_header(struct wire_writer *w, const struct msg_header *h, uint16_t length)
{
	if (h->majorSdoId > 0x0F || h->minorVersionPTP > 0x0F || h->versionPTP > 0x0F) {
		return -EINVAL;
	}
	if (wire_put_u8(w, (uint8_t) (h->majorSdoId << 4 | h->messageType)) < 0 ||
	    wire_put_u8(w, (uint8_t) (h->minorVersionPTP << 4 | h->versionPTP)) < 0 ||
	    wire_put_u16(w, length) < 0 || wire_put_u8(w, h->domainNumber) < 0 ||
	    wire_put_u8(w, h->minorSdoId) < 0 || wire_put_u16(w, h->flagField) < 0 ||
	    wire_put_u64(w, (uint64_t) h->correctionField) < 0 ||
	    wire_put_u32(w, h->messageTypeSpecific) < 0 ||
	    wire_put_port_identity(w, &h->sourcePortIdentity) < 0 ||
	    wire_put_u16(w, h->sequenceId) < 0 || wire_put_u8(w, h->controlField) < 0 ||
	    wire_put_u8(w, (uint8_t) h->logMessageInterval) < 0) {
		return -EMSGSIZE;
	}
	return 0;
}

ssize_t msg_build(const struct msg *m, void *buf, size_t size)
{
	const struct msg_type_info *info = type_info(m->hdr.messageType);
	struct wire_writer w;
	size_t total;
	int e;

	if (!info || (m->tlv_len > 0 && !m->tlv)) {
		return -EINVAL;
	}
	if (m->tlv_len > MSG_MAX_LEN - info->len) {
		return -EMSGSIZE;
	}
	total = info->len + m->tlv_len;
	if (total > size) {
		return -EMSGSIZE;
	}
	wire_writer_init(&w, buf, size);
	e = put_header(&w, &m->hdr, (uint16_t) total);
	if (e < 0) {
		return e;
	}
	e = codecs[m->hdr.messageType].build(&w, m);
	if (e < 0) {
		return e;
	}
	e = wire_put_bytes(&w, m->tlv, m->tlv_len);
	if (e < 0) {
		return e;
	}
	return (ssize_t) w.pos;
}

static bool ts_equal(const struct Timestamp *a, const struct Timestamp *b)
{
	return a->secondsField == b->secondsField && a->nanosecondsField == b->nanosecondsField;
}

static bool header_equal(const struct msg_header *a, const struct msg_header *b)
{
	return a->majorSdoId == b->majorSdoId && a->messageType == b->messageType &&
	       a->minorVersionPTP == b->minorVersionPTP && a->versionPTP == b->versionPTP &&
	       a->messageLength == b->messageLength && a->domainNumber == b->domainNumber &&
	       a->minorSdoId == b->minorSdoId && a->flagField == b->flagField &&
	       a->correctionField == b->correctionField &&
	       a->messageTypeSpecific == b->messageTypeSpecific &&
	       port_identity_equal(&a->sourcePortIdentity, &b->sourcePortIdentity) &&
	       a->sequenceId == b->sequenceId && a->controlField == b->controlField &&
	       a->logMessageInterval == b->logMessageInterval;
}

static bool announce_equal(const struct msg_announce *a, const struct msg_announce *b)
{
	const struct ClockQuality *qa = &a->grandmasterClockQuality;
	const struct ClockQuality *qb = &b->grandmasterClockQuality;

	return ts_equal(&a->originTimestamp, &b->originTimestamp) &&
	       a->currentUtcOffset == b->currentUtcOffset &&
	       a->grandmasterPriority1 == b->grandmasterPriority1 &&
	       qa->clockClass == qb->clockClass && qa->clockAccuracy == qb->clockAccuracy &&
	       qa->offsetScaledLogVariance == qb->offsetScaledLogVariance &&
	       a->grandmasterPriority2 == b->grandmasterPriority2 &&
	       clock_identity_equal(&a->grandmasterIdentity, &b->grandmasterIdentity) &&
	       a->stepsRemoved == b->stepsRemoved && a->timeSource == b->timeSource;
}

static bool management_equal(const struct msg_management *a, const struct msg_management *b)
{
	return port_identity_equal(&a->targetPortIdentity, &b->targetPortIdentity) &&
	       a->startingBoundaryHops == b->startingBoundaryHops &&
	       a->boundaryHops == b->boundaryHops && a->actionField == b->actionField;
}

static bool body_equal(const struct msg *a, const struct msg *b)
{
	/* Sync and Delay_Req share struct msg_sync: delay_req is read through sync. */
	switch (a->hdr.messageType) {
	case MSG_SYNC:
	case MSG_DELAY_REQ:
		return ts_equal(&a->body.sync.originTimestamp, &b->body.sync.originTimestamp);
	case MSG_PDELAY_REQ:
		return ts_equal(&a->body.pdelay_req.originTimestamp,
				&b->body.pdelay_req.originTimestamp);
	case MSG_FOLLOW_UP:
		return ts_equal(&a->body.follow_up.preciseOriginTimestamp,
				&b->body.follow_up.preciseOriginTimestamp);
	case MSG_DELAY_RESP:
		return ts_equal(&a->body.delay_resp.receiveTimestamp,
				&b->body.delay_resp.receiveTimestamp) &&
		       port_identity_equal(&a->body.delay_resp.requestingPortIdentity,
					   &b->body.delay_resp.requestingPortIdentity);
	case MSG_PDELAY_RESP:
		return ts_equal(&a->body.pdelay_resp.requestReceiptTimestamp,
				&b->body.pdelay_resp.requestReceiptTimestamp) &&
		       port_identity_equal(&a->body.pdelay_resp.requestingPortIdentity,
					   &b->body.pdelay_resp.requestingPortIdentity);
	case MSG_PDELAY_RESP_FOLLOW_UP:
		return ts_equal(&a->body.pdelay_resp_follow_up.responseOriginTimestamp,
				&b->body.pdelay_resp_follow_up.responseOriginTimestamp) &&
		       port_identity_equal(&a->body.pdelay_resp_follow_up.requestingPortIdentity,
					   &b->body.pdelay_resp_follow_up.requestingPortIdentity);
	case MSG_ANNOUNCE:
		return announce_equal(&a->body.announce, &b->body.announce);
	case MSG_SIGNALING:
		return port_identity_equal(&a->body.signaling.targetPortIdentity,
					   &b->body.signaling.targetPortIdentity);
	case MSG_MANAGEMENT:
		return management_equal(&a->body.management, &b->body.management);
	default:
		return true;
	}
}

bool msg_equal(const struct msg *a, const struct msg *b)
{
	return header_equal(&a->hdr, &b->hdr) && body_equal(a, b) && a->tlv_len == b->tlv_len &&
	       (a->tlv_len == 0 || memcmp(a->tlv, b->tlv, a->tlv_len) == 0);
}

void msg_header_init(struct msg_header *h, enum msg_type type, uint8_t domainNumber,
		     const struct PortIdentity *sourcePortIdentity, uint16_t sequenceId)
{
	const struct msg_type_info *info = type_info(type);

	memset(h, 0, sizeof(*h));
	h->messageType = (uint8_t) type;
	h->versionPTP = MSG_VERSION_PTP;
	h->minorVersionPTP = MSG_MINOR_VERSION_PTP;
	h->domainNumber = domainNumber;
	h->sourcePortIdentity = *sourcePortIdentity;
	h->sequenceId = sequenceId;
	h->controlField = info ? info->control : MSG_CONTROL_OTHER;
	h->logMessageInterval = info ? info->log_interval : (int8_t) MSG_LOG_INTERVAL_NONE;
	if (info) {
		h->messageLength = (uint16_t) info->len;
	}
}
