// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PTP over IEEE 802.3 (IEEE 1588-2019 Annex E): two AF_PACKET sockets bound to the port's
 * interface. The event socket (ETH_P_1588) receives every PTP frame and sends event messages,
 * each TX timestamped; the general socket (protocol 0: it receives nothing) sends general
 * messages, never timestamped. Every send names no address: the kernel sends out of the
 * interface the socket is bound to, so a sandbox that refuses any address (sendto's dest_addr
 * must be NULL, sendmsg refused: worker/sandbox.c) confines a worker to its own port.
 *
 * Opened with cfg->lazy_general (a supervised worker's), the general socket is bound to
 * ETH_P_1588 too and receives the Announce, Delay_Resp and two-step Sync messages (the Syncs
 * stamped on receipt as on the event socket) and, at 4 Syncs a second or more, every other
 * Follow_Up, which a socket filter takes off the event socket:
 * transport_lazy_fd(), what a SLAVE port reads at the wakeup the next Follow_Up brings instead
 * of waking for it (worker/port-loop.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ptp/msg.h"
#include "ptp/transport-sock.h"
#include "ptp/transport.h"
#include "ptp/unicast-table.h"

#ifndef ETH_P_1588
#define ETH_P_1588 0x88F7
#endif

#define L2_HDR_LEN 14
#define L2_FRAME_MAX 1518

/* IEEE 1588-2019 Annex E.3: the default and the peer delay multicast addresses. */
static const uint8_t mac_ptp_default[TRANSPORT_MAC_LEN] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 };
static const uint8_t mac_ptp_pdelay[TRANSPORT_MAC_LEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

struct transport_l2 {
	struct transport base;
	int fd;	   /* the event socket: receives, sends event messages (TX timestamped) */
	int gfd;   /* the general socket: sends general messages, receives nothing unless lazy */
	bool lazy; /* gfd receives Announces, Delay_Resps, two-step Syncs (transport_lazy_fd()) */
	int ifindex;
	uint8_t mac[TRANSPORT_MAC_LEN];
	uint8_t ptp_dst_mac[TRANSPORT_MAC_LEN]; /* TRANSPORT_DEST_DEFAULT */
	uint8_t p2p_dst_mac[TRANSPORT_MAC_LEN]; /* TRANSPORT_DEST_PDELAY */
	struct transport_ts_status status;
	ns_t tx_timeout;
	uint32_t tx_key; /* OPT_ID the kernel gives the next timestamped send */
};

static struct transport_l2 *to_l2(struct transport *t)
{
	return container_of(t, struct transport_l2, base);
}

/* The configured address, or Annex E.3's when the configuration leaves it zero. */
static const uint8_t *dst_mac(const uint8_t *configured, const uint8_t *annex_e)
{
	static const uint8_t zero[TRANSPORT_MAC_LEN];

	return memcmp(configured, zero, TRANSPORT_MAC_LEN) ? configured : annex_e;
}

static int add_membership(int fd, int ifindex, const uint8_t mac[TRANSPORT_MAC_LEN])
{
	struct packet_mreq mr = {
		.mr_ifindex = ifindex,
		.mr_type = PACKET_MR_MULTICAST,
		.mr_alen = TRANSPORT_MAC_LEN,
	};

	memcpy(mr.mr_address, mac, TRANSPORT_MAC_LEN);
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		return -errno;
	}
	return 0;
}

/*
 * The messages the lazy general socket receives (messageType, the low nibble of the PTP header's
 * first byte, after the 14-byte link header): Announce, Delay_Resp, a Sync with twoStepFlag
 * (flagField's first octet, header offset 6, bit 0x02), which is no measurement until its
 * Follow_Up comes, and every other Follow_Up of Syncs at 4 a second or more: one with an odd
 * sequenceId (its low octet, header offset 31) and a logMessageInterval (header offset 33) of -7
 * to -2. The Follow_Up with the even sequenceId wakes the worker, which then reads the Sync and
 * Follow_Up before it in the order they came: a SLAVE worker wakes once every two Sync intervals
 * at those rates, its odd samples a Sync interval late (the measurement is the timestamps', so
 * only the servo's answer to them waits), where each wakeup is most of what a worker costs
 * (docs/performance.md). A unicast Follow_Up (logMessageInterval 0x7F) and those of slower Syncs
 * wake it each. The event socket's filter keeps everything else: one-step Syncs, the even
 * Follow_Ups, and frames too short to have a messageType, a flag or an interval (the port counts
 * them).
 */
#define L2_LAZY_A 0x0b /* Announce */
#define L2_LAZY_B 0x09 /* Delay_Resp */
#define L2_LAZY_SYNC MSG_SYNC
#define L2_LAZY_FUP MSG_FOLLOW_UP
#define L2_FLAG0 (L2_HDR_LEN + 6)
#define L2_FLAG0_TWO_STEP (MSG_FLAG_TWO_STEP >> 8)
#define L2_SEQ_LO (L2_HDR_LEN + 31)
#define L2_LOG_INTERVAL (L2_HDR_LEN + 33)
/* the Follow_Up's logMessageInterval, TRANSPORT_L2_HALVED_LOG_SYNC_MIN..MAX, as an octet */
#define L2_LAZY_FUP_LOG_MIN ((uint8_t) TRANSPORT_L2_HALVED_LOG_SYNC_MIN)
#define L2_LAZY_FUP_LOG_MAX ((uint8_t) TRANSPORT_L2_HALVED_LOG_SYNC_MAX)
/*
 * Keep (all of it) or drop (0): match for those, other for the rest and for short frames. A jump
 * counts instructions from the one after it: other is instruction 19 (counted from 0), match 20.
 */
#define L2_FILTER(match, other)                                                 \
	BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),                                  \
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, L2_HDR_LEN, 0, 17),         \
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, L2_HDR_LEN),                 \
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x0f),                      \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, L2_LAZY_A, 15, 0),          \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, L2_LAZY_B, 14, 0),          \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, L2_LAZY_SYNC, 0, 4),        \
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),                          \
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, L2_FLAG0, 0, 10),           \
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, L2_FLAG0),                   \
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, L2_FLAG0_TWO_STEP, 9, 8),  \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, L2_LAZY_FUP, 0, 7),         \
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),                          \
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, L2_LOG_INTERVAL, 0, 5),     \
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, L2_SEQ_LO),                  \
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 3),                  \
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, L2_LOG_INTERVAL),            \
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, L2_LAZY_FUP_LOG_MIN, 0, 1), \
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, L2_LAZY_FUP_LOG_MAX, 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, other), BPF_STMT(BPF_RET | BPF_K, match)
static const struct sock_filter l2_lazy_only[] = { L2_FILTER(0xffffffff, 0) };
static const struct sock_filter l2_all_but_lazy[] = { L2_FILTER(0, 0xffffffff) };

