// SPDX-License-Identifier: GPL-2.0-or-later
/* Bounds-checked big-endian reads and writes of PTP fields (network order, 1588-2019 5.3 / 13). */
#include <errno.h>
#include <string.h>

#include "ptp/wire.h"

void wire_reader_init(struct wire_reader *r, const void *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
}

size_t wire_reader_left(const struct wire_reader *r)
{
	return r->len - r->pos;
}

int wire_get_ptr(struct wire_reader *r, const uint8_t **ret, size_t n)
{
	if (n > wire_reader_left(r)) {
		return -EBADMSG;
	}
	*ret = r->buf + r->pos;
	r->pos += n;
	return 0;
}

int wire_skip(struct wire_reader *r, size_t n)
{
	const uint8_t *p;

	return wire_get_ptr(r, &p, n);
}

int wire_get_bytes(struct wire_reader *r, void *ret, size_t n)
{
	const uint8_t *p;
	int e = wire_get_ptr(r, &p, n);

	if (e < 0) {
		return e;
	}
	memcpy(ret, p, n);
	return 0;
}

/* Read an n-byte big-endian unsigned integer (n <= 8). */
static int get_be(struct wire_reader *r, size_t n, uint64_t *ret)
{
	const uint8_t *p;
	uint64_t v = 0;
	int e = wire_get_ptr(r, &p, n);

	if (e < 0) {
		return e;
	}
	for (size_t i = 0; i < n; i++) {
		v = v << 8 | p[i];
	}
	*ret = v;
	return 0;
}

int wire_get_u8(struct wire_reader *r, uint8_t *ret)
{
	uint64_t v;
	int e = get_be(r, 1, &v);

	if (e == 0) {
		*ret = (uint8_t) v;
	}
	return e;
}

int wire_get_u16(struct wire_reader *r, uint16_t *ret)
{
	uint64_t v;
	int e = get_be(r, 2, &v);

	if (e == 0) {
		*ret = (uint16_t) v;
	}
	return e;
}

int wire_get_u32(struct wire_reader *r, uint32_t *ret)
{
	uint64_t v;
	int e = get_be(r, 4, &v);

	if (e == 0) {
		*ret = (uint32_t) v;
	}
	return e;
}

int wire_get_u48(struct wire_reader *r, uint64_t *ret)
{
	return get_be(r, 6, ret);
}

int wire_get_u64(struct wire_reader *r, uint64_t *ret)
{
	return get_be(r, 8, ret);
}

int wire_get_timestamp(struct wire_reader *r, struct Timestamp *ret)
{
	struct wire_reader save = *r;
	struct Timestamp ts;

	if (wire_get_u48(r, &ts.secondsField) < 0 || wire_get_u32(r, &ts.nanosecondsField) < 0 ||
	    ts.nanosecondsField >= NS_PER_SEC) {
		*r = save;
		return -EBADMSG;
	}
	*ret = ts;
	return 0;
}

int wire_get_clock_identity(struct wire_reader *r, struct ClockIdentity *ret)
{
	return wire_get_bytes(r, ret->id, sizeof(ret->id));
}

int wire_get_port_identity(struct wire_reader *r, struct PortIdentity *ret)
{
	const uint8_t *p;
	struct wire_reader sub;
	int e = wire_get_ptr(r, &p, 10);

	if (e < 0) {
		return e;
	}
	/* 10 bytes are known to be there: the sub-reads cannot fail. */
	wire_reader_init(&sub, p, 10);
	(void) wire_get_clock_identity(&sub, &ret->clockIdentity);
	(void) wire_get_u16(&sub, &ret->portNumber);
	return 0;
}

int wire_get_clock_quality(struct wire_reader *r, struct ClockQuality *ret)
{
	const uint8_t *p;
	int e = wire_get_ptr(r, &p, 4);

	if (e < 0) {
		return e;
	}
	ret->clockClass = p[0];
	ret->clockAccuracy = p[1];
	ret->offsetScaledLogVariance = (uint16_t) (p[2] << 8 | p[3]);
	return 0;
}

