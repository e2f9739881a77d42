// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd-exporter's /metrics text from a model: phcd_up 0 alone, exact seconds from nanoseconds
 * (INT64_MIN included), label escaping, state sets, a port's instance label, counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exporter/exporter.h"

static void add_prop(struct object *o, const char *name, char type, int64_t i, const char *s)
{
	struct prop *p;

	o->props = realloc(o->props, (o->n_props + 1) * sizeof(*o->props));
	assert_non_null(o->props);
	p = &o->props[o->n_props++];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	p->type = type;
	if (type == 's' || type == 'o') {
		p->s = strdup(s);
	} else {
		p->i = i;
	}
}

static void add_counter(struct object *o, const char *name, uint64_t v)
{
	o->counters = realloc(o->counters, (o->n_counters + 1) * sizeof(*o->counters));
	assert_non_null(o->counters);
	o->counters[o->n_counters].name = strdup(name);
	o->counters[o->n_counters++].value = v;
}

static char *render(const struct model *m)
{
	size_t len;
	char *t = metrics_render(m, &len);

	assert_non_null(t);
	assert_int_equal(strlen(t), len);
	return t;
}

static void assert_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n') {
			return;
		}
		p++;
	}
	fail_msg("expected the line '%s' in:\n%s", line, text);
}

static void test_down_is_alone(void **state)
{
	struct model m = { 0 };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "OffsetFromMaster", 'x', 5, NULL);
	m.up = false;
	t = render(&m);
	assert_string_equal(t,
			    "# HELP phcd_up 1 when phcd owns org.phcd1 on the system bus and its "
			    "objects were read.\n# TYPE phcd_up gauge\nphcd_up 0\n");
	free(t);
	model_clear(&m);
}

static void test_seconds_exact(void **state)
{
	static const struct {
		int64_t ns;
		const char *line;
	} cases[] = {
		{ 0, "phcd_offset_seconds{ptp_instance=\"lab\"} 0.000000000" },
		{ -1500, "phcd_offset_seconds{ptp_instance=\"lab\"} -0.000001500" },
		{ 1234567890123, "phcd_offset_seconds{ptp_instance=\"lab\"} 1234.567890123" },
		{ INT64_MAX, "phcd_offset_seconds{ptp_instance=\"lab\"} 9223372036.854775807" },
		{ INT64_MIN, "phcd_offset_seconds{ptp_instance=\"lab\"} -9223372036.854775808" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct model m = { .up = true };
		struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
		char *t;

		add_prop(o, "Name", 's', 0, "lab");
		add_prop(o, "OffsetFromMaster", 'x', cases[i].ns, NULL);
		t = render(&m);
		assert_line(t, cases[i].line);
		free(t);
		model_clear(&m);
	}
}

static void test_labels_escaped(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/x", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "a\"b\\c\nd");
	add_prop(o, "StepsRemoved", 'q', 1, NULL);
	t = render(&m);
	assert_line(t, "phcd_steps_removed{ptp_instance=\"a\\\"b\\\\c\\nd\"} 1");
	free(t);
	model_clear(&m);
}

static void add_uc_row(struct object *o, const char *peer, const char *role, const char *message,
		       const char *state, int16_t period, uint32_t left)
{
	o->uc_rows = realloc(o->uc_rows, (o->n_uc_rows + 1) * sizeof(*o->uc_rows));
	assert_non_null(o->uc_rows);
	o->uc_rows[o->n_uc_rows++] = (struct uc_row){ strdup(peer),  strdup(role), strdup(message),
						      strdup(state), period,	   left };
}

/* A port's UnicastTable: seconds left, period and state per peer, role and message type. */
static void test_unicast_table(void **state)
{
	struct model m = { .up = true };
	struct object *i = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	struct object *p = model_get(&m, "/org/phcd1/port/s1", OBJECT_PORT);
	char *t;

	add_prop(i, "Name", 's', 0, "lab");
	add_prop(p, "Interface", 's', 0, "s1");
	add_prop(p, "Instance", 'o', 0, "/org/phcd1/instance/lab");
	t = render(&m);
	assert_null(strstr(t, "phcd_port_unicast_grant_seconds_left"));
	free(t);
	add_uc_row(p, "192.0.2.1", "grantee", "sync", "granted", -4, 57);
	add_uc_row(p, "fe80::1", "grantor", "announce", "cancelling", 1, 0);
	t = render(&m);
	assert_line(t, "# TYPE phcd_port_unicast_grant_seconds_left gauge");
	assert_line(t, "phcd_port_unicast_grant_seconds_left{ptp_instance=\"lab\",interface=\"s1\","
		       "peer=\"192.0.2.1\",role=\"grantee\",message=\"sync\"} 57");
	assert_line(t, "phcd_port_unicast_log_period{ptp_instance=\"lab\",interface=\"s1\","
		       "peer=\"192.0.2.1\",role=\"grantee\",message=\"sync\"} -4");
	assert_line(
		t,
		"phcd_port_unicast_state{ptp_instance=\"lab\",interface=\"s1\","
		"peer=\"fe80::1\",role=\"grantor\",message=\"announce\",state=\"cancelling\"} 1");
	assert_line(t, "phcd_port_unicast_grant_seconds_left{ptp_instance=\"lab\",interface=\"s1\","
		       "peer=\"fe80::1\",role=\"grantor\",message=\"announce\"} 0");
	free(t);
	model_clear(&m);
}

