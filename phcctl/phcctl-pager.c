// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl's pager: long output goes through less when standard output is a terminal. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "phcctl/phcctl.h"

/* The pager's standard input is the pipe: copy it to the terminal when no pager would start. */
static void copy_through(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(STDOUT_FILENO, buf + done, (size_t) (n - done));

			if (w < 0) {
				_exit(EXIT_FAILED);
			}
			done += w;
		}
	}
	_exit(EXIT_OK);
}

static void pager_exec(const char *pager)
{
	/* less: quit at once when the text fits the screen, colours and no screen clearing. */
	setenv("LESS", "FRSXMK", 0);
	if (pager) {
		execl("/bin/sh", "sh", "-c", pager, (char *) NULL);
	}
	execlp("less", "less", (char *) NULL);
	execlp("more", "more", (char *) NULL);
	copy_through();
}

pid_t phcctl_pager_open(const struct phcctl *c)
{
	const char *pager = getenv("PHCCTL_PAGER");
	int fd[2];
	pid_t pid;

	if (!pager) {
		pager = getenv("PAGER");
	}
	if (c->no_pager || !isatty(STDOUT_FILENO) ||
	    (pager && (!pager[0] || strcmp(pager, "cat") == 0))) {
		return 0;
	}
	if (pipe2(fd, O_CLOEXEC) < 0) {
		return 0; /* no pager: print straight to the terminal */
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return 0;
	}
	if (pid == 0) {
		if (dup2(fd[0], STDIN_FILENO) < 0) {
			_exit(EXIT_FAILED);
		}
		close(fd[1]);
		pager_exec(pager);
	}
	if (dup2(fd[1], STDOUT_FILENO) < 0) {
		log_error_errno(-errno, "pager: %m");
	}
	close(fd[0]);
	close(fd[1]);
	/* The reader may quit first (q in less): the writes then fail, they do not kill phcctl. */
	signal(SIGPIPE, SIG_IGN);
	return pid;
}

void phcctl_pager_close(pid_t pid)
{
	if (pid <= 0) {
		return;
	}
	fflush(stdout);
	close(STDOUT_FILENO);
	/* Ctrl-C belongs to the pager now (less quits on it with K): do not die before it. */
	signal(SIGINT, SIG_IGN);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
	}
}