void transport_l2_filter(bool lazy, struct sock_fprog *ret)
{
	ret->len = (unsigned short) (lazy ? ARRAY_SIZE(l2_lazy_only) : ARRAY_SIZE(l2_all_but_lazy));
	ret->filter = (struct sock_filter *) (lazy ? l2_lazy_only : l2_all_but_lazy);
}

/*
 * A packet socket bound to ifindex with this protocol (0: one that receives nothing), with the
 * socket filter (none when NULL) attached before the bind, so that no frame comes in unfiltered.
 */
static int open_bound(int ifindex, uint16_t protocol, int socket_priority,
		      const struct sock_fprog *filter)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(protocol),
		.sll_ifindex = ifindex,
	};
	_cleanup_close_ int fd = -1;

	/*
	 * Protocol 0 until bind: a socket created with a protocol would receive that protocol
	 * from every interface until it is bound. Never ETH_P_ALL: bound to ETH_P_1588 the
	 * kernel hands us PTP frames only and no transmitted frames; bound to 0, none at all.
	 */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	if (filter && setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, filter, sizeof(*filter)) < 0) {
		return -errno;
	}
	if (bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
		return -errno;
	}
	/* ptp4l's socket_priority: a VLAN device's egress-qos-map makes it the 802.1Q PCP. */
	if (socket_priority > 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &socket_priority,
					      sizeof(socket_priority)) < 0) {
		return -errno;
	}
	return TAKE_FD(fd);
}

int transport_l2_open_general_fd(const struct transport_config *cfg)
{
	if (cfg->ifindex <= 0) {
		return -EINVAL;
	}
	return open_bound(cfg->ifindex, 0, cfg->socket_priority, NULL);
}

