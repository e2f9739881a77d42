// SPDX-License-Identifier: GPL-2.0-or-later
/* A client of gpsd's JSON socket on sd-event: each change of what gpsd says, as a time source. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/config-layer.h"
#include "common/log.h"
#include "common/time-util.h"
#include "daemon/backoff.h"
#include "daemon/gpsd-client.h"
#include "daemon/gpsd-json.h"
#include "daemon/gpsd-view.h"

/* gpsd_json(5): JSON reports, with PPS and TOFF (sent only to watchers that ask for pps). */
static const char watch_command[] = "?WATCH={\"enable\":true,\"json\":true,\"pps\":true};\n";

/*
 * Reconnection: 0.5 s doubled at each failure up to 10 s, never giving up (gpsd may come at any
 * time: a receiver plugged in, a package installed); a report from gpsd starts afresh.
 */
static const struct daemon_options reconnect_backoff = {
	.restart_backoff_initial_ms = 500,
	.restart_backoff_max_ms = 10000,
	.restart_limit_burst = UINT32_MAX,
	.restart_limit_interval_sec = UINT32_MAX,
};

#define GPSD_ADDRESS_MAX 128

struct gpsd_client {
	sd_event *event;
	char address[GPSD_ADDRESS_MAX];
	struct sockaddr_storage sa;
	socklen_t sa_len;
	void (*cb)(const struct time_source_report *r, void *userdata);
	void *userdata;
	int fd;
	bool connecting; /* connect() in progress: the io source waits for EPOLLOUT */
	bool answered;	 /* gpsd sent a report on this connection */
	sd_event_source *io;
	sd_event_source *timer; /* down: the next attempt; up: when the report goes stale */
	struct backoff backoff;
	struct gpsd_view view;
	struct time_source_report last;
	bool reported;
	const char *logged_down; /* the reason last logged, so that retries log nothing */
	/* one line being received; discarding: the rest of an overlong line, up to its end */
	char line[GPSD_JSON_LINE_MAX + 2];
	size_t len;
	bool discarding;
	struct gpsd_client_counters counters;
};

static int parse_port(const char *text, uint16_t *ret)
{
	unsigned long v = 0;
	size_t k;

	for (k = 0; text[k]; k++) {
		if (text[k] < '0' || text[k] > '9' || k >= 5) {
			return -EINVAL;
		}
		v = v * 10 + (unsigned long) (text[k] - '0');
	}
	if (k == 0 || v == 0 || v > 65535) {
		return -EINVAL;
	}
	*ret = (uint16_t) v;
	return 0;
}

int gpsd_address_parse(const char *address, struct sockaddr_storage *ret, socklen_t *ret_len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	size_t hlen;
	uint16_t port;

	if (!address || strlen(address) >= GPSD_ADDRESS_MAX) {
		return -EINVAL;
	}
	if (address[0] == '/') {
		struct sockaddr_un *un = (struct sockaddr_un *) ret;
		size_t n = strlen(address);

		if (n >= sizeof(un->sun_path)) {
			return -EINVAL;
		}
		memset(ret, 0, sizeof(*ret));
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, address, n);
		*ret_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n + 1);
		return 0;
	}
	colon = strrchr(address, ':');
	if (!colon || parse_port(colon + 1, &port) < 0) {
		return -EINVAL;
	}
	hlen = (size_t) (colon - address);
	if (hlen >= sizeof(host)) {
		return -EINVAL;
	}
	memcpy(host, address, hlen);
	host[hlen] = '\0';
	if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ret;
		struct in6_addr a;

		host[hlen - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a) != 1) {
			return -EINVAL;
		}
		memset(ret, 0, sizeof(*ret));
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		in6->sin6_addr = a;
		*ret_len = sizeof(*in6);
		return 0;
	}
	{
		struct sockaddr_in *in = (struct sockaddr_in *) ret;
		struct in_addr a;

		if (!strcmp(host, "localhost")) {
			a.s_addr = htonl(INADDR_LOOPBACK);
		} else if (inet_pton(AF_INET, host, &a) != 1) {
			return -EINVAL;
		}
		memset(ret, 0, sizeof(*ret));
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		in->sin_addr = a;
		*ret_len = sizeof(*in);
	}
	return 0;
}

