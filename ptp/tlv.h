/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IEEE 1588-2019 clause 14 TLVs: a bounds-checked iterator, typed views, and a builder. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ptp/types.h"
#include "ptp/wire.h"

/* IEEE 1588-2019 14.1.1 Table 52 */
enum tlv_type {
	TLV_MANAGEMENT = 0x0001,
	TLV_MANAGEMENT_ERROR_STATUS = 0x0002,
	TLV_ORGANIZATION_EXTENSION = 0x0003,
	TLV_REQUEST_UNICAST_TRANSMISSION = 0x0004,
	TLV_GRANT_UNICAST_TRANSMISSION = 0x0005,
	TLV_CANCEL_UNICAST_TRANSMISSION = 0x0006,
	TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION = 0x0007,
	TLV_PATH_TRACE = 0x0008,
	TLV_ALTERNATE_TIME_OFFSET_INDICATOR = 0x0009,
	TLV_ORGANIZATION_EXTENSION_PROPAGATE = 0x4000,
	TLV_ENHANCED_ACCURACY_METRICS = 0x4001,
	TLV_ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE = 0x8000,
	TLV_L1_SYNC = 0x8001,
	TLV_PORT_COMMUNICATION_AVAILABILITY = 0x8002,
	TLV_PROTOCOL_ADDRESS = 0x8003,
	TLV_SLAVE_RX_SYNC_TIMING_DATA = 0x8004,
	TLV_SLAVE_RX_SYNC_COMPUTED_DATA = 0x8005,
	TLV_SLAVE_TX_EVENT_TIMESTAMPS = 0x8006,
	TLV_CUMULATIVE_RATE_RATIO = 0x8007,
	TLV_PAD = 0x8008,
	TLV_AUTHENTICATION = 0x8009,
};

/* "MANAGEMENT", "PATH_TRACE", ...; NULL for a type not in the table above. */
const char *tlv_type_to_string(uint16_t t);

/* 15.5.4.4 Table 109 managementErrorId */
enum tlv_management_error {
	TLV_MGMT_ERR_RESPONSE_TOO_BIG = 0x0001,
	TLV_MGMT_ERR_NO_SUCH_ID = 0x0002,
	TLV_MGMT_ERR_WRONG_LENGTH = 0x0003,
	TLV_MGMT_ERR_WRONG_VALUE = 0x0004,
	TLV_MGMT_ERR_NOT_SETABLE = 0x0005,
	TLV_MGMT_ERR_NOT_SUPPORTED = 0x0006,
	TLV_MGMT_ERR_UNPOPULATED = 0x0007,
	TLV_MGMT_ERR_GENERAL_ERROR = 0xFFFE,
};

#define TLV_HEADER_LEN 4

/* One TLV as found on the wire: value points at lengthField bytes inside the iterated buffer. */
struct tlv {
	uint16_t tlvType;
	uint16_t lengthField;
	const uint8_t *value;
};

struct tlv_iter {
	const uint8_t *buf;
	size_t len, pos;
};

void tlv_iter_init(struct tlv_iter *it, const void *buf, size_t len);
/*
 * 1 and the next TLV in *ret, 0 at the end of the buffer, -EBADMSG when a TLV's length runs past
 * the end or 1-3 bytes are left over. Unknown types are returned like any other: the caller skips
 * them (14.1.2 / 14.3.2.1: ignore what you do not understand).
 */
int tlv_next(struct tlv_iter *it, struct tlv *ret);

/*
 * for each TLV: int r; struct tlv_iter it; struct tlv t;
 *   tlv_iter_init(&it, m.tlv, m.tlv_len); TLV_FOREACH(r, &it, &t) { ... } if (r < 0) error;
 */
#define TLV_FOREACH(r, it, t) for (; ((r) = tlv_next((it), (t))) > 0;)

/* Check a whole TLV suffix: 0 or -EBADMSG. */
int tlv_validate(const void *buf, size_t len);

/* 5.3.9 PTPText: a length octet and that many UTF-8 octets (pointing into the TLV). */
struct ptp_text {
	uint8_t lengthField;
	const uint8_t *textField;
};

/* 15.5.2 MANAGEMENT TLV */
struct tlv_management {
	uint16_t managementId;
	const uint8_t *data;
	size_t data_len;
};

/* 15.5.4 MANAGEMENT_ERROR_STATUS TLV (managementErrorId, managementId, 4 reserved, displayData) */
struct tlv_management_error_status {
	uint16_t managementErrorId;
	uint16_t managementId;
	struct ptp_text displayData; /* lengthField 0 when absent */
};

/* 14.3 ORGANIZATION_EXTENSION (and its _PROPAGATE / _DO_NOT_PROPAGATE variants). */
struct tlv_org_ext {
	uint16_t tlvType;
	uint32_t organizationId;      /* 24 bits */
	uint32_t organizationSubType; /* 24 bits */
	const uint8_t *data;
	size_t data_len;
};

