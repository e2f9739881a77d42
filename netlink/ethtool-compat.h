/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ethtool netlink ids newer than the Debian 12 uapi headers (6.1), from upstream uapi (6.18). */
#pragma once

#include <linux/ethtool_netlink.h>

/*
 * Upstream defines these as enum members, which #ifndef cannot see, so a guarded
 * "#define ETHTOOL_MSG_TSCONFIG_GET 46" would collide with newer headers. They carry a PHCD_
 * prefix instead and keep upstream's numbers; the kernel answers -EOPNOTSUPP (unknown op)
 * where it lacks them, and the callers fall back.
 */

/* Messages, user to kernel (include/uapi/linux/ethtool_netlink_generated.h, 6.18). */
#define PHCD_ETHTOOL_MSG_TSCONFIG_GET 46
#define PHCD_ETHTOOL_MSG_TSCONFIG_SET 47

/* TSINFO attributes after ETHTOOL_A_TSINFO_PHC_INDEX (5). */
#define PHCD_ETHTOOL_A_TSINFO_STATS 6
/* A nest of PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_*. */
#define PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PROVIDER 7
#define PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_SOURCE 8	  /* u32: enum hwtstamp_source */
#define PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PHYINDEX 9 /* u32 */
#define PHCD_ETHTOOL_A_TSINFO_MAX 9

/* The hwtstamp provider nest, shared by TSINFO and TSCONFIG. */
#define PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_INDEX 1	/* u32, the PHC index */
#define PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_QUALIFIER 2 /* u32: 0 precise, 1 approx */
#define PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_MAX 2

/* TSCONFIG_GET reply attributes. */
#define PHCD_ETHTOOL_A_TSCONFIG_HEADER 1
#define PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_PROVIDER 2
#define PHCD_ETHTOOL_A_TSCONFIG_TX_TYPES 3	 /* bitset */
#define PHCD_ETHTOOL_A_TSCONFIG_RX_FILTERS 4	 /* bitset */
#define PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_FLAGS 5 /* bitset */
#define PHCD_ETHTOOL_A_TSCONFIG_MAX 5

/* enum hwtstamp_source (6.13+). */
#define PHCD_HWTSTAMP_SOURCE_NETDEV 1
#define PHCD_HWTSTAMP_SOURCE_PHYLIB 2
