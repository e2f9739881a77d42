/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SOCK_SEQPACKET protocol between phcd and its phcd-port workers: messages, codec, fd passing.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "common/peer-policy.h"
#include "ptp/bmca.h"
#include "ptp/ds.h"
#include "ptp/options.h"
#include "ptp/port.h"
#include "ptp/servo.h"

/*
 * Every message is one datagram: a header {type u16, version u16, length u32} then exactly
 * `length` bytes of the type's fixed-layout payload, all big-endian, packed and unpacked field
 * by field (never a struct cast). A receiver refuses (-EBADMSG) any other version, an unknown
 * type, a length that is not the header's, or a payload that is not exactly the type's layout;
 * the supervisor then drops the worker.
 */
/* 2: CONFIG carries management_network_set; PRIORITY_REQUEST. 3: CONFIG carries the port's
 * identity and comes with its fds. 4: CLOCK_STATE and SET_CLOCK_STATE. 5: STATUS carries the
 * engine's ignored frames per reason and the malformed Management count, not dropped[] per type.
 * 6: CONFIG comes with a status page (status-page.h) after the socket; STATUS on the socket only
 * when it is news (a state change, a new error, after SET_PRIORITY), else on the page.
 * 7: STATUS carries its offset's receive time (sample_ts).
 * 8: STATUS carries the sample's CLOCK_MONOTONIC time and the offset statistics of the last summary
 * window; CONFIG's port options carry summary_interval; no CLOCK_REQUEST (type 4): the supervisor
 * steers CLOCK_REALTIME from the STATUS offsets, no worker asks.
 * 9: RECOMMENDED_STATE carries the decision (M1 ... LISTENING), not the state; ERBEST's
 * stepsRemoved is below 255.
 * 10: STATUS carries servo_stable (lock detection); CONFIG's instance options carry clock_servo,
 * servo_offset_threshold and servo_num_offset_values.
 * 11: ignored[] has vlan_tagged; CONFIG carries transportSpecific and follow_up_info.
 * 12: ignored[] has out_of_range, overflow and management_rate_limited.
 * 13: CONFIG's servo options carry max_offset_jump.
 * 14: CONFIG carries gmCapable and the 802.1AS / automotive port options (path_trace_enabled ...
 * msg_interval_request).
 * 15: CONFIG carries ptp_dst_mac and p2p_dst_mac.
 * 16: STATUS carries as_capable and ignored[] not_as_capable and path_trace_loop; ERBEST and
 * RECOMMENDED_STATE carry a path trace; CLOCK_STATE and SET_CLOCK_STATE the grandmaster's rate
 * ratio.
 * 17: CONFIG carries dataset_comparison, the localPriority of the instance and of the port,
 * maxStepsRemoved and clock_class_threshold; ERBEST its localPriority.
 * 18: CONFIG's byte that was management_network_set is management_network (0 read-only,
 * 1 read-write, 2 off).
 * 19: CONFIG carries assume_two_step.
 * 20: CONFIG carries gm_time_flags, ingressLatency, egressLatency, the power_profile.* keys and
 * socket_priority; SET_GM_SETTINGS and GM_SETTINGS_REQUEST.
 * 21: CONFIG carries the port's acceptable_masters table, STATUS the not_acceptable_master
 * counter.
 * 22: CONFIG carries clock_locked_before.
 * 23: CONFIG comes with two packet sockets, the event socket then the general one
 * (transport.h), before the status page.
 * 24: CONFIG comes with the worker's seccomp filter (a sealed memfd, sandbox-filter.h) after the
 * status page.
 * 25: CONFIG carries network_transport L2, UDPv4 or UDPv6 and udp_ttl, udp6_scope, dscp_event and
 * dscp_general, and comes with the transport's sockets (two for L2, six for UDP) before the
 * status page.
 * 26: CONFIG carries the unicast keys (unicast_listen, unicast_master_table,
 * unicast_req_duration, inhibit_multicast_service), hybrid_e2e and unicast_peers_max;
 * PEER_REQUEST, PEER_RELEASE and PEER_SOCKETS (the unicast broker, common/peer-policy.h).
 * 27: CONFIG carries the port's unicast master table (its addresses); STATUS the unicast
 * negotiation's counters.
 * 29: STATUS carries the unicast counters forged and not_granted. */
