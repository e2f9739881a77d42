/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unicast broker's policy: which addresses a worker may have sockets to, the per-port bound,
 * the rate, releases, and refusals logged once per burst.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/peer-policy.h"
#include "ptp/util.h"

#define IFINDEX 7

static const struct peer_policy_port port4 = { OPTIONS_TRANSPORT_UDPV4, IFINDEX, 16 };
static const struct peer_policy_port port6 = { OPTIONS_TRANSPORT_UDPV6, IFINDEX, 16 };

static struct peer_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (struct peer_addr){ 4, { a, b, c, d }, 0 };
}

static struct peer_addr v6(const char *hex16, uint32_t scope)
{
	struct peer_addr r = { 16, { 0 }, scope };

	memcpy(r.bytes, hex16, 16);
	return r;
}

#define LL_PEER "\xfe\x80\0\0\0\0\0\0\x02\x11\x22\xff\xfe\x33\x44\x55"
#define GLOBAL "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02"

/* Every class of address, on the port's family and on the other. */
static void test_addresses(void **state)
{
	static const struct {
		const struct peer_policy_port *port;
		struct peer_addr a;
		enum peer_policy_verdict want;
		const char *what;
	} cases[] = {
		{ &port4, { 4, { 192, 0, 2, 1 }, 0 }, PEER_POLICY_GRANTED, "192.0.2.1" },
		{ &port4, { 4, { 10, 255, 255, 255 }, 0 }, PEER_POLICY_GRANTED, "10.255.255.255" },
		{ &port4, { 4, { 0, 0, 0, 0 }, 0 }, PEER_POLICY_UNSPECIFIED, "0.0.0.0" },
		{ &port4, { 4, { 0, 1, 2, 3 }, 0 }, PEER_POLICY_UNSPECIFIED, "0.1.2.3" },
		{ &port4, { 4, { 127, 0, 0, 1 }, 0 }, PEER_POLICY_LOOPBACK, "127.0.0.1" },
		{ &port4, { 4, { 127, 9, 9, 9 }, 0 }, PEER_POLICY_LOOPBACK, "127.9.9.9" },
		{ &port4, { 4, { 224, 0, 1, 129 }, 0 }, PEER_POLICY_MULTICAST, "224.0.1.129" },
		{ &port4, { 4, { 239, 255, 255, 255 }, 0 }, PEER_POLICY_MULTICAST, "239.x" },
		{ &port4,
		  { 4, { 255, 255, 255, 255 }, 0 },
		  PEER_POLICY_BROADCAST,
		  "255.255.255.255" },
		{ &port4, { 4, { 192, 0, 2, 1 }, 3 }, PEER_POLICY_SCOPE, "IPv4 with a scope" },
		{ &port4,
		  { 16, { 0xfe, 0x80, [15] = 1 }, 0 },
		  PEER_POLICY_FAMILY,
		  "IPv6 on UDPv4" },
		{ &port6, { 4, { 192, 0, 2, 1 }, 0 }, PEER_POLICY_FAMILY, "IPv4 on UDPv6" },
		{ &port6, { 16, { 0 }, 0 }, PEER_POLICY_UNSPECIFIED, "::" },
		{ &port6, { 16, { [15] = 1 }, 0 }, PEER_POLICY_LOOPBACK, "::1" },
		{ &port6,
		  { 16, { [15] = 2 }, 0 },
		  PEER_POLICY_GRANTED,
		  "::2 (compatible, unicast)" },
		{ &port6,
		  { 16, { 0xff, 0x0e, [14] = 1, [15] = 0x81 }, 0 },
		  PEER_POLICY_MULTICAST,
		  "ff0e::181" },
		{ &port6,
		  { 16, { 0xff, 0x02, [15] = 0x6b }, 0 },
		  PEER_POLICY_MULTICAST,
		  "ff02::6b" },
		{ &port6,
		  { 16, { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 }, 0 },
		  PEER_POLICY_FAMILY,
		  "::ffff:192.0.2.1" },
		{ &port6,
		  { 16, { 0xfe, 0x80, [15] = 1 }, 0 },
		  PEER_POLICY_GRANTED,
		  "fe80::1, the port's scope implied" },
		{ &port6,
		  { 16, { 0xfe, 0x80, [15] = 1 }, IFINDEX },
		  PEER_POLICY_GRANTED,
		  "fe80::1%port" },
		{ &port6,
		  { 16, { 0xfe, 0x80, [15] = 1 }, IFINDEX + 1 },
		  PEER_POLICY_SCOPE,
		  "fe80::1 on another interface" },
		{ &port6,
		  { 16, { 0xfe, 0xbf, [15] = 1 }, IFINDEX + 1 },
		  PEER_POLICY_SCOPE,
		  "febf::1 (fe80::/10) on another interface" },
		{ &port6,
		  { 16, { 0xfe, 0xc0, [15] = 1 }, 0 },
		  PEER_POLICY_GRANTED,
		  "fec0::1 (not link-local)" },
		{ &port6,
		  { 16, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, 0 },
		  PEER_POLICY_GRANTED,
		  "2001:db8::2" },
		{ &port6,
		  { 16, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, IFINDEX },
		  PEER_POLICY_SCOPE,
		  "a global address with a scope" },
	};
	static const struct peer_policy_port l2 = { OPTIONS_TRANSPORT_L2, IFINDEX, 16 };

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		enum peer_policy_verdict v = peer_policy_check_addr(cases[k].port, &cases[k].a);

		if (v != cases[k].want) {
			fail_msg("%s: expected %s, got %s", cases[k].what,
				 peer_policy_verdict_to_string(cases[k].want),
				 peer_policy_verdict_to_string(v));
		}
	}
	assert_int_equal(peer_policy_check_addr(&l2, &cases[0].a), PEER_POLICY_FAMILY);
}

