// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's core: configuration -> instances, the status file, change hooks, lifecycle. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "common/time-util.h"
#include "daemon/manager-internal.h"
#include "daemon/sysclock-follow.h"
#include "daemon/worker.h"

/* ---- status file and change hooks ---- */

/* A string in the status file's double quotes: '"', '\\' and anything not printable escaped. */
static void fput_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char) *s;

		if (ch == '"' || ch == '\\') {
			fprintf(f, "\\%c", ch);
		} else if (ch < 0x20 || ch >= 0x7f) {
			fprintf(f, "\\x%02x", ch);
		} else {
			fputc(ch, f);
		}
	}
	fputc('"', f);
}

/*
 * A file of a random name beside the status file, made by us (O_CREAT|O_EXCL: a symlink or any
 * file already there is never opened), filled, then renamed over the status file: whoever can
 * write that directory cannot make a privileged phcd write elsewhere, and readers never see
 * half a file.
 */
static FILE *status_tmp_open(const char *path, char *tmp, size_t size)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int) (slash - path + 1) : 0;
	FILE *f;
	int fd;

	if ((size_t) snprintf(tmp, size, "%.*s.%s.XXXXXX", dir_len, path,
			      slash ? slash + 1 : path) >= size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		return NULL;
	}
	/* mkostemp makes it 0600: readable by all, as the status file always was. */
	if (fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(tmp);
		errno = e;
		return NULL;
	}
	return f;
}

static void write_status(struct manager *m)
{
	char tmp[PATH_MAX], ci[CLOCK_IDENTITY_STRLEN], gm[CLOCK_IDENTITY_STRLEN];
	struct instance *i;
	struct mport *p;
	FILE *f;

	if (!m->status_file) {
		return;
	}
	f = status_tmp_open(m->status_file, tmp, sizeof(tmp));
	if (!f) {
		log_full(LOG_WARNING, "cannot write %s: %m, ignoring", m->status_file);
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
			"ascapable %d error ",
			p->ifname, p->instance->name, p->port_identity.portNumber,
			port_state_to_string(p->state), (int) p->worker_pid, p->restarts,
			p->link_up ? "up" : "down", mport_timestamping_to_string(p->timestamping),
			p->as_capable);
		fput_quoted(f, p->last_error_text);
		fputc('\n', f);
	}
	if (fclose(f) != 0 || rename(tmp, m->status_file) < 0) {
		log_full(LOG_WARNING, "cannot write %s: %m, ignoring", m->status_file);
		(void) unlink(tmp);
	}
}

void manager_write_status(struct manager *m)
{
	write_status(m);
	/* Only when it says something new: every worker's status is a change, and each
	 * datagram costs the service manager (64 ports: 64 a second, all alike). */
	if (m->started &&
	    (m->n_instances != m->notified_instances || m->n_ports != m->notified_ports)) {
		m->notified_instances = m->n_instances;
		m->notified_ports = m->n_ports;
		sd_notifyf(false, "STATUS=%zu instance(s), %zu port(s)", m->n_instances,
			   m->n_ports);
	}
}

bool manager_system_clock_synchronized(struct manager *m)
{
	return sysclock_follow_synchronized(m->sysclock);
}

const char *manager_system_clock_conflict(struct manager *m)
{
	return sysclock_follow_conflict(m->sysclock);
}

/* ---- instances ---- */

int manager_add_instance(struct manager *m, const struct config_instance *ci)
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

void manager_remove_instance(struct manager *m, struct instance *i)
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

int manager_load_config(struct manager *m, struct config **ret, char **errors)
{
	const struct config_source src = {
		.path = m->config_path ? m->config_path : CONFIG_DEFAULT_PATH,
		.dropin_dir = m->config_dir,
		.main_optional = !m->config_path,
	};
	int r;

	r = config_load(&src, ret, errors, NULL);
	/* Keys of a ptp4l_config file that are ignored: each named, with its file:line. */
	if (r >= 0 && (*ret)->warnings) {
		log_lines(LOG_WARNING, (*ret)->warnings);
	}
	return r;
}

