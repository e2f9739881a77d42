// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 clause 14 TLVs: iterate a suffix safely, read typed values, append new TLVs. */
#include <errno.h>
#include <string.h>

#include "ptp/tlv.h"
#include "ptp/util.h"

/* Names within, not pointers: a table of pointers is relocated data, copied by each worker. */
static const struct {
	uint16_t type;
	char name[40];
} tlv_names[] = {
	{ TLV_MANAGEMENT, "MANAGEMENT" },
	{ TLV_MANAGEMENT_ERROR_STATUS, "MANAGEMENT_ERROR_STATUS" },
	{ TLV_ORGANIZATION_EXTENSION, "ORGANIZATION_EXTENSION" },
	{ TLV_REQUEST_UNICAST_TRANSMISSION, "REQUEST_UNICAST_TRANSMISSION" },
	{ TLV_GRANT_UNICAST_TRANSMISSION, "GRANT_UNICAST_TRANSMISSION" },
	{ TLV_CANCEL_UNICAST_TRANSMISSION, "CANCEL_UNICAST_TRANSMISSION" },
	{ TLV_ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION, "ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION" },
	{ TLV_PATH_TRACE, "PATH_TRACE" },
	{ TLV_ALTERNATE_TIME_OFFSET_INDICATOR, "ALTERNATE_TIME_OFFSET_INDICATOR" },
	{ TLV_ORGANIZATION_EXTENSION_PROPAGATE, "ORGANIZATION_EXTENSION_PROPAGATE" },
	{ TLV_ENHANCED_ACCURACY_METRICS, "ENHANCED_ACCURACY_METRICS" },
	{ TLV_ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE, "ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE" },
	{ TLV_L1_SYNC, "L1_SYNC" },
	{ TLV_PORT_COMMUNICATION_AVAILABILITY, "PORT_COMMUNICATION_AVAILABILITY" },
	{ TLV_PROTOCOL_ADDRESS, "PROTOCOL_ADDRESS" },
	{ TLV_SLAVE_RX_SYNC_TIMING_DATA, "SLAVE_RX_SYNC_TIMING_DATA" },
	{ TLV_SLAVE_RX_SYNC_COMPUTED_DATA, "SLAVE_RX_SYNC_COMPUTED_DATA" },
	{ TLV_SLAVE_TX_EVENT_TIMESTAMPS, "SLAVE_TX_EVENT_TIMESTAMPS" },
	{ TLV_CUMULATIVE_RATE_RATIO, "CUMULATIVE_RATE_RATIO" },
	{ TLV_PAD, "PAD" },
	{ TLV_AUTHENTICATION, "AUTHENTICATION" },
};

const char *tlv_type_to_string(uint16_t t)
{
	for (size_t i = 0; i < ARRAY_SIZE(tlv_names); i++) {
		if (tlv_names[i].type == t) {
			return tlv_names[i].name;
		}
	}
	return NULL;
}

void tlv_iter_init(struct tlv_iter *it, const void *buf, size_t len)
{
	it->buf = buf;
	it->len = len;
	it->pos = 0;
}

int tlv_next(struct tlv_iter *it, struct tlv *ret)
{
	struct wire_reader r = { .buf = it->buf, .len = it->len, .pos = it->pos };
	struct tlv t;

	if (wire_reader_left(&r) == 0) {
		return 0;
	}
	/* 14.1.1: a TLV is at least its 4-octet header, and its value must fit. */
	if (wire_get_u16(&r, &t.tlvType) < 0 || wire_get_u16(&r, &t.lengthField) < 0 ||
	    wire_get_ptr(&r, &t.value, t.lengthField) < 0) {
		return -EBADMSG;
	}
	it->pos = r.pos;
	*ret = t;
	return 1;
}

int tlv_validate(const void *buf, size_t len)
{
	struct tlv_iter it;
	struct tlv t;
	int r;

	tlv_iter_init(&it, buf, len);
	TLV_FOREACH (r, &it, &t) {
	}
	return r;
}

static void value_reader(const struct tlv *t, struct wire_reader *r)
{
	wire_reader_init(r, t->value, t->lengthField);
}

int tlv_management_parse(const struct tlv *t, struct tlv_management *ret)
{
	struct wire_reader r;

	if (t->tlvType != TLV_MANAGEMENT) {
		return -ENOMSG;
	}
	value_reader(t, &r);
	/* 15.5.2: managementId, then a dataField that fills the rest of the TLV. */
	if (wire_get_u16(&r, &ret->managementId) < 0) {
		return -EBADMSG;
	}
	ret->data_len = wire_reader_left(&r);
	ret->data = t->value + r.pos;
	return 0;
}

