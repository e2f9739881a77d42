// SPDX-License-Identifier: GPL-2.0-or-later
/* ptp4l's [unicast_master_table] sections read strictly, and the unicast keys checked across. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/config-keys.h"
#include "common/config-ptp4l-read.h"
#include "common/config-resolve.h"
#include "common/config-unicast.h"

const struct config_unicast_table *config_find_unicast_table(const struct config *c, int32_t id)
{
	for (size_t i = 0; id > 0 && i < c->n_unicast_tables; i++) {
		if (c->unicast_tables[i].table.table_id == id) {
			return &c->unicast_tables[i];
		}
	}
	return NULL;
}

size_t config_unicast_open(struct loader *l, struct config_pos pos, bool ptp4l)
{
	struct config *c = l->c;
	struct config_unicast_table *t;

	if (c->n_unicast_tables >= CONFIG_UNICAST_TABLES_MAX) {
		loader_report(l, pos,
			      "more than %d [unicast_master_table] sections, expected at most %d",
			      CONFIG_UNICAST_TABLES_MAX, CONFIG_UNICAST_TABLES_MAX);
		return SIZE_MAX;
	}
	if (loader_grow((void **) &c->unicast_tables, c->n_unicast_tables, sizeof(*t)) < 0) {
		l->oom = 1;
		return SIZE_MAX;
	}
	t = &c->unicast_tables[c->n_unicast_tables];
	memset(t, 0, sizeof(*t));
	t->section = pos;
	t->ptp4l = ptp4l;
	return c->n_unicast_tables++;
}

/* A whole decimal integer from min to max (ptp4l reads these with %d). */
static int parse_int32(const char *s, long min, long max, int32_t *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE) {
		return -EINVAL;
	}
	if (v < min || v > max) {
		return -ERANGE;
	}
	*ret = (int32_t) v;
	return 0;
}

/* A line of a linuxptp file's table gets its verdict in the report, as every line of the file. */
_printf_(5, 6) static void honoured(struct loader *l, const struct config_unicast_table *t,
				    struct config_pos pos, const char *line, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	if (!t->ptp4l) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ptp4l_verdict(l, pos, line, PTP4L_HONOURED, "%s", text);
}

static void table_id(struct loader *l, struct config_unicast_table *t, struct config_pos pos,
		     const char *line, const char *value)
{
	const struct config_unicast_table *old;
	int32_t id;

	if (t->table.table_id) {
		loader_report(l, pos,
			      "%s: a second table_id in one [unicast_master_table] (first at "
			      "line %" PRIu32 "), expected one",
			      line, t->id_at.line);
		return;
	}
	if (parse_int32(value, 1, UNICAST_TABLE_ID_MAX, &id) < 0) {
		loader_report(l, pos, "%s: expected a table_id from 1 to %d", line,
			      UNICAST_TABLE_ID_MAX);
		return;
	}
	old = config_find_unicast_table(l->c, id);
	if (old) {
		loader_report(l, pos,
			      "%s: duplicate table_id %" PRId32 " (first at %s:%" PRIu32
			      "), expected each table_id once",
			      line, id, loader_file_name(l->c, old->id_at.file), old->id_at.line);
		return;
	}
	t->table.table_id = id;
	t->id_at = pos;
	honoured(l, t, pos, line, "(unicast master table %" PRId32 ")", id);
}

static void table_address(struct loader *l, struct config_unicast_table *t, struct config_pos pos,
			  const char *line, enum unicast_family f, const char *value)
{
	struct unicast_addr a;
	int r = unicast_addr_from_string(f, value, &a);

	if (r < 0) {
		loader_report(l, pos, "%s: %s, expected %s", line,
			      r == -ERANGE ? "not a unicast address" : "not an address",
			      f == UNICAST_FAMILY_L2 ? "a unicast MAC such as 00:11:22:33:44:55"
			      : f == UNICAST_FAMILY_IPV4
				      ? "a unicast IPv4 address such as 192.0.2.1"
				      : "a unicast IPv6 address such as 2001:db8::1 "
					"(no zone index)");
		return;
	}
	r = unicast_table_add(&t->table, &a);
	if (r < 0) {
		loader_report(l, pos, "%s: %s", line,
			      r == -EEXIST
				      ? "the address is in the table already, expected it once"
				      : "more than 16 addresses in one table, expected at most 16");
		return;
	}
	honoured(l, t, pos, line, "(a master of unicast master table %" PRId32 ", entry %u)",
		 t->table.table_id, t->table.n);
}

