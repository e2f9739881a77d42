/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fixture of the config unit tests: a scratch directory with phcd.conf, its drop-ins and a
 * linuxptp file. */
#pragma once

struct config;

struct fixture {
	char dir[64];
	char path[128];	   /* DIR/phcd.conf */
	char dropins[128]; /* DIR/phcd.conf.d */
	char ptp4l[128];   /* DIR/ptp4l.cfg */
};

/* cmocka setup/teardown: make the directory (state is the struct fixture), remove it. */
int setup(void **state);
int teardown(void **state);
void write_file(const char *path, const char *text);
void write_dropin(struct fixture *f, const char *name, const char *text);
/* Write text as phcd.conf and load it; fails the test unless it loads without an error. */
struct config *load_ok(struct fixture *f, const char *text);
