/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A loaded configuration's layers resolved into options, and what its users look up in it. */
#include <errno.h>
#include <string.h>

#include "common/config-keys.h"
#include "common/config-resolve.h"

bool config_selection_has(const struct interface_selection *s, const char *ifname)
{
	for (unsigned int i = 0; i < s->n_names; i++) {
		if (strcmp(s->names[i], ifname) == 0) {
			return true;
		}
	}
	return false;
}

void config_resolve(struct config *c)
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
		const struct config_layer *layers[] = { &c->ptp4l_global, &c->global, &in->ptp4l,
							&in->layer };

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
}

const struct config_interface *config_find_interface(const struct config *c, const char *ifname)
{
	for (size_t i = 0; c && i < c->n_interfaces; i++) {
		if (strcmp(c->interfaces[i].ifname, ifname) == 0) {
			return &c->interfaces[i];
		}
	}
	return NULL;
}

const struct config_instance *config_find_instance(const struct config *c, const char *name)
{
	for (size_t i = 0; c && i < c->n_instances; i++) {
		if (strcmp(c->instances[i].options.name, name) == 0) {
			return &c->instances[i];
		}
	}
	return NULL;
}

const struct config_instance *config_instance_for_interface(const struct config *c,
							    const char *ifname, bool has_phc)
{
	const struct config_instance *auto_owner = NULL;

	for (size_t i = 0; i < c->n_instances; i++) {
		const struct config_instance *in = &c->instances[i];

		if (in->options.interfaces.auto_select) {
			auto_owner = in;
		} else if (config_selection_has(&in->options.interfaces, ifname)) {
			return in;
		}
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

		for (size_t k = 0; k < c->n_ptp4l_sections; k++) {
			const struct config_ptp4l_section *s = &c->ptp4l_sections[k];

			if (s->instance == owner && strcmp(s->ifname, ifname) == 0) {
				config_keys_apply(&s->layer, SCOPE_PORT, ret);
			}
		}
	}
	if (itf) {
		config_keys_apply(&itf->layer, SCOPE_PORT, ret);
	}
	return 0;
}
