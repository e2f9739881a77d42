/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gpsd's JSON reports, one line at a time: the classes and fields a time source reads, checked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gpsd 3.22's longest report (GPS_JSON_RESPONSE_MAX); a longer line is dropped unread. */
#define GPSD_JSON_LINE_MAX 10240
/* Objects and arrays inside the report (DEVICES and SKY go two deep): deeper is refused. */
#define GPSD_JSON_DEPTH_MAX 8
/* VERSION's release and ERROR's message, kept for the journal (printable ASCII, cut). */
#define GPSD_JSON_TEXT_MAX 64
/* Times gpsd may report: 1970 to 2199 (nanoseconds since 1970 fit an int64 up to 2262). */
#define GPSD_JSON_SEC_MAX INT64_C(7258118399)
/* GPS - UTC, s: 0 in 1980, 18 since 2017; leap seconds have only been inserted so far. */
#define GPSD_JSON_LEAPSECONDS_MAX 200
/* ept beyond a day says nothing a time source can use. */
#define GPSD_JSON_EPT_MAX_NS (INT64_C(86400) * 1000000000)

enum gpsd_class {
	GPSD_CLASS_OTHER, /* a class a time source ignores: SKY, GST, ATT, AIS, ... */
	GPSD_CLASS_VERSION,
	GPSD_CLASS_DEVICES,
	GPSD_CLASS_DEVICE,
	GPSD_CLASS_WATCH,
	GPSD_CLASS_ERROR,
	GPSD_CLASS_TPV,
	GPSD_CLASS_PPS,
	GPSD_CLASS_TOFF,
	_GPSD_CLASS_MAX,
};

const char *gpsd_class_to_string(enum gpsd_class c);

/* TPV's mode (gpsd_json(5)): 2 and 3 are fixes. */
enum {
	GPSD_MODE_UNKNOWN = 0,
	GPSD_MODE_NO_FIX = 1,
	GPSD_MODE_2D = 2,
	GPSD_MODE_3D = 3,
};

struct gpsd_tpv {
	int mode;
	bool has_time;
	int64_t time_ns; /* UTC since 1970 (as POSIX: 23:59:60 reads as the next 00:00:00) */
	bool has_leapseconds;
	int leapseconds; /* GPS - UTC, s (gpsd's "leapseconds"; TAI - UTC is 19 more) */
	int64_t ept_ns;	 /* the receiver's (or gpsd's) estimated time error; -1: not given */
};

/* PPS and TOFF: the receiver's time of one edge or message, and the system clock's there. */
struct gpsd_timedelta {
	int64_t real_ns;  /* real_sec, real_nsec: the receiver's time, UTC since 1970 */
	int64_t clock_ns; /* clock_sec, clock_nsec: CLOCK_REALTIME when gpsd saw it */
};

struct gpsd_msg {
	enum gpsd_class cls;
	union {
		struct gpsd_tpv tpv;	     /* TPV */
		struct gpsd_timedelta delta; /* PPS, TOFF */
		struct {
			int proto_major, proto_minor; /* -1: not given */
			char release[GPSD_JSON_TEXT_MAX];
		} version; /* VERSION */
		struct {
			bool enable, pps;		/* false when not given */
		} watch;				/* WATCH */
		char error_message[GPSD_JSON_TEXT_MAX]; /* ERROR */
	};
};

/*
 * Parse one report (the line without its end of line; a trailing "\r" and blanks are allowed).
 * A time source's fields are checked for type and range whatever order they come in; every other
 * field only for JSON syntax, and a class other than those above is GPSD_CLASS_OTHER. 0 with
 * *ret filled; -EMSGSIZE: longer than GPSD_JSON_LINE_MAX or nested deeper than
 * GPSD_JSON_DEPTH_MAX; -EBADMSG: not one JSON object, no "class", a field twice, of the wrong
 * type, or missing (TPV's mode; PPS's and TOFF's four times); -ERANGE: a value out of range.
 * Pure: reads line[0..len) only, writes only *ret.
 */
int gpsd_json_parse(const char *line, size_t len, struct gpsd_msg *ret);
