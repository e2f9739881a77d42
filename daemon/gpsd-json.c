// SPDX-License-Identifier: GPL-2.0-or-later
/* gpsd's JSON reports, one line at a time: the classes and fields a time source reads, checked. */
#include <errno.h>
#include <string.h>

#include "daemon/gpsd-json.h"
#include "ptp/util.h"

/*
 * A scanner for gpsd's reports, not a general JSON library: one object per line, whose fields of
 * interest are scalars at its top level. The scan checks the whole line's syntax and notes where
 * each field of interest sits; the class, once known, says which of them to read and how.
 */

static const char *const class_names[_GPSD_CLASS_MAX] = {
	[GPSD_CLASS_OTHER] = "other",	  [GPSD_CLASS_VERSION] = "VERSION",
	[GPSD_CLASS_DEVICES] = "DEVICES", [GPSD_CLASS_DEVICE] = "DEVICE",
	[GPSD_CLASS_WATCH] = "WATCH",	  [GPSD_CLASS_ERROR] = "ERROR",
	[GPSD_CLASS_TPV] = "TPV",	  [GPSD_CLASS_PPS] = "PPS",
	[GPSD_CLASS_TOFF] = "TOFF",
};

const char *gpsd_class_to_string(enum gpsd_class c)
{
	return (unsigned int) c < ARRAY_SIZE(class_names) ? class_names[c] : "unknown";
}

enum field {
	F_CLASS,
	F_MODE,
	F_TIME,
	F_LEAPSECONDS,
	F_EPT,
	F_REAL_SEC,
	F_REAL_NSEC,
	F_CLOCK_SEC,
	F_CLOCK_NSEC,
	F_PROTO_MAJOR,
	F_PROTO_MINOR,
	F_RELEASE,
	F_MESSAGE,
	F_ENABLE,
	F_PPS,
	_F_MAX,
};

static const char *const field_names[_F_MAX] = {
	[F_CLASS] = "class",
	[F_MODE] = "mode",
	[F_TIME] = "time",
	[F_LEAPSECONDS] = "leapseconds",
	[F_EPT] = "ept",
	[F_REAL_SEC] = "real_sec",
	[F_REAL_NSEC] = "real_nsec",
	[F_CLOCK_SEC] = "clock_sec",
	[F_CLOCK_NSEC] = "clock_nsec",
	[F_PROTO_MAJOR] = "proto_major",
	[F_PROTO_MINOR] = "proto_minor",
	[F_RELEASE] = "release",
	[F_MESSAGE] = "message",
	[F_ENABLE] = "enable",
	[F_PPS] = "pps",
};

/* Where one top-level value sits: a string's text between its quotes, or the value's text. */
struct span {
	const char *p;
	size_t len;
	char kind; /* 0: absent; '"' string, '0' number, 't' true, 'f' false, 'n' null, '{', '[' */
};

struct scan {
	const char *p, *end;
};

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n')) {
		s->p++;
	}
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at s->p (its opening quote): *sp is its raw text, escapes unresolved but checked. */
static int scan_string(struct scan *s, struct span *sp)
{
	const char *start;

	if (s->p >= s->end || *s->p != '"') {
		return -EBADMSG;
	}
	start = ++s->p;
	while (s->p < s->end && *s->p != '"') {
		unsigned char c = (unsigned char) *s->p;

		if (c < 0x20) {
			return -EBADMSG; /* control characters are escaped in JSON */
		}
		if (c == '\\') {
			if (s->end - s->p < 2) {
				return -EBADMSG;
			}
			c = (unsigned char) s->p[1];
			if (c == 'u') {
				if (s->end - s->p < 6 || !is_hex(s->p[2]) || !is_hex(s->p[3]) ||
				    !is_hex(s->p[4]) || !is_hex(s->p[5])) {
					return -EBADMSG;
				}
				s->p += 6;
				continue;
			}
			if (!strchr("\"\\/bfnrt", c) || c == '\0') {
				return -EBADMSG;
			}
			s->p += 2;
			continue;
		}
		s->p++;
	}
	if (s->p >= s->end) {
		return -EBADMSG;
	}
	*sp = (struct span){ .p = start, .len = (size_t) (s->p - start), .kind = '"' };
	s->p++;
	return 0;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? (RFC 8259 6) */
static int scan_number(struct scan *s, struct span *sp)
{
	const char *start = s->p;

	if (s->p < s->end && *s->p == '-') {
		s->p++;
	}
	if (s->p >= s->end || !is_digit(*s->p)) {
		return -EBADMSG;
	}
	if (*s->p == '0') {
		s->p++;
	} else {
		while (s->p < s->end && is_digit(*s->p)) {
			s->p++;
		}
	}
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (s->p >= s->end || !is_digit(*s->p)) {
			return -EBADMSG;
		}
		while (s->p < s->end && is_digit(*s->p)) {
			s->p++;
		}
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-')) {
			s->p++;
		}
		if (s->p >= s->end || !is_digit(*s->p)) {
			return -EBADMSG;
		}
		while (s->p < s->end && is_digit(*s->p)) {
			s->p++;
		}
	}
	*sp = (struct span){ .p = start, .len = (size_t) (s->p - start), .kind = '0' };
	return 0;
}

