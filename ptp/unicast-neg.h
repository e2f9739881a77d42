/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IEEE 1588-2019 16.1 unicast message negotiation as two pure machines, no I/O: the grantee (a
 * port that asks the masters of its unicast master table for Announce, Sync, Delay_Resp,
 * Pdelay_Resp) and the grantor (a port that grants them, from a bounded table). Time comes in as
 * ns_t; what to do comes out as actions the caller performs (send a TLV, start or stop a flow).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/msg.h"
#include "ptp/types.h"
#include "ptp/unicast-table.h"
#include "ptp/unicast-tlv.h"
#include "ptp/util.h"

/* The negotiable message types (16.1.1) as indices of the machines' tables. */
enum unicast_mt {
	UNICAST_MT_ANNOUNCE = 0,
	UNICAST_MT_SYNC,
	UNICAST_MT_DELAY_RESP,
	UNICAST_MT_PDELAY_RESP,
	UNICAST_MT_N,
};

/* UNICAST_MT_* of a message type, or -EINVAL for one that is not negotiated. */
int unicast_mt_from_msg_type(enum msg_type t);
enum msg_type unicast_mt_to_msg_type(enum unicast_mt mt);

enum unicast_action_kind {
	UNICAST_ACT_REQUEST, /* send REQUEST_UNICAST_TRANSMISSION to peer */
	UNICAST_ACT_GRANT,   /* send GRANT_UNICAST_TRANSMISSION (duration 0: a denial) */
	UNICAST_ACT_CANCEL,  /* send CANCEL_UNICAST_TRANSMISSION */
	UNICAST_ACT_ACK,     /* send ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION */
	/*
	 * Grantee: the peer will send messageType every 2^log_period s, take it from that peer.
	 * Grantor: send messageType to the peer every 2^log_period s (Announce, Sync), or answer
	 * its Delay_Req / Pdelay_Req unicast (Delay_Resp, Pdelay_Resp). Again with a new period
	 * when the period changes.
	 */
	UNICAST_ACT_START,
	UNICAST_ACT_STOP, /* that flow ended (expired, cancelled, lost) */
};

const char *unicast_action_kind_to_string(enum unicast_action_kind k);

/* A GRANT to the sender of the request being handled, who has no place in the grantor's table. */
#define UNICAST_PEER_SENDER UINT16_MAX

struct unicast_action {
	enum unicast_action_kind kind;
	uint16_t peer; /* index: the grantee's master table, the grantor's client table */
	enum msg_type messageType;
	int8_t log_period;    /* REQUEST, GRANT, START */
	uint32_t duration;    /* REQUEST, GRANT: seconds */
	bool renewal_invited; /* GRANT */
};

/*
 * Room for the actions of one call. A timer call (tick, shutdown) stops when fewer than two places
 * are left and returns 1: call it again after performing these. An event call (one received TLV)
 * makes at most two.
 */
#define UNICAST_ACTIONS_MAX 32
struct unicast_actions {
	size_t n;
	struct unicast_action a[UNICAST_ACTIONS_MAX];
};

/*
 * A refused or failed request is asked again after 2^logQueryInterval s, doubled for each
 * failure in a row (timeout or denial) up to 2^UNICAST_BACKOFF_MAX_SHIFT times that, and never
 * more than UNICAST_BACKOFF_MAX_NS unless the query interval itself is longer.
 */
#define UNICAST_BACKOFF_MAX_SHIFT 6
#define UNICAST_BACKOFF_MAX_NS (64 * NS_PER_SEC)
/* A CANCEL is sent up to this many times, a query interval apart, until it is acknowledged. */
#define UNICAST_CANCEL_TRIES 3

/* ---- grantee ---- */

enum unicast_grantee_state {
	UNICAST_GRANTEE_IDLE,	    /* not wanted, nothing granted */
	UNICAST_GRANTEE_WAITING,    /* REQUEST sent, no answer yet */
	UNICAST_GRANTEE_BACKOFF,    /* denied or unanswered: asking again at next */
	UNICAST_GRANTEE_GRANTED,    /* granted until expires; renewed from next on */
	UNICAST_GRANTEE_CANCELLING, /* CANCEL sent, waiting for its acknowledgement */
};

const char *unicast_grantee_state_to_string(enum unicast_grantee_state s);

