// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PTP over UDP (IEEE 1588-2019 Annex C, IPv4; Annex D, IPv6): six UDP sockets bound to the port's
 * interface (SO_BINDTODEVICE). Two receive, on the event port 319 (RX timestamped) and the
 * general port 320, members of the primary group and, with peer delay, of the peer delay group.
 * Four send, each connected to one group and one port, bound to the same port numbers as ptp4l's:
 * the event ones TX timestamped. A connected socket receives nothing that is sent to a group
 * (the kernel delivers multicast only to sockets connected to the sender or to none), and every
 * send names no address, so a sandbox that refuses any address (worker/sandbox.c) confines a
 * worker to the four destinations the supervisor chose.
 *
 * Unicast (hybrid_e2e): two more sockets per peer, connected to its ports 319 and 320, which the
 * supervisor opens when its policy allows that peer (common/peer-policy.h) and the worker adds
 * (transport_add_peer()). They are bound to a port the kernel chooses, not 319 and 320: bound
 * there and connected, they would be the kernel's better match for the peer's own datagrams to
 * 319 and 320 (and, IP_MULTICAST_ALL, for its multicast ones), which must keep coming to the two
 * receiving sockets. A unicast datagram to the port's address lands on those as a group's does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ptp/transport-sock.h"
#include "ptp/transport.h"

/* A unicast peer's sockets (transport_add_peer()). */
struct udp_peer {
	uint8_t addr[TRANSPORT_ADDR_LEN];
	uint8_t len;
	int fd[TRANSPORT_UDP_PEER_FDS];
	uint32_t tx_key; /* OPT_ID the kernel gives the next event send */
	uint64_t used;	 /* udp->use_clock at the last send: the least is dropped first */
};

struct transport_udp {
	struct transport base;
	bool ipv6;
	int fd[TRANSPORT_UDP_FDS];
	int ifindex;
	char ifname[IF_NAMESIZE];
	size_t n_peers;
	uint64_t use_clock;
	struct udp_peer peers[TRANSPORT_UDP_PEERS_MAX];
	uint8_t mac[TRANSPORT_MAC_LEN];
	struct transport_ts_status status;
	ns_t tx_timeout;
	uint32_t tx_key[TRANSPORT_UDP_FDS]; /* OPT_ID the kernel gives the next send (event TX) */
};

static struct transport_udp *to_udp(struct transport *t)
{
	return container_of(t, struct transport_udp, base);
}

/* What each socket is: its port, and for a sending one its group. */
static const struct {
	uint16_t port;
	bool tx;
	bool pdelay;
} udp_fd_role[TRANSPORT_UDP_FDS] = {
	[TRANSPORT_UDP_FD_EVENT] = { TRANSPORT_UDP_PORT_EVENT, false, false },
	[TRANSPORT_UDP_FD_GENERAL] = { TRANSPORT_UDP_PORT_GENERAL, false, false },
	[TRANSPORT_UDP_FD_EVENT_TX] = { TRANSPORT_UDP_PORT_EVENT, true, false },
	[TRANSPORT_UDP_FD_GENERAL_TX] = { TRANSPORT_UDP_PORT_GENERAL, true, false },
	[TRANSPORT_UDP_FD_PDELAY_TX] = { TRANSPORT_UDP_PORT_EVENT, true, true },
	[TRANSPORT_UDP_FD_PDELAY_GEN_TX] = { TRANSPORT_UDP_PORT_GENERAL, true, true },
};

int transport_udp_group(bool ipv6, bool pdelay, uint8_t udp6_scope, uint16_t port, int ifindex,
			struct sockaddr_storage *ret, socklen_t *ret_len)
{
	memset(ret, 0, sizeof(*ret));
	if (udp6_scope > 0xf) {
		return -EINVAL;
	}
	if (!ipv6) {
		struct sockaddr_in *a = (struct sockaddr_in *) ret;

		/* IEEE 1588-2019 C.3: 224.0.1.129 for all but peer delay, 224.0.0.107 for it. */
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(pdelay ? 0xe000006b : 0xe0000181);
		*ret_len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *) ret;

