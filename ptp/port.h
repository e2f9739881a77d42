/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PTP port engine: one port of a clock as a pure function of frames, timestamps and time. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/bmca.h"
#include "ptp/clock.h"
#include "ptp/ds.h"
#include "ptp/options.h"
#include "ptp/servo.h"
#include "ptp/types.h"
#include "ptp/unicast-neg.h"
#include "ptp/util.h"

/*
 * The engine never reads a clock, never arms a timer and never touches a socket. The caller
 * feeds it received frames (port_receive) and the passage of time (port_tick at
 * port_next_deadline); the engine answers through struct port_ops. Two kinds of time go in:
 *
 *   - now: a monotonic time (CLOCK_MONOTONIC in the daemon, anything increasing in tests) for
 *     the engine's own timers. It must be > 0: 0 means "timer stopped" inside.
 *   - raw timestamps: RX and TX times as the timestamping clock read them (CLOCK_REALTIME for
 *     software stamps, the PHC for hardware). The engine maps them onto its clock back end with
 *     clock_from_raw(), so a virtual clock sees its own corrected timescale.
 */

/* No RX timestamp came with the frame (a general message, or the kernel gave none). */
#define PORT_TS_NONE INT64_MIN

/*
 * Why frames were counted. Everything after PORT_CNT_IGNORED_FIRST is a frame that was ignored:
 * hostile or useless traffic is counted, never acted on.
 */
enum port_counter {
	PORT_CNT_RX_ANNOUNCE,
	PORT_CNT_RX_SYNC,
	PORT_CNT_RX_FOLLOW_UP,
	PORT_CNT_RX_DELAY_REQ,
	PORT_CNT_RX_DELAY_RESP,
	PORT_CNT_RX_PDELAY_REQ,
	PORT_CNT_RX_PDELAY_RESP,
	PORT_CNT_RX_PDELAY_RESP_FOLLOW_UP,
	PORT_CNT_TX_ANNOUNCE,
	PORT_CNT_TX_SYNC,
	PORT_CNT_TX_FOLLOW_UP,
	PORT_CNT_TX_DELAY_REQ,
	PORT_CNT_TX_DELAY_RESP,
	PORT_CNT_TX_PDELAY_REQ,
	PORT_CNT_TX_PDELAY_RESP,
	PORT_CNT_TX_PDELAY_RESP_FOLLOW_UP,
	PORT_CNT_RX_SIGNALING,
	PORT_CNT_TX_SIGNALING,
	PORT_CNT_TX_ERROR,	     /* send failed or no TX timestamp: the port goes FAULTY */
	PORT_CNT_PDELAY_NO_RESPONSE, /* a Pdelay_Req went unanswered until the next one */
	PORT_CNT_OFFSET_OUTLIER,     /* an offset far off the recent trend, kept from the servo */
	PORT_CNT_IGNORED_FIRST,
	PORT_CNT_MALFORMED = PORT_CNT_IGNORED_FIRST, /* msg_parse() refused it */
	PORT_CNT_OTHER_DOMAIN,
	PORT_CNT_OWN_FRAME,		 /* our own clockIdentity as source */
	PORT_CNT_UNSUPPORTED,		 /* Signaling, Management: not served here */
	PORT_CNT_NO_TIMESTAMP,		 /* an event message without an RX timestamp */
	PORT_CNT_WRONG_STATE,		 /* e.g. Delay_Req while not MASTER */
	PORT_CNT_NOT_FROM_PARENT,	 /* Sync/Follow_Up/Delay_Resp from another port */
	PORT_CNT_FOLLOW_UP_WITHOUT_SYNC, /* no pending two-step Sync with its sequenceId */
	PORT_CNT_DUPLICATE_SEQUENCE,	 /* same sequenceId as the last one accepted */
	PORT_CNT_STALE_SEQUENCE,	 /* an older sequenceId (or an unexpected one) */
	PORT_CNT_DELAY_RESP_OTHER_PORT,	 /* requestingPortIdentity is not ours */
	PORT_CNT_PDELAY_OTHER_PORT,	 /* Pdelay_Resp(_Follow_Up) for another requester */
	PORT_CNT_ANNOUNCE_REJECTED,	 /* 9.3.2.5 or the rules exclude it, or the table is full */
	PORT_CNT_BAD_TIMESTAMP,		 /* a timestamp field that does not convert */
	PORT_CNT_VLAN_TAGGED,		 /* 802.1Q-tagged (VID != 0) on the untagged interface */
	PORT_CNT_NOT_ACCEPTABLE_MASTER, /* Announce from a clock not in acceptable_masters (17.6) */
	PORT_CNT_OUT_OF_RANGE,		/* an interval (logMessageInterval) beyond its range */
	PORT_CNT_OVERFLOW,		/* times whose arithmetic would overflow: no sample */
	PORT_CNT_MGMT_RATE_LIMITED,	/* a Management message beyond its sender's rate */
	PORT_CNT_NOT_AS_CAPABLE,  /* Announce, Sync, Follow_Up while not asCapable (802.1AS) */
	PORT_CNT_PATH_TRACE_LOOP, /* an Announce whose path trace holds our clockIdentity */
	_PORT_CNT_MAX,
};

