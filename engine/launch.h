/*
 * Starting a plan as a process: the pipes for its output, the inbound
 * listener handed down as fd 3, bwrap's --info-fd on fd 4 (which names the
 * sandbox's PID 1), its own session and process group, and signals that
 * reach the whole sandbox.  Shared by apps (supervisor.c) and one-off
 * commands (exec.c).
 */
#ifndef SPACEBOX_LAUNCH_H
#define SPACEBOX_LAUNCH_H

#include <sys/types.h>

#include <stdint.h>

#include <uv.h>

#include "plan.h"

/*
 * One running process.  Filled by launch_start; the handles are freed
 * by their close callbacks once the process exits (launch_exited).
 */
struct launch {
	uv_process_t	*proc;
	uv_pipe_t	*out;		/* stdout + stderr */
	uv_pipe_t	*info;		/* bwrap --info-fd */
	char		 infobuf[512];
	size_t		 ninfo;
	pid_t		 pid;		/* bwrap, or the command itself */
	pid_t		 shim_pid;	/* sandbox PID 1, host view, or 0 */

	void		(*on_output)(void *, const char *, size_t);
	void		(*on_exit)(void *, int64_t status, int sig);
	void		*arg;
};

/*
 * Spawn the plan in cwd.  inbound_fd (or -1) becomes fd 3, seccomp_fd
 * (or -1) fd 5.  Returns 0, or -1 with err.  on_exit is called once;
 * everything the process left behind is killed before it is.
 */
int	launch_start(uv_loop_t *, struct launch *, const struct plan *,
	    const char *cwd, int inbound_fd, int seccomp_fd, char *err,
	    size_t errlen);

/*
 * Signal the whole sandbox: its PID 1 (which forwards TERM to the
 * command's group, and whose death ends the PID namespace), or the
 * process group of an unsandboxed command.
 */
void	launch_signal(struct launch *, int sig);

/* 1 while the process runs. */
int	launch_running(const struct launch *);

/*
 * A listening socket on the host's 127.0.0.1:*port (0: any free port,
 * written back): handed to the shim in network-namespace modes.
 */
int	launch_listen(int *port, char *err, size_t errlen);

#endif