struct unicast_grantee_slot {
	enum unicast_grantee_state state;
	bool wanted;
	bool renewal_denied; /* GRANTED: the grantor refused to extend; it runs to its end */
	int8_t want_period;  /* asked for */
	int8_t log_period;   /* granted */
	uint8_t failures;    /* in a row: the backoff's exponent */
	uint8_t cancel_tries;
	uint32_t duration; /* granted, s */
	ns_t next;    /* WAITING: timeout; BACKOFF: retry; GRANTED: renewal; CANCELLING: resend */
	ns_t expires; /* GRANTED */
};

struct unicast_grantee_stats {
	uint64_t requests, grants, denials, timeouts, expiries, cancels, acks;
	uint64_t unexpected; /* a GRANT or ACKNOWLEDGE_CANCEL for nothing asked */
	uint64_t forged;     /* a TLV from a master's address under another portIdentity: dropped */
};

struct unicast_grantee {
	uint32_t duration;	 /* unicast_req_duration: asked for, s */
	int8_t logQueryInterval; /* of the table */
	size_t n_peers;		 /* entries of the master table, at most UNICAST_TABLE_ADDRS_MAX */
	struct unicast_grantee_slot slot[UNICAST_TABLE_ADDRS_MAX][UNICAST_MT_N];
	/*
	 * The sourcePortIdentity of the GRANT each master's grants are bound to, while one of them
	 * runs (bound): its negotiation TLVs, and the messages it sends under them, must carry it.
	 */
	bool bound[UNICAST_TABLE_ADDRS_MAX];
	struct PortIdentity granted_by[UNICAST_TABLE_ADDRS_MAX];
	struct unicast_grantee_stats stats;
};

/* -EINVAL for n_peers above UNICAST_TABLE_ADDRS_MAX or a duration outside 1..INT32_MAX. */
int unicast_grantee_init(struct unicast_grantee *g, size_t n_peers, uint32_t duration,
			 int8_t logQueryInterval);

/*
 * Want messageType from peer every 2^log_period s, or no longer (wanted false): a REQUEST, or a
 * CANCEL of what was asked or granted. Wanting again with another period asks again. -EINVAL for
 * a peer, type or period out of range, or fewer than two places left in out (nothing done).
 */
int unicast_grantee_want(struct unicast_grantee *g, size_t peer, enum msg_type messageType,
			 bool wanted, int8_t log_period, ns_t now, struct unicast_actions *out);

/*
 * A GRANT, CANCEL or ACKNOWLEDGE_CANCEL from peer's address, sent by the port from (a REQUEST is
 * the grantor's): 0, or -EINVAL for a peer out of range or fewer than two places left in out.
 * What it was not expected for is counted as unexpected and changes nothing. While a grant of
 * peer runs, a TLV from another portIdentity than its GRANT's is counted as forged and changes
 * nothing (a stranger at, or spoofing, the master's address); the first GRANT of a duration
 * binds the peer to its sender until no grant of it runs.
 */
int unicast_grantee_receive(struct unicast_grantee *g, size_t peer, const struct PortIdentity *from,
			    const struct unicast_tlv *t, ns_t now, struct unicast_actions *out);

/*
 * May a message of messageType (Announce, Sync, Delay_Resp, Pdelay_Resp) from peer's address,
 * sent by from, be taken? Only under a running grant of that type, from the portIdentity the
 * grant is bound to.
 */
bool unicast_grantee_granted(const struct unicast_grantee *g, size_t peer,
			     enum msg_type messageType, const struct PortIdentity *from);
/* Is from the portIdentity peer's grants are bound to, or none bound? */
bool unicast_grantee_bound_to(const struct unicast_grantee *g, size_t peer,
			      const struct PortIdentity *from);

/* Timeouts, renewals, expiries, CANCELs to repeat: 0, or 1 when out is full (call again). */
int unicast_grantee_tick(struct unicast_grantee *g, ns_t now, struct unicast_actions *out);
/* The earliest time tick has something to do, INT64_MAX for none. */
ns_t unicast_grantee_next(const struct unicast_grantee *g);

/* Shutdown: CANCEL everything asked or granted (once, no acknowledgement awaited); 0 or 1. */
int unicast_grantee_shutdown(struct unicast_grantee *g, ns_t now, struct unicast_actions *out);

/* ---- grantor ---- */

struct unicast_grantor_config {
	enum unicast_family family; /* the port's transport: requests of another are denied */
	/* Which types the port grants at all, and the range of logInterMessagePeriod of each. */
	bool serve[UNICAST_MT_N];
	int8_t min_log_period[UNICAST_MT_N];
	int8_t max_log_period[UNICAST_MT_N];
	uint32_t min_duration; /* s: a shorter request is denied */
	uint32_t max_duration; /* s: a longer one is granted this long */
	/* With entries, only these addresses are served (NULL or empty: any address). */
	const struct unicast_master_table *allow;
	int8_t logQueryInterval; /* an unacknowledged CANCEL is sent again after 2^this s */
};

