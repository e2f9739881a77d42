/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The IEEE 1588-2019 primitive types (5.3) and the project's one nanosecond type. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The one time type of the project: signed nanoseconds in an int64. Wire formats (48-bit seconds,
 * scaled nanoseconds) are converted to and from it at the codec boundary only.
 */
typedef int64_t ns_t;

#define NS_PER_SEC INT64_C(1000000000)
#define NS_PER_MSEC INT64_C(1000000)
#define NS_PER_USEC INT64_C(1000)
/* sd-event and CLOCK_MONOTONIC in microseconds (uint64_t) */
#define USEC_PER_SEC UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)

/* IEEE 1588-2019 5.3.3: 48-bit seconds and 32-bit nanoseconds. */
struct Timestamp {
	uint64_t secondsField; /* only the low 48 bits travel */
	uint32_t nanosecondsField;
};

/* IEEE 1588-2019 5.3.4 */
struct ClockIdentity {
	uint8_t id[8];
};

/* IEEE 1588-2019 5.3.5 */
struct PortIdentity {
	struct ClockIdentity clockIdentity;
	uint16_t portNumber;
};

/* IEEE 1588-2019 5.3.7 */
struct ClockQuality {
	uint8_t clockClass;
	uint8_t clockAccuracy;
	uint16_t offsetScaledLogVariance;
};

/* "001122.fffe.334455" and "001122.fffe.334455-1", as linuxptp prints them, plus NUL. */
#define CLOCK_IDENTITY_STRLEN 19
#define PORT_IDENTITY_STRLEN 25

#define TIMESTAMP_MAX_SECONDS ((UINT64_C(1) << 48) - 1)

/* Timestamp <-> ns. Negative or out of range values give -ERANGE; ns >= 1e9 gives -EBADMSG. */
int timestamp_to_ns(const struct Timestamp *ts, ns_t *ret);
int ns_to_timestamp(ns_t ns, struct Timestamp *ret);

/*
 * correctionField (5.3.2 TimeInterval): nanoseconds * 2^16 in an int64. The sub-nanosecond part
 * is truncated toward negative infinity on the way in; INT64_MAX ("too big to represent") maps to
 * INT64_MAX.
 */
ns_t correction_to_ns(int64_t scaled);
int64_t ns_to_correction(ns_t ns);

/* EUI-64 from an EUI-48 MAC, inserting ff:fe as linuxptp does (7.5.2.2.2). */
void clock_identity_from_mac(const uint8_t mac[6], struct ClockIdentity *ret);
bool clock_identity_equal(const struct ClockIdentity *a, const struct ClockIdentity *b);
int clock_identity_cmp(const struct ClockIdentity *a, const struct ClockIdentity *b);
bool port_identity_equal(const struct PortIdentity *a, const struct PortIdentity *b);
int port_identity_cmp(const struct PortIdentity *a, const struct PortIdentity *b);

/* Print into buf (at least *_STRLEN bytes); return buf so it can sit in a printf argument. */
const char *clock_identity_to_string(const struct ClockIdentity *c, char *buf);
const char *port_identity_to_string(const struct PortIdentity *p, char *buf);
/* Parse "001122.fffe.334455" / "001122.fffe.334455-1"; -EINVAL on anything else. */
int clock_identity_from_string(const char *s, struct ClockIdentity *ret);
int port_identity_from_string(const char *s, struct PortIdentity *ret);
