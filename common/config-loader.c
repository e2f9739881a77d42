/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to config_load(): the steps every reader shares (files, errors, new instances). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config-loader.h"
#include "common/utf8.h"

const char *loader_file_name(const struct config *c, uint32_t file)
{
	return file < c->n_files ? c->files[file] : "(built-in)";
}

/* Past CONFIG_ERRORS_MAX errors are only counted: "... and N more" ends the text. */
static void vreport(struct loader *l, struct config_pos pos, bool always, const char *fmt,
		    va_list ap) _printf_(4, 0);
static void vreport(struct loader *l, struct config_pos pos, bool always, const char *fmt,
		    va_list ap)
{
	l->n_errors++;
	l->last_error_line = pos.line;
	if (l->n_errors > CONFIG_ERRORS_MAX) {
		if (!always) {
			return;
		}
		l->n_extra_shown++;
	}
	fprintf(l->err, "%s:%" PRIu32 ": ", loader_file_name(l->c, pos.file), pos.line);
	vfprintf(l->err, fmt, ap);
	fputc('\n', l->err);
}

void loader_report(struct loader *l, struct config_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(l, pos, false, fmt, ap);
	va_end(ap);
}

/* Shown past CONFIG_ERRORS_MAX too: it says why the rest is not read. */
_printf_(3, 4) static void report_always(struct loader *l, struct config_pos pos, const char *fmt,
					 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(l, pos, true, fmt, ap);
	va_end(ap);
}

struct config_pos loader_here(const struct loader *l)
{
	return (struct config_pos){ .file = l->file, .line = l->line };
}

int loader_grow(void **array, size_t n, size_t size)
{
	void *p;

	/* The capacity is n itself when n is a power of two (or 0): then it doubles. */
	if (n & (n - 1)) {
		return 0;
	}
	p = reallocarray(*array, n ? n * 2 : 1, size);
	if (!p) {
		return -ENOMEM;
	}
	*array = p;
	return 0;
}

bool loader_new_section(struct loader *l, struct config_pos pos)
{
	const struct config *c = l->c;

	if (c->n_instances + c->n_interfaces + c->n_ptp4l_sections < CONFIG_SECTIONS_MAX) {
		return true;
	}
	if (!l->full) {
		report_always(
			l, pos,
			"more than %d sections ([instance], [interface] and the [IFNAME] of "
			"ptp4l_config files together), expected at most %d (the rest is not read)",
			CONFIG_SECTIONS_MAX, CONFIG_SECTIONS_MAX);
	}
	l->full = true;
	return false;
}

int loader_add_instance(struct config *c, const char *name, struct config_pos pos)
{
	_cleanup_free_ struct config_layer *layer = malloc(sizeof(*layer));
	struct config_instance *n;
	int r;

	if (!layer) {
		return -ENOMEM;
	}
	r = loader_grow((void **) &c->instances, c->n_instances, sizeof(*n));
	if (r < 0) {
		return r;
	}
	r = config_index_add(&c->instance_index, config_index_hash(name, 0),
			     (uint32_t) c->n_instances);
	if (r < 0) {
		return r;
	}
	n = &c->instances[c->n_instances++];
	memset(n, 0, sizeof(*n));
	n->layer = TAKE_PTR(layer);
	config_layer_init(n->layer, pos);
	snprintf(n->options.name, sizeof(n->options.name), "%s", name);
	return 0;
}

/*
 * Open a configuration file for reading: only a regular file (or a symlink to one, as drop-ins
 * in /etc often are). O_NONBLOCK so that a FIFO cannot hang the open; a directory, FIFO, socket
 * or device is refused after fstat() and never read. -errno, or -EISDIR, -ENODEV (device),
 * -EPIPE (FIFO or socket) for what is not a regular file.
 */
int loader_open(const char *path, FILE **ret)
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

const char *loader_open_error(int r)
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
int loader_add_file(struct config *c, const char *path, uint32_t *ret)
{
	char **files = reallocarray(c->files, c->n_files + 1, sizeof(char *));

	if (!files) {
		return -ENOMEM;
	}
	c->files = files;
	/* Shown on D-Bus and in messages, which must be UTF-8: any other byte escaped. */
	files[c->n_files] = utf8_escape(path);
	if (!files[c->n_files]) {
		return -ENOMEM;
	}
	*ret = (uint32_t) c->n_files++;
	return 0;
}
