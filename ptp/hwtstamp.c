// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel timestamping of one interface: PHC lookup, SIOCSHWTSTAMP, and parsing of timestamp cmsgs.
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ptp/hwtstamp.h"
#include "ptp/util.h"

/* One SIOC* ioctl on ifname with data behind ifr_data. */
static int ifreq_ioctl(int fd, const char *ifname, unsigned long req, void *data)
{
	struct ifreq ifr = { 0 };

	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		return -ENAMETOOLONG;
	}
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_data = data;
	if (ioctl(fd, req, &ifr) < 0) {
		return -errno;
	}
	return 0;
}

int hwtstamp_get_info(int fd, const char *ifname, int *ret_phc_index, uint32_t *ret_rx_filters)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	int r = ifreq_ioctl(fd, ifname, SIOCETHTOOL, &info);

	if (r < 0) {
		return r;
	}
	*ret_phc_index = info.phc_index;
	*ret_rx_filters = info.rx_filters;
	return 0;
}

int hwtstamp_get_phc_index(int fd, const char *ifname, int *ret_phc_index)
{
	uint32_t filters;

	return hwtstamp_get_info(fd, ifname, ret_phc_index, &filters);
}

int hwtstamp_choose_rx_filter(uint32_t rx_filters, bool udp)
{
	const int order[] = {
		udp ? HWTSTAMP_FILTER_PTP_V2_L4_EVENT : HWTSTAMP_FILTER_PTP_V2_L2_EVENT,
		HWTSTAMP_FILTER_PTP_V2_EVENT,
		HWTSTAMP_FILTER_ALL,
	};

	if (!rx_filters) {
		return order[0];
	}
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		if (rx_filters & (1u << order[k])) {
			return order[k];
		}
	}
	return -EOPNOTSUPP;
}

/*
 * linux/net_tstamp.h order; the names ethtool -T prints. Within, not pointers: a table of
 * pointers is relocated data, copied by each worker.
 */
static const char rx_filter_names[][20] = {
	"none",		  "all",	   "some",
	"ptpv1-l4-event", "ptpv1-l4-sync", "ptpv1-l4-delay-req",
	"ptpv2-l4-event", "ptpv2-l4-sync", "ptpv2-l4-delay-req",
	"ptpv2-l2-event", "ptpv2-l2-sync", "ptpv2-l2-delay-req",
	"ptpv2-event",	  "ptpv2-sync",	   "ptpv2-delay-req",
	"ntp-all",
};

const char *hwtstamp_rx_filter_name(int rx_filter)
{
	return rx_filter >= 0 && (size_t) rx_filter < ARRAY_SIZE(rx_filter_names)
		       ? rx_filter_names[rx_filter]
		       : NULL;
}

const char *hwtstamp_rx_filter_to_string(int rx_filter)
{
	const char *name = hwtstamp_rx_filter_name(rx_filter);

	return name ? name : "unknown";
}

int hwtstamp_read(int fd, const char *ifname, int *ret_tx_type, int *ret_rx_filter)
{
	struct hwtstamp_config cfg = { 0 };
	int r = ifreq_ioctl(fd, ifname, SIOCGHWTSTAMP, &cfg);

	if (r < 0) {
		return r;
	}
	*ret_tx_type = cfg.tx_type;
	*ret_rx_filter = cfg.rx_filter;
	return 0;
}

int hwtstamp_enable(int fd, const char *ifname, int rx_filter, int *ret_tx_type, int *ret_rx_filter)
{
	struct hwtstamp_config cfg = {
		.tx_type = HWTSTAMP_TX_ON,
		.rx_filter = rx_filter,
	};
	int r = ifreq_ioctl(fd, ifname, SIOCSHWTSTAMP, &cfg);

	if (r < 0) {
		return r;
	}
	/* Drivers may answer with a wider filter than asked; what counts is what they keep. */
	r = hwtstamp_read(fd, ifname, ret_tx_type, ret_rx_filter);
	if (r == -EOPNOTSUPP) {
		*ret_tx_type = cfg.tx_type;
		*ret_rx_filter = cfg.rx_filter;
		r = 0;
	}
	return r;
}

void hwtstamp_parse_cmsg(const struct msghdr *msg, bool hardware, struct hwtstamp_cmsg *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *) msg); c;
	     c = CMSG_NXTHDR((struct msghdr *) msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
			struct scm_timestamping sts;
			const struct timespec *t;

			memcpy(&sts, CMSG_DATA(c), sizeof(sts));
			t = &sts.ts[hardware ? 2 : 0];
			if (t->tv_sec != 0 || t->tv_nsec != 0) {
				ret->has_ts = true;
				ret->ts = (ns_t) t->tv_sec * NS_PER_SEC + t->tv_nsec;
			}
		} else if (((c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_TX_TIMESTAMP) ||
			    (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
			    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err))) {
			struct sock_extended_err ee;

			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			if (ee.ee_errno == ENOMSG && ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
			    ee.ee_info == SCM_TSTAMP_SND) {
				ret->has_key = true;
				ret->key = ee.ee_data;
			}
		}
	}
}