/*
 * A path trace (IEEE 1588-2019 16.2, 802.1AS-2020 10.3.8.23) as the engine relays it: the
 * clockIdentities from the grandmaster on, at most PORT_PATH_TRACE_MAX. A longer one received
 * sets overflow: then none is relayed (802.1AS: a path trace that does not fit is left out).
 */
#define PORT_PATH_TRACE_MAX 8
struct port_path_trace {
	uint8_t n;
	bool overflow;
	struct ClockIdentity ids[PORT_PATH_TRACE_MAX];
};

/* Why a port is not asCapable (802.1AS-2020 11.2.2), for logs. */
enum port_as_capable_reason {
	PORT_AS_CAPABLE_OK = 0,
	PORT_AS_CAPABLE_NOT_MEASURED,	/* no complete Pdelay exchange, or no neighborRateRatio */
	PORT_AS_CAPABLE_DELAY_ABOVE,	/* meanLinkDelay above neighborPropDelayThresh */
	PORT_AS_CAPABLE_DELAY_BELOW,	/* meanLinkDelay below min_neighbor_prop_delay */
	PORT_AS_CAPABLE_LOST_RESPONSES, /* more than allowedLostResponses Pdelay_Req unanswered */
	PORT_AS_CAPABLE_MULTIPLE_RESPONDERS, /* several responders to one Pdelay_Req, 3 in a row */
};
const char *port_as_capable_reason_to_string(enum port_as_capable_reason r);

/* "rx_announce", ..., "follow_up_without_sync": stable names for logs and D-Bus. */
const char *port_counter_to_string(enum port_counter c);

/* One offset measurement of a SLAVE or UNCALIBRATED port, after the servo ran on it. */
struct port_sample {
	ns_t offset;	      /* offsetFromMaster (11.2), ns */
	ns_t mean_path_delay; /* meanPathDelay (E2E) or meanLinkDelay (P2P) in use */
	double freq_ppb;      /* adjustment in force on the clock after this sample */
	enum servo_state servo_state;
	bool adjusted; /* false: no servo (free-running), or kept from it (offset_outlier) */
	/* refused by the servo's sanity bound (max_offset_jump): the clock holds over */
	bool refused;
	uint64_t refused_total; /* samples the servo refused so far */
	ns_t local_ts;		/* t2 on the port's clock */
};

/*
 * A peer's address as the engine holds it: the addressField of a PortAddress (IEEE 1588-2019
 * 7.5.2.3, 5.3.6), opaque bytes the transport reported with a frame (an IPv4 or IPv6 address,
 * a MAC). The engine stores, compares and hands them back; it never reads them (one engine for
 * every transport). len 0: none.
 */
#define PORT_ADDRESS_MAX 16
struct port_address {
	uint8_t len;
	uint8_t bytes[PORT_ADDRESS_MAX];
};

/* What the engine asks of its caller. send is required; the rest may be NULL. */
struct port_ops {
	/*
	 * Send one PTP message (payload, no link header). pdelay: to the peer-delay address
	 * (01-80-C2-00-00-0E) rather than 01-1B-19-00-00-00. event: the raw TX timestamp must
	 * come back in *ret_tx_ts, or the call fails. Returns >= 0 or -errno.
	 */
	int (*send)(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
		    ns_t *ret_tx_ts);
	/*
	 * Send one message (its unicast flag set) to one peer, as send() otherwise. -ENOTCONN:
	 * no way to that peer (yet): the engine sends the message to the group instead, its
	 * unicast flag clear, and that is no failure. NULL: every message goes to the group.
	 */
	int (*send_unicast)(void *userdata, const void *buf, size_t len,
			    const struct port_address *to, bool event, ns_t *ret_tx_ts);
	void (*state_changed)(void *userdata, enum port_state from, enum port_state to,
			      enum fsm_event why);
	/* A different grandmaster (or ourselves, local true) was selected. */
	void (*master_changed)(void *userdata, const struct ClockIdentity *grandmaster, bool local);
	void (*sample)(void *userdata, const struct port_sample *s);
	/* A clock back end operation failed (e.g. -EPERM stepping without CAP_SYS_TIME). */
	void (*clock_error)(void *userdata, const char *op, int error);
	/*
	 * The port's Sync interval changed at run time: a master at a Signaling message interval
	 * request (stopped: the request said stop), a slave switching to operLogSyncInterval.
	 */
	void (*interval_changed)(void *userdata, int8_t log_sync_interval, bool stopped);
	/* asCapable (802.1AS) changed to value; why says what made it false. */
	void (*as_capable_changed)(void *userdata, bool value, enum port_as_capable_reason why,
				   ns_t mean_link_delay);
	/*
	 * A Management message (clause 15) in this port's domain, not our own: the whole PTP
	 * message, which msg_parse() accepted. The caller answers it (ptp/mgmt.h). NULL: counted
	 * as unsupported.
	 */
	void (*management)(void *userdata, const void *buf, size_t len);
};

