/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A linuxptp file as a layer under the phcd.conf section that names it: each key's verdict. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config-ptp4l-read.h"
#include "common/config-ptp4l.h"
#include "common/config-resolve.h"
#include "common/config-unicast.h"

void ptp4l_verdict(struct loader *l, struct config_pos pos, const char *line, enum ptp4l_verdict v,
		   const char *fmt, ...)
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
		fprintf(l->verdicts, "%s:%" PRIu32 ": %s: %s%s%s\n",
			loader_file_name(l->c, pos.file), pos.line, line, head[v],
			v == PTP4L_HONOURED ? " " : ": ", text);
	}
	if (v == PTP4L_IGNORED && ++l->n_warnings <= CONFIG_ERRORS_MAX) {
		fprintf(l->warn, "%s:%" PRIu32 ": %s: %s: %s\n", loader_file_name(l->c, pos.file),
			pos.line, line, head[v], text);
	} else if (v == PTP4L_REFUSED) {
		loader_report(l, pos, "%s: not honoured: %s", line, text);
	}
}

/* State of one ptp4l file: where its keys go. */
struct ptp4l_file {
	struct config_layer *global; /* the file's [global] */
	size_t owner;		     /* instance index, SIZE_MAX: [global]'s file */
	size_t section;		     /* current [IFNAME] in c->ptp4l_sections, SIZE_MAX: [global] */
	size_t table;		     /* current [unicast_master_table], SIZE_MAX: none */
	bool in_section;	     /* a header was seen */
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
	const struct config_ptp4l_section *old;
	struct config_ptp4l_section *n;
	size_t idx = config_keys_index(itf);
	int r;