#define IPC_VERSION 29
#define IPC_HEADER_SIZE 8
/*
 * An ERBEST's datagram, always this long (fixed layout, f_erbest() in ipc.c; test-ipc checks):
 * the dataset 37 bytes, time properties 9, the path trace's count and flag 2, its slots, the
 * localPriority 1.
 */
#define IPC_ERBEST_SIZE (IPC_HEADER_SIZE + 37 + 9 + 2 + 8 * PORT_PATH_TRACE_MAX + 1)
#define IPC_MAX_SIZE 1024 /* larger than every message; a longer datagram is refused */
#define IPC_MAX_FDS 9	  /* a UDP port's six sockets, its status page, filter and PHC */
#define IPC_PEER_FDS 2	  /* PEER_SOCKETS: the event socket, then the general one */
/* One counter slot per PTP messageType value (IEEE 1588-2019 13.3.2.3, Table 36): 4 bits. */
#define IPC_MSG_KINDS 16
/*
 * One counter slot per reason the engine ignores a frame: enum port_counter from
 * PORT_CNT_IGNORED_FIRST on, in that order (ptp/port.h; ipc.c asserts the count). A new reason
 * changes the layout, so it comes with a new IPC_VERSION.
 */
#define IPC_IGNORED_KINDS 21
/* One counter slot per enum port_unicast_counter (ptp/port.h; ipc.c asserts the count). */
#define IPC_UNICAST_KINDS 16
#define IPC_ERROR_TEXT_MAX 64
/*
 * A worker's news (STATUS on the socket, PRIORITY_REQUEST, GM_SETTINGS_REQUEST) goes out at most
 * once per kind in this tick: what changes within one (state changes, the supervisor's pushes,
 * management SETs from the network) becomes one message, the last value winning. So an honest
 * worker sends at most 1 s / IPC_NEWS_TICK_NS of each a second, whatever the wire or the
 * supervisor make it do, and the supervisor's flood limit (worker-trust.h) follows from it.
 */
#define IPC_NEWS_TICK_NS (100 * NS_PER_MSEC)

enum ipc_type {
	/* worker -> supervisor */
	IPC_HELLO = 1,
	IPC_STATUS = 2,
	IPC_ERBEST = 3,
	IPC_PRIORITY_REQUEST = 5, /* a management SET over the network (payload: set_priority) */
	IPC_CLOCK_STATE = 6,	  /* the SLAVE port's virtual clock correction (clock_state) */
	IPC_GM_SETTINGS_REQUEST =
		7,	      /* SET GRANDMASTER_SETTINGS_NP from the network (gm_settings) */
	IPC_PEER_REQUEST = 8, /* sockets to this unicast peer, please (peer) */
	IPC_PEER_RELEASE = 9, /* the sockets to this peer are closed (peer) */
	IPC_UNICAST_TABLE =
		10, /* the port's unicast table (unicast_table), once a second at most */
	/* supervisor -> worker */
	IPC_CONFIG = 64,
	IPC_RECOMMENDED_STATE = 65,
	IPC_SET_PRIORITY = 66,
	IPC_SHUTDOWN = 67,
	IPC_SET_CLOCK_STATE = 68, /* take this virtual clock correction (payload: clock_state) */
	IPC_SET_GM_SETTINGS = 69, /* announce these of yourself as grandmaster (gm_settings) */
	IPC_PEER_SOCKETS = 70,	  /* the answer to PEER_REQUEST (peer_sockets), with its fds */
};

/* First message of a worker: who it is and which protocol it speaks. */
struct ipc_hello {
	uint16_t protocol_version;
	int32_t ifindex;
	int32_t pid;
};

/*
 * Offset statistics of one summary window (2^summary_interval s), as ptp4l's summary lines: the
 * samples' count, mean, root mean square and largest absolute value. end_mono is the
 * CLOCK_MONOTONIC time the window closed, 0 while none has (then every field is 0); window_ns
 * its length. The decoder refuses a window with no samples, a negative rms or max, or a
 * non-positive length.
 */
struct ipc_offset_stats {
	uint32_t count;
	ns_t mean_ns;
	ns_t rms_ns;
	ns_t max_abs_ns;
	ns_t window_ns;
	ns_t end_mono;
};

/*
 * Status of a port: on the socket when it changed (state, error), and always the latest on the
 * worker's status page, which the supervisor reads once a second (docs/architecture.md, "Data
 * paths").
 */