int transport_l2_open_fd(const struct transport_config *cfg, int ret_fds[TRANSPORT_L2_FDS],
			 struct transport_ts_status *ret_status)
{
	struct transport_ts_status st = { 0 };
	struct sock_fprog event_filter, lazy_filter;
	const uint8_t *ptp_mac, *p2p_mac;
	char ifname[IF_NAMESIZE];
	_cleanup_close_ int fd = -1, gfd = -1;
	int r;

	if (cfg->ifindex <= 0) {
		return -EINVAL;
	}
	if (!if_indextoname(cfg->ifindex, ifname)) {
		return -errno;
	}
	transport_l2_filter(false, &event_filter);
	transport_l2_filter(true, &lazy_filter);
	fd = open_bound(cfg->ifindex, ETH_P_1588, cfg->socket_priority,
			cfg->lazy_general ? &event_filter : NULL);
	if (fd < 0) {
		return fd;
	}
	/* The groups this port needs, no other: E2E hears ptp_dst_mac only. */
	ptp_mac = dst_mac(cfg->ptp_dst_mac, mac_ptp_default);
	p2p_mac = dst_mac(cfg->p2p_dst_mac, mac_ptp_pdelay);
	r = add_membership(fd, cfg->ifindex, ptp_mac);
	if (r < 0) {
		return r;
	}
	if (cfg->peer_delay && memcmp(p2p_mac, ptp_mac, TRANSPORT_MAC_LEN) != 0) {
		r = add_membership(fd, cfg->ifindex, p2p_mac);
		if (r < 0) {
			return r;
		}
	}
	transport_sock_timestamping(fd, ifname, cfg->ts_request, false, &st);
	r = transport_sock_set_ts_flags(fd, transport_sock_ts_flags(st.mode));
	if (r < 0) {
		return r;
	}
	gfd = cfg->lazy_general
		      ? open_bound(cfg->ifindex, ETH_P_1588, cfg->socket_priority, &lazy_filter)
		      : transport_l2_open_general_fd(cfg);
	if (gfd < 0) {
		return gfd;
	}
	ret_fds[TRANSPORT_L2_FD_EVENT] = TAKE_FD(fd);
	ret_fds[TRANSPORT_L2_FD_GENERAL] = TAKE_FD(gfd);
	if (ret_status) {
		*ret_status = st;
	}
	return 0;
}

/*
 * A SOCK_RAW packet socket bound to an interface with this protocol (or, with also, that one):
 * its ifindex, or -errno. *ret_also tells which it was.
 */
static int bound_ifindex2(int fd, uint16_t protocol, uint16_t also, bool *ret_also)
{
	struct sockaddr_ll sll = { 0 };
	socklen_t len = sizeof(sll);
	int type = 0;

	if (getsockname(fd, (struct sockaddr *) &sll, &len) < 0) {
		return -errno;
	}
	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) {
		return -errno;
	}
	if (sll.sll_family != AF_PACKET || type != SOCK_RAW || sll.sll_ifindex <= 0 ||
	    (sll.sll_protocol != htons(protocol) && sll.sll_protocol != htons(also))) {
		return -EPROTOTYPE;
	}
	if (ret_also) {
		*ret_also = sll.sll_protocol != htons(protocol);
	}
	return sll.sll_ifindex;
}

static int bound_ifindex(int fd, uint16_t protocol)
{
	return bound_ifindex2(fd, protocol, protocol, NULL);
}

