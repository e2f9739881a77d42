/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Link monitor on rtnetlink (libnl-route-3) feeding an sd-event loop: interfaces and their state.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

enum link_event {
	LINK_EVENT_ADDED,
	LINK_EVENT_REMOVED,
	LINK_EVENT_RENAMED, /* link->old_name holds the previous name */
	LINK_EVENT_ADMIN_UP,
	LINK_EVENT_ADMIN_DOWN,
	LINK_EVENT_CARRIER_ON,
	LINK_EVENT_CARRIER_OFF,
};

struct link_info {
	int ifindex;
	char name[IF_NAMESIZE];
	char old_name[IF_NAMESIZE]; /* RENAMED only */
	uint8_t mac[6];
	bool has_mac;  /* a 6-byte link-layer address */
	bool admin_up; /* IFF_UP */
	bool carrier;  /* IFF_LOWER_UP */
	unsigned flags;
};

struct link_monitor;

/*
 * Called once per change. One netlink message can carry several changes (a rename while
 * going up): they come as separate calls, RENAMED first. REMOVED passes the last known state;
 * the link is gone from lookups when the callback runs.
 */
typedef void (*link_monitor_cb)(struct link_monitor *m, enum link_event ev,
				const struct link_info *link, void *userdata);

/*
 * Subscribe to RTNLGRP_LINK, then enumerate the links (the initial set raises no events:
 * iterate it with link_monitor_get). On an overrun of the netlink socket the monitor
 * re-enumerates and reports the differences.
 */
int link_monitor_new(sd_event *event, link_monitor_cb cb, void *userdata,
		     struct link_monitor **ret);
struct link_monitor *link_monitor_free(struct link_monitor *m);

const struct link_info *link_monitor_get_by_index(struct link_monitor *m, int ifindex);
/* Links in ifindex order: i from 0 to link_monitor_count() - 1. */
size_t link_monitor_count(struct link_monitor *m);
const struct link_info *link_monitor_get(struct link_monitor *m, size_t i);

const char *link_event_to_string(enum link_event ev);
