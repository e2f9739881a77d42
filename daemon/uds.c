// SPDX-License-Identifier: GPL-2.0-or-later
/* The local management socket: pmc's raw PTP Management messages on an AF_UNIX datagram socket. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/time-util.h"
#include "daemon/uds.h"

/* Longer than any Management request pmc sends; a larger datagram is dropped (MSG_TRUNC). */
#define UDS_RX_MAX 1500
/*
 * Requests per sending uid (SCM_CREDENTIALS): a burst, then a steady rate; the excess is
 * dropped and counted, so that no local user holds the supervisor busy answering. Senders
 * beyond the table share its oldest entry.
 */
#define UDS_RATE_BURST 100
#define UDS_RATE_PER_SEC 50
#define UDS_RATE_SENDERS 16
/* One line about dropped requests at most this often. */
#define UDS_RATE_LOG_NS (10 * NS_PER_SEC)

struct uds_bucket {
	uid_t uid;
	bool used;
	double tokens;
	ns_t last; /* CLOCK_MONOTONIC of the last refill, or of the last use (eviction order) */
};

struct uds {
	sd_event_source *io;
	int fd;
	char *path;
	bool read_only;
	const struct uds_ops *ops;
	void *userdata;
	struct mgmt_counters cnt;
	struct uds_bucket buckets[UDS_RATE_SENDERS];
	uint64_t rate_dropped, rate_logged;
	ns_t rate_log_at;
};

/* Where the current request came from: answers go back there. */
struct uds_peer {
	int fd;
	struct sockaddr_un addr;
	socklen_t addr_len;
};

static int uds_send(void *userdata, const void *buf, size_t len)
{
	struct uds_peer *peer = userdata;

	if (sendto(peer->fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *) &peer->addr,
		   peer->addr_len) < 0) {
		return -errno;
	}
	return 0;
}

static void uds_dropped(struct uds *u, uint64_t before)
{
	if (u->cnt.c[MGMT_CNT_MALFORMED] != before && u->ops->dropped) {
		u->ops->dropped(u->userdata, u->path, u->cnt.c[MGMT_CNT_MALFORMED]);
	}
}

/* May uid send one more request now? Token bucket per uid, refilled at UDS_RATE_PER_SEC. */
static bool uds_rate_take(struct uds *u, uid_t uid, ns_t now)
{
	struct uds_bucket *b = NULL, *oldest = &u->buckets[0];

	for (size_t i = 0; i < UDS_RATE_SENDERS; i++) {
		struct uds_bucket *e = &u->buckets[i];

		if (e->used && e->uid == uid) {
			b = e;
			break;
		}
		if (!e->used || (oldest->used && e->last < oldest->last)) {
			oldest = e;
		}
	}
	if (!b) {
		/* A new sender takes a free entry, or the longest idle one with its tokens. */
		b = oldest;
		if (!b->used) {
			*b = (struct uds_bucket){ .used = true,
						  .tokens = UDS_RATE_BURST,
						  .last = now };
		}
		b->uid = uid;
	}
	b->tokens += (double) (now - b->last) * UDS_RATE_PER_SEC / (double) NS_PER_SEC;
	if (b->tokens > UDS_RATE_BURST) {
		b->tokens = UDS_RATE_BURST;
	}
	b->last = now;
	if (b->tokens < 1) {
		return false;
	}
	b->tokens -= 1;
	return true;
}

static void uds_rate_dropped(struct uds *u, uid_t uid, ns_t now)
{
	u->rate_dropped++;
	if (now - u->rate_log_at >= UDS_RATE_LOG_NS || !u->rate_log_at) {
		log_warning("%s: more than %d requests a second from uid %u: %" PRIu64
			    " dropped (%" PRIu64 " in all)",
			    u->path, UDS_RATE_PER_SEC, (unsigned int) uid,
			    u->rate_dropped - u->rate_logged, u->rate_dropped);
		u->rate_logged = u->rate_dropped;
		u->rate_log_at = now;
	}
}

/* The sender's uid, which the kernel vouches for (SO_PASSCRED): false when none came. */
static bool uds_sender_uid(struct msghdr *msg, uid_t *ret)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*ret = cred.uid;
			return true;
		}
	}
	return false;
}