static int l2_adopt(struct transport *t, const int *fds, size_t n,
		    const struct transport_config *cfg)
{
	int fd = fds[TRANSPORT_L2_FD_EVENT];
	int general_fd = n > TRANSPORT_L2_FD_GENERAL ? fds[TRANSPORT_L2_FD_GENERAL] : -1;
	struct transport_l2 *l2 = to_l2(t);
	struct transport_config own = { 0 };
	_cleanup_close_ int gfd = -1;
	char ifname[IF_NAMESIZE];
	bool lazy = false;
	int ifindex, r;

	if (l2->fd >= 0) {
		return -EBUSY;
	}
	if (n < 1 || n > TRANSPORT_L2_FDS) {
		return -EINVAL;
	}
	ifindex = bound_ifindex(fd, ETH_P_1588);
	if (ifindex < 0) {
		return ifindex;
	}
	if (cfg && cfg->ifindex > 0 && cfg->ifindex != ifindex) {
		return -EPROTOTYPE;
	}
	if (general_fd < 0) {
		/* By hand (phcd-port --socket-fd): a general socket of our own, CAP_NET_RAW. */
		own.ifindex = ifindex;
		own.socket_priority = cfg ? cfg->socket_priority : 0;
		gfd = transport_l2_open_general_fd(&own);
		if (gfd < 0) {
			return gfd;
		}
	} else {
		/* Bound to ETH_P_1588: the lazy one, filtered by the opener (above). */
		r = bound_ifindex2(general_fd, 0, ETH_P_1588, &lazy);
		if (r < 0) {
			return r;
		}
		if (r != ifindex) {
			return -EPROTOTYPE;
		}
	}
	if (!if_indextoname(ifindex, ifname)) {
		return -errno;
	}
	r = transport_sock_read_status(fd, ifname, &l2->status);
	if (r < 0) {
		return r;
	}
	/*
	 * Nothing the general socket sends is timestamped (nothing on its error queue); the lazy
	 * one stamps what it receives as the event socket does: its two-step Syncs' t2.
	 */
	r = transport_sock_set_ts_flags(gfd >= 0 ? gfd : general_fd,
					lazy ? transport_sock_rx_ts_flags(l2->status.mode) : 0);
	if (r < 0) {
		return r;
	}
	/* The kernel restarts the OPT_ID counter at 0 only when OPT_ID goes from off to on. */
	r = transport_sock_restart_keys(fd, transport_sock_ts_flags(l2->status.mode));
	if (r < 0) {
		return r;
	}
	r = transport_sock_get_mac(fd, ifname, l2->mac);
	if (r < 0) {
		return r;
	}
	l2->fd = fd;
	l2->gfd = gfd >= 0 ? TAKE_FD(gfd) : general_fd;
	l2->lazy = lazy;
	l2->ifindex = ifindex;
	l2->tx_key = 0;
	l2->tx_timeout = cfg && cfg->tx_timeout > 0 ? cfg->tx_timeout
						    : TRANSPORT_TX_TIMEOUT_DEFAULT;
	memcpy(l2->ptp_dst_mac, cfg ? dst_mac(cfg->ptp_dst_mac, mac_ptp_default) : mac_ptp_default,
	       TRANSPORT_MAC_LEN);
	memcpy(l2->p2p_dst_mac, cfg ? dst_mac(cfg->p2p_dst_mac, mac_ptp_pdelay) : mac_ptp_pdelay,
	       TRANSPORT_MAC_LEN);
	return 0;
}

static int l2_open(struct transport *t, const struct transport_config *cfg)
{
	struct transport_l2 *l2 = to_l2(t);
	struct transport_ts_status st;
	int fds[TRANSPORT_L2_FDS], r;

	if (l2->fd >= 0) {
		return -EBUSY;
	}
	r = transport_l2_open_fd(cfg, fds, &st);
	if (r < 0) {
		return r;
	}
	r = l2_adopt(t, fds, TRANSPORT_L2_FDS, cfg);
	if (r < 0) {
		close(fds[TRANSPORT_L2_FD_EVENT]);
		close(fds[TRANSPORT_L2_FD_GENERAL]);
		return r;
	}
	/* Keep what only the opener knows: why hardware was refused. */
	l2->status.hw_error = st.hw_error;
	return 0;
}

static void l2_close(struct transport *t)
{
	struct transport_l2 *l2 = to_l2(t);

	if (l2->fd >= 0) {
		close(l2->fd);
		l2->fd = -1;
	}
	if (l2->gfd >= 0) {
		close(l2->gfd);
		l2->gfd = -1;
	}
}

static void l2_free(struct transport *t)
{
	free(to_l2(t));
}

/*
 * No address and no cmsg: each socket sends out of the interface it is bound to (the only one a
 * sandboxed worker may reach), event messages through the event socket whose every send is TX
 * timestamped, general ones through the general socket.
 */
