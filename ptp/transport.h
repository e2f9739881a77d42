/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The transport API: move PTP messages on one port, with TX and RX timestamps, behind an ops table.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ptp/options.h"
#include "ptp/types.h"
#include "ptp/util.h"

#define TRANSPORT_MAC_LEN 6

/* Default TX timestamp deadline; linuxptp's tx_timestamp_timeout is of the same order. */
#define TRANSPORT_TX_TIMEOUT_DEFAULT (10 * NS_PER_MSEC)

/* The longest source address a transport reports: a MAC (L2), IPv4 or IPv6 address (UDP). */
#define TRANSPORT_ADDR_LEN 16

/*
 * Where a message goes: one of the two multicast groups of the transport (IEEE 1588-2019
 * Annex E.3: 01-1B-19-00-00-00 and 01-80-C2-00-00-0E, which struct transport_config may replace
 * as ptp4l's ptp_dst_mac and p2p_dst_mac do; Annex C.3: 224.0.1.129 and 224.0.0.107; Annex D.3:
 * FF0X::181 and FF02::6B), or (L2 only) a MAC.
 */
enum transport_dest_kind {
	TRANSPORT_DEST_DEFAULT, /* the primary group: all but peer delay */
	TRANSPORT_DEST_PDELAY,	/* the peer delay group: Pdelay_Req/Resp/Resp_Follow_Up */
	/*
	 * The address in struct transport_dest: a MAC (L2); an IPv4 or IPv6 address (UDP), sent
	 * through the sockets the supervisor connected to it (transport_add_peer()).
	 */
	TRANSPORT_DEST_UNICAST,
};

struct transport_dest {
	enum transport_dest_kind kind;
	/* TRANSPORT_DEST_UNICAST only: as struct transport_rx_info's src */
	uint8_t addr[TRANSPORT_ADDR_LEN];
	uint8_t addr_len;
};

/*
 * send() to a unicast peer the transport has no sockets to (UDP: none added, or the peer's host
 * refused the datagram, ICMP): the message was not sent, nothing is wrong with the port.
 */
#define TRANSPORT_TX_NO_PEER (-ENOTCONN)

/* What the socket actually does. */
enum transport_ts_mode {
	TRANSPORT_TS_MODE_SOFTWARE,
	TRANSPORT_TS_MODE_HARDWARE,
};

struct transport_config {
	int ifindex;
	/* time_stamping's enum: AUTO is hardware when the interface reports a PHC */
	enum options_timestamping ts_request;
	ns_t tx_timeout; /* TX timestamp deadline; 0 = TRANSPORT_TX_TIMEOUT_DEFAULT */
	bool peer_delay; /* also join p2p_dst_mac */
	/*
	 * The multicast groups the socket joins and sends to; all zero: Annex E.3's
	 * 01-1B-19-00-00-00 and 01-80-C2-00-00-0E. The opener joins ptp_dst_mac, and with
	 * peer_delay p2p_dst_mac too (once when both are one address); the adopter sends there.
	 */
	uint8_t ptp_dst_mac[TRANSPORT_MAC_LEN];
	uint8_t p2p_dst_mac[TRANSPORT_MAC_LEN];
	int socket_priority; /* SO_PRIORITY of the socket, 0..15; 0 leaves the default */
	/*
	 * L2: the general socket receives the Announce, Delay_Resp and two-step Sync messages
	 * (RX timestamped), which socket filters take off the event socket (transport_lazy_fd());
	 * read with recv_batch/recv.
	 */
	bool lazy_general;
	/* UDP (Annexes C, D), ptp4l's keys: */
	uint8_t udp_ttl;      /* IP_MULTICAST_TTL / IPV6_MULTICAST_HOPS; 0: 1 */
	uint8_t udp6_scope;   /* X of FF0X::181, 0x1..0xF; 0 (none set): 0xE */
	uint8_t dscp_event;   /* DSCP of event messages, 0..63 */
	uint8_t dscp_general; /* DSCP of general messages, 0..63 */
};

