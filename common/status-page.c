// SPDX-License-Identifier: GPL-2.0-or-later
/* A worker's latest STATUS in a page of shared memory: written at will, read once a second. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/status-page.h"

/* A torn copy is retried this often, then left for the next round: a writer cannot hold us. */
#define STATUS_PAGE_TRIES 4

int status_page_create(int *ret_fd)
{
	int fd = memfd_create("phcd-status", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0) {
		return -errno;
	}
	/* Sealed: no shrinking (a fault in the supervisor's mapping), no growing, no unsealing. */
	if (ftruncate(fd, STATUS_PAGE_SIZE) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int status_page_map(int fd, bool writable, struct status_page **ret)
{
	struct stat st;
	void *p;

	/* The worker checks what it was given: a page too short would fault on its first write. */
	if (fstat(fd, &st) < 0) {
		return -errno;
	}
	if (st.st_size < STATUS_PAGE_SIZE) {
		return -EBADF;
	}
	p = mmap(NULL, STATUS_PAGE_SIZE, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED) {
		return -errno;
	}
	*ret = p;
	return 0;
}

struct status_page *status_page_unmap(struct status_page *p)
{
	if (p) {
		munmap(p, STATUS_PAGE_SIZE);
	}
	return NULL;
}

/* A seqlock (the kernel's pattern): count odd, fence, data, fence, count even. */
int status_page_write(struct status_page *p, const struct ipc_msg *m)
{
	uint8_t buf[IPC_MAX_SIZE];
	uint32_t seq = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
	size_t len;
	int r;

	if (m->type != IPC_STATUS) {
		return -EINVAL;
	}
	r = ipc_encode(m, buf, sizeof(buf), &len);
	if (r < 0) {
		return r;
	}
	seq |= 1; /* odd, whatever was there */
	__atomic_store_n(&p->seq, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	p->len = (uint32_t) len;
	memcpy(p->data, buf, len);
	__atomic_store_n(&p->seq, seq + 1, __ATOMIC_RELEASE);
	return 0;
}

int status_page_read(const struct status_page *p, uint32_t *seq, struct ipc_msg *ret)
{
	for (int k = 0; k < STATUS_PAGE_TRIES; k++) {
		struct status_page copy;
		uint32_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE), s2;

		if (s1 & 1) {
			continue;
		}
		if (s1 == *seq) {
			return 0;
		}
		/* Everything below looks at the copy only: the page may change under us. */
		memcpy(&copy, p, sizeof(copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
		if (s1 != s2) {
			continue;
		}
		if (copy.len > sizeof(copy.data) || ipc_decode(copy.data, copy.len, ret) < 0 ||
		    ret->type != IPC_STATUS) {
			return -EBADMSG;
		}
		*seq = s1;
		return 1;
	}
	return -EAGAIN;
}
