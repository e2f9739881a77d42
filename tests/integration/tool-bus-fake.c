// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The D-Bus service over a scripted stand-in of the supervisor's state model (daemon/manager.h):
 * tests drive instances and ports from stdin and see every control call on stdout, so the API is
 * tested without workers, namespaces or timing of a real PTP exchange.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/config-file.h"
#include "common/log.h"
#include "daemon/log-journal.h"
#include "daemon/refclock-feed.h"
#include "daemon/manager.h"
#include "dbus/bus-internal.h" /* polkit-pending looks into the server */
#include "dbus/bus-server.h"

#define FAKE_MAX 64
/* CLOCK_MONOTONIC as the stand-in's readiness sees it: an hour after its ports started. */
#define FAKE_NOW (UINT64_C(3600) * 1000000)

struct manager {
	sd_event *event;
	const struct manager_ops *ops;
	void *userdata;
	struct config config;
	struct instance *instances[FAKE_MAX];
	size_t n_instances;
	struct mport *ports[FAKE_MAX];
	size_t n_ports;
	bool reload_invalid;
	bool sysclock_locked;
	struct health_report health;
	struct readiness readiness;
	char conflict[128];
	pid_t next_pid;
	struct bus_server *bus; /* for polkit-pending */
};

#define HOOK(m, name, ...)                                          \
	do {                                                        \
		if ((m)->ops && (m)->ops->name) {                   \
			(m)->ops->name((m)->userdata, __VA_ARGS__); \
		}                                                   \
	} while (0)

sd_event *manager_get_event(struct manager *m)
{
	return m->event;
}

void manager_set_ops(struct manager *m, const struct manager_ops *ops, void *userdata)
{
	m->ops = ops;
	m->userdata = userdata;
}

bool manager_system_clock_synchronized(struct manager *m)
{
	return m->config.daemon.system_clock_instance[0] && m->sysclock_locked;
}

uint64_t manager_start_realtime_usec(const struct manager *m)
{
	return UINT64_C(1764547200000000); /* 2025-12-01 00:00:00 UTC */
}

uint64_t manager_start_monotonic_usec(const struct manager *m)
{
	return UINT64_C(12345678);
}

const struct health_report *manager_health(const struct manager *m)
{
	return &m->health;
}

const struct readiness *manager_readiness(const struct manager *m)
{
	return &m->readiness;
}

const char *manager_system_clock_conflict(struct manager *m)
{
	return m->conflict;
}

const struct config *manager_get_config(struct manager *m)
{
	return &m->config;
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
		if (strcmp(m->instances[k]->name, name) == 0) {
			return m->instances[k];
		}
	}
	return NULL;
}

struct mport *manager_find_port(const struct manager *m, const char *ifname)
{
	for (size_t k = 0; k < m->n_ports; k++) {
		if (strcmp(m->ports[k]->ifname, ifname) == 0) {
			return m->ports[k];
		}
	}
	return NULL;
}

int manager_reload(struct manager *m, char **errors)
{
	printf("call reload\n");
	if (m->reload_invalid) {
		if (errors) {
			*errors = strdup("/etc/phcd/phcd.conf:3: unknown key 'bogus'\n");
		}
		return -EINVAL;
	}
	HOOK(m, manager_changed, MANAGER_CHANGED_CONFIG);
	return 0;
}

static int set_priority(struct instance *i, uint8_t *field, uint8_t v, int which)
{
	printf("call set-priority%d %s %u\n", which, i->name, v);
	*field = v;
	HOOK(i->manager, instance_changed, i, INSTANCE_CHANGED_CONFIG);
	return 0;
}

int instance_set_priority1(struct instance *i, uint8_t priority1)
{
	return set_priority(i, &i->priority1, priority1, 1);
}

int instance_set_priority2(struct instance *i, uint8_t priority2)
{
	return set_priority(i, &i->priority2, priority2, 2);
}

int instance_set_gm_settings(struct instance *i, const struct gm_settings *s)
{
	printf("call set-grandmaster-settings %s %u\n", i->name, s->clockQuality.clockClass);
	i->clock_quality = s->clockQuality;
	HOOK(i->manager, instance_changed, i, INSTANCE_CHANGED_CONFIG);
	return 0;
}

