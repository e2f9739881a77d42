/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The data sets of IEEE 1588-2019 clause 8 as host-order structs, and the enums they use. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * Field names are the standard's camelCase so they grep against the text. Only the members an
 * ordinary or boundary clock uses are here; optional members (8.2.x.y "optional") are left out.
 */

/* IEEE 1588-2019 8.2.15.3.1 Table 20: the values are the wire values (management TLVs). */
enum port_state {
	PORT_STATE_INITIALIZING = 1,
	PORT_STATE_FAULTY = 2,
	PORT_STATE_DISABLED = 3,
	PORT_STATE_LISTENING = 4,
	PORT_STATE_PRE_MASTER = 5,
	PORT_STATE_MASTER = 6,
	PORT_STATE_PASSIVE = 7,
	PORT_STATE_UNCALIBRATED = 8,
	PORT_STATE_SLAVE = 9,
};
#define PORT_STATE_MIN PORT_STATE_INITIALIZING
#define PORT_STATE_MAX PORT_STATE_SLAVE

/* IEEE 1588-2019 8.2.15.4.4 Table 21 */
enum delay_mechanism {
	DELAY_MECHANISM_E2E = 0x01,
	DELAY_MECHANISM_P2P = 0x02,
	DELAY_MECHANISM_COMMON_P2P = 0x03,
	DELAY_MECHANISM_SPECIAL = 0x04,
	DELAY_MECHANISM_NO_MECHANISM = 0xFE,
};

/* IEEE 1588-2019 7.6.2.8 Table 6 */
enum time_source {
	TIME_SOURCE_ATOMIC_CLOCK = 0x10,
	TIME_SOURCE_GNSS = 0x20,
	TIME_SOURCE_TERRESTRIAL_RADIO = 0x30,
	TIME_SOURCE_SERIAL_TIME_CODE = 0x39,
	TIME_SOURCE_PTP = 0x40,
	TIME_SOURCE_NTP = 0x50,
	TIME_SOURCE_HAND_SET = 0x60,
	TIME_SOURCE_OTHER = 0x90,
	TIME_SOURCE_INTERNAL_OSCILLATOR = 0xA0,
};

/* IEEE 1588-2019 7.6.2.6 Table 5 (a subset: the values profiles and linuxptp use). */
enum clock_accuracy {
	CLOCK_ACCURACY_25NS = 0x20,
	CLOCK_ACCURACY_100NS = 0x21,
	CLOCK_ACCURACY_250NS = 0x22,
	CLOCK_ACCURACY_1US = 0x23,
	CLOCK_ACCURACY_2_5US = 0x24,
	CLOCK_ACCURACY_10US = 0x25,
	CLOCK_ACCURACY_25US = 0x26,
	CLOCK_ACCURACY_100US = 0x27,
	CLOCK_ACCURACY_250US = 0x28,
	CLOCK_ACCURACY_1MS = 0x29,
	CLOCK_ACCURACY_2_5MS = 0x2A,
	CLOCK_ACCURACY_10MS = 0x2B,
	CLOCK_ACCURACY_25MS = 0x2C,
	CLOCK_ACCURACY_100MS = 0x2D,
	CLOCK_ACCURACY_250MS = 0x2E,
	CLOCK_ACCURACY_1S = 0x2F,
	CLOCK_ACCURACY_10S = 0x30,
	CLOCK_ACCURACY_GT_10S = 0x31,
	CLOCK_ACCURACY_UNKNOWN = 0xFE,
};

/* IEEE 1588-2019 7.6.2.5: clockClass values with a meaning of their own. */
#define CLOCK_CLASS_PRIMARY 6
#define CLOCK_CLASS_PRIMARY_HOLDOVER 7
#define CLOCK_CLASS_DEFAULT 248
#define CLOCK_CLASS_SLAVE_ONLY 255
/* 9.3.3 figure 33: classes 1..127 never become slaves of a foreign master. */
#define CLOCK_CLASS_MASTER_ONLY_MAX 127

/*
 * The data set comparison a clock runs: IEEE 1588-2019 9.3.4, or the alternate BMCA of ITU-T
 * G.8275.1 6.3 (and G.8275.2), which linuxptp calls dataset_comparison G.8275.x. Not a data set
 * member of either standard: phcd's choice per instance (9.3.1 allows an alternate BMCA).
 */
enum bmca_comparison {
	BMCA_COMPARISON_IEEE1588 = 0,
	BMCA_COMPARISON_G8275,
};

/* G.8275.1 6.3.2 / ptp4l: localPriority 1..255, default 128; maxStepsRemoved 2..255. */
#define LOCAL_PRIORITY_DEFAULT 128
#define MAX_STEPS_REMOVED_DEFAULT 255

