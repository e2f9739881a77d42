// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor: configuration -> instances -> ports, hotplug, worker lifecycle, reload, status.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/manager-internal.h"
#include "daemon/sysclock-follow.h"
#include "daemon/manager-mgmt.h"
#include "daemon/worker.h"

/* SIGTERM'd workers get this long in all (SHUTDOWN, SIGTERM at half, then SIGKILL). */
#define WORKER_STOP_TIMEOUT_USEC (2 * 1000000ULL)
/* How often the workers' status pages are read: what D-Bus shows of a port is this old at most. */
#define MANAGER_STATUS_PERIOD_USEC 1000000ULL

static int manager_log_level = LOG_INFO;

void manager_log(int prio, const char *ifname, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (prio > manager_log_level) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Under systemd the "<N>" prefix gives the journal the priority of the line. */
	if (getenv("JOURNAL_STREAM")) {
		fprintf(stderr, "<%d>", prio);
	}
	if (ifname) {
		fprintf(stderr, "phcd: %s: %s\n", ifname, msg);
	} else {
		fprintf(stderr, "phcd: %s\n", msg);
	}
}

const char *mport_timestamping_to_string(enum transport_ts_mode m)
{
	return m == TRANSPORT_TS_MODE_HARDWARE ? "hardware" : "software";
}

/* ---- status file and change hooks ---- */

static void write_status(struct manager *m)
{
	char tmp[PATH_MAX], ci[CLOCK_IDENTITY_STRLEN], gm[CLOCK_IDENTITY_STRLEN];
	struct instance *i;
	struct mport *p;
	FILE *f;

	if (!m->status_file) {
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", m->status_file);
	f = fopen(tmp, "we");
	if (!f) {
		manager_log(LOG_WARNING, NULL, "cannot write %s: %m, ignoring", tmp);
		return;
	}
	MANAGER_FOREACH_INSTANCE(i, m, k)
	{
		fprintf(f,
			"instance %s domain %u clock %s priority1 %u priority2 %u gm %s steps %u "
			"servo %s synchronized %d offset %" PRId64 " delay %" PRId64 "\n",
			i->name, i->domain, clock_identity_to_string(&i->clock_identity, ci),
			i->priority1, i->priority2,
			clock_identity_to_string(&i->grandmaster_identity, gm), i->steps_removed,
			servo_state_to_string(i->servo_state), i->synchronized, i->offset_ns,
			i->mean_path_delay_ns);
	}
	MANAGER_FOREACH_PORT(p, m, k)
	{
		fprintf(f,
			"port %s instance %s number %u state %s pid %d restarts %u link %s ts %s "
			"error \"%s\"\n",
			p->ifname, p->instance->name, p->port_identity.portNumber,
			port_state_to_string(p->state), (int) p->worker_pid, p->restarts,
			p->link_up ? "up" : "down", mport_timestamping_to_string(p->timestamping),
			p->last_error_text);
	}
	if (fclose(f) != 0 || rename(tmp, m->status_file) < 0) {
		manager_log(LOG_WARNING, NULL, "cannot write %s: %m, ignoring", m->status_file);
	}
}

static int on_status_defer(sd_event_source *s, void *userdata)
{
	struct manager *m = userdata;

	write_status(m);
	/* Only when it says something new: every worker's status is a change, and each
	 * datagram costs the service manager (64 ports: 64 a second, all alike). */
	if (m->n_instances != m->notified_instances || m->n_ports != m->notified_ports) {
		m->notified_instances = m->n_instances;
		m->notified_ports = m->n_ports;
		sd_notifyf(false, "STATUS=%zu instance(s), %zu port(s)", m->n_instances,
			   m->n_ports);
	}
	return 0;
}

static void manager_dirty(struct manager *m)
{
	if (m->status_defer) {
		sd_event_source_set_enabled(m->status_defer, SD_EVENT_ONESHOT);
	}
}

void manager_instance_changed(struct instance *i, unsigned int mask)
{
	struct manager *m = i->manager;

	if (m->ops && m->ops->instance_changed) {
		m->ops->instance_changed(m->userdata, i, mask);
	}
	manager_dirty(m);
}

void manager_changed(struct manager *m, unsigned int mask)
{
	if (m->ops && m->ops->manager_changed) {
		m->ops->manager_changed(m->userdata, mask);
	}
	manager_dirty(m);
}

bool manager_system_clock_synchronized(struct manager *m)
{
	return sysclock_follow_synchronized(m->sysclock);
}

void manager_port_changed(struct mport *p, unsigned int mask)
{
	struct manager *m = p->manager;

	if (m->ops && m->ops->port_changed) {
		m->ops->port_changed(m->userdata, p, mask);
	}
	manager_dirty(m);
}

static void port_set_state(struct mport *p, enum port_state st)
{
	if (p->state == st) {
		return;
	}
	manager_log(LOG_INFO, p->ifname, "%s -> %s", port_state_to_string(p->state),
		    port_state_to_string(st));
	if (p->manager->status_stdout) {
		printf("port %s instance %s state %s\n", p->ifname, p->instance->name,
		       port_state_to_string(st));
		fflush(stdout);
	}
	p->state = st;
	manager_port_changed(p, MPORT_CHANGED_STATE);
}

static void port_set_error(struct mport *p, int error, const char *fmt, ...) _printf_(3, 4);
static void port_set_error(struct mport *p, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->last_error_text, sizeof(p->last_error_text), fmt, ap);
	va_end(ap);
	p->last_error = error;
	manager_port_changed(p, MPORT_CHANGED_ERROR);
}