/* A slot per peer: the bound holds, a duplicate takes none, a release frees one. */
static void test_bound_and_release(void **state)
{
	struct peer_policy_port port = port4;
	struct peer_policy s = { 0 };
	struct peer_addr a;
	ns_t now = 1;

	port.peers_max = 3;
	peer_policy_reset(&s);
	for (uint8_t k = 1; k <= 3; k++) {
		a = v4(192, 0, 2, k);
		assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_GRANTED);
	}
	a = v4(192, 0, 2, 2);
	assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_DUPLICATE);
	a = v4(192, 0, 2, 4);
	assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_LIMIT);
	/* A release of what it never held changes nothing. */
	a = v4(198, 51, 100, 1);
	assert_false(peer_policy_release(&s, &a));
	a = v4(192, 0, 2, 4);
	assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_LIMIT);
	a = v4(192, 0, 2, 2);
	assert_true(peer_policy_release(&s, &a));
	assert_false(peer_policy_release(&s, &a));
	a = v4(192, 0, 2, 4);
	assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_GRANTED);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.counters[PEER_POLICY_GRANTED], 4);
	assert_int_equal(s.counters[PEER_POLICY_DUPLICATE], 1);
	assert_int_equal(s.counters[PEER_POLICY_LIMIT], 2);
	assert_int_equal(s.released, 1);
	/* Sockets that could not be opened give the slot back, counted as that. */
	a = v4(192, 0, 2, 4);
	peer_policy_opened(&s, &a, PEER_POLICY_OPEN_FAILED);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.counters[PEER_POLICY_GRANTED], 3);
	assert_int_equal(s.counters[PEER_POLICY_OPEN_FAILED], 1);
	assert_int_equal(s.released, 1);
	/* A new worker holds nothing; the counters are the port's. */
	peer_policy_reset(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.counters[PEER_POLICY_GRANTED], 3);
	/* A bound beyond what the table holds is the table's. */
	port.peers_max = 1000;
	for (unsigned int k = 0; k < OPTIONS_UNICAST_PEERS_MAX; k++) {
		a = v4(10, 0, (uint8_t) (k >> 8), (uint8_t) k + 1);
		assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_GRANTED);
	}
	a = v4(10, 1, 0, 1);
	assert_int_equal(peer_policy_decide(&s, &port, &a, now), PEER_POLICY_LIMIT);
}