struct port_config {
	struct instance_options instance;
	struct port_options port;
	struct ClockIdentity clockIdentity;
	uint16_t portNumber;
	/*
	 * The timestamps count UTC (software stamps of CLOCK_REALTIME), as linuxptp's
	 * utc_timescale: announce the ARB timescale, and take currentUtcOffset off a PTP-timescale
	 * master's times. Also picks the PI constants for software stamps.
	 */
	bool utc_timescale;
	/* Adjust the clock (servo). false: measure only, as ptp4l --free_running 1. */
	bool adjust_clock;
	/*
	 * The clock was locked before, by an earlier worker (servo_config.first_step_taken): no
	 * first step, and the sanity bound (max_offset_jump) from the first sample.
	 */
	bool clock_locked_before;
	/* The state decision comes from port_apply_decision() (a supervisor), not from the port. */
	bool external_bmca;
	uint64_t seed; /* of the Delay_Req interval randomisation (9.5.11.2) */
};

/* Defaults: options_*_defaults(), portNumber 1, utc_timescale and adjust_clock true. */
void port_config_default(struct port_config *cfg);

struct port;

/*
 * clock is borrowed (it must outlive the port). Returns -EINVAL for a config the engine cannot
 * run (e.g. a delay mechanism it does not know), -ENOMEM.
 */
int port_new(const struct port_config *cfg, struct clock *clock, const struct port_ops *ops,
	     void *userdata, struct port **ret);
struct port *port_free(struct port *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct port *, port_free);

/* INITIALIZING -> LISTENING (9.2.5); arms the timers from now. */
int port_start(struct port *p, ns_t now);

/*
 * One received PTP payload with its raw RX timestamp (PORT_TS_NONE if none). Returns 0 (used or
 * counted and ignored) or -errno when an action failed (the port then went FAULTY).
 */
int port_receive(struct port *p, const void *buf, size_t len, ns_t rx_ts, ns_t now);
/* The same, with the sender's address (NULL or len 0: unknown), for answers sent unicast. */
int port_receive_from(struct port *p, const void *buf, size_t len, ns_t rx_ts,
		      const struct port_address *from, ns_t now);
/*
 * A frame the caller refused before (or instead of) the engine, for one of the engine's
 * ignored_* reasons (PORT_CNT_VLAN_TAGGED from the transport, PORT_CNT_MGMT_RATE_LIMITED and
 * PORT_CNT_UNSUPPORTED from the management responder): counted like the engine's own. Other
 * counters are refused (-EINVAL).
 */
int port_count_ignored(struct port *p, enum port_counter c);
/* Run the timers that expired at now. */
int port_tick(struct port *p, ns_t now);
/*
 * When port_tick must run next at the latest (a timer's deadline plus the slack it allows);
 * INT64_MAX when no timer is armed.
 */
ns_t port_next_deadline(const struct port *p);
/* From when port_tick has work: a caller awake anyway (a frame came) runs it then. */
ns_t port_next_due(const struct port *p);

/*
 * The port is about to go away (its worker stops): CANCEL every unicast grant it asked for or
 * gave (IEEE 1588-2019 16.1.3), once, no acknowledgement awaited, so its peers need not wait for
 * the grants to run out. 0 or the first send error.
 */
int port_shutdown(struct port *p, ns_t now);

/* Link or socket trouble seen by the caller: FAULT_DETECTED; retried after fault_reset_interval. */
int port_fault(struct port *p, ns_t now);

/*
 * For a supervisor running the clock-level BMCA (cfg.external_bmca): this port's Erbest
 * (9.3.2.3), -ENOENT when no foreign master qualifies; and the decision it computed (9.3.3).
 * S1 makes the port's Erbest its parent.
 */