/* ---- workers ---- */

static void port_start_worker(struct mport *p);

/* A STATUS, from the socket (a change, at once) or from the status page (once a second). */
static void port_take_status(struct mport *p, const struct ipc_status *s)
{
	unsigned int mask = 0;

	if (memcmp(p->rx, s->rx, sizeof(p->rx)) || memcmp(p->tx, s->tx, sizeof(p->tx)) ||
	    memcmp(p->ignored, s->ignored, sizeof(p->ignored)) ||
	    p->dropped_management != s->mgmt_malformed) {
		memcpy(p->rx, s->rx, sizeof(p->rx));
		memcpy(p->tx, s->tx, sizeof(p->tx));
		memcpy(p->ignored, s->ignored, sizeof(p->ignored));
		p->dropped_management = s->mgmt_malformed;
		mask |= MPORT_CHANGED_COUNTERS;
	}
	if (s->last_error &&
	    (s->last_error != p->last_error ||
	     strncmp(s->last_error_text, p->last_error_text, sizeof(s->last_error_text)))) {
		port_set_error(p, s->last_error, "%s", s->last_error_text);
	}
	if (mask) {
		manager_port_changed(p, mask);
	}
	if (s->port_state != p->state) {
		port_set_state(p, s->port_state);
		/* A port leaving or joining the protocol changes Ebest's candidates. */
		p->sent_valid = false;
		instance_run_bmca(p->instance);
	}
	instance_port_status(p->instance, p, s);
}

/*
 * Every worker's status page on one timer (status-page.h): one wakeup a second for all ports,
 * where a STATUS datagram from each was a wakeup each. A page being written at every try waits
 * for the next second; one with nonsense in it ends its worker (worker_read_status()).
 */
static int on_status_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	struct mport *p;

	sd_event_source_set_time(src, usec + MANAGER_STATUS_PERIOD_USEC);
	MANAGER_FOREACH_PORT(p, m, k)
	{
		struct ipc_msg msg;

		if (p->worker && p->configured && worker_read_status(p->worker, &msg) > 0) {
			port_take_status(p, &msg.status);
		}
	}
	return 0;
}

