// SPDX-License-Identifier: GPL-2.0-or-later
/* Names of the clause 8 enums and the small conversions around the data sets. */
#include <errno.h>
#include <string.h>

#include "ptp/ds.h"
#include "ptp/msg.h"
#include "ptp/util.h"

/* The name within, not a pointer: a table of pointers is relocated data, copied by each worker. */
struct enum_name {
	int value;
	char name[24];
};

static const struct enum_name port_state_names[] = {
	{ PORT_STATE_INITIALIZING, "INITIALIZING" },
	{ PORT_STATE_FAULTY, "FAULTY" },
	{ PORT_STATE_DISABLED, "DISABLED" },
	{ PORT_STATE_LISTENING, "LISTENING" },
	{ PORT_STATE_PRE_MASTER, "PRE_MASTER" },
	{ PORT_STATE_MASTER, "MASTER" },
	{ PORT_STATE_PASSIVE, "PASSIVE" },
	{ PORT_STATE_UNCALIBRATED, "UNCALIBRATED" },
	{ PORT_STATE_SLAVE, "SLAVE" },
};

static const struct enum_name delay_mechanism_names[] = {
	{ DELAY_MECHANISM_E2E, "E2E" },
	{ DELAY_MECHANISM_P2P, "P2P" },
	{ DELAY_MECHANISM_COMMON_P2P, "COMMON_P2P" },
	{ DELAY_MECHANISM_SPECIAL, "SPECIAL" },
	{ DELAY_MECHANISM_NO_MECHANISM, "NO_MECHANISM" },
};

static const struct enum_name time_source_names[] = {
	{ TIME_SOURCE_ATOMIC_CLOCK, "ATOMIC_CLOCK" },
	{ TIME_SOURCE_GNSS, "GNSS" },
	{ TIME_SOURCE_TERRESTRIAL_RADIO, "TERRESTRIAL_RADIO" },
	{ TIME_SOURCE_SERIAL_TIME_CODE, "SERIAL_TIME_CODE" },
	{ TIME_SOURCE_PTP, "PTP" },
	{ TIME_SOURCE_NTP, "NTP" },
	{ TIME_SOURCE_HAND_SET, "HAND_SET" },
	{ TIME_SOURCE_OTHER, "OTHER" },
	{ TIME_SOURCE_INTERNAL_OSCILLATOR, "INTERNAL_OSCILLATOR" },
};

static const char *name_of(const struct enum_name *t, size_t n, int value)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].value == value) {
			return t[i].name;
		}
	}
	return NULL;
}

static int value_of(const struct enum_name *t, size_t n, const char *name, int *ret)
{
	if (!name) {
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].name, name) == 0) {
			*ret = t[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

/* One to/from string pair per enum, over its table above. */
#define DEFINE_ENUM_STRINGS(type, prefix, table)                      \
	const char *prefix##_to_string(enum type v)                   \
	{                                                             \
		return name_of(table, ARRAY_SIZE(table), (int) v);    \
	}                                                             \
	int prefix##_from_string(const char *s, enum type *ret)       \
	{                                                             \
		int v, r = value_of(table, ARRAY_SIZE(table), s, &v); \
		if (r < 0) {                                          \
			return r;                                     \
		}                                                     \
		*ret = (enum type) v;                                 \
		return 0;                                             \
	}

DEFINE_ENUM_STRINGS(port_state, port_state, port_state_names)
DEFINE_ENUM_STRINGS(delay_mechanism, delay_mechanism, delay_mechanism_names)
DEFINE_ENUM_STRINGS(time_source, time_source, time_source_names)

ns_t ds_log_interval_to_ns(int8_t log_interval)
{
	int l = log_interval;

	if (l < -29) {
		l = -29;
	} else if (l > 30) {
		l = 30;
	}
	return l >= 0 ? NS_PER_SEC << l : NS_PER_SEC >> -l;
}

bool ds_log_interval_wire_valid(int8_t log_interval)
{
	return log_interval >= DS_LOG_INTERVAL_WIRE_MIN && log_interval <= DS_LOG_INTERVAL_WIRE_MAX;
}

/* IEEE 1588-2019 13.3.2.8 Table 37: flagField octet 1 bits. */
uint16_t ds_time_properties_flags(const struct timePropertiesDS *tp)
{
	return (tp->leap61 ? MSG_FLAG_LEAP_61 : 0) | (tp->leap59 ? MSG_FLAG_LEAP_59 : 0) |
	       (tp->currentUtcOffsetValid ? MSG_FLAG_CURRENT_UTC_OFFSET_VALID : 0) |
	       (tp->ptpTimescale ? MSG_FLAG_PTP_TIMESCALE : 0) |
	       (tp->timeTraceable ? MSG_FLAG_TIME_TRACEABLE : 0) |
	       (tp->frequencyTraceable ? MSG_FLAG_FREQUENCY_TRACEABLE : 0);
}

void ds_time_properties_set_flags(struct timePropertiesDS *tp, uint16_t flags)
{
	tp->leap61 = flags & MSG_FLAG_LEAP_61;
	tp->leap59 = flags & MSG_FLAG_LEAP_59;
	tp->currentUtcOffsetValid = flags & MSG_FLAG_CURRENT_UTC_OFFSET_VALID;
	tp->ptpTimescale = flags & MSG_FLAG_PTP_TIMESCALE;
	tp->timeTraceable = flags & MSG_FLAG_TIME_TRACEABLE;
	tp->frequencyTraceable = flags & MSG_FLAG_FREQUENCY_TRACEABLE;
}
