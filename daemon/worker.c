// SPDX-License-Identifier: GPL-2.0-or-later
/* One phcd-port child of the supervisor: acquire its fds, fork+exec, watch it by pidfd, talk IPC.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/sandbox-filter.h"
#include "common/status-page.h"
#include "daemon/worker-sandbox.h"
#include "daemon/worker.h"
#include "ptp/steer.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* The worker's whole environment (worker_env()). */
struct worker_env {
	char tunables[512];
	char vars[3][512];
	char *envp[5];
};

/* A port's sockets, in transport_open_fds()'s order. */
struct sock_list {
	int fd[TRANSPORT_FDS_MAX];
	size_t n;
};

static void sock_list_close(struct sock_list *l)
{
	for (size_t k = 0; k < l->n; k++) {
		if (l->fd[k] >= 0) {
			close(l->fd[k]);
		}
	}
	l->n = 0;
}

struct worker {
	sd_event *event;
	const struct worker_ops *ops;
	void *userdata;
	pid_t pid;
	int pidfd;
	int ipc_fd;
	/* The port's fds, held until they go out with CONFIG (then closed here). */
	struct sock_list socks; /* transport_open_fds()'s */
	int phc_fd;
	int page_fd;
	int filter_fd; /* its seccomp filter (common/sandbox-filter.h), written for its pid */
	/* Its status page, read-only here (status-page.h), and the count last read from it. */
	struct status_page *page;
	uint32_t page_seq;
	sd_event_source *pidfd_src;
	sd_event_source *ipc_src;
	sd_event_source *term_timer;
	sd_event_source *kill_timer;
	bool stopping;
	bool reaped;
	/* Why the supervisor ended it, reported instead of the bare signal. */
	int kill_error;
	char kill_reason[96];
};

static int pidfd_open_(pid_t pid)
{
	return (int) syscall(SYS_pidfd_open, pid, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void worker_release(struct worker *w)
{
	w->pidfd_src = sd_event_source_disable_unref(w->pidfd_src);
	w->ipc_src = sd_event_source_disable_unref(w->ipc_src);
	w->term_timer = sd_event_source_disable_unref(w->term_timer);
	w->kill_timer = sd_event_source_disable_unref(w->kill_timer);
	close_fd(&w->ipc_fd);
	close_fd(&w->pidfd);
	sock_list_close(&w->socks);
	close_fd(&w->phc_fd);
	close_fd(&w->page_fd);
	close_fd(&w->filter_fd);
	w->page = status_page_unmap(w->page);
}

/* The pidfd became readable: the child exited. Reap it and say why it went. */
static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct worker *w = userdata;
	siginfo_t si = { 0 };
	char reason[96];
	int error;

	if (waitid((idtype_t) P_PIDFD, (id_t) w->pidfd, &si, WEXITED | WNOHANG) < 0) {
		return 0;
	}
	if (si.si_pid == 0) {
		return 0;
	}
	w->reaped = true;
	if (w->kill_reason[0]) {
		snprintf(reason, sizeof(reason), "%s", w->kill_reason);
		error = w->kill_error;
	} else if (si.si_code == CLD_EXITED && si.si_status == WORKER_EXIT_SANDBOX) {
		snprintf(reason, sizeof(reason), "could not enter its sandbox (see the log)");
		error = -EPERM;
	} else if (si.si_code == CLD_EXITED) {
		snprintf(reason, sizeof(reason), "exited with status %d", si.si_status);
		error = si.si_status == 0 ? 0 : -ECHILD;
	} else if (si.si_status == SIGSYS) {
		/* worker/sandbox.h: its seccomp filter ended it (the call's number is in the log).
		 */
		snprintf(reason, sizeof(reason),
			 "killed by signal SYS (a system call its sandbox "
			 "forbids)");
		error = -EPERM;
	} else {
		snprintf(reason, sizeof(reason), "killed by signal %s", sigabbrev_np(si.si_status));
		error = -EINTR;
	}
	worker_release(w);
	/* The callback may free w: nothing after it. */
	w->ops->exited(w, error, reason, w->userdata);
	return 0;
}

/*
 * A bad message ends the worker, never the supervisor (docs/security.md, "Steering policy and
 * distrust of workers").
 */
static int on_ipc(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct worker *w = userdata;
	struct ipc_msg m;
	int r;

	r = ipc_recv(fd, &m, NULL, 0, NULL);
	if (r == -EAGAIN || r == -EINTR) {
		return 0;
	}
	if (r == -ECONNRESET || (r < 0 && (revents & EPOLLHUP))) {
		/* The worker closed its end; its exit follows on the pidfd. */
		w->ipc_src = sd_event_source_disable_unref(w->ipc_src);
		return 0;
	}
	if (r < 0) {
		worker_kill(w, -EBADMSG, "sent a malformed message");
		return 0;
	}
	if (!ipc_type_from_worker(m.type)) {
		worker_kill(w, -EBADMSG, "sent a supervisor message type");
		return 0;
	}
	w->ops->message(w, &m, w->userdata);
	return 0;
}

/* A line on stderr from the child, where only async-signal-safe calls are allowed. */
static void child_say(const char *ifname, const char *what, int error)
{
	const char *parts[] = { "phcd: ", ifname, ": ", what, ": ", strerrorname_np(-error), "\n" };

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		if (parts[i]) {
			(void) !write(STDERR_FILENO, parts[i], strlen(parts[i]));
		}
	}
}

