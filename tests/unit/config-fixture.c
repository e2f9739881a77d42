/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fixture of the config unit tests: a scratch directory with phcd.conf, its drop-ins and a
 * linuxptp file. */
#include <stdarg.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/config-diff.h"
#include "common/config-file.h"
#include "common/config-keys.h"
#include "common/utf8.h"

#include "tests/unit/config-fixture.h"

int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/phcd-test-config-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/phcd.conf", f->dir);
	snprintf(f->dropins, sizeof(f->dropins), "%s/phcd.conf.d", f->dir);
	snprintf(f->ptp4l, sizeof(f->ptp4l), "%s/ptp4l.cfg", f->dir);
	*state = f;
	return 0;
}

int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

void write_dropin(struct fixture *f, const char *name, const char *text)
{
	char path[256];

	mkdir(f->dropins, 0755);
	snprintf(path, sizeof(path), "%s/%s", f->dropins, name);
	write_file(path, text);
}

struct config *load_ok(struct fixture *f, const char *text)
{
	struct config *c = NULL;
	char *errors = NULL;
	int r;

	write_file(f->path, text);
	r = config_load(&(struct config_source){ .path = f->path }, &c, &errors, NULL);
	if (r != 0) {
		fail_msg("expected the config to load, got %d:\n%s", r, errors ? errors : "");
	}
	assert_null(errors);
	return c;
}