		/* D.3: FF0X::181 (X the scope, udp6_scope), FF02::6B for peer delay. */
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr.s6_addr[0] = 0xff;
		a->sin6_addr.s6_addr[1] = pdelay ? 0x02 : (udp6_scope ? udp6_scope : 0x0e);
		a->sin6_addr.s6_addr[14] = pdelay ? 0x00 : 0x01;
		a->sin6_addr.s6_addr[15] = pdelay ? 0x6b : 0x81;
		/* Needed for the link-local groups, ignored by the kernel for wider ones. */
		a->sin6_scope_id = (uint32_t) ifindex;
		*ret_len = sizeof(*a);
	}
	return 0;
}

int transport_udp_src(const struct sockaddr_storage *from, uint8_t ret[TRANSPORT_ADDR_LEN])
{
	memset(ret, 0, TRANSPORT_ADDR_LEN);
	if (from->ss_family == AF_INET) {
		memcpy(ret, &((const struct sockaddr_in *) from)->sin_addr, 4);
		return 0;
	}
	if (from->ss_family == AF_INET6) {
		memcpy(ret, &((const struct sockaddr_in6 *) from)->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

static int set_int(int fd, int level, int name, int value)
{
	if (setsockopt(fd, level, name, &value, sizeof(value)) < 0) {
		return -errno;
	}
	return 0;
}

static int join_group(int fd, bool ipv6, int ifindex, const struct sockaddr_storage *group)
{
	int r;

	if (!ipv6) {
		struct ip_mreqn mr = { .imr_ifindex = ifindex };

		mr.imr_multiaddr = ((const struct sockaddr_in *) group)->sin_addr;
		r = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
	} else {
		struct ipv6_mreq mr = { .ipv6mr_interface = (unsigned int) ifindex };

		mr.ipv6mr_multiaddr = ((const struct sockaddr_in6 *) group)->sin6_addr;
		r = setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &mr, sizeof(mr));
	}
	return r < 0 ? -errno : 0;
}

/* Multicast out of ifindex only, ttl hops, not looped back to us, marked with dscp. */
static int set_sending(int fd, bool ipv6, int ifindex, const struct transport_config *cfg,
		       uint8_t dscp)
{
	int ttl = cfg->udp_ttl ? cfg->udp_ttl : 1, r;

	if (!ipv6) {
		struct ip_mreqn mr = { .imr_ifindex = ifindex };

		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) < 0) {
			return -errno;
		}
		r = set_int(fd, IPPROTO_IP, IP_MULTICAST_TTL, ttl);
		if (r >= 0) {
			r = set_int(fd, IPPROTO_IP, IP_MULTICAST_LOOP, 0);
		}
		if (r >= 0 && dscp) {
			r = set_int(fd, IPPROTO_IP, IP_TOS, dscp << 2);
		}
		return r;
	}
	r = set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, ifindex);
	if (r >= 0) {
		r = set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, ttl);
	}
	if (r >= 0) {
		r = set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0);
	}
	if (r >= 0 && dscp) {
		r = set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, dscp << 2);
	}
	return r;
}

/*
 * One socket of the port: bound to the interface, then to the wildcard address and its port
 * (several of a port share a port number: SO_REUSEADDR), then for a sending one connected.
 */