static int l2_send(struct transport *t, const void *buf, size_t len,
		   const struct transport_dest *dest, bool event, ns_t *ret_tx_ts)
{
	struct transport_l2 *l2 = to_l2(t);
	uint8_t frame[L2_FRAME_MAX];
	const uint8_t *dst = l2->ptp_dst_mac;
	ssize_t n;

	if (l2->fd < 0 || l2->gfd < 0) {
		return -EBADF;
	}
	if (len > sizeof(frame) - L2_HDR_LEN) {
		return -EMSGSIZE;
	}
	if (dest && dest->kind == TRANSPORT_DEST_PDELAY) {
		dst = l2->p2p_dst_mac;
	} else if (dest && dest->kind == TRANSPORT_DEST_UNICAST) {
		struct unicast_addr a;

		/* Not a MAC, or a group or zero one: no single peer to send to here. */
		if (dest->addr_len != TRANSPORT_MAC_LEN ||
		    unicast_addr_from_bytes(dest->addr, dest->addr_len, &a) < 0) {
			return TRANSPORT_TX_NO_PEER;
		}
		dst = dest->addr;
	}
	memcpy(frame, dst, TRANSPORT_MAC_LEN);
	memcpy(frame + TRANSPORT_MAC_LEN, l2->mac, TRANSPORT_MAC_LEN);
	frame[12] = ETH_P_1588 >> 8;
	frame[13] = ETH_P_1588 & 0xff;
	memcpy(frame + L2_HDR_LEN, buf, len);

	n = sendto(event ? l2->fd : l2->gfd, frame, L2_HDR_LEN + len, 0, NULL, 0);
	if (n < 0) {
		return -errno;
	}
	if ((size_t) n != L2_HDR_LEN + len) {
		return -EIO;
	}
	if (event) {
		/* The kernel gave this frame the key tx_key, whether or not a timestamp comes. */
		uint32_t key = l2->tx_key++;
		ns_t ts = 0;
		int r = transport_sock_wait_tx_ts(l2->fd,
						  l2->status.mode == TRANSPORT_TS_MODE_HARDWARE,
						  key, l2->tx_timeout, &ts);

		if (r < 0) {
			return r;
		}
		if (ret_tx_ts) {
			*ret_tx_ts = ts;
		}
	}
	return (int) len;
}

/*
 * The binding admits ETH_P_1588 only; anything shorter than a header is junk. PACKET_OTHERHOST is
 * not ours: unicast to another MAC seen in promiscuous mode, or PTP tagged for a VLAN without a
 * device here (the kernel strips the tag and still hands the frame to every ETH_P_1588 socket of
 * the port; l2_vlan_tagged() picks those out first, for the caller to count).
 */
static bool l2_ours(const uint8_t *hdr, ssize_t n, const struct sockaddr_ll *from)
{
	return n >= L2_HDR_LEN && hdr[12] == (ETH_P_1588 >> 8) && hdr[13] == (ETH_P_1588 & 0xff) &&
	       from->sll_pkttype != PACKET_OTHERHOST;
}

/*
 * A PTP frame tagged for a VLAN (VID != 0) that has no device here. The kernel takes the tag
 * off, finds no VLAN device, marks the frame PACKET_OTHERHOST and clears the tag (so the auxdata
 * no longer has it): what tells it apart from unicast to another MAC seen in promiscuous mode,
 * the other PACKET_OTHERHOST, is a destination that is a group address or our own MAC.
 * Priority-tagged frames (VID 0) are the interface's own and pass untouched.
 */
static bool l2_vlan_tagged(const struct transport_l2 *l2, const uint8_t *hdr, ssize_t n,
			   const struct sockaddr_ll *from)
{
	return n >= L2_HDR_LEN && hdr[12] == (ETH_P_1588 >> 8) && hdr[13] == (ETH_P_1588 & 0xff) &&
	       from->sll_pkttype == PACKET_OTHERHOST &&
	       ((hdr[0] & 0x01) || memcmp(hdr, l2->mac, TRANSPORT_MAC_LEN) == 0);
}

