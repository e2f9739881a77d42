/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to config_load(): the state of one load and the steps every reader shares (files
 * opened and named, errors collected as "file:line: ..." lines).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ini.h>

#include "common/config-file.h"

enum section_kind {
	SECTION_NONE,
	SECTION_BAD,
	SECTION_GLOBAL,
	SECTION_INSTANCE,
	SECTION_INTERFACE,
	SECTION_UNICAST, /* [unicast_master_table]: its lines go to config-unicast.c */
};

/* State of one load: the config being built, the current file/line/section, the error text. */
struct loader {
	struct config *c;
	FILE *f;
	uint32_t file;
	uint32_t line;
	uint64_t bytes; /* read of the current file, at most CONFIG_FILE_MAX */
	char buf[INI_MAX_LINE + 2];
	enum section_kind section;
	uint32_t section_line; /* of the current section's header */
	size_t index;	  /* of the current instance, interface or unicast table; arrays may move */
	const char *path; /* of the current file, as given */
	FILE *err;
	char *err_text;
	size_t err_size;
	FILE *verdicts; /* one line per key of a ptp4l_config file */
	char *verdicts_text;
	size_t verdicts_size;
	FILE *warn; /* the verdicts that are warnings, the first CONFIG_ERRORS_MAX of them */
	unsigned int n_warnings;
	char *warn_text;
	size_t warn_size;
	unsigned int n_errors;
	unsigned int n_extra_shown; /* errors shown past CONFIG_ERRORS_MAX (the section bound) */
	uint32_t last_error_line;
	int oom;
	bool full; /* CONFIG_SECTIONS_MAX reached: nothing more is read */
};

/* A file's name as shown ("(built-in)" for a position in no file). */
const char *loader_file_name(const struct config *c, uint32_t file);
/* One error at pos. Past CONFIG_ERRORS_MAX errors are only counted: "... and N more" ends the
 * text. */
_printf_(3, 4) void loader_report(struct loader *l, struct config_pos pos, const char *fmt, ...);
/* The current file and line. */
struct config_pos loader_here(const struct loader *l);
/* Add path to c->files (escaped), its index in *ret. */
int loader_add_file(struct config *c, const char *path, uint32_t *ret);
/*
 * Open a configuration file for reading: only a regular file (or a symlink to one, as drop-ins
 * in /etc often are) of at most CONFIG_FILE_MAX bytes. -errno, or -EISDIR, -ENODEV (device),
 * -EPIPE (FIFO or socket), -EFBIG for what is not one.
 */
int loader_open(const char *path, FILE **ret);
/* What loader_open()'s error r means, for "cannot open: %s". */
const char *loader_open_error(int r);
/* A new [instance NAME] (pos: its header) at the end of c->instances, in its index. */
int loader_add_instance(struct config *c, const char *name, struct config_pos pos);
/*
 * Room for one more element at the end of *array, which holds n of size bytes: it grows by
 * doubling, so that adding n elements costs O(n). -ENOMEM.
 */
int loader_grow(void **array, size_t n, size_t size);
/*
 * May a new section open at pos? False past CONFIG_SECTIONS_MAX sections: reported once, and
 * l->full set so that the readers stop.
 */
bool loader_new_section(struct loader *l, struct config_pos pos);
