// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/transport.c and ptp/hwtstamp.c: dispatch, event test, timestamp cmsgs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/filter.h>

#include "ptp/hwtstamp.h"
#include "ptp/transport.h"
#include "tests/unit/l2-filter-run.h"

static void test_is_event(void **state)
{
	/* IEEE 1588-2019 13.3.2.3 Table 36: 0x0-0x3 events, 0x8-0xD general. */
	static const struct {
		uint8_t b0;
		bool event;
	} cases[] = {
		{ 0x0, true },	 { 0x1, true },	 { 0x2, true },	 { 0x3, true },
		{ 0x8, false },	 { 0x9, false }, { 0xa, false }, { 0xb, false },
		{ 0xc, false },	 { 0xd, false }, { 0x10, true }, /* majorSdoId in the high nibble
								    does not matter */
		{ 0xf8, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(transport_is_event(&cases[i].b0, 1), cases[i].event);
	}
	assert_false(transport_is_event(cases, 0));
}

static void test_request_names(void **state)
{
	enum options_timestamping r;

	/* The request is time_stamping's own enum, named by options.c. */
	for (int i = OPTIONS_TS_HARDWARE; i <= OPTIONS_TS_AUTO; i++) {
		assert_int_equal(
			options_timestamping_from_string(
				options_timestamping_to_string((enum options_timestamping) i), &r),
			0);
		assert_int_equal(r, i);
	}
	assert_int_equal(options_timestamping_from_string("HW", &r), -EINVAL);
	assert_string_equal(transport_ts_mode_to_string(TRANSPORT_TS_MODE_HARDWARE), "hardware");
}

/* A fake implementation of the same ops, as port tests will use. */
struct fake {
	int before;
	struct transport base;
	int sends, closes, frees;
	int queued; /* messages recv() still has */
};

static int fake_send(struct transport *t, const void *buf, size_t len,
		     const struct transport_dest *dest, bool event, ns_t *ret)
{
	struct fake *f = container_of(t, struct fake, base);

	f->sends++;
	if (event) {
		*ret = 1234;
	}
	return (int) len;
}

static int fake_recv(struct transport *t, void *buf, size_t len, struct transport_rx_info *ret)
{
	struct fake *f = container_of(t, struct fake, base);

	if (f->queued == 0) {
		return -EAGAIN;
	}
	memset(ret, 0, sizeof(*ret));
	ret->has_ts = true;
	ret->ts = 1000 + f->queued;
	memset(buf, f->queued, 44);
	f->queued--;
	return 44;
}

static void fake_close(struct transport *t)
{
	container_of(t, struct fake, base)->closes++;
}

static void fake_free(struct transport *t)
{
	container_of(t, struct fake, base)->frees++;
}

static const struct transport_ops fake_ops = {
	.name = "fake",
	.send = fake_send,
	.recv = fake_recv,
	.close = fake_close,
	.free = fake_free,
};

static void test_dispatch(void **state)
{
	struct fake f = { .base.ops = &fake_ops };
	uint8_t msg[44] = { 0 };
	ns_t ts = 0;

	assert_int_equal(transport_send(&f.base, msg, sizeof(msg), NULL, true, &ts), 44);
	assert_int_equal(ts, 1234);
	assert_int_equal(f.sends, 1);
	assert_null(transport_free(&f.base));
	assert_int_equal(f.closes, 1);
	assert_int_equal(f.frees, 1);
	assert_null(transport_free(NULL));
}

/*
 * A transport without recv_batch gives one message per batch (the caller then waits for readiness
 * again), -EAGAIN when it has none, and nothing for a batch of 0.
 */
static void test_recv_batch_fallback(void **state)
{
	struct fake f = { .base.ops = &fake_ops, .queued = 2 };
	struct transport_frame fr[4];

	assert_int_equal(transport_recv_batch(&f.base, fr, 0), 0);
	assert_int_equal(f.queued, 2);
	assert_int_equal(transport_recv_batch(&f.base, fr, 4), 1);
	assert_int_equal(fr[0].len, 44);
	assert_true(fr[0].info.has_ts);
	assert_int_equal(fr[0].info.ts, 1002);
	assert_int_equal(fr[0].buf[43], 2);
	assert_int_equal(transport_recv_batch(&f.base, fr, 4), 1);
	assert_int_equal(fr[0].buf[0], 1);
	assert_int_equal(transport_recv_batch(&f.base, fr, 4), -EAGAIN);
}

/* glibc's cmsghdr ends in a flexible array, so align the buffer rather than union it. */
struct ctl {
	_Alignas(struct cmsghdr) char buf[512];
	size_t len;
};

static void ctl_add(struct ctl *c, int level, int type, const void *data, size_t len)
{
	struct cmsghdr *h = (struct cmsghdr *) (c->buf + c->len);

	h->cmsg_level = level;
	h->cmsg_type = type;
	h->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(h), data, len);
	c->len += CMSG_SPACE(len);
}

