/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The port engine's private state, shared by port.c and its per-concern files (not an API). */
#pragma once

#include "ptp/bmca.h"
#include "ptp/bmca-clock.h"
#include "ptp/delay.h"
#include "ptp/fsm.h"
#include "ptp/msg.h"
#include "ptp/outlier.h"
#include "ptp/port.h"
#include "ptp/port-unicast.h"

/*
 * An E2E delay pairs its Delay_Req with the Sync measurements before and after it, the master's
 * time at t3 interpolated between them, so no rate ratio is needed (the servo's frequency
 * changes happen at a Sync, and between two Syncs the clock runs at one rate). Only a Delay_Req
 * this close after a Sync uses that Sync alone (the first, sent at the first Sync): the rates'
 * difference over t3 - t2 (half of 100 ppm over 50 ms: 2.5 us) is software timestamp noise.
 */
#define PORT_DELAY_NEAR_SPAN (50 * NS_PER_MSEC)

/*
 * A path delay sample beyond +-1 s is no path (light crosses the planet in 0.07 s): a forged
 * answer, counted as out_of_range, never a sample for the filter and the offsets.
 */
#define PORT_PATH_DELAY_MAX NS_PER_SEC

/* Deadlines the engine keeps; 0 = stopped. */
enum port_timer {
	PORT_TIMER_ANNOUNCE_TX,
	PORT_TIMER_SYNC_TX,
	PORT_TIMER_DELAY_REQ_TX,
	PORT_TIMER_PDELAY_REQ_TX,
	PORT_TIMER_QUALIFICATION,
	PORT_TIMER_BMCA, /* 9.3.1: the state decision runs at least once per announce interval */
	PORT_TIMER_FAULT_RESET,
	PORT_TIMER_SYNC_RX, /* syncReceiptTimeout: armed by each measurement from the parent */
	_PORT_TIMER_MAX,
};

/*
 * Follow_Ups that came before their Sync (reordered on the path or in a NIC's queues), held by
 * sequenceId until the Sync comes, as linuxptp does; the oldest gives way to a newer one.
 */
#define PORT_EARLY_FOLLOW_UP_MAX 4
struct port_early_follow_up {
	bool used;
	uint16_t seq;
	ns_t t1;	 /* preciseOriginTimestamp */
	ns_t correction; /* its correctionField */
};

/* A Sync measurement: t1 (+ correction) on the master's timescale, t2 on ours. */
#define PORT_SYNC_HELD_MAX 4
struct port_sync_pair {
	ns_t t1, t2, correction;
};

/*
 * The latest Sync (with its Follow_Up) heard from a foreign master while the port was not a
 * slave. A supervised port goes UNCALIBRATED a few ms after the Announce that qualified its
 * master (the supervisor's round trip); the Sync sent with that Announce came in between. When
 * the decision names its sender as parent and it is at most half a Sync interval old, it is
 * measured then, as if it had come just after: one Sync interval less to synchronized.
 */
struct port_sync_heard {
	bool valid;   /* t1, t2 and correction hold a measurement */
	bool pending; /* a two-step Sync: t2 held, its Follow_Up awaited */
	struct PortIdentity source;
	uint16_t seq;
	int8_t log_interval; /* its logMessageInterval, checked */
	ns_t t1, t2, correction;
	ns_t at; /* when it came (the port's monotonic now) */
};