/* The same link-local peer asked with its scope and without is one peer. */
static void test_link_local_one_peer(void **state)
{
	struct peer_policy s = { 0 };
	struct peer_addr a = v6(LL_PEER, 0), b = v6(LL_PEER, IFINDEX), g = v6(GLOBAL, 0);

	assert_int_equal(peer_policy_decide(&s, &port6, &a, 1), PEER_POLICY_GRANTED);
	assert_int_equal(peer_policy_decide(&s, &port6, &b, 1), PEER_POLICY_DUPLICATE);
	assert_int_equal(peer_policy_decide(&s, &port6, &g, 1), PEER_POLICY_GRANTED);
	assert_true(peer_policy_release(&s, &b));
	assert_int_equal(s.n, 1);
}

/*
 * The rate: a burst of PEER_POLICY_BURST, then PEER_POLICY_RATE_PER_SEC a second; a refused
 * address takes no token, and a flood of them leaves honest requests their rate.
 */
static void test_rate(void **state)
{
	struct peer_policy_port port = port4;
	struct peer_policy s = { 0 };
	struct peer_addr a, bad = v4(224, 0, 1, 129);
	unsigned int granted = 0;
	ns_t now = NS_PER_SEC;

	port.peers_max = OPTIONS_UNICAST_PEERS_MAX;
	for (int k = 0; k < 100000; k++) {
		assert_int_equal(peer_policy_decide(&s, &port, &bad, now), PEER_POLICY_MULTICAST);
	}
	/* Each granted peer is released at once: only the rate can refuse. */
	for (unsigned int k = 0; k < 200; k++) {
		a = v4(192, 0, 2, (uint8_t) (k % 250 + 1));
		if (peer_policy_decide(&s, &port, &a, now) == PEER_POLICY_GRANTED) {
			granted++;
			assert_true(peer_policy_release(&s, &a));
		}
	}
	assert_int_equal(granted, (unsigned int) PEER_POLICY_BURST);
	assert_int_equal(s.counters[PEER_POLICY_RATE], 200 - PEER_POLICY_BURST);
	/* Ten seconds later, twenty more. */
	now += 10 * NS_PER_SEC;
	granted = 0;
	for (unsigned int k = 0; k < 100; k++) {
		a = v4(198, 51, 100, (uint8_t) (k + 1));
		if (peer_policy_decide(&s, &port, &a, now) == PEER_POLICY_GRANTED) {
			granted++;
			assert_true(peer_policy_release(&s, &a));
		}
	}
	assert_int_equal(granted, (unsigned int) (10 * PEER_POLICY_RATE_PER_SEC));
	assert_int_equal(s.counters[PEER_POLICY_MULTICAST], 100000);
}

/* One log line per burst of refusals, with the count of those it did not log. */
static void test_log_once_per_burst(void **state)
{
	struct peer_policy s = { 0 };
	uint64_t suppressed = 99;
	ns_t now = NS_PER_SEC;
	int logged = 0;

	for (int k = 0; k < 1000; k++) {
		logged += peer_policy_log_refusal(&s, now + k * NS_PER_MSEC, &suppressed);
	}
	assert_int_equal(logged, 1);
	assert_int_equal(suppressed, 0);
	/* Quiet for PEER_POLICY_LOG_QUIET: the next burst logs again, naming the 999. */
	now += 999 * NS_PER_MSEC + PEER_POLICY_LOG_QUIET;
	assert_true(peer_policy_log_refusal(&s, now, &suppressed));
	assert_int_equal(suppressed, 999);
	assert_false(peer_policy_log_refusal(&s, now + PEER_POLICY_LOG_QUIET - 1, &suppressed));
}

static void test_names(void **state)
{
	for (int v = 0; v < _PEER_POLICY_MAX; v++) {
		assert_non_null(peer_policy_verdict_to_string(v));
	}
	assert_null(peer_policy_verdict_to_string(_PEER_POLICY_MAX));
	assert_string_equal(peer_policy_verdict_to_string(PEER_POLICY_OPEN_FAILED), "open_failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_bound_and_release),
		cmocka_unit_test(test_link_local_one_peer),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_log_once_per_burst),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