static void test_port_states_and_counters(void **state)
{
	struct model m = { .up = true };
	struct object *i = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	struct object *p = model_get(&m, "/org/phcd1/port/s1", OBJECT_PORT);
	struct object *q = model_get(&m, "/org/phcd1/port/s2", OBJECT_PORT);
	char *t;

	add_prop(i, "Name", 's', 0, "lab");
	add_prop(p, "Interface", 's', 0, "s1");
	add_prop(p, "Instance", 'o', 0, "/org/phcd1/instance/lab");
	add_prop(p, "State", 's', 0, "SLAVE");
	add_prop(p, "Restarts", 'u', 3, NULL);
	add_counter(p, "rx_sync", 42);
	add_counter(p, "ignored_own_frame", 7);
	add_counter(p, "rx_", 1); /* no type: not exported */
	add_counter(p, "peer_sockets_granted", 5);
	add_counter(p, "peer_refused_multicast", 2);
	add_prop(q, "Interface", 's', 0, "s2");
	add_prop(q, "Instance", 'o', 0, "/org/phcd1/instance/gone");
	add_prop(q, "State", 's', 0, "WEIRD");
	t = render(&m);
	assert_line(t, "phcd_port_state{ptp_instance=\"lab\",interface=\"s1\",state=\"SLAVE\"} 1");
	assert_line(t, "phcd_port_state{ptp_instance=\"lab\",interface=\"s1\",state=\"MASTER\"} 0");
	/* A state outside the list: its own sample; an unknown instance: an empty label. */
	assert_line(t, "phcd_port_state{ptp_instance=\"\",interface=\"s2\",state=\"WEIRD\"} 1");
	assert_line(t, "phcd_port_state{ptp_instance=\"\",interface=\"s2\",state=\"SLAVE\"} 0");
	assert_line(t, "phcd_port_worker_restarts_total{ptp_instance=\"lab\",interface=\"s1\"} 3");
	assert_line(t, "# TYPE phcd_port_worker_restarts_total counter");
	assert_line(t, "phcd_port_messages_received_total{ptp_instance=\"lab\",interface=\"s1\","
		       "type=\"sync\"} 42");
	assert_line(t, "phcd_port_frames_ignored_total{ptp_instance=\"lab\",interface=\"s1\","
		       "reason=\"own_frame\"} 7");
	assert_line(t, "phcd_port_peer_sockets_total{ptp_instance=\"lab\",interface=\"s1\","
		       "event=\"granted\"} 5");
	assert_line(t, "phcd_port_peer_refused_total{ptp_instance=\"lab\",interface=\"s1\","
		       "reason=\"multicast\"} 2");
	assert_null(strstr(t, "type=\"\""));
	/* Each family's HELP and TYPE once, before its samples. */
	assert_ptr_equal(strstr(t, "# TYPE phcd_port_state gauge"),
			 strstr(t, "# TYPE phcd_port_state "));
	assert_true(strstr(t, "# TYPE phcd_port_state gauge") < strstr(t, "phcd_port_state{"));
	free(t);
	model_clear(&m);
}

static void test_frequency_ratio(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	o->props = realloc(o->props, (o->n_props + 1) * sizeof(*o->props));
	o->props[o->n_props] = (struct prop){ .name = strdup("FrequencyAdjustment"),
					      .type = 'd',
					      .d = -250.5 };
	o->n_props++;
	t = render(&m);
	assert_line(t, "phcd_frequency_adjustment_ratio{ptp_instance=\"lab\"} -2.505e-07");
	free(t);
	model_clear(&m);
}

static void add_u64(struct object *o, const char *name, uint64_t v)
{
	o->props = realloc(o->props, (o->n_props + 1) * sizeof(*o->props));
	assert_non_null(o->props);
	o->props[o->n_props++] = (struct prop){ .name = strdup(name), .type = 't', .u = v };
}

/*
 * clock_servo refclock_sock: the state set and the last accepted time; without a feed (state "",
 * time 0) neither family appears, rather than a state "" or a time 0.
 */