/* A received frame's source and timestamp. */
static void l2_rx_info(struct transport_l2 *l2, struct msghdr *msg, const uint8_t *hdr,
		       struct transport_rx_info *ret)
{
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->src, hdr + TRANSPORT_MAC_LEN, TRANSPORT_MAC_LEN);
	ret->src_len = TRANSPORT_MAC_LEN;
	transport_sock_rx_ts(msg, l2->status.mode == TRANSPORT_TS_MODE_HARDWARE, ret);
}

static int l2_recv_one(struct transport_l2 *l2, int fd, void *buf, size_t len,
		       struct transport_rx_info *ret)
{
	uint8_t frame[L2_FRAME_MAX];
	char ctrl[512];
	struct sockaddr_ll from = { 0 };
	struct iovec iov = { frame, sizeof(frame) };
	struct msghdr msg = { .msg_name = &from,
			      .msg_namelen = sizeof(from),
			      .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctrl,
			      .msg_controllen = sizeof(ctrl) };
	size_t plen;
	ssize_t n;

	for (;;) {
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			return errno == EINTR ? -EAGAIN : -errno;
		}
		if (l2_vlan_tagged(l2, frame, n, &from)) {
			return TRANSPORT_RX_VLAN_TAGGED;
		}
		if (l2_ours(frame, n, &from)) {
			break;
		}
		msg.msg_namelen = sizeof(from);
		msg.msg_controllen = sizeof(ctrl);
	}
	l2_rx_info(l2, &msg, frame, ret);
	plen = (size_t) n - L2_HDR_LEN;
	/* Longer than any PTP message fits in a standard frame: deliver nothing of it. */
	if (msg.msg_flags & MSG_TRUNC) {
		return -EMSGSIZE;
	}
	if (plen > len) {
		memcpy(buf, frame + L2_HDR_LEN, len);
		return -EMSGSIZE;
	}
	memcpy(buf, frame + L2_HDR_LEN, plen);
	return (int) plen;
}

/* One frame: the lazy general socket's first, as l2_recv_batch() reads them. */
static int l2_recv(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret)
{
	struct transport_l2 *l2 = to_l2(t);
	int r;

	if (l2->fd < 0) {
		return -EBADF;
	}
	if (l2->lazy) {
		r = l2_recv_one(l2, l2->gfd, buf, len, ret);
		if (r != -EAGAIN) {
			return r;
		}
	}
	return l2_recv_one(l2, l2->fd, buf, len, ret);
}

/* Up to n (at most TRANSPORT_RX_BATCH) frames of fd in one recvmmsg(), each payload straight
 * into its entry: how many, or -errno. */
static int l2_recv_fd(struct transport_l2 *l2, int fd, struct transport_frame *f, size_t n)
{
	uint8_t hdr[TRANSPORT_RX_BATCH][L2_HDR_LEN];
	char ctrl[TRANSPORT_RX_BATCH][512];
	struct sockaddr_ll from[TRANSPORT_RX_BATCH];
	struct iovec iov[TRANSPORT_RX_BATCH][2];
	struct mmsghdr mm[TRANSPORT_RX_BATCH];
	int got;

	_Static_assert(L2_HDR_LEN + TRANSPORT_PAYLOAD_MAX == L2_FRAME_MAX, "one frame per entry");
	memset(mm, 0, n * sizeof(mm[0]));
	for (size_t k = 0; k < n; k++) {
		iov[k][0] = (struct iovec){ hdr[k], L2_HDR_LEN };
		iov[k][1] = (struct iovec){ f[k].buf, sizeof(f[k].buf) };
		mm[k].msg_hdr = (struct msghdr){ .msg_name = &from[k],
						 .msg_namelen = sizeof(from[k]),
						 .msg_iov = iov[k],
						 .msg_iovlen = 2,
						 .msg_control = ctrl[k],
						 .msg_controllen = sizeof(ctrl[k]) };
	}
	got = recvmmsg(fd, mm, (unsigned int) n, MSG_DONTWAIT, NULL);
	if (got < 0) {
		return errno == EINTR ? -EAGAIN : -errno;
	}
	for (int k = 0; k < got; k++) {
		ssize_t len = (ssize_t) mm[k].msg_len;

		if (l2_vlan_tagged(l2, hdr[k], len, &from[k])) {
			f[k].len = TRANSPORT_RX_VLAN_TAGGED;
			continue;
		}
		if (!l2_ours(hdr[k], len, &from[k])) {
			f[k].len = -ENOMSG;
			continue;
		}
		l2_rx_info(l2, &mm[k].msg_hdr, hdr[k], &f[k].info);
		/* Longer than any PTP message fits in a standard frame: deliver nothing of it. */
		f[k].len = mm[k].msg_hdr.msg_flags & MSG_TRUNC ? -EMSGSIZE
							       : (int) (len - L2_HDR_LEN);
	}
	return got;
}