void wire_writer_init(struct wire_writer *w, void *buf, size_t size)
{
	w->buf = buf;
	w->size = size;
	w->pos = 0;
}

/* Reserve n bytes at the write position, or -EMSGSIZE. */
static int reserve(struct wire_writer *w, size_t n, uint8_t **ret)
{
	if (n > w->size - w->pos) {
		return -EMSGSIZE;
	}
	*ret = w->buf + w->pos;
	w->pos += n;
	return 0;
}

static int put_be(struct wire_writer *w, size_t n, uint64_t v)
{
	uint8_t *p;
	int e = reserve(w, n, &p);

	if (e < 0) {
		return e;
	}
	for (size_t i = n; i > 0; i--) {
		p[i - 1] = (uint8_t) v;
		v >>= 8;
	}
	return 0;
}

int wire_put_u8(struct wire_writer *w, uint8_t v)
{
	return put_be(w, 1, v);
}

int wire_put_u16(struct wire_writer *w, uint16_t v)
{
	return put_be(w, 2, v);
}

int wire_put_u32(struct wire_writer *w, uint32_t v)
{
	return put_be(w, 4, v);
}

int wire_put_u48(struct wire_writer *w, uint64_t v)
{
	if (v > TIMESTAMP_MAX_SECONDS) {
		return -EINVAL;
	}
	return put_be(w, 6, v);
}

int wire_put_u64(struct wire_writer *w, uint64_t v)
{
	return put_be(w, 8, v);
}

int wire_put_bytes(struct wire_writer *w, const void *src, size_t n)
{
	uint8_t *p;
	int e = reserve(w, n, &p);

	if (e < 0) {
		return e;
	}
	if (n > 0) {
		memcpy(p, src, n);
	}
	return 0;
}

int wire_put_zeros(struct wire_writer *w, size_t n)
{
	uint8_t *p;
	int e = reserve(w, n, &p);

	if (e < 0) {
		return e;
	}
	memset(p, 0, n);
	return 0;
}

int wire_put_timestamp(struct wire_writer *w, const struct Timestamp *ts)
{
	uint8_t *p;
	struct wire_writer sub;

	if (ts->secondsField > TIMESTAMP_MAX_SECONDS || ts->nanosecondsField >= NS_PER_SEC) {
		return -EINVAL;
	}
	if (reserve(w, 10, &p) < 0) {
		return -EMSGSIZE;
	}
	wire_writer_init(&sub, p, 10);
	(void) wire_put_u48(&sub, ts->secondsField);
	(void) wire_put_u32(&sub, ts->nanosecondsField);
	return 0;
}

int wire_put_clock_identity(struct wire_writer *w, const struct ClockIdentity *c)
{
	return wire_put_bytes(w, c->id, sizeof(c->id));
}

int wire_put_port_identity(struct wire_writer *w, const struct PortIdentity *pi)
{
	uint8_t *p;
	struct wire_writer sub;

	if (reserve(w, 10, &p) < 0) {
		return -EMSGSIZE;
	}
	wire_writer_init(&sub, p, 10);
	(void) wire_put_clock_identity(&sub, &pi->clockIdentity);
	(void) wire_put_u16(&sub, pi->portNumber);
	return 0;
}

int wire_put_clock_quality(struct wire_writer *w, const struct ClockQuality *q)
{
	uint8_t *p;

	if (reserve(w, 4, &p) < 0) {
		return -EMSGSIZE;
	}
	p[0] = q->clockClass;
	p[1] = q->clockAccuracy;
	p[2] = (uint8_t) (q->offsetScaledLogVariance >> 8);
	p[3] = (uint8_t) q->offsetScaledLogVariance;
	return 0;
}

int wire_patch_u16(struct wire_writer *w, size_t off, uint16_t v)
{
	if (off > w->pos || w->pos - off < 2) {
		return -EINVAL;
	}
	w->buf[off] = (uint8_t) (v >> 8);
	w->buf[off + 1] = (uint8_t) v;
	return 0;
}
