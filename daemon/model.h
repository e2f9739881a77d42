/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's state model, types only: instances and ports as the D-Bus layer serves them,
 * and its hooks. No function is declared here, so that every part of the supervisor can see the
 * model without depending on the code that changes it (tests/unit/test-include-graph.py).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include <config.h> /* the generated one: PHCD_SYSCONFDIR, PHCD_LIBEXECDIR */

#include "common/ipc.h"
#include "daemon/backoff.h"
#include "daemon/readiness.h"
#include "daemon/time-source.h"
#include "daemon/worker-trust.h"
#include "ptp/clock-mode.h"
#include "ptp/ds.h"
#include "ptp/options.h"
#include "ptp/servo.h"
#include "ptp/transport.h"
#include "ptp/types.h"
#include "ptp/util.h"

/*
 * One struct manager per phcd process. It owns the running configuration, one struct instance
 * per [instance NAME] (a PTP clock) and one struct mport per interface that an instance took
 * (the "m" keeps it apart from ptp/port.h's engine, which runs in the worker). Every field
 * documented as public below is the supervisor's cached view: the D-Bus layer reads it
 * directly (offsetof-friendly), never blocks on a worker, and learns about changes through
 * struct manager_ops. Everything else in these structs is the supervisor's bookkeeping.
 *
 * Objects live until their *_removed callback has returned; pointers stay valid until then.
 * Nothing here uses sd-bus.
 */

#define MANAGER_ERROR_TEXT_MAX 128
#define MANAGER_PROFILE_MAX 32

struct manager;
struct instance;
struct mport;
struct worker;
struct config;

/* What changed in an instance (mask bits of manager_ops.instance_changed). */
enum instance_change {
	INSTANCE_CHANGED_CONFIG = 1u << 0,	    /* domain, profile, priorities, clock quality */
	INSTANCE_CHANGED_PARENT = 1u << 1,	    /* grandmaster, parent port, stepsRemoved */
	INSTANCE_CHANGED_SAMPLE = 1u << 2,	    /* offset, mean path delay, frequency */
	INSTANCE_CHANGED_SERVO = 1u << 3,	    /* servo state, synchronized */
	INSTANCE_CHANGED_TIME_PROPERTIES = 1u << 4, /* timePropertiesDS */
	INSTANCE_CHANGED_PORTS = 1u << 5,	    /* a port joined or left */
	INSTANCE_CHANGED_STATS = 1u << 6,	    /* offset statistics: a summary window closed */
	INSTANCE_CHANGED_HEALTH = 1u << 7,	    /* health, its reasons, is_grandmaster */
	INSTANCE_CHANGED_FOLLOWERS = 1u << 8,	    /* its PHC followers (instance_followers()) */
	INSTANCE_CHANGED_READY = 1u << 9,	    /* readiness: ready, its reason */
	INSTANCE_CHANGED_CLOCK_MODE = 1u << 10,	    /* clock mode, since, reason, time error */
	INSTANCE_CHANGED_REFERENCE = 1u << 11,	    /* its time source's last report */
};

/* What changed in a port (mask bits of manager_ops.port_changed). */
enum mport_change {
	MPORT_CHANGED_STATE = 1u << 0,	      /* state (and enabled) */
	MPORT_CHANGED_LINK = 1u << 1,	      /* link_up, ifindex */
	MPORT_CHANGED_WORKER = 1u << 2,	      /* worker_pid, restarts */
	MPORT_CHANGED_COUNTERS = 1u << 3,     /* counters (at most a few times a second) */
	MPORT_CHANGED_ERROR = 1u << 4,	      /* last_error, last_error_text */
	MPORT_CHANGED_TIMESTAMPING = 1u << 5, /* timestamping mode, phc_index */
	MPORT_CHANGED_CONFIG = 1u << 6,	      /* delay mechanism, port identity */
};

