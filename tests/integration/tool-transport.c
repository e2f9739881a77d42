// SPDX-License-Identifier: GPL-2.0-or-later
/* Test tool: drive the L2 transport on one interface (send, receive, sink) for the shell tests. */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ptp/transport.h"

static const char usage[] =
	"usage: tool-transport [options] send IFNAME COUNT\n"
	"       tool-transport [options] recv IFNAME COUNT\n"
	"       tool-transport [options] sink IFNAME\n"
	"       tool-transport raw IFNAME ETHERTYPE DST COUNT   (DST: ptp, pdelay, bcast)\n"
	"  --ts auto|hardware|software   timestamping request (default software)\n"
	"  --adopt                       open the fd as a supervisor would, then adopt it\n"
	"  --timeout-ms N                recv: give up after N ms (default 5000)\n"
	"  --interleave-general          send: a general message after each event message\n"
	"  --tx-timeout-ms N             TX timestamp deadline (default: the transport's)\n"
	"  --socket-priority N           SO_PRIORITY of the socket (transport_config)\n"
	"  --fake-hw                     with --adopt: mark the fd hardware-stamped although the\n"
	"                                driver is not, so no TX timestamp ever comes\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static ns_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* A 44-byte PTPv2 header-sized message: messageType, versionPTP 2, length, sequenceId. */
static void build_msg(uint8_t *m, size_t len, uint8_t type, uint16_t seq)
{
	memset(m, 0, len);
	m[0] = type;
	m[1] = 2;
	m[2] = (uint8_t) (len >> 8);
	m[3] = (uint8_t) len;
	m[30] = (uint8_t) (seq >> 8);
	m[31] = (uint8_t) seq;
}

struct tool_opts {
	enum options_timestamping req;
	bool adopt;
	bool fake_hw;
	ns_t tx_timeout;
	int socket_priority;
};

static int open_transport(const char *ifname, const struct tool_opts *o, struct transport **ret)
{
	struct transport_config cfg = { .ts_request = o->req,
					.peer_delay = true,
					.tx_timeout = o->tx_timeout,
					.socket_priority = o->socket_priority };
	_cleanup_transport_ struct transport *t = NULL;
	struct transport_ts_status st;
	int r;

	cfg.ifindex = (int) if_nametoindex(ifname);
	if (cfg.ifindex == 0) {
		fprintf(stderr, "%s: no such interface\n", ifname);
		return -ENODEV;
	}
	r = transport_l2_new(&t);
	if (r < 0) {
		return r;
	}
	if (o->adopt) {
		int fds[TRANSPORT_L2_FDS], fd;

		r = transport_l2_open_fd(&cfg, fds, &st);
		fd = fds[TRANSPORT_L2_FD_EVENT];
		if (r >= 0 && o->fake_hw) {
			int f = SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
				SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY |
				SOF_TIMESTAMPING_TX_HARDWARE;

			if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &f, sizeof(f)) < 0) {
				r = -errno;
			}
		}
		if (r >= 0) {
			/* As a worker would: it knows nothing but the fds. */
			struct transport_config wcfg = { .tx_timeout = o->tx_timeout };

			r = transport_adopt(t, fd, fds[TRANSPORT_L2_FD_GENERAL], &wcfg);
			if (r < 0) {
				close(fd);
				close(fds[TRANSPORT_L2_FD_GENERAL]);
			}
		}
	} else {
		r = transport_open(t, &cfg);
	}
	if (r < 0) {
		fprintf(stderr, "%s: opening the transport failed: %s\n", ifname, strerror(-r));
		return r;
	}
	r = transport_get_ts_status(t, &st);
	if (r < 0) {
		return r;
	}
	/* Once, at open: the one place that knows the reason. */
	if (st.hw_error != 0) {
		printf("%s: hardware timestamping refused (SIOCSHWTSTAMP: %s), using software\n",
		       ifname, strerror(-st.hw_error));
	}
	printf("%s: open timestamping=%s phc=%d adopt=%d\n", ifname,
	       transport_ts_mode_to_string(st.mode), st.phc_index, o->adopt);
	if (o->socket_priority > 0) {
		/* Every packet socket of ours: the event socket (0x88f7) and the general one (0).
		 */
		for (int fd = 0; fd < 64; fd++) {
			struct sockaddr_ll sll = { 0 };
			socklen_t len = sizeof(sll);
			int prio = -1;

			if (getsockname(fd, (struct sockaddr *) &sll, &len) < 0 ||
			    sll.sll_family != AF_PACKET) {
				continue;
			}
			len = sizeof(prio);
			(void) getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, &len);
			printf("%s: %s so_priority=%d\n", ifname,
			       fd == transport_fd(t) ? "event" : "general", prio);
		}
	}
	fflush(stdout);
	*ret = TAKE_PTR(t);
	return 0;
}