static int open_one(bool ipv6, int ifindex, const char *ifname, const struct transport_config *cfg,
		    size_t role)
{
	struct sockaddr_storage sa = { 0 };
	socklen_t len;
	bool event = udp_fd_role[role].port == TRANSPORT_UDP_PORT_EVENT;
	_cleanup_close_ int fd = -1;
	int r;

	fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0) {
		return -errno;
	}
	r = set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (r >= 0 && ipv6) {
		r = set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	}
	if (r < 0) {
		return r;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t) strlen(ifname)) < 0) {
		return -errno;
	}
	if (cfg->socket_priority > 0) {
		r = set_int(fd, SOL_SOCKET, SO_PRIORITY, cfg->socket_priority);
		if (r < 0) {
			return r;
		}
	}
	if (ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *) &sa;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(udp_fd_role[role].port);
		a->sin6_addr = in6addr_any;
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *) &sa;

		a->sin_family = AF_INET;
		a->sin_port = htons(udp_fd_role[role].port);
		a->sin_addr.s_addr = htonl(INADDR_ANY);
		len = sizeof(*a);
	}
	if (bind(fd, (struct sockaddr *) &sa, len) < 0) {
		return -errno;
	}
	if (!udp_fd_role[role].tx) {
		/* The groups this port needs, no other: E2E hears the primary group only. */
		for (int pdelay = 0; pdelay <= (int) cfg->peer_delay; pdelay++) {
			r = transport_udp_group(ipv6, pdelay, cfg->udp6_scope,
						udp_fd_role[role].port, ifindex, &sa, &len);
			if (r >= 0) {
				r = join_group(fd, ipv6, ifindex, &sa);
			}
			if (r < 0) {
				return r;
			}
		}
		return TAKE_FD(fd);
	}
	r = set_sending(fd, ipv6, ifindex, cfg, event ? cfg->dscp_event : cfg->dscp_general);
	if (r >= 0) {
		r = transport_udp_group(ipv6, udp_fd_role[role].pdelay, cfg->udp6_scope,
					udp_fd_role[role].port, ifindex, &sa, &len);
	}
	if (r < 0) {
		return r;
	}
	if (connect(fd, (struct sockaddr *) &sa, len) < 0) {
		return -errno;
	}
	return TAKE_FD(fd);
}

static void close_all(int *fds, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (fds[k] >= 0) {
			close(fds[k]);
			fds[k] = -1;
		}
	}
}

/* The sockets that get TX timestamps: every send through them is an event message. */
static bool stamps_tx(size_t role)
{
	return udp_fd_role[role].tx && udp_fd_role[role].port == TRANSPORT_UDP_PORT_EVENT;
}

int transport_udp_open_fd(bool ipv6, const struct transport_config *cfg,
			  int ret_fds[TRANSPORT_UDP_FDS], struct transport_ts_status *ret_status)
{
	struct transport_ts_status st = { 0 };
	int fds[TRANSPORT_UDP_FDS], r = 0;
	char ifname[IF_NAMESIZE];

	if (cfg->ifindex <= 0 || cfg->udp6_scope > 0xf || cfg->dscp_event > 63 ||
	    cfg->dscp_general > 63) {
		return -EINVAL;
	}
	if (!if_indextoname(cfg->ifindex, ifname)) {
		return -errno;
	}
	for (size_t k = 0; k < TRANSPORT_UDP_FDS; k++) {
		fds[k] = -1;
	}
	for (size_t k = 0; k < TRANSPORT_UDP_FDS && r >= 0; k++) {
		fds[k] = open_one(ipv6, cfg->ifindex, ifname, cfg, k);
		r = fds[k] < 0 ? fds[k] : 0;
	}
	if (r >= 0) {
		transport_sock_timestamping(fds[TRANSPORT_UDP_FD_EVENT], ifname, cfg->ts_request,
					    true, &st);
	}
	for (size_t k = 0; k < TRANSPORT_UDP_FDS && r >= 0; k++) {
		if (k == TRANSPORT_UDP_FD_EVENT || stamps_tx(k)) {
			r = transport_sock_set_ts_flags(fds[k], transport_sock_ts_flags(st.mode));
		}
	}
	if (r < 0) {
		close_all(fds, TRANSPORT_UDP_FDS);
		return r;
	}
	memcpy(ret_fds, fds, sizeof(fds));
	if (ret_status) {
		*ret_status = st;
	}
	return 0;
}

int transport_udp_peer_sockaddr(bool ipv6, const uint8_t *addr, size_t len, uint32_t scope_id,
				uint16_t port, int ifindex, struct sockaddr_storage *ret,
				socklen_t *ret_len)
{
	memset(ret, 0, sizeof(*ret));
	if (len != (ipv6 ? 16u : 4u)) {
		return -EINVAL;
	}
	if (!ipv6) {
		struct sockaddr_in *a = (struct sockaddr_in *) ret;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		memcpy(&a->sin_addr, addr, 4);
		*ret_len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *) ret;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		memcpy(&a->sin6_addr, addr, 16);
		/* A link-local address is on the port's link; the kernel ignores it for others. */
		if (IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr)) {
			a->sin6_scope_id = scope_id ? scope_id : (uint32_t) ifindex;
		}
		*ret_len = sizeof(*a);
	}
	return 0;
}

