/*
 * workload: launching the command to profile (source/live, L2). The child
 * blocks on a pipe until the parent has opened its events (which use
 * enable_on_exec), then execs; a close-on-exec pipe tells the parent
 * whether the exec itself worked. A session's stop signals (the
 * command's SIGCHLD, SIGINT, SIGTERM, SIGHUP) are read here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "source/live/live.h"

int live_workload_prepare(struct live_workload *w, char *const argv[])
{
	int go[2], ep[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		/* The parent blocks these for its signalfd; the command gets defaults. */
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		char c;
		ssize_t n;
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127); /* parent gave up */
		execvp(argv[0], argv);
		int e = errno;
		ssize_t wr = write(ep[1], &e, sizeof(e));
		(void)wr;
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(ep[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = ep[0];
	return 0;
}

int live_workload_start(struct live_workload *w)
{
	char c = 1;
	ssize_t n = write(w->go_fd, &c, 1);
	close(w->go_fd);
	w->go_fd = -1;
	if (n != 1)
		return -EPIPE;
	int e = 0;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return -e;
	return 0;
}

void live_workload_cancel(struct live_workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd); /* the child reads EOF and exits */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
	}
}

bool live_workload_reap(struct live_workload *w, int flags, struct live_stops *st)
{
	int status;
	if (w->pid > 0 && waitpid(w->pid, &status, flags) == w->pid) {
		st->status = status;
		w->pid = 0;
		return true;
	}
	return false;
}

bool live_read_stops(int sfd, struct live_workload *w, struct live_stops *st)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (live_workload_reap(w, WNOHANG, st))
				stop = true;
			continue;
		}
		if (!st->signal)
			st->signal = (int)si.ssi_signo;
		st->signals++;
		stop = true;
	}
	return stop;
}
