// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tool-sandbox-probe: load the worker's own seccomp filter (worker/sandbox.c) into this process
 * and try what a compromised worker would: one line per attempt, "NAME refused EPERM",
 * "NAME killed SIGSYS" or "NAME allowed". Each attempt runs in a child of its own (a SIGSYS
 * ends only that one). Run it as the workers' user with no_new_privs (setpriv), as phcd starts
 * them. test-attack-04-sandbox.sh reads the lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker/sandbox.h"

static int sock = -1; /* made before the filter, as the worker's packet socket was */
static const char *target;
static pid_t parent;

static int try_bind(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s.sock", target);
	return bind(sock, (struct sockaddr *) &sun, sizeof(sun));
}

static int try_socket(void)
{
	return socket(AF_PACKET, SOCK_RAW, 0);
}

static int try_setsockopt(void)
{
	int one = 1;

	return setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
}

static int try_ptrace(void)
{
	return (int) ptrace(PTRACE_ATTACH, parent, NULL, NULL);
}

static int try_kill(void)
{
	return kill(parent, SIGUSR1);
}

static int try_open_wronly(void)
{
	return open(target, O_WRONLY);
}

static int try_open_create(void)
{
	return open(target, O_RDWR | O_CREAT | O_TRUNC, 0600);
}

static int try_mmap_exec(void)
{
	return mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
			       MAP_FAILED
		       ? -1
		       : 0;
}

static int try_unlisted(void)
{
	return (int) syscall(SYS_chdir, "/");
}

/* What the worker must still do. */
static int try_open_rdonly(void)
{
	return open("/proc/self/status", O_RDONLY | O_CLOEXEC);
}

static int try_kill_self(void)
{
	return kill(getpid(), 0);
}

static const struct {
	const char *name;
	int (*fn)(void);
} probes[] = {
	{ "bind", try_bind },
	{ "socket", try_socket },
	{ "setsockopt", try_setsockopt },
	{ "ptrace", try_ptrace },
	{ "kill-parent", try_kill },
	{ "open-wronly", try_open_wronly },
	{ "open-creat", try_open_create },
	{ "mmap-exec", try_mmap_exec },
	{ "chdir-unlisted", try_unlisted },
	{ "open-rdonly", try_open_rdonly },
	{ "kill-self", try_kill_self },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr,
			"usage: tool-sandbox-probe FILE  (a file the probe must not write)\n");
		return 2;
	}
	target = argv[1];
	parent = getppid();
	sock = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (sock < 0) {
		perror("socket");
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		int status, r;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			r = sandbox_build_and_install("probe");
			if (r < 0) {
				fprintf(stderr, "sandbox_build_and_install: %s\n", strerror(-r));
				_exit(3);
			}
			errno = 0;
			r = probes[i].fn();
			_exit(r >= 0 ? 0 : errno == EPERM ? 1 : 2);
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("waitpid");
			return 1;
		}
		if (WIFSIGNALED(status)) {
			printf("%s killed %s\n", probes[i].name, sigabbrev_np(WTERMSIG(status)));
		} else if (WEXITSTATUS(status) == 0) {
			printf("%s allowed\n", probes[i].name);
		} else if (WEXITSTATUS(status) == 1) {
			printf("%s refused EPERM\n", probes[i].name);
		} else if (WEXITSTATUS(status) == 3) {
			return 1;
		} else {
			printf("%s failed otherwise\n", probes[i].name);
		}
	}
	return 0;
}