/* One socket to a peer's port: as open_one()'s senders, but unicast, and bound by connect(). */
static int open_peer_one(bool ipv6, const char *ifname, const struct transport_config *cfg,
			 const struct sockaddr_storage *peer, socklen_t len, bool event,
			 enum transport_ts_mode mode)
{
	_cleanup_close_ int fd = -1;
	uint8_t dscp = event ? cfg->dscp_event : cfg->dscp_general;
	int r = 0;

	fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0) {
		return -errno;
	}
	if (ipv6) {
		r = set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	}
	if (r >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t) strlen(ifname)) < 0) {
		r = -errno;
	}
	if (r >= 0 && cfg->socket_priority > 0) {
		r = set_int(fd, SOL_SOCKET, SO_PRIORITY, cfg->socket_priority);
	}
	if (r >= 0 && dscp) {
		r = ipv6 ? set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, dscp << 2)
			 : set_int(fd, IPPROTO_IP, IP_TOS, dscp << 2);
	}
	/* It only sends: whatever reaches its own port waits in the smallest buffer there is. */
	if (r >= 0) {
		r = set_int(fd, SOL_SOCKET, SO_RCVBUF, 1);
	}
	if (r >= 0 && event) {
		r = transport_sock_set_ts_flags(fd, transport_sock_ts_flags(mode));
	}
	if (r < 0) {
		return r;
	}
	if (connect(fd, (const struct sockaddr *) peer, len) < 0) {
		return -errno;
	}
	return TAKE_FD(fd);
}

int transport_udp_open_peer_fds(bool ipv6, const struct transport_config *cfg,
				enum transport_ts_mode mode, const uint8_t *addr, size_t len,
				uint32_t scope_id, int ret_fds[TRANSPORT_UDP_PEER_FDS])
{
	static const uint16_t ports[TRANSPORT_UDP_PEER_FDS] = {
		[TRANSPORT_UDP_PEER_EVENT] = TRANSPORT_UDP_PORT_EVENT,
		[TRANSPORT_UDP_PEER_GENERAL] = TRANSPORT_UDP_PORT_GENERAL,
	};
	int fds[TRANSPORT_UDP_PEER_FDS] = { -1, -1 }, r = 0;
	char ifname[IF_NAMESIZE];

	if (cfg->ifindex <= 0 || cfg->dscp_event > 63 || cfg->dscp_general > 63) {
		return -EINVAL;
	}
	if (!if_indextoname(cfg->ifindex, ifname)) {
		return -errno;
	}
	for (size_t k = 0; k < TRANSPORT_UDP_PEER_FDS && r >= 0; k++) {
		struct sockaddr_storage sa;
		socklen_t sl;

		r = transport_udp_peer_sockaddr(ipv6, addr, len, scope_id, ports[k], cfg->ifindex,
						&sa, &sl);
		if (r >= 0) {
			fds[k] = open_peer_one(ipv6, ifname, cfg, &sa, sl,
					       k == TRANSPORT_UDP_PEER_EVENT, mode);
			r = fds[k] < 0 ? fds[k] : 0;
		}
	}
	if (r < 0) {
		close_all(fds, TRANSPORT_UDP_PEER_FDS);
		return r;
	}
	memcpy(ret_fds, fds, sizeof(fds));
	return 0;
}

/*
 * fd is a UDP socket of this family bound to an interface: its local address in *sa and the
 * interface's name in dev. Only calls a sandboxed worker may make (getsockname, getsockopt).
 */
