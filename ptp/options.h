/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every tunable of a PTP instance and of a port, as plain structs with linuxptp's defaults. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "ptp/ds.h"
#include "ptp/types.h"

/*
 * Field names follow ptp4l's configuration keys (ptp4l(8)) wherever a key means what the ptp4l
 * key means, so a ptp4l user and a grep find the same word. Everything here is pure data: no
 * allocation, no parser. common/config-file.c fills these from INI files; phcd-port takes them from
 * the supervisor over IPC or from its command line.
 */

/* Longest instance name ("[instance NAME]"); it also names a D-Bus object path element. */
#define OPTIONS_NAME_MAX 32
/* IEEE 1588-2019 8.2.5.5.1 / 5.3.9: userDescription is a PTPText of at most 128 octets. */
#define OPTIONS_USER_DESCRIPTION_MAX 128
/* Explicitly listed interfaces of one instance. */
#define OPTIONS_INTERFACES_MAX 64

/* Only IEEE 802.3 (Annex E) for now; ptp4l's UDPv4/UDPv6 are refused by the config parser. */
enum options_transport {
	OPTIONS_TRANSPORT_L2 = 0,
};

enum options_timestamping {
	OPTIONS_TS_HARDWARE = 0,
	OPTIONS_TS_SOFTWARE,
	OPTIONS_TS_AUTO, /* hardware when the interface has it, else software */
};

enum options_clock_backend {
	OPTIONS_CLOCK_PHC = 0,	    /* the port's PHC through its fd */
	OPTIONS_CLOCK_VIRTUAL,	    /* software-corrected view, never touches a real clock */
	OPTIONS_CLOCK_SYSTEM,	    /* CLOCK_REALTIME, steered by the supervisor on request */
	OPTIONS_CLOCK_FREE_RUNNING, /* measure only, like ptp4l --free_running 1 */
};

enum servo_type {
	SERVO_TYPE_PI = 0, /* proportional-integral (servo-pi.c) */
	SERVO_TYPE_LINREG, /* least-squares fit over an adaptive window (servo-linreg.c) */
};

/* The servo, with ptp4l's key names; 0.0 for a PI constant means "pick by timestamping mode". */
struct servo_options {
	enum servo_type clock_servo;
	double pi_proportional_const;
	double pi_integral_const;
	double step_threshold;	     /* seconds; 0 = never step after the first update */
	double first_step_threshold; /* seconds; 0 = never step on the first update */
	/*
	 * seconds; once the clock has locked, an offset beyond this is refused (never stepped or
	 * slewed on) and the servo holds over; 0 = no bound. chrony's maxchange is the model.
	 */
	double max_offset_jump;
	int32_t max_frequency;		 /* ppb clamp of the adjustment */
	int32_t servo_offset_threshold;	 /* ns; stable after this many offsets within it; 0 off */
	int32_t servo_num_offset_values; /* how many */
};

/* Test knobs of the virtual clock back end: where it starts. Documented as for testing. */
struct virtual_clock_options {
	ns_t initial_offset_ns;
	int32_t initial_freq_ppb;
};

/*
 * The PTP profile of an instance: the defaults (and, where the profile has them, the behaviours)
 * it starts from; every key set in the configuration overrides its profile's default.
 */
enum options_profile {
	OPTIONS_PROFILE_DEFAULT = 0,	   /* IEEE 1588-2019 J.3, delay request-response */
	OPTIONS_PROFILE_DEFAULT_P2P,	   /* IEEE 1588-2019 J.4, peer delay */
	OPTIONS_PROFILE_GPTP,		   /* IEEE 802.1AS */
	OPTIONS_PROFILE_AUTOMOTIVE_MASTER, /* IEEE 802.1AS automotive, static grandmaster */
	OPTIONS_PROFILE_AUTOMOTIVE_SLAVE,  /* IEEE 802.1AS automotive, static slave */
	OPTIONS_PROFILE_G8275_1,	   /* ITU-T G.8275.1 */
	OPTIONS_PROFILE_POWER_2017,	   /* IEEE C37.238-2017 */
};

/* Which interfaces belong to an instance: an explicit list, or every interface with a PHC. */
struct interface_selection {
	bool auto_select;
	unsigned int n_names;
	char names[OPTIONS_INTERFACES_MAX][IFNAMSIZ];
};