int port_get_erbest(struct port *p, ns_t now, struct bmca_dataset *ret,
		    struct timePropertiesDS *ret_tp, struct port_path_trace *ret_path);
/* When Erbest may next change with no Announce received (bmca_foreign_next_unqualified()). */
ns_t port_erbest_next_expiry(const struct port *p, ns_t now);
/*
 * Carry out the supervisor's decision d with the clock's data sets after it (9.3.5, from
 * bmca_clock_decide()): a boundary clock shares currentDS.stepsRemoved, parentDS and
 * timePropertiesDS across its ports. As grandmaster (M1, M2) the port announces its own time
 * properties. -ENOENT for S1 when this port has no Erbest any more (nothing changed then).
 * Until the first decision, and after an announce receipt timeout, a supervised port sends no
 * Announce: it would name a parent the clock has not chosen.
 */
int port_apply_decision(struct port *p, enum bmca_decision d, uint16_t stepsRemoved,
			const struct parentDS *pds, const struct timePropertiesDS *tp,
			const struct port_path_trace *path, ns_t now);
/*
 * A rate ratio further from 1 than this is a measurement gone wrong (a step, a restart): a
 * neighborRateRatio beyond it is not taken, and the grandmaster's rate ratio a SLAVE port reports
 * (port_gm_rate_ratio()) is clamped to it, the bound the IPC carries (common/ipc.h ipc_limits).
 */
#define PORT_RATE_RATIO_MAX_DEVIATION 0.001
/*
 * 802.1AS-2020 B.1.1: every LocalClock runs within +-100 ppm of TAI, so the grandmaster's rate
 * over a neighbour's (the Follow_Up information TLV's rateRatio, 11.4.4.3.6) lies within
 * +-200 ppm; a cumulativeScaledRateOffset beyond is not taken (counted as out_of_range).
 */
#define PORT_FOLLOW_UP_RATE_MAX_DEVIATION 0.0002
/*
 * 802.1AS-2020 11.4.4.3.6: the grandmaster's rate over this clock's, as the instance's SLAVE
 * port measured it (port_gm_rate_ratio() there; 0 unknown): a MASTER port's Follow_Up
 * information TLV carries it as cumulativeScaledRateOffset while the clock is not grandmaster.
 */
void port_set_gm_rate_ratio(struct port *p, double ratio);
/*
 * A SLAVE port's grandmaster rate over this clock: the upstream cumulativeScaledRateOffset's
 * rate times the measured neighborRateRatio (11.4.4.3.6), clamped to 1 +- PORT_RATE_RATIO_MAX_
 * DEVIATION; 0 when not known.
 */
double port_gm_rate_ratio(const struct port *p);
/* Are the data sets the clock's (a decision came since the start or the last receipt timeout)? */
bool port_has_parent_data_sets(const struct port *p);

/*
 * defaultDS.priority1/2 changed (a management SET, D-Bus, a reload) without restarting the port:
 * a grandmaster's parentDS follows (9.3.5 Table 27) and a MASTER port announces the new values at
 * once; a lone port then runs its state decision again (9.3.3), a supervised one waits for the
 * supervisor's (external_bmca). Returns what that decision returned.
 */
int port_set_priorities(struct port *p, uint8_t priority1, uint8_t priority2, ns_t now);
/*
 * What the clock announces of itself as grandmaster (GRANDMASTER_SETTINGS_NP): defaultDS
 * clockQuality (kept at 255 when slave-only) and its own time properties (ptpTimescale stays the
 * timestamping's). Announced at once when the port is MASTER of its own clock; D0 changed, so
 * a lone port decides again.
 */
int port_set_gm_settings(struct port *p, const struct gm_settings *s, ns_t now);
/* Messages received and sent per messageType (0x0..0xF) by the engine; Management is not its. */
void port_message_counts(const struct port *p, uint64_t rx[16], uint64_t tx[16]);
/* The port's options in effect. */
const struct port_options *port_get_options(const struct port *p);
/* The instance options its defaultDS is built from (priorities as last set). */
const struct instance_options *port_get_instance_options(const struct port *p);
/* The settings in effect (GET GRANDMASTER_SETTINGS_NP). */
void port_gm_settings(const struct port *p, struct gm_settings *ret);

/*
 * Unicast negotiation (16.1) of the port (ptp/port-unicast.c), as grantee (its unicast master
 * table) and as grantor (unicast_listen). All 0 on a port that runs neither.
 */