static void msg_of(struct ctl *c, struct msghdr *m)
{
	memset(m, 0, sizeof(*m));
	m->msg_control = c->buf;
	m->msg_controllen = c->len;
}

static void test_cmsg_tx_errqueue(void **state)
{
	struct scm_timestamping sts = { .ts = { { 5, 6 }, { 0, 0 }, { 7, 8 } } };
	struct sock_extended_err ee = { .ee_errno = ENOMSG,
					.ee_origin = SO_EE_ORIGIN_TIMESTAMPING,
					.ee_info = SCM_TSTAMP_SND,
					.ee_data = 42 };
	struct ctl c = { .len = 0 };
	struct hwtstamp_cmsg r;
	struct msghdr m;

	memset(c.buf, 0, sizeof(c.buf));
	ctl_add(&c, SOL_SOCKET, SO_TIMESTAMPING, &sts, sizeof(sts));
	ctl_add(&c, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
	msg_of(&c, &m);

	hwtstamp_parse_cmsg(&m, false, &r);
	assert_true(r.has_ts);
	assert_int_equal(r.ts, 5 * NS_PER_SEC + 6);
	assert_true(r.has_key);
	assert_int_equal(r.key, 42);

	hwtstamp_parse_cmsg(&m, true, &r);
	assert_int_equal(r.ts, 7 * NS_PER_SEC + 8);
}

/* A UDP socket's error queue: the key comes as IP_RECVERR (IPv4) or IPV6_RECVERR. */
static void test_cmsg_udp_errqueue(void **state)
{
	static const int levels[][2] = { { SOL_IP, IP_RECVERR }, { SOL_IPV6, IPV6_RECVERR } };
	struct scm_timestamping sts = { .ts = { { 5, 6 } } };
	struct sock_extended_err ee = { .ee_errno = ENOMSG,
					.ee_origin = SO_EE_ORIGIN_TIMESTAMPING,
					.ee_info = SCM_TSTAMP_SND,
					.ee_data = 7 };

	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		struct ctl c = { .len = 0 };
		struct hwtstamp_cmsg r;
		struct msghdr m;

		memset(c.buf, 0, sizeof(c.buf));
		ctl_add(&c, SOL_SOCKET, SO_TIMESTAMPING, &sts, sizeof(sts));
		ctl_add(&c, levels[i][0], levels[i][1], &ee, sizeof(ee));
		msg_of(&c, &m);
		hwtstamp_parse_cmsg(&m, false, &r);
		assert_true(r.has_ts && r.has_key);
		assert_int_equal(r.key, 7);
	}
}

/* IEEE 1588-2019 C.3 and D.3: the groups and ports, as text, for every case. */
static void test_udp_groups(void **state)
{
	static const struct {
		bool ipv6, pdelay;
		uint8_t scope;
		uint16_t port;
		const char *want;
	} cases[] = {
		{ false, false, 0, 319, "224.0.1.129" },
		{ false, true, 0, 320, "224.0.0.107" },
		{ false, false, 5, 320, "224.0.1.129" }, /* the scope is IPv6's only */
		{ true, false, 0, 319, "ff0e::181" },	 /* 0: ptp4l's default 0x0E */
		{ true, false, 0x0e, 320, "ff0e::181" },
		{ true, false, 0x02, 319, "ff02::181" },
		{ true, false, 0x05, 319, "ff05::181" },
		{ true, true, 0x05, 319, "ff02::6b" }, /* peer delay: always link-local */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sockaddr_storage sa;
		socklen_t len = 0;
		char text[INET6_ADDRSTRLEN];
		uint16_t port;

		assert_int_equal(transport_udp_group(cases[i].ipv6, cases[i].pdelay, cases[i].scope,
						     cases[i].port, 7, &sa, &len),
				 0);
		if (cases[i].ipv6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *) &sa;

			assert_int_equal(len, sizeof(*a));
			assert_int_equal(a->sin6_family, AF_INET6);
			assert_int_equal(a->sin6_scope_id, 7);
			inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
			port = ntohs(a->sin6_port);
		} else {
			struct sockaddr_in *a = (struct sockaddr_in *) &sa;

			assert_int_equal(len, sizeof(*a));
			assert_int_equal(a->sin_family, AF_INET);
			inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
			port = ntohs(a->sin_port);
		}
		if (strcmp(text, cases[i].want) != 0 || port != cases[i].port) {
			fail_msg("case %zu: expected %s port %u, got %s port %u", i, cases[i].want,
				 cases[i].port, text, port);
		}
	}
	{
		struct sockaddr_storage sa;
		socklen_t len;

		assert_int_equal(transport_udp_group(true, false, 0x10, 319, 1, &sa, &len),
				 -EINVAL);
	}
}

