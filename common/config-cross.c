/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks across sections and files of a loaded configuration, and the ptp4l_config overrides. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/config-cross.h"
#include "common/config-keys.h"
#include "common/config-resolve.h"
#include "common/config-unicast.h"
#include "common/leapfile.h"

static size_t key_index(const char *name)
{
	return config_keys_index(config_keys_find(name, false));
}

/* Where an instance's key was set: its own line, else [global]'s, else its section header. */
/* The layer that set an instance's key last in resolution order (a ptp4l_config's too), or NULL. */
static const struct config_layer *key_layer(const struct config *c,
					    const struct config_instance *in, size_t i)
{
	const struct config_layer *order[] = { in->layer, config_instance_ptp4l(in), &c->global,
					       &c->ptp4l_global };

	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		if (config_layer_is_set(order[k], i)) {
			return order[k];
		}
	}
	return NULL;
}

static struct config_pos key_pos(const struct config *c, const struct config_instance *in,
				 const char *name)
{
	size_t i = key_index(name);
	const struct config_layer *l = key_layer(c, in, i);

	return l ? l->set_at[i] : in->layer->section;
}

static bool layer_any_set(const struct config_layer *l)
{
	for (size_t k = 0; k < sizeof(l->set) / sizeof(l->set[0]); k++) {
		if (l->set[k]) {
			return true;
		}
	}
	return false;
}

/* Where a port key of an [interface] section was set: its own line, else the section. */
static struct config_pos interface_key_pos(const struct config_interface *itf, const char *name)
{
	size_t i = key_index(name);

	return config_layer_is_set(&itf->layer, i) ? itf->layer.set_at[i] : itf->layer.last;
}

/*
 * Keys that each are valid but together cannot work, for a port of instance in with effective
 * options p: itf is its [interface] section (NULL: the instance's own port defaults).
 */
static void check_port_combination(struct loader *l, const struct config_instance *in,
				   const struct config_interface *itf, const struct port_options *p)
{
	struct config *c = l->c;
	size_t ts = key_index("time_stamping");
	char where[64] = "";
	struct config_pos at;

	if (itf) {
		snprintf(where, sizeof(where), " (interface %s)", itf->ifname);
	}
	/* ptp/steer.c: such a port could only ever be FAULTY. */
	if (in->options.clock_backend == OPTIONS_CLOCK_SYSTEM &&
	    p->time_stamping == OPTIONS_TS_HARDWARE) {
		at = itf && config_layer_is_set(&itf->layer, ts)
			     ? interface_key_pos(itf, "time_stamping")
			     : key_pos(c, in, "clock_backend");
		loader_report(l, at,
			      "instance %s has clock_backend = system, which takes software "
			      "timestamps, but time_stamping is hardware%s%s; expected "
			      "time_stamping = software or auto",
			      in->options.name,
			      key_layer(c, in, ts) || (itf && config_layer_is_set(&itf->layer, ts))
				      ? ""
				      : " (the default)",
			      where);
	}
	/* A port that may be neither master nor slave never does anything (9.2.2.2). */
	if (in->options.slaveOnly && p->masterOnly) {
		at = itf && config_layer_is_set(&itf->layer, key_index("masterOnly"))
			     ? interface_key_pos(itf, "masterOnly")
			     : key_pos(c, in, "masterOnly");
		loader_report(l, at,
			      "instance %s has slaveOnly = 1 and masterOnly = 1%s: the port could "
			      "be neither slave nor master, expected at most one of them",
			      in->options.name, where);
	}
}

/*
 * Combinations of valid keys that cannot work: per instance, per [interface] section of an
 * interface it names, and [interface] sections that no instance could ever use.
 */
static void check_combinations(struct loader *l)
{
	struct config *c = l->c;
	const struct config_instance *auto_owner = c->auto_instance < c->n_instances
							   ? &c->instances[c->auto_instance]
							   : NULL;

	for (size_t i = 0; i < c->n_instances; i++) {
		check_port_combination(l, &c->instances[i], NULL, &c->instances[i].port);
	}
	for (size_t k = 0; k < c->n_interfaces; k++) {
		const struct config_interface *itf = &c->interfaces[k];
		const struct config_instance *owner = config_member_of(c, itf->ifname);
		struct port_options p;

		owner = owner ? owner : auto_owner;
		if (!owner) {
			loader_report(l, itf->layer.section,
				      "[interface %s] is in no instance: no instance names it in "
				      "interfaces and none has interfaces = auto; expected %s in "
				      "an instance's interfaces",
				      itf->ifname, itf->ifname);
			continue;
		}
		if (!layer_any_set(&itf->layer) ||
		    config_port_options(c, owner->options.name, itf->ifname, &p)) {
			continue;
		}
		check_port_combination(l, owner, itf, &p);
	}
	/* A ptp4l_config's [IFNAME] (unless phcd.conf's [interface IFNAME] was checked above). */
	for (size_t k = 0; k < c->n_ptp4l_sections; k++) {
		const struct config_ptp4l_section *s = &c->ptp4l_sections[k];
		const struct config_instance *owner = s->instance == SIZE_MAX
							      ? config_instance_for_interface(
									c, s->ifname, true)
							      : &c->instances[s->instance];
		struct config_interface itf = { .layer = s->layer };
		struct port_options p;

		memcpy(itf.ifname, s->ifname, sizeof(itf.ifname));
		if (owner && !config_find_interface(c, s->ifname) &&
		    config_port_options(c, owner->options.name, s->ifname, &p) == 0) {
			check_port_combination(l, owner, &itf, &p);
		}
	}
}

