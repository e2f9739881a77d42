/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link for test-port: two port engines back to back in memory on simulated clocks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/clock.h"
#include "ptp/msg.h"
#include "ptp/port-internal.h"
#include "ptp/port.h"
#include "tests/doubles/clock-sim.h"

#define FRAME_MAX 128
#define QUEUE_MAX 256
#define START (1000 * NS_PER_SEC)
#define LINK_DELAY (3 * NS_PER_USEC)

struct link;

/* One end: a port, the simulated clock that stamps its frames and that it steers. */
struct side {
	struct link *link;
	int idx;
	struct port *port;
	struct clock *clk;
	bool mute; /* frames from this side are lost: a master that went away */
	unsigned samples;
	struct port_sample last;
	ns_t max_abs_offset; /* over every sample reported */
	/* the last frame of each messageType this side sent, for replays and forgeries */
	uint8_t sent[16][FRAME_MAX];
	size_t sent_len[16];
	/* With check_gm: Announces sent, and those naming another grandmaster than expect_gm. */
	bool check_gm;
	struct ClockIdentity expect_gm;
	unsigned announces, announces_other_gm;
	/*
	 * Per messageType: sent to one peer (send_unicast), to the group with the unicast flag
	 * set (never right), and unicast to another address than the other side's (never).
	 */
	unsigned unicast_tx[16], group_flagged_tx[16], unicast_misaddressed;
	int8_t last_unicast_interval[16]; /* logMessageInterval of the last one sent unicast */
	bool refuse_unicast;		  /* send_unicast says -ENOTCONN: no socket yet */
};

/*
 * Each side's address, as a transport would report it with its frames: 192.0.2.1 and .2, or with
 * mac (struct link's) 02:00:00:00:00:01 and :02, as over L2.
 */
void side_address(bool mac, int idx, struct port_address *ret);

struct frame {
	int to;
	ns_t at;
	size_t len;
	uint8_t buf[FRAME_MAX];
};

struct link {
	struct side s[2];
	struct frame q[QUEUE_MAX];
	size_t nq;
	ns_t now;
	/*
	 * A transparent clock in the middle: Sync (and its Follow_Up) and Delay_Req spend this
	 * much longer on the wire, and say so in correctionField (Follow_Up, Delay_Req).
	 */
	ns_t residence;
	/*
	 * Every spike_every-th Sync (and its Follow_Up) is late by spike, unannounced: those whose
	 * count (tx_sync below) plus spike_phase is a multiple of spike_every.
	 */
	unsigned spike_every, spike_phase;
	ns_t spike;
	/*
	 * One message late by once_late, unannounced: the once_sync-th Sync (and its Follow_Up) or
	 * the once_dreq-th Delay_Req the link carries (counted in tx_sync and tx_dreq; 0: none).
	 */
	unsigned once_sync, once_dreq, tx_sync, tx_dreq;
	ns_t once_late;
	/* Master to slave takes this much longer than LINK_DELAY, slave to master this much less.
	 */
	ns_t asymmetry;
	bool mac;	  /* the sides' addresses are MACs (side_address()) */
	bool slave_free;  /* the slave measures only (no servo), as clock_backend = free_running */
	bool external[2]; /* the side's state decision comes from a (simulated) supervisor */
	int8_t log_sync;  /* the master's logSyncInterval, when not 0 */
	enum servo_type servo; /* the slave's clock_servo */
	/*
	 * Each Sync (and its Follow_Up, which must not overtake it) is late by a uniform draw from
	 * [0, sync_jitter): software timestamps.
	 */
	ns_t sync_jitter, late;
	uint64_t rng;
	bool drop_sync;		 /* the master's Sync messages are lost (Announce still flows) */
	ns_t sync_late;		 /* every Sync is this much later than its Follow_Up: reordered */
	uint8_t sync_rx_timeout; /* the slave's syncReceiptTimeout */
	/* Called by side_init on each side's configuration before port_new (802.1AS tests). */
	void (*tweak)(int idx, struct port_config *pc);
	bool drop_pdelay_resp; /* side 0's Pdelay_Resp and its Follow_Up are lost */
	bool dup_pdelay_resp;  /* side 0's every Pdelay_Resp comes twice: a second responder */
	/*
	 * Side 1 hears as a SLAVE worker over L2 with its lazy socket (ptp/transport-l2.c,
	 * worker/port-loop.c): while SLAVE, what that socket's filter takes
	 * (transport_l2_filter()) waits, stamped on arrival, for the next frame of the event socket
	 * or timer, and comes first, all in one turn (one now).
	 */
	bool lazy;
	size_t nheld;
	unsigned held_total; /* frames that waited */
	bool lazy_filter_open;
	int lazy_filter[2]; /* l2_filter_open()'s pair, on the first lazy frame */
	struct frame held[QUEUE_MAX];
	ns_t held_rx[QUEUE_MAX];
};

void side_init(struct link *l, int idx, uint8_t priority1, double freq_error_ppb, ns_t offset,
	       enum delay_mechanism dm);
void link_init_servo(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm,
		     bool slave_free, int8_t log_sync, enum servo_type servo);
void link_init_free(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm,
		    bool slave_free, int8_t log_sync);
void link_init(struct link *l, double master_ppb, ns_t slave_offset, enum delay_mechanism dm);
void link_free(struct link *l);
void link_run(struct link *l, ns_t until);
ns_t link_error(const struct link *l);
/* Run the link until the slave is SLAVE (60 s at most): when it went UNCALIBRATED, and SLAVE. */
void link_run_to_slave(struct link *l, ns_t *uncal, ns_t *slave);
void assert_no_hostile(const struct side *s);