static void on_worker_message(struct worker *w, const struct ipc_msg *msg, void *userdata)
{
	struct mport *p = userdata;

	switch (msg->type) {
	case IPC_HELLO: {
		struct ipc_msg c = { .type = IPC_CONFIG };

		if (msg->hello.protocol_version != IPC_VERSION || p->configured) {
			worker_kill(w, -EPROTO, "sent an unexpected HELLO");
			return;
		}
		snprintf(c.config.ifname, sizeof(c.config.ifname), "%s", p->ifname);
		c.config.clock_identity = p->instance->clock_identity;
		c.config.port_number = p->port_identity.portNumber;
		c.config.instance = p->instance->options;
		c.config.port = p->options;
		if (worker_send_config(w, &c) < 0) {
			worker_kill(w, -EPIPE, "cannot send its CONFIG");
			return;
		}
		p->configured = true;
		return;
	}
	case IPC_STATUS:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent STATUS before HELLO");
			return;
		}
		port_take_status(p, &msg->status);
		return;
	case IPC_ERBEST:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent ERBEST before HELLO");
			return;
		}
		p->has_erbest = msg->erbest.present;
		p->erbest = msg->erbest;
		/*
		 * Decide for this port afresh, even if it comes out as last sent: a worker whose
		 * Erbest vanished before our S1 arrived could not carry it out (it says so with
		 * this ERBEST), and a repeat skipped here would leave it LISTENING for good.
		 */
		p->sent_valid = false;
		instance_run_bmca(p->instance);
		return;
	case IPC_CLOCK_STATE:
		if (!p->configured) {
			worker_kill(w, -EPROTO, "sent CLOCK_STATE before HELLO");
			return;
		}
		instance_clock_state(p->instance, p, &msg->clock_state);
		return;
	case IPC_CLOCK_REQUEST:
		/* System clock steering is issue 7's; a worker asking now is told nothing. */
		manager_log(LOG_DEBUG, p->ifname, "CLOCK_REQUEST not served yet, ignoring");
		return;
	case IPC_PRIORITY_REQUEST:
		/* A management SET the worker accepted (management_network_set): as D-Bus does. */
		manager_mgmt_priority_request(p, &msg->set_priority);
		return;
	default:
		return;
	}
}

static uint64_t now_usec(struct manager *m)
{
	uint64_t t;

	sd_event_now(m->event, CLOCK_MONOTONIC, &t);
	return t;
}

static int on_restart_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct mport *p = userdata;

	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	port_start_worker(p);
	return 0;
}

/* Restart with exponential backoff; past restart_limit_burst in the interval, give up. */
static void port_schedule_restart(struct mport *p)
{
	struct manager *m = p->manager;
	const struct daemon_options *d = &m->config->daemon;
	uint64_t now = now_usec(m), delay_ms;

	if (now - p->restart_window_start > (uint64_t) d->restart_limit_interval_sec * 1000000) {
		p->restart_window_start = now;
		p->restarts_in_window = 0;
	}
	if (p->restarts_in_window >= d->restart_limit_burst) {
		char last[MANAGER_ERROR_TEXT_MAX];

		/* The reason is formatted into last_error_text: quote the old one from a copy. */
		snprintf(last, sizeof(last), "%s", p->last_error_text);
		p->given_up = true;
		port_set_state(p, PORT_STATE_FAULTY);
		port_set_error(p, p->last_error ? p->last_error : -ECHILD,
			       "worker restarted %u times within %u s, giving up (last: %.60s)",
			       p->restarts_in_window, d->restart_limit_interval_sec, last);
		manager_log(LOG_ERR, p->ifname, "%s", p->last_error_text);
		return;
	}
	delay_ms = d->restart_backoff_initial_ms;
	for (unsigned int k = 0; k < p->restarts_in_window && delay_ms < d->restart_backoff_max_ms;
	     k++) {
		delay_ms *= 2;
	}
	if (delay_ms > d->restart_backoff_max_ms) {
		delay_ms = d->restart_backoff_max_ms;
	}
	p->restarts_in_window++;
	p->restarts++;
	manager_port_changed(p, MPORT_CHANGED_WORKER);
	sd_event_add_time(m->event, &p->restart_timer, CLOCK_MONOTONIC, now + delay_ms * 1000, 0,
			  on_restart_timer, p);
}

static void port_free(struct mport *p);

static void manager_maybe_exit(struct manager *m)
{
	if (!m->stopping) {
		return;
	}
	for (size_t k = 0; k < m->n_ports; k++) {
		if (m->ports[k]->worker) {
			return;
		}
	}
	sd_event_exit(m->event, 0);
}

static void on_worker_exited(struct worker *w, int error, const char *reason, void *userdata)
{
	struct mport *p = userdata;
	bool expected = worker_stopping(w);
	struct manager *m = p->manager;
	struct instance *i = p->instance;

	p->worker = worker_free(p->worker);
	p->worker_pid = 0;
	p->configured = false;
	p->has_erbest = false;
	p->sent_valid = false;
	manager_port_changed(p, MPORT_CHANGED_WORKER);
	if (p->removed) {
		port_free(p);
		instance_run_bmca(i);
		manager_maybe_exit(m);
		return;
	}
	if (m->stopping) {
		manager_maybe_exit(m);
		return;
	}
	if (!expected) {
		manager_log(LOG_WARNING, p->ifname, "worker %s", reason);
		port_set_error(p, error ? error : -ECHILD, "worker %s", reason);
	}
	if (!p->enabled) {
		port_set_state(p, PORT_STATE_DISABLED);
	} else if (!p->link_up) {
		port_set_state(p, PORT_STATE_FAULTY);
	} else if (expected) {
		/* Stopped on purpose to be replaced (reload, restart). */
		port_start_worker(p);
	} else {
		port_set_state(p, PORT_STATE_FAULTY);
		port_schedule_restart(p);
	}
	instance_run_bmca(i);
}

