// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Guest-side compensation for two bugs of QEMU's igb (82576) emulation, not for anything in
 * phcd: without it QEMU stamps one received PTP frame per NIC after boot, and only Sync.
 *
 * (a) QEMU releases the RX timestamp latch (TSYNCRXCTL.VALID) only when RXSATRH is read; Linux's
 *     igb reads RXSTMPL/RXSTMPH. Here: the latch is released (RXSATRH read) as soon as the
 *     frame it stamped reaches a packet socket of ours with its hardware timestamp, which is
 *     after the driver read it, never before; a latch held HOLD_MS with no such frame seen is
 *     released too. Frames that came while a latch was held arrive without a stamp: counted.
 * (b) QEMU ignores TSYNCRXCTL.Type and stamps only frames whose first PTP byte equals
 *     TSYNCRXCFG[15:8] (Linux writes 0 there: Sync). Here: each NIC gets the message type it must
 *     stamp (0 Sync on a slave's NIC, 1 Delay_Req on a master's), written again whenever the
 *     driver resets it (SIOCSHWTSTAMP, link changes).
 *
 * Usage: tool-vm-igb quirks IFNAME=TYPE... (until SIGTERM; prints the latches it released).
 * BAR0 is mapped through /sys/class/net/IFNAME/device/resource0 (guest kernel: iomem=relaxed).
 *
 * And: tool-vm-igb rate /dev/ptpA /dev/ptpB SECONDS prints A's rate against B in ppb (all
 * emulated PHCs tick from one QEMU clock: this is the error imposed on A, quantized by the 82576
 * to steps of 2^-23).
 *
 * And: tool-vm-igb track /dev/ptpS /dev/ptpG SECONDS [OFFSET_S] reads S - G 8 times a second
 * for SECONDS and prints "track SECONDS RATE_PPB D0 D1 MIN MAX N MEANABS MEDABS P99ABS SLOPE_PPB
 * P95ABS MAXABS": S's rate against G from the first and last reads ((D1 - D0) over G's elapsed
 * time), the first and last S - G, its extremes, the mean, median and p99 of |S - G| (ns), S - G's
 * least-squares slope, then the p95 and the largest |S - G|. With S a steered PHC and G its
 * grandmaster's in the same guest this is the clock itself, not a servo's log: what the
 * closed-loop tier judges. S may be CLOCK_REALTIME, the guest's system clock, and OFFSET_S is
 * added to every read of S: CLOCK_REALTIME + 37 - G is the system clock's error against a
 * grandmaster that keeps the PTP timescale (TAI, 37 s ahead of UTC).
 *
 * And: tool-vm-igb kernel on|off sets the guest kernel's sync state, as chronyd would (the
 * closed-loop tier's T: what phcd's time_source = system reads; see cmd_kernel).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <unistd.h>

#define REG_TSYNCRXCTL 0xB620
#define REG_RXSTMPL 0xB624
#define REG_RXSATRH 0xB630
#define REG_TSYNCRXCFG 0x5F50
#define TSYNCRXCTL_VALID 0x1u
#define MAP_LEN 0x10000
#define POLL_MS 5
#define HOLD_MS 200
#define MAX_NICS 8
#define FD_TO_CLOCKID(fd) ((clockid_t) ((~(unsigned int) (fd) << 3) | 3))

