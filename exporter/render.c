// SPDX-License-Identifier: GPL-2.0-or-later
/* /metrics: the cached org.phcd1 objects in the Prometheus text format, in base units. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/bus-names.h"
#include "exporter/exporter.h"

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

__attribute__((format(printf, 2, 3))) static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom) {
		return;
	}
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->p && (size_t) n < b->cap - b->len) {
			b->len += (size_t) n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 16384;
		while (cap < b->len + (size_t) n + 1) {
			cap *= 2;
		}
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

/* A label value as the text format wants it: backslash, double quote and newline escaped. */
static void buf_label(struct buf *b, const char *name, const char *value, bool first)
{
	buf_printf(b, "%s%s=\"", first ? "" : ",", name);
	for (const char *c = value ? value : ""; *c; c++) {
		if (*c == '\\' || *c == '"') {
			buf_printf(b, "\\%c", *c);
		} else if (*c == '\n') {
			buf_printf(b, "\\n");
		} else {
			buf_printf(b, "%c", *c);
		}
	}
	buf_printf(b, "\"");
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void buf_double(struct buf *b, double v)
{
	if (isnan(v)) {
		buf_printf(b, "NaN");
	} else if (isinf(v)) {
		buf_printf(b, v > 0 ? "+Inf" : "-Inf");
	} else {
		buf_printf(b, "%.15g", v);
	}
}

/* Nanoseconds as exact decimal seconds. */
static void buf_ns(struct buf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t) ns : (uint64_t) ns;

	buf_printf(b, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", a / 1000000000u,
		   a % 1000000000u);
}

static const char *instance_name(const struct object *o)
{
	const char *n = object_string(o, "Name");

	return n ? n : o->path;
}

/* The instance a port belongs to, by its Instance property. */
static const char *port_instance(const struct model *m, const struct object *port)
{
	const char *path = object_string(port, "Instance");
	const struct object *i = path ? model_find(m, path) : NULL;

	return i ? instance_name(i) : "";
}

static const char *port_name(const struct object *o)
{
	const char *n = object_string(o, "Interface");

	return n ? n : o->path;
}

/* The label set {ptp_instance="..."[,interface="..."]} of an object, left open for more. */
static void labels_open(struct buf *b, const struct model *m, const struct object *o,
			const char *metric)
{
	buf_printf(b, "%s{", metric);
	if (o->kind == OBJECT_PORT) {
		buf_label(b, "ptp_instance", port_instance(m, o), true);
		buf_label(b, "interface", port_name(o), false);
	} else {
		buf_label(b, "ptp_instance", instance_name(o), true);
	}
}

enum value_kind {
	VALUE_PLAIN,
	VALUE_NS,   /* nanoseconds, shown in seconds */
	VALUE_US,   /* microseconds (systemd's timestamps and spans), shown in seconds */
	VALUE_PPB,  /* parts per billion, shown as a ratio */
	VALUE_LOG2, /* log2 seconds (a PTP message interval), shown in seconds */
};

struct numeric {
	const char *metric, *type, *help, *property;
	enum value_kind kind;
	/* When the object has this property and it is 0, the metric has no sample: phcd says so
	 * when a value is no measurement at all (OffsetTimestamp 0: no sample yet). */
	const char *gate;
	/* A negative value is no measurement (EstimatedTimeError -1 in free-run): no sample. */
	bool no_negative;
};

static void put_value(struct buf *b, const struct prop *p, enum value_kind kind)
{
	double v = p->type == 'd' ? p->d : p->type == 't' ? (double) p->u : (double) p->i;

	switch (kind) {
	case VALUE_NS:
		if (p->type == 't') {
			buf_printf(b, "%" PRIu64 ".%09" PRIu64, p->u / 1000000000u,
				   p->u % 1000000000u);
		} else if (p->type == 'd') {
			buf_double(b, v / 1e9);
		} else {
			buf_ns(b, p->i);
		}
		return;
	case VALUE_US:
		if (p->type == 't') {
			buf_printf(b, "%" PRIu64 ".%06" PRIu64, p->u / 1000000u, p->u % 1000000u);
		} else {
			buf_double(b, v / 1e6);
		}
		return;
	case VALUE_PPB:
		buf_double(b, v / 1e9);
		return;
	case VALUE_LOG2:
		/* portDS intervals are int8 on the wire; clamp anything else to that range. */
		buf_double(b, ldexp(1.0, v < -128 ? -128 : v > 127 ? 127 : (int) v));
		return;
	case VALUE_PLAIN:
		break;
	}
	if (p->type == 't') {
		buf_printf(b, "%" PRIu64, p->u);
	} else if (p->type == 'd') {
		buf_double(b, v);
	} else {
		buf_printf(b, "%" PRId64, p->i);
	}
}

