// SPDX-License-Identifier: GPL-2.0-or-later
/* Conversions of the IEEE 1588 primitive types to the project's int64 nanoseconds and to text. */
#include <errno.h>
#include <string.h>

#include "ptp/types.h"

int timestamp_to_ns(const struct Timestamp *ts, ns_t *ret)
{
	if (ts->nanosecondsField >= NS_PER_SEC) {
		return -EBADMSG;
	}
	if (ts->secondsField > TIMESTAMP_MAX_SECONDS ||
	    ts->secondsField > (uint64_t) (INT64_MAX / NS_PER_SEC) - 1) {
		return -ERANGE;
	}
	*ret = (ns_t) ts->secondsField * NS_PER_SEC + ts->nanosecondsField;
	return 0;
}

int ns_to_timestamp(ns_t ns, struct Timestamp *ret)
{
	if (ns < 0) {
		return -ERANGE;
	}
	ret->secondsField = (uint64_t) (ns / NS_PER_SEC);
	ret->nanosecondsField = (uint32_t) (ns % NS_PER_SEC);
	return 0;
}

ns_t correction_to_ns(int64_t scaled)
{
	if (scaled == INT64_MAX) {
		return INT64_MAX;
	}
	/* Arithmetic shift: floor division by 2^16 for negative values too. */
	return scaled >> 16;
}

int64_t ns_to_correction(ns_t ns)
{
	if (ns >= (INT64_MAX >> 16)) {
		return INT64_MAX;
	}
	if (ns <= (INT64_MIN >> 16)) {
		return INT64_MIN;
	}
	return (int64_t) ((uint64_t) ns << 16);
}

void clock_identity_from_mac(const uint8_t mac[6], struct ClockIdentity *ret)
{
	ret->id[0] = mac[0];
	ret->id[1] = mac[1];
	ret->id[2] = mac[2];
	ret->id[3] = 0xff;
	ret->id[4] = 0xfe;
	ret->id[5] = mac[3];
	ret->id[6] = mac[4];
	ret->id[7] = mac[5];
}

bool clock_identity_equal(const struct ClockIdentity *a, const struct ClockIdentity *b)
{
	return memcmp(a->id, b->id, sizeof(a->id)) == 0;
}

int clock_identity_cmp(const struct ClockIdentity *a, const struct ClockIdentity *b)
{
	return memcmp(a->id, b->id, sizeof(a->id));
}

bool port_identity_equal(const struct PortIdentity *a, const struct PortIdentity *b)
{
	return port_identity_cmp(a, b) == 0;
}

int port_identity_cmp(const struct PortIdentity *a, const struct PortIdentity *b)
{
	int r = clock_identity_cmp(&a->clockIdentity, &b->clockIdentity);

	if (r != 0) {
		return r;
	}
	return (a->portNumber > b->portNumber) - (a->portNumber < b->portNumber);
}

/* By hand, not snprintf(): D-Bus shows several of these per object on every GetManagedObjects. */
const char *clock_identity_to_string(const struct ClockIdentity *c, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *i = c->id;
	char *o = buf;

	for (size_t k = 0; k < 8; k++) {
		if (k == 3 || k == 5) {
			*o++ = '.';
		}
		*o++ = hex[i[k] >> 4];
		*o++ = hex[i[k] & 0xf];
	}
	*o = '\0';
	return buf;
}

const char *port_identity_to_string(const struct PortIdentity *p, char *buf)
{
	char digits[5];
	size_t n = 0;
	uint16_t v = p->portNumber;
	char *o = buf + CLOCK_IDENTITY_STRLEN - 1;

	clock_identity_to_string(&p->clockIdentity, buf);
	*o++ = '-';
	do {
		digits[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v);
	while (n) {
		*o++ = digits[--n];
	}
	*o = '\0';
	return buf;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* Parse the 18 characters of a clock identity at s; return the count consumed or -EINVAL. */
static int parse_clock_identity(const char *s, struct ClockIdentity *ret)
{
	struct ClockIdentity c;
	size_t n = 0;

	for (size_t pos = 0; pos < 18; pos++) {
		int hi, lo;

		if (pos == 6 || pos == 11) {
			if (s[pos] != '.') {
				return -EINVAL;
			}
			continue;
		}
		hi = hex_nibble(s[pos]);
		if (hi < 0) {
			return -EINVAL;
		}
		lo = hex_nibble(s[++pos]);
		if (lo < 0) {
			return -EINVAL;
		}
		c.id[n++] = (uint8_t) (hi << 4 | lo);
	}
	*ret = c;
	return 18;
}

int clock_identity_from_string(const char *s, struct ClockIdentity *ret)
{
	struct ClockIdentity c;
	int r = parse_clock_identity(s, &c);

	if (r < 0 || s[r] != '\0') {
		return -EINVAL;
	}
	*ret = c;
	return 0;
}

int port_identity_from_string(const char *s, struct PortIdentity *ret)
{
	struct PortIdentity p;
	unsigned long n = 0;
	const char *d;
	int r = parse_clock_identity(s, &p.clockIdentity);

	if (r < 0 || s[r] != '-') {
		return -EINVAL;
	}
	d = s + r + 1;
	if (*d == '\0') {
		return -EINVAL;
	}
	for (; *d; d++) {
		if (*d < '0' || *d > '9') {
			return -EINVAL;
		}
		n = n * 10 + (unsigned long) (*d - '0');
		if (n > UINT16_MAX) {
			return -EINVAL;
		}
	}
	p.portNumber = (uint16_t) n;
	*ret = p;
	return 0;
}
