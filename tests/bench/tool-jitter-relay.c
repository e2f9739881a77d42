// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Packet delay variation without netem (this machine's kernel has no sch_netem): a two-port L2
 * relay (AF_PACKET) that forwards every frame between IF1 and IF2 and holds each PTP event
 * message (ethertype 0x88F7, messageType 0-3: Sync, Delay_Req, Pdelay_Req, Pdelay_Resp), both
 * ways, until BASE (2 ms) plus a random time drawn from PROFILE after the kernel received it
 * (SO_TIMESTAMPNS), each direction drawing its own:
 *   none     0
 *   uniform  uniform 0..100 us
 *   normal   100 us + normal(sd 20 us), cut at 0 (netem's "delay 100us 20us distribution normal")
 *   bursty   in the spirit of ITU-T G.8261's variable-load test cases (not one of them): two
 *            states, calm (10 us + exponential, mean 5 us) and congested (100 us + exponential,
 *            mean 100 us); each message enters congestion with probability 0.05 and leaves it
 *            with 0.2, so runs of long delays come in bursts of about five
 * BASE is the same both ways, so it adds no asymmetry (no offset), and it absorbs the relay's own
 * wakeup latency on a loaded host, which would otherwise be jitter of its own: only a release
 * later than its due time adds any (the summary says how often and by how much). The other frames
 * (Follow_Up, Announce...) are not held but keep their order behind a held event message (as
 * netem with a rate keeps its queue in order). SIGTERM/SIGINT end it with a summary on stderr:
 * event messages held, mean and max delay drawn, releases late and their mean lateness. It waits
 * for the last 250 us before a release without sleeping (a timer wakes up over 100 us late on a
 * loaded VM): about 0.5% of a CPU at the benches' rates; run it at real-time priority.
 * Usage: tool-jitter-relay IF1 IF2 PROFILE [SEED]  (in the namespace holding both, as root)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QUEUE_MAX 512
#define FRAME_MAX 2048
#define BASE_NS 2000000
#define LATE_NS 5000 /* a release this late counts as late */
#define SPIN_NS 250000

enum profile {
	P_NONE,
	P_UNIFORM,
	P_NORMAL,
	P_BURSTY
};

struct held {
	int64_t due;
	bool event;
	size_t len;
	uint8_t frame[FRAME_MAX];
};

/* one queue per direction: [0] IF1 -> IF2, [1] IF2 -> IF1 */
static struct queue {
	struct held h[QUEUE_MAX];
	unsigned head, len;
	int64_t last_due;
	uint64_t released, late;
	double late_sum;
} q[2];
static uint64_t rng = 0x2545f4914f6cdd1dULL;
static volatile sig_atomic_t stop;
static bool congested;

static void on_signal(int sig)
{
	(void) sig;
	stop = 1;
}

/* CLOCK_REALTIME: the clock of SO_TIMESTAMPNS (nobody steers it during a bench) */
static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double uniform01(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double) ((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static double exponential(double mean)
{
	return -mean * log(1.0 - uniform01());
}

static double normal(void)
{
	double u = uniform01(), v = uniform01();

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* The delay of one event message, ns. */
static int64_t draw(enum profile p)
{
	double d = 0;

	switch (p) {
	case P_NONE:
		break;
	case P_UNIFORM:
		d = uniform01() * 100e3;
		break;
	case P_NORMAL:
		d = fmax(0.0, 100e3 + 20e3 * normal());
		break;
	case P_BURSTY:
		if (congested ? uniform01() < 0.2 : uniform01() < 0.05) {
			congested = !congested;
		}
		d = congested ? 100e3 + exponential(100e3) : 10e3 + exponential(5e3);
		break;
	}
	return (int64_t) llround(d);
}

static int open_if(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
		perror("socket");
		exit(1);
	}
	sll.sll_ifindex = (int) if_nametoindex(name);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
		fprintf(stderr, "tool-jitter-relay: %s: %s\n", name, strerror(errno));
		exit(1);
	}
	return fd;
}

/* Send what is due from queue d (to fd out), in order; the time to wait for the next, or -1. */
static int64_t release(int d, int out)
{
	struct queue *k = &q[d];
	int64_t t = now_ns();

	while (k->len && k->h[k->head].due <= t) {
		struct held *h = &k->h[k->head];

		if (h->event) {
			if (t - h->due > LATE_NS) {
				k->late++;
				k->late_sum += (double) (t - h->due);
			}
			k->released++;
		}
		(void) send(out, h->frame, h->len, 0);
		k->head = (k->head + 1) % QUEUE_MAX;
		k->len--;
		t = now_ns();
	}
	return k->len ? k->h[k->head].due - t : -1;
}

int main(int argc, char **argv)
{
	uint64_t held = 0;
	double sum = 0;
	int64_t max = 0;
	enum profile prof;
	int fd[2];

	if (argc < 4) {
		fprintf(stderr,
			"usage: tool-jitter-relay IF1 IF2 none|uniform|normal|bursty [SEED]\n");
		return 2;
	}
	if (!strcmp(argv[3], "none")) {
		prof = P_NONE;
	} else if (!strcmp(argv[3], "uniform")) {
		prof = P_UNIFORM;
	} else if (!strcmp(argv[3], "normal")) {
		prof = P_NORMAL;
	} else if (!strcmp(argv[3], "bursty")) {
		prof = P_BURSTY;
	} else {
		fprintf(stderr, "tool-jitter-relay: unknown profile %s\n", argv[3]);
		return 2;
	}
	if (argc > 4) {
		rng ^= strtoull(argv[4], NULL, 0) * 0x9e3779b97f4a7c15ULL;
		if (!rng) {
			rng = 1;
		}
	}
	/* wake up on time: the default 50 us of timer slack would be jitter of our own */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fd[0] = open_if(argv[1]);
	fd[1] = open_if(argv[2]);

	while (!stop) {
		struct pollfd pfd[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
		struct timespec ts, *tp = NULL;
		int64_t w0 = release(0, fd[1]), w1 = release(1, fd[0]), w;

		w = w0 < 0 ? w1 : w1 < 0 ? w0 : w0 < w1 ? w0 : w1;
		/*
		 * A timer wakes up late on a loaded VM (by about 130 us here, even at real-time
		 * priority): sleep until SPIN_NS before the release, then poll without sleeping.
		 */
		if (w >= 0) {
			w = w > SPIN_NS ? w - SPIN_NS : 0;
			ts.tv_sec = w / 1000000000;
			ts.tv_nsec = w % 1000000000;
			tp = &ts;
		}
		if (ppoll(pfd, 2, tp, NULL) < 0) {
			if (errno == EINTR) {
				continue;
			}
			perror("ppoll");
			return 1;
		}
		for (int i = 0; i < 2; i++) {
			uint8_t frame[FRAME_MAX], ctl[CMSG_SPACE(sizeof(struct timespec))];
			struct sockaddr_ll from;
			struct iovec iov = { frame, sizeof(frame) };
			struct msghdr mh = { .msg_name = &from,
					     .msg_namelen = sizeof(from),
					     .msg_iov = &iov,
					     .msg_iovlen = 1,
					     .msg_control = ctl,
					     .msg_controllen = sizeof(ctl) };
			struct queue *k = &q[i];
			struct cmsghdr *cm;
			int64_t rx, d, due;
			struct held *h;
			ssize_t n;

			if (!(pfd[i].revents & POLLIN)) {
				continue;
			}
			n = recvmsg(fd[i], &mh, MSG_DONTWAIT);
			if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING) {
				continue;
			}
			if (n <= 14 || frame[12] != 0x88 || frame[13] != 0xf7) {
				(void) send(fd[1 - i], frame, (size_t) n, 0);
				continue;
			}
			rx = now_ns();
			for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
				if (cm->cmsg_level == SOL_SOCKET &&
				    cm->cmsg_type == SCM_TIMESTAMPNS) {
					memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
					rx = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
				}
			}
			if (k->len == QUEUE_MAX) {
				continue; /* a full queue drops, as a full switch does */
			}
			d = 0;
			h = &k->h[(k->head + k->len) % QUEUE_MAX];
			h->event = (frame[14] & 0x0f) <= 3;
			if (h->event) {
				d = draw(prof);
				held++;
				sum += (double) d;
				max = d > max ? d : max;
				d += BASE_NS;
			}
			due = rx + d;
			if (due < k->last_due) {
				due = k->last_due; /* keep the order */
			}
			h->due = k->last_due = due;
			h->len = (size_t) n;
			memcpy(h->frame, frame, (size_t) n);
			k->len++;
		}
	}
	fprintf(stderr,
		"tool-jitter-relay: %s: %llu event messages held, drawn mean %.1f us, max %.1f us "
		"(+ %d us both ways); late by > %d us: %llu of %llu event messages, by %.1f us on "
		"average\n",
		argv[3], (unsigned long long) held, held ? sum / (double) held / 1e3 : 0.0,
		(double) max / 1e3, BASE_NS / 1000, LATE_NS / 1000,
		(unsigned long long) (q[0].late + q[1].late),
		(unsigned long long) (q[0].released + q[1].released),
		q[0].late + q[1].late
			? (q[0].late_sum + q[1].late_sum) / (double) (q[0].late + q[1].late) / 1e3
			: 0.0);
	return 0;
}
