/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd.conf and its drop-ins: one inih handler over the key table, sections, files in order. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config-keys.h"
#include "common/config-ptp4l-read.h"
#include "common/config-read.h"
#include "common/config-unicast.h"
#include "common/utf8.h"

static struct config_layer *current_layer(struct loader *l)
{
	switch (l->section) {
	case SECTION_GLOBAL:
		return &l->c->global;
	case SECTION_INSTANCE:
		return l->c->instances[l->index].layer;
	case SECTION_INTERFACE:
		return &l->c->interfaces[l->index].layer;
	default:
		return NULL;
	}
}

static int add_interface(struct config *c, const char *ifname, struct config_pos pos)
{
	struct config_interface *n;
	int r;

	r = loader_grow((void **) &c->interfaces, c->n_interfaces, sizeof(*n));
	if (r < 0) {
		return r;
	}
	r = config_index_add(&c->interface_index, config_index_hash(ifname, 0),
			     (uint32_t) c->n_interfaces);
	if (r < 0) {
		return r;
	}
	n = &c->interfaces[c->n_interfaces++];
	memset(n, 0, sizeof(*n));
	config_layer_init(&n->layer, pos);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ifname);
	return 0;
}

/*
 * "[instance NAME]" or "[interface IFNAME]": a valid name, once per file. Seen in an earlier file
 * (a drop-in amending the main file), the section continues: its keys override those before.
 */
static void open_named(struct loader *l, enum section_kind kind, const char *name)
{
	bool inst = kind == SECTION_INSTANCE;
	const char *what = inst ? "instance" : "interface";
	const struct config_instance *oi = inst ? config_find_instance(l->c, name) : NULL;
	const struct config_interface *of = inst ? NULL : config_find_interface(l->c, name);
	struct config_layer *old = (struct config_layer *) (oi	 ? oi->layer
							    : of ? &of->layer
								 : NULL);
	int r;

	l->section = SECTION_BAD;
	if (inst ? !config_keys_instance_name_valid(name)
		 : !config_keys_ifname_valid(name, strlen(name))) {
		loader_report(l, loader_here(l), "invalid %s name \"%s\", expected %s", what, name,
			      inst ? "1 to 31 letters, digits, '_' or '-'"
				   : "1 to 15 characters without '/', ':' or spaces");
		return;
	}
	if (old && old->last.file == l->file) {
		loader_report(l, loader_here(l),
			      "duplicate [%s %s] in one file, expected each %s once per file "
			      "(first at %s:%" PRIu32 "; a later file may amend it)",
			      what, name, what, loader_file_name(l->c, old->last.file),
			      old->last.line);
		return;
	}
	if (old) {
		old->last = loader_here(l);
		l->section = kind;
		l->index = (size_t) (inst ? oi - l->c->instances : of - l->c->interfaces);
		return;
	}
	if (!loader_new_section(l, loader_here(l))) {
		return;
	}
	r = inst ? loader_add_instance(l->c, name, loader_here(l))
		 : add_interface(l->c, name, loader_here(l));
	if (r < 0) {
		l->oom = 1;
		return;
	}
	l->section = kind;
	l->index = (inst ? l->c->n_instances : l->c->n_interfaces) - 1;
}

/* A "[...]" line, seen by the line reader so that sections without keys count too. */
static void open_section(struct loader *l, const char *line)
{
	char inner[INI_MAX_LINE];
	const char *close = strchr(line, ']');
	char *arg;
	size_t n;

	if (l->section == SECTION_UNICAST) {
		config_unicast_close(l, l->index);
	}
	l->section_line = l->line;

	if (!close) {
		l->section = SECTION_BAD;
		loader_report(l, loader_here(l),
			      "section header without ']', expected [global], [instance NAME] or "
			      "[interface IFNAME]");
		return;
	}
	n = (size_t) (close - line - 1);
	memcpy(inner, line + 1, n);
	inner[n] = '\0';
	/* Split "instance   NAME" into the kind and its argument. */
	arg = inner + strcspn(inner, " \t");
	if (*arg) {
		*arg++ = '\0';
		arg += strspn(arg, " \t");
		/* Trailing blanks go; blanks inside a name stay and make it invalid. */
		for (n = strlen(arg); n > 0 && (arg[n - 1] == ' ' || arg[n - 1] == '\t'); n--) {
			arg[n - 1] = '\0';
		}
	}
	if (strcmp(inner, "global") == 0 && *arg == '\0') {
		l->section = SECTION_GLOBAL;
		if (l->c->global.section.line == 0) {
			l->c->global.section = loader_here(l);
		}
	} else if (strcmp(inner, "instance") == 0 && *arg) {
		open_named(l, SECTION_INSTANCE, arg);
	} else if (strcmp(inner, "interface") == 0 && *arg) {
		open_named(l, SECTION_INTERFACE, arg);
	} else if (strcmp(inner, "unicast_master_table") == 0 && *arg == '\0') {
		l->index = config_unicast_open(l, loader_here(l), false);
		l->section = l->index == SIZE_MAX ? SECTION_BAD : SECTION_UNICAST;
	} else {
		l->section = SECTION_BAD;
		loader_report(l, loader_here(l),
			      "unknown section [%.*s], expected [global], [instance NAME], "
			      "[interface IFNAME] or [unicast_master_table]",
			      (int) (close - line - 1), line + 1);
	}
}