void config_unicast_line(struct loader *l, size_t i, struct config_pos pos, const char *key,
			 const char *value)
{
	struct config_unicast_table *t = &l->c->unicast_tables[i];
	char line[PTP4L_LINE_MAX + 2];
	enum unicast_family f;
	int32_t v;
	int r;

	/* The line as its file writes it. */
	snprintf(line, sizeof(line), t->ptp4l ? "%s %s" : "%s = %s", key, value);
	if (strcmp(key, "table_id") == 0) {
		table_id(l, t, pos, line, value);
		return;
	}
	/* ptp4l: every other line of a table comes after its table_id. */
	if (!t->table.table_id) {
		loader_report(l, pos, "%s: before the table_id, expected table_id first (as ptp4l)",
			      line);
		return;
	}
	if (strcmp(key, "logQueryInterval") == 0) {
		r = parse_int32(value, UNICAST_TABLE_LOG_QUERY_MIN, UNICAST_TABLE_LOG_QUERY_MAX,
				&v);
		if (r < 0) {
			loader_report(l, pos, "%s: expected a logQueryInterval from %d to %d", line,
				      UNICAST_TABLE_LOG_QUERY_MIN, UNICAST_TABLE_LOG_QUERY_MAX);
			return;
		}
		t->table.logQueryInterval = (int8_t) v;
		honoured(l, t, pos, line, "(table %" PRId32 " is asked every 2^%" PRId32 " s)",
			 t->table.table_id, v);
	} else if (strcmp(key, "peer_address") == 0) {
		if (t->table.has_peer) {
			loader_report(l, pos, "%s: a second peer_address, expected one", line);
		} else if ((r = unicast_addr_from_any_string(value, &t->table.peer_address)) < 0) {
			loader_report(l, pos,
				      "%s: %s, expected a unicast MAC, IPv4 or IPv6 address", line,
				      r == -ERANGE ? "not a unicast address" : "not an address");
		} else {
			t->table.has_peer = true;
			honoured(l, t, pos, line, "(the P2P peer of table %" PRId32 ")",
				 t->table.table_id);
		}
	} else if (strcasecmp(key, "UDPv4") == 0 || strcasecmp(key, "UDPv6") == 0 ||
		   strcasecmp(key, "L2") == 0) {
		f = strcasecmp(key, "L2") == 0	    ? UNICAST_FAMILY_L2
		    : strcasecmp(key, "UDPv4") == 0 ? UNICAST_FAMILY_IPV4
						    : UNICAST_FAMILY_IPV6;
		table_address(l, t, pos, line, f, value);
	} else {
		loader_report(l, pos,
			      "%s: unknown line in [unicast_master_table], expected table_id, "
			      "logQueryInterval, peer_address, UDPv4, UDPv6 or L2 (as ptp4l)",
			      line);
	}
}

void config_unicast_close(struct loader *l, size_t i)
{
	const struct config_unicast_table *t = &l->c->unicast_tables[i];

	if (!t->table.table_id) {
		loader_report(l, t->section,
			      "[unicast_master_table] without a table_id, expected a table_id line "
			      "(1 to %d) first in the section",
			      UNICAST_TABLE_ID_MAX);
	}
}

/* The unicast keys of one layer: the table each names exists. */
static void check_layer(struct loader *l, const struct config_layer *layer)
{
	const struct config_key *key = config_keys_find("unicast_master_table", false);
	size_t idx = config_keys_index(key);

	if (config_layer_is_set(layer, idx) && layer->port.unicast_master_table != 0 &&
	    !config_find_unicast_table(l->c, layer->port.unicast_master_table)) {
		loader_report(
			l, layer->set_at[idx],
			"unicast_master_table %" PRId32
			": no [unicast_master_table] has that table_id, expected the table_id "
			"of one",
			layer->port.unicast_master_table);
	}
}

/*
 * Where the port on ifname of instance in got key from: the most specific layer that sets it
 * ([interface], ptp4l's [IFNAME] of the instance's file then of [global]'s, the instance, the
 * global ones); false when none does (its default).
 */
static bool set_where(const struct config *c, const struct config_instance *in, const char *ifname,
		      const char *name, struct config_pos *ret)
{
	size_t idx = config_keys_index(config_keys_find(name, false));
	const struct config_interface *itf = config_find_interface(c, ifname);
	const struct config_ptp4l_section *own = config_find_ptp4l_section(
		c, (size_t) (in - c->instances), ifname);
	const struct config_ptp4l_section *glob = config_find_ptp4l_section(c, SIZE_MAX, ifname);
	const struct config_layer *layers[] = {
		itf ? &itf->layer : NULL,   own ? &own->layer : NULL,
		glob ? &glob->layer : NULL, in->layer,
		config_instance_ptp4l(in),  &c->global,
		&c->ptp4l_global,
	};

	for (size_t k = 0; k < ARRAY_SIZE(layers); k++) {
		if (layers[k] && config_layer_is_set(layers[k], idx)) {
			*ret = layers[k]->set_at[idx];
			return true;
		}
	}
	return false;
}

/* The positions reported already: a port named twice (an instance's list, a section) once. */
struct reported_pos {
	size_t n;
	struct config_pos pos[32];
};