/* How timestamping came out; the caller logs hw_error once, with the interface name. */
struct transport_ts_status {
	enum transport_ts_mode mode;
	/*
	 * Hardware was wanted (HARDWARE, or AUTO with a PHC) but refused: -errno of
	 * SIOCSHWTSTAMP (veth: -EOPNOTSUPP) and mode fell back to software. 0 otherwise.
	 */
	int hw_error;
	int phc_index;	  /* -1: none known */
	int hw_tx_type;	  /* HWTSTAMP_TX_* read back with SIOCGHWTSTAMP, hardware mode only */
	int hw_rx_filter; /* HWTSTAMP_FILTER_* read back, hardware mode only */
};

/* What came with a received message. */
struct transport_rx_info {
	/* The sender: its MAC (L2), IPv4 or IPv6 address (UDP), zero-padded to the length. */
	uint8_t src[TRANSPORT_ADDR_LEN];
	uint8_t src_len; /* 6, 4 or 16; 0: unknown */
	bool has_ts;
	ns_t ts; /* RX timestamp, CLOCK_REALTIME (software) or the PHC's time (hardware) */
};

#define TRANSPORT_RX_VLAN_TAGGED (-EPROTOTYPE)

/*
 * send(): the sockets can no longer send because what the supervisor opened them for is gone
 * (UDP: the source address fixed at connect() is no longer the interface's, or no route is
 * left). Only new sockets help: a worker ends so that the supervisor opens them again.
 */
#define TRANSPORT_TX_STALE (-ESTALE)

/* The largest payload received: an untagged 1518-byte frame less its 14-byte link header. */
#define TRANSPORT_PAYLOAD_MAX 1504

/*
 * The most messages one transport_recv_batch() returns. Each entry holds a full frame on the
 * caller's stack, and stack a worker touches once stays its private memory: 4 is what a port
 * receives in one wakeup at 8 Sync/s with its Follow_Ups, Announces and Delay_Resps, and a flood
 * costs one more system call per 4 frames.
 */
#define TRANSPORT_RX_BATCH 4

/* One message of a batch (transport_recv_batch()). */
struct transport_frame {
	/*
	 * payload length, or -errno: not a message for us (skip it). TRANSPORT_RX_VLAN_TAGGED: a
	 * PTP frame tagged for a VLAN (VID != 0) on this untagged interface, which the caller
	 * counts (port_count_ignored(PORT_CNT_VLAN_TAGGED)) rather than drops unseen.
	 */
	int len;
	struct transport_rx_info info;
	uint8_t buf[TRANSPORT_PAYLOAD_MAX];
};

struct transport;

struct transport_ops {
	const char *name;
	/* Open a socket of our own on cfg->ifindex. */
	int (*open)(struct transport *t, const struct transport_config *cfg);
	/*
	 * Take over the n sockets opened (and configured) by the supervisor
	 * (transport_open_fds()), in its order. L2 also takes the event socket alone (n 1) and
	 * opens a general socket of its own (CAP_NET_RAW). Ownership of all passes on success
	 * only. cfg->ifindex may be 0: the sockets know their interface.
	 */
	int (*adopt)(struct transport *t, const int *fds, size_t n,
		     const struct transport_config *cfg);
	void (*close)(struct transport *t);
	void (*free)(struct transport *t);
	/*
	 * Send one PTP message (payload only, no link header). event: wait for the TX
	 * timestamp (deadline cfg->tx_timeout) and store it in *ret_tx_ts; -ETIME when none came.
	 * Returns bytes of payload sent.
	 */
	int (*send)(struct transport *t, const void *buf, size_t len,
		    const struct transport_dest *dest, bool event, ns_t *ret_tx_ts);
	/*
	 * Receive one PTP message (payload only) without blocking: -EAGAIN when there is none.
	 * Returns the payload length; a payload longer than len is truncated (-EMSGSIZE).
	 */
	int (*recv)(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret);
	/*
	 * Optional: receive up to n messages with one system call, without blocking. Returns how
	 * many entries it filled (fewer than n: no more were waiting), -EAGAIN when none was.
	 */
	int (*recv_batch)(struct transport *t, struct transport_frame *f, size_t n);
	int (*fd)(struct transport *t);
	/*
	 * Optional: every socket that receives, for the caller to poll (fd() when absent).
	 * Returns how many it wrote, at most TRANSPORT_FDS_MAX.
	 */
	int (*rx_fds)(struct transport *t, int fds[]);
	/* Optional: a receiving socket that may wait for another's wakeup (transport_lazy_fd()). */
	int (*lazy_fd)(struct transport *t);
	int (*get_mac)(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN]);
	int (*get_ts_status)(struct transport *t, struct transport_ts_status *ret);
	/* Optional (UDP): transport_add_peer(), transport_drop_peer(), transport_n_peers(). */
	int (*add_peer)(struct transport *t, const uint8_t *addr, size_t len, const int *fds,
			size_t n);
	int (*drop_peer)(struct transport *t, uint8_t ret_addr[TRANSPORT_ADDR_LEN],
			 size_t *ret_len);
	size_t (*n_peers)(struct transport *t);
};