/*
 * The child between fork and exec: the IPC socket as fd 3, stdin and stdout on /dev/null,
 * stderr (the log's channel, shared with the supervisor) kept, nothing else open; then the
 * sandbox (worker-sandbox.h) and exec with a fixed environment. The port's socket and PHC follow
 * with CONFIG over SCM_RIGHTS (docs/security.md, "The worker sandbox").
 */
static _Noreturn void worker_exec(const struct worker_config *cfg, int ipc, char **envp)
{
	/* -m: every servo sample on our stderr, the supervisor's (logging_level 7). */
	const char *print = cfg->log_samples ? "-m" : NULL;
	const char *argv[] = { cfg->binary, "--ipc-fd", "3", "-i", cfg->ifname, print, NULL };
	sigset_t all;
	int null, r;

	if (ipc != WORKER_FD_IPC && dup2(ipc, WORKER_FD_IPC) < 0) {
		_exit(WORKER_EXIT_SANDBOX);
	}
	/* dup2 clears FD_CLOEXEC on the copy; the original (if it was fd 3) keeps it. */
	if (ipc == WORKER_FD_IPC && fcntl(ipc, F_SETFD, 0) < 0) {
		_exit(WORKER_EXIT_SANDBOX);
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0) {
		child_say(cfg->ifname, "cannot open /dev/null for the worker", -errno);
		_exit(WORKER_EXIT_SANDBOX);
	}
	/* Opened on 0..2 (closed before): dup2 onto itself left it close-on-exec. */
	if (null <= STDERR_FILENO && fcntl(null, F_SETFD, 0) < 0) {
		_exit(WORKER_EXIT_SANDBOX);
	}
	/* Nothing relative to where phcd was started. */
	if (chdir("/") < 0) {
		_exit(WORKER_EXIT_SANDBOX);
	}
	if (close_range(WORKER_FD_IPC + 1, ~0U, 0) < 0) {
		child_say(cfg->ifname, "cannot close the worker's other fds", -errno);
		_exit(WORKER_EXIT_SANDBOX);
	}
	r = worker_sandbox_enter(&cfg->identity);
	if (r < 0) {
		child_say(cfg->ifname, "cannot enter the worker's sandbox", r);
		_exit(WORKER_EXIT_SANDBOX);
	}
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	execve(cfg->binary, (char *const *) argv, envp);
	child_say(cfg->ifname, cfg->binary, -errno);
	_exit(127);
}

/*
 * The worker's environment, fixed (nothing of ours leaks into it): glibc's restartable sequences
 * off (a single-threaded worker never uses rseq, and with it registered the kernel rewrites its
 * rseq area on every return to user space after a switch, which is most of what a worker's
 * wakeups cost), extending GLIBC_TUNABLES if set, and the sanitizers' options of a test build.
 * Built before fork (the child only execs).
 */