/* What changed in the manager itself. */
enum manager_change {
	MANAGER_CHANGED_CONFIG = 1u << 0,	/* a reload was applied */
	MANAGER_CHANGED_SYSTEM_CLOCK = 1u << 1, /* CLOCK_REALTIME's discipline state changed */
	MANAGER_CHANGED_HEALTH = 1u << 2,	/* the daemon's health or its reasons */
	MANAGER_CHANGED_READY = 1u << 3,	/* the daemon's readiness or its reason */
};

/*
 * Health, for a fleet tool to alert on: ok, degraded (working but something needs a look: a port
 * FAULTY, no grandmaster, not synchronized, a worker restarting) or failed (nothing of it works:
 * every port FAULTY). Each reason is a stable code ("port-faulty") and a sentence for people.
 */
enum health {
	HEALTH_OK,
	HEALTH_DEGRADED,
	HEALTH_FAILED,
};

#define HEALTH_REASONS_MAX 16
#define HEALTH_CODE_MAX 32
#define HEALTH_TEXT_MAX 160

struct health_reason {
	char code[HEALTH_CODE_MAX];
	char text[HEALTH_TEXT_MAX];
};

struct health_report {
	enum health level;
	size_t n_reasons;
	struct health_reason reasons[HEALTH_REASONS_MAX];
};

/*
 * What an instance keeps of its health report: only the reasons it has (one reason is 200 bytes, a
 * full report 3 kB). NULL while ok without a reason, as a synchronized instance is.
 */
struct health_kept {
	enum health level;
	size_t n_reasons;		/* as health_report's: may count reasons that did not fit */
	struct health_reason reasons[]; /* the first HEALTH_REASONS_MAX of them at most */
};

/* "ok", "degraded", "failed" (inline: the D-Bus layer and test doubles use it without the rest). */
static inline const char *health_to_string(enum health h)
{
	return h == HEALTH_OK ? "ok" : h == HEALTH_DEGRADED ? "degraded" : "failed";
}

/*
 * Offset statistics of the last summary window of the instance's SLAVE port (ptp4l's summary
 * line): count 0 and timestamps 0 until the first window closed.
 */
struct instance_offset_stats {
	uint32_t count;
	int64_t mean_ns;
	uint64_t rms_ns;
	uint64_t max_abs_ns;
	uint64_t window_usec;
	uint64_t realtime_usec;	 /* when the window closed, CLOCK_REALTIME */
	uint64_t monotonic_usec; /* the same on CLOCK_MONOTONIC */
};

/*
 * A grandmaster's own reference (time_source, daemon/instance-source.c): its last report and
 * whether it is good now (ok and not stale). The report's reason is the source's static text.
 */
struct instance_reference {
	bool ok;			/* the last report ok, and recent */
	const char *reason;		/* why (static text) */
	uint64_t updated_usec;		/* CLOCK_REALTIME usec of the last report; 0: none */
	struct time_source_report last; /* as the source said it (reason: static) */
	/* the instance's clock kept on CLOCK_REALTIME: when last (CLOCK_MONOTONIC usec), 0 never */
	uint64_t clock_kept_usec;
	/* what it announces of UTC: the leapfile's, else the source's, else the configuration's */
	int16_t utc_offset;
	bool utc_offset_valid;
	bool leap61, leap59;
};

/* The instance's clock as its ports measure it (currentDS / parentDS / servo of the SLAVE port). */
struct instance {
	/* public, const for the instance's life */
	char name[OPTIONS_NAME_MAX];
	struct manager *manager;

	/* public, INSTANCE_CHANGED_CONFIG */
	uint8_t domain;
	char profile[MANAGER_PROFILE_MAX]; /* the profile key: "default", "gPTP", ... */
	struct ClockIdentity clock_identity;
	uint8_t priority1;
	uint8_t priority2;
	struct ClockQuality clock_quality; /* clockClass, clockAccuracy, offsetScaledLogVariance */
	enum options_clock_backend clock_backend;
	enum servo_type clock_servo; /* clock_servo of its options */