static bool report_once(struct reported_pos *r, struct config_pos pos)
{
	for (size_t k = 0; k < r->n; k++) {
		if (r->pos[k].file == pos.file && r->pos[k].line == pos.line) {
			return false;
		}
	}
	if (r->n < ARRAY_SIZE(r->pos)) {
		r->pos[r->n++] = pos;
	}
	return true;
}

/*
 * A port that negotiates unicast runs with E2E (ptp/port-unicast.c), over any network_transport:
 * unicast Pdelay_Resp (P2P, peer_address) is not served.
 */
static void check_port_runs(struct loader *l, const struct config_instance *in, const char *ifname,
			    const struct port_options *p, struct reported_pos *done)
{
	const char *key = p->unicast_listen		 ? "unicast_listen"
			  : p->unicast_master_table > 0	 ? "unicast_master_table"
			  : p->inhibit_multicast_service ? "inhibit_multicast_service"
							 : NULL;
	struct config_pos pos;

	if (!key || !set_where(l->c, in, ifname, key, &pos) ||
	    p->delay_mechanism == DELAY_MECHANISM_E2E || !report_once(done, pos)) {
		return;
	}
	loader_report(l, pos,
		      "%s: " CONFIG_UNICAST_REFUSED " with delay_mechanism %s (port %s): unicast "
		      "Pdelay_Resp is not negotiated, expected E2E",
		      key, delay_mechanism_to_string(p->delay_mechanism), ifname);
}

/*
 * The port on ifname of instance in (NULL: no instance takes it): the masters of its table are of
 * its network_transport, or the port could never ask them (ptp4l skips them with a warning). One
 * error per table (reported[]), at its header.
 */
static void check_port_family(struct loader *l, const struct config_instance *in,
			      const char *ifname, bool *reported, struct reported_pos *done)
{
	const struct config *c = l->c;
	const struct config_unicast_table *t;
	struct port_options p;
	enum unicast_family f;
	char buf[UNICAST_ADDR_STRLEN];

	if (!in || config_port_options(c, in->options.name, ifname, &p) < 0) {
		return;
	}
	check_port_runs(l, in, ifname, &p, done);
	t = config_find_unicast_table(c, p.unicast_master_table);
	if (!t || reported[t - c->unicast_tables]) {
		return;
	}
	f = options_transport_family(p.network_transport);
	for (unsigned i = 0; i <= t->table.n; i++) {
		const struct unicast_addr *a = i < t->table.n	   ? &t->table.addr[i]
					       : t->table.has_peer ? &t->table.peer_address
								   : NULL;

		if (!a || a->family == f) {
			continue;
		}
		reported[t - c->unicast_tables] = true;
		loader_report(l, t->section,
			      "[unicast_master_table] table_id %" PRId32
			      " lists %s %s, but port %s (instance %s) runs over %s, expected "
			      "addresses of the port's network_transport",
			      t->table.table_id, unicast_family_to_string(a->family),
			      unicast_addr_to_string(a, buf), ifname, in->options.name,
			      options_transport_to_string(p.network_transport));
		return;
	}
}

/* Every port the configuration names: its instance's explicit interfaces and its sections. */
static void check_families(struct loader *l)
{
	const struct config *c = l->c;
	bool reported[CONFIG_UNICAST_TABLES_MAX] = { false };
	struct reported_pos done = { .n = 0 };

	for (size_t i = 0; i < c->n_instances; i++) {
		const struct interface_selection *sel = &c->instances[i].options.interfaces;

		for (unsigned n = 0; !sel->auto_select && n < sel->n_names; n++) {
			check_port_family(l, &c->instances[i], sel->names[n], reported, &done);
		}
	}
	for (size_t i = 0; i < c->n_interfaces; i++) {
		check_port_family(l,
				  config_instance_for_interface(c, c->interfaces[i].ifname, true),
				  c->interfaces[i].ifname, reported, &done);
	}
	for (size_t i = 0; i < c->n_ptp4l_sections; i++) {
		const char *ifname = c->ptp4l_sections[i].ifname;

		check_port_family(l, config_instance_for_interface(c, ifname, true), ifname,
				  reported, &done);
	}
}

void config_unicast_check(struct loader *l)
{
	const struct config *c = l->c;

	check_layer(l, &c->ptp4l_global);
	check_layer(l, &c->global);
	for (size_t i = 0; i < c->n_instances; i++) {
		check_layer(l, config_instance_ptp4l(&c->instances[i]));
		check_layer(l, c->instances[i].layer);
	}
	for (size_t i = 0; i < c->n_interfaces; i++) {
		check_layer(l, &c->interfaces[i].layer);
	}
	for (size_t i = 0; i < c->n_ptp4l_sections; i++) {
		check_layer(l, &c->ptp4l_sections[i].layer);
	}
	check_families(l);
}
