// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of netlink/tsinfo.c: canned ethtool TSINFO/TSCONFIG replies, good and broken. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/net_tstamp.h>
#include <string.h>

#include "netlink/ethtool-compat.h"
#include "netlink/tsinfo.h"

/* A tiny netlink message builder: nlmsghdr + genlmsghdr + attributes, nests by offset. */
struct msgbuf {
	_Alignas(4) uint8_t b[1024];
	size_t len;
};

static void msg_init(struct msgbuf *m, uint8_t cmd)
{
	struct nlmsghdr nlh = { .nlmsg_type = 21 };
	struct genlmsghdr g = { .cmd = cmd, .version = ETHTOOL_GENL_VERSION };

	memset(m, 0, sizeof(*m));
	memcpy(m->b, &nlh, sizeof(nlh));
	memcpy(m->b + NLMSG_HDRLEN, &g, sizeof(g));
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(g));
}

static void msg_finish(struct msgbuf *m)
{
	uint32_t len = (uint32_t) m->len;

	memcpy(m->b + offsetof(struct nlmsghdr, nlmsg_len), &len, sizeof(len));
}

static size_t put(struct msgbuf *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t) (NLA_HDRLEN + len), .nla_type = type };
	size_t at = m->len;

	assert_true(m->len + NLA_ALIGN(a.nla_len) <= sizeof(m->b));
	memcpy(m->b + at, &a, sizeof(a));
	if (len) {
		memcpy(m->b + at + NLA_HDRLEN, data, len);
	}
	m->len += NLA_ALIGN(a.nla_len);
	return at;
}

static void put_u32(struct msgbuf *m, uint16_t type, uint32_t v)
{
	put(m, type, &v, sizeof(v));
}

static size_t nest_start(struct msgbuf *m, uint16_t type)
{
	return put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msgbuf *m, size_t at)
{
	uint16_t len = (uint16_t) (m->len - at);

	memcpy(m->b + at, &len, sizeof(len));
}

static void put_header(struct msgbuf *m, uint32_t ifindex, const char *name)
{
	size_t n = nest_start(m, ETHTOOL_A_TSINFO_HEADER);

	put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
	put(m, ETHTOOL_A_HEADER_DEV_NAME, name, strlen(name) + 1);
	nest_end(m, n);
}