static int check_udp_sock(int fd, bool ipv6, struct sockaddr_storage *sa, char dev[IF_NAMESIZE + 1])
{
	socklen_t len = sizeof(*sa);
	int type = 0, proto = 0;

	memset(sa, 0, sizeof(*sa));
	memset(dev, 0, IF_NAMESIZE + 1);
	if (getsockname(fd, (struct sockaddr *) sa, &len) < 0) {
		return -errno;
	}
	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) {
		return -errno;
	}
	len = sizeof(proto);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0) {
		return -errno;
	}
	if (sa->ss_family != (ipv6 ? AF_INET6 : AF_INET) || type != SOCK_DGRAM ||
	    proto != IPPROTO_UDP) {
		return -EPROTOTYPE;
	}
	len = IF_NAMESIZE;
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &len) < 0) {
		return -errno;
	}
	return dev[0] ? 0 : -EPROTOTYPE;
}

/* fd is the UDP socket of this family the role asks for, bound to an interface: its ifindex. */
static int check_fd(int fd, bool ipv6, size_t role)
{
	struct sockaddr_storage sa, peer = { 0 };
	socklen_t plen = sizeof(peer);
	char dev[IF_NAMESIZE + 1];
	bool connected;
	uint16_t port;
	int ifindex, r;

	r = check_udp_sock(fd, ipv6, &sa, dev);
	if (r < 0) {
		return r;
	}
	port = ntohs(ipv6 ? ((struct sockaddr_in6 *) &sa)->sin6_port
			  : ((struct sockaddr_in *) &sa)->sin_port);
	connected = getpeername(fd, (struct sockaddr *) &peer, &plen) == 0;
	if (port != udp_fd_role[role].port || connected != udp_fd_role[role].tx) {
		return -EPROTOTYPE;
	}
	ifindex = (int) if_nametoindex(dev);
	return ifindex > 0 ? ifindex : -EPROTOTYPE;
}

static int udp_adopt(struct transport *t, const int *fds, size_t n,
		     const struct transport_config *cfg)
{
	struct transport_udp *u = to_udp(t);
	char ifname[IF_NAMESIZE];
	int ifindex = 0, r;

	if (u->fd[TRANSPORT_UDP_FD_EVENT] >= 0) {
		return -EBUSY;
	}
	if (n != TRANSPORT_UDP_FDS) {
		return -EINVAL;
	}
	for (size_t k = 0; k < n; k++) {
		r = check_fd(fds[k], u->ipv6, k);
		if (r < 0) {
			return r;
		}
		if (ifindex && r != ifindex) {
			return -EPROTOTYPE;
		}
		ifindex = r;
	}
	if (cfg && cfg->ifindex > 0 && cfg->ifindex != ifindex) {
		return -EPROTOTYPE;
	}
	if (!if_indextoname(ifindex, ifname)) {
		return -errno;
	}
	r = transport_sock_read_status(fds[TRANSPORT_UDP_FD_EVENT], ifname, &u->status);
	for (size_t k = 0; k < n && r >= 0; k++) {
		if (stamps_tx(k)) {
			/* OPT_ID restarts at 0 only when OPT_ID goes from off to on. */
			r = transport_sock_restart_keys(fds[k],
							transport_sock_ts_flags(u->status.mode));
		} else if (k != TRANSPORT_UDP_FD_EVENT) {
			r = transport_sock_set_ts_flags(fds[k], 0);
		}
	}
	if (r >= 0) {
		r = transport_sock_get_mac(fds[TRANSPORT_UDP_FD_EVENT], ifname, u->mac);
	}
	if (r < 0) {
		return r;
	}
	memcpy(u->fd, fds, sizeof(u->fd));
	memset(u->tx_key, 0, sizeof(u->tx_key));
	u->ifindex = ifindex;
	memcpy(u->ifname, ifname, sizeof(u->ifname));
	u->tx_timeout = cfg && cfg->tx_timeout > 0 ? cfg->tx_timeout : TRANSPORT_TX_TIMEOUT_DEFAULT;
	return 0;
}

static int udp_open(struct transport *t, const struct transport_config *cfg)
{
	struct transport_udp *u = to_udp(t);
	struct transport_ts_status st;
	int fds[TRANSPORT_UDP_FDS], r;

	if (u->fd[TRANSPORT_UDP_FD_EVENT] >= 0) {
		return -EBUSY;
	}
	r = transport_udp_open_fd(u->ipv6, cfg, fds, &st);
	if (r < 0) {
		return r;
	}
	r = udp_adopt(t, fds, TRANSPORT_UDP_FDS, cfg);
	if (r < 0) {
		close_all(fds, TRANSPORT_UDP_FDS);
		return r;
	}
	/* Keep what only the opener knows: why hardware was refused. */
	u->status.hw_error = st.hw_error;
	return 0;
}