/* Slave side of Sync / Follow_Up (11.3, 11.4): the Sync waiting for its Follow_Up. */
struct port_sync_rx {
	bool have_last;	   /* last_seq is valid */
	uint16_t last_seq; /* of the last Sync accepted from the parent */
	bool pending;	   /* a two-step Sync waits for its Follow_Up */
	uint16_t seq;
	ns_t t2;	 /* ingress, on the port's clock */
	ns_t correction; /* Sync correctionField */
	bool have_pair;	 /* t1/t2 below hold a complete measurement (for the E2E delay) */
	ns_t t1, pair_t2, pair_correction;
	ns_t pair_m;	  /* its pair_t2 - t1 - pair_correction (which fits: checked) */
	bool pair_judged; /* the outlier gate judged (and passed) it */
	bool have_prev;	  /* the one before it, t2 - t1 - correction at prev_t2 */
	bool prev_judged;
	ns_t prev_t2, prev_m;
	int8_t log_interval; /* the master's logSyncInterval, which the servo is tuned for */
	struct port_early_follow_up early[PORT_EARLY_FOLLOW_UP_MAX];
	/*
	 * Measurements made before the first path delay, oldest first: the servo gets them as
	 * soon as the delay is known (a frequency estimate needs no delay, only two offsets).
	 */
	unsigned held_n;
	struct port_sync_pair held[PORT_SYNC_HELD_MAX];
	unsigned early_next; /* the slot the next early Follow_Up takes */
	/*
	 * The turn (the port's now) in which the servo last stepped the clock: a Sync or Follow_Up
	 * handled in that same turn came before the step (read with the frames that stepped it, as
	 * a SLAVE worker over L2 reads two Sync intervals' at once: transport-l2.c), so its t2 is
	 * on the clock's old timescale, and it is dropped.
	 */
	bool stepped;
	ns_t step_turn;
	/*
	 * The turn of the servo's last answer: a sample handled in that same turn replaces it
	 * before it acted (servo_sample_in_turn(), outlier_gate_unbend()).
	 */
	bool answered;
	ns_t answer_turn;
};

/* E2E requester (slave): the Delay_Req in flight. */
struct port_delay_req {
	bool pending;
	bool stale; /* t3 predates a clock step: drop the answer quietly */
	uint16_t seq;
	ns_t t3;
	/* An answer waiting for the Sync after t3, to pair with the two Syncs around it. */
	bool waiting;
	ns_t w_t3, w_t4, w_correction;
};

/* P2P requester: the Pdelay_Req in flight and what came back for it. */
struct port_pdelay_req {
	bool pending;
	bool stale; /* t1 predates a clock step: drop the answer quietly */
	bool have_resp;
	uint16_t seq;
	struct PortIdentity responder;
	ns_t t1, t2, t4, resp_correction;
	unsigned responders; /* distinct Pdelay_Resp to this request (802.1AS: one) */
	bool have_prev;	     /* prev_t3/prev_t4 for the neighborRateRatio */
	ns_t prev_t3, prev_t4;
	double nrr;
};

/*
 * 802.1AS-2020 11.2.2 / 11.2.19.3: is the link able to carry 802.1AS (asCapable)? On a port
 * that runs 802.1AS (follow_up_info with P2P) and whose asCapable key is auto: the neighbour
 * answers Pdelay_Req (at most allowedLostResponses missed in a row), alone (fewer than
 * PORT_MULTIPLE_RESPONSES_MAX requests in a row answered by several), its rate ratio is known,
 * and its delay lies within [min_neighbor_prop_delay, neighborPropDelayThresh].
 */
#define PORT_ALLOWED_LOST_RESPONSES 3
#define PORT_MULTIPLE_RESPONSES_MAX 3
struct port_as_capable {
	bool value;
	enum port_as_capable_reason why; /* of the last change to false */
	unsigned lost;			 /* Pdelay_Req in a row without a complete exchange */
	unsigned multiple;		 /* Pdelay_Req in a row answered by several responders */
	bool nrr_valid;			 /* neighborRateRatio measured */
};

/* Path delay in use: filtered E2E meanPathDelay or P2P meanLinkDelay. */
struct port_path_delay {
	bool valid;
	ns_t value;
	struct delay_filter filter;
};

/* The path trace of the last Announce of a foreign master (port-gptp.c). */
struct port_foreign_path {
	bool used;
	struct PortIdentity sender;
	struct port_path_trace path;
};

struct port {
	struct port_config cfg;
	struct clock *clock;
	struct servo *servo; /* NULL when the clock is not adjusted */
	const struct port_ops *ops;
	void *userdata;
	fsm_fn fsm;

	/* IEEE 1588-2019 clause 8: an ordinary clock's data sets */
	struct defaultDS dds;
	struct currentDS cds;
	struct parentDS pds;
	struct timePropertiesDS tpds;
	struct portDS portds;

	struct bmca_foreign_table foreign;
	struct bmca_announce_timer announce_timer;
	enum bmca_decision last_decision;
	/* pds, cds.stepsRemoved and tpds are the clock's, from a decision: Announce may go out */
	bool parent_valid;