int tlv_management_error_status_parse(const struct tlv *t, struct tlv_management_error_status *ret)
{
	struct tlv_management_error_status e = { 0 };
	struct wire_reader r;

	if (t->tlvType != TLV_MANAGEMENT_ERROR_STATUS) {
		return -ENOMSG;
	}
	value_reader(t, &r);
	/* 15.5.4.1 Table 108: ids, 4 reserved octets, then an optional displayData PTPText. */
	if (wire_get_u16(&r, &e.managementErrorId) < 0 || wire_get_u16(&r, &e.managementId) < 0 ||
	    wire_skip(&r, 4) < 0) {
		return -EBADMSG;
	}
	if (wire_reader_left(&r) > 0 &&
	    (wire_get_u8(&r, &e.displayData.lengthField) < 0 ||
	     wire_get_ptr(&r, &e.displayData.textField, e.displayData.lengthField) < 0)) {
		return -EBADMSG;
	}
	*ret = e;
	return 0;
}

static int is_org_ext(uint16_t type)
{
	return type == TLV_ORGANIZATION_EXTENSION || type == TLV_ORGANIZATION_EXTENSION_PROPAGATE ||
	       type == TLV_ORGANIZATION_EXTENSION_DO_NOT_PROPAGATE;
}

static int get_u24(struct wire_reader *r, uint32_t *ret)
{
	const uint8_t *p;

	if (wire_get_ptr(r, &p, 3) < 0) {
		return -EBADMSG;
	}
	*ret = (uint32_t) p[0] << 16 | (uint32_t) p[1] << 8 | p[2];
	return 0;
}

int tlv_org_ext_parse(const struct tlv *t, struct tlv_org_ext *ret)
{
	struct tlv_org_ext o = { .tlvType = t->tlvType };
	struct wire_reader r;

	if (!is_org_ext(t->tlvType)) {
		return -ENOMSG;
	}
	value_reader(t, &r);
	/* 14.3.2 Table 53: organizationId, organizationSubType (3 octets each), dataField. */
	if (get_u24(&r, &o.organizationId) < 0 || get_u24(&r, &o.organizationSubType) < 0) {
		return -EBADMSG;
	}
	o.data_len = wire_reader_left(&r);
	o.data = t->value + r.pos;
	*ret = o;
	return 0;
}

int tlv_c37_238_parse(const struct tlv *t, struct tlv_c37_238 *ret)
{
	struct tlv_c37_238 c = { 0 };
	struct tlv_org_ext o;
	struct wire_reader r;
	uint32_t a, b;
	int e;

	e = tlv_org_ext_parse(t, &o);
	if (e < 0) {
		return e;
	}
	if (t->tlvType != TLV_ORGANIZATION_EXTENSION || o.organizationId != TLV_ORG_IEEE_C37_238) {
		return -ENOMSG;
	}
	if ((o.organizationSubType != TLV_C37_238_2011 &&
	     o.organizationSubType != TLV_C37_238_2017) ||
	    t->lengthField != TLV_C37_238_LEN) {
		return -EBADMSG;
	}
	wire_reader_init(&r, o.data, o.data_len);
	(void) wire_get_u16(&r, &c.grandmasterID);
	(void) wire_get_u32(&r, &a);
	(void) wire_get_u32(&r, &b);
	c.subtype = o.organizationSubType;
	if (c.subtype == TLV_C37_238_2011) {
		c.grandmasterTimeInaccuracy = a;
		c.networkTimeInaccuracy = b;
	} else {
		c.totalTimeInaccuracy = b;
	}
	*ret = c;
	return 0;
}

