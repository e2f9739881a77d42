/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IEEE 1588-2019 clause 15 management: answer GET/SET requests from a snapshot of the data sets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/ds.h"
#include "ptp/msg.h"
#include "ptp/options.h"
#include "ptp/types.h"

/*
 * Pure: the caller hands a parsed Management message and a snapshot of the instance (struct
 * mgmt_clock); mgmt_handle_frame() builds the answers (one per clock for a clock-level
 * managementId, one per matching port for a port-level one) and passes each to a send callback. A
 * SET that is accepted is returned in struct mgmt_change for the caller to apply: this module
 * changes nothing. The TLV layouts are linuxptp's (tlv.h, ddt.h), so Debian's pmc decodes them.
 */

/* IEEE 1588-2019 15.5.2.3 Table 59, plus linuxptp's implementation-specific (_NP) ids. */
enum mgmt_id {
	MGMT_NULL_MANAGEMENT = 0x0000,
	MGMT_CLOCK_DESCRIPTION = 0x0001,
	MGMT_USER_DESCRIPTION = 0x0002,
	MGMT_SAVE_IN_NON_VOLATILE_STORAGE = 0x0003,
	MGMT_RESET_NON_VOLATILE_STORAGE = 0x0004,
	MGMT_INITIALIZE = 0x0005,
	MGMT_FAULT_LOG = 0x0006,
	MGMT_FAULT_LOG_RESET = 0x0007,
	MGMT_DEFAULT_DATA_SET = 0x2000,
	MGMT_CURRENT_DATA_SET = 0x2001,
	MGMT_PARENT_DATA_SET = 0x2002,
	MGMT_TIME_PROPERTIES_DATA_SET = 0x2003,
	MGMT_PORT_DATA_SET = 0x2004,
	MGMT_PRIORITY1 = 0x2005,
	MGMT_PRIORITY2 = 0x2006,
	MGMT_DOMAIN = 0x2007,
	MGMT_SLAVE_ONLY = 0x2008,
	MGMT_LOG_ANNOUNCE_INTERVAL = 0x2009,
	MGMT_ANNOUNCE_RECEIPT_TIMEOUT = 0x200A,
	MGMT_LOG_SYNC_INTERVAL = 0x200B,
	MGMT_VERSION_NUMBER = 0x200C,
	MGMT_ENABLE_PORT = 0x200D,
	MGMT_DISABLE_PORT = 0x200E,
	MGMT_TIME = 0x200F,
	MGMT_CLOCK_ACCURACY = 0x2010,
	MGMT_UTC_PROPERTIES = 0x2011,
	MGMT_TRACEABILITY_PROPERTIES = 0x2012,
	MGMT_TIMESCALE_PROPERTIES = 0x2013,
	MGMT_UNICAST_NEGOTIATION_ENABLE = 0x2014,
	MGMT_PATH_TRACE_LIST = 0x2015,
	MGMT_PATH_TRACE_ENABLE = 0x2016,
	MGMT_GRANDMASTER_CLUSTER_TABLE = 0x2017,
	MGMT_UNICAST_MASTER_TABLE = 0x2018,
	MGMT_UNICAST_MASTER_MAX_TABLE_SIZE = 0x2019,
	MGMT_ACCEPTABLE_MASTER_TABLE = 0x201A,
	MGMT_ACCEPTABLE_MASTER_TABLE_ENABLED = 0x201B,
	MGMT_ACCEPTABLE_MASTER_MAX_TABLE_SIZE = 0x201C,
	MGMT_ALTERNATE_MASTER = 0x201D,
	MGMT_ALTERNATE_TIME_OFFSET_ENABLE = 0x201E,
	MGMT_ALTERNATE_TIME_OFFSET_NAME = 0x201F,
	MGMT_ALTERNATE_TIME_OFFSET_MAX_KEY = 0x2020,
	MGMT_ALTERNATE_TIME_OFFSET_PROPERTIES = 0x2021,
	MGMT_EXTERNAL_PORT_CONFIGURATION_ENABLED = 0x3000,
	MGMT_MASTER_ONLY = 0x3001,
	MGMT_HOLDOVER_UPGRADE_ENABLE = 0x3002,
	MGMT_EXT_PORT_CONFIG_PORT_DATA_SET = 0x3003,
	MGMT_SLAVE_EVENT_MONITORING = 0x3004,
	MGMT_TRANSPARENT_CLOCK_DEFAULT_DATA_SET = 0x4000,
	MGMT_TRANSPARENT_CLOCK_PORT_DATA_SET = 0x4001,
	MGMT_PRIMARY_DOMAIN = 0x4002,
	MGMT_DELAY_MECHANISM = 0x6000,
	MGMT_LOG_MIN_PDELAY_REQ_INTERVAL = 0x6001,
	MGMT_TIME_STATUS_NP = 0xC000,
	MGMT_GRANDMASTER_SETTINGS_NP = 0xC001,
	MGMT_PORT_DATA_SET_NP = 0xC002,
	MGMT_SUBSCRIBE_EVENTS_NP = 0xC003,
	MGMT_PORT_PROPERTIES_NP = 0xC004,
	MGMT_PORT_STATS_NP = 0xC005,
	MGMT_SYNCHRONIZATION_UNCERTAIN_NP = 0xC006,
	MGMT_PORT_SERVICE_STATS_NP = 0xC007,
	MGMT_UNICAST_MASTER_TABLE_NP = 0xC008,
	MGMT_PORT_HWCLOCK_NP = 0xC009,
	MGMT_POWER_PROFILE_SETTINGS_NP = 0xC00A,
};