static const struct worker_ops worker_ops = {
	.message = on_worker_message,
	.exited = on_worker_exited,
};

static void port_start_worker(struct mport *p)
{
	struct manager *m = p->manager;
	struct instance *i = p->instance;
	struct worker_config wc = {
		.binary = m->port_binary,
		.ifindex = p->ifindex,
		.time_stamping = p->options.time_stamping,
		.peer_delay = p->options.delay_mechanism == OPTIONS_DELAY_P2P,
		.want_phc = i->options.clock_backend == OPTIONS_CLOCK_PHC,
		.log_samples = m->config->daemon.logging_level >= LOG_DEBUG,
	};
	struct worker_info info;
	int r;

	if (p->worker || !p->enabled || !p->link_up || p->given_up || m->stopping || p->removed ||
	    p->restart_timer) {
		return;
	}
	snprintf(wc.ifname, sizeof(wc.ifname), "%s", p->ifname);
	r = worker_spawn(m->event, &wc, &worker_ops, p, &p->worker, &info);
	if (r < 0) {
		manager_log(LOG_ERR, p->ifname, "cannot start a worker: %s", strerror(-r));
		port_set_error(p, r, "cannot start a worker: %s", strerror(-r));
		port_set_state(p, PORT_STATE_FAULTY);
		port_schedule_restart(p);
		return;
	}
	if (info.hw_error) {
		manager_log(LOG_NOTICE, p->ifname,
			    "hardware timestamping refused (%s), using software timestamps",
			    strerror(-info.hw_error));
	}
	p->worker_pid = info.pid;
	p->timestamping = info.ts_mode;
	p->phc_index = info.phc_index;
	manager_log(LOG_INFO, p->ifname, "worker %d started (instance %s, port %u, %s timestamps)",
		    (int) info.pid, i->name, p->port_identity.portNumber,
		    mport_timestamping_to_string(info.ts_mode));
	manager_port_changed(p, MPORT_CHANGED_WORKER | MPORT_CHANGED_TIMESTAMPING);
	port_set_state(p, PORT_STATE_INITIALIZING);
}

/* Stop the worker so that on_worker_exited starts a fresh one (or none, per the flags). */
static void port_stop_worker(struct mport *p)
{
	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	if (p->worker) {
		worker_stop(p->worker, WORKER_STOP_TIMEOUT_USEC);
	}
}

/* ---- ports ---- */

static void port_free(struct mport *p)
{
	struct manager *m = p->manager;

	for (size_t k = 0; k < m->n_ports; k++) {
		if (m->ports[k] == p) {
			if (m->ops && m->ops->port_removed) {
				m->ops->port_removed(m->userdata, p);
			}
			memmove(&m->ports[k], &m->ports[k + 1],
				(m->n_ports - k - 1) * sizeof(*m->ports));
			m->n_ports--;
			break;
		}
	}
	manager_log(LOG_INFO, p->ifname, "port removed from instance %s", p->instance->name);
	manager_instance_changed(p->instance, INSTANCE_CHANGED_PORTS);
	p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
	p->worker = worker_free(p->worker);
	free(p);
	manager_dirty(m);
}

/* Remove a port: stop its worker first; the port goes when the worker is reaped. */
static void port_remove(struct mport *p)
{
	p->removed = true;
	if (p->worker) {
		port_stop_worker(p);
		return;
	}
	port_free(p);
}

static bool link_is_up(const struct link_info *l)
{
	return l->admin_up && l->carrier;
}

