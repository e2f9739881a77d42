/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd.conf: one static key table, one inih handler, layered resolution, diffs between loads. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/config.h"

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
	double min, max;    /* for numbers; exact for every integer range used below (< 2^53) */
	const char *def;    /* the default as it would be written in the file */
	const char *expect; /* what a valid value looks like; NULL: derived from min and max */
};

static int parse_int(const struct config_key *k, const char *value, void *dst)
{
	char *end;
	long long v;

	errno = 0;
	/* Base 0 as ptp4l's get_ranged_int: 0xA0 is a valid timeSource. */
	v = strtoll(value, &end, 0);
	if (end == value || *end != '\0') {
		return -EINVAL;
	}
	if (errno == ERANGE || (double) v < k->min || (double) v > k->max) {
		return -ERANGE;
	}
	switch (k->size) {
	case 1: {
		int8_t x = (int8_t) v;
		memcpy(dst, &x, 1);
		break;
	}
	case 2: {
		int16_t x = (int16_t) v;
		memcpy(dst, &x, 2);
		break;
	}
	case 4: {
		int32_t x = (int32_t) v;
		memcpy(dst, &x, 4);
		break;
	}
	case 8: {
		int64_t x = v;
		memcpy(dst, &x, 8);
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int parse_bool(const struct config_key *k, const char *value, void *dst)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	int v = -1;

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(value, yes[i]) == 0) {
			v = 1;
		} else if (strcasecmp(value, no[i]) == 0) {
			v = 0;
		}
	}
	if (v < 0) {
		return -EINVAL;
	}
	if (v < k->min || v > k->max) {
		return -ERANGE;
	}
	*(bool *) dst = v;
	return 0;
}

static int parse_double(const struct config_key *k, const char *value, void *dst)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end != '\0' || !isfinite(v)) {
		return -EINVAL;
	}
	if (errno == ERANGE || v < k->min || v > k->max) {
		return -ERANGE;
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static int parse_string(const struct config_key *k, const char *value, void *dst)
{
	size_t n = strlen(value);

	if (n >= k->size) {
		return -ERANGE;
	}
	/* Zero the whole field so two equal strings compare equal bytewise in diffs. */
	memset(dst, 0, k->size);
	memcpy(dst, value, n);
	return 0;
}

/* The kernel's dev_valid_name(): what an interface name may be. */
static bool ifname_valid(const char *s, size_t n)
{
	if (n == 0 || n >= IFNAMSIZ || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.')) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char) s[i])) {
			return false;
		}
	}
	return true;
}

/* Instance names become D-Bus object path elements and log fields: keep them plain. */
static bool instance_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= OPTIONS_NAME_MAX) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char) s[i]) && s[i] != '_' && s[i] != '-') {
			return false;
		}
	}
	return true;
}

static int parse_interfaces(const struct config_key *k, const char *value, void *dst)
{
	struct interface_selection sel;
	const char *p = value;

	memset(&sel, 0, sizeof(sel));
	if (strcmp(value, "auto") == 0) {
		sel.auto_select = true;
		memcpy(dst, &sel, sizeof(sel));
		return 0;
	}
	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		if (*p == '\0') {
			break;
		}
		n = strcspn(p, " \t,");
		if (!ifname_valid(p, n) || sel.n_names >= OPTIONS_INTERFACES_MAX) {
			return -EINVAL;
		}
		for (unsigned int i = 0; i < sel.n_names; i++) {
			if (strncmp(sel.names[i], p, n) == 0 && sel.names[i][n] == '\0') {
				return -EINVAL;
			}
		}
		memcpy(sel.names[sel.n_names++], p, n);
		p += n;
	}
	if (sel.n_names == 0) {
		return -EINVAL;
	}
	memcpy(dst, &sel, sizeof(sel));
	return 0;
}

#define DEFINE_ENUM_PARSER(fn, type, from_string)                               \
	static int fn(const struct config_key *k, const char *value, void *dst) \
	{                                                                       \
		type v;                                                         \
		int r = from_string(value, &v);                                 \
		if (r < 0) {                                                    \
			return r;                                               \
		}                                                               \
		memcpy(dst, &v, sizeof(v));                                     \
		return 0;                                                       \
	}

