// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * phcd-port, the per-port worker: under the supervisor (--ipc-fd) it runs worker/port-ipc.c. Run
 * by hand (no --ipc-fd) it execs phcd-port-cli beside it, so that this program, which phcd runs
 * once per port, links no configuration parser (issue 26: each worker's private memory).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "worker/port-ipc.h"

static bool supervised(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ipc-fd") == 0 || strncmp(argv[i], "--ipc-fd=", 9) == 0) {
			return true;
		}
	}
	return false;
}

/* By hand: phcd-port-cli from this program's own directory, with the same arguments. */
static int exec_cli(char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - sizeof("/phcd-port-cli"));
	char *slash;

	if (n <= 0 || (size_t) n >= sizeof(path) - sizeof("/phcd-port-cli")) {
		log_error("cannot find phcd-port-cli: /proc/self/exe: %s",
			  strerror(n < 0 ? errno : ENAMETOOLONG));
		return 1;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash : path, "/phcd-port-cli");
	execv(path, argv);
	log_error("cannot run %s: %s", path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	enum {
		ARG_IPC_FD = 0x100,
	};
	static const struct option opts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "ipc-fd", required_argument, NULL, ARG_IPC_FD },
		{},
	};
	struct port_ipc_args a = { .ipc_fd = -1 };
	char *end;
	long fd;
	int c;

	log_setup("phcd-port");
	if (!supervised(argc, argv)) {
		return exec_cli(argv);
	}
	/* The options phcd gives (daemon/worker.c): -m prints every servo sample. */
	while ((c = getopt_long(argc, argv, "i:m", opts, NULL)) >= 0) {
		switch (c) {
		case 'i':
			snprintf(a.ifname, sizeof(a.ifname), "%s", optarg);
			break;
		case 'm':
			a.print = true;
			break;
		case ARG_IPC_FD:
			/* A descriptor number, as phcd writes it (daemon/worker.c: "3"). */
			errno = 0;
			fd = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || fd < 0 || fd > INT_MAX) {
				log_error("invalid option value '%s'", optarg);
				return 2;
			}
			a.ipc_fd = (int) fd;
			break;
		default:
			fputs("usage: phcd-port --ipc-fd N -i IFNAME [-m]   (run by phcd; by hand, "
			      "see phcd-port --help)\n",
			      stderr);
			return 2;
		}
	}
	if (optind < argc || a.ipc_fd < 0) {
		fputs("usage: phcd-port --ipc-fd N -i IFNAME [-m]\n", stderr);
		return 2;
	}
	/* Supervised: every line carries its priority, so journald files an error as an error. */
	log_set_level_prefix(true);
	return port_ipc_run(&a) < 0 ? 1 : 0;
}
