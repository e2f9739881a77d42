// SPDX-License-Identifier: GPL-2.0-or-later
/* Socket I/O of ethtool netlink (libnl-genl-3): TSINFO_GET do and dump, TSCONFIG_GET. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/ethtool-compat.h"
#include "netlink/tsinfo.h"
#include "ptp/util.h"

struct ethtool_nl {
	struct nl_sock *sk;
	int family;
};

int ethtool_nl_new(struct ethtool_nl **ret)
{
	struct ethtool_nl *e = calloc(1, sizeof(*e));
	int r;

	if (!e) {
		return -ENOMEM;
	}
	e->sk = nl_socket_alloc();
	if (!e->sk) {
		free(e);
		return -ENOMEM;
	}
	/*
	 * No automatic ACK: otherwise the ACK of a successful request stays queued and the next
	 * request reads it, so errors land on the wrong request. Errors still come back.
	 */
	nl_socket_disable_auto_ack(e->sk);
	nl_socket_enable_msg_peek(e->sk);
	r = genl_connect(e->sk);
	if (r < 0) {
		ethtool_nl_free(e);
		return -ECONNREFUSED;
	}
	e->family = genl_ctrl_resolve(e->sk, ETHTOOL_GENL_NAME);
	if (e->family < 0) {
		ethtool_nl_free(e);
		return -EOPNOTSUPP; /* kernel without ethtool netlink */
	}
	*ret = e;
	return 0;
}

struct ethtool_nl *ethtool_nl_free(struct ethtool_nl *e)
{
	if (e) {
		nl_socket_free(e->sk);
		free(e);
	}
	return NULL;
}

typedef int (*reply_fn)(const struct nlmsghdr *nlh, size_t len, void *userdata);

/*
 * Send msg and read the answer ourselves rather than through nl_recvmsgs callbacks, so the
 * kernel's errno (-ENODEV, -EOPNOTSUPP) reaches the caller unchanged.
 */
static int transact(struct ethtool_nl *e, struct nl_msg *msg, reply_fn fn, void *ud)
{
	uint32_t seq;
	int r = nl_send_auto(e->sk, msg);

	if (r < 0) {
		return -EIO;
	}
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	for (;;) {
		struct sockaddr_nl from;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		bool done = false;
		int n = nl_recv(e->sk, &from, &buf, NULL);

		if (n <= 0) {
			free(buf);
			return -EIO;
		}
		r = 0;
		for (nlh = (struct nlmsghdr *) buf; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_seq != seq) {
				continue; /* a late answer to an earlier request */
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = nlmsg_data(nlh);

				r = nlh->nlmsg_len >= (uint32_t) nlmsg_size(sizeof(*err))
					    ? err->error
					    : -EBADMSG;
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			r = fn(nlh, nlh->nlmsg_len, ud);
			done = true;
			break;
		}
		free(buf);
		if (done) {
			return r;
		}
	}
}

/* One request about one device (a name, never empty): -ENODEV when it does not exist. */
static int request(struct ethtool_nl *e, uint8_t cmd, const char *ifname, reply_fn fn, void *ud)
{
	struct nl_msg *msg;
	struct nlattr *hdr;
	int r = -EMSGSIZE;

	if (!ifname || !*ifname) {
		return -EINVAL;
	}
	msg = nlmsg_alloc();
	if (!msg) {
		return -ENOMEM;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, 0, cmd,
			 ETHTOOL_GENL_VERSION)) {
		goto out;
	}
	hdr = nla_nest_start(msg, ETHTOOL_A_TSINFO_HEADER | NLA_F_NESTED);
	if (!hdr || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
	    nla_put_u32(msg, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_COMPACT_BITSETS) < 0) {
		goto out;
	}
	nla_nest_end(msg, hdr);
	r = transact(e, msg, fn, ud);
out:
	nlmsg_free(msg);
	return r;
}

static int tsinfo_one(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	return tsinfo_parse(nlh, len, userdata);
}

int ethtool_nl_tsinfo_get(struct ethtool_nl *e, const char *ifname, struct tsinfo *ret)
{
	struct tsinfo ti;
	int r = request(e, ETHTOOL_MSG_TSINFO_GET, ifname, tsinfo_one, &ti);

	if (r >= 0) {
		*ret = ti;
	}
	return r < 0 ? r : 0;
}

static int tsconfig_one(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	return tsconfig_parse(nlh, len, userdata);
}

int ethtool_nl_tsconfig_get(struct ethtool_nl *e, const char *ifname, struct tsconfig *ret)
{
	struct tsconfig tc;
	int r = request(e, PHCD_ETHTOOL_MSG_TSCONFIG_GET, ifname, tsconfig_one, &tc);

	if (r >= 0) {
		*ret = tc;
	}
	return r < 0 ? r : 0;
}
