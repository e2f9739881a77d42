// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd-exporter: org.phcd1's state as Prometheus metrics on /metrics, over libmicrohttpd driven
 * from the same sd-event loop as the D-Bus side (one thread, no locks). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <microhttpd.h>
#include <systemd/sd-daemon.h>

#include <config.h>
#include "common/log.h"
#include "exporter/exporter.h"
#include "ptp/util.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/*
 * Connections kept at once. One more evicts the one that made no progress for the longest time
 * (no request answered since it connected or since its last answer): slow clients that trickle
 * a header line now and then (each one restarts libmicrohttpd's idle timeout) are the first to
 * go, and a scrape, answered in milliseconds, always gets its turn (issue 31: 64 such clients
 * starved every scrape for 20 s). libmicrohttpd itself accepts twice as many, so that the one
 * beyond the limit is accepted and its arrival evicts.
 */
#define HTTP_CONNECTIONS 64
#define HTTP_IDLE_TIMEOUT_S 10
/* The first scrape waits this long at most for the first reading of phcd. */
#define FIRST_READ_MAX_USEC (3 * 1000000ULL)

struct http_conn {
	struct http_conn *prev, *next; /* least recent progress first */
	int fd;
	bool evicted;
};

struct server {
	struct MHD_Daemon *httpd;
	struct model model;
	sd_event_source *io, *timer, *first_read;
	struct http_conn *head, *tail;
	size_t n_conns;
	size_t n_evicted; /* of those, shut down and not closed yet */
};

static void conn_unlink(struct server *s, struct http_conn *h)
{
	*(h->prev ? &h->prev->next : &s->head) = h->next;
	*(h->next ? &h->next->prev : &s->tail) = h->prev;
	h->prev = h->next = NULL;
}

static void conn_append(struct server *s, struct http_conn *h)
{
	h->prev = s->tail;
	*(s->tail ? &s->tail->next : &s->head) = h;
	s->tail = h;
}

/* libmicrohttpd's connections, kept in the order of their last progress (see HTTP_CONNECTIONS). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct server *s = cls;
	struct http_conn *h = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (h) {
			conn_unlink(s, h);
			s->n_conns--;
			s->n_evicted -= h->evicted;
			free(h);
			*socket_context = NULL;
		}
		return;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	h = calloc(1, sizeof(*h));
	if (!h || !info) {
		free(h);
		return; /* untracked: libmicrohttpd's own limit and timeout still apply */
	}
	h->fd = info->connect_fd;
	conn_append(s, h);
	s->n_conns++;
	*socket_context = h;
	/* Over the limit: the connection without progress for longest goes (shut down here,
	 * closed by libmicrohttpd when it sees the end of the stream). */
	for (struct http_conn *v = s->head; v && s->n_conns - s->n_evicted > HTTP_CONNECTIONS;
	     v = v->next) {
		if (!v->evicted && v != h) {
			v->evicted = true;
			shutdown(v->fd, SHUT_RDWR);
			s->n_evicted++;
		}
	}
}

/* A request answered: the connection made progress, it goes to the back of the eviction line. */
static void conn_progress(struct server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct http_conn *h = info ? info->socket_context : NULL;

	if (h && !h->evicted) {
		conn_unlink(s, h);
		conn_append(s, h);
	}
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
			       char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE) {
			free(body);
		}
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	}
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	static char index_page[] = "<html><head><title>phcd exporter</title></head><body>"
				   "<h1>phcd exporter</h1><p><a href=\"/metrics\">Metrics</a></p>"
				   "</body></html>\n";
	static char not_found[] = "Not found: the metrics are on /metrics\n";
	static char not_allowed[] = "Only GET and HEAD\n";
	struct server *s = cls;
	char *text;
	size_t len;

	conn_progress(s, c);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
			       strlen(not_allowed), MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/") == 0) {
		return respond(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_page,
			       strlen(index_page), MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/metrics") != 0) {
		return respond(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, strlen(not_found),
			       MHD_RESPMEM_PERSISTENT);
	}
	text = metrics_render(&s->model, &len);
	if (!text) {
		return MHD_NO; /* out of memory: libmicrohttpd closes the connection */
	}
	return respond(c, MHD_HTTP_OK, CONTENT_TYPE, text, len, MHD_RESPMEM_MUST_FREE);
}

/* Arm the timer for libmicrohttpd's next timeout (idle connections), or disarm it. */
static void httpd_rearm(struct server *s)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_timeout(s->httpd, &ms) == MHD_YES) {
		sd_event_source_set_time_relative(s->timer, ms * 1000ULL);
		sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
	}
}

static int on_httpd_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct server *s = userdata;

	MHD_run(s->httpd);
	httpd_rearm(s);
	return 0;
}

static int on_httpd_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	return on_httpd_io(NULL, -1, 0, userdata);
}

/*
 * phcd was read (or is absent), or FIRST_READ_MAX_USEC passed: serve from now on. Until then the
 * listening socket waits, so the first scrape after socket activation sees phcd as it is.
 */
static void serve(void *userdata)
{
	struct server *s = userdata;

	s->first_read = sd_event_source_disable_unref(s->first_read);
	sd_event_source_set_enabled(s->io, SD_EVENT_ON);
	httpd_rearm(s);
}

