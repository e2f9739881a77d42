/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer: any bytes as a linuxptp file (phcd --check-config --ptp4l-config) load or are
 * refused, never crash or leak; the report and the errors are text whose every line names the
 * file and a line of it. (Whether a refused key refuses the configuration is not checked here:
 * a value may hold any text, the verdict's words too; test-config-ptp4l checks it.)
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
#include "common/config-ptp4l.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each line of text: "path:N: " with 1 <= N <= lines + 1, then printable UTF-8 text. */
static void check_lines(const char *text, const char *path, size_t lines)
{
	size_t n = strlen(path);

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		char *end;
		unsigned long line;

		if (!nl || strncmp(p, path, n) != 0 || p[n] != ':') {
			abort();
		}
		line = strtoul(p + n + 1, &end, 10);
		if (line == 0 || line > lines + 1 || strncmp(end, ": ", 2) != 0) {
			abort();
		}
		for (const unsigned char *u = (const unsigned char *) p;
		     u < (const unsigned char *) nl; u++) {
			if (*u < 0x20 && *u != '\t') {
				abort();
			}
		}
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *c = NULL;
	char *errors = NULL, *report = NULL;
	char path[64];
	size_t lines = 0;
	int fd, r;

	fd = memfd_create("phcd-fuzz-ptp4l", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t) size) {
		abort();
	}
	for (size_t i = 0; i < size; i++) {
		lines += data[i] == '\n';
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = config_load(&(struct config_source){ .ptp4l_path = path }, &c, &errors, &report);
	if ((r == 0) != (errors == NULL) || (r == 0) != (c != NULL) || (r < 0 && r != -EINVAL)) {
		abort();
	}
	check_lines(report, path, lines);
	/*
	 * errors may end with "... and N more errors": check the positioned lines before it. Only a
	 * line that starts so is that summary: a key of the file may hold the words too.
	 */
	if (errors) {
		char *more = strncmp(errors, "... and ", 8) == 0 ? errors
								 : strstr(errors, "\n... and ");

		if (more) {
			more[more == errors ? 0 : 1] = '\0';
		}
		check_lines(errors, path, lines);
	}
	config_free(c);
	free(errors);
	free(report);
	close(fd);
	return 0;
}