static int scan_literal(struct scan *s, const char *word, char kind, struct span *sp)
{
	size_t n = strlen(word);

	if ((size_t) (s->end - s->p) < n || memcmp(s->p, word, n)) {
		return -EBADMSG;
	}
	*sp = (struct span){ .p = s->p, .len = n, .kind = kind };
	s->p += n;
	return 0;
}

static int scan_value(struct scan *s, unsigned int depth, struct span *sp);

static bool span_is(const struct span *sp, const char *text)
{
	return sp->len == strlen(text) && !memcmp(sp->p, text, sp->len);
}

/*
 * An object or an array at s->p, its members checked and skipped. With f (the report's own
 * object), the fields of interest are noted there; a field twice is refused: which one would
 * count is the sender's trick.
 */
static int scan_container(struct scan *s, unsigned int depth, struct span f[_F_MAX],
			  struct span *sp)
{
	const char *start = s->p;
	char close = *s->p == '{' ? '}' : ']';
	struct span key = { 0 }, value;
	int r;

	if (depth >= GPSD_JSON_DEPTH_MAX) {
		return -EMSGSIZE;
	}
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		*sp = (struct span){ .p = start, .len = (size_t) (s->p - start), .kind = *start };
		return 0;
	}
	for (;;) {
		if (close == '}') {
			r = scan_string(s, &key);
			if (r < 0) {
				return r;
			}
			skip_ws(s);
			if (s->p >= s->end || *s->p != ':') {
				return -EBADMSG;
			}
			s->p++;
			skip_ws(s);
		}
		r = scan_value(s, depth + 1, &value);
		if (r < 0) {
			return r;
		}
		for (size_t k = 0; f && k < _F_MAX; k++) {
			if (span_is(&key, field_names[k])) {
				if (f[k].kind) {
					return -EBADMSG;
				}
				f[k] = value;
			}
		}
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			break;
		}
		return -EBADMSG;
	}
	*sp = (struct span){ .p = start, .len = (size_t) (s->p - start), .kind = *start };
	return 0;
}

static int scan_value(struct scan *s, unsigned int depth, struct span *sp)
{
	if (s->p >= s->end) {
		return -EBADMSG;
	}
	switch (*s->p) {
	case '"':
		return scan_string(s, sp);
	case '{':
	case '[':
		return scan_container(s, depth, NULL, sp);
	case 't':
		return scan_literal(s, "true", 't', sp);
	case 'f':
		return scan_literal(s, "false", 'f', sp);
	case 'n':
		return scan_literal(s, "null", 'n', sp);
	default:
		return scan_number(s, sp);
	}
}

/* The report: one object, its fields of interest noted in f, nothing after it but blanks. */
static int scan_report(struct scan *s, struct span f[_F_MAX])
{
	struct span report;
	int r;

	skip_ws(s);
	if (s->p >= s->end || *s->p != '{') {
		return -EBADMSG;
	}
	r = scan_container(s, 0, f, &report);
	if (r < 0) {
		return r;
	}
	skip_ws(s);
	return s->p == s->end ? 0 : -EBADMSG;
}

/* An integer field (gpsd writes them with %d, %ld, %lld) within [min, max]. */
static int read_int(const struct span *sp, int64_t min, int64_t max, int64_t *ret)
{
	size_t k = 0;
	bool neg = false;
	int64_t v = 0;

	if (sp->kind != '0') {
		return -EBADMSG;
	}
	if (sp->p[0] == '-') {
		neg = true;
		k = 1;
	}
	for (; k < sp->len; k++) {
		if (!is_digit(sp->p[k])) {
			return -EBADMSG; /* a fraction or an exponent: not an integer */
		}
		/* |v| stays below 2^63 / 10 + 9 before the check: no overflow */
		if (v > (INT64_MAX - 9) / 10) {
			return -ERANGE;
		}
		v = v * 10 + (sp->p[k] - '0');
	}
	if (neg) {
		v = -v;
	}
	if (v < min || v > max) {
		return -ERANGE;
	}
	*ret = v;
	return 0;
}

/*
 * A number of seconds (any JSON form: 0.005, 5e-3) as nanoseconds, truncated, within [0, max]:
 * decimal arithmetic on the digits, no floating point (no locale, no rounding surprise).
 */