	if (pf->table != SIZE_MAX) {
		config_unicast_close(l, pf->table);
		pf->table = SIZE_MAX;
	}
	pf->in_section = true;
	pf->section = SIZE_MAX;
	if (strcmp(name, "global") == 0) {
		return;
	}
	pf->section = SIZE_MAX - 1; /* keys of a refused section are not read */
	if (strcmp(name, "unicast_master_table") == 0) {
		pf->table = config_unicast_open(l, pos, true);
		return;
	}
	if (!config_keys_ifname_valid(name, strlen(name))) {
		loader_report(l, pos,
			      "invalid section [%s], expected [global] or [IFNAME] with an "
			      "interface name of 1 to 15 characters",
			      name);
		return;
	}
	/* One file per owner (ptp4l_config once per section): the same owner is the same file. */
	old = config_find_ptp4l_section(l->c, pf->owner, name);
	if (old) {
		loader_report(l, pos, "duplicate [%s] in one file (first at %s:%" PRIu32 ")", name,
			      loader_file_name(l->c, old->layer.section.file),
			      old->layer.section.line);
		return;
	}
	if (!loader_new_section(l, pos)) {
		return;
	}
	if (loader_grow((void **) &l->c->ptp4l_sections, l->c->n_ptp4l_sections, sizeof(*n)) < 0 ||
	    config_index_add(&l->c->ptp4l_index, config_resolve_ptp4l_hash(pf->owner, name),
			     (uint32_t) l->c->n_ptp4l_sections) < 0) {
		l->oom = 1;
		return;
	}
	n = &l->c->ptp4l_sections[l->c->n_ptp4l_sections];
	memset(n, 0, sizeof(*n));
	config_layer_init(&n->layer, pos);
	snprintf(n->ifname, sizeof(n->ifname), "%s", name);
	n->instance = pf->owner;
	pf->section = l->c->n_ptp4l_sections++;
	if (config_layer_is_set(pf->global, idx)) {
		r = itf->append(itf, name, config_keys_field(pf->global, itf));
	} else {
		r = itf->parse(itf, name, config_keys_field(pf->global, itf));
	}
	if (r < 0) {
		loader_report(l, pos, "[%s]: more than %d interfaces, expected at most %d", name,
			      OPTIONS_INTERFACES_MAX, OPTIONS_INTERFACES_MAX);
		return;
	}
	config_layer_mark_set(pf->global, idx);
	pf->global->set_at[idx] = pos;
	ptp4l_verdict(l, pos, name, PTP4L_HONOURED,
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
		ptp4l_verdict(l, pos, line, PTP4L_REFUSED,
			      "unknown key \"%s\", expected a key of linuxptp's ptp4l listed in "
			      "phcd.conf(5)",
			      key);
		return;
	}
	if (!m.key) {
		ptp4l_verdict(l, pos, line, m.verdict,
			      m.verdict == PTP4L_HONOURED ? "(phcd's behaviour: %s)" : "%s",
			      m.reason);
		return;
	}
	if (pf->section != SIZE_MAX && m.key->scope != SCOPE_PORT) {
		ptp4l_verdict(l, pos, line, PTP4L_REFUSED,
			      "%s is not a port key, expected it in [global] (as ptp4l does)", key);
		return;
	}
	if (m.key->scope == SCOPE_DAEMON && pf->owner != SIZE_MAX) {
		ptp4l_verdict(l, pos, line, PTP4L_IGNORED,
			      "%s is a daemon key, which only the ptp4l_config of [global] sets",
			      key);
		return;
	}
	idx = config_keys_index(m.key);
	r = m.key->parse(m.key, m.value, config_keys_field(layer, m.key));
	if (r < 0) {
		config_keys_expect(m.key, expect, sizeof(expect));
		if (m.reason) {
			ptp4l_verdict(l, pos, line, m.cosmetic ? PTP4L_IGNORED : PTP4L_REFUSED,
				      "%s (phcd key %s takes %s)", m.reason, m.key->name, expect);
		} else {
			ptp4l_verdict(l, pos, line, m.cosmetic ? PTP4L_IGNORED : PTP4L_REFUSED,
				      "%s for phcd key %s, expected %s",
				      r == -ERANGE ? "out of range" : "not a valid value",
				      m.key->name, expect);
		}
		return;
	}
	if (config_layer_is_set(layer, idx) && layer->set_at[idx].file == pos.file) {
		ptp4l_verdict(l, pos, line, PTP4L_HONOURED,
			      "(as phcd key %s = %s; line %" PRIu32
			      "'s value is overridden, as in ptp4l)",
			      m.key->name, m.value, layer->set_at[idx].line);
	} else {
		ptp4l_verdict(l, pos, line, PTP4L_HONOURED, "(as phcd key %s = %s)", m.key->name,
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
int config_ptp4l_read(struct loader *l, const char *path, struct config_pos at,
		      struct config_layer *global, size_t owner)
{
	struct ptp4l_file pf = {
		.global = global,
		.owner = owner,
		.section = SIZE_MAX,
		.table = SIZE_MAX,
	};
	char buf[PTP4L_LINE_MAX + 1]; /* a longer line is an error */
	uint64_t bytes = 0;
	struct config_pos pos = { 0 };
	FILE *f = NULL;
	bool nul;
	int r;

	r = loader_add_file(l->c, path, &pos.file);
	if (r < 0) {
		return r;
	}
	r = loader_open(path, &f);
	if (r < 0 && at.line == 0) { /* phcd --ptp4l-config FILE: as a phcd.conf that cannot be */
		loader_report(l, pos, "cannot open: %s, expected a readable regular file",
			      loader_open_error(r));
		return 0;
	}
	if (r < 0) {
		loader_report(l, at,
			      "ptp4l_config %s: cannot open: %s, expected a readable regular file",
			      l->c->files[pos.file], loader_open_error(r));
		return 0;
	}
	while ((r = ptp4l_read_line(f, buf, sizeof(buf), &bytes, &nul)) != 0 && !l->oom &&
	       !l->full) {
		struct ptp4l_line pl;

		pos.line++;
		if (r == -EFBIG) {
			loader_report(l, pos,
				      "file is larger than %d bytes, expected a ptp4l "
				      "configuration (the rest is not read)",
				      CONFIG_FILE_MAX);
			break;
		}
		if (r < 0 || nul) {
			loader_report(l, pos,
				      "line is too long or contains a NUL byte, expected at most "
				      "%d characters of text",
				      PTP4L_LINE_MAX);
			continue;
		}
		switch (ptp4l_parse_line(buf, &pl)) {
		case PTP4L_LINE_BLANK:
			break;
		case PTP4L_LINE_ERROR:
			loader_report(l, pos, "%s", pl.error);
			break;
		case PTP4L_LINE_SECTION:
			ptp4l_open_section(l, &pf, pos, pl.section);
			break;
		case PTP4L_LINE_KEY:
			if (!pf.in_section) {
				loader_report(l, pos,
					      "key \"%s\" outside of any section, expected "
					      "[global] or [IFNAME] before it (as ptp4l)",
					      pl.key);
			} else if (pf.table != SIZE_MAX) {
				config_unicast_line(l, pf.table, pos, pl.key, pl.value);
			} else if (pf.section != SIZE_MAX - 1) {
				ptp4l_key(l, &pf, pos, pl.key, pl.value);
			}
			break;
		}
	}
	fclose(f);
	if (pf.table != SIZE_MAX && !l->oom) {
		config_unicast_close(l, pf.table);
	}
	return l->oom ? -ENOMEM : 0;
}
