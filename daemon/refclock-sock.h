/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chronyd's SOCK reference clock protocol: one datagram per sample to a Unix socket it binds. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ptp/types.h"

/*
 * One sample for chronyd: at system time sys (CLOCK_REALTIME), the true time (UTC) minus sys is
 * offset; leap is the leap second pending at the end of the UTC day (+1 insert, -1 delete, 0).
 */
struct refclock_sample {
	ns_t sys;
	ns_t offset;
	int leap;
};

/*
 * chronyd reads each datagram as its C struct sock_sample (refclock_sock.c: a struct timeval,
 * the offset in seconds as a double, pulse, leap, padding and a magic number) in the layout of
 * the machine both run on: the size of that struct here.
 */
size_t refclock_sock_sample_size(void);
#define REFCLOCK_SOCK_SAMPLE_MAX 64
#define REFCLOCK_SOCK_MAGIC 0x534f434b /* "SOCK" */

/*
 * Encode s into buf (at least refclock_sock_sample_size() bytes): the time rounded down to the
 * microsecond (the offset is the same a microsecond earlier), leap as chronyd's 0 normal,
 * 1 insert, 2 delete, pulse 0 (the sample carries whole seconds). Returns the size, -EMSGSIZE
 * for a short buffer, -ERANGE for a time before the epoch or a leap other than -1, 0, +1.
 */
int refclock_sock_encode(const struct refclock_sample *s, uint8_t *buf, size_t size);

/*
 * An unbound SOCK_DGRAM socket that sends each sample to path; chronyd may come and go (it
 * unlinks and binds the path again at each start), so nothing is connected and every send names
 * the path. -errno on failure.
 */
int refclock_sock_open(int *ret_fd);
/*
 * Send one sample. 0: the socket accepted it (queued for chronyd); -ENOENT: no socket at path,
 * -ECONNREFUSED: nobody reads it, -EAGAIN: chronyd's queue is full, -ENAMETOOLONG, or another
 * -errno.
 */
int refclock_sock_send(int fd, const char *path, const struct refclock_sample *s);
