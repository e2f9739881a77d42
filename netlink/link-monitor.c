// SPDX-License-Identifier: GPL-2.0-or-later
/* Link monitor on rtnetlink (libnl-route-3) feeding an sd-event loop: interfaces and their state.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "netlink/link-monitor.h"
#include "ptp/util.h"

/* linux/if.h has it but clashes with net/if.h; the value is uapi. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

struct link_monitor {
	sd_event_source *io;
	struct nl_sock *events; /* RTNLGRP_LINK notifications */
	struct nl_sock *query;	/* dumps */
	link_monitor_cb cb;
	void *userdata;
	struct link_info *links; /* sorted by ifindex */
	size_t n_links;
	size_t n_alloc;
	unsigned generation; /* for resync: which links the last dump saw */
	unsigned *seen;
};

static const char *const event_names[] = {
	[LINK_EVENT_ADDED] = "added",
	[LINK_EVENT_REMOVED] = "removed",
	[LINK_EVENT_RENAMED] = "renamed",
	[LINK_EVENT_ADMIN_UP] = "admin-up",
	[LINK_EVENT_ADMIN_DOWN] = "admin-down",
	[LINK_EVENT_CARRIER_ON] = "carrier-on",
	[LINK_EVENT_CARRIER_OFF] = "carrier-off",
};

const char *link_event_to_string(enum link_event ev)
{
	return (size_t) ev < ARRAY_SIZE(event_names) ? event_names[ev] : "unknown";
}

static size_t find_pos(struct link_monitor *m, int ifindex)
{
	size_t lo = 0, hi = m->n_links;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->links[mid].ifindex < ifindex) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

const struct link_info *link_monitor_get_by_index(struct link_monitor *m, int ifindex)
{
	size_t i = find_pos(m, ifindex);

	return i < m->n_links && m->links[i].ifindex == ifindex ? &m->links[i] : NULL;
}

size_t link_monitor_count(struct link_monitor *m)
{
	return m->n_links;
}

const struct link_info *link_monitor_get(struct link_monitor *m, size_t i)
{
	return i < m->n_links ? &m->links[i] : NULL;
}

static void emit(struct link_monitor *m, enum link_event ev, const struct link_info *li,
		 bool notify)
{
	if (notify && m->cb) {
		m->cb(m, ev, li, m->userdata);
	}
}

static void link_info_from(struct rtnl_link *link, struct link_info *li)
{
	struct nl_addr *addr = rtnl_link_get_addr(link);
	const char *name = rtnl_link_get_name(link);

	memset(li, 0, sizeof(*li));
	li->ifindex = rtnl_link_get_ifindex(link);
	if (name) {
		snprintf(li->name, sizeof(li->name), "%s", name);
	}
	li->flags = rtnl_link_get_flags(link);
	li->admin_up = li->flags & IFF_UP;
	li->carrier = li->flags & IFF_LOWER_UP;
	if (addr && nl_addr_get_len(addr) == sizeof(li->mac)) {
		memcpy(li->mac, nl_addr_get_binary_addr(addr), sizeof(li->mac));
		li->has_mac = true;
	}
}

static int grow(struct link_monitor *m)
{
	size_t n = m->n_alloc ? m->n_alloc * 2 : 16;
	struct link_info *links;
	unsigned *seen;

	if (m->n_links < m->n_alloc) {
		return 0;
	}
	links = reallocarray(m->links, n, sizeof(*links));
	if (!links) {
		return -ENOMEM;
	}
	m->links = links;
	seen = reallocarray(m->seen, n, sizeof(*seen));
	if (!seen) {
		return -ENOMEM;
	}
	m->seen = seen;
	m->n_alloc = n;
	return 0;
}

/* Merge one link's new state into the table and report what changed. */
static int link_update(struct link_monitor *m, const struct link_info *now, bool notify)
{
	size_t i = find_pos(m, now->ifindex);
	struct link_info old;
	int r;

	if (i >= m->n_links || m->links[i].ifindex != now->ifindex) {
		r = grow(m);
		if (r < 0) {
			return r;
		}
		memmove(&m->links[i + 1], &m->links[i], (m->n_links - i) * sizeof(*m->links));
		memmove(&m->seen[i + 1], &m->seen[i], (m->n_links - i) * sizeof(*m->seen));
		m->links[i] = *now;
		m->seen[i] = m->generation;
		m->n_links++;
		emit(m, LINK_EVENT_ADDED, &m->links[i], notify);
		return 0;
	}
	old = m->links[i];
	m->links[i] = *now;
	m->seen[i] = m->generation;
	if (strcmp(old.name, now->name) != 0) {
		snprintf(m->links[i].old_name, sizeof(m->links[i].old_name), "%s", old.name);
		emit(m, LINK_EVENT_RENAMED, &m->links[i], notify);
		m->links[i].old_name[0] = '\0';
	}
	if (old.admin_up != now->admin_up) {
		emit(m, now->admin_up ? LINK_EVENT_ADMIN_UP : LINK_EVENT_ADMIN_DOWN, &m->links[i],
		     notify);
	}
	if (old.carrier != now->carrier) {
		emit(m, now->carrier ? LINK_EVENT_CARRIER_ON : LINK_EVENT_CARRIER_OFF, &m->links[i],
		     notify);
	}
	return 0;
}