DEFINE_ENUM_PARSER(parse_delay, enum options_delay_mechanism, options_delay_mechanism_from_string)
DEFINE_ENUM_PARSER(parse_transport, enum options_transport, options_transport_from_string)
DEFINE_ENUM_PARSER(parse_timestamping, enum options_timestamping, options_timestamping_from_string)
DEFINE_ENUM_PARSER(parse_backend, enum options_clock_backend, options_clock_backend_from_string)

#define member_size(type, m) sizeof(((type *) 0)->m)
#define KEY(scope, type, name, field, parser, min, max, def, expect)                            \
	{                                                                                       \
		scope, name, parser, offsetof(type, field), member_size(type, field), min, max, \
			def, expect                                                             \
	}
#define D(f, ...) KEY(SCOPE_DAEMON, struct daemon_options, #f, f, __VA_ARGS__)
#define I(f, ...) KEY(SCOPE_INSTANCE, struct instance_options, #f, f, __VA_ARGS__)
#define P(f, ...) KEY(SCOPE_PORT, struct port_options, #f, f, __VA_ARGS__)
/* Keys whose name is not the field's name (nested structs). */
#define I_AS(name, f, ...) KEY(SCOPE_INSTANCE, struct instance_options, name, f, __VA_ARGS__)

/*
 * Every key phcd reads. Names, defaults and ranges are ptp4l's (linuxptp 3.1 config.c) where the
 * key is ptp4l's; where phcd is narrower the expect text says why. docs/phcd.conf.5.md mirrors
 * this table (config_dump_keys prints it) and test-config checks the defaults against options.c.
 */
static const struct config_key keys[] = {
	D(logging_level, parse_int, 0, 7, "6", NULL),
	D(system_clock_instance, parse_string, 0, 0, "", "the name of an [instance NAME]"),
	D(restart_limit_burst, parse_int, 1, 1000, "5", NULL),
	D(restart_limit_interval_sec, parse_int, 1, 86400, "60", NULL),
	D(restart_backoff_initial_ms, parse_int, 0, 60000, "100", NULL),
	D(restart_backoff_max_ms, parse_int, 0, 600000, "10000", NULL),

	I(domainNumber, parse_int, 0, 255, "0", NULL),
	I(priority1, parse_int, 0, 255, "128", NULL),
	I(priority2, parse_int, 0, 255, "128", NULL),
	I(clockClass, parse_int, 0, 255, "248", NULL),
	I(clockAccuracy, parse_int, 0, 255, "0xfe", NULL),
	I(offsetScaledLogVariance, parse_int, 0, 65535, "0xffff", NULL),
	I(slaveOnly, parse_bool, 0, 1, "0", NULL),
	I(twoStepFlag, parse_bool, 1, 1, "1", "1 (one-step clocks are not supported)"),
	I(utc_offset, parse_int, 0, INT16_MAX, "37", NULL),
	I(timeSource, parse_int, 0x10, 0xfe, "0xa0", NULL),
	I(clock_backend, parse_backend, 0, 0, "phc", "phc, virtual, system or free_running"),
	I_AS("pi_proportional_const", servo.pi_proportional_const, parse_double, 0, HUGE_VAL, "0.0",
	     NULL),
	I_AS("pi_integral_const", servo.pi_integral_const, parse_double, 0, HUGE_VAL, "0.0", NULL),
	I_AS("step_threshold", servo.step_threshold, parse_double, 0, HUGE_VAL, "0.0", NULL),
	I_AS("first_step_threshold", servo.first_step_threshold, parse_double, 0, HUGE_VAL,
	     "0.00002", NULL),
	I_AS("max_frequency", servo.max_frequency, parse_int, 0, INT32_MAX, "900000000", NULL),
	I_AS("virtual_clock_offset_ns", virtual_clock.initial_offset_ns, parse_int, -1e18, 1e18,
	     "0", NULL),
	I_AS("virtual_clock_freq_ppb", virtual_clock.initial_freq_ppb, parse_int, -10000000,
	     10000000, "0", NULL),
	I(userDescription, parse_string, 0, 0, "", "at most 128 characters"),
	I(interfaces, parse_interfaces, 0, 0, "auto",
	  "auto, or up to 64 distinct interface names separated by spaces or commas"),
	I(include_software_interfaces, parse_bool, 0, 1, "0", NULL),

	/* Log intervals: ptp4l takes any int8; beyond 2^-7..2^7 s a timer makes no sense. */
	P(logAnnounceInterval, parse_int, -7, 7, "1", NULL),
	P(logSyncInterval, parse_int, -7, 7, "0", NULL),
	P(logMinDelayReqInterval, parse_int, -7, 7, "0", NULL),
	P(logMinPdelayReqInterval, parse_int, -7, 7, "0", NULL),
	P(announceReceiptTimeout, parse_int, 2, 255, "3", NULL),
	P(syncReceiptTimeout, parse_int, 0, 255, "0", NULL),
	P(delay_mechanism, parse_delay, 0, 0, "E2E", "E2E or P2P"),
	P(network_transport, parse_transport, 0, 0, "L2", "L2 (UDPv4 and UDPv6 are not supported)"),
	P(time_stamping, parse_timestamping, 0, 0, "hardware", "hardware, software or auto"),
	P(tx_timestamp_timeout, parse_int, 1, INT32_MAX, "1", NULL),
	P(masterOnly, parse_bool, 0, 1, "0", NULL),
	P(neighborPropDelayThresh, parse_int, 0, INT32_MAX, "20000000", NULL),
	P(delayAsymmetry, parse_int, INT32_MIN, INT32_MAX, "0", NULL),
	P(fault_reset_interval, parse_int, INT8_MIN, INT8_MAX, "4", NULL),
};