	/* public, INSTANCE_CHANGED_PARENT: who the instance follows (itself when grandmaster) */
	struct ClockIdentity grandmaster_identity;
	struct PortIdentity parent_port_identity;
	uint16_t steps_removed;

	/* public, INSTANCE_CHANGED_SAMPLE: from the SLAVE port's worker; 0 without one */
	ns_t offset_ns;
	ns_t mean_path_delay_ns;
	double freq_ppb;
	/* when that sample was measured (CLOCK_REALTIME / CLOCK_MONOTONIC usec); 0: no sample yet
	 */
	uint64_t sample_realtime_usec;
	uint64_t sample_monotonic_usec;

	/* public, INSTANCE_CHANGED_STATS */
	struct instance_offset_stats stats;

	/* public, INSTANCE_CHANGED_HEALTH: read with instance_health(), set with health_keep() */
	struct health_kept *health;
	/* the reasons last logged (derive.c), by health_reason_hash(): 136 bytes, not 3 kB */
	uint64_t health_logged[HEALTH_REASONS_MAX];
	size_t n_health_logged;
	bool is_grandmaster; /* grandmaster of its domain: own identity, a port MASTER */

	/* public, INSTANCE_CHANGED_READY (readiness.h): may time-sync.target be reached? */
	struct readiness readiness;

	/* public, INSTANCE_CHANGED_SERVO */
	enum servo_state servo_state;
	bool synchronized; /* a SLAVE port whose servo is LOCKED (and stable) */
	/* CLOCK_REALTIME, us, when a LOCKED instance lost its last SLAVE port; 0 = no holdover */
	uint64_t holdover_since_usec;

	/* public, INSTANCE_CHANGED_TIME_PROPERTIES */
	struct timePropertiesDS time_properties;

	/* public, INSTANCE_CHANGED_CLOCK_MODE (daemon/clock-mode-step.c) */
	struct clock_mode_fsm clock_mode;
	uint64_t clock_mode_since_usec; /* CLOCK_REALTIME usec the mode began */
	int64_t time_error_ns;		/* the machine's estimate, rounded; -1 in free-run */

	/* public, INSTANCE_CHANGED_REFERENCE (daemon/instance-source.c) */
	struct instance_reference reference;

	/* supervisor only, but for options.interfaces (the bus: MissingInterfaces) */
	struct instance_options options; /* from the running configuration */
	struct parentDS parent;		 /* as last sent with RECOMMENDED_STATE */
	uint16_t next_port_number;	 /* portNumber of the next port (1-based) */
	ns_t sample_mono_seen;		 /* the SLAVE port's sample_mono last taken */
	ns_t stats_end_seen;		 /* its stats.end_mono last taken */
	bool was_synchronized;		 /* since the last port became SLAVE */
	bool slave_locked;		 /* the SLAVE port's servo LOCKED, stable, trusted */
	unsigned int dirty;		 /* enum instance_change bits not emitted yet */
	struct instance_follow *follow;	 /* daemon/instance-follow.c: NULL while unused */
	struct instance_source *source;	 /* daemon/instance-source.c: NULL without time_source */
	struct instance_pin *pin;	 /* daemon/instance-pin.c: NULL without ts2phc.pin_index */
	/* the clock state last handed to the ports (worker_trust_check_clock_state()) */
	struct worker_trust_served served_clock;
	/*
	 * Priorities and grandmaster settings go to the workers once a tick (IPC_NEWS_TICK_NS),
	 * the last values winning: what is held, and when the last went.
	 */
	sd_event_source *push_timer;
	uint64_t pushed_at_usec;
	bool push_priorities, push_gm;
	struct gm_settings push_gm_settings;
	/* SetGrandmasterSettings in force (until a reload): it, not the clock mode, is announced */
	bool gm_override;
	/* the servo's frequency over its samples while synchronized (clock-mode-step.c) */
	double freq_mean_ppb, freq_var_ppb2;
	uint64_t freq_sample_seen; /* sample_monotonic_usec last taken into them */
	/* management SETs logged one line a burst (manager-mgmt.c): the burst's end, its count */
	sd_event_source *mgmt_log_timer;
	uint64_t mgmt_log_start_usec;
	unsigned int mgmt_log_held;
};