static void numeric_family(struct buf *b, const struct model *m, enum object_kind kind,
			   const struct numeric *n)
{
	bool head = false;
	double v, g;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != kind || !object_number(o, n->property, &v)) {
			continue;
		}
		if ((n->gate && object_number(o, n->gate, &g) && g == 0) ||
		    (n->no_negative && v < 0)) {
			continue;
		}
		if (!head) {
			family(b, n->metric, n->type, n->help);
			head = true;
		}
		labels_open(b, m, o, n->metric);
		buf_printf(b, "} ");
		put_value(b, object_prop(o, n->property), n->kind);
		buf_printf(b, "\n");
	}
}

/* An enum as a state set: one sample per known value, 1 for the current one. A value outside
 * the list gets a sample of its own, so nothing is hidden. */
static void stateset_family(struct buf *b, const struct model *m, enum object_kind kind,
			    const char *metric, const char *help, const char *property,
			    const char *label, const char *const *values)
{
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];
		const char *cur = object_string(o, property);
		bool known = false;

		/* "": the property does not apply to this object (RefclockState without a feed) */
		if (o->kind != kind || !cur || !*cur) {
			continue;
		}
		if (!head) {
			family(b, metric, "gauge", help);
			head = true;
		}
		for (const char *const *v = values; *v; v++) {
			labels_open(b, m, o, metric);
			buf_label(b, label, *v, false);
			buf_printf(b, "} %d\n", strcmp(cur, *v) == 0);
			known |= strcmp(cur, *v) == 0;
		}
		if (!known) {
			labels_open(b, m, o, metric);
			buf_label(b, label, cur, false);
			buf_printf(b, "} 1\n");
		}
	}
}

/* Counters of one prefix: rx_sync -> metric{type="sync"}. */
static void counter_family(struct buf *b, const struct model *m, const char *metric,
			   const char *help, const char *prefix, const char *label)
{
	size_t plen = strlen(prefix);
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != OBJECT_PORT) {
			continue;
		}
		for (size_t j = 0; j < o->n_counters; j++) {
			const struct counter *c = &o->counters[j];

			if (strncmp(c->name, prefix, plen) != 0 || !c->name[plen]) {
				continue;
			}
			if (!head) {
				family(b, metric, "counter", help);
				head = true;
			}
			labels_open(b, m, o, metric);
			buf_label(b, label, c->name + plen, false);
			buf_printf(b, "} %" PRIu64 "\n", c->value);
		}
	}
}

/*
 * A port's UnicastTable: per peer, role and message type, the grant's seconds left and its
 * logInterMessagePeriod (gauges), and its state (1 for the current one, as a label).
 */
static void unicast_family(struct buf *b, const struct model *m, const char *metric,
			   const char *type, const char *help, int what)
{
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		for (size_t j = 0; o->kind == OBJECT_PORT && j < o->n_uc_rows; j++) {
			const struct uc_row *u = &o->uc_rows[j];

			if (!head) {
				family(b, metric, type, help);
				head = true;
			}
			labels_open(b, m, o, metric);
			buf_label(b, "peer", u->peer, false);
			buf_label(b, "role", u->role, false);
			buf_label(b, "message", u->message, false);
			if (what == 2) {
				buf_label(b, "state", u->state, false);
			}
			buf_printf(b, "} %" PRId64 "\n",
				   what == 0   ? (int64_t) u->seconds_left
				   : what == 1 ? (int64_t) u->log_period
					       : 1);
		}
	}
}

static const char *const servo_states[] = { "unlocked", "jump", "locked", "holdover", NULL };
static const char *const clock_modes[] = { "free-run", "locked", "holdover", "holdover-out-of-spec",
					   NULL };
static const char *const port_states[] = { "INITIALIZING", "FAULTY", "DISABLED", "LISTENING",
					   "PRE_MASTER",   "MASTER", "PASSIVE",	 "UNCALIBRATED",
					   "SLAVE",	   NULL };
static const char *const ts_modes[] = { "hardware", "software", NULL };
static const char *const health_states[] = { "ok", "degraded", "failed", NULL };
static const char *const refclock_states[] = { "idle", "sending", "refused", NULL };
static const char *const reference_sources[] = { "none", "system", "gnss", NULL };