static void test_refclock(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "RefclockState", 's', 0, "");
	add_u64(o, "RefclockLastAccepted", 0);
	t = render(&m);
	assert_null(strstr(t, "phcd_refclock"));
	free(t);
	model_clear(&m);

	o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	m.up = true;
	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "RefclockState", 's', 0, "refused");
	add_u64(o, "RefclockLastAccepted", 1700000000250000ULL);
	t = render(&m);
	assert_line(t, "phcd_refclock_state{ptp_instance=\"lab\",state=\"refused\"} 1");
	assert_line(t, "phcd_refclock_state{ptp_instance=\"lab\",state=\"sending\"} 0");
	assert_line(t, "phcd_refclock_last_accepted_timestamp_seconds{ptp_instance=\"lab\"} "
		       "1700000000.250000");
	free(t);
	model_clear(&m);
}

/* The clock mode as a state set; EstimatedTimeError -1 (free-run) is no sample, 0 is one. */
static void test_clock_mode(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "ClockMode", 's', 0, "free-run");
	add_prop(o, "EstimatedTimeError", 'x', -1, NULL);
	t = render(&m);
	assert_line(t, "phcd_clock_mode{ptp_instance=\"lab\",mode=\"free-run\"} 1");
	assert_line(t, "phcd_clock_mode{ptp_instance=\"lab\",mode=\"holdover\"} 0");
	assert_null(strstr(t, "phcd_estimated_time_error_seconds"));
	free(t);
	model_clear(&m);

	o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	m.up = true;
	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "ClockMode", 's', 0, "holdover");
	add_prop(o, "EstimatedTimeError", 'x', 1234, NULL);
	t = render(&m);
	assert_line(t, "phcd_clock_mode{ptp_instance=\"lab\",mode=\"holdover\"} 1");
	assert_line(t, "phcd_clock_mode{ptp_instance=\"lab\",mode=\"locked\"} 0");
	assert_line(t, "phcd_estimated_time_error_seconds{ptp_instance=\"lab\"} 0.000001234");
	free(t);
	model_clear(&m);
}

/* A grandmaster's time source: its kind as a state set, ok, its error bound (-1: no sample). */
static void test_reference(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "ReferenceSource", 's', 0, "system");
	add_prop(o, "ReferenceOk", 'b', 1, NULL);
	add_prop(o, "ReferenceMaxError", 'x', 2000000, NULL);
	add_u64(o, "ReferenceUpdated", 1700000000500000ULL);
	t = render(&m);
	assert_line(t, "phcd_reference_source{ptp_instance=\"lab\",source=\"system\"} 1");
	assert_line(t, "phcd_reference_source{ptp_instance=\"lab\",source=\"none\"} 0");
	assert_line(t, "phcd_reference_ok{ptp_instance=\"lab\"} 1");
	assert_line(t, "phcd_reference_max_error_seconds{ptp_instance=\"lab\"} 0.002000000");
	assert_line(t, "phcd_reference_updated_timestamp_seconds{ptp_instance=\"lab\"} "
		       "1700000000.500000");
	free(t);
	model_clear(&m);

	o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	m.up = true;
	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "ReferenceSource", 's', 0, "none");
	add_prop(o, "ReferenceMaxError", 'x', -1, NULL);
	add_u64(o, "ReferenceUpdated", 0);
	t = render(&m);
	assert_line(t, "phcd_reference_source{ptp_instance=\"lab\",source=\"none\"} 1");
	assert_null(strstr(t, "phcd_reference_max_error_seconds{"));
	assert_null(strstr(t, "phcd_reference_updated_timestamp_seconds{"));
	free(t);
	model_clear(&m);
}