static const char *const scope_sections[] = {
	[SCOPE_DAEMON] = "[global]",
	[SCOPE_INSTANCE] = "[global] or [instance NAME]",
	[SCOPE_PORT] = "[global], [instance NAME] or [interface IFNAME]",
};

static bool scope_allows(enum key_scope s, enum section_kind sec)
{
	switch (sec) {
	case SECTION_GLOBAL:
		return true;
	case SECTION_INSTANCE:
		return s != SCOPE_DAEMON;
	case SECTION_INTERFACE:
		return s == SCOPE_PORT;
	default:
		return false;
	}
}

static void ptp4l_config(struct loader *l, const char *value);

/*
 * The one inih handler: look the key up in the table, check where it is, parse it in place.
 * Errors are collected by the loader, so it always returns 1 and inih's own return value is left
 * to mean a syntax error only inih saw.
 */
static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct loader *l = user;
	const struct config_key *k;
	struct config_layer *layer;
	char expect[256];
	size_t idx;
	int r;

	if (l->section == SECTION_BAD) {
		return 1; /* the header was reported already; its keys would only add noise */
	}
	if (l->section == SECTION_NONE) {
		loader_report(l, loader_here(l),
			      "key \"%s\" outside of any section, expected a [global], [instance "
			      "NAME] or [interface IFNAME] header before it",
			      name);
		return 1;
	}
	if (l->section == SECTION_UNICAST) {
		config_unicast_line(l, l->index, loader_here(l), name, value);
		return 1;
	}
	if (strcmp(name, "ptp4l_config") == 0) {
		ptp4l_config(l, value);
		return 1;
	}
	k = config_keys_find(name, false);
	if (!k) {
		const struct config_key *near = config_keys_find(name, true);

		if (near) {
			loader_report(
				l, loader_here(l),
				"unknown key \"%s\", expected \"%s\" (names are case-sensitive)",
				name, near->name);
		} else {
			loader_report(l, loader_here(l),
				      "unknown key \"%s\", expected a key listed in phcd.conf(5)",
				      name);
		}
		return 1;
	}
	if (!scope_allows(k->scope, l->section)) {
		loader_report(l, loader_here(l),
			      "key \"%s\" is not valid in this section, expected it in %s", name,
			      scope_sections[k->scope]);
		return 1;
	}
	layer = current_layer(l);
	idx = config_keys_index(k);
	config_keys_expect(k, expect, sizeof(expect));
	/* A list key again in this section of this file adds to it (struct config_key.append). */
	if (k->append && config_layer_is_set(layer, idx) && layer->set_at[idx].file == l->file &&
	    layer->set_at[idx].line > l->section_line) {
		r = k->append(k, value, config_keys_field(layer, k));
	} else {
		r = k->parse(k, value, config_keys_field(layer, k));
	}
	if (r == -ERANGE) {
		loader_report(l, loader_here(l), "%s = %s is out of range, expected %s", name,
			      value, expect);
		return 1;
	}
	if (r == -EOPNOTSUPP) {
		loader_report(l, loader_here(l), "%s = %s is not supported yet: %s; expected %s",
			      name, value, config_keys_unsupported_reason(k, value), expect);
		return 1;
	}
	if (r < 0) {
		loader_report(l, loader_here(l), "%s = %s is not a valid value, expected %s", name,
			      value, expect);
		return 1;
	}
	config_layer_mark_set(layer, idx);
	layer->set_at[idx] = loader_here(l);
	return 1;
}