/* A compact bitset as the kernel sends it with ETHTOOL_FLAG_COMPACT_BITSETS. */
static void put_bitset(struct msgbuf *m, uint16_t type, uint32_t size, uint32_t value)
{
	size_t n = nest_start(m, type);

	put(m, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
	put_u32(m, ETHTOOL_A_BITSET_SIZE, size);
	put(m, ETHTOOL_A_BITSET_VALUE, &value, sizeof(value));
	nest_end(m, n);
}

static const struct nlmsghdr *hdr(const struct msgbuf *m)
{
	return (const struct nlmsghdr *) m->b;
}

/* veth on kernel 6.18: header and TIMESTAMPING only; no PHC_INDEX, TX_TYPES, RX_FILTERS. */
static void build_veth(struct msgbuf *m)
{
	msg_init(m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_header(m, 2, "va");
	put_bitset(m, ETHTOOL_A_TSINFO_TIMESTAMPING, 18, 0x1a);
	msg_finish(m);
}

static void test_veth_software_no_phc(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;

	build_veth(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), 0);
	assert_int_equal(ti.ifindex, 2);
	assert_string_equal(ti.ifname, "va");
	assert_int_equal(ti.so_timestamping, SOF_TIMESTAMPING_TX_SOFTWARE |
						     SOF_TIMESTAMPING_RX_SOFTWARE |
						     SOF_TIMESTAMPING_SOFTWARE);
	assert_int_equal(ti.phc_index, -1); /* absent attribute = no PHC */
	assert_int_equal(ti.tx_types, 0);
	assert_int_equal(ti.rx_filters, 0);
	assert_false(ti.has_provider);
}

/*
 * Transmit timestamps a port needs: a bridge (software receive only, as `ethtool -T br0` shows)
 * is refused in every mode, a veth only when hardware is asked for (the worker's refusal, not
 * this one's), a NIC with hardware transmit stamps only when software is asked for and missing.
 */
static void test_tx_missing(void **state)
{
	const uint32_t sw_rx = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	const struct tsinfo bridge = { .so_timestamping = sw_rx, .phc_index = -1 };
	const struct tsinfo veth = { .so_timestamping = sw_rx | SOF_TIMESTAMPING_TX_SOFTWARE,
				     .phc_index = -1 };
	const struct tsinfo hw_only = { .so_timestamping = SOF_TIMESTAMPING_TX_HARDWARE |
							   SOF_TIMESTAMPING_RX_HARDWARE |
							   SOF_TIMESTAMPING_RAW_HARDWARE,
					.phc_index = 0 };

	assert_non_null(strstr(tsinfo_tx_missing(&bridge, true), "no software transmit"));
	assert_non_null(strstr(tsinfo_tx_missing(&bridge, false), "neither hardware nor software"));
	assert_null(tsinfo_tx_missing(&veth, true));
	assert_null(tsinfo_tx_missing(&veth, false));
	assert_null(tsinfo_tx_missing(&hw_only, false));
	assert_non_null(tsinfo_tx_missing(&hw_only, true));
}

static void build_hw(struct msgbuf *m)
{
	size_t n;

	msg_init(m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_header(m, 3, "eth0");
	put_bitset(m, ETHTOOL_A_TSINFO_TIMESTAMPING, 18, 0x5f);
	put_bitset(m, ETHTOOL_A_TSINFO_TX_TYPES, 4, 0x3);
	put_bitset(m, ETHTOOL_A_TSINFO_RX_FILTERS, 16,
		   (1u << HWTSTAMP_FILTER_NONE) | (1u << HWTSTAMP_FILTER_PTP_V2_L2_EVENT));
	put_u32(m, ETHTOOL_A_TSINFO_PHC_INDEX, 0);
	n = nest_start(m, PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PROVIDER);
	put_u32(m, PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_INDEX, 0);
	put_u32(m, PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_QUALIFIER, 1);
	nest_end(m, n);
	put_u32(m, PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_SOURCE, PHCD_HWTSTAMP_SOURCE_NETDEV);
	msg_finish(m);
}

static void test_hardware_with_provider(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;

	build_hw(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), 0);
	assert_string_equal(ti.ifname, "eth0");
	assert_int_equal(ti.so_timestamping, 0x5f);
	assert_int_equal(ti.tx_types, 0x3);
	assert_int_equal(ti.rx_filters, 0x201);
	assert_int_equal(ti.phc_index, 0);
	assert_true(ti.has_provider);
	assert_int_equal(ti.provider_index, 0);
	assert_int_equal(ti.provider_qualifier, 1);
	assert_int_equal(ti.source, PHCD_HWTSTAMP_SOURCE_NETDEV);
}

static void test_unknown_attributes_skipped(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;
	size_t n;

	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_u32(&m, 200, 0xdeadbeef); /* from a kernel newer than us */
	put_header(&m, 2, "va");
	n = nest_start(&m, 201);
	put_u32(&m, 1, 7);
	nest_end(&m, n);
	put_bitset(&m, ETHTOOL_A_TSINFO_TIMESTAMPING, 18, 0x1a);
	put_u32(&m, PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PHYINDEX, 5); /* known id, not used */
	put_u32(&m, ETHTOOL_A_TSINFO_PHC_INDEX, 3);
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), 0);
	assert_int_equal(ti.so_timestamping, 0x1a);
	assert_int_equal(ti.phc_index, 3);
}

static void test_truncated(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;

	build_hw(&m);
	/* Every cut short of the whole message must be refused, never read past the end. */
	for (size_t len = 0; len < m.len; len++) {
		struct msgbuf cut = m;

		assert_int_equal(tsinfo_parse(hdr(&cut), len, &ti), -EBADMSG);
	}
	/* nlmsg_len shortened to end inside an attribute: the attribute overhangs. */
	for (size_t len = NLMSG_HDRLEN + 4 + 1; len < m.len; len += 4) {
		struct msgbuf cut = m;
		uint32_t l = (uint32_t) len;
		int r;

		memcpy(cut.b, &l, sizeof(l));
		r = tsinfo_parse(hdr(&cut), m.len, &ti);
		assert_true(r == 0 || r == -EBADMSG);
	}
	/* Cut 4 bytes into the last attribute (HWTSTAMP_SOURCE, 8 bytes): it overhangs. */
	{
		uint32_t l = (uint32_t) m.len - 4;

		memcpy(m.b, &l, sizeof(l));
		assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);
	}
}

static void test_wrong_sizes(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;
	uint16_t two = 0;

	/* PHC_INDEX of 2 bytes. */
	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put(&m, ETHTOOL_A_TSINFO_PHC_INDEX, &two, sizeof(two));
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);

	/* A PHC index no int holds (found by fuzz-tsinfo). */
	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_u32(&m, ETHTOOL_A_TSINFO_PHC_INDEX, 0xfa000000);
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);

	/* An attribute whose nla_len runs past the message. */
	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_u32(&m, ETHTOOL_A_TSINFO_PHC_INDEX, 1);
	m.b[NLMSG_HDRLEN + 4] = 64;
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);

	/* A bitset nest whose inner attribute is cut. */
	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	put_bitset(&m, ETHTOOL_A_TSINFO_TIMESTAMPING, 18, 0x1a);
	m.b[NLMSG_HDRLEN + 4] -= 4; /* nest shorter than its content */
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);

	/* Provider nest without its index. */
	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	{
		size_t n = nest_start(&m, PHCD_ETHTOOL_A_TSINFO_HWTSTAMP_PROVIDER);

		put_u32(&m, PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_QUALIFIER, 0);
		nest_end(&m, n);
	}
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), -EBADMSG);
}

