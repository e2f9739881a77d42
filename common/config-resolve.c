/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A loaded configuration's layers resolved into options, and what its users look up in it. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/config-keys.h"
#include "common/config-resolve.h"

uint32_t config_resolve_ptp4l_hash(size_t owner, const char *ifname)
{
	return config_index_hash(ifname, (uint64_t) owner + 1);
}

/* Each interface an instance names (interfaces, not auto): the first such instance, indexed. */
static int index_members(struct config *c)
{
	c->auto_instance = SIZE_MAX;
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct interface_selection *sel = &c->instances[i].options.interfaces;

		if (sel->auto_select) {
			c->auto_instance = i;
			continue;
		}
		for (unsigned int n = 0; n < sel->n_names; n++) {
			int r;

			if (config_member_of(c, sel->names[n])) {
				continue;
			}
			r = config_index_add(&c->member_index, config_index_hash(sel->names[n], 0),
					     (uint32_t) i);
			if (r < 0) {
				return r;
			}
		}
	}
	return 0;
}

int config_resolve(struct config *c)
{
	config_keys_daemon_defaults(&c->daemon);
	config_keys_apply(&c->ptp4l_global, SCOPE_DAEMON, &c->daemon);
	config_keys_apply(&c->global, SCOPE_DAEMON, &c->daemon);
	for (size_t i = 0; i < c->n_instances; i++) {
		struct config_instance *in = &c->instances[i];
		char name[OPTIONS_NAME_MAX];

		enum options_profile profile;

		memcpy(name, in->options.name, sizeof(name));
		/*
		 * Each ptp4l_config file's [global] just under the section that names it. First
		 * only to learn the instance's profile, whose defaults the keys override.
		 */
		const struct config_layer *layers[] = { &c->ptp4l_global, &c->global,
							config_instance_ptp4l(in), in->layer };

		options_instance_defaults(&in->options);
		for (size_t k = 0; k < ARRAY_SIZE(layers); k++) {
			config_keys_apply(layers[k], SCOPE_INSTANCE, &in->options);
		}
		profile = in->options.profile;
		options_instance_defaults(&in->options);
		options_port_defaults(&in->port);
		options_profile_defaults(profile, &in->options, &in->port);
		memcpy(in->options.name, name, sizeof(name));
		for (size_t k = 0; k < ARRAY_SIZE(layers); k++) {
			config_keys_apply(layers[k], SCOPE_INSTANCE, &in->options);
			config_keys_apply(layers[k], SCOPE_PORT, &in->port);
		}
	}
	return index_members(c);
}

const struct config_interface *config_find_interface(const struct config *c, const char *ifname)
{
	uint32_t h = config_index_hash(ifname, 0), cursor = 0, pos;

	while (c && config_index_next(&c->interface_index, h, &cursor, &pos)) {
		if (strcmp(c->interfaces[pos].ifname, ifname) == 0) {
			return &c->interfaces[pos];
		}
	}
	return NULL;
}

const struct config_instance *config_find_instance(const struct config *c, const char *name)
{
	uint32_t h = config_index_hash(name, 0), cursor = 0, pos;

	while (c && config_index_next(&c->instance_index, h, &cursor, &pos)) {
		if (strcmp(c->instances[pos].options.name, name) == 0) {
			return &c->instances[pos];
		}
	}
	return NULL;
}

const struct config_ptp4l_section *config_find_ptp4l_section(const struct config *c, size_t owner,
							     const char *ifname)
{
	uint32_t h = config_resolve_ptp4l_hash(owner, ifname), cursor = 0, pos;

	while (config_index_next(&c->ptp4l_index, h, &cursor, &pos)) {
		const struct config_ptp4l_section *s = &c->ptp4l_sections[pos];

		if (s->instance == owner && strcmp(s->ifname, ifname) == 0) {
			return s;
		}
	}
	return NULL;
}

const struct config_instance *config_member_of(const struct config *c, const char *ifname)
{
	uint32_t h = config_index_hash(ifname, 0), cursor = 0, pos;
	const struct config_instance *first = NULL;

	/* Two names may share a hash: the first instance that names this one. */
	while (config_index_next(&c->member_index, h, &cursor, &pos)) {
		const struct config_instance *in = &c->instances[pos];

		for (unsigned int n = 0; n < in->options.interfaces.n_names; n++) {
			if (strcmp(in->options.interfaces.names[n], ifname) == 0 &&
			    (!first || in < first)) {
				first = in;
			}
		}
	}
	return first;
}

const struct config_instance *config_instance_for_interface(const struct config *c,
							    const char *ifname, bool has_phc)
{
	const struct config_instance *in = config_member_of(c, ifname);
	const struct config_instance *auto_owner = c->auto_instance < c->n_instances
							   ? &c->instances[c->auto_instance]
							   : NULL;

	if (in) {
		return in;
	}
	if (auto_owner && (has_phc || auto_owner->options.include_software_interfaces)) {
		return auto_owner;
	}
	return NULL;
}

int config_port_options(const struct config *c, const char *instance, const char *ifname,
			struct port_options *ret)
{
	const struct config_instance *in = config_find_instance(c, instance);
	const struct config_interface *itf = config_find_interface(c, ifname);

	if (!in) {
		return -ENOENT;
	}
	*ret = in->port;
	/* ptp4l's [IFNAME] of [global]'s file, then of the instance's, then [interface IFNAME]. */
	for (int pass = 0; pass < 2; pass++) {
		size_t owner = pass == 0 ? SIZE_MAX : (size_t) (in - c->instances);
		const struct config_ptp4l_section *s = config_find_ptp4l_section(c, owner, ifname);

		if (s) {
			config_keys_apply(&s->layer, SCOPE_PORT, ret);
		}
	}
	if (itf) {
		config_keys_apply(&itf->layer, SCOPE_PORT, ret);
	}
	memset(&ret->unicast_table, 0, sizeof(ret->unicast_table));
	if (ret->unicast_master_table > 0) {
		const struct config_unicast_table *t = config_find_unicast_table(
			c, ret->unicast_master_table);

		if (t) {
			ret->unicast_table = t->table;
		}
	}
	return 0;
}
