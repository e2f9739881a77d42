// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing of ethtool netlink TSINFO/TSCONFIG replies; no socket I/O here, so tests feed bytes. */
#include <errno.h>
#include <limits.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/net_tstamp.h>
#include <string.h>

#include "netlink/ethtool-compat.h"
#include "netlink/tsinfo.h"
#include "ptp/hwtstamp.h"
#include "ptp/util.h"

#define ATTR_MAX 16

/*
 * Index the attributes in [data, data+len) by type (nested flag masked). Types above max are
 * unknown and skipped; any byte that does not form a whole attribute is -EBADMSG.
 */
static int attrs_index(const void *data, size_t len, const struct nlattr **tb, unsigned max)
{
	const uint8_t *p = data;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len > 0) {
		const struct nlattr *a = (const struct nlattr *) p;
		unsigned type;
		size_t step;

		if (len < NLA_HDRLEN || a->nla_len < NLA_HDRLEN || a->nla_len > len) {
			return -EBADMSG;
		}
		type = a->nla_type & NLA_TYPE_MASK;

		if (type > 0 && type <= max) {
			tb[type] = a;
		}
		step = NLA_ALIGN(a->nla_len);
		if (step >= len) {
			break;
		}
		p += step;
		len -= step;
	}
	return 0;
}

static const void *attr_data(const struct nlattr *a)
{
	return (const uint8_t *) a + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static int attr_u32(const struct nlattr *a, uint32_t *ret)
{
	if (attr_len(a) < sizeof(uint32_t)) {
		return -EBADMSG;
	}
	memcpy(ret, attr_data(a), sizeof(*ret));
	return 0;
}

static int attr_nest(const struct nlattr *a, const struct nlattr **tb, unsigned max)
{
	return attrs_index(attr_data(a), attr_len(a), tb, max);
}

/* Non-compact form: a list of bits, each with an index and (unless NOMASK) a value flag. */
static int bitset_bits(const struct nlattr *bits, bool nomask, uint32_t *ret)
{
	const uint8_t *p = attr_data(bits);
	size_t len = attr_len(bits);

	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *) p;
		const struct nlattr *tb[ETHTOOL_A_BITSET_BIT_MAX + 1];
		uint32_t index;
		int r;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len) {
			return -EBADMSG;
		}
		if ((a->nla_type & NLA_TYPE_MASK) == ETHTOOL_A_BITSET_BITS_BIT) {
			r = attr_nest(a, tb, ETHTOOL_A_BITSET_BIT_MAX);
			if (r < 0) {
				return r;
			}
			if (!tb[ETHTOOL_A_BITSET_BIT_INDEX]) {
				return -EBADMSG;
			}
			r = attr_u32(tb[ETHTOOL_A_BITSET_BIT_INDEX], &index);
			if (r < 0) {
				return r;
			}
			if (index < 32 && (nomask || tb[ETHTOOL_A_BITSET_BIT_VALUE])) {
				*ret |= UINT32_C(1) << index;
			}
		}
		if ((size_t) NLA_ALIGN(a->nla_len) >= len) {
			len = 0;
			break;
		}
		p += NLA_ALIGN(a->nla_len);
		len -= (size_t) NLA_ALIGN(a->nla_len);
	}
	return len == 0 ? 0 : -EBADMSG;
}

/* An ethtool bitset, compact (VALUE is an array of u32) or not; bits above 31 are dropped. */
static int bitset_u32(const struct nlattr *nest, uint32_t *ret)
{
	const struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1];
	int r = attr_nest(nest, tb, ETHTOOL_A_BITSET_MAX);

	if (r < 0) {
		return r;
	}
	*ret = 0;
	if (tb[ETHTOOL_A_BITSET_VALUE]) {
		if (attr_len(tb[ETHTOOL_A_BITSET_VALUE]) == 0) {
			return 0; /* a zero-size set */
		}
		return attr_u32(tb[ETHTOOL_A_BITSET_VALUE], ret);
	}
	if (tb[ETHTOOL_A_BITSET_BITS]) {
		return bitset_bits(tb[ETHTOOL_A_BITSET_BITS], tb[ETHTOOL_A_BITSET_NOMASK] != NULL,
				   ret);
	}
	return 0;
}

