// SPDX-License-Identifier: GPL-2.0-or-later
/* org.phcd1.Port at /org/phcd1/port/<escaped ifname>: one interface in one instance. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/time-util.h"
#include "dbus/bus-internal.h"
#include "ptp/hwtstamp.h"
#include "ptp/msg.h"
#include "ptp/port.h"

static int find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
		sd_bus_error *error)
{
	struct bus_server *s = userdata;
	_cleanup_free_ char *ifname = NULL;
	struct mport *p;
	int r;

	r = sd_bus_path_decode(path, PHCD_BUS_PATH_PORTS, &ifname);
	if (r <= 0) {
		return r;
	}
	p = manager_find_port(s->manager, ifname);
	if (!p) {
		return 0;
	}
	*found = p;
	return 1;
}

static int path_at(struct manager *m, size_t k, char **ret)
{
	return bus_port_path(manager_port_at(m, k), ret);
}

static int enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
		     sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_enumerate_paths(s->manager, manager_port_count(s->manager), path_at, nodes);
}

static int get_instance(sd_bus *bus, const char *path, const char *interface, const char *property,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct mport *p = userdata;
	_cleanup_free_ char *ipath = NULL;
	int r = bus_instance_path(p->instance, &ipath);

	return r < 0 ? r : sd_bus_message_append_basic(reply, 'o', ipath);
}

static int get_state(sd_bus *bus, const char *path, const char *interface, const char *property,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const char *st = port_state_to_string(*(enum port_state *) userdata);

	return bus_append_valid_string(reply, st ? st : "UNKNOWN");
}

static int get_delay_mechanism(sd_bus *bus, const char *path, const char *interface,
			       const char *property, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error)
{
	const char *d = delay_mechanism_to_string(*(enum delay_mechanism *) userdata);

	return bus_append_valid_string(reply, d ? d : "unknown");
}

static int get_network_transport(sd_bus *bus, const char *path, const char *interface,
				 const char *property, sd_bus_message *reply, void *userdata,
				 sd_bus_error *error)
{
	const char *t = options_transport_to_string(*(enum options_transport *) userdata);

	return bus_append_valid_string(reply, t ? t : "unknown");
}

static int get_timestamping(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	const char *t = mport_timestamping_to_string(*(enum transport_ts_mode *) userdata);

	return bus_append_valid_string(reply, t ? t : "unknown");
}

static int get_rx_filter(sd_bus *bus, const char *path, const char *interface, const char *property,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return bus_append_valid_string(reply, hwtstamp_rx_filter_to_string(*(int *) userdata));
}

static int get_last_error_code(sd_bus *bus, const char *path, const char *interface,
			       const char *property, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error)
{
	/* Stored as -errno; shown as the positive errno, 0 for none. */
	int32_t code = -*(int *) userdata;

	return sd_bus_message_append_basic(reply, 'i', &code);
}

/*
 * The keys of Counters, built once: "rx_sync", "tx_delay_req" (per direction and PTP
 * messageType, "" for a type without a name), then "ignored_malformed", "ignored_other_domain",
 * ... (the engine's reasons, ptp/port.h). GetManagedObjects asks for them on every port.
 */
static struct {
	bool built;
	char msg[2][IPC_MSG_KINDS][64];
	char ignored[IPC_IGNORED_KINDS][64];
	char peer_refused[_PEER_POLICY_MAX][64];
	char unicast[IPC_UNICAST_KINDS][64];
} counter_keys;

static void build_counter_keys(void)
{
	static const char *const dirs[2] = { "rx", "tx" };

	for (unsigned int d = 0; d < 2; d++) {
		for (unsigned int t = 0; t < IPC_MSG_KINDS; t++) {
			const char *name = msg_type_to_string(t);
			char *key = counter_keys.msg[d][t];
			size_t k;

			if (!name) {
				continue;
			}
			k = (size_t) snprintf(key, sizeof(counter_keys.msg[d][t]), "%s_", dirs[d]);
			for (; *name && k < sizeof(counter_keys.msg[d][t]) - 1; name++) {
				key[k++] = (char) tolower((unsigned char) *name);
			}
			key[k] = '\0';
		}
	}
	for (unsigned int i = 0; i < IPC_IGNORED_KINDS; i++) {
		snprintf(counter_keys.ignored[i], sizeof(counter_keys.ignored[i]), "ignored_%s",
			 port_counter_to_string(PORT_CNT_IGNORED_FIRST + (int) i));
	}
	for (unsigned int i = 0; i < IPC_UNICAST_KINDS; i++) {
		snprintf(counter_keys.unicast[i], sizeof(counter_keys.unicast[i]), "unicast_%s",
			 port_unicast_counter_to_string((enum port_unicast_counter) i));
	}
	for (unsigned int v = 0; v < _PEER_POLICY_MAX; v++) {
		snprintf(counter_keys.peer_refused[v], sizeof(counter_keys.peer_refused[v]),
			 "peer_refused_%s", peer_policy_verdict_to_string(v));
	}
	counter_keys.built = true;
}

