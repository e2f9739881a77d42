/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel timestamping of one interface: PHC lookup, SIOCSHWTSTAMP, and parsing of timestamp cmsgs.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ptp/types.h"

/*
 * ETHTOOL_GET_TS_INFO through the ioctl (ptp/ stays free of libnl): PHC index (-1 when none) and
 * the receive filters the driver offers (1 << HWTSTAMP_FILTER_*, 0 when it says nothing).
 */
int hwtstamp_get_info(int fd, const char *ifname, int *ret_phc_index, uint32_t *ret_rx_filters);
int hwtstamp_get_phc_index(int fd, const char *ifname, int *ret_phc_index);

/*
 * The receive filter to ask for among those offered: the narrowest that stamps every PTP event
 * message of the transport, PTP_V2_L2_EVENT (udp: PTP_V2_L4_EVENT), else PTP_V2_EVENT (L2 and
 * UDP), else ALL; the narrowest when the driver lists none (it answers for itself);
 * -EOPNOTSUPP when it lists only others.
 */
int hwtstamp_choose_rx_filter(uint32_t rx_filters, bool udp);

/* ethtool's name of a HWTSTAMP_FILTER_* ("ptpv2-l2-event", "ptpv2-event", "all"...). */
const char *hwtstamp_rx_filter_to_string(int rx_filter);
/* The same name, or NULL for a value the kernel headers do not name. */
const char *hwtstamp_rx_filter_name(int rx_filter);

/*
 * SIOCSHWTSTAMP with TX on and rx_filter; the driver may widen the filter, so the result is
 * read back with SIOCGHWTSTAMP into *ret_tx_type and *ret_rx_filter.
 * -EOPNOTSUPP (veth), -ERANGE, -EPERM... when the driver or the caller's rights refuse.
 */
int hwtstamp_enable(int fd, const char *ifname, int rx_filter, int *ret_tx_type,
		    int *ret_rx_filter);
int hwtstamp_read(int fd, const char *ifname, int *ret_tx_type, int *ret_rx_filter);

/* What one recvmsg() carried: a timestamp and, from the error queue, the OPT_ID key. */
struct hwtstamp_cmsg {
	bool has_ts;
	ns_t ts;
	bool has_key;
	uint32_t key;
};

/*
 * Pull the timestamp out of a received message's control data: ts[2] (raw hardware) when
 * hardware, else ts[0] (software). On the error queue the extended error carries the OPT_ID key
 * (SOL_PACKET/PACKET_TX_TIMESTAMP of a packet socket, IP_RECVERR or IPV6_RECVERR of a UDP one). A
 * zero timestamp counts as absent.
 */
void hwtstamp_parse_cmsg(const struct msghdr *msg, bool hardware, struct hwtstamp_cmsg *ret);
