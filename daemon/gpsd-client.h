/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A gpsd JSON client: a GNSS receiver's time and fix as a grandmaster's time source. */
#pragma once

#include <systemd/sd-event.h>

#include "daemon/time-source.h"

struct gpsd_client;

/*
 * Connect to gpsd at address (gpsd_address: "host:port" or a Unix socket path) on e and report
 * what it says through cb, at each change and about once a second. -errno.
 */
int gpsd_client_new(sd_event *e, const char *address,
		    void (*cb)(const struct time_source_report *r, void *userdata), void *userdata,
		    struct gpsd_client **ret);
/* Accept NULL, return NULL. */
struct gpsd_client *gpsd_client_free(struct gpsd_client *c);
