/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_load(), the one way in (read, resolve, cross-check), config_free(), --check-config. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config-cross.h"
#include "common/config-read.h"
#include "common/config-resolve.h"

const struct config_layer *config_instance_ptp4l(const struct config_instance *in)
{
	static const struct config_layer none;

	return in->ptp4l ? in->ptp4l : &none;
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
	for (size_t i = 0; i < c->n_instances; i++) {
		free(c->instances[i].layer);
		free(c->instances[i].ptp4l);
	}
	free(c->instances);
	free(c->interfaces);
	free(c->ptp4l_sections);
	free(c->unicast_tables);
	free(c->warnings);
	config_index_free(&c->instance_index);
	config_index_free(&c->interface_index);
	config_index_free(&c->ptp4l_index);
	config_index_free(&c->member_index);
	free(c);
	return NULL;
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

int config_load(const struct config_source *src, struct config **ret, char **errors, char **report)
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
	r = config_read(&l, src);
	if (r < 0) {
		goto out;
	}
	if (c->n_instances == 0) {
		r = loader_add_instance(c, CONFIG_DEFAULT_INSTANCE, (struct config_pos){ 0, 0 });
		if (r < 0) {
			goto out;
		}
	}
	r = config_resolve(c);
	if (r < 0) {
		goto out;
	}
	config_cross_note_overrides(&l);
	config_cross_check(&l);
	r = l.n_errors > 0 ? -EINVAL : 0;
out:
	/* Read, resolved and checked: the instances' layers are dead weight from here on. */
	for (size_t i = 0; i < c->n_instances; i++) {
		free(c->instances[i].layer);
		c->instances[i].layer = NULL;
	}
	if (l.err && l.n_errors > CONFIG_ERRORS_MAX + l.n_extra_shown) {
		fprintf(l.err, "... and %u more errors (only the first %d are shown)\n",
			l.n_errors - CONFIG_ERRORS_MAX - l.n_extra_shown, CONFIG_ERRORS_MAX);
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

int config_check(const struct config_source *src, FILE *out)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_free_ char *errors = NULL, *report = NULL;
	const char *shown = src->ptp4l_path ? src->ptp4l_path : src->path;
	int r;

	r = config_load(src, &c, &errors, &report);
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
	if (!src->ptp4l_path && src->main_optional && access(src->path, F_OK) < 0 &&
	    errno == ENOENT) {
		fprintf(out, "%s: not present, the built-in defaults apply\n", src->path);
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