static void link_remove_at(struct link_monitor *m, size_t i, bool notify)
{
	struct link_info gone = m->links[i];

	memmove(&m->links[i], &m->links[i + 1], (m->n_links - i - 1) * sizeof(*m->links));
	memmove(&m->seen[i], &m->seen[i + 1], (m->n_links - i - 1) * sizeof(*m->seen));
	m->n_links--;
	emit(m, LINK_EVENT_REMOVED, &gone, notify);
}

struct resync_ctx {
	struct link_monitor *m;
	bool notify;
	int r;
};

static void resync_one(struct nl_object *obj, void *arg)
{
	struct resync_ctx *ctx = arg;
	struct link_info li;
	int r;

	link_info_from((struct rtnl_link *) obj, &li);
	r = link_update(ctx->m, &li, ctx->notify);
	if (r < 0) {
		ctx->r = r;
	}
}

/* Dump all links and diff against the table: the initial enumeration and overrun recovery. */
static int resync(struct link_monitor *m, bool notify)
{
	struct resync_ctx ctx = { m, notify, 0 };
	struct nl_cache *cache = NULL;

	if (rtnl_link_alloc_cache(m->query, AF_UNSPEC, &cache) < 0) {
		return -EIO;
	}
	m->generation++;
	nl_cache_foreach(cache, resync_one, &ctx);
	nl_cache_free(cache);
	for (size_t i = m->n_links; i-- > 0;) {
		if (m->seen[i] != m->generation) {
			link_remove_at(m, i, notify);
		}
	}
	return ctx.r;
}

static void parsed_link(struct nl_object *obj, void *arg)
{
	struct link_monitor *m = arg;
	struct link_info li;

	link_info_from((struct rtnl_link *) obj, &li);
	(void) link_update(m, &li, true);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct link_monitor *m = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	const struct ifinfomsg *ifi;
	size_t i;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) {
		return NL_OK;
	}
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi))) {
		return NL_OK;
	}
	ifi = nlmsg_data(nlh);
	/* AF_BRIDGE messages describe bridge port state, not the link coming or going. */
	if (ifi->ifi_family != AF_UNSPEC) {
		return NL_OK;
	}
	if (nlh->nlmsg_type == RTM_DELLINK) {
		i = find_pos(m, ifi->ifi_index);
		if (i < m->n_links && m->links[i].ifindex == ifi->ifi_index) {
			link_remove_at(m, i, true);
		}
		return NL_OK;
	}
	(void) nl_msg_parse(msg, parsed_link, m);
	return NL_OK;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct link_monitor *m = userdata;
	int r = nl_recvmsgs_default(m->events);

	/* ENOBUFS: the kernel dropped notifications; only a fresh dump tells what changed. */
	if (r == -NLE_NOMEM) {
		(void) resync(m, true);
	}
	return 0;
}

int link_monitor_new(sd_event *event, link_monitor_cb cb, void *userdata, struct link_monitor **ret)
{
	struct link_monitor *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	if (!m) {
		return -ENOMEM;
	}
	m->cb = cb;
	m->userdata = userdata;
	m->events = nl_socket_alloc();
	m->query = nl_socket_alloc();
	if (!m->events || !m->query) {
		goto fail;
	}
	nl_socket_disable_seq_check(m->events);
	nl_socket_modify_cb(m->events, NL_CB_VALID, NL_CB_CUSTOM, on_valid, m);
	/* Subscribe before the dump so nothing falls between them; duplicates diff to nothing. */
	if (nl_connect(m->events, NETLINK_ROUTE) < 0 ||
	    nl_socket_add_membership(m->events, RTNLGRP_LINK) < 0 ||
	    nl_socket_set_nonblocking(m->events) < 0 || nl_connect(m->query, NETLINK_ROUTE) < 0) {
		r = -EIO;
		goto fail;
	}
	r = resync(m, false);
	if (r < 0) {
		goto fail;
	}
	if (event) {
		r = sd_event_add_io(event, &m->io, nl_socket_get_fd(m->events), EPOLLIN, on_io, m);
		if (r < 0) {
			goto fail;
		}
	}
	*ret = m;
	return 0;
fail:
	link_monitor_free(m);
	return r;
}

struct link_monitor *link_monitor_free(struct link_monitor *m)
{
	if (!m) {
		return NULL;
	}
	sd_event_source_disable_unref(m->io);
	nl_socket_free(m->events);
	nl_socket_free(m->query);
	free(m->links);
	free(m->seen);
	free(m);
	return NULL;
}
