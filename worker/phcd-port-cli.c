// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd-port by hand (worker/port-cli.c): what `phcd-port` without --ipc-fd runs (phcd-port.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "worker/port-cli.h"

/* By hand on one interface; under phcd (--ipc-fd) phcd-port itself runs (worker/phcd-port.c). */
static void help(FILE *f)
{
	fputs("usage: phcd-port -i IFNAME [-f CONFIG] [--domain N] [--priority1 N] [--priority2 "
	      "N]\n"
	      "                 [-s|--slave-only] [-E|-P] [--clock virtual|phc|free]\n"
	      "                 [--virtual-offset NS] [--virtual-freq PPB] [--socket-fd N]\n"
	      "                 [-m [--every-sample] [--true-error]]\n"
	      "  by hand, like ptp4l -i IF -m: one port, its own best master clock decision.\n"
	      "  --virtual-offset/--virtual-freq start the virtual clock off (for testing).\n"
	      "       phcd-port --ipc-fd N -i IFNAME\n"
	      "  run by phcd: the worker drops every privilege, then takes its identity, options\n"
	      "  and the port's socket (and PHC) with CONFIG over the IPC socket; the supervisor\n"
	      "  decides its state.\n",
	      f);
}

/* A decimal in [min, max]; -EINVAL otherwise. */
static int parse_range(const char *s, long long min, long long max, long long *ret)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_clock(const char *s, enum options_clock_backend *ret)
{
	/* "free" as ptp4l users say it; the config file's names work too. */
	if (strcmp(s, "free") == 0) {
		*ret = OPTIONS_CLOCK_FREE_RUNNING;
		return 0;
	}
	return options_clock_backend_from_string(s, ret) < 0 ? -EINVAL : 0;
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
		ARG_SOCKET_FD = 0x100,
		ARG_DOMAIN,
		ARG_PRIORITY1,
		ARG_PRIORITY2,
		ARG_CLOCK,
		ARG_VIRTUAL_OFFSET,
		ARG_VIRTUAL_FREQ,
		ARG_EVERY_SAMPLE,
		ARG_TRUE_ERROR,
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "interface", required_argument, NULL, 'i' },
		{ "socket-fd", required_argument, NULL, ARG_SOCKET_FD },
		{ "config", required_argument, NULL, 'f' },
		{ "domain", required_argument, NULL, ARG_DOMAIN },
		{ "priority1", required_argument, NULL, ARG_PRIORITY1 },
		{ "priority2", required_argument, NULL, ARG_PRIORITY2 },
		{ "slave-only", no_argument, NULL, 's' },
		{ "clock", required_argument, NULL, ARG_CLOCK },
		{ "virtual-offset", required_argument, NULL, ARG_VIRTUAL_OFFSET },
		{ "virtual-freq", required_argument, NULL, ARG_VIRTUAL_FREQ },
		{ "every-sample", no_argument, NULL, ARG_EVERY_SAMPLE },
		{ "true-error", no_argument, NULL, ARG_TRUE_ERROR },
		{},
	};
	struct port_cli_args cli;
	long long v;
	int c, r = 0;

	log_setup("phcd-port");

	port_cli_args_init(&cli);
	while ((c = getopt_long(argc, argv, "hi:f:sEPm", opts, NULL)) >= 0) {
		switch (c) {
		case 'f':
			cli.config_path = optarg;
			break;
		case 's':
			cli.slave_only = true;
			break;
		case 'E':
			cli.delay_mechanism = DELAY_MECHANISM_E2E;
			cli.delay_mechanism_set = true;
			break;
		case 'P':
			cli.delay_mechanism = DELAY_MECHANISM_P2P;
			cli.delay_mechanism_set = true;
			break;
		case 'm':
			cli.print = true;
			break;
		case ARG_EVERY_SAMPLE:
			cli.every_sample = true;
			break;
		case ARG_TRUE_ERROR:
			cli.true_error = true;
			break;
		case ARG_DOMAIN:
			r = parse_range(optarg, 0, 255, &v);
			cli.domain = (int) v;
			break;
		case ARG_PRIORITY1:
			r = parse_range(optarg, 0, 255, &v);
			cli.priority1 = (int) v;
			break;
		case ARG_PRIORITY2:
			r = parse_range(optarg, 0, 255, &v);
			cli.priority2 = (int) v;
			break;
		case ARG_CLOCK:
			r = parse_clock(optarg, &cli.clock_backend);
			cli.clock_backend_set = r >= 0;
			break;
		case ARG_VIRTUAL_OFFSET:
			r = parse_range(optarg, -1000 * NS_PER_SEC, 1000 * NS_PER_SEC, &v);
			cli.virtual_offset = v;
			cli.virtual_offset_set = true;
			break;
		case ARG_VIRTUAL_FREQ:
			r = parse_range(optarg, -1000000, 1000000, &v);
			cli.virtual_freq = (int32_t) v;
			cli.virtual_freq_set = true;
			break;
		case 'h':
			help(stdout);
			return 0;
		case 'i':
			snprintf(cli.ifname, sizeof(cli.ifname), "%s", optarg);
			break;
		case ARG_SOCKET_FD:
			r = parse_fd(optarg, &cli.socket_fd);
			break;
		default:
			help(stderr);
			return 2;
		}
		if (r < 0) {
			log_error("invalid option value '%s'", optarg);
			return 2;
		}
	}
	if (optind < argc) {
		help(stderr);
		return 2;
	}
	if (!cli.ifname[0]) {
		help(stderr);
		return 2;
	}
	return port_cli_run(&cli) < 0 ? 1 : 0;
}