static void worker_env(struct worker_env *e)
{
	static const char *const pass[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS" };
	const char *old = getenv("GLIBC_TUNABLES");
	size_t k = 0;

	/* Tunables of the user's too long to extend here are left out: ours alone then. */
	if ((size_t) snprintf(e->tunables, sizeof(e->tunables),
			      "GLIBC_TUNABLES=%s%sglibc.pthread.rseq=0", old ? old : "",
			      old ? ":" : "") >= sizeof(e->tunables)) {
		snprintf(e->tunables, sizeof(e->tunables), "GLIBC_TUNABLES=glibc.pthread.rseq=0");
	}
	e->envp[k++] = e->tunables;
	for (size_t i = 0; i < ARRAY_SIZE(pass); i++) {
		const char *v = getenv(pass[i]);

		if (v && (size_t) snprintf(e->vars[i], sizeof(e->vars[i]), "%s=%s", pass[i], v) <
				 sizeof(e->vars[i])) {
			e->envp[k++] = e->vars[i];
		}
	}
	e->envp[k] = NULL;
}

static int open_phc(int phc_index)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/ptp%d", phc_index);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int worker_spawn(sd_event *event, const struct worker_config *cfg, const struct worker_ops *ops,
		 void *userdata, struct worker **ret, struct worker_info *info)
{
	struct transport_config tc = {
		.ifindex = cfg->ifindex,
		.ts_request = steer_ts_request(cfg->clock_backend, cfg->time_stamping),
		.peer_delay = cfg->peer_delay,
		.socket_priority = cfg->socket_priority,
		.udp_ttl = cfg->udp_ttl,
		.udp6_scope = cfg->udp6_scope,
		.dscp_event = cfg->dscp_event,
		.dscp_general = cfg->dscp_general,
		/* A SLAVE worker reads them at the Sync's wakeup (worker/port-loop.c). */
		.lazy_general = true,
	};
	struct transport_ts_status st;
	_cleanup_close_ int phc = -1, ours = -1, theirs = -1, pidfd = -1, page_fd = -1, filter = -1;
	_cleanup_(sock_list_close) struct sock_list socks = { .n = 0 };
	_cleanup_free_ struct worker *w = NULL;
	struct worker_env env;
	int sv[2], r;
	pid_t pid;

	memcpy(tc.ptp_dst_mac, cfg->ptp_dst_mac, sizeof(tc.ptp_dst_mac));
	memcpy(tc.p2p_dst_mac, cfg->p2p_dst_mac, sizeof(tc.p2p_dst_mac));
	r = transport_open_fds(cfg->network_transport, &tc, socks.fd, &st);
	if (r < 0) {
		return r;
	}
	socks.n = (size_t) r;
	if (steer_wants_phc(cfg->clock_backend, st.mode == TRANSPORT_TS_MODE_HARDWARE) &&
	    st.phc_index >= 0) {
		phc = open_phc(st.phc_index);
		if (phc < 0) {
			return phc;
		}
	}
	r = status_page_create(&page_fd);
	if (r < 0) {
		return r;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		return -errno;
	}
	ours = sv[0];
	theirs = sv[1];
	/* The worker blocks on its end: clear O_NONBLOCK there (it has its own event loop). */
	fcntl(theirs, F_SETFL, 0);
	r = sandbox_filter_memfd(&filter);
	if (r < 0) {
		return r;
	}
	worker_env(&env);
	w = calloc(1, sizeof(*w));
	if (!w) {
		return -ENOMEM;
	}
	r = status_page_map(page_fd, false, &w->page);
	if (r < 0) {
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		w->page = status_page_unmap(w->page);
		return r;
	}
	if (pid == 0) {
		worker_exec(cfg, theirs, env.envp);
	}
	/* Built here, by the supervisor, for the worker's pid (it may signal only itself): the
	 * worker installs it without libseccomp, keeping none of the memory a build takes. */
	r = sandbox_filter_write(filter, pid);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		w->page = status_page_unmap(w->page);
		return r;
	}
	pidfd = pidfd_open_(pid);
	if (pidfd < 0) {
		r = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		w->page = status_page_unmap(w->page);
		return r;
	}
	w->event = event;
	w->ops = ops;
	w->userdata = userdata;
	w->pid = pid;
	w->pidfd = TAKE_FD(pidfd);
	w->ipc_fd = TAKE_FD(ours);
	w->socks = socks;
	socks.n = 0;
	w->phc_fd = TAKE_FD(phc);
	w->filter_fd = TAKE_FD(filter);
	w->page_fd = TAKE_FD(page_fd);
	r = sd_event_add_io(event, &w->pidfd_src, w->pidfd, EPOLLIN, on_pidfd, w);
	if (r >= 0) {
		r = sd_event_add_io(event, &w->ipc_src, w->ipc_fd, EPOLLIN, on_ipc, w);
	}
	if (r < 0) {
		worker_free(TAKE_PTR(w));
		return r;
	}
	if (info) {
		info->pid = pid;
		info->ts_mode = st.mode;
		info->phc_index = st.phc_index;
		info->hw_error = st.hw_error;
		info->hw_rx_filter = st.mode == TRANSPORT_TS_MODE_HARDWARE ? st.hw_rx_filter : 0;
	}
	*ret = TAKE_PTR(w);
	return 0;
}