static void udp_close(struct transport *t)
{
	struct transport_udp *u = to_udp(t);

	close_all(u->fd, TRANSPORT_UDP_FDS);
	for (size_t k = 0; k < u->n_peers; k++) {
		close_all(u->peers[k].fd, TRANSPORT_UDP_PEER_FDS);
	}
	u->n_peers = 0;
}

static void udp_free(struct transport *t)
{
	free(to_udp(t));
}

static struct udp_peer *find_peer(struct transport_udp *u, const uint8_t *addr, size_t len)
{
	for (size_t k = 0; k < u->n_peers; k++) {
		if (u->peers[k].len == len && !memcmp(u->peers[k].addr, addr, len)) {
			return &u->peers[k];
		}
	}
	return NULL;
}

/* A peer's socket as the supervisor opens it: UDP of the port's family on the port's interface. */
static int check_peer_fd(const struct transport_udp *u, int fd)
{
	struct sockaddr_storage sa;
	char dev[IF_NAMESIZE + 1];
	int r = check_udp_sock(fd, u->ipv6, &sa, dev);

	if (r < 0) {
		return r;
	}
	/* The supervisor connected it, and that is its word (getpeername is not the sandbox's). */
	return strcmp(dev, u->ifname) == 0 ? 0 : -EPROTOTYPE;
}

static int udp_add_peer(struct transport *t, const uint8_t *addr, size_t len, const int *fds,
			size_t n)
{
	struct transport_udp *u = to_udp(t);
	struct udp_peer *p;
	int r;

	if (u->fd[TRANSPORT_UDP_FD_EVENT] < 0) {
		return -EBADF;
	}
	if (n != TRANSPORT_UDP_PEER_FDS || len != (u->ipv6 ? 16u : 4u)) {
		return -EINVAL;
	}
	for (size_t k = 0; k < n; k++) {
		r = check_peer_fd(u, fds[k]);
		if (r < 0) {
			return r;
		}
	}
	p = find_peer(u, addr, len);
	if (p) {
		close_all(p->fd, TRANSPORT_UDP_PEER_FDS);
	} else if (u->n_peers >= TRANSPORT_UDP_PEERS_MAX) {
		return -ENOSPC;
	} else {
		p = &u->peers[u->n_peers++];
	}
	memset(p, 0, sizeof(*p));
	memcpy(p->addr, addr, len);
	p->len = (uint8_t) len;
	memcpy(p->fd, fds, sizeof(p->fd));
	/* New sockets: their OPT_ID counts from 0 (the supervisor sent nothing through them). */
	p->tx_key = 0;
	p->used = ++u->use_clock;
	return 0;
}

static int udp_drop_peer(struct transport *t, uint8_t ret_addr[TRANSPORT_ADDR_LEN], size_t *ret_len)
{
	struct transport_udp *u = to_udp(t);
	size_t lru = 0;

	if (u->n_peers == 0) {
		return -ENOENT;
	}
	for (size_t k = 1; k < u->n_peers; k++) {
		if (u->peers[k].used < u->peers[lru].used) {
			lru = k;
		}
	}
	memset(ret_addr, 0, TRANSPORT_ADDR_LEN);
	memcpy(ret_addr, u->peers[lru].addr, u->peers[lru].len);
	*ret_len = u->peers[lru].len;
	close_all(u->peers[lru].fd, TRANSPORT_UDP_PEER_FDS);
	u->peers[lru] = u->peers[--u->n_peers];
	return 0;
}

static size_t udp_n_peers(struct transport *t)
{
	return to_udp(t)->n_peers;
}

/*
 * Through the socket connected to the message's group and port, with no address: event
 * messages (Annex C.2/D.2: to port 319) through a TX timestamped one, general ones to 320.
 */