static int read_seconds_ns(const struct span *sp, int64_t max, int64_t *ret)
{
	int64_t mant = 0, v;
	int exp10 = 9, digits = 0, e = 0, esign = 1;
	size_t k = 0;
	bool frac = false, neg = false;

	if (sp->kind != '0') {
		return -EBADMSG;
	}
	if (sp->p[0] == '-') {
		neg = true;
		k = 1;
	}
	for (; k < sp->len && sp->p[k] != 'e' && sp->p[k] != 'E'; k++) {
		if (sp->p[k] == '.') {
			frac = true;
			continue;
		}
		/* 18 significant digits are exact in an int64; the rest only scale the value */
		if (digits < 18) {
			mant = mant * 10 + (sp->p[k] - '0');
			if (mant) {
				digits++;
			}
			if (frac) {
				exp10--;
			}
		} else if (!frac) {
			exp10++;
		}
	}
	if (k < sp->len) {
		k++;
		if (sp->p[k] == '+' || sp->p[k] == '-') {
			esign = sp->p[k] == '-' ? -1 : 1;
			k++;
		}
		for (; k < sp->len; k++) {
			if (e < 1000) {
				e = e * 10 + (sp->p[k] - '0');
			}
		}
		exp10 += esign * e;
	}
	if (neg && mant) {
		return -ERANGE;
	}
	v = mant;
	for (; exp10 > 0 && v; exp10--) {
		if (v > max / 10) {
			return -ERANGE;
		}
		v *= 10;
	}
	for (; exp10 < 0 && v; exp10++) {
		v /= 10;
	}
	if (v > max) {
		return -ERANGE;
	}
	*ret = v;
	return 0;
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian, valid date). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400; /* y >= 1969 here: no negative division */
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* n digits at p as a number (the caller checked the length). */
static int digits_at(const char *p, size_t n, int64_t *ret)
{
	int64_t v = 0;

	for (size_t k = 0; k < n; k++) {
		if (!is_digit(p[k])) {
			return -EBADMSG;
		}
		v = v * 10 + (p[k] - '0');
	}
	*ret = v;
	return 0;
}

/* gpsd's ISO 8601 UTC time: YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z, e.g. "2019-12-15T20:46:57.000Z". */
static int read_time(const struct span *sp, int64_t *ret)
{
	const char *p = sp->p;
	int64_t y, mo, d, h, mi, sec, frac = 0, days;
	size_t k = 19, n;

	if (sp->kind != '"') {
		return -EBADMSG;
	}
	if (sp->len < 20 || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':' ||
	    p[16] != ':' || digits_at(p, 4, &y) < 0 || digits_at(p + 5, 2, &mo) < 0 ||
	    digits_at(p + 8, 2, &d) < 0 || digits_at(p + 11, 2, &h) < 0 ||
	    digits_at(p + 14, 2, &mi) < 0 || digits_at(p + 17, 2, &sec) < 0) {
		return -EBADMSG;
	}
	if (p[k] == '.') {
		for (n = 0, k++; k < sp->len && is_digit(p[k]); k++, n++) {
			if (n >= 9) {
				return -EBADMSG;
			}
			frac = frac * 10 + (p[k] - '0');
		}
		if (n == 0) {
			return -EBADMSG;
		}
		for (; n < 9; n++) {
			frac *= 10;
		}
	}
	if (k + 1 != sp->len || p[k] != 'Z') {
		return -EBADMSG;
	}
	/* 23:59:60 is a leap second's label, within a minute of 60 s it is not */
	if (y < 1970 || y > 2199 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, (int) mo) ||
	    h > 23 || mi > 59 || sec > 60) {
		return -ERANGE;
	}
	days = days_from_civil(y, (int) mo, (int) d);
	*ret = (((days * 24 + h) * 60 + mi) * 60 + sec) * INT64_C(1000000000) + frac;
	return 0;
}

/* A string kept for the journal: printable ASCII, anything else as '?', cut to the buffer. */
static void read_text(const struct span *sp, char *buf, size_t size)
{
	size_t n = 0;

	if (sp->kind == '"') {
		for (; n < sp->len && n + 1 < size; n++) {
			char c = sp->p[n];

			buf[n] = c >= 0x20 && c < 0x7f && c != '\\' ? c : '?';
		}
	}
	buf[n] = '\0';
}

static int read_bool(const struct span *sp, bool *ret)
{
	if (sp->kind == 't' || sp->kind == 'f') {
		*ret = sp->kind == 't';
		return 0;
	}
	return -EBADMSG;
}