/* Up to n frames of fd (l2_recv_fd()), 0 when it has none. */
static int l2_recv_some(struct transport_l2 *l2, int fd, struct transport_frame *f, size_t n)
{
	int got = n ? l2_recv_fd(l2, fd, f, n) : 0;

	return got == -EAGAIN ? 0 : got;
}

/*
 * Up to TRANSPORT_RX_BATCH frames: with a lazy general socket, all but one of them from it first
 * (they came before the wakeup that reads them: a Sync, and an Announce or a Delay_Resp now and
 * then, a Sync interval: at most 3, so that one read finds them all and says the socket is
 * empty), then the event socket's, then more of the lazy one's if the event socket had no more:
 * a flood of Announces, Delay_Resps or Syncs leaves a quarter of each batch at least to the
 * event socket, which is read at every batch, so that its receive queue, which its TX
 * timestamps share, does not fill behind them. With four or more waiting there, a Follow_Up can
 * come out before its Sync: the port holds it until the Sync (port-sync.c, early Follow_Ups), as
 * for reordering on the wire. Fewer than n: both are empty.
 */
static int l2_recv_batch(struct transport *t, struct transport_frame *f, size_t n)
{
	struct transport_l2 *l2 = to_l2(t);
	size_t cap, lazy = 0;
	int got;

	if (l2->fd < 0) {
		return -EBADF;
	}
	n = n < TRANSPORT_RX_BATCH ? n : TRANSPORT_RX_BATCH;
	cap = l2->lazy ? (n > 1 ? n - 1 : n) : 0;
	got = l2_recv_some(l2, l2->gfd, f, cap);
	if (got < 0) {
		return got;
	}
	lazy = (size_t) got;
	got = l2_recv_some(l2, l2->fd, f + lazy, n - lazy);
	if (got < 0) {
		return lazy ? (int) lazy : got;
	}
	if (lazy == cap && cap && lazy + (size_t) got < n) {
		size_t k = lazy + (size_t) got;
		int more = l2_recv_some(l2, l2->gfd, f + k, n - k);

		return (int) k + (more > 0 ? more : 0);
	}
	return lazy + (size_t) got ? (int) (lazy + (size_t) got) : -EAGAIN;
}

static int l2_fd(struct transport *t)
{
	return to_l2(t)->fd;
}

static int l2_lazy_fd(struct transport *t)
{
	struct transport_l2 *l2 = to_l2(t);

	return l2->lazy ? l2->gfd : -1;
}

static int l2_get_mac(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN])
{
	struct transport_l2 *l2 = to_l2(t);

	if (l2->fd < 0) {
		return -EBADF;
	}
	memcpy(mac, l2->mac, TRANSPORT_MAC_LEN);
	return 0;
}

static int l2_get_ts_status(struct transport *t, struct transport_ts_status *ret)
{
	struct transport_l2 *l2 = to_l2(t);

	if (l2->fd < 0) {
		return -EBADF;
	}
	*ret = l2->status;
	return 0;
}

static const struct transport_ops l2_ops = {
	.name = "L2",
	.open = l2_open,
	.adopt = l2_adopt,
	.close = l2_close,
	.free = l2_free,
	.send = l2_send,
	.recv = l2_recv,
	.recv_batch = l2_recv_batch,
	.fd = l2_fd,
	.lazy_fd = l2_lazy_fd,
	.get_mac = l2_get_mac,
	.get_ts_status = l2_get_ts_status,
};

int transport_l2_new(struct transport **ret)
{
	struct transport_l2 *l2 = calloc(1, sizeof(*l2));

	if (!l2) {
		return -ENOMEM;
	}
	l2->base.ops = &l2_ops;
	l2->fd = -1;
	l2->gfd = -1;
	l2->status.phc_index = -1;
	*ret = &l2->base;
	return 0;
}