static int udp_send(struct transport *t, const void *buf, size_t len,
		    const struct transport_dest *dest, bool event, ns_t *ret_tx_ts)
{
	struct transport_udp *u = to_udp(t);
	bool pdelay = dest && dest->kind == TRANSPORT_DEST_PDELAY;
	struct udp_peer *peer = NULL;
	uint32_t *tx_key;
	size_t role;
	ssize_t n;
	int fd;

	if (len > TRANSPORT_PAYLOAD_MAX) {
		return -EMSGSIZE;
	}
	if (dest && dest->kind == TRANSPORT_DEST_UNICAST) {
		peer = find_peer(u, dest->addr, dest->addr_len);
		if (!peer) {
			return TRANSPORT_TX_NO_PEER;
		}
		peer->used = ++u->use_clock;
		fd = peer->fd[event ? TRANSPORT_UDP_PEER_EVENT : TRANSPORT_UDP_PEER_GENERAL];
		tx_key = &peer->tx_key;
	} else {
		role = event ? (pdelay ? TRANSPORT_UDP_FD_PDELAY_TX : TRANSPORT_UDP_FD_EVENT_TX)
			     : (pdelay ? TRANSPORT_UDP_FD_PDELAY_GEN_TX
				       : TRANSPORT_UDP_FD_GENERAL_TX);
		fd = u->fd[role];
		tx_key = &u->tx_key[role];
	}
	if (fd < 0) {
		return -EBADF;
	}
	n = sendto(fd, buf, len, 0, NULL, 0);
	if (n < 0 && peer &&
	    (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == EHOSTDOWN ||
	     errno == ENETUNREACH)) {
		/* The peer's host or the way to it said no (ICMP): to the group instead. */
		return TRANSPORT_TX_NO_PEER;
	}
	if (n < 0 && (errno == ENETUNREACH || errno == EADDRNOTAVAIL || errno == EINVAL)) {
		/* The interface lost the address connect() chose (renumbered): measured
		 * ENETUNREACH. */
		return TRANSPORT_TX_STALE;
	}
	if (n < 0) {
		return -errno;
	}
	if ((size_t) n != len) {
		return -EIO;
	}
	if (event) {
		/* The kernel gave this datagram the key tx_key, whether or not a timestamp comes.
		 */
		uint32_t key = (*tx_key)++;
		ns_t ts = 0;
		int r = transport_sock_wait_tx_ts(fd, u->status.mode == TRANSPORT_TS_MODE_HARDWARE,
						  key, u->tx_timeout, &ts);

		if (r < 0) {
			return r;
		}
		if (ret_tx_ts) {
			*ret_tx_ts = ts;
		}
	}
	return (int) len;
}

/* A datagram's source and timestamp; an unknown source family leaves src zero. */
static void udp_rx_info(struct transport_udp *u, const struct msghdr *msg,
			struct transport_rx_info *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (transport_udp_src(msg->msg_name, ret->src) == 0) {
		ret->src_len = u->ipv6 ? 16 : 4;
	}
	transport_sock_rx_ts(msg, u->status.mode == TRANSPORT_TS_MODE_HARDWARE, ret);
}

