/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport_l2_filter() run by the kernel, for the unit tests: an AF_UNIX datagram pair whose
 * receiving end has the filter attached (the same classic BPF a packet socket runs, over the
 * frame from its Ethernet header on). Include after cmocka.h.
 */
#pragma once
#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "ptp/transport.h"

/* sv[0] sends, sv[1] receives through the lazy (or the event) socket's filter. */
static inline void l2_filter_open(bool lazy, int sv[2])
{
	struct sock_fprog prog;

	transport_l2_filter(lazy, &prog);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)), 0);
}

static inline void l2_filter_close(const int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

/* Does the filter of sv (l2_filter_open()) keep this frame, len bytes? */
static inline bool l2_filter_keeps(const int sv[2], const uint8_t *frame, size_t len)
{
	uint8_t got[1600];

	assert_true(len <= sizeof(got));
	assert_int_equal(send(sv[0], frame, len, 0), (ssize_t) len);
	return recv(sv[1], got, sizeof(got), MSG_DONTWAIT) == (ssize_t) len;
}
