/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IEEE 1588-2019 clause 13 messages: host-order structs, and parse/build through ptp/wire.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ptp/types.h"

/* IEEE 1588-2019 13.3.2.3 Table 36. Values 0x4-0x7, 0xE and 0xF are reserved. */
enum msg_type {
	MSG_SYNC = 0x0,
	MSG_DELAY_REQ = 0x1,
	MSG_PDELAY_REQ = 0x2,
	MSG_PDELAY_RESP = 0x3,
	MSG_FOLLOW_UP = 0x8,
	MSG_DELAY_RESP = 0x9,
	MSG_PDELAY_RESP_FOLLOW_UP = 0xA,
	MSG_ANNOUNCE = 0xB,
	MSG_SIGNALING = 0xC,
	MSG_MANAGEMENT = 0xD,
};

/* "SYNC", "DELAY_REQ", ... as linuxptp names them; NULL for a reserved value. */
const char *msg_type_to_string(enum msg_type t);
/* -EINVAL for an unknown name. */
int msg_type_from_string(const char *s, enum msg_type *ret);
/* false for the reserved values 0x4-0x7, 0xE, 0xF (msg_parse rejects them). */
bool msg_type_is_valid(unsigned t);
/* Event messages (Sync, Delay_Req, Pdelay_Req, Pdelay_Resp) carry timestamps (13.3.2.3). */
bool msg_type_is_event(enum msg_type t);

/*
 * flagField (13.3.2.8 Table 37) as one host-order u16: octet 0 is the high byte, so bit j of
 * octet 0 is (1 << (8 + j)) and bit j of octet 1 is (1 << j).
 */
#define MSG_FLAG_ALTERNATE_MASTER 0x0100
#define MSG_FLAG_TWO_STEP 0x0200
#define MSG_FLAG_UNICAST 0x0400
#define MSG_FLAG_PROFILE_SPECIFIC_1 0x2000
#define MSG_FLAG_PROFILE_SPECIFIC_2 0x4000
#define MSG_FLAG_LEAP_61 0x0001
#define MSG_FLAG_LEAP_59 0x0002
#define MSG_FLAG_CURRENT_UTC_OFFSET_VALID 0x0004
#define MSG_FLAG_PTP_TIMESCALE 0x0008
#define MSG_FLAG_TIME_TRACEABLE 0x0010
#define MSG_FLAG_FREQUENCY_TRACEABLE 0x0020
#define MSG_FLAG_SYNCHRONIZATION_UNCERTAIN 0x0040

/* 13.3.2.14: logMessageInterval of messages that have no interval. */
#define MSG_LOG_INTERVAL_NONE 0x7F

/* 13.3.2.12 Table 42: controlField (deprecated, but still sent for compatibility with v1). */
enum msg_control {
	MSG_CONTROL_SYNC = 0,
	MSG_CONTROL_DELAY_REQ = 1,
	MSG_CONTROL_FOLLOW_UP = 2,
	MSG_CONTROL_DELAY_RESP = 3,
	MSG_CONTROL_MANAGEMENT = 4,
	MSG_CONTROL_OTHER = 5,
};

#define MSG_VERSION_PTP 2
#define MSG_MINOR_VERSION_PTP 1
#define MSG_HEADER_LEN 34
#define MSG_MAX_LEN 0xFFFF

/* IEEE 1588-2019 13.3 Table 35, every field, host order. */
struct msg_header {
	uint8_t majorSdoId;	 /* 4 bits (was transportSpecific) */
	uint8_t messageType;	 /* 4 bits, enum msg_type */
	uint8_t minorVersionPTP; /* 4 bits */
	uint8_t versionPTP;	 /* 4 bits */
	uint16_t messageLength;	 /* set by msg_build */
	uint8_t domainNumber;
	uint8_t minorSdoId;
	uint16_t flagField;	 /* MSG_FLAG_* */
	int64_t correctionField; /* ns * 2^16, see correction_to_ns() */
	uint32_t messageTypeSpecific;
	struct PortIdentity sourcePortIdentity;
	uint16_t sequenceId;
	uint8_t controlField;
	int8_t logMessageInterval;
};

/* 13.5 Announce */
struct msg_announce {
	struct Timestamp originTimestamp;
	int16_t currentUtcOffset;
	uint8_t grandmasterPriority1;
	struct ClockQuality grandmasterClockQuality;
	uint8_t grandmasterPriority2;
	struct ClockIdentity grandmasterIdentity;
	uint16_t stepsRemoved;
	uint8_t timeSource; /* 7.6.2.8 Table 6 */
};

/* 13.6 Sync and 13.6 Delay_Req */
struct msg_sync {
	struct Timestamp originTimestamp;
};