/* The fake instances span one PHC each: no followers. */
size_t instance_followers(const struct instance *i, struct instance_follower_info *ret, size_t max)
{
	(void) i;
	(void) ret;
	(void) max;
	return 0;
}

/* The fake instances feed no chronyd. */
bool refclock_feed_info(const struct instance *i, struct refclock_info *ret)
{
	(void) i;
	*ret = (struct refclock_info){ .address = "", .state_name = "", .reason = "" };
	return false;
}

static void port_set_state(struct mport *p, enum port_state st, unsigned int extra)
{
	p->state = st;
	HOOK(p->manager, port_changed, p, MPORT_CHANGED_STATE | extra);
}

int mport_enable(struct mport *p)
{
	printf("call enable %s\n", p->ifname);
	p->enabled = true;
	p->worker_pid = p->manager->next_pid++;
	port_set_state(p, PORT_STATE_LISTENING, MPORT_CHANGED_WORKER);
	return 0;
}

int mport_disable(struct mport *p)
{
	printf("call disable %s\n", p->ifname);
	p->enabled = false;
	p->worker_pid = 0;
	port_set_state(p, PORT_STATE_DISABLED, MPORT_CHANGED_WORKER);
	return 0;
}

int mport_restart(struct mport *p)
{
	printf("call restart %s\n", p->ifname);
	if (!p->enabled) {
		return -ESHUTDOWN;
	}
	p->worker_pid = p->manager->next_pid++;
	p->restarts++;
	port_set_state(p, PORT_STATE_LISTENING, MPORT_CHANGED_WORKER);
	return 0;
}

const char *mport_timestamping_to_string(enum transport_ts_mode mode)
{
	return mode == TRANSPORT_TS_MODE_HARDWARE ? "hardware" : "software";
}

static void add_instance(struct manager *m, const char *name)
{
	struct instance *i = calloc(1, sizeof(*i));

	if (!i || m->n_instances == FAKE_MAX) {
		abort();
	}
	snprintf(i->name, sizeof(i->name), "%s", name);
	i->manager = m;
	i->domain = (uint8_t) m->n_instances;
	snprintf(i->profile, sizeof(i->profile), "default");
	i->clock_identity.id[7] = (uint8_t) (m->n_instances + 1);
	i->grandmaster_identity = i->clock_identity;
	i->priority1 = i->priority2 = 128;
	i->clock_quality = (struct ClockQuality){ 248, 0xFE, 0xFFFF };
	i->clock_backend = OPTIONS_CLOCK_VIRTUAL;
	i->time_properties.currentUtcOffset = 37;
	i->time_properties.timeSource = TIME_SOURCE_INTERNAL_OSCILLATOR;
	m->instances[m->n_instances++] = i;
	HOOK(m, instance_added, i);
}

static void add_port(struct manager *m, const char *ifname, const char *inst)
{
	struct instance *i = manager_find_instance(m, inst);
	struct mport *p = calloc(1, sizeof(*p));

	if (!i || !p || m->n_ports == FAKE_MAX) {
		printf("error: no instance %s\n", inst);
		free(p);
		return;
	}
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	p->instance = i;
	p->manager = m;
	p->port_identity.clockIdentity = i->clock_identity;
	p->port_identity.portNumber = (uint16_t) (m->n_ports + 1);
	p->delay_mechanism = DELAY_MECHANISM_E2E;
	options_port_defaults(&p->options);
	p->state = PORT_STATE_LISTENING;
	p->listening_since_usec = 1; /* long before FAKE_NOW: every boot gate is open */
	p->enabled = true;
	p->timestamping = TRANSPORT_TS_MODE_SOFTWARE;
	p->phc_index = -1;
	p->ifindex = (int) m->n_ports + 2;
	p->link_up = true;
	p->as_capable = true; /* as a worker reports on every port but a gPTP one not yet capable */
	p->worker_pid = m->next_pid++;
	m->ports[m->n_ports++] = p;
	HOOK(m, port_added, p);
}

