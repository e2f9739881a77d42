// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd, the supervisor: options, then config -> instances -> workers on one sd-event loop. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <config.h> /* the generated one (PHCD_VERSION) */
#include "common/log.h"
#include "daemon/list-interfaces.h"
#include "daemon/log-journal.h"
#include "daemon/supervisor.h"

/*
 * Blocks from this size get their own mapping (glibc's default, before its dynamic adjustment); the
 * free top of the heap goes back to the system past SUPERVISOR_MALLOC_TRIM, down to
 * SUPERVISOR_MALLOC_PAD (glibc keeps 128 kB of each, touched once and resident for good).
 */
#define SUPERVISOR_MALLOC_MMAP (128 * 1024)
#define SUPERVISOR_MALLOC_TRIM (64 * 1024)
#define SUPERVISOR_MALLOC_PAD (16 * 1024)

static void help(FILE *f)
{
	fputs("usage: phcd [OPTIONS]\n"
	      "  -h --help             show this help\n"
	      "     --version          show the version\n"
	      "     --list-interfaces  list interfaces with their timestamping and PHC\n"
	      "     --json             with --list-interfaces: one JSON array\n"
	      "  -f --config FILE      configuration file (default " CONFIG_DEFAULT_PATH ")\n"
	      "     --config-dir DIR   drop-in directory (default FILE.d)\n"
	      "     --check-config     check the configuration, print what is wrong, exit\n"
	      "     --ptp4l-config FILE  with --check-config: check this linuxptp (ptp4l -f) file\n"
	      "                        alone, printing what phcd does with each key\n"
	      "     --port-binary PATH phcd-port to run (default: next to phcd, "
	      "else " PHCD_PORT_PATH ")\n"
	      "     --status-file PATH rewrite PATH with every instance and port on each change\n"
	      "     --status-stdout    one line per port state change on stdout\n"
	      "     --uds PATH         management socket for pmc (default /run/phcd/ptp, \"\": "
	      "none)\n"
	      "     --uds-ro PATH      its read-only twin (default /run/phcd/ptp-ro, \"\": none)\n",
	      f);
}

int main(int argc, char **argv)
{
	enum {
		ARG_VERSION = 0x100,
		ARG_LIST,
		ARG_JSON,
		ARG_CONFIG_DIR,
		ARG_CHECK,
		ARG_PORT_BINARY,
		ARG_STATUS_FILE,
		ARG_STATUS_STDOUT,
		ARG_UDS,
		ARG_UDS_RO,
		ARG_PTP4L_CONFIG,
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "list-interfaces", no_argument, NULL, ARG_LIST },
		{ "json", no_argument, NULL, ARG_JSON },
		{ "config", required_argument, NULL, 'f' },
		{ "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
		{ "check-config", no_argument, NULL, ARG_CHECK },
		{ "port-binary", required_argument, NULL, ARG_PORT_BINARY },
		{ "status-file", required_argument, NULL, ARG_STATUS_FILE },
		{ "status-stdout", no_argument, NULL, ARG_STATUS_STDOUT },
		{ "uds", required_argument, NULL, ARG_UDS },
		{ "uds-ro", required_argument, NULL, ARG_UDS_RO },
		{ "ptp4l-config", required_argument, NULL, ARG_PTP4L_CONFIG },
		{},
	};
	struct manager_settings settings = { 0 };
	bool list = false, json = false, check = false;
	int c, r;

	log_setup("phcd");
	log_journal_setup();
	while ((c = getopt_long(argc, argv, "hf:", opts, NULL)) >= 0) {
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
		case 'f':
			settings.config_path = optarg;
			break;
		case ARG_CONFIG_DIR:
			settings.config_dir = optarg;
			break;
		case ARG_CHECK:
			check = true;
			break;
		case ARG_PORT_BINARY:
			settings.port_binary = optarg;
			break;
		case ARG_STATUS_FILE:
			settings.status_file = optarg;
			break;
		case ARG_STATUS_STDOUT:
			settings.status_stdout = true;
			break;
		case ARG_UDS:
			settings.mgmt_path = optarg;
			break;
		case ARG_UDS_RO:
			settings.mgmt_ro_path = optarg;
			break;
		case ARG_PTP4L_CONFIG:
			settings.ptp4l_config = optarg;
			break;
		default:
			help(stderr);
			return 2;
		}
	}
	/* A bare ptp4l file is only checked: phcd runs from a phcd.conf (ptp4l_config = FILE). */
	if (optind < argc || (json && !list) ||
	    (settings.ptp4l_config && (!check || settings.config_path || settings.config_dir))) {
		help(stderr);
		return 2;
	}
	if (list) {
		r = list_interfaces(stdout, json);
		if (r < 0) {
			log_error_errno(r, "listing interfaces failed: %m");
			return 1;
		}
		return 0;
	}
	if (check) {
		return supervisor_check_config(&settings) < 0 ? 1 : 0;
	}
	/*
	 * glibc raises its trim threshold to twice the largest mapped block freed (a config's
	 * instance array, a big D-Bus reply), after which the free top of the heap (400 kB at 64
	 * instances, half of it resident) is never given back; and it keeps 128 kB of free top
	 * after a trim. Fixed, smaller thresholds for the daemon's whole life: a few more brk()
	 * calls around a large reply (docs/performance.md, "Footprint and scale").
	 */
	(void) mallopt(M_MMAP_THRESHOLD, SUPERVISOR_MALLOC_MMAP);
	(void) mallopt(M_TRIM_THRESHOLD, SUPERVISOR_MALLOC_TRIM);
	(void) mallopt(M_TOP_PAD, SUPERVISOR_MALLOC_PAD);
	return supervisor_run(&settings) < 0 ? 1 : 0;
}
