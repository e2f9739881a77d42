// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test tool: a compromised phcd-port that asks the supervisor for unicast sockets it should not
 * have (test-attack-17-peer-sockets). phcd runs it instead of the worker (--port-binary); it says
 * HELLO, takes its CONFIG, reports LISTENING as an honest worker would, then sends the requests
 * read from its standard input, one a line, and writes the supervisor's answer to each on standard
 * output, then keeps reporting LISTENING until the supervisor ends it:
 *
 *   req ADDR [SCOPE]    PEER_REQUEST (SCOPE: an ifindex, "+N" the port's plus N)
 *   rel ADDR            PEER_RELEASE
 *   flood N PREFIX      N requests for PREFIX.0.1, PREFIX.0.2, ... (IPv4), each granted pair
 *                       released at once (only the rate limit can refuse them)
 *
 * Answers: "ADDR VERDICT" and, granted, "fds N peer PEER:PORT,PEER:PORT dev IFNAME" from
 * getpeername() and SO_BINDTODEVICE of the sockets that came; a flood: "flood N ms T granted G
 * refused VERDICT R ..." (T its duration in ms).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/ipc.h"

static int ipc = -1;
static int port_ifindex;

static void listening(void)
{
	struct ipc_msg s = { .type = IPC_STATUS };

	s.status.port_state = PORT_STATE_LISTENING;
	s.status.servo_state = SERVO_UNLOCKED;
	(void) ipc_send(ipc, &s, NULL, 0);
}

static int parse_addr(const char *text, const char *scope, struct peer_addr *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (inet_pton(AF_INET, text, ret->bytes) == 1) {
		ret->len = 4;
	} else if (inet_pton(AF_INET6, text, ret->bytes) == 1) {
		ret->len = 16;
	} else {
		return -EINVAL;
	}
	if (scope) {
		ret->scope_id = (uint32_t) (scope[0] == '+' ? port_ifindex + atoi(scope + 1)
							    : atoi(scope));
	}
	return 0;
}

static void describe_fd(int fd, char *buf, size_t size)
{
	struct sockaddr_storage sa = { 0 };
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getpeername(fd, (struct sockaddr *) &sa, &len) == 0) {
		if (sa.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *) &sa)->sin_addr, host,
				  sizeof(host));
			port = ntohs(((struct sockaddr_in *) &sa)->sin_port);
		} else {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *) &sa)->sin6_addr, host,
				  sizeof(host));
			port = ntohs(((struct sockaddr_in6 *) &sa)->sin6_port);
		}
	}
	snprintf(buf, size, "%s:%u", host, port);
}

/* One request and its answer: the verdict, and the fds' peers when granted. */
static enum peer_policy_verdict ask(enum ipc_type type, const struct peer_addr *a, bool quiet)
{
	struct ipc_msg m = { .type = type };
	int fds[IPC_MAX_FDS];
	size_t n = 0;
	char text[INET6_ADDRSTRLEN] = "?";
	int r;

