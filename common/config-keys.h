/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The phcd.conf key table: each key's scope, parser, place, range and default. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/config-layer.h"

enum key_scope {
	SCOPE_DAEMON,	/* [global] only */
	SCOPE_INSTANCE, /* [global] and [instance NAME] */
	SCOPE_PORT,	/* [global], [instance NAME] and [interface IFNAME] */
};

struct config_key;
typedef int (*key_parser)(const struct config_key *k, const char *value, void *dst);

/* One key: where it may appear, how its text becomes a value, where the value goes. */
struct config_key {
	enum key_scope scope;
	const char *name;
	key_parser parse;
	size_t offset; /* into the scope's struct: daemon_options, instance_options, port_options */
	size_t size;
	double min, max;    /* for numbers; exact for every integer range in the table (< 2^53) */
	const char *def;    /* the default as it would be written in the file */
	const char *expect; /* what a valid value looks like; NULL: derived from min and max */
	/*
	 * A list (interfaces): the key given again in the same section of the same file adds to
	 * the value through append (a line holds at most 198 characters); a later section or file
	 * (a drop-in) replaces it. NULL: the last value wins.
	 */
	key_parser append;
};

void config_keys_daemon_defaults(struct daemon_options *o);
/* Why value (which k's parser refused with -EOPNOTSUPP) is not supported yet. */
const char *config_keys_unsupported_reason(const struct config_key *k, const char *value);
/* Exact name, or (for a "did you mean") ignoring case; NULL when there is none. */
const struct config_key *config_keys_find(const char *name, bool ignore_case);
/* The key at position i of the table, NULL past its end. */
const struct config_key *config_keys_at(size_t i);
/* Position of k in the table: its bit in config_layer.set. */
size_t config_keys_index(const struct config_key *k);
/* Where key k's value lives in layer l. */
void *config_keys_field(struct config_layer *l, const struct config_key *k);
/* Copy the keys of scope s that layer l set onto dst, a struct of that scope. */
void config_keys_apply(const struct config_layer *l, enum key_scope s, void *dst);
/* Are two structs of scope s equal in every key of that scope? */
bool config_keys_equal(const void *a, const void *b, enum key_scope s);
/* What a valid value of k looks like, for error messages. */
void config_keys_expect(const struct config_key *k, char *buf, size_t size);
/* The kernel's dev_valid_name() for the first n bytes of s. */
bool config_keys_ifname_valid(const char *s, size_t n);
/* 1 to OPTIONS_NAME_MAX - 1 letters, digits, '_' or '-'. */
bool config_keys_instance_name_valid(const char *s);
/* Print every key of the table with its sections, default and range (for docs and --help). */
void config_dump_keys(FILE *out);
