// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * worker-escape-shim: an LD_PRELOAD test double that plays a compromised phcd-port from inside
 * the real, sandboxed worker (test-attack-04-sandbox.sh). The first time the worker sends
 * through a packet socket once its seccomp filter is on (Seccomp: 2), the shim lists the
 * worker's packet sockets and, on each, tries what an attacker who owns the worker would: send
 * a frame out of another interface of the network namespace ($PHCD_ESCAPE_IFINDEX) by naming it
 * in a sockaddr_ll (sendmsg, sendto, sendmmsg), send a frame of another ethertype through the
 * port's own socket, rebind the socket to that interface, and open new packet and IP sockets.
 * One line on stderr (phcd's log) each:
 *
 *   ESCAPE packet-fd 5 ifindex 2 protocol 0x88f7
 *   ESCAPE sendmsg-other-if fd 5 refused EPERM
 *   ESCAPE socket-packet allowed
 *
 * ("allowed", "refused ERRNO" or "failed ERRNO"), then "ESCAPE done". The frames carry
 * ethertype 0x88B5 (IEEE 802 local experimental) and the text PHCD-ESCAPE, for a capture on the
 * other interface's peer to look for. The worker's own call then goes on as usual.
 *
 * A UDP port's worker (network_transport UDPv4) is tried the same way on each of its UDP sockets:
 * send a datagram with the text PHCD-ESCAPE to $PHCD_ESCAPE_ADDR (an IPv4 address behind the
 * other interface), port 9, by naming it (sendto, sendmsg), connect the socket there, change its
 * multicast interface (setsockopt), and send through it with no address:
 *
 *   ESCAPE udp-fd 6 port 319
 *   ESCAPE udp-sendto-addr fd 6 refused EPERM
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ESCAPE_ETHERTYPE 0x88B5

typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef int (*sendmmsg_fn)(int, struct mmsghdr *, unsigned int, int);

static bool done;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One short line (fmt ends in a newline): vdprintf writes it in one write(2). */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vdprintf(STDERR_FILENO, fmt, ap);
	va_end(ap);
}

static void result(const char *what, int fd, long r, int err)
{
	char where[32] = "";

	if (fd >= 0) {
		snprintf(where, sizeof(where), " fd %d", fd);
	}
	if (r >= 0) {
		say("ESCAPE %s%s allowed\n", what, where);
	} else {
		say("ESCAPE %s%s %s %s\n", what, where, err == EPERM ? "refused" : "failed",
		    strerrorname_np(err) ? strerrorname_np(err) : "?");
	}
}

/* Seccomp: 2 in /proc/self/status (a read-only open, which the filter allows). */
static bool filtered(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return false;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	return strstr(buf, "\nSeccomp:\t2\n") != NULL;
}

static bool is_packet(int fd, struct sockaddr_ll *ret)
{
	socklen_t len = sizeof(*ret);

	memset(ret, 0, sizeof(*ret));
	return getsockname(fd, (struct sockaddr *) ret, &len) == 0 && ret->sll_family == AF_PACKET;
}

/* An IPv4 UDP socket, and its port (getpeername is not on the worker's list: not asked). */
static bool is_udp4(int fd, uint16_t *ret_port)
{
	struct sockaddr_in sin = { 0 };
	socklen_t len = sizeof(sin);
	int type = 0;
	socklen_t tlen = sizeof(type);

	if (getsockname(fd, (struct sockaddr *) &sin, &len) < 0 || sin.sin_family != AF_INET ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 || type != SOCK_DGRAM) {
		return false;
	}
	*ret_port = ntohs(sin.sin_port);
	return true;
}

/* What a compromised UDP worker tries on each of its UDP sockets (the header comment). */
static void attack_udp(sendmsg_fn real_sendmsg, sendto_fn real_sendto, send_fn real_send)
{
	const char *a = getenv("PHCD_ESCAPE_ADDR");
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	char text[] = "PHCD-ESCAPE udp";
	long r;

	if (!a || inet_pton(AF_INET, a, &to.sin_addr) != 1) {
		return;
	}
	for (int fd = 0; fd < 64; fd++) {
		struct iovec iov = { text, sizeof(text) };
		struct msghdr msg = {
			.msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov, .msg_iovlen = 1
		};
		struct ip_mreqn mr = { .imr_ifindex = 1 };
		uint16_t port;

		if (!is_udp4(fd, &port)) {
			continue;
		}
		say("ESCAPE udp-fd %d port %u\n", fd, port);
		errno = 0;
		r = real_sendto(fd, text, sizeof(text), 0, (const struct sockaddr *) &to,
				sizeof(to));
		result("udp-sendto-addr", fd, r, errno);
		errno = 0;
		r = real_sendmsg(fd, &msg, 0);
		result("udp-sendmsg-addr", fd, r, errno);
		errno = 0;
		r = connect(fd, (const struct sockaddr *) &to, sizeof(to));
		result("udp-connect-other", fd, r, errno);
		errno = 0;
		r = setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr));
		result("udp-setsockopt", fd, r, errno);
		/* What the worker may do: to the group its supervisor connected it to (a receiving
		 * socket, connected to nothing, has nowhere to send: EDESTADDRREQ). */
		errno = 0;
		r = real_send(fd, text, sizeof(text), 0);
		result("udp-send-own", fd, r, errno);
	}
}

