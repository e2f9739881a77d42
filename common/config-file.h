/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd.conf: loading, validation, per-port resolution and diffing of the INI configuration. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ptp/options.h"
#include "ptp/util.h"

/* Implicit instance when a configuration has no [instance NAME] section at all. */
#define CONFIG_DEFAULT_INSTANCE "default"
/* Upper bound of table keys: one bit per key in a layer's "set" mask. */
#define CONFIG_KEYS_MAX 192

/* Bounds of one load: a file's size, the drop-ins read, the errors shown ("and N more"). */
#define CONFIG_FILE_MAX 1048576
#define CONFIG_DROPINS_MAX 1024
#define CONFIG_ERRORS_MAX 50

/* Keys of the supervisor itself: valid in [global] only. */
struct daemon_options {
	int32_t logging_level; /* syslog priority, as ptp4l's logging_level */
	char system_clock_instance[OPTIONS_NAME_MAX]; /* instance steering CLOCK_REALTIME; "" = none
						       */
	uint32_t restart_limit_burst;		      /* worker restarts allowed per interval ... */
	uint32_t restart_limit_interval_sec;	      /* ... after which the port stays FAULTY */
	uint32_t restart_backoff_initial_ms;
	uint32_t restart_backoff_max_ms;
	uint32_t polkit_max_pending;		/* polkit checks in flight, all callers ... */
	uint32_t polkit_max_pending_per_caller; /* ... and one D-Bus sender */
};

/* Where a section or a key came from, for "file:line:" messages. */
struct config_pos {
	uint32_t file; /* index into config.files */
	uint32_t line;
};

/*
 * What one section wrote: the values of the keys it set and a bit per table key saying which.
 * Resolution applies layers in order, copying only the set keys: defaults <- [global] <-
 * [instance NAME] <- [interface IFNAME].
 */
struct config_layer {
	struct daemon_options daemon;
	struct instance_options instance;
	struct port_options port;
	uint64_t set[CONFIG_KEYS_MAX / 64];
	struct config_pos set_at[CONFIG_KEYS_MAX];
	struct config_pos section; /* first header of this section */
	struct config_pos last;	   /* its latest header: a later file may amend the section */
};

/* Did layer l set table key number i (config_keys_index())? */
static inline bool config_layer_is_set(const struct config_layer *l, size_t i)
{
	return (l->set[i / 64] >> (i % 64)) & 1;
}

static inline void config_layer_mark_set(struct config_layer *l, size_t i)
{
	l->set[i / 64] |= UINT64_C(1) << (i % 64);
}

struct config_instance {
	struct instance_options options; /* resolved: defaults <- global <- instance */
	struct port_options port;	 /* resolved port defaults of this instance's ports */
	struct config_layer layer;
	/* The [global] section of its ptp4l_config file, under layer; section.line 0: none. */
	struct config_layer ptp4l;
};

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
	/* Keys of ptp4l_config files that are ignored, one "file:line: ..." line each; NULL: none.
	 */
	char *warnings;
	char **files; /* every file read, in order (main file, then drop-ins), escaped */
	size_t n_files;
};

/*
 * Load path and then every *.conf in dropin_dir in lexical (strcmp) order. dropin_dir NULL means
 * path + ".d". A missing main file is an error unless main_optional (the daemon's default path:
 * then built-in defaults apply); a missing drop-in directory is not. A section may appear in
 * several files: a later file's keys override (amend) the earlier ones of the same section; twice
 * in one file it is an error.
 *
 * Every problem is reported as one "file:line: what is wrong, what was expected" line in *errors
 * (malloc'ed, newline-separated, NULL when there is none; the caller frees it). Returns 0 and
 * sets *ret, or -EINVAL when the configuration has errors, or another -errno. *ret is written
 * only on success, so a failed reload leaves the running configuration alone.
 */
int config_load(const char *path, const char *dropin_dir, bool main_optional, struct config **ret,
		char **errors);
/*
 * config_load(), and in *report (NULL: none; malloc'ed) one line per key of every ptp4l_config
 * file read: "file:line: key value: " and "honoured (as phcd key X = V)", "honoured (phcd's
 * behaviour: ...)" or "not honoured (warning, the key is ignored): why" / "not honoured (error,
 * the configuration is refused): why". With ptp4l_path, path and dropin_dir are not read: the
 * configuration is that one linuxptp file, as [global]'s ptp4l_config.
 */
int config_load_report(const char *path, const char *dropin_dir, bool main_optional,
		       const char *ptp4l_path, struct config **ret, char **errors, char **report);
struct config *config_free(struct config *c);
/*
 * A file name as shown (config.files, messages, D-Bus): valid UTF-8, each byte that is not part
 * of a valid sequence, a control character or a backslash written as \xNN. malloc'ed; NULL: no
 * memory.
 */
char *config_escape_name(const char *name);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct config *, config_free);

/*
 * `phcd --check-config [-f FILE]`: load path (and dropin_dir, NULL: path + ".d"), print every
 * error, or a summary of the instances, to out. 0 or -EINVAL (or another -errno). main_optional
 * as config_load(): the daemon's default path may be missing.
 */
int config_check_full(const char *path, const char *dropin_dir, bool main_optional, FILE *out);
/* `phcd --check-config --ptp4l-config FILE`: a bare linuxptp file, with the per-key report. */
int config_check_ptp4l(const char *ptp4l_path, FILE *out);
int config_check_dir(const char *path, const char *dropin_dir, FILE *out);
/* The same with path + ".d". */
int config_check(const char *path, FILE *out);

const struct config_instance *config_find_instance(const struct config *c, const char *name);

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

enum config_change {
	CONFIG_UNCHANGED = 0,
	CONFIG_ADDED,
	CONFIG_REMOVED,
	CONFIG_CHANGED,
};

const char *config_change_to_string(enum config_change c);

/* Did the instance's own options (data sets, clock, servo, membership) change? */
enum config_change config_diff_instance(const struct config *old, const struct config *new,
					const char *name);
/* CHANGED only in priority1/priority2 (which the engine takes in place, without a restart)? */
bool config_instance_priorities_only(const struct config *old, const struct config *new,
				     const char *name);
/* Did the effective options of this port change? ADDED/REMOVED follow the instance. */
enum config_change config_diff_port(const struct config *old, const struct config *new,
				    const char *instance, const char *ifname);
/* Did any daemon key ([global] only) change? */
bool config_daemon_changed(const struct config *old, const struct config *new);

/* Print every key of the table with its sections, default and range (for docs and --help). */
void config_dump_keys(FILE *out);
