// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Placeholder until daemon/gpsd-client.c (written on its own branch) is merged: the lead deletes
 * this file at that merge. Weak, so that the real client wins wherever both are linked.
 */
#include <errno.h>

#include "daemon/gpsd-client.h"

__attribute__((weak)) int gpsd_client_new(sd_event *e, const char *address,
					  void (*cb)(const struct time_source_report *r,
						     void *userdata),
					  void *userdata, struct gpsd_client **ret)
{
	return -EOPNOTSUPP;
}

__attribute__((weak)) struct gpsd_client *gpsd_client_free(struct gpsd_client *c)
{
	return NULL;
}