/* IEEE 1588-2019 8.2.1 defaultDS */
struct defaultDS {
	struct ClockIdentity clockIdentity;
	uint16_t numberPorts;
	struct ClockQuality clockQuality;
	uint8_t priority1;
	uint8_t priority2;
	uint8_t domainNumber;
	bool slaveOnly;
	bool twoStepFlag;
	uint16_t sdoId; /* 12 bits */
	/* ITU-T G.8275.1 6.3.2 additions (defaultDS.localPriority, defaultDS.maxStepsRemoved) */
	uint8_t localPriority;
	uint8_t maxStepsRemoved;
	enum bmca_comparison comparison; /* phcd's, not the standard's (see above) */
};

/* IEEE 1588-2019 8.2.2 currentDS */
struct currentDS {
	uint16_t stepsRemoved;
	ns_t offsetFromMaster;
	ns_t meanDelay; /* meanPathDelay in 1588-2008 */
};

/* IEEE 1588-2019 8.2.3 parentDS */
struct parentDS {
	struct PortIdentity parentPortIdentity;
	bool parentStats;
	uint16_t observedParentOffsetScaledLogVariance;
	int32_t observedParentClockPhaseChangeRate;
	struct ClockIdentity grandmasterIdentity;
	struct ClockQuality grandmasterClockQuality;
	uint8_t grandmasterPriority1;
	uint8_t grandmasterPriority2;
};

/* IEEE 1588-2019 8.2.4 timePropertiesDS */
struct timePropertiesDS {
	int16_t currentUtcOffset;
	bool currentUtcOffsetValid;
	bool leap59;
	bool leap61;
	bool timeTraceable;
	bool frequencyTraceable;
	bool ptpTimescale;
	uint8_t timeSource; /* enum time_source */
};

/*
 * What a grandmaster announces of itself and does not measure (linuxptp's GRANDMASTER_SETTINGS_NP):
 * its clockQuality, currentUtcOffset, the time property flags and timeSource. tp.ptpTimescale is
 * not the caller's to say: the timestamping decides it (software stamps count UTC: ARB).
 */
struct gm_settings {
	struct ClockQuality clockQuality;
	struct timePropertiesDS tp;
};

/* IEEE 1588-2019 8.2.15 portDS */
struct portDS {
	struct PortIdentity portIdentity;
	enum port_state portState;
	int8_t logMinDelayReqInterval;
	ns_t meanLinkDelay; /* peerMeanPathDelay in 1588-2008 */
	int8_t logAnnounceInterval;
	uint8_t announceReceiptTimeout;
	int8_t logSyncInterval;
	enum delay_mechanism delayMechanism;
	int8_t logMinPdelayReqInterval;
	uint8_t versionNumber;
	uint8_t minorVersionNumber;
	ns_t delayAsymmetry;
};

/* "SLAVE", "PRE_MASTER", ... as linuxptp prints them; NULL for a value outside the enum. */
const char *port_state_to_string(enum port_state s);
/* Exact, case-sensitive names; -EINVAL otherwise. */
int port_state_from_string(const char *s, enum port_state *ret);

/* "E2E", "P2P", "COMMON_P2P", "SPECIAL", "NO_MECHANISM" */
const char *delay_mechanism_to_string(enum delay_mechanism d);
int delay_mechanism_from_string(const char *s, enum delay_mechanism *ret);

/* "ATOMIC_CLOCK", "GNSS", ... "INTERNAL_OSCILLATOR" (Table 6 names, GPS as GNSS) */
const char *time_source_to_string(enum time_source t);
int time_source_from_string(const char *s, enum time_source *ret);

/*
 * 2^log seconds in ns, for the log message intervals of portDS (7.7.2). The range is clamped to
 * [-29, 30], so the result always fits and is never 0 (2^-30 s is below a nanosecond).
 */
ns_t ds_log_interval_to_ns(int8_t log_interval);

/*
 * The log message intervals phcd takes from the wire (the logMessageInterval of Sync, Announce,
 * Delay_Resp): 2^-10 s to 2^22 s. IEEE 1588-2019 leaves the ranges to the PTP profiles (7.7.2);
 * these are ptp4l's bounds for a Delay_Resp's, applied to every one. Outside them (but for 0x7F,
 * "not specified", which sets nothing) the message is ignored, counted as out_of_range.
 */
#define DS_LOG_INTERVAL_WIRE_MIN (-10)
#define DS_LOG_INTERVAL_WIRE_MAX 22
bool ds_log_interval_wire_valid(int8_t log_interval);

/* timePropertiesDS <-> Announce flagField bits (MSG_FLAG_* of ptp/msg.h). */
uint16_t ds_time_properties_flags(const struct timePropertiesDS *tp);
void ds_time_properties_set_flags(struct timePropertiesDS *tp, uint16_t flags);