static int read_tpv(const struct span f[_F_MAX], struct gpsd_tpv *t)
{
	int64_t v;
	int r;

	*t = (struct gpsd_tpv){ .ept_ns = -1 };
	if (!f[F_MODE].kind) {
		return -EBADMSG; /* gpsd_json(5): "class" and "mode" are always there */
	}
	r = read_int(&f[F_MODE], GPSD_MODE_UNKNOWN, GPSD_MODE_3D, &v);
	if (r < 0) {
		return r;
	}
	t->mode = (int) v;
	if (f[F_TIME].kind) {
		r = read_time(&f[F_TIME], &t->time_ns);
		if (r < 0) {
			return r;
		}
		t->has_time = true;
	}
	if (f[F_LEAPSECONDS].kind) {
		r = read_int(&f[F_LEAPSECONDS], 0, GPSD_JSON_LEAPSECONDS_MAX, &v);
		if (r < 0) {
			return r;
		}
		t->leapseconds = (int) v;
		t->has_leapseconds = true;
	}
	if (f[F_EPT].kind) {
		r = read_seconds_ns(&f[F_EPT], GPSD_JSON_EPT_MAX_NS, &t->ept_ns);
		if (r < 0) {
			return r;
		}
	}
	return 0;
}

static int read_pair(const struct span *sec, const struct span *nsec, int64_t *ret)
{
	int64_t s, ns;
	int r;

	if (!sec->kind || !nsec->kind) {
		return -EBADMSG;
	}
	r = read_int(sec, 0, GPSD_JSON_SEC_MAX, &s);
	if (r < 0) {
		return r;
	}
	r = read_int(nsec, 0, 999999999, &ns);
	if (r < 0) {
		return r;
	}
	*ret = s * INT64_C(1000000000) + ns;
	return 0;
}

static int read_delta(const struct span f[_F_MAX], struct gpsd_timedelta *d)
{
	int r = read_pair(&f[F_REAL_SEC], &f[F_REAL_NSEC], &d->real_ns);

	return r < 0 ? r : read_pair(&f[F_CLOCK_SEC], &f[F_CLOCK_NSEC], &d->clock_ns);
}

static int read_version(const struct span f[_F_MAX], struct gpsd_msg *m)
{
	int64_t v;
	int r;

	m->version.proto_major = m->version.proto_minor = -1;
	if (f[F_PROTO_MAJOR].kind) {
		r = read_int(&f[F_PROTO_MAJOR], 0, 255, &v);
		if (r < 0) {
			return r;
		}
		m->version.proto_major = (int) v;
	}
	if (f[F_PROTO_MINOR].kind) {
		r = read_int(&f[F_PROTO_MINOR], 0, 255, &v);
		if (r < 0) {
			return r;
		}
		m->version.proto_minor = (int) v;
	}
	read_text(&f[F_RELEASE], m->version.release, sizeof(m->version.release));
	return 0;
}

static int read_watch(const struct span f[_F_MAX], struct gpsd_msg *m)
{
	int r = 0;

	m->watch.enable = m->watch.pps = false;
	if (f[F_ENABLE].kind) {
		r = read_bool(&f[F_ENABLE], &m->watch.enable);
	}
	if (r >= 0 && f[F_PPS].kind) {
		r = read_bool(&f[F_PPS], &m->watch.pps);
	}
	return r;
}

int gpsd_json_parse(const char *line, size_t len, struct gpsd_msg *ret)
{
	struct span f[_F_MAX] = { 0 };
	struct scan s = { .p = line, .end = line + len };
	struct gpsd_msg m = { .cls = GPSD_CLASS_OTHER };
	int r;

	if (len > GPSD_JSON_LINE_MAX) {
		return -EMSGSIZE;
	}
	r = scan_report(&s, f);
	if (r < 0) {
		return r;
	}
	if (f[F_CLASS].kind != '"') {
		return -EBADMSG;
	}
	for (size_t k = 1; k < _GPSD_CLASS_MAX; k++) {
		if (span_is(&f[F_CLASS], class_names[k])) {
			m.cls = (enum gpsd_class) k;
		}
	}
	switch (m.cls) {
	case GPSD_CLASS_TPV:
		r = read_tpv(f, &m.tpv);
		break;
	case GPSD_CLASS_PPS:
	case GPSD_CLASS_TOFF:
		r = read_delta(f, &m.delta);
		break;
	case GPSD_CLASS_VERSION:
		r = read_version(f, &m);
		break;
	case GPSD_CLASS_WATCH:
		r = read_watch(f, &m);
		break;
	case GPSD_CLASS_ERROR:
		read_text(&f[F_MESSAGE], m.error_message, sizeof(m.error_message));
		break;
	default:
		break;
	}
	if (r < 0) {
		return r;
	}
	*ret = m;
	return 0;
}