/* An instance's health as a whole report, written to buf (returned): ok and no reason for none. */
static inline const struct health_report *instance_health(const struct instance *i,
							  struct health_report *buf)
{
	const struct health_kept *k = i->health;
	size_t shown = k ? (k->n_reasons < HEALTH_REASONS_MAX ? k->n_reasons : HEALTH_REASONS_MAX)
			 : 0;

	buf->level = k ? k->level : HEALTH_OK;
	buf->n_reasons = k ? k->n_reasons : 0;
	if (shown) {
		memcpy(buf->reasons, k->reasons, shown * sizeof(k->reasons[0]));
	}
	return buf;
}

/*
 * One PHC of the instance kept in step with its SLAVE port's PHC (a boundary clock across NICs,
 * phc_follow): what D-Bus shows of it.
 */
struct instance_follower_info {
	int phc_index;
	int source_phc_index; /* -1: no SLAVE port (holdover) */
	const char *state;    /* unlocked, locking, locked, holdover, faulty */
	ns_t offset_ns;	      /* last measured, this PHC minus the source */
	ns_t error_ns;	      /* its uncertainty (the read windows) */
	double freq_ppb;      /* the adjustment applied */
	uint64_t steps;
	int error; /* -errno while faulty */
};

/* One interface in one instance, served by one phcd-port worker. */
struct mport {
	/* public, const for the port's life */
	char ifname[IFNAMSIZ];
	struct instance *instance;
	struct manager *manager;

	/* public, MPORT_CHANGED_CONFIG */
	struct PortIdentity port_identity;
	enum delay_mechanism delay_mechanism;

	/* public, MPORT_CHANGED_STATE */
	enum port_state state;
	bool as_capable; /* 802.1AS asCapable, from the worker's STATUS */
	bool enabled;	 /* false after mport_disable(): the port stays DISABLED, no worker */

	/* public, MPORT_CHANGED_TIMESTAMPING */
	enum transport_ts_mode timestamping;
	int phc_index; /* -1: none */
	int rx_filter; /* HWTSTAMP_FILTER_* in force (hardware), HWTSTAMP_FILTER_NONE (0) otherwise
			*/

	/* public, MPORT_CHANGED_LINK */
	int ifindex;
	bool link_up; /* admin up and carrier */

	/* public, MPORT_CHANGED_WORKER */
	pid_t worker_pid; /* 0: no worker running */
	unsigned int restarts;

	/* public, MPORT_CHANGED_COUNTERS: per PTP messageType (IEEE 1588-2019 Table 36) */
	uint64_t rx[IPC_MSG_KINDS];
	uint64_t tx[IPC_MSG_KINDS];
	/* the engine's ignored frames per reason: [i] is PORT_CNT_IGNORED_FIRST + i */
	uint64_t ignored[IPC_IGNORED_KINDS];
	uint64_t dropped_management; /* malformed Management messages, part of rx[MANAGEMENT] */
	uint64_t unicast[IPC_UNICAST_KINDS]; /* the unicast negotiation's: enum port_unicast_counter
					      */
	/* public: unicast (UnicastTable, the broker's counters); NULL until first used */
	struct mport_uc *uc;

	/* public, MPORT_CHANGED_ERROR: why the port is FAULTY (or the last trouble it had) */
	int last_error; /* -errno, 0 for none */
	char last_error_text[MANAGER_ERROR_TEXT_MAX];

