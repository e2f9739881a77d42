/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The transport API: move PTP messages on one port, with TX and RX timestamps, behind an ops table.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptp/options.h"
#include "ptp/types.h"
#include "ptp/util.h"

#define TRANSPORT_MAC_LEN 6

/* Default TX timestamp deadline; linuxptp's tx_timestamp_timeout is of the same order. */
#define TRANSPORT_TX_TIMEOUT_DEFAULT (10 * NS_PER_MSEC)

/*
 * Where a message goes (IEEE 1588-2019 Annex E.3: the two multicast addresses of L2 PTP, which
 * struct transport_config may replace, as ptp4l's ptp_dst_mac and p2p_dst_mac do).
 */
enum transport_dest_kind {
	TRANSPORT_DEST_DEFAULT, /* ptp_dst_mac (01-1B-19-00-00-00): all but peer delay */
	TRANSPORT_DEST_PDELAY, /* p2p_dst_mac (01-80-C2-00-00-0E): Pdelay_Req/Resp/Resp_Follow_Up */
	TRANSPORT_DEST_UNICAST, /* the MAC in struct transport_dest */
};

struct transport_dest {
	enum transport_dest_kind kind;
	uint8_t mac[TRANSPORT_MAC_LEN]; /* TRANSPORT_DEST_UNICAST only */
};

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
	uint8_t src[TRANSPORT_MAC_LEN];
	bool has_ts;
	ns_t ts; /* RX timestamp, CLOCK_REALTIME (software) or the PHC's time (hardware) */
};

#define TRANSPORT_RX_VLAN_TAGGED (-EPROTOTYPE)

/* The largest payload received: an untagged 1518-byte frame less its 14-byte link header. */
#define TRANSPORT_PAYLOAD_MAX 1504

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
	 * Take over the sockets opened (and configured) by the supervisor
	 * (transport_l2_open_fd()): fd receives and sends event messages, general_fd sends
	 * general ones; general_fd -1 opens one of our own (CAP_NET_RAW). Ownership of both
	 * passes on success only. cfg->ifindex may be 0: the sockets know their interface.
	 */
	int (*adopt)(struct transport *t, int fd, int general_fd,
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
	int (*get_mac)(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN]);
	int (*get_ts_status)(struct transport *t, struct transport_ts_status *ret);
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
 * general socket bound with protocol 0. Both get cfg->socket_priority. *ret_status says how
 * timestamping came out. Returns 0 or -errno.
 */
int transport_l2_open_fd(const struct transport_config *cfg, int ret_fds[TRANSPORT_L2_FDS],
			 struct transport_ts_status *ret_status);
/* Only the general socket (for a by-hand adopter given the event socket alone): fd or -errno. */
int transport_l2_open_general_fd(const struct transport_config *cfg);

int transport_open(struct transport *t, const struct transport_config *cfg);
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
int transport_get_mac(struct transport *t, uint8_t mac[TRANSPORT_MAC_LEN]);
int transport_get_ts_status(struct transport *t, struct transport_ts_status *ret);

const char *transport_ts_mode_to_string(enum transport_ts_mode m);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct transport *, transport_free);
#define _cleanup_transport_ _cleanup_(transport_freep)