static size_t frame(uint8_t *buf, const char *tag)
{
	size_t n = 60;

	memset(buf, 0, n);
	memset(buf, 0xff, 6);						       /* broadcast */
	memcpy(buf + 6, (const uint8_t[]){ 0x02, 0, 0, 0xe5, 0xca, 0xbe }, 6); /* local */
	buf[12] = ESCAPE_ETHERTYPE >> 8;
	buf[13] = ESCAPE_ETHERTYPE & 0xff;
	snprintf((char *) buf + 14, n - 14, "PHCD-ESCAPE %s", tag);
	return n;
}

static void attack(void)
{
	sendmsg_fn real_sendmsg = (sendmsg_fn) dlsym(RTLD_NEXT, "sendmsg");
	sendto_fn real_sendto = (sendto_fn) dlsym(RTLD_NEXT, "sendto");
	send_fn real_send = (send_fn) dlsym(RTLD_NEXT, "send");
	sendmmsg_fn real_sendmmsg = (sendmmsg_fn) dlsym(RTLD_NEXT, "sendmmsg");
	const char *e = getenv("PHCD_ESCAPE_IFINDEX");
	int other = e ? atoi(e) : 0;
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ESCAPE_ETHERTYPE),
				  .sll_ifindex = other,
				  .sll_halen = 6,
				  .sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	uint8_t buf[64];
	long r;

	for (int fd = 0; fd < 64; fd++) {
		struct sockaddr_ll sll;
		struct iovec iov = { buf, 0 };
		struct msghdr msg = {
			.msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov, .msg_iovlen = 1
		};
		struct mmsghdr mm = { .msg_hdr = msg };
		struct sockaddr_ll all = { .sll_family = AF_PACKET,
					   .sll_protocol = htons(ETH_P_ALL),
					   .sll_ifindex = other };

		if (!is_packet(fd, &sll)) {
			continue;
		}
		say("ESCAPE packet-fd %d ifindex %d protocol 0x%04x\n", fd, sll.sll_ifindex,
		    ntohs(sll.sll_protocol));
		iov.iov_len = frame(buf, "sendmsg");
		errno = 0;
		r = real_sendmsg(fd, &msg, 0);
		result("sendmsg-other-if", fd, r, errno);
		iov.iov_len = frame(buf, "sendmmsg");
		errno = 0;
		r = real_sendmmsg(fd, &mm, 1, 0);
		result("sendmmsg-other-if", fd, r, errno);
		frame(buf, "sendto");
		errno = 0;
		r = real_sendto(fd, buf, 60, 0, (const struct sockaddr *) &to, sizeof(to));
		result("sendto-other-if", fd, r, errno);
		/* What the worker may do: its own interface, no address (the residual: any type).
		 */
		frame(buf, "own-if");
		errno = 0;
		r = real_send(fd, buf, 60, 0);
		result("send-own-if", fd, r, errno);
		errno = 0;
		r = bind(fd, (const struct sockaddr *) &all, sizeof(all));
		result("bind-other-if", fd, r, errno);
	}
	attack_udp(real_sendmsg, real_sendto, real_send);
	errno = 0;
	r = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	result("socket-packet", -1, r, errno);
	errno = 0;
	r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	result("socket-inet", -1, r, errno);
	say("ESCAPE done\n");
}

static void maybe_attack(int fd)
{
	struct sockaddr_ll sll;
	uint16_t port;

	if (done || !(is_packet(fd, &sll) || is_udp4(fd, &port)) || !filtered()) {
		return;
	}
	done = true;
	attack();
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	sendmsg_fn real = (sendmsg_fn) dlsym(RTLD_NEXT, "sendmsg");

	maybe_attack(fd);
	return real(fd, msg, flags);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen)
{
	sendto_fn real = (sendto_fn) dlsym(RTLD_NEXT, "sendto");

	maybe_attack(fd);
	return real(fd, buf, len, flags, addr, alen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	send_fn real = (send_fn) dlsym(RTLD_NEXT, "send");

	maybe_attack(fd);
	return real(fd, buf, len, flags);
}
