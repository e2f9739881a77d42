/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linuxptp's defaults for instance and port options, and the names of their enumerations. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ptp/msg.h"
#include "ptp/options.h"
#include "ptp/util.h"

/* IEEE 1588-2019 7.6.2.8 Table 6: INTERNAL_OSCILLATOR, ptp4l's default timeSource. */
#define TIME_SOURCE_INTERNAL_OSCILLATOR 0xa0
/* TAI - UTC since 2017-01-01; ptp4l's CURRENT_UTC_OFFSET. */
#define CURRENT_UTC_OFFSET 37

/* IEEE 1588-2019 Annex E.3: the default and the peer delay multicast addresses. */
const uint8_t options_mac_ptp_default[OPTIONS_MAC_LEN] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 };
const uint8_t options_mac_p2p_default[OPTIONS_MAC_LEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

void options_instance_defaults(struct instance_options *o)
{
	/* Zero first so padding and unused array slots compare equal in tests and diffs. */
	memset(o, 0, sizeof(*o));
	o->domainNumber = 0;
	o->priority1 = 128;
	o->priority2 = 128;
	o->clockClass = 248;	 /* 7.6.2.5: default, slave-capable clock */
	o->clockAccuracy = 0xfe; /* 7.6.2.6 Table 5: unknown */
	o->offsetScaledLogVariance = 0xffff;
	o->slaveOnly = false;
	o->twoStepFlag = true;
	o->utc_offset = CURRENT_UTC_OFFSET;
	o->timeSource = TIME_SOURCE_INTERNAL_OSCILLATOR;
	o->clock_backend = OPTIONS_CLOCK_PHC;
	o->servo.clock_servo = SERVO_TYPE_PI;
	o->servo.pi_proportional_const = 0.0;
	o->servo.pi_integral_const = 0.0;
	o->servo.step_threshold = 0.0;
	o->servo.first_step_threshold = 0.00002;
	o->servo.max_offset_jump = 1.0;
	o->servo.max_frequency = 900000000;
	o->servo.servo_offset_threshold = 0;
	o->servo.servo_num_offset_values = 10;
	o->virtual_clock.initial_offset_ns = 0;
	o->virtual_clock.initial_freq_ppb = 0;
	o->interfaces.auto_select = true;
	o->management_network = OPTIONS_MGMT_NETWORK_READ_ONLY;
	o->phc_follow = OPTIONS_PHC_FOLLOW_AUTO;
	/* ptp4l's default (linuxptp 4.x config.c) */
	snprintf(o->refclock_sock_address, sizeof(o->refclock_sock_address), "%s",
		 "/var/run/refclock.ptp.sock");
	o->include_software_interfaces = false;
	o->gmCapable = true;
	o->dataset_comparison = BMCA_COMPARISON_IEEE1588;
	o->localPriority = LOCAL_PRIORITY_DEFAULT;
	o->maxStepsRemoved = MAX_STEPS_REMOVED_DEFAULT;
	o->clock_class_threshold = CLOCK_CLASS_DEFAULT;
	o->holdover.time = 300;
	o->holdover.time_error = 1100;
	o->holdover.out_of_spec_time = 3600;
	o->holdover.lock_time = 10;
	o->holdover.gm_out_of_spec_class = 140;
	o->time_source = OPTIONS_TIME_SOURCE_NONE;
	snprintf(o->gpsd_address, sizeof(o->gpsd_address), "%s", "localhost:2947");
	o->pin.pin_index = -1;
}

bool options_port_runs_as_capable(const struct port_options *o)
{
	return o->asCapable == OPTIONS_AS_CAPABLE_AUTO && o->follow_up_info &&
	       o->delay_mechanism == DELAY_MECHANISM_P2P;
}

void options_port_defaults(struct port_options *o)
{
	memset(o, 0, sizeof(*o));
	o->logAnnounceInterval = 1;
	o->logSyncInterval = 0;
	o->logMinDelayReqInterval = 0;
	o->logMinPdelayReqInterval = 0;
	o->announceReceiptTimeout = 3;
	o->syncReceiptTimeout = 0;
	o->delay_mechanism = DELAY_MECHANISM_E2E;
	o->network_transport = OPTIONS_TRANSPORT_L2;
	o->time_stamping = OPTIONS_TS_HARDWARE;
	o->tx_timestamp_timeout = 1;
	o->masterOnly = false;
	o->neighborPropDelayThresh = 20000000;
	o->delayAsymmetry = 0;
	o->fault_reset_interval = 4;
	o->summary_interval = 0;
	o->transportSpecific = 0;
	o->follow_up_info = false;
	o->path_trace_enabled = false;
	o->min_neighbor_prop_delay = -20000000;
	o->asCapable = OPTIONS_AS_CAPABLE_AUTO;
	o->BMCA = OPTIONS_BMCA_PTP;
	o->inhibit_announce = false;
	o->inhibit_delay_req = false;
	o->ignore_source_id = false;
	o->operLogSyncInterval = 0;
	o->operLogPdelayReqInterval = 0;
	o->msg_interval_request = false;
	o->assume_two_step = false;
	memcpy(o->ptp_dst_mac, options_mac_ptp_default, OPTIONS_MAC_LEN);
	memcpy(o->p2p_dst_mac, options_mac_p2p_default, OPTIONS_MAC_LEN);
	o->localPriority = LOCAL_PRIORITY_DEFAULT;
	o->power_profile.version = OPTIONS_POWER_PROFILE_NONE;
	o->power_profile.grandmasterTimeInaccuracy = -1;
	o->power_profile.networkTimeInaccuracy = -1;
	o->power_profile.totalTimeInaccuracy = -1;
	o->socket_priority = 0;
	o->udp_ttl = 1;
	o->udp6_scope = 0x0e;
	o->dscp_event = 0;
	o->dscp_general = 0;
	o->unicast_listen = false;
	o->unicast_master_table = 0;
	o->unicast_req_duration = 3600;
	o->inhibit_multicast_service = false;
	o->hybrid_e2e = false;
	o->unicast_peers_max = OPTIONS_UNICAST_PEERS_DEFAULT;
}

/* octet 1 of flagField (13.3.2.8) that a grandmaster's settings may carry */
#define GM_TIME_FLAGS                                                              \
	(MSG_FLAG_LEAP_61 | MSG_FLAG_LEAP_59 | MSG_FLAG_CURRENT_UTC_OFFSET_VALID | \
	 MSG_FLAG_TIME_TRACEABLE | MSG_FLAG_FREQUENCY_TRACEABLE)

void options_gm_settings(const struct instance_options *o, struct gm_settings *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->clockQuality.clockClass = o->clockClass;
	ret->clockQuality.clockAccuracy = o->clockAccuracy;
	ret->clockQuality.offsetScaledLogVariance = o->offsetScaledLogVariance;
	ret->tp.currentUtcOffset = o->utc_offset;
	ret->tp.timeSource = o->timeSource;
	ds_time_properties_set_flags(&ret->tp, o->gm_time_flags & GM_TIME_FLAGS);
}

void options_set_gm_settings(struct instance_options *o, const struct gm_settings *s)
{
	o->clockClass = s->clockQuality.clockClass;
	o->clockAccuracy = s->clockQuality.clockAccuracy;
	o->offsetScaledLogVariance = s->clockQuality.offsetScaledLogVariance;
	o->utc_offset = s->tp.currentUtcOffset;
	o->timeSource = s->tp.timeSource;
	o->gm_time_flags = (uint8_t) (ds_time_properties_flags(&s->tp) & GM_TIME_FLAGS);
}

void options_default_ds(const struct instance_options *io, const struct ClockIdentity *id,
			uint16_t numberPorts, uint8_t transportSpecific, struct defaultDS *ret)
{
	*ret = (struct defaultDS){
		.clockIdentity = *id,
		.numberPorts = numberPorts,
		.clockQuality = {
			/* 9.2.2.2: a slave-only clock is class 255 whatever it is told. */
			.clockClass = io->slaveOnly ? CLOCK_CLASS_SLAVE_ONLY : io->clockClass,
			.clockAccuracy = io->clockAccuracy,
			.offsetScaledLogVariance = io->offsetScaledLogVariance,
		},
		/* 802.1AS-2020 8.6.2.1: 255 for a time-aware system not grandmaster-capable. */
		.priority1 = io->gmCapable ? io->priority1 : 255,
		.priority2 = io->priority2,
		.domainNumber = io->domainNumber,
		.slaveOnly = io->slaveOnly,
		.twoStepFlag = io->twoStepFlag,
		/* majorSdoId from transportSpecific (as ptp4l), minorSdoId 0. */
		.sdoId = (uint16_t) ((transportSpecific & 0x0f) << 8),
		.localPriority = io->localPriority,
		.maxStepsRemoved = io->maxStepsRemoved,
		.comparison = io->dataset_comparison,
	};
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	c = (char) tolower((unsigned char) c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int options_mac_parse(const char *s, uint8_t ret[OPTIONS_MAC_LEN])
{
	uint8_t mac[OPTIONS_MAC_LEN];
	char sep = 0;

	for (size_t i = 0; i < OPTIONS_MAC_LEN; i++) {
		int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);

		if (lo < 0) {
			return -EINVAL;
		}
		mac[i] = (uint8_t) (hi << 4 | lo);
		s += 2;
		if (i + 1 == OPTIONS_MAC_LEN) {
			break;
		}
		/* ':' as ptp4l writes it, or '-' as IEEE 802 does; one of them throughout. */
		if ((*s != ':' && *s != '-') || (sep && *s != sep)) {
			return -EINVAL;
		}
		sep = *s++;
	}
	if (*s != '\0') {
		return -EINVAL;
	}
	memcpy(ret, mac, OPTIONS_MAC_LEN);
	return 0;
}

int options_mac_from_string(const char *s, uint8_t ret[OPTIONS_MAC_LEN])
{
	uint8_t mac[OPTIONS_MAC_LEN];
	int r = options_mac_parse(s, mac);

	if (r < 0) {
		return r;
	}
	/* The port joins the address as a multicast group: a unicast one cannot be joined. */
	if (!(mac[0] & 0x01)) {
		return -ERANGE;
	}
	memcpy(ret, mac, OPTIONS_MAC_LEN);
	return 0;
}

const char *options_mac_to_string(const uint8_t mac[OPTIONS_MAC_LEN], char *buf)
{
	snprintf(buf, OPTIONS_MAC_STRLEN, "%02X:%02X:%02X:%02X:%02X:%02X", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	return buf;
}

/* The name within, not a pointer: a table of pointers is relocated data, copied by each worker. */
struct name_value {
	char name[24];
	int value;
};

/* ptp4l compares enumeration names without regard to case; so do we. */
static int lookup_name(const struct name_value *t, size_t n, const char *s, int *ret)
{
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(t[i].name, s) == 0) {
			*ret = t[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *lookup_value(const struct name_value *t, size_t n, int v)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].value == v) {
			return t[i].name;
		}
	}
	return NULL;
}

#define DEFINE_NAMES(prefix, type, table)                               \
	const char *prefix##_to_string(type v)                          \
	{                                                               \
		return lookup_value(table, ARRAY_SIZE(table), (int) v); \
	}                                                               \
	int prefix##_from_string(const char *s, type *ret)              \
	{                                                               \
		int v, r;                                               \
		r = lookup_name(table, ARRAY_SIZE(table), s, &v);       \
		if (r < 0) {                                            \
			return r;                                       \
		}                                                       \
		*ret = (type) v;                                        \
		return 0;                                               \
	}

static const struct name_value delay_names[] = {
	{ "E2E", DELAY_MECHANISM_E2E },
	{ "P2P", DELAY_MECHANISM_P2P },
};
static const struct name_value transport_names[] = {
	{ "L2", OPTIONS_TRANSPORT_L2 },
	{ "UDPv4", OPTIONS_TRANSPORT_UDPV4 },
	{ "UDPv6", OPTIONS_TRANSPORT_UDPV6 },
};
static const struct name_value timestamping_names[] = {
	{ "hardware", OPTIONS_TS_HARDWARE },
	{ "software", OPTIONS_TS_SOFTWARE },
	{ "auto", OPTIONS_TS_AUTO },
};
static const struct name_value backend_names[] = {
	{ "phc", OPTIONS_CLOCK_PHC },
	{ "virtual", OPTIONS_CLOCK_VIRTUAL },
	{ "system", OPTIONS_CLOCK_SYSTEM },
	{ "free_running", OPTIONS_CLOCK_FREE_RUNNING },
};
static const struct name_value bmca_names[] = {
	{ "ptp", OPTIONS_BMCA_PTP },
	{ "noop", OPTIONS_BMCA_NOOP },
};
static const struct name_value as_capable_names[] = {
	{ "auto", OPTIONS_AS_CAPABLE_AUTO },
	{ "true", OPTIONS_AS_CAPABLE_TRUE },
};
static const struct name_value mgmt_network_names[] = {
	{ "off", OPTIONS_MGMT_NETWORK_OFF },
	{ "read-only", OPTIONS_MGMT_NETWORK_READ_ONLY },
	{ "read-write", OPTIONS_MGMT_NETWORK_READ_WRITE },
};
static const struct name_value phc_follow_names[] = {
	{ "auto", OPTIONS_PHC_FOLLOW_AUTO },
	{ "off", OPTIONS_PHC_FOLLOW_OFF },
};
static const struct name_value time_source_names[] = {
	{ "none", OPTIONS_TIME_SOURCE_NONE },
	{ "system", OPTIONS_TIME_SOURCE_SYSTEM },
	{ "gnss", OPTIONS_TIME_SOURCE_GNSS },
};
static const struct name_value power_profile_names[] = {
	{ "none", OPTIONS_POWER_PROFILE_NONE },
	{ "2011", OPTIONS_POWER_PROFILE_2011 },
	{ "2017", OPTIONS_POWER_PROFILE_2017 },
};
static const struct name_value servo_names[] = {
	{ "pi", SERVO_TYPE_PI },
	{ "linreg", SERVO_TYPE_LINREG },
	{ "refclock_sock", SERVO_TYPE_REFCLOCK_SOCK },
};

int options_delay_mechanism_from_string(const char *s, enum delay_mechanism *ret)
{
	int v, r;

	r = lookup_name(delay_names, ARRAY_SIZE(delay_names), s, &v);
	if (r < 0) {
		return r;
	}
	*ret = v == DELAY_MECHANISM_P2P ? DELAY_MECHANISM_P2P : DELAY_MECHANISM_E2E;
	return 0;
}

DEFINE_NAMES(options_clock_servo, enum servo_type, servo_names)
/* The names linuxptp's shipped configuration files are named after, as the profiles' keys. */
static const struct name_value profile_names[] = {
	{ "default", OPTIONS_PROFILE_DEFAULT },
	{ "default-p2p", OPTIONS_PROFILE_DEFAULT_P2P },
	{ "gPTP", OPTIONS_PROFILE_GPTP },
	{ "automotive-master", OPTIONS_PROFILE_AUTOMOTIVE_MASTER },
	{ "automotive-slave", OPTIONS_PROFILE_AUTOMOTIVE_SLAVE },
	{ "G.8275.1", OPTIONS_PROFILE_G8275_1 },
	{ "power-2017", OPTIONS_PROFILE_POWER_2017 },
};

DEFINE_NAMES(options_profile, enum options_profile, profile_names)

const char *options_profile_unsupported(enum options_profile p)
{
	switch (p) {
	case OPTIONS_PROFILE_DEFAULT:
	case OPTIONS_PROFILE_DEFAULT_P2P:
	case OPTIONS_PROFILE_GPTP:
	case OPTIONS_PROFILE_AUTOMOTIVE_MASTER:
	case OPTIONS_PROFILE_AUTOMOTIVE_SLAVE:
	case OPTIONS_PROFILE_G8275_1:
	case OPTIONS_PROFILE_POWER_2017:
		return NULL;
	}
	return "unknown profile";
}

/* IEEE 802.1AS as linuxptp's gPTP.cfg has it (the keys it sets that differ from the defaults). */
static void options_gptp_defaults(struct instance_options *io, struct port_options *po)
{
	io->gmCapable = true;
	io->priority1 = 248;
	io->priority2 = 248;
	po->logAnnounceInterval = 0;
	po->logSyncInterval = -3;
	po->syncReceiptTimeout = 3;
	po->neighborPropDelayThresh = 800;
	po->min_neighbor_prop_delay = -20000000;
	po->path_trace_enabled = true;
	po->follow_up_info = true;
	po->assume_two_step = true;
	po->transportSpecific = 1;
	po->delay_mechanism = DELAY_MECHANISM_P2P;
}

void options_profile_defaults(enum options_profile p, struct instance_options *io,
			      struct port_options *po)
{
	io->profile = p;
	switch (p) {
	case OPTIONS_PROFILE_DEFAULT_P2P:
		/* IEEE 1588-2019 J.4: the default profile's ranges, with peer delay. */
		po->delay_mechanism = DELAY_MECHANISM_P2P;
		break;
	case OPTIONS_PROFILE_GPTP:
		options_gptp_defaults(io, po);
		break;
	case OPTIONS_PROFILE_AUTOMOTIVE_MASTER:
		/* automotive-master.cfg: gPTP's keys, a static master that neither announces nor
		 * measures the link (its slaves do). Its logAnnounceInterval stays 1. */
		options_gptp_defaults(io, po);
		po->logAnnounceInterval = 1;
		po->BMCA = OPTIONS_BMCA_NOOP;
		po->masterOnly = true;
		po->inhibit_announce = true;
		po->asCapable = OPTIONS_AS_CAPABLE_TRUE;
		po->inhibit_delay_req = true;
		break;
	case OPTIONS_PROFILE_AUTOMOTIVE_SLAVE:
		/* automotive-slave.cfg: a static slave that takes Sync from whoever sends it and
		 * slows down to the operational intervals once locked. */
		options_gptp_defaults(io, po);
		po->logAnnounceInterval = 1;
		po->BMCA = OPTIONS_BMCA_NOOP;
		io->slaveOnly = true;
		po->inhibit_announce = true;
		po->asCapable = OPTIONS_AS_CAPABLE_TRUE;
		po->ignore_source_id = true;
		io->servo.step_threshold = 1.0;
		po->operLogSyncInterval = 0;
		po->operLogPdelayReqInterval = 2;
		po->msg_interval_request = true;
		io->servo.servo_offset_threshold = 30;
		io->servo.servo_num_offset_values = 10;
		break;
	case OPTIONS_PROFILE_G8275_1:
		/*
		 * ITU-T G.8275.1 (linuxptp's G.8275.1.cfg): domain 24, every message to the
		 * non-forwardable 01-80-C2-00-00-0E, Announce 8/s, Sync and Delay_Req 16/s, the
		 * alternate BMCA with localPriority 128 and maxStepsRemoved 255 (the defaults).
		 */
		io->domainNumber = 24;
		io->dataset_comparison = BMCA_COMPARISON_G8275;
		memcpy(po->ptp_dst_mac, options_mac_p2p_default, OPTIONS_MAC_LEN);
		po->logAnnounceInterval = -3;
		po->logSyncInterval = -4;
		po->logMinDelayReqInterval = -4;
		break;
	case OPTIONS_PROFILE_POWER_2017:
		/*
		 * IEEE C37.238-2017: domain 254, peer delay, Announce, Sync and Pdelay_Req once a
		 * second, the 2017 TLV in every Announce, 802.1Q priority 4 (through
		 * socket_priority and a VLAN device's egress map).
		 */
		io->domainNumber = 254;
		po->delay_mechanism = DELAY_MECHANISM_P2P;
		po->logAnnounceInterval = 0;
		po->logSyncInterval = 0;
		po->logMinPdelayReqInterval = 0;
		po->announceReceiptTimeout = 3;
		po->power_profile.version = OPTIONS_POWER_PROFILE_2017;
		po->socket_priority = 4;
		break;
	default:
		break;
	}
}

DEFINE_NAMES(options_bmca, enum options_bmca, bmca_names)
DEFINE_NAMES(options_as_capable, enum options_as_capable, as_capable_names)
DEFINE_NAMES(options_transport, enum options_transport, transport_names)
DEFINE_NAMES(options_power_profile, enum options_power_profile, power_profile_names)
DEFINE_NAMES(options_timestamping, enum options_timestamping, timestamping_names)
DEFINE_NAMES(options_clock_backend, enum options_clock_backend, backend_names)
DEFINE_NAMES(options_mgmt_network, enum options_mgmt_network, mgmt_network_names)
DEFINE_NAMES(options_phc_follow, enum options_phc_follow, phc_follow_names)
DEFINE_NAMES(options_time_source, enum options_time_source, time_source_names)

bool options_acceptable_master(const struct acceptable_masters *t, const struct ClockIdentity *c)
{
	if (t->n == 0) {
		return true;
	}
	for (unsigned int k = 0; k < t->n && k < OPTIONS_ACCEPTABLE_MASTERS_MAX; k++) {
		if (!memcmp(&t->id[k], c, sizeof(*c))) {
			return true;
		}
	}
	return false;
}

enum unicast_family options_transport_family(enum options_transport t)
{
	switch (t) {
	case OPTIONS_TRANSPORT_UDPV4:
		return UNICAST_FAMILY_IPV4;
	case OPTIONS_TRANSPORT_UDPV6:
		return UNICAST_FAMILY_IPV6;
	default:
		return UNICAST_FAMILY_L2;
	}
}
