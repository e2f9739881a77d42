/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every tunable of a PTP instance and of a port, as plain structs with linuxptp's defaults. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "ptp/bmca.h"
#include "ptp/ds.h"
#include "ptp/types.h"
#include "ptp/unicast-table.h"

/*
 * Field names follow ptp4l's configuration keys (ptp4l(8)) wherever a key means what the ptp4l
 * key means, so a ptp4l user and a grep find the same word. Everything here is pure data: no
 * allocation, no parser. common/config-load.c fills these from INI files; phcd-port takes them from
 * the supervisor over IPC or from its command line.
 */

/* Longest instance name ("[instance NAME]"); it also names a D-Bus object path element. */
#define OPTIONS_NAME_MAX 32
/* IEEE 1588-2019 8.2.5.5.1 / 5.3.9: userDescription is a PTPText of at most 128 octets. */
#define OPTIONS_USER_DESCRIPTION_MAX 128
/* Explicitly listed interfaces of one instance. */
#define OPTIONS_INTERFACES_MAX 64
/* An IEEE 802 MAC address (ptp_dst_mac, p2p_dst_mac). */
#define OPTIONS_MAC_LEN 6

/* What carries a port's messages: IEEE 802.3 (Annex E), UDP over IPv4 (C) or IPv6 (D). */
enum options_transport {
	OPTIONS_TRANSPORT_L2 = 0,
	OPTIONS_TRANSPORT_UDPV4,
	OPTIONS_TRANSPORT_UDPV6,
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

/* phc_follow: the instance's other PHCs follow its SLAVE port's PHC (a boundary clock across NICs).
 */
enum options_phc_follow {
	OPTIONS_PHC_FOLLOW_AUTO = 0, /* when its ports with clock_backend phc span several PHCs */
	OPTIONS_PHC_FOLLOW_OFF,
};

/*
 * Management over the network (IEEE 1588-2019 15.3.3, pmc -2): off (nothing answered), read-only
 * (GET answered, SET refused: the default) or read-write. The values are the IPC byte (read-only
 * 0 and read-write 1, as the boolean management_network_set travelled before).
 */
enum options_mgmt_network {
	OPTIONS_MGMT_NETWORK_READ_ONLY = 0,
	OPTIONS_MGMT_NETWORK_READ_WRITE = 1,
	OPTIONS_MGMT_NETWORK_OFF = 2,
};

enum servo_type {
	SERVO_TYPE_PI = 0, /* proportional-integral (servo-pi.c) */
	SERVO_TYPE_LINREG, /* least-squares fit over an adaptive window (servo-linreg.c) */
	/*
	 * ptp4l's refclock_sock: CLOCK_REALTIME is not steered for the instance; its samples go to
	 * chronyd's SOCK refclock at refclock_sock_address instead (daemon/refclock-feed.c). A
	 * port's PHC is still steered, by PI.
	 */
	SERVO_TYPE_REFCLOCK_SOCK,
};

/* sockaddr_un's sun_path: 108 bytes with its NUL. */
#define OPTIONS_REFCLOCK_SOCK_ADDRESS_MAX 108

/*
 * time_source: a grandmaster's own reference (daemon/instance-source.c), supervisor only: none
 * (the configured quality, or SetGrandmasterSettings), the system clock as the kernel's sync
 * state says (phc2sys -s CLOCK_REALTIME), or a GNSS receiver through gpsd.
 */
enum options_time_source {
	OPTIONS_TIME_SOURCE_NONE = 0,
	OPTIONS_TIME_SOURCE_SYSTEM,
	OPTIONS_TIME_SOURCE_GNSS,
};
/* gpsd_address: "host:port" or a Unix socket path, with its NUL. */
#define OPTIONS_GPSD_ADDRESS_MAX 108
/* leapfile: a path, with its NUL. */
#define OPTIONS_LEAPFILE_MAX 256

/*
 * ts2phc's keys (time_source gnss on a PHC, supervisor only, daemon/instance-pin.c): the receiver's
 * 1PPS on a pin of the instance's PHC, timestamped by the PHC, paired with gpsd's second.
 */
struct pin_options {
	int pin_index;	      /* ts2phc.pin_index; -1: no pin (gpsd's own PPS report) */
	int channel;	      /* ts2phc.channel: its external timestamp channel */
	int extts_correction; /* ts2phc.extts_correction: ns added to each edge's PHC time */
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

/*
 * The clock-mode machine's timings (ptp/clock-mode.h, daemon/clock-mode-step.c): supervisor only.
 * Seconds, but the bound in ns.
 */
struct holdover_options {
	int32_t time;		  /* holdover_time: within specification at most this long */
	int32_t time_error;	  /* holdover_time_error: ... and while the estimate stays below */
	int32_t out_of_spec_time; /* holdover_out_of_spec_time: then free-run; 0 never */
	int32_t lock_time;	  /* holdover_lock_time: the parent steady this long to relock */
	uint8_t gm_out_of_spec_class; /* gm_out_of_spec_class: a T-GM beyond it, 140/150/160 */
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

/* ptp4l's BMCA key: the 1588 BMCA, or none (static roles, 802.1AS automotive). */
enum options_bmca {
	OPTIONS_BMCA_PTP = 0,
	/*
	 * No BMCA: the port's role is static, MASTER with masterOnly, SLAVE with the instance's
	 * slaveOnly (ptp4l's designated master / slave); neither needs an Announce.
	 */
	OPTIONS_BMCA_NOOP,
};

/* ptp4l's asCapable key: computed as 802.1AS clause 11 says (auto), or always true. */
enum options_as_capable {
	OPTIONS_AS_CAPABLE_AUTO = 0,
	OPTIONS_AS_CAPABLE_TRUE,
};

/* ptp4l's power_profile.version: which IEEE C37.238 TLV every Announce carries, if any. */
enum options_power_profile {
	OPTIONS_POWER_PROFILE_NONE = 0,
	OPTIONS_POWER_PROFILE_2011,
	OPTIONS_POWER_PROFILE_2017,
};

/* ptp4l's power_profile.* keys: the IEEE C37.238 TLV's values (inaccuracies ns, -1 unknown). */
struct power_profile_options {
	enum options_power_profile version;
	uint16_t grandmasterID;
	int32_t grandmasterTimeInaccuracy; /* power_profile.2011.grandmasterTimeInaccuracy */
	int32_t networkTimeInaccuracy;	   /* power_profile.2011.networkTimeInaccuracy */
	int32_t totalTimeInaccuracy;	   /* power_profile.2017.totalTimeInaccuracy */
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
	enum options_mgmt_network management_network; /* management over the network (15.3.3) */
	enum options_phc_follow phc_follow;	      /* daemon/phc-follow.c: supervisor only */
	/* clock_servo refclock_sock (daemon/refclock-feed.c): supervisor only */
	char refclock_sock_address[OPTIONS_REFCLOCK_SOCK_ADDRESS_MAX];
	enum options_profile profile;
	/* 802.1AS 8.6.2.1 gmCapable: false, the clock never becomes grandmaster (ptp4l's key) */
	bool gmCapable;
	/* ptp4l's dataset_comparison: ieee1588 (9.3.4) or G.8275.x (G.8275.1 6.3.8) */
	enum bmca_comparison dataset_comparison;
	uint8_t localPriority;	 /* G.8275.defaultDS.localPriority, 1..255 */
	uint8_t maxStepsRemoved; /* an Announce with stepsRemoved >= this is ignored, 2..255 */
	uint8_t clock_class_threshold; /* an Announce of a worse grandmaster clockClass is ignored
					*/
	struct holdover_options holdover; /* supervisor only */
	/* the grandmaster's own reference (supervisor only): its kind, gpsd, the leap table */
	enum options_time_source time_source;
	char gpsd_address[OPTIONS_GPSD_ADDRESS_MAX];
	char leapfile[OPTIONS_LEAPFILE_MAX]; /* "": none */
	struct pin_options pin;
	/*
	 * No key: set at run time only (SetGrandmasterSettings, SET GRANDMASTER_SETTINGS_NP), with
	 * clockClass, clockAccuracy, offsetScaledLogVariance, utc_offset and timeSource above. The
	 * MSG_FLAG_* bits of leap61, leap59, currentUtcOffsetValid, timeTraceable and
	 * frequencyTraceable this clock announces as grandmaster; 0 from a configuration.
	 */
	uint8_t gm_time_flags;
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
	/* 802.1AS 10.3.8.23 / 1588 16.2: the path trace TLV on Announce; loops are dropped */
	bool path_trace_enabled;
	/* ns; P2P with 802.1AS: a shorter peer delay makes asCapable false (ptp4l's key) */
	int32_t min_neighbor_prop_delay;
	enum options_as_capable asCapable;
	enum options_bmca BMCA;
	bool inhibit_announce;	/* never send Announce (static roles) */
	bool inhibit_delay_req; /* never send Delay_Req / Pdelay_Req (a designated master) */
	bool ignore_source_id;	/* a designated slave takes Sync/Follow_Up from any source */
	/*
	 * After the servo is stable: Pdelay_Req every 2^operLogPdelayReqInterval s, and (with
	 * msg_interval_request) ask the master for Sync every 2^operLogSyncInterval s with an
	 * 802.1AS message interval request TLV in a Signaling message.
	 */
	int8_t operLogSyncInterval;
	int8_t operLogPdelayReqInterval;
	bool msg_interval_request;
	/*
	 * IEEE 1588-2019 Annex E.3, ptp4l's keys: where every message but the peer delay ones goes
	 * (01-1B-19-00-00-00; G.8275.1 uses 01-80-C2-00-00-0E), and where Pdelay_Req, Pdelay_Resp
	 * and Pdelay_Resp_Follow_Up go (01-80-C2-00-00-0E). The port joins ptp_dst_mac, and
	 * p2p_dst_mac too with P2P: the groups it needs, no other.
	 */
	uint8_t ptp_dst_mac[OPTIONS_MAC_LEN];
	uint8_t p2p_dst_mac[OPTIONS_MAC_LEN];
	uint8_t localPriority; /* G.8275.portDS.localPriority: of every Erbest of this port */
	/* 802.1AS-2011 compatibility (ptp4l's key): a one-step Sync waits for a Follow_Up too */
	bool assume_two_step;
	/*
	 * ptp4l's keys, ns: how much later than the reference plane (16.7) an RX stamp is taken
	 * (subtracted from every event message's RX timestamp), and how much later than its TX
	 * stamp a frame passes it (added to every TX timestamp).
	 */
	int32_t ingressLatency;
	int32_t egressLatency;
	struct power_profile_options power_profile;
	/*
	 * ptp4l's socket_priority: SO_PRIORITY of the port's packet socket (0..15), which a VLAN
	 * device's egress-qos-map turns into the 802.1Q priority (PCP) of its frames.
	 */
	uint8_t socket_priority;
	/*
	 * ptp4l's keys for UDP (IEEE 1588-2019 Annexes C, D): the hop limit of every message sent
	 * (1..255), X of the IPv6 primary group FF0X::181 (0x1..0xF), and the DSCP (0..63) of
	 * event and of general messages.
	 */
	uint8_t udp_ttl;
	uint8_t udp6_scope;
	uint8_t dscp_event;
	uint8_t dscp_general;
	/*
	 * ptp4l's unicast keys (IEEE 1588-2019 16.1, ptp/unicast-neg.h): grant unicast service
	 * to the ports that ask (unicast_listen), ask the masters of the unicast master table of
	 * this id (0: none) for grants of unicast_req_duration s, and send no multicast Announce
	 * and Sync (inhibit_multicast_service). The engine runs them over UDPv4 and UDPv6
	 * (ptp/port-unicast.c); unicast_table is the [unicast_master_table] whose table_id is
	 * unicast_master_table, copied in by config_port_options() (n 0: none).
	 */
	bool unicast_listen;
	int32_t unicast_master_table;
	struct unicast_master_table unicast_table;
	int32_t unicast_req_duration;
	bool inhibit_multicast_service;
	/*
	 * ptp4l's hybrid_e2e (ITU-T G.8275.2's hybrid mode): a slave sends its Delay_Req to the
	 * master's address rather than the group, a master answers a unicast Delay_Req to its
	 * sender. E2E only.
	 */
	bool hybrid_e2e;
	/*
	 * The most peers a UDP port holds unicast sockets to at once
	 * (1..OPTIONS_UNICAST_PEERS_MAX): the supervisor opens each pair (docs/security.md) and
	 * refuses more.
	 */
	uint8_t unicast_peers_max;
};

/* The range of unicast_peers_max, and its default. */
#define OPTIONS_UNICAST_PEERS_MAX 64
#define OPTIONS_UNICAST_PEERS_DEFAULT 16

/* 01-1B-19-00-00-00 and 01-80-C2-00-00-0E (IEEE 1588-2019 Annex E.3). */
extern const uint8_t options_mac_ptp_default[OPTIONS_MAC_LEN];
extern const uint8_t options_mac_p2p_default[OPTIONS_MAC_LEN];

/* summary_interval: the supervisor reads a worker's status once a second, so no shorter window. */
#define OPTIONS_SUMMARY_INTERVAL_MIN 0
#define OPTIONS_SUMMARY_INTERVAL_MAX 10

/*
 * Fill with linuxptp 3.1's defaults (config.c), except network_transport: L2 in phcd.conf,
 * ptp4l's UDPv4 only for a linuxptp file read through ptp4l_config (config-file.c).
 */
void options_instance_defaults(struct instance_options *o);
void options_port_defaults(struct port_options *o);

/*
 * Does a port with these options compute asCapable (802.1AS-2020 11.2.2: follow_up_info with
 * P2P, its asCapable key auto)? Any other port is always asCapable.
 */
bool options_port_runs_as_capable(const struct port_options *o);

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

const char *options_bmca_to_string(enum options_bmca b);
int options_bmca_from_string(const char *s, enum options_bmca *ret);
const char *options_as_capable_to_string(enum options_as_capable a);
int options_as_capable_from_string(const char *s, enum options_as_capable *ret);
/* The grandmaster settings in o, and o with settings s (ptpTimescale is not stored). */
void options_gm_settings(const struct instance_options *o, struct gm_settings *ret);
void options_set_gm_settings(struct instance_options *o, const struct gm_settings *s);

/*
 * IEEE 1588-2019 8.2.1: the clock's defaultDS, the one place it is built (the worker's port, the
 * supervisor's BMCA and its management answers all call this). From the instance's options as
 * they stand (priorities and clock quality kept current by SET PRIORITY1/2 and
 * GRANDMASTER_SETTINGS_NP), the clock's identity, its number of ports and the transportSpecific
 * (majorSdoId) of its messages. The rules: clockClass 255 for a slave-only clock (9.2.2.2), and
 * priority1 255 for one that is not grandmaster-capable (802.1AS-2020 8.6.2.1).
 */
void options_default_ds(const struct instance_options *io, const struct ClockIdentity *id,
			uint16_t numberPorts, uint8_t transportSpecific, struct defaultDS *ret);

/* "01:1B:19:00:00:00" (or with '-'): a multicast MAC (the group bit set), as the port joins it. */
int options_mac_from_string(const char *s, uint8_t ret[OPTIONS_MAC_LEN]);
/* Any MAC in that syntax, unicast or multicast: -EINVAL for another. */
int options_mac_parse(const char *s, uint8_t ret[OPTIONS_MAC_LEN]);
/* "01:1B:19:00:00:00", as ptp4l writes it; buf of OPTIONS_MAC_STRLEN. */
#define OPTIONS_MAC_STRLEN 18
const char *options_mac_to_string(const uint8_t mac[OPTIONS_MAC_LEN], char *buf);

const char *options_power_profile_to_string(enum options_power_profile v);
int options_power_profile_from_string(const char *s, enum options_power_profile *ret);

const char *options_transport_to_string(enum options_transport t);
/* The address family of a transport's unicast peers (its unicast master table entries). */
enum unicast_family options_transport_family(enum options_transport t);
int options_transport_from_string(const char *s, enum options_transport *ret);
const char *options_timestamping_to_string(enum options_timestamping t);
int options_timestamping_from_string(const char *s, enum options_timestamping *ret);
const char *options_clock_servo_to_string(enum servo_type t);
int options_clock_servo_from_string(const char *s, enum servo_type *ret);
const char *options_clock_backend_to_string(enum options_clock_backend c);
int options_clock_backend_from_string(const char *s, enum options_clock_backend *ret);
/* "off", "read-only", "read-write" */
const char *options_mgmt_network_to_string(enum options_mgmt_network m);
int options_mgmt_network_from_string(const char *s, enum options_mgmt_network *ret);
const char *options_phc_follow_to_string(enum options_phc_follow f);
int options_phc_follow_from_string(const char *s, enum options_phc_follow *ret);
/* "none", "system", "gnss" */
const char *options_time_source_to_string(enum options_time_source t);
int options_time_source_from_string(const char *s, enum options_time_source *ret);
