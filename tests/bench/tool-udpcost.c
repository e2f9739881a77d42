// SPDX-License-Identifier: GPL-2.0-or-later
/* Bench tool: send 64-byte UDP datagrams and report the sending thread's CPU time per packet. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static long long ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Over a veth pair the receive path (including every packet tap of the peer's interface) runs
 * in softirq on the sending CPU, and without IRQ time accounting it is charged to the sending
 * thread. So CPU time per packet measures what a tap costs each packet, and other load on
 * the machine, which slows the wall clock, changes it far less.
 */
int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	char payload[64] = { 0 };
	long long cpu0, wall0, cpu, wall;
	long count, sent = 0;
	int fd;

	if (argc != 3 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: tool-udpcost DST_IPV4 COUNT\n");
		return 2;
	}
	count = atol(argv[2]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *) &dst, sizeof(dst)) < 0) {
		perror("socket");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload;
		iov[i].iov_len = sizeof(payload);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	cpu0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	wall0 = ns_of(CLOCK_MONOTONIC);
	while (sent < count) {
		int n = sendmmsg(fd, msgs, BATCH, 0);

		/* ECONNREFUSED: the peer's ICMP port unreachable, reported on the next send. */
		if (n < 0 && errno != ECONNREFUSED && errno != ENOBUFS && errno != EAGAIN) {
			perror("sendmmsg");
			return 1;
		}
		sent += n > 0 ? n : 0;
	}
	cpu = ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	wall = ns_of(CLOCK_MONOTONIC) - wall0;
	printf("packets=%ld cpu_ns_per_packet=%.1f wall_pps=%.0f\n", sent, (double) cpu / sent,
	       sent * 1e9 / wall);
	close(fd);
	return 0;
}