static char *default_port_binary(void)
{
	/* Next to phcd first, then the build tree's worker/: a build runs its own phcd-port. */
	static const char *const beside[] = { "phcd-port", "../worker/phcd-port" };
	char self[PATH_MAX], path[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			for (size_t k = 0; k < ARRAY_SIZE(beside); k++) {
				snprintf(path, sizeof(path), "%s%s", self, beside[k]);
				if (access(path, X_OK) == 0) {
					return strdup(path);
				}
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
	m->start_realtime_usec = time_usec(CLOCK_REALTIME);
	m->start_monotonic_usec = time_usec(CLOCK_MONOTONIC);
	m->config_path = s->config_path ? strdup(s->config_path) : NULL;
	m->config_dir = s->config_dir ? strdup(s->config_dir) : NULL;
	m->status_file = s->status_file ? strdup(s->status_file) : NULL;
	m->port_binary = s->port_binary ? strdup(s->port_binary) : default_port_binary();
	m->status_stdout = s->status_stdout;
	if ((s->config_path && !m->config_path) || (s->config_dir && !m->config_dir) ||
	    (s->status_file && !m->status_file) || !m->port_binary) {
		return -ENOMEM;
	}
	r = manager_load_config(m, &m->config, errors);
	if (r < 0) {
		return r;
	}
	log_set_max_level(m->config->daemon.logging_level);
	worker_identity_resolve(&m->worker_identity);
	r = manager_derive_setup(m);
	if (r < 0) {
		return r;
	}
	r = sd_event_add_time_relative(event, &m->status_timer, CLOCK_MONOTONIC,
				       MANAGER_STATUS_PERIOD_USEC, 0, manager_on_status_timer, m);
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
	manager_dirty(m);
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
		log_full_errno(LOG_WARNING, r, "ethtool netlink unavailable (%m), ignoring");
	}
	r = link_monitor_new(m->event, manager_on_link, m, &m->links);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "cannot monitor links: %m");
		return r;
	}
	for (size_t k = 0; k < link_monitor_count(m->links); k++) {
		manager_consider_link(m, link_monitor_get(m->links, k));
	}
	m->started = true;
	/* CLOCK_REALTIME following system_clock_instance; without one it never writes the clock. */
	r = sysclock_follow_new(m, &sysclock_linux_ops, NULL, &m->sysclock);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "cannot set up the system clock, ignoring: %m");
	}
	/* What D-Bus and the status file show from the first moment: one pass before READY=1. */
	manager_derive(m);
	m->notified_instances = m->n_instances;
	m->notified_ports = m->n_ports;
	sd_notifyf(false, "READY=1\nSTATUS=%zu instance(s), %zu port(s)", m->n_instances,
		   m->n_ports);
	log_full(LOG_INFO, "running: %zu instance(s), %zu port(s)", m->n_instances, m->n_ports);
	return 0;
}

void manager_stop(struct manager *m)
{
	if (m->stopping) {
		return;
	}
	m->stopping = true;
	sd_notify(false, "STOPPING=1");
	log_full(LOG_INFO, "stopping %zu worker(s)", m->n_ports);
	for (size_t k = 0; k < m->n_ports; k++) {
		mport_stop_worker(m->ports[k]);
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
		mport_free(m->ports[m->n_ports - 1]);
	}
	while (m->n_instances) {
		manager_remove_instance(m, m->instances[m->n_instances - 1]);
	}
	free(m->ports);
	free(m->instances);
	m->derive_defer = sd_event_source_disable_unref(m->derive_defer);
	m->gate_timer = sd_event_source_disable_unref(m->gate_timer);
	m->status_timer = sd_event_source_disable_unref(m->status_timer);
	m->start_defer = sd_event_source_disable_unref(m->start_defer);
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

/* ---- lookups ---- */

void manager_set_ops(struct manager *m, const struct manager_ops *ops, void *userdata)
{
	m->ops = ops;
	m->userdata = userdata;
}
