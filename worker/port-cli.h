/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-port run by hand on one interface (like `ptp4l -i IF -m`): options and the run loop. */
#pragma once

#include <net/if.h>
#include <stdbool.h>

#include "ptp/options.h"

struct port_cli_args {
	char ifname[IFNAMSIZ];
	const char *config_path; /* NULL: built-in defaults */
	int socket_fd;		 /* -1: open our own socket on ifname */
	bool print;		 /* -m: messages to stdout */
	bool every_sample;	 /* --every-sample: a line per offset, not one a second */
	bool true_error;	 /* --true-error: a virtual clock's error over its raw clock too */
	/* Command-line overrides, applied over the configuration file. */
	int domain, priority1, priority2; /* -1: not given */
	bool slave_only;
	bool delay_mechanism_set, clock_backend_set;
	enum delay_mechanism delay_mechanism;
	enum options_clock_backend clock_backend;
	bool virtual_offset_set, virtual_freq_set;
	ns_t virtual_offset;
	int32_t virtual_freq;
};

void port_cli_args_init(struct port_cli_args *a);
/* Run until SIGINT/SIGTERM. Returns 0 or -errno (already reported on stderr). */
int port_cli_run(const struct port_cli_args *a);