enum port_unicast_counter {
	PORT_UC_REQUESTS_SENT,	    /* grantee: REQUESTs */
	PORT_UC_GRANTS_RECEIVED,    /* grantee: GRANTs of a duration */
	PORT_UC_DENIALS_RECEIVED,   /* grantee: GRANTs of duration 0 */
	PORT_UC_GRANTS_GIVEN,	    /* grantor: requests granted (renewals too) */
	PORT_UC_DENIED_TYPE,	    /* grantor: a type the port does not grant */
	PORT_UC_DENIED_NOT_ALLOWED, /* grantor: another address family */
	PORT_UC_DENIED_PERIOD,	    /* grantor: a period outside the port's range */
	PORT_UC_DENIED_DURATION,    /* grantor: a duration below its minimum */
	PORT_UC_DENIED_TABLE_FULL,  /* grantor: every place of its table taken */
	PORT_UC_CANCELS_RECEIVED,   /* either: CANCELs acted on */
	PORT_UC_CANCELS_UNKNOWN,    /* either: a CANCEL from an address holding no grant */
	PORT_UC_EXPIRIES,	    /* either: grants that ran out */
	PORT_UC_MALFORMED_TLV,	    /* unicast TLVs the codec refused */
	PORT_UC_RATE_LIMITED,	    /* Signaling from new addresses beyond the grantor's rate */
	PORT_UC_FORGED,		    /* either: a TLV from a peer's address, not its port */
	PORT_UC_NOT_GRANTED,	    /* either: a message its sender holds no grant for */
	_PORT_UC_MAX,
};
/* "requests_sent", ...: stable names for D-Bus (unicast_<name>). */
const char *port_unicast_counter_to_string(enum port_unicast_counter c);
void port_unicast_counters(const struct port *p, uint64_t ret[_PORT_UC_MAX]);

/*
 * The unicast table of the port, one entry per peer: the grantee's masters (its unicast master
 * table, in table order), then the grantor's clients (its places in use). Per negotiable message
 * type (UNICAST_MT_*): where its negotiation stands, the logInterMessagePeriod asked for or
 * granted, and the whole seconds the grant has left (0 unless GRANTED).
 */
enum port_uc_role {
	PORT_UC_GRANTEE, /* the peer is a master this port asks */
	PORT_UC_GRANTOR, /* the peer is a client this port serves */
	_PORT_UC_ROLE_MAX,
};

enum port_uc_state {
	PORT_UC_NONE,	    /* not asked, nothing granted */
	PORT_UC_REQUESTED,  /* grantee: REQUEST sent, no answer yet */
	PORT_UC_DENIED,	    /* grantee: denied or unanswered, asking again later */
	PORT_UC_GRANTED,    /* granted, seconds_left to run */
	PORT_UC_CANCELLING, /* CANCEL sent, its acknowledgement awaited */
	_PORT_UC_STATE_MAX,
};

/* "grantee", "grantor"; "none", "requested", "denied", "granted", "cancelling"; NULL else. */
const char *port_uc_role_to_string(enum port_uc_role r);
const char *port_uc_state_to_string(enum port_uc_state s);

struct port_uc_grant {
	enum port_uc_state state;
	int8_t log_period;
	uint32_t seconds_left; /* at most INT32_MAX (a duration's bound) */
};

struct port_uc_entry {
	struct unicast_addr addr;
	enum port_uc_role role;
	struct port_uc_grant mt[UNICAST_MT_N];
};

/* Up to max entries into ret (grantees first); returns how many the port has in all. */
size_t port_unicast_table(const struct port *p, ns_t now, struct port_uc_entry *ret, size_t max);

enum port_state port_get_state(const struct port *p);
uint64_t port_get_counter(const struct port *p, enum port_counter c);
const struct defaultDS *port_default_ds(const struct port *p);
const struct currentDS *port_current_ds(const struct port *p);
const struct parentDS *port_parent_ds(const struct port *p);
const struct timePropertiesDS *port_time_properties_ds(const struct port *p);
const struct portDS *port_port_ds(const struct port *p);
enum servo_state port_servo_state(const struct port *p);
/* The servo is LOCKED and its lock detection (servo_offset_threshold) is satisfied. */
bool port_servo_stable(const struct port *p);
/*
 * A Follow_Up is held for a Sync that has not come yet (reordered on the way: port-sync.c): the
 * caller should not leave that Sync unread (worker/port-loop.c, the lazy socket).
 */
bool port_sync_awaited(const struct port *p);
/*
 * 802.1AS asCapable: true on a port that does not run 802.1AS's rules (not follow_up_info with
 * P2P, or asCapable true); else as clause 11 computes it.
 */
bool port_as_capable(const struct port *p);