static int do_send(struct transport *t, long count, bool interleave)
{
	uint8_t m[44];
	long failed = 0;

	for (long i = 0; i < count; i++) {
		ns_t ts = 0;
		int r;

		build_msg(m, sizeof(m), 0x0 /* Sync */, (uint16_t) i);
		r = transport_send(t, m, sizeof(m), NULL, transport_is_event(m, sizeof(m)), &ts);
		if (r < 0) {
			printf("tx seq=%ld error=%s\n", i, strerror(-r));
			failed++;
			continue;
		}
		printf("tx seq=%ld ts=%" PRId64 "\n", i, ts);
		if (interleave) {
			build_msg(m, sizeof(m), 0x8 /* Follow_Up */, (uint16_t) i);
			r = transport_send(t, m, sizeof(m), NULL, transport_is_event(m, sizeof(m)),
					   NULL);
			if (r < 0) {
				printf("tx general seq=%ld error=%s\n", i, strerror(-r));
				failed++;
			}
		}
	}
	printf("tx done sent=%ld failed=%ld\n", count, failed);
	return failed ? 1 : 0;
}

static int wait_readable(int fd, ns_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ns_t left = deadline - now_mono();

	if (left <= 0) {
		return -ETIME;
	}
	if (poll(&pfd, 1, (int) (left / NS_PER_MSEC) + 1) < 0 && errno != EINTR) {
		return -errno;
	}
	return 0;
}

/* The kernel's count of frames it queued on the socket (read resets it), drops included. */
static unsigned socket_frames(struct transport *t)
{
	struct tpacket_stats st = { 0 };
	socklen_t sl = sizeof(st);

	(void) getsockopt(transport_fd(t), SOL_PACKET, PACKET_STATISTICS, &st, &sl);
	return st.tp_packets;
}

static int do_recv(struct transport *t, long count, long timeout_ms)
{
	ns_t deadline = now_mono() + timeout_ms * NS_PER_MSEC;
	long got = 0;

	while (got < count && !stop) {
		struct transport_rx_info info;
		uint8_t m[1500];
		int r = transport_recv(t, m, sizeof(m), &info);

		if (r == -EAGAIN) {
			if (wait_readable(transport_fd(t), deadline) == -ETIME) {
				break;
			}
			continue;
		}
		if (r < 44) {
			printf("rx error=%s\n", r < 0 ? strerror(-r) : "short");
			continue;
		}
		got++;
		printf("rx seq=%u type=%u src=%02x:%02x:%02x:%02x:%02x:%02x ts=%" PRId64 "\n",
		       (unsigned) (m[30] << 8 | m[31]), m[0] & 0x0fu, info.src[0], info.src[1],
		       info.src[2], info.src[3], info.src[4], info.src[5],
		       info.has_ts ? info.ts : (ns_t) -1);
	}
	printf("rx done got=%ld socket=%u\n", got, socket_frames(t));
	return got == count ? 0 : 1;
}

/*
 * Keep the port held and count: ptp = what the transport delivered, socket = what the kernel
 * queued on the socket. socket - ptp is what the transport itself had to drop.
 */
static int do_sink(struct transport *t)
{
	unsigned long ptp = 0, socket = 0;

	(void) socket_frames(t);
	printf("sink ready\n");
	while (!stop) {
		struct transport_rx_info info;
		uint8_t m[1500];
		int r;

		if (wait_readable(transport_fd(t), now_mono() + 200 * NS_PER_MSEC) < 0) {
			continue;
		}
		while ((r = transport_recv(t, m, sizeof(m), &info)) != -EAGAIN) {
			ptp += r >= 0;
		}
		socket += socket_frames(t);
		/* Progress, so a test can wait for what it sent instead of sleeping. */
		printf("sink ptp=%lu socket=%lu\n", ptp, socket);
	}
	socket += socket_frames(t);
	printf("sink done ptp=%lu socket=%lu\n", ptp, socket);
	return 0;
}

