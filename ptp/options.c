/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linuxptp's defaults for instance and port options, and the names of their enumerations. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "ptp/options.h"
#include "ptp/util.h"

/* IEEE 1588-2019 7.6.2.8 Table 6: INTERNAL_OSCILLATOR, ptp4l's default timeSource. */
#define TIME_SOURCE_INTERNAL_OSCILLATOR 0xa0
/* TAI - UTC since 2017-01-01; ptp4l's CURRENT_UTC_OFFSET. */
#define CURRENT_UTC_OFFSET 37

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
	o->include_software_interfaces = false;
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
}

struct name_value {
	const char *name;
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
static const struct name_value servo_names[] = {
	{ "pi", SERVO_TYPE_PI },
	{ "linreg", SERVO_TYPE_LINREG },
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
		return NULL;
	case OPTIONS_PROFILE_GPTP:
		return "802.1AS asCapable, the Follow_Up information and path trace TLVs are "
		       "missing";
	case OPTIONS_PROFILE_AUTOMOTIVE_MASTER:
	case OPTIONS_PROFILE_AUTOMOTIVE_SLAVE:
		return "static roles without BMCA (BMCA noop, inhibit_announce) and 802.1AS are "
		       "missing";
	case OPTIONS_PROFILE_G8275_1:
		return "the alternate BMCA (dataset_comparison G.8275.x) and sending to "
		       "01-80-C2-00-00-0E are missing";
	case OPTIONS_PROFILE_POWER_2017:
		return "the IEEE_C37_238 TLV and socket_priority are missing";
	}
	return "unknown profile";
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
	default:
		break;
	}
}

DEFINE_NAMES(options_transport, enum options_transport, transport_names)
DEFINE_NAMES(options_timestamping, enum options_timestamping, timestamping_names)
DEFINE_NAMES(options_clock_backend, enum options_clock_backend, backend_names)

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