struct ipc_status {
	enum port_state port_state;
	/* On the wire 0 unlocked (JUMP too: a step is part of locking), 1 locked, 2 holdover. */
	enum servo_state servo_state;
	/* LOCKED, and its last servo_num_offset_values offsets within servo_offset_threshold */
	bool servo_stable;
	bool as_capable; /* 802.1AS asCapable (port_as_capable()) */
	ns_t offset_ns;
	ns_t mean_path_delay_ns;
	double freq_ppb;
	/*
	 * When the offset was measured: its Sync's receive time (t2) on the port's clock, 0 before
	 * the first. The page is read up to a second after it was written: the supervisor pairs
	 * the offset with this time, not with its own now.
	 */
	ns_t sample_ts;
	/* The same moment on CLOCK_MONOTONIC (one clock for every process), 0 before the first. */
	ns_t sample_mono;
	struct ipc_offset_stats stats;
	uint64_t rx[IPC_MSG_KINDS];
	uint64_t tx[IPC_MSG_KINDS];
	uint64_t ignored[IPC_IGNORED_KINDS]; /* [i]: PORT_CNT_IGNORED_FIRST + i */
	uint64_t mgmt_malformed;	     /* Management messages dropped (MGMT_CNT_MALFORMED) */
	uint64_t unicast[IPC_UNICAST_KINDS]; /* [i]: enum port_unicast_counter i */
	int32_t last_error;		     /* -errno or 0 */
	char last_error_text[IPC_ERROR_TEXT_MAX];
};

/* The port's Erbest (9.3.2.3): the BMCA comparison fields of its best qualified foreign master. */
struct ipc_erbest {
	bool present; /* false: no qualified foreign master; the other fields are zero */
	struct bmca_dataset ds;
	struct timePropertiesDS tp;
	struct port_path_trace path; /* of its last Announce (16.2) */
};

/*
 * A virtual clock's correction over CLOCK_REALTIME (struct clock_virtual_state): the SLAVE port's
 * worker reports it (CLOCK_STATE) after a step and about once a second, the supervisor hands it
 * to the instance's other software-timestamping workers (SET_CLOCK_STATE), so every port of a
 * boundary clock serves the one timescale. A rate or a grandmaster rate ratio outside ipc_limits[]
 * is refused by the decoder.
 */
struct ipc_clock_state {
	ns_t raw_ns;
	ns_t local_ns;
	double rate_ppb;
	/* the grandmaster's rate over this clock's (port_gm_rate_ratio()), 0 unknown */
	double gm_rate_ratio;
};

/*
 * The bounds of the codec's real-valued fields, one table for both ends: the decoder refuses a
 * value outside [min, max] (and NaN); a sender clamps with ipc_limit_clamp() so that it never
 * encodes what its peer refuses. zero_ok: 0 means "unknown" and passes too.
 */
enum ipc_limit {
	IPC_LIMIT_RATE_PPB,	 /* clock_state.rate_ppb: beyond +-1e9 ppb a clock runs backwards */
	IPC_LIMIT_GM_RATE_RATIO, /* clock_state.gm_rate_ratio: PORT_RATE_RATIO_MAX_DEVIATION */
	_IPC_LIMIT_MAX,
};

struct ipc_range {
	double min, max;
	bool zero_ok;
};

extern const struct ipc_range ipc_limits[_IPC_LIMIT_MAX];

/* Within the table's bounds (finite, inclusive), or 0 where zero_ok. */
bool ipc_limit_ok(enum ipc_limit l, double v);
/* v moved into the bounds; NaN becomes 0 where zero_ok, else the middle of the range. */
double ipc_limit_clamp(enum ipc_limit l, double v);

/*
 * The port's identity and effective options (interface selection of the instance does not
 * travel). It comes with the port's fds over SCM_RIGHTS: the transport's sockets first
 * (port.network_transport says how many: transport_n_fds(); L2 the AF_PACKET event socket then
 * the general one, UDP the six of enum transport_udp_fd), then the status page (a sealed memfd,
 * status-page.h), then the worker's seccomp filter (a sealed memfd, sandbox-filter.h), then the
 * PHC (read-write) when the instance's clock back end uses it; a worker refuses to run without
 * the sockets, the page and the filter.
 */