/* The report now, to the callback when it carries a new measurement or says something new. */
static void client_report(struct gpsd_client *c, bool measured)
{
	uint64_t now = time_mono_usec(), deadline;
	struct time_source_report r;

	gpsd_view_report(&c->view, now, &r);
	if (measured || !c->reported || gpsd_view_report_differs(&c->last, &r)) {
		c->last = r;
		c->reported = true;
		c->cb(&r, c->userdata);
	}
	if (c->view.down) {
		return;
	}
	/* up: wake when the report would go stale, and say so */
	deadline = gpsd_view_deadline(&c->view, now);
	if (deadline) {
		(void) sd_event_source_set_time(c->timer, deadline);
		(void) sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
	} else {
		(void) sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
	}
}

static void client_close(struct gpsd_client *c)
{
	c->io = sd_event_source_disable_unref(c->io);
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->connecting = false;
	c->answered = false;
	c->len = 0;
	c->discarding = false;
}

/* Not connected any more (or not yet), for reason: report it, and try again after a backoff. */
static void client_down(struct gpsd_client *c, int error, const char *reason)
{
	uint64_t now = time_mono_usec(), delay = 0;

	if (!c->view.down && !c->connecting && c->fd >= 0) {
		c->counters.disconnects++;
	}
	client_close(c);
	gpsd_view_down(&c->view, reason);
	(void) backoff_next(&c->backoff, &reconnect_backoff, now, &delay);
	if (c->logged_down != reason && error) {
		log_full_errno(LOG_WARNING, error,
			       "gpsd at %s: %s: %m, retrying every %u s at most", c->address,
			       reason, reconnect_backoff.restart_backoff_max_ms / 1000);
	} else if (c->logged_down != reason) {
		log_full(LOG_WARNING, "gpsd at %s: %s, retrying every %u s at most", c->address,
			 reason, reconnect_backoff.restart_backoff_max_ms / 1000);
	}
	c->logged_down = reason;
	client_report(c, false);
	(void) sd_event_source_set_time(c->timer, now + delay);
	(void) sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

static void client_message(struct gpsd_client *c, const struct gpsd_msg *m)
{
	bool measured;

	c->counters.reports++;
	/* gpsd answers: the next loss starts the backoff afresh */
	if (!c->answered) {
		c->answered = true;
		backoff_reset(&c->backoff);
	}
	switch (m->cls) {
	case GPSD_CLASS_VERSION:
		log_full(LOG_INFO, "gpsd at %s: gpsd %s, protocol %d.%d", c->address,
			 m->version.release, m->version.proto_major, m->version.proto_minor);
		return;
	case GPSD_CLASS_ERROR:
		log_full(LOG_WARNING, "gpsd at %s: gpsd says: %s", c->address, m->error_message);
		return;
	case GPSD_CLASS_WATCH:
		if (!m->watch.enable || !m->watch.pps) {
			log_full(LOG_WARNING,
				 "gpsd at %s: gpsd did not enable the watch with PPS and TOFF "
				 "reports (enable %d, pps %d): no time will come",
				 c->address, m->watch.enable, m->watch.pps);
		}
		return;
	default:
		break;
	}
	measured = gpsd_view_take(&c->view, m, time_mono_usec());
	if (m->cls == GPSD_CLASS_TPV || measured) {
		client_report(c, measured);
	}
}

static void client_line(struct gpsd_client *c, const char *line, size_t len)
{
	struct gpsd_msg m;
	int r = gpsd_json_parse(line, len, &m);

	if (r < 0) {
		/* gpsd's output is untrusted input: counted and dropped, logged once */
		if (c->counters.malformed++ == 0) {
			log_full_errno(LOG_WARNING, r,
				       "gpsd at %s: a malformed report (%m), dropped; the next "
				       "are only counted",
				       c->address);
		}
		return;
	}
	client_message(c, &m);
}

/* Split what came into lines; a line longer than the buffer is dropped up to its end. */
static void client_lines(struct gpsd_client *c)
{
	size_t start = 0;

	for (size_t k = 0; k < c->len; k++) {
		if (c->line[k] != '\n') {
			continue;
		}
		if (!c->discarding) {
			client_line(c, c->line + start, k - start);
		}
		c->discarding = false;
		start = k + 1;
	}
	memmove(c->line, c->line + start, c->len - start);
	c->len -= start;
	if (c->len == sizeof(c->line)) {
		if (!c->discarding) {
			c->counters.overlong++;
		}
		c->discarding = true;
		c->len = 0;
	}
}

static int client_connected(struct gpsd_client *c)
{
	ssize_t n = send(c->fd, watch_command, sizeof(watch_command) - 1, MSG_NOSIGNAL);

	if (n < 0) {
		return -errno;
	}
	if ((size_t) n != sizeof(watch_command) - 1) {
		return -EAGAIN; /* a fresh socket takes 50 bytes: a short send is a broken peer */
	}
	c->connecting = false;
	c->counters.connects++;
	(void) sd_event_source_set_io_events(c->io, EPOLLIN);
	gpsd_view_up(&c->view);
	if (c->logged_down) {
		log_full(LOG_INFO, "gpsd at %s: connected", c->address);
	}
	c->logged_down = NULL;
	client_report(c, false);
	return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct gpsd_client *c = userdata;
	ssize_t n;
	int r;

	(void) s;
	(void) revents; /* an error or a hang-up shows in SO_ERROR or read() */
	if (c->connecting) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
			err = errno;
		}
		r = err ? -err : client_connected(c);
		if (r < 0) {
			client_down(c, r, "gpsd: cannot connect");
		}
		return 0;
	}
	n = read(fd, c->line + c->len, sizeof(c->line) - c->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return 0;
	}
	if (n < 0) {
		client_down(c, -errno, "gpsd: connection lost");
		return 0;
	}
	if (n == 0) {
		client_down(c, 0, "gpsd: connection closed");
		return 0;
	}
	c->len += (size_t) n;
	client_lines(c);
	return 0;
}

