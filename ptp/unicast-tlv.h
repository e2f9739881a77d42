/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IEEE 1588-2019 16.1 unicast negotiation TLVs: typed views and builders over ptp/tlv.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"

/* 16.1.4.1-16.1.4.4: lengthField of each (the messageType octet and what follows it). */
#define UNICAST_TLV_REQUEST_LEN 6
#define UNICAST_TLV_GRANT_LEN 8
#define UNICAST_TLV_CANCEL_LEN 2
#define UNICAST_TLV_ACK_LEN 2

/*
 * logInterMessagePeriod taken from the wire: 2^-7 to 2^7 s, the range of every profile phcd knows
 * (G.8265.1 and G.8275.2 are narrower; the grantor applies the port's own range).
 */
#define UNICAST_TLV_LOG_PERIOD_MIN (-7)
#define UNICAST_TLV_LOG_PERIOD_MAX 7
/*
 * durationField of a REQUEST, seconds: at least 1 (a request for nothing is malformed) and at most
 * 2^31 - 1, ptp4l's bound for its unicast_req_duration (INT_MAX). A GRANT's 0 is a denial
 * (16.1.4.2.5), any other value up to the same bound a grant.
 */
#define UNICAST_TLV_DURATION_MAX INT32_MAX

/* 16.1.4.2: the R flag (renewalInvited) is bit 0 of the GRANT's last octet. */
#define UNICAST_TLV_GRANT_RENEWAL_INVITED 0x01
/* 16.1.4.3 / 16.1.4.4: the low nibble of a CANCEL's or ACKNOWLEDGE_CANCEL's messageType octet. */
#define UNICAST_TLV_MAINTAIN_REQUEST 0x01
#define UNICAST_TLV_MAINTAIN_GRANT 0x02

/*
 * One of the four TLVs, host order. messageType is the one the negotiation is about (the upper
 * nibble of the first octet): MSG_ANNOUNCE, MSG_SYNC, MSG_DELAY_RESP or MSG_PDELAY_RESP.
 */
struct unicast_tlv {
	uint16_t tlvType; /* TLV_REQUEST_UNICAST_TRANSMISSION .. TLV_ACKNOWLEDGE_CANCEL_... */
	enum msg_type messageType;
	int8_t logInterMessagePeriod; /* REQUEST, GRANT */
	uint32_t durationField;	      /* REQUEST, GRANT (0: the request is denied) */
	bool renewalInvited;	      /* GRANT: the R flag */
	bool maintainRequest;	      /* CANCEL, ACKNOWLEDGE_CANCEL: bit 0 of the low nibble */
	bool maintainGrant;	      /* CANCEL, ACKNOWLEDGE_CANCEL: bit 1 */
};

/* Is t one of the four unicast negotiation TLV types? */
bool unicast_tlv_type_is(uint16_t t);
/* The message types that may be negotiated (16.1.1): Announce, Sync, Delay_Resp, Pdelay_Resp. */
bool unicast_tlv_message_type_valid(unsigned t);

/*
 * A typed view of one TLV from tlv_next(): 0, -ENOMSG for another TLV type, -EBADMSG for a
 * lengthField other than the type's, a messageType that may not be negotiated, a
 * logInterMessagePeriod outside UNICAST_TLV_LOG_PERIOD_MIN..MAX, or a durationField of 0 in a
 * REQUEST or above UNICAST_TLV_DURATION_MAX. Reserved bits are ignored (14.1.2).
 */
int unicast_tlv_parse(const struct tlv *t, struct unicast_tlv *ret);

/* Append u as its TLV: 0, -EINVAL for a value unicast_tlv_parse() would refuse, -EMSGSIZE. */
int unicast_tlv_build(struct tlv_builder *b, const struct unicast_tlv *u);

/* Most unicast TLVs taken from one Signaling message (ptp4l sends up to three: 16.1.4.1.1). */
#define UNICAST_TLV_PER_MSG_MAX 8

/* What one Signaling message carried. */
struct unicast_tlv_set {
	size_t n;
	struct unicast_tlv tlv[UNICAST_TLV_PER_MSG_MAX];
	unsigned int malformed; /* unicast TLVs refused by unicast_tlv_parse(), or past the max */
};

/*
 * Walk a Signaling message's TLV suffix (ptp/tlv.h's iterator) and keep its unicast TLVs in
 * order; other TLV types are skipped (14.1.2). 0, or -EBADMSG when the suffix itself is broken
 * (then nothing of it is to be used). A malformed unicast TLV is counted in ret->malformed and
 * dropped; the others stand.
 */
int unicast_tlv_set_parse(const struct msg *m, struct unicast_tlv_set *ret);
