// SPDX-License-Identifier: GPL-2.0-or-later
/* Test tool: send a storm of hostile PTP frames on one interface, or count the PTP frames one sees.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ptp/msg.h"
#include "tool-raw.h"

static const char usage[] =
	"usage: tool-frame-storm send IFNAME COUNT RATE SEED [--parent ID:PORT] [--self ID]\n"
	"                                                   [--kinds MASK]\n"
	"       tool-frame-storm count IFNAME     (until SIGTERM; prints count= drops=)\n"
	"  RATE: frames per second, 0 for as fast as the socket takes them.\n"
	"  ID: 16 hex digits (an EUI-64 clockIdentity). --parent: the slave's master, whose\n"
	"  identity forged Follow_Up/Delay_Resp frames carry with random sequenceIds; --self (up "
	"to\n"
	"  4 times): a target's own identity, which some forged frames carry. --kinds: a bit mask "
	"of\n"
	"  the kinds of frame to send (bit 0 random ... bit 7 bad_version; default all).\n";

/*
 * The kinds of hostile frame, sent in turn. None is a perfect forgery of the master (its
 * identity on a Sync, or a Follow_Up matching a Sync in flight): without the authentication TLV
 * of IEEE 1588-2019 16.14 no slave can tell one from the real thing, ptp4l included.
 */
enum kind {
	K_RANDOM,	/* random bytes, 0-127 of them */
	K_GARBAGE_BODY, /* a valid header of a valid type, random body bytes */
	K_TRUNCATED,	/* a valid message cut short */
	K_BAD_TLV,	/* an Announce whose TLV lengthField overruns or is odd */
	K_FORGED_SEQ,	/* Follow_Up / Delay_Resp as the parent, random sequenceIds */
	K_FORGED_ID,	/* Sync / Follow_Up / Announce from random or our own identities */
	K_OTHER_DOMAIN, /* valid messages of domains 1-127 */
	K_BAD_VERSION,	/* versionPTP 1 or 3 */
	_K_MAX,
};

static const char *const kind_names[_K_MAX] = {
	"random",     "garbage_body", "truncated",    "bad_tlv",
	"forged_seq", "forged_id",    "other_domain", "bad_version",
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* xorshift64*: reproducible from the seed, good enough for garbage. */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static void rnd_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = (uint8_t) rnd();
	}
}

struct storm {
	bool have_parent;
	size_t n_self;
	unsigned kinds; /* bit mask of enum kind */
	struct PortIdentity parent;
	struct ClockIdentity self[4];
};

static void random_identity(struct PortIdentity *p)
{
	rnd_fill(p->clockIdentity.id, sizeof(p->clockIdentity.id));
	p->portNumber = (uint16_t) rnd();
}

static const enum msg_type valid_types[] = {
	MSG_SYNC,
	MSG_DELAY_REQ,
	MSG_PDELAY_REQ,
	MSG_PDELAY_RESP,
	MSG_FOLLOW_UP,
	MSG_DELAY_RESP,
	MSG_PDELAY_RESP_FOLLOW_UP,
	MSG_ANNOUNCE,
	MSG_SIGNALING,
};

/* A well-formed message of a random type from a random identity (timestamps valid). */
static ssize_t build_valid(uint8_t *buf, size_t size, enum msg_type t, uint8_t domain,
			   const struct PortIdentity *src, uint16_t seq)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, t, domain, src, seq);
	if (t == MSG_SYNC || t == MSG_ANNOUNCE || t == MSG_FOLLOW_UP) {
		m.hdr.logMessageInterval = -3;
	}
	if (t == MSG_SYNC) {
		m.hdr.flagField = MSG_FLAG_TWO_STEP;
	}
	if (t == MSG_ANNOUNCE) {
		m.body.announce.grandmasterPriority1 = (uint8_t) rnd();
		m.body.announce.grandmasterPriority2 = (uint8_t) rnd();
		m.body.announce.grandmasterClockQuality.clockClass = (uint8_t) rnd();
		m.body.announce.grandmasterIdentity = src->clockIdentity;
		m.body.announce.timeSource = 0xA0;
	}
	/* Every body's first field is a Timestamp (Signaling: targetPortIdentity, also fine). */
	m.body.sync.originTimestamp.secondsField = rnd() & 0xFFFFFFFFFFFFULL;
	m.body.sync.originTimestamp.nanosecondsField = (uint32_t) (rnd() % 1000000000U);
	return msg_build(&m, buf, size);
}

