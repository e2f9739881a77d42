// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 16.1 unicast negotiation TLVs: every field checked on the way in and out. */
#include <errno.h>
#include <string.h>

#include "ptp/unicast-tlv.h"
#include "ptp/wire.h"

bool unicast_tlv_type_is(uint16_t t)
{
	return t == TLV_REQUEST_UNICAST_TRANSMISSION || t == TLV_GRANT_UNICAST_TRANSMISSION ||
	       t == TLV_CANCEL_UNICAST_TRANSMISSION ||
	       t == TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION;
}

bool unicast_tlv_message_type_valid(unsigned t)
{
	return t == MSG_ANNOUNCE || t == MSG_SYNC || t == MSG_DELAY_RESP || t == MSG_PDELAY_RESP;
}

static size_t tlv_len_of(uint16_t type)
{
	switch (type) {
	case TLV_REQUEST_UNICAST_TRANSMISSION:
		return UNICAST_TLV_REQUEST_LEN;
	case TLV_GRANT_UNICAST_TRANSMISSION:
		return UNICAST_TLV_GRANT_LEN;
	default:
		return UNICAST_TLV_CANCEL_LEN; /* CANCEL and ACKNOWLEDGE_CANCEL */
	}
}

static bool period_valid(int8_t v)
{
	return v >= UNICAST_TLV_LOG_PERIOD_MIN && v <= UNICAST_TLV_LOG_PERIOD_MAX;
}

/* The checks both ways share: what a TLV of u's type may hold. */
static bool fields_valid(const struct unicast_tlv *u)
{
	if (!unicast_tlv_type_is(u->tlvType) || !unicast_tlv_message_type_valid(u->messageType)) {
		return false;
	}
	switch (u->tlvType) {
	case TLV_REQUEST_UNICAST_TRANSMISSION:
		return period_valid(u->logInterMessagePeriod) && u->durationField >= 1 &&
		       u->durationField <= UNICAST_TLV_DURATION_MAX;
	case TLV_GRANT_UNICAST_TRANSMISSION:
		return period_valid(u->logInterMessagePeriod) &&
		       u->durationField <= UNICAST_TLV_DURATION_MAX;
	default:
		return true;
	}
}

int unicast_tlv_parse(const struct tlv *t, struct unicast_tlv *ret)
{
	struct unicast_tlv u = { .tlvType = t->tlvType };
	struct wire_reader r;
	uint8_t type_octet, period, reserved, flags;

	if (!unicast_tlv_type_is(t->tlvType)) {
		return -ENOMSG;
	}
	if (t->lengthField != tlv_len_of(t->tlvType)) {
		return -EBADMSG;
	}
	wire_reader_init(&r, t->value, t->lengthField);
	(void) wire_get_u8(&r, &type_octet);
	u.messageType = (enum msg_type)(type_octet >> 4);
	switch (t->tlvType) {
	case TLV_REQUEST_UNICAST_TRANSMISSION:
		/* 16.1.4.1: messageType | reserved, logInterMessagePeriod, durationField. */
		(void) wire_get_u8(&r, &period);
		(void) wire_get_u32(&r, &u.durationField);
		u.logInterMessagePeriod = (int8_t) period;
		break;
	case TLV_GRANT_UNICAST_TRANSMISSION:
		/* 16.1.4.2: ... as REQUEST, then a reserved octet and the flags (R in bit 0). */
		(void) wire_get_u8(&r, &period);
		(void) wire_get_u32(&r, &u.durationField);
		(void) wire_get_u8(&r, &reserved);
		(void) wire_get_u8(&r, &flags);
		u.logInterMessagePeriod = (int8_t) period;
		u.renewalInvited = (flags & UNICAST_TLV_GRANT_RENEWAL_INVITED) != 0;
		break;
	default:
		/* 16.1.4.3, 16.1.4.4: messageType | flags, a reserved octet. */
		u.maintainRequest = (type_octet & UNICAST_TLV_MAINTAIN_REQUEST) != 0;
		u.maintainGrant = (type_octet & UNICAST_TLV_MAINTAIN_GRANT) != 0;
		break;
	}
	if (!fields_valid(&u)) {
		return -EBADMSG;
	}
	*ret = u;
	return 0;
}

int unicast_tlv_build(struct tlv_builder *b, const struct unicast_tlv *u)
{
	uint8_t value[UNICAST_TLV_GRANT_LEN];
	struct wire_writer w;
	uint8_t first = (uint8_t) (u->messageType << 4);

	if (!fields_valid(u)) {
		return -EINVAL;
	}
	/* value is sized for the longest of the four: the puts cannot fail. */
	wire_writer_init(&w, value, sizeof(value));
	switch (u->tlvType) {
	case TLV_REQUEST_UNICAST_TRANSMISSION:
	case TLV_GRANT_UNICAST_TRANSMISSION:
		(void) wire_put_u8(&w, first);
		(void) wire_put_u8(&w, (uint8_t) u->logInterMessagePeriod);
		(void) wire_put_u32(&w, u->durationField);
		if (u->tlvType == TLV_GRANT_UNICAST_TRANSMISSION) {
			(void) wire_put_u8(&w, 0);
			(void) wire_put_u8(&w, u->renewalInvited ? UNICAST_TLV_GRANT_RENEWAL_INVITED
								 : 0);
		}
		break;
	default:
		first |= (u->maintainRequest ? UNICAST_TLV_MAINTAIN_REQUEST : 0) |
			 (u->maintainGrant ? UNICAST_TLV_MAINTAIN_GRANT : 0);
		(void) wire_put_u8(&w, first);
		(void) wire_put_u8(&w, 0);
		break;
	}
	return tlv_builder_add(b, u->tlvType, value, w.pos);
}

int unicast_tlv_set_parse(const struct msg *m, struct unicast_tlv_set *ret)
{
	struct tlv_iter it;
	struct tlv t;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (m->hdr.messageType != MSG_SIGNALING) {
		return -EBADMSG;
	}
	tlv_iter_init(&it, m->tlv, m->tlv_len);
	TLV_FOREACH (r, &it, &t) {
		struct unicast_tlv u;

		if (!unicast_tlv_type_is(t.tlvType)) {
			continue;
		}
		if (unicast_tlv_parse(&t, &u) < 0 || ret->n == UNICAST_TLV_PER_MSG_MAX) {
			ret->malformed++;
			continue;
		}
		ret->tlv[ret->n++] = u;
	}
	if (r < 0) {
		memset(ret, 0, sizeof(*ret));
		return -EBADMSG;
	}
	return 0;
}