static int provider_parse(const struct nlattr *nest, uint32_t *index, uint32_t *qualifier)
{
	const struct nlattr *tb[PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_MAX + 1];
	int r = attr_nest(nest, tb, PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_MAX);

	if (r < 0) {
		return r;
	}
	if (!tb[PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_INDEX]) {
		return -EBADMSG;
	}
	r = attr_u32(tb[PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_INDEX], index);
	if (r < 0) {
		return r;
	}
	*qualifier = 0;
	if (tb[PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_QUALIFIER]) {
		r = attr_u32(tb[PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_QUALIFIER], qualifier);
	}
	return r;
}

/* The request header echoed in every reply: ifindex and name. */
static int header_parse(const struct nlattr *nest, int *ifindex, char ifname[IF_NAMESIZE])
{
	const struct nlattr *tb[ETHTOOL_A_HEADER_MAX + 1];
	uint32_t idx;
	int r = attr_nest(nest, tb, ETHTOOL_A_HEADER_MAX);

	if (r < 0) {
		return r;
	}
	if (tb[ETHTOOL_A_HEADER_DEV_INDEX]) {
		r = attr_u32(tb[ETHTOOL_A_HEADER_DEV_INDEX], &idx);
		if (r < 0) {
			return r;
		}
		*ifindex = (int) idx;
	}
	if (tb[ETHTOOL_A_HEADER_DEV_NAME]) {
		size_t n = strnlen(attr_data(tb[ETHTOOL_A_HEADER_DEV_NAME]),
				   attr_len(tb[ETHTOOL_A_HEADER_DEV_NAME]));

		if (n >= IF_NAMESIZE) {
			return -EBADMSG;
		}
		memcpy(ifname, attr_data(tb[ETHTOOL_A_HEADER_DEV_NAME]), n);
		ifname[n] = '\0';
	}
	return 0;
}

/* The attributes after nlmsghdr + genlmsghdr, checked against the buffer and nlmsg_len. */
static int genl_attrs(const struct nlmsghdr *nlh, size_t len, const struct nlattr **tb,
		      unsigned max)
{
	size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct genlmsghdr));

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < hdr || nlh->nlmsg_len > len) {
		return -EBADMSG;
	}
	return attrs_index((const uint8_t *) nlh + hdr, nlh->nlmsg_len - hdr, tb, max);
}

int tsinfo_parse(const struct nlmsghdr *nlh, size_t len, struct tsinfo *ret)
{
	const struct nlattr *tb[PHCD_ETHTOOL_A_TSINFO_MAX + 1];
	struct tsinfo ti = { .phc_index = -1 };
	uint32_t v;
	int r = genl_attrs(nlh, len, tb, PHCD_ETHTOOL_A_TSINFO_MAX);

	if (r < 0) {
		return r;
	}
	if (tb[ETHTOOL_A_TSINFO_HEADER]) {
		r = header_parse(tb[ETHTOOL_A_TSINFO_HEADER], &ti.ifindex, ti.ifname);
		if (r < 0) {
			return r;
		}
	}
	/* Absent bitsets mean "none": 6.18 omits TX_TYPES and RX_FILTERS without a PHC. */
	if (tb[ETHTOOL_A_TSINFO_TIMESTAMPING] &&
	    (r = bitset_u32(tb[ETHTOOL_A_TSINFO_TIMESTAMPING], &ti.so_timestamping)) < 0) {
		return r;
	}
	if (tb[ETHTOOL_A_TSINFO_TX_TYPES] &&
	    (r = bitset_u32(tb[ETHTOOL_A_TSINFO_TX_TYPES], &ti.tx_types)) < 0) {
		return r;
	}
	if (tb[ETHTOOL_A_TSINFO_RX_FILTERS] &&
	    (r = bitset_u32(tb[ETHTOOL_A_TSINFO_RX_FILTERS], &ti.rx_filters)) < 0) {
		return r;
	}
	if (tb[ETHTOOL_A_TSINFO_PHC_INDEX]) {
		r = attr_u32(tb[ETHTOOL_A_TSINFO_PHC_INDEX], &v);
		if (r < 0) {
			return r;
		}
		/* The kernel's index is an int it never sends negative: larger is garbage. */
		if (v > INT32_MAX) {
			return -EBADMSG;
		}
		ti.phc_index = (int) v;
	}
	if (tb[PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PROVIDER]) {
		r = provider_parse(tb[PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PROVIDER], &ti.provider_index,
				   &ti.provider_qualifier);
		if (r < 0) {
			return r;
		}
		ti.has_provider = true;
	}
	if (tb[PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_SOURCE] &&
	    (r = attr_u32(tb[PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_SOURCE], &ti.source)) < 0) {
		return r;
	}
	*ret = ti;
	return 0;
}

