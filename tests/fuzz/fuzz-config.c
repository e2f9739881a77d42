/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer: any bytes as phcd.conf load or are refused with errors, never crash or leak; the
 * same bytes as a file name escape to printable text of bounded length.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/config-file.h"
#include "common/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* utf8_escape(): no control byte out, at most 4 bytes per byte in, plain ASCII kept. */
static void fuzz_escape(const uint8_t *data, size_t size)
{
	char *name = strndup((const char *) data, size), *e;
	bool plain = true;

	if (!name) {
		abort();
	}
	for (const char *p = name; *p; p++) {
		plain &= *p >= 0x20 && *p < 0x7F && *p != '\\';
	}
	e = utf8_escape(name);
	if (!e || strlen(e) > 4 * strlen(name) || (plain && strcmp(e, name) != 0)) {
		abort();
	}
	for (const unsigned char *p = (const unsigned char *) e; *p; p++) {
		if (*p < 0x20 || *p == 0x7F) {
			abort();
		}
	}
	free(e);
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *c = NULL;
	char *errors = NULL;
	char path[64];
	int fd, r;

	/* The loader reads files: give it one in memory, and a drop-in directory that is absent. */
	fd = memfd_create("phcd-fuzz-config", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t) size) {
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = config_load(
		&(struct config_source){ .path = path, .dropin_dir = "/nonexistent/phcd-fuzz" }, &c,
		&errors, NULL);
	/* Refused exactly when there are errors to show, loaded exactly when there are none. */
	if ((r == 0) != (errors == NULL) || (r == 0) != (c != NULL) || (r < 0 && r != -EINVAL)) {
		abort();
	}
	config_free(c);
	free(errors);
	close(fd);
	fuzz_escape(data, size);
	return 0;
}