/* A datagram's source as the management rate limit keys it: the address, zero-padded. */
static void test_udp_src(void **state)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a4 = (struct sockaddr_in *) &ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *) &ss;
	uint8_t src[TRANSPORT_ADDR_LEN], want[TRANSPORT_ADDR_LEN] = { 192, 0, 2, 1 };

	a4->sin_family = AF_INET;
	a4->sin_port = htons(319);
	inet_pton(AF_INET, "192.0.2.1", &a4->sin_addr);
	assert_int_equal(transport_udp_src(&ss, src), 0);
	assert_memory_equal(src, want, sizeof(want));

	memset(&ss, 0, sizeof(ss));
	a6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "fe80::1:2", &a6->sin6_addr);
	assert_int_equal(transport_udp_src(&ss, src), 0);
	assert_memory_equal(src, &a6->sin6_addr, 16);

	ss.ss_family = AF_UNIX;
	memset(src, 0xaa, sizeof(src));
	assert_int_equal(transport_udp_src(&ss, src), -EAFNOSUPPORT);
	memset(want, 0, sizeof(want));
	assert_memory_equal(src, want, sizeof(want));
}

/*
 * A unicast peer's address as the sockets to it are connected: its family's length only, the
 * port asked, and for an IPv6 link-local one the scope given or else the port's interface.
 */