int tsconfig_parse(const struct nlmsghdr *nlh, size_t len, struct tsconfig *ret)
{
	const struct nlattr *tb[PHCD_ETHTOOL_A_TSCONFIG_MAX + 1];
	struct tsconfig tc = { 0 };
	int r = genl_attrs(nlh, len, tb, PHCD_ETHTOOL_A_TSCONFIG_MAX);

	if (r < 0) {
		return r;
	}
	if (tb[PHCD_ETHTOOL_A_TSCONFIG_TX_TYPES] &&
	    (r = bitset_u32(tb[PHCD_ETHTOOL_A_TSCONFIG_TX_TYPES], &tc.tx_types)) < 0) {
		return r;
	}
	if (tb[PHCD_ETHTOOL_A_TSCONFIG_RX_FILTERS] &&
	    (r = bitset_u32(tb[PHCD_ETHTOOL_A_TSCONFIG_RX_FILTERS], &tc.rx_filters)) < 0) {
		return r;
	}
	if (tb[PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_FLAGS] &&
	    (r = bitset_u32(tb[PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_FLAGS], &tc.hwtstamp_flags)) < 0) {
		return r;
	}
	if (tb[PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_PROVIDER]) {
		r = provider_parse(tb[PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_PROVIDER],
				   &tc.provider_index, &tc.provider_qualifier);
		if (r < 0) {
			return r;
		}
		tc.has_provider = true;
	}
	*ret = tc;
	return 0;
}

/* ethtool's own names, so the listing reads like `ethtool -T`. */
static const char *const so_timestamping_names[] = {
	"hardware-transmit",	 "software-transmit",	  "hardware-receive",	"software-receive",
	"software-system-clock", "hardware-legacy-clock", "hardware-raw-clock", "option-id",
	"sched-transmit",	 "ack-transmit",	  "option-cmsg",	"option-tsonly",
	"option-stats",		 "option-pktinfo",	  "option-tx-swhw",	"bind-phc",
	"option-id-tcp",	 "option-rx-filter",
};

static const char *const tx_type_names[] = { "off", "on", "onestep-sync", "onestep-p2p" };

const char *tsinfo_tx_missing(const struct tsinfo *ti, bool software)
{
	const uint32_t tx = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_HARDWARE;

	if (software && !(ti->so_timestamping & SOF_TIMESTAMPING_TX_SOFTWARE)) {
		return "no software transmit timestamps: its driver does not stamp what it sends "
		       "(a bridge, for one: run PTP on its member ports)";
	}
	if (!(ti->so_timestamping & tx)) {
		return "neither hardware nor software transmit timestamps: its driver does not "
		       "stamp what it sends (a bridge, for one: run PTP on its member ports)";
	}
	return NULL;
}

const char *tsinfo_so_timestamping_name(unsigned bit)
{
	return bit < ARRAY_SIZE(so_timestamping_names) ? so_timestamping_names[bit] : NULL;
}

const char *tsinfo_tx_type_name(unsigned bit)
{
	return bit < ARRAY_SIZE(tx_type_names) ? tx_type_names[bit] : NULL;
}

const char *tsinfo_rx_filter_name(unsigned bit)
{
	return bit <= INT_MAX ? hwtstamp_rx_filter_name((int) bit) : NULL;
}