#define OFFSET_GATE "OffsetTimestamp"
#define STATS_GATE "OffsetStatisticsTimestamp"

static const struct numeric instance_numerics[] = {
	{ "phcd_offset_seconds", "gauge",
	  "Offset of the instance's clock from its master (currentDS.offsetFromMaster), the last "
	  "sample.",
	  "OffsetFromMaster", VALUE_NS, OFFSET_GATE },
	{ "phcd_mean_path_delay_seconds", "gauge",
	  "Mean path delay to the master (currentDS.meanDelay), the last sample.", "MeanPathDelay",
	  VALUE_NS, OFFSET_GATE },
	{ "phcd_frequency_adjustment_ratio", "gauge",
	  "The servo's frequency correction as a ratio (1e-9 is 1 ppb).", "FrequencyAdjustment",
	  VALUE_PPB, OFFSET_GATE },
	{ "phcd_estimated_time_error_seconds", "gauge",
	  "The clock mode's estimated time error (EstimatedTimeError): 0 while locked, growing in "
	  "holdover; no sample in free-run.",
	  "EstimatedTimeError", VALUE_NS, NULL, true },
	{ "phcd_offset_timestamp_seconds", "gauge",
	  "When the last offset was measured (Unix time): time() minus this is its age.",
	  "OffsetTimestamp", VALUE_US, OFFSET_GATE },
	{ "phcd_offset_statistics_samples", "gauge",
	  "Offsets in the last closed statistics window (summary_interval).",
	  "OffsetStatisticsCount", VALUE_PLAIN, STATS_GATE },
	{ "phcd_offset_statistics_mean_seconds", "gauge",
	  "Mean offset over the last statistics window.", "OffsetStatisticsMean", VALUE_NS,
	  STATS_GATE },
	{ "phcd_offset_statistics_rms_seconds", "gauge",
	  "Root mean square of the offsets over the last statistics window (ptp4l's rms).",
	  "OffsetStatisticsRMS", VALUE_NS, STATS_GATE },
	{ "phcd_offset_statistics_max_seconds", "gauge",
	  "Largest absolute offset over the last statistics window (ptp4l's max).",
	  "OffsetStatisticsMax", VALUE_NS, STATS_GATE },
	{ "phcd_offset_statistics_window_seconds", "gauge", "Length of the last statistics window.",
	  "OffsetStatisticsWindowUSec", VALUE_US, STATS_GATE },
	{ "phcd_offset_statistics_timestamp_seconds", "gauge",
	  "When the last statistics window closed (Unix time).", "OffsetStatisticsTimestamp",
	  VALUE_US, STATS_GATE },
	{ "phcd_synchronized", "gauge", "1 when a SLAVE port's servo is locked.", "Synchronized",
	  VALUE_PLAIN, NULL },
	{ "phcd_refclock_last_accepted_timestamp_seconds", "gauge",
	  "When chronyd's refclock socket last accepted a sample of the instance (Unix time): "
	  "time() minus this is its age.",
	  "RefclockLastAccepted", VALUE_US, "RefclockLastAccepted" },
	{ "phcd_reference_ok", "gauge",
	  "1 when the grandmaster's own time source (time_source) is good and the clock on it "
	  "(ReferenceOk).",
	  "ReferenceOk", VALUE_PLAIN, NULL },
	{ "phcd_reference_max_error_seconds", "gauge",
	  "The time source's own bound on its error in its last report (ReferenceMaxError); no "
	  "sample when it gives none.",
	  "ReferenceMaxError", VALUE_NS, NULL, true },
	{ "phcd_reference_updated_timestamp_seconds", "gauge",
	  "When the time source last reported (Unix time): time() minus this is its age.",
	  "ReferenceUpdated", VALUE_US, "ReferenceUpdated" },
	{ "phcd_ready", "gauge",
	  "1 when phcd calls the instance ready (Ready: synchronized, or the grandmaster past its "
	  "boot gate, or without ports): what phcctl wait-sync waits for.",
	  "Ready", VALUE_PLAIN, NULL },
	{ "phcd_configured_grandmaster", "gauge",
	  "1 when the instance is the grandmaster by configuration (clockClass below 128, or "
	  "masterOnly on every port): it never follows another clock (ConfiguredGrandmaster).",
	  "ConfiguredGrandmaster", VALUE_PLAIN, NULL },
	{ "phcd_is_grandmaster", "gauge",
	  "1 when the instance is the grandmaster of its domain (a port MASTER, no better clock).",
	  "IsGrandmaster", VALUE_PLAIN, NULL },
	{ "phcd_clock_class", "gauge", "clockQuality.clockClass of the instance (255: slave-only).",
	  "ClockClass", VALUE_PLAIN, NULL },
	{ "phcd_steps_removed", "gauge",
	  "currentDS.stepsRemoved: links between here and the grandmaster.", "StepsRemoved",
	  VALUE_PLAIN, NULL },
	{ "phcd_priority1", "gauge", "priority1 of the instance.", "Priority1", VALUE_PLAIN, NULL },
	{ "phcd_priority2", "gauge", "priority2 of the instance.", "Priority2", VALUE_PLAIN, NULL },
	{ "phcd_domain", "gauge", "domainNumber of the instance.", "Domain", VALUE_PLAIN, NULL },
	{ "phcd_grandmaster_priority1", "gauge", "parentDS.grandmasterPriority1.",
	  "GrandmasterPriority1", VALUE_PLAIN, NULL },
	{ "phcd_grandmaster_priority2", "gauge", "parentDS.grandmasterPriority2.",
	  "GrandmasterPriority2", VALUE_PLAIN, NULL },
	{ "phcd_grandmaster_clock_class", "gauge", "The grandmaster's clockQuality.clockClass.",
	  "GrandmasterClockClass", VALUE_PLAIN, NULL },
	{ "phcd_grandmaster_offset_scaled_log_variance", "gauge",
	  "The grandmaster's clockQuality.offsetScaledLogVariance.",
	  "GrandmasterOffsetScaledLogVariance", VALUE_PLAIN, NULL },
};