/* Up to TRANSPORT_RX_BATCH datagrams in one recvmmsg() per receiving socket, event socket first. */
static int udp_recv_batch(struct transport *t, struct transport_frame *f, size_t n)
{
	static const size_t rx[] = { TRANSPORT_UDP_FD_EVENT, TRANSPORT_UDP_FD_GENERAL };
	struct transport_udp *u = to_udp(t);
	struct sockaddr_storage from[TRANSPORT_RX_BATCH];
	char ctrl[TRANSPORT_RX_BATCH][512];
	struct iovec iov[TRANSPORT_RX_BATCH];
	struct mmsghdr mm[TRANSPORT_RX_BATCH];
	size_t filled = 0;

	if (u->fd[TRANSPORT_UDP_FD_EVENT] < 0) {
		return -EBADF;
	}
	n = n < TRANSPORT_RX_BATCH ? n : TRANSPORT_RX_BATCH;
	for (size_t s = 0; s < ARRAY_SIZE(rx) && filled < n; s++) {
		size_t want = n - filled;
		int got;

		memset(mm, 0, want * sizeof(mm[0]));
		for (size_t k = 0; k < want; k++) {
			iov[k] = (struct iovec){ f[filled + k].buf, sizeof(f[filled + k].buf) };
			mm[k].msg_hdr = (struct msghdr){ .msg_name = &from[k],
							 .msg_namelen = sizeof(from[k]),
							 .msg_iov = &iov[k],
							 .msg_iovlen = 1,
							 .msg_control = ctrl[k],
							 .msg_controllen = sizeof(ctrl[k]) };
		}
		got = recvmmsg(u->fd[rx[s]], mm, (unsigned int) want, MSG_DONTWAIT, NULL);
		if (got < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				return filled ? (int) filled : -errno;
			}
			continue;
		}
		for (int k = 0; k < got; k++) {
			struct transport_frame *e = &f[filled + (size_t) k];

			udp_rx_info(u, &mm[k].msg_hdr, &e->info);
			/* Longer than any PTP message fits in a standard frame: none of it. */
			e->len = mm[k].msg_hdr.msg_flags & MSG_TRUNC ? -EMSGSIZE
								     : (int) mm[k].msg_len;
		}
		filled += (size_t) got;
	}
	return filled ? (int) filled : -EAGAIN;
}

static int udp_recv(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret)
{
	struct transport_frame f;
	int n = udp_recv_batch(t, &f, 1);

	if (n < 0) {
		return n;
	}
	if (f.len < 0) {
		return f.len;
	}
	*ret = f.info;
	if ((size_t) f.len > len) {
		memcpy(buf, f.buf, len);
		return -EMSGSIZE;
	}
	memcpy(buf, f.buf, (size_t) f.len);
	return f.len;
}

static int udp_fd(struct transport *t)
{
	return to_udp(t)->fd[TRANSPORT_UDP_FD_EVENT];
}

static int udp_rx_fds(struct transport *t, int fds[])
{
	struct transport_udp *u = to_udp(t);

	fds[0] = u->fd[TRANSPORT_UDP_FD_EVENT];
	fds[1] = u->fd[TRANSPORT_UDP_FD_GENERAL];
	return 2;
}

static int udp_get_mac(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN])
{
	struct transport_udp *u = to_udp(t);

	if (u->fd[TRANSPORT_UDP_FD_EVENT] < 0) {
		return -EBADF;
	}
	memcpy(mac, u->mac, TRANSPORT_MAC_LEN);
	return 0;
}

static int udp_get_ts_status(struct transport *t, struct transport_ts_status *ret)
{
	struct transport_udp *u = to_udp(t);

	if (u->fd[TRANSPORT_UDP_FD_EVENT] < 0) {
		return -EBADF;
	}
	*ret = u->status;
	return 0;
}

/* One table per family, alike but for the name. */
#define UDP_OPS(family_name)                                                                   \
	{                                                                                      \
		.name = family_name, .open = udp_open, .adopt = udp_adopt, .close = udp_close, \
		.free = udp_free, .send = udp_send, .recv = udp_recv,                          \
		.recv_batch = udp_recv_batch, .fd = udp_fd, .rx_fds = udp_rx_fds,              \
		.get_mac = udp_get_mac, .get_ts_status = udp_get_ts_status,                    \
		.add_peer = udp_add_peer, .drop_peer = udp_drop_peer, .n_peers = udp_n_peers,  \
	}

static const struct transport_ops udp4_ops = UDP_OPS("UDPv4");
static const struct transport_ops udp6_ops = UDP_OPS("UDPv6");

int transport_udp_new(bool ipv6, struct transport **ret)
{
	struct transport_udp *u = calloc(1, sizeof(*u));

	if (!u) {
		return -ENOMEM;
	}
	u->base.ops = ipv6 ? &udp6_ops : &udp4_ops;
	u->ipv6 = ipv6;
	for (size_t k = 0; k < TRANSPORT_UDP_FDS; k++) {
		u->fd[k] = -1;
	}
	u->status.phc_index = -1;
	for (size_t k = 0; k < TRANSPORT_UDP_PEERS_MAX; k++) {
		u->peers[k].fd[0] = u->peers[k].fd[1] = -1;
	}
	*ret = &u->base;
	return 0;
}