static int port_add(struct manager *m, struct instance *i, const struct link_info *l)
{
	struct mport *p, **ports;
	int r;

	ports = reallocarray(m->ports, m->n_ports + 1, sizeof(*m->ports));
	if (!ports) {
		return -ENOMEM;
	}
	m->ports = ports;
	p = calloc(1, sizeof(*p));
	if (!p) {
		return -ENOMEM;
	}
	r = config_port_options(m->config, i->name, l->name, &p->options);
	if (r < 0) {
		free(p);
		return r;
	}
	snprintf(p->ifname, sizeof(p->ifname), "%s", l->name);
	p->instance = i;
	p->manager = m;
	p->ifindex = l->ifindex;
	p->link_up = link_is_up(l);
	p->enabled = true;
	p->phc_index = -1;
	p->state = PORT_STATE_INITIALIZING;
	p->delay_mechanism = p->options.delay_mechanism;
	/* The instance's clockIdentity comes from its first port's MAC (7.5.2.2.2). */
	if (!memcmp(&i->clock_identity, &(struct ClockIdentity){ 0 }, sizeof(i->clock_identity)) &&
	    l->has_mac) {
		clock_identity_from_mac(l->mac, &i->clock_identity);
		manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
		instance_run_bmca(i);
	}
	p->port_identity.clockIdentity = i->clock_identity;
	p->port_identity.portNumber = instance_free_port_number(i);
	m->ports[m->n_ports++] = p;
	manager_log(LOG_INFO, p->ifname, "port %u of instance %s (domain %u), link %s",
		    p->port_identity.portNumber, i->name, i->domain, p->link_up ? "up" : "down");
	if (m->ops && m->ops->port_added) {
		m->ops->port_added(m->userdata, p);
	}
	manager_instance_changed(i, INSTANCE_CHANGED_PORTS);
	if (p->link_up) {
		port_start_worker(p);
	} else {
		port_set_state(p, PORT_STATE_FAULTY);
		port_set_error(p, -ENETDOWN, "link down");
	}
	return 0;
}

static bool link_has_phc(struct manager *m, const struct link_info *l)
{
	struct tsinfo ti;

	if (!m->ethtool || ethtool_nl_tsinfo_get(m->ethtool, l->name, &ti) < 0) {
		return false;
	}
	return ti.phc_index >= 0;
}

/* A link appeared (or the configuration changed): does an instance want it? */
static void manager_consider_link(struct manager *m, const struct link_info *l)
{
	const struct config_instance *ci;
	struct instance *i;
	int r;

	if ((l->flags & IFF_LOOPBACK) || manager_find_port_by_ifindex(m, l->ifindex) ||
	    manager_find_port(m, l->name)) {
		return;
	}
	ci = config_instance_for_interface(m->config, l->name, link_has_phc(m, l));
	if (!ci) {
		return;
	}
	i = manager_find_instance(m, ci->options.name);
	if (!i) {
		return;
	}
	r = port_add(m, i, l);
	if (r < 0) {
		manager_log(LOG_ERR, l->name, "cannot add the port: %s, ignoring", strerror(-r));
	}
}

static void on_link(struct link_monitor *lm, enum link_event ev, const struct link_info *l,
		    void *userdata)
{
	struct manager *m = userdata;
	struct mport *p = manager_find_port_by_ifindex(m, l->ifindex);

	if (m->stopping) {
		return;
	}
	switch (ev) {
	case LINK_EVENT_ADDED:
		manager_consider_link(m, l);
		return;
	case LINK_EVENT_REMOVED:
		if (p && !p->removed) {
			manager_log(LOG_INFO, p->ifname, "interface removed");
			port_remove(p);
		}
		return;
	case LINK_EVENT_RENAMED:
		if (p && !p->removed) {
			port_remove(p);
		}
		manager_consider_link(m, l);
		return;
	default:
		break;
	}
	if (!p || p->removed || p->link_up == link_is_up(l)) {
		return;
	}
	p->link_up = link_is_up(l);
	manager_log(LOG_INFO, p->ifname, "link %s", p->link_up ? "up" : "down");
	manager_port_changed(p, MPORT_CHANGED_LINK);
	if (p->link_up) {
		/* A link that comes back deserves a fresh start, rate limit included. */
		p->given_up = false;
		p->restarts_in_window = 0;
		port_start_worker(p);
	} else {
		port_set_error(p, -ENETDOWN, "link down");
		if (p->worker) {
			port_stop_worker(p);
		}
		port_set_state(p, PORT_STATE_FAULTY);
		instance_run_bmca(p->instance);
	}
}