/* One {st} entry, without sd_bus_message_append()'s parsing of a format per entry. */
static int append_counter(sd_bus_message *reply, const char *key, uint64_t value)
{
	int r = sd_bus_message_open_container(reply, 'e', "st");

	if (r >= 0) {
		r = bus_append_valid_string(reply, key);
	}
	if (r >= 0) {
		r = sd_bus_message_append_basic(reply, 't', &value);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int get_counters(sd_bus *bus, const char *path, const char *interface, const char *property,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct mport *p = userdata;
	const uint64_t *const dir_values[2] = { p->rx, p->tx };
	const struct peer_policy *peers = p->uc ? &p->uc->peers : NULL;
	int r;

	if (!counter_keys.built) {
		build_counter_keys();
	}
	r = sd_bus_message_open_container(reply, 'a', "{st}");
	for (unsigned int d = 0; r >= 0 && d < 2; d++) {
		for (unsigned int t = 0; r >= 0 && t < IPC_MSG_KINDS; t++) {
			if (counter_keys.msg[d][t][0]) {
				r = append_counter(reply, counter_keys.msg[d][t], dir_values[d][t]);
			}
		}
	}
	if (r >= 0) {
		r = append_counter(reply, "dropped_management", p->dropped_management);
	}
	for (unsigned int i = 0; r >= 0 && i < IPC_IGNORED_KINDS; i++) {
		r = append_counter(reply, counter_keys.ignored[i], p->ignored[i]);
	}
	/* The unicast broker's, the supervisor's own (manager-peers.c); none yet: zeros. */
	if (r >= 0) {
		r = append_counter(reply, "peer_sockets_granted",
				   peers ? peers->counters[PEER_POLICY_GRANTED] : 0);
	}
	if (r >= 0) {
		r = append_counter(reply, "peer_sockets_released", peers ? peers->released : 0);
	}
	for (unsigned int v = PEER_POLICY_GRANTED + 1; r >= 0 && v < _PEER_POLICY_MAX; v++) {
		r = append_counter(reply, counter_keys.peer_refused[v],
				   peers ? peers->counters[v] : 0);
	}
	/* Unicast negotiation (the worker's engine, ptp/port-unicast.c). */
	for (unsigned int i = 0; r >= 0 && i < IPC_UNICAST_KINDS; i++) {
		r = append_counter(reply, counter_keys.unicast[i], p->unicast[i]);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Enable(), Disable(), Restart(): one handler, the member picks the operation. */
static const struct port_control {
	const char *member;
	const char *verb;
	int (*apply)(struct mport *p);
} port_controls[] = {
	{ "Enable", "enable", mport_enable },
	{ "Disable", "disable", mport_disable },
	{ "Restart", "restart", mport_restart },
};

/* A log2 interval (int8 in the configuration) as D-Bus "n": D-Bus has no signed byte. */
static int get_log_interval(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	int16_t v = *(int8_t *) userdata;

	return sd_bus_message_append_basic(reply, 'n', &v);
}

/*
 * UnicastTable a(ssssnu): one row per peer and negotiated message type that is not "none": the
 * peer's address, the port's role towards it ("grantee": the peer is a master the port asks;
 * "grantor": a client the port serves), the message type, the state, the logInterMessagePeriod
 * asked or granted, and the seconds the grant has left now (the worker's figure aged by the time
 * since it came).
 */
static int get_unicast_table(sd_bus *bus, const char *path, const char *interface,
			     const char *property, sd_bus_message *reply, void *userdata,
			     sd_bus_error *error)
{
	static const char *const types[UNICAST_MT_N] = { "announce", "sync", "delay_resp",
							 "pdelay_resp" };
	const struct mport *p = userdata;
	const struct mport_uc *uc = p->uc;
	uint64_t aged = uc ? (time_mono_usec() - uc->table_usec) / USEC_PER_SEC : 0;
	int r = sd_bus_message_open_container(reply, 'a', "(ssssnu)");

	for (unsigned i = 0; r >= 0 && uc && i < uc->table.n; i++) {
		const struct port_uc_entry *e = &uc->table.e[i];
		char addr[UNICAST_ADDR_STRLEN];

		unicast_addr_to_string(&e->addr, addr);
		for (unsigned k = 0; r >= 0 && k < UNICAST_MT_N; k++) {
			const struct port_uc_grant *g = &e->mt[k];
			uint32_t left = g->seconds_left > aged ? g->seconds_left - (uint32_t) aged
							       : 0;

			if (g->state == PORT_UC_NONE) {
				continue;
			}
			r = sd_bus_message_append(
				reply, "(ssssnu)", addr, port_uc_role_to_string(e->role), types[k],
				port_uc_state_to_string(g->state), (int16_t) g->log_period, left);
		}
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* announceReceiptTimeout x 2^logAnnounceInterval s: how long a silent master stays chosen. */
static int get_announce_timeout_usec(sd_bus *bus, const char *path, const char *interface,
				     const char *property, sd_bus_message *reply, void *userdata,
				     sd_bus_error *error)
{
	struct mport *p = userdata;
	uint64_t usec = (uint64_t) p->options.announceReceiptTimeout * USEC_PER_SEC;
	int l = p->options.logAnnounceInterval;

	/* logAnnounceInterval is -7..7 (config-keys.c): no overflow. */
	usec = l >= 0 ? usec << l : usec >> -l;
	return sd_bus_message_append_basic(reply, 't', &usec);
}

static int method_control(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *member = sd_bus_message_get_member(m);
	const struct port_control *c = NULL;
	struct mport *p = userdata;
	int r;

	for (size_t k = 0; k < ARRAY_SIZE(port_controls); k++) {
		if (strcmp(port_controls[k].member, member) == 0) {
			c = &port_controls[k];
		}
	}
	if (!c) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_METHOD, "No method %s",
					 member);
	}
	r = bus_authorize(bus_current_server(m), m, error);
	if (r <= 0) {
		return r < 0 ? r : 1;
	}
	r = c->apply(p);
	if (r < 0) {
		return sd_bus_error_setf(error, PHCD_BUS_ERROR_OPERATION_FAILED,
					 "Cannot %s port %s: %s (see LastError and the journal)",
					 c->verb, p->ifname, strerror(-r));
	}
	return sd_bus_reply_method_return(m, NULL);
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define P_OFF(f) offsetof(struct mport, f)

static const sd_bus_vtable port_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Interface", "s", bus_property_get_chars, P_OFF(ifname),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Instance", "o", get_instance, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("PortIdentity", "s", bus_property_get_port_identity, P_OFF(port_identity),
			EMITS),
	SD_BUS_PROPERTY("DelayMechanism", "s", get_delay_mechanism, P_OFF(delay_mechanism), EMITS),
	SD_BUS_PROPERTY("NetworkTransport", "s", get_network_transport,
			P_OFF(options.network_transport), EMITS),
	SD_BUS_PROPERTY("LogAnnounceInterval", "n", get_log_interval,
			P_OFF(options.logAnnounceInterval), EMITS),
	SD_BUS_PROPERTY("LogSyncInterval", "n", get_log_interval, P_OFF(options.logSyncInterval),
			EMITS),
	SD_BUS_PROPERTY("LogMinDelayReqInterval", "n", get_log_interval,
			P_OFF(options.logMinDelayReqInterval), EMITS),
	SD_BUS_PROPERTY("LogMinPdelayReqInterval", "n", get_log_interval,
			P_OFF(options.logMinPdelayReqInterval), EMITS),
	SD_BUS_PROPERTY("AnnounceReceiptTimeout", "y", NULL, P_OFF(options.announceReceiptTimeout),
			EMITS),
	SD_BUS_PROPERTY("AnnounceReceiptTimeoutUSec", "t", get_announce_timeout_usec, 0, EMITS),
	SD_BUS_PROPERTY("SyncReceiptTimeout", "y", NULL, P_OFF(options.syncReceiptTimeout), EMITS),
	SD_BUS_PROPERTY("SummaryInterval", "n", get_log_interval, P_OFF(options.summary_interval),
			EMITS),
	SD_BUS_PROPERTY("State", "s", get_state, P_OFF(state), EMITS),
	SD_BUS_PROPERTY("Enabled", "b", bus_property_get_bool, P_OFF(enabled), EMITS),
	SD_BUS_PROPERTY("AsCapable", "b", bus_property_get_bool, P_OFF(as_capable), EMITS),
	SD_BUS_PROPERTY("TimestampingMode", "s", get_timestamping, P_OFF(timestamping), EMITS),
	SD_BUS_PROPERTY("PhcIndex", "i", NULL, P_OFF(phc_index), EMITS),
	SD_BUS_PROPERTY("TimestampingRxFilter", "s", get_rx_filter, P_OFF(rx_filter), EMITS),
	SD_BUS_PROPERTY("IfIndex", "i", NULL, P_OFF(ifindex), EMITS),
	SD_BUS_PROPERTY("LinkUp", "b", bus_property_get_bool, P_OFF(link_up), EMITS),
	SD_BUS_PROPERTY("WorkerPID", "u", NULL, P_OFF(worker_pid), EMITS),
	SD_BUS_PROPERTY("Restarts", "u", NULL, P_OFF(restarts), EMITS),
	/*
	 * 35 entries per port, most of GetManagedObjects' reply: returned by Get only, left out
	 * of GetAll, GetManagedObjects and InterfacesAdded (sd-bus's "explicit" property, as
	 * systemd does for its large ones); never signalled (bus-server.c, on_port_changed).
	 */
	SD_BUS_PROPERTY("Counters", "a{st}", get_counters, 0, SD_BUS_VTABLE_PROPERTY_EXPLICIT),
	/* The unicast negotiation's table: Get only, never signalled, as Counters. */
	SD_BUS_PROPERTY("UnicastTable", "a(ssssnu)", get_unicast_table, 0,
			SD_BUS_VTABLE_PROPERTY_EXPLICIT),
	SD_BUS_PROPERTY("LastError", "s", bus_property_get_chars, P_OFF(last_error_text), EMITS),
	SD_BUS_PROPERTY("LastErrorCode", "i", get_last_error_code, P_OFF(last_error), EMITS),
	SD_BUS_METHOD_WITH_ARGS("Enable", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_control,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Disable", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_control,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Restart", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_control,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

static const struct bus_prop_group port_groups[] = {
	{ MPORT_CHANGED_STATE, (const char *const[]){ "State", "Enabled", "AsCapable", NULL } },
	{ MPORT_CHANGED_LINK, (const char *const[]){ "IfIndex", "LinkUp", NULL } },
	{ MPORT_CHANGED_WORKER, (const char *const[]){ "WorkerPID", "Restarts", NULL } },
	{ MPORT_CHANGED_ERROR, (const char *const[]){ "LastError", "LastErrorCode", NULL } },
	{ MPORT_CHANGED_TIMESTAMPING,
	  (const char *const[]){ "TimestampingMode", "PhcIndex", "TimestampingRxFilter", NULL } },
	{ MPORT_CHANGED_CONFIG,
	  (const char *const[]){ "PortIdentity", "DelayMechanism", "NetworkTransport",
				 "LogAnnounceInterval", "LogSyncInterval", "LogMinDelayReqInterval",
				 "LogMinPdelayReqInterval", "AnnounceReceiptTimeout",
				 "AnnounceReceiptTimeoutUSec", "SyncReceiptTimeout",
				 "SummaryInterval", NULL } },
	{},
};

int bus_port_register(struct bus_server *s)
{
	int r;

	r = sd_bus_add_fallback_vtable(s->bus, NULL, PHCD_BUS_PATH_PORTS, PHCD_BUS_IFACE_PORT,
				       port_vtable, find, s);
	if (r < 0) {
		return r;
	}
	return sd_bus_add_node_enumerator(s->bus, NULL, PHCD_BUS_PATH_PORTS, enumerate, s);
}

int bus_port_emit(struct bus_server *s, struct mport *p, unsigned int mask)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_port_path(p, &path);

	return r < 0 ? r : bus_emit_groups(s, path, PHCD_BUS_IFACE_PORT, port_groups, mask);
}

int bus_port_describe(struct bus_server *s, FILE *f, struct mport *p)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_port_path(p, &path);

	return r < 0 ? r : bus_describe_object(s, f, port_vtable, p, path, PHCD_BUS_IFACE_PORT);
}

int bus_port_append_object(struct bus_server *s, sd_bus_message *reply, struct mport *p)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_port_path(p, &path);

	return r < 0 ? r : bus_append_object(s, reply, port_vtable, p, path, PHCD_BUS_IFACE_PORT);
}