/* One PTP instance (one clock): defaultDS inputs, time properties, clock back end, servo. */
struct instance_options {
	char name[OPTIONS_NAME_MAX];
	uint8_t domainNumber;
	uint8_t priority1;
	uint8_t priority2;
	uint8_t clockClass;
	uint8_t clockAccuracy;
	uint16_t offsetScaledLogVariance;
	bool slaveOnly;
	bool twoStepFlag;
	int16_t utc_offset;
	uint8_t timeSource;
	enum options_clock_backend clock_backend;
	struct servo_options servo;
	struct virtual_clock_options virtual_clock;
	char userDescription[OPTIONS_USER_DESCRIPTION_MAX + 1];
	struct interface_selection interfaces;
	bool include_software_interfaces; /* with auto: also interfaces with software stamps only */
	bool management_network_set;	  /* accept management SET over the network (15.3.3) */
	enum options_profile profile;
};

/*
 * IEEE 1588-2019 17.6 acceptable master table, by clockIdentity: with entries, Announces from
 * any other clock are ignored (counted as not_acceptable_master) and never qualify; empty: any.
 */
#define OPTIONS_ACCEPTABLE_MASTERS_MAX 16
struct acceptable_masters {
	uint8_t n;
	struct ClockIdentity id[OPTIONS_ACCEPTABLE_MASTERS_MAX];
};

/* An empty table accepts every clock; else only those listed. */
bool options_acceptable_master(const struct acceptable_masters *t, const struct ClockIdentity *c);

/* One port: message intervals, timeouts, delay mechanism, transport and timestamping. */
struct port_options {
	int8_t logAnnounceInterval;
	int8_t logSyncInterval;
	int8_t logMinDelayReqInterval;
	int8_t logMinPdelayReqInterval;
	uint8_t announceReceiptTimeout;
	uint8_t syncReceiptTimeout;
	enum delay_mechanism delay_mechanism; /* E2E or P2P: the ones a port runs */
	enum options_transport network_transport;
	enum options_timestamping time_stamping;
	int32_t tx_timestamp_timeout; /* ms */
	bool masterOnly;
	int32_t neighborPropDelayThresh; /* ns; P2P: a longer peer delay makes asCapable false */
	int32_t delayAsymmetry;		 /* ns */
	int8_t fault_reset_interval;	 /* log2 seconds in FAULTY before retrying */
	int8_t summary_interval;	 /* log2 seconds of one offset statistics window */
	/*
	 * majorSdoId (IEEE 1588-2019 7.1.4, transportSpecific in 2008) of every message sent, and
	 * required of every message received: 1 for 802.1AS (gPTP), 0 for 1588 profiles.
	 */
	uint8_t transportSpecific;
	/*
	 * 802.1AS 11.4.4.3: every Follow_Up carries the Follow_Up information TLV (ptp4l's
	 * follow_up_info), which an 802.1AS slave (ptp4l with gPTP.cfg) requires.
	 */
	bool follow_up_info;
	struct acceptable_masters acceptable_masters;
};

/* summary_interval: the supervisor reads a worker's status once a second, so no shorter window. */
#define OPTIONS_SUMMARY_INTERVAL_MIN 0
#define OPTIONS_SUMMARY_INTERVAL_MAX 10

/* Fill with linuxptp 3.1's defaults (config.c), except network_transport (L2 only here). */
void options_instance_defaults(struct instance_options *o);
void options_port_defaults(struct port_options *o);

/* The delay mechanisms a port runs, E2E or P2P, in any case (as ptp4l); delay_mechanism_to_string()
 * names them. */
int options_delay_mechanism_from_string(const char *s, enum delay_mechanism *ret);
const char *options_profile_to_string(enum options_profile p);
int options_profile_from_string(const char *s, enum options_profile *ret);
/* Why phcd cannot run profile p yet (what it lacks), or NULL when it can. */
const char *options_profile_unsupported(enum options_profile p);
/* Put profile p's defaults onto the (default-initialised) options, before any key is applied. */
void options_profile_defaults(enum options_profile p, struct instance_options *io,
			      struct port_options *po);

const char *options_transport_to_string(enum options_transport t);
int options_transport_from_string(const char *s, enum options_transport *ret);
const char *options_timestamping_to_string(enum options_timestamping t);
int options_timestamping_from_string(const char *s, enum options_timestamping *ret);
const char *options_clock_servo_to_string(enum servo_type t);
int options_clock_servo_from_string(const char *s, enum servo_type *ret);
const char *options_clock_backend_to_string(enum options_clock_backend c);
int options_clock_backend_from_string(const char *s, enum options_clock_backend *ret);