#define TLV_ORG_IEEE_802_1 0x0080C2
#define TLV_ORG_802_1AS_FOLLOW_UP_INFO 1

/* IEEE 802.1AS-2020 6.4.3.3 ScaledNs: 96-bit signed nanoseconds * 2^16. */
struct ScaledNs {
	uint16_t nanoseconds_msb;
	uint64_t nanoseconds_lsb;
	uint16_t fractional_nanoseconds;
};

/* IEEE 802.1AS-2020 11.4.4.3 Follow_Up information TLV (organization extension 00-80-C2, 1). */
struct tlv_follow_up_info {
	int32_t cumulativeScaledRateOffset;
	uint16_t gmTimeBaseIndicator;
	struct ScaledNs lastGmPhaseChange;
	int32_t scaledLastGmFreqChange;
};

#define TLV_FOLLOW_UP_INFO_LEN 28

/*
 * IEEE C37.238 TLV (organization extension 1C-12-9D): subtype 1 is the 2011 edition
 * (grandmasterID, grandmasterTimeInaccuracy, networkTimeInaccuracy), subtype 2 the 2017 one
 * (grandmasterID, reserved, totalTimeInaccuracy); both are 18 octets of lengthField with 2 octets
 * of padding at the end, as linuxptp sends and requires them. Inaccuracies in ns, 0xFFFFFFFF
 * unknown.
 */
#define TLV_ORG_IEEE_C37_238 0x1C129D
#define TLV_C37_238_2011 1
#define TLV_C37_238_2017 2
#define TLV_C37_238_LEN 18

struct tlv_c37_238 {
	uint32_t subtype; /* TLV_C37_238_2011 or TLV_C37_238_2017 */
	uint16_t grandmasterID;
	uint32_t grandmasterTimeInaccuracy; /* 2011 */
	uint32_t networkTimeInaccuracy;	    /* 2011 */
	uint32_t totalTimeInaccuracy;	    /* 2017 */
};

/* 16.2 PATH_TRACE: pathSequence, count ClockIdentities of 8 octets each, inside the TLV. */
struct tlv_path_trace {
	const uint8_t *pathSequence;
	size_t count;
};

/* Typed views of a struct tlv: 0, -EBADMSG on a bad length, -ENOMSG if the type is not this one. */
int tlv_management_parse(const struct tlv *t, struct tlv_management *ret);
int tlv_management_error_status_parse(const struct tlv *t, struct tlv_management_error_status *ret);
int tlv_org_ext_parse(const struct tlv *t, struct tlv_org_ext *ret);
int tlv_follow_up_info_parse(const struct tlv *t, struct tlv_follow_up_info *ret);
int tlv_path_trace_parse(const struct tlv *t, struct tlv_path_trace *ret);
/* -ENOMSG for another TLV, -EBADMSG for a C37.238 one of another length or subtype. */
int tlv_c37_238_parse(const struct tlv *t, struct tlv_c37_238 *ret);
void tlv_path_trace_get(const struct tlv_path_trace *pt, size_t i, struct ClockIdentity *ret);

/*
 * Appends TLVs to a buffer. Every TLV is padded with a zero octet to an even length
 * (14.1.1: all TLVs have an even number of octets). Errors are -EMSGSIZE (does not fit) and
 * -EINVAL (a value too long for a 16-bit lengthField, or end without begin).
 */
struct tlv_builder {
	struct wire_writer w;
	size_t start; /* offset of the open TLV's header, or SIZE_MAX */
};

void tlv_builder_init(struct tlv_builder *b, void *buf, size_t size);
size_t tlv_builder_len(const struct tlv_builder *b);

/*
 * Open a TLV of this type; write its value through &b->w (wire_put_*), then close it with
 * tlv_builder_end(), which fills in lengthField and pads. For values built in place (management
 * data sets).
 */
int tlv_builder_begin(struct tlv_builder *b, uint16_t tlvType);
int tlv_builder_end(struct tlv_builder *b);

/* A TLV with a ready value. */
int tlv_builder_add(struct tlv_builder *b, uint16_t tlvType, const void *value, size_t len);
int tlv_builder_add_management(struct tlv_builder *b, uint16_t managementId, const void *data,
			       size_t len);
int tlv_builder_add_management_error_status(struct tlv_builder *b,
					    const struct tlv_management_error_status *e);
int tlv_builder_add_org_ext(struct tlv_builder *b, const struct tlv_org_ext *o);
int tlv_builder_add_follow_up_info(struct tlv_builder *b, const struct tlv_follow_up_info *f);
int tlv_builder_add_path_trace(struct tlv_builder *b, const struct ClockIdentity *ids, size_t n);
int tlv_builder_add_c37_238(struct tlv_builder *b, const struct tlv_c37_238 *c);