static const struct numeric port_numerics[] = {
	{ "phcd_port_enabled", "gauge", "0 after Disable() until Enable().", "Enabled", VALUE_PLAIN,
	  NULL },
	{ "phcd_port_link_up", "gauge", "1 when the interface is up with carrier.", "LinkUp",
	  VALUE_PLAIN, NULL },
	{ "phcd_port_phc_index", "gauge", "N of /dev/ptpN of the port, -1 without a PHC.",
	  "PhcIndex", VALUE_PLAIN, NULL },
	{ "phcd_port_worker_restarts_total", "counter",
	  "How many times phcd restarted the port's worker.", "Restarts", VALUE_PLAIN, NULL },
	{ "phcd_port_last_error_code", "gauge", "The errno behind the port's last error (0: none).",
	  "LastErrorCode", VALUE_PLAIN, NULL },
	{ "phcd_port_announce_interval_seconds", "gauge", "portDS.logAnnounceInterval.",
	  "LogAnnounceInterval", VALUE_LOG2, NULL },
	{ "phcd_port_sync_interval_seconds", "gauge", "portDS.logSyncInterval.", "LogSyncInterval",
	  VALUE_LOG2, NULL },
	{ "phcd_port_min_delay_req_interval_seconds", "gauge", "portDS.logMinDelayReqInterval.",
	  "LogMinDelayReqInterval", VALUE_LOG2, NULL },
	{ "phcd_port_min_pdelay_req_interval_seconds", "gauge", "portDS.logMinPdelayReqInterval.",
	  "LogMinPdelayReqInterval", VALUE_LOG2, NULL },
	{ "phcd_port_announce_receipt_timeout_seconds", "gauge",
	  "How long a silent master stays chosen (announceReceiptTimeout intervals).",
	  "AnnounceReceiptTimeoutUSec", VALUE_US, NULL },
};

/* Health reasons by code, one sample per code with how many reasons have it (a port-faulty
 * reason comes once per port). */
static void reasons_family(struct buf *b, const struct model *m, enum object_kind kind,
			   const char *metric, const char *help)
{
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != kind || !o->has_reasons) {
			continue;
		}
		for (size_t j = 0; j < o->n_reasons; j++) {
			unsigned n = 0;
			bool seen = false;

			for (size_t k = 0; k < o->n_reasons; k++) {
				seen |= k < j && strcmp(o->reasons[k], o->reasons[j]) == 0;
				n += strcmp(o->reasons[k], o->reasons[j]) == 0;
			}
			if (seen) {
				continue;
			}
			if (!head) {
				family(b, metric, "gauge", help);
				head = true;
			}
			if (kind == OBJECT_MANAGER) {
				buf_printf(b, "%s{", metric);
				buf_label(b, "reason", o->reasons[j], true);
			} else {
				labels_open(b, m, o, metric);
				buf_label(b, "reason", o->reasons[j], false);
			}
			buf_printf(b, "} %u\n", n);
		}
	}
}