	ns_t timer[_PORT_TIMER_MAX];
	uint64_t rng;

	/* sequenceIds of the messages we originate (7.3.7: one counter per message type) */
	uint16_t seq_announce, seq_sync, seq_delay_req, seq_pdelay_req, seq_signaling;

	/* 802.1AS (port-gptp.c) */
	struct port_foreign_path fpath[BMCA_FOREIGN_MAX];
	unsigned fpath_next;
	struct port_path_trace parent_path; /* the clock's parent's path trace; empty as GM */
	double gm_rate_ratio;		    /* GM over this clock, for a MASTER's Follow_Up; 0 */
	double upstream_rate_ratio;	    /* of the parent's last Follow_Up information TLV */
	bool sync_stopped, pdelay_stopped;  /* a message interval request said stop */
	bool oper_intervals;		    /* switched to operLogSyncInterval/PdelayReqInterval */

	struct port_sync_rx sync;
	struct port_sync_heard heard;
	struct outlier_gate outlier;
	struct port_delay_req dreq;
	struct port_pdelay_req pdreq;
	struct port_path_delay delay;
	struct port_as_capable asc;
	enum servo_state servo_state;
	bool sample_seen; /* a free-running port has measured once: it may go SLAVE */
	/* The sender of the frame being handled (port_receive_from()), NULL when unknown. */
	const struct port_address *rx_from;
	/* hybrid_e2e: where the parent's Syncs come from, for unicast Delay_Req (len 0: unknown) */
	struct port_address parent_address;
	/* Unicast negotiation (port-unicast.c): NULL on a port that runs none. */
	struct port_unicast *uc;

	uint64_t counters[_PORT_CNT_MAX];
};

/* port.c: shared helpers */
void port_count(struct port *p, enum port_counter c);
/* Build m into a frame and send it; counts tx_cnt, or a TX error (and goes FAULTY). */
int port_send(struct port *p, const struct msg *m, bool pdelay, ns_t *ret_tx_ts,
	      enum port_counter tx_cnt, ns_t now);
/*
 * port_send() to one peer (to NULL or empty: to the group), the message's unicast flag set;
 * to the group, flag clear, when the caller has no way to that peer (send_unicast -ENOTCONN).
 */
int port_send_unicast(struct port *p, struct msg *m, const struct port_address *to, ns_t *ret_tx_ts,
		      enum port_counter tx_cnt, ns_t now);
/*
 * Negotiated unicast (16.1): to that peer or not at all. -ENOTCONN (nothing sent, no fault) when
 * there is no way to it yet; the negotiation sends again in its own time.
 */
int port_send_unicast_only(struct port *p, struct msg *m, const struct port_address *to,
			   ns_t *ret_tx_ts, enum port_counter tx_cnt, ns_t now);
void port_msg_init(const struct port *p, struct msg *m, enum msg_type type, uint16_t seq);
/* A Signaling message to every port (targetPortIdentity all ones) carrying tlv_len octets of TLVs.
 */
void port_signaling_init(struct port *p, struct msg *m, const uint8_t *tlv, size_t tlv_len);
void port_timer_set(struct port *p, enum port_timer t, ns_t when);
ns_t port_log_interval(int8_t log_interval);
/* A uniform random time in [0, 2 * 2^log_interval] (9.5.11.2, 9.5.13.2). */
ns_t port_random_interval(struct port *p, int8_t log_interval);
/* Raw timestamp onto the port's clock; false (counted) when the back end refuses it. */
bool port_local_time(struct port *p, ns_t raw, ns_t *ret);
/* A Timestamp field as ns; false (counted) when it does not convert. */
bool port_timestamp_ns(struct port *p, const struct Timestamp *ts, ns_t *ret);
void port_timer_stop(struct port *p, enum port_timer t);
/* Sequence check against the last accepted one: 0 new, or the counter that rejects it. */
int port_seq_check(bool have_last, uint16_t last, uint16_t seq);
bool port_is_slave(const struct port *p);
/* Not INITIALIZING, FAULTY or DISABLED: the port takes part in the BMCA. */
bool port_is_active(const struct port *p);