/* "DEFAULT_DATA_SET", ... as pmc spells them; NULL for an id this module does not know. */
const char *mgmt_id_to_string(uint16_t id);
int mgmt_id_from_string(const char *s, uint16_t *ret);

/* linuxptp's enum timestamp_type, as PORT_PROPERTIES_NP carries it. */
enum mgmt_timestamping {
	MGMT_TS_SOFTWARE = 0,
	MGMT_TS_HARDWARE = 1,
	MGMT_TS_LEGACY_HW = 2,
	MGMT_TS_ONESTEP = 3,
	MGMT_TS_P2P1STEP = 4,
};

/* What a port contributes to the answers. */
struct mgmt_port {
	struct portDS ds;
	const char *ifname; /* PORT_PROPERTIES_NP interface */
	enum mgmt_timestamping timestamping;
	bool masterOnly; /* MASTER_ONLY */
	/* PORT_STATS_NP: messages received and sent per messageType */
	uint64_t rx[16];
	uint64_t tx[16];
	struct power_profile_options power_profile; /* POWER_PROFILE_SETTINGS_NP */
};

/* A snapshot of one PTP instance (clock), filled by the caller for each request. */
struct mgmt_clock {
	struct defaultDS dds; /* as options_default_ds() builds it from options */
	/* The instance's options dds was built from: what a SET leaves in effect is built anew. */
	const struct instance_options *options;
	struct currentDS cds;
	struct parentDS pds;
	struct timePropertiesDS tpds;
	const char *user_description; /* NULL: empty */
	/* GRANDMASTER_SETTINGS_NP: what the clock announces of itself as grandmaster */
	struct gm_settings gm;
	ns_t ingress_time; /* TIME_STATUS_NP: t2 of the last Sync used, 0 if none */
	const struct mgmt_port *ports;
	size_t n_ports;
	/*
	 * ports holds every port of the clock. A worker that sees only its own port clears it:
	 * a port number it does not hold is then someone else's, not a WRONG_VALUE.
	 */
	bool all_ports;
};

/* Where the request came from. */
struct mgmt_request {
	/*
	 * Index into mgmt_clock.ports of the port it arrived on (over the network), or
	 * MGMT_INGRESS_LOCAL for a local socket: clock-level answers then come from port 0 of the
	 * clock, as ptp4l's answers over its Unix socket do.
	 */
	int ingress;
	bool set_allowed; /* an authorized channel: the read-write socket, or the network if enabled
			   */
};

#define MGMT_INGRESS_LOCAL (-1)

/*
 * A SET the caller must apply (IEEE 1588-2019 15.5.3.3.5/.6: priority1, priority2; linuxptp's
 * GRANDMASTER_SETTINGS_NP: clockQuality, currentUtcOffset, leap61, leap59, currentUtcOffsetValid,
 * timeTraceable, frequencyTraceable, timeSource; its ptpTimescale bit is not taken).
 */
enum {
	MGMT_CHANGE_PRIORITY1 = 1u << 0,
	MGMT_CHANGE_PRIORITY2 = 1u << 1,
	MGMT_CHANGE_GM_SETTINGS = 1u << 2,
};

struct mgmt_change {
	unsigned int mask;
	uint8_t priority1;
	uint8_t priority2;
	struct gm_settings gm;
};

/* What happened to requests: every one lands in exactly one of the first five. */
enum mgmt_counter {
	MGMT_CNT_ANSWERED,	/* at least one RESPONSE/ACKNOWLEDGE with the data */
	MGMT_CNT_ERROR_STATUS,	/* answered with MANAGEMENT_ERROR_STATUS */
	MGMT_CNT_NOT_FOR_US,	/* another clock identity or domain, or a port we do not hold */
	MGMT_CNT_NOT_A_REQUEST, /* RESPONSE/ACKNOWLEDGE from someone else, reserved actions */
	MGMT_CNT_MALFORMED,	/* dropped: unparsable, not exactly one MANAGEMENT TLV */
	MGMT_CNT_WRONG_LENGTH,	/* of the above: WRONG_LENGTH (oversized or short data) */
	MGMT_CNT_SET_REFUSED,	/* of the above: SET from an unauthorized channel */
	MGMT_CNT_SET_APPLIED,	/* of the answered: a SET returned in mgmt_change */
	MGMT_CNT_SEND_FAILED,	/* the send callback failed */
	_MGMT_CNT_MAX,
};

struct mgmt_counters {
	uint64_t c[_MGMT_CNT_MAX];
};

/* "answered", "error_status", ...: stable names for logs and D-Bus. */
const char *mgmt_counter_to_string(enum mgmt_counter c);

/* Send one built answer (a whole PTP message); >= 0 or -errno. */
typedef int (*mgmt_send_fn)(void *userdata, const void *buf, size_t len);

/* Large enough for every answer built here (the longest is a 255-octet PTPText). */
#define MGMT_MSG_MAX 512

/*
 * Answer one Management message, from raw bytes (a datagram of the Unix socket or the wire): one
 * that does not parse, or is not a Management message, is counted as MALFORMED. Returns the
 * number of answers sent (0: dropped or nothing to say, see counters), or a -errno from send.
 * *change is cleared first and holds the SETs to apply.
 */
int mgmt_handle_frame(const struct mgmt_clock *c, const void *buf, size_t len,
		      const struct mgmt_request *req, mgmt_send_fn send, void *userdata,
		      struct mgmt_change *change, struct mgmt_counters *cnt);
