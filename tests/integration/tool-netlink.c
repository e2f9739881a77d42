// SPDX-License-Identifier: GPL-2.0-or-later
/* Test tool: run the link monitor and print its events, or query TSINFO/TSCONFIG of one device. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "netlink/link-monitor.h"
#include "netlink/tsinfo.h"

static const char usage[] = "usage: tool-netlink monitor\n"
			    "       tool-netlink tsinfo IFNAME\n"
			    "       tool-netlink tsconfig IFNAME\n";

static void print_link(const char *what, const struct link_info *li)
{
	printf("%s ifindex=%d name=%s admin=%s carrier=%s", what, li->ifindex, li->name,
	       li->admin_up ? "up" : "down", li->carrier ? "on" : "off");
	if (li->old_name[0]) {
		printf(" old=%s", li->old_name);
	}
	printf("\n");
}

static void on_link(struct link_monitor *m, enum link_event ev, const struct link_info *li,
		    void *userdata)
{
	char what[64];

	snprintf(what, sizeof(what), "event %s", link_event_to_string(ev));
	print_link(what, li);
}

static int do_monitor(void)
{
	struct link_monitor *m = NULL;
	sd_event *e = NULL;
	sigset_t ss;
	int r;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	r = sd_event_new(&e);
	if (r < 0) {
		goto out;
	}
	(void) sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
	(void) sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
	r = link_monitor_new(e, on_link, NULL, &m);
	if (r < 0) {
		goto out;
	}
	for (size_t i = 0; i < link_monitor_count(m); i++) {
		print_link("link", link_monitor_get(m, i));
	}
	printf("ready\n");
	r = sd_event_loop(e);
out:
	if (r < 0) {
		fprintf(stderr, "monitor: %s\n", strerror(-r));
	}
	link_monitor_free(m);
	sd_event_unref(e);
	return r < 0 ? 1 : 0;
}

static void print_bits(const char *what, uint32_t bits, const char *(*name)(unsigned) )
{
	printf("%s:", what);
	for (unsigned b = 0; b < 32; b++) {
		if (bits & (UINT32_C(1) << b)) {
			printf(" %s", name(b) ? name(b) : "?");
		}
	}
	printf("\n");
}

static int do_query(const char *what, const char *ifname)
{
	struct ethtool_nl *e = NULL;
	int r = ethtool_nl_new(&e);

	if (r >= 0 && strcmp(what, "tsinfo") == 0) {
		struct tsinfo ti;

		r = ethtool_nl_tsinfo_get(e, ifname, &ti);
		if (r >= 0) {
			printf("ifindex=%d name=%s phc_index=%d\n", ti.ifindex, ti.ifname,
			       ti.phc_index);
			print_bits("timestamping", ti.so_timestamping, tsinfo_so_timestamping_name);
			print_bits("tx-types", ti.tx_types, tsinfo_tx_type_name);
			print_bits("rx-filters", ti.rx_filters, tsinfo_rx_filter_name);
		}
	} else if (r >= 0) {
		struct tsconfig tc;

		r = ethtool_nl_tsconfig_get(e, ifname, &tc);
		if (r >= 0) {
			print_bits("tx-types", tc.tx_types, tsinfo_tx_type_name);
			print_bits("rx-filters", tc.rx_filters, tsinfo_rx_filter_name);
		}
	}
	if (r < 0) {
		printf("error %d (%s)\n", r, strerror(-r));
	}
	ethtool_nl_free(e);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "monitor") == 0) {
		return do_monitor();
	}
	if (argc == 3 && (strcmp(argv[1], "tsinfo") == 0 || strcmp(argv[1], "tsconfig") == 0)) {
		return do_query(argv[1], argv[2]);
	}
	fputs(usage, stderr);
	return 2;
}
