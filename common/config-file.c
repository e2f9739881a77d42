/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd.conf loading: one inih handler over the key table, layered resolution, reload diffs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config-keys.h"
#include "common/config-file.h"
#include "common/config-ptp4l.h"

enum section_kind {
	SECTION_NONE,
	SECTION_BAD,
	SECTION_GLOBAL,
	SECTION_INSTANCE,
	SECTION_INTERFACE,
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
	size_t index;	  /* of the current instance or interface; arrays may move, so no pointer */
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
	uint32_t last_error_line;
	int oom;
};

/* Length of the valid UTF-8 sequence at s (1..4) that sd-bus accepts, or 0. */
size_t config_utf8_len(const unsigned char *s)
{
	size_t n = *s < 0x80		 ? 1
		   : (*s & 0xE0) == 0xC0 ? 2
		   : (*s & 0xF0) == 0xE0 ? 3
		   : (*s & 0xF8) == 0xF0 ? 4
					 : 0;
	uint32_t c;

	if (n == 0 || (n == 2 && *s < 0xC2) || (n == 3 && *s == 0xE0 && s[1] < 0xA0) ||
	    (n == 3 && *s == 0xED && s[1] >= 0xA0) || (n == 4 && *s == 0xF0 && s[1] < 0x90) ||
	    (n == 4 && (*s > 0xF4 || (*s == 0xF4 && s[1] >= 0x90)))) {
		return 0;
	}
	c = n == 1 ? *s : (uint32_t) (*s & (0x7F >> n));
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xC0) != 0x80) {
			return 0;
		}
		c = c << 6 | (s[k] & 0x3F);
	}
	/* Noncharacters, which sd-bus refuses too. */
	if ((c >= 0xFDD0 && c <= 0xFDEF) || (n > 1 && (c & 0xFFFE) == 0xFFFE)) {
		return 0;
	}
	return n;
}

char *config_escape_name(const char *name)
{
	const unsigned char *in = (const unsigned char *) name;
	char *out = malloc(strlen(name) * 4 + 1), *o = out;

	if (!out) {
		return NULL;
	}
	for (size_t n; *in; in += n) {
		n = config_utf8_len(in);
		if (n == 0 || (n == 1 && (*in < 0x20 || *in == 0x7F || *in == '\\'))) {
			o += sprintf(o, "\\x%02x", *in);
			n = 1;
			continue;
		}
		memcpy(o, in, n);
		o += n;
	}
	*o = '\0';
	return out;
}

static const char *file_name(const struct config *c, uint32_t file)
{
	return file < c->n_files ? c->files[file] : "(built-in)";
}

/* Past CONFIG_ERRORS_MAX errors are only counted: "... and N more" ends the text. */
_printf_(3, 4) static void report(struct loader *l, struct config_pos pos, const char *fmt, ...)
{
	va_list ap;

	l->n_errors++;
	l->last_error_line = pos.line;
	if (l->n_errors > CONFIG_ERRORS_MAX) {
		return;
	}
	fprintf(l->err, "%s:%" PRIu32 ": ", file_name(l->c, pos.file), pos.line);
	va_start(ap, fmt);
	vfprintf(l->err, fmt, ap);
	va_end(ap);
	fputc('\n', l->err);
}

static struct config_pos here(const struct loader *l)
{
	return (struct config_pos){ .file = l->file, .line = l->line };
}

static struct config_layer *current_layer(struct loader *l)
{
	switch (l->section) {
	case SECTION_GLOBAL:
		return &l->c->global;
	case SECTION_INSTANCE:
		return &l->c->instances[l->index].layer;
	case SECTION_INTERFACE:
		return &l->c->interfaces[l->index].layer;
	default:
		return NULL;
	}
}

static void layer_init(struct config_layer *l, struct config_pos pos)
{
	memset(l, 0, sizeof(*l));
	l->section = pos;
	l->last = pos;
}

static int add_instance(struct config *c, const char *name, struct config_pos pos)
{
	struct config_instance *n;

	n = reallocarray(c->instances, c->n_instances + 1, sizeof(*n));
	if (!n) {
		return -ENOMEM;
	}
	c->instances = n;
	n = &c->instances[c->n_instances++];
	memset(n, 0, sizeof(*n));
	layer_init(&n->layer, pos);
	snprintf(n->options.name, sizeof(n->options.name), "%s", name);
	return 0;
}

static int add_interface(struct config *c, const char *ifname, struct config_pos pos)
{
	struct config_interface *n;

	n = reallocarray(c->interfaces, c->n_interfaces + 1, sizeof(*n));
	if (!n) {
		return -ENOMEM;
	}
	c->interfaces = n;
	n = &c->interfaces[c->n_interfaces++];
	memset(n, 0, sizeof(*n));
	layer_init(&n->layer, pos);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ifname);
	return 0;
}