/* The base every implementation embeds first; fakes in tests do the same. */
struct transport {
	const struct transport_ops *ops;
};

/* IEEE 1588-2019 13.3.2.3: messageType is the low nibble of byte 0; 0x0-0x7 are event messages. */
static inline bool transport_is_event(const void *buf, size_t len)
{
	return len > 0 && (((const uint8_t *) buf)[0] & 0x0f) < 0x8;
}

/* The most sockets a transport holds (UDP: transport_udp_fd). */
#define TRANSPORT_FDS_MAX 6

/* A new, unopened transport of this kind. */
int transport_new(enum options_transport kind, struct transport **ret);
/*
 * Open the sockets of a port of this kind on cfg->ifindex, as the supervisor hands them to a
 * worker (transport_l2_open_fd(), transport_udp_open_fd()): how many (ret_fds[0..n-1]) or
 * -errno.
 */
int transport_open_fds(enum options_transport kind, const struct transport_config *cfg,
		       int ret_fds[TRANSPORT_FDS_MAX], struct transport_ts_status *ret_status);
/* How many sockets a port of this kind holds. */
size_t transport_n_fds(enum options_transport kind);

/* A new, unopened L2 transport (AF_PACKET, ETH_P_1588). */
int transport_l2_new(struct transport **ret);

/* The sockets of an L2 port, in the order the supervisor passes them (ipc.h, CONFIG). */
enum {
	TRANSPORT_L2_FD_EVENT,	 /* ETH_P_1588: receives all PTP, sends event messages */
	TRANSPORT_L2_FD_GENERAL, /* protocol 0: receives nothing, sends general messages */
	TRANSPORT_L2_FDS,
};

/*
 * Open the port's two sockets on cfg->ifindex, for the supervisor to hand to a worker (which
 * adopts them): the event socket bound to ETH_P_1588 with timestamping (hardware set up with
 * SIOCSHWTSTAMP when chosen; TX timestamps socket-wide) and multicast membership configured, the
 * general socket bound with protocol 0 (with cfg->lazy_general: to ETH_P_1588, each with the
 * socket filter of transport_l2_filter()). Both get cfg->socket_priority. *ret_status says how
 * timestamping came out. Returns 0 or -errno.
 */
int transport_l2_open_fd(const struct transport_config *cfg, int ret_fds[TRANSPORT_L2_FDS],
			 struct transport_ts_status *ret_status);
/*
 * The classic BPF socket filter of a lazy_general pair, over a frame from its Ethernet header
 * on: lazy, the general socket's (Announce, Delay_Resp, Sync with twoStepFlag, and the
 * Follow_Ups with an odd sequenceId of Syncs at TRANSPORT_L2_HALVED_LOG_SYNC_MIN..MAX); else the
 * event socket's (all but those, frames too short for a messageType, a flag or an interval
 * included). For SO_ATTACH_FILTER.
 */
