// SPDX-License-Identifier: GPL-2.0-or-later
/* Bench tool: send 64-byte UDP datagrams and report the sending thread's CPU time per packet. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define DESTS_MAX 8

static long long ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Send count datagrams on the connected socket fd; 0, or -1 with errno. */
static int send_count(int fd, struct mmsghdr *msgs, long count)
{
	long sent = 0;

	while (sent < count) {
		int n = sendmmsg(fd, msgs, count - sent < BATCH ? (int) (count - sent) : BATCH, 0);

		/* ECONNREFUSED: the peer's ICMP port unreachable, reported on the next send. */
		if (n < 0 && errno != ECONNREFUSED && errno != ENOBUFS && errno != EAGAIN) {
			return -1;
		}
		sent += n > 0 ? n : 0;
	}
	return 0;
}

/*
 * Over a veth pair the receive path (including every packet tap of the peer's interface) runs
 * in softirq on the sending CPU, and without IRQ time accounting it is charged to the sending
 * thread. So CPU time per packet measures what a tap costs each packet, and other load on
 * the machine, which slows the wall clock, changes it far less.
 *
 * With several destinations (one veth pair each, a different holder on each peer), the tool
 * sends CHUNK packets to each in turn, ROUNDS times, and charges each chunk's CPU time to its
 * destination: the holders are compared within milliseconds of each other, so drift of the
 * machine's load falls on all of them alike. It prints one line per destination, and the
 * per-round ratios' mean and standard deviation against the first destination.
 */
int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	char payload[64] = { 0 };
	int fd[DESTS_MAX];
	long long cpu[DESTS_MAX] = { 0 };
	double rs[DESTS_MAX] = { 0 }, rss[DESTS_MAX] = { 0 };
	long long wall0, wall;
	long count, chunk, rounds;
	char *list, *tok, *save = NULL;
	int ndst = 0;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: tool-udpcost DST_IPV4[,DST_IPV4...] COUNT [CHUNK]\n");
		return 2;
	}
	count = atol(argv[2]);
	chunk = argc == 4 ? atol(argv[3]) : count;
	if (count < 1 || chunk < 1 || chunk > count) {
		fprintf(stderr, "tool-udpcost: COUNT and CHUNK: 1 <= CHUNK <= COUNT\n");
		return 2;
	}
	rounds = count / chunk;
	list = strdup(argv[1]);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (ndst == DESTS_MAX || inet_pton(AF_INET, tok, &dst.sin_addr) != 1) {
			fprintf(stderr, "tool-udpcost: '%s': at most %d IPv4 addresses\n", tok,
				DESTS_MAX);
			return 2;
		}
		fd[ndst] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd[ndst] < 0 || connect(fd[ndst], (struct sockaddr *) &dst, sizeof(dst)) < 0) {
			perror("socket");
			return 1;
		}
		ndst++;
	}
	free(list);
	if (ndst == 0) {
		fprintf(stderr, "tool-udpcost: no destination\n");
		return 2;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload;
		iov[i].iov_len = sizeof(payload);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	wall0 = ns_of(CLOCK_MONOTONIC);
	for (long r = 0; r < rounds; r++) {
		long long c[DESTS_MAX];

		for (int d = 0; d < ndst; d++) {
			long long t0 = ns_of(CLOCK_THREAD_CPUTIME_ID);

			if (send_count(fd[d], msgs, chunk) < 0) {
				perror("sendmmsg");
				return 1;
			}
			c[d] = ns_of(CLOCK_THREAD_CPUTIME_ID) - t0;
			cpu[d] += c[d];
		}
		for (int d = 1; d < ndst; d++) {
			double q = c[d] > 0 ? (double) c[0] / (double) c[d] : 0;

			rs[d] += q;
			rss[d] += q * q;
		}
	}
	wall = ns_of(CLOCK_MONOTONIC) - wall0;
	for (int d = 0; d < ndst; d++) {
		double m = rs[d] / (double) rounds;
		double v = rounds > 1 ? (rss[d] - (double) rounds * m * m) / (double) (rounds - 1)
				      : 0;

		printf("dst=%d packets=%ld cpu_ns_per_packet=%.1f", d, rounds * chunk,
		       (double) cpu[d] / (double) (rounds * chunk));
		if (ndst > 1) {
			printf(" rate_vs_dst0=%.4f round_ratio_mean=%.4f round_ratio_sd=%.4f",
			       d ? (double) cpu[0] / (double) cpu[d] : 1.0, d ? m : 1.0,
			       d && v > 0 ? sqrt(v) : 0.0);
		}
		printf(" wall_pps=%.0f\n", (double) (rounds * chunk * ndst) * 1e9 / (double) wall);
		close(fd[d]);
	}
	return 0;
}