static int uds_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct uds *u = userdata;
	struct uds_peer peer = { .fd = fd, .addr_len = sizeof(peer.addr) };
	struct mgmt_port ports[UDS_PORTS_MAX];
	uint8_t buf[UDS_RX_MAX];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctrl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_name = &peer.addr,
			      .msg_namelen = sizeof(peer.addr),
			      .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = &ctrl,
			      .msg_controllen = sizeof(ctrl) };
	struct mgmt_request req = { .ingress = MGMT_INGRESS_LOCAL };
	struct mgmt_change change;
	struct mgmt_clock c;
	uint64_t malformed = u->cnt.c[MGMT_CNT_MALFORMED];
	bool bad = false, has_uid;
	uid_t uid = (uid_t) -1;
	ns_t now;
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		return 0; /* EAGAIN, or a transient error: the next datagram will tell */
	}
	peer.addr_len = msg.msg_namelen;
	has_uid = uds_sender_uid(&msg, &uid);
	now = time_mono_ns();
	if (!uds_rate_take(u, uid, now)) {
		uds_rate_dropped(u, uid, now);
		return 0;
	}
	/*
	 * SET: on the read-write socket, and only from root or phcd's own uid (never a worker's,
	 * whatever the file's mode lets connect).
	 */
	req.set_allowed = !u->read_only && has_uid && (uid == 0 || uid == geteuid());
	/* Too large for a request, or from an unbound client that no answer could reach. */
	if ((size_t) n > sizeof(buf) || (msg.msg_flags & MSG_TRUNC) ||
	    peer.addr_len <= offsetof(struct sockaddr_un, sun_path)) {
		u->cnt.c[MGMT_CNT_MALFORMED]++;
		uds_dropped(u, malformed);
		return 0;
	}
	for (size_t i = 0;; i++) {
		int r = u->ops->clock_at(u->userdata, i, &c, ports);

		if (r == -ENOENT) {
			break;
		}
		if (r < 0) {
			continue;
		}
		r = mgmt_handle_frame(&c, buf, (size_t) n, &req, uds_send, &peer, &change, &u->cnt);
		/* Every clock sees the request: a malformed one counts once, not once per clock. */
		bad |= u->cnt.c[MGMT_CNT_MALFORMED] != malformed;
		u->cnt.c[MGMT_CNT_MALFORMED] = malformed;
		if (r >= 0 && change.mask && u->ops->apply) {
			(void) u->ops->apply(u->userdata, i, &change);
		}
	}
	u->cnt.c[MGMT_CNT_MALFORMED] += bad;
	uds_dropped(u, malformed);
	return 0;
}

/* Is a server alive on path? A stale file refuses the connection. */
static bool uds_in_use(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	return fd >= 0 && connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) == 0;
}

static int uds_mkdir_parent(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash;

	if (!dir) {
		return -ENOMEM;
	}
	slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		return 0;
	}
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		return -errno;
	}
	return 0;
}

int uds_new(sd_event *event, const char *path, bool read_only, const struct uds_ops *ops,
	    void *userdata, struct uds **ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	struct uds *u;
	mode_t old_mask;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path));
	r = uds_mkdir_parent(path);
	if (r < 0) {
		return r;
	}
	if (uds_in_use(&sa)) {
		return -EADDRINUSE;
	}
	(void) unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		return -errno;
	}
	/* Every datagram with its sender's credentials: SET only from root and phcd's uid. */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
		return -errno;
	}
	/*
	 * The file is made with its final mode (umask), never chmod()ed by name afterwards: a
	 * path that someone swapped for a symlink between bind() and chmod() would hand that mode
	 * to the link's target. Who may connect: everyone to the read-only socket (0666), root
	 * and phcd's group to the read-write one (0660).
	 */
	old_mask = umask(read_only ? 0111 : 0117);
	r = bind(fd, (const struct sockaddr *) &sa, sizeof(sa));
	umask(old_mask);
	if (r < 0) {
		return -errno;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		(void) unlink(path);
		return -ENOMEM;
	}
	u->fd = -1;
	u->path = strdup(path);
	u->read_only = read_only;
	u->ops = ops;
	u->userdata = userdata;
	if (!u->path) {
		uds_free(u);
		(void) unlink(path);
		return -ENOMEM;
	}
	r = sd_event_add_io(event, &u->io, fd, EPOLLIN, uds_on_io, u);
	if (r < 0) {
		uds_free(u);
		(void) unlink(path);
		return r;
	}
	u->fd = TAKE_FD(fd);
	*ret = u;
	return 0;
}

struct uds *uds_free(struct uds *u)
{
	if (!u) {
		return NULL;
	}
	sd_event_source_disable_unref(u->io);
	if (u->fd >= 0) {
		close(u->fd);
		(void) unlink(u->path);
	}
	free(u->path);
	free(u);
	return NULL;
}
