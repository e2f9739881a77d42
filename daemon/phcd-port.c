// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd-port, the per-port worker: under the supervisor (--ipc-fd) it runs daemon/port-ipc.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/port-ipc.h"

/*
 * Only the supervised mode lives here so far (issue 5). The by-hand mode (`phcd-port -i IF`,
 * like ptp4l -i, issue 4) belongs to the port engine's owner and hooks in below.
 */
static void help(FILE *f)
{
	fputs("usage: phcd-port --ipc-fd N --socket-fd N [--phc-fd N] --clock-identity ID\n"
	      "                 --port-number N -i IFNAME\n"
	      "  run by phcd: the supervisor opened the port's socket (and PHC), and decides its\n"
	      "  state over the IPC socket; the worker drops every privilege first.\n",
	      f);
}

static int parse_fd(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1 << 20) {
		return -EINVAL;
	}
	*ret = (int) v;
	return 0;
}

int main(int argc, char **argv)
{
	enum {
		ARG_IPC_FD = 0x100,
		ARG_SOCKET_FD,
		ARG_PHC_FD,
		ARG_CLOCK_IDENTITY,
		ARG_PORT_NUMBER,
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "interface", required_argument, NULL, 'i' },
		{ "ipc-fd", required_argument, NULL, ARG_IPC_FD },
		{ "socket-fd", required_argument, NULL, ARG_SOCKET_FD },
		{ "phc-fd", required_argument, NULL, ARG_PHC_FD },
		{ "clock-identity", required_argument, NULL, ARG_CLOCK_IDENTITY },
		{ "port-number", required_argument, NULL, ARG_PORT_NUMBER },
		{},
	};
	struct port_ipc_args a = { .ipc_fd = -1, .socket_fd = -1, .phc_fd = -1, .port_number = 1 };
	int c, r = 0, n;

	while ((c = getopt_long(argc, argv, "hi:", opts, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help(stdout);
			return 0;
		case 'i':
			snprintf(a.ifname, sizeof(a.ifname), "%s", optarg);
			break;
		case ARG_IPC_FD:
			r = parse_fd(optarg, &a.ipc_fd);
			break;
		case ARG_SOCKET_FD:
			r = parse_fd(optarg, &a.socket_fd);
			break;
		case ARG_PHC_FD:
			r = parse_fd(optarg, &a.phc_fd);
			break;
		case ARG_CLOCK_IDENTITY:
			r = port_ipc_parse_clock_identity(optarg, &a.clock_identity);
			break;
		case ARG_PORT_NUMBER:
			r = parse_fd(optarg, &n);
			if (r >= 0 && (n < 1 || n > 0xfffe)) {
				r = -EINVAL;
			}
			a.port_number = (uint16_t) n;
			break;
		default:
			help(stderr);
			return 2;
		}
		if (r < 0) {
			fprintf(stderr, "phcd-port: invalid option value '%s'\n", optarg);
			return 2;
		}
	}
	if (optind < argc) {
		help(stderr);
		return 2;
	}
	if (a.ipc_fd < 0) {
		fputs("phcd-port: only the supervised mode (--ipc-fd) is built so far\n", stderr);
		return 2;
	}
	if (a.socket_fd < 0) {
		fputs("phcd-port: --ipc-fd needs --socket-fd\n", stderr);
		return 2;
	}
	return port_ipc_run(&a) < 0 ? 1 : 0;
}