static void client_connect(struct gpsd_client *c)
{
	int r;

	c->fd = socket(c->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		client_down(c, -errno, "gpsd: no socket");
		return;
	}
	c->connecting = true;
	r = sd_event_add_io(c->event, &c->io, c->fd, EPOLLOUT, on_io, c);
	if (r < 0) {
		client_down(c, r, "gpsd: no socket");
		return;
	}
	if (connect(c->fd, (struct sockaddr *) &c->sa, c->sa_len) == 0) {
		r = client_connected(c);
	} else {
		r = errno == EINPROGRESS ? 0 : -errno;
	}
	if (r < 0) {
		client_down(c, r, "gpsd: cannot connect");
	}
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct gpsd_client *c = userdata;

	(void) s;
	(void) usec;
	if (c->view.down) {
		client_connect(c);
	} else {
		client_report(c, false);
	}
	return 0;
}

int gpsd_client_new(sd_event *e, const char *address,
		    void (*cb)(const struct time_source_report *r, void *userdata), void *userdata,
		    struct gpsd_client **ret)
{
	struct gpsd_client *c;
	int r;

	if (!address) {
		address = GPSD_ADDRESS_DEFAULT;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return -ENOMEM;
	}
	c->fd = -1;
	r = gpsd_address_parse(address, &c->sa, &c->sa_len);
	if (r < 0) {
		free(c);
		return r;
	}
	memcpy(c->address, address, strlen(address) + 1);
	c->event = sd_event_ref(e);
	c->cb = cb;
	c->userdata = userdata;
	gpsd_view_down(&c->view, "gpsd: not connected yet");
	/* the first attempt from the loop, so that no callback runs before *ret is set */
	r = sd_event_add_time(e, &c->timer, CLOCK_MONOTONIC, 0, USEC_PER_MSEC, on_timer, c);
	if (r < 0) {
		gpsd_client_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

struct gpsd_client *gpsd_client_free(struct gpsd_client *c)
{
	if (c) {
		client_close(c);
		sd_event_source_disable_unref(c->timer);
		sd_event_unref(c->event);
		free(c);
	}
	return NULL;
}

const struct gpsd_view *gpsd_client_view(const struct gpsd_client *c)
{
	return &c->view;
}

void gpsd_client_get_counters(const struct gpsd_client *c, struct gpsd_client_counters *ret)
{
	*ret = c->counters;
}