static void remove_port(struct manager *m, size_t k)
{
	struct mport *p = m->ports[k];

	HOOK(m, port_removed, p);
	memmove(&m->ports[k], &m->ports[k + 1], (m->n_ports - k - 1) * sizeof(p));
	m->n_ports--;
	free(p);
}

static void remove_instance(struct manager *m, struct instance *i)
{
	for (size_t k = m->n_ports; k > 0; k--) {
		if (m->ports[k - 1]->instance == i) {
			remove_port(m, k - 1);
		}
	}
	for (size_t k = 0; k < m->n_instances; k++) {
		if (m->instances[k] == i) {
			HOOK(m, instance_removed, i);
			memmove(&m->instances[k], &m->instances[k + 1],
				(m->n_instances - k - 1) * sizeof(i));
			m->n_instances--;
			free(i->health);
			free(i);
			return;
		}
	}
}

/*
 * The readiness verdict, as the supervisor's derive pass computes it (daemon/readiness.c), from
 * the stand-in's state: its ports listened long ago, so every boot gate is open.
 */
static void fake_readiness(struct manager *m)
{
	struct mport *ports[FAKE_MAX];
	uint64_t opens;
	struct readiness r;

	for (size_t k = 0; k < m->n_instances; k++) {
		struct instance *i = m->instances[k];
		size_t n = 0;

		for (size_t j = 0; j < m->n_ports; j++) {
			if (m->ports[j]->instance == i) {
				ports[n++] = m->ports[j];
			}
		}
		if (readiness_of_instance(i, ports, n, NULL, FAKE_NOW, &r, &opens) == 0 &&
		    !readiness_equal(&r, &i->readiness)) {
			i->readiness = r;
			HOOK(m, instance_changed, i, INSTANCE_CHANGED_READY);
		}
	}
	readiness_daemon(m->instances, m->n_instances, m->config.daemon.system_clock_instance,
			 manager_system_clock_synchronized(m), m->conflict, &r);
	if (!readiness_equal(&r, &m->readiness)) {
		m->readiness = r;
		HOOK(m, manager_changed, MANAGER_CHANGED_READY);
	}
}