struct nic {
	const char *name;
	uint8_t type;
	volatile uint32_t *bar;
	int sock;	     /* ETH_P_1588 frames as received, to release the latch behind them */
	uint64_t held_since; /* ms, 0: not latched */
	uint32_t held_stamp;
	unsigned long frames, unstamped, released, released_late, rewritten;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint32_t rd(struct nic *n, uint32_t reg)
{
	return n->bar[reg / 4];
}

static void wr(struct nic *n, uint32_t reg, uint32_t v)
{
	n->bar[reg / 4] = v;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static int map_nic(struct nic *n)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_1588) };
	int tsflags = SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
	char path[128];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/resource0", n->name);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		fprintf(stderr, "tool-vm-igb: %s: %s\n", path, strerror(errno));
		return -1;
	}
	p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "tool-vm-igb: mmap %s: %s (boot with iomem=relaxed)\n", path,
			strerror(errno));
		return -1;
	}
	n->bar = p;
	n->sock = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_1588));
	if (n->sock < 0) {
		fprintf(stderr, "tool-vm-igb: socket: %s\n", strerror(errno));
		return -1;
	}
	/* The hardware stamp each frame came with (hardware timestamping is on: phcd, ptp4l). */
	if (setsockopt(n->sock, SOL_SOCKET, SO_TIMESTAMPING, &tsflags, sizeof(tsflags)) < 0) {
		fprintf(stderr, "tool-vm-igb: SO_TIMESTAMPING: %s\n", strerror(errno));
		return -1;
	}
	sll.sll_ifindex = (int) if_nametoindex(n->name);
	if (bind(n->sock, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
		fprintf(stderr, "tool-vm-igb: bind %s: %s\n", n->name, strerror(errno));
		return -1;
	}
	return 0;
}

/* Frames in from the wire (not our own outgoing) of the type this NIC stamps: release. */
static void drain_nic(struct nic *n)
{
	uint8_t buf[256], control[256];
	struct sockaddr_ll from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_name = &from,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t len;

	for (;;) {
		bool stamped = false;

		msg.msg_namelen = sizeof(from);
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		len = recvmsg(n->sock, &msg, 0);
		if (len <= 0) {
			return;
		}
		if (from.sll_pkttype == PACKET_OUTGOING || len <= ETH_HLEN ||
		    buf[ETH_HLEN] != n->type) {
			continue;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			struct scm_timestamping ts;

			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING &&
			    c->cmsg_len >= CMSG_LEN(sizeof(ts))) {
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				stamped = ts.ts[2].tv_sec || ts.ts[2].tv_nsec;
			}
		}
		/*
		 * With its hardware stamp: the driver has read the latch, which is this frame's
		 * (no later frame can take it while held): release it. Without: it came while
		 * the latch was held (bug (a)'s cost), and a latch held now is a later frame's,
		 * not read yet: leave it.
		 */
		n->frames++;
		if (!stamped) {
			n->unstamped++;
		} else if (rd(n, REG_TSYNCRXCTL) & TSYNCRXCTL_VALID) {
			(void) rd(n, REG_RXSATRH);
			n->released++;
			n->held_since = 0;
		}
	}
}

static void poll_nic(struct nic *n, uint64_t now)
{
	uint32_t cfg = rd(n, REG_TSYNCRXCFG);
	uint32_t want = (cfg & ~0xff00u) | ((uint32_t) n->type << 8);

	if (cfg != want) {
		wr(n, REG_TSYNCRXCFG, want);
		n->rewritten++;
	}
	if (!(rd(n, REG_TSYNCRXCTL) & TSYNCRXCTL_VALID)) {
		n->held_since = 0;
		return;
	}
	/* RXSTMPL has no side effect: the same stamp still held means the same latch. */
	if (!n->held_since || rd(n, REG_RXSTMPL) != n->held_stamp) {
		n->held_since = now;
		n->held_stamp = rd(n, REG_RXSTMPL);
		return;
	}
	if (now - n->held_since >= HOLD_MS) {
		(void) rd(n, REG_RXSATRH);
		n->released_late++;
		n->held_since = 0;
	}
}

static int64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * B read between two reads of A, A taken at the middle, best of PAIR_TRIES: the narrowest
 * window (a TCG vCPU may be descheduled between reads) has the smallest error, half its width.
 */
