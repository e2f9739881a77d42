// SPDX-License-Identifier: GPL-2.0-or-later
/* daemon/gpsd-client against a gpsd: each report as one line on stdout, for test-gpsd.sh. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "daemon/gpsd-client.h"

/*
 * One line per report:
 *   report ok=1 has_offset=1 offset_ns=N realtime_ns=N max_error_ns=N utc_offset_valid=0
 *   utc_offset=0 reason="..."
 * and at the end (SIGTERM, SIGINT) the client's counters:
 *   counters connects=N disconnects=N reports=N malformed=N overlong=N
 */
static void on_report(const struct time_source_report *r, void *userdata)
{
	(void) userdata;
	printf("report ok=%d has_offset=%d offset_ns=%lld realtime_ns=%lld max_error_ns=%lld "
	       "utc_offset_valid=%d utc_offset=%d reason=\"%s\"\n",
	       r->ok, r->has_offset, (long long) r->offset_ns, (long long) r->realtime_ns,
	       (long long) r->max_error_ns, r->utc_offset_valid, r->utc_offset,
	       r->reason ? r->reason : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct gpsd_client *c = NULL;
	struct gpsd_client_counters k;
	sd_event *e = NULL;
	sigset_t ss;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s ADDRESS (host:port or /unix/socket/path)\n", argv[0]);
		return 2;
	}
	log_setup("tool-gpsd-client");
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	r = sd_event_default(&e);
	if (r >= 0) {
		r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
	}
	if (r >= 0) {
		r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
	}
	if (r >= 0) {
		r = gpsd_client_new(e, argv[1], on_report, NULL, &c);
	}
	if (r < 0) {
		fprintf(stderr, "tool-gpsd-client: %s: %s\n", argv[1], strerror(-r));
		sd_event_unref(e);
		return 1;
	}
	r = sd_event_loop(e);
	gpsd_client_get_counters(c, &k);
	printf("counters connects=%llu disconnects=%llu reports=%llu malformed=%llu "
	       "overlong=%llu\n",
	       (unsigned long long) k.connects, (unsigned long long) k.disconnects,
	       (unsigned long long) k.reports, (unsigned long long) k.malformed,
	       (unsigned long long) k.overlong);
	gpsd_client_free(c);
	sd_event_unref(e);
	return r < 0 ? 1 : 0;
}
