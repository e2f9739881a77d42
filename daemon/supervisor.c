// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd's run loop: signals, the manager on sd-event, and `--check-config`. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config-file.h"
#include "daemon/manager-internal.h"
#include "daemon/manager-mgmt.h"
#include "daemon/supervisor.h"
#include "dbus/bus-server.h"
#include <systemd/sd-daemon.h>

int supervisor_check_config(const struct manager_settings *s)
{
	/* As the daemon: the default file may be missing (built-in defaults), a named one not. */
	const struct config_source src = {
		.path = s->config_path ? s->config_path : CONFIG_DEFAULT_PATH,
		.dropin_dir = s->config_dir,
		.main_optional = !s->config_path,
		.ptp4l_path = s->ptp4l_config,
	};

	return config_check(&src, stdout);
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	manager_stop(userdata);
	return 0;
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	_cleanup_free_ char *errors = NULL;
	int r;

	sd_notify(false, "RELOADING=1");
	r = manager_reload(userdata, &errors);
	if (r < 0 && errors) {
		/* Every line already names file:line: each at error priority. */
		log_full(LOG_ERR, "reload refused: the configuration is invalid, the old one keeps "
				  "running");
		log_lines(LOG_ERR, errors);
	} else if (r < 0) {
		log_full_errno(LOG_ERR, r, "reload failed: %m");
	}
	sd_notify(false, "READY=1");
	return 0;
}

int supervisor_run(const struct manager_settings *s)
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	struct bus_server *bus = NULL;
	struct manager_mgmt *mgmt = NULL;
	_cleanup_free_ char *errors = NULL;
	sd_event *event = NULL;
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	/* A worker's IPC end closing must not kill us on a late send. */
	signal(SIGPIPE, SIG_IGN);

	r = sd_event_default(&event);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "cannot create the event loop: %m");
		return r;
	}
	/* WatchdogSec= of phcd.service: sd-event sends WATCHDOG=1 at half the period. */
	r = sd_event_set_watchdog(event, true);
	if (r < 0) {
		log_full_errno(LOG_WARNING, r, "cannot enable the watchdog, ignoring: %m");
	}
	r = manager_new(event, s, &m, &errors);
	if (r < 0) {
		if (errors) {
			log_lines(LOG_ERR, errors);
		}
		log_full_errno(LOG_ERR, r, "invalid configuration, not starting: %m");
		goto out;
	}
	if ((r = sd_event_add_signal(event, NULL, SIGTERM, on_term, m)) < 0 ||
	    (r = sd_event_add_signal(event, NULL, SIGINT, on_term, m)) < 0 ||
	    (r = sd_event_add_signal(event, NULL, SIGHUP, on_hup, m)) < 0) {
		log_full_errno(LOG_ERR, r, "cannot watch signals: %m");
		goto out;
	}
	/* A management SET a worker accepted is applied as the sockets' are (manager-mgmt.c). */
	m->priority_request = manager_mgmt_priority_request;
	m->gm_settings_request = manager_mgmt_gm_settings_request;
	/* IEEE 1588 management for pmc and friends; a socket it cannot bind is skipped. */
	r = manager_mgmt_new(m, s->mgmt_path ? s->mgmt_path : UDS_DEFAULT_PATH,
			     s->mgmt_ro_path ? s->mgmt_ro_path : UDS_DEFAULT_RO_PATH, &mgmt);
	if (r < 0) {
		goto out;
	}
	/* The D-Bus API (dbus/): without a system bus phcd still runs, unreachable there. */
	r = bus_server_new(m, &bus);
	if (r < 0) {
		log_full_errno(LOG_WARNING, r,
			       "D-Bus API org.phcd1 unavailable, running without it: %m");
	}
	r = manager_start(m);
	if (r < 0) {
		goto out;
	}
	r = sd_event_loop(event);
	log_full(LOG_INFO, "stopped");
out:
	mgmt = manager_mgmt_free(mgmt);
	bus = bus_server_free(bus);
	m = manager_free(m);
	sd_event_unref(event);
	return r;
}
