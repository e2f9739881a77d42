/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounds-checked big-endian reader and writer for PTP frames: the only way bytes become fields. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * A reader over buf[0..len). Every get either consumes its bytes and returns 0, or returns
 * -EBADMSG and leaves pos and *ret untouched, so a truncated frame can never be read past its end.
 */
struct wire_reader {
	const uint8_t *buf;
	size_t len, pos;
};

/* A writer into buf[0..size). Every put returns 0, or -EMSGSIZE with nothing written. */
struct wire_writer {
	uint8_t *buf;
	size_t size, pos;
};

void wire_reader_init(struct wire_reader *r, const void *buf, size_t len);
size_t wire_reader_left(const struct wire_reader *r);
int wire_get_u8(struct wire_reader *r, uint8_t *ret);
int wire_get_u16(struct wire_reader *r, uint16_t *ret);
int wire_get_u32(struct wire_reader *r, uint32_t *ret);
int wire_get_u48(struct wire_reader *r, uint64_t *ret);
int wire_get_u64(struct wire_reader *r, uint64_t *ret);
int wire_get_bytes(struct wire_reader *r, void *ret, size_t n);
/* Point *ret at the next n bytes inside the buffer (no copy) and consume them. */
int wire_get_ptr(struct wire_reader *r, const uint8_t **ret, size_t n);
int wire_skip(struct wire_reader *r, size_t n);

/* IEEE 1588-2019 5.3 types. A Timestamp with nanosecondsField >= 1e9 is -EBADMSG (5.3.3). */
int wire_get_timestamp(struct wire_reader *r, struct Timestamp *ret);
int wire_get_clock_identity(struct wire_reader *r, struct ClockIdentity *ret);
int wire_get_port_identity(struct wire_reader *r, struct PortIdentity *ret);
int wire_get_clock_quality(struct wire_reader *r, struct ClockQuality *ret);

void wire_writer_init(struct wire_writer *w, void *buf, size_t size);
int wire_put_u8(struct wire_writer *w, uint8_t v);
int wire_put_u16(struct wire_writer *w, uint16_t v);
int wire_put_u32(struct wire_writer *w, uint32_t v);
/* Only the low 48 bits of v are written; -EINVAL if v does not fit. */
int wire_put_u48(struct wire_writer *w, uint64_t v);
int wire_put_u64(struct wire_writer *w, uint64_t v);
int wire_put_bytes(struct wire_writer *w, const void *p, size_t n);
int wire_put_zeros(struct wire_writer *w, size_t n);

/* -EINVAL for a Timestamp that is not valid on the wire (seconds >= 2^48, ns >= 1e9). */
int wire_put_timestamp(struct wire_writer *w, const struct Timestamp *ts);
int wire_put_clock_identity(struct wire_writer *w, const struct ClockIdentity *c);
int wire_put_port_identity(struct wire_writer *w, const struct PortIdentity *p);
int wire_put_clock_quality(struct wire_writer *w, const struct ClockQuality *q);

/* Overwrite a u16 already written at offset off (length fields filled in afterwards). */
int wire_patch_u16(struct wire_writer *w, size_t off, uint16_t v);
