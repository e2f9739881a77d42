/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A worker's latest STATUS in a page of shared memory: written at will, read once a second. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/ipc.h"

/*
 * The page holds one encoded IPC STATUS datagram (the socket's codec, so its one validating
 * decoder reads both) under a sequence count: odd while the worker writes, even when it is done.
 * The worker rewrites it about twice a second (port-ipc.c, PAGE_PERIOD_NS), without a syscall;
 * the supervisor copies it out on one timer for all its workers, instead of a STATUS datagram and
 * a wakeup per worker a second.
 * State changes, errors and Erbest still go over the socket at once.
 *
 * The worker is not trusted: the supervisor maps the page read-only, copies it before looking at
 * it (the worker may write meanwhile), takes the copy only when the count was even and equal
 * before and after, and decodes it as it decodes a datagram. The memfd is sealed against
 * shrinking, so no worker can make the supervisor's mapping fault.
 */
#define STATUS_PAGE_SIZE 4096

struct status_page {
	uint32_t seq; /* odd: being written */
	uint32_t len; /* of data, at most IPC_MAX_SIZE */
	uint8_t data[IPC_MAX_SIZE];
};

_Static_assert(sizeof(struct status_page) <= STATUS_PAGE_SIZE, "a status page fits one page");

/* Supervisor: a sealed memfd of STATUS_PAGE_SIZE bytes, zeroed (nothing written yet). */
int status_page_create(int *ret_fd);
/* Map fd's page: writable for the worker, read-only for the supervisor. */
int status_page_map(int fd, bool writable, struct status_page **ret);
/* Accepts NULL; returns NULL. */
struct status_page *status_page_unmap(struct status_page *p);
/* Worker: publish m (an IPC_STATUS). -EMSGSIZE or -EINVAL from the encoder. */
int status_page_write(struct status_page *p, const struct ipc_msg *m);
/*
 * Supervisor: copy and decode the page. 1 and *ret when it changed since *seq (which is then
 * updated), 0 when it did not (or nothing was written yet), -EAGAIN when every try found it being
 * written, -EBADMSG when what the worker wrote is not one valid STATUS.
 */
int status_page_read(const struct status_page *p, uint32_t *seq, struct ipc_msg *ret);
