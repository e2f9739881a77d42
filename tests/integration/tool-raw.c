// SPDX-License-Identifier: GPL-2.0-or-later
/* Raw PTP frames for the test tools: see tool-raw.h. */
#include "tool-raw.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const uint8_t raw_ptp_mac[6] = { 0x01, 0x1B, 0x19, 0x00, 0x00, 0x00 };
const uint8_t raw_pdelay_mac[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E };

int raw_open(const char *prog, const char *ifname, struct raw_sock *ret)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_1588) };
	socklen_t len = sizeof(sll);
	int r;

	ret->ifindex = (int) if_nametoindex(ifname);
	if (!ret->ifindex) {
		fprintf(stderr, "%s: %s: no such interface\n", prog, ifname);
		return -ENODEV;
	}
	ret->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_1588));
	if (ret->fd < 0) {
		r = -errno;
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(-r));
		return r;
	}
	sll.sll_ifindex = ret->ifindex;
	if (bind(ret->fd, (struct sockaddr *) &sll, sizeof(sll)) < 0 ||
	    getsockname(ret->fd, (struct sockaddr *) &sll, &len) < 0) {
		r = -errno;
		fprintf(stderr, "%s: bind %s: %s\n", prog, ifname, strerror(-r));
		close(ret->fd);
		return r;
	}
	memcpy(ret->mac, sll.sll_addr, 6);
	return 0;
}

int raw_send(const struct raw_sock *s, uint8_t *frame, size_t len, const uint8_t dst[6],
	     const uint8_t src[6])
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_1588),
				  .sll_ifindex = s->ifindex,
				  .sll_halen = 6 };

	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	frame[12] = ETH_P_1588 >> 8;
	frame[13] = ETH_P_1588 & 0xFF;
	memcpy(to.sll_addr, dst, 6);
	if (sendto(s->fd, frame, RAW_HDR_LEN + len, 0, (struct sockaddr *) &to, sizeof(to)) < 0) {
		return -errno;
	}
	return 0;
}

int raw_parse_clock_id(const char *s, struct ClockIdentity *ret)
{
	if (strlen(s) < 16) {
		return -EINVAL;
	}
	for (int i = 0; i < 8; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			return -EINVAL;
		}
		ret->id[i] = (uint8_t) v;
	}
	return 0;
}

int raw_parse_port_id(const char *s, struct PortIdentity *ret)
{
	const char *colon = strchr(s, ':');

	if (!colon || raw_parse_clock_id(s, &ret->clockIdentity) < 0) {
		return -EINVAL;
	}
	ret->portNumber = (uint16_t) strtoul(colon + 1, NULL, 10);
	return 0;
}