_Static_assert(ARRAY_SIZE(keys) <= CONFIG_KEYS_MAX, "one bit per key in config_layer.set");

static void daemon_options_defaults(struct daemon_options *o)
{
	memset(o, 0, sizeof(*o));
	o->logging_level = 6; /* LOG_INFO, as ptp4l */
	o->restart_limit_burst = 5;
	o->restart_limit_interval_sec = 60;
	o->restart_backoff_initial_ms = 100;
	o->restart_backoff_max_ms = 10000;
}

static void *scope_base(struct config_layer *l, enum key_scope s)
{
	switch (s) {
	case SCOPE_DAEMON:
		return &l->daemon;
	case SCOPE_INSTANCE:
		return &l->instance;
	case SCOPE_PORT:
		return &l->port;
	}
	return NULL;
}

/* Copy the keys of one scope that layer l set onto dst (a struct of that scope). */
static void layer_apply(const struct config_layer *l, enum key_scope s, void *dst)
{
	const uint8_t *src = scope_base((struct config_layer *) l, s);

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].scope == s && (l->set & (UINT64_C(1) << i))) {
			memcpy((uint8_t *) dst + keys[i].offset, src + keys[i].offset,
			       keys[i].size);
		}
	}
}

/* Equal in every key of scope s? Bytewise per key: parsers zero whole fields, so this is exact. */
static bool scope_equal(const void *a, const void *b, enum key_scope s)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].scope == s &&
		    memcmp((const uint8_t *) a + keys[i].offset,
			   (const uint8_t *) b + keys[i].offset, keys[i].size) != 0) {
			return false;
		}
	}
	return true;
}

static void format_expect(const struct config_key *k, char *buf, size_t size)
{
	if (k->expect) {
		snprintf(buf, size, "%s", k->expect);
	} else if (k->parse == parse_bool) {
		snprintf(buf, size, "0 or 1 (also no/yes, false/true, off/on)");
	} else if (k->parse == parse_double) {
		snprintf(buf, size, "a number of at least %g", k->min);
	} else {
		snprintf(buf, size, "an integer from %.0f to %.0f", k->min, k->max);
	}
}

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
	char *buf;
	size_t cap;
	enum section_kind section;
	size_t index; /* of the current instance or interface; arrays may move, so no pointer */
	FILE *err;
	char *err_text;
	size_t err_size;
	unsigned int n_errors;
	uint32_t last_error_line;
	int oom;
};

static const char *file_name(const struct config *c, uint32_t file)
{
	return file < c->n_files ? c->files[file] : "(built-in)";
}