/* OffsetTimestamp 0 is "no sample yet": no offset, delay or frequency sample at all, not a 0. */
static void test_no_measurement_no_sample(void **state)
{
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "OffsetFromMaster", 'x', 0, NULL);
	add_prop(o, "MeanPathDelay", 'x', 0, NULL);
	add_u64(o, "OffsetTimestamp", 0);
	add_u64(o, "OffsetStatisticsTimestamp", 0);
	add_prop(o, "OffsetStatisticsCount", 'u', 0, NULL);
	add_prop(o, "Synchronized", 'b', 0, NULL);
	add_prop(o, "Ready", 'b', 1, NULL);
	t = render(&m);
	assert_line(t, "phcd_ready{ptp_instance=\"lab\"} 1");
	assert_null(strstr(t, "phcd_offset_seconds"));
	assert_null(strstr(t, "phcd_mean_path_delay_seconds"));
	assert_null(strstr(t, "phcd_offset_timestamp_seconds"));
	assert_null(strstr(t, "phcd_offset_statistics_samples"));
	assert_line(t, "phcd_synchronized{ptp_instance=\"lab\"} 0");
	free(t);
	model_clear(&m);

	/* A sample measured at 1700000000.000042 s, statistics of a window of 1.000001 s. */
	o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	m.up = true;
	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "OffsetFromMaster", 'x', 0, NULL);
	add_u64(o, "OffsetTimestamp", 1700000000000042ULL);
	add_u64(o, "OffsetStatisticsTimestamp", 1700000000500000ULL);
	add_u64(o, "OffsetStatisticsRMS", 1234);
	add_u64(o, "OffsetStatisticsWindowUSec", 1000001);
	add_prop(o, "OffsetStatisticsMean", 'x', -17, NULL);
	t = render(&m);
	assert_line(t, "phcd_offset_seconds{ptp_instance=\"lab\"} 0.000000000");
	assert_line(t, "phcd_offset_timestamp_seconds{ptp_instance=\"lab\"} 1700000000.000042");
	assert_line(t, "phcd_offset_statistics_rms_seconds{ptp_instance=\"lab\"} 0.000001234");
	assert_line(t, "phcd_offset_statistics_mean_seconds{ptp_instance=\"lab\"} -0.000000017");
	assert_line(t, "phcd_offset_statistics_window_seconds{ptp_instance=\"lab\"} 1.000001");
	free(t);
	model_clear(&m);
}

/* HealthReasons by code: one sample per code, counting the reasons of that code. */
static void test_health_reasons(void **state)
{
	static const char *const codes[] = { "port-faulty", "no-grandmaster", "port-faulty" };
	struct model m = { .up = true };
	struct object *o = model_get(&m, "/org/phcd1/instance/lab", OBJECT_INSTANCE);
	struct object *mgr = model_get(&m, "/org/phcd1", OBJECT_MANAGER);
	char *t;

	add_prop(o, "Name", 's', 0, "lab");
	add_prop(o, "Health", 's', 0, "degraded");
	o->has_reasons = true;
	o->reasons = calloc(3, sizeof(char *));
	for (size_t i = 0; i < 3; i++) {
		o->reasons[o->n_reasons++] = strdup(codes[i]);
	}
	add_prop(mgr, "Health", 's', 0, "ok");
	add_prop(mgr, "Ready", 'b', 0, NULL);
	mgr->has_reasons = true;
	t = render(&m);
	assert_line(t, "phcd_daemon_ready 0");
	assert_line(t, "phcd_health{ptp_instance=\"lab\",health=\"degraded\"} 1");
	assert_line(t, "phcd_health{ptp_instance=\"lab\",health=\"ok\"} 0");
	assert_line(t, "phcd_health_reasons{ptp_instance=\"lab\",reason=\"port-faulty\"} 2");
	assert_line(t, "phcd_health_reasons{ptp_instance=\"lab\",reason=\"no-grandmaster\"} 1");
	/* Each code once. */
	assert_null(strstr(strstr(t, "reason=\"port-faulty\"") + 1, "reason=\"port-faulty\""));
	assert_line(t, "phcd_daemon_health{health=\"ok\"} 1");
	assert_null(strstr(t, "phcd_daemon_health_reasons"));
	free(t);
	model_clear(&m);
}

/* log2 intervals in seconds. */
static void test_intervals(void **state)
{
	struct model m = { .up = true };
	struct object *p = model_get(&m, "/org/phcd1/port/s1", OBJECT_PORT);
	char *t;

	add_prop(p, "Interface", 's', 0, "s1");
	add_prop(p, "LogSyncInterval", 'n', -3, NULL);
	add_prop(p, "LogAnnounceInterval", 'n', 1, NULL);
	add_u64(p, "AnnounceReceiptTimeoutUSec", 750000);
	t = render(&m);
	assert_line(t, "phcd_port_sync_interval_seconds{ptp_instance=\"\",interface=\"s1\"} 0.125");
	assert_line(t, "phcd_port_announce_interval_seconds{ptp_instance=\"\",interface=\"s1\"} 2");
	assert_line(
		t, "phcd_port_announce_receipt_timeout_seconds{ptp_instance=\"\",interface=\"s1\"} "
		   "0.750000");
	free(t);
	model_clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_down_is_alone),
		cmocka_unit_test(test_seconds_exact),
		cmocka_unit_test(test_labels_escaped),
		cmocka_unit_test(test_port_states_and_counters),
		cmocka_unit_test(test_frequency_ratio),
		cmocka_unit_test(test_no_measurement_no_sample),
		cmocka_unit_test(test_refclock),
		cmocka_unit_test(test_clock_mode),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_health_reasons),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_unicast_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