struct ipc_config {
	char ifname[IFNAMSIZ];
	struct ClockIdentity clock_identity;
	uint16_t port_number; /* 1..0xFFFE (7.5.2.3) */
	struct instance_options instance;
	struct port_options port;
	/*
	 * A worker of this port had its servo LOCKED on the port's clock before (a restarted
	 * worker): with a PHC, its servo takes no first step and bounds every offset from the
	 * first.
	 */
	bool clock_locked_before;
};

/*
 * The supervisor's state decision for the port (9.3.3 figure 33, never NONE) and the clock's
 * data sets after it (9.3.5) to adopt with it.
 */
struct ipc_recommended_state {
	enum bmca_decision decision;
	uint16_t stepsRemoved;
	struct parentDS parent;
	struct timePropertiesDS tp;
	struct port_path_trace path; /* the parent's path trace (16.2), empty as grandmaster */
};

/*
 * The answer to PEER_REQUEST (the unicast broker, docs/architecture.md): GRANTED comes with two
 * UDP sockets over SCM_RIGHTS, connected to the peer's ports 319 (event, timestamped) and 320
 * (general) on the port's interface (transport_udp_open_peer_fds()); any other verdict with
 * none, error the -errno of a failed open (0 otherwise).
 */
struct ipc_peer_sockets {
	struct peer_addr peer;
	enum peer_policy_verdict verdict;
	int32_t error;
};

/*
 * The port's unicast table (port_unicast_table()): its first n entries of total, at most
 * IPC_UNICAST_TABLE_MAX (an entry is at most 42 bytes encoded, 16 of them 683 with the header).
 * A worker sends it when its encoding changed, once a second at most (seconds_left counts down).
 */
#define IPC_UNICAST_TABLE_MAX 16
struct ipc_unicast_table {
	uint16_t total; /* entries the port has, n of them here */
	uint8_t n;
	struct port_uc_entry e[IPC_UNICAST_TABLE_MAX];
};

struct ipc_set_priority {
	uint8_t priority1;
	uint8_t priority2;
};

struct ipc_msg {
	enum ipc_type type;
	union {
		struct ipc_hello hello;
		struct ipc_status status;
		struct ipc_erbest erbest;
		struct ipc_clock_state clock_state;
		struct ipc_config config;
		struct ipc_recommended_state recommended_state;
		struct ipc_set_priority set_priority;
		/* ptpTimescale travels not: the worker's timestamping decides it */
		struct gm_settings gm_settings;
		struct peer_addr peer; /* PEER_REQUEST, PEER_RELEASE */
		struct ipc_peer_sockets peer_sockets;
		struct ipc_unicast_table unicast_table;
	};
};

/*
 * Start a message of type t with its body, the union member of that type (body bytes), zeroed
 * and the rest of the union left as it is: ipc_encode() reads that member alone. What a worker
 * builds at its wakeups: `struct ipc_msg m = { ... }` zeroes all 2.5 kB of it (the largest
 * member) for a 118-byte Erbest.
 */
static inline void ipc_msg_start(struct ipc_msg *m, enum ipc_type t, size_t body)
{
	m->type = t;
	memset(&m->hello, 0, body);
}

const char *ipc_type_to_string(enum ipc_type t);
/* Does this type travel from a worker to the supervisor (and not the other way)? */
bool ipc_type_from_worker(enum ipc_type t);

/* Encode into buf; *ret_len is the datagram length. -EMSGSIZE, or -EINVAL for an unknown type. */
int ipc_encode(const struct ipc_msg *m, void *buf, size_t size, size_t *ret_len);
/*
 * Decode one datagram into *ret; -EBADMSG unless it is exactly one valid message of this version
 * (then *ret holds whatever was decoded before the fault: not a message).
 */
int ipc_decode(const void *buf, size_t len, struct ipc_msg *ret);

/* Send one message with up to IPC_MAX_FDS descriptors (SCM_RIGHTS) on a SOCK_SEQPACKET socket. */
int ipc_send(int sock, const struct ipc_msg *m, const int *fds, size_t n_fds);
/*
 * Receive one message and the descriptors that came with it (O_CLOEXEC), at most max_fds: more
 * fds, a truncated datagram or an invalid message close every received fd and give -EBADMSG.
 * The peer's end of the connection gives -ECONNRESET. *ret_n_fds may be NULL when max_fds is 0.
 */
int ipc_recv(int sock, struct ipc_msg *ret, int *fds, size_t max_fds, size_t *ret_n_fds);