/* ---- instances ---- */

static int manager_add_instance(struct manager *m, const struct config_instance *ci)
{
	struct instance **arr, *i;
	int r;

	arr = reallocarray(m->instances, m->n_instances + 1, sizeof(*m->instances));
	if (!arr) {
		return -ENOMEM;
	}
	m->instances = arr;
	r = instance_new(m, ci, &i);
	if (r < 0) {
		return r;
	}
	m->instances[m->n_instances++] = i;
	if (m->ops && m->ops->instance_added) {
		m->ops->instance_added(m->userdata, i);
	}
	manager_dirty(m);
	return 0;
}

static void manager_remove_instance(struct manager *m, struct instance *i)
{
	for (size_t k = 0; k < m->n_instances; k++) {
		if (m->instances[k] == i) {
			if (m->ops && m->ops->instance_removed) {
				m->ops->instance_removed(m->userdata, i);
			}
			memmove(&m->instances[k], &m->instances[k + 1],
				(m->n_instances - k - 1) * sizeof(*m->instances));
			m->n_instances--;
			break;
		}
	}
	instance_free(i);
	manager_dirty(m);
}

/* ---- lifecycle ---- */

static int load_config(struct manager *m, struct config **ret, char **errors)
{
	const char *path = m->config_path ? m->config_path : CONFIG_DEFAULT_PATH;

	return config_load(path, m->config_dir, !m->config_path, ret, errors);
}

static char *default_port_binary(void)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	/* Next to phcd first: a build tree runs its own phcd-port, not an installed one. */
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			strcpy(slash + 1, "phcd-port");
			if (access(self, X_OK) == 0) {
				return strdup(self);
			}
		}
	}
	return strdup(PHCD_PORT_PATH);
}

int manager_new(sd_event *event, const struct manager_settings *s, struct manager **ret,
		char **errors)
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m) {
		return -ENOMEM;
	}
	m->event = sd_event_ref(event);
	m->config_path = s->config_path ? strdup(s->config_path) : NULL;
	m->config_dir = s->config_dir ? strdup(s->config_dir) : NULL;
	m->status_file = s->status_file ? strdup(s->status_file) : NULL;
	m->port_binary = s->port_binary ? strdup(s->port_binary) : default_port_binary();
	m->status_stdout = s->status_stdout;
	if ((s->config_path && !m->config_path) || (s->config_dir && !m->config_dir) ||
	    (s->status_file && !m->status_file) || !m->port_binary) {
		return -ENOMEM;
	}
	r = load_config(m, &m->config, errors);
	if (r < 0) {
		return r;
	}
	manager_log_level = m->config->daemon.logging_level;
	r = sd_event_add_defer(event, &m->status_defer, on_status_defer, m);
	if (r < 0) {
		return r;
	}
	sd_event_source_set_enabled(m->status_defer, SD_EVENT_OFF);
	r = sd_event_add_time_relative(event, &m->status_timer, CLOCK_MONOTONIC,
				       MANAGER_STATUS_PERIOD_USEC, 0, on_status_timer, m);
	if (r < 0) {
		return r;
	}
	r = sd_event_source_set_enabled(m->status_timer, SD_EVENT_ON);
	if (r < 0) {
		return r;
	}
	for (size_t k = 0; k < m->config->n_instances; k++) {
		r = manager_add_instance(m, &m->config->instances[k]);
		if (r < 0) {
			return r;
		}
	}
	*ret = TAKE_PTR(m);
	return 0;
}

int manager_start(struct manager *m)
{
	int r;

	/* Without ethtool netlink nothing has a PHC: auto then takes software-only ones if asked.
	 */
	r = ethtool_nl_new(&m->ethtool);
	if (r < 0) {
		manager_log(LOG_WARNING, NULL, "ethtool netlink unavailable (%s), ignoring",
			    strerror(-r));
	}
	r = link_monitor_new(m->event, on_link, m, &m->links);
	if (r < 0) {
		manager_log(LOG_ERR, NULL, "cannot monitor links: %s", strerror(-r));
		return r;
	}
	for (size_t k = 0; k < link_monitor_count(m->links); k++) {
		manager_consider_link(m, link_monitor_get(m->links, k));
	}
	m->started = true;
	/* CLOCK_REALTIME following system_clock_instance; without one it never writes the clock. */
	r = sysclock_follow_new(m, &sysclock_linux_ops, NULL, &m->sysclock);
	if (r < 0) {
		manager_log(LOG_ERR, NULL, "cannot set up the system clock, ignoring: %s",
			    strerror(-r));
	}
	write_status(m);
	m->notified_instances = m->n_instances;
	m->notified_ports = m->n_ports;
	sd_notifyf(false, "READY=1\nSTATUS=%zu instance(s), %zu port(s)", m->n_instances,
		   m->n_ports);
	manager_log(LOG_INFO, NULL, "running: %zu instance(s), %zu port(s)", m->n_instances,
		    m->n_ports);
	return 0;
}

