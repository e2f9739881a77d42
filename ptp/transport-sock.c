// SPDX-License-Identifier: GPL-2.0-or-later
/* What every transport does to its sockets alike: timestamping set-up, its read-back, TX waits. */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "ptp/hwtstamp.h"
#include "ptp/transport-sock.h"

#define TS_FLAGS_SW                                                                           \
	(SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | \
	 SOF_TIMESTAMPING_OPT_TSONLY | SOF_TIMESTAMPING_TX_SOFTWARE)
#define TS_FLAGS_HW                                                                               \
	(SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_ID | \
	 SOF_TIMESTAMPING_OPT_TSONLY | SOF_TIMESTAMPING_TX_HARDWARE)

static ns_t now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int transport_sock_ts_flags(enum transport_ts_mode mode)
{
	return mode == TRANSPORT_TS_MODE_HARDWARE ? TS_FLAGS_HW : TS_FLAGS_SW;
}

int transport_sock_rx_ts_flags(enum transport_ts_mode mode)
{
	return transport_sock_ts_flags(mode) &
	       ~(SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY |
		 SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_HARDWARE);
}

int transport_sock_set_ts_flags(int fd, int flags)
{
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) < 0) {
		return -errno;
	}
	return 0;
}

void transport_sock_timestamping(int fd, const char *ifname, enum options_timestamping req,
				 bool udp, struct transport_ts_status *st)
{
	bool want_hw = req == OPTIONS_TS_HARDWARE;
	uint32_t filters = 0;
	int r, filter;

	st->mode = TRANSPORT_TS_MODE_SOFTWARE;
	st->hw_error = 0;
	st->phc_index = -1;
	if (hwtstamp_get_info(fd, ifname, &st->phc_index, &filters) < 0) {
		st->phc_index = -1;
	}
	if (req == OPTIONS_TS_AUTO && st->phc_index >= 0) {
		want_hw = true;
	}
	if (!want_hw) {
		return;
	}
	/* From what the driver offers (ethtool TSINFO rx_filters), then read back. */
	filter = hwtstamp_choose_rx_filter(filters, udp);
	r = filter < 0 ? filter
		       : hwtstamp_enable(fd, ifname, filter, &st->hw_tx_type, &st->hw_rx_filter);
	if (r < 0) {
		st->hw_error = r;
		return;
	}
	st->mode = TRANSPORT_TS_MODE_HARDWARE;
}

int transport_sock_read_status(int fd, const char *ifname, struct transport_ts_status *ret)
{
	socklen_t len;
	int flags = 0;

	len = sizeof(flags);
	if (getsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &len) < 0) {
		return -errno;
	}
	ret->mode = (flags & SOF_TIMESTAMPING_RAW_HARDWARE) ? TRANSPORT_TS_MODE_HARDWARE
							    : TRANSPORT_TS_MODE_SOFTWARE;
	ret->hw_error = 0;
	ret->phc_index = -1;
	(void) hwtstamp_get_phc_index(fd, ifname, &ret->phc_index);
	if (ret->mode == TRANSPORT_TS_MODE_HARDWARE) {
		(void) hwtstamp_read(fd, ifname, &ret->hw_tx_type, &ret->hw_rx_filter);
	}
	return 0;
}

/* Drop whatever an earlier owner left on the error queue, so OPT_ID keys start afresh. */
static void drain_errqueue(int fd)
{
	char buf[64], ctrl[256];

	for (int i = 0; i < 1024; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = { .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = ctrl,
				      .msg_controllen = sizeof(ctrl) };

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			return;
		}
	}
}

int transport_sock_restart_keys(int fd, int flags)
{
	int r;

	drain_errqueue(fd);
	r = transport_sock_set_ts_flags(fd, 0);
	return r < 0 ? r : transport_sock_set_ts_flags(fd, flags);
}

int transport_sock_wait_tx_ts(int fd, bool hardware, uint32_t key, ns_t timeout, ns_t *ret)
{
	ns_t deadline = now_monotonic() + timeout;

	for (;;) {
		char buf[64], ctrl[512];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = { .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = ctrl,
				      .msg_controllen = sizeof(ctrl) };
		struct hwtstamp_cmsg c;

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			struct pollfd pfd = { .fd = fd, .events = 0 };
			ns_t left;

			if (errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
			left = deadline - now_monotonic();
			if (left <= 0) {
				return -ETIME;
			}
			/* An error queue entry shows as POLLERR, reported whatever events asks. */
			if (poll(&pfd, 1, (int) ((left + NS_PER_MSEC - 1) / NS_PER_MSEC)) < 0 &&
			    errno != EINTR) {
				return -errno;
			}
			continue;
		}
		hwtstamp_parse_cmsg(&msg, hardware, &c);
		if (!c.has_key || !c.has_ts) {
			continue;
		}
		if ((int32_t) (c.key - key) < 0) {
			continue; /* an earlier message's timestamp, after its deadline */
		}
		if (c.key != key) {
			return -EPROTO;
		}
		*ret = c.ts;
		return 0;
	}
}

void transport_sock_rx_ts(const struct msghdr *msg, bool hardware, struct transport_rx_info *ret)
{
	struct hwtstamp_cmsg c;

	hwtstamp_parse_cmsg(msg, hardware, &c);
	ret->has_ts = c.has_ts;
	ret->ts = c.ts;
}

int transport_sock_get_mac(int fd, const char *ifname, uint8_t mac[TRANSPORT_MAC_LEN])
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		return -errno;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, TRANSPORT_MAC_LEN);
	return 0;
}