static void put_bit(struct msgbuf *m, uint32_t index, const char *name, bool value)
{
	size_t n = nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);

	put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, index);
	put(m, ETHTOOL_A_BITSET_BIT_NAME, name, strlen(name) + 1);
	if (value) {
		put(m, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
	}
	nest_end(m, n);
}

/* Kernels answering without COMPACT_BITSETS send a list of named bits. */
static void test_verbose_bitset(void **state)
{
	struct msgbuf m;
	struct tsinfo ti;
	size_t set, bits;

	msg_init(&m, ETHTOOL_MSG_TSINFO_GET_REPLY);
	set = nest_start(&m, ETHTOOL_A_TSINFO_TIMESTAMPING);
	put_u32(&m, ETHTOOL_A_BITSET_SIZE, 18);
	bits = nest_start(&m, ETHTOOL_A_BITSET_BITS);
	put_bit(&m, 1, "software-transmit", true);
	put_bit(&m, 2, "hardware-receive", false);
	put_bit(&m, 4, "software-system-clock", true);
	put_bit(&m, 40, "from-the-future", true); /* beyond 32 bits: dropped */
	nest_end(&m, bits);
	nest_end(&m, set);
	set = nest_start(&m, ETHTOOL_A_TSINFO_TX_TYPES);
	put(&m, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
	bits = nest_start(&m, ETHTOOL_A_BITSET_BITS);
	put_bit(&m, 1, "on", false); /* NOMASK: listed means set */
	nest_end(&m, bits);
	nest_end(&m, set);
	msg_finish(&m);
	assert_int_equal(tsinfo_parse(hdr(&m), m.len, &ti), 0);
	assert_int_equal(ti.so_timestamping, 0x12);
	assert_int_equal(ti.tx_types, 0x2);
}

static void test_tsconfig(void **state)
{
	struct msgbuf m;
	struct tsconfig tc;
	size_t n;

	msg_init(&m, 48);
	n = nest_start(&m, PHCD_ETHTOOL_A_TSCONFIG_HEADER);
	put_u32(&m, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	nest_end(&m, n);
	n = nest_start(&m, PHCD_ETHTOOL_A_TSCONFIG_HWTSTAMP_PROVIDER);
	put_u32(&m, PHCD_ETHTOOL_A_TS_HWTSTAMP_PROVIDER_INDEX, 1);
	nest_end(&m, n);
	put_bitset(&m, PHCD_ETHTOOL_A_TSCONFIG_TX_TYPES, 4, 1u << HWTSTAMP_TX_ON);
	put_bitset(&m, PHCD_ETHTOOL_A_TSCONFIG_RX_FILTERS, 16, 1u << HWTSTAMP_FILTER_ALL);
	msg_finish(&m);
	assert_int_equal(tsconfig_parse(hdr(&m), m.len, &tc), 0);
	assert_true(tc.has_provider);
	assert_int_equal(tc.provider_index, 1);
	assert_int_equal(tc.provider_qualifier, 0);
	assert_int_equal(tc.tx_types, 1u << HWTSTAMP_TX_ON);
	assert_int_equal(tc.rx_filters, 1u << HWTSTAMP_FILTER_ALL);
	assert_int_equal(tc.hwtstamp_flags, 0);
}

static void test_names(void **state)
{
	assert_string_equal(tsinfo_so_timestamping_name(0), "hardware-transmit");
	assert_string_equal(tsinfo_so_timestamping_name(6), "hardware-raw-clock");
	assert_null(tsinfo_so_timestamping_name(31));
	assert_string_equal(tsinfo_tx_type_name(HWTSTAMP_TX_ONESTEP_SYNC), "onestep-sync");
	assert_string_equal(tsinfo_rx_filter_name(HWTSTAMP_FILTER_PTP_V2_L2_EVENT),
			    "ptpv2-l2-event");
	assert_string_equal(tsinfo_rx_filter_name(HWTSTAMP_FILTER_NTP_ALL), "ntp-all");
	assert_null(tsinfo_rx_filter_name(16));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_veth_software_no_phc),
		cmocka_unit_test(test_tx_missing),
		cmocka_unit_test(test_hardware_with_provider),
		cmocka_unit_test(test_unknown_attributes_skipped),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_wrong_sizes),
		cmocka_unit_test(test_verbose_bitset),
		cmocka_unit_test(test_tsconfig),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