static int on_first_read_deadline(sd_event_source *src, uint64_t usec, void *userdata)
{
	log_warning("no answer from the system bus within %llu s, serving phcd_up 0 meanwhile",
		    FIRST_READ_MAX_USEC / 1000000ULL);
	serve(userdata);
	return 0;
}

/* --listen ADDR:PORT ([ADDR]:PORT for IPv6): a listening TCP socket. */
static int listen_on(const char *spec)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	_cleanup_free_ char *host = NULL;
	struct addrinfo *ai = NULL;
	const char *colon = strrchr(spec, ':');
	int fd, r, one = 1;
	size_t hlen;

	if (!colon || colon == spec || !colon[1]) {
		return -EINVAL;
	}
	hlen = (size_t) (colon - spec);
	if (spec[0] == '[' && hlen >= 2 && spec[hlen - 1] == ']') {
		host = strndup(spec + 1, hlen - 2);
	} else {
		host = strndup(spec, hlen);
	}
	if (!host) {
		return -ENOMEM;
	}
	r = getaddrinfo(host, colon + 1, &hints, &ai);
	if (r != 0) {
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		freeaddrinfo(ai);
		return r;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: phcd-exporter [--listen ADDR:PORT] [--counter-interval SECONDS]\n"
		   "Serve phcd's state (org.phcd1 on the system bus) as Prometheus metrics on "
		   "/metrics.\n"
		   "Without --listen, the socket comes from systemd (phcd-exporter.socket).\n"
		   "  -l, --listen ADDR:PORT         listen there ([ADDR]:PORT for IPv6)\n"
		   "  -c, --counter-interval SECONDS how often to read the ports' Counters "
		   "(1-3600, default 5)\n"
		   "  -h, --help, --version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "counter-interval", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	_cleanup_(sd_event_unrefp) sd_event *e = NULL;
	struct server s = { 0 };
	struct exporter *x = NULL;
	const char *listen_spec = NULL;
	unsigned long counter_interval = 5;
	const union MHD_DaemonInfo *info;
	char *end;
	int c, fd, r;
	sigset_t mask;

	log_setup("phcd-exporter");
	while ((c = getopt_long(argc, argv, "l:c:h", opts, NULL)) >= 0) {
		switch (c) {
		case 'l':
			listen_spec = optarg;
			break;
		case 'c':
			errno = 0;
			counter_interval = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || counter_interval < 1 ||
			    counter_interval > 3600) {
				log_error("--counter-interval: expected 1-3600 seconds, got '%s'",
					  optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("phcd-exporter %s\n", PHCD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'", argv[optind]);
		return 2;
	}

	if (listen_spec) {
		fd = listen_on(listen_spec);
		if (fd < 0) {
			log_error_errno(fd, "cannot listen on '%s': %m", listen_spec);
			return 1;
		}
	} else {
		r = sd_listen_fds(1);
		if (r != 1 || sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
			log_error("no listening socket from systemd (%d fds): start "
				  "phcd-exporter.socket or give --listen ADDR:PORT",
				  r);
			return 1;
		}
		fd = SD_LISTEN_FDS_START;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	r = sd_event_default(&e);
	if (r >= 0) {
		r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
	}
	if (r >= 0) {
		r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
	}
	if (r < 0) {
		log_error_errno(r, "event loop: %m");
		return 1;
	}

	s.httpd = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, &s,
				   MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
				   2u * HTTP_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
				   (unsigned) HTTP_IDLE_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
				   on_connection, &s, MHD_OPTION_END);
	info = s.httpd ? MHD_get_daemon_info(s.httpd, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!info) {
		log_error("libmicrohttpd did not start");
		return 1;
	}
	/* Both off until phcd was read: serve() turns them on. */
	r = sd_event_add_io(e, &s.io, info->epoll_fd, EPOLLIN, on_httpd_io, &s);
	if (r >= 0) {
		r = sd_event_source_set_enabled(s.io, SD_EVENT_OFF);
	}
	if (r >= 0) {
		r = sd_event_add_time_relative(e, &s.timer, CLOCK_MONOTONIC, 0, 0, on_httpd_timer,
					       &s);
	}
	if (r >= 0) {
		r = sd_event_source_set_enabled(s.timer, SD_EVENT_OFF);
	}
	if (r >= 0) {
		r = sd_event_add_time_relative(e, &s.first_read, CLOCK_MONOTONIC,
					       FIRST_READ_MAX_USEC, 0, on_first_read_deadline, &s);
	}
	if (r >= 0) {
		r = exporter_bus_new(e, &s.model, (unsigned) counter_interval, serve, &s, &x);
	}
	if (r < 0) {
		log_error_errno(r, "setting up: %m");
		return 1;
	}
	sd_notify(0, "READY=1");
	r = sd_event_loop(e);

	exporter_bus_free(x);
	sd_event_source_unref(s.io);
	sd_event_source_unref(s.timer);
	sd_event_source_unref(s.first_read);
	MHD_stop_daemon(s.httpd);
	model_clear(&s.model);
	return r < 0 ? 1 : 0;
}