static void instance_info(struct buf *b, const struct model *m)
{
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != OBJECT_INSTANCE) {
			continue;
		}
		if (!head) {
			family(b, "phcd_grandmaster_info", "gauge",
			       "The instance's grandmaster and parent port (parentDS), value 1.");
			head = true;
		}
		labels_open(b, m, o, "phcd_grandmaster_info");
		buf_label(b, "grandmaster_identity", object_string(o, "GrandmasterIdentity"),
			  false);
		buf_label(b, "parent_port_identity", object_string(o, "ParentPortIdentity"), false);
		buf_label(b, "clock_accuracy", object_string(o, "GrandmasterClockAccuracy"), false);
		buf_printf(b, "} 1\n");
	}
	head = false;
	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != OBJECT_INSTANCE) {
			continue;
		}
		if (!head) {
			family(b, "phcd_instance_info", "gauge",
			       "The instance's identity and configuration, value 1.");
			head = true;
		}
		labels_open(b, m, o, "phcd_instance_info");
		buf_label(b, "clock_identity", object_string(o, "ClockIdentity"), false);
		buf_label(b, "profile", object_string(o, "Profile"), false);
		buf_label(b, "clock_backend", object_string(o, "ClockBackend"), false);
		buf_printf(b, "} 1\n");
	}
}

static void port_info(struct buf *b, const struct model *m)
{
	bool head = false;

	for (size_t i = 0; i < m->n_objects; i++) {
		const struct object *o = m->objects[i];

		if (o->kind != OBJECT_PORT) {
			continue;
		}
		if (!head) {
			family(b, "phcd_port_info", "gauge",
			       "The port's identity, delay mechanism and network transport, value "
			       "1.");
			head = true;
		}
		labels_open(b, m, o, "phcd_port_info");
		buf_label(b, "port_identity", object_string(o, "PortIdentity"), false);
		buf_label(b, "delay_mechanism", object_string(o, "DelayMechanism"), false);
		buf_label(b, "network_transport", object_string(o, "NetworkTransport"), false);
		buf_printf(b, "} 1\n");
	}
}

static void manager_metrics(struct buf *b, const struct model *m)
{
	const struct object *mgr = model_find(m, PHCD_BUS_PATH_MANAGER);
	const char *version;
	double v;

	if (!mgr) {
		return;
	}
	version = object_string(mgr, "Version");
	if (version) {
		family(b, "phcd_info", "gauge", "phcd's version, value 1.");
		buf_printf(b, "phcd_info{");
		buf_label(b, "version", version, true);
		buf_printf(b, "} 1\n");
	}
	if (object_number(mgr, "StartTimestamp", &v) && v) {
		family(b, "phcd_start_time_seconds", "gauge", "When phcd started (Unix time).");
		buf_printf(b, "phcd_start_time_seconds ");
		put_value(b, object_prop(mgr, "StartTimestamp"), VALUE_US);
		buf_printf(b, "\n");
	}
	if (object_string(mgr, "Health")) {
		const char *h = object_string(mgr, "Health");
		bool known = false;

		family(b, "phcd_daemon_health", "gauge",
		       "phcd's health summary (the worst of its instances'): 1 for the current "
		       "one.");
		for (const char *const *s = health_states; *s; s++) {
			buf_printf(b, "phcd_daemon_health{");
			buf_label(b, "health", *s, true);
			buf_printf(b, "} %d\n", strcmp(h, *s) == 0);
			known |= strcmp(h, *s) == 0;
		}
		if (!known) {
			buf_printf(b, "phcd_daemon_health{");
			buf_label(b, "health", h, true);
			buf_printf(b, "} 1\n");
		}
	}
	reasons_family(b, m, OBJECT_MANAGER, "phcd_daemon_health_reasons",
		       "Why phcd is not ok: reasons per code (HealthReasons), none when ok.");
	if (object_number(mgr, "Ready", &v)) {
		family(b, "phcd_daemon_ready", "gauge",
		       "1 when phcd is ready (Manager Ready): what phcctl wait-sync and so "
		       "time-sync.target wait for.");
		buf_printf(b, "phcd_daemon_ready %d\n", v != 0);
	}
	if (object_number(mgr, "SystemClockSynchronized", &v)) {
		family(b, "phcd_system_clock_synchronized", "gauge",
		       "1 when CLOCK_REALTIME is locked to its PTP instance (0 too when phcd does "
		       "not "
		       "steer it).");
		buf_printf(b, "phcd_system_clock_synchronized{");
		buf_label(b, "system_clock_instance", object_string(mgr, "SystemClockInstance"),
			  true);
		buf_printf(b, "} %d\n", v != 0);
	}
}