enum unicast_grantor_denial {
	UNICAST_DENIED_TYPE = 0,    /* a type the port does not grant */
	UNICAST_DENIED_NOT_ALLOWED, /* an address of another family, or not in allow */
	UNICAST_DENIED_PERIOD,	    /* logInterMessagePeriod outside the type's range */
	UNICAST_DENIED_DURATION,    /* below min_duration */
	UNICAST_DENIED_TABLE_FULL,  /* a new peer, and every place of the table is taken */
	UNICAST_DENIED_N,
};

const char *unicast_grantor_denial_to_string(enum unicast_grantor_denial d);

struct unicast_grantor_stats {
	uint64_t grants, renewals, expiries, cancels, acks;
	uint64_t denied[UNICAST_DENIED_N];
	uint64_t cancel_unknown; /* a CANCEL from an address the table does not hold: dropped */
	uint64_t unexpected;	 /* an ACKNOWLEDGE_CANCEL of nothing cancelled, a GRANT */
	uint64_t forged; /* a CANCEL or ACKNOWLEDGE_CANCEL from a client's address, not its port */
};

/* One granted flow of one client. */
struct unicast_grantor_flow {
	bool granted;
	bool cancelling; /* CANCEL sent, waiting for the acknowledgement */
	int8_t log_period;
	uint8_t cancel_tries;
	uint32_t duration; /* granted, s */
	ns_t expires;	   /* granted: until; cancelling: the next resend */
};

/* A client is the address and the portIdentity of its REQUESTs: its grants are bound to both. */
struct unicast_grantor_client {
	bool used;
	struct unicast_addr addr;
	struct PortIdentity pid;
	struct unicast_grantor_flow flow[UNICAST_MT_N];
};

struct unicast_grantor {
	struct unicast_grantor_config cfg;
	size_t cap;
	struct unicast_grantor_client *client; /* cap places */
	struct unicast_grantor_stats stats;
};

/* Bound of a grantor's table: clients, each with up to four flows. */
#define UNICAST_GRANTOR_MAX 1024

/* A grantor with room for cap clients (1..UNICAST_GRANTOR_MAX): 0, -EINVAL, -ENOMEM. */
int unicast_grantor_new(const struct unicast_grantor_config *cfg, size_t cap,
			struct unicast_grantor **ret);
struct unicast_grantor *unicast_grantor_free(struct unicast_grantor *gr);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct unicast_grantor *, unicast_grantor_free);

/*
 * A TLV from the port from at addr: a REQUEST is granted (the GRANT, and START when the flow is
 * new or its period changed) or denied (a GRANT of duration 0, counted by reason); a CANCEL of a
 * grant is acknowledged and its flow stopped, one from an address without a place is counted
 * (cancel_unknown) and dropped, one from a client's address under another portIdentity is
 * counted as forged and dropped; an ACKNOWLEDGE_CANCEL ends a CANCEL. A REQUEST from another
 * portIdentity at a client's address is another client. 0, or -EINVAL for a GRANT (not the
 * grantor's) or fewer than two places left in out.
 */
int unicast_grantor_receive(struct unicast_grantor *gr, const struct unicast_addr *addr,
			    const struct PortIdentity *from, const struct unicast_tlv *t, ns_t now,
			    struct unicast_actions *out);

/*
 * Does the table hold a client at addr (holds), and is one of them from, with messageType
 * granted (the return)?
 */
bool unicast_grantor_granted(const struct unicast_grantor *gr, const struct unicast_addr *addr,
			     const struct PortIdentity *from, enum msg_type messageType,
			     bool *holds);

/* Expiries and CANCELs to repeat: 0, or 1 when out is full (call again). */
int unicast_grantor_tick(struct unicast_grantor *gr, ns_t now, struct unicast_actions *out);
ns_t unicast_grantor_next(const struct unicast_grantor *gr);

/*
 * Stop serving (the port leaves MASTER, or shuts down): CANCEL and STOP every flow, awaiting
 * acknowledgements (tick repeats them); 0 or 1 when out is full (call again).
 */
int unicast_grantor_cancel_all(struct unicast_grantor *gr, ns_t now, struct unicast_actions *out);

/* The address of client place i (an action's peer), NULL for a free one. */
const struct unicast_addr *unicast_grantor_addr(const struct unicast_grantor *gr, size_t i);
