// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Packet delay variation without netem (this machine's kernel has no sch_netem): a two-port L2
 * relay (AF_PACKET) that forwards every frame between IF1 and IF2 and holds each PTP event
 * message (ethertype 0x88F7, messageType 0-3: Sync, Delay_Req, Pdelay_Req, Pdelay_Resp) going
 * IF1 -> IF2 for a random time drawn from PROFILE:
 *   none     0
 *   uniform  uniform 0..100 us
 *   normal   100 us + normal(sd 20 us), cut at 0 (netem's "delay 100us 20us distribution normal")
 *   bursty   in the spirit of ITU-T G.8261's variable-load test cases (not one of them): two
 *            states, calm (10 us + exponential, mean 5 us) and congested (100 us + exponential,
 *            mean 100 us); each message enters congestion with probability 0.05 and leaves it
 *            with 0.2, so runs of long delays come in bursts of about five
 * The other frames from IF1 (Follow_Up, Announce...) are not delayed but keep their order behind
 * a held event message (as netem with a rate keeps a queue in order); IF2 -> IF1 passes at once.
 * The relay's own scheduling adds to the delay (microseconds; more on a loaded host), to every
 * profile alike. SIGTERM/SIGINT end it with a summary on stderr: frames held, mean and max delay
 * drawn, and the mean lateness of the PTP frames released against their due time.
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

enum profile {
	P_NONE,
	P_UNIFORM,
	P_NORMAL,
	P_BURSTY
};

struct held {
	int64_t due;
	size_t len;
	uint8_t frame[FRAME_MAX];
};

static struct held queue[QUEUE_MAX];
static unsigned q_head, q_len;
static uint64_t rng = 0x2545f4914f6cdd1dULL;
static volatile sig_atomic_t stop;
static bool congested;

static void on_signal(int sig)
{
	(void) sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));

	if (fd < 0) {
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

int main(int argc, char **argv)
{
	uint64_t held = 0, released = 0;
	double sum = 0, late_sum = 0;
	int64_t max = 0, last_due = 0;
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
		int64_t t = now_ns();

		/* release what is due, in order */
		while (q_len && queue[q_head].due <= t) {
			struct held *h = &queue[q_head];

			late_sum += (double) (t - h->due);
			released++;
			(void) send(fd[1], h->frame, h->len, 0);
			q_head = (q_head + 1) % QUEUE_MAX;
			q_len--;
			t = now_ns();
		}
		if (q_len) {
			int64_t w = queue[q_head].due - t;

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
			uint8_t frame[FRAME_MAX];
			struct sockaddr_ll from;
			socklen_t fl = sizeof(from);
			ssize_t n;

			if (!(pfd[i].revents & POLLIN)) {
				continue;
			}
			n = recvfrom(fd[i], frame, sizeof(frame), MSG_DONTWAIT,
				     (struct sockaddr *) &from, &fl);
			if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING) {
				continue;
			}
			t = now_ns();
			if (i == 0 && n > 14 && frame[12] == 0x88 && frame[13] == 0xf7) {
				int64_t d = (frame[14] & 0x0f) <= 3 ? draw(prof) : 0, due = t + d;
				struct held *h;

				if (due < last_due) {
					due = last_due; /* keep the order */
				}
				if (q_len == QUEUE_MAX) {
					continue; /* a full queue drops, as a full switch does */
				}
				if (d > 0) {
					held++;
					sum += (double) d;
					max = d > max ? d : max;
				}
				h = &queue[(q_head + q_len) % QUEUE_MAX];
				h->due = last_due = due;
				h->len = (size_t) n;
				memcpy(h->frame, frame, (size_t) n);
				q_len++;
				continue;
			}
			(void) send(fd[1 - i], frame, (size_t) n, 0);
		}
	}
	fprintf(stderr,
		"tool-jitter-relay: %s: %llu event messages held, mean %.1f us, max %.1f us; "
		"released %.1f us late on average\n",
		argv[3], (unsigned long long) held, held ? sum / (double) held / 1e3 : 0.0,
		(double) max / 1e3, released ? late_sum / (double) released / 1e3 : 0.0);
	return 0;
}