/* port-state.c */
/* Raise an FSM event and carry out the actions of the state entered. */
int port_dispatch(struct port *p, enum fsm_event ev, bool master_changed, ns_t now);
/* 9.3: run the state decision with this port's own Erbest as Ebest. */
int port_state_decision(struct port *p, ns_t now);
/* The timePropertiesDS this clock announces as grandmaster (its options and timescale). */
void port_own_time_properties(const struct port *p, struct timePropertiesDS *tp);
/* defaultDS from the port's copy of the instance options, after each change to them. */
void port_default_ds_update(struct port *p);

/* port-announce.c */
int port_announce_send(struct port *p, ns_t now);
/* One Announce to one granted peer at its granted period (port-unicast.c). */
int port_announce_send_to(struct port *p, const struct port_address *to, int8_t log_period,
			  ns_t now);
int port_announce_receive(struct port *p, const struct msg *m, ns_t now);

/* port-sync.c */
int port_sync_send(struct port *p, ns_t now);
/* One Sync and its Follow_Up to one granted peer at its granted period (port-unicast.c). */
int port_sync_send_to(struct port *p, const struct port_address *to, int8_t log_period, ns_t now);
int port_sync_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now);
int port_follow_up_receive(struct port *p, const struct msg *m, ns_t now);
/* Feed one offset to the servo and the FSM (shared by E2E and P2P). */
int port_sync_offset(struct port *p, ns_t t1, ns_t t2, ns_t correction, ns_t now);
void port_sync_reset(struct port *p);
/* The path delay was measured: give the servo the measurements held until it was. */
int port_sync_delay_known(struct port *p, ns_t now);
/* A new parent just decided: measure the Sync heard from it before, if fresh (port_sync_heard). */
int port_sync_heard_replay(struct port *p, ns_t now);
/* port-delay.c: a Sync measurement was kept (t2 and t2 - t1 - correction): a waiting delay? */
int port_delay_sync_kept(struct port *p, ns_t t2, ns_t m, ns_t now);
/* The syncReceiptTimeout timer expired: back to LISTENING, the servo in holdover. */
int port_sync_timeout(struct port *p, ns_t now);

/* port-gptp.c (802.1AS) */
/* An Announce's path trace: PORT_CNT_PATH_TRACE_LOOP when it holds our identity, else 0. */
int port_path_trace_receive(struct port *p, const struct msg *m);
/* The path trace of the last Announce of sender (empty when none). */
void port_path_trace_of(struct port *p, const struct PortIdentity *sender,
			struct port_path_trace *ret);
/* The path trace TLV our Announce carries into buf: its length, 0 for none. */
ssize_t port_path_trace_tlv(const struct port *p, uint8_t *buf, size_t size);
/* The Follow_Up information TLV into buf: its length, < 0 if it does not fit. */
ssize_t port_follow_up_info_tlv(const struct port *p, uint8_t *buf, size_t size);
void port_follow_up_info_receive(struct port *p, const struct msg *m);
int port_interval_request_send(struct port *p, int8_t sync_interval, ns_t now);
/* A Signaling message for us: 0 used, or the counter that drops it. */
int port_signaling_receive(struct port *p, const struct msg *m, ns_t now);
/* After a sample of a SLAVE: the switch to (or back from) the operational intervals. */
void port_oper_intervals(struct port *p, int8_t sync_log_interval, ns_t now);
void port_oper_intervals_reset(struct port *p);

/* port-delay.c (E2E, 11.3) */
int port_delay_req_send(struct port *p, ns_t now);
int port_delay_req_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now);
int port_delay_resp_receive(struct port *p, const struct msg *m, ns_t now);

/* port-pdelay.c (P2P, 11.4) */
/* Does the port run 802.1AS's asCapable rules (follow_up_info with P2P, asCapable auto)? */
bool port_runs_as_capable(const struct port *p);
/* Compute asCapable again after a peer delay event; reports a change through ops. */
void port_as_capable_update(struct port *p);
int port_pdelay_req_send(struct port *p, ns_t now);
int port_pdelay_req_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now);
int port_pdelay_resp_receive(struct port *p, const struct msg *m, ns_t rx, ns_t now);
int port_pdelay_resp_follow_up_receive(struct port *p, const struct msg *m, ns_t now);