/* One command line from the test; see the usage in tests/integration/test-dbus.sh. */
static void command(struct manager *m, char *line)
{
	char a[64] = "", b[64] = "", c[64] = "";
	long long x = 0, y = 0;
	double d = 0;
	enum port_state st;
	struct instance *i;
	struct mport *p;
	int n = sscanf(line, "%63s %63s %63s", a, b, c);

	if (n <= 0) {
		return;
	}
	i = manager_find_instance(m, b);
	p = manager_find_port(m, b);
	if (strcmp(a, "instance") == 0 && n == 2) {
		add_instance(m, b);
	} else if (strcmp(a, "port") == 0 && n == 3) {
		add_port(m, b, c);
	} else if (strcmp(a, "state") == 0 && p && port_state_from_string(c, &st) == 0) {
		port_set_state(p, st, 0);
	} else if (strcmp(a, "sample") == 0 && i &&
		   sscanf(line, "%*s %*s %lld %lld %lf", &x, &y, &d) == 3) {
		i->offset_ns = x;
		i->mean_path_delay_ns = y;
		i->freq_ppb = d;
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_SAMPLE);
	} else if (strcmp(a, "servo") == 0 && i &&
		   servo_state_from_string(c, &i->servo_state) == 0) {
		i->synchronized = i->servo_state == SERVO_LOCKED;
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_SERVO);
	} else if (strcmp(a, "gm") == 0 && i &&
		   clock_identity_from_string(c, &i->grandmaster_identity) == 0) {
		i->steps_removed = 1;
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_PARENT);
	} else if (strcmp(a, "gm-quality") == 0 && i &&
		   sscanf(line, "%*s %*s %lld %lld %lf", &x, &y, &d) == 3) {
		/* gm-quality INSTANCE PRIORITY1 PRIORITY2 CLOCKCLASS */
		i->parent.grandmasterPriority1 = (uint8_t) x;
		i->parent.grandmasterPriority2 = (uint8_t) y;
		i->parent.grandmasterClockQuality = (struct ClockQuality){ (uint8_t) d, 0x21,
									   0x4e5d };
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_PARENT);
	} else if (strcmp(a, "sample-time") == 0 && i &&
		   sscanf(line, "%*s %*s %lld %lld", &x, &y) == 2) {
		i->sample_realtime_usec = (uint64_t) x;
		i->sample_monotonic_usec = (uint64_t) y;
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_SAMPLE);
	} else if (strcmp(a, "stats") == 0 && i &&
		   sscanf(line, "%*s %*s %lld %lld %lf", &x, &y, &d) == 3) {
		/* stats INSTANCE COUNT MEAN RMS: max is twice the rms, a window of 1 s */
		i->stats = (struct instance_offset_stats){ (uint32_t) x, y,
							   (uint64_t) d, 2 * (uint64_t) d,
							   1000000,	 UINT64_C(1764547201000000),
							   13345678 };
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_STATS);
	} else if (strcmp(a, "health") == 0 && n >= 2) {
		/* health INSTANCE|manager ok|degraded|failed [CODE TEXT...]: one reason or none */
		struct health_report report, *h = i ? &report : &m->health;
		int at = 0;

		if (!i && strcmp(b, "manager")) {
			printf("error: bad command: %s\n", line);
			return;
		}
		memset(h, 0, sizeof(*h));
		h->level = strcmp(c, "failed") == 0	? HEALTH_FAILED
			   : strcmp(c, "degraded") == 0 ? HEALTH_DEGRADED
							: HEALTH_OK;
		if (sscanf(line, "%*s %*s %*s %31s %n", h->reasons[0].code, &at) == 1 && at) {
			snprintf(h->reasons[0].text, sizeof(h->reasons[0].text), "%s", line + at);
			h->n_reasons = 1;
		}
		if (i) {
			/* Kept as phcd keeps it (health_keep(): the reasons it has, at most one
			 * here). */
			free(i->health);
			i->health = malloc(sizeof(*i->health) + sizeof(i->health->reasons[0]));
			if (!i->health) {
				abort();
			}
			i->health->level = h->level;
			i->health->n_reasons = h->n_reasons;
			i->health->reasons[0] = h->reasons[0];
			HOOK(m, instance_changed, i, INSTANCE_CHANGED_HEALTH);
		} else {
			HOOK(m, manager_changed, MANAGER_CHANGED_HEALTH);
		}
	} else if (strcmp(a, "interfaces") == 0 && i && n >= 2) {
		/* interfaces INSTANCE [IFNAME...]: its configured `interfaces` (none: auto) */
		struct interface_selection *sel = &i->options.interfaces;
		char *save = NULL, *t;

		memset(sel, 0, sizeof(*sel));
		sel->auto_select = n == 2;
		strtok_r(line, " \n", &save);
		strtok_r(NULL, " \n", &save);
		while ((t = strtok_r(NULL, " \n", &save)) &&
		       sel->n_names < OPTIONS_INTERFACES_MAX) {
			snprintf(sel->names[sel->n_names++], IFNAMSIZ, "%s", t);
		}
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_CONFIG);
	} else if (strcmp(a, "grandmaster") == 0 && i && n == 3) {
		/* grandmaster INSTANCE 0|1: IsGrandmaster, as the supervisor derives it */
		i->is_grandmaster = strcmp(c, "1") == 0;
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_HEALTH);
	} else if (strcmp(a, "accuracy") == 0 && i) {
		i->clock_quality.clockAccuracy = (uint8_t) strtoul(c, NULL, 0);
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_CONFIG);
	} else if (strcmp(a, "time-source") == 0 && i) {
		i->time_properties.timeSource = (uint8_t) strtoul(c, NULL, 0);
		HOOK(m, instance_changed, i, INSTANCE_CHANGED_TIME_PROPERTIES);
	} else if (strcmp(a, "as-capable") == 0 && p && n == 3) {
		/* as-capable PORT 0|1 */
		p->as_capable = strcmp(c, "1") == 0;
		HOOK(m, port_changed, p, MPORT_CHANGED_STATE);
	} else if (strcmp(a, "link") == 0 && p && n == 3) {
		/* link PORT up|down */
		p->link_up = strcmp(c, "up") == 0;
		HOOK(m, port_changed, p, MPORT_CHANGED_LINK);
	} else if (strcmp(a, "counters") == 0 && p) {
		p->rx[0] += strtoull(c, NULL, 10);
		HOOK(m, port_changed, p, MPORT_CHANGED_COUNTERS);
	} else if (strcmp(a, "error") == 0 && p) {
		p->last_error = -ENETDOWN;
		snprintf(p->last_error_text, sizeof(p->last_error_text), "%s",
			 line + strlen(a) + strlen(b) + 2);
		HOOK(m, port_changed, p, MPORT_CHANGED_ERROR);
	} else if (strcmp(a, "rm-port") == 0 && p) {
		for (size_t k = 0; k < m->n_ports; k++) {
			if (m->ports[k] == p) {
				remove_port(m, k);
				break;
			}
		}
	} else if (strcmp(a, "rm-instance") == 0 && i) {
		remove_instance(m, i);
	} else if (strcmp(a, "reload-invalid") == 0 && n == 2) {
		m->reload_invalid = strcmp(b, "1") == 0;
	} else if (strcmp(a, "system-clock") == 0 && n == 2) {
		snprintf(m->config.daemon.system_clock_instance,
			 sizeof(m->config.daemon.system_clock_instance), "%s",
			 strcmp(b, "none") == 0 ? "" : b);
	} else if (strcmp(a, "system-clock-conflict") == 0 && n >= 2) {
		/* system-clock-conflict none|TEXT... */
		snprintf(m->conflict, sizeof(m->conflict), "%s",
			 strcmp(b, "none") == 0 ? "" : line + strlen(a) + 1);
		HOOK(m, manager_changed, MANAGER_CHANGED_SYSTEM_CLOCK);
	} else if (strcmp(a, "system-clock-locked") == 0 && n == 2) {
		m->sysclock_locked = strcmp(b, "1") == 0;
		HOOK(m, manager_changed, MANAGER_CHANGED_SYSTEM_CLOCK);
	} else if (strcmp(a, "polkit-pending") == 0) {
		printf("polkit-pending %zu\n", bus_polkit_pending(m->bus->polkit));
	} else if (strcmp(a, "quit") == 0) {
		sd_event_exit(m->event, 0);
		return;
	} else {
		printf("error: bad command: %s\n", line);
		return;
	}
	printf("ok %s\n", a);
}