char *metrics_render(const struct model *m, size_t *ret_len)
{
	struct buf b = { 0 };

	family(&b, "phcd_up", "gauge",
	       "1 when phcd owns org.phcd1 on the system bus and its objects were read.");
	buf_printf(&b, "phcd_up %d\n", m->up);
	if (m->up) {
		manager_metrics(&b, m);
		for (size_t i = 0; i < sizeof(instance_numerics) / sizeof(*instance_numerics);
		     i++) {
			numeric_family(&b, m, OBJECT_INSTANCE, &instance_numerics[i]);
		}
		stateset_family(&b, m, OBJECT_INSTANCE, "phcd_servo_state",
				"The servo's state: 1 for the current one.", "ServoState", "state",
				servo_states);
		stateset_family(&b, m, OBJECT_INSTANCE, "phcd_clock_mode",
				"The clock mode (holdover): 1 for the current one.", "ClockMode",
				"mode", clock_modes);
		stateset_family(&b, m, OBJECT_INSTANCE, "phcd_reference_source",
				"The grandmaster's own time source (time_source): 1 for the "
				"configured one.",
				"ReferenceSource", "source", reference_sources);
		stateset_family(&b, m, OBJECT_INSTANCE, "phcd_health",
				"The instance's health summary: 1 for the current one.", "Health",
				"health", health_states);
		stateset_family(&b, m, OBJECT_INSTANCE, "phcd_refclock_state",
				"With clock_servo refclock_sock, the samples to chronyd: 1 for the "
				"current state.",
				"RefclockState", "state", refclock_states);
		reasons_family(&b, m, OBJECT_INSTANCE, "phcd_health_reasons",
			       "Why the instance is not ok: reasons per code (HealthReasons), none "
			       "when ok.");
		instance_info(&b, m);
		port_info(&b, m);
		stateset_family(&b, m, OBJECT_PORT, "phcd_port_state",
				"portDS.portState: 1 for the current one.", "State", "state",
				port_states);
		stateset_family(&b, m, OBJECT_PORT, "phcd_port_timestamping",
				"What the port's socket timestamps with: 1 for the current mode.",
				"TimestampingMode", "mode", ts_modes);
		for (size_t i = 0; i < sizeof(port_numerics) / sizeof(*port_numerics); i++) {
			numeric_family(&b, m, OBJECT_PORT, &port_numerics[i]);
		}
		counter_family(
			&b, m, "phcd_port_messages_received_total",
			"PTP messages received and handed to their handler, per messageType.",
			"rx_", "type");
		counter_family(&b, m, "phcd_port_messages_sent_total",
			       "PTP messages sent, per messageType.", "tx_", "type");
		counter_family(&b, m, "phcd_port_messages_dropped_total",
			       "Received messages dropped as malformed, per messageType.",
			       "dropped_", "type");
		counter_family(&b, m, "phcd_port_frames_ignored_total",
			       "Frames counted and never acted on, per reason.", "ignored_",
			       "reason");
		counter_family(&b, m, "phcd_port_peer_sockets_total",
			       "Pairs of unicast sockets the supervisor handed the port's workers "
			       "(granted) and they gave back (released).",
			       "peer_sockets_", "event");
		counter_family(&b, m, "phcd_port_peer_refused_total",
			       "Requests for unicast sockets the supervisor refused, per reason.",
			       "peer_refused_", "reason");
		counter_family(&b, m, "phcd_port_unicast_negotiation_total",
			       "Unicast negotiation (IEEE 1588-2019 16.1) events of the port, as "
			       "grantee and as grantor.",
			       "unicast_", "event");
		unicast_family(&b, m, "phcd_port_unicast_grant_seconds_left", "gauge",
			       "Seconds left of a unicast grant (IEEE 1588-2019 16.1), per peer, "
			       "role and message type; 0 unless granted.",
			       0);
		unicast_family(&b, m, "phcd_port_unicast_log_period", "gauge",
			       "logInterMessagePeriod asked for or granted, per peer, role and "
			       "message type.",
			       1);
		unicast_family(&b, m, "phcd_port_unicast_state", "gauge",
			       "Where the negotiation of a message type with a peer stands: 1 for "
			       "the current state (requested, denied, granted, cancelling).",
			       2);
	}
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*ret_len = b.len;
	return b.p;
}