#define TRANSPORT_L2_HALVED_LOG_SYNC_MIN (-7)
#define TRANSPORT_L2_HALVED_LOG_SYNC_MAX (-2)
struct sock_fprog;
void transport_l2_filter(bool lazy, struct sock_fprog *ret);
/* Only the general socket (for a by-hand adopter given the event socket alone): fd or -errno. */
int transport_l2_open_general_fd(const struct transport_config *cfg);

/*
 * The sockets of a UDP port (IEEE 1588-2019 Annexes C and D), in the order the supervisor passes
 * them. Two receive, bound to the interface (SO_BINDTODEVICE) on ports 319 and 320 and members of
 * the groups the port needs; four send, each connected to one group and port, so that a send
 * names no address (the worker's sandbox refuses any) and a worker can reach nothing else.
 */
enum transport_udp_fd {
	TRANSPORT_UDP_FD_EVENT,		/* port 319: receives event messages, RX timestamped */
	TRANSPORT_UDP_FD_GENERAL,	/* port 320: receives general messages */
	TRANSPORT_UDP_FD_EVENT_TX,	/* to the primary group, 319; TX timestamped */
	TRANSPORT_UDP_FD_GENERAL_TX,	/* to the primary group, 320 */
	TRANSPORT_UDP_FD_PDELAY_TX,	/* to the peer delay group, 319; TX timestamped */
	TRANSPORT_UDP_FD_PDELAY_GEN_TX, /* to the peer delay group, 320 */
	TRANSPORT_UDP_FDS,
};

/* IEEE 1588-2019 C.2, D.2: event messages go to UDP port 319, general ones to 320. */
#define TRANSPORT_UDP_PORT_EVENT 319
#define TRANSPORT_UDP_PORT_GENERAL 320

/*
 * The group a UDP port sends to and joins, with this port number (IEEE 1588-2019 C.3: 224.0.1.129,
 * pdelay 224.0.0.107; D.3: FF0X::181 with X udp6_scope, 0 meaning 0xE, pdelay FF02::6B, scope
 * ifindex). -EINVAL for a scope above 0xF.
 */
int transport_udp_group(bool ipv6, bool pdelay, uint8_t udp6_scope, uint16_t port, int ifindex,
			struct sockaddr_storage *ret, socklen_t *ret_len);
/* A datagram's source as struct transport_rx_info has it; -EAFNOSUPPORT (and zero) for another. */
int transport_udp_src(const struct sockaddr_storage *from, uint8_t ret[TRANSPORT_ADDR_LEN]);

/* A new, unopened UDP transport over IPv4 (Annex C) or, ipv6, IPv6 (Annex D). */
int transport_udp_new(bool ipv6, struct transport **ret);
/*
 * Open a UDP port's six sockets on cfg->ifindex for the supervisor to hand to a worker, with
 * timestamping configured as transport_l2_open_fd() does (the UDP receive filter). Returns 0 or
 * -errno (-EADDRNOTAVAIL: the interface has no address of the family to send from).
 */
int transport_udp_open_fd(bool ipv6, const struct transport_config *cfg,
			  int ret_fds[TRANSPORT_UDP_FDS], struct transport_ts_status *ret_status);

/* The most unicast peers a UDP transport holds sockets to (unicast_peers_max's range). */
#define TRANSPORT_UDP_PEERS_MAX OPTIONS_UNICAST_PEERS_MAX
/* A peer's sockets, in the order the supervisor passes them (ipc.h, PEER_SOCKETS). */
enum {
	TRANSPORT_UDP_PEER_EVENT,   /* connected to the peer's 319, TX timestamped */
	TRANSPORT_UDP_PEER_GENERAL, /* connected to the peer's 320 */
	TRANSPORT_UDP_PEER_FDS,
};
/*
 * The peer's address (len 4 or 16 bytes; scope_id, an ifindex, for an IPv6 link-local one, 0:
 * cfg->ifindex) and port as a sockaddr. -EINVAL for a length that is not the family's.
 */
