/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ethtool netlink timestamping info (TSINFO_GET, TSCONFIG_GET): parsing apart from socket I/O. */
#pragma once

#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One interface's timestamping capabilities, as `ethtool -T` shows them. */
struct tsinfo {
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t so_timestamping; /* SOF_TIMESTAMPING_* bits; absent attribute = 0 */
	uint32_t tx_types;	  /* 1 << HWTSTAMP_TX_*; absent = 0 */
	uint32_t rx_filters;	  /* 1 << HWTSTAMP_FILTER_*; absent = 0 */
	int phc_index;		  /* absent attribute = no PHC = -1 */
	bool has_provider;	  /* 6.13+: the hwtstamp provider */
	uint32_t provider_index;
	uint32_t provider_qualifier;
	uint32_t source; /* PHCD_HWTSTAMP_SOURCE_*, 0 = not reported */
};

/* The active hardware timestamping configuration (TSCONFIG_GET, 6.15+). */
struct tsconfig {
	uint32_t tx_types;
	uint32_t rx_filters;
	uint32_t hwtstamp_flags;
	bool has_provider;
	uint32_t provider_index;
	uint32_t provider_qualifier;
};

/*
 * Parse one TSINFO_GET reply (a whole netlink message: nlmsghdr + genlmsghdr + attributes) of
 * len bytes. Unknown attributes are skipped; a truncated message or attribute, or a known
 * attribute of the wrong size, gives -EBADMSG.
 */
int tsinfo_parse(const struct nlmsghdr *nlh, size_t len, struct tsinfo *ret);
int tsconfig_parse(const struct nlmsghdr *nlh, size_t len, struct tsconfig *ret);

/*
 * Why a port cannot work on this interface for want of transmit timestamps (the Sync, Delay_Req
 * and Pdelay messages it sends need theirs), or NULL: software (time_stamping software) needs
 * SOF_TIMESTAMPING_TX_SOFTWARE; otherwise either kind will do (hardware asked for and missing
 * is the worker's refusal, with its own reason).
 */
const char *tsinfo_tx_missing(const struct tsinfo *ti, bool software);

/* Names of the bits, as ethtool prints them ("hardware-transmit", "ptpv2-l2-event"...). */
const char *tsinfo_so_timestamping_name(unsigned bit);
const char *tsinfo_tx_type_name(unsigned bit);
const char *tsinfo_rx_filter_name(unsigned bit);

struct ethtool_nl;

/* A generic netlink socket resolved to the "ethtool" family. */
int ethtool_nl_new(struct ethtool_nl **ret);
struct ethtool_nl *ethtool_nl_free(struct ethtool_nl *e);

/* TSINFO_GET for one device: -ENODEV when it does not exist. */
int ethtool_nl_tsinfo_get(struct ethtool_nl *e, const char *ifname, struct tsinfo *ret);
/* TSCONFIG_GET: -EOPNOTSUPP on kernels without it and on devices without hardware stamping. */
int ethtool_nl_tsconfig_get(struct ethtool_nl *e, const char *ifname, struct tsconfig *ret);