int tlv_follow_up_info_parse(const struct tlv *t, struct tlv_follow_up_info *ret)
{
	struct tlv_follow_up_info f;
	struct tlv_org_ext o;
	struct wire_reader r;
	uint32_t rate, freq;
	int e;

	e = tlv_org_ext_parse(t, &o);
	if (e < 0) {
		return e;
	}
	/* 802.1AS-2020 11.4.4.3.2: tlvType is ORGANIZATION_EXTENSION, not its 2019 variants. */
	if (t->tlvType != TLV_ORGANIZATION_EXTENSION || o.organizationId != TLV_ORG_IEEE_802_1 ||
	    o.organizationSubType != TLV_ORG_802_1AS_FOLLOW_UP_INFO) {
		return -ENOMSG;
	}
	/* 802.1AS-2020 11.4.4.3.1: lengthField is 28. */
	if (t->lengthField != TLV_FOLLOW_UP_INFO_LEN) {
		return -EBADMSG;
	}
	wire_reader_init(&r, o.data, o.data_len);
	(void) wire_get_u32(&r, &rate);
	(void) wire_get_u16(&r, &f.gmTimeBaseIndicator);
	(void) wire_get_u16(&r, &f.lastGmPhaseChange.nanoseconds_msb);
	(void) wire_get_u64(&r, &f.lastGmPhaseChange.nanoseconds_lsb);
	(void) wire_get_u16(&r, &f.lastGmPhaseChange.fractional_nanoseconds);
	(void) wire_get_u32(&r, &freq);
	f.cumulativeScaledRateOffset = (int32_t) rate;
	f.scaledLastGmFreqChange = (int32_t) freq;
	*ret = f;
	return 0;
}

int tlv_path_trace_parse(const struct tlv *t, struct tlv_path_trace *ret)
{
	if (t->tlvType != TLV_PATH_TRACE) {
		return -ENOMSG;
	}
	/* 16.2.5: pathSequence is N ClockIdentity values, nothing else. */
	if (t->lengthField % sizeof(struct ClockIdentity) != 0) {
		return -EBADMSG;
	}
	ret->pathSequence = t->value;
	ret->count = t->lengthField / sizeof(struct ClockIdentity);
	return 0;
}

void tlv_path_trace_get(const struct tlv_path_trace *pt, size_t i, struct ClockIdentity *ret)
{
	memcpy(ret->id, pt->pathSequence + i * sizeof(ret->id), sizeof(ret->id));
}

void tlv_builder_init(struct tlv_builder *b, void *buf, size_t size)
{
	wire_writer_init(&b->w, buf, size);
	b->start = SIZE_MAX;
}

size_t tlv_builder_len(const struct tlv_builder *b)
{
	return b->w.pos;
}

int tlv_builder_begin(struct tlv_builder *b, uint16_t tlvType)
{
	size_t start = b->w.pos;
	int e;

	if (b->start != SIZE_MAX) {
		return -EINVAL;
	}
	e = wire_put_u16(&b->w, tlvType);
	if (e == 0) {
		e = wire_put_u16(&b->w, 0);
	}
	if (e < 0) {
		b->w.pos = start;
		return e;
	}
	b->start = start;
	return 0;
}

/* Drop the open TLV (on an error while writing its value), so the buffer stays well-formed. */
static int abort_tlv(struct tlv_builder *b, int e)
{
	if (b->start != SIZE_MAX) {
		b->w.pos = b->start;
		b->start = SIZE_MAX;
	}
	return e;
}

int tlv_builder_end(struct tlv_builder *b)
{
	size_t len;

	if (b->start == SIZE_MAX) {
		return -EINVAL;
	}
	/* 14.1.1: an even number of octets; pad with a zero octet. */
	if ((b->w.pos - b->start) % 2 != 0 && wire_put_u8(&b->w, 0) < 0) {
		return abort_tlv(b, -EMSGSIZE);
	}
	len = b->w.pos - b->start - TLV_HEADER_LEN;
	if (len > UINT16_MAX) {
		return abort_tlv(b, -EINVAL);
	}
	(void) wire_patch_u16(&b->w, b->start + 2, (uint16_t) len);
	b->start = SIZE_MAX;
	return 0;
}

/* Close the open TLV if the value was written (e == 0), or drop it. */
static int finish(struct tlv_builder *b, int e)
{
	return e < 0 ? abort_tlv(b, e) : tlv_builder_end(b);
}

int tlv_builder_add(struct tlv_builder *b, uint16_t tlvType, const void *value, size_t len)
{
	int e = tlv_builder_begin(b, tlvType);

	return e < 0 ? e : finish(b, wire_put_bytes(&b->w, value, len));
}

int tlv_builder_add_management(struct tlv_builder *b, uint16_t managementId, const void *data,
			       size_t len)
{
	int e = tlv_builder_begin(b, TLV_MANAGEMENT);

	if (e < 0) {
		return e;
	}
	e = wire_put_u16(&b->w, managementId);
	if (e == 0) {
		e = wire_put_bytes(&b->w, data, len);
	}
	return finish(b, e);
}