void manager_stop(struct manager *m)
{
	if (m->stopping) {
		return;
	}
	m->stopping = true;
	sd_notify(false, "STOPPING=1");
	manager_log(LOG_INFO, NULL, "stopping %zu worker(s)", m->n_ports);
	for (size_t k = 0; k < m->n_ports; k++) {
		port_stop_worker(m->ports[k]);
	}
	manager_maybe_exit(m);
}

struct manager *manager_free(struct manager *m)
{
	if (!m) {
		return NULL;
	}
	/* No callbacks into a D-Bus layer that may already be gone. */
	m->ops = NULL;
	m->sysclock = sysclock_follow_free(m->sysclock);
	while (m->n_ports) {
		port_free(m->ports[m->n_ports - 1]);
	}
	while (m->n_instances) {
		manager_remove_instance(m, m->instances[m->n_instances - 1]);
	}
	free(m->ports);
	free(m->instances);
	m->status_defer = sd_event_source_disable_unref(m->status_defer);
	m->status_timer = sd_event_source_disable_unref(m->status_timer);
	link_monitor_free(m->links);
	ethtool_nl_free(m->ethtool);
	config_free(m->config);
	if (m->status_file) {
		unlink(m->status_file);
	}
	free(m->config_path);
	free(m->config_dir);
	free(m->port_binary);
	free(m->status_file);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

/* ---- reload ---- */

int manager_reload(struct manager *m, char **errors)
{
	struct config *old = m->config, *new = NULL;
	size_t touched = 0;
	int r;

	r = load_config(m, &new, errors);
	if (r < 0) {
		manager_log(LOG_ERR, NULL, "reload refused, keeping the running configuration");
		return r;
	}
	/* Instances that went away or changed as a whole take their ports with them. */
	for (size_t k = m->n_instances; k-- > 0;) {
		struct instance *i = m->instances[k];
		enum config_change c = config_diff_instance(old, new, i->name);
		struct mport *p;

		if (c == CONFIG_UNCHANGED) {
			continue;
		}
		manager_log(LOG_INFO, NULL, "instance %s: %s", i->name, config_change_to_string(c));
		touched++;
		if (c == CONFIG_REMOVED) {
			for (size_t n = m->n_ports; n-- > 0;) {
				p = m->ports[n];
				if (p->instance == i) {
					/* Not through port_remove: the instance goes now. */
					port_free(p);
				}
			}
			manager_remove_instance(m, i);
			continue;
		}
		instance_apply_options(i, &config_find_instance(new, i->name)->options);
		manager_instance_changed(i, INSTANCE_CHANGED_CONFIG);
		if (config_instance_priorities_only(old, new, i->name)) {
			/* The workers take it in place (same PID), the BMCA decides again. */
			instance_push_priorities(i);
		}
	}
	for (size_t k = 0; k < new->n_instances; k++) {
		if (!manager_find_instance(m, new->instances[k].options.name)) {
			manager_log(LOG_INFO, NULL, "instance %s: added",
				    new->instances[k].options.name);
			r = manager_add_instance(m, &new->instances[k]);
			if (r < 0) {
				manager_log(LOG_ERR, NULL, "cannot add instance %s: %s, ignoring",
					    new->instances[k].options.name, strerror(-r));
			}
			touched++;
		}
	}
	m->config = new;
	/* Ports: gone from their instance, changed, or untouched (same worker, same PID). */
	for (size_t n = m->n_ports; n-- > 0;) {
		struct mport *p = m->ports[n];
		const struct config_instance *ci;
		enum config_change c;

		if (p->removed) {
			continue;
		}
		ci = config_instance_for_interface(new, p->ifname, p->phc_index >= 0);
		if (!ci || strcmp(ci->options.name, p->instance->name)) {
			port_remove(p);
			touched++;
			continue;
		}
		c = config_diff_instance(old, new, p->instance->name);
		if (c == CONFIG_CHANGED &&
		    config_instance_priorities_only(old, new, p->instance->name)) {
			c = CONFIG_UNCHANGED; /* pushed above with IPC_SET_PRIORITY */
		}
		if (c == CONFIG_UNCHANGED) {
			c = config_diff_port(old, new, p->instance->name, p->ifname);
		}
		if (c == CONFIG_UNCHANGED) {
			continue;
		}
		config_port_options(new, p->instance->name, p->ifname, &p->options);
		p->delay_mechanism = p->options.delay_mechanism;
		manager_port_changed(p, MPORT_CHANGED_CONFIG);
		p->given_up = false;
		p->restarts_in_window = 0;
		manager_log(LOG_INFO, p->ifname, "configuration changed, restarting the worker");
		if (p->worker) {
			port_stop_worker(p);
		} else {
			port_start_worker(p);
		}
		touched++;
	}
	config_free(old);
	manager_log_level = new->daemon.logging_level;
	/* Interfaces a new or changed instance now wants. */
	for (size_t k = 0; m->links && k < link_monitor_count(m->links); k++) {
		manager_consider_link(m, link_monitor_get(m->links, k));
	}
	manager_log(LOG_INFO, NULL, "reloaded: %zu change(s)", touched);
	manager_changed(m, MANAGER_CHANGED_CONFIG);
	return 0;
}

/* ---- control ---- */

int mport_enable(struct mport *p)
{
	if (p->enabled) {
		return 0;
	}
	p->enabled = true;
	p->given_up = false;
	p->restarts_in_window = 0;
	manager_port_changed(p, MPORT_CHANGED_STATE);
	if (!p->link_up) {
		port_set_state(p, PORT_STATE_FAULTY);
		return 0;
	}
	port_start_worker(p);
	return 0;
}

int mport_disable(struct mport *p)
{
	if (!p->enabled) {
		return 0;
	}
	p->enabled = false;
	if (p->worker) {
		port_stop_worker(p);
	} else {
		p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
		port_set_state(p, PORT_STATE_DISABLED);
	}
	manager_port_changed(p, MPORT_CHANGED_STATE);
	return 0;
}

int mport_restart(struct mport *p)
{
	if (!p->enabled) {
		return -ENETDOWN;
	}
	p->given_up = false;
	p->restarts_in_window = 0;
	if (p->worker) {
		port_stop_worker(p);
	} else {
		p->restart_timer = sd_event_source_disable_unref(p->restart_timer);
		port_start_worker(p);
	}
	return 0;
}

/* ---- lookups ---- */

void manager_set_ops(struct manager *m, const struct manager_ops *ops, void *userdata)
{
	m->ops = ops;
	m->userdata = userdata;
}

sd_event *manager_get_event(struct manager *m)
{
	return m->event;
}

const struct config *manager_get_config(struct manager *m)
{
	return m->config;
}

size_t manager_instance_count(const struct manager *m)
{
	return m->n_instances;
}

struct instance *manager_instance_at(const struct manager *m, size_t i)
{
	return i < m->n_instances ? m->instances[i] : NULL;
}

size_t manager_port_count(const struct manager *m)
{
	return m->n_ports;
}

struct mport *manager_port_at(const struct manager *m, size_t i)
{
	return i < m->n_ports ? m->ports[i] : NULL;
}

struct instance *manager_find_instance(const struct manager *m, const char *name)
{
	for (size_t k = 0; k < m->n_instances; k++) {
		if (!strcmp(m->instances[k]->name, name)) {
			return m->instances[k];
		}
	}
	return NULL;
}

struct mport *manager_find_port(const struct manager *m, const char *ifname)
{
	for (size_t k = 0; k < m->n_ports; k++) {
		if (!m->ports[k]->removed && !strcmp(m->ports[k]->ifname, ifname)) {
			return m->ports[k];
		}
	}
	return NULL;
}

struct mport *manager_find_port_by_ifindex(const struct manager *m, int ifindex)
{
	for (size_t k = 0; k < m->n_ports; k++) {
		if (!m->ports[k]->removed && m->ports[k]->ifindex == ifindex) {
			return m->ports[k];
		}
	}
	return NULL;
}
