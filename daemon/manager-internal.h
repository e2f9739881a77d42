/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What manager.c and instance.c share inside the supervisor (not for the D-Bus layer). */
#pragma once

#include <syslog.h>

#include "common/config-file.h"
#include "common/log.h"
#include "daemon/manager.h"
#include "daemon/worker-sandbox.h"
#include "netlink/link-monitor.h"
#include "netlink/tsinfo.h"
#include "ptp/bmca-clock.h"

struct manager {
	sd_event *event;
	char *config_path;
	char *config_dir;
	char *port_binary;
	struct worker_identity worker_identity; /* whom workers run as */
	char *status_file;
	bool status_stdout;
	struct config *config;
	struct link_monitor *links;
	struct ethtool_nl *ethtool;
	struct instance **instances;
	size_t n_instances;
	struct mport **ports;
	size_t n_ports;
	const struct manager_ops *ops;
	void *userdata;
	sd_event_source *derive_defer;		   /* the derive pass (derive.c), once a turn */
	sd_event_source *gate_timer;		   /* a pass when a boot gate opens */
	uint64_t gate_wakeup_usec;		   /* set by the pass: when the next gate opens */
	unsigned int dirty;			   /* enum manager_change bits not emitted yet */
	uint64_t derive_passes;			   /* how many passes ran (for tests) */
	sd_event_source *status_timer;		   /* reads every worker's status page */
	size_t notified_instances, notified_ports; /* last STATUS= sent to the service manager */
	struct sysclock_follow *sysclock;	   /* daemon/sysclock-follow.c */
	bool started;
	bool stopping;
	uint64_t start_realtime_usec, start_monotonic_usec;
	struct health_report health;
	struct readiness readiness;
};

/* SIGTERM'd workers get this long in all (SHUTDOWN, SIGTERM at half, then SIGKILL). */
#define WORKER_STOP_TIMEOUT_USEC (2 * USEC_PER_SEC)
/* How often the workers' status pages are read: what D-Bus shows of a port is this old at most. */
#define MANAGER_STATUS_PERIOD_USEC USEC_PER_SEC

/*
 * derive.c. A change only marks: the object's dirty bits, and the derive pass scheduled for the
 * end of this event-loop turn. The pass derives holdover, PHC followers, health and readiness,
 * in that order, then emits each object's bits once (manager_ops) and rewrites the status file.
 */
void manager_instance_changed(struct instance *i, unsigned int mask);
void manager_port_changed(struct mport *p, unsigned int mask);
void manager_changed(struct manager *m, unsigned int mask);
/* Nothing of the state changed, but the lists did (a port freed): a pass all the same. */
void manager_dirty(struct manager *m);
/* The pass itself, now (start-up runs one before READY=1; tests run it directly). */
void manager_derive(struct manager *m);
int manager_derive_setup(struct manager *m);
/* manager.c: the status file (--status-file) and the service manager's STATUS=. */
void manager_write_status(struct manager *m);

/* manager-ports.c: the ports and their workers */
void mport_set_state(struct mport *p, enum port_state st);
void mport_set_error(struct mport *p, int error, const char *fmt, ...) _printf_(3, 4);
void mport_start_worker(struct mport *p);
void mport_stop_worker(struct mport *p);
int mport_add(struct manager *m, struct instance *i, const struct link_info *l);
/* Stop its worker and forget it (hot-unplug, reload). */
void mport_remove(struct mport *p);
void mport_free(struct mport *p);
/* Ports of the instance on a PHC that cannot be steered: FAULTY with the reason, no worker. */
void mport_fault_phc(struct instance *i, int phc_index, int error);
/* Does ethtool report a PHC for the link (false without ethtool netlink)? */
bool manager_link_has_phc(struct manager *m, const struct link_info *l);
/* A link appeared or changed: add a port for it where an instance wants it. */
void manager_consider_link(struct manager *m, const struct link_info *l);
void manager_on_link(struct link_monitor *lm, enum link_event ev, const struct link_info *l,
		     void *userdata);
int manager_on_status_timer(sd_event_source *src, uint64_t usec, void *userdata);
/* Once stopping, exit the event loop when the last worker is gone. */
void manager_maybe_exit(struct manager *m);

/* manager.c */
int manager_add_instance(struct manager *m, const struct config_instance *ci);
void manager_remove_instance(struct manager *m, struct instance *i);
int manager_load_config(struct manager *m, struct config **ret, char **errors);

/* instance.c */
int instance_new(struct manager *m, const struct config_instance *ci, struct instance **ret);
struct instance *instance_free(struct instance *i);
/* Take new options (reload): the config part of the public state follows. */
void instance_apply_options(struct instance *i, const struct instance_options *o);
/* The clock-level BMCA (9.3.2.2, 9.3.3) over the instance's ports: its decision per port. */
struct instance_decision {
	size_t n; /* ports taking part */
	struct mport **ports;
	struct bmca_clock_port *cp;
	struct bmca_clock_decision *dec;
	struct bmca_clock_result res;
};
int instance_decide(const struct instance *i, struct instance_decision *ret);
void instance_decision_free(struct instance_decision *d);
/* Decide and send RECOMMENDED_STATE where it changed. */
void instance_run_bmca(struct instance *i);
/* A STATUS from one of its ports: the instance's sample and servo follow its SLAVE port. */
void instance_port_status(struct instance *i, struct mport *p, const struct ipc_status *s);
/*
 * A CLOCK_STATE from one of its ports: with the virtual back end, the SLAVE port's correction goes
 * to every other software-timestamping worker of the instance (one timescale per boundary clock).
 */
void instance_clock_state(struct instance *i, struct mport *p, const struct ipc_clock_state *cs);
/*
 * defaultDS.priority1/2 of the instance changed (D-Bus, management SET, a reload): tell every
 * configured worker (IPC_SET_PRIORITY, applied in place) and run the BMCA again.
 */
void instance_push_priorities(struct instance *i);
/*
 * instance-follow.c: with phc_follow = auto and ports on several PHCs, the other PHCs follow the
 * SLAVE port's. update: from the derive pass (cheap when nothing changed); true when the
 * followers changed. take_fault: a PHC found faulty since, whose ports the caller takes FAULTY.
 */
bool instance_follow_update(struct instance *i);
bool instance_follow_take_fault(struct instance *i, int *ret_phc, int *ret_error);
void instance_follow_free(struct instance *i);
/* Every follower locked (true without any): the instance may be Synchronized. */
bool instance_follow_locked(const struct instance *i);
/* The lowest portNumber no port of the instance uses (7.5.2.3: 1-based). */
uint16_t instance_free_port_number(const struct instance *i);