#define PAIR_TRIES 20
static void read_pair(clockid_t a, clockid_t b, int64_t *ra, int64_t *rb)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < PAIR_TRIES; i++) {
		int64_t a0 = read_ns(a), bb = read_ns(b), a1 = read_ns(a);

		if (a1 - a0 < best) {
			best = a1 - a0;
			*ra = a0 + (a1 - a0) / 2;
			*rb = bb;
		}
	}
}

static int cmd_rate(const char *pa, const char *pb, int seconds)
{
	int fa = open(pa, O_RDONLY), fb = open(pb, O_RDONLY);
	int64_t a0, b0, a1, b1;

	if (fa < 0 || fb < 0 || seconds <= 0) {
		fprintf(stderr, "tool-vm-igb: rate: cannot open %s or %s\n", pa, pb);
		return 1;
	}
	read_pair(FD_TO_CLOCKID(fa), FD_TO_CLOCKID(fb), &a0, &b0);
	sleep((unsigned int) seconds);
	read_pair(FD_TO_CLOCKID(fa), FD_TO_CLOCKID(fb), &a1, &b1);
	printf("rate %.1f ppb\n", ((double) (a1 - a0) / (double) (b1 - b0) - 1.0) * 1e9);
	close(fa);
	close(fb);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

#define TRACK_HZ 8
static int cmd_track(const char *ps, const char *pg, int seconds, int64_t offset_s)
{
	bool realtime = !strcmp(ps, "CLOCK_REALTIME");
	int fs = realtime ? -1 : open(ps, O_RDONLY), fg = open(pg, O_RDONLY);
	clockid_t cs = realtime ? CLOCK_REALTIME : FD_TO_CLOCKID(fs);
	int64_t s0 = 0, g0 = 0, s1 = 0, g1 = 0, d, dmin = INT64_MAX, dmax = INT64_MIN, *abs_d;
	int n = 0, count = seconds * TRACK_HZ + 1;
	double sum_abs = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, x, slope;

	if ((!realtime && fs < 0) || fg < 0 || seconds <= 0 || offset_s < -86400 ||
	    offset_s > 86400) {
		fprintf(stderr, "tool-vm-igb: track: cannot open %s or %s, or a bad window\n", ps,
			pg);
		return 1;
	}
	abs_d = calloc((size_t) count, sizeof(*abs_d));
	if (!abs_d) {
		return 1;
	}
	for (int i = 0; i < count; i++) {
		if (i > 0) {
			usleep(1000000 / TRACK_HZ);
		}
		read_pair(cs, FD_TO_CLOCKID(fg), &s1, &g1);
		s1 += offset_s * 1000000000;
		if (i == 0) {
			s0 = s1;
			g0 = g1;
		}
		d = s1 - g1;
		dmin = d < dmin ? d : dmin;
		dmax = d > dmax ? d : dmax;
		abs_d[n] = d < 0 ? -d : d;
		sum_abs += (double) abs_d[n];
		x = (double) (g1 - g0) / 1e9;
		sx += x;
		sy += (double) d;
		sxx += x * x;
		sxy += x * (double) d;
		n++;
	}
	qsort(abs_d, (size_t) n, sizeof(*abs_d), cmp_i64);
	slope = (sxy - sx * sy / n) / (sxx - sx * sx / n);
	printf("track %d %.1f %lld %lld %lld %lld %d %.0f %lld %lld %.1f %lld %lld\n", seconds,
	       (double) ((s1 - g1) - (s0 - g0)) / (double) (g1 - g0) * 1e9, (long long) (s0 - g0),
	       (long long) (s1 - g1), (long long) dmin, (long long) dmax, n, sum_abs / n,
	       (long long) abs_d[(n - 1) / 2], (long long) abs_d[(n * 99 + 50) / 100 - 1], slope,
	       (long long) abs_d[(n * 95 + 50) / 100 - 1], (long long) abs_d[n - 1]);
	free(abs_d);
	if (fs >= 0) {
		close(fs);
	}
	close(fg);
	return 0;
}

/*
 * The guest kernel's sync state, as chronyd or ntpd leave it (what phcd's time_source = system
 * reads): "on" clears STA_UNSYNC, sets maxerror 1000 us, esterror 100 us and the TAI offset 37 s;
 * "off" sets STA_UNSYNC. Prints the state read back: "kernel STATUS MAXERROR_US TAI".
 */
static int cmd_kernel(bool on)
{
	struct timex tx = { 0 };

	if (adjtimex(&tx) < 0) {
		perror("tool-vm-igb: adjtimex");
		return 1;
	}
	tx.modes = ADJ_STATUS;
	tx.status = on ? tx.status & ~STA_UNSYNC : tx.status | STA_UNSYNC;
	if (on) {
		tx.modes |= ADJ_MAXERROR | ADJ_ESTERROR | ADJ_TAI;
		tx.maxerror = 1000;
		tx.esterror = 100;
		tx.constant = 37;
	}
	if (adjtimex(&tx) < 0) {
		perror("tool-vm-igb: adjtimex");
		return 1;
	}
	tx = (struct timex){ 0 };
	if (adjtimex(&tx) < 0) {
		perror("tool-vm-igb: adjtimex");
		return 1;
	}
	printf("kernel 0x%x %ld %d\n", (unsigned) tx.status, tx.maxerror, tx.tai);
	return 0;
}

static int cmd_quirks(int argc, char **argv)
{
	struct nic nics[MAX_NICS] = { 0 };
	int count = 0;

	for (int i = 0; i < argc && count < MAX_NICS; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "usage: tool-vm-igb quirks IFNAME=TYPE...\n");
			return 2;
		}
		*eq = '\0';
		nics[count].name = argv[i];
		nics[count].type = (uint8_t) strtoul(eq + 1, NULL, 0);
		if (map_nic(&nics[count]) < 0) {
			return 1;
		}
		count++;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (!stop) {
		struct pollfd pfd[MAX_NICS];
		uint64_t now;

		for (int i = 0; i < count; i++) {
			pfd[i] = (struct pollfd){ .fd = nics[i].sock, .events = POLLIN };
		}
		(void) poll(pfd, (nfds_t) count, POLL_MS);
		now = now_ms();
		for (int i = 0; i < count; i++) {
			drain_nic(&nics[i]);
			poll_nic(&nics[i], now);
		}
	}
	for (int i = 0; i < count; i++) {
		printf("quirks: %s: type %u, %lu frames, %lu left unstamped by QEMU, %lu latches "
		       "released after their frame, %lu after %d ms without one, TSYNCRXCFG "
		       "rewritten %lu times\n",
		       nics[i].name, nics[i].type, nics[i].frames, nics[i].unstamped,
		       nics[i].released, nics[i].released_late, HOLD_MS, nics[i].rewritten);
		printf("QUIRKS %s %lu %lu\n", nics[i].name, nics[i].frames, nics[i].unstamped);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "quirks")) {
		return cmd_quirks(argc - 2, argv + 2);
	}
	if (argc == 5 && !strcmp(argv[1], "rate")) {
		return cmd_rate(argv[2], argv[3], atoi(argv[4]));
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "track")) {
		return cmd_track(argv[2], argv[3], atoi(argv[4]), argc == 6 ? atoll(argv[5]) : 0);
	}
	if (argc == 3 && !strcmp(argv[1], "kernel") &&
	    (!strcmp(argv[2], "on") || !strcmp(argv[2], "off"))) {
		return cmd_kernel(!strcmp(argv[2], "on"));
	}
	fprintf(stderr,
		"usage: tool-vm-igb quirks IFNAME=TYPE...\n"
		"       tool-vm-igb rate /dev/ptpA /dev/ptpB SECONDS\n"
		"       tool-vm-igb track /dev/ptpS|CLOCK_REALTIME /dev/ptpG SECONDS [OFFSET_S]\n"
		"       tool-vm-igb kernel on|off\n");
	return 2;
}