int transport_udp_peer_sockaddr(bool ipv6, const uint8_t *addr, size_t len, uint32_t scope_id,
				uint16_t port, int ifindex, struct sockaddr_storage *ret,
				socklen_t *ret_len);
/*
 * Open the two sockets of a unicast peer of a UDP port, for the supervisor to hand to its worker
 * (transport_add_peer()): bound to cfg->ifindex, with its socket_priority and dscp_event or
 * dscp_general, connected to the peer's ports 319 and 320 from a port the kernel chooses (so that
 * they take nothing from the receiving sockets on 319 and 320: a connected socket is the better
 * match for the peer's datagrams), the event one timestamped as mode says. Returns 0, or -errno
 * of socket(), setsockopt() or connect() (-EACCES: a broadcast address).
 */
int transport_udp_open_peer_fds(bool ipv6, const struct transport_config *cfg,
				enum transport_ts_mode mode, const uint8_t *addr, size_t len,
				uint32_t scope_id, int ret_fds[TRANSPORT_UDP_PEER_FDS]);

int transport_open(struct transport *t, const struct transport_config *cfg);
/* Adopt n sockets (transport_ops.adopt), or L2's event and general socket (general_fd -1: its
 * own). */
int transport_adopt_fds(struct transport *t, const int *fds, size_t n,
			const struct transport_config *cfg);
int transport_adopt(struct transport *t, int fd, int general_fd,
		    const struct transport_config *cfg);
struct transport *transport_free(struct transport *t);
int transport_send(struct transport *t, const void *buf, size_t len,
		   const struct transport_dest *dest, bool event, ns_t *ret_tx_ts);
int transport_recv(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret);
/*
 * What is waiting, up to n messages, in one system call where the transport can (else one
 * message): the number of entries filled, each with its length or -errno (skip those); fewer than
 * n means nothing more was waiting, so the caller need not ask again to learn it (-EAGAIN).
 */
int transport_recv_batch(struct transport *t, struct transport_frame *f, size_t n);
int transport_fd(struct transport *t);
/* Every socket that receives, for the caller to poll: how many, at most TRANSPORT_FDS_MAX. */
int transport_rx_fds(struct transport *t, int fds[TRANSPORT_FDS_MAX]);
/*
 * A receiving socket that is not among transport_rx_fds(), or -1: it holds only messages a
 * port may leave until another socket wakes it (L2 with lazy_general: Announce, Delay_Resp,
 * a two-step Sync, whose Follow_Up comes to the other), and transport_recv_batch() reads it
 * first. The caller polls it when it cannot wait.
 */
int transport_lazy_fd(struct transport *t);
int transport_get_mac(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN]);
int transport_get_ts_status(struct transport *t, struct transport_ts_status *ret);
/*
 * Take over the n sockets the supervisor opened to a unicast peer (transport_udp_open_peer_fds(),
 * in its order): later sends to addr go through them. Ownership passes on success only; a peer
 * held already gets the new ones. -ENOSPC when TRANSPORT_UDP_PEERS_MAX are held
 * (transport_drop_peer() first), -EPROTOTYPE for sockets that are not the port's, -EOPNOTSUPP
 * for a transport without unicast sockets (L2 sends to a MAC through its own).
 */
int transport_add_peer(struct transport *t, const uint8_t *addr, size_t len, const int *fds,
		       size_t n);
/* Close the sockets of the peer used least recently: its address, or -ENOENT when none. */
int transport_drop_peer(struct transport *t, uint8_t ret_addr[TRANSPORT_ADDR_LEN], size_t *ret_len);
/* How many peers it holds sockets to. */
size_t transport_n_peers(struct transport *t);

const char *transport_ts_mode_to_string(enum transport_ts_mode m);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct transport *, transport_free);
#define _cleanup_transport_ _cleanup_(transport_freep)