static size_t build(struct storm *st, enum kind k, uint8_t *buf, size_t size, bool *pdelay)
{
	enum msg_type t = valid_types[rnd() % (sizeof(valid_types) / sizeof(valid_types[0]))];
	struct PortIdentity src;
	ssize_t n;

	*pdelay = false;
	random_identity(&src);
	switch (k) {
	case K_RANDOM:
		n = (ssize_t) (rnd() % 128);
		rnd_fill(buf, (size_t) n);
		return (size_t) n;
	case K_GARBAGE_BODY:
		n = build_valid(buf, size, t, 0, &src, (uint16_t) rnd());
		if (n > 34) {
			rnd_fill(buf + 34, (size_t) n - 34);
		}
		*pdelay = t == MSG_PDELAY_REQ || t == MSG_PDELAY_RESP;
		break;
	case K_TRUNCATED:
		n = build_valid(buf, size, t, 0, &src, (uint16_t) rnd());
		n = (ssize_t) (rnd() % (uint64_t) n);
		break;
	case K_BAD_TLV: {
		size_t tlv = 4 + (rnd() % 32);

		n = build_valid(buf, size, MSG_ANNOUNCE, 0, &src, (uint16_t) rnd());
		/* type ORGANIZATION_EXTENSION / PATH_TRACE / MANAGEMENT, length too long or odd */
		buf[n] = 0;
		buf[n + 1] = (uint8_t[]){ 0x03, 0x08, 0x01 }[rnd() % 3];
		buf[n + 2] = 0;
		buf[n + 3] = (uint8_t) (rnd() % 2 ? tlv - 4 + 1 + rnd() % 200 : ((tlv - 4) | 1));
		rnd_fill(buf + n + 4, tlv - 4);
		n += (ssize_t) tlv;
		buf[2] = (uint8_t) (n >> 8);
		buf[3] = (uint8_t) n;
		break;
	}
	case K_FORGED_SEQ:
		if (!st->have_parent) {
			return build(st, K_FORGED_ID, buf, size, pdelay);
		}
		n = build_valid(buf, size, rnd() % 2 ? MSG_FOLLOW_UP : MSG_DELAY_RESP, 0,
				&st->parent, (uint16_t) rnd());
		/* Delay_Resp: requestingPortIdentity at 44; ours when known, so it looks like ours.
		 */
		if (buf[0] == MSG_DELAY_RESP && st->n_self) {
			memcpy(buf + 44, st->self[rnd() % st->n_self].id, 8);
			buf[52] = 0;
			buf[53] = 1;
		}
		break;
	case K_FORGED_ID: {
		uint64_t r = rnd() % 4;

		if (r == 0 && st->n_self) {
			src.clockIdentity = st->self[rnd() % st->n_self];
		} else if (r == 1 && st->have_parent) {
			/* The parent's clock on another port: not the parent port. */
			src.clockIdentity = st->parent.clockIdentity;
			src.portNumber = (uint16_t) (st->parent.portNumber + 1 + rnd() % 100);
		}
		t = (enum msg_type[]){ MSG_SYNC, MSG_FOLLOW_UP, MSG_ANNOUNCE,
				       MSG_DELAY_RESP }[rnd() % 4];
		n = build_valid(buf, size, t, 0, &src, (uint16_t) rnd());
		break;
	}
	case K_OTHER_DOMAIN:
		n = build_valid(buf, size, t, (uint8_t) (1 + rnd() % 127), &src, (uint16_t) rnd());
		*pdelay = t == MSG_PDELAY_REQ;
		break;
	case K_BAD_VERSION:
		n = build_valid(buf, size, t, 0, &src, (uint16_t) rnd());
		buf[1] = (uint8_t) ((buf[1] & 0xF0) | (rnd() % 2 ? 1 : 3));
		break;
	default:
		n = 0;
	}
	return n < 0 ? 0 : (size_t) n;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int do_send(const char *ifname, uint64_t count, uint64_t rate, struct storm *st)
{
	uint64_t sent[_K_MAX] = { 0 }, total = 0;
	int64_t start = mono_ns();
	uint8_t frame[RAW_HDR_LEN + 512];
	struct raw_sock s;

	if (raw_open("tool-frame-storm", ifname, &s) < 0) {
		return 1;
	}
	uint64_t skip = 0;

	while (total < count && !stop) {
		if (!(st->kinds & (1U << ((total + skip) % _K_MAX)))) {
			skip++;
			continue;
		}
		enum kind k = (enum kind)((total + skip) % _K_MAX);
		bool pdelay;
		size_t len = build(st, k, frame + RAW_HDR_LEN, sizeof(frame) - RAW_HDR_LEN,
				   &pdelay);
		uint8_t src[6];
		int r;

		/* The source MAC is a random unicast one. */
		rnd_fill(src, sizeof(src));
		src[0] = (uint8_t) ((src[0] & 0xFE) | 0x02);
		r = raw_send(&s, frame, len, pdelay ? raw_pdelay_mac : raw_ptp_mac, src);
		if (r == -ENOBUFS || r == -EAGAIN) {
			usleep(100);
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "tool-frame-storm: sendto: %s\n", strerror(-r));
			close(s.fd);
			return 1;
		}
		sent[k]++;
		total++;
		/* Pace in batches of 64: sleep until the batch is due. */
		if (rate && total % 64 == 0) {
			int64_t due = start + (int64_t) (total * 1000000000ULL / rate);
			int64_t now = mono_ns();

			if (due > now) {
				struct timespec ts = { (due - now) / 1000000000,
						       (due - now) % 1000000000 };

				nanosleep(&ts, NULL);
			}
		}
	}
	close(s.fd);
	printf("sent=%" PRIu64 " seconds=%.3f", total, (double) (mono_ns() - start) / 1e9);
	for (int k = 0; k < _K_MAX; k++) {
		printf(" %s=%" PRIu64, kind_names[k], sent[k]);
	}
	printf("\n");
	return 0;
}

