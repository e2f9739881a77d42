// SPDX-License-Identifier: GPL-2.0-or-later
/* The local management socket: pmc's raw PTP Management messages on an AF_UNIX datagram socket. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/uds.h"

/* Longer than any Management request pmc sends; a larger datagram is dropped (MSG_TRUNC). */
#define UDS_RX_MAX 1500

struct uds {
	sd_event_source *io;
	int fd;
	char *path;
	bool read_only;
	const struct uds_ops *ops;
	void *userdata;
	struct mgmt_counters cnt;
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

static int uds_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct uds *u = userdata;
	struct uds_peer peer = { .fd = fd, .addr_len = sizeof(peer.addr) };
	struct mgmt_port ports[UDS_PORTS_MAX];
	uint8_t buf[UDS_RX_MAX];
	struct mgmt_request req = { .ingress = MGMT_INGRESS_LOCAL, .set_allowed = !u->read_only };
	struct mgmt_change change;
	struct mgmt_clock c;
	uint64_t malformed = u->cnt.c[MGMT_CNT_MALFORMED];
	bool bad = false;
	ssize_t n;

	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *) &peer.addr,
		     &peer.addr_len);
	if (n < 0) {
		return 0; /* EAGAIN, or a transient error: the next datagram will tell */
	}
	/* Too large for a request, or from an unbound client that no answer could reach. */
	if ((size_t) n > sizeof(buf) || peer.addr_len <= offsetof(struct sockaddr_un, sun_path)) {
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
	if (bind(fd, (const struct sockaddr *) &sa, sizeof(sa)) < 0) {
		return -errno;
	}
	/* The file's mode is the authorization: SET only for those who may write the rw socket. */
	if (chmod(path, read_only ? 0666 : 0660) < 0) {
		r = -errno;
		(void) unlink(path);
		return r;
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
