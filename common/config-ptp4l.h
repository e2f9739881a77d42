/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linuxptp configuration files (ptp4l -f FILE) as a layer of phcd.conf (`ptp4l_config = PATH`):
 * their line syntax, and what phcd does with each of ptp4l's keys. Internal to the loader.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/config-keys.h"

/* Longest line read, without its newline (ptp4l reads lines of up to 1023 characters). */
#define PTP4L_LINE_MAX 1023

enum ptp4l_line_kind {
	PTP4L_LINE_BLANK,   /* empty, blanks or a comment */
	PTP4L_LINE_SECTION, /* [name] */
	PTP4L_LINE_KEY,	    /* key value */
	PTP4L_LINE_ERROR,   /* what is wrong in error */
};

struct ptp4l_line {
	enum ptp4l_line_kind kind;
	const char *section; /* SECTION: the name between the brackets */
	const char *key;     /* KEY */
	const char *value;   /* KEY: the rest of the line, blanks around it removed */
	const char *error;   /* ERROR: what is wrong and what was expected */
};

/*
 * Split one line (NUL-terminated, its newline removed) in place: `#` starts a comment anywhere,
 * blanks (spaces, tabs) around the line and a CR at its end are dropped, `[name]` opens a section,
 * otherwise the first word is the key and the rest of the line its value. Bytes that are not UTF-8
 * or are control characters are an error. Returns the kind, also in ret->kind.
 */
enum ptp4l_line_kind ptp4l_parse_line(char *line, struct ptp4l_line *ret);

enum ptp4l_verdict {
	PTP4L_HONOURED, /* set as a phcd key, or what phcd does anyway */
	PTP4L_IGNORED,	/* not honoured, but changes nothing phcd's timing depends on: a warning */
	PTP4L_REFUSED,	/* not honoured and it matters: the configuration is refused */
};

const char *ptp4l_verdict_to_string(enum ptp4l_verdict v);

/* What phcd does with one key line of a ptp4l file. */
struct ptp4l_map {
	enum ptp4l_verdict verdict;
	const struct config_key *key; /* HONOURED through this phcd key (NULL: none) ... */
	const char *value;	      /* ... set to this value (the line's own, or a translation) */
	/* Without key: why not honoured, or (HONOURED) what phcd does that equals it. With key:
	 * why a value phcd's key refuses cannot be honoured (NULL: the key's own message). */
	const char *reason;
	bool cosmetic; /* with key: a value phcd's key refuses is IGNORED, not REFUSED */
};

/* Look ptp4l's key name up with its value. -ENOENT: not a key phcd knows of ptp4l's. */
int ptp4l_map_key(const char *name, const char *value, struct ptp4l_map *ret);

/* Print the table: one line per ptp4l key with its kind, phcd key, values and reason. */
void ptp4l_dump_keys(FILE *out);
