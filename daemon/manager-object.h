/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct manager: what the supervisor holds (inside daemon/ only; the D-Bus layer never sees it).
 */
#pragma once

#include <syslog.h>

#include "common/config-file.h"
#include "common/log.h"
#include "daemon/model.h"
#include "daemon/worker-sandbox.h"
#include "netlink/link-monitor.h"
#include "netlink/tsinfo.h"

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
	sd_event_source *start_defer;		   /* new ports' workers, a few a turn */
	size_t notified_instances, notified_ports; /* last STATUS= sent to the service manager */
	struct sysclock_follow *sysclock;	   /* daemon/sysclock-follow.c */
	/* the PHC pins' kernel interface (daemon/instance-pin.c); NULL: the kernel's, tests: a fake
	 */
	const struct instance_pin_ops *pin_ops;
	void *pin_userdata;
	/* the PHC followers' clocks (daemon/instance-follow.c); NULL: /dev/ptpN, tests: simulated
	 */
	const struct phc_follow_ops *follow_ops;
	void *follow_userdata;
	bool started;
	bool stopping;
	uint64_t start_realtime_usec, start_monotonic_usec;
	struct health_report health;
	struct readiness readiness;
	/*
	 * A management SET a worker accepted (IPC PRIORITY_REQUEST, GM_SETTINGS_REQUEST): the
	 * management sockets' code applies it (supervisor.c registers manager-mgmt.c's); NULL:
	 * ignored with a log line.
	 */
	void (*priority_request)(struct mport *p, const struct ipc_set_priority *s);
	void (*gm_settings_request)(struct mport *p, const struct gm_settings *s);
};
