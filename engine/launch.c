/*
 * Spawning plans.  See launch.h.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "xmalloc.h"

int
launch_listen(int *port, char *err, size_t errlen)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)*port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(fd, 511) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		snprintf(err, errlen, "cannot listen on 127.0.0.1:%d: %s",
		    *port, strerror(errno));
		close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

static void
launch_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char	slab[65536];

	buf->base = slab;
	buf->len = sizeof slab;
}

static void
launch_freed(uv_handle_t *h)
{
	free(h);
}

static void
launch_out_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct launch	*l = s->data;

	if (nread < 0) {
		uv_close((uv_handle_t *)s, launch_freed);
		if (l->out == (uv_pipe_t *)s)
			l->out = NULL;
		return;
	}
	if (nread > 0 && l->on_output != NULL)
		l->on_output(l->arg, buf->base, (size_t)nread);
}

/* bwrap --info-fd: {"child-pid": N} names the sandbox's PID 1. */
static void
launch_info_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct launch	*l = s->data;
	const cJSON	*pid;
	cJSON		*j;
	size_t		 n;

	if (nread > 0) {
		n = (size_t)nread;
		if (n > sizeof l->infobuf - 1 - l->ninfo)
			n = sizeof l->infobuf - 1 - l->ninfo;
		memcpy(l->infobuf + l->ninfo, buf->base, n);
		l->ninfo += n;
		l->infobuf[l->ninfo] = '\0';
		if ((j = cJSON_Parse(l->infobuf)) != NULL) {
			pid = cJSON_GetObjectItemCaseSensitive(j, "child-pid");
			if (cJSON_IsNumber(pid))
				l->shim_pid = (pid_t)pid->valueint;
			cJSON_Delete(j);
		}
		return;
	}
	uv_close((uv_handle_t *)s, launch_freed);
	if (l->info == (uv_pipe_t *)s)
		l->info = NULL;
}

static void
launch_exited(uv_process_t *proc, int64_t status, int sig)
{
	struct launch	*l = proc->data;

	/* Nothing of it may outlive it. */
	if (l->shim_pid > 0)
		kill(l->shim_pid, SIGKILL);
	if (l->pid > 0)
		kill(-l->pid, SIGKILL);
	uv_close((uv_handle_t *)proc, launch_freed);
	l->proc = NULL;
	l->pid = l->shim_pid = 0;
	if (l->on_exit != NULL)
		l->on_exit(l->arg, status, sig);
}

static uv_pipe_t *
launch_pipe(uv_loop_t *loop, struct launch *l, int fd, uv_read_cb cb)
{
	uv_pipe_t	*p = xcalloc(1, sizeof *p);

	uv_pipe_init(loop, p, 0);
	p->data = l;
	uv_pipe_open(p, fd);
	uv_read_start((uv_stream_t *)p, launch_alloc, cb);
	return p;
}

int
launch_start(uv_loop_t *loop, struct launch *l, const struct plan *plan,
    const char *cwd, int inbound_fd, int seccomp_fd, char *err,
    size_t errlen)
{
	uv_process_options_t	 opt;
	uv_stdio_container_t	 stdio[6];
	int			 outfd[2] = { -1, -1 }, infofd[2] = { -1, -1 };
	int			 rv, sandboxed, i;

	sandboxed = strcmp(plan->isolation, "bubblewrap") == 0;
	if (pipe2(outfd, O_CLOEXEC) == -1 || (sandboxed &&
	    pipe2(infofd, O_CLOEXEC) == -1)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		rv = -1;
		goto out;
	}
	memset(stdio, 0, sizeof stdio);
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = outfd[1];
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = outfd[1];
	stdio[3].flags = inbound_fd != -1 ? UV_INHERIT_FD : UV_IGNORE;
	stdio[3].data.fd = inbound_fd;
	stdio[4].flags = sandboxed ? UV_INHERIT_FD : UV_IGNORE;
	stdio[4].data.fd = infofd[1];
	stdio[5].flags = sandboxed && seccomp_fd != -1 ? UV_INHERIT_FD :
	    UV_IGNORE;
	stdio[5].data.fd = seccomp_fd;

	memset(&opt, 0, sizeof opt);
	opt.file = plan->argv[0];
	opt.args = plan->argv;
	opt.env = plan->env;
	opt.cwd = cwd;
	/* Its own session and process group: a stop reaches all of it. */
	opt.flags = UV_PROCESS_DETACHED;
	opt.stdio = stdio;
	opt.stdio_count = sandboxed ? (seccomp_fd != -1 ? 6 : 5) :
	    inbound_fd != -1 ? 4 : 3;
	opt.exit_cb = launch_exited;

	l->proc = xcalloc(1, sizeof *l->proc);
	l->proc->data = l;
	if ((rv = uv_spawn(loop, l->proc, &opt)) != 0) {
		snprintf(err, errlen, "cannot run %s: %s", plan->argv[0],
		    uv_strerror(rv));
		free(l->proc);
		l->proc = NULL;
		rv = -1;
		goto out;
	}
	l->pid = l->proc->pid;
	l->shim_pid = 0;
	l->ninfo = 0;
	l->out = launch_pipe(loop, l, outfd[0], launch_out_read);
	outfd[0] = -1;
	if (sandboxed) {
		l->info = launch_pipe(loop, l, infofd[0], launch_info_read);
		infofd[0] = -1;
	}
	rv = 0;
out:
	for (i = 0; i < 2; i++) {
		if (outfd[i] != -1)
			close(outfd[i]);
		if (infofd[i] != -1)
			close(infofd[i]);
	}
	return rv;
}

void
launch_signal(struct launch *l, int sig)
{
	if (l->proc == NULL)
		return;
	/* PID 1 of the sandbox forwards TERM to the command's group. */
	if (l->shim_pid > 0)
		kill(l->shim_pid, sig);
	if (l->shim_pid <= 0 || sig == SIGKILL)
		kill(-l->pid, sig);
}

int
launch_running(const struct launch *l)
{
	return l->proc != NULL;
}