	/* supervisor only */
	struct port_options options; /* effective options from the running configuration */
	struct worker *worker;	     /* NULL: none */
	bool has_erbest;	     /* the worker's last ERBEST report */
	struct ipc_erbest erbest;
	bool configured; /* the worker said HELLO and got its CONFIG */
	bool sent_valid; /* sent: last RECOMMENDED_STATE to this worker */
	struct ipc_recommended_state sent;
	/* what the supervisor granted this worker (worker-trust.h): SLAVE only when recommended */
	struct worker_trust trust;
	bool removed; /* going away: no restart */
	/* another program steers this port's PHC (ptp4l -i IF, phc2sys -c IF): measure only */
	bool phc_rival;
	/*
	 * A worker of this port was Synchronized (trusted SLAVE, servo LOCKED): its restarted
	 * successors take no first step on that clock (IPC CONFIG clock_locked_before).
	 */
	bool clock_locked;
	/* its PHC could not be steered to follow the instance's SLAVE port: FAULTY, no worker */
	bool phc_fault;
	/* a new port's worker waits for its turn (mport_start_later(), manager-ports.c) */
	bool start_pending;
	char phc_rival_text[MANAGER_ERROR_TEXT_MAX];
	sd_event_source *restart_timer;
	/* CLOCK_MONOTONIC: its worker got CONFIG on a link that is up, or the link came up since;
	 * 0: not listening */
	uint64_t listening_since_usec;
	unsigned int dirty;	/* enum mport_change bits not emitted yet */
	struct backoff backoff; /* restarts in the rate limit's window; given_up: stays FAULTY */
};

/*
 * A port's unicast state, allocated when its worker first sends a UNICAST_TABLE or asks for
 * sockets (mport_uc()): 2.9 kB an L2 port never needs (64 ports: 186 kB of the supervisor's
 * heap, docs/performance.md).
 */
struct mport_uc {
	/*
	 * public, on request (UnicastTable): the worker's last UNICAST_TABLE and when it came
	 * (CLOCK_MONOTONIC usec: its seconds left are aged by the time since); empty without one.
	 */
	struct ipc_unicast_table table;
	uint64_t table_usec;
	/*
	 * public, MPORT_CHANGED_COUNTERS: the unicast sockets its workers asked for and what they
	 * were answered (counters), and those the running one holds (manager-peers.c)
	 */
	struct peer_policy peers;
};

/*
 * Callbacks of the D-Bus layer (or a test). Any may be NULL. *_added runs after the object is
 * in the lists; *_removed runs before it leaves them and is freed. mask: enum *_change bits.
 * Callbacks must not add or remove objects themselves.
 */
struct manager_ops {
	void (*instance_added)(void *userdata, struct instance *i);
	void (*instance_removed)(void *userdata, struct instance *i);
	void (*instance_changed)(void *userdata, struct instance *i, unsigned int mask);
	void (*port_added)(void *userdata, struct mport *p);
	void (*port_removed)(void *userdata, struct mport *p);
	void (*port_changed)(void *userdata, struct mport *p, unsigned int mask);
	void (*manager_changed)(void *userdata, unsigned int mask);
};

/* The default configuration file (phcd(8)): under sysconfdir, /etc with --prefix=/usr. */
#define CONFIG_DEFAULT_PATH PHCD_SYSCONFDIR "/phcd/phcd.conf"
/* The installed worker, when none is found beside phcd. */
#define PHCD_PORT_PATH PHCD_LIBEXECDIR "/phcd-port"

struct manager_settings {
	const char *config_path;  /* NULL: CONFIG_DEFAULT_PATH, optional */
	const char *config_dir;	  /* drop-in directory; NULL: config_path + ".d" */
	const char *port_binary;  /* phcd-port to exec; NULL: next to phcd (or a build tree's
				     worker/), else PHCD_PORT_PATH */
	const char *status_file;  /* rewritten on each change, the bus-less view; NULL: none */
	bool status_stdout;	  /* one line per port state change on stdout */
	const char *mgmt_path;	  /* management socket (pmc -u -s); NULL: /run/phcd/ptp, "": none */
	const char *mgmt_ro_path; /* its read-only twin; NULL: /run/phcd/ptp-ro, "": none */
	const char *ptp4l_config; /* --check-config of this bare linuxptp file instead */
};
