/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A client of gpsd's JSON socket on sd-event: each change of what gpsd says, as a time source. */
#pragma once

#include <stdint.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "daemon/time-source.h"

struct gpsd_client;
/*
 * Connect to gpsd at address ("host:port" with a numeric IPv4 address, "[IPv6]:port" or
 * "localhost:port", default "localhost:2947"; or an absolute path of a Unix stream socket), ask
 * for its reports (?WATCH with json and pps), and call cb with a report at each PPS or TOFF and at
 * each change (the fix lost, no report for a while, gpsd gone, the connection back). A missing
 * gpsd is retried with backoff and never an error here. cb must not free the client. -EINVAL: a
 * malformed address; -ENOMEM.
 */
int gpsd_client_new(sd_event *e, const char *address,
		    void (*cb)(const struct time_source_report *r, void *userdata), void *userdata,
		    struct gpsd_client **ret);
struct gpsd_client *gpsd_client_free(struct gpsd_client *c);

#define GPSD_ADDRESS_DEFAULT "localhost:2947"

/*
 * gpsd_client_new's address as a socket address (no name lookup: "localhost" is 127.0.0.1, gpsd's
 * own default listener). 0, or -EINVAL with nothing written.
 */
int gpsd_address_parse(const char *address, struct sockaddr_storage *ret, socklen_t *ret_len);

struct gpsd_client_counters {
	uint64_t connects;    /* connections made (the WATCH sent) */
	uint64_t disconnects; /* connections lost or closed by gpsd */
	uint64_t reports;     /* lines parsed */
	uint64_t malformed;   /* lines the parser refused, dropped */
	uint64_t overlong;    /* lines longer than GPSD_JSON_LINE_MAX, dropped unread */
};

/* What the client knows of gpsd now (its newest TPV for a PHC pin's edges, instance-pin.c). */
const struct gpsd_view *gpsd_client_view(const struct gpsd_client *c);

void gpsd_client_get_counters(const struct gpsd_client *c, struct gpsd_client_counters *ret);