int worker_send(struct worker *w, const struct ipc_msg *m)
{
	if (w->ipc_fd < 0) {
		return -ENOTCONN;
	}
	return ipc_send(w->ipc_fd, m, NULL, 0);
}

int worker_send_fds(struct worker *w, const struct ipc_msg *m, const int *fds, size_t n)
{
	if (w->ipc_fd < 0) {
		return -ENOTCONN;
	}
	return ipc_send(w->ipc_fd, m, fds, n);
}

int worker_send_config(struct worker *w, const struct ipc_msg *m)
{
	int fds[IPC_MAX_FDS];
	size_t n = w->socks.n;
	int r;

	_Static_assert(TRANSPORT_FDS_MAX + 3 <= IPC_MAX_FDS,
		       "sockets, page, filter and PHC in one CONFIG");
	if (w->ipc_fd < 0) {
		return -ENOTCONN;
	}
	if (m->type != IPC_CONFIG || n == 0 || w->page_fd < 0 || w->filter_fd < 0) {
		return -EINVAL;
	}
	memcpy(fds, w->socks.fd, n * sizeof(fds[0]));
	fds[n++] = w->page_fd;
	fds[n++] = w->filter_fd;
	if (w->phc_fd >= 0) {
		fds[n++] = w->phc_fd;
	}
	r = ipc_send(w->ipc_fd, m, fds, n);
	if (r < 0) {
		return r;
	}
	/* The worker holds them now: the supervisor keeps no copy. */
	sock_list_close(&w->socks);
	close_fd(&w->phc_fd);
	close_fd(&w->page_fd);
	close_fd(&w->filter_fd);
	return 0;
}

int worker_read_status(struct worker *w, struct ipc_msg *ret)
{
	int r;

	if (w->reaped || w->kill_reason[0] || !w->page) {
		return 0;
	}
	r = status_page_read(w->page, &w->page_seq, ret);
	if (r == -EBADMSG) {
		worker_kill(w, -EBADMSG, "wrote a malformed status page");
	}
	return r;
}

static int on_term_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct worker *w = userdata;

	if (!w->reaped) {
		kill(w->pid, SIGTERM);
	}
	return 0;
}

static int on_kill_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct worker *w = userdata;

	if (!w->reaped) {
		syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
	}
	return 0;
}

void worker_stop(struct worker *w, uint64_t timeout_usec)
{
	struct ipc_msg m = { .type = IPC_SHUTDOWN };
	uint64_t now;

	if (w->stopping || w->reaped) {
		return;
	}
	w->stopping = true;
	(void) worker_send(w, &m);
	sd_event_now(w->event, CLOCK_MONOTONIC, &now);
	sd_event_add_time(w->event, &w->term_timer, CLOCK_MONOTONIC, now + timeout_usec / 2, 0,
			  on_term_timer, w);
	sd_event_add_time(w->event, &w->kill_timer, CLOCK_MONOTONIC, now + timeout_usec, 0,
			  on_kill_timer, w);
}

void worker_kill(struct worker *w, int error, const char *reason)
{
	if (w->reaped) {
		return;
	}
	if (!w->kill_reason[0]) {
		w->kill_error = error;
		snprintf(w->kill_reason, sizeof(w->kill_reason), "%s", reason);
	}
	/* Nothing more from it: a flood of garbage must not keep the loop busy. */
	w->ipc_src = sd_event_source_disable_unref(w->ipc_src);
	syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
}

bool worker_stopping(const struct worker *w)
{
	return w->stopping;
}

struct worker *worker_free(struct worker *w)
{
	if (!w) {
		return NULL;
	}
	if (!w->reaped && w->pidfd >= 0) {
		siginfo_t si;

		syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
		waitid((idtype_t) P_PIDFD, (id_t) w->pidfd, &si, WEXITED);
	}
	worker_release(w);
	free(w);
	return NULL;
}