/*
 * A grandmaster's reference: the leap-seconds file must parse (its own file:line said at the key),
 * and a slave-only clock has no use for a time source.
 */
static void check_time_source(struct loader *l, const struct config_instance *in)
{
	struct leap_table t;
	char err[LEAPFILE_LINE_MAX];

	if (in->options.leapfile[0] &&
	    leapfile_load(in->options.leapfile, &t, err, sizeof(err)) < 0) {
		loader_report(l, key_pos(l->c, in, "leapfile"),
			      "instance %s: leapfile %s, expected tzdata's leap-seconds.list",
			      in->options.name, err);
	}
	/* The pin is a PHC's and pairs with gpsd's seconds: nothing else has either. */
	if (in->options.pin.pin_index >= 0 &&
	    (in->options.time_source != OPTIONS_TIME_SOURCE_GNSS ||
	     in->options.clock_backend != OPTIONS_CLOCK_PHC)) {
		loader_report(
			l, key_pos(l->c, in, "ts2phc.pin_index"),
			"instance %s: ts2phc.pin_index %d with time_source %s and clock_backend "
			"%s, expected time_source gnss and clock_backend phc (the pin is a "
			"PHC's, its edges paired with gpsd's seconds)",
			in->options.name, in->options.pin.pin_index,
			options_time_source_to_string(in->options.time_source),
			options_clock_backend_to_string(in->options.clock_backend));
	}
	if (in->options.time_source != OPTIONS_TIME_SOURCE_NONE && in->options.slaveOnly) {
		loader_report(l, key_pos(l->c, in, "time_source"),
			      "instance %s: time_source %s on a slaveOnly clock, expected none (a "
			      "time source serves a grandmaster)",
			      in->options.name,
			      options_time_source_to_string(in->options.time_source));
	}
}

