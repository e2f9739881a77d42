/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What manager.c and instance.c share inside the supervisor (not for the D-Bus layer). */
#pragma once

#include <syslog.h>

#include "daemon/config.h"
#include "daemon/manager.h"
#include "netlink/link-monitor.h"
#include "netlink/tsinfo.h"

struct manager {
	sd_event *event;
	char *config_path;
	char *config_dir;
	char *port_binary;
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
	sd_event_source *status_defer;		   /* coalesces status file rewrites */
	sd_event_source *status_timer;		   /* reads every worker's status page */
	size_t notified_instances, notified_ports; /* last STATUS= sent to the service manager */
	struct sysclock_follow *sysclock;	   /* daemon/sysclock-follow.c */
	bool started;
	bool stopping;
};

/* One line on stderr (journal priority prefix under systemd); ifname may be NULL. */
void manager_log(int prio, const char *ifname, const char *fmt, ...) _printf_(3, 4);

/* Change hooks: call the registered ops and schedule a status rewrite. */
void manager_instance_changed(struct instance *i, unsigned int mask);
void manager_port_changed(struct mport *p, unsigned int mask);
void manager_changed(struct manager *m, unsigned int mask);

/* instance.c */
int instance_new(struct manager *m, const struct config_instance *ci, struct instance **ret);
struct instance *instance_free(struct instance *i);
/* Take new options (reload): the config part of the public state follows. */
void instance_apply_options(struct instance *i, const struct instance_options *o);
/* The clock-level BMCA (9.3.2.2, 9.3.3) over the instance's ports; sends RECOMMENDED_STATE. */
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
/* The lowest portNumber no port of the instance uses (7.5.2.3: 1-based). */
uint16_t instance_free_port_number(const struct instance *i);