/* 13.7 Follow_Up */
struct msg_follow_up {
	struct Timestamp preciseOriginTimestamp;
};

/* 13.8 Delay_Resp */
struct msg_delay_resp {
	struct Timestamp receiveTimestamp;
	struct PortIdentity requestingPortIdentity;
};

/* 13.9 Pdelay_Req (followed by 10 reserved octets) */
struct msg_pdelay_req {
	struct Timestamp originTimestamp;
};

/* 13.10 Pdelay_Resp */
struct msg_pdelay_resp {
	struct Timestamp requestReceiptTimestamp;
	struct PortIdentity requestingPortIdentity;
};

/* 13.11 Pdelay_Resp_Follow_Up */
struct msg_pdelay_resp_follow_up {
	struct Timestamp responseOriginTimestamp;
	struct PortIdentity requestingPortIdentity;
};

/* 13.12 Signaling */
struct msg_signaling {
	struct PortIdentity targetPortIdentity;
};

/* 15.4.1 Table 150 actionField */
enum msg_management_action {
	MSG_MANAGEMENT_GET = 0,
	MSG_MANAGEMENT_SET = 1,
	MSG_MANAGEMENT_RESPONSE = 2,
	MSG_MANAGEMENT_COMMAND = 3,
	MSG_MANAGEMENT_ACKNOWLEDGE = 4,
};

/* 15.4.1 Management */
struct msg_management {
	struct PortIdentity targetPortIdentity;
	uint8_t startingBoundaryHops;
	uint8_t boundaryHops;
	uint8_t actionField; /* low 4 bits, enum msg_management_action; 5-15 reserved, kept as is */
};

/*
 * A parsed message. tlv points into the buffer given to msg_parse() (the bytes after the body up
 * to messageLength), so it lives as long as that buffer; walk it with ptp/tlv.h. For msg_build()
 * tlv/tlv_len are the suffix to append (may be NULL/0).
 */
struct msg {
	struct msg_header hdr;
	union {
		struct msg_announce announce;
		struct msg_sync sync;
		struct msg_sync delay_req;
		struct msg_follow_up follow_up;
		struct msg_delay_resp delay_resp;
		struct msg_pdelay_req pdelay_req;
		struct msg_pdelay_resp pdelay_resp;
		struct msg_pdelay_resp_follow_up pdelay_resp_follow_up;
		struct msg_signaling signaling;
		struct msg_management management;
	} body;
	const uint8_t *tlv;
	size_t tlv_len;
};

/* Header + body length of a message type (13.3-13.12), without TLVs; 0 for a reserved type. */
size_t msg_base_len(enum msg_type t);

/*
 * Parse a frame's PTP payload. buf may be longer than messageLength (Ethernet padding): only
 * messageLength bytes are parsed. Returns 0, -EPROTONOSUPPORT when versionPTP is not 2, or
 * -EBADMSG for: a buffer shorter than the header or than messageLength, messageLength below the
 * type's minimum, a reserved messageType, a Timestamp with nanoseconds >= 1e9, a TLV suffix whose
 * TLVs overrun it or leave trailing bytes. Never reads outside buf[0..len).
 */
int msg_parse(const void *buf, size_t len, struct msg *ret);

/*
 * Write header + body + m->tlv suffix into buf; messageLength is computed, m->hdr.messageLength
 * is ignored. Returns the length written, -EMSGSIZE if it does not fit in size (or in 16 bits),
 * or -EINVAL for a reserved messageType or a field that cannot be encoded (a 4-bit field above
 * 15, a Timestamp with seconds >= 2^48 or nanoseconds >= 1e9).
 */
ssize_t msg_build(const struct msg *m, void *buf, size_t size);

/*
 * Field-by-field equality of two messages as msg_parse() fills them: header, the body of the
 * header's messageType, and the TLV suffix bytes (not the pointers).
 */
bool msg_equal(const struct msg *a, const struct msg *b);

/*
 * Fill a header with the defaults of 13.3: versionPTP 2, minorVersionPTP 1 (IEEE 1588-2019;
 * Debian 12's ptp4l 3.1.1 sends 0 but answers 1, checked by hand), the type's controlField,
 * logMessageInterval 0x7F for the types that have none (Delay_Req, Pdelay_*, Signaling,
 * Management) and 0 otherwise, messageLength of the bare type, everything else zero.
 */
void msg_header_init(struct msg_header *h, enum msg_type type, uint8_t domainNumber,
		     const struct PortIdentity *sourcePortIdentity, uint16_t sequenceId);

static inline bool msg_flag(const struct msg_header *h, uint16_t flag)
{
	return (h->flagField & flag) != 0;
}
