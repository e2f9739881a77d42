/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd.conf: the loaded configuration, the one way to load it, and what its users look up. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/config-index.h"
#include "common/config-layer.h"
#include "ptp/options.h"
#include "ptp/unicast-table.h"
#include "ptp/util.h"

/* Implicit instance when a configuration has no [instance NAME] section at all. */
#define CONFIG_DEFAULT_INSTANCE "default"

/* Bounds of one load: a file's size, the drop-ins read, the errors shown ("and N more"). */
#define CONFIG_FILE_MAX 1048576
#define CONFIG_DROPINS_MAX 1024
#define CONFIG_ERRORS_MAX 50
/*
 * Named sections in one configuration: [instance NAME], [interface IFNAME] and the [IFNAME] of
 * ptp4l_config files together (a section amended by a later file counts once). The first one
 * past it is refused with its file:line and nothing more is read: a configuration costs at most
 * about 8 MB and a few milliseconds to load (40,000 sections took 7.7 s and 130 MB).
 */
#define CONFIG_SECTIONS_MAX 1024

/* [unicast_master_table] sections of ptp4l_config files in one configuration (ptp4l: no bound). */
#define CONFIG_UNICAST_TABLES_MAX 64

/* A [unicast_master_table] of a ptp4l_config file, as ptp4l reads it (config-unicast.c). */
struct config_unicast_table {
	struct unicast_master_table table; /* table_id 0: the section has none (an error) */
	struct config_pos section;	   /* its header */
	struct config_pos id_at;	   /* its table_id line */
	bool ptp4l;			   /* of a linuxptp file (else of phcd.conf) */
};

struct config_instance {
	struct instance_options options; /* resolved: defaults <- global <- instance */
	struct port_options port;	 /* resolved port defaults of this instance's ports */
	/*
	 * What its [instance NAME] sections set, while config_load() reads, resolves and checks;
	 * NULL once it returns (4.2 kB an instance that nothing reads after).
	 */
	struct config_layer *layer;
	/*
	 * The [global] section of its ptp4l_config file, under layer; NULL: none (most instances:
	 * a layer is 3.3 kB, config_instance_ptp4l() reads an empty one instead).
	 */
	struct config_layer *ptp4l;
};

/* An instance's ptp4l_config layer, or an empty one (nothing set) when it names no file. */
const struct config_layer *config_instance_ptp4l(const struct config_instance *in);

struct config_interface {
	char ifname[IFNAMSIZ];
	struct config_layer layer;
};

/*
 * An [IFNAME] section of a ptp4l_config file: port keys of IFNAME's port, under phcd.conf's
 * [interface IFNAME], for the ports of one instance (that of the file's [instance NAME]) or of any
 * (the file of [global]).
 */
struct config_ptp4l_section {
	char ifname[IFNAMSIZ];
	size_t instance; /* index into config.instances, or SIZE_MAX: [global]'s file */
	struct config_layer layer;
};

/* A loaded, valid configuration. Read-only for its users; replaced whole on reload. */
struct config {
	struct daemon_options daemon; /* resolved */
	struct config_layer global;
	struct config_instance *instances;
	size_t n_instances;
	struct config_interface *interfaces;
	size_t n_interfaces;
	/* The [global] section of [global]'s ptp4l_config file, under global; section.line 0: none.
	 */
	struct config_layer ptp4l_global;
	struct config_ptp4l_section *ptp4l_sections;
	size_t n_ptp4l_sections;
	/* Every [unicast_master_table] read, table ids unique across the configuration. */
	struct config_unicast_table *unicast_tables;
	size_t n_unicast_tables;
	/* Keys of ptp4l_config files that are ignored, one "file:line: ..." line each; NULL: none.
	 */
	char *warnings;
	char **files; /* every file read, in order (main file, then drop-ins), escaped */
	size_t n_files;
	/* Lookups in constant time: instances by name, interfaces by ifname, ptp4l_sections by
	 * (instance, ifname), and the first non-auto instance whose interfaces names an ifname. */
	struct config_index instance_index;
	struct config_index interface_index;
	struct config_index ptp4l_index;
	struct config_index member_index;
	size_t auto_instance; /* the instance with interfaces auto (the last), SIZE_MAX: none */
};

/* What to load: phcd.conf and its drop-ins, or one linuxptp file alone. */
struct config_source {
	const char *path;	/* phcd.conf */
	const char *dropin_dir; /* NULL: path + ".d" */
	/* A missing path is no error (the daemon's default path): the built-in defaults apply. */
	bool main_optional;
	/* Set: path and dropin_dir are not read; the configuration is that one linuxptp file (ptp4l
	 * -f FILE), as [global]'s ptp4l_config. */
	const char *ptp4l_path;
};

/*
 * The one way to load a configuration: src->path and then every *.conf in the drop-in directory
 * in lexical (strcmp) order, or src->ptp4l_path alone. A missing drop-in directory is no error. A
 * section may appear in several files: a later file's keys override (amend) the earlier ones of
 * the same section; twice in one file it is an error.
 *
 * Every problem is reported as one "file:line: what is wrong, what was expected" line in *errors
 * (malloc'ed, newline-separated, NULL when there is none; errors NULL: not wanted). With report
 * (NULL: none; malloc'ed), one line per key of every ptp4l_config file read: "file:line: key
 * value: " and "honoured (as phcd key X = V)", "honoured (phcd's behaviour: ...)" or "not honoured
 * (warning, the key is ignored): why" / "not honoured (error, the configuration is refused): why".
 * Returns 0 and sets *ret, or -EINVAL when the configuration has errors, or another -errno. *ret
 * is written only on success, so a failed reload leaves the running configuration alone.
 */
int config_load(const struct config_source *src, struct config **ret, char **errors, char **report);
struct config *config_free(struct config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct config *, config_free);

/*
 * `phcd --check-config`: config_load(src), print every error (and with src->ptp4l_path the
 * per-key report), or a summary of the instances, to out. 0 or -EINVAL (or another -errno).
 */
int config_check(const struct config_source *src, FILE *out);

const struct config_instance *config_find_instance(const struct config *c, const char *name);
/* The [unicast_master_table] whose table_id is id, or NULL. */
const struct config_unicast_table *config_find_unicast_table(const struct config *c, int32_t id);
/* phcd.conf's [interface IFNAME], or NULL. */
const struct config_interface *config_find_interface(const struct config *c, const char *ifname);

/*
 * The instance a discovered interface belongs to: the one that lists it explicitly, else the one
 * with "interfaces auto" if the interface has a PHC (or has none and that instance includes
 * software-only interfaces). NULL when no instance wants it.
 */
const struct config_instance *config_instance_for_interface(const struct config *c,
							    const char *ifname, bool has_phc);

/* Effective options of a port: global <- instance <- interface. -ENOENT for an unknown instance. */
int config_port_options(const struct config *c, const char *instance, const char *ifname,
			struct port_options *ret);