static int on_stdin(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, stdin);

	if (n < 0) {
		free(line);
		return sd_event_exit(m->event, 0);
	}
	line[strcspn(line, "\n")] = '\0';
	command(m, line);
	fake_readiness(m);
	free(line);
	return 0;
}

int main(int argc, char **argv)
{
	static char *files[] = { "/etc/phcd/phcd.conf" };
	struct manager m = { .next_pid = 1000 };
	struct bus_server *bus = NULL;
	int r;

	log_setup("phcd");
	log_journal_setup();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Line by line: the io source fires per readable fd, so stdio must not read ahead. */
	setvbuf(stdin, NULL, _IONBF, 0);
	m.config.files = files;
	m.config.n_files = 1;
	m.config.daemon.logging_level = LOG_DEBUG; /* every line of dbus/ for the tests */
	r = sd_event_default(&m.event);
	if (r >= 0) {
		r = bus_server_new(&m, &bus);
		m.bus = bus;
	}
	if (r >= 0) {
		r = sd_event_add_io(m.event, NULL, STDIN_FILENO, EPOLLIN, on_stdin, &m);
	}
	if (r < 0) {
		fprintf(stderr, "tool-bus-fake: %s\n", strerror(-r));
		return 1;
	}
	printf("ready\n");
	r = sd_event_loop(m.event);
	bus = bus_server_free(bus);
	while (m.n_instances > 0) {
		remove_instance(&m, m.instances[0]);
	}
	sd_event_unref(m.event);
	return r < 0 ? 1 : 0;
}
