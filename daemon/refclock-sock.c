// SPDX-License-Identifier: GPL-2.0-or-later
/* chronyd's SOCK reference clock protocol: one datagram per sample to a Unix socket it binds. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "daemon/refclock-sock.h"

/*
 * The protocol is chronyd's native C struct, so its field positions are this ABI's: this mirror
 * is never filled or sent, only asked where each field sits (offsetof) and how large the whole
 * is. The encoder writes each value at its offset.
 */
struct sock_abi {
	struct timeval tv;
	double offset; /* seconds, true time minus system time */
	int pulse;
	int leap; /* 0 normal, 1 insert, 2 delete */
	int pad;
	int magic;
};

_Static_assert(sizeof(struct sock_abi) <= REFCLOCK_SOCK_SAMPLE_MAX, "a sample fits the buffer");

enum {
	SOCK_LEAP_NORMAL = 0,
	SOCK_LEAP_INSERT = 1,
	SOCK_LEAP_DELETE = 2,
};

size_t refclock_sock_sample_size(void)
{
	return sizeof(struct sock_abi);
}

#define PUT(buf, field, value)                                                     \
	do {                                                                       \
		__typeof__(((struct sock_abi *) 0)->field) v_ = (value);           \
		memcpy((buf) + offsetof(struct sock_abi, field), &v_, sizeof(v_)); \
	} while (0)

int refclock_sock_encode(const struct refclock_sample *s, uint8_t *buf, size_t size)
{
	if (size < sizeof(struct sock_abi)) {
		return -EMSGSIZE;
	}
	if (s->sys < 0 || s->leap < -1 || s->leap > 1) {
		return -ERANGE;
	}
	memset(buf, 0, sizeof(struct sock_abi));
	PUT(buf, tv.tv_sec, (time_t) (s->sys / NS_PER_SEC));
	PUT(buf, tv.tv_usec, (suseconds_t) (s->sys % NS_PER_SEC / 1000));
	PUT(buf, offset, (double) s->offset / NS_PER_SEC);
	PUT(buf, leap,
	    s->leap > 0	  ? SOCK_LEAP_INSERT
	    : s->leap < 0 ? SOCK_LEAP_DELETE
			  : SOCK_LEAP_NORMAL);
	PUT(buf, magic, REFCLOCK_SOCK_MAGIC);
	return (int) sizeof(struct sock_abi);
}

int refclock_sock_open(int *ret_fd)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		return -errno;
	}
	*ret_fd = fd;
	return 0;
}

int refclock_sock_send(int fd, const char *path, const struct refclock_sample *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t buf[REFCLOCK_SOCK_SAMPLE_MAX];
	size_t len = strlen(path);
	ssize_t n;
	int r;

	if (len >= sizeof(sa.sun_path)) {
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, len);
	r = refclock_sock_encode(s, buf, sizeof(buf));
	if (r < 0) {
		return r;
	}
	n = sendto(fd, buf, (size_t) r, MSG_NOSIGNAL, (struct sockaddr *) &sa, sizeof(sa));
	if (n < 0) {
		return -errno;
	}
	return n == r ? 0 : -EMSGSIZE;
}