/*
 * inih's reader callback, reading whole lines itself: it knows the line number (the library's
 * handler does not get one in Debian's build), sees section headers (inih does not call the
 * handler for a section without keys), and refuses what inih would silently misread: overlong
 * lines (split in two) and indented lines (taken as a continuation of the previous value).
 */
static char *read_line(char *str, int num, void *stream)
{
	struct loader *l = stream;
	size_t cap = (size_t) num < sizeof(l->buf) ? (size_t) num : sizeof(l->buf);
	size_t n = 0;
	bool nul = false, overlong = false;
	const char *p;
	int ch = EOF;

	if (l->full) {
		return NULL; /* CONFIG_SECTIONS_MAX: reported, the rest is not read */
	}
	/* By hand, never more than a line of buffer: a file without newlines costs no memory. */
	while ((ch = getc_unlocked(l->f)) != EOF) {
		if (++l->bytes > CONFIG_FILE_MAX) {
			l->line++;
			loader_report(l, loader_here(l),
				      "file is larger than %d bytes, expected a phcd.conf (the "
				      "rest is not read)",
				      CONFIG_FILE_MAX);
			return NULL;
		}
		nul |= ch == '\0';
		if (n + 1 < cap) {
			l->buf[n++] = (char) ch;
		} else {
			overlong = true;
		}
		if (ch == '\n') {
			break;
		}
	}
	if (n == 0 && ch == EOF) {
		return NULL;
	}
	l->buf[n] = '\0';
	l->line++;
	if (overlong || nul) {
		loader_report(l, loader_here(l),
			      "line is too long or contains a NUL byte, expected at most %d "
			      "characters of text",
			      num - 2);
		snprintf(str, (size_t) num, "\n");
		return str;
	}
	memcpy(str, l->buf, n + 1);
	p = str;
	if (l->line == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
	}
	if (*p == ' ' || *p == '\t') {
		p += strspn(p, " \t\r\n");
		if (*p && *p != ';' && *p != '#') {
			loader_report(l, loader_here(l),
				      "indented line, expected sections and keys at the start of "
				      "the line (continuation lines are not supported)");
			snprintf(str, (size_t) num, "\n");
		}
		return str;
	}
	if (*p == '[') {
		open_section(l, p);
		/* inih need not see a header we refused: one error per line is enough. */
		if (l->section == SECTION_BAD && l->last_error_line == l->line) {
			snprintf(str, (size_t) num, "\n");
		}
	} else if (*p && !strchr(";#\r\n", *p) && !strpbrk(p, "=:")) {
		loader_report(l, loader_here(l),
			      "syntax error, expected [section], key = value or a comment");
		snprintf(str, (size_t) num, "\n");
	}
	return str;
}

static int load_file(struct loader *l, const char *path, bool optional)
{
	int r;

	if (l->full) {
		return 0;
	}
	r = loader_add_file(l->c, path, &l->file);
	if (r < 0) {
		return r;
	}
	l->path = path;
	l->line = 0;
	l->bytes = 0;
	/* Every file starts outside any section: a drop-in's keys never land in the last file's. */
	l->section = SECTION_NONE;

	r = loader_open(path, &l->f);
	if (r == -ENOENT && optional) {
		return 0;
	}
	if (r < 0) {
		loader_report(l, loader_here(l),
			      "cannot open: %s, expected a readable regular file",
			      loader_open_error(r));
		return 0;
	}
	r = ini_parse_stream(read_line, l, handler, l);
	fclose(l->f);
	l->f = NULL;
	if (l->section == SECTION_UNICAST && !l->oom) {
		config_unicast_close(l, l->index);
		l->section = SECTION_NONE;
	}
	if (l->oom) {
		return -ENOMEM;
	}
	/* A syntax error inih found itself (no '=' on a key line): report it unless we did. */
	if (r > 0) {
		l->line = (uint32_t) r;
		loader_report(l, loader_here(l),
			      "syntax error, expected [section], key = value or a comment");
	}
	return 0;
}

/*
 * ptp4l's own default transport is UDPv4 (linuxptp config.c), phcd's L2: a linuxptp file that
 * names none runs as ptp4l runs it, as if it said UDPv4 at its ptp4l_config line.
 */