/*
 * Frames of another ethertype, through a socket of protocol 0 that receives nothing: the
 * traffic the PTP socket must never see, some of it to the PTP multicast addresses.
 */
static int do_raw(const char *ifname, const char *ethertype, const char *dst, long count)
{
	static const uint8_t macs[][6] = {
		{ 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 },
		{ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = 0 };
	unsigned long type = strtoul(ethertype, NULL, 0);
	_cleanup_close_ int fd = -1;
	uint8_t f[60] = { 0 };
	int which = strcmp(dst, "ptp") == 0 ? 0 : strcmp(dst, "pdelay") == 0 ? 1 : 2;

	sll.sll_ifindex = (int) if_nametoindex(ifname);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0 || sll.sll_ifindex == 0 || bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
		perror("raw socket");
		return 1;
	}
	memcpy(f, macs[which], 6);
	memset(f + 6, 0x02, 6);
	f[12] = (uint8_t) (type >> 8);
	f[13] = (uint8_t) type;
	f[14] = 0x00; /* looks like a Sync if anyone took it for PTP */
	f[15] = 0x02;
	if (type == 0x8100) {
		/* VLAN 2 carrying PTP: not this untagged port's traffic. */
		f[16] = 0x88;
		f[17] = 0xf7;
		f[18] = 0x00;
		f[19] = 0x02;
	}
	for (long i = 0; i < count; i++) {
		if (send(fd, f, sizeof(f), 0) != (ssize_t) sizeof(f)) {
			perror("raw send");
			return 1;
		}
	}
	printf("raw sent=%ld ethertype=0x%04lx dst=%s\n", count, type, dst);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ts", required_argument, NULL, 't' },
		{ "adopt", no_argument, NULL, 'a' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "interleave-general", no_argument, NULL, 'g' },
		{ "tx-timeout-ms", required_argument, NULL, 'x' },
		{ "fake-hw", no_argument, NULL, 'f' },
		{ "socket-priority", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct tool_opts o = { .req = OPTIONS_TS_SOFTWARE };
	_cleanup_transport_ struct transport *t = NULL;
	bool interleave = false;
	long timeout_ms = 5000, count = 0;
	const char *mode, *ifname;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
		switch (c) {
		case 't':
			if (options_timestamping_from_string(optarg, &o.req) < 0) {
				fprintf(stderr, "bad --ts %s\n", optarg);
				return 2;
			}
			break;
		case 'a':
			o.adopt = true;
			break;
		case 'x':
			o.tx_timeout = atol(optarg) * NS_PER_MSEC;
			break;
		case 'f':
			o.fake_hw = true;
			break;
		case 'p':
			o.socket_priority = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atol(optarg);
			break;
		case 'g':
			interleave = true;
			break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (argc - optind < 2) {
		fputs(usage, stderr);
		return 2;
	}
	mode = argv[optind];
	ifname = argv[optind + 1];
	if (strcmp(mode, "raw") == 0) {
		if (argc - optind != 5) {
			fputs(usage, stderr);
			return 2;
		}
		return do_raw(ifname, argv[optind + 2], argv[optind + 3], atol(argv[optind + 4]));
	}
	if (argc - optind >= 3) {
		count = atol(argv[optind + 2]);
	}
	/* Line-buffered, except recv: a write per frame would make it fall behind a burst. */
	setvbuf(stdout, NULL, strcmp(argv[optind], "recv") == 0 ? _IOFBF : _IOLBF, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	r = open_transport(ifname, &o, &t);
	if (r < 0) {
		return 1;
	}
	if (strcmp(mode, "send") == 0) {
		return do_send(t, count, interleave);
	}
	if (strcmp(mode, "recv") == 0) {
		/*
		 * The sender bursts faster than a test process is scheduled; a deep queue keeps
		 * the burst whole (a port's real traffic is a few frames a second).
		 */
		int sz = 8 << 20;

		(void) setsockopt(transport_fd(t), SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
		return do_recv(t, count, timeout_ms);
	}
	if (strcmp(mode, "sink") == 0) {
		return do_sink(t);
	}
	fputs(usage, stderr);
	return 2;
}