	m.peer = *a;
	inet_ntop(a->len == 4 ? AF_INET : AF_INET6, a->bytes, text, sizeof(text));
	r = ipc_send(ipc, &m, NULL, 0);
	if (r < 0) {
		printf("%s send %s\n", text, strerror(-r));
		exit(1);
	}
	if (type == IPC_PEER_RELEASE) {
		return PEER_POLICY_GRANTED;
	}
	for (;;) {
		r = ipc_recv(ipc, &m, fds, IPC_MAX_FDS, &n);
		if (r < 0) {
			printf("%s recv %s\n", text, strerror(-r));
			exit(1);
		}
		if (m.type == IPC_PEER_SOCKETS) {
			break;
		}
		for (size_t k = 0; k < n; k++) {
			close(fds[k]);
		}
	}
	if (!quiet) {
		printf("%s %s\n", text, peer_policy_verdict_to_string(m.peer_sockets.verdict));
		if (n > 0) {
			char p0[80] = "", p1[80] = "", dev[IF_NAMESIZE + 1] = "";
			socklen_t dl = sizeof(dev) - 1;

			describe_fd(fds[0], p0, sizeof(p0));
			if (n > 1) {
				describe_fd(fds[1], p1, sizeof(p1));
			}
			(void) getsockopt(fds[0], SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
			printf("fds %zu peer %s,%s dev %s\n", n, p0, p1, dev);
		}
	}
	for (size_t k = 0; k < n; k++) {
		close(fds[k]);
	}
	return m.peer_sockets.verdict;
}

static void flood(unsigned int n, const char *prefix)
{
	unsigned int granted = 0, refused[_PEER_POLICY_MAX] = { 0 };
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (unsigned int k = 0; k < n; k++) {
		char text[96];
		struct peer_addr a;
		enum peer_policy_verdict v;

		snprintf(text, sizeof(text), "%.63s.%u.%u", prefix, ((k + 1) >> 8) & 0xff,
			 (k + 1) & 0xff);
		if (parse_addr(text, NULL, &a) < 0) {
			printf("flood: bad prefix %s\n", prefix);
			exit(1);
		}
		v = ask(IPC_PEER_REQUEST, &a, true);
		if (v == PEER_POLICY_GRANTED) {
			granted++;
			(void) ask(IPC_PEER_RELEASE, &a, true);
		} else {
			refused[v]++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("flood %u ms %lld granted %u refused", n,
	       (long long) ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000),
	       granted);
	for (int v = 1; v < _PEER_POLICY_MAX; v++) {
		if (refused[v]) {
			printf(" %s %u", peer_policy_verdict_to_string(v), refused[v]);
		}
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct ipc_msg m = { .type = IPC_HELLO };
	int fds[IPC_MAX_FDS], r;
	char line[256];
	size_t n = 0;

	for (int k = 1; k + 1 < argc; k++) {
		if (!strcmp(argv[k], "--ipc-fd")) {
			ipc = atoi(argv[k + 1]);
		}
	}
	if (ipc < 0) {
		fprintf(stderr, "usage: tool-peer-asker --ipc-fd N < script\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	m.hello.protocol_version = IPC_VERSION;
	m.hello.pid = (int32_t) getpid();
	if (ipc_send(ipc, &m, NULL, 0) < 0 || ipc_recv(ipc, &m, fds, IPC_MAX_FDS, &n) < 0 ||
	    m.type != IPC_CONFIG) {
		fprintf(stderr, "tool-peer-asker: no CONFIG\n");
		return 1;
	}
	for (size_t k = 0; k < n; k++) {
		close(fds[k]);
	}
	port_ifindex = (int) if_nametoindex(m.config.ifname);
	printf("port %s ifindex %d transport %d peers_max %u\n", m.config.ifname, port_ifindex,
	       (int) m.config.port.network_transport, m.config.port.unicast_peers_max);
	listening();
	while (fgets(line, sizeof(line), stdin)) {
		char verb[16], arg1[64], arg2[64];
		int got = sscanf(line, "%15s %63s %63s", verb, arg1, arg2);
		struct peer_addr a;

		if (got >= 2 && !strcmp(verb, "flood") && got == 3) {
			flood((unsigned int) atoi(arg1), arg2);
			continue;
		}
		if (got < 2 || parse_addr(arg1, got == 3 ? arg2 : NULL, &a) < 0) {
			continue;
		}
		(void) ask(!strcmp(verb, "rel") ? IPC_PEER_RELEASE : IPC_PEER_REQUEST, &a,
			   !strcmp(verb, "rel"));
	}
	printf("done\n");
	(void) fcntl(ipc, F_SETFL, O_NONBLOCK);
	for (;;) {
		listening();
		while ((r = ipc_recv(ipc, &m, fds, IPC_MAX_FDS, &n)) >= 0) {
			for (size_t k = 0; k < n; k++) {
				close(fds[k]);
			}
		}
		if (r == -ECONNRESET) {
			return 0;
		}
		usleep(200000);
	}
}
