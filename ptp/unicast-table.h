/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unicast peers: a port address (MAC, IPv4, IPv6) and ptp4l's unicast master table, as data. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The three transports' addresses (IEEE 1588-2019 Annexes C, D, E; ptp4l's table keywords). */
enum unicast_family {
	UNICAST_FAMILY_L2 = 0, /* a unicast IEEE 802 MAC, 6 octets */
	UNICAST_FAMILY_IPV4,   /* 4 octets */
	UNICAST_FAMILY_IPV6,   /* 16 octets */
};

#define UNICAST_ADDR_MAX_LEN 16
/* "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255" and a NUL: the longest printed address. */
#define UNICAST_ADDR_STRLEN 46

/* One peer's address: its family and its octets in network order (only len of them used). */
struct unicast_addr {
	enum unicast_family family;
	uint8_t len;
	uint8_t bytes[UNICAST_ADDR_MAX_LEN];
};

/* "L2", "UDPv4", "UDPv6" (ptp4l's names, as in a table line) <-> family; -EINVAL else. */
const char *unicast_family_to_string(enum unicast_family f);
int unicast_family_from_string(const char *s, enum unicast_family *ret);

/*
 * Parse an address of family f strictly: L2 "00:11:22:33:44:55" (or with '-'), IPv4 dotted quad
 * and IPv6 text (inet_pton, no scope suffix, no blanks). -EINVAL for what is not one, -ERANGE for
 * one that cannot be a unicast peer: a group MAC or 00:00:00:00:00:00, 0.0.0.0, 255.255.255.255
 * or 224.0.0.0/4, :: or ff00::/8. *ret is written only on success.
 */
int unicast_addr_from_string(enum unicast_family f, const char *s, struct unicast_addr *ret);
/* The family by the text's shape (a MAC, a dotted quad, else IPv6), then as above. */
int unicast_addr_from_any_string(const char *s, struct unicast_addr *ret);
/*
 * An address as a transport reports a frame's source (struct port_address's bytes), its family by
 * its length: 6 a MAC, 4 IPv4, 16 IPv6. -EINVAL for another length, -ERANGE for one that cannot
 * be a unicast peer (as unicast_addr_from_string()). *ret is written only on success.
 */
int unicast_addr_from_bytes(const uint8_t *b, size_t len, struct unicast_addr *ret);
/* Print into buf (at least UNICAST_ADDR_STRLEN bytes); returns buf. */
const char *unicast_addr_to_string(const struct unicast_addr *a, char *buf);
bool unicast_addr_equal(const struct unicast_addr *a, const struct unicast_addr *b);

/* Addresses of one table (ptp4l has no bound; G.8265.1 slaves list a few masters). */
#define UNICAST_TABLE_ADDRS_MAX 16
/* table_id: 1 to INT32_MAX, as ptp4l. */
#define UNICAST_TABLE_ID_MAX INT32_MAX
/* logQueryInterval: phcd's range of every log interval (ptp4l takes any int8). */
#define UNICAST_TABLE_LOG_QUERY_MIN (-7)
#define UNICAST_TABLE_LOG_QUERY_MAX 7

/*
 * ptp4l's [unicast_master_table] (IEEE 1588-2019 17.5 unicast master table): the masters a
 * grantee port asks for Announce (and, of the one it selects, Sync and Delay_Resp), how often it
 * asks (2^logQueryInterval s), and with P2P the peer it asks for Pdelay_Resp.
 */
struct unicast_master_table {
	int32_t table_id;
	int8_t logQueryInterval;
	uint8_t n;
	struct unicast_addr addr[UNICAST_TABLE_ADDRS_MAX];
	bool has_peer;
	struct unicast_addr peer_address;
};

/* Index of addr in t, or -ENOENT. */
int unicast_table_find(const struct unicast_master_table *t, const struct unicast_addr *addr);
/* Add addr: -EEXIST when it is there already, -ENOSPC past UNICAST_TABLE_ADDRS_MAX. */
int unicast_table_add(struct unicast_master_table *t, const struct unicast_addr *addr);