/* Every ETH_P_1588 frame arriving on the interface as a port's transport would take it. */
static int do_count(const char *ifname)
{
	uint64_t count = 0;
	uint8_t frame[2048];
	int one = 1 << 24, fd;
	struct tpacket_stats stats;
	socklen_t slen = sizeof(stats);
	struct raw_sock s;

	if (raw_open("tool-frame-storm", ifname, &s) < 0) {
		return 1;
	}
	fd = s.fd;
	/* Big enough that the counter never drops what the port under test receives. */
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &one, sizeof(one));
	printf("counting\n");
	fflush(stdout);
	while (!stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t flen = sizeof(from);
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0) {
			continue;
		}
		while ((n = recvfrom(fd, frame, sizeof(frame), MSG_DONTWAIT,
				     (struct sockaddr *) &from, &flen)) >= 0) {
			/* The transport's own rule (ptp/transport-l2.c): a header, not OTHERHOST.
			 */
			if (n >= 14 && from.sll_pkttype != PACKET_OTHERHOST &&
			    from.sll_pkttype != PACKET_OUTGOING) {
				count++;
			}
			flen = sizeof(from);
		}
	}
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &stats, &slen) < 0) {
		perror("tool-frame-storm: PACKET_STATISTICS");
		close(fd);
		return 1;
	}
	close(fd);
	printf("count=%" PRIu64 " drops=%u\n", count, stats.tp_drops);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct storm st = { .kinds = (1U << _K_MAX) - 1 };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (argc == 3 && !strcmp(argv[1], "count")) {
		return do_count(argv[2]);
	}
	if (argc < 6 || strcmp(argv[1], "send")) {
		fputs(usage, stderr);
		return 2;
	}
	for (int i = 6; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--parent") &&
		    raw_parse_port_id(argv[i + 1], &st.parent) == 0) {
			st.have_parent = true;
		} else if (!strcmp(argv[i], "--self") && st.n_self < 4 &&
			   raw_parse_clock_id(argv[i + 1], &st.self[st.n_self]) == 0) {
			st.n_self++;
		} else if (!strcmp(argv[i], "--kinds")) {
			st.kinds = (unsigned) strtoul(argv[i + 1], NULL, 0) & ((1U << _K_MAX) - 1);
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	rnd_state = strtoull(argv[5], NULL, 0) | 1;
	return do_send(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), &st);
}