static void test_udp_peer_sockaddr(void **state)
{
	struct sockaddr_storage ss;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *) &ss;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *) &ss;
	uint8_t v4[4] = { 192, 0, 2, 1 }, ll[16], global[16];
	socklen_t len;

	inet_pton(AF_INET6, "fe80::1:2", ll);
	inet_pton(AF_INET6, "2001:db8::2", global);
	assert_int_equal(transport_udp_peer_sockaddr(false, v4, 4, 0, 319, 5, &ss, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(a4->sin_family, AF_INET);
	assert_int_equal(ntohs(a4->sin_port), 319);
	assert_memory_equal(&a4->sin_addr, v4, 4);
	assert_int_equal(transport_udp_peer_sockaddr(true, ll, 16, 0, 320, 5, &ss, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(ntohs(a6->sin6_port), 320);
	assert_int_equal(a6->sin6_scope_id, 5);
	assert_memory_equal(&a6->sin6_addr, ll, 16);
	assert_int_equal(transport_udp_peer_sockaddr(true, ll, 16, 9, 320, 5, &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 9);
	assert_int_equal(transport_udp_peer_sockaddr(true, global, 16, 0, 319, 5, &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 0);
	assert_int_equal(transport_udp_peer_sockaddr(true, v4, 4, 0, 319, 5, &ss, &len), -EINVAL);
	assert_int_equal(transport_udp_peer_sockaddr(false, ll, 16, 0, 319, 5, &ss, &len), -EINVAL);
}

/* One transport per network_transport, and the number of sockets each hands over. */
static void test_kinds(void **state)
{
	static const struct {
		enum options_transport kind;
		const char *name;
		size_t fds;
	} cases[] = {
		{ OPTIONS_TRANSPORT_L2, "L2", TRANSPORT_L2_FDS },
		{ OPTIONS_TRANSPORT_UDPV4, "UDPv4", TRANSPORT_UDP_FDS },
		{ OPTIONS_TRANSPORT_UDPV6, "UDPv6", TRANSPORT_UDP_FDS },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct transport *t = NULL;

		assert_int_equal(transport_new(cases[i].kind, &t), 0);
		assert_string_equal(t->ops->name, cases[i].name);
		assert_int_equal(transport_n_fds(cases[i].kind), cases[i].fds);
		assert_true(transport_n_fds(cases[i].kind) <= TRANSPORT_FDS_MAX);
		transport_free(t);
	}
	assert_int_equal(transport_new((enum options_transport) 9, &(struct transport *){ NULL }),
			 -EINVAL);
}

static void test_cmsg_absent_and_foreign(void **state)
{
	struct scm_timestamping sts = { .ts = { { 5, 6 } } };
	struct sock_extended_err ee = { .ee_errno = ENOMSG,
					.ee_origin = SO_EE_ORIGIN_LOCAL, /* not a timestamp */
					.ee_data = 9 };
	struct ctl c = { .len = 0 };
	struct hwtstamp_cmsg r;
	struct msghdr m;

	memset(c.buf, 0, sizeof(c.buf));
	ctl_add(&c, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
	ctl_add(&c, SOL_SOCKET, SO_TIMESTAMPING, &sts, sizeof(sts));
	msg_of(&c, &m);
	hwtstamp_parse_cmsg(&m, true, &r); /* hardware slot is zero: no timestamp */
	assert_false(r.has_ts);
	assert_false(r.has_key);

	/* A cmsg too short to hold struct scm_timestamping is ignored, not read past. */
	memset(&c, 0, sizeof(c));
	ctl_add(&c, SOL_SOCKET, SO_TIMESTAMPING, &sts, sizeof(struct timespec));
	msg_of(&c, &m);
	hwtstamp_parse_cmsg(&m, false, &r);
	assert_false(r.has_ts);

	msg_of(&c, &m);
	m.msg_controllen = 0;
	hwtstamp_parse_cmsg(&m, false, &r);
	assert_false(r.has_ts);
}

/*
 * The two socket filters of a lazy_general L2 pair, run by the kernel on an AF_UNIX datagram
 * pair (the same classic BPF a packet socket runs, over the frame from its Ethernet header): each
 * frame goes to exactly one of the two sockets, Announce, Delay_Resp and a Sync with twoStepFlag
 * to the lazy one, whatever majorSdoId and the other flags, a one-step Sync and a frame too
 * short for a messageType (or a Sync's flags) to the event socket.
 */
static bool passes(bool lazy, const uint8_t *frame, size_t len)
{
	int sv[2];
	bool kept;

	l2_filter_open(lazy, sv);
	kept = l2_filter_keeps(sv, frame, len);
	l2_filter_close(sv);
	return kept;
}

static void test_l2_lazy_filters(void **state)
{
	static const uint8_t flag0[] = { 0x00, 0x02, 0xfd, 0xff }; /* flagField's first octet */
	uint8_t frame[48] = { 0 };

	(void) state;
	for (int sdo = 0; sdo < 16; sdo += 15) {
		for (int type = 0; type < 16; type++) {
			for (size_t f = 0; f < ARRAY_SIZE(flag0); f++) {
				bool lazy = type == 0x9 || type == 0xb ||
					    (type == 0x0 && (flag0[f] & 0x02));

				frame[14] = (uint8_t) (sdo << 4 | type);
				frame[14 + 6] = flag0[f];
				assert_int_equal(passes(true, frame, sizeof(frame)), lazy);
				assert_int_equal(passes(false, frame, sizeof(frame)), !lazy);
			}
		}
	}
	/* A two-step Sync cut before its flags: the event socket's (the port counts it). */
	frame[14] = 0x00;
	frame[14 + 6] = 0x02;
	assert_true(passes(true, frame, 14 + 7));
	assert_false(passes(true, frame, 14 + 6));
	assert_true(passes(false, frame, 14 + 6));
	/*
	 * Follow_Ups: those with an odd sequenceId of Syncs at 4 a second or more
	 * (logMessageInterval -7 .. -2) are the lazy socket's, the rest wake the worker: even ones,
	 * unicast ones (0x7F), slower ones, out of range ones, and one cut before its
	 * logMessageInterval.
	 */
	for (int seq = 0; seq < 4; seq++) {
		static const uint8_t log_iv[] = { 0x7f, 0x00, 0x01, 0xff, 0xfe,
						  0xfd, 0xfa, 0xf9, 0xf8, 0x80 };

		for (size_t k = 0; k < ARRAY_SIZE(log_iv); k++) {
			bool lazy = (seq & 1) && log_iv[k] >= 0xf9 && log_iv[k] <= 0xfe;

			memset(frame, 0, sizeof(frame));
			frame[14] = 0x08;
			frame[14 + 30] = (uint8_t) (seq << 1);
			frame[14 + 31] = (uint8_t) (seq == 3 ? 0xff : seq);
			frame[14 + 33] = log_iv[k];
			assert_int_equal(passes(true, frame, sizeof(frame)), lazy);
			assert_int_equal(passes(false, frame, sizeof(frame)), !lazy);
			assert_false(passes(true, frame, 14 + 33));
			assert_true(passes(false, frame, 14 + 33));
		}
	}
	memset(frame, 0, sizeof(frame));
	frame[14] = 0x00;
	frame[14 + 6] = 0x02;
	/* A header and nothing more: no messageType, so the event socket's (the port counts it). */
	assert_false(passes(true, frame, 14));
	assert_true(passes(false, frame, 14));
	assert_true(passes(false, frame, 3));
}

/*
 * The receive filter from what the driver offers: PTP_V2_L2_EVENT, PTP_V2_EVENT, ALL in that
 * order; igb (82576) offers ptpv1-l4-sync, ptpv1-l4-delay-req and ptpv2-event only.
 */
static void test_choose_rx_filter(void **state)
{
#define F(x) (1u << HWTSTAMP_FILTER_##x)
	const uint32_t igb = F(NONE) | F(PTP_V1_L4_SYNC) | F(PTP_V1_L4_DELAY_REQ) | F(PTP_V2_EVENT);

	assert_int_equal(hwtstamp_choose_rx_filter(igb, false), HWTSTAMP_FILTER_PTP_V2_EVENT);
	assert_int_equal(hwtstamp_choose_rx_filter(igb | F(PTP_V2_L2_EVENT) | F(ALL), false),
			 HWTSTAMP_FILTER_PTP_V2_L2_EVENT);
	assert_int_equal(hwtstamp_choose_rx_filter(F(NONE) | F(ALL), false), HWTSTAMP_FILTER_ALL);
	assert_int_equal(hwtstamp_choose_rx_filter(F(ALL) | F(PTP_V2_EVENT), false),
			 HWTSTAMP_FILTER_PTP_V2_EVENT);
	/* Sync only (or V1 only) cannot run a port: refused, not half-stamped. */
	assert_int_equal(
		hwtstamp_choose_rx_filter(F(NONE) | F(PTP_V2_L2_SYNC) | F(PTP_V1_L4_EVENT), false),
		-EOPNOTSUPP);
	/* A driver that lists nothing is asked for the narrowest and answers for itself. */
	assert_int_equal(hwtstamp_choose_rx_filter(0, false), HWTSTAMP_FILTER_PTP_V2_L2_EVENT);
	/* UDP (Annexes C, D): the L4 filter first, an L2-only one never. */
	assert_int_equal(hwtstamp_choose_rx_filter(0, true), HWTSTAMP_FILTER_PTP_V2_L4_EVENT);
	assert_int_equal(hwtstamp_choose_rx_filter(igb, true), HWTSTAMP_FILTER_PTP_V2_EVENT);
	assert_int_equal(hwtstamp_choose_rx_filter(F(PTP_V2_L4_EVENT) | F(PTP_V2_EVENT), true),
			 HWTSTAMP_FILTER_PTP_V2_L4_EVENT);
	assert_int_equal(hwtstamp_choose_rx_filter(F(NONE) | F(PTP_V2_L2_EVENT), true),
			 -EOPNOTSUPP);
#undef F
	assert_string_equal(hwtstamp_rx_filter_to_string(HWTSTAMP_FILTER_PTP_V2_EVENT),
			    "ptpv2-event");
	assert_string_equal(hwtstamp_rx_filter_to_string(HWTSTAMP_FILTER_PTP_V2_L2_EVENT),
			    "ptpv2-l2-event");
	assert_string_equal(hwtstamp_rx_filter_to_string(HWTSTAMP_FILTER_ALL), "all");
	assert_string_equal(hwtstamp_rx_filter_to_string(HWTSTAMP_FILTER_NONE), "none");
	assert_string_equal(hwtstamp_rx_filter_to_string(-1), "unknown");
	assert_string_equal(hwtstamp_rx_filter_to_string(1000), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_event),
		cmocka_unit_test(test_l2_lazy_filters),
		cmocka_unit_test(test_choose_rx_filter),
		cmocka_unit_test(test_request_names),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_recv_batch_fallback),
		cmocka_unit_test(test_cmsg_tx_errqueue),
		cmocka_unit_test(test_cmsg_absent_and_foreign),
		cmocka_unit_test(test_cmsg_udp_errqueue),
		cmocka_unit_test(test_udp_groups),
		cmocka_unit_test(test_udp_src),
		cmocka_unit_test(test_udp_peer_sockaddr),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