/* Checks across sections and files, once everything is read and resolved. */
void config_cross_check(struct loader *l)
{
	struct config *c = l->c;
	const struct config_instance *auto_owner = NULL;

	for (size_t i = 0; i < c->n_instances; i++) {
		const struct config_instance *in = &c->instances[i];
		const struct interface_selection *sel = &in->options.interfaces;

		if (sel->auto_select) {
			if (auto_owner) {
				struct config_pos p = key_pos(c, auto_owner, "interfaces");

				loader_report(
					l, key_pos(c, in, "interfaces"),
					"instance %s selects interfaces auto, but instance %s "
					"already does (%s:%" PRIu32
					"), expected at most one instance with interfaces auto",
					in->options.name, auto_owner->options.name,
					loader_file_name(c, p.file), p.line);
			}
			auto_owner = in;
			continue;
		}
		for (unsigned int n = 0; n < sel->n_names; n++) {
			/* The first instance that names it (config_member_of()), once each. */
			const struct config_instance *o = config_member_of(c, sel->names[n]);
			struct config_pos p;

			if (o && o != in) {
				p = key_pos(c, o, "interfaces");
				loader_report(l, key_pos(c, in, "interfaces"),
					      "interface %s is in instance %s and already in "
					      "instance %s (%s:%" PRIu32
					      "), expected each interface in one instance",
					      sel->names[n], in->options.name, o->options.name,
					      loader_file_name(c, p.file), p.line);
			}
		}
	}
	check_combinations(l);
	config_unicast_check(l);
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct config_instance *in = &c->instances[i];

		/* ptp4l's designated master or slave: exactly one static role. */
		if (in->port.BMCA == OPTIONS_BMCA_NOOP &&
		    in->port.masterOnly == in->options.slaveOnly) {
			loader_report(l, key_pos(c, in, "BMCA"),
				      "instance %s: BMCA noop with %s, expected a static role: "
				      "masterOnly 1 (a designated master) or slaveOnly 1 (a "
				      "designated slave)",
				      in->options.name,
				      in->port.masterOnly ? "both masterOnly and slaveOnly"
							  : "neither masterOnly nor slaveOnly");
		}
		/* As ptp4l: a port that never measures its link cannot compute asCapable. */
		if (in->port.inhibit_delay_req && in->port.asCapable != OPTIONS_AS_CAPABLE_TRUE) {
			loader_report(l, key_pos(c, in, "inhibit_delay_req"),
				      "instance %s: inhibit_delay_req 1 with asCapable auto, "
				      "expected asCapable true (a port that never measures its "
				      "link cannot be found asCapable)",
				      in->options.name);
		}
	}
	/* "auto": the instance with a SLAVE port, chosen at run time (daemon/sysclock-follow.c). */
	if (c->daemon.system_clock_instance[0] &&
	    strcmp(c->daemon.system_clock_instance, "auto") != 0 &&
	    !config_find_instance(c, c->daemon.system_clock_instance)) {
		loader_report(l, c->global.set_at[key_index("system_clock_instance")],
			      "system_clock_instance = %s names no instance, expected the name of "
			      "an [instance NAME]",
			      c->daemon.system_clock_instance);
	}
	for (size_t k = 0; k < c->n_instances; k++) {
		check_time_source(l, &c->instances[k]);
	}
	for (size_t k = 0; k < c->n_instances; k++) {
		const struct config_instance *in = &c->instances[k];

		if (in->options.servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK &&
		    !strcmp(c->daemon.system_clock_instance, in->options.name)) {
			loader_report(
				l, key_pos(c, in, "clock_servo"),
				"instance %s: clock_servo refclock_sock hands CLOCK_REALTIME to "
				"chronyd, yet system_clock_instance names it, expected one or the "
				"other",
				in->options.name);
		}
		if (in->options.servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK &&
		    in->options.clock_backend == OPTIONS_CLOCK_VIRTUAL) {
			loader_report(l, key_pos(c, in, "clock_servo"),
				      "instance %s: clock_servo refclock_sock with clock_backend "
				      "virtual, whose time is only in its workers: chronyd would "
				      "never get a sample; expected clock_backend phc (hardware "
				      "timestamps), system or free_running (software ones)",
				      in->options.name);
		}
		/* chronyd's one refclock on that socket would take two clocks' samples as one */
		for (size_t j = 0;
		     j < k && in->options.servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK; j++) {
			const struct config_instance *o = &c->instances[j];

			if (o->options.servo.clock_servo == SERVO_TYPE_REFCLOCK_SOCK &&
			    !strcmp(o->options.refclock_sock_address,
				    in->options.refclock_sock_address)) {
				loader_report(
					l, key_pos(c, in, "refclock_sock_address"),
					"instance %s: refclock_sock_address %s is instance %s's "
					"too, expected an address of its own (a refclock SOCK "
					"line each in chrony.conf)",
					in->options.name, in->options.refclock_sock_address,
					o->options.name);
				break;
			}
		}
	}
}

/* Keys of a ptp4l_config layer low that phcd.conf's layer high sets too: high wins, say so. */
static void note_layer(struct loader *l, const struct config_layer *low,
		       const struct config_layer *high, const char *what)
{
	const struct config_key *k;

	for (size_t i = 0; l->verdicts && (k = config_keys_at(i)); i++) {
		if (config_layer_is_set(low, i) && config_layer_is_set(high, i) &&
		    low->set_at[i].file != high->set_at[i].file) {
			fprintf(l->verdicts,
				"%s:%" PRIu32 ": phcd key %s: overridden%s by %s:%" PRIu32
				" (phcd.conf wins over ptp4l_config)\n",
				loader_file_name(l->c, low->set_at[i].file), low->set_at[i].line,
				k->name, what, loader_file_name(l->c, high->set_at[i].file),
				high->set_at[i].line);
		}
	}
}

void config_cross_note_overrides(struct loader *l)
{
	struct config *c = l->c;
	char what[64];

	note_layer(l, &c->ptp4l_global, &c->global, "");
	for (size_t i = 0; i < c->n_instances; i++) {
		snprintf(what, sizeof(what), " in instance %s", c->instances[i].options.name);
		note_layer(l, &c->ptp4l_global, c->instances[i].layer, what);
		note_layer(l, config_instance_ptp4l(&c->instances[i]), c->instances[i].layer, "");
	}
	for (size_t k = 0; k < c->n_ptp4l_sections; k++) {
		const struct config_interface *itf = config_find_interface(
			c, c->ptp4l_sections[k].ifname);

		if (itf) {
			note_layer(l, &c->ptp4l_sections[k].layer, &itf->layer, "");
		}
	}
}
