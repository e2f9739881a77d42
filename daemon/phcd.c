// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd, the supervisor: option parsing for now; the supervisor proper lands later. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <config.h> /* the generated one: "config.h" would find daemon/config.h */
#include "daemon/list-interfaces.h"

static void help(FILE *f)
{
	fputs("usage: phcd [OPTIONS]\n"
	      "  -h --help             show this help\n"
	      "     --version          show the version\n"
	      "     --list-interfaces  list interfaces with their timestamping and PHC\n"
	      "     --json             with --list-interfaces: one JSON array\n",
	      f);
}

int main(int argc, char **argv)
{
	enum {
		ARG_VERSION = 0x100,
		ARG_LIST,
		ARG_JSON
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "list-interfaces", no_argument, NULL, ARG_LIST },
		{ "json", no_argument, NULL, ARG_JSON },
		{},
	};
	bool list = false, json = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help(stdout);
			return 0;
		case ARG_VERSION:
			printf("phcd %s\n", PHCD_VERSION);
			return 0;
		case ARG_LIST:
			list = true;
			break;
		case ARG_JSON:
			json = true;
			break;
		default:
			help(stderr);
			return 2;
		}
	}
	if (optind < argc || (json && !list)) {
		help(stderr);
		return 2;
	}
	if (list) {
		r = list_interfaces(stdout, json);
		if (r < 0) {
			fprintf(stderr, "phcd: listing interfaces failed: %s\n", strerror(-r));
			return 1;
		}
		return 0;
	}
	fputs("phcd: the supervisor is not implemented yet; see --list-interfaces\n", stderr);
	return 1;
}