int tlv_builder_add_management_error_status(struct tlv_builder *b,
					    const struct tlv_management_error_status *s)
{
	int e = tlv_builder_begin(b, TLV_MANAGEMENT_ERROR_STATUS);

	if (e < 0) {
		return e;
	}
	e = wire_put_u16(&b->w, s->managementErrorId);
	if (e == 0) {
		e = wire_put_u16(&b->w, s->managementId);
	}
	if (e == 0) {
		e = wire_put_zeros(&b->w, 4);
	}
	/* 15.5.4.1: displayData is optional; like linuxptp, send it only when there is text. */
	if (e == 0 && s->displayData.lengthField > 0) {
		e = wire_put_u8(&b->w, s->displayData.lengthField);
		if (e == 0) {
			e = wire_put_bytes(&b->w, s->displayData.textField,
					   s->displayData.lengthField);
		}
	}
	return finish(b, e);
}

static int put_u24(struct wire_writer *w, uint32_t v)
{
	uint8_t p[3] = { (uint8_t) (v >> 16), (uint8_t) (v >> 8), (uint8_t) v };

	return v > 0xFFFFFF ? -EINVAL : wire_put_bytes(w, p, sizeof(p));
}

int tlv_builder_add_org_ext(struct tlv_builder *b, const struct tlv_org_ext *o)
{
	int e;

	if (!is_org_ext(o->tlvType)) {
		return -EINVAL;
	}
	e = tlv_builder_begin(b, o->tlvType);
	if (e < 0) {
		return e;
	}
	e = put_u24(&b->w, o->organizationId);
	if (e == 0) {
		e = put_u24(&b->w, o->organizationSubType);
	}
	if (e == 0) {
		e = wire_put_bytes(&b->w, o->data, o->data_len);
	}
	return finish(b, e);
}

int tlv_builder_add_c37_238(struct tlv_builder *b, const struct tlv_c37_238 *c)
{
	uint8_t data[TLV_C37_238_LEN - 6];
	struct tlv_org_ext o = {
		.tlvType = TLV_ORGANIZATION_EXTENSION,
		.organizationId = TLV_ORG_IEEE_C37_238,
		.organizationSubType = c->subtype,
		.data = data,
		.data_len = sizeof(data),
	};
	struct wire_writer w;
	bool v2011 = c->subtype == TLV_C37_238_2011;

	if (!v2011 && c->subtype != TLV_C37_238_2017) {
		return -EINVAL;
	}
	wire_writer_init(&w, data, sizeof(data));
	(void) wire_put_u16(&w, c->grandmasterID);
	(void) wire_put_u32(&w, v2011 ? c->grandmasterTimeInaccuracy : 0);
	(void) wire_put_u32(&w, v2011 ? c->networkTimeInaccuracy : c->totalTimeInaccuracy);
	(void) wire_put_zeros(&w, 2);
	return tlv_builder_add_org_ext(b, &o);
}

int tlv_builder_add_follow_up_info(struct tlv_builder *b, const struct tlv_follow_up_info *f)
{
	uint8_t data[TLV_FOLLOW_UP_INFO_LEN - 6];
	struct tlv_org_ext o = {
		.tlvType = TLV_ORGANIZATION_EXTENSION,
		.organizationId = TLV_ORG_IEEE_802_1,
		.organizationSubType = TLV_ORG_802_1AS_FOLLOW_UP_INFO,
		.data = data,
		.data_len = sizeof(data),
	};
	struct wire_writer w;

	/* 802.1AS-2020 11.4.4.3 Table 11-11; data is sized exactly, the puts cannot fail. */
	wire_writer_init(&w, data, sizeof(data));
	(void) wire_put_u32(&w, (uint32_t) f->cumulativeScaledRateOffset);
	(void) wire_put_u16(&w, f->gmTimeBaseIndicator);
	(void) wire_put_u16(&w, f->lastGmPhaseChange.nanoseconds_msb);
	(void) wire_put_u64(&w, f->lastGmPhaseChange.nanoseconds_lsb);
	(void) wire_put_u16(&w, f->lastGmPhaseChange.fractional_nanoseconds);
	(void) wire_put_u32(&w, (uint32_t) f->scaledLastGmFreqChange);
	return tlv_builder_add_org_ext(b, &o);
}

int tlv_builder_add_path_trace(struct tlv_builder *b, const struct ClockIdentity *ids, size_t n)
{
	int e = tlv_builder_begin(b, TLV_PATH_TRACE);

	if (e < 0) {
		return e;
	}
	for (size_t i = 0; e == 0 && i < n; i++) {
		e = wire_put_clock_identity(&b->w, &ids[i]);
	}
	return finish(b, e);
}