_printf_(3, 4) static void report(struct loader *l, struct config_pos pos, const char *fmt, ...)
{
	va_list ap;

	fprintf(l->err, "%s:%" PRIu32 ": ", file_name(l->c, pos.file), pos.line);
	va_start(ap, fmt);
	vfprintf(l->err, fmt, ap);
	va_end(ap);
	fputc('\n', l->err);
	l->n_errors++;
	l->last_error_line = pos.line;
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

/* "[instance NAME]" or "[interface IFNAME]": a valid name, defined once in all files. */
static void open_named(struct loader *l, enum section_kind kind, const char *name)
{
	bool inst = kind == SECTION_INSTANCE;
	const char *what = inst ? "instance" : "interface";
	const struct config_instance *oi = inst ? config_find_instance(l->c, name) : NULL;
	const struct config_interface *of = inst ? NULL : config_find_interface(l->c, name);
	const struct config_layer *old = oi ? &oi->layer : of ? &of->layer : NULL;
	int r;

	l->section = SECTION_BAD;
	if (inst ? !instance_name_valid(name) : !ifname_valid(name, strlen(name))) {
		report(l, here(l), "invalid %s name \"%s\", expected %s", what, name,
		       inst ? "1 to 31 letters, digits, '_' or '-'"
			    : "1 to 15 characters without '/', ':' or spaces");
		return;
	}
	if (old) {
		report(l, here(l),
		       "duplicate [%s %s], expected each %s once (first defined at %s:%" PRIu32 ")",
		       what, name, what, file_name(l->c, old->section.file), old->section.line);
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

static const struct config_key *find_key(const char *name, bool ignore_case)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if ((ignore_case ? strcasecmp : strcmp)(keys[i].name, name) == 0) {
			return &keys[i];
		}
	}
	return NULL;
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
	char expect[128];
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
	k = find_key(name, false);
	if (!k) {
		const struct config_key *near = find_key(name, true);

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
	idx = (size_t) (k - keys);
	format_expect(k, expect, sizeof(expect));
	r = k->parse(k, value, (uint8_t *) scope_base(layer, k->scope) + k->offset);
	if (r == -ERANGE) {
		report(l, here(l), "%s = %s is out of range, expected %s", name, value, expect);
		return 1;
	}
	if (r < 0) {
		report(l, here(l), "%s = %s is not a valid value, expected %s", name, value,
		       expect);
		return 1;
	}
	layer->set |= UINT64_C(1) << idx;
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
	ssize_t n = getline(&l->buf, &l->cap, l->f);
	const char *p;

	if (n < 0) {
		return NULL;
	}
	l->line++;
	if ((size_t) n >= (size_t) num || strlen(l->buf) != (size_t) n) {
		report(l, here(l),
		       "line is too long or contains a NUL byte, expected at most %d "
		       "characters of text",
		       num - 2);
		snprintf(str, (size_t) num, "\n");
		return str;
	}
	memcpy(str, l->buf, (size_t) n + 1);
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

static int load_file(struct loader *l, const char *path, bool optional)
{
	char **files;
	int r;

	files = reallocarray(l->c->files, l->c->n_files + 1, sizeof(char *));
	if (!files) {
		return -ENOMEM;
	}
	l->c->files = files;
	files[l->c->n_files] = strdup(path);
	if (!files[l->c->n_files]) {
		return -ENOMEM;
	}
	l->file = (uint32_t) l->c->n_files++;
	l->line = 0;
	/* Every file starts outside any section: a drop-in's keys never land in the last file's. */
	l->section = SECTION_NONE;

	l->f = fopen(path, "re");
	if (!l->f) {
		if (optional && errno == ENOENT) {
			return 0;
		}
		report(l, here(l), "cannot open: %s, expected a readable file", strerror(errno));
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

		if (r == 0 && asprintf(&path, "%s/%s", dir, list[i]->d_name) < 0) {
			r = -ENOMEM;
		}
		if (r == 0) {
			r = load_file(l, path, false);
		}
		free(list[i]);
	}
	free(list);
	return r;
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
	return (size_t) (find_key(name, false) - keys);
}

/* Where an instance's key was set: its own line, else [global]'s, else its section header. */
static struct config_pos key_pos(const struct config *c, const struct config_instance *in,
				 const char *name)
{
	size_t i = key_index(name);

	if (in->layer.set & (UINT64_C(1) << i)) {
		return in->layer.set_at[i];
	}
	if (c->global.set & (UINT64_C(1) << i)) {
		return c->global.set_at[i];
	}
	return in->layer.section;
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
	if (c->daemon.system_clock_instance[0] &&
	    !config_find_instance(c, c->daemon.system_clock_instance)) {
		report(l, c->global.set_at[key_index("system_clock_instance")],
		       "system_clock_instance = %s names no instance, expected the name of an "
		       "[instance NAME]",
		       c->daemon.system_clock_instance);
	}
}

static void resolve(struct config *c)
{
	daemon_options_defaults(&c->daemon);
	layer_apply(&c->global, SCOPE_DAEMON, &c->daemon);
	for (size_t i = 0; i < c->n_instances; i++) {
		struct config_instance *in = &c->instances[i];
		char name[OPTIONS_NAME_MAX];

		memcpy(name, in->options.name, sizeof(name));
		options_instance_defaults(&in->options);
		memcpy(in->options.name, name, sizeof(name));
		layer_apply(&c->global, SCOPE_INSTANCE, &in->options);
		layer_apply(&in->layer, SCOPE_INSTANCE, &in->options);
		options_port_defaults(&in->port);
		layer_apply(&c->global, SCOPE_PORT, &in->port);
		layer_apply(&in->layer, SCOPE_PORT, &in->port);
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
	free(c);
	return NULL;
}

int config_load(const char *path, const char *dropin_dir, bool main_optional, struct config **ret,
		char **errors)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_free_ char *dir = NULL;
	struct loader l = { 0 };
	int r;

	if (errors) {
		*errors = NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return -ENOMEM;
	}
	l.c = c;
	l.last_error_line = UINT32_MAX;
	l.err = open_memstream(&l.err_text, &l.err_size);
	if (!l.err) {
		return -ENOMEM;
	}
	if (!dropin_dir) {
		if (asprintf(&dir, "%s.d", path) < 0) {
			dir = NULL;
			r = -ENOMEM;
			goto out;
		}
		dropin_dir = dir;
	}
	r = load_file(&l, path, main_optional);
	if (r == 0) {
		r = load_dropins(&l, dropin_dir);
	}
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
	cross_check(&l);
	r = l.n_errors > 0 ? -EINVAL : 0;
out:
	fclose(l.err);
	free(l.buf);
	if (errors && l.err_size > 0) {
		*errors = TAKE_PTR(l.err_text);
	}
	free(l.err_text);
	if (r == 0) {
		*ret = TAKE_PTR(c);
	}
	return r;
}

int config_check(const char *path, FILE *out)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_free_ char *errors = NULL;
	int r;

	r = config_load(path, NULL, false, &c, &errors);
	if (errors) {
		fputs(errors, out);
	}
	if (r < 0) {
		if (r != -EINVAL) {
			fprintf(out, "%s: cannot load: %s\n", path, strerror(-r));
		}
		return r;
	}
	fprintf(out, "%s: OK, %zu file(s), %zu instance(s)\n", path, c->n_files, c->n_instances);
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

const struct config_instance *config_find_instance(const struct config *c, const char *name)
{
	for (size_t i = 0; c && i < c->n_instances; i++) {
		if (strcmp(c->instances[i].options.name, name) == 0) {
			return &c->instances[i];
		}
	}
	return NULL;
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
	if (itf) {
		layer_apply(&itf->layer, SCOPE_PORT, ret);
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
	return scope_equal(&a->options, &b->options, SCOPE_INSTANCE) ? CONFIG_UNCHANGED
								     : CONFIG_CHANGED;
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
	return scope_equal(&a, &b, SCOPE_PORT) ? CONFIG_UNCHANGED : CONFIG_CHANGED;
}

bool config_daemon_changed(const struct config *old, const struct config *new)
{
	return !scope_equal(&old->daemon, &new->daemon, SCOPE_DAEMON);
}

void config_dump_keys(FILE *out)
{
	static const char *const scope_names[] = {
		[SCOPE_DAEMON] = "global",
		[SCOPE_INSTANCE] = "global instance",
		[SCOPE_PORT] = "global instance interface",
	};
	char expect[128];

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		format_expect(&keys[i], expect, sizeof(expect));
		fprintf(out, "%s\t%s\t%s\t%s\n", keys[i].name, scope_names[keys[i].scope],
			keys[i].def[0] ? keys[i].def : "(empty)", expect);
	}
}
