/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw PTP frames for the test tools that play a host on the segment (tool-forge, tool-forge-sync,
 * tool-frame-storm): a packet socket for ETH_P_1588 bound to one interface, frames whose Ethernet
 * header the tool writes itself (any source MAC), and clock identities from the command line.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ptp/types.h"

/* The Ethernet header the tools write before each PTP message. */
#define RAW_HDR_LEN 14

/* PTP's multicast addresses: every message but the peer delay ones, and those. */
extern const uint8_t raw_ptp_mac[6];
extern const uint8_t raw_pdelay_mac[6];

struct raw_sock {
	int fd;
	int ifindex;
	uint8_t mac[6]; /* the interface's own */
};

/* A packet socket for ETH_P_1588 bound to ifname; errors on stderr, prefixed with prog. */
int raw_open(const char *prog, const char *ifname, struct raw_sock *ret);

/*
 * Send frame: RAW_HDR_LEN bytes for the header, written here (dst, src, ETH_P_1588), then len bytes
 * of PTP message. One try: 0, or -errno (-ENOBUFS and -EAGAIN when the queue is full).
 */
int raw_send(const struct raw_sock *s, uint8_t *frame, size_t len, const uint8_t dst[6],
	     const uint8_t src[6]);

/* A clockIdentity from its first 16 hex digits; -EINVAL if there are fewer. */
int raw_parse_clock_id(const char *s, struct ClockIdentity *ret);

/* A portIdentity written CLOCKID:PORT (16 hex digits, then a decimal port number). */
int raw_parse_port_id(const char *s, struct PortIdentity *ret);