static void ptp4l_default_transport(struct loader *l, struct config_layer *global, const char *path)
{
	const struct config_key *k = config_keys_find("network_transport", false);
	size_t idx = config_keys_index(k);

	if (config_layer_is_set(global, idx) ||
	    k->parse(k, "UDPv4", config_keys_field(global, k)) < 0) {
		return;
	}
	config_layer_mark_set(global, idx);
	global->set_at[idx] = global->section;
	if (l->verdicts) {
		/* The report names a file and a line on each of its lines: the file's first here,
		 * for the key it lacks as a whole. */
		fprintf(l->verdicts,
			"%s:1: no network_transport: UDPv4, ptp4l's default (as phcd key "
			"network_transport = UDPv4; phcd.conf's default is L2)\n",
			path);
	}
}

/* `ptp4l_config = PATH` in [global] or [instance NAME]: once per section, relative to the file. */
static void ptp4l_config(struct loader *l, const char *value)
{
	_cleanup_free_ char *path = NULL;
	struct config_layer *target;
	const char *slash;
	size_t owner;

	if (l->section == SECTION_GLOBAL) {
		target = &l->c->ptp4l_global;
		owner = SIZE_MAX;
	} else if (l->section == SECTION_INSTANCE) {
		/* Allocated only for an instance that names a file (config_instance_ptp4l()). */
		struct config_layer **slot = &l->c->instances[l->index].ptp4l;

		if (!*slot && !(*slot = calloc(1, sizeof(**slot)))) {
			l->oom = 1;
			return;
		}
		target = *slot;
		owner = l->index;
	} else {
		loader_report(l, loader_here(l),
			      "key \"ptp4l_config\" is not valid in this section, expected it in "
			      "[global] or [instance NAME]");
		return;
	}
	if (target->section.line) {
		loader_report(
			l, loader_here(l),
			"a second ptp4l_config for this section, expected one (first at %s:%" PRIu32
			")",
			loader_file_name(l->c, target->section.file), target->section.line);
		return;
	}
	if (!*value) {
		loader_report(l, loader_here(l),
			      "ptp4l_config without a path, expected a linuxptp file");
		return;
	}
	slash = strrchr(l->path, '/');
	if (value[0] == '/' || !slash) {
		path = strdup(value);
	} else if (asprintf(&path, "%.*s/%s", (int) (slash - l->path), l->path, value) < 0) {
		path = NULL;
	}
	if (!path) {
		l->oom = 1;
		return;
	}
	config_layer_init(target, loader_here(l));
	if (config_ptp4l_read(l, path, loader_here(l), target, owner) < 0) {
		l->oom = 1;
		return;
	}
	ptp4l_default_transport(l, target, path);
}

static int dropin_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

/* Plain byte order, not the locale's collation: the order must not depend on LANG. */
static int dropin_compare(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dropins(struct loader *l, const char *dir)
{
	struct dirent **list = NULL;
	int n, r = 0;

	n = scandir(dir, &list, dropin_filter, dropin_compare);
	if (n < 0) {
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;

		if (r == 0 && i == CONFIG_DROPINS_MAX) {
			_cleanup_free_ char *name = utf8_escape(dir);

			fprintf(l->err, "%s: more than %d drop-ins, expected at most %d\n",
				name ? name : "?", CONFIG_DROPINS_MAX, CONFIG_DROPINS_MAX);
			l->n_errors++;
			r = 1; /* read no further, free the rest */
		}
		if (r == 0 && asprintf(&path, "%s/%s", dir, list[i]->d_name) < 0) {
			r = -ENOMEM;
		}
		if (r == 0) {
			r = load_file(l, path, false);
		}
		free(list[i]);
	}
	free(list);
	return r > 0 ? 0 : r;
}

int config_read(struct loader *l, const struct config_source *src)
{
	_cleanup_free_ char *dir = NULL;
	const char *dropin_dir = src->dropin_dir;
	int r;

	if (src->ptp4l_path) {
		l->section = SECTION_GLOBAL;
		r = config_ptp4l_read(l, src->ptp4l_path, (struct config_pos){ 0 },
				      &l->c->ptp4l_global, SIZE_MAX);
		if (r >= 0) {
			ptp4l_default_transport(l, &l->c->ptp4l_global, src->ptp4l_path);
		}
		return r;
	}
	if (!dropin_dir) {
		if (asprintf(&dir, "%s.d", src->path) < 0) {
			dir = NULL;
			return -ENOMEM;
		}
		dropin_dir = dir;
	}
	r = load_file(l, src->path, src->main_optional);
	return r < 0 ? r : load_dropins(l, dropin_dir);
}