static const struct config_interface *config_find_interface(const struct config *c,
							    const char *ifname)
{
	for (size_t i = 0; c && i < c->n_interfaces; i++) {
		if (strcmp(c->interfaces[i].ifname, ifname) == 0) {
			return &c->interfaces[i];
		}
	}
	return NULL;
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
	struct config_layer *old = (struct config_layer *) (oi	 ? &oi->layer
							    : of ? &of->layer
								 : NULL);
	int r;

	l->section = SECTION_BAD;
	if (inst ? !config_keys_instance_name_valid(name)
		 : !config_keys_ifname_valid(name, strlen(name))) {
		report(l, here(l), "invalid %s name \"%s\", expected %s", what, name,
		       inst ? "1 to 31 letters, digits, '_' or '-'"
			    : "1 to 15 characters without '/', ':' or spaces");
		return;
	}
	if (old && old->last.file == l->file) {
		report(l, here(l),
		       "duplicate [%s %s] in one file, expected each %s once per file (first at "
		       "%s:%" PRIu32 "; a later file may amend it)",
		       what, name, what, file_name(l->c, old->last.file), old->last.line);
		return;
	}
	if (old) {
		old->last = here(l);
		l->section = kind;
		l->index = (size_t) (inst ? oi - l->c->instances : of - l->c->interfaces);
		return;
	}
	r = inst ? add_instance(l->c, name, here(l)) : add_interface(l->c, name, here(l));
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

	l->section_line = l->line;

	if (!close) {
		l->section = SECTION_BAD;
		report(l, here(l),
		       "section header without ']', expected [global], [instance NAME] "
		       "or [interface IFNAME]");
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
			l->c->global.section = here(l);
		}
	} else if (strcmp(inner, "instance") == 0 && *arg) {
		open_named(l, SECTION_INSTANCE, arg);
	} else if (strcmp(inner, "interface") == 0 && *arg) {
		open_named(l, SECTION_INTERFACE, arg);
	} else {
		l->section = SECTION_BAD;
		report(l, here(l),
		       "unknown section [%.*s], expected [global], [instance NAME] or "
		       "[interface IFNAME]",
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
		report(l, here(l),
		       "key \"%s\" outside of any section, expected a [global], [instance NAME] or "
		       "[interface IFNAME] header before it",
		       name);
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
			report(l, here(l),
			       "unknown key \"%s\", expected \"%s\" (names are case-sensitive)",
			       name, near->name);
		} else {
			report(l, here(l),
			       "unknown key \"%s\", expected a key listed in phcd.conf(5)", name);
		}
		return 1;
	}
	if (!scope_allows(k->scope, l->section)) {
		report(l, here(l), "key \"%s\" is not valid in this section, expected it in %s",
		       name, scope_sections[k->scope]);
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
		report(l, here(l), "%s = %s is out of range, expected %s", name, value, expect);
		return 1;
	}
	if (r == -EOPNOTSUPP) {
		report(l, here(l), "%s = %s is not supported yet: %s; expected %s", name, value,
		       config_keys_unsupported_reason(k, value), expect);
		return 1;
	}
	if (r < 0) {
		report(l, here(l), "%s = %s is not a valid value, expected %s", name, value,
		       expect);
		return 1;
	}
	config_layer_mark_set(layer, idx);
	layer->set_at[idx] = here(l);
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

	/* By hand, never more than a line of buffer: a file without newlines costs no memory. */
	while ((ch = getc_unlocked(l->f)) != EOF) {
		if (++l->bytes > CONFIG_FILE_MAX) {
			l->line++;
			report(l, here(l),
			       "file is larger than %d bytes, expected a phcd.conf (the rest is "
			       "not "
			       "read)",
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
		report(l, here(l),
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
			report(l, here(l),
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
		report(l, here(l), "syntax error, expected [section], key = value or a comment");
		snprintf(str, (size_t) num, "\n");
	}
	return str;
}

/*
 * Open a configuration file for reading: only a regular file (or a symlink to one, as drop-ins
 * in /etc often are). O_NONBLOCK so that a FIFO cannot hang the open; a directory, FIFO, socket
 * or device is refused after fstat() and never read. -errno, or -EISDIR, -ENODEV (device),
 * -EPIPE (FIFO or socket) for what is not a regular file.
 */
static int open_regular(const char *path, FILE **ret)
{
	struct stat st;
	int fd, flags;
	FILE *f;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode)			    ? -EISDIR
		       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? -ENODEV
								    : -EPIPE;
	}
	if (st.st_size > CONFIG_FILE_MAX) {
		close(fd);
		return -EFBIG;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret = f;
	return 0;
}

static const char *file_type_error(int r)
{
	switch (r) {
	case -EISDIR:
		return "is a directory";
	case -ENODEV:
		return "is a device";
	case -EPIPE:
		return "is a FIFO or socket";
	case -EFBIG:
		return "is larger than 1 MiB (1048576 bytes)";
	default:
		return strerror(-r);
	}
}

/* Add path to c->files, its index in *ret. */
static int add_file(struct config *c, const char *path, uint32_t *ret)
{
	char **files = reallocarray(c->files, c->n_files + 1, sizeof(char *));

	if (!files) {
		return -ENOMEM;
	}
	c->files = files;
	/* Shown on D-Bus and in messages, which must be UTF-8: any other byte escaped. */
	files[c->n_files] = config_escape_name(path);
	if (!files[c->n_files]) {
		return -ENOMEM;
	}
	*ret = (uint32_t) c->n_files++;
	return 0;
}

static int load_file(struct loader *l, const char *path, bool optional)
{
	int r;

	r = add_file(l->c, path, &l->file);
	if (r < 0) {
		return r;
	}
	l->path = path;
	l->line = 0;
	l->bytes = 0;
	/* Every file starts outside any section: a drop-in's keys never land in the last file's. */
	l->section = SECTION_NONE;

	r = open_regular(path, &l->f);
	if (r == -ENOENT && optional) {
		return 0;
	}
	if (r < 0) {
		report(l, here(l), "cannot open: %s, expected a readable regular file",
		       file_type_error(r));
		return 0;
	}
	r = ini_parse_stream(read_line, l, handler, l);
	fclose(l->f);
	l->f = NULL;
	if (l->oom) {
		return -ENOMEM;
	}
	/* A syntax error inih found itself (no '=' on a key line): report it unless we did. */
	if (r > 0) {
		l->line = (uint32_t) r;
		report(l, here(l), "syntax error, expected [section], key = value or a comment");
	}
	return 0;
}

/* ---- ptp4l_config: a linuxptp file as a layer under the section that names it ---- */

/* One verdict line; a warning also goes to warnings, a refusal to the errors. */
_printf_(5, 6) static void verdict(struct loader *l, struct config_pos pos, const char *line,
				   enum ptp4l_verdict v, const char *fmt, ...)
{
	static const char *const head[] = {
		[PTP4L_HONOURED] = "honoured",
		[PTP4L_IGNORED] = "not honoured (warning, the key is ignored)",
		[PTP4L_REFUSED] = "not honoured (error, the configuration is refused)",
	};
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (l->verdicts) { /* only when a report was asked for: the daemon keeps none */
		fprintf(l->verdicts, "%s:%" PRIu32 ": %s: %s%s%s\n", file_name(l->c, pos.file),
			pos.line, line, head[v], v == PTP4L_HONOURED ? " " : ": ", text);
	}
	if (v == PTP4L_IGNORED && ++l->n_warnings <= CONFIG_ERRORS_MAX) {
		fprintf(l->warn, "%s:%" PRIu32 ": %s: %s: %s\n", file_name(l->c, pos.file),
			pos.line, line, head[v], text);
	} else if (v == PTP4L_REFUSED) {
		report(l, pos, "%s: not honoured: %s", line, text);
	}
}

/* State of one ptp4l file: where its keys go. */
struct ptp4l_file {
	struct config_layer *global; /* the file's [global] */
	size_t owner;		     /* instance index, SIZE_MAX: [global]'s file */
	size_t section;		     /* current [IFNAME] in c->ptp4l_sections, SIZE_MAX: [global] */
	bool in_section;	     /* a header was seen */
	size_t first_section;	     /* this file's first entry in c->ptp4l_sections */
};

static struct config_layer *ptp4l_layer(struct loader *l, const struct ptp4l_file *pf)
{
	return pf->section == SIZE_MAX ? pf->global : &l->c->ptp4l_sections[pf->section].layer;
}

/* [IFNAME]: that port's keys, and (as ptp4l) the port itself: the file's interfaces. */
static void ptp4l_open_section(struct loader *l, struct ptp4l_file *pf, struct config_pos pos,
			       const char *name)
{
	const struct config_key *itf = config_keys_find("interfaces", false);
	struct config_ptp4l_section *n;
	const char *why = ptp4l_special_section(name);
	size_t idx = config_keys_index(itf);
	int r;

	pf->in_section = true;
	pf->section = SIZE_MAX;
	if (strcmp(name, "global") == 0) {
		return;
	}
	pf->section = SIZE_MAX - 1; /* keys of a refused section are not read */
	if (why) {
		report(l, pos, "[%s] is not honoured: %s", name, why);
		return;
	}
	if (!config_keys_ifname_valid(name, strlen(name))) {
		report(l, pos,
		       "invalid section [%s], expected [global] or [IFNAME] with an interface name "
		       "of 1 to 15 characters",
		       name);
		return;
	}
	for (size_t i = pf->first_section; i < l->c->n_ptp4l_sections; i++) {
		if (strcmp(l->c->ptp4l_sections[i].ifname, name) == 0) {
			report(l, pos, "duplicate [%s] in one file (first at %s:%" PRIu32 ")", name,
			       file_name(l->c, l->c->ptp4l_sections[i].layer.section.file),
			       l->c->ptp4l_sections[i].layer.section.line);
			return;
		}
	}
	n = reallocarray(l->c->ptp4l_sections, l->c->n_ptp4l_sections + 1, sizeof(*n));
	if (!n) {
		l->oom = 1;
		return;
	}
	l->c->ptp4l_sections = n;
	n = &n[l->c->n_ptp4l_sections];
	memset(n, 0, sizeof(*n));
	layer_init(&n->layer, pos);
	snprintf(n->ifname, sizeof(n->ifname), "%s", name);
	n->instance = pf->owner;
	pf->section = l->c->n_ptp4l_sections++;
	if (config_layer_is_set(pf->global, idx)) {
		r = itf->append(itf, name, config_keys_field(pf->global, itf));
	} else {
		r = itf->parse(itf, name, config_keys_field(pf->global, itf));
	}
	if (r < 0) {
		report(l, pos, "[%s]: more than %d interfaces, expected at most %d", name,
		       OPTIONS_INTERFACES_MAX, OPTIONS_INTERFACES_MAX);
		return;
	}
	config_layer_mark_set(pf->global, idx);
	pf->global->set_at[idx] = pos;
	verdict(l, pos, name, PTP4L_HONOURED,
		"(a port, as in ptp4l: phcd key interfaces, unless phcd.conf sets it; the "
		"section's keys are its port keys)");
}

static void ptp4l_key(struct loader *l, struct ptp4l_file *pf, struct config_pos pos,
		      const char *key, const char *value)
{
	struct config_layer *layer = ptp4l_layer(l, pf);
	struct ptp4l_map m;
	char line[PTP4L_LINE_MAX + 2], expect[256];
	size_t idx;
	int r;

	snprintf(line, sizeof(line), "%s %s", key, value);
	if (ptp4l_map_key(key, value, &m) < 0) {
		verdict(l, pos, line, PTP4L_REFUSED,
			"unknown key \"%s\", expected a key of linuxptp's ptp4l listed in "
			"phcd.conf(5)",
			key);
		return;
	}
	if (!m.key) {
		verdict(l, pos, line, m.verdict,
			m.verdict == PTP4L_HONOURED ? "(phcd's behaviour: %s)" : "%s", m.reason);
		return;
	}
	if (pf->section != SIZE_MAX && m.key->scope != SCOPE_PORT) {
		verdict(l, pos, line, PTP4L_REFUSED,
			"%s is not a port key, expected it in [global] (as ptp4l does)", key);
		return;
	}
	if (m.key->scope == SCOPE_DAEMON && pf->owner != SIZE_MAX) {
		verdict(l, pos, line, PTP4L_IGNORED,
			"%s is a daemon key, which only the ptp4l_config of [global] sets", key);
		return;
	}
	idx = config_keys_index(m.key);
	r = m.key->parse(m.key, m.value, config_keys_field(layer, m.key));
	if (r < 0) {
		config_keys_expect(m.key, expect, sizeof(expect));
		if (m.reason) {
			verdict(l, pos, line, m.cosmetic ? PTP4L_IGNORED : PTP4L_REFUSED,
				"%s (phcd key %s takes %s)", m.reason, m.key->name, expect);
		} else {
			verdict(l, pos, line, m.cosmetic ? PTP4L_IGNORED : PTP4L_REFUSED,
				"%s for phcd key %s, expected %s",
				r == -ERANGE ? "out of range" : "not a valid value", m.key->name,
				expect);
		}
		return;
	}
	if (config_layer_is_set(layer, idx) && layer->set_at[idx].file == pos.file) {
		verdict(l, pos, line, PTP4L_HONOURED,
			"(as phcd key %s = %s; line %" PRIu32
			"'s value is overridden, as in ptp4l)",
			m.key->name, m.value, layer->set_at[idx].line);
	} else {
		verdict(l, pos, line, PTP4L_HONOURED, "(as phcd key %s = %s)", m.key->name,
			m.value);
	}
	config_layer_mark_set(layer, idx);
	layer->set_at[idx] = pos;
}

/* One line of a ptp4l file: at most PTP4L_LINE_MAX characters; 0 at the end, <0 too long. */
static int ptp4l_read_line(FILE *f, char *buf, size_t size, uint64_t *bytes, bool *nul)
{
	size_t n = 0;
	bool overlong = false;
	int ch = EOF;

	*nul = false;
	while ((ch = getc_unlocked(f)) != EOF) {
		if (++*bytes > CONFIG_FILE_MAX) {
			return -EFBIG;
		}
		if (ch == '\n') {
			break;
		}
		*nul |= ch == '\0';
		if (n + 1 < size) {
			buf[n++] = (char) ch;
		} else {
			overlong = true;
		}
	}
	buf[n] = '\0';
	if (n == 0 && ch == EOF) {
		return 0;
	}
	return overlong ? -E2BIG : 1;
}

/* Read the linuxptp file path into global (and [IFNAME] sections owned by owner). */
static int ptp4l_read(struct loader *l, const char *path, struct config_pos at,
		      struct config_layer *global, size_t owner)
{
	struct ptp4l_file pf = {
		.global = global,
		.owner = owner,
		.section = SIZE_MAX,
		.first_section = l->c->n_ptp4l_sections,
	};
	char buf[PTP4L_LINE_MAX + 1]; /* a longer line is an error */
	uint64_t bytes = 0;
	struct config_pos pos = { 0 };
	FILE *f = NULL;
	bool nul;
	int r;

	r = add_file(l->c, path, &pos.file);
	if (r < 0) {
		return r;
	}
	r = open_regular(path, &f);
	if (r < 0 && at.line == 0) { /* phcd --ptp4l-config FILE: as a phcd.conf that cannot be */
		report(l, pos, "cannot open: %s, expected a readable regular file",
		       file_type_error(r));
		return 0;
	}
	if (r < 0) {
		report(l, at, "ptp4l_config %s: cannot open: %s, expected a readable regular file",
		       l->c->files[pos.file], file_type_error(r));
		return 0;
	}
	while ((r = ptp4l_read_line(f, buf, sizeof(buf), &bytes, &nul)) != 0 && !l->oom) {
		struct ptp4l_line pl;

		pos.line++;
		if (r == -EFBIG) {
			report(l, pos,
			       "file is larger than %d bytes, expected a ptp4l configuration "
			       "(the rest is not read)",
			       CONFIG_FILE_MAX);
			break;
		}
		if (r < 0 || nul) {
			report(l, pos,
			       "line is too long or contains a NUL byte, expected at most %d "
			       "characters of text",
			       PTP4L_LINE_MAX);
			continue;
		}
		switch (ptp4l_parse_line(buf, &pl)) {
		case PTP4L_LINE_BLANK:
			break;
		case PTP4L_LINE_ERROR:
			report(l, pos, "%s", pl.error);
			break;
		case PTP4L_LINE_SECTION:
			ptp4l_open_section(l, &pf, pos, pl.section);
			break;
		case PTP4L_LINE_KEY:
			if (!pf.in_section) {
				report(l, pos,
				       "key \"%s\" outside of any section, expected [global] or "
				       "[IFNAME] before it (as ptp4l)",
				       pl.key);
			} else if (pf.section != SIZE_MAX - 1) {
				ptp4l_key(l, &pf, pos, pl.key, pl.value);
			}
			break;
		}
	}
	fclose(f);
	return l->oom ? -ENOMEM : 0;
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
	if (l->verdicts) { /* the report names it, as it names each line */
		fprintf(l->verdicts,
			"%s: no network_transport: UDPv4, ptp4l's default (as phcd key "
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
		target = &l->c->instances[l->index].ptp4l;
		owner = l->index;
	} else {
		report(l, here(l),
		       "key \"ptp4l_config\" is not valid in this section, expected it in [global] "
		       "or [instance NAME]");
		return;
	}
	if (target->section.line) {
		report(l, here(l),
		       "a second ptp4l_config for this section, expected one (first at %s:%" PRIu32
		       ")",
		       file_name(l->c, target->section.file), target->section.line);
		return;
	}
	if (!*value) {
		report(l, here(l), "ptp4l_config without a path, expected a linuxptp file");
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
	layer_init(target, here(l));
	if (ptp4l_read(l, path, here(l), target, owner) < 0) {
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
			_cleanup_free_ char *name = config_escape_name(dir);

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

static bool selection_has(const struct interface_selection *s, const char *ifname)
{
	for (unsigned int i = 0; i < s->n_names; i++) {
		if (strcmp(s->names[i], ifname) == 0) {
			return true;
		}
	}
	return false;
}

static size_t key_index(const char *name)
{
	return config_keys_index(config_keys_find(name, false));
}

/* Where an instance's key was set: its own line, else [global]'s, else its section header. */
/* The layer that set an instance's key last in resolution order (a ptp4l_config's too), or NULL. */
static const struct config_layer *key_layer(const struct config *c,
					    const struct config_instance *in, size_t i)
{
	const struct config_layer *order[] = { &in->layer, &in->ptp4l, &c->global,
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

	return l ? l->set_at[i] : in->layer.section;
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
		report(l, at,
		       "instance %s has clock_backend = system, which takes software timestamps, "
		       "but time_stamping is hardware%s%s; expected time_stamping = software or "
		       "auto",
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
		report(l, at,
		       "instance %s has slaveOnly = 1 and masterOnly = 1%s: the port could be "
		       "neither slave nor master, expected at most one of them",
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
	const struct config_instance *auto_owner = NULL;

	for (size_t i = 0; i < c->n_instances; i++) {
		if (c->instances[i].options.interfaces.auto_select) {
			auto_owner = &c->instances[i];
		}
		check_port_combination(l, &c->instances[i], NULL, &c->instances[i].port);
	}
	for (size_t k = 0; k < c->n_interfaces; k++) {
		const struct config_interface *itf = &c->interfaces[k];
		const struct config_instance *owner = NULL;
		struct port_options p;

		for (size_t i = 0; i < c->n_instances && !owner; i++) {
			if (!c->instances[i].options.interfaces.auto_select &&
			    selection_has(&c->instances[i].options.interfaces, itf->ifname)) {
				owner = &c->instances[i];
			}
		}
		owner = owner ? owner : auto_owner;
		if (!owner) {
			report(l, itf->layer.section,
			       "[interface %s] is in no instance: no instance names it in "
			       "interfaces and none has interfaces = auto; expected %s in an "
			       "instance's interfaces",
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

/* Checks across sections and files, once everything is read and resolved. */
static void cross_check(struct loader *l)
{
	struct config *c = l->c;
	const struct config_instance *auto_owner = NULL;

	for (size_t i = 0; i < c->n_instances; i++) {
		const struct config_instance *in = &c->instances[i];
		const struct interface_selection *sel = &in->options.interfaces;

		if (sel->auto_select) {
			if (auto_owner) {
				struct config_pos p = key_pos(c, auto_owner, "interfaces");

				report(l, key_pos(c, in, "interfaces"),
				       "instance %s selects interfaces auto, but instance %s "
				       "already "
				       "does (%s:%" PRIu32 "), expected at most one instance with "
				       "interfaces auto",
				       in->options.name, auto_owner->options.name,
				       file_name(c, p.file), p.line);
			}
			auto_owner = in;
			continue;
		}
		for (unsigned int n = 0; n < sel->n_names; n++) {
			for (size_t j = 0; j < i; j++) {
				const struct config_instance *o = &c->instances[j];
				struct config_pos p = key_pos(c, o, "interfaces");

				if (o->options.interfaces.auto_select ||
				    !selection_has(&o->options.interfaces, sel->names[n])) {
					continue;
				}
				report(l, key_pos(c, in, "interfaces"),
				       "interface %s is in instance %s and already in instance %s "
				       "(%s:%" PRIu32 "), expected each interface in one instance",
				       sel->names[n], in->options.name, o->options.name,
				       file_name(c, p.file), p.line);
			}
		}
	}
	check_combinations(l);
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct config_instance *in = &c->instances[i];

		/* ptp4l's designated master or slave: exactly one static role. */
		if (in->port.BMCA == OPTIONS_BMCA_NOOP &&
		    in->port.masterOnly == in->options.slaveOnly) {
			report(l, key_pos(c, in, "BMCA"),
			       "instance %s: BMCA noop with %s, expected a static role: masterOnly "
			       "1 "
			       "(a designated master) or slaveOnly 1 (a designated slave)",
			       in->options.name,
			       in->port.masterOnly ? "both masterOnly and slaveOnly"
						   : "neither masterOnly nor slaveOnly");
		}
		/* As ptp4l: a port that never measures its link cannot compute asCapable. */
		if (in->port.inhibit_delay_req && in->port.asCapable != OPTIONS_AS_CAPABLE_TRUE) {
			report(l, key_pos(c, in, "inhibit_delay_req"),
			       "instance %s: inhibit_delay_req 1 with asCapable auto, expected "
			       "asCapable true (a port that never measures its link cannot be "
			       "found "
			       "asCapable)",
			       in->options.name);
		}
	}
	/* "auto": the instance with a SLAVE port, chosen at run time (daemon/sysclock-follow.c). */
	if (c->daemon.system_clock_instance[0] &&
	    strcmp(c->daemon.system_clock_instance, "auto") != 0 &&
	    !config_find_instance(c, c->daemon.system_clock_instance)) {
		report(l, c->global.set_at[key_index("system_clock_instance")],
		       "system_clock_instance = %s names no instance, expected the name of an "
		       "[instance NAME]",
		       c->daemon.system_clock_instance);
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
				file_name(l->c, low->set_at[i].file), low->set_at[i].line, k->name,
				what, file_name(l->c, high->set_at[i].file), high->set_at[i].line);
		}
	}
}

static void note_overrides(struct loader *l)
{
	struct config *c = l->c;
	char what[64];

	note_layer(l, &c->ptp4l_global, &c->global, "");
	for (size_t i = 0; i < c->n_instances; i++) {
		snprintf(what, sizeof(what), " in instance %s", c->instances[i].options.name);
		note_layer(l, &c->ptp4l_global, &c->instances[i].layer, what);
		note_layer(l, &c->instances[i].ptp4l, &c->instances[i].layer, "");
	}
	for (size_t k = 0; k < c->n_ptp4l_sections; k++) {
		const struct config_interface *itf = config_find_interface(
			c, c->ptp4l_sections[k].ifname);

		if (itf) {
			note_layer(l, &c->ptp4l_sections[k].layer, &itf->layer, "");
		}
	}
}

static void resolve(struct config *c)
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

struct config *config_free(struct config *c)
{
	if (!c) {
		return NULL;
	}
	for (size_t i = 0; i < c->n_files; i++) {
		free(c->files[i]);
	}
	free(c->files);
	free(c->instances);
	free(c->interfaces);
	free(c->ptp4l_sections);
	free(c->warnings);
	free(c);
	return NULL;
}

int config_load(const char *path, const char *dropin_dir, bool main_optional, struct config **ret,
		char **errors)
{
	return config_load_report(path, dropin_dir, main_optional, NULL, ret, errors, NULL);
}

/* The text of a memstream, or NULL when it is empty. */
static char *take_text(FILE *f, char **text, size_t *size)
{
	fclose(f);
	if (*size == 0) {
		free(*text);
		*text = NULL;
	}
	return TAKE_PTR(*text);
}

static int load_all(struct loader *l, const char *path, const char *dropin_dir, bool main_optional,
		    const char *ptp4l_path)
{
	_cleanup_free_ char *dir = NULL;
	int r;

	if (ptp4l_path) {
		l->section = SECTION_GLOBAL;
		r = ptp4l_read(l, ptp4l_path, (struct config_pos){ 0 }, &l->c->ptp4l_global,
			       SIZE_MAX);
		if (r >= 0) {
			ptp4l_default_transport(l, &l->c->ptp4l_global, ptp4l_path);
		}
		return r;
	}
	if (!dropin_dir) {
		if (asprintf(&dir, "%s.d", path) < 0) {
			dir = NULL;
			return -ENOMEM;
		}
		dropin_dir = dir;
	}
	r = load_file(l, path, main_optional);
	return r < 0 ? r : load_dropins(l, dropin_dir);
}

int config_load_report(const char *path, const char *dropin_dir, bool main_optional,
		       const char *ptp4l_path, struct config **ret, char **errors, char **report)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_free_ char *verdicts = NULL;
	struct loader l = { 0 };
	int r;

	if (errors) {
		*errors = NULL;
	}
	if (report) {
		*report = NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return -ENOMEM;
	}
	l.c = c;
	l.last_error_line = UINT32_MAX;
	l.err = open_memstream(&l.err_text, &l.err_size);
	l.verdicts = report ? open_memstream(&l.verdicts_text, &l.verdicts_size) : NULL;
	l.warn = open_memstream(&l.warn_text, &l.warn_size);
	if (!l.err || (report && !l.verdicts) || !l.warn) {
		r = -ENOMEM;
		goto out;
	}
	r = load_all(&l, path, dropin_dir, main_optional, ptp4l_path);
	if (r < 0) {
		goto out;
	}
	if (c->n_instances == 0) {
		r = add_instance(c, CONFIG_DEFAULT_INSTANCE, (struct config_pos){ 0, 0 });
		if (r < 0) {
			goto out;
		}
	}
	resolve(c);
	note_overrides(&l);
	cross_check(&l);
	r = l.n_errors > 0 ? -EINVAL : 0;
out:
	if (l.err && l.n_errors > CONFIG_ERRORS_MAX) {
		fprintf(l.err, "... and %u more errors (only the first %d are shown)\n",
			l.n_errors - CONFIG_ERRORS_MAX, CONFIG_ERRORS_MAX);
	}
	if (l.warn) {
		if (l.n_warnings > CONFIG_ERRORS_MAX) {
			fprintf(l.warn,
				"... and %u more ignored keys (only the first %d are shown)\n",
				l.n_warnings - CONFIG_ERRORS_MAX, CONFIG_ERRORS_MAX);
		}
		c->warnings = take_text(l.warn, &l.warn_text, &l.warn_size);
	}
	if (l.verdicts) {
		verdicts = take_text(l.verdicts, &l.verdicts_text, &l.verdicts_size);
	}
	if (l.err) {
		char *e = take_text(l.err, &l.err_text, &l.err_size);

		if (errors) {
			*errors = e;
		} else {
			free(e);
		}
	}
	free(l.err_text);
	free(l.verdicts_text);
	free(l.warn_text);
	if (report) {
		*report = TAKE_PTR(verdicts);
	}
	if (r == 0) {
		*ret = TAKE_PTR(c);
	}
	return r;
}

int config_check(const char *path, FILE *out)
{
	return config_check_full(path, NULL, false, out);
}

int config_check_dir(const char *path, const char *dropin_dir, FILE *out)
{
	return config_check_full(path, dropin_dir, false, out);
}

static int check(const char *path, const char *dropin_dir, bool main_optional,
		 const char *ptp4l_path, FILE *out)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_free_ char *errors = NULL, *report = NULL;
	const char *shown = ptp4l_path ? ptp4l_path : path;
	int r;

	r = config_load_report(path, dropin_dir, main_optional, ptp4l_path, &c, &errors, &report);
	if (report) {
		fputs(report, out);
	}
	if (errors) {
		fputs(errors, out);
	}
	if (r < 0) {
		if (r != -EINVAL) {
			fprintf(out, "%s: cannot load: %s\n", shown, strerror(-r));
		}
		return r;
	}
	if (!ptp4l_path && main_optional && access(path, F_OK) < 0 && errno == ENOENT) {
		fprintf(out, "%s: not present, the built-in defaults apply\n", path);
	}
	fprintf(out, "%s: OK, %zu file(s), %zu instance(s)\n", shown, c->n_files, c->n_instances);
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct instance_options *o = &c->instances[i].options;

		fprintf(out, "  instance %s: domainNumber %u, priority1 %u, clock %s, interfaces ",
			o->name, o->domainNumber, o->priority1,
			options_clock_backend_to_string(o->clock_backend));
		if (o->interfaces.auto_select) {
			fprintf(out, "auto%s\n",
				o->include_software_interfaces ? " (software-only too)" : "");
		} else {
			for (unsigned int n = 0; n < o->interfaces.n_names; n++) {
				fprintf(out, "%s%s", n ? " " : "", o->interfaces.names[n]);
			}
			fputc('\n', out);
		}
	}
	return 0;
}

int config_check_full(const char *path, const char *dropin_dir, bool main_optional, FILE *out)
{
	return check(path, dropin_dir, main_optional, NULL, out);
}

int config_check_ptp4l(const char *ptp4l_path, FILE *out)
{
	return check(NULL, NULL, false, ptp4l_path, out);
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
		} else if (selection_has(&in->options.interfaces, ifname)) {
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

static const char *const change_names[] = {
	[CONFIG_UNCHANGED] = "unchanged",
	[CONFIG_ADDED] = "added",
	[CONFIG_REMOVED] = "removed",
	[CONFIG_CHANGED] = "changed",
};

const char *config_change_to_string(enum config_change c)
{
	return (size_t) c < ARRAY_SIZE(change_names) ? change_names[c] : NULL;
}

enum config_change config_diff_instance(const struct config *old, const struct config *new,
					const char *name)
{
	const struct config_instance *a = config_find_instance(old, name);
	const struct config_instance *b = config_find_instance(new, name);

	if (!a && !b) {
		return CONFIG_UNCHANGED;
	}
	if (!a) {
		return CONFIG_ADDED;
	}
	if (!b) {
		return CONFIG_REMOVED;
	}
	return config_keys_equal(&a->options, &b->options, SCOPE_INSTANCE) ? CONFIG_UNCHANGED
									   : CONFIG_CHANGED;
}

bool config_instance_priorities_only(const struct config *old, const struct config *new,
				     const char *name)
{
	const struct config_instance *a = config_find_instance(old, name);
	const struct config_instance *b = config_find_instance(new, name);
	struct instance_options o;

	if (!a || !b || config_keys_equal(&a->options, &b->options, SCOPE_INSTANCE)) {
		return false;
	}
	o = b->options;
	o.priority1 = a->options.priority1;
	o.priority2 = a->options.priority2;
	return config_keys_equal(&a->options, &o, SCOPE_INSTANCE);
}

enum config_change config_diff_port(const struct config *old, const struct config *new,
				    const char *instance, const char *ifname)
{
	struct port_options a, b;
	bool has_a = config_port_options(old, instance, ifname, &a) == 0;
	bool has_b = config_port_options(new, instance, ifname, &b) == 0;

	if (!has_a && !has_b) {
		return CONFIG_UNCHANGED;
	}
	if (!has_a) {
		return CONFIG_ADDED;
	}
	if (!has_b) {
		return CONFIG_REMOVED;
	}
	return config_keys_equal(&a, &b, SCOPE_PORT) ? CONFIG_UNCHANGED : CONFIG_CHANGED;
}

bool config_daemon_changed(const struct config *old, const struct config *new)
{
	return !config_keys_equal(&old->daemon, &new->daemon, SCOPE_DAEMON);
}
